#pragma once
/// \file adapters/redis_lease.hpp
/// `redis_lease`: worker-id leases in Redis (hiredis; CMake target `flakeid::redis`).
///
/// Keys, under the namespace `ns` (the hash tag keeps them in one slot):
///
///     flakeid:{ns}:worker:<id>   the holder's token; expires `ttl + safe_guard` after the last
///                                renewal, or is "released" for `safe_guard` after a release
///     flakeid:{ns}:last:<id>     the last timestamp minted with the id (Unix ms, no expiry)
///
/// A claim is one Lua script that takes the first id whose key is absent with
/// `SET key token NX PX ttl+safe_guard`; renewal and release are scripts that act only when
/// the key still holds this lease's token. The holder itself counts its lease as lasting only
/// `ttl` from the moment it sent the renewal, so the id stays unused for at least `safe_guard`
/// after its holder stopped minting.
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
#include <utility>
#include <vector>

#include "../lease.hpp"
#include "detail/redis_connection.hpp"
#include "redis_options.hpp"

namespace flakeid {

namespace detail {

inline constexpr const char* redis_claim_script = R"lua(
local n = tonumber(ARGV[2])
for i = 0, n - 1 do
  if redis.call('SET', ARGV[1] .. 'worker:' .. i, ARGV[3], 'NX', 'PX', ARGV[4]) then
    local last = redis.call('GET', ARGV[1] .. 'last:' .. i)
    return {i, last or ''}
  end
end
return {-1, ''}
)lua";

inline constexpr const char* redis_record_last = R"lua(
local function record(key, last)
  if last ~= '' then
    local rec = redis.call('GET', key)
    if not rec or tonumber(rec) < tonumber(last) then redis.call('SET', key, last) end
  end
end
)lua";

inline constexpr const char* redis_renew_script = R"lua(
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
elseif v == false then
  local rec = redis.call('GET', KEYS[2])
  if rec and (ARGV[3] == '' or tonumber(rec) > tonumber(ARGV[3])) then return 0 end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  return 0
end
record(KEYS[2], ARGV[3])
return 1
)lua";

inline constexpr const char* redis_release_script = R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
record(KEYS[2], ARGV[3])
if tonumber(ARGV[2]) > 0 then
  redis.call('SET', KEYS[1], 'released', 'PX', ARGV[2])
else
  redis.call('DEL', KEYS[1])
end
return 1
)lua";

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

  std::optional<lease_claim> claim(std::uint64_t count, const std::string& holder) override {
    const std::string n = std::to_string(count);
    reply r = eval(redis_claim_script, {}, {prefix_, n, holder, hold_ms_});
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
        r->element[0]->type != REDIS_REPLY_INTEGER)
      fail_reply("unexpected answer to the claim script");
    if (r->element[0]->integer < 0) return std::nullopt;
    lease_claim c;
    c.id = static_cast<std::uint64_t>(r->element[0]->integer);
    const redisReply* last = r->element[1];
    if (last->type == REDIS_REPLY_STRING && last->len > 0) {
      std::int64_t v = 0;
      const auto res = std::from_chars(last->str, last->str + last->len, v);
      if (res.ec == std::errc{}) c.last_unix_ms = v;
    }
    return c;
  }

  renewal renew(std::uint64_t id, const std::string& holder, std::int64_t last) override {
    reply r = eval(std::string(redis_record_last) + redis_renew_script, keys(id),
                   {holder, hold_ms_, text(last)});
    return r->type == REDIS_REPLY_INTEGER && r->integer == 1 ? renewal::held : renewal::taken;
  }

  void release(std::uint64_t id, const std::string& holder, std::int64_t last) override {
    (void)eval(std::string(redis_record_last) + redis_release_script, keys(id),
               {holder, guard_ms_, text(last)});
  }

 private:
  using reply = redis_reply;

  static std::string text(std::int64_t last) {
    return last == INT64_MIN ? std::string() : std::to_string(last);
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
    try {
      return conn_.command(argv);
    } catch (const store_connection_error& e) {
      throw lease_store_error(std::string("flakeid: ") + e.what());
    }
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
