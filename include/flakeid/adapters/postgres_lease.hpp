#pragma once
/// \file adapters/postgres_lease.hpp
/// `postgres_lease`: worker-id leases in PostgreSQL (libpq; CMake target `flakeid::postgres`).
///
/// One table per namespace, created on first use, with one row per id:
///
///     CREATE TABLE "flakeid_lease_<ns>" (
///       id           bigint PRIMARY KEY,
///       holder       text,                -- the holder's token, NULL when released
///       last_unix_ms bigint,              -- the last timestamp minted with the id
///       expires_at   timestamptz NOT NULL DEFAULT '-infinity');  -- lease expiry
///
/// An id is free once `expires_at + safe_guard <= now()` (server time). A claim is one
/// statement, so one transaction: an `UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP
/// LOCKED)` that takes the lowest free id, so two sessions can never claim the same one; rows
/// are added with `INSERT ... ON CONFLICT DO NOTHING` under an advisory lock. Renewal and
/// release update the row only while `holder` is this lease's token.
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
        conn_(std::move(conninfo), o.connect_timeout,
              o.io_timeout.count() > 0 ? o.io_timeout
                                       : std::max(std::chrono::milliseconds{10}, o.ttl / 5)) {}

  [[nodiscard]] std::string where() const override { return conn_.where(); }

  std::optional<lease_claim> claim(std::uint64_t count, const std::string& holder) override {
    ensure_rows(count);
    const std::string n = std::to_string(count);
    result r =
        exec("UPDATE " + table_ +
                 " SET holder = $1, expires_at = now() + $2::bigint * interval '1 millisecond' "
                 "WHERE id = (SELECT id FROM " +
                 table_ +
                 " WHERE id < $3::bigint AND "
                 "expires_at + $4::bigint * interval '1 millisecond' <= now() "
                 "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, last_unix_ms",
             {holder.c_str(), ttl_ms_.c_str(), n.c_str(), guard_ms_.c_str()});
    if (PQntuples(r.get()) == 0) return std::nullopt;
    lease_claim c;
    c.id = static_cast<std::uint64_t>(std::stoull(PQgetvalue(r.get(), 0, 0)));
    if (PQgetisnull(r.get(), 0, 1) == 0) c.last_unix_ms = std::stoll(PQgetvalue(r.get(), 0, 1));
    return c;
  }

  renewal renew(std::uint64_t id, const std::string& holder, std::int64_t last) override {
    const std::string i = std::to_string(id);
    const std::string l = std::to_string(last);
    result r =
        exec("UPDATE " + table_ +
                 " SET holder = $2, expires_at = now() + $3::bigint * interval '1 millisecond', "
                 "last_unix_ms = GREATEST(last_unix_ms, $5::bigint) WHERE id = $1::bigint AND "
                 "(holder = $2 OR "
                 "(expires_at + $4::bigint * interval '1 millisecond' <= now() AND "
                 "(last_unix_ms IS NULL OR last_unix_ms <= $5::bigint)))",
             {i.c_str(), holder.c_str(), ttl_ms_.c_str(), guard_ms_.c_str(),
              last == INT64_MIN ? nullptr : l.c_str()});
    return std::string_view(PQcmdTuples(r.get())) == "1" ? renewal::held : renewal::taken;
  }

  void release(std::uint64_t id, const std::string& holder, std::int64_t last) override {
    const std::string i = std::to_string(id);
    const std::string l = std::to_string(last);
    (void)exec("UPDATE " + table_ +
                   " SET holder = NULL, expires_at = now(), "
                   "last_unix_ms = GREATEST(last_unix_ms, $3::bigint) WHERE id = $1::bigint AND "
                   "holder = $2",
               {i.c_str(), holder.c_str(), last == INT64_MIN ? nullptr : l.c_str()});
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

  void ensure_rows(std::uint64_t count) {
    if (count <= rows_) return;
    (void)exec(
        "BEGIN; SELECT pg_advisory_xact_lock(7079434571962427438); "
        "CREATE TABLE IF NOT EXISTS " +
            table_ +
            " (id bigint PRIMARY KEY, holder text, "
            "last_unix_ms bigint, expires_at timestamptz NOT NULL DEFAULT '-infinity'); "
            "INSERT INTO " +
            table_ + " (id) SELECT g FROM generate_series(0, " + std::to_string(count - 1) +
            ") AS g ON CONFLICT (id) DO NOTHING; COMMIT;",
        {});
    rows_ = count;
  }

  std::string table_;
  std::string ttl_ms_;
  std::string guard_ms_;
  std::uint64_t rows_ = 0;
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
