// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/redis_segment.hpp
/// Segment counters in Redis (hiredis; CMake target `flakeid::redis`): `redis_segment_store`
/// and its `redis_distributor`, a model of `flakeid::keyed_segment_distributor`.
///
/// A counter is one integer key, under the namespace `ns` (the hash tag keeps a namespace's
/// keys in one cluster slot):
///
///     flakeid:{ns}:segment:<key>   the counter's last max; INCRBY <step> hands out a segment
///
/// `INCRBY` is atomic and counts a missing key from 0, so each call is one round trip.
/// For a restart of the Redis server never to hand out a number twice, the server must keep
/// every acknowledged write: `appendonly yes` with `appendfsync always`. With `everysec`, a
/// crash can roll a counter back by up to a second of segments: a running generator refuses
/// the repeated range (`segment_store_error`), a generator started after it cannot know.
///
///     flakeid::redis_segment_store store{"127.0.0.1:6379", {.name_space = "shop"}};
///     // or "rediss://app:s3cret@cache.internal:6380/2", or redis_options::from_env()
///     flakeid::segment_chain_generator gen{store.distributor("orders"), {.step = 1000}};
///     gen.next_id();  // 1, 2, 3 ... across every process on the counter
///
/// Every request is bounded: `connect_timeout` to connect, `io_timeout` per command; a failed
/// or timed-out request drops the connection and the next call reconnects. Failures throw
/// `segment_store_error` naming the server, the namespace and the key.

#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../errors.hpp"
#include "../segment.hpp"
#include "../segment_stores.hpp"
#include "detail/redis_connection.hpp"
#include "redis_options.hpp"

namespace flakeid {

/// Settings of a `redis_segment_store`.
struct redis_segment_options {
  /// Several applications share one server under different namespaces: 1 to 40 letters,
  /// digits, '_' or '-'.
  std::string name_space = "default";
  /// Bound on connecting to the server.
  std::chrono::milliseconds connect_timeout{2'000};
  /// Bound on one command.
  std::chrono::milliseconds io_timeout{1'000};
};

/// A counter of a `redis_segment_store`, with its own connection (opened on the first call).
/// A copy opens a connection of its own to the same counter.
///
/// `next_max_id(step)` is `INCRBY flakeid:{ns}:segment:<key> <step>`. Throws
/// `segment_store_error` when the server cannot be reached within `connect_timeout`, does not
/// answer within `io_timeout`, or refuses the command (the key holds no integer, the counter
/// would pass 2^63 - 1). Thread-safety: every member may be called concurrently (calls on one
/// distributor take turns on its connection).
class redis_distributor {
 public:
  /// Counter `key` on the server of `server` (address, login, db, TLS; its timeouts, when set,
  /// take the place of those in `options`). Does not connect. Throws `std::invalid_argument`
  /// for a bad namespace, timeout, an empty key, or TLS asked for and not built in.
  redis_distributor(redis_options server, std::string key, redis_segment_options options = {})
      : options_(std::move(options)), key_(std::move(key)) {
    detail::check_segment_key(key_);
    detail::check_segment_namespace(options_.name_space);
    detail::check_store_timeout("connect_timeout", options_.connect_timeout);
    detail::check_store_timeout("io_timeout", options_.io_timeout);
    s_ = std::make_unique<state>(std::move(server), options_);
    name_ = s_->conn.where() + " namespace " + options_.name_space;
    redis_key_ = "flakeid:{" + options_.name_space + "}:segment:" + key_;
  }

  redis_distributor(const redis_distributor& o)
      : options_(o.options_),
        key_(o.key_),
        name_(o.name_),
        redis_key_(o.redis_key_),
        s_(std::make_unique<state>(o.s_->conn.options(), options_)) {}
  redis_distributor(redis_distributor&&) noexcept = default;
  redis_distributor& operator=(const redis_distributor& o) {
    if (this != &o) *this = redis_distributor(o);
    return *this;
  }
  redis_distributor& operator=(redis_distributor&&) noexcept = default;
  ~redis_distributor() = default;

  /// Adds `step` to the counter and returns its new value (one `INCRBY`).
  std::uint64_t next_max_id(std::uint64_t step) {
    const long long v = integer_reply({"INCRBY", redis_key_, std::to_string(step)},
                                      "next_max_id(" + std::to_string(step) + ")");
    if (v < 0)
      throw segment_store_error(name_, key_,
                                "the counter " + redis_key_ + " holds " + std::to_string(v) +
                                    ", below 0: it was not written by flakeid");
    return static_cast<std::uint64_t>(v);
  }

  /// The counter's value (0 when the key does not exist). Throws as `next_max_id`.
  [[nodiscard]] std::uint64_t current() {
    std::lock_guard lk(s_->mutex);
    detail::redis_reply r = command({"GET", redis_key_}, "GET");
    if (r->type == REDIS_REPLY_NIL) return 0;
    std::uint64_t v = 0;
    const bool is_counter = r->type == REDIS_REPLY_STRING && [&] {
      const auto [end, ec] = std::from_chars(r->str, r->str + r->len, v);
      return ec == std::errc{} && end == r->str + r->len;
    }();
    if (!is_counter)
      throw segment_store_error(name_, key_, "the key " + redis_key_ + " holds no counter");
    return v;
  }

  /// Counter `key` on the server at `address`: a `redis://`, `rediss://` or `unix://` URI, or
  /// `host[:port]` (see `redis_options::parse`).
  redis_distributor(const std::string& address, std::string key, redis_segment_options options = {})
      : redis_distributor(redis_options::parse(address), std::move(key), std::move(options)) {}

  /// `redis host:port namespace <ns>` (with ` tls`, ` user <name>`, ` db <n>` when they apply).
  [[nodiscard]] std::string_view store_name() const noexcept { return name_; }
  /// The counter's key (without the namespace prefix).
  [[nodiscard]] std::string_view key() const noexcept { return key_; }
  /// The Redis key that holds the counter: `flakeid:{ns}:segment:<key>`.
  [[nodiscard]] const std::string& redis_key() const noexcept { return redis_key_; }
  /// A distributor for counter `key` of the same server and namespace, on a connection of its
  /// own.
  [[nodiscard]] redis_distributor with_key(const std::string& key) const {
    return {s_->conn.options(), key, options_};
  }

 private:
  struct state {
    state(redis_options server, const redis_segment_options& o)
        : conn(std::move(server), o.connect_timeout, o.io_timeout) {}
    std::mutex mutex;  // one request at a time on the connection
    detail::redis_connection conn;
  };

  detail::redis_reply command(const std::vector<std::string>& args, const std::string& what) {
    try {
      return s_->conn.command(args);
    } catch (const detail::store_connection_error& e) {
      throw segment_store_error(name_, key_, what + " failed: " + e.what());
    }
  }

  long long integer_reply(const std::vector<std::string>& args, const std::string& what) {
    std::lock_guard lk(s_->mutex);
    detail::redis_reply r = command(args, what);
    if (r->type != REDIS_REPLY_INTEGER)
      throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
    return r->integer;
  }

  redis_segment_options options_;
  std::string key_;
  std::string name_;
  std::string redis_key_;
  std::unique_ptr<state> s_;
};

/// Named segment counters in one Redis namespace. Cheap to copy; holds no connection itself:
/// each distributor has its own.
///
///     flakeid::redis_segment_store store{"cache.internal:6379"};
///     flakeid::segment_chain_generator gen{store.distributor("orders")};
class redis_segment_store {
 public:
  /// Counters on the server of `server` (address, login, db, TLS) under
  /// `options.name_space`. Does not connect. Throws `std::invalid_argument` for a bad
  /// namespace or timeout, or TLS asked for and not built in.
  explicit redis_segment_store(redis_options server, redis_segment_options options = {})
      : server_(std::move(server)), options_(std::move(options)) {
    (void)redis_distributor(server_, "check", options_);
  }
  /// Counters on the server at `address`: a `redis://`, `rediss://` or `unix://` URI, or
  /// `host[:port]` (see `redis_options::parse`, which throws `std::invalid_argument`).
  explicit redis_segment_store(const std::string& address, redis_segment_options options = {})
      : redis_segment_store(redis_options::parse(address), std::move(options)) {}
  /// Same as the `std::string` form.
  explicit redis_segment_store(const char* address, redis_segment_options options = {})
      : redis_segment_store(std::string(address), std::move(options)) {}

  /// A distributor for counter `key` (created at 0 on first use). Throws
  /// `std::invalid_argument` for an empty key.
  [[nodiscard]] redis_distributor distributor(const std::string& key) const {
    return {server_, key, options_};
  }
  /// The counter's value: the largest ID reserved so far (0 when unused). Opens a connection
  /// for the call. Throws `segment_store_error`.
  [[nodiscard]] std::uint64_t current(const std::string& key) const {
    return distributor(key).current();
  }
  /// Where the server is: `redis host:port` (see `redis_options::where`; no password).
  [[nodiscard]] std::string where() const { return server_.where(); }
  /// The server's options (they hold the password: do not log them).
  [[nodiscard]] const redis_options& server() const noexcept { return server_; }
  /// The options.
  [[nodiscard]] const redis_segment_options& options() const noexcept { return options_; }

 private:
  redis_options server_;
  redis_segment_options options_;
};

}  // namespace flakeid
