// PostgreSQL leases (postgres_store.lease(), postgres_lease) against a real PostgreSQL cluster (initdb + pg_ctl) started for each test.
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
TEST_F(postgres_lease_test, refuses_while_server_is_down_and_resumes) { server_outage(b, true); }
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
  server_outage(b, true);
}

TEST_F(postgres_lease_test, assigns_datacenter_and_worker_from_the_layout) {
  auto o = quick_options(unique_ns("layout"));
  o.max_ids = 64;
  flakeid::postgres_lease a{b.server.conninfo(), o};
  const flakeid::worker_assignment x = a.assign(flakeid::layouts::twitter);
  EXPECT_EQ(x.node, (flakeid::node_id{0, 0}));
  EXPECT_NE(x.source.find("postgresql 127.0.0.1:"), std::string::npos) << x.source;
}

TEST_F(postgres_lease_test, a_layout_with_22_worker_bits_adds_rows_as_they_are_used) {
  // The baidu layout has 2^22 worker ids: a claim adds the next row, not millions of them.
  auto o = quick_options(unique_ns("wide"));
  flakeid::postgres_lease first{b.server.conninfo(), o};
  flakeid::postgres_lease second{b.server.conninfo(), o};
  EXPECT_EQ(first.assign(flakeid::layouts::baidu).node, (flakeid::node_id{0, 0}));
  EXPECT_EQ(second.assign(flakeid::layouts::baidu).node, (flakeid::node_id{0, 1}));
  EXPECT_EQ(b.server.query("SELECT count(*) FROM flakeid_lease_" + o.name_space + " WHERE id >= 0"),
            "2");
}

/// The first column of the first row `sql` answers ("" for none, "-" for NULL), on a
/// connection of its own (the cluster's `query` keeps the output of earlier queries).
std::string value_of(const postgres_cluster& server, const std::string& sql) {
  flakeid::detail::postgres_connection raw{server.conninfo(), 30s, 30s};
  const flakeid::detail::pg_result r = raw.exec(sql, {});
  if (PQntuples(r.get()) == 0 || PQnfields(r.get()) == 0) return "";
  return PQgetisnull(r.get(), 0, 0) != 0 ? "-" : PQgetvalue(r.get(), 0, 0);
}

/// `id=instance` for every row of namespace `ns`'s lease table, by id ('-' for none).
std::string instances_of(const postgres_cluster& server, const std::string& ns) {
  return value_of(server,
                  "SELECT string_agg(id || '=' || coalesce(instance, '-'), ',' ORDER BY id) "
                  "FROM \"flakeid_lease_" +
                      ns + "\"");
}

TEST_F(postgres_lease_test, an_older_table_gets_the_instance_column_from_a_claim_that_names_one) {
  const std::string ns = unique_ns("old");
  const std::string table = "\"flakeid_lease_" + ns + "\"";
  // The table as the previous version made it, long ago.
  ASSERT_EQ(value_of(b.server,
                     "CREATE TABLE " + table +
                         " (id bigint PRIMARY KEY, holder text, last_unix_ms bigint, "
                         "expires_at timestamptz NOT NULL DEFAULT '-infinity'); INSERT INTO " +
                         table +
                         " (id, expires_at) VALUES (-1, now() - interval '1 day'); SELECT 'made'"),
            "made");
  const std::string has_column =
      "SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('" + table +
      "') AND attname = 'instance' AND NOT attisdropped";
  auto plain = b.make(instance_options(ns, ""));
  EXPECT_EQ(plain->acquire(8), 0U);
  EXPECT_EQ(value_of(b.server, has_column), "0") << "a lease without an instance alters nothing";
  const auto named_options = instance_options(ns, "pod-old");
  auto named = b.make(named_options);
  EXPECT_EQ(named->acquire(8), 1U);
  EXPECT_EQ(value_of(b.server, has_column), "1");
  EXPECT_EQ(instances_of(b.server, ns), "-1=-,0=-,1=pod-old");
  named.reset();
  auto again = b.make(named_options);
  EXPECT_EQ(again->acquire(8), 1U) << "its released id, at once";
  auto another = b.make(instance_options(ns, ""));
  EXPECT_EQ(another->acquire(8), 2U);
  EXPECT_EQ(instances_of(b.server, ns), "-1=-,0=-,1=pod-old,2=-");
}

TEST_F(postgres_lease_test, a_claim_records_its_instance_or_none_and_a_release_keeps_it) {
  const std::string ns = unique_ns("rec");
  auto named_options = instance_options(ns, "pod-x");
  named_options.safe_guard = 300ms;
  auto plain_options = named_options;
  plain_options.instance.clear();
  plain_options.wait_for_id = 60s;  // a bound for a busy machine: the id comes free after 300 ms
  {
    auto named = b.make(named_options);
    EXPECT_EQ(named->acquire(1), 0U);
    EXPECT_EQ(instances_of(b.server, ns), "-1=-,0=pod-x");
  }
  EXPECT_EQ(instances_of(b.server, ns), "-1=-,0=pod-x") << "the release keeps the record";
  {
    // A lease without an instance takes the instance's free id: the record goes.
    auto plain = b.make(plain_options);
    EXPECT_EQ(plain->acquire(1), 0U);
    EXPECT_EQ(instances_of(b.server, ns), "-1=-,0=-");
  }
  auto named_options_waiting = named_options;
  named_options_waiting.wait_for_id = 60s;
  auto named = b.make(named_options_waiting);
  EXPECT_EQ(named->acquire(1), 0U);
  EXPECT_EQ(instances_of(b.server, ns), "-1=-,0=pod-x");
}

/// Six claims of one instance race in namespace `ns` (see `six_store_claims_of_one_instance`):
/// one row records it.
void six_claims_race(postgres_backend& b, const std::string& ns) {
  const auto o = instance_options(ns, "pod-z");
  std::uint64_t id = 0;
  six_store_claims_of_one_instance(
      [&]() -> std::unique_ptr<flakeid::lease_store> {
        return std::make_unique<flakeid::detail::postgres_lease_store>(b.server.conninfo(), o);
      },
      id);
  EXPECT_EQ(id, 0U);
  EXPECT_EQ(instances_of(b.server, ns), "-1=-,0=pod-z");
}

TEST_F(postgres_lease_test, six_claims_of_one_instance_record_it_on_one_id) {
  six_claims_race(b, unique_ns("six"));
}

TEST_F(postgres_lease_test, six_claims_of_one_instance_on_an_older_table_add_the_column_once) {
  const std::string ns = unique_ns("sixold");
  const std::string table = "\"flakeid_lease_" + ns + "\"";
  ASSERT_EQ(value_of(b.server, "CREATE TABLE " + table +
                                   " (id bigint PRIMARY KEY, holder text, last_unix_ms bigint, "
                                   "expires_at timestamptz NOT NULL DEFAULT '-infinity'); "
                                   "INSERT INTO " +
                                   table + " (id, expires_at) VALUES (-1, now()); SELECT 'made'"),
            "made");
  six_claims_race(b, ns);
}

TEST(postgres_lease_unreachable, fails_with_a_clear_error_within_the_connect_timeout) {
  const int port = free_port();
  auto o = quick_options("unreachable");
  o.connect_timeout = 500ms;
  flakeid::postgres_lease l{"host=127.0.0.1 port=" + std::to_string(port) + " user=x dbname=x", o};
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
