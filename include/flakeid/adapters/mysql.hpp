// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/mysql.hpp
/// `mysql_store`: worker-id leases and segment counters in MySQL or MariaDB (MariaDB
/// Connector/C, which speaks to both; CMake target `flakeid::mysql`). One store, the two
/// protocols, and the tables that Leaf and CosId services already use:
///
///     flakeid::mysql_store store{"mysql://app:s3cret@db.internal/shop"};
///     auto lease = store.lease();                                   // worker ids
///     flakeid::classic_snowflake<> gen{lease};
///     flakeid::segment_chain_generator ids{store.distributor("orders"), {.step = 1000}};
///     flakeid::segment_chain_generator leaf{store.distributor("order", flakeid::mysql_table::leaf)};
///
/// Every request runs with a client-side bound in milliseconds (`connect_timeout`,
/// `io_timeout`; see `store_options`); a request that runs out drops the connection, so the
/// server rolls back what it had begun, and the next one reconnects. Messages name the
/// server's host:port, user and database, never the password. Tables need InnoDB (row locks,
/// transactions; a lease's first claim and a distributor's new connection refuse a table in
/// another engine, naming it) and MySQL 8.0.1+ or MariaDB 10.6+ (`SKIP LOCKED`).
///
/// ## Leases (`store.lease()`)
///
/// One table per namespace, created on first use, with a row per id that has ever been used.
/// Times are the server's, in Unix milliseconds:
///
///     CREATE TABLE `flakeid_lease_<ns>` (
///       id           BIGINT NOT NULL PRIMARY KEY,  -- -1: the table's own row (expires_ms:
///                                  -- created, last_unix_ms: the count of ids ever created)
///       holder       VARCHAR(255) NULL,            -- the holder's token, NULL when released
///       last_unix_ms BIGINT NULL,                  -- the holder's deadline: its IDs lie below it
///       expires_ms   BIGINT NOT NULL,              -- lease expiry
///       instance     VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL
///                                                  -- the last claimer's instance, NULL: none
///     ) ENGINE=InnoDB;
///
/// An id is free once `expires_ms + safe_guard <= now`. A claim reads the free ids in order of
/// preference (deadline passed first, then the earliest deadline not too far ahead), then takes
/// one in a transaction that locks that row alone (`SELECT ... FOR UPDATE SKIP LOCKED` on its
/// key, the conditions checked again) and records the claimer's deadline; when none is free it
/// adds the next id (`INSERT IGNORE`, in a transaction that locks row -1 and raises its count),
/// so the table grows with use. Two sessions never hold one id. A claim reports lost memory (the
/// claimer waits `ttl + safe_guard`) for a table created less than that ago, an id created
/// again below the count (a row deleted), a missing row -1 (made again), and a server that
/// started less than that ago (`Uptime`: it may have lost its last commits). Renewal and
/// release change the row only while `holder` is this lease's token; a renewal is `held` only
/// on a server with the start the claim saw (within 2 s: `Uptime` counts seconds).
///
/// Every claim records the claimer's `lease_options::instance` in `instance` (NULL without
/// one); renewal and release keep it. A claim that names an instance first takes a named lock
/// of its session (`GET_LOCK`, named after the database, the table and the instance; let go
/// with `RELEASE_LOCK` or with the session), so claims of one instance take turns and never
/// record it on two ids, while claims without an instance take no such lock. Under it, the
/// row below the count that records the instance is read: when its lease was released or has
/// expired (`expires_ms <= now`, without `safe_guard`) it is taken whatever its deadline, in a
/// transaction that locks that row alone and checks it again; while another holder's lease
/// runs the claim takes nothing and reports that holder's deadline; with no such row the claim
/// goes as usual and records the instance. A table made before instances lacks the column: the
/// first claim with an instance adds it (`ALTER TABLE`, run only when `information_schema`
/// shows the column missing; a concurrent adder's error is forgiven once the column is there);
/// until then claims without an instance record none. Failures throw `lease_store_error`.
///
/// ## Leases in CosId's machine ids (`store.lease(options, mysql_table::cosid)`)
///
/// The rows of CosId's JDBC machine-id distributor (`cosid_machine`: name `<ns>.<id in eight
/// digits>`, namespace, machine_id, last_timestamp, instance_id, distribute_time, revert_time;
/// made with CosId's own definition when missing), in the store's namespace, by CosId's rules:
/// a row is free when its `instance_id` is '' (reverted) or its `last_timestamp` is older than
/// `ttl` (CosId's safe-guard duration, which `ttl` must equal); a new id is the namespace's
/// largest plus one. A claim takes a free row below the count with an update that checks the
/// row is still as read, recording its instance (`lease_options::instance`, else its token) and
/// the claim's time; a renewal is CosId's guard (`last_timestamp` = the renewal's send time,
/// for this id and instance); a release is CosId's revert (`instance_id` '', `last_timestamp`
/// the millisecond after the last one used). Times are the lease's clock, as CosId's are its
/// host's. On top of CosId's rules: the holder's deadline is `ttl - margin` after the send time,
/// before any CosId service may take the id; a row taken from a CosId holder is minted on only
/// above its last guard plus `ttl` plus `safe_guard`. flakeid keeps a row of its own per
/// namespace (name `flakeid:count:<ns>`, namespace '', which no CosId query reads: the count of
/// ids made in the namespace, and when the row was made): a claim waits as for lost memory when
/// that row is younger than `ttl + safe_guard` (new, or deleted with the table's rows), when it
/// makes an id below the count again (its row was deleted), or when the server started that
/// recently.
///
/// ## Segments (`store.distributor(key, table)`)
///
/// `mysql_table::flakeid` (the default): one table per namespace, created on first use, one
/// row per counter, one statement per call:
///
///     CREATE TABLE `flakeid_segment_<ns>` (
///       `key`       VARCHAR(255) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
///       last_max_id BIGINT UNSIGNED NOT NULL,
///       expires_ms  BIGINT NULL,                 -- NULL: never
///       born        VARCHAR(32) NULL) ENGINE=InnoDB;  -- 64 random bits in hex
///     START TRANSACTION;
///     INSERT INTO ... (`key`, last_max_id, born) VALUES (key, step, new_birth)
///       ON DUPLICATE KEY UPDATE last_max_id = last_max_id + step,
///       born = COALESCE(born, VALUES(born));
///     SELECT last_max_id, born FROM ... WHERE `key` = key; COMMIT
///
/// That is a distributor's first call; from then on it counts only on the row of the birth it
/// saw (`UPDATE ... WHERE `key` = key AND born = seen`, then the same `SELECT`, in one round
/// trip). A row made again since (deleted, or lost with the server's data, and counted from 0
/// again by a process started since) is refused with `segment_store_error`, without counting:
/// its next range from 0 could be one another distributor handed out before. `resume_above(n)`
/// raises the counter to `n` and counts on its row from then on. A counter that may expire
/// (`expire_after`) and was idle that long on this distributor's clock is taken as made anew.
/// A first call adds `born` to an older table. Leaf's and CosId's tables have no birth: a row
/// of theirs made again is noticed only as a counter gone back (their servers notice nothing).
///
/// On every table a distributor counts only on a row at or above the end of its last range
/// (`AND last_max_id >= reached` in its UPDATE; Leaf's `max_id >` it): a row below it went
/// back (a restore from an older backup, a replica that lagged promoted, a hand edit, a CosId
/// row deleted and made at 0) and is refused with `segment_store_error`, without counting,
/// until `resume_above(n)`. A process started after such a loss cannot tell.
///
/// A counter that may expire (`expire_after`) also sets `expires_ms` (the server's Unix ms
/// plus the idle time) in that statement; a distributor's first such call adds the column to
/// an older table and deletes the rows whose `expires_ms` has passed.
///
/// `mysql_table::leaf`: Leaf's `leaf_alloc` table (`biz_tag`, `max_id`, `step`, ...), in the
/// transaction Leaf's segment service runs: `UPDATE leaf_alloc SET max_id = max_id + step
/// WHERE biz_tag = ?`, then `SELECT max_id`. Leaf hands out `[max_id - step, max_id)`; so does
/// this distributor (it answers `max_id - 1`), so a Leaf server and flakeid sharing a row never
/// hand out one number twice. The row must exist (Leaf's operators insert it); `step` here is
/// the generator's, as in Leaf's own dynamic-step mode.
///
/// `mysql_table::cosid`: CosId's `cosid` table (`name`, `last_max_id`, `last_fetch_time`),
/// key `<namespace>.<name>` as CosId spells it, in the transaction of CosId's JDBC
/// distributor: `UPDATE cosid SET last_max_id = last_max_id + step, last_fetch_time =
/// UNIX_TIMESTAMP() WHERE name = ?`, then `SELECT last_max_id`. CosId and flakeid both hand
/// out `(last_max_id - step, last_max_id]`. A missing row is inserted at 0, as CosId's
/// initializer does.
///
/// Every distributor's new connection refuses a server running
/// `innodb_flush_log_at_trx_commit = 0` (it loses the last commits when mysqld is killed, and a
/// counter would hand their numbers out again): `segment_store_error` naming the setting.
///
/// Failures throw `segment_store_error` naming the server, the namespace and the key.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../detail/server_store.hpp"
#include "../errors.hpp"
#include "../lease.hpp"
#include "../segment.hpp"
#include "../version.hpp"
#include "../worker_id.hpp"
#include "detail/mysql_connection.hpp"
#include "detail/mysql_cosid_machine.hpp"
#include "detail/mysql_lease_store.hpp"
#include "detail/server_backend.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// Which table a MySQL segment counter lives in (see the file comment).
enum class mysql_table {
  flakeid,  ///< `flakeid_segment_<namespace>`, created on first use
  leaf,     ///< Leaf's `leaf_alloc` (rows inserted by its operators)
  cosid,    ///< CosId's `cosid` (a missing row is inserted at 0)
};

/// A counter of a `mysql_store` in one of the tables of `mysql_table`, with its own connection
/// (opened on the first call). A copy opens a connection of its own to the same counter.
/// Throws `segment_store_error` when the server cannot be reached within `connect_timeout`,
/// does not answer within `io_timeout`, reports an error (the counter would pass its column's
/// range, no permission), or has no Leaf row for the key. Thread-safety: every member may be
/// called concurrently (calls on one distributor take turns on its connection).
/// `expire_after(idle)`: every `next_max_id` on flakeid's table also lets the row be deleted
/// once it has been idle for `idle` on the server's clock (`expires_ms`); Leaf's and CosId's
/// tables have no place for an expiry: their rows never expire.
class mysql_distributor
    : public detail::server_distributor<mysql_distributor, mysql_address, detail::mysql_connection,
                                        detail::table_memo> {
 public:
  /// Counter `key` of table `table` at `address`. Does not connect. Throws
  /// `invalid_option_error` for a bad namespace or timeout, or an empty key.
  mysql_distributor(mysql_address address, std::string key, store_options options = {},
                    mysql_table table = mysql_table::flakeid)
      : server_distributor(std::move(address), std::move(key), std::move(options)),
        kind_(table),
        table_(kind_ == mysql_table::flakeid ? "`flakeid_segment_" + options_.name_space + "`"
               : kind_ == mysql_table::leaf  ? "leaf_alloc"
                                             : "cosid"),
        row_(kind_ == mysql_table::cosid ? options_.name_space + "." + key_ : key_) {}

  /// Adds `step` to the counter and returns the largest number of the segment it took.
  std::uint64_t next_max_id(std::uint64_t step) {
    const std::string what = "next_max_id(" + std::to_string(step) + ")";
    return call(what, [&] {
      switch (kind_) {
        case mysql_table::flakeid: return next_flakeid(step, what);
        case mysql_table::leaf: return next_leaf(step, what);
        case mysql_table::cosid: break;
      }
      const std::string s = std::to_string(step);
      const std::string k = detail::mysql_literal(row_);
      return reach(value_of(exec("INSERT IGNORE INTO cosid (name, last_max_id, last_fetch_time) "
                                 "VALUES (" +
                                 k +
                                 ", 0, UNIX_TIMESTAMP()); START TRANSACTION; UPDATE cosid SET "
                                 "last_max_id = last_max_id + " +
                                 s + ", last_fetch_time = UNIX_TIMESTAMP() WHERE name = " + k +
                                 not_below("last_max_id") +
                                 "; SELECT last_max_id FROM cosid WHERE name = " + k + "; COMMIT"),
                            what));
    });
  }

  /// For an operator, after a refusal for a counter made again: raises the counter to at least
  /// `highest_used` (the highest number handed out, as found in the data) and, on flakeid's
  /// table, counts on its row from now on; the next ranges start above it. Returns the counter
  /// (on Leaf's table, the largest number handed out, as `current()`). Leaf's row must exist;
  /// CosId's is inserted when missing. Throws as `next_max_id`.
  std::uint64_t resume_above(std::uint64_t highest_used) {
    const std::string what = "resume_above(" + std::to_string(highest_used) + ")";
    return call(what, [&] {
      const std::string k = detail::mysql_literal(row_);
      switch (kind_) {
        case mysql_table::flakeid: return resume_flakeid(std::to_string(highest_used), what);
        case mysql_table::leaf: {
          // Leaf's max_id is one above the largest number handed out.
          const std::string floor = std::to_string(highest_used + 1);
          const auto a = exec("UPDATE leaf_alloc SET max_id = GREATEST(max_id, " + floor +
                              ") WHERE biz_tag = " + k +
                              "; SELECT max_id FROM leaf_alloc WHERE biz_tag = " + k);
          if (a.rows.empty()) throw no_leaf_row(what);
          return s_->memo.reached = value_of(a, what) - 1;
        }
        case mysql_table::cosid: break;
      }
      const std::string floor = std::to_string(highest_used);
      return s_->memo.reached = value_of(
                 exec("INSERT IGNORE INTO cosid (name, last_max_id, last_fetch_time) VALUES (" + k +
                      ", 0, UNIX_TIMESTAMP()); UPDATE cosid SET last_max_id = "
                      "GREATEST(last_max_id, " +
                      floor + ") WHERE name = " + k +
                      "; SELECT last_max_id FROM cosid WHERE name = " + k),
                 what);
    });
  }

  /// The largest number handed out so far (0 when the counter has no row yet).
  [[nodiscard]] std::uint64_t current() {
    return call("current()", [&]() -> std::uint64_t {
      const std::string k = detail::mysql_literal(row_);
      switch (kind_) {
        case mysql_table::flakeid: {
          ensure_table();
          const auto a = exec("SELECT last_max_id FROM " + table_ + " WHERE `key` = " + k);
          return a.rows.empty() ? 0 : value_of(a, "current()");
        }
        case mysql_table::leaf: {
          const auto a = exec("SELECT max_id FROM leaf_alloc WHERE biz_tag = " + k);
          if (a.rows.empty()) throw no_leaf_row("current()");
          const std::uint64_t v = value_of(a, "current()");
          return v == 0 ? 0 : v - 1;
        }
        case mysql_table::cosid: break;
      }
      const auto a = exec("SELECT last_max_id FROM cosid WHERE name = " + k);
      return a.rows.empty() ? 0 : value_of(a, "current()");
    });
  }

  /// The counter's table.
  [[nodiscard]] mysql_table table() const noexcept { return kind_; }
  /// A distributor for counter `key` of the same database, namespace and table, on a
  /// connection of its own.
  [[nodiscard]] mysql_distributor with_key(const std::string& key) const {
    return {address_, key, options_, kind_};
  }

 private:
  /// `next_max_id` on flakeid's table: one transaction in one round trip. A distributor that
  /// counted before counts only on the row it counted on (its birth).
  std::uint64_t next_flakeid(std::uint64_t step, const std::string& what) {
    const std::string s = std::to_string(step);
    const std::string k = detail::mysql_literal(row_);
    prepare();
    const std::string until = std::string(detail::mysql_now_ms) + " + " + std::to_string(idle_ms_);
    const std::string expiry = idle_ms_ == 0 ? std::string() : ", expires_ms = " + until;
    const std::string read = "; SELECT last_max_id, born FROM " + table_ + " WHERE `key` = " + k;
    if (!s_->memo.born.empty()) {
      const detail::mysql_answer a = exec(
          "START TRANSACTION; UPDATE " + table_ + " SET last_max_id = last_max_id + " + s + expiry +
          " WHERE `key` = " + k + " AND born = " + detail::mysql_literal(s_->memo.born) +
          not_below("last_max_id") + read + "; COMMIT");
      const std::string now = born_of(a);
      if (!now.empty() && now == s_->memo.born) {
        (void)reach(value_at(a, 0, what));  // refuses a row left below the last range
        return took(a, what);
      }
      check_birth(now);
    }
    return took(exec("START TRANSACTION; INSERT INTO " + table_ + " (`key`, last_max_id, born" +
                     (idle_ms_ == 0 ? "" : ", expires_ms") + ") VALUES (" + k + ", " + s + ", " +
                     detail::mysql_literal(detail::new_birth_token()) +
                     (idle_ms_ == 0 ? "" : ", " + until) +
                     ") ON DUPLICATE KEY UPDATE last_max_id = last_max_id + " + s +
                     ", born = COALESCE(born, VALUES(born))" + expiry + read + "; COMMIT"),
                what);
  }

  /// `resume_above` on flakeid's table.
  std::uint64_t resume_flakeid(const std::string& floor, const std::string& what) {
    const std::string k = detail::mysql_literal(row_);
    prepare();
    return took(
        exec("START TRANSACTION; INSERT INTO " + table_ + " (`key`, last_max_id, born) VALUES (" +
             k + ", " + floor + ", " + detail::mysql_literal(detail::new_birth_token()) +
             ") ON DUPLICATE KEY UPDATE last_max_id = GREATEST(last_max_id, " + floor +
             "), born = COALESCE(born, VALUES(born)); SELECT last_max_id, born FROM " + table_ +
             " WHERE `key` = " + k + "; COMMIT"),
        what);
  }

  /// The birth in a `SELECT last_max_id, born` answer (empty: no row, or one without a birth).
  static std::string born_of(const detail::mysql_answer& a) {
    if (a.rows.size() != 1 || a.rows[0].size() != 2 || !a.rows[0][1]) return {};
    return *a.rows[0][1];
  }

  /// The counter in a `SELECT last_max_id, born` answer, recording the row's birth.
  std::uint64_t took(const detail::mysql_answer& a, const std::string& what) {
    std::string born = born_of(a);
    if (born.empty())
      throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
    const std::uint64_t v = value_at(a, 0, what);
    took_range(std::move(born));
    s_->memo.reached = v;
    return v;
  }

  /// `next_max_id` on Leaf's table, in the transaction Leaf's segment service runs.
  std::uint64_t next_leaf(std::uint64_t step, const std::string& what) {
    const std::string k = detail::mysql_literal(row_);
    // max_id is one above the largest number handed out: it must be above `reached`.
    const std::string above =
        s_->memo.reached == 0 ? std::string() : " AND max_id > " + std::to_string(s_->memo.reached);
    const auto a = exec("START TRANSACTION; UPDATE leaf_alloc SET max_id = max_id + " +
                        std::to_string(step) + " WHERE biz_tag = " + k + above +
                        "; SELECT max_id FROM leaf_alloc WHERE biz_tag = " + k + "; COMMIT");
    if (a.rows.empty()) throw no_leaf_row(what);
    const std::uint64_t max_id = value_of(a, what);
    return reach(max_id == 0 ? 0 : max_id - 1);  // Leaf's segment is [max_id - step, max_id)
  }

  /// Runs `sql` on the connection, checking a new connection first (`check_durable`).
  detail::mysql_answer exec(const std::string& sql) {
    check_durable();
    return s_->conn.exec(sql);
  }

  /// On a new connection: refuses a server that loses its last commits when mysqld stops
  /// abruptly (`innodb_flush_log_at_trx_commit = 0`), where a counter could hand a number out
  /// twice, and a table in another engine than InnoDB (`mysql_require_innodb`). Throws
  /// `store_connection_error`.
  void check_durable() {
    if (s_->conn.connected()) return;
    if (detail::mysql_loses_commits(s_->conn)) {
      s_->conn.reset();
      throw detail::store_connection_error(std::string(detail::mysql_loses_commits_text) +
                                           "; a segment counter needs 1 (or 2)");
    }
    try {
      detail::mysql_require_innodb(
          s_->conn,
          kind_ == mysql_table::flakeid ? "flakeid_segment_" + options_.name_space : table_,
          "two processes can take one range, and a restart can lose the counter");
    } catch (...) {
      s_->conn.reset();  // checked again on the next connection
      throw;
    }
  }

  [[nodiscard]] segment_store_error no_leaf_row(const std::string& what) const {
    return {name_, key_,
            what + ": leaf_alloc has no row with biz_tag '" + key_ +
                "': insert it as for a Leaf server (biz_tag, max_id, step)"};
  }

  void ensure_table() {
    if (s_->memo.table_ready) return;
    (void)exec("CREATE TABLE IF NOT EXISTS " + table_ +
               " (`key` VARCHAR(255) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, "
               "last_max_id BIGINT UNSIGNED NOT NULL, expires_ms BIGINT NULL, born VARCHAR(32) "
               "NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4");
    s_->memo.table_ready = true;
  }

  /// The table, its `born` column (a table made before births gets it) and, after
  /// `expire_after`, its expiry: what a call that counts needs, once per distributor.
  void prepare() {
    ensure_table();
    if (!s_->memo.born_ready) {
      check_durable();
      detail::mysql_add_column(s_->conn, "flakeid_segment_" + options_.name_space, "born",
                               "VARCHAR(32) NULL");
      s_->memo.born_ready = true;
    }
    if (idle_ms_ > 0) ensure_expiry();
  }

  /// A table made before counters could expire gets `expires_ms` (MySQL has no `ADD COLUMN IF
  /// NOT EXISTS`: a concurrent adder's error is forgiven once the column is there); then the
  /// expired rows are deleted. Once per distributor.
  void ensure_expiry() {
    if (s_->memo.expiry_ready) return;
    check_durable();
    detail::mysql_add_column(s_->conn, "flakeid_segment_" + options_.name_space, "expires_ms",
                             "BIGINT NULL");
    (void)exec("DELETE FROM " + table_ + " WHERE expires_ms < " + detail::mysql_now_ms);
    s_->memo.expiry_ready = true;
  }

  std::uint64_t value_of(const detail::mysql_answer& a, const std::string& what) const {
    if (a.rows.size() != 1 || a.rows[0].size() != 1)
      throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
    return value_at(a, 0, what);
  }

  /// Column `col` of the only row of `a` as a counter.
  std::uint64_t value_at(const detail::mysql_answer& a, std::size_t col,
                         const std::string& what) const {
    if (a.rows.size() == 1 && a.rows[0].size() > col && a.rows[0][col]) {
      const auto v = detail::parse_decimal<std::uint64_t>(*a.rows[0][col]);
      if (v) return *v;
    }
    throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
  }

  mysql_table kind_;
  std::string table_;
  std::string row_;
};

/// How a `mysql_worker_node` describes this process in its row.
struct worker_node_options {
  /// The table, as Baidu's uid-generator names it.
  std::string table = "WORKER_NODE";
  /// `HOST_NAME`: empty: this host's name.
  std::string host_name{};
  /// `PORT`: empty: this process's pid and start time, so that every row names one process.
  std::string port{};
  /// `TYPE`: 1 for a container, 2 for a host (uid-generator's `WorkerNodeType`).
  int type = 2;
};

/// A worker id in the manner of Baidu's uid-generator: each start inserts a row into
/// `WORKER_NODE` (created when missing, with uid-generator's columns) and takes its
/// auto-increment `ID` as the worker id. An id is never handed out twice, so no lease is held
/// and nothing expires; in exchange every start uses up an id, and a layout with `b` datacenter
/// and worker bits has `2^b - 1` starts in it (ids 1 up; the row's id is split into datacenter
/// and worker as a lease's is). Once they are used up, `assign` throws `worker_id_error` naming
/// the id and the range. Java services on uid-generator and flakeid processes that share the
/// table never get one id.
///
///     flakeid::mysql_worker_node node{flakeid::mysql_address::parse(uri)};
///     flakeid::classic_snowflake<flakeid::layouts::baidu_t> gen{node};  // or any layout
///
/// Throws `lease_store_error` when the server cannot be reached or answers with an error, and
/// for a server running `innodb_flush_log_at_trx_commit = 0` (killed, it loses the last rows
/// inserted, and a start after its restart got an id a running process held). The table is
/// assumed kept: a `TRUNCATE`, or a restore from an older backup, gives ids again that running
/// processes hold (uid-generator has the same assumption).
class mysql_worker_node {
 public:
  explicit mysql_worker_node(mysql_address address, worker_node_options node = {},
                             const store_options& options = {})
      : node_(std::move(node)),
        conn_(std::move(address), options.connect_timeout,
              detail::io_timeout_or(options.io_timeout, detail::segment_io_timeout)) {
    detail::check_store_options(options, "worker node");
    if (!detail::valid_namespace(node_.table))
      throw invalid_option_error("flakeid: worker node table name '" + node_.table +
                                 "' is invalid: use 1 to 40 letters, digits, '_' or '-'");
  }

  /// Inserts this process's row and returns its id as the node of layout `l`. Every call
  /// inserts a row: call it once per generator.
  [[nodiscard]] worker_assignment assign(const layout& l) {
    const std::uint64_t id = insert();
    const std::uint64_t last = detail::last_node(l);
    if (id > last)
      detail::reject_worker(conn_.where() + " " + node_.table + " gave id " + std::to_string(id) +
                            ", past the layout's " + std::to_string(detail::node_bits(l)) +
                            " datacenter and worker bits (1.." + std::to_string(last) +
                            "): every start takes a new id, and they are used up");
    worker_assignment a;
    a.node = detail::node_of(l, id);
    a.source = conn_.where() + " " + node_.table + " id " + std::to_string(id);
    return a;
  }

 private:
  std::uint64_t insert() {
    const std::string t = "`" + node_.table + "`";
    std::string host = node_.host_name;
    if (host.empty()) {
      char h[256] = {};
      (void)::gethostname(h, sizeof h - 1);
      host = h;
    }
    std::string port = node_.port;
    if (port.empty())
      port = std::to_string(::getpid()) + "-" +
             std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count());
    const detail::mysql_answer a = detail::lease_call([&] {
      // A server that loses its last commits when killed (innodb_flush_log_at_trx_commit = 0)
      // would give the next start this row's id again after a restart: no lease notices that.
      if (detail::mysql_loses_commits(conn_))
        throw detail::store_connection_error(conn_.where() + ": " +
                                             std::string(detail::mysql_loses_commits_text) +
                                             ", and the next start could take a " + node_.table +
                                             " id again: a worker node needs 1 (or 2)");
      return conn_.exec(
          "CREATE TABLE IF NOT EXISTS " + t +
          " (ID BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, HOST_NAME VARCHAR(64) NOT NULL, "
          "PORT VARCHAR(64) NOT NULL, TYPE INT NOT NULL, LAUNCH_DATE DATE NOT NULL, MODIFIED "
          "TIMESTAMP NOT NULL, CREATED TIMESTAMP NOT NULL) ENGINE=InnoDB; INSERT INTO " +
          t + " (HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED) VALUES (" +
          detail::mysql_literal(host.substr(0, 64)) + ", " +
          detail::mysql_literal(port.substr(0, 64)) + ", " + std::to_string(node_.type) +
          ", CURDATE(), NOW(), NOW()); SELECT LAST_INSERT_ID()");
    });
    if (a.rows.size() == 1 && a.rows[0].size() == 1 && a.rows[0][0])
      if (const auto v = detail::parse_decimal<std::uint64_t>(*a.rows[0][0]); v && *v > 0)
        return *v;
    throw lease_store_error("flakeid: " + conn_.where() +
                            ": unexpected answer to the insert into " + node_.table);
  }

  worker_node_options node_;
  detail::mysql_connection conn_;
};

/// Worker-id leases and segment counters in one MySQL/MariaDB namespace: the two protocols
/// over one database (see the file comment). Cheap to copy; holds no connection itself: each
/// lease and each distributor has its own.
class mysql_store
    : public detail::server_store<mysql_address, mysql_distributor, detail::mysql_lease_store> {
 public:
  /// The database at `address`, tables `flakeid_lease_<name_space>` and, for counters,
  /// `table` (see `mysql_table`; each distributor may name another). Does not connect. Throws
  /// `invalid_option_error` for a bad namespace or timeout.
  explicit mysql_store(mysql_address address, store_options options = {},
                       mysql_table table = mysql_table::flakeid)
      : server_store(std::move(address), std::move(options), "mysql store"), table_(table) {}
  /// The same, from a `mysql://` URI (see `mysql_address::parse`).
  explicit mysql_store(std::string_view uri, store_options options = {},
                       mysql_table table = mysql_table::flakeid)
      : mysql_store(mysql_address::parse(uri), std::move(options), table) {}

  using server_store::lease;
  /// A lease on a worker id in `table`'s machine ids: `mysql_table::flakeid`, as `lease(o)`;
  /// `mysql_table::cosid`, CosId's `cosid_machine` rows of the store's namespace, beside the
  /// CosId services that distribute them (see the file comment: `ttl` must be their safe-guard
  /// duration). Throws `invalid_option_error` for `mysql_table::leaf` (Leaf keeps no worker ids
  /// in MySQL: see `zookeeper_leaf_worker`), and as `lease`'s constructor.
  [[nodiscard]] flakeid::lease lease(lease_options o, mysql_table table) const {
    if (table == mysql_table::flakeid) return lease(std::move(o));
    if (table == mysql_table::leaf)
      throw invalid_option_error(
          "flakeid: mysql store: Leaf keeps no worker ids in MySQL (its snowflake workers "
          "register in ZooKeeper: use zookeeper_leaf_worker); use mysql_table::flakeid or "
          "mysql_table::cosid for a lease");
    o = detail::lease_options_for_store(std::move(o), options_);
    return {std::make_unique<detail::mysql_cosid_machine_store>(address_, o), o};
  }
  /// A distributor for counter `key` in the store's table, with its own connection. Throws
  /// `invalid_option_error` for an empty key.
  [[nodiscard]] mysql_distributor distributor(const std::string& key) const {
    return {address_, key, options_, table_};
  }
  /// A distributor for counter `key` in `table`.
  [[nodiscard]] mysql_distributor distributor(const std::string& key, mysql_table table) const {
    return {address_, key, options_, table};
  }
  /// The largest number handed out so far of counter `key` in the store's table (0 when
  /// unused). Opens a connection for the call. Throws `segment_store_error`.
  [[nodiscard]] std::uint64_t current(const std::string& key) const {
    return distributor(key).current();
  }
  /// Where the server is (it holds the password: log `address().where()` only).
  [[nodiscard]] const mysql_address& address() const noexcept { return address_; }
  /// The table of counters that `distributor(key)` uses.
  [[nodiscard]] mysql_table table() const noexcept { return table_; }

 private:
  mysql_table table_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
