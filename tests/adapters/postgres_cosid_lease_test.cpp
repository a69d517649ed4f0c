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

using postgres_cosid_lease_test = cosid_sql_test<postgres_test>;

FLAKEID_COSID_SCENARIOS(postgres_cosid_lease_test)

TEST_F(postgres_cosid_lease_test, claims_guards_and_reverts_rows_as_cosid_does) {
  ASSERT_NO_FATAL_FAILURE((cosid_rows_are_claimed_guarded_and_reverted(b)));
}

}  // namespace
}  // namespace flakeid_test
