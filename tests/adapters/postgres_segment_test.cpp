// postgres_distributor against a real PostgreSQL cluster (initdb + pg_ctl, commits durable)
// started for each test (see postgres_server.hpp).
#include <flakeid/adapters/postgres.hpp>

#include <string>
#include <thread>

#include "expect_error.hpp"
#include "postgres_backend.hpp"

namespace {

using namespace flakeid_test;

using postgres_segment_test = postgres_test;

FLAKEID_SEGMENT_SCENARIOS(postgres_segment_test)
TEST_F(postgres_segment_test, server_outage_drains_the_chain_fails_then_resumes) {
  server_outage(b);
}

/// The same scenarios with a password and SSL.
using postgres_ssl_segment_test = postgres_ssl_test;

FLAKEID_PROCESS_SCENARIOS(postgres_ssl_segment_test)

TEST_F(postgres_segment_test, counts_in_a_table_per_namespace_and_names_the_store) {
  const std::string where = "postgresql 127.0.0.1:" + std::to_string(b.server.port()) +
                            " user flakeid db postgres namespace ";
  std::string table;
  const std::string ns = counts_orders_and_another_key(b, where, "invoices",
                                                       [&](const auto& d) { table = d.table(); });
  EXPECT_EQ(table, "\"flakeid_segment_" + ns + "\"");
  flakeid::detail::postgres_connection raw{b.server.conninfo(), patient, patient};
  const auto r = raw.exec("SELECT key, last_max_id FROM " + table + " ORDER BY key", {});
  ASSERT_EQ(PQntuples(r.get()), 2);
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 0), "invoices");
  EXPECT_STREQ(PQgetvalue(r.get(), 1, 1), "151");
}

TEST_F(postgres_segment_test, a_table_from_before_expiry_and_births_gains_the_columns) {
  const std::string ns = unique_segment_ns("oldtable");
  flakeid::detail::postgres_connection raw{b.server.conninfo(), patient, patient};
  const std::string table = "\"flakeid_segment_" + ns + "\"";
  (void)raw.exec(
      "CREATE TABLE " + table +
          " (key text PRIMARY KEY, last_max_id bigint NOT NULL CHECK (last_max_id >= 0));"
          " INSERT INTO " +
          table + " VALUES ('d@20250318', 40)",
      {});
  auto d = b.store(ns, patient).distributor("d@20250318");
  d.expire_after(1h);
  EXPECT_EQ(d.next_max_id(10), 50U);
  const auto r = raw.exec(
      "SELECT expires_at > now(), expires_at <= now() + "
      "interval '1 hour', length(born) FROM " +
          table + " WHERE key = 'd@20250318'",
      {});
  ASSERT_EQ(PQntuples(r.get()), 1);
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 0), "t");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 1), "t");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 2), "16") << "the row's birth: 64 random bits in hex";
  EXPECT_EQ(d.next_max_id(10), 60U) << "the distributor counts on the row it gave a birth";
}

TEST_F(postgres_segment_test,
       a_counter_made_again_is_refused_by_a_distributor_that_counted_before) {
  a_counter_made_again_is_refused(b, [&](const std::string& ns, const std::string& key) {
    (void)b.value_of("DELETE FROM \"flakeid_segment_" + ns + "\" WHERE key = '" + key + "'");
  });
}

TEST_F(postgres_segment_test, a_counter_gone_back_is_refused_by_a_distributor_above_it) {
  // As a data-only pg_dump of the table restored over it would: the row as it was, its birth
  // too.
  a_counter_gone_back_is_refused(
      b, [&](const std::string& ns, const std::string& key, std::uint64_t n) {
        (void)b.value_of("UPDATE \"flakeid_segment_" + ns + "\" SET last_max_id = " +
                         std::to_string(n) + " WHERE key = '" + key + "' RETURNING key");
      });
}

/// An UNLOGGED table is emptied by a crash restart, and a process started since counted anew
/// from 0 (2 processes, an immediate stop between them: 499,000 of 1,000,000 numbers handed
/// out twice): a new connection refuses it, naming the fix; made LOGGED again, it counts on.
TEST_F(postgres_segment_test, an_unlogged_table_is_refused) {
  const std::string ns = unique_segment_ns("unlogged");
  const flakeid::postgres_store store = b.store(ns, patient);
  EXPECT_EQ(store.distributor("orders").next_max_id(1000), 1000U);
  const std::string table = "\"flakeid_segment_" + ns + "\"";
  ASSERT_EQ(b.value_of("ALTER TABLE " + table + " SET UNLOGGED; SELECT 'altered'"), "altered");
  auto d = store.distributor("orders");
  expect_next_max_id_fails(d, "orders", 1000,
                           "postgresql 127.0.0.1:" + std::to_string(b.server.port()) +
                               " user flakeid db postgres: table " + table +
                               " is UNLOGGED: a crash restart of the server empties it, and a "
                               "process started since counts anew from 0 (ALTER TABLE " +
                               table + " SET LOGGED)");
  expect_next_max_id_fails(d, "orders", 1000,
                           "postgresql 127.0.0.1:" + std::to_string(b.server.port()) +
                               " user flakeid db postgres: table " + table + " is UNLOGGED");
  ASSERT_EQ(b.value_of("ALTER TABLE " + table + " SET LOGGED; SELECT 'altered'"), "altered");
  EXPECT_EQ(d.next_max_id(1000), 2000U);
}

/// A role with a schema of its own name, made after the counters were in `public`, made a
/// table there and counted from 0 again: a session that finds the table in two schemas of its
/// search_path is refused, naming them; the role without the schema counts on.
TEST_F(postgres_segment_test, a_table_in_two_schemas_of_the_search_path_is_refused) {
  const std::string ns = unique_segment_ns("schemas");
  auto d = b.store(ns, patient).distributor("orders");
  EXPECT_EQ(d.next_max_id(1000), 1000U);
  ASSERT_EQ(b.value_of("CREATE ROLE alice LOGIN; CREATE SCHEMA AUTHORIZATION alice; SELECT 'made'"),
            "made");
  std::string alice = b.server.conninfo();
  alice.replace(alice.find("user=flakeid"), 12, "user=alice");
  auto other = flakeid::postgres_store{alice, {.name_space = ns}}.distributor("orders");
  expect_next_max_id_fails(other, "orders", 1000,
                           "postgresql 127.0.0.1:" + std::to_string(b.server.port()) +
                               " user alice db postgres: table \"flakeid_segment_" + ns +
                               "\" is in schemas alice, public of this session's search_path, "
                               "and the first is used: a session whose search_path finds another "
                               "one hands out the numbers of this one again (keep one of them, "
                               "where every role's search_path finds it)");
  EXPECT_EQ(d.next_max_id(1000), 2000U);
}

/// A database whose sessions start in REPEATABLE READ (`ALTER DATABASE ... SET
/// default_transaction_isolation`): a call that waited for another session's update of the row
/// failed with `could not serialize access` (4 processes on one counter: 2 of them stopped on
/// it), and so did claims (6 lease processes under SERIALIZABLE: one claim failed). Each
/// connection of flakeid's runs in READ COMMITTED, and the call counts on after the wait.
TEST_F(postgres_segment_test, a_call_that_waits_for_a_row_lock_counts_under_repeatable_read) {
  const std::string ns = unique_segment_ns("isolation");
  const flakeid::postgres_store store = b.store(ns, patient);
  EXPECT_EQ(store.distributor("orders").next_max_id(10), 10U);
  ASSERT_EQ(b.value_of("ALTER DATABASE postgres SET default_transaction_isolation = 'repeatable "
                       "read'; SELECT 'set'"),
            "set");
  flakeid::detail::postgres_connection other{b.server.conninfo(), patient, patient};
  (void)other.exec("BEGIN; UPDATE \"flakeid_segment_" + ns +
                       "\" SET last_max_id = last_max_id + 100 WHERE key = 'orders'",
                   {});
  auto d = store.distributor("orders");
  std::string outcome;
  std::thread caller([&] {
    try {
      outcome = std::to_string(d.next_max_id(10));
    } catch (const std::exception& e) {
      outcome = e.what();
    }
  });
  bool waiting = false;
  for (int i = 0; i < 600 && !waiting; ++i) {
    waiting =
        b.value_of("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'") == "1";
    if (!waiting) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(waiting) << "the call did not wait for the row lock";
  (void)other.exec("COMMIT", {});
  caller.join();
  EXPECT_EQ(outcome, "120");
}

TEST_F(postgres_segment_test, a_counter_past_bigint_is_a_clear_error) {
  const std::string ns = unique_segment_ns("overflow");
  auto d = b.store(ns, patient).distributor("orders");
  EXPECT_EQ(d.next_max_id(1), 1u);
  flakeid::detail::postgres_connection raw{b.server.conninfo(), patient, patient};
  (void)raw.exec("UPDATE " + d.table() + " SET last_max_id = 9223372036854775000", {});
  expect_next_max_id_fails(d, "orders", 1000,
                           "postgresql 127.0.0.1:" + std::to_string(b.server.port()) +
                               " user flakeid db postgres: ERROR:  bigint out of range");
}

TEST(postgres_segment_unreachable, fails_within_the_connect_timeout_naming_the_store) {
  const std::string port = std::to_string(free_port());
  unreachable<flakeid::postgres_store>("host=127.0.0.1 port=" + port + " user=x dbname=x",
                                       "postgresql 127.0.0.1:" + port + " user x db x");
}

TEST(postgres_store_options, bad_options_throw) {
  EXPECT_THROW(flakeid::postgres_store("host=127.0.0.1 bogus"), std::invalid_argument);
  EXPECT_THROW(flakeid::postgres_store("", {.name_space = "x\"; DROP TABLE t; --"}),
               std::invalid_argument);
  EXPECT_THROW(flakeid::postgres_store("", {.connect_timeout = 0ms}), std::invalid_argument);
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::postgres_store("", {.io_timeout = -5ms}); },
      "flakeid: postgres store io_timeout of -5 ms is too short: use 0 (the default) or more");
  EXPECT_THROW(flakeid::postgres_store("host=127.0.0.1 bogus"), flakeid::invalid_option_error);
}

/// A cluster whose commits return before their WAL is written (synchronous_commit=off, which
/// loses the last commits when the server stops abruptly): the distributor's own commits wait
/// for their WAL, so an immediate stop and a start keep every number handed out.
TEST(postgres_lossy_segment_test, a_counter_survives_a_restart_under_synchronous_commit_off) {
  postgres_cluster server{false};
  FLAKEID_REQUIRE_SERVER(server.available(), server.missing());
  server.start();
  const flakeid::postgres_store store{
      server.conninfo(), {.name_space = "lossy", .connect_timeout = 30s, .io_timeout = 30s}};
  std::uint64_t top = 0;
  {
    auto d = store.distributor("orders");
    for (int i = 0; i < 200; ++i) top = d.next_max_id(1000);
  }
  EXPECT_EQ(top, 200'000U);
  server.stop();  // pg_ctl stop -m immediate
  server.start();
  const std::uint64_t next = store.distributor("orders").next_max_id(1000);
  EXPECT_EQ(next, top + 1000) << "numbers up to " << top << " were handed out; the counter came "
                              << "back at " << next - 1000;
}

}  // namespace
