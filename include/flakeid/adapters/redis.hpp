// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/redis.hpp
/// `redis_store`: worker-id leases and segment counters in Redis (hiredis; CMake target
/// `flakeid::redis`, and `flakeid::redis_tls` for `rediss://`). One store, the two protocols:
///
///     flakeid::redis_store store{"127.0.0.1:6379", {.name_space = "shop"}};
///     // or "rediss://app:s3cret@cache.internal:6380/2", or redis_options::from_env()
///     auto lease = store.lease();                                   // worker ids
///     flakeid::classic_snowflake<> gen{lease};
///     flakeid::segment_chain_generator ids{store.distributor("orders"), {.step = 1000}};
///
/// Every request is bounded: `connect_timeout` to connect, `io_timeout` per command (see
/// `store_options`); a failed or timed-out request drops the connection and the next one
/// reconnects. Messages name user, host, port and db, never the password.
///
/// ## Leases (`store.lease()`)
///
/// Keys, under the namespace `ns` (the hash tag keeps them in one slot):
///
///     flakeid:{ns}:worker:<id>   the holder's token; expires `ttl + safe_guard` after the last
///                                renewal, or is "released" for `safe_guard` after a release
///     flakeid:{ns}:last:<id>     the holder's deadline (Unix ms, no expiry): every ID it minted
///                                lies below it; recorded before the holder may use it
///     flakeid:{ns}:epoch         "<run_id>:<master_replid> <evicted_keys> <Unix ms>": the
///                                server's memory (INFO server, replication, stats) the other
///                                keys are, and when it began
///     flakeid:{ns}:inst:<id>     the instance (`lease_options::instance`) of the id's last
///                                claimer (no expiry); absent when it named none
///     flakeid:{ns}:instance:<name>  the id recorded for instance <name> (no expiry): an index,
///                                valid only while `inst:<id>` names <name> as well
///
/// A claim is one Lua script that takes a free id (its token key absent), preferring one whose
/// deadline has passed, sets its token with `PX ttl+safe_guard` and records the claimer's
/// deadline. It also records the claimer's instance: it sets `inst:<id>` and
/// `instance:<name>` (deleting a record of <name> on another id, and the index entry of the
/// instance the id recorded before), or, for a claimer without an instance, deletes
/// `inst:<id>` and that index entry. Renewal and release leave both keys alone. A claim that
/// names an instance first reads `instance:<name>`; when that id is below the claim's count
/// and its `inst:<id>` names the instance too, the script takes it if its token is absent or
/// "released" (whatever its deadline), or else answers that another holder has it, with that
/// holder's `last:<id>`. An index entry that is missing, malformed or not confirmed by
/// `inst:<id>` (keys written before instances, a server that lost its memory) means no
/// record: the claim goes as usual. Looking up and recording are in the one script, so two
/// claims of one instance never record it on two ids.
///
/// A server restarted (with or without persistence: a snapshot can be older than the last
/// renewals) or a failover to another server has a new run id, and a server that evicted keys
/// a new `evicted_keys`: the first claim then starts a new epoch, and claims within `ttl +
/// safe_guard` of it make the claimer wait that long, so no holder the server forgot can still
/// be minting. Renewal and release are scripts that act only while the key still holds this
/// lease's token; a token that is gone (expired, evicted, or forgotten by the server) is a
/// lost lease. Each claim and renewal refuses a server whose `maxmemory_policy` (INFO memory)
/// is an `allkeys-*` policy, which may evict `last:` and `epoch`: `lease_store_error` naming
/// the policy (`noeviction` and `volatile-*` are accepted: only tokens carry a TTL).
///
///     auto lease = flakeid::redis_store{"127.0.0.1:6379"}.lease();
///     auto managed = flakeid::redis_store{"rediss://app:s3cret@cache.internal:6380/2"}.lease();
///     auto from_env = flakeid::redis_store{flakeid::redis_options::from_env()}.lease();
///     flakeid::classic_snowflake<> gen{lease};
///
/// Throws `lease_store_error` when Redis cannot be reached within `connect_timeout`, refuses
/// the login or the db, or does not answer within `io_timeout`.
///
/// ## Leases in CosId's machine ids (`store.lease(options, redis_keys::cosid)`)
///
/// The keys of CosId's Redis machine-id distributor, in their shapes: `cosid:{ns}:itc_idx` (a
/// hash: instance -> "<machine id>|<last stamp>"), `cosid:{ns}:adder` (the last machine id
/// counted out, from -1), `cosid:{ns}:revert` (a hash: machine id -> stamp of its release).
/// The lease's instance is its `lease_options::instance`, else its token. A claim is one script
/// that takes, in CosId's order, a released id (one released `safe_guard` ago first), the next
/// id of the counter while it is below the count, or the id of an instance whose stamp is older
/// than `ttl` (CosId's safe-guard duration, which `ttl` must equal), recording
/// "<id>|<the claim's time>" under the lease's instance; a renewal is CosId's guard (the stamp:
/// the renewal's send time, only while the instance still names this id); a release is CosId's
/// revert (the id moves to `revert`, stamped with the millisecond after the last one used).
/// The previous holder's deadline is a released id's stamp, or a holder's stamp plus `ttl`. The
/// server's memory is watched as for flakeid's own keys (`flakeid:{ns}:cosid-epoch`), and the
/// same eviction policies are refused; `flakeid:{ns}:cosid-count` counts the ids the counter
/// handed out, so that a counter made again (CosId's keys deleted) makes a claim wait as for
/// lost memory. docs/stores.md has the settings that must match.
///
/// ## Segments (`store.distributor(key)`)
///
/// A counter is one integer key and its mark, under the namespace `ns` (the hash tag keeps a
/// namespace's keys in one cluster slot):
///
///     flakeid:{ns}:segment:<key>       the counter's last max; INCRBY <step> hands out a segment
///     flakeid:{ns}:segment-mark:<key>  "<run_id> <evicted_keys> <master_replid>": the
///                                      server's memory at the counter's last write
///     flakeid:{ns}:segment-birth:<key> "<run_id> <evicted_keys> <seconds> <microseconds>": the
///                                      server and its time when the counter was made
///
/// Each call is one script (one round trip) that refuses, instead of counting, a server that
/// may evict the counter (an `allkeys-*` policy; `volatile-*` with `expire_after`) or may have
/// lost ranges: the mark is of another server run (a restart, a failover), or of this run with
/// another `master_replid` on a server that took over from another since (a failover and back:
/// as a replica it loaded the other's copy of the data, which may lack the last ranges), the
/// counter is gone and its mark is not, the mark is gone since this distributor's last range, or a counter has no mark on a server that evicted keys, or the counter was made again
/// since this distributor's last range (its birth differs: the server lost it, and a process
/// started since counted anew from 0, also past this distributor's ranges), or the counter is
/// below the end of this distributor's last range (set back by hand, or `RESTORE`d alone from
/// an older `DUMP`, its mark and birth left). A restart is accepted when the
/// server cannot have lost a write: `appendonly yes` with `appendfsync always` (CONFIG GET, one
/// more round trip after a restart) and no takeover (`second_repl_offset:-1`). After a
/// refusal, `resume_above(n)` raises the counter above every number in use. Evictions alone are
/// not refused (a `volatile-*` policy evicting a cache's keys beside the counters): one that
/// took the counter or its mark is one of the cases above. A server that lost
/// everything looks new to a process started afterwards.
///
/// Failures throw `segment_store_error` naming the server, the namespace and the key.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../detail/server_store.hpp"
#include "../errors.hpp"
#include "../lease.hpp"
#include "../segment.hpp"
#include "../version.hpp"
#include "detail/redis_connection.hpp"
#include "detail/redis_cosid_machine.hpp"
#include "detail/redis_lease_store.hpp"
#include "detail/server_backend.hpp"
#include "redis_options.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {

/// A segment call: KEYS[1] the counter, KEYS[2] its mark (the server's memory, "<run_id>
/// <evicted_keys> <master_replid>", at the counter's last write; earlier versions wrote no
/// replication id), KEYS[3] its birth; ARGV[1] the step, [2] the
/// expiry (ms, 0: none), [3] the mark this distributor saw last ('' none), [4] a mark a durable
/// server may replace ('' none), [5] the birth this distributor saw last ('' none), [6] the end
/// of this distributor's last range ('0' none; compared as decimal text, beyond 2^53). Answers
/// {the new max, the mark, the birth, 0}, or {-1 (an allkeys-* policy), -2 (a volatile-* policy
/// and an expiry), -3 (the mark is of another server run: 1 when the server logs every write and took over from
/// no other), -4 (the counter is gone, its mark not), -5 (the mark is gone since this
/// distributor's last range), -6 (a counter below 0), -7 (no mark, and the server has evicted
/// keys), -8 (another birth than this distributor's last: the counter was made again), -9 (a
/// mark of this run with another replication id, on a server that took over since), -10 (the
/// counter is below ARGV[6]: it went back, set or restored by hand), the
/// policy, the mark or birth seen, the counter or evicted_keys, the server's memory or birth,
/// 0 | 1}.
inline const std::string redis_segment_script = std::string(redis_state_lua) + R"lua(
local pol, st = redis_state()
local exp = tonumber(ARGV[2])
if string.sub(pol, 1, 8) == 'allkeys-' then return {-1, pol, st, 0} end
if exp > 0 and string.sub(pol, 1, 9) == 'volatile-' then return {-2, pol, st, 0} end
local function run(s) return string.match(s, '^%S+') end
local repl = redis.call('INFO', 'replication')
local rid = string.match(repl, 'master_replid:(%w+)') or '?'
local took = not string.find(repl, 'second_repl_offset:-1', 1, true)
local mark = redis.call('GET', KEYS[2])
if mark and run(mark) ~= run(st) and mark ~= ARGV[4] then
  local durable = run(mark) ~= run(st)
    and string.find(redis.call('INFO', 'persistence'), 'aof_enabled:1', 1, true)
    and not took
  return {-3, mark, st, durable and 1 or 0}
end
local mrid = mark and string.match(mark, '^%S+ %S+ (%w+)$')
if mrid and run(mark) == run(st) and mrid ~= rid and took then
  return {-9, mark, st .. ' ' .. rid, 0}
end
if mark and redis.call('EXISTS', KEYS[1]) == 0 then return {-4, mark, st, 0} end
if not mark and ARGV[3] ~= '' and (exp == 0 or run(ARGV[3]) ~= run(st)) then
  return {-5, ARGV[3], st, 0}
end
local ev = string.match(st, ' (%S+)$')
if not mark and ev ~= '0' then return {-7, ev, st, 0} end
local birth = redis.call('GET', KEYS[3])
if ARGV[5] ~= '' and birth ~= ARGV[5] and (birth or exp == 0 or run(ARGV[3]) ~= run(st)) then
  return {-8, ARGV[5], birth or '', 0}
end
local cur = redis.pcall('GET', KEYS[1])
if type(cur) == 'string' and ARGV[6] ~= '0' then
  local c = string.gsub(cur, '^0+', '')
  local r = ARGV[6]
  if string.sub(cur, 1, 1) == '-' or (string.match(cur, '^%d+$') and
      (#c < #r or (#c == #r and c < r))) then
    return {-10, r, cur, 0}
  end
end
local v = redis.pcall('INCRBY', KEYS[1], ARGV[1])
if type(v) == 'table' then return v end
if v < 0 then return {-6, tostring(v), st, 0} end
if not birth then
  local t = redis.call('TIME')
  birth = st .. ' ' .. t[1] .. ' ' .. t[2]
end
if exp > 0 then
  redis.call('PEXPIRE', KEYS[1], exp)
  redis.call('SET', KEYS[2], st .. ' ' .. rid, 'PX', exp)
  redis.call('SET', KEYS[3], birth, 'PX', exp)
else
  redis.call('SET', KEYS[2], st .. ' ' .. rid)
  redis.call('SET', KEYS[3], birth)
end
return {v, st .. ' ' .. rid, birth, 0}
)lua";

/// `resume_above`: KEYS and ARGV[2] as the segment call, ARGV[1] the floor. Raises the counter
/// to the floor and marks it with the server's memory. Answers {the counter (a string)} or
/// {-1, policy}.
inline const std::string redis_resume_script = std::string(redis_state_lua) + R"lua(
local pol, st = redis_state()
if string.sub(pol, 1, 8) == 'allkeys-' then return {-1, pol} end
st = st .. ' ' .. (string.match(redis.call('INFO', 'replication'), 'master_replid:(%w+)') or '?')
local v = redis.call('GET', KEYS[1]) or '0'
if not tonumber(v) or tonumber(v) < tonumber(ARGV[1]) then v = ARGV[1] end
local exp = tonumber(ARGV[2])
if exp > 0 then
  redis.call('SET', KEYS[1], v, 'PX', exp)
  redis.call('SET', KEYS[2], st, 'PX', exp)
else
  redis.call('SET', KEYS[1], v)
  redis.call('SET', KEYS[2], st)
end
return {v}
)lua";

/// What a Redis distributor remembers between calls.
struct redis_counter_memo {
  std::string mark;           // the mark of this distributor's last range ('' none yet)
  std::string birth;          // the counter's birth at this distributor's last range ('' none yet)
  std::uint64_t reached = 0;  // the end of that range (or of `resume_above`); 0: none
};

}  // namespace detail

/// A counter of a `redis_store`, with its own connection (opened on the first call).
/// A copy opens a connection of its own to the same counter.
///
/// `next_max_id(step)` is `INCRBY flakeid:{ns}:segment:<key> <step>` in a script that checks
/// the server and marks the counter (and `PEXPIRE` after `expire_after`; see the file comment).
/// Throws `segment_store_error` when the server cannot be reached within `connect_timeout`,
/// does not answer within `io_timeout`, refuses the command (the key holds no integer, the
/// counter would pass 2^63 - 1), or may evict or have lost the counter. Thread-safety: every
/// member may be called concurrently (calls on one distributor take turns on its connection).
class redis_distributor
    : public detail::server_distributor<redis_distributor, redis_options, detail::redis_connection,
                                        detail::redis_counter_memo> {
 public:
  /// Counter `key` on the server of `server` (address, login, db, TLS; its timeouts, when set,
  /// take the place of those in `options`). Does not connect. Throws `invalid_option_error`
  /// for a bad namespace, timeout, an empty key, or TLS asked for and not built in.
  redis_distributor(redis_options server, std::string key, store_options options = {})
      : server_distributor(std::move(server), std::move(key), std::move(options)),
        redis_key_("flakeid:{" + options_.name_space + "}:segment:" + key_),
        mark_key_("flakeid:{" + options_.name_space + "}:segment-mark:" + key_),
        birth_key_("flakeid:{" + options_.name_space + "}:segment-birth:" + key_) {}

  /// Counter `key` on the server at `address`: a `redis://`, `rediss://` or `unix://` URI, or
  /// `host[:port]` (see `redis_options::parse`).
  redis_distributor(const std::string& address, std::string key, store_options options = {})
      : redis_distributor(redis_options::parse(address), std::move(key), std::move(options)) {}

  /// Adds `step` to the counter and returns its new value: one script that checks the server
  /// (see the file comment), runs `INCRBY` (and `PEXPIRE` after `expire_after`) and marks the
  /// counter with the server's run id and `evicted_keys`. Throws `segment_store_error` also when
  /// the server may evict the counter, or may have lost ranges since the counter's last write.
  std::uint64_t next_max_id(std::uint64_t step) {
    const std::string what = "next_max_id(" + std::to_string(step) + ")";
    return call(what, [&] {
      reply r = segment_reply(step, what, "");
      if (r->element[0]->integer == -3 && r->element[3]->integer == 1 && logs_every_write())
        r = segment_reply(step, what, text(r->element[1]));
      const long long v = r->element[0]->integer;
      if (v < 0) refuse(v, text(r->element[1]), text(r->element[2]));
      s_->memo.mark = text(r->element[1]);
      s_->memo.birth = text(r->element[2]);
      s_->memo.reached = static_cast<std::uint64_t>(v);
      return s_->memo.reached;
    });
  }

  /// For an operator, after a refusal for a server that may have lost ranges (or evicted
  /// keys): raises the counter to at least `highest_used` (the highest number handed out, as
  /// found in the data) and marks it with the server's present memory; the next ranges start
  /// above it. Throws as `next_max_id`.
  std::uint64_t resume_above(std::uint64_t highest_used) {
    const std::string what = "resume_above(" + std::to_string(highest_used) + ")";
    return call(what, [&] {
      reply r = s_->conn.command({"EVAL", detail::redis_resume_script, "2", redis_key_, mark_key_,
                                  std::to_string(highest_used), std::to_string(idle_ms_)});
      if (r->type != REDIS_REPLY_ARRAY || r->elements == 0)
        throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
      if (r->elements == 2) refuse(-1, text(r->element[1]), "");
      s_->memo.mark.clear();
      s_->memo.birth.clear();
      s_->memo.reached = counter(text(r->element[0]));
      return s_->memo.reached;
    });
  }

  /// The counter's value (0 when the key does not exist). Throws as `next_max_id`.
  [[nodiscard]] std::uint64_t current() {
    return call("GET", [&]() -> std::uint64_t {
      reply r = s_->conn.command({"GET", redis_key_});
      return r->type == REDIS_REPLY_NIL ? 0 : counter(text(r.get()));
    });
  }

  /// The Redis key that holds the counter: `flakeid:{ns}:segment:<key>`.
  [[nodiscard]] const std::string& redis_key() const noexcept { return redis_key_; }

 private:
  using reply = detail::redis_reply;

  static std::string text(const redisReply* r) {
    return r->type == REDIS_REPLY_STRING ? std::string(r->str, r->len) : std::string();
  }

  /// The counter in `value`; throws when it holds none.
  std::uint64_t counter(const std::string& value) const {
    const auto v = detail::parse_decimal<std::uint64_t>(value);
    if (!v) throw segment_store_error(name_, key_, "the key " + redis_key_ + " holds no counter");
    return *v;
  }

  /// One segment script (see `redis_segment_script`), with `replace` a mark a durable server
  /// may replace. Called with the mutex held.
  reply segment_reply(std::uint64_t step, const std::string& what, const std::string& replace) {
    reply r =
        s_->conn.command({"EVAL", detail::redis_segment_script, "3", redis_key_, mark_key_,
                          birth_key_, std::to_string(step), std::to_string(idle_ms_), s_->memo.mark,
                          replace, s_->memo.birth, std::to_string(s_->memo.reached)});
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 4 ||
        r->element[0]->type != REDIS_REPLY_INTEGER || r->element[3]->type != REDIS_REPLY_INTEGER)
      throw segment_store_error(name_, key_, what + ": unexpected answer from the server");
    return r;
  }

  /// Whether the server writes every write to its append-only file before answering
  /// (`appendfsync always`; CONFIG GET, which may be renamed away: then not known, so no).
  bool logs_every_write() {
    try {
      reply r = s_->conn.command({"CONFIG", "GET", "appendfsync"});
      return r->type == REDIS_REPLY_ARRAY && r->elements == 2 && text(r->element[1]) == "always";
    } catch (const detail::store_connection_error&) {
      return false;
    }
  }

  /// "run <id>, evicted_keys <n>" for a mark "<id> <n>" (and its replication id, when
  /// `with_replid`, for a mark "<id> <n> <replid>").
  static std::string memory_of(const std::string& mark, bool with_replid = false) {
    const auto sp = mark.find(' ');
    if (sp == std::string::npos) return "run " + mark;
    const auto sp2 = mark.find(' ', sp + 1);
    std::string out = "run " + mark.substr(0, sp) + ", evicted_keys " +
                      mark.substr(sp + 1, sp2 == std::string::npos ? sp2 : sp2 - sp - 1);
    if (with_replid && sp2 != std::string::npos) out += ", master_replid " + mark.substr(sp2 + 1);
    return out;
  }

  /// Throws for an answer `code` < 0 of the segment script.
  [[noreturn]] void refuse(long long code, const std::string& seen, const std::string& now) const {
    const std::string lost =
        ": it may have lost ranges it handed out; find the highest number "
        "in use and call resume_above(it)";
    std::string why;
    if (code == -1) {
      why = "maxmemory-policy " + seen +
            " may evict the counter: counters need "
            "maxmemory-policy noeviction or a volatile-* policy";
    } else if (code == -2) {
      why = "maxmemory-policy " + seen +
            " may evict the counter, which expires "
            "(expire_after): it needs maxmemory-policy noeviction";
    } else if (code == -3) {
      why = "the counter was last written at server " + memory_of(seen) + " and the server is " +
            "now at " + memory_of(now) + " (restarted without appendfsync always or failed " +
            "over since)" + lost;
    } else if (code == -4) {
      why = "the counter " + redis_key_ + " is gone while its mark " + mark_key_ +
            " remains (evicted or deleted)" + lost;
    } else if (code == -6) {
      why = "the counter " + redis_key_ + " holds " + seen + ", below 0: it was not written by " +
            "flakeid";
    } else if (code == -9) {
      why = "the counter was last written at server " + memory_of(seen, true) +
            " and the server is now at " + memory_of(now, true) + ": it took over another " +
            "server's data since (it was a replica, second_repl_offset is set)" + lost;
    } else if (code == -10) {
      why = detail::gone_back_text(seen, now,
                                   "the counter was set or restored by hand (RESTORE of an older "
                                   "dump, SET), or the server lost writes");
    } else if (code == -8) {
      why = detail::made_again_text("at server " + seen, now, "the server lost it");
    } else if (code == -7) {
      why = "the counter has no mark on a server that has evicted keys (evicted_keys " + seen +
            ")" + lost;
    } else {
      why = "the counter's mark " + mark_key_ + " is gone since this distributor's last range " +
            "at server " + memory_of(seen) + " (now " + memory_of(now) + ")" + lost;
    }
    throw segment_store_error(name_, key_, why);
  }

  std::string redis_key_;
  std::string mark_key_;   // the server's memory at the counter's last write
  std::string birth_key_;  // the server and its time when the counter was made
};

/// Worker-id leases and segment counters in one Redis namespace: the two protocols over one
/// server (see the file comment). Cheap to copy; holds no connection itself: each lease and
/// each distributor has its own.
///
///     flakeid::redis_store store{"cache.internal:6379", {.name_space = "shop"}};
///     auto lease = store.lease();
///     flakeid::classic_snowflake<> gen{lease};
///     flakeid::segment_chain_generator ids{store.distributor("orders")};
/// The machine ids a `redis_store` lease takes (`lease(options, keys)`).
enum class redis_keys {
  flakeid,  ///< `flakeid:{<namespace>}:...` (`lease(options)`)
  cosid,    ///< CosId's `cosid:{<namespace>}:...`, beside CosId's Redis machine-id distributor
};

class redis_store
    : public detail::server_store<redis_options, redis_distributor, detail::redis_lease_store> {
 public:
  /// The server of `server` (address, login, db, TLS) under `options.name_space`; the
  /// server's own timeouts, when set, take the place of those in `options`. Does not connect.
  /// Throws `invalid_option_error` for a bad namespace or timeout, or TLS asked for and not
  /// built in.
  explicit redis_store(redis_options server, store_options options = {})
      : server_store(std::move(server), std::move(options), "redis store") {}
  /// The server at `address`: a `redis://`, `rediss://` or `unix://` URI, or `host[:port]` (see
  /// `redis_options::parse`, which throws `invalid_option_error`).
  explicit redis_store(const std::string& address, store_options options = {})
      : redis_store(redis_options::parse(address), std::move(options)) {}
  /// Same as the `std::string` form.
  explicit redis_store(const char* address, store_options options = {})
      : redis_store(std::string(address), std::move(options)) {}

  using server_store::lease;
  /// A lease on a worker id in `keys`' machine ids: `redis_keys::flakeid`, as `lease(o)`;
  /// `redis_keys::cosid`, CosId's keys of the store's namespace, beside the CosId services that
  /// distribute them (see the file comment: `ttl` must be their safe-guard duration). Throws as
  /// `lease`'s constructor.
  [[nodiscard]] flakeid::lease lease(lease_options o, redis_keys keys) const {
    if (keys == redis_keys::flakeid) return lease(std::move(o));
    o = detail::lease_options_for_store(std::move(o), options_);
    return {std::make_unique<detail::redis_cosid_machine_store>(address_, o), o};
  }

  /// Where the server is: `redis host:port` (see `redis_options::where`; no password).
  [[nodiscard]] std::string where() const { return address_.where(); }
  /// The server's options (they hold the password: do not log them).
  [[nodiscard]] const redis_options& server() const noexcept { return address_; }
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
