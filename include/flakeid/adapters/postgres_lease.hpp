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

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../lease.hpp"

namespace flakeid {

namespace detail {

class postgres_lease_store final : public lease_store {
 public:
  postgres_lease_store(std::string conninfo, const lease_options& o)
      : conninfo_(std::move(conninfo)),
        table_("\"flakeid_lease_" + o.name_space + "\""),
        ttl_ms_(std::to_string(o.ttl.count())),
        guard_ms_(std::to_string(o.safe_guard.count())),
        connect_timeout_(o.connect_timeout),
        io_timeout_(o.io_timeout.count() > 0 ? o.io_timeout
                                             : std::max(std::chrono::milliseconds{10}, o.ttl / 5)) {
    std::string host = "localhost";
    std::string port = "5432";
    char* err = nullptr;
    PQconninfoOption* opts = PQconninfoParse(conninfo_.c_str(), &err);
    if (opts == nullptr) {
      const std::string why = err != nullptr ? err : "out of memory";
      PQfreemem(err);
      throw std::invalid_argument("flakeid: invalid PostgreSQL connection string: " + trim(why));
    }
    for (auto* p = opts; p->keyword != nullptr; ++p) {
      if (p->val == nullptr || *p->val == '\0') continue;
      const std::string k = p->keyword;
      if (k == "host" || (k == "hostaddr" && host == "localhost")) host = p->val;
      if (k == "port") port = p->val;
    }
    PQconninfoFree(opts);
    where_ = "postgresql " + host + ":" + port;
  }

  [[nodiscard]] std::string where() const override { return where_; }

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
  struct result_deleter {
    void operator()(PGresult* r) const noexcept { PQclear(r); }
  };
  struct conn_deleter {
    void operator()(PGconn* c) const noexcept { PQfinish(c); }
  };
  using result = std::unique_ptr<PGresult, result_deleter>;
  using steady = std::chrono::steady_clock;

  static std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  [[noreturn]] void fail(const std::string& why) {
    conn_.reset();  // reconnect next time
    throw lease_store_error("flakeid: " + where_ + ": " + trim(why));
  }

  /// Waits until the socket is readable (or writable); false at the deadline.
  bool wait_socket(bool write, steady::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now()).count();
    if (left <= 0) return false;
    pollfd p{PQsocket(conn_.get()), static_cast<short>(write ? POLLOUT : POLLIN), 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    return n != 0;  // an error shows in the next libpq call
  }

  void connect() {
    if (conn_) return;
    const auto deadline = steady::now() + connect_timeout_;
    conn_.reset(PQconnectStart(conninfo_.c_str()));
    const std::string head = "flakeid: cannot connect to " + where_ + " within " +
                             std::to_string(connect_timeout_.count()) + " ms: ";
    if (!conn_ || PQstatus(conn_.get()) == CONNECTION_BAD) {
      const std::string why = conn_ ? trim(PQerrorMessage(conn_.get())) : "out of memory";
      conn_.reset();
      throw lease_store_error(head + why);
    }
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    for (;;) {
      if (st == PGRES_POLLING_OK) break;
      if (st == PGRES_POLLING_FAILED) {
        const std::string why = trim(PQerrorMessage(conn_.get()));
        conn_.reset();
        throw lease_store_error(head + why);
      }
      if (!wait_socket(st == PGRES_POLLING_WRITING, deadline)) {
        conn_.reset();
        throw lease_store_error(head + "timed out");
      }
      st = PQconnectPoll(conn_.get());
    }
  }

  /// Runs one statement with text parameters, within `io_timeout_`; returns its last result.
  result exec(const std::string& sql, const std::vector<const char*>& params) {
    connect();
    const auto deadline = steady::now() + io_timeout_;
    PGconn* c = conn_.get();
    result last;
    const int sent = params.empty()
                         ? PQsendQuery(c, sql.c_str())
                         : PQsendQueryParams(c, sql.c_str(), static_cast<int>(params.size()),
                                             nullptr, params.data(), nullptr, nullptr, 0);
    if (sent == 0) fail(PQerrorMessage(c));
    if (PQsetnonblocking(c, 1) != 0) fail(PQerrorMessage(c));
    for (;;) {
      const int f = PQflush(c);
      if (f == 0) break;
      if (f < 0) fail(PQerrorMessage(c));
      if (!wait_socket(true, deadline))
        fail("no answer within " + std::to_string(io_timeout_.count()) + " ms");
    }
    for (;;) {
      if (PQconsumeInput(c) == 0) fail(PQerrorMessage(c));
      if (PQisBusy(c) == 0) {
        result r(PQgetResult(c));
        if (!r) break;
        const auto s = PQresultStatus(r.get());
        if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
          fail(PQresultErrorMessage(r.get()));  // drops the connection: no half-done transaction
        }
        last = std::move(r);
        continue;
      }
      if (!wait_socket(false, deadline))
        fail("no answer within " + std::to_string(io_timeout_.count()) + " ms");
    }
    if (!last) fail("no result");
    return last;
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

  std::string conninfo_;
  std::string table_;
  std::string ttl_ms_;
  std::string guard_ms_;
  std::chrono::milliseconds connect_timeout_;
  std::chrono::milliseconds io_timeout_;
  std::string where_;
  std::uint64_t rows_ = 0;
  std::unique_ptr<PGconn, conn_deleter> conn_;
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
