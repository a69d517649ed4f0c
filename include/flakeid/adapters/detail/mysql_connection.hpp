// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/mysql_connection.hpp
/// Internal: `mysql_address` (where a MySQL or MariaDB server is and how to log in), and one
/// MariaDB Connector/C connection with connect and statement times bounded on the client side
/// in milliseconds (the client's non-blocking calls, polled), shared by the MySQL adapters.

#include <mysql.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../detail/fork_guard.hpp"
#include "../../detail/server_store.hpp"
#include "../../detail/text_util.hpp"
#include "../../errors.hpp"
#include "../../version.hpp"
#include "../server_address.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// Where a MySQL or MariaDB server is and how to log in; one struct for every MySQL store: a
/// `server_address` (port 3306) and the database.
///
///     mysql://[user[:password]@]host[:port][/database][?tls=1&tls_ca=/etc/ca.pem]
///     mariadb://...                                  the same
///     mysql://[user[:password]@]/path/to/mysqld.sock[/database]   (a Unix socket: ?socket=)
///
///     auto o = flakeid::mysql_address::parse("mysql://app:s3cret@db.internal/shop");
///     auto e = flakeid::mysql_address::from_env();           // FLAKEID_MYSQL_URL
///     flakeid::mysql_address d{.address = {.host = "db.internal", .user = "app"},
///                              .database = "shop"};     // or field by field
///
/// User and password are percent-decoded; an IPv6 address is written in brackets. Query
/// parameters: `socket` (a Unix socket path; host and port are then not used), `tls` (1:
/// require TLS: a server that offers none is refused), `tls_ca` (PEM file of CA certificates:
/// the server certificate is verified against it, host name included), `timeout`,
/// `connect_timeout`, `command_timeout` (`250ms`, `2s`, or milliseconds). As with every MySQL
/// client, the host `localhost` means the default Unix socket: write 127.0.0.1 for TCP on this
/// host.
///
/// No message of flakeid names the password: `where()` and every error show user, host, port
/// and database only, and a URI that does not parse is quoted with its password as `***`.
struct mysql_address {
  /// Host, port (0: 3306), socket, user, password, TLS, CA file and timeouts.
  server_address address{};
  /// Database (schema) of the tables; empty: none selected (the server then refuses table
  /// names without one).
  std::string database{};

  /// Reads a `mysql://` or `mariadb://` URI (see the struct comment). Throws
  /// `invalid_option_error` naming what is wrong, the URI quoted with its password hidden.
  /// `from_env()` reads `FLAKEID_MYSQL_URL` so.
  [[nodiscard]] static mysql_address parse(std::string_view text);
  /// `parse(getenv(variable))`. Throws `invalid_option_error` when the variable is unset or
  /// empty, or does not parse.
  [[nodiscard]] static mysql_address from_env(const char* variable = "FLAKEID_MYSQL_URL") {
    return detail::address_from_env<mysql_address>(variable);
  }
  /// Where the server is, for messages: `mysql host:port` or `mysql unix:<path>`, then ` tls`,
  /// ` user <name>` and ` db <name>` when they apply. Never the password.
  [[nodiscard]] std::string where() const { return detail::address_where(*this); }

  /// Whether TLS is required: `tls`, or a CA file to verify the server with.
  [[nodiscard]] bool tls_required() const noexcept {
    return address.tls || !address.tls_ca_file.empty();
  }

  static constexpr int default_port = 3306;
  static constexpr const char* kind = "mysql";
  static constexpr const char* uri_form = "mysql://[user[:password]@]host[:port]/db";
  /// `where()` shows ` tls` when it is required, and ` db <name>` after the user.
  [[nodiscard]] bool tls_shown() const noexcept { return tls_required(); }
  [[nodiscard]] std::string where_detail() const {
    return database.empty() ? std::string() : " db " + database;
  }
};

inline mysql_address mysql_address::parse(std::string_view text) {
  mysql_address o;
  const auto fail = [&](const std::string& why) { detail::bad_server_uri("MySQL", text, why); };
  if (text.find("://") == std::string_view::npos)
    fail("a MySQL address is a URI: mysql://[user[:password]@]host[:port][/database]");
  const auto [scheme, rest, query] = detail::split_server_uri(text, default_port, o.address, fail);
  if (scheme != "mysql" && scheme != "mariadb")
    fail("scheme '" + std::string(scheme) + "' is not mysql or mariadb");
  const auto slash = rest.find('/');
  if (slash != 0)
    detail::uri_host_port(rest.substr(0, slash), o.address.host, o.address.port, "[::1]:3306",
                          fail);
  if (slash != std::string_view::npos && slash + 1 < rest.size() &&
      !detail::percent_decode(rest.substr(slash + 1), o.database))
    fail("bad percent-escape in the database name");
  detail::read_server_query(query, "socket, tls, tls_ca, timeout, connect_timeout, command_timeout",
                            o.address, fail, [&](std::string_view name, const std::string& value) {
                              if (name == "socket") {
                                if (!value.starts_with('/'))
                                  fail("socket '" + value + "' is not an absolute path");
                                o.address.unix_socket = value;
                              } else if (name == "tls") {
                                if (value != "0" && value != "1")
                                  fail("tls '" + value + "' is not 0 or 1");
                                o.address.tls = value == "1";
                              } else {
                                return false;
                              }
                              return true;
                            });
  if (slash == 0 && o.address.unix_socket.empty()) fail("no host (or ?socket=/path)");
  return o;
}

namespace detail {

/// What one request answered: the rows of the last statement that returned rows (each field
/// as text, or nothing for NULL), and the rows the last other statement matched.
struct mysql_answer {
  std::vector<std::vector<std::optional<std::string>>> rows;
  std::uint64_t affected = 0;
};

/// `s` as a MySQL string literal that no `sql_mode` or character set can misread: the
/// utf8mb4 introducer and the bytes in hex (`_utf8mb4 X'6b6579'`).
inline std::string mysql_literal(std::string_view s) {
  std::string out = "_utf8mb4 X'";
  append_hex(out, s);
  return out + "'";
}

/// One connection to MySQL or MariaDB, opened on first use within `connect_timeout`, every
/// request bounded by `io_timeout` on the client side. A request that fails (or runs out of
/// time) drops the connection, so the server rolls back what it had begun, and the next one
/// reconnects. The session runs in UTC with autocommit on and a strict `sql_mode` (whatever the
/// server's defaults) and CLIENT_FOUND_ROWS (an UPDATE counts the rows it matched). Not
/// thread-safe: one caller at a time.
class mysql_connection {
 public:
  mysql_connection(mysql_address o, std::chrono::milliseconds connect_timeout,
                   std::chrono::milliseconds io_timeout)
      : o_(with_port(std::move(o))), where_(o_.where()) {
    o_.address = o_.address.with_store_timeouts(connect_timeout, io_timeout);
  }

  /// `mysql host:port ...` (see `mysql_address::where`).
  [[nodiscard]] const std::string& where() const noexcept { return where_; }

  /// Runs `sql` (one statement or several, separated by ';') within `io_timeout`. Throws
  /// `store_connection_error` when it cannot connect, the server reports an error, or no
  /// answer comes in time.
  /// Throws `forked_process_error` in a child forked after the connection was made: its owner
  /// calls it before taking a lock a parent's thread may have held.
  void check_fork() const {
    if (born_.forked()) throw_forked("this connection to " + where_);
  }

  mysql_answer exec(const std::string& sql) {
    check_fork();
    connect();
    const auto deadline = steady::now() + o_.address.command_timeout;
    MYSQL* m = conn_.get();
    pending_ = m;
    mysql_answer a;
    int err = 0;
    int st = mysql_real_query_start(&err, m, sql.data(), static_cast<unsigned long>(sql.size()));
    while (st != 0) st = mysql_real_query_cont(&err, m, wait_answer(st, deadline));
    if (err != 0) fail(m);
    for (;;) {
      MYSQL_RES* res = nullptr;
      st = mysql_store_result_start(&res, m);
      while (st != 0) st = mysql_store_result_cont(&res, m, wait_answer(st, deadline));
      if (res != nullptr) {
        a.rows.clear();
        const unsigned n = mysql_num_fields(res);
        while (MYSQL_ROW row = mysql_fetch_row(res)) {
          const unsigned long* len = mysql_fetch_lengths(res);
          auto& out = a.rows.emplace_back();
          for (unsigned i = 0; i < n; ++i) {
            if (row[i] == nullptr) {
              out.emplace_back();
            } else {
              out.emplace_back(std::string(row[i], len[i]));
            }
          }
        }
        mysql_free_result(res);
      } else if (mysql_field_count(m) != 0) {
        fail(mysql_error(m));
      } else {
        a.affected = mysql_affected_rows(m);
      }
      if (mysql_more_results(m) == 0) break;
      int more = 0;
      st = mysql_next_result_start(&more, m);
      while (st != 0) st = mysql_next_result_cont(&more, m, wait_answer(st, deadline));
      if (more > 0) fail(m);
    }
    return a;
  }

  /// Whether a connection is open now.
  [[nodiscard]] bool connected() const noexcept { return conn_ != nullptr; }

  /// Closes the connection (the next request reconnects).
  void reset() noexcept { conn_.reset(); }

 private:
  using steady = std::chrono::steady_clock;
  struct closer {
    fork_stamp born;  // in a forked child: close the socket only (no shutdown, no COM_QUIT)
    void operator()(MYSQL* m) const noexcept {
      // The socket is shut first, so that closing never waits on a server that is gone.
      const my_socket s = mysql_get_socket(m);
      if (born.forked()) {
        if (s >= 0) (void)::close(s);
        return;
      }
      if (s >= 0) (void)::shutdown(s, SHUT_RDWR);
      mysql_close(m);
    }
  };

  /// Drops the connection (the server rolls back an open transaction; the next call
  /// reconnects) and throws `missing_table_error` when `no_table`, else
  /// `store_connection_error`.
  [[noreturn]] void fail(const std::string& why, bool no_table = false) {
    conn_.reset();
    std::string what = where_ + ": " + redact(why);
    if (no_table) throw missing_table_error(what);
    throw store_connection_error(what);
  }
  /// The error the server answered a statement with (ER_NO_SUCH_TABLE, 1146: `missing_table_error`).
  [[noreturn]] void fail(MYSQL* m) { fail(mysql_error(m), mysql_errno(m) == 1146); }

  /// The password never appears in a message, even if a server were to echo it.
  [[nodiscard]] std::string redact(std::string text) const {
    return o_.address.hide_password(std::move(text));
  }

  static mysql_address with_port(mysql_address o) {
    if (o.address.port == 0) o.address.port = mysql_address::default_port;
    return o;
  }

  /// Waits for what the client asked (`status`: MYSQL_WAIT_* bits) until `deadline`; returns
  /// what happened, or nothing at the deadline.
  std::optional<int> wait(int status, steady::time_point deadline) const {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now()).count();
    if (left <= 0) return std::nullopt;
    long long t = left;
    if ((status & MYSQL_WAIT_TIMEOUT) != 0)
      t = std::min<long long>(t, mysql_get_timeout_value_ms(pending_));
    short events = 0;
    if ((status & MYSQL_WAIT_READ) != 0) events |= POLLIN;
    if ((status & MYSQL_WAIT_WRITE) != 0) events |= POLLOUT;
    if ((status & MYSQL_WAIT_EXCEPT) != 0) events |= POLLPRI;
    pollfd p{mysql_get_socket(pending_), events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(t));
    if (n == 0) {
      if ((status & MYSQL_WAIT_TIMEOUT) != 0 && t < left) return MYSQL_WAIT_TIMEOUT;
      return std::nullopt;
    }
    int r = 0;
    if ((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0) r |= MYSQL_WAIT_READ;
    if ((p.revents & (POLLOUT | POLLERR)) != 0) r |= MYSQL_WAIT_WRITE;
    if ((p.revents & POLLPRI) != 0) r |= MYSQL_WAIT_EXCEPT;
    return r;
  }

  /// `wait` for a request: fails at the deadline.
  int wait_answer(int status, steady::time_point deadline) {
    const auto r = wait(status, deadline);
    if (!r) fail("no answer within " + std::to_string(o_.address.command_timeout.count()) + " ms");
    return *r;
  }

  void connect() {
    if (conn_) return;
    const std::string head = "cannot connect to " + where_ + " within " +
                             std::to_string(o_.address.connect_timeout.count()) + " ms: ";
    std::unique_ptr<MYSQL, closer> m(mysql_init(nullptr));
    if (!m) throw store_connection_error(head + "out of memory");
    (void)::mysql_options(m.get(), MYSQL_OPT_NONBLOCK, nullptr);
    (void)mysql_optionsv(m.get(), MYSQL_SET_CHARSET_NAME, "utf8mb4");
    // Autocommit on whatever the server's default (`autocommit = 0` in its configuration or
    // an `init_connect`): a statement outside START TRANSACTION would stay open, and be rolled
    // back with the session, after it was confirmed (a renewal, a release, `resume_above`).
    // Strict: without it a value past its column's type (Leaf's `max_id` made INT) is stored
    // cut down to the type's largest, with a warning, and the same range is handed out again.
    (void)mysql_optionsv(m.get(), MYSQL_INIT_COMMAND,
                         "SET time_zone = '+00:00', autocommit = 1, sql_mode = CONCAT_WS(',', "
                         "NULLIF(@@SESSION.sql_mode, ''), 'STRICT_ALL_TABLES')");
    if (o_.tls_required()) {
      my_bool on = 1;
      (void)mysql_optionsv(m.get(), MYSQL_OPT_SSL_ENFORCE, &on);
      if (!o_.address.tls_ca_file.empty()) {
        (void)mysql_optionsv(m.get(), MYSQL_OPT_SSL_CA, o_.address.tls_ca_file.c_str());
        (void)mysql_optionsv(m.get(), MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &on);
      }
    }
    const auto deadline = steady::now() + o_.address.connect_timeout;
    pending_ = m.get();
    MYSQL* ret = nullptr;
    const auto c = [](const std::string& s) { return s.empty() ? nullptr : s.c_str(); };
    int st = mysql_real_connect_start(
        &ret, m.get(), o_.address.unix_socket.empty() ? o_.address.host.c_str() : nullptr,
        c(o_.address.user), c(o_.address.password), c(o_.database),
        o_.address.unix_socket.empty() ? static_cast<unsigned>(o_.address.port) : 0,
        c(o_.address.unix_socket), CLIENT_MULTI_STATEMENTS | CLIENT_FOUND_ROWS);
    while (st != 0) {
      const auto r = wait(st, deadline);
      if (!r) throw store_connection_error(head + "timed out");
      st = mysql_real_connect_cont(&ret, m.get(), *r);
    }
    if (ret == nullptr) throw store_connection_error(head + redact(mysql_error(m.get())));
    // Connector/C enforces TLS only when another TLS option is set: without one it goes on in
    // plaintext with a server that offers none. Such a connection is closed unused.
    if (o_.tls_required() && mysql_get_ssl_cipher(m.get()) == nullptr)
      throw store_connection_error(head + "the server offers no TLS, which " +
                                   (o_.address.tls_ca_file.empty() ? "tls=1" : "tls_ca") +
                                   " requires");
    conn_ = std::move(m);
  }

  mysql_address o_;  // its timeouts set (the store's where the address leaves them at 0)
  std::string where_;
  MYSQL* pending_ = nullptr;  // the handle `wait` polls (the open connection, or one connecting)
  std::unique_ptr<MYSQL, closer> conn_;
  fork_stamp born_;  // a forked child's requests throw forked_process_error
};

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
