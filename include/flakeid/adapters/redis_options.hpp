// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/redis_options.hpp
/// `redis_options`: where a Redis server is and how to log in, for `redis_store`'s leases and
/// counters (CMake target `flakeid::redis`; TLS needs `flakeid::redis_tls`).
///
/// Three ways to say it, all giving the same struct:
///
///     redis://[user[:password]@]host[:port][/db][?timeout=2s]     plain TCP (port 6379)
///     rediss://[user[:password]@]host[:port][/db][?tls_ca=...]    TLS
///     unix://[user[:password]@]/path/to/redis.sock[?db=2]        a Unix socket
///     host:port                                                  the address alone
///
///     auto o = flakeid::redis_options::parse("rediss://app:s3cret@cache.internal:6380/2");
///     auto e = flakeid::redis_options::from_env();           // FLAKEID_REDIS_URL
///     flakeid::redis_options d{.host = "cache.internal", .password = "s3cret", .db = 2};
///
/// In a URI, user and password are percent-decoded (`%40` is '@'); an IPv6 address is written
/// in brackets (`redis://[::1]:6379`). Query parameters: `timeout` (both bounds), `connect_timeout`,
/// `command_timeout` (`250ms`, `2s`, or a number of milliseconds), `db`, and for TLS `tls_ca`,
/// `tls_cert`, `tls_key`, `tls_server_name`.
///
/// No message of flakeid names the password: `where()` and every error show user, host, port
/// and db only, and a URI that does not parse is quoted with its password replaced by `***`.

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "../detail/uri.hpp"
#include "../errors.hpp"
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// Where a Redis server is and how to log in (see the file comment).
struct redis_options {
  /// Host name or IP address (IPv6 without brackets here).
  std::string host = "127.0.0.1";
  /// TCP port.
  int port = 6379;
  /// A Unix socket path; when set, `host` and `port` are not used.
  std::string unix_socket{};
  /// ACL user (Redis 6+); empty: `AUTH <password>` as the default user.
  std::string user{};
  /// Password sent with `AUTH` after connecting; empty: no `AUTH` unless `user` is set.
  std::string password{};
  /// Database number selected with `SELECT` after connecting (0: none sent).
  int db = 0;
  /// Speak TLS (needs the `flakeid::redis_tls` target, which defines `FLAKEID_REDIS_TLS`).
  bool tls = false;
  /// PEM file of the CA certificates that sign the server's certificate; empty: the system
  /// store.
  std::string tls_ca_file{};
  /// PEM client certificate (chain) for mutual TLS; empty: none.
  std::string tls_cert_file{};
  /// PEM private key of `tls_cert_file`.
  std::string tls_key_file{};
  /// The name the server certificate must carry (and the SNI sent); empty: `host`.
  std::string tls_server_name{};
  /// Bound on connecting, TLS handshake included (0: the store's own `connect_timeout`).
  std::chrono::milliseconds connect_timeout{0};
  /// Bound on one command (0: the store's own `io_timeout`).
  std::chrono::milliseconds command_timeout{0};

  /// Reads a `redis://`, `rediss://` or `unix://` URI, or a bare `host[:port]`. Throws
  /// `invalid_option_error` naming what is wrong (the text quoted with its password hidden):
  /// an unbracketed IPv6 address, a bad port or db, an unknown query parameter, a bad
  /// percent-escape.
  [[nodiscard]] static redis_options parse(std::string_view text);

  /// `parse(getenv(variable))`. Throws `invalid_option_error` when the variable is unset or
  /// empty, or does not parse.
  [[nodiscard]] static redis_options from_env(const char* variable = "FLAKEID_REDIS_URL") {
    return parse(detail::uri_from_env(variable, "redis://[user[:password]@]host[:port][/db]",
                                      [](const std::string& m) { throw invalid_option_error(m); }));
  }

  /// Where the server is, for messages: `redis host:port`, then ` tls`, ` user <name>` and
  /// ` db <n>` when they apply (`redis unix:/run/redis.sock db 2`). Never the password.
  [[nodiscard]] std::string where() const {
    std::string w = detail::server_where("redis", host, port, unix_socket);
    if (tls) w += " tls";
    if (!user.empty()) w += " user " + user;
    if (db != 0) w += " db " + std::to_string(db);
    return w;
  }

  /// `text` with any password in it replaced by `***`, for quoting a URI in a message: the part
  /// of the user info after its first ':' (up to the last '@').
  [[nodiscard]] static std::string redact(std::string_view text) {
    return detail::uri_redact(text);
  }
};

namespace detail {

[[noreturn]] inline void bad_redis_uri(std::string_view text, const std::string& why) {
  throw invalid_option_error("flakeid: invalid Redis address '" + uri_redact(text) + "': " + why);
}

inline void redis_query(std::string_view text, std::string_view query, redis_options& o) {
  const auto fail = [&](const std::string& why) { bad_redis_uri(text, why); };
  uri_query(query, fail, [&](std::string_view name, const std::string& value) {
    if (name == "timeout" || name == "connect_timeout" || name == "command_timeout") {
      const auto t = uri_duration(value);
      if (t.count() < 0)
        fail(std::string(name) + " '" + value + "' is not a duration (250ms, 2s, or milliseconds)");
      if (name != "command_timeout") o.connect_timeout = t;
      if (name != "connect_timeout") o.command_timeout = t;
    } else if (name == "db") {
      const long long d = uri_number(value, 0, 1'000'000);
      if (d < 0) fail("db '" + value + "' is not a number 0..1000000");
      o.db = static_cast<int>(d);
    } else if (name == "tls_ca") {
      o.tls_ca_file = value;
    } else if (name == "tls_cert") {
      o.tls_cert_file = value;
    } else if (name == "tls_key") {
      o.tls_key_file = value;
    } else if (name == "tls_server_name") {
      o.tls_server_name = value;
    } else {
      fail("unknown query parameter '" + std::string(name) +
           "' (allowed: timeout, connect_timeout, command_timeout, db, tls_ca, tls_cert, "
           "tls_key, tls_server_name)");
    }
  });
}

}  // namespace detail

inline redis_options redis_options::parse(std::string_view text) {
  redis_options o;
  const auto fail = [&](const std::string& why) { detail::bad_redis_uri(text, why); };
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) {  // host[:port]
    if (text.find_first_of("@/?") != std::string_view::npos)
      detail::bad_redis_uri(text,
                            "not host:port; a URI starts with redis://, rediss:// or unix://");
    detail::uri_host_port(text, o.host, o.port, "[::1]:6379", fail);
    return o;
  }
  const std::string_view scheme = text.substr(0, scheme_end);
  if (scheme == "rediss") {
    o.tls = true;
  } else if (scheme != "redis" && scheme != "unix") {
    detail::bad_redis_uri(text,
                          "scheme '" + std::string(scheme) + "' is not redis, rediss or unix");
  }
  std::string_view rest = text.substr(scheme_end + 3);
  std::string_view query;
  if (const auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  detail::uri_user_info(rest, o.user, o.password, fail);
  if (scheme == "unix") {
    if (!rest.starts_with('/'))
      detail::bad_redis_uri(text, "a unix:// URI needs an absolute socket path");
    o.unix_socket = std::string(rest);
  } else {
    const auto slash = rest.find('/');
    detail::uri_host_port(rest.substr(0, slash), o.host, o.port, "[::1]:6379", fail);
    if (slash != std::string_view::npos && slash + 1 < rest.size()) {
      const std::string_view db = rest.substr(slash + 1);
      const long long d = detail::uri_number(db, 0, 1'000'000);
      if (d < 0)
        detail::bad_redis_uri(text, "db '" + std::string(db) + "' is not a number 0..1000000");
      o.db = static_cast<int>(d);
    }
  }
  detail::redis_query(text, query, o);
  if (!o.tls && (!o.tls_ca_file.empty() || !o.tls_cert_file.empty() || !o.tls_key_file.empty() ||
                 !o.tls_server_name.empty()))
    detail::bad_redis_uri(text, "tls_* parameters need a rediss:// URI");
  return o;
}

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
