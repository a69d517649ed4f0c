// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/server_address.hpp
/// `server_address`: where a server is and how to log in, written once for every server
/// backend. `redis_options`, `mysql_address` and `postgres_address` hold one, `address`, and the
/// fields of their own (a Redis db and client certificate, a database), so that each is written with
/// designated initializers (`{.address = {.host = "h", .port = 6380}, .db = 2}`); a ZooKeeper
/// host list is read with the same host reader. One URI reader,
/// `scheme://[user[:password]@]host[:port][/path][?query]` (percent-decoding, the user info,
/// `host[:port]` with IPv6 in brackets, the query parameters every server takes: `timeout`,
/// `connect_timeout`, `command_timeout`, `tls_ca`), one `where()` rule (`<kind> host:port`,
/// ` tls`, ` user <name>`) and one redaction rule: a password never reaches `where()`, an
/// error or an event (a URI is quoted with its password as `***`, and a server's own message
/// has every copy of the password replaced by `***`).

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include "../errors.hpp"
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// `text` as a decimal number in [lo, hi], or -1.
inline long long uri_number(std::string_view text, long long lo, long long hi) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || v < lo || v > hi)
    return -1;
  return v;
}

/// The value of environment variable `variable`, or `fail(why)` (naming it and `want`, the
/// form it should have) when it is unset or empty.
template <class Fail>
std::string_view uri_from_env(const char* variable, std::string_view want, Fail&& fail) {
  const char* v = std::getenv(variable);
  if (v == nullptr || *v == '\0')
    fail(std::string("flakeid: environment variable ") + variable + " is not set (want " +
         std::string(want) + ")");
  return v;
}

/// Percent-decodes `s` into `out`; false on a bad escape.
inline bool percent_decode(std::string_view s, std::string& out) {
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

/// A duration such as `250ms`, `2s` or `1500` (milliseconds), 1 ms to one day; negative when
/// malformed.
inline std::chrono::milliseconds uri_duration(std::string_view v) {
  long long scale = 1;
  if (v.ends_with("ms")) {
    v.remove_suffix(2);
  } else if (v.ends_with('s')) {
    v.remove_suffix(1);
    scale = 1000;
  }
  const long long n = uri_number(v, 1, 86'400'000);
  return std::chrono::milliseconds{n < 0 ? -1 : n * scale};
}

/// Whether `name` is a query parameter of some store URI, whose value is never a secret.
inline bool uri_parameter_shown(std::string_view name) {
  constexpr std::string_view shown[] = {
      "timeout",  "connect_timeout", "command_timeout", "db",    "tls", "tls_ca",
      "tls_cert", "tls_key",         "tls_server_name", "socket"};
  for (const std::string_view s : shown)
    if (s == name) return true;
  return false;
}

/// Calls `each(item)` for every '&'-separated item of `query`, empty ones included (an empty
/// query is one empty item).
template <class Each>
void uri_query_items(std::string_view query, Each&& each) {
  for (;;) {
    const auto amp = query.find('&');
    each(query.substr(0, amp));
    if (amp == std::string_view::npos) return;
    query.remove_prefix(amp + 1);
  }
}

/// `text` with any password in it replaced by `***`, for quoting a URI in a message: the part
/// of the user info after its first ':' (up to the last '@'), and the value of every query
/// parameter that no store URI has (`?password=...` is none, but may be written as one).
inline std::string uri_redact(std::string_view text) {
  const auto scheme = text.find("://");
  const std::size_t from = scheme == std::string_view::npos ? 0 : scheme + 3;
  auto at = text.rfind('@');
  if (at == std::string_view::npos || at < from) at = from;
  std::string out(text.substr(0, at));
  if (const auto colon = out.find(':', from); colon != std::string::npos && at > from)
    out.replace(colon + 1, std::string::npos, "***");
  const std::string_view rest = text.substr(at);
  const auto q = rest.find('?');
  out += rest.substr(0, q);
  if (q == std::string_view::npos) return out;
  out += '?';
  bool first = true;
  uri_query_items(rest.substr(q + 1), [&out, &first](std::string_view param) {
    if (!first) out += '&';
    first = false;
    const auto eq = param.find('=');
    const std::string_view name = param.substr(0, eq);
    if (param.empty() || uri_parameter_shown(name))
      out += param;
    else if (eq == std::string_view::npos)
      out += "***";
    else
      out.append(name).append("=***");
  });
  return out;
}

/// Takes the user info off the front of `rest` (what follows `scheme://`, the query included),
/// percent-decoded into `user` and `password`, and leaves the rest. The user info ends at the
/// last '@', so a password may hold '/', '?' or '@' unescaped (and an '@' after the host is
/// written %40).
template <class Fail>
void uri_user_info(std::string_view& rest, std::string& user, std::string& password, Fail&& fail) {
  const auto at = rest.rfind('@');
  if (at == std::string_view::npos) return;
  const std::string_view info = rest.substr(0, at);
  rest = rest.substr(at + 1);
  const auto colon = info.find(':');
  if (!percent_decode(info.substr(0, colon), user)) fail("bad percent-escape in the user name");
  if (colon != std::string_view::npos && !percent_decode(info.substr(colon + 1), password))
    fail("bad percent-escape in the password");
}

/// Reads `host[:port]` (an IPv6 address in brackets, `[::1]:6379`) into `host` and, when
/// given, `port` (1..65535); `example` is the bracketed form to show in the error.
template <class Fail>
void uri_host_port(std::string_view hp, std::string& host, int& port, std::string_view example,
                   Fail&& fail) {
  std::string_view p;
  if (hp.starts_with('[')) {
    const auto close = hp.find(']');
    if (close == std::string_view::npos) fail("'[' without ']'");
    host = std::string(hp.substr(1, close - 1));
    const auto rest = hp.substr(close + 1);
    if (!rest.empty()) {
      if (!rest.starts_with(':')) fail("expected ':port' after ']'");
      p = rest.substr(1);
      if (p.empty()) fail("empty port");
    }
  } else {
    const auto colon = hp.find(':');
    if (colon != std::string_view::npos && hp.find(':', colon + 1) != std::string_view::npos)
      fail("an IPv6 address must be written in brackets, as " + std::string(example));
    host = std::string(hp.substr(0, colon));
    if (colon != std::string_view::npos) {
      p = hp.substr(colon + 1);
      if (p.empty()) fail("empty port");
    }
  }
  if (host.empty()) fail("no host");
  if (!p.empty()) {
    const long long n = uri_number(p, 1, 65535);
    if (n < 0) fail("port '" + std::string(p) + "' is not a number 1..65535");
    port = static_cast<int>(n);
  }
}

/// Calls `each(name, value)` for every `name=value` of `query` (values percent-decoded); an
/// item without a value fails.
template <class Fail, class Each>
void uri_query(std::string_view query, Fail&& fail, Each&& each) {
  uri_query_items(query, [&fail, &each](std::string_view item) {
    if (item.empty()) return;
    const auto eq = item.find('=');
    const std::string_view name = item.substr(0, eq);
    std::string value;
    if (eq == std::string_view::npos || !percent_decode(item.substr(eq + 1), value))
      fail("query parameter '" + std::string(name) + "' needs a value");
    each(name, value);
  });
}

}  // namespace detail

/// Where a server is and how to log in: the fields every server backend shares (see the file
/// comment). `redis_options`, `mysql_address` and `postgres_address` hold one as their `address`;
/// an aggregate, written with designated initializers: `{.host = "db.internal", .user = "app"}`.
struct server_address {
  /// Host name or IP address (IPv6 without brackets here).
  std::string host = "127.0.0.1";
  /// TCP port; 0: the backend's own (Redis 6379, MySQL 3306, PostgreSQL 5432). `parse` sets it.
  int port = 0;
  /// A Unix socket path; when set, `host` and `port` are not used.
  std::string unix_socket{};
  /// User name; empty: the backend's default user.
  std::string user{};
  /// Password; empty: none.
  std::string password{};
  /// Speak TLS (Redis: needs the `flakeid::redis_tls` target; MySQL: a server that offers no
  /// TLS is refused).
  bool tls = false;
  /// PEM file of the CA certificates that sign the server's certificate (Redis: empty, the
  /// system store; MySQL: set, the certificate and the host name are verified, and TLS is
  /// required).
  std::string tls_ca_file{};
  /// Bound on connecting, TLS handshake included (0: the store's own `connect_timeout`).
  std::chrono::milliseconds connect_timeout{0};
  /// Bound on one command (0: the store's own `io_timeout`).
  std::chrono::milliseconds command_timeout{0};

  /// This address with each timeout it leaves at 0 set to the store's: `connect` and `command`
  /// (the one rule of every server backend: the address's own timeouts win).
  [[nodiscard]] server_address with_store_timeouts(std::chrono::milliseconds connect,
                                                   std::chrono::milliseconds command) const {
    server_address a = *this;
    if (a.connect_timeout.count() <= 0) a.connect_timeout = connect;
    if (a.command_timeout.count() <= 0) a.command_timeout = command;
    return a;
  }

  /// `text` with any password in it replaced by `***`, for quoting a URI in a message: the part
  /// of the user info after its first ':' (up to the last '@').
  [[nodiscard]] static std::string redact(std::string_view text) {
    return detail::uri_redact(text);
  }

  /// `text` (what a server or a client library said) with every copy of `password` replaced
  /// by `***`: the password never appears in a message, even if a server were to echo it.
  [[nodiscard]] std::string hide_password(std::string text) const {
    if (!password.empty())
      for (auto p = text.find(password); p != std::string::npos; p = text.find(password, p + 3))
        text.replace(p, password.size(), "***");
    return text;
  }

  /// `<kind> host:port` (an IPv6 host in brackets; `default_port` when `port` is 0) or
  /// `<kind> unix:<path>`, then ` tls` when `tls_shown` and ` user <name>` when there is one.
  /// Never the password.
  [[nodiscard]] std::string where(std::string_view kind, int default_port, bool tls_shown) const {
    std::string w(kind);
    w += ' ';
    if (!unix_socket.empty()) {
      w += "unix:" + unix_socket;
    } else {
      w += host.find(':') != std::string::npos ? "[" + host + "]" : host;
      w += ":" + std::to_string(port != 0 ? port : default_port);
    }
    if (tls_shown) w += " tls";
    if (!user.empty()) w += " user " + user;
    return w;
  }
};

namespace detail {

/// Throws `invalid_option_error`: `text` (quoted with its password hidden) is not a `kind`
/// address, because `why`.
[[noreturn]] inline void bad_server_uri(std::string_view kind, std::string_view text,
                                        const std::string& why) {
  throw invalid_option_error("flakeid: invalid " + std::string(kind) + " address '" +
                             uri_redact(text) + "': " + why);
}

/// The pieces of a URI that `split_server_uri` leaves to the backend.
struct server_uri_parts {
  std::string_view scheme;  ///< before `://`
  std::string_view rest;    ///< after the user info and before the query: host, port, path
  std::string_view query;   ///< after '?', for `read_server_query`
};

/// Splits `text`, a URI with a scheme, and reads its user info into `o` (with `o.port` set to
/// `default_port`).
template <class Fail>
server_uri_parts split_server_uri(std::string_view text, int default_port, server_address& o,
                                  Fail&& fail) {
  o.port = default_port;
  const auto scheme_end = text.find("://");
  server_uri_parts parts{text.substr(0, scheme_end), text.substr(scheme_end + 3), {}};
  uri_user_info(parts.rest, o.user, o.password, fail);
  if (const auto q = parts.rest.find('?'); q != std::string_view::npos) {
    parts.query = parts.rest.substr(q + 1);
    parts.rest = parts.rest.substr(0, q);
  }
  return parts;
}

/// Reads every parameter of `query`: those every server takes into `o` (`timeout`,
/// `connect_timeout`, `command_timeout`, `tls_ca`), the others through `each(name, value)`,
/// which returns false for a name it does not know (`allowed` lists them all for the error).
template <class Fail, class Each>
void read_server_query(std::string_view query, std::string_view allowed, server_address& o,
                       Fail&& fail, Each&& each) {
  uri_query(query, fail, [&](std::string_view name, const std::string& value) {
    if (name == "timeout" || name == "connect_timeout" || name == "command_timeout") {
      const auto t = uri_duration(value);
      if (t.count() < 0)
        fail(std::string(name) + " '" + value + "' is not a duration (250ms, 2s, or milliseconds)");
      if (name != "command_timeout") o.connect_timeout = t;
      if (name != "connect_timeout") o.command_timeout = t;
    } else if (name == "tls_ca") {
      o.tls_ca_file = value;
    } else if (!each(name, value)) {
      fail("unknown query parameter '" + std::string(name) + "' (allowed: " + std::string(allowed) +
           ")");
    }
  });
}

/// Checks a host list, `host[:port][,host[:port]...][/chroot]` (ZooKeeper's connect string),
/// with the host reader of a URI: `fail(why)` at the first host that does not read, or at an
/// '@' (`why` never quotes what may be a password).
template <class Fail>
void check_host_list(std::string_view hosts, std::string_view bracketed, Fail&& fail) {
  hosts = hosts.substr(0, hosts.find('/'));
  if (hosts.find('@') != std::string_view::npos)  // what precedes it may be a password
    fail("a host list has no user or password (no '@')");
  if (hosts.empty()) fail("no host");
  while (true) {
    const auto comma = hosts.find(',');
    std::string host;
    int port = 0;
    uri_host_port(hosts.substr(0, comma), host, port, bracketed, fail);
    if (comma == std::string_view::npos) return;
    hosts = hosts.substr(comma + 1);
  }
}

/// `T::parse(getenv(variable))`, for a backend's address `T` (`redis_options`,
/// `mysql_address`): `T::uri_form` is the form named when the variable is unset or empty.
/// Throws `invalid_option_error` then, or when it does not parse.
template <class T>
[[nodiscard]] T address_from_env(const char* variable) {
  return T::parse(uri_from_env(variable, T::uri_form,
                               [](const std::string& m) { throw invalid_option_error(m); }));
}

/// Where the server of `t`, a backend's address, is: its `address.where()` with `T::kind` and
/// `T::default_port`, ` tls` when `t.tls_shown()`, then `t.where_detail()` (a db). Never the
/// password.
template <class T>
[[nodiscard]] std::string address_where(const T& t) {
  return t.address.where(T::kind, T::default_port, t.tls_shown()) + t.where_detail();
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
