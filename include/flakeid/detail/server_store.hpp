// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/server_store.hpp
/// `store_options`, and the rules every store follows, written once: which namespaces are
/// valid, what a timeout of 0 means, how a decimal number in a store is read, and how a failed
/// connection becomes the error of the protocol that asked (`lease_store_error` for a lease,
/// `segment_store_error` for a segment distributor).

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "../errors.hpp"
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// Where a store keeps its records and how long it waits on them; one struct for every
/// backend and both protocols (leases and segment distributors).
///
///     flakeid::redis_store store{"cache.internal:6379", {.name_space = "shop"}};
struct store_options {
  /// Several applications share one store under different namespaces: 1 to 40 letters,
  /// digits, '_' or '-' (a key prefix in Redis, part of a table name in SQL, of a file name in
  /// a directory).
  std::string name_space = "default";
  /// Bound on connecting to a server (and on opening a lock file's directory). At least 1 ms.
  std::chrono::milliseconds connect_timeout{2'000};
  /// Bound on one request to the store; 0: the protocol's own default (a lease: ttl / 5, at
  /// least 10 ms; a segment distributor: 2 s).
  std::chrono::milliseconds io_timeout{0};
};

namespace detail {

/// A store connection failed: it could not connect, timed out, lost the connection, or the
/// server answered with an error. The message names the server and has no "flakeid: " prefix;
/// `lease_call` and `segment_call` turn it into the public error of the protocol that asked.
class store_connection_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The server answered that the store's table does not exist: dropped, or the server lost its
/// data directory. A lease renewal takes it for a lost record (`renewal::taken`).
class missing_table_error : public store_connection_error {
 public:
  using store_connection_error::store_connection_error;
};

/// Whether `ns` is a namespace: 1 to 40 of [A-Za-z0-9_-].
[[nodiscard]] constexpr bool valid_namespace(std::string_view ns) noexcept {
  return !ns.empty() && ns.size() <= 40 && std::all_of(ns.begin(), ns.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

/// Throws `invalid_option_error` unless `ns` is a namespace; `what` names whose namespace it is
/// ("lease", "segment store").
inline void check_namespace(std::string_view ns, std::string_view what) {
  if (!valid_namespace(ns))
    throw invalid_option_error("flakeid: " + std::string(what) + " namespace '" + std::string(ns) +
                               "' is invalid: use 1 to 40 letters, digits, '_' or '-'");
}

/// Throws `invalid_option_error` unless the timeout `t` is at least `least` (and, when `least`
/// is 0, that 0 is allowed: it means the default).
inline void check_timeout(std::string_view owner, std::string_view name,
                          std::chrono::milliseconds t, std::chrono::milliseconds least) {
  if (t < least)
    throw invalid_option_error("flakeid: " + std::string(owner) + " " + std::string(name) + " of " +
                               std::to_string(t.count()) + " ms is too short: use " +
                               (least.count() == 0
                                    ? std::string("0 (the default) or more")
                                    : "at least " + std::to_string(least.count()) + " ms"));
}

/// Checks `o` for a store: its namespace and both timeouts.
inline void check_store_options(const store_options& o, std::string_view owner) {
  check_namespace(o.name_space, owner);
  check_timeout(owner, "connect_timeout", o.connect_timeout, std::chrono::milliseconds{1});
  check_timeout(owner, "io_timeout", o.io_timeout, std::chrono::milliseconds{0});
}

/// The timeout rule: `io_timeout` when set, else `fallback`.
[[nodiscard]] constexpr std::chrono::milliseconds io_timeout_or(
    std::chrono::milliseconds io_timeout, std::chrono::milliseconds fallback) noexcept {
  return io_timeout.count() > 0 ? io_timeout : fallback;
}

/// A segment distributor's request bound when `io_timeout` is 0.
inline constexpr std::chrono::milliseconds segment_io_timeout{2'000};

/// A lease's request bound when `io_timeout` is 0: ttl / 5, at least 10 ms.
[[nodiscard]] constexpr std::chrono::milliseconds lease_io_timeout(
    std::chrono::milliseconds io_timeout, std::chrono::milliseconds ttl) noexcept {
  return io_timeout_or(io_timeout, std::max(std::chrono::milliseconds{10}, ttl / 5));
}

/// The whole of `text` as a decimal integer of type `T` (a sign only where `T` has one), or
/// nothing: the one reader of numbers that stores hand back, so that no `std::stoull` lets an
/// untyped exception out.
template <class T>
[[nodiscard]] constexpr std::optional<T> parse_decimal(std::string_view text) noexcept {
  static_assert(std::is_integral_v<T>, "parse_decimal reads integers");
  if (text.empty() || text.front() == '+') return std::nullopt;
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

/// Throws `invalid_option_error` for an empty segment counter key.
inline void check_segment_key(std::string_view key) {
  if (key.empty()) throw invalid_option_error("flakeid: a segment counter key must not be empty");
}

[[noreturn]] inline void throw_store_overflow(const std::string& store, const std::string& key,
                                              std::uint64_t cur, std::uint64_t step) {
  throw segment_store_error(store, key,
                            "the counter is at " + std::to_string(cur) + "; adding step " +
                                std::to_string(step) + " would pass 2^64 - 1");
}

/// Runs `f()` for a lease store: a failed connection becomes `lease_store_error`.
template <class F>
decltype(auto) lease_call(F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const store_connection_error& e) {
    throw lease_store_error(std::string("flakeid: ") + e.what());
  }
}

/// Runs `f()` for a segment distributor of `store` and `key`: a failed connection becomes
/// `segment_store_error`, its detail starting with `what` (the call: "next_max_id(100)").
template <class F>
decltype(auto) segment_call(const std::string& store, const std::string& key,
                            const std::string& what, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const store_connection_error& e) {
    throw segment_store_error(store, key, what + " failed: " + e.what());
  }
}

/// How a server store loses a counter's last writes, for `gone_back_text`.
inline constexpr const char* server_loss =
    "the server lost commits, was restored from an older backup or replaced by a replica that "
    "lagged, or the counter was edited or deleted";

/// Why a distributor refuses a counter that went back below `reached`, the end of its last
/// range, to `now` (decimal texts); `how` says how the store may have lost it.
inline std::string gone_back_text(const std::string& reached, const std::string& now,
                                  const std::string& how) {
  return "the counter went back since this distributor's last range (it had reached " + reached +
         ", now " + now + "): " + how + "; numbers above " + now +
         " may have been handed out: find the highest number in use and call resume_above(it)";
}

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
