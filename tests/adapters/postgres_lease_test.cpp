// PostgreSQL leases (postgres_store.lease()) against a real PostgreSQL cluster (initdb + pg_ctl) started for each test.
#include <flakeid/adapters/postgres.hpp>

#include "lease_scenarios.hpp"
#include "test_servers.hpp"

namespace {

using namespace flakeid_test;

struct postgres_backend {
  postgres_cluster server{true};  // a lease store must keep what it confirmed
  /// Connect timeout for 40 clients connecting at once with TLS (and a password), on a
  /// machine that may be busy: generous, as it bounds the wait only, not the result.
  std::chrono::milliseconds connect_timeout{0};
  std::unique_ptr<flakeid::lease> make(flakeid::lease_options o) {
    if (connect_timeout.count() > 0) o.connect_timeout = connect_timeout;
    // Through the store, as a user holding leases and segments on one database would.
    return lease_from(flakeid::postgres_store{server.conninfo(), store_options_of(o)}, o);
  }
  void stop() { server.stop(); }
  void start() { server.start(); }
  void restart() {
    server.stop();  // pg_ctl stop -m immediate: no shutdown checkpoint
    server.start();
  }
  /// Commits wait for their WAL already; waits (bounded) until the server has run 4 s, longer
  /// than the quick options' ttl + safe_guard, so that its start alone makes no claim wait.
  void settle() const {
    for (int i = 0; i < 600 && value_of("SELECT now() - pg_postmaster_start_time() >= interval "
                                        "'4 seconds'") != "t";
         ++i)
      std::this_thread::sleep_for(100ms);
  }
  [[nodiscard]] static std::string table(const std::string& ns) {
    return "\"flakeid_lease_" + ns + "\"";
  }

  // For the SQL scenarios of lease_scenarios.hpp.
  std::unique_ptr<flakeid::lease_store> store(const flakeid::lease_options& o) const {
    return std::make_unique<flakeid::detail::postgres_lease_store>(server.conninfo(), o);
  }
  void make_older_table(const std::string& ns, std::chrono::milliseconds age) const {
    const std::string table = "\"flakeid_lease_" + ns + "\"";
    ASSERT_EQ(value_of("CREATE TABLE " + table +
                       " (id bigint PRIMARY KEY, holder text, last_unix_ms bigint, "
                       "expires_at timestamptz NOT NULL DEFAULT '-infinity'); INSERT INTO " +
                       table + " (id, expires_at) VALUES (-1, now() - " +
                       std::to_string(age.count()) + " * interval '1 millisecond'); SELECT 'made'"),
              "made");
  }
  [[nodiscard]] std::string has_instance_column(const std::string& ns) const {
    return value_of(
        "SELECT count(*) FROM pg_attribute WHERE attrelid = "
        "to_regclass('\"flakeid_lease_" +
        ns + "\"') AND attname = 'instance' AND NOT attisdropped");
  }
  [[nodiscard]] std::string instances_of(const std::string& ns) const {
    return value_of(
        "SELECT string_agg(id || '=' || coalesce(instance, '-'), ',' ORDER BY id) FROM "
        "\"flakeid_lease_" +
        ns + "\"");
  }
  /// The first column of the first row `sql` answers ("" for none, "-" for NULL), on a
  /// connection of its own (the cluster's `query` keeps the output of earlier queries).
  [[nodiscard]] std::string value_of(const std::string& sql) const {
    flakeid::detail::postgres_connection raw{server.conninfo(), 30s, 30s};
    const flakeid::detail::pg_result r = raw.exec(sql, {});
    if (PQntuples(r.get()) == 0 || PQnfields(r.get()) == 0) return "";
    return PQgetisnull(r.get(), 0, 0) != 0 ? "-" : PQgetvalue(r.get(), 0, 0);
  }
};

class postgres_lease_test : public ::testing::Test {
 protected:
  void SetUp() override {
    FLAKEID_REQUIRE_SERVER(b.server.available(), b.server.missing());
    b.start();
  }
  postgres_backend b;
};

TEST_F(postgres_lease_test, forty_contenders_race_for_thirty_two_ids) { race_40_for_32(b); }
TEST_F(postgres_lease_test, killed_holder_id_returns_after_expiry_and_safe_guard) {
  sigkill_holder(b);
}
// A restarted server may have lost its last commits: the holder is lost for good, and a new
// lease takes over (see a_restarted_server_is_lost_memory).
TEST_F(postgres_lease_test, refuses_while_server_is_down_and_resumes) {
  server_outage(b, true, true);
}
TEST_F(postgres_lease_test, a_stopped_holder_gets_lease_lost_not_ids) { sigstop_holder(b); }
TEST_F(postgres_lease_test, skips_an_id_used_far_ahead_of_this_clock) {
  skips_an_id_used_far_ahead(b);
}
TEST_F(postgres_lease_test, restart_with_clock_moved_back_waits_or_refuses) {
  restart_with_clock_back(b);
}
TEST_F(postgres_lease_test, instance_takes_its_released_id_again) {
  instance_takes_its_released_id_again(b);
}
TEST_F(postgres_lease_test, instance_takes_its_id_again_after_sigkill) {
  instance_takes_its_id_again_after_sigkill(b);
}
TEST_F(postgres_lease_test, a_live_twin_is_refused) { a_live_twin_is_refused(b); }
TEST_F(postgres_lease_test, twins_race_for_one_instance) { twins_race_for_one_instance(b); }

/// The same scenarios with a password and SSL (sslmode=verify-full, CA made at test time).
class postgres_ssl_lease_test : public ::testing::Test {
 protected:
  void SetUp() override {
    FLAKEID_REQUIRE_SERVER(b.server.available(), b.server.missing());
    b.start();
  }
  postgres_backend b{
      postgres_cluster{postgres_config{.durable = true, .password = "S3cr3tPw", .ssl = true}}, 10s};
};

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
  // The baidu layout has 2^22 worker ids: a claim adds the next row, not millions of them.
  auto o = quick_options(unique_ns("wide"));
  auto first = flakeid::postgres_store{b.server.conninfo(), store_options_of(o)}.lease(o);
  auto second = flakeid::postgres_store{b.server.conninfo(), store_options_of(o)}.lease(o);
  EXPECT_EQ(first.assign(flakeid::layouts::baidu).node, (flakeid::node_id{0, 0}));
  EXPECT_EQ(second.assign(flakeid::layouts::baidu).node, (flakeid::node_id{0, 1}));
  EXPECT_EQ(b.server.query("SELECT count(*) FROM flakeid_lease_" + o.name_space + " WHERE id >= 0"),
            "2");
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

TEST_F(postgres_lease_test, deleted_rows_make_the_next_claim_wait) {
  deleted_rows_are_lost_memory(b);
}
TEST_F(postgres_lease_test, a_restarted_server_drops_the_holder_and_makes_claims_wait) {
  a_restarted_server_is_lost_memory(b);
}

TEST(postgres_lease_unreachable, fails_with_a_clear_error_within_the_connect_timeout) {
  const int port = free_port();
  auto o = quick_options("unreachable");
  o.connect_timeout = 500ms;
  auto l =
      flakeid::postgres_store{"host=127.0.0.1 port=" + std::to_string(port) + " user=x dbname=x",
                              store_options_of(o)}
          .lease(o);
  try {
    (void)l.acquire(32);
    FAIL() << "acquired from nowhere";
  } catch (const flakeid::lease_store_error& e) {
    const std::string expected =
        "flakeid: cannot connect to postgresql 127.0.0.1:" + std::to_string(port) +
        " user x db x within 500 ms: ";
    EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
  }
}

}  // namespace
