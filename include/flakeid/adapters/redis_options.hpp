// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/redis_options.hpp
/// `redis_options`: where a Redis server is and how to log in, for `redis_store`'s leases and
/// counters (CMake target `flakeid::redis`; TLS needs `flakeid::redis_tls`).
///
/// Three ways to say it, all giving the same struct:
///
///     redis://[[user]:password@]host[:port][/db][?timeout=2s]     plain TCP (port 6379)
///     rediss://[[user]:password@]host[:port][/db][?tls_ca=...]    TLS
///     unix://[[user]:password@]/path/to/redis.sock[?db=2]        a Unix socket
///     host:port                                                  the address alone
///
///     auto o = flakeid::redis_options::parse("rediss://app:s3cret@cache.internal:6380/2");
///     auto e = flakeid::redis_options::from_env();           // FLAKEID_REDIS_URL
///     flakeid::redis_options d{.address = {.host = "cache.internal", .password = "s3cret"},
///                              .db = 2};                // or field by field
///
/// In a URI, user and password are percent-decoded (`%40` is '@'); user info without ':'
/// (`redis://name@host`, which `redis-cli -u` and Lettuce read as a password) is refused
/// without quoting it: write `user:password@`, `:password@` or `user:@`. An IPv6 address is written
/// in brackets (`redis://[::1]:6379`). Query parameters: `timeout` (both bounds), `connect_timeout`,
/// `command_timeout` (`250ms`, `2s`, or a number of milliseconds), `db` (a db in the path too
/// must be the same one), and for TLS `tls_ca`, `tls_cert`, `tls_key`, `tls_server_name`.
///
/// No message of flakeid names the password: `where()` and every error show user, host, port
/// and db only, and a URI that does not parse is quoted with its password replaced by `***`.

#include <optional>
#include <string>
#include <string_view>

#include "../errors.hpp"
#include "../version.hpp"
#include "server_address.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// Where a Redis server is and how to log in (see the file comment): a `server_address`
/// (host, port 6379, Unix socket, user, password, TLS, CA file, timeouts) and Redis's own
/// fields, an aggregate written with designated initializers:
///
///     flakeid::redis_options o{.address = {.host = "cache.internal", .port = 6380}, .db = 2};
struct redis_options {
  /// Host, port (0: 6379), socket, user, password, TLS, CA file and timeouts.
  server_address address{};
  /// Database number selected with `SELECT` after connecting (0: none sent).
  int db = 0;
  /// PEM client certificate (chain) for mutual TLS; empty: none.
  std::string tls_cert_file{};
  /// PEM private key of `tls_cert_file`.
  std::string tls_key_file{};
  /// The name the server certificate must carry (and the SNI sent); empty: `host`.
  std::string tls_server_name{};

  /// Reads a `redis://`, `rediss://` or `unix://` URI, or a bare `host[:port]`. Throws
  /// `invalid_option_error` naming what is wrong (the text quoted with its password hidden):
  /// an unbracketed IPv6 address, a bad port or db, an unknown query parameter, a bad
  /// percent-escape. `from_env()` reads `FLAKEID_REDIS_URL` so.
  [[nodiscard]] static redis_options parse(std::string_view text);
  /// `parse(getenv(variable))`. Throws `invalid_option_error` when the variable is unset or
  /// empty, or does not parse.
  [[nodiscard]] static redis_options from_env(const char* variable = "FLAKEID_REDIS_URL") {
    return detail::address_from_env<redis_options>(variable);
  }
  /// Where the server is, for messages: `redis host:port` or `redis unix:<path>`, then ` tls`,
  /// ` user <name>` and ` db <n>` when they apply. Never the password.
  [[nodiscard]] std::string where() const { return detail::address_where(*this); }

  static constexpr int default_port = 6379;
  static constexpr const char* kind = "redis";
  static constexpr const char* uri_form = "redis://[[user]:password@]host[:port][/db]";
  /// `where()` shows ` tls` when TLS is on, and ` db <n>` after the user (`redis
  /// unix:/run/redis.sock db 2`).
  [[nodiscard]] bool tls_shown() const noexcept { return address.tls; }
  [[nodiscard]] std::string where_detail() const {
    return db != 0 ? " db " + std::to_string(db) : std::string();
  }
};

namespace detail {

/// Reads the query parameters of a Redis URI into `o`.
template <class Fail>
void redis_query(std::string_view query, redis_options& o, Fail&& fail) {
  read_server_query(query,
                    "timeout, connect_timeout, command_timeout, db, tls_ca, tls_cert, tls_key, "
                    "tls_server_name",
                    o.address, fail, [&](std::string_view name, const std::string& value) {
                      if (name == "db") {
                        const long long d = uri_number(value, 0, 1'000'000);
                        if (d < 0) fail("db '" + value + "' is not a number 0..1000000");
                        o.db = static_cast<int>(d);
                      } else if (name == "tls_cert") {
                        o.tls_cert_file = value;
                      } else if (name == "tls_key") {
                        o.tls_key_file = value;
                      } else if (name == "tls_server_name") {
                        o.tls_server_name = value;
                      } else {
                        return false;
                      }
                      return true;
                    });
}

}  // namespace detail

inline redis_options redis_options::parse(std::string_view text) {
  redis_options o;
  o.address.port = default_port;
  const auto fail = [&](const std::string& why) { detail::bad_server_uri("Redis", text, why); };
  if (text.find("://") == std::string_view::npos) {  // host[:port]
    if (text.find_first_of("@/?") != std::string_view::npos)
      fail("not host:port; a URI starts with redis://, rediss:// or unix://");
    detail::uri_host_port(text, o.address.host, o.address.port, "[::1]:6379", fail);
    return o;
  }
  // User info without ':' is the password to `redis-cli -u` and Lettuce, a user name to
  // others: refused, and not quoted, since it may be a password.
  const std::size_t from = text.find("://") + 3;
  if (const auto at = text.rfind('@');
      at != std::string_view::npos && at >= from &&
      text.substr(from, at - from).find(':') == std::string_view::npos)
    detail::bad_server_uri("Redis",
                           std::string(text.substr(0, from)) + "***" + std::string(text.substr(at)),
                           "the user info has no ':' (redis-cli -u and Lettuce read it as a "
                           "password): write user:password@, :password@ for the default user, "
                           "or user:@ for a user without a password");
  const auto [scheme, rest, query] = detail::split_server_uri(text, default_port, o.address, fail);
  if (scheme == "rediss") {
    o.address.tls = true;
  } else if (scheme != "redis" && scheme != "unix") {
    fail("scheme '" + std::string(scheme) + "' is not redis, rediss or unix");
  }
  if (scheme == "unix") {
    if (!rest.starts_with('/')) fail("a unix:// URI needs an absolute socket path");
    o.address.unix_socket = std::string(rest);
  } else {
    const auto slash = rest.find('/');
    detail::uri_host_port(rest.substr(0, slash), o.address.host, o.address.port, "[::1]:6379",
                          fail);
    if (slash != std::string_view::npos && slash + 1 < rest.size()) {
      const std::string_view db = rest.substr(slash + 1);
      const long long d = detail::uri_number(db, 0, 1'000'000);
      if (d < 0) fail("db '" + std::string(db) + "' is not a number 0..1000000");
      o.db = static_cast<int>(d);
    }
  }
  const std::optional<int> path_db = scheme != "unix" && rest.find('/') != std::string_view::npos &&
                                             rest.find('/') + 1 < rest.size()
                                         ? std::optional<int>(o.db)
                                         : std::nullopt;
  detail::redis_query(query, o, fail);
  if (path_db && o.db != *path_db)
    fail("db " + std::to_string(*path_db) + " in the path and db=" + std::to_string(o.db) +
         " in the query differ: give the db once");
  if (!o.address.tls && (!o.address.tls_ca_file.empty() || !o.tls_cert_file.empty() ||
                         !o.tls_key_file.empty() || !o.tls_server_name.empty()))
    fail("tls_* parameters need a rediss:// URI");
  return o;
}

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
