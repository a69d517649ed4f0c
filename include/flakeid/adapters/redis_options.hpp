// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/redis_options.hpp
/// `redis_options`: where a Redis server is and how to log in, shared by `redis_lease` and
/// `redis_segment_store` (CMake target `flakeid::redis`; TLS needs `flakeid::redis_tls`).
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

#include "../errors.hpp"
#include "../version.hpp"

namespace flakeid::inline FLAKEID_ABI_NAMESPACE {

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
    const char* v = std::getenv(variable);
    if (v == nullptr || *v == '\0')
      throw invalid_option_error(std::string("flakeid: environment variable ") + variable +
                                 " is not set (want redis://[user[:password]@]host[:port][/db])");
    return parse(v);
  }

  /// Where the server is, for messages: `redis host:port`, then ` tls`, ` user <name>` and
  /// ` db <n>` when they apply (`redis unix:/run/redis.sock db 2`). Never the password.
  [[nodiscard]] std::string where() const {
    std::string w = "redis ";
    if (!unix_socket.empty()) {
      w += "unix:" + unix_socket;
    } else {
      w += host.find(':') != std::string::npos ? "[" + host + "]" : host;
      w += ":" + std::to_string(port);
    }
    if (tls) w += " tls";
    if (!user.empty()) w += " user " + user;
    if (db != 0) w += " db " + std::to_string(db);
    return w;
  }

  /// `text` with any password in it replaced by `***`, for quoting a URI in a message: the part
  /// of the user info after its first ':' (up to the last '@').
  [[nodiscard]] static std::string redact(std::string_view text) {
    const auto scheme = text.find("://");
    const std::size_t from = scheme == std::string_view::npos ? 0 : scheme + 3;
    const auto at = text.rfind('@');
    if (at == std::string_view::npos || at < from) return std::string(text);
    const auto colon = text.find(':', from);
    if (colon == std::string_view::npos || colon > at) return std::string(text);
    return std::string(text.substr(0, colon + 1)) + "***" + std::string(text.substr(at));
  }
};

namespace detail {

[[noreturn]] inline void bad_redis_uri(std::string_view text, const std::string& why) {
  throw invalid_option_error("flakeid: invalid Redis address '" + redis_options::redact(text) +
                             "': " + why);
}

/// `text` as a number in [lo, hi], or -1.
inline long long redis_number(std::string_view text, long long lo, long long hi) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || v < lo || v > hi)
    return -1;
  return v;
}

/// Percent-decodes `s`; false on a bad escape.
inline bool redis_percent_decode(std::string_view s, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return false;
    unsigned v = 0;
    const auto [end, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
    if (ec != std::errc{} || end != s.data() + i + 3) return false;
    out += static_cast<char>(v);
    i += 2;
  }
  return true;
}

/// A timeout such as `250ms`, `2s` or `1500` (milliseconds); negative when malformed.
inline std::chrono::milliseconds redis_timeout(std::string_view v) {
  long long scale = 1;
  if (v.ends_with("ms")) {
    v.remove_suffix(2);
  } else if (v.ends_with('s')) {
    v.remove_suffix(1);
    scale = 1000;
  }
  const long long n = redis_number(v, 1, 86'400'000);
  return std::chrono::milliseconds{n < 0 ? -1 : n * scale};
}

/// Reads `host[:port]` (IPv6 in brackets) into `o`.
inline void redis_host_port(std::string_view text, std::string_view hp, redis_options& o) {
  std::string_view port;
  if (hp.starts_with('[')) {
    const auto close = hp.find(']');
    if (close == std::string_view::npos) bad_redis_uri(text, "'[' without ']'");
    o.host = std::string(hp.substr(1, close - 1));
    const auto rest = hp.substr(close + 1);
    if (!rest.empty()) {
      if (!rest.starts_with(':')) bad_redis_uri(text, "expected ':port' after ']'");
      port = rest.substr(1);
      if (port.empty()) bad_redis_uri(text, "empty port");
    }
  } else {
    const auto colon = hp.find(':');
    if (colon != std::string_view::npos && hp.find(':', colon + 1) != std::string_view::npos)
      bad_redis_uri(text, "an IPv6 address must be written in brackets, as [::1]:6379");
    o.host = std::string(hp.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = hp.substr(colon + 1);
      if (port.empty()) bad_redis_uri(text, "empty port");
    }
  }
  if (o.host.empty()) bad_redis_uri(text, "no host");
  if (!port.empty()) {
    const long long p = redis_number(port, 1, 65535);
    if (p < 0) bad_redis_uri(text, "port '" + std::string(port) + "' is not a number 1..65535");
    o.port = static_cast<int>(p);
  }
}

inline void redis_query(std::string_view text, std::string_view query, redis_options& o) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string_view name = item.substr(0, eq);
    std::string value;
    if (eq == std::string_view::npos || !redis_percent_decode(item.substr(eq + 1), value))
      bad_redis_uri(text, "query parameter '" + std::string(name) + "' needs a value");
    if (name == "timeout" || name == "connect_timeout" || name == "command_timeout") {
      const auto t = redis_timeout(value);
      if (t.count() < 0)
        bad_redis_uri(text, std::string(name) + " '" + value +
                                "' is not a duration (250ms, 2s, or milliseconds)");
      if (name != "command_timeout") o.connect_timeout = t;
      if (name != "connect_timeout") o.command_timeout = t;
    } else if (name == "db") {
      const long long d = redis_number(value, 0, 1'000'000);
      if (d < 0) bad_redis_uri(text, "db '" + value + "' is not a number 0..1000000");
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
      bad_redis_uri(text, "unknown query parameter '" + std::string(name) +
                              "' (allowed: timeout, connect_timeout, command_timeout, db, "
                              "tls_ca, tls_cert, tls_key, tls_server_name)");
    }
  }
}

}  // namespace detail

inline redis_options redis_options::parse(std::string_view text) {
  redis_options o;
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) {  // host[:port]
    if (text.find_first_of("@/?") != std::string_view::npos)
      detail::bad_redis_uri(text,
                            "not host:port; a URI starts with redis://, rediss:// or unix://");
    detail::redis_host_port(text, text, o);
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
  // The user info ends at the last '@' (a password may hold '/' or '@' unescaped).
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view info = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const auto colon = info.find(':');
    std::string user;
    std::string password;
    if (!detail::redis_percent_decode(info.substr(0, colon), user))
      detail::bad_redis_uri(text, "bad percent-escape in the user name");
    if (colon != std::string_view::npos &&
        !detail::redis_percent_decode(info.substr(colon + 1), password))
      detail::bad_redis_uri(text, "bad percent-escape in the password");
    o.user = std::move(user);
    o.password = std::move(password);
  }
  if (scheme == "unix") {
    if (!rest.starts_with('/'))
      detail::bad_redis_uri(text, "a unix:// URI needs an absolute socket path");
    o.unix_socket = std::string(rest);
  } else {
    const auto slash = rest.find('/');
    detail::redis_host_port(text, rest.substr(0, slash), o);
    if (slash != std::string_view::npos && slash + 1 < rest.size()) {
      const std::string_view db = rest.substr(slash + 1);
      const long long d = detail::redis_number(db, 0, 1'000'000);
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

}  // namespace flakeid::inline FLAKEID_ABI_NAMESPACE
