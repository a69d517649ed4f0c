// PostgreSQL leases (postgres_store.lease()) against a real PostgreSQL cluster (initdb + pg_ctl) started for each test.
#include <signal.h>
#include <flakeid/adapters/postgres.hpp>

#include <string>
#include <thread>

#include "cosid_lease_scenarios.hpp"
#include "expect_error.hpp"
#include "instance_scenarios.hpp"
#include "lease_scenarios.hpp"
#include "memory_loss_scenarios.hpp"
#include "postgres_backend.hpp"

namespace {

using namespace flakeid_test;

using postgres_lease_test = postgres_test;

TEST_F(postgres_lease_test, forty_contenders_race_for_thirty_two_ids) { race_40_for_32(b); }
FLAKEID_LEASE_SCENARIOS(postgres_lease_test)
// A restarted server may have lost its last commits: the holder is lost for good, and a new
// lease takes over (see a_restarted_server_is_lost_memory).
TEST_F(postgres_lease_test, refuses_while_server_is_down_and_resumes) {
  server_outage(b, true, true);
}
FLAKEID_INSTANCE_SCENARIOS(postgres_lease_test)

/// A server whose commits return before their WAL is written (synchronous_commit=off, the WAL
/// written every 10 s) re-initialises when one of its processes is killed: the postmaster
/// stays up, `pg_postmaster_start_time()` with it, and the commits not yet written are gone. The
/// lease's own commits wait for their WAL, so its claim is still there afterwards (a second
/// holder would otherwise take the id at once while this one mints on).
TEST(postgres_lossy_lease_test, a_claim_outlives_a_crash_restart_under_synchronous_commit_off) {
  postgres_cluster server{postgres_config{.settings = " -c wal_writer_delay=10000"}};
  FLAKEID_REQUIRE_SERVER(server.available(), server.missing());
  server.start();
  auto o = quick_options(unique_ns("crash"));
  o.connect_timeout = 30'000ms;
  o.io_timeout = 30'000ms;
  o.wait_for_id = 10'000ms;  // for the id let go a moment before
  const flakeid::postgres_store store{server.conninfo(), store_options_of(o)};
  {
    auto first = store.lease(o);  // makes the table, takes id 0 and lets it go
    ASSERT_EQ(first.acquire(1), 0U);
  }
  auto holder = store.lease(o);
  ASSERT_EQ(holder.acquire(1), 0U);
  const std::string table = "flakeid_lease_" + o.name_space;
  const std::string holder_token = server.query("SELECT holder FROM " + table + " WHERE id = 0");
  ASSERT_FALSE(holder_token.empty());
  const std::string started = server.query("SELECT pg_postmaster_start_time()");
  const std::string backend = server.query(
      "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> "
      "pg_backend_pid() LIMIT 1");
  ASSERT_FALSE(backend.empty()) << "the lease's connection";
  ASSERT_EQ(::kill(std::stoi(backend), SIGKILL), 0);
  // The postmaster ends every backend, re-initialises and recovers; then it answers again.
  for (int i = 0; i < 600 && server.query("SELECT 1") != "1"; ++i)
    std::this_thread::sleep_for(100ms);
  ASSERT_EQ(server.query("SELECT 1"), "1") << "the server did not come back";
  EXPECT_EQ(server.query("SELECT pg_postmaster_start_time()"), started) << "not a crash-restart";
  EXPECT_EQ(server.query("SELECT holder FROM " + table + " WHERE id = 0"), holder_token)
      << "the claim was lost with the commits the server had not written";
}

/// A role with a schema of its own name, made after the lease table was in `public`, found
/// its own table first (`"$user", public`) and took id 0 beside the live holder of id 0 in
/// `public` (2 processes: 2,491,845 of 9,330,000 IDs minted twice): a claim whose session finds
/// the table in two schemas is refused, naming them.
TEST_F(postgres_lease_test, a_lease_table_in_two_schemas_of_the_search_path_is_refused) {
  auto o = quick_options(unique_ns("schemas"));
  auto holder = flakeid::postgres_store{b.server.conninfo(), store_options_of(o)}.lease(o);
  ASSERT_EQ(holder.acquire(1), 0U);
  ASSERT_EQ(b.value_of("CREATE ROLE alice LOGIN; CREATE SCHEMA AUTHORIZATION alice; SELECT 'made'"),
            "made");
  std::string alice = b.server.conninfo();
  alice.replace(alice.find("user=flakeid"), 12, "user=alice");
  auto twin = flakeid::postgres_store{alice, store_options_of(o)}.lease(o);
  expect_error<flakeid::lease_store_error>(
      [&] { (void)twin.acquire(1); },
      "flakeid: postgresql 127.0.0.1:" + std::to_string(b.server.port()) +
          " user alice db postgres: table \"flakeid_lease_" + o.name_space +
          "\" is in schemas alice, public of this session's search_path, and the first is used: "
          "a session whose search_path finds another one takes the ids that holders in this "
          "one hold (keep one of them, where every role's search_path finds it)");
  EXPECT_TRUE(holder.valid());
}

/// The same scenarios with a password and SSL.
using postgres_ssl_lease_test = postgres_ssl_test;

TEST_F(postgres_ssl_lease_test, forty_contenders_race_for_thirty_two_ids) { race_40_for_32(b); }
TEST_F(postgres_ssl_lease_test, refuses_while_server_is_down_and_resumes) {
  server_outage(b, true, true);
}

TEST_F(postgres_lease_test, assigns_datacenter_and_worker_from_the_layout) {
  auto o = quick_options(unique_ns("layout"));
  o.max_ids = 64;
  auto a = flakeid::postgres_store{b.server.conninfo(), store_options_of(o)}.lease(o);
  const flakeid::worker_assignment x = a.assign(flakeid::layouts::twitter);
  EXPECT_EQ(x.node, (flakeid::node_id{0, 0}));
  EXPECT_NE(x.source.find("postgresql 127.0.0.1:"), std::string::npos) << x.source;
}

TEST_F(postgres_lease_test, a_layout_with_22_worker_bits_adds_rows_as_they_are_used) {
  wide_layout_adds_rows_as_used(b, [&](const std::string& ns) {
    EXPECT_EQ(b.server.query("SELECT count(*) FROM flakeid_lease_" + ns + " WHERE id >= 0"), "2");
  });
}

TEST_F(postgres_lease_test, an_older_table_gets_the_instance_column_from_a_claim_that_names_one) {
  an_older_table_gets_the_instance_column_from_a_claim_that_names_one(b);
}
TEST_F(postgres_lease_test, a_claim_records_its_instance_or_none_and_a_release_keeps_it) {
  std::unique_ptr<flakeid::lease> holder;
  (void)a_claim_records_its_instance_or_none(b, holder);
}
TEST_F(postgres_lease_test, six_claims_of_one_instance_record_it_on_one_id) {
  six_claims_of_one_instance_record_it_on_one_id(b, false);
}
TEST_F(postgres_lease_test, six_claims_of_one_instance_on_an_older_table_add_the_column_once) {
  six_claims_of_one_instance_record_it_on_one_id(b, true);
}

TEST_F(postgres_lease_test, a_dropped_table_ends_the_holder_and_makes_the_next_claim_wait) {
  a_dropped_table_is_lost_memory(b);
}
TEST_F(postgres_lease_test, deleted_rows_make_the_next_claim_wait) {
  deleted_rows_are_lost_memory(b);
}
TEST_F(postgres_lease_test, a_restarted_server_drops_the_holder_and_makes_claims_wait) {
  a_restarted_server_is_lost_memory(b);
}

TEST(postgres_lease_unreachable, fails_with_a_clear_error_within_the_connect_timeout) {
  const std::string port = std::to_string(free_port());
  (void)unreachable_lease_error<flakeid::postgres_store>(
      "host=127.0.0.1 port=" + port + " user=x dbname=x",
      "postgresql 127.0.0.1:" + port + " user x db x");
}

// Leases in CosId's `cosid_machine` table (postgres_store.lease(o, postgres_table::cosid)) beside a peer that runs
// CosId's JDBC distributor statements (the scenarios: cosid_lease_scenarios.hpp).
using postgres_cosid_lease_test = cosid_sql_test<postgres_test>;

FLAKEID_COSID_SCENARIOS(postgres_cosid_lease_test)

TEST_F(postgres_cosid_lease_test, claims_guards_and_reverts_rows_as_cosid_does) {
  ASSERT_NO_FATAL_FAILURE(cosid_rows_are_claimed_guarded_and_reverted(b));
}

/// As flakeid's lease table: a role with a schema of its own name made its own `cosid_machine`
/// there and took machine id 0 beside the live holder of 0 in `public`; its claim is refused.
TEST_F(postgres_lease_test, a_cosid_machine_table_in_two_schemas_of_the_search_path_is_refused) {
  auto o = quick_options(unique_ns("cosidschemas"));
  const flakeid::postgres_store store{b.server.conninfo(), store_options_of(o)};
  auto holder = store.lease(o, flakeid::postgres_table::cosid);
  ASSERT_EQ(holder.acquire(1), 0U);
  ASSERT_EQ(b.value_of("CREATE ROLE alice LOGIN; CREATE SCHEMA AUTHORIZATION alice; SELECT 'made'"),
            "made");
  std::string alice = b.server.conninfo();
  alice.replace(alice.find("user=flakeid"), 12, "user=alice");
  auto twin =
      flakeid::postgres_store{alice, store_options_of(o)}.lease(o, flakeid::postgres_table::cosid);
  expect_error<flakeid::lease_store_error>(
      [&] { (void)twin.acquire(1); },
      "flakeid: postgresql 127.0.0.1:" + std::to_string(b.server.port()) +
          " user alice db postgres: table \"cosid_machine\" is in schemas alice, public of this "
          "session's search_path, and the first is used: a session whose search_path finds "
          "another one takes the ids that holders in this one hold (keep one of them, where "
          "every role's search_path finds it)");
  EXPECT_TRUE(holder.valid());
}

}  // namespace
