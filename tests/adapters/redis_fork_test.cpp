// A redis store connection in a forked child: it refuses, and leaves the parent's alone.
#include "fork_scenarios.hpp"
#include "redis_backend.hpp"

namespace flakeid_test {
namespace {

using redis_fork_test = redis_test;

TEST_F(redis_fork_test, forked_child_distributor_refuses_and_the_parents_connection_works) {
  EXPECT_TRUE(forked_child_is_refused_and_the_parent_goes_on(b, "this connection to"));
}

}  // namespace
}  // namespace flakeid_test
