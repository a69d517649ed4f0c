// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/mysql_lease_store.hpp
/// The lease store of `mysql_store` (adapters/mysql.hpp, whose file comment gives the table and
/// the statements), and the SQL helpers its distributors share: the server's clock, numbers
/// from answers, and columns added to older tables.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../../detail/server_store.hpp"
#include "../../errors.hpp"
#include "../../lease.hpp"
#include "../../version.hpp"
#include "mysql_connection.hpp"
#include "server_backend.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// The server's clock in Unix milliseconds, as SQL.
inline constexpr const char* mysql_now_ms = "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)";

/// A field of an answer as a signed number (nothing for NULL); throws `store_connection_error`
/// naming `where` for anything else.
inline std::optional<std::int64_t> mysql_number(const std::optional<std::string>& v,
                                                const std::string& where) {
  if (!v) return std::nullopt;
  const auto x = parse_decimal<std::int64_t>(*v);
  if (!x) throw store_connection_error(where + ": '" + *v + "' is not a 64-bit integer");
  return x;
}

/// Whether table `table` (unquoted) of the connection's database has column `column`. Throws
/// `store_connection_error`.
inline bool mysql_has_column(mysql_connection& conn, std::string_view table,
                             std::string_view column) {
  const mysql_answer a = conn.exec(
      "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
      "AND TABLE_NAME = " +
      mysql_literal(table) + " AND COLUMN_NAME = " + mysql_literal(column));
  if (a.rows.size() != 1 || a.rows[0].size() != 1)
    throw store_connection_error(conn.where() + ": unexpected answer about column " +
                                 std::string(column) + " of " + std::string(table));
  return mysql_number(a.rows[0][0], conn.where()).value_or(0) > 0;
}

/// Adds column `column` (`definition`: its type and the rest) to an older table `table`
/// (unquoted) that lacks it. MySQL has no `ADD COLUMN IF NOT EXISTS`: the column is looked up
/// first, and a concurrent adder's error is forgiven once the column is there. Throws
/// `store_connection_error`.
inline void mysql_add_column(mysql_connection& conn, std::string_view table,
                             std::string_view column, std::string_view definition) {
  if (mysql_has_column(conn, table, column)) return;
  try {
    (void)conn.exec("ALTER TABLE `" + std::string(table) + "` ADD COLUMN " + std::string(column) +
                    " " + std::string(definition));
  } catch (const store_connection_error&) {
    if (!mysql_has_column(conn, table, column)) throw;
  }
}

/// Why a server that `mysql_loses_commits` is refused where a row must outlive mysqld.
inline constexpr std::string_view mysql_loses_commits_text =
    "the server runs with innodb_flush_log_at_trx_commit = 0, which loses the last commits when "
    "mysqld stops abruptly";

/// Whether the server loses its last commits when mysqld stops abruptly
/// (`innodb_flush_log_at_trx_commit = 0`). Throws `store_connection_error`.
inline bool mysql_loses_commits(mysql_connection& conn) {
  const mysql_answer a = conn.exec("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit");
  return a.rows.size() == 1 && !a.rows[0].empty() && a.rows[0][0] == "0";
}

/// Refuses table `table` (unquoted) of the connection's database when it is there in another
/// engine than InnoDB: the statements of flakeid, Leaf and CosId count on its transactions and
/// row locks (on MyISAM or Aria the `SELECT` after an `UPDATE` reads another session's step as
/// well, and `FOR UPDATE SKIP LOCKED` locks nothing; MEMORY forgets every row at a restart).
/// `risk` says what could follow. A missing table (made InnoDB, or named by the statement's own
/// error) and a view pass. Throws `store_connection_error`.
inline void mysql_require_innodb(mysql_connection& conn, std::string_view table,
                                 std::string_view risk) {
  const mysql_answer a = conn.exec(
      "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND "
      "TABLE_NAME = " +
      mysql_literal(table));
  if (a.rows.empty() || a.rows[0].empty() || !a.rows[0][0] || *a.rows[0][0] == "InnoDB") return;
  const std::string t(table);
  throw store_connection_error(conn.where() + ": table " + t + " uses the " + *a.rows[0][0] +
                               " engine, not InnoDB: without transactions and row locks " +
                               std::string(risk) + " (ALTER TABLE " + t + " ENGINE=InnoDB)");
}

/// The server's clock in Unix ms. Throws `store_connection_error`.
inline std::int64_t mysql_clock_ms(mysql_connection& conn) {
  const mysql_answer now = conn.exec(std::string("SELECT ") + mysql_now_ms);
  const auto n =
      now.rows.size() == 1 ? mysql_number(now.rows[0].at(0), conn.where()) : std::nullopt;
  if (!n) throw store_connection_error(conn.where() + ": no answer about the server's clock");
  return *n;
}

/// The server's clock and its start, in Unix ms (the start from `Uptime`, whole seconds: up to
/// a second late). Throws `store_connection_error`.
inline std::pair<std::int64_t, std::int64_t> mysql_server_clock(mysql_connection& conn) {
  const mysql_answer up = conn.exec("SHOW GLOBAL STATUS LIKE 'Uptime'");
  const std::int64_t n = mysql_clock_ms(conn);
  const auto u = up.rows.size() == 1 && up.rows[0].size() == 2
                     ? mysql_number(up.rows[0][1], conn.where())
                     : std::nullopt;
  if (!u) throw store_connection_error(conn.where() + ": no answer about the server's uptime");
  return {n, n - *u * 1000};
}

class mysql_lease_store final : public lease_store {
 public:
  mysql_lease_store(mysql_address a, const lease_options& o)
      : name_("flakeid_lease_" + o.name_space),
        table_("`" + name_ + "`"),
        state_(o),
        lock_wait_s_(std::to_string(
            (std::max<std::int64_t>(lease_io_timeout(o.io_timeout, o.ttl).count(), 1) + 999) /
            1000)),
        conn_(std::move(a), o.connect_timeout, lease_io_timeout(o.io_timeout, o.ttl)) {}

  [[nodiscard]] std::string where() const override { return conn_.where(); }

  std::optional<lease_claim> do_claim(const claim_request& q) override {
    ensure_table(!q.instance.empty());
    if (q.instance.empty()) return claim_free(q);
    // Claims of one instance take turns (a named lock of the session, named after the
    // database, the table and the instance), so that two of them cannot both miss its row
    // and record it on two ids; claims without an instance take no such lock.
    const std::string lock = "CONCAT('flakeid_', MD5(CONCAT(DATABASE(), '.', " +
                             mysql_literal(name_) + ", '/', " + mysql_literal(q.instance) + ")))";
    const mysql_answer got = conn_.exec("SELECT GET_LOCK(" + lock + ", " + lock_wait_s_ + ")");
    if (got.rows.size() != 1 || got.rows[0].empty() || got.rows[0][0] != "1")
      throw store_connection_error(where() + ": the lock of instance " + q.instance + " in " +
                                   name_ + " was not granted within " + lock_wait_s_ + " s");
    try {
      std::optional<lease_claim> c = claim_own(q);
      if (!c) c = claim_free(q);
      (void)conn_.exec("DO RELEASE_LOCK(" + lock + ")");
      return c;
    } catch (...) {
      conn_.reset();  // the server lets the lock go with the session
      throw;
    }
  }

  /// Held only while the row is there with `holder`'s token (CLIENT_FOUND_ROWS: the rows
  /// matched), on the server that confirmed it: a server started since (as far as `Uptime`
  /// tells, 2 s either way) may have lost what it confirmed.
  /// A table gone throws `missing_table_error`, which `lease_store::renew` answers `taken`.
  renewal do_renew(std::uint64_t id, const std::string& holder, lease_time deadline) override {
    const std::string d = unix_ms_text(deadline);
    const mysql_answer r = conn_.exec(
        "UPDATE " + table_ + " SET expires_ms = " + mysql_now_ms + " + " + state_.ttl_ms +
        ", last_unix_ms = GREATEST(COALESCE(last_unix_ms, " + d + "), " + d +
        ") WHERE id = " + std::to_string(id) + " AND holder = " + mysql_literal(holder));
    if (r.affected != 1) return renewal::taken;
    const std::int64_t start = server_clock().second;
    return start - state_.started_ms <= 2000 && state_.started_ms - start <= 2000 ? renewal::held
                                                                                  : renewal::taken;
  }

  void do_release(std::uint64_t id, const std::string& holder, lease_time last) override {
    (void)conn_.exec("UPDATE " + table_ + " SET holder = NULL, expires_ms = " + mysql_now_ms +
                     ", last_unix_ms = " + unix_ms_text(last) + " WHERE id = " +
                     std::to_string(id) + " AND holder = " + mysql_literal(holder));
  }

  /// The server's clock.
  std::optional<lease_time> do_clock() override { return lease_time_of(now_ms()); }

 private:
  /// The id recorded for `q.instance` (under the caller's lock): taken when free, whatever its
  /// deadline; reported as held while its holder's lease runs; nothing when no id below the
  /// count records the instance.
  std::optional<lease_claim> claim_own(const claim_request& q) {
    const std::string inst = mysql_literal(q.instance);
    const std::string now = mysql_now_ms;
    for (int attempt = 0; attempt < 100; ++attempt) {
      const mysql_answer r =
          conn_.exec("SELECT id, last_unix_ms, holder IS NOT NULL AND expires_ms > " + now +
                     " FROM " + table_ + " WHERE id >= 0 AND id < " + std::to_string(q.count) +
                     " AND instance = " + inst + " ORDER BY id LIMIT 1");
      if (r.rows.empty()) return std::nullopt;
      const std::string id = r.rows[0].at(0).value_or("-1");
      if (r.rows[0].at(2) == "1") {
        lease_claim c;
        c.id = static_cast<std::uint64_t>(*mysql_number(id, where()));
        if (const auto last = mysql_number(r.rows[0].at(1), where())) c.last = lease_time_of(*last);
        c.held_by_instance = true;
        return c;
      }
      // Free: take that row alone, the conditions checked again under its lock (a claim
      // without the instance may have taken it meanwhile, or its holder renewed late).
      const mysql_answer t =
          conn_.exec("START TRANSACTION; SELECT last_unix_ms FROM " + table_ + " WHERE id = " + id +
                     " AND instance = " + inst + " AND (holder IS NULL OR expires_ms <= " + now +
                     ") FOR UPDATE");
      if (t.rows.empty()) {
        (void)conn_.exec("ROLLBACK");
        continue;
      }
      const std::string d = unix_ms_text(q.deadline);
      (void)conn_.exec("UPDATE " + table_ + " SET holder = " + mysql_literal(q.holder) +
                       ", expires_ms = " + now + " + " + state_.ttl_ms +
                       ", last_unix_ms = GREATEST(COALESCE(last_unix_ms, " + d + "), " + d +
                       ") WHERE id = " + id + "; COMMIT");
      lease_claim c = answer(id, mysql_number(t.rows[0].at(0), where()));
      c.own_instance = true;
      return c;
    }
    return std::nullopt;
  }

  /// Adds id `next` held by `holder` with deadline `d` and raises the count of ids ever
  /// created (the table's own row, locked: inserts take turns) past it; an id below the count
  /// was created before, and its row deleted. Nothing when another session added it first.
  std::optional<lease_claim> insert_next(std::int64_t next, const std::string& holder,
                                         const std::string& d, const std::string& instance) {
    const std::string id = std::to_string(next);
    try {
      const mysql_answer count = conn_.exec("START TRANSACTION; SELECT last_unix_ms FROM " +
                                            table_ + " WHERE id = -1 FOR UPDATE");
      const std::optional<std::int64_t> made =
          count.rows.empty() ? std::nullopt : mysql_number(count.rows[0].at(0), where());
      const mysql_answer ins =
          conn_.exec("INSERT IGNORE INTO " + table_ + " (id, holder, last_unix_ms, expires_ms" +
                     (state_.instance_column ? ", instance" : "") + ") VALUES (" + id + ", " +
                     holder + ", " + d + ", " + mysql_now_ms + " + " + state_.ttl_ms +
                     (state_.instance_column ? ", " + instance : std::string()) + ")");
      if (ins.affected == 1) {
        (void)conn_.exec("UPDATE " + table_ + " SET last_unix_ms = GREATEST(COALESCE(" +
                         "last_unix_ms, 0), " + std::to_string(next + 1) +
                         ") WHERE id = -1; COMMIT");
        return answer(id, std::nullopt, !made || *made > next);
      }
      (void)conn_.exec("ROLLBACK");
      return std::nullopt;
    } catch (...) {
      conn_.reset();  // the server rolls the transaction back
      throw;
    }
  }

  /// A free id as usual, recording `q.instance` on it (NULL without one) when the table has
  /// the column.
  std::optional<lease_claim> claim_free(const claim_request& q) {
    const std::string n = std::to_string(q.count);
    const std::string holder = mysql_literal(q.holder);
    const std::string d = unix_ms_text(q.deadline);
    const std::string settled = unix_ms_text(q.settled);
    const std::string instance = q.instance.empty() ? "NULL" : mysql_literal(q.instance);
    std::string free = "id >= 0 AND id < " + n + " AND expires_ms + " + state_.guard_ms +
                       " <= " + mysql_now_ms + " AND (last_unix_ms IS NULL OR " +
                       "last_unix_ms <= " + unix_ms_text(q.skip_above) + ")";
    // Ids kept for another instance are passed by (`claim_request::kept_after`).
    if (state_.instance_column && q.kept_after != lease_time::max())
      free += " AND (instance IS NULL OR instance = " + instance +
              " OR last_unix_ms IS NULL OR last_unix_ms <= " + unix_ms_text(q.kept_after) + ")";
    for (int attempt = 0; attempt < 100; ++attempt) {
      // Candidates, best first, read without locks; each is then taken alone.
      const mysql_answer c =
          conn_.exec("SELECT id FROM " + table_ + " WHERE " + free +
                     " ORDER BY (last_unix_ms IS NOT NULL AND last_unix_ms > " + settled +
                     "), CASE WHEN last_unix_ms IS NULL OR last_unix_ms <= " + settled +
                     " THEN 0 ELSE last_unix_ms END, id LIMIT 8");
      for (const auto& row : c.rows) {
        const std::string id = row.at(0).value_or("-1");
        const mysql_answer t =
            conn_.exec("START TRANSACTION; SELECT last_unix_ms FROM " + table_ +
                       " WHERE id = " + id + " AND " + free + " FOR UPDATE SKIP LOCKED");
        if (t.rows.empty()) {
          (void)conn_.exec("ROLLBACK");
          continue;
        }
        (void)conn_.exec("UPDATE " + table_ + " SET holder = " + holder +
                         ", expires_ms = " + mysql_now_ms + " + " + state_.ttl_ms +
                         ", last_unix_ms = GREATEST(COALESCE(last_unix_ms, " + d + "), " + d + ")" +
                         (state_.instance_column ? ", instance = " + instance : std::string()) +
                         " WHERE id = " + id + "; COMMIT");
        return answer(id, mysql_number(t.rows[0].at(0), where()));
      }
      if (!c.rows.empty()) continue;  // all taken meanwhile: read again
      // Nothing free: add the next id, unless every id below the count exists.
      const mysql_answer m =
          conn_.exec("SELECT COALESCE(MAX(id), -1) + 1 FROM " + table_ + " WHERE id >= 0");
      const auto next = mysql_number(m.rows.at(0).at(0), where()).value_or(0);
      if (next >= static_cast<std::int64_t>(q.count)) return std::nullopt;
      if (auto added = insert_next(next, holder, d, instance)) return added;
      // Another session added the same id first: try again.
    }
    return std::nullopt;
  }

  std::pair<std::int64_t, std::int64_t> server_clock() { return mysql_server_clock(conn_); }
  std::int64_t now_ms() { return mysql_clock_ms(conn_); }

  /// Adds the table's own row (id -1) when missing: `expires_ms` its creation, `last_unix_ms`
  /// the count of ids ever created (so the ids there are now), and gives a row from before the
  /// count its count. The ids are read first without locks: a locking read of the table
  /// (`INSERT ... SELECT`) would deadlock with the claims that add ids.
  void add_own_row() {
    const mysql_answer m =
        conn_.exec("SELECT COALESCE(MAX(id), -1) + 1 FROM " + table_ + " WHERE id >= 0");
    const std::string n =
        std::to_string(m.rows.empty() ? 0 : mysql_number(m.rows[0].at(0), where()).value_or(0));
    (void)conn_.exec("INSERT IGNORE INTO " + table_ +
                     " (id, last_unix_ms, expires_ms) VALUES (-1, " + n + ", " + mysql_now_ms +
                     "); UPDATE " + table_ + " SET last_unix_ms = " + n +
                     " WHERE id = -1 AND last_unix_ms IS NULL");
  }

  /// The claim of `id` (previous deadline `last`), with what the store may have lost: the
  /// table when younger than `ttl + safe_guard` (since its creation); its own row when gone
  /// (rows were deleted: since now; the row is made again); a row it had to create again
  /// (`recreated`: since now); the server's memory when it started less than `ttl +
  /// safe_guard` ago (since its start). Records the server's start for renewals.
  lease_claim answer(const std::string& id, std::optional<std::int64_t> last,
                     bool recreated = false) {
    const mysql_answer b =
        conn_.exec("SELECT (SELECT expires_ms FROM " + table_ + " WHERE id = -1)");
    const auto [now, start] = server_clock();
    state_.started_ms = start;
    lease_claim c;
    c.id = static_cast<std::uint64_t>(*mysql_number(id, where()));
    if (last) c.last = lease_time_of(*last);
    const auto created = b.rows.empty() ? std::nullopt : mysql_number(b.rows[0].at(0), where());
    if (!created) add_own_row();
    if (const auto lost = state_.lost_since(now, created, !created || recreated))
      c.lost_memory_at = lease_time_of(*lost);
    return c;
  }

  /// Creates the table (with `instance`) on first use. A table made before instances lacks the
  /// column: a claim with an instance adds it (`mysql_add_column`: `ALTER TABLE` needs the
  /// ALTER privilege and is run only when the column is missing); a claim without one looks
  /// again each time, since another lease may add it meanwhile, and records nothing until then.
  void ensure_table(bool need_instance) {
    if (!state_.ready) {
      (void)conn_.exec("CREATE TABLE IF NOT EXISTS " + table_ +
                       " (id BIGINT NOT NULL PRIMARY KEY, holder VARCHAR(255) NULL, "
                       "last_unix_ms BIGINT NULL, expires_ms BIGINT NOT NULL, instance " +
                       std::string(instance_type) + ") ENGINE=InnoDB");
      mysql_require_innodb(conn_, name_,
                           "two processes can take one id, and a restart can lose the claims");
      add_own_row();
      state_.ready = true;
    }
    if (state_.instance_column) return;
    if (need_instance) {
      mysql_add_column(conn_, name_, "instance", instance_type);
      state_.instance_column = true;
    } else {
      state_.instance_column = mysql_has_column(conn_, name_, "instance");
    }
  }

  /// The type of the `instance` column.
  static constexpr const char* instance_type =
      "VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL";

  std::string name_;
  std::string table_;
  sql_lease_state state_;
  std::string lock_wait_s_;  // how long the server waits for an instance's lock, in seconds
  mysql_connection conn_;
};

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
