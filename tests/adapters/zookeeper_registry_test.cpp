// The registry with zookeeper_store joined (registry_kinds::store, the host list after
// `zookeeper://`), against a real ZooKeeper server started for each test.
#include <flakeid/adapters/zookeeper.hpp>

#include <string>
#include <string_view>

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
  EXPECT_TRUE(
      registries_share("zookeeper://" + b.server.hosts(),
                       twitter_kinds().store<flakeid::zookeeper_store>("zookeeper", hosts)));
}

}  // namespace
