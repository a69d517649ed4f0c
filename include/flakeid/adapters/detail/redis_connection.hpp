// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/redis_connection.hpp
/// Internal: one connection to Redis with bounded connect and I/O timeouts, AUTH and SELECT,
/// shared by the Redis adapters (`redis_store`'s leases, `redis_distributor`). Plain TCP and
/// Unix sockets go through hiredis; TLS through `redis_tls.hpp` when `FLAKEID_REDIS_TLS` is
/// defined (CMake target `flakeid::redis_tls`). Not part of the public API.

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../../detail/fork_guard.hpp"
#include "../../detail/server_store.hpp"
#include "../redis_options.hpp"
#if defined(FLAKEID_REDIS_TLS)
#include "redis_tls.hpp"
#endif

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

inline timeval to_timeval(std::chrono::milliseconds d) {
  timeval tv{};
  tv.tv_sec = static_cast<decltype(tv.tv_sec)>(d.count() / 1000);
  tv.tv_usec = static_cast<decltype(tv.tv_usec)>((d.count() % 1000) * 1000);
  return tv;
}

struct redis_reply_deleter {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};

/// A Redis reply, freed on scope exit.
using redis_reply = std::unique_ptr<redisReply, redis_reply_deleter>;

#if defined(FLAKEID_REDIS_TLS)
inline constexpr bool redis_tls_built = true;
#else
inline constexpr bool redis_tls_built = false;
class redis_tls_stream;
inline void redis_tls_delete(redis_tls_stream*) noexcept {}
#endif

/// One connection to a Redis server (see `redis_options`: TCP, Unix socket or TLS), opened on
/// first use within the connect timeout, then logged in (`AUTH`) and on its database
/// (`SELECT`); every request is bounded by the command timeout. A request that fails on the
/// connection (refused, reset, timed out) drops it, and the next one reconnects.
/// Not thread-safe: one caller at a time.
class redis_connection {
 public:
  /// The server of `options`; its timeouts, when 0, are `connect_timeout` and `io_timeout`.
  /// Throws `invalid_option_error` when `options` ask for TLS and it was not built in.
  redis_connection(redis_options options, std::chrono::milliseconds connect_timeout,
                   std::chrono::milliseconds io_timeout)
      : options_(std::move(options)) {
    if (options_.address.port == 0) options_.address.port = redis_options::default_port;
    options_.address = options_.address.with_store_timeouts(connect_timeout, io_timeout);
    if (options_.address.tls && !redis_tls_built)
      throw invalid_option_error("flakeid: " + options_.where() +
                                 ": TLS was not built in: link the CMake target "
                                 "flakeid::redis_tls (OpenSSL) instead of flakeid::redis");
    if (options_.address.tls && !options_.address.unix_socket.empty())
      throw invalid_option_error("flakeid: " + options_.where() +
                                 ": TLS runs over TCP, not over a Unix socket");
    if (options_.address.unix_socket.empty() && options_.address.host.empty())
      throw invalid_option_error("flakeid: a Redis server needs a host or a unix_socket");
    if (options_.address.port <= 0 || options_.address.port > 65535)
      throw invalid_option_error("flakeid: " + options_.where() + ": port must be 1..65535");
    if (options_.db < 0) throw invalid_option_error("flakeid: " + options_.where() + ": db < 0");
  }

  /// The server at `address`: a `redis://`, `rediss://` or `unix://` URI, or `host[:port]`.
  redis_connection(const std::string& address, std::chrono::milliseconds connect_timeout,
                   std::chrono::milliseconds io_timeout)
      : redis_connection(redis_options::parse(address), connect_timeout, io_timeout) {}

  /// `redis host:port` (see `redis_options::where`); never the password.
  [[nodiscard]] std::string where() const { return options_.where(); }
  /// The options, with the timeouts in force.
  [[nodiscard]] const redis_options& options() const noexcept { return options_; }

  /// Sends one command (binary-safe arguments) and returns its reply. Throws
  /// `store_connection_error` when it cannot connect or log in, the connection fails or times
  /// out, or the server answers with an error.
  /// Throws `forked_process_error` in a child forked after the connection was made: its owner
  /// calls it before taking a lock a parent's thread may have held.
  void check_fork() const {
    if (born_.forked()) throw_forked("this connection to " + where());
  }

  redis_reply command(const std::vector<std::string>& args) {
    check_fork();
    connect();
    redis_reply r = send(args);
    if (r->type == REDIS_REPLY_ERROR)
      throw store_connection_error(where() + ": " +
                                   options_.address.hide_password(std::string(r->str, r->len)));
    return r;
  }

  redis_connection(redis_connection&&) noexcept = default;
  redis_connection& operator=(redis_connection&&) noexcept = default;
  /// In a forked child a TLS session is left as it is (no close_notify on the parent's socket);
  /// a plain one only closes this process's copy of the socket (hiredis sends no QUIT).
  ~redis_connection() {
    if (born_.forked()) (void)tls_.release();  // NOLINT(bugprone-unused-return-value)
  }

  /// Closes the connection (the next command reconnects).
  void reset() noexcept {
    ctx_.reset();
    tls_.reset();
  }

 private:
  struct context_deleter {
    void operator()(redisContext* c) const noexcept { redisFree(c); }
  };

  [[nodiscard]] bool open() const noexcept { return ctx_ != nullptr || tls_ != nullptr; }

  void connect() {
    if (open()) return;
    const std::string head = "cannot connect to " + where() + " within " +
                             std::to_string(options_.address.connect_timeout.count()) + " ms: ";
    if (options_.address.tls) {
#if defined(FLAKEID_REDIS_TLS)
      try {
        tls_.reset(new redis_tls_stream(options_, options_.address.connect_timeout));
      } catch (const std::runtime_error& e) {
        throw store_connection_error(head + e.what());
      }
#endif
    } else {
      const timeval tv = to_timeval(options_.address.connect_timeout);
      redisContext* c =
          options_.address.unix_socket.empty()
              ? redisConnectWithTimeout(options_.address.host.c_str(), options_.address.port, tv)
              : redisConnectUnixWithTimeout(options_.address.unix_socket.c_str(), tv);
      if (c == nullptr || c->err != 0) {
        const std::string why = c == nullptr ? "out of memory" : c->errstr;
        if (c != nullptr) redisFree(c);
        throw store_connection_error(head + why);
      }
      ctx_.reset(c);
      if (redisSetTimeout(c, to_timeval(options_.address.command_timeout)) != REDIS_OK) fail_io();
    }
    log_in();
  }

  /// AUTH and SELECT on a new connection; a refusal closes it. The message names the user,
  /// server and db (`where()`), never the password.
  void log_in() {
    if (!options_.address.user.empty() || !options_.address.password.empty()) {
      std::vector<std::string> auth{"AUTH"};
      if (!options_.address.user.empty()) auth.push_back(options_.address.user);
      auth.push_back(options_.address.password);
      const redis_reply r = send(auth);
      if (r->type == REDIS_REPLY_ERROR) {
        reset();
        throw store_connection_error("cannot log in to " + where() +
                                     (options_.address.user.empty() ? " (default user): " : ": ") +
                                     options_.address.hide_password(std::string(r->str, r->len)));
      }
    }
    if (options_.db != 0) {
      const redis_reply r = send({"SELECT", std::to_string(options_.db)});
      if (r->type == REDIS_REPLY_ERROR) {
        reset();
        throw store_connection_error("cannot select db " + std::to_string(options_.db) + " on " +
                                     where() + ": " +
                                     options_.address.hide_password(std::string(r->str, r->len)));
      }
    }
  }

  /// One round trip on the open connection; any reply, errors included.
  redis_reply send(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    argv.reserve(args.size());
    lens.reserve(args.size());
    for (const auto& s : args) {
      argv.push_back(s.data());
      lens.push_back(s.size());
    }
#if defined(FLAKEID_REDIS_TLS)
    if (tls_) {
      try {
        return redis_reply(tls_->command(static_cast<int>(argv.size()), argv.data(), lens.data(),
                                         options_.address.command_timeout));
      } catch (const std::runtime_error& e) {
        tls_.reset();  // reconnect next time
        throw store_connection_error(where() + ": " + options_.address.hide_password(e.what()));
      }
    }
#endif
    auto* raw = static_cast<redisReply*>(
        redisCommandArgv(ctx_.get(), static_cast<int>(argv.size()), argv.data(), lens.data()));
    if (raw == nullptr) fail_io();
    return redis_reply(raw);
  }

  [[noreturn]] void fail_io() {
    std::string why = ctx_ ? ctx_->errstr : "no connection";
    // hiredis reports a read past SO_RCVTIMEO as EAGAIN (or, in newer versions, "timed out").
    if (why.find("timed out") != std::string::npos ||
        why.find("Resource temporarily unavailable") != std::string::npos)
      why = "no answer within " + std::to_string(options_.address.command_timeout.count()) +
            " ms (" + why + ")";
    reset();  // reconnect next time
    throw store_connection_error(where() + ": " + options_.address.hide_password(why));
  }

  redis_options options_;
  std::unique_ptr<redisContext, context_deleter> ctx_;
  std::unique_ptr<redis_tls_stream, void (*)(redis_tls_stream*) noexcept> tls_{nullptr,
                                                                               redis_tls_delete};
  fork_stamp born_;  // a forked child's commands throw forked_process_error
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
