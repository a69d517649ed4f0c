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

/// CosId's table made, as its operators make it before its services start.
class mysql_cosid_lease_test : public mysql_test {
 protected:
  void SetUp() override {
    mysql_test::SetUp();
    (void)b.raw().exec(flakeid::detail::cosid_machine_schema);
  }
};

TEST_F(mysql_cosid_lease_test, refuses_an_instance_idle_other_than_ttl) {
  ASSERT_NO_FATAL_FAILURE((instance_idle_other_than_ttl_is_refused_in_cosid_registries(b)));
}

TEST_F(mysql_cosid_lease_test, a_stable_instance_keeps_its_id) {
  ASSERT_NO_FATAL_FAILURE((a_stable_instance_keeps_its_id_in_cosid_registries(b, sql_peers(b))));
}

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

TEST_F(mysql_cosid_lease_test, a_cosid_holder_keeps_its_id_until_its_guard_is_older_than_ttl) {
  ASSERT_NO_FATAL_FAILURE(
      (a_cosid_holder_keeps_its_id_until_its_guard_is_older_than_ttl(b, sql_peers(b))));
}

TEST_F(mysql_cosid_lease_test, cosid_claimers_take_a_flakeid_id_only_after_its_deadline) {
  ASSERT_NO_FATAL_FAILURE(
      (cosid_claimers_take_a_flakeid_id_only_after_its_deadline(b, sql_peers(b))));
}

TEST_F(mysql_cosid_lease_test, a_mixed_fleet_never_holds_an_id_twice) {
  ASSERT_NO_FATAL_FAILURE((a_mixed_fleet_never_holds_an_id_twice(b, sql_peers(b))));
}

TEST_F(mysql_cosid_lease_test, a_flakeid_process_stopped_past_ttl_yields_to_cosid) {
  ASSERT_NO_FATAL_FAILURE((a_stopped_flakeid_process_yields_to_cosid(b, sql_peers(b), false)));
}

TEST_F(mysql_cosid_lease_test, a_flakeid_process_killed_yields_to_cosid) {
  ASSERT_NO_FATAL_FAILURE((a_stopped_flakeid_process_yields_to_cosid(b, sql_peers(b), true)));
}

TEST_F(mysql_cosid_lease_test, deleted_records_make_the_next_claim_wait) {
  ASSERT_NO_FATAL_FAILURE(
      (deleted_cosid_records_make_the_next_claim_wait(b, [&](const std::string& ns) {
        (void)b.raw().exec("DELETE FROM cosid_machine WHERE namespace = '" + ns + "'");
      })));
}

}  // namespace
}  // namespace flakeid_test
