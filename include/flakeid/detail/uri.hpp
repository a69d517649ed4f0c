// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/uri.hpp
/// Internal: the pieces of a server URI, `scheme://[user[:password]@]host[:port][/path][?query]`,
/// read once for every store that takes one (Redis, MySQL/MariaDB): percent-decoding, the user
/// info, `host[:port]` with IPv6 in brackets, numbers and durations in query parameters, and
/// the redaction that keeps the password out of a quoted URI. Each reader takes `fail`, a
/// callable that throws the store's own error with a reason; nothing here throws otherwise.

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

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

/// `<kind> host:port` (an IPv6 host in brackets), or `<kind> unix:<path>` when `unix_socket` is
/// set: the start of a server store's `where()`.
inline std::string server_where(std::string_view kind, const std::string& host, int port,
                                const std::string& unix_socket) {
  std::string w(kind);
  w += ' ';
  if (!unix_socket.empty()) return w + "unix:" + unix_socket;
  w += host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return w + ":" + std::to_string(port);
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

/// `text` with any password in it replaced by `***`, for quoting a URI in a message: the part
/// of the user info after its first ':' (up to the last '@').
inline std::string uri_redact(std::string_view text) {
  const auto scheme = text.find("://");
  const std::size_t from = scheme == std::string_view::npos ? 0 : scheme + 3;
  const auto at = text.rfind('@');
  if (at == std::string_view::npos || at < from) return std::string(text);
  const auto colon = text.find(':', from);
  if (colon == std::string_view::npos || colon > at) return std::string(text);
  return std::string(text.substr(0, colon + 1)) + "***" + std::string(text.substr(at));
}

/// Takes the user info off the front of `rest` (what follows `scheme://`), percent-decoded into
/// `user` and `password`, and leaves the rest. The user info ends at the last '@', so a
/// password may hold '/' or '@' unescaped.
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
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string_view name = item.substr(0, eq);
    std::string value;
    if (eq == std::string_view::npos || !percent_decode(item.substr(eq + 1), value))
      fail("query parameter '" + std::string(name) + "' needs a value");
    each(name, value);
  }
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
