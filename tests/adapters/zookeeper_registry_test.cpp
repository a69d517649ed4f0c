// The registry with zookeeper_store joined (registry_kinds::store, the host list after
// `zookeeper://`), against a real ZooKeeper server started for each test.
#include <flakeid/adapters/zookeeper.hpp>

#include "registry_scenarios.hpp"
#include "zookeeper_backend.hpp"

namespace {

using namespace flakeid_test;

using zookeeper_registry_test = server_test<zookeeper_backend>;

TEST_F(zookeeper_registry_test, two_registries_share_a_store) {
  // The host list after `zookeeper://` is what zookeeper_store's constructor takes.
  const auto hosts = [](std::string_view uri) {
    return std::string(uri.substr(uri.find("//") + 2));
  };
  const registry_share r = two_registries_share_a_store(
      "zookeeper://" + b.server.hosts(),
      flakeid::registry_kinds::standard().store<flakeid::zookeeper_store>("zookeeper", hosts));
  EXPECT_NE(r.worker_a, r.worker_b);
  EXPECT_EQ(r.gauge_a, static_cast<double>(r.worker_a));
  EXPECT_EQ(r.repeated, 0U) << "numbers handed out by both registries";
  EXPECT_EQ(r.first_number % 50, 1U) << "a chain starts at the first number of a segment";
  EXPECT_TRUE(r.ready) << r.why;
}

}  // namespace
