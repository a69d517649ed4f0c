// The registry with redis_store joined (registry_kinds::store), against a real server started for
// each test.
#include <flakeid/adapters/redis.hpp>

#include "redis_backend.hpp"
#include "registry_scenarios.hpp"

namespace {

using namespace flakeid_test;

using redis_registry_test = redis_test;

TEST_F(redis_registry_test, two_registries_share_a_store) {
  EXPECT_TRUE(registries_share("redis://" + b.server.address(),
                               twitter_kinds().store<flakeid::redis_store>("redis")));
}

}  // namespace
