// A postgres store connection in a forked child: it refuses, and leaves the parent's alone.
#include <flakeid/adapters/postgres.hpp>

#include <chrono>
#include <string>

#include "fork_scenarios.hpp"
#include "test_servers.hpp"

namespace {

using namespace flakeid_test;

struct postgres_backend {
  using distributor_type = flakeid::postgres_distributor;
  postgres_cluster server{true};
  [[nodiscard]] flakeid::postgres_store store(const std::string& ns,
                                              std::chrono::milliseconds timeout) const {
    return flakeid::postgres_store{
        server.conninfo(), {.name_space = ns, .connect_timeout = timeout, .io_timeout = timeout}};
  }
};

TEST(postgres_fork_test, forked_child_distributor_refuses_and_the_parents_connection_works) {
  postgres_backend b;
  FLAKEID_REQUIRE_SERVER(b.server.available(), b.server.missing());
  b.server.start();
  forked_child_distributor_refuses_and_leaves_the_parents_connection(b, "fork");
}

}  // namespace
