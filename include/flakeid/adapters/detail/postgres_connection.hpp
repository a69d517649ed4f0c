// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/postgres_connection.hpp
/// Internal: one libpq connection with bounded connect and statement times, shared by the
/// PostgreSQL adapters (`postgres_store`'s leases, `postgres_distributor`), and the redaction that keeps
/// the password out of every message they make. Not part of the public API.

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../detail/fork_guard.hpp"
#include "../../detail/server_store.hpp"
#include "../../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// Where the user info of a URI `conninfo` lies: from after `scheme://` up to its last '@';
/// none when `conninfo` is no URI or has no '@'.
inline std::optional<std::pair<std::size_t, std::size_t>> postgres_user_info(
    std::string_view conninfo) {
  const auto scheme = conninfo.find("://");
  const auto at = conninfo.rfind('@');
  if (scheme == std::string_view::npos || at == std::string_view::npos || at < scheme + 3)
    return std::nullopt;
  return std::pair{scheme + 3, at};
}

/// The passwords a libpq connection string may hold, found without parsing it (it may not
/// parse): in a URI, the user info after its first ':' (up to the last '@'), raw and
/// percent-decoded; the value of a `password` keyword or query parameter. Longest first.
inline std::vector<std::string> postgres_secrets(std::string_view conninfo) {
  std::vector<std::string> out;
  const auto add = [&](std::string_view v) {
    if (!v.empty()) out.emplace_back(v);
  };
  if (const auto info = postgres_user_info(conninfo)) {
    const auto [from, at] = *info;
    const auto colon = conninfo.find(':', from);
    if (colon < at) {
      const std::string_view raw = conninfo.substr(colon + 1, at - colon - 1);
      add(raw);
      std::string decoded;
      for (std::size_t i = 0; i < raw.size(); ++i) {
        int v = 0;
        if (raw[i] == '%' && i + 2 < raw.size() &&
            std::from_chars(raw.data() + i + 1, raw.data() + i + 3, v, 16).ptr ==
                raw.data() + i + 3) {
          decoded += static_cast<char>(v);
          i += 2;
        } else {
          decoded += raw[i];
        }
      }
      add(decoded);
    }
  }
  for (std::size_t k = conninfo.find("password"); k != std::string_view::npos;
       k = conninfo.find("password", k + 1)) {
    std::size_t i = k + 8;
    while (i < conninfo.size() && conninfo[i] == ' ') ++i;
    if (i >= conninfo.size() || conninfo[i] != '=') continue;
    ++i;
    while (i < conninfo.size() && conninfo[i] == ' ') ++i;
    std::string_view v = conninfo.substr(i);
    if (v.starts_with('\'')) v.remove_prefix(1);
    add(v.substr(0, v.find_first_of(" \t\n'")));
    add(v.substr(0, v.find('&')));
    add(v.substr(0, v.find('\'')));
  }
  std::sort(out.begin(), out.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

/// The text that may be a password value in a key=value connection string that libpq could
/// not parse: after each `password =`, up to the closing quote (or the end) when quoted, else
/// up to the space before the next `keyword=` (or the end).
inline std::vector<std::string> postgres_password_spans(std::string_view conninfo) {
  std::vector<std::string> out;
  const auto is_word = [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
  };
  for (std::size_t k = conninfo.find("password"); k != std::string_view::npos;
       k = conninfo.find("password", k + 1)) {
    std::size_t i = conninfo.find_first_not_of(' ', k + 8);
    if (i == std::string_view::npos || conninfo[i] != '=') continue;
    i = std::min(conninfo.find_first_not_of(' ', i + 1), conninfo.size());
    std::size_t end = i;
    if (i < conninfo.size() && conninfo[i] == '\'') {
      for (end = ++i; end < conninfo.size() && conninfo[end] != '\''; ++end)
        if (conninfo[end] == '\\') ++end;
    } else {
      for (; end < conninfo.size(); ++end) {
        if (conninfo[end] != ' ') continue;
        std::size_t w = conninfo.find_first_not_of(' ', end);
        const std::size_t word = w;
        while (w < conninfo.size() && is_word(conninfo[w])) ++w;
        w = std::min(conninfo.find_first_not_of(' ', w), conninfo.size());
        if (w > word && w < conninfo.size() && conninfo[w] == '=') break;
      }
    }
    out.emplace_back(conninfo.substr(i, std::min(end, conninfo.size()) - i));
  }
  return out;
}

/// libpq's message about a connection string it could not parse, each quoted piece of it that
/// lies within a possible password value (`postgres_password_spans`) replaced by `***`.
inline std::string redact_parse_error(std::string why, std::string_view conninfo) {
  const std::vector<std::string> spans = postgres_password_spans(conninfo);
  for (std::size_t open = why.find('"'); open != std::string::npos;) {
    std::size_t close = why.find('"', open + 1);
    if (close == std::string::npos) break;
    const std::string piece = why.substr(open + 1, close - open - 1);
    if (!piece.empty() && std::any_of(spans.begin(), spans.end(), [&](const std::string& s) {
          return s.find(piece) != std::string::npos;
        })) {
      why.replace(open + 1, piece.size(), "***");
      close = open + 4;
    }
    open = why.find('"', close + 1);
  }
  return why;
}

/// `text` with every one of `secrets` replaced by `***`.
inline std::string redact(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets)
    for (auto p = text.find(s); p != std::string::npos; p = text.find(s, p + 3))
      text.replace(p, s.size(), "***");
  return text;
}

struct pg_result_deleter {
  void operator()(PGresult* r) const noexcept { PQclear(r); }
};

/// A libpq result, cleared on scope exit.
using pg_result = std::unique_ptr<PGresult, pg_result_deleter>;

/// One connection to PostgreSQL from a libpq connection string, opened on first use within
/// `connect_timeout`, with every request bounded by `io_timeout` on the client side. A request
/// that fails (or runs out of time) drops the connection, so no transaction is left half done,
/// and the next one reconnects. Not thread-safe: one caller at a time.
class postgres_connection {
 public:
  /// Throws `invalid_option_error` when `conninfo` (key=value pairs or a `postgresql://` URI)
  /// does not parse; the message has the password replaced by `***`.
  postgres_connection(std::string conninfo, std::chrono::milliseconds connect_timeout,
                      std::chrono::milliseconds io_timeout)
      : conninfo_(std::move(conninfo)),
        connect_timeout_(connect_timeout),
        io_timeout_(io_timeout),
        secrets_(postgres_secrets(conninfo_)) {
    std::string host = "localhost";
    std::string port = "5432";
    std::string user;
    std::string db;
    // libpq ends a URI's user info at the first '/': a password with a '/' in it would be read
    // as a host, a port and a database name, which messages show.
    if (const auto info = postgres_user_info(conninfo_);
        info && conninfo_.find('/', info->first) < info->second) {
      throw invalid_option_error(
          "flakeid: invalid PostgreSQL connection string: an '@' follows a '/' (a '/' in the "
          "password is written %2F, an '@' in the path or a parameter %40)");
    }
    char* err = nullptr;
    PQconninfoOption* opts = PQconninfoParse(conninfo_.c_str(), &err);
    if (opts == nullptr) {
      const std::string why = err != nullptr ? err : "out of memory";
      PQfreemem(err);
      throw invalid_option_error("flakeid: invalid PostgreSQL connection string: " +
                                 redact(redact_parse_error(trim(why), conninfo_), secrets_));
    }
    for (auto* p = opts; p->keyword != nullptr; ++p) {
      if (p->val == nullptr || *p->val == '\0') continue;
      const std::string k = p->keyword;
      if (k == "host" || (k == "hostaddr" && host == "localhost")) host = p->val;
      if (k == "port") port = p->val;
      if (k == "user") user = p->val;
      if (k == "dbname") db = p->val;
      if (k == "password") secrets_.insert(secrets_.begin(), p->val);
    }
    PQconninfoFree(opts);
    // libpq ends a URI's user info at its first '@': the rest of such a password is the host.
    if (host.find('@') != std::string::npos)
      throw invalid_option_error(
          "flakeid: invalid PostgreSQL connection string: a host name holds '@' (an '@' in the "
          "password is written %40)");
    where_ = "postgresql " + host + ":" + port;
    if (!user.empty()) where_ += " user " + user;
    if (!db.empty()) where_ += " db " + db;
  }

  /// `postgresql host:port`, then ` user <name>` and ` db <name>` when the connection string
  /// names them; never the password.
  [[nodiscard]] const std::string& where() const noexcept { return where_; }

  /// Runs `sql` (with text parameters `$1`...; several statements when `params` is empty)
  /// within `io_timeout` and returns its last result. Throws `store_connection_error` when it
  /// cannot connect, the server reports an error, or no answer comes in time.
  /// Throws `forked_process_error` in a child forked after the connection was made: its owner
  /// calls it before taking a lock a parent's thread may have held.
  void check_fork() const {
    if (born_.forked()) throw_forked("this connection to " + where_);
  }

  /// A new connection first makes its own commits wait for their WAL when the server's
  /// `synchronous_commit` is `off`: a server that stops abruptly, or re-initialises after one of
  /// its processes crashed (which keeps `pg_postmaster_start_time()`), would otherwise lose the
  /// last claims, renewals and ranges it confirmed, and hand them out again. Its transactions
  /// run in READ COMMITTED whatever `default_transaction_isolation` the server, database or role
  /// sets: under REPEATABLE READ or SERIALIZABLE a statement that waited for another session's
  /// update of its row failed (`could not serialize access`) where it should count on.
  pg_result exec(const std::string& sql, const std::vector<const char*>& params) {
    check_fork();
    if (!conn_) {
      connect();
      (void)run(
          "SELECT set_config('synchronous_commit', 'on', false) WHERE "
          "current_setting('synchronous_commit') = 'off'; SELECT "
          "set_config('default_transaction_isolation', 'read committed', false)",
          {});
    }
    return run(sql, params);
  }

  /// Closes the connection (the next request reconnects).
  void reset() noexcept { conn_.reset(); }

  /// A number that no other connection of the process has had, while one is open; 0 when
  /// none is. An owner that checks a table once per connection compares it.
  [[nodiscard]] std::uint64_t serial() const noexcept { return conn_ ? serial_ : 0; }

  static std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

 private:
  /// `exec` on the open connection.
  pg_result run(const std::string& sql, const std::vector<const char*>& params) {
    const auto deadline = steady::now() + io_timeout_;
    PGconn* c = conn_.get();
    pg_result last;
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
        pg_result r(PQgetResult(c));
        if (!r) break;
        const auto s = PQresultStatus(r.get());
        if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
          // Drops the connection: no half-done transaction. SQLSTATE 42P01: no such table.
          const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
          fail(PQresultErrorMessage(r.get()),
               state != nullptr && std::string_view(state) == "42P01");
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

  struct conn_deleter {
    fork_stamp born;  // in a forked child: close the socket, send no Terminate
    void operator()(PGconn* c) const noexcept {
      if (!born.forked()) {
        PQfinish(c);
      } else if (const int s = PQsocket(c); s >= 0) {
        (void)::close(s);
      }
    }
  };
  using steady = std::chrono::steady_clock;

  /// Drops the connection (the next call reconnects) and throws `missing_table_error` when
  /// `no_table`, else `store_connection_error`.
  [[noreturn]] void fail(const std::string& why, bool no_table = false) {
    conn_.reset();
    std::string what = where_ + ": " + redact(trim(why), secrets_);
    if (no_table) throw missing_table_error(what);
    throw store_connection_error(what);
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
    const std::string head = "cannot connect to " + where_ + " within " +
                             std::to_string(connect_timeout_.count()) + " ms: ";
    if (!conn_ || PQstatus(conn_.get()) == CONNECTION_BAD) {
      const std::string why = conn_ ? trim(PQerrorMessage(conn_.get())) : "out of memory";
      conn_.reset();
      throw store_connection_error(head + redact(why, secrets_));
    }
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    for (;;) {
      if (st == PGRES_POLLING_OK) break;
      if (st == PGRES_POLLING_FAILED) {
        const std::string why = trim(PQerrorMessage(conn_.get()));
        conn_.reset();
        throw store_connection_error(head + redact(why, secrets_));
      }
      if (!wait_socket(st == PGRES_POLLING_WRITING, deadline)) {
        conn_.reset();
        throw store_connection_error(head + "timed out");
      }
      st = PQconnectPoll(conn_.get());
    }
    // Notices ("relation already exists, skipping") are not errors: keep them off stderr.
    PQsetNoticeProcessor(
        conn_.get(), [](void*, const char*) {}, nullptr);
    static std::atomic<std::uint64_t> opened{0};
    serial_ = ++opened;
  }

  std::string conninfo_;
  std::chrono::milliseconds connect_timeout_;
  std::chrono::milliseconds io_timeout_;
  std::vector<std::string> secrets_;  // kept out of every message
  std::string where_;
  std::unique_ptr<PGconn, conn_deleter> conn_;
  std::uint64_t serial_ = 0;  // see serial()
  fork_stamp born_;           // a forked child's requests throw forked_process_error
};

/// Refuses table `table` (quoted, as the adapters name it) when a table of its name lies in
/// more than one schema of the session's `search_path`: the statements name it unqualified, so
/// a role whose path finds another of them (one with a schema of its own name, `"$user"`, made
/// after the table was in `public`) works on another table, and `risk` follows. Throws
/// `store_connection_error`.
inline void postgres_require_one_table(postgres_connection& conn, const std::string& table,
                                       std::string_view risk) {
  const std::string name = table.substr(1, table.size() - 2);
  const pg_result r = conn.exec(
      "SELECT count(*), string_agg(quote_ident(n.nspname), ', ' ORDER BY "
      "array_position(current_schemas(true), n.nspname)) FROM pg_class c JOIN pg_namespace n ON "
      "n.oid = c.relnamespace WHERE c.relname = $1 AND n.nspname = ANY (current_schemas(true))",
      {name.c_str()});
  if (PQntuples(r.get()) != 1 || std::string_view(PQgetvalue(r.get(), 0, 0)) == "0" ||
      std::string_view(PQgetvalue(r.get(), 0, 0)) == "1")
    return;
  throw store_connection_error(
      conn.where() + ": table " + table + " is in schemas " + PQgetvalue(r.get(), 0, 1) +
      " of this session's search_path, and the first is used: a "
      "session whose search_path finds another one " +
      std::string(risk) + " (keep one of them, where every role's search_path finds it)");
}

/// Refuses table `table` (quoted, as the adapters name it) when the server does not write it
/// to its WAL (`UNLOGGED`): a crash restart empties such a table, also the re-initialisation
/// after one backend was killed, and a process started since counts anew from 0. A missing
/// table passes. Throws `store_connection_error`.
inline void postgres_require_logged(postgres_connection& conn, const std::string& table) {
  const pg_result r = conn.exec(
      "SELECT relpersistence = 'u' FROM pg_class WHERE oid = to_regclass($1)", {table.c_str()});
  if (PQntuples(r.get()) != 1 || std::string_view(PQgetvalue(r.get(), 0, 0)) != "t") return;
  throw store_connection_error(conn.where() + ": table " + table +
                               " is UNLOGGED: a crash restart of the server empties it, and a "
                               "process started since counts anew from 0 (ALTER TABLE " +
                               table + " SET LOGGED)");
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
