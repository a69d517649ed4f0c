// MySQL/MariaDB leases (mysql_store.lease()) against a real MariaDB server
// (mariadb-install-db + mariadbd, commits durable) started for each test.
#include <flakeid/adapters/mysql.hpp>
#include <string>
#include <utility>

#include "cosid_lease_scenarios.hpp"
#include "expect_error.hpp"
#include "instance_scenarios.hpp"
#include "lease_scenarios.hpp"
#include "memory_loss_scenarios.hpp"
#include "mysql_backend.hpp"

namespace {

using namespace flakeid_test;

using mysql_lease_test = mysql_test;

TEST_F(mysql_lease_test, forty_contenders_race_for_thirty_two_ids) { race_40_for_32(b); }
FLAKEID_LEASE_SCENARIOS(mysql_lease_test)
// A restarted server may have lost its last commits: the holder is lost for good, and a new
// lease takes over (see a_restarted_server_is_lost_memory).
TEST_F(mysql_lease_test, refuses_while_server_is_down_and_resumes) { server_outage(b, true, true); }
TEST_F(mysql_lease_test, a_dropped_table_ends_the_holder_and_makes_the_next_claim_wait) {
  a_dropped_table_is_lost_memory(b);
}
TEST_F(mysql_lease_test, deleted_rows_make_the_next_claim_wait) { deleted_rows_are_lost_memory(b); }
TEST_F(mysql_lease_test, a_restarted_server_drops_the_holder_and_makes_claims_wait) {
  a_restarted_server_is_lost_memory(b);
}

/// MariaDB with innodb_flush_log_at_trx_commit=0: a SIGKILL loses up to a second of commits.
class mysql_lossy_lease_test : public mysql_test {
 protected:
  mysql_lossy_lease_test() : mysql_test(false) {}
};

TEST_F(mysql_lossy_lease_test, a_restart_that_lost_commits_makes_claims_wait) {
  a_restarted_server_is_lost_memory(b);
}
FLAKEID_INSTANCE_SCENARIOS(mysql_lease_test)

TEST_F(mysql_lease_test, a_layout_with_22_worker_bits_adds_rows_as_they_are_used) {
  wide_layout_adds_rows_as_used(b, [&](const std::string& ns) {
    auto raw = b.raw();
    const auto r = raw.exec("SELECT COUNT(*), MAX(holder IS NOT NULL) FROM `flakeid_lease_" + ns +
                            "` WHERE id >= 0");
    ASSERT_EQ(r.rows.size(), 1U);
    EXPECT_EQ(r.rows[0].at(0), "2");
    EXPECT_EQ(r.rows[0].at(1), "1");
  });
}

TEST_F(mysql_lease_test, release_records_the_last_timestamp_and_frees_the_row) {
  auto o = quick_options(unique_ns("release"));
  std::string holder_row;
  {
    auto l = flakeid::mysql_store{b.server.uri(), store_options_of(o)}.lease(o);
    EXPECT_EQ(l.acquire(4), 0U);
    EXPECT_NE(l.where().find("mysql 127.0.0.1:"), std::string::npos) << l.where();
  }
  auto raw = b.raw();
  const auto r = raw.exec("SELECT holder IS NULL, last_unix_ms IS NOT NULL FROM `flakeid_lease_" +
                          o.name_space + "` WHERE id = 0");
  ASSERT_EQ(r.rows.size(), 1U);
  EXPECT_EQ(r.rows[0].at(0), "1") << "released";
  EXPECT_EQ(r.rows[0].at(1), "1") << "the last timestamp is kept for the next holder";
}

TEST_F(mysql_lease_test, renewals_and_release_are_committed_under_a_global_autocommit_off) {
  // Sessions that start with autocommit off kept a renewal's or release's UPDATE open until
  // the session ended, when the server rolled it back: the row went back to the claim's
  // expiry while the holder minted up to the deadline it had been confirmed.
  auto o = quick_options(unique_ns("autocommit"));
  (void)b.raw().exec("SET GLOBAL autocommit = 0");
  std::string open;
  {
    auto l = flakeid::mysql_store{b.server.uri(), store_options_of(o)}.lease(o);
    EXPECT_EQ(l.acquire(4), 0U);
    l.renew_now();
    open = b.value_of(
        "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE "
        "trx_rows_modified > 0");
  }
  (void)b.raw().exec("SET GLOBAL autocommit = 1");
  EXPECT_EQ(open, "0") << "transactions that changed rows and are still open";
  EXPECT_EQ(
      b.value_of("SELECT holder IS NULL FROM `flakeid_lease_" + o.name_space + "` WHERE id = 0"),
      "1")
      << "released";
}

TEST_F(mysql_lease_test, a_table_without_transactions_is_refused) {
  // A MyISAM lease table (an operator's, or one converted): SELECT ... FOR UPDATE SKIP LOCKED
  // locks nothing there, and two claimers took one id (8 processes: id 1 held twice).
  auto o = quick_options(unique_ns("myisam"));
  (void)b.raw().exec("CREATE TABLE `flakeid_lease_" + o.name_space +
                     "` (id BIGINT NOT NULL PRIMARY KEY, holder VARCHAR(255) NULL, last_unix_ms "
                     "BIGINT NULL, expires_ms BIGINT NOT NULL, instance VARCHAR(128) CHARACTER "
                     "SET utf8mb4 COLLATE utf8mb4_bin NULL) ENGINE=MyISAM");
  auto l = flakeid::mysql_store{b.server.uri(), store_options_of(o)}.lease(o);
  expect_error<flakeid::lease_store_error>(
      [&] { (void)l.acquire(4); },
      "flakeid: mysql 127.0.0.1:" + std::to_string(b.server.port()) +
          " user flakeid db flakeid: table flakeid_lease_" + o.name_space +
          " uses the MyISAM engine, not InnoDB: without transactions and row locks two "
          "processes can take one id, and a restart can lose the claims (ALTER TABLE "
          "flakeid_lease_" +
          o.name_space + " ENGINE=InnoDB)");
  EXPECT_EQ(b.value_of("SELECT COUNT(*) FROM `flakeid_lease_" + o.name_space +
                       "` WHERE holder IS NOT NULL"),
            "0");
}

TEST_F(mysql_lease_test, an_older_table_gets_the_instance_column_from_a_claim_that_names_one) {
  an_older_table_gets_the_instance_column_from_a_claim_that_names_one(b);
}
TEST_F(mysql_lease_test, a_claim_records_its_instance_or_none_and_a_release_keeps_it) {
  std::unique_ptr<flakeid::lease> holder;
  const std::string ns = a_claim_records_its_instance_or_none(b, holder);
  // Instances are compared exactly: another case is another instance, not a twin.
  auto upper = b.make(instance_options(ns, "POD-X"));
  EXPECT_EQ(upper->acquire(8), 1U);
  EXPECT_EQ(b.instances_of(ns), "-1=-,0=pod-x,1=POD-X");
}
TEST_F(mysql_lease_test, six_claims_of_one_instance_record_it_on_one_id) {
  six_claims_of_one_instance_record_it_on_one_id(b, false);
}
TEST_F(mysql_lease_test, six_claims_of_one_instance_on_an_older_table_add_the_column_once) {
  six_claims_of_one_instance_record_it_on_one_id(b, true);
}

TEST_F(mysql_lease_test, an_address_in_designated_initializers_names_its_server_and_leases) {
  const flakeid::mysql_address address{
      .address = {.host = "127.0.0.1", .port = b.server.port(), .user = "flakeid"},
      .database = "flakeid"};
  EXPECT_EQ(address.where(),
            "mysql 127.0.0.1:" + std::to_string(b.server.port()) + " user flakeid db flakeid");
  const auto o = quick_options(unique_ns("designated"));
  auto lease = flakeid::mysql_store{address, store_options_of(o)}.lease(o);
  EXPECT_EQ(lease.acquire(32), 0U);
}

TEST_F(mysql_lease_test, worker_node_rows_give_every_start_a_new_id_beside_uid_generator) {
  const auto address = flakeid::mysql_address::parse(b.server.uri());
  flakeid::mysql_worker_node first{address, {.host_name = "10.0.0.7", .port = "8080"}};
  const flakeid::worker_assignment a = first.assign(flakeid::layouts::baidu);
  EXPECT_EQ(a.node, (flakeid::node_id{0, 1}));
  EXPECT_EQ(a.source, "mysql 127.0.0.1:" + std::to_string(b.server.port()) +
                          " user flakeid db flakeid WORKER_NODE id 1");
  EXPECT_EQ(a.fence, nullptr) << "an id never handed out again needs no lease";
  // A Java service on uid-generator inserts its row the same way.
  flakeid::detail::mysql_connection raw{address, patient, patient};
  (void)raw.exec(
      "INSERT INTO WORKER_NODE (HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED) VALUES "
      "('10.0.0.8', '1700000000000-42', 1, CURDATE(), NOW(), NOW())");
  flakeid::mysql_worker_node second{address};
  EXPECT_EQ(second.assign(flakeid::layouts::baidu).node, (flakeid::node_id{0, 3}));
  const auto rows = raw.exec("SELECT ID, HOST_NAME, PORT, TYPE FROM WORKER_NODE ORDER BY ID");
  ASSERT_EQ(rows.rows.size(), 3U);
  EXPECT_EQ(rows.rows[0], (std::vector<std::optional<std::string>>{"1", "10.0.0.7", "8080", "2"}));
  EXPECT_EQ(rows.rows[2].at(2).value().find(std::to_string(::getpid()) + "-"), 0U)
      << "the default PORT names this process";
  // Twitter's layout has 10 node bits: id 1024 is past them.
  (void)raw.exec("ALTER TABLE WORKER_NODE AUTO_INCREMENT = 1024");
  flakeid::mysql_worker_node third{address};
  expect_error<flakeid::worker_id_error>(
      [&] { (void)third.assign(flakeid::layouts::twitter); },
      "flakeid: mysql 127.0.0.1:" + std::to_string(b.server.port()) +
          " user flakeid db flakeid WORKER_NODE gave id 1024, past the layout's 10 datacenter "
          "and worker bits (1..1023): every start takes a new id, and they are used up");
  expect_error<flakeid::invalid_option_error>(
      [&] {
        flakeid::mysql_worker_node bad{address, {.table = "w`n"}};
      },
      "flakeid: worker node table name 'w`n' is invalid: use 1 to 40 letters, digits, '_' or '-'");
}

TEST_F(mysql_lossy_lease_test, worker_node_rows_are_refused_by_a_server_that_loses_commits) {
  // With innodb_flush_log_at_trx_commit = 0 a row inserted within the second before mysqld
  // was killed is gone after the restart, and the next start got its id again while the
  // first process ran on with it (ids 1 and 2, a SIGKILL, then 1 again).
  const auto address = flakeid::mysql_address::parse(b.server.uri());
  std::vector<std::uint64_t> ids;
  std::vector<std::string> refused;
  for (int run = 0; run < 2; ++run) {
    try {
      flakeid::mysql_worker_node node{address};
      ids.push_back(node.assign(flakeid::layouts::twitter).node.worker);
    } catch (const flakeid::lease_store_error& e) {
      refused.emplace_back(e.what());
    }
    b.server.stop();  // SIGKILL
    b.server.start();
  }
  EXPECT_EQ(ids, std::vector<std::uint64_t>{}) << "ids handed out";
  const std::string message =
      "flakeid: mysql 127.0.0.1:" + std::to_string(b.server.port()) +
      " user flakeid db flakeid: the server runs with innodb_flush_log_at_trx_commit = 0, which "
      "loses the last commits when mysqld stops abruptly, and the next start could take a "
      "WORKER_NODE id again: a worker node needs 1 (or 2)";
  EXPECT_EQ(refused, (std::vector<std::string>{message, message}));
}

TEST(mysql_lease_unreachable, fails_with_a_clear_error_within_the_connect_timeout) {
  const std::string port = std::to_string(free_port());
  const std::string error = unreachable_lease_error<flakeid::mysql_store>(
      "mysql://app:S3cr3tPw@127.0.0.1:" + port + "/shop",
      "mysql 127.0.0.1:" + port + " user app db shop");
  EXPECT_EQ(error.find("S3cr3tPw"), std::string::npos) << error;
}

TEST(mysql_address_test, reads_uris_and_names_what_is_wrong_without_the_password) {
  const auto a =
      flakeid::mysql_address::parse("mysql://app:p%40ss@db.internal:3307/shop?timeout=2s");
  EXPECT_EQ(a.address.host, "db.internal");
  EXPECT_EQ(a.address.port, 3307);
  EXPECT_EQ(a.address.user, "app");
  EXPECT_EQ(a.address.password, "p@ss");
  EXPECT_EQ(a.database, "shop");
  EXPECT_EQ(a.address.connect_timeout, 2000ms);
  EXPECT_EQ(a.address.command_timeout, 2000ms);
  EXPECT_EQ(a.where(), "mysql db.internal:3307 user app db shop");
  const auto q =
      flakeid::mysql_address::parse("mysql://app:Pa?ss/w0rd@db.internal/shop?timeout=2s");
  EXPECT_EQ(q.address.password, "Pa?ss/w0rd");
  EXPECT_EQ(q.address.host, "db.internal");
  EXPECT_EQ(q.database, "shop");
  EXPECT_EQ(q.address.connect_timeout, 2000ms);
  const auto s =
      flakeid::mysql_address::parse("mariadb://root@/shop?socket=/run/mysqld/mysqld.sock");
  EXPECT_EQ(s.address.unix_socket, "/run/mysqld/mysqld.sock");
  EXPECT_EQ(s.where(), "mysql unix:/run/mysqld/mysqld.sock user root db shop");
  const auto v6 = flakeid::mysql_address::parse("mysql://[::1]/x?tls=1");
  EXPECT_EQ(v6.address.host, "::1");
  EXPECT_EQ(v6.address.port, 3306);
  EXPECT_EQ(v6.where(), "mysql [::1]:3306 tls db x");
  const std::pair<std::string, std::string> malformed[] = {
      {"mysql://app:S3cr3t@db:99999/shop",
       "flakeid: invalid MySQL address 'mysql://app:***@db:99999/shop': port '99999' is not a "
       "number 1..65535"},
      {"postgres://app:S3cr3t@db/shop",
       "flakeid: invalid MySQL address 'postgres://app:***@db/shop': scheme 'postgres' is not "
       "mysql or mariadb"},
      {"mysql://db/shop?ssl=1",
       "flakeid: invalid MySQL address 'mysql://db/shop?ssl=***': unknown query parameter 'ssl' "
       "(allowed: socket, tls, tls_ca, timeout, connect_timeout, command_timeout)"},
      // The user info ends at the last '@': a '?' or '/' in the password is the password's.
      {"mysql://app:S3?cr/3t@db:99999/shop",
       "flakeid: invalid MySQL address 'mysql://app:***@db:99999/shop': port '99999' is not a "
       "number 1..65535"},
      {"mysql://app@db/shop?password=S3cr3t",
       "flakeid: invalid MySQL address 'mysql://app@db/shop?password=***': unknown query "
       "parameter 'password' (allowed: socket, tls, tls_ca, timeout, connect_timeout, "
       "command_timeout)"},
      {"db.internal:3306",
       "flakeid: invalid MySQL address 'db.internal:3306': a MySQL address is a URI: "
       "mysql://[user[:password]@]host[:port][/database]"},
      {"mysql:///shop",
       "flakeid: invalid MySQL address 'mysql:///shop': no host (or ?socket=/path)"},
  };
  for (const auto& c : malformed)  // (Clang 14 cannot capture a structured binding)
    expect_error<flakeid::invalid_option_error>(
        [&] { (void)flakeid::mysql_address::parse(c.first); }, c.second);
  ::unsetenv("FLAKEID_TEST_MYSQL_URL");
  expect_error<flakeid::invalid_option_error>(
      [] { (void)flakeid::mysql_address::from_env("FLAKEID_TEST_MYSQL_URL"); },
      "flakeid: environment variable FLAKEID_TEST_MYSQL_URL is not set (want "
      "mysql://[user[:password]@]host[:port]/db)");
  ::setenv("FLAKEID_TEST_MYSQL_URL", "mysql://app:pw@10.1.2.3/orders", 1);
  EXPECT_EQ(flakeid::mysql_address::from_env("FLAKEID_TEST_MYSQL_URL").where(),
            "mysql 10.1.2.3:3306 user app db orders");
  ::unsetenv("FLAKEID_TEST_MYSQL_URL");
}

// Leases in CosId's `cosid_machine` table (mysql_store.lease(o, mysql_table::cosid)) beside a peer that runs
// CosId's JDBC distributor statements (the scenarios: cosid_lease_scenarios.hpp).
using mysql_cosid_lease_test = cosid_sql_test<mysql_test>;

FLAKEID_COSID_SCENARIOS(mysql_cosid_lease_test)

TEST_F(mysql_cosid_lease_test, claims_guards_and_reverts_rows_as_cosid_does) {
  ASSERT_NO_FATAL_FAILURE(cosid_rows_are_claimed_guarded_and_reverted(b));
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
