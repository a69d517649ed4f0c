// MySQL/MariaDB leases in CosId's `cosid_machine` table (mysql_store.lease(o, mysql_table::cosid))
// beside a peer that runs CosId's JDBC distributor statements, against a real MariaDB server
// started for each test (the scenarios: cosid_lease_scenarios.hpp).
#include <flakeid/adapters/mysql.hpp>

#include "cosid_lease_scenarios.hpp"
#include "expect_error.hpp"
#include "mysql_backend.hpp"

namespace flakeid_test {
namespace {

// Each test runs a scenario of cosid_lease_scenarios.hpp, which asserts as it goes; a fatal
// failure in it ends the test here.

using mysql_cosid_lease_test = cosid_sql_test<mysql_test>;

FLAKEID_COSID_SCENARIOS(mysql_cosid_lease_test)

TEST_F(mysql_cosid_lease_test, claims_guards_and_reverts_rows_as_cosid_does) {
  ASSERT_NO_FATAL_FAILURE((cosid_rows_are_claimed_guarded_and_reverted(b)));
  const auto o = quick_options(unique_ns("leaf"));
  expect_error<flakeid::invalid_option_error>(
      [&] {
        (void)flakeid::mysql_store{b.server.uri(), store_options_of(o)}.lease(
            o, flakeid::mysql_table::leaf);
      },
      "flakeid: mysql store: Leaf keeps no worker ids in MySQL (its snowflake workers register in "
      "ZooKeeper: use zookeeper_leaf_worker); use mysql_table::flakeid or mysql_table::cosid for "
      "a lease");
  auto wide = o;
  wide.instance = std::string(101, 'p');
  expect_error<flakeid::invalid_option_error>(
      [&] { (void)b.make_in(wide, flakeid::mysql_table::cosid); },
      "flakeid: lease instance '" + wide.instance +
          "' has 101 characters: CosId's instance_id holds 1 to 100");
}

}  // namespace
}  // namespace flakeid_test
