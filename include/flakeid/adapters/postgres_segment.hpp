// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/postgres_segment.hpp
/// Segment counters in PostgreSQL (libpq; CMake target `flakeid::postgres`):
/// `postgres_segment_store` and its `postgres_distributor`, a model of
/// `flakeid::keyed_segment_distributor`.
///
/// One table per namespace, created on first use (under an advisory lock, so concurrent first
/// users do not race), with one row per counter:
///
///     CREATE TABLE "flakeid_segment_<ns>" (
///       key         text PRIMARY KEY,
///       last_max_id bigint NOT NULL CHECK (last_max_id >= 0));
///
/// A call is one statement, so one transaction; the row lock makes it atomic, and a missing row
/// counts from 0:
///
///     INSERT INTO "flakeid_segment_<ns>" AS t (key, last_max_id) VALUES ($1, $2)
///     ON CONFLICT (key) DO UPDATE SET last_max_id = t.last_max_id + EXCLUDED.last_max_id
///     RETURNING last_max_id
///
/// The counter is durable once the statement commits (with the server's default
/// `synchronous_commit = on`). `bigint` caps it at 2^63 - 1.
///
///     flakeid::postgres_segment_store store{"host=db.internal dbname=app user=app"};
///     flakeid::segment_chain_generator gen{store.distributor("orders"), {.step = 1000}};
///
/// Every request is bounded on the client side: `connect_timeout` to connect, `io_timeout` per
/// statement; a failed or timed-out request drops the connection (no transaction is left open)
/// and the next call reconnects. Failures throw `segment_store_error` naming the server, the
/// namespace and the key.

#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../errors.hpp"
#include "../segment.hpp"
#include "../segment_stores.hpp"
#include "detail/postgres_connection.hpp"

namespace flakeid {

/// Settings of a `postgres_segment_store`.
struct postgres_segment_options {
  /// Several applications share one database under different namespaces, a table each:
  /// 1 to 40 letters, digits, '_' or '-'.
  std::string name_space = "default";
  /// Bound on connecting to the server.
  std::chrono::milliseconds connect_timeout{2'000};
  /// Bound on one statement (client side).
  std::chrono::milliseconds io_timeout{2'000};
};

/// A counter of a `postgres_segment_store`, with its own connection (opened on the first call).
/// A copy opens a connection of its own to the same counter.
///
/// `next_max_id(step)` is one `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` (see the file
/// comment); the first call on a connection also creates the table when it is missing. Throws
/// `segment_store_error` when the server cannot be reached within `connect_timeout`, does not
/// answer within `io_timeout`, or reports an error (the counter would pass 2^63 - 1, no
/// permission). Thread-safety: every member may be called concurrently (calls on one
/// distributor take turns on its connection).
class postgres_distributor {
 public:
  /// Counter `key` in the database reached with libpq connection string `conninfo`. Does not
  /// connect. Throws `std::invalid_argument` for a connection string that does not parse, a bad
  /// namespace or timeout, or an empty key.
  postgres_distributor(const std::string& conninfo, std::string key,
                       postgres_segment_options options = {})
      : conninfo_(conninfo), options_(std::move(options)), key_(std::move(key)) {
    detail::check_segment_key(key_);
    detail::check_segment_namespace(options_.name_space);
    detail::check_store_timeout("connect_timeout", options_.connect_timeout);
    detail::check_store_timeout("io_timeout", options_.io_timeout);
    s_ = std::make_unique<state>(conninfo_, options_);
    name_ = s_->conn.where() + " namespace " + options_.name_space;
    table_ = "\"flakeid_segment_" + options_.name_space + "\"";
  }

  postgres_distributor(const postgres_distributor& o)
      : conninfo_(o.conninfo_),
        options_(o.options_),
        key_(o.key_),
        name_(o.name_),
        table_(o.table_),
        s_(std::make_unique<state>(conninfo_, options_)) {}
  postgres_distributor(postgres_distributor&&) noexcept = default;
  postgres_distributor& operator=(const postgres_distributor& o) {
    if (this != &o) *this = postgres_distributor(o);
    return *this;
  }
  postgres_distributor& operator=(postgres_distributor&&) noexcept = default;
  ~postgres_distributor() = default;

  /// Adds `step` to the counter and returns its new value (one statement).
  std::uint64_t next_max_id(std::uint64_t step) {
    const std::string what = "next_max_id(" + std::to_string(step) + ")";
    const std::string s = std::to_string(step);
    std::lock_guard lk(s_->mutex);
    ensure_table(what);
    const detail::pg_result r =
        exec("INSERT INTO " + table_ +
                 " AS t (key, last_max_id) VALUES ($1, $2::bigint) ON CONFLICT (key) DO UPDATE SET "
                 "last_max_id = t.last_max_id + EXCLUDED.last_max_id RETURNING last_max_id",
             {key_.c_str(), s.c_str()}, what);
    return value_of(r.get(), what);
  }

  /// The counter's value (0 when it has no row yet). Throws as `next_max_id`.
  [[nodiscard]] std::uint64_t current() {
    std::lock_guard lk(s_->mutex);
    ensure_table("current()");
    const detail::pg_result r =
        exec("SELECT last_max_id FROM " + table_ + " WHERE key = $1", {key_.c_str()}, "current()");
    if (PQntuples(r.get()) == 0) return 0;
    return value_of(r.get(), "current()");
  }

  /// `postgresql host:port namespace <ns>`.
  [[nodiscard]] std::string_view store_name() const noexcept { return name_; }
  /// The counter's key (the row's `key`).
  [[nodiscard]] std::string_view key() const noexcept { return key_; }
  /// The quoted table name: `"flakeid_segment_<ns>"`.
  [[nodiscard]] const std::string& table() const noexcept { return table_; }
  /// A distributor for counter `key` of the same database and namespace, on a connection of
  /// its own.
  [[nodiscard]] postgres_distributor with_key(const std::string& key) const {
    return {conninfo_, key, options_};
  }

 private:
  struct state {
    state(const std::string& conninfo, const postgres_segment_options& o)
        : conn(conninfo, o.connect_timeout, o.io_timeout) {}
    std::mutex mutex;  // one request at a time on the connection
    detail::postgres_connection conn;
    bool table_ready = false;
  };

  detail::pg_result exec(const std::string& sql, const std::vector<const char*>& params,
                         const std::string& what) {
    try {
      return s_->conn.exec(sql, params);
    } catch (const detail::store_connection_error& e) {
      throw segment_store_error(name_, key_, what + " failed: " + e.what());
    }
  }

  void ensure_table(const std::string& what) {
    if (s_->table_ready) return;
    (void)exec(
        "BEGIN; SELECT pg_advisory_xact_lock(7079434571962427439); "
        "CREATE TABLE IF NOT EXISTS " +
            table_ +
            " (key text PRIMARY KEY, last_max_id bigint NOT NULL CHECK (last_max_id >= 0));"
            " COMMIT;",
        {}, what);
    s_->table_ready = true;
  }

  std::uint64_t value_of(const PGresult* r, const std::string& what) const {
    std::uint64_t v = 0;
    if (PQntuples(r) == 1 && PQnfields(r) == 1 && PQgetisnull(r, 0, 0) == 0) {
      const char* text = PQgetvalue(r, 0, 0);
      const char* end = text + PQgetlength(r, 0, 0);
      const auto [p, ec] = std::from_chars(text, end, v);
      if (ec == std::errc{} && p == end) return v;
    }
    throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
  }

  std::string conninfo_;
  postgres_segment_options options_;
  std::string key_;
  std::string name_;
  std::string table_;
  std::unique_ptr<state> s_;
};

/// Named segment counters in one PostgreSQL namespace (one table). Cheap to copy; holds no
/// connection itself: each distributor has its own.
///
///     flakeid::postgres_segment_store store{"host=db.internal dbname=app user=app"};
///     flakeid::segment_chain_generator gen{store.distributor("orders")};
class postgres_segment_store {
 public:
  /// Counters in the database reached with `conninfo`, in table
  /// `"flakeid_segment_<name_space>"`. Does not connect. Throws `std::invalid_argument` for a
  /// connection string that does not parse, a bad namespace or timeout.
  explicit postgres_segment_store(std::string conninfo, postgres_segment_options options = {})
      : conninfo_(std::move(conninfo)), options_(std::move(options)) {
    (void)postgres_distributor(conninfo_, "check", options_);
  }

  /// A distributor for counter `key` (created at 0 on first use). Throws
  /// `std::invalid_argument` for an empty key.
  [[nodiscard]] postgres_distributor distributor(const std::string& key) const {
    return {conninfo_, key, options_};
  }
  /// The counter's value: the largest ID reserved so far (0 when unused). Opens a connection
  /// for the call. Throws `segment_store_error`.
  [[nodiscard]] std::uint64_t current(const std::string& key) const {
    return distributor(key).current();
  }
  /// The connection string, as given.
  [[nodiscard]] const std::string& conninfo() const noexcept { return conninfo_; }
  /// The options.
  [[nodiscard]] const postgres_segment_options& options() const noexcept { return options_; }

 private:
  std::string conninfo_;
  postgres_segment_options options_;
};

}  // namespace flakeid
