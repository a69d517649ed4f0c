// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/postgres_lease.hpp
/// `postgres_lease`: worker-id leases in PostgreSQL (libpq; CMake target `flakeid::postgres`).
///
/// One table per namespace, created on first use, with a row per id that has ever been used:
///
///     CREATE TABLE "flakeid_lease_<ns>" (
///       id           bigint PRIMARY KEY,  -- -1: the table's own row (expires_at: created)
///       holder       text,                -- the holder's token, NULL when released
///       last_unix_ms bigint,              -- the holder's deadline: its IDs lie below it
///       expires_at   timestamptz NOT NULL DEFAULT '-infinity');  -- lease expiry
///
/// An id is free once `expires_at + safe_guard <= now()` (server time). A claim takes, in one
/// statement, the free row whose deadline has passed (else the one with the earliest deadline
/// not too far ahead) with `FOR UPDATE SKIP LOCKED`, so two sessions never claim the same
/// one, and records the claimer's deadline; when no row is free it adds the next id (`max +
/// 1`, `ON CONFLICT DO NOTHING`), so the table grows with use, not with the layout's width. A
/// table created less than `ttl + safe_guard` ago (a new namespace, or a server that lost its
/// data) makes the claimer wait that long. Renewal and release update the row only while
/// `holder` is this lease's token; a renewal after the lease lapsed succeeds only while
/// nobody else has claimed the id.
///
///     flakeid::postgres_lease lease{"host=db.internal dbname=app user=app"};
///     flakeid::classic_snowflake<> gen{lease};
///
/// Every request runs with a client-side bound (`connect_timeout`, `io_timeout`); a request
/// that runs out drops the connection, and the next one reconnects. Throws
/// `lease_store_error` naming the server's host:port.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../lease.hpp"
#include "detail/postgres_connection.hpp"

namespace flakeid {

namespace detail {

class postgres_lease_store final : public lease_store {
 public:
  postgres_lease_store(std::string conninfo, const lease_options& o)
      : table_("\"flakeid_lease_" + o.name_space + "\""),
        ttl_ms_(std::to_string(o.ttl.count())),
        guard_ms_(std::to_string(o.safe_guard.count())),
        hold_ms_((o.ttl + o.safe_guard).count()),
        conn_(std::move(conninfo), o.connect_timeout,
              o.io_timeout.count() > 0 ? o.io_timeout
                                       : std::max(std::chrono::milliseconds{10}, o.ttl / 5)) {}

  [[nodiscard]] std::string where() const override { return conn_.where(); }

  std::optional<lease_claim> claim(const claim_request& q) override {
    ensure_table();
    const std::string n = std::to_string(q.count);
    const std::string d = std::to_string(q.deadline_unix_ms);
    const std::string settled = std::to_string(q.settled_unix_ms);
    const std::string skip = std::to_string(q.skip_above_unix_ms);
    const std::string born = "(SELECT (extract(epoch FROM expires_at) * 1000)::bigint FROM " +
                             table_ + " WHERE id = -1)";
    for (int attempt = 0; attempt < 100; ++attempt) {
      result r = exec(
          "WITH c AS (SELECT id, last_unix_ms FROM " + table_ +
              " WHERE id >= 0 AND id < $3::bigint AND "
              "expires_at + $4::bigint * interval '1 millisecond' <= now() AND "
              "(last_unix_ms IS NULL OR last_unix_ms <= $6::bigint) "
              "ORDER BY (last_unix_ms IS NOT NULL AND last_unix_ms > $5::bigint), "
              "CASE WHEN last_unix_ms IS NULL OR last_unix_ms <= $5::bigint THEN 0 "
              "ELSE last_unix_ms END, id LIMIT 1 FOR UPDATE SKIP LOCKED) "
              "UPDATE " +
              table_ +
              " t SET holder = $1, expires_at = now() + $2::bigint * interval '1 millisecond', "
              "last_unix_ms = GREATEST(t.last_unix_ms, $7::bigint) FROM c WHERE t.id = c.id "
              "RETURNING t.id, c.last_unix_ms, " +
              born + ", (extract(epoch FROM now()) * 1000)::bigint",
          {q.holder.c_str(), ttl_ms_.c_str(), n.c_str(), guard_ms_.c_str(), settled.c_str(),
           skip.c_str(), d.c_str()});
      if (PQntuples(r.get()) == 0) {
        r = exec("INSERT INTO " + table_ +
                     " (id, holder, last_unix_ms, expires_at) SELECT COALESCE(MAX(id), -1) + 1, "
                     "$1, $4::bigint, now() + $2::bigint * interval '1 millisecond' FROM " +
                     table_ +
                     " WHERE id >= 0 HAVING COALESCE(MAX(id), -1) + 1 < $3::bigint "
                     "ON CONFLICT (id) DO NOTHING RETURNING id, NULL::bigint, " +
                     born + ", (extract(epoch FROM now()) * 1000)::bigint",
                 {q.holder.c_str(), ttl_ms_.c_str(), n.c_str(), d.c_str()});
      }
      if (PQntuples(r.get()) == 1) {
        lease_claim c;
        c.id = static_cast<std::uint64_t>(number(r, 0));
        c.last_unix_ms = number(r, 1);
        const std::int64_t created = number(r, 2);
        const std::int64_t now = number(r, 3);
        if (created != INT64_MIN && now - created < hold_ms_) c.lost_memory_at = created;
        return c;
      }
      // Nothing free: either every id below the count exists, or another session added the
      // same new id first (then try again).
      result full =
          exec("SELECT COALESCE(MAX(id), -1) + 1 >= $1::bigint FROM " + table_ + " WHERE id >= 0",
               {n.c_str()});
      if (std::string_view(PQgetvalue(full.get(), 0, 0)) == "t") return std::nullopt;
    }
    return std::nullopt;
  }

  renewal renew(std::uint64_t id, const std::string& holder, std::int64_t deadline) override {
    const std::string i = std::to_string(id);
    const std::string d = std::to_string(deadline);
    result r = exec("UPDATE " + table_ +
                        " SET expires_at = now() + $3::bigint * interval '1 millisecond', "
                        "last_unix_ms = GREATEST(last_unix_ms, $4::bigint) WHERE id = $1::bigint "
                        "AND holder = $2",
                    {i.c_str(), holder.c_str(), ttl_ms_.c_str(), d.c_str()});
    return std::string_view(PQcmdTuples(r.get())) == "1" ? renewal::held : renewal::taken;
  }

  void release(std::uint64_t id, const std::string& holder, std::int64_t last) override {
    const std::string i = std::to_string(id);
    const std::string l = std::to_string(last);
    (void)exec("UPDATE " + table_ +
                   " SET holder = NULL, expires_at = now(), last_unix_ms = $3::bigint "
                   "WHERE id = $1::bigint AND holder = $2",
               {i.c_str(), holder.c_str(), l.c_str()});
  }

 private:
  using result = pg_result;

  /// Runs one statement (see `postgres_connection::exec`), as a `lease_store_error`.
  result exec(const std::string& sql, const std::vector<const char*>& params) {
    try {
      return conn_.exec(sql, params);
    } catch (const store_connection_error& e) {
      throw lease_store_error(std::string("flakeid: ") + e.what());
    }
  }

  /// Column `col` of the first row as an integer (INT64_MIN when NULL).
  std::int64_t number(const result& r, int col) const {
    if (PQgetisnull(r.get(), 0, col) != 0) return INT64_MIN;
    const char* v = PQgetvalue(r.get(), 0, col);
    const std::string_view text(v);
    std::int64_t x = 0;
    const auto res = std::from_chars(text.data(), text.data() + text.size(), x);
    if (res.ec != std::errc{} || res.ptr != text.data() + text.size())
      throw lease_store_error("flakeid: " + where() + ": '" + std::string(text) +
                              "' is not a 64-bit integer");
    return x;
  }

  void ensure_table() {
    if (ready_) return;
    (void)exec(
        "BEGIN; SELECT pg_advisory_xact_lock(7079434571962427438); "
        "CREATE TABLE IF NOT EXISTS " +
            table_ +
            " (id bigint PRIMARY KEY, holder text, "
            "last_unix_ms bigint, expires_at timestamptz NOT NULL DEFAULT '-infinity'); "
            "INSERT INTO " +
            table_ +
            " (id, expires_at) VALUES (-1, now()) ON CONFLICT (id) DO NOTHING; "
            "COMMIT;",
        {});
    ready_ = true;
  }

  std::string table_;
  std::string ttl_ms_;
  std::string guard_ms_;
  std::int64_t hold_ms_;
  bool ready_ = false;
  postgres_connection conn_;
};

}  // namespace detail

/// A worker-id lease in PostgreSQL reached with libpq connection string `conninfo` (see the
/// file comment).
class postgres_lease : public lease {
 public:
  explicit postgres_lease(const std::string& conninfo, lease_options options = {})
      : lease(std::make_unique<detail::postgres_lease_store>(conninfo, options), options) {}
};

}  // namespace flakeid
