// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/redis_lease.hpp
/// `redis_lease`: worker-id leases in Redis (hiredis; CMake target `flakeid::redis`).
///
/// Keys, under the namespace `ns` (the hash tag keeps them in one slot):
///
///     flakeid:{ns}:worker:<id>   the holder's token; expires `ttl + safe_guard` after the last
///                                renewal, or is "released" for `safe_guard` after a release
///     flakeid:{ns}:last:<id>     the holder's deadline (Unix ms, no expiry): every ID it minted
///                                lies below it; recorded before the holder may use it
///     flakeid:{ns}:epoch         "<run_id> <Unix ms>": the server run (INFO run_id) whose
///                                memory the other keys are, and when it began
///
/// A claim is one Lua script that takes a free id (its token key absent), preferring one whose
/// deadline has passed, sets its token with `PX ttl+safe_guard` and records the claimer's
/// deadline. A server restarted (with or without persistence: a snapshot can be older than
/// the last renewals) or a failover to another server has a new run id: the first claim then
/// starts a new epoch, and claims within `ttl + safe_guard` of it make the claimer wait that
/// long, so no holder the server forgot can still be minting. Renewal and release are scripts
/// that act only while the key still holds this lease's token; a token that is gone (expired,
/// or forgotten by the server) is a lost lease.
///
///     flakeid::redis_lease lease{"127.0.0.1:6379"};
///     flakeid::redis_lease managed{"rediss://app:s3cret@cache.internal:6380/2"};
///     flakeid::redis_lease from_env{flakeid::redis_options::from_env()};  // FLAKEID_REDIS_URL
///     flakeid::classic_snowflake<> gen{lease};
///
/// Throws `lease_store_error` when Redis cannot be reached within `connect_timeout`, refuses
/// the login or the db, or does not answer within `io_timeout`. Messages name user, host, port
/// and db, never the password.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../lease.hpp"
#include "detail/redis_connection.hpp"
#include "redis_options.hpp"

namespace flakeid {

namespace detail {

inline constexpr const char* redis_claim_script = R"lua(
local p = ARGV[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local m = redis.call('GET', p .. 'epoch')
local rid, born
if m then rid, born = string.match(m, '^(%S+) (%-?%d+)$') end
if rid ~= ARGV[8] then
  born = now
  redis.call('SET', p .. 'epoch', ARGV[8] .. ' ' .. now)
end
born = tonumber(born)
local best, bestlast = -1, nil
for i = 0, tonumber(ARGV[2]) - 1 do
  if redis.call('EXISTS', p .. 'worker:' .. i) == 0 then
    local rec = redis.call('GET', p .. 'last:' .. i)
    local l = rec and tonumber(rec)
    if not l or l <= tonumber(ARGV[6]) then
      best, bestlast = i, rec
      break
    end
    if l <= tonumber(ARGV[7]) and (best < 0 or l < tonumber(bestlast)) then
      best, bestlast = i, rec
    end
  end
end
if best < 0 then return {-1, '', ''} end
redis.call('SET', p .. 'worker:' .. best, ARGV[3], 'PX', ARGV[4])
local lk = p .. 'last:' .. best
local rec = redis.call('GET', lk)
if not rec or tonumber(rec) < tonumber(ARGV[5]) then redis.call('SET', lk, ARGV[5]) end
local lost = ''
if now - born < tonumber(ARGV[9]) then lost = tostring(born) end
return {best, bestlast or '', lost}
)lua";

inline constexpr const char* redis_renew_script = R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local rec = redis.call('GET', KEYS[2])
if not rec or tonumber(rec) < tonumber(ARGV[3]) then redis.call('SET', KEYS[2], ARGV[3]) end
return 1
)lua";

inline constexpr const char* redis_release_script = R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[3])
if tonumber(ARGV[2]) > 0 then
  redis.call('SET', KEYS[1], 'released', 'PX', ARGV[2])
else
  redis.call('DEL', KEYS[1])
end
return 1
)lua";

/// The integer in a reply string, or INT64_MIN for an empty or malformed one.
inline std::int64_t redis_int(const redisReply* r) {
  std::int64_t v = INT64_MIN;
  if (r->type == REDIS_REPLY_STRING && r->len > 0) {
    const auto res = std::from_chars(r->str, r->str + r->len, v);
    if (res.ec != std::errc{} || res.ptr != r->str + r->len) v = INT64_MIN;
  }
  return v;
}

class redis_lease_store final : public lease_store {
 public:
  redis_lease_store(redis_options server, const lease_options& o)
      : prefix_("flakeid:{" + o.name_space + "}:"),
        hold_ms_(std::to_string((o.ttl + o.safe_guard).count())),
        guard_ms_(std::to_string(o.safe_guard.count())),
        conn_(std::move(server), o.connect_timeout,
              o.io_timeout.count() > 0 ? o.io_timeout
                                       : std::max(std::chrono::milliseconds{10}, o.ttl / 5)) {}

  [[nodiscard]] std::string where() const override { return conn_.where(); }

  std::optional<lease_claim> claim(const claim_request& q) override {
    const std::string run = run_id();
    reply r = eval(
        redis_claim_script, {},
        {prefix_, std::to_string(q.count), q.holder, hold_ms_, std::to_string(q.deadline_unix_ms),
         std::to_string(q.settled_unix_ms), std::to_string(q.skip_above_unix_ms), run, hold_ms_});
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
        r->element[0]->type != REDIS_REPLY_INTEGER)
      fail_reply("unexpected answer to the claim script");
    if (r->element[0]->integer < 0) return std::nullopt;
    lease_claim c;
    c.id = static_cast<std::uint64_t>(r->element[0]->integer);
    c.last_unix_ms = redis_int(r->element[1]);
    c.lost_memory_at = redis_int(r->element[2]);
    return c;
  }

  renewal renew(std::uint64_t id, const std::string& holder, std::int64_t deadline) override {
    reply r = eval(redis_renew_script, keys(id), {holder, hold_ms_, std::to_string(deadline)});
    return r->type == REDIS_REPLY_INTEGER && r->integer == 1 ? renewal::held : renewal::taken;
  }

  void release(std::uint64_t id, const std::string& holder, std::int64_t last) override {
    (void)eval(redis_release_script, keys(id), {holder, guard_ms_, std::to_string(last)});
  }

 private:
  using reply = redis_reply;

  /// The server's run id (new at every start, and on another server after a failover).
  std::string run_id() {
    reply r = command({"INFO", "server"});
    if (r->type == REDIS_REPLY_STRING) {
      const std::string_view info(r->str, r->len);
      const auto at = info.find("run_id:");
      if (at != std::string_view::npos) {
        const auto from = at + 7;
        const auto to = info.find_first_of("\r\n", from);
        const std::string id(info.substr(from, to == std::string_view::npos ? to : to - from));
        if (!id.empty()) return id;
      }
    }
    fail_reply("INFO server has no run_id");
  }

  reply command(const std::vector<std::string>& argv) {
    try {
      return conn_.command(argv);
    } catch (const store_connection_error& e) {
      throw lease_store_error(std::string("flakeid: ") + e.what());
    }
  }

  [[nodiscard]] std::vector<std::string> keys(std::uint64_t id) const {
    return {prefix_ + "worker:" + std::to_string(id), prefix_ + "last:" + std::to_string(id)};
  }

  [[noreturn]] void fail_reply(const std::string& why) const {
    throw lease_store_error("flakeid: " + where() + ": " + why);
  }

  reply eval(const std::string& script, const std::vector<std::string>& k,
             const std::vector<std::string>& args) {
    std::vector<std::string> argv{"EVAL", script, std::to_string(k.size())};
    argv.insert(argv.end(), k.begin(), k.end());
    argv.insert(argv.end(), args.begin(), args.end());
    return command(argv);
  }

  std::string prefix_;
  std::string hold_ms_;
  std::string guard_ms_;
  redis_connection conn_;
};

}  // namespace detail

/// A worker-id lease in Redis (see the file comment).
class redis_lease : public lease {
 public:
  /// The server of `server` (address, login, db, TLS); its timeouts, when set, take the place
  /// of `options.connect_timeout` and `options.io_timeout`. Does not connect. Throws
  /// `std::invalid_argument` when `server` asks for TLS and it was not built in.
  explicit redis_lease(redis_options server, lease_options options = {})
      : lease(std::make_unique<detail::redis_lease_store>(std::move(server), options), options) {}
  /// The server at `address`: a `redis://`, `rediss://` or `unix://` URI, or `host[:port]` (see
  /// `redis_options::parse`, which throws `std::invalid_argument`).
  explicit redis_lease(const std::string& address, lease_options options = {})
      : redis_lease(redis_options::parse(address), std::move(options)) {}
};

}  // namespace flakeid
