// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/postgres.hpp
/// `postgres_store`: worker-id leases and segment counters in PostgreSQL (libpq; CMake target
/// `flakeid::postgres`). One store, the two protocols:
///
///     flakeid::postgres_store store{"host=db.internal dbname=app user=app"};
///     auto lease = store.lease();                                   // worker ids
///     flakeid::classic_snowflake<> gen{lease};
///     flakeid::segment_chain_generator ids{store.distributor("orders"), {.step = 1000}};
///
/// Every request runs with a client-side bound (`connect_timeout`, `io_timeout`; see
/// `store_options`); a request that runs out drops the connection (no transaction is left
/// open), and the next one reconnects. Messages name the server's host:port, never a password.
/// Each connection runs its transactions in READ COMMITTED, whatever the server, database or
/// role sets as `default_transaction_isolation`.
/// Tables are named unqualified: a claim, and a distributor's new connection, that finds its
/// table in two schemas of the session's `search_path` is refused, naming them (a role given a
/// schema of its own name after the table was made in `public` would use a table of its own).
///
/// ## Leases (`store.lease()`)
///
/// One table per namespace, created on first use, with a row per id that has ever been used:
///
///     CREATE TABLE "flakeid_lease_<ns>" (
///       id           bigint PRIMARY KEY,  -- -1: the table's own row (expires_at: created,
///                                         --     last_unix_ms: the count of ids ever created)
///       holder       text,                -- the holder's token, NULL when released
///       last_unix_ms bigint,              -- the holder's deadline: its IDs lie below it
///       expires_at   timestamptz NOT NULL DEFAULT '-infinity',  -- lease expiry
///       instance     text);               -- the last claimer's instance, NULL: none
///
/// An id is free once `expires_at + safe_guard <= now()` (server time). A claim takes, in one
/// statement, the free row whose deadline has passed (else the one with the earliest deadline
/// not too far ahead) with `FOR UPDATE SKIP LOCKED`, so two sessions never claim the same
/// one, and records the claimer's deadline; when no row is free it adds the next id (`max +
/// 1`, `ON CONFLICT DO NOTHING`, the count in row -1 raised by the same statement), so the table
/// grows with use, not with the layout's width. A claim reports lost memory (the claimer waits
/// `ttl + safe_guard`) when the table was created less than that ago (a new namespace, a table
/// dropped), when it had to create an id below the count (a row deleted under its holder),
/// when row -1 is gone (every row deleted; it is made again), and when the server started less
/// than that ago (`pg_postmaster_start_time()`: it may have lost its last commits). Renewal and
/// release update the row only while `holder` is this lease's token; a renewal is `held` only
/// when it found that row on a server with the start the claim saw. A renewal after the lease
/// lapsed succeeds only while nobody else has claimed the id.
///
/// Every claim records the claimer's `lease_options::instance` in `instance` (NULL without
/// one); renewal and release keep it. A claim that names an instance runs in one transaction
/// that first takes an advisory lock of the transaction keyed by the table and the instance
/// (`pg_advisory_xact_lock`), so claims of one instance take turns and never record it on two
/// ids, while claims without an instance take no such lock. Under it, the row below the count
/// that records the instance is read `FOR UPDATE`: when its lease was released or has expired
/// (`expires_at <= now()`, without `safe_guard`) it is taken whatever its deadline; while
/// another holder's lease runs the claim takes nothing and reports that holder's deadline;
/// with no such row the claim goes as usual and records the instance. A table made before
/// instances lacks the column: the first claim with an instance adds it (`ALTER TABLE ... ADD
/// COLUMN IF NOT EXISTS`, which needs the table's owner); until then claims without an
/// instance record none.
///
///     auto lease = flakeid::postgres_store{"host=db.internal dbname=app user=app"}.lease();
///     flakeid::classic_snowflake<> gen{lease};
///
/// Failures throw `lease_store_error`.
///
/// ## Leases in CosId's machine ids (`store.lease(options, postgres_table::cosid)`)
///
/// The rows of CosId's JDBC machine-id distributor (`cosid_machine`), by the rules that
/// adapters/mysql.hpp's file comment gives, with CosId's columns in PostgreSQL's types (made
/// when missing).
///
/// ## Segments (`store.distributor(key)`)
///
/// One table per namespace, created on first use (under an advisory lock, so concurrent first
/// users do not race), with one row per counter:
///
///     CREATE TABLE "flakeid_segment_<ns>" (
///       key         text PRIMARY KEY,
///       last_max_id bigint NOT NULL CHECK (last_max_id >= 0),
///       expires_at  timestamptz,  -- NULL: never
///       born        text);        -- 64 random bits in hex, set when the row is made
///
/// A call is one statement, so one transaction; the row lock makes it atomic. A distributor's
/// first call counts on whatever row there is, and a missing row counts from 0:
///
///     INSERT INTO "flakeid_segment_<ns>" AS t (key, last_max_id, born) VALUES ($1, $2, $3)
///     ON CONFLICT (key) DO UPDATE SET last_max_id = t.last_max_id + EXCLUDED.last_max_id,
///       born = COALESCE(t.born, EXCLUDED.born) RETURNING last_max_id, born
///
/// From then on it counts only on the row of the birth it saw, and only at or above the end of
/// its last range (`UPDATE ... WHERE key = $1 AND born = $3 AND last_max_id >= <reached>
/// RETURNING last_max_id, born`). A row of that birth below it went back (a restore from an
/// older backup or dump, a replica that lagged promoted, a hand edit) and is refused with
/// `segment_store_error`, without counting, until `resume_above(n)`; a process started after
/// such a loss cannot tell. A row made again since (deleted, or lost with the
/// server's data, and counted from 0 again by a process started since) is refused with
/// `segment_store_error`, without counting: its next range from 0 could be one that another
/// distributor handed out before. `resume_above(n)` raises the counter to `n` and counts on its
/// row from then on. A counter that may expire (`expire_after`) and was idle that long on this
/// distributor's clock is taken as made anew. A first call adds `born` to an older table.
///
/// A counter that may expire (`expire_after`, used for the periods of a grouped counter) has
/// `expires_at = now() + idle` set by the same statement; a distributor's first such call adds
/// the column to an older table and deletes the rows whose `expires_at` has passed.
///
/// The counter is durable once the statement commits: a new connection sets
/// `synchronous_commit = on` for itself when the server's is `off`, and refuses a table the
/// server does not log (`UNLOGGED`, which a crash restart empties; then a process started since
/// would count from 0 again). `bigint` caps it at 2^63 - 1.
///
/// Failures throw `segment_store_error` naming the server, the namespace and the key.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../detail/server_store.hpp"
#include "../errors.hpp"
#include "../lease.hpp"
#include "../segment.hpp"
#include "../version.hpp"
#include "detail/postgres_connection.hpp"
#include "detail/postgres_cosid_machine.hpp"
#include "detail/postgres_lease_store.hpp"
#include "detail/server_backend.hpp"
#include "server_address.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// A counter of a `postgres_store`, with its own connection (opened on the first call).
/// A copy opens a connection of its own to the same counter.
///
/// `next_max_id(step)` is one `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` (see the file
/// comment); the first call on a connection also creates the table when it is missing. Throws
/// `segment_store_error` when the server cannot be reached within `connect_timeout`, does not
/// answer within `io_timeout`, or reports an error (the counter would pass 2^63 - 1, no
/// permission). Thread-safety: every member may be called concurrently (calls on one
/// distributor take turns on its connection). `expire_after(idle)`: every `next_max_id` also
/// lets the row be deleted once it has been idle for `idle` on the server's clock
/// (`expires_at`).
class postgres_distributor
    : public detail::server_distributor<postgres_distributor, std::string,
                                        detail::postgres_connection, detail::table_memo> {
 public:
  /// Counter `key` in the database reached with libpq connection string `conninfo`. Does not
  /// connect. Throws `invalid_option_error` for a connection string that does not parse, a bad
  /// namespace or timeout, or an empty key.
  postgres_distributor(const std::string& conninfo, std::string key, store_options options = {})
      : server_distributor(conninfo, std::move(key), std::move(options)),
        table_("\"flakeid_segment_" + options_.name_space + "\"") {}

  /// Adds `step` to the counter and returns its new value (one statement; see the file
  /// comment). After `expire_after`, the statement also sets the row's `expires_at`, and the
  /// first call deletes the rows of the table whose `expires_at` has passed. Throws
  /// `segment_store_error`, without counting, when the counter's row was made again, or went
  /// back below the end of this distributor's last range, since that range (see `resume_above`).
  std::uint64_t next_max_id(std::uint64_t step) {
    const std::string what = "next_max_id(" + std::to_string(step) + ")";
    const std::string s = std::to_string(step);
    return call(what, [&] {
      prepare(what);
      const std::string expiry = idle_ms_ == 0
                                     ? std::string()
                                     : ", expires_at = now() + " + std::to_string(idle_ms_) +
                                           " * interval '1 millisecond'";
      if (!s_->memo.born.empty()) {
        // The row this distributor counted on, and only that one.
        // The row this distributor counted on, and only at or above the end of its last range.
        const detail::pg_result r =
            exec("UPDATE " + table_ + " SET last_max_id = last_max_id + $2::bigint" + expiry +
                     " WHERE key = $1 AND born = $3" + not_below("last_max_id") +
                     " RETURNING last_max_id, born",
                 {key_.c_str(), s.c_str(), s_->memo.born.c_str()});
        if (PQntuples(r.get()) == 1) return took(r.get(), what);
        const detail::pg_result now =
            exec("SELECT last_max_id, born FROM " + table_ + " WHERE key = $1", {key_.c_str()});
        const bool row = PQntuples(now.get()) == 1 && PQgetisnull(now.get(), 0, 1) == 0;
        const std::string born = row ? PQgetvalue(now.get(), 0, 1) : std::string();
        if (row && born == s_->memo.born) (void)reach(number_at(now.get(), 0, what));
        check_birth(born);
      }
      const std::string born = detail::new_birth_token();
      const detail::pg_result r =
          exec("INSERT INTO " + table_ + " AS t (key, last_max_id, born" +
                   (idle_ms_ == 0 ? ") VALUES ($1, $2::bigint, $3)"
                                  : ", expires_at) VALUES ($1, $2::bigint, $3, now() + " +
                                        std::to_string(idle_ms_) + " * interval '1 millisecond')") +
                   " ON CONFLICT (key) DO UPDATE SET last_max_id = t.last_max_id + "
                   "EXCLUDED.last_max_id, born = COALESCE(t.born, EXCLUDED.born)" +
                   (idle_ms_ == 0 ? "" : ", expires_at = EXCLUDED.expires_at") +
                   " RETURNING last_max_id, born",
               {key_.c_str(), s.c_str(), born.c_str()});
      return took(r.get(), what);
    });
  }

  /// For an operator, after a refusal for a counter made again or gone back: raises the counter to at least
  /// `highest_used` (the highest number handed out, as found in the data) and counts on its row
  /// from now on; the next ranges start above it. Returns the counter. Throws as `next_max_id`.
  std::uint64_t resume_above(std::uint64_t highest_used) {
    const std::string what = "resume_above(" + std::to_string(highest_used) + ")";
    const std::string floor = std::to_string(highest_used);
    return call(what, [&] {
      prepare(what);
      const std::string born = detail::new_birth_token();
      const detail::pg_result r =
          exec("INSERT INTO " + table_ +
                   " AS t (key, last_max_id, born) VALUES ($1, $2::bigint, $3) ON CONFLICT (key) "
                   "DO UPDATE SET last_max_id = GREATEST(t.last_max_id, EXCLUDED.last_max_id), "
                   "born = COALESCE(t.born, EXCLUDED.born) RETURNING last_max_id, born",
               {key_.c_str(), floor.c_str(), born.c_str()});
      return took(r.get(), what);
    });
  }

  /// The counter's value (0 when it has no row yet). Throws as `next_max_id`.
  [[nodiscard]] std::uint64_t current() {
    return call("current()", [&]() -> std::uint64_t {
      ensure_table();
      const detail::pg_result r =
          exec("SELECT last_max_id FROM " + table_ + " WHERE key = $1", {key_.c_str()});
      if (PQntuples(r.get()) == 0) return 0;
      return value_of(r.get(), "current()");
    });
  }

  /// The quoted table name: `"flakeid_segment_<ns>"`.
  [[nodiscard]] const std::string& table() const noexcept { return table_; }

 private:
  /// Runs `sql` (see `postgres_connection::exec`, which makes a new connection's commits
  /// durable).
  detail::pg_result exec(const std::string& sql, const std::vector<const char*>& params) {
    return s_->conn.exec(sql, params);
  }

  void ensure_table() {
    if (s_->memo.table_ready) return;
    (void)exec(
        "BEGIN; SELECT pg_advisory_xact_lock(7079434571962427439); "
        "CREATE TABLE IF NOT EXISTS " +
            table_ +
            " (key text PRIMARY KEY, last_max_id bigint NOT NULL CHECK (last_max_id >= 0),"
            " expires_at timestamptz, born text); COMMIT;",
        {});
    s_->memo.table_ready = true;
  }

  /// The table, its `born` column (a table made before births gets it) and, after
  /// `expire_after`, its expiry: what a call that counts needs, once per distributor.
  void prepare(const std::string& what) {
    ensure_table();
    check_table();
    if (!s_->memo.born_ready) {
      add_column_once("born", "text", what);
      s_->memo.born_ready = true;
    }
    if (idle_ms_ > 0) ensure_expiry(what);
  }

  /// On each new connection: refuses a table in two schemas of the search path
  /// (`postgres_require_one_table`) and an UNLOGGED one (`postgres_require_logged`).
  void check_table() {
    if (checked_ != 0 && checked_ == s_->conn.serial()) return;
    detail::postgres_require_one_table(s_->conn, table_, "hands out the numbers of this one again");
    detail::postgres_require_logged(s_->conn, table_);
    checked_ = s_->conn.serial();
  }

  /// Adds column `name` of `type` to an older table that lacks it (altered only then, since
  /// `ALTER TABLE` needs the table's owner and locks it whole).
  void add_column_once(const char* name, const char* type, const std::string& what) {
    const detail::pg_result r = exec(
        "SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = $2 AND "
        "NOT attisdropped",
        {table_.c_str(), name});
    if (value_of(r.get(), what) == 0)
      (void)exec("ALTER TABLE " + table_ + " ADD COLUMN IF NOT EXISTS " + name + " " + type, {});
  }

  /// The counter from a `RETURNING last_max_id, born` answer, recording the row's birth.
  std::uint64_t took(const PGresult* r, const std::string& what) {
    if (PQntuples(r) != 1 || PQnfields(r) != 2 || PQgetisnull(r, 0, 1) != 0)
      throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
    const std::uint64_t v = number_at(r, 0, what);
    took_range(PQgetvalue(r, 0, 1));
    s_->memo.reached = v;
    return v;
  }

  /// A table made before counters could expire gets `expires_at` (altered only when it lacks
  /// the column, since `ALTER TABLE` needs the table's owner and locks it whole); then the
  /// expired rows are deleted. Once per distributor.
  void ensure_expiry(const std::string& what) {
    if (s_->memo.expiry_ready) return;
    add_column_once("expires_at", "timestamptz", what);
    (void)exec("DELETE FROM " + table_ + " WHERE expires_at < now()", {});
    s_->memo.expiry_ready = true;
  }

  std::uint64_t value_of(const PGresult* r, const std::string& what) const {
    if (PQntuples(r) != 1 || PQnfields(r) != 1)
      throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
    return number_at(r, 0, what);
  }

  /// Column `col` of the first row as a counter.
  std::uint64_t number_at(const PGresult* r, int col, const std::string& what) const {
    if (PQgetisnull(r, 0, col) == 0) {
      const auto v = detail::parse_decimal<std::uint64_t>(std::string_view(
          PQgetvalue(r, 0, col), static_cast<std::size_t>(PQgetlength(r, 0, col))));
      if (v) return *v;
    }
    throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
  }

  std::string table_;
  std::uint64_t checked_ = 0;  // the connection `check_table` last checked (its serial)
};

/// Where a PostgreSQL server is, written as for the other server backends: `address` (the
/// fields every backend shares, see `server_address`) and the database. The store turns it into
/// a libpq connection string (`conninfo()`); a connection string of your own is taken as it is.
///
///     flakeid::postgres_store store{flakeid::postgres_address{
///         .address = {.host = "db.internal", .user = "app", .password = pw, .tls = true,
///                     .tls_ca_file = "/etc/ssl/db-ca.pem"},
///         .database = "app"}};
///
/// - `address.port` 0 is PostgreSQL's 5432.
/// - `address.unix_socket`: the directory of the server's socket (libpq's `host=/run/postgresql`),
///   or the socket's own path (`/run/postgresql/.s.PGSQL.5433`: its directory and port).
/// - `address.tls` or a CA file: TLS is required and the server's certificate and host name are
///   verified (`sslmode=verify-full`), against `tls_ca_file` or, without one, libpq's default
///   `~/.postgresql/root.crt`. Without either, libpq's default (`sslmode=prefer`).
/// - `address.connect_timeout` and `address.command_timeout`, when not 0, take the place of the
///   store's `connect_timeout` and `io_timeout`.
struct postgres_address {
  server_address address{};
  /// The database; empty: libpq's default (the user's name).
  std::string database{};

  /// The libpq connection string: `host`, `port`, `user`, `password`, `dbname`, `sslmode`,
  /// `sslrootcert`, each quoted (a password may hold any character; do not log the string).
  [[nodiscard]] std::string conninfo() const {
    std::string c;
    const auto add = [&c](std::string_view key, std::string_view value) {
      if (!c.empty()) c += ' ';
      c.append(key).append("='");
      for (const char ch : value) {
        if (ch == '\\' || ch == '\'') c += '\\';
        c += ch;
      }
      c += '\'';
    };
    std::string host = address.host;
    int port = address.port != 0 ? address.port : 5432;
    if (!address.unix_socket.empty()) {
      constexpr std::string_view socket_name = "/.s.PGSQL.";
      host = address.unix_socket;
      if (const auto k = host.rfind(socket_name); k != std::string::npos) {
        const auto n = detail::parse_decimal<std::uint16_t>(
            std::string_view(host).substr(k + socket_name.size()));
        if (n && *n != 0) {
          port = *n;
          host.resize(k);
        }
      }
    }
    add("host", host);
    add("port", std::to_string(port));
    if (!address.user.empty()) add("user", address.user);
    if (!address.password.empty()) add("password", address.password);
    if (!database.empty()) add("dbname", database);
    if (address.tls || !address.tls_ca_file.empty()) {
      add("sslmode", "verify-full");
      if (!address.tls_ca_file.empty()) add("sslrootcert", address.tls_ca_file);
    }
    return c;
  }
};

/// The machine ids a `postgres_store` lease takes (`lease(options, table)`).
enum class postgres_table {
  flakeid,  ///< `flakeid_lease_<namespace>`, created on first use (`lease(options)`)
  cosid,    ///< CosId's `cosid_machine`, beside CosId's JDBC machine-id distributor
};

/// Worker-id leases and segment counters in one PostgreSQL namespace: the two protocols over
/// one database (see the file comment). Cheap to copy; holds no connection itself: each lease
/// and each distributor has its own.
///
///     flakeid::postgres_store store{"host=db.internal dbname=app user=app"};
///     auto lease = store.lease();
///     flakeid::classic_snowflake<> gen{lease};
///     flakeid::segment_chain_generator ids{store.distributor("orders")};
class postgres_store
    : public detail::server_store<std::string, postgres_distributor, detail::postgres_lease_store> {
 public:
  /// The database reached with libpq connection string `conninfo`, tables
  /// `"flakeid_lease_<name_space>"` and `"flakeid_segment_<name_space>"`. Does not connect.
  /// Throws `invalid_option_error` for a connection string that does not parse, a bad namespace
  /// or timeout.
  explicit postgres_store(std::string conninfo, store_options options = {})
      : server_store(std::move(conninfo), std::move(options), "postgres store") {}

  /// The server at `a` (see `postgres_address`). Does not connect. Throws as above.
  explicit postgres_store(const postgres_address& a, store_options options = {})
      : server_store(a.conninfo(), with_timeouts(a.address, std::move(options)), "postgres store") {
  }

  using server_store::lease;
  /// A lease on a worker id in `table`'s machine ids: `postgres_table::flakeid`, as
  /// `lease(o)`; `postgres_table::cosid`, CosId's `cosid_machine` rows of the store's namespace,
  /// beside the CosId services that distribute them, by the rules of `mysql_store`'s (see
  /// adapters/mysql.hpp; `ttl` must be their safe-guard duration). Throws as `lease`'s
  /// constructor.
  [[nodiscard]] flakeid::lease lease(lease_options o, postgres_table table) const {
    if (table == postgres_table::flakeid) return lease(std::move(o));
    o = detail::lease_options_for_store(std::move(o), options_);
    return {std::make_unique<detail::postgres_cosid_machine_store>(address_, o), o};
  }

  /// The connection string, as given (it may hold a password: do not log it).
  [[nodiscard]] const std::string& conninfo() const noexcept { return address_; }

 private:
  static store_options with_timeouts(const server_address& a, store_options o) {
    const server_address t = a.with_store_timeouts(o.connect_timeout, o.io_timeout);
    o.connect_timeout = t.connect_timeout;
    o.io_timeout = t.command_timeout;
    return o;
  }
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
