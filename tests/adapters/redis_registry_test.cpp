// The registry with redis_store joined (registry_kinds::store), against a real server started for
// each test.
#include <flakeid/adapters/redis.hpp>

#include "redis_backend.hpp"
#include "registry_scenarios.hpp"

namespace {

using namespace flakeid_test;

using redis_registry_test = redis_test;

TEST_F(redis_registry_test, two_registries_share_a_store) {
  const registry_share r = two_registries_share_a_store(
      "redis://" + b.server.address(),
      flakeid::registry_kinds::standard().store<flakeid::redis_store>("redis"));
  EXPECT_NE(r.worker_a, r.worker_b);
  EXPECT_EQ(r.gauge_a, static_cast<double>(r.worker_a));
  EXPECT_EQ(r.repeated, 0U) << "numbers handed out by both registries";
  EXPECT_EQ(r.first_number % 50, 1U) << "a chain starts at the first number of a segment";
  EXPECT_TRUE(r.ready) << r.why;
}

}  // namespace
