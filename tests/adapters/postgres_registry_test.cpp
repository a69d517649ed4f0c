// The registry with postgres_store joined (registry_kinds::store), against a real server started for
// each test.
#include <flakeid/adapters/postgres.hpp>

#include "postgres_backend.hpp"
#include "registry_scenarios.hpp"

namespace {

using namespace flakeid_test;

using postgres_registry_test = postgres_test;

TEST_F(postgres_registry_test, two_registries_share_a_store) {
  EXPECT_TRUE(registries_share(b.server.uri(),
                               twitter_kinds().store<flakeid::postgres_store>("postgresql")));
}

}  // namespace
