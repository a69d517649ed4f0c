// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/redis_lease_store.hpp
/// The lease store of `redis_store` (adapters/redis.hpp, whose file comment gives the keys and
/// the scripts), and what every Redis script shares: the server's eviction policy and memory
/// (`redis_state_lua`).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../detail/server_store.hpp"
#include "../../errors.hpp"
#include "../../lease_store.hpp"
#include "../../version.hpp"
#include "redis_connection.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// The start of every script: `redis_state()` answers the server's `maxmemory_policy` and its
/// memory, "<run_id> <evicted_keys>" (INFO memory, stats and server: CONFIG may be renamed);
/// `redis_epoch(key, memory, window)` keeps in `key` "<run_id>:<master_replid> <evicted_keys>
/// <Unix ms>", the memory the keys it guards are and when it began (a restart, a failover, an
/// eviction, or a new replication id since starts a new one: a server made a replica loads
/// another's copy of the data, which keeps its run id), and answers its start when less than
/// `window` ms ago, else ''.
inline constexpr const char* redis_state_lua = R"lua(
local function redis_state()
  local pol = string.match(redis.call('INFO', 'memory'), 'maxmemory_policy:([%w%-]+)') or '?'
  local ev = string.match(redis.call('INFO', 'stats'), 'evicted_keys:(%d+)') or '?'
  local run = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)') or '?'
  return pol, run .. ' ' .. ev
end
local function redis_epoch(key, st, window)
  local rid = string.match(redis.call('INFO', 'replication'), 'master_replid:(%w+)') or '?'
  st = string.gsub(st, ' ', ':' .. rid .. ' ', 1)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local m = redis.call('GET', key)
  local est, born
  if m then est, born = string.match(m, '^(%S+ %d+) (%-?%d+)$') end
  if est ~= st then
    born = now
    redis.call('SET', key, st .. ' ' .. now)
  end
  born = tonumber(born)
  if now - born < window then return tostring(born) end
  return ''
end
)lua";

/// The claim: ARGV[1] the key prefix, [2] the id count, [3] the holder's token, [4] the token's
/// expiry (ms), [5] the claimer's deadline, [6] `settled`, [7] `skip_above` (Unix ms), [8] how
/// long after an epoch's start a claim reports it (ms), [9] the claimer's instance ('' for
/// none), [10] `kept_after` (Unix ms). Answers {id, -1 (none free) or -2 (an allkeys-* policy), the id's previous `last:` or
/// '' (or the policy), the epoch's start when recent or '', 0 | 1 (the instance's own id) | 2
/// (the instance's id, held: nothing taken)}. The epoch is "<run_id>:<master_replid>
/// <evicted_keys> <Unix ms>": a restart, a failover (and back) or an eviction since starts a new
/// one. `ids` counts the ids ever taken, so that records deleted by hand under a live holder
/// are noticed (the loss is then now).
inline const std::string redis_claim_script = std::string(redis_state_lua) + R"lua(
local p = ARGV[1]
local pol, st = redis_state()
if string.sub(pol, 1, 8) == 'allkeys-' then return {-2, pol, '', 0} end
local lost = redis_epoch(p .. 'epoch', st, tonumber(ARGV[8]))
local count = tonumber(ARGV[2])
local me = ARGV[9]
local t = redis.call('TIME')
local now = tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
-- `ids`: how many ids were ever taken (the highest + 1). An id below it whose `last:` is gone
-- lost its records under a holder that may still mint; `ids` gone under an epoch that is not
-- new may mean any id did: either is a loss as of now.
local ever = tonumber(redis.call('GET', p .. 'ids') or '')
if not ever then
  ever = 0
  if lost == '' then
    lost = now
    ever = count
  end
  redis.call('SET', p .. 'ids', tostring(ever))
end
local function vanished(i, rec)
  if not rec and i < ever then lost = now end
end
local function id_in(v)
  local i = v and string.match(v, '^%d+$') and tonumber(v)
  if i and tostring(i) == v then return i end
  return nil
end
local function take(i)
  local id = tostring(i)
  redis.call('SET', p .. 'worker:' .. id, ARGV[3], 'PX', ARGV[4])
  local lk = p .. 'last:' .. id
  local rec = redis.call('GET', lk)
  vanished(i, rec)
  if i >= ever then
    ever = i + 1
    redis.call('SET', p .. 'ids', tostring(ever))
  end
  if not rec or tonumber(rec) < tonumber(ARGV[5]) then redis.call('SET', lk, ARGV[5]) end
  local ik = p .. 'inst:' .. id
  local old = redis.call('GET', ik)
  if old and old ~= me and redis.call('GET', p .. 'instance:' .. old) == id then
    redis.call('DEL', p .. 'instance:' .. old)
  end
  if me == '' then
    if old then redis.call('DEL', ik) end
    return rec
  end
  local xk = p .. 'instance:' .. me
  local prev = redis.call('GET', xk)
  if id_in(prev) and prev ~= id and redis.call('GET', p .. 'inst:' .. prev) == me then
    redis.call('DEL', p .. 'inst:' .. prev)
  end
  redis.call('SET', ik, me)
  redis.call('SET', xk, id)
  return rec
end
if me ~= '' then
  local v = redis.call('GET', p .. 'instance:' .. me)
  local i = id_in(v)
  if i and i < count and redis.call('GET', p .. 'inst:' .. v) == me then
    local tok = redis.call('GET', p .. 'worker:' .. v)
    if tok and tok ~= 'released' then
      return {i, redis.call('GET', p .. 'last:' .. v) or '', '', 2}
    end
    local rec = take(i)
    return {i, rec or '', lost, 1}
  end
end
local function kept(i, l)
  if not l or l <= tonumber(ARGV[10]) then return false end
  local o = redis.call('GET', p .. 'inst:' .. i)
  return o and o ~= me
end
local best, bestlast = -1, nil
for i = 0, count - 1 do
  if redis.call('EXISTS', p .. 'worker:' .. i) == 0 then
    local rec = redis.call('GET', p .. 'last:' .. i)
    local l = rec and tonumber(rec)
    if kept(i, l) then
      -- another instance's, not idle long enough: passed by
    elseif not l or l <= tonumber(ARGV[6]) then
      best, bestlast = i, rec
      break
    elseif l <= tonumber(ARGV[7]) and (best < 0 or l < tonumber(bestlast)) then
      best, bestlast = i, rec
    end
  end
end
if best < 0 then return {-1, '', '', 0} end
take(best)
return {best, bestlast or '', lost, 0}
)lua";

/// A renewal: KEYS[1] the token, KEYS[2] `last:`; ARGV[1] the token, [2] its expiry (ms), [3] the
/// deadline. Answers 1 (held), 0 (taken) or the policy (an allkeys-* policy: refused).
inline const std::string redis_renew_script = std::string(redis_state_lua) + R"lua(
local pol = redis_state()
if string.sub(pol, 1, 8) == 'allkeys-' then return pol end
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
  if (r->type != REDIS_REPLY_STRING) return INT64_MIN;
  return parse_decimal<std::int64_t>(std::string_view(r->str, r->len)).value_or(INT64_MIN);
}

/// `EVAL script` with `keys` and `args` on `conn`.
inline redis_reply redis_eval(redis_connection& conn, const std::string& script,
                              const std::vector<std::string>& keys,
                              const std::vector<std::string>& args) {
  std::vector<std::string> argv{"EVAL", script, std::to_string(keys.size())};
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return conn.command(argv);
}

/// The answer of a renewal script: 1 held, 0 taken, or the server's `maxmemory-policy` (a
/// string: an `allkeys-*` policy, which may evict `records`: `lease_store_error`).
inline renewal redis_renewal_of(const redisReply* r, const std::string& where,
                                const std::string& records) {
  if (r->type == REDIS_REPLY_STRING)
    throw lease_store_error("flakeid: " + where + ": maxmemory-policy " +
                            std::string(r->str, r->len) + " may evict " + records +
                            ": leases need maxmemory-policy noeviction or a volatile-* policy");
  return r->type == REDIS_REPLY_INTEGER && r->integer == 1 ? renewal::held : renewal::taken;
}

/// The answer of a claim script (see `redis_claim_script`) from the server `where`: the claim,
/// or nothing when no id is free. Throws `lease_store_error` for a malformed answer, or for an
/// `allkeys-*` policy, which may evict `records`.
inline std::optional<lease_claim> redis_claim_of(const redisReply* r, const std::string& where,
                                                 const std::string& records) {
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 4 ||
      r->element[0]->type != REDIS_REPLY_INTEGER || r->element[3]->type != REDIS_REPLY_INTEGER)
    throw lease_store_error("flakeid: " + where + ": unexpected answer to the claim script");
  if (r->element[0]->integer == -2) (void)redis_renewal_of(r->element[1], where, records);
  if (r->element[0]->integer < 0) return std::nullopt;
  lease_claim c;
  c.id = static_cast<std::uint64_t>(r->element[0]->integer);
  c.last = lease_time_or_none(redis_int(r->element[1]));
  c.lost_memory_at = lease_time_or_none(redis_int(r->element[2]));
  c.own_instance = r->element[3]->integer == 1;
  c.held_by_instance = r->element[3]->integer == 2;
  return c;
}

/// The server's `TIME`. Throws `lease_store_error` for an answer that is not one.
inline lease_time redis_time(redis_connection& conn) {
  redis_reply r = conn.command({"TIME"});
  const bool ok = r->type == REDIS_REPLY_ARRAY && r->elements == 2;
  const std::int64_t s = ok ? redis_int(r->element[0]) : -1;
  const std::int64_t us = ok ? redis_int(r->element[1]) : -1;
  if (s < 0 || us < 0)
    throw lease_store_error("flakeid: " + conn.where() + ": unexpected answer to TIME");
  return lease_time_of(s * 1000 + us / 1000);
}

class redis_lease_store final : public lease_store {
 public:
  redis_lease_store(redis_options server, const lease_options& o)
      : prefix_("flakeid:{" + o.name_space + "}:"),
        hold_ms_(std::to_string((o.ttl + o.safe_guard).count())),
        guard_ms_(std::to_string(o.safe_guard.count())),
        conn_(std::move(server), o.connect_timeout, lease_io_timeout(o.io_timeout, o.ttl)) {}

  [[nodiscard]] std::string where() const override { return conn_.where(); }

  std::optional<lease_claim> do_claim(const claim_request& q) override {
    // A short command first: a server that wants a login answers NOAUTH to it, but a protocol
    // error to the claim's 12 arguments from a client not logged in.
    (void)conn_.command({"PING"});
    reply r = eval(redis_claim_script, {},
                   {prefix_, std::to_string(q.count), q.holder, hold_ms_, unix_ms_text(q.deadline),
                    unix_ms_text(q.settled), unix_ms_text(q.skip_above), hold_ms_, q.instance,
                    unix_ms_text(q.kept_after)});
    return redis_claim_of(r.get(), where(), records());
  }

  renewal do_renew(std::uint64_t id, const std::string& holder, lease_time deadline) override {
    reply r = eval(redis_renew_script, keys(id), {holder, hold_ms_, unix_ms_text(deadline)});
    return redis_renewal_of(r.get(), where(), records());
  }

  void do_release(std::uint64_t id, const std::string& holder, lease_time last) override {
    (void)eval(redis_release_script, keys(id), {holder, guard_ms_, unix_ms_text(last)});
  }

  /// The server's `TIME`.
  std::optional<lease_time> do_clock() override { return redis_time(conn_); }

 private:
  using reply = redis_reply;

  /// The records an eviction would lose, for the refusal of an `allkeys-*` policy.
  [[nodiscard]] std::string records() const {
    return "the lease records (" + prefix_ + "last:<id>, " + prefix_ + "epoch)";
  }

  [[nodiscard]] std::vector<std::string> keys(std::uint64_t id) const {
    return {prefix_ + "worker:" + std::to_string(id), prefix_ + "last:" + std::to_string(id)};
  }

  reply eval(const std::string& script, const std::vector<std::string>& k,
             const std::vector<std::string>& args) {
    return redis_eval(conn_, script, k, args);
  }

  std::string prefix_;
  std::string hold_ms_;
  std::string guard_ms_;
  redis_connection conn_;
};
}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
