// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/redis_cosid_machine.hpp
/// The lease store of `redis_store::lease(options, redis_keys::cosid)`: worker ids in the keys
/// of CosId's Redis machine-id distributor, shared with the CosId services of the same
/// namespace (adapters/redis.hpp's file comment gives the rules).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../../detail/server_store.hpp"
#include "../../errors.hpp"
#include "../../lease_store.hpp"
#include "../../version.hpp"
#include "redis_connection.hpp"
#include "redis_lease_store.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// What the CosId scripts share: ARGV[1] the namespace, CosId's keys and flakeid's `stable`
/// (the states of stable releases, by instance); `st(v)` reads CosId's state
/// "<machine id>|<last stamp>".
inline constexpr const char* redis_cosid_keys_lua = R"lua(
local ns = ARGV[1]
local itc = 'cosid:{' .. ns .. '}:itc_idx'
local adder = 'cosid:{' .. ns .. '}:adder'
local revert = 'cosid:{' .. ns .. '}:revert'
local stable = 'flakeid:{' .. ns .. '}:cosid-stable'
local function st(v)
  if not v then return nil end
  local i, s = string.match(v, '^(%d+)|(%-?%d+)$')
  if not i then return nil end
  return tonumber(i), tonumber(s)
end
)lua";

/// The claim: ARGV[1] the namespace, [2] the id count, [3] the instance field, [4] the claim's
/// time (the lease's clock, Unix ms), [5] ttl (ms), [6] `settled`, [7] `skip_above`, [8] how long
/// after an epoch's start a claim reports it, [9] '1' when the field is the lease's instance.
/// Answers {id, -1 (none free) or -2 (an allkeys-* policy), the previous holder's deadline or ''
/// (or the policy), the epoch's start when recent or '', 0 | 1 (the instance's own id) | 2 (the
/// instance's id, held: nothing taken)}. In CosId's order: a released id (those released
/// `safe_guard` ago first), the counter, an id whose holder's stamp is older than ttl. Besides
/// the epoch, `flakeid:{ns}:cosid-count` counts the ids the counter handed out: a counter
/// below it (CosId's keys deleted) or a count made recently is a loss of memory.
inline const std::string redis_cosid_claim_script =
    std::string(redis_state_lua) + redis_cosid_keys_lua + R"lua(
local pol, mem = redis_state()
if string.sub(pol, 1, 8) == 'allkeys-' then return {-2, pol, '', 0} end
local window = tonumber(ARGV[8])
local lost = redis_epoch('flakeid:{' .. ns .. '}:cosid-epoch', mem, window)
local count, me, now, ttl = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function later(at) if lost == '' or tonumber(lost) < at then lost = tostring(at) end end
-- flakeid's count of the ids the counter handed out, and when it began ("<count> <Unix ms>"):
-- missing (new, or deleted with CosId's keys) it begins now; a counter below it was made again.
local ck = 'flakeid:{' .. ns .. '}:cosid-count'
local seen, made = string.match(redis.call('GET', ck) or '', '^(%d+) (%d+)$')
if not seen then
  seen, made = (tonumber(redis.call('GET', adder) or '-1') or -1) + 1, clock
  redis.call('SET', ck, seen .. ' ' .. made)
end
seen, made = tonumber(seen), tonumber(made)
if clock - made < window then later(made) end
local settled, above = tonumber(ARGV[6]), tonumber(ARGV[7])
local function take(i)
  redis.call('HSET', itc, me, tostring(i) .. '|' .. tostring(now))
end
if ARGV[9] == '1' then
  local raw = redis.call('HGET', itc, me)
  local i, s = st(raw)
  if i then
    if i >= count then return {-1, '', '', 0} end
    if redis.call('HGET', stable, me) == raw then  -- reverted stably, not guarded since
      redis.call('HDEL', stable, me)
      redis.call('HSET', itc, me, tostring(i) .. '|' .. tostring(math.max(now, s + 1)))
      return {i, tostring(s), lost, 1}
    end
    if s + ttl > now then return {i, tostring(s + ttl), lost, 2} end
    take(i)
    return {i, tostring(s + ttl), lost, 1}
  end
end
local ri, rs = -1, nil
local rev = redis.call('HGETALL', revert)
for k = 1, #rev, 2 do
  local i, s = tonumber(rev[k]), tonumber(rev[k + 1])
  if i and s and i < count and s <= above and (ri < 0 or s < rs) then ri, rs = i, s end
end
if ri >= 0 and rs <= settled then
  redis.call('HDEL', revert, tostring(ri))
  take(ri)
  return {ri, tostring(rs), lost, 0}
end
local a = tonumber(redis.call('GET', adder) or '')
if not a then
  a = -1
  redis.call('SET', adder, -1)
end
if a + 1 < count then
  local i = redis.call('INCR', adder)
  take(i)
  if i < seen then later(clock) end
  if i + 1 > seen then redis.call('SET', ck, (i + 1) .. ' ' .. made) end
  return {i, '', lost, 0}
end
local hf, hi, hd = nil, -1, nil
local held = redis.call('HGETALL', itc)
for k = 1, #held, 2 do
  local i, s = st(held[k + 1])
  if i and i < count and s <= now - ttl and s + ttl <= above and (hi < 0 or s + ttl < hd) then
    hf, hi, hd = held[k], i, s + ttl
  end
end
if ri >= 0 and (hi < 0 or rs <= hd) then
  redis.call('HDEL', revert, tostring(ri))
  take(ri)
  return {ri, tostring(rs), lost, 0}
end
if hi < 0 then return {-1, '', '', 0} end
redis.call('HDEL', itc, hf)
redis.call('HDEL', stable, hf)
take(hi)
return {hi, tostring(hd), lost, 0}
)lua";

/// CosId's guard of one id: ARGV[1] the namespace, [2] the instance field, [3] the id, [4] the
/// stamp. Answers 1 (held: the field still names the id), 0 (taken) or the policy.
inline const std::string redis_cosid_renew_script =
    std::string(redis_state_lua) + redis_cosid_keys_lua + R"lua(
local pol = redis_state()
if string.sub(pol, 1, 8) == 'allkeys-' then return pol end
local i = st(redis.call('HGET', itc, ARGV[2]))
if i ~= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', itc, ARGV[2], ARGV[3] .. '|' .. ARGV[4])
return 1
)lua";

/// CosId's revert: ARGV as the guard, [4] the stamp of the release, [5] '1' for a stable one.
/// Not stable, the id goes to `revert`; stable, the instance's state keeps it with the stamp,
/// and `flakeid:{ns}:cosid-stable` remembers that state: the instance's next claim that finds it
/// unchanged (not guarded since) takes the id at once.
inline const std::string redis_cosid_release_script = std::string(redis_cosid_keys_lua) + R"lua(
local i = st(redis.call('HGET', itc, ARGV[2]))
if i ~= tonumber(ARGV[3]) then return 0 end
if ARGV[5] == '1' then
  local v = ARGV[3] .. '|' .. ARGV[4]
  redis.call('HSET', itc, ARGV[2], v)
  redis.call('HSET', stable, ARGV[2], v)
  return 1
end
redis.call('HDEL', itc, ARGV[2])
redis.call('HSET', revert, ARGV[3], ARGV[4])
return 1
)lua";

class redis_cosid_machine_store final : public lease_store {
 public:
  redis_cosid_machine_store(redis_options server, const lease_options& o)
      : ns_(o.name_space),
        t_(o),
        conn_(std::move(server), o.connect_timeout, lease_io_timeout(o.io_timeout, o.ttl)) {}

  [[nodiscard]] std::string where() const override { return conn_.where(); }

  std::optional<lease_claim> do_claim(const claim_request& q) override {
    (void)conn_.command({"PING"});  // NOAUTH to a short command, not a protocol error
    // CosId's instance field: the lease's instance, or its token (host:pid:random).
    field_ = q.instance.empty() ? q.holder : q.instance;
    redis_reply r =
        eval(redis_cosid_claim_script,
             {ns_, std::to_string(q.count), field_, unix_ms_text(q.now), std::to_string(t_.ttl_ms),
              unix_ms_text(q.settled), unix_ms_text(q.skip_above), std::to_string(t_.lost_ms),
              q.instance.empty() ? "0" : "1"});
    return redis_claim_of(r.get(), where(), records);
  }

  /// CosId's guard: the id's state gets the renewal's send time.
  renewal do_renew(std::uint64_t id, const std::string& /*holder*/, lease_time deadline) override {
    const std::int64_t sent = unix_ms_of(deadline) - t_.hold_ms;
    redis_reply r =
        eval(redis_cosid_renew_script, {ns_, field_, std::to_string(id), std::to_string(sent)});
    return redis_renewal_of(r.get(), where(), records);
  }

  /// CosId's revert, stamped with the millisecond after the last one used: the id goes to the
  /// released ids, or, stable, stays the instance's.
  void do_release(std::uint64_t id, const std::string& /*holder*/, lease_time last) override {
    (void)eval(redis_cosid_release_script,
               {ns_, field_, std::to_string(id), std::to_string(unix_ms_of(last) + 1),
                t_.stable ? "1" : "0"});
  }

  /// The server's `TIME`.
  std::optional<lease_time> do_clock() override { return redis_time(conn_); }

 private:
  static constexpr const char* records = "CosId's machine-id keys";
  redis_reply eval(const std::string& script, const std::vector<std::string>& args) {
    return redis_eval(conn_, script, {}, args);
  }

  std::string ns_;
  cosid_lease_times t_;
  std::string field_;  // the itc_idx field this lease records
  redis_connection conn_;
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
