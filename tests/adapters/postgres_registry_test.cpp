// The registry with postgres_store joined (registry_kinds::store), against a real server started for
// each test.
#include <flakeid/adapters/postgres.hpp>

#include "postgres_backend.hpp"
#include "registry_scenarios.hpp"

namespace {

using namespace flakeid_test;

using postgres_registry_test = postgres_test;

TEST_F(postgres_registry_test, two_registries_share_a_store) {
  const registry_share r = two_registries_share_a_store(
      b.server.uri(),
      flakeid::registry_kinds::standard().store<flakeid::postgres_store>("postgresql"));
  EXPECT_NE(r.worker_a, r.worker_b);
  EXPECT_EQ(r.gauge_a, static_cast<double>(r.worker_a));
  EXPECT_EQ(r.repeated, 0U) << "numbers handed out by both registries";
  EXPECT_EQ(r.first_number % 50, 1U) << "a chain starts at the first number of a segment";
  EXPECT_TRUE(r.ready) << r.why;
}

}  // namespace
