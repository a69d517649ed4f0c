#pragma once
/// \file adapters/detail/redis_connection.hpp
/// Internal: one hiredis connection with bounded connect and I/O timeouts, shared by the Redis
/// adapters (`redis_lease`, `redis_distributor`). Not part of the public API.

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <charconv>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "store_connection_error.hpp"

namespace flakeid::detail {

inline timeval to_timeval(std::chrono::milliseconds d) {
  timeval tv{};
  tv.tv_sec = static_cast<decltype(tv.tv_sec)>(d.count() / 1000);
  tv.tv_usec = static_cast<decltype(tv.tv_usec)>((d.count() % 1000) * 1000);
  return tv;
}

/// Splits "host:port" (`default_port` when absent; "[v6]:port" for IPv6). Throws
/// `std::invalid_argument` for anything else.
inline std::pair<std::string, int> split_address(const std::string& address, int default_port) {
  std::string host = address;
  std::string port_text;
  bool has_port = false;
  if (!address.empty() && address.front() == '[') {  // [v6] or [v6]:port
    const auto close = address.find(']');
    if (close == std::string::npos)
      throw std::invalid_argument("flakeid: '" + address + "' is not a host:port address");
    host = address.substr(1, close - 1);
    if (close + 1 < address.size()) {
      if (address[close + 1] != ':')
        throw std::invalid_argument("flakeid: '" + address + "' is not a host:port address");
      port_text = address.substr(close + 2);
      has_port = true;
    }
  } else if (const auto colon = address.find(':');
             colon != std::string::npos && address.rfind(':') == colon) {
    host = address.substr(0, colon);
    port_text = address.substr(colon + 1);
    has_port = true;
  }
  int port = default_port;
  if (has_port) {
    const auto r = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (r.ec != std::errc{} || r.ptr != port_text.data() + port_text.size() || port <= 0 ||
        port > 65535)
      throw std::invalid_argument("flakeid: '" + address + "' is not a host:port address");
  }
  if (host.empty())
    throw std::invalid_argument("flakeid: '" + address + "' is not a host:port address");
  return {host, port};
}

struct redis_reply_deleter {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};

/// A Redis reply, freed on scope exit.
using redis_reply = std::unique_ptr<redisReply, redis_reply_deleter>;

/// One connection to a Redis server at "host:port", opened on first use within
/// `connect_timeout`, with every request bounded by `io_timeout`. A request that fails on the
/// connection (refused, reset, timed out) drops it, and the next one reconnects.
/// Not thread-safe: one caller at a time.
class redis_connection {
 public:
  redis_connection(const std::string& address, std::chrono::milliseconds connect_timeout,
                   std::chrono::milliseconds io_timeout)
      : connect_timeout_(connect_timeout), io_timeout_(io_timeout) {
    auto [h, p] = split_address(address, 6379);
    host_ = std::move(h);
    port_ = p;
  }

  /// `redis host:port`.
  [[nodiscard]] std::string where() const { return "redis " + host_ + ":" + std::to_string(port_); }
  /// `host:port`.
  [[nodiscard]] std::string address() const { return host_ + ":" + std::to_string(port_); }

  /// Sends one command (binary-safe arguments) and returns its reply. Throws
  /// `store_connection_error` when it cannot connect, the connection fails or times out, or the
  /// server answers with an error.
  redis_reply command(const std::vector<std::string>& args) {
    connect();
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    argv.reserve(args.size());
    lens.reserve(args.size());
    for (const auto& s : args) {
      argv.push_back(s.data());
      lens.push_back(s.size());
    }
    auto* raw = static_cast<redisReply*>(
        redisCommandArgv(ctx_.get(), static_cast<int>(argv.size()), argv.data(), lens.data()));
    if (raw == nullptr) fail_io();
    redis_reply r(raw);
    if (r->type == REDIS_REPLY_ERROR)
      throw store_connection_error(where() + ": " + std::string(r->str, r->len));
    return r;
  }

  /// Closes the connection (the next command reconnects).
  void reset() noexcept { ctx_.reset(); }

 private:
  struct context_deleter {
    void operator()(redisContext* c) const noexcept { redisFree(c); }
  };

  void connect() {
    if (ctx_) return;
    redisContext* c = redisConnectWithTimeout(host_.c_str(), port_, to_timeval(connect_timeout_));
    if (c == nullptr || c->err != 0) {
      const std::string why = c == nullptr ? "out of memory" : c->errstr;
      if (c != nullptr) redisFree(c);
      throw store_connection_error("cannot connect to " + where() + " within " +
                                   std::to_string(connect_timeout_.count()) + " ms: " + why);
    }
    ctx_.reset(c);
    if (redisSetTimeout(c, to_timeval(io_timeout_)) != REDIS_OK) fail_io();
  }

  [[noreturn]] void fail_io() {
    std::string why = ctx_ ? ctx_->errstr : "no connection";
    // hiredis reports a read past SO_RCVTIMEO as EAGAIN (or, in newer versions, "timed out").
    if (why.find("timed out") != std::string::npos ||
        why.find("Resource temporarily unavailable") != std::string::npos)
      why = "no answer within " + std::to_string(io_timeout_.count()) + " ms (" + why + ")";
    ctx_.reset();  // reconnect next time
    throw store_connection_error(where() + ": " + why);
  }

  std::chrono::milliseconds connect_timeout_;
  std::chrono::milliseconds io_timeout_;
  std::string host_;
  int port_ = 6379;
  std::unique_ptr<redisContext, context_deleter> ctx_;
};

}  // namespace flakeid::detail
