// PostgreSQL leases in CosId's `cosid_machine` table (postgres_store.lease(o, postgres_table::cosid))
// beside a peer that runs CosId's JDBC distributor statements, against a real PostgreSQL cluster
// started for each test (the scenarios: cosid_lease_scenarios.hpp).
#include <flakeid/adapters/postgres.hpp>

#include "cosid_lease_scenarios.hpp"
#include "postgres_backend.hpp"

namespace flakeid_test {
namespace {

// Each test runs a scenario of cosid_lease_scenarios.hpp, which asserts as it goes; a fatal
// failure in it ends the test here.

/// CosId's table made, as its operators make it before its services start.
class postgres_cosid_lease_test : public postgres_test {
 protected:
  void SetUp() override {
    postgres_test::SetUp();
    b.cosid_sql_of().make_table();
  }
};

TEST_F(postgres_cosid_lease_test, refuses_an_instance_idle_other_than_ttl) {
  ASSERT_NO_FATAL_FAILURE((instance_idle_other_than_ttl_is_refused_in_cosid_registries(b)));
}

TEST_F(postgres_cosid_lease_test, a_stable_instance_keeps_its_id) {
  ASSERT_NO_FATAL_FAILURE((a_stable_instance_keeps_its_id_in_cosid_registries(b, sql_peers(b))));
}

TEST_F(postgres_cosid_lease_test, claims_guards_and_reverts_rows_as_cosid_does) {
  ASSERT_NO_FATAL_FAILURE((cosid_rows_are_claimed_guarded_and_reverted(b)));
}

TEST_F(postgres_cosid_lease_test, a_cosid_holder_keeps_its_id_until_its_guard_is_older_than_ttl) {
  ASSERT_NO_FATAL_FAILURE(
      (a_cosid_holder_keeps_its_id_until_its_guard_is_older_than_ttl(b, sql_peers(b))));
}

TEST_F(postgres_cosid_lease_test, cosid_claimers_take_a_flakeid_id_only_after_its_deadline) {
  ASSERT_NO_FATAL_FAILURE(
      (cosid_claimers_take_a_flakeid_id_only_after_its_deadline(b, sql_peers(b))));
}

TEST_F(postgres_cosid_lease_test, a_mixed_fleet_never_holds_an_id_twice) {
  ASSERT_NO_FATAL_FAILURE((a_mixed_fleet_never_holds_an_id_twice(b, sql_peers(b))));
}

TEST_F(postgres_cosid_lease_test, a_flakeid_process_stopped_past_ttl_yields_to_cosid) {
  ASSERT_NO_FATAL_FAILURE((a_stopped_flakeid_process_yields_to_cosid(b, sql_peers(b), false)));
}

TEST_F(postgres_cosid_lease_test, a_flakeid_process_killed_yields_to_cosid) {
  ASSERT_NO_FATAL_FAILURE((a_stopped_flakeid_process_yields_to_cosid(b, sql_peers(b), true)));
}

TEST_F(postgres_cosid_lease_test, deleted_records_make_the_next_claim_wait) {
  ASSERT_NO_FATAL_FAILURE(
      (deleted_cosid_records_make_the_next_claim_wait(b, [&](const std::string& ns) {
        (void)b.cosid_sql_of().exec("DELETE FROM cosid_machine WHERE namespace = '" + ns + "'");
      })));
}

}  // namespace
}  // namespace flakeid_test
