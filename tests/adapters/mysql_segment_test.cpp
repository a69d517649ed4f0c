// mysql_distributor against a real MariaDB server (mariadb-install-db + mariadbd, commits
// durable) started for each test: flakeid's own table, Leaf's leaf_alloc and CosId's cosid, the
// last two interleaved with a peer that runs the statements Leaf's and CosId's servers run.
#include <flakeid/adapters/mysql.hpp>

#include "expect_error.hpp"
#include "leaf_step_walk.hpp"
#include "mysql_backend.hpp"

namespace {

using namespace flakeid_test;

using mysql_segment_test = mysql_test;

FLAKEID_SEGMENT_SCENARIOS(mysql_segment_test)
TEST_F(mysql_segment_test, server_outage_drains_the_chain_fails_then_resumes) { server_outage(b); }

TEST_F(mysql_segment_test, a_table_from_before_expiry_and_births_gains_the_columns) {
  const std::string ns = unique_segment_ns("oldtable");
  const std::string table = "`flakeid_segment_" + ns + "`";
  (void)b.raw().exec("CREATE TABLE " + table +
                     " (`key` VARCHAR(255) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, last_max_id "
                     "BIGINT UNSIGNED NOT NULL) ENGINE=InnoDB; INSERT INTO " +
                     table + " VALUES ('d@20250318', 40)");
  auto d = b.store(ns, patient).distributor("d@20250318");
  d.expire_after(1h);
  EXPECT_EQ(d.next_max_id(10), 50U);
  const std::string server_now = flakeid::detail::mysql_now_ms;
  EXPECT_EQ(b.raw()
                .exec("SELECT expires_ms > " + server_now + ", expires_ms <= " + server_now +
                      " + 3600000, LENGTH(born) FROM " + table + " WHERE `key` = 'd@20250318'")
                .rows.at(0),
            (std::vector<std::optional<std::string>>{"1", "1", "16"}));
  EXPECT_EQ(d.next_max_id(10), 60U) << "the distributor counts on the row it gave a birth";
}

TEST_F(mysql_segment_test, a_counter_made_again_is_refused_by_a_distributor_that_counted_before) {
  a_counter_made_again_is_refused(b, [&](const std::string& ns, const std::string& key) {
    (void)b.value_of("DELETE FROM `flakeid_segment_" + ns + "` WHERE `key` = '" + key + "'");
  });
}

/// The scenarios on CosId's table (rows made at 0 on first use, as CosId's initializer does).
class mysql_cosid_segment_test : public mysql_segment_test {
 protected:
  void SetUp() override {
    b.segment_table = flakeid::mysql_table::cosid;
    mysql_segment_test::SetUp();
    (void)b.raw().exec(cosid_schema);
  }
  /// The table as CosId's MySQL init script makes it.
  static constexpr const char* cosid_schema =
      "CREATE TABLE IF NOT EXISTS cosid (name VARCHAR(100) NOT NULL, "
      "last_max_id BIGINT UNSIGNED NOT NULL DEFAULT 0, "
      "last_fetch_time BIGINT UNSIGNED NOT NULL DEFAULT 0, "
      "CONSTRAINT cosid_pk PRIMARY KEY (name)) ENGINE=InnoDB";
};

TEST_F(mysql_cosid_segment_test, resume_above_raises_leaf_and_cosid_rows_too) {
  const std::string ns = unique_segment_ns("resume");
  (void)b.raw().exec(
      "CREATE TABLE IF NOT EXISTS leaf_alloc (biz_tag VARCHAR(128) NOT NULL PRIMARY KEY, max_id "
      "BIGINT NOT NULL DEFAULT 1, step INT NOT NULL, description VARCHAR(256), update_time "
      "TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP); INSERT INTO "
      "leaf_alloc (biz_tag, max_id, step) VALUES ('" +
      ns + "', 1, 100)");
  auto leaf = flakeid::mysql_store{b.server.uri(), {.name_space = ns}, flakeid::mysql_table::leaf}
                  .distributor(ns);
  EXPECT_EQ(leaf.resume_above(500), 500U);
  EXPECT_EQ(leaf.current(), 500U);
  EXPECT_EQ(leaf.next_max_id(100), 600U) << "Leaf's next segment, [501, 601)";
  EXPECT_EQ(leaf.resume_above(7), 600U) << "never lowered";

  auto cosid = flakeid::mysql_store{b.server.uri(), {.name_space = ns}, flakeid::mysql_table::cosid}
                   .distributor("orders");
  EXPECT_EQ(cosid.resume_above(300), 300U) << "the missing row is made, then raised";
  EXPECT_EQ(cosid.next_max_id(10), 310U);
  EXPECT_EQ(cosid.resume_above(5), 310U) << "never lowered";
}

FLAKEID_PROCESS_SCENARIOS(mysql_cosid_segment_test)

TEST_F(mysql_segment_test, counts_in_a_table_per_namespace_and_names_the_store) {
  const std::string where =
      "mysql 127.0.0.1:" + std::to_string(b.server.port()) + " user flakeid db flakeid namespace ";
  const std::string ns = counts_orders_and_another_key(b, where, "Orders", [](const auto& d) {
    EXPECT_EQ(d.table(), flakeid::mysql_table::flakeid);
  });  // keys are exact: "Orders" is another counter
  const auto r =
      b.raw().exec("SELECT `key`, last_max_id FROM `flakeid_segment_" + ns + "` ORDER BY `key`");
  ASSERT_EQ(r.rows.size(), 2U);
  EXPECT_EQ(r.rows[0].at(0), "Orders");
  EXPECT_EQ(r.rows[1].at(1), "151");
}

TEST_F(mysql_segment_test, a_counter_past_bigint_unsigned_is_a_clear_error) {
  const std::string ns = unique_segment_ns("overflow");
  auto d = b.store(ns, patient).distributor("orders");
  EXPECT_EQ(d.next_max_id(1), 1U);
  (void)b.raw().exec("UPDATE `flakeid_segment_" + ns + "` SET last_max_id = 18446744073709551000");
  expect_next_max_id_fails(d, "orders", 1000,
                           "mysql 127.0.0.1:" + std::to_string(b.server.port()) +
                               " user flakeid db flakeid: BIGINT UNSIGNED value is out of range");
  EXPECT_EQ(b.store(ns, patient).current("orders"), 18446744073709551000U) << "unchanged";
}

/// Leaf's table and a row as its operators insert one.
void make_leaf_table(mysql_backend& b, const std::string& tag, std::uint64_t max_id, int step) {
  (void)b.raw().exec(
      "CREATE TABLE IF NOT EXISTS leaf_alloc (biz_tag VARCHAR(128) NOT NULL DEFAULT '', "
      "max_id BIGINT NOT NULL DEFAULT 1, step INT NOT NULL, description VARCHAR(256) DEFAULT "
      "NULL, update_time TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE "
      "CURRENT_TIMESTAMP, PRIMARY KEY (biz_tag)) ENGINE=InnoDB; INSERT INTO leaf_alloc (biz_tag, "
      "max_id, step, description) VALUES ('" +
      tag + "', " + std::to_string(max_id) + ", " + std::to_string(step) + ", 'test')");
}

TEST_F(mysql_segment_test, leaf_rows_hand_out_what_leaf_would_and_must_exist) {
  make_leaf_table(b, "order", 1, 2000);
  auto store = b.store("leafns", patient);
  auto d = store.distributor("order", flakeid::mysql_table::leaf);
  EXPECT_EQ(d.current(), 0U);
  // Leaf's first segment of a row at max_id 1 is [1, 1 + step): the numbers 1..100 here.
  EXPECT_EQ(d.next_max_id(100), 100U);
  EXPECT_EQ(d.current(), 100U);
  EXPECT_EQ(b.raw().exec("SELECT max_id, step FROM leaf_alloc WHERE biz_tag = 'order'").rows.at(0),
            (std::vector<std::optional<std::string>>{"101", "2000"}))
      << "the step column is left as Leaf's operators set it";
  flakeid::segment_generator gen{store.distributor("order", flakeid::mysql_table::leaf), 10};
  EXPECT_EQ(gen.next_id(), 101U);
  auto missing = store.distributor("nope", flakeid::mysql_table::leaf);
  expect_error<flakeid::segment_store_error>(
      [&] { (void)missing.next_max_id(10); },
      "flakeid: segment store " + std::string(missing.store_name()) +
          ", key 'nope': next_max_id(10): leaf_alloc has no row with biz_tag 'nope': insert it "
          "as for a Leaf server (biz_tag, max_id, step)");
}

TEST_F(mysql_segment_test, leaf_rows_never_expire) {
  make_leaf_table(b, "daily", 1, 100);
  auto d = b.store("leafns", patient).distributor("daily", flakeid::mysql_table::leaf);
  d.expire_after(1ms);
  EXPECT_EQ(d.next_max_id(10), 10U);
  auto sweeper = b.store("leafns", patient).distributor("sweeper");
  sweeper.expire_after(1ms);
  EXPECT_EQ(sweeper.next_max_id(1), 1U);
  EXPECT_EQ(d.current(), 10U);
}

TEST_F(mysql_segment_test, a_chain_in_leaf_mode_takes_the_steps_of_leafs_dynamic_step) {
  make_leaf_table(b, "order", 1, 100);
  // The row's max_id after each call: Leaf's transaction added the call's step.
  walk_leaf_dynamic_step(
      b.store("leafns", patient).distributor("order", flakeid::mysql_table::leaf),
      [&](std::uint64_t) {
        return b.raw()
            .exec("SELECT max_id FROM leaf_alloc WHERE biz_tag = 'order'")
            .rows.at(0)
            .at(0)
            .value_or("NULL");
      },
      {"101", "301", "501", "601", "701", "901", "1301", "2101", "2901"});
}

TEST_F(mysql_cosid_segment_test, resume_above_is_committed_under_a_global_autocommit_off) {
  // A server whose sessions start with autocommit off (my.cnf, or an init_connect that sets
  // it): a statement outside START TRANSACTION stays uncommitted, and the server rolls it back
  // when the session ends.
  const std::string ns = unique_segment_ns("autocommit");
  make_leaf_table(b, ns, 1, 100);
  (void)b.raw().exec("SET GLOBAL autocommit = 0");
  const flakeid::mysql_store leaf{b.server.uri(), {.name_space = ns}, flakeid::mysql_table::leaf};
  const flakeid::mysql_store cosid{b.server.uri(), {.name_space = ns}, flakeid::mysql_table::cosid};
  EXPECT_EQ(leaf.distributor(ns).resume_above(5000), 5000U);
  EXPECT_EQ(cosid.distributor("orders").resume_above(300), 300U);
  // Those distributors have closed their connections; new ones count above what was resumed.
  EXPECT_EQ(leaf.distributor(ns).next_max_id(10), 5010U) << "Leaf's segment [5001, 5011)";
  EXPECT_EQ(cosid.distributor("orders").next_max_id(10), 310U);
  (void)b.raw().exec("SET GLOBAL autocommit = 1");
}

TEST_F(mysql_segment_test, a_leaf_column_at_its_end_is_an_error_under_a_lax_sql_mode) {
  // Leaf's max_id made INT by its operators, on a server whose sql_mode is not strict: the
  // server would store max_id + step cut down to 2^31 - 1, with a warning, and hand that range
  // out again at every call.
  make_leaf_table(b, "order", 2147483000, 1000);
  (void)b.raw().exec(
      "ALTER TABLE leaf_alloc MODIFY max_id INT NOT NULL DEFAULT 1; "
      "SET GLOBAL sql_mode = ''");
  auto d = b.store("leafns", patient).distributor("order", flakeid::mysql_table::leaf);
  for (std::uint64_t i = 0; i < 6; ++i) EXPECT_EQ(d.next_max_id(100), 2147483099U + 100 * i);
  expect_next_max_id_fails(d, "order", 100,
                           "mysql 127.0.0.1:" + std::to_string(b.server.port()) +
                               " user flakeid db flakeid: Out of range value for column 'max_id'");
  EXPECT_EQ(d.current(), 2147483599U) << "unchanged";
  (void)b.raw().exec("SET GLOBAL sql_mode = DEFAULT");
}

TEST_F(mysql_segment_test, a_table_without_transactions_is_refused) {
  // Leaf's, CosId's and flakeid's tables in engines without transactions or row locks: the
  // SELECT after the UPDATE may read another process's step too, and two processes then hand
  // out one range (4 processes x 5,000 calls on a MyISAM leaf_alloc: 9,429 repeated ranges);
  // MEMORY also forgets every counter at a restart.
  make_leaf_table(b, "order", 1, 1000);
  (void)b.raw().exec(
      "ALTER TABLE leaf_alloc ENGINE=MyISAM; CREATE TABLE cosid (name VARCHAR(100) NOT NULL, "
      "last_max_id BIGINT UNSIGNED NOT NULL DEFAULT 0, last_fetch_time BIGINT UNSIGNED NOT NULL "
      "DEFAULT 0, CONSTRAINT cosid_pk PRIMARY KEY (name)) ENGINE=Aria; CREATE TABLE "
      "`flakeid_segment_mem` (`key` VARCHAR(255) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, "
      "last_max_id BIGINT UNSIGNED NOT NULL, expires_ms BIGINT NULL, born VARCHAR(32) NULL) "
      "ENGINE=MEMORY DEFAULT CHARSET=utf8mb4");
  const std::string where =
      "mysql 127.0.0.1:" + std::to_string(b.server.port()) + " user flakeid db flakeid: table ";
  const std::string risk =
      " engine, not InnoDB: without transactions and row locks two processes can take one "
      "range, and a restart can lose the counter (ALTER TABLE ";
  auto leaf = b.store("mem", patient).distributor("order", flakeid::mysql_table::leaf);
  expect_next_max_id_fails(
      leaf, "order", 100,
      where + "leaf_alloc uses the MyISAM" + risk + "leaf_alloc ENGINE=InnoDB)");
  auto cosid = b.store("mem", patient).distributor("order", flakeid::mysql_table::cosid);
  expect_next_max_id_fails(cosid, "order", 100,
                           where + "cosid uses the Aria" + risk + "cosid ENGINE=InnoDB)");
  auto own = b.store("mem", patient).distributor("order");
  expect_next_max_id_fails(
      own, "order", 100,
      where + "flakeid_segment_mem uses the MEMORY" + risk + "flakeid_segment_mem ENGINE=InnoDB)");
  EXPECT_EQ(b.value_of("SELECT max_id FROM leaf_alloc"), "1") << "nothing counted";
  EXPECT_EQ(b.value_of("SELECT COUNT(*) FROM cosid"), "0");
  EXPECT_EQ(b.value_of("SELECT COUNT(*) FROM `flakeid_segment_mem`"), "0");
}

TEST_F(mysql_cosid_segment_test, a_counter_gone_back_under_a_running_distributor_is_refused) {
  // A restore from an older backup (or an async replica promoted, or a hand edit) leaves the
  // row as it was, its birth too: running distributors counted on from there and handed out
  // again what they had handed out since (2 processes, the server restored under them: 1,610
  // of 3,283 ranges of 100 twice). Each refuses a counter below the end of its last range.
  const std::string ns = unique_segment_ns("back");
  make_leaf_table(b, ns, 1, 100);
  const flakeid::mysql_store own{b.server.uri(), {.name_space = ns}};
  const flakeid::mysql_store leaf{b.server.uri(), {.name_space = ns}, flakeid::mysql_table::leaf};
  const flakeid::mysql_store cosid{b.server.uri(), {.name_space = ns}, flakeid::mysql_table::cosid};
  std::vector<flakeid::mysql_distributor> ds{own.distributor("orders"), leaf.distributor(ns),
                                             cosid.distributor("orders")};
  for (auto& d : ds) {
    EXPECT_EQ(d.next_max_id(50), 50U);
    EXPECT_EQ(d.next_max_id(50), 100U);
  }
  // The backup was taken after the first range of each.
  (void)b.raw().exec("UPDATE `flakeid_segment_" + ns +
                     "` SET last_max_id = 50; UPDATE leaf_alloc SET max_id = 51 WHERE biz_tag = '" +
                     ns + "'; UPDATE cosid SET last_max_id = 50");
  const auto refused = [](flakeid::mysql_distributor& d, const std::string& reached,
                          const std::string& now) {
    const std::string head = "flakeid: segment store " + std::string(d.store_name()) + ", key '" +
                             std::string(d.key()) +
                             "': the counter went back since this distributor's last range (it "
                             "had reached " +
                             reached + ", now " + now + "): ";
    const std::string tail = "; numbers above " + now +
                             " may have been handed out: find the highest number in use and call "
                             "resume_above(it)";
    try {
      (void)d.next_max_id(50);
      ADD_FAILURE() << d.key() << ": counted on a counter gone back";
    } catch (const flakeid::segment_store_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.substr(0, head.size()), head) << what;
      EXPECT_EQ(what.substr(what.size() - std::min(what.size(), tail.size())), tail) << what;
    }
  };
  for (auto& d : ds) {
    refused(d, "100", "50");
    auto copy = d;
    refused(copy, "100", "50");
  }
  EXPECT_EQ(own.current("orders"), 50U) << "the refusals took no range";
  EXPECT_EQ(leaf.distributor(ns).current(), 50U);
  EXPECT_EQ(cosid.current("orders"), 50U);
  for (auto& d : ds) {
    EXPECT_EQ(d.resume_above(100), 100U);
    EXPECT_EQ(d.next_max_id(50), 150U);
  }
  // A CosId row deleted is made again at 0, as CosId's initializer does: gone back too.
  (void)b.raw().exec("DELETE FROM cosid");
  refused(ds[2], "150", "0");
}

/// Forks `processes` children, each drawing `per_process` IDs from a generator with options
/// `o` on counter `key` of `table`, while this process takes `peer_calls` segments of
/// `peer_step` with `peer(step)`, which returns the segment's [first, last]. Every ID is
/// distinct, none lies in a peer's segment, and each keeps `o`'s start and remainder.
template <class Peer>
void interleave_with_a_peer(mysql_backend& b, flakeid::mysql_table table, const std::string& key,
                            int processes, std::size_t per_process, int peer_calls,
                            std::uint64_t peer_step, Peer peer,
                            flakeid::segment_options o = {.step = 37}) {
  shared_ids out(static_cast<std::size_t>(processes), per_process);
  const std::vector<pid_t> kids = fork_children(processes, [&](int p) {
    auto store = b.store("peer", patient);
    flakeid::segment_generator gen{store.distributor(key, table), o};
    for (auto& id : out.row(static_cast<std::size_t>(p))) id = gen.next_id();
    out.count(static_cast<std::size_t>(p)).store(per_process);
  });
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (int i = 0; i < peer_calls; ++i) ranges.push_back(peer(peer_step));
  expect_children_exit_cleanly(kids);
  std::vector<std::uint64_t> all;
  for (int p = 0; p < processes; ++p) {
    ASSERT_EQ(out.count(static_cast<std::size_t>(p)).load(), per_process);
    const auto row = out.row(static_cast<std::size_t>(p));
    all.insert(all.end(), row.begin(), row.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "an ID was handed out twice";
  EXPECT_GE(all.front(), o.start);
  EXPECT_EQ(std::count_if(all.begin(), all.end(),
                          [&](std::uint64_t id) { return id % o.stride != o.remainder; }),
            0)
      << "IDs without the remainder";
  std::size_t inside = 0;
  for (const auto& [first, last] : ranges)
    inside += static_cast<std::size_t>(std::upper_bound(all.begin(), all.end(), last) -
                                       std::lower_bound(all.begin(), all.end(), first));
  EXPECT_EQ(inside, 0U) << "IDs that the peer's segments also hold";
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i)
    EXPECT_LT(ranges[i - 1].second, ranges[i].first) << "the peer's own segments overlap";
}

/// Leaf's segment service on `peer`: in one transaction, add the step to row `tag`, then read
/// the row back; it hands out [max_id - step, max_id).
auto leaf_server(flakeid::detail::mysql_connection& peer, const std::string& tag) {
  return [&peer, tag](std::uint64_t step) {
    const auto a = peer.exec("START TRANSACTION; UPDATE leaf_alloc SET max_id = max_id + " +
                             std::to_string(step) + " WHERE biz_tag = '" + tag +
                             "'; SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = '" +
                             tag + "'; COMMIT");
    const std::uint64_t max = std::stoull(a.rows.at(0).at(1).value());
    return std::pair{max - step, max - 1};
  };
}

TEST_F(mysql_segment_test, interleaved_with_a_leaf_server_no_number_is_handed_out_twice) {
  make_leaf_table(b, "order", 1, 1000);
  auto peer = b.raw();
  interleave_with_a_peer(b, flakeid::mysql_table::leaf, "order", 4, 3000, 200, 1000,
                         leaf_server(peer, "order"));
}

TEST_F(mysql_segment_test, strided_generators_above_a_start_beside_a_leaf_server_never_meet) {
  // The row was numbered by Leaf up to 1000; flakeid starts at 100,000 and hands out only
  // numbers % 4 == 3, while the Leaf server goes on taking plain ranges of the same row.
  make_leaf_table(b, "order", 1000, 1000);
  auto peer = b.raw();
  interleave_with_a_peer(b, flakeid::mysql_table::leaf, "order", 4, 3000, 200, 1000,
                         leaf_server(peer, "order"),
                         {.step = 37, .start = 100'000, .stride = 4, .remainder = 3});
}

TEST_F(mysql_segment_test, interleaved_with_a_cosid_server_no_number_is_handed_out_twice) {
  (void)b.raw().exec(
      "CREATE TABLE IF NOT EXISTS cosid (name VARCHAR(100) NOT NULL, last_max_id BIGINT UNSIGNED "
      "NOT NULL DEFAULT 0, last_fetch_time BIGINT UNSIGNED NOT NULL DEFAULT 0, CONSTRAINT "
      "cosid_pk PRIMARY KEY (name)) ENGINE=InnoDB; INSERT INTO cosid VALUES ('peer.order', 0, "
      "UNIX_TIMESTAMP())");
  auto peer = b.raw();
  interleave_with_a_peer(
      b, flakeid::mysql_table::cosid, "order", 4, 3000, 200, 100, [&](std::uint64_t step) {
        // CosId's JDBC distributor: add the step and stamp the fetch time, then read the row;
        // it hands out (last_max_id - step, last_max_id].
        const auto a = peer.exec(
            "START TRANSACTION; UPDATE cosid SET last_max_id = (last_max_id + " +
            std::to_string(step) +
            "), last_fetch_time = UNIX_TIMESTAMP() WHERE name = 'peer.order'; SELECT last_max_id "
            "FROM cosid WHERE name = 'peer.order'; COMMIT");
        const std::uint64_t max = std::stoull(a.rows.at(0).at(0).value());
        return std::pair{max - step + 1, max};
      });
  EXPECT_EQ(b.raw().exec("SELECT COUNT(*) FROM cosid").rows.at(0).at(0), "1")
      << "flakeid used CosId's row <namespace>.<name>";
}

TEST(mysql_segment_unreachable, fails_within_the_connect_timeout_naming_the_store) {
  const std::string port = std::to_string(free_port());
  unreachable<flakeid::mysql_store>("mysql://x@127.0.0.1:" + port + "/x",
                                    "mysql 127.0.0.1:" + port + " user x db x");
}

TEST(mysql_segment_options, bad_options_throw) {
  EXPECT_THROW(flakeid::mysql_store("mysql://h/x", {.name_space = "x`; DROP TABLE t; --"}),
               flakeid::invalid_option_error);
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::mysql_store("mysql://h/x", {.io_timeout = -5ms}); },
      "flakeid: mysql store io_timeout of -5 ms is too short: use 0 (the default) or more");
  EXPECT_THROW(flakeid::mysql_store("mysql://h:0/x"), flakeid::invalid_option_error);
  EXPECT_THROW((void)flakeid::mysql_store("mysql://h/x").distributor(""),
               flakeid::invalid_option_error);
}

/// MariaDB with innodb_flush_log_at_trx_commit=0, killed with SIGKILL and started again on its
/// data: it may have lost the last second of commits, so a counter there could hand a number
/// out twice. A distributor refuses such a server, naming the setting.
TEST(mysql_lossy_segment_test, a_server_that_loses_commits_on_sigkill_is_refused) {
  mariadb_server server{false};
  FLAKEID_REQUIRE_SERVER(server.available(), server.missing());
  server.start();
  const std::string where = "mysql 127.0.0.1:" + std::to_string(server.port()) +
                            " user flakeid db flakeid namespace lossy";
  std::vector<std::uint64_t> handed_out;
  std::vector<std::string> refused;
  for (int run = 0; run < 2; ++run) {
    const flakeid::mysql_store store{
        server.uri(), {.name_space = "lossy", .connect_timeout = patient, .io_timeout = patient}};
    try {
      auto d = store.distributor("orders");
      for (int i = 0; i < 100; ++i) handed_out.push_back(d.next_max_id(1000));
    } catch (const flakeid::segment_store_error& e) {
      refused.emplace_back(e.what());
    }
    server.stop();  // SIGKILL
    server.start();
  }
  std::sort(handed_out.begin(), handed_out.end());
  const auto twice = handed_out.size() -
                     static_cast<std::size_t>(std::distance(
                         handed_out.begin(), std::unique(handed_out.begin(), handed_out.end())));
  EXPECT_EQ(handed_out.size(), 0U) << twice << " of the numbers handed out were handed out twice";
  const std::string why =
      "next_max_id(1000) failed: the server runs with innodb_flush_log_at_trx_commit = 0, which "
      "loses the last commits when mysqld stops abruptly; a segment counter needs 1 (or 2)";
  const std::string message = "flakeid: segment store " + where + ", key 'orders': " + why;
  EXPECT_EQ(refused, (std::vector<std::string>{message, message}));
}

}  // namespace
