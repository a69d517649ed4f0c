// The registry with mysql_store joined (registry_kinds::store), against a real server started for
// each test.
#include <flakeid/adapters/mysql.hpp>

#include "mysql_backend.hpp"
#include "registry_scenarios.hpp"

namespace {

using namespace flakeid_test;

using mysql_registry_test = mysql_test;

TEST_F(mysql_registry_test, two_registries_share_a_store) {
  EXPECT_TRUE(
      registries_share(b.server.uri(), twitter_kinds().store<flakeid::mysql_store>("mysql")));
}

}  // namespace
