// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file lease_store.hpp
/// The contract between the lease engine (`lease`, lease.hpp) and a store: the `lease_store`
/// interface (claim, renew, release), what a claim asks and answers (`claim_request`,
/// `lease_claim`), the lease's options and events, and the time type every store records.
/// A store implements `lease_store`; users meet these types through `lease_options` and
/// `lease_event`.

#include <unistd.h>
#if defined(__APPLE__)
#include <sys/random.h>  // getentropy
#endif

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "clock.hpp"
#include "detail/callback.hpp"
#include "detail/server_store.hpp"
#include "errors.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// A moment as the lease layer records it: Unix time in milliseconds, read from the clock the
/// generator mints with. "None" (an id never used, a store that lost nothing) is an empty
/// `std::optional<lease_time>`.
using lease_time = std::chrono::sys_time<std::chrono::milliseconds>;

/// What a lease reports to `lease_options::on_event` (from its renewal thread).
enum class lease_event {
  acquired,        ///< an id was claimed
  renew_failed,    ///< a renewal could not be confirmed (the detail says why); minting goes on
                   ///< until the deadline
  suspended,       ///< the deadline passed unconfirmed: the generator refuses
  resumed,         ///< the same id is held again: the generator mints again
  lost,            ///< the id is no longer this lease's (someone else took it, or the store
                   ///< lost its record of it): the lease stays down for good
  released,        ///< released at shutdown
  release_failed,  ///< the release could not be confirmed (the lease then just expires)
  waiting          ///< `acquire` waits over a second before the id may mint (the detail says
                   ///< how long and why: the previous holder's deadline, or a store that may
                   ///< have lost its records)
};

/// The name of an event, for logs.
[[nodiscard]] constexpr std::string_view to_string(lease_event e) noexcept {
  switch (e) {
    case lease_event::acquired: return "acquired";
    case lease_event::renew_failed: return "renew_failed";
    case lease_event::suspended: return "suspended";
    case lease_event::resumed: return "resumed";
    case lease_event::lost: return "lost";
    case lease_event::released: return "released";
    case lease_event::release_failed: return "release_failed";
    case lease_event::waiting: return "waiting";
  }
  return "?";
}

/// Settings shared by every lease store.
struct lease_options {
  /// Several applications share one store under different namespaces (letters, digits, '_',
  /// '-'; PostgreSQL folds it into a table name).
  std::string name_space = "default";
  /// How long a lease lasts without renewal. Renewal runs every `ttl / 3`.
  std::chrono::milliseconds ttl{10'000};
  /// How long an expired or released id stays unused before it is handed out again: covers
  /// clock-rate differences and a holder that has not noticed its loss yet.
  std::chrono::milliseconds safe_guard{2'000};
  /// The holder's deadline lies this long before its lease expires in the store, measured
  /// from the send time of the renewal (0: ttl / 5).
  std::chrono::milliseconds margin{0};
  /// Bound on connecting to a server (and on opening a lock file's directory).
  std::chrono::milliseconds connect_timeout{2'000};
  /// Bound on one request to the store (0: ttl / 5, at least 10 ms). ZooKeeper answers within
  /// its session's own timeout and instead retries a claim or release whose answer was lost
  /// until this much time has passed (0: 2 s).
  std::chrono::milliseconds io_timeout{0};
  /// Of several ids, a claim prefers those whose wait (the previous holder's deadline plus
  /// `safe_guard`, ahead of this process's clock) is at most this long. When there is none, it
  /// takes one whose deadline lies at most this far ahead of the clock (released a moment ago)
  /// and waits for it and then `safe_guard`; an id recorded further ahead is skipped. With a
  /// single id to take (`max_ids` 1), a deadline further ahead makes `acquire` throw
  /// `clock_backwards_error`.
  std::chrono::milliseconds max_wait{1'000};
  /// Claim only ids below this (0: every id the layout's datacenter and worker bits can hold).
  std::uint64_t max_ids = 0;
  /// When every id is held, how long `acquire` keeps trying for one to come free (released, or
  /// expired plus `safe_guard`) before its "no free worker id" error, on this lease's clock.
  /// 0: fail at once.
  std::chrono::milliseconds wait_for_id{0};
  /// The largest difference the lease accepts between its clock and its store's own clock
  /// (Redis's `TIME`, the SQL server's clock, the time ZooKeeper stamps a write with, the host's
  /// clock for the file store; the memory store has none), compared at every claim and renewal
  /// (0: `safe_guard / 2`). Holders that each lie within it of the store lie within `safe_guard`
  /// of each other, the skew `safe_guard` covers, also when the store forgets its records. A
  /// clock further off takes no id (`clock_skew_error`) and confirms no renewal, so its
  /// generator stops at its deadline and mints again once the clock is back. `skew_unchecked`
  /// compares nothing (nor does the default with a `safe_guard` under 2 ms).
  std::chrono::milliseconds max_skew{0};
  /// `max_skew` that turns the comparison off.
  static constexpr std::chrono::milliseconds skew_unchecked = std::chrono::milliseconds::max();
  /// This process's stable name (a pod name, `host:port`; 1 to 128 letters, digits, '.', '_',
  /// '-', ':' or '@'), recorded with the id it holds; empty: none. A lease that names an
  /// instance takes that instance's id again: at once when it was released (minting above its
  /// last timestamp plus `safe_guard`), and when its holder died as soon as the store lets it go
  /// (at most `ttl + safe_guard` after the last renewal, about as long as the new holder would
  /// wait for the old deadline anyway). A holder of the same name that is still alive (it renews
  /// while this lease watches, or the store knows it lives) makes `acquire` throw
  /// `instance_in_use_error`. An instance without an id yet claims as usual and records its name.
  std::string instance{};
  /// How long an id stays its instance's after the instance's last use of it (its holder's
  /// last deadline, or the exact last timestamp of a release): until then, claims without that
  /// instance (or with another one) pass it by, as CosId passes by a stable instance's machine
  /// id until its safe-guard duration has passed. 0 (the default): an instance's released id is
  /// free to every claimer after `safe_guard`, like any other. Set it alike in every process of
  /// a namespace: it is the claimers' rule. `instance_kept_forever`: never passed on. In CosId's
  /// registries only 0 and `ttl` (CosId's `stable=true`: a release keeps the instance's record).
  std::chrono::milliseconds instance_idle{0};
  /// `instance_idle` that keeps an instance's id for it for good (until the store's record of
  /// it is deleted).
  static constexpr std::chrono::milliseconds instance_kept_forever =
      std::chrono::milliseconds::max();
  /// Reads the time the generator mints with (empty: the system clock).
  detail::callback<lease_time()> now{};
  /// Waits on that clock (empty: `std::this_thread::sleep_for`).
  detail::callback<void(std::chrono::milliseconds)> sleep{};
  /// Called from the renewal thread (and from `acquire`/`release`) on every change.
  /// Messages name the store's host, port and namespace, never a password.
  detail::callback<void(lease_event, const std::string&)> on_event{};

  /// Reads and waits on the generator's clock `c` (a `manual_clock` in tests: waits then move
  /// it instead of sleeping). A copy of `c` is kept.
  template <clock_source C>
  lease_options& use_clock(C c) {
    now = [c] { return std::chrono::time_point_cast<std::chrono::milliseconds>(c.now()); };
    sleep = [c](std::chrono::milliseconds d) { detail::clock_sleep(c, d); };
    return *this;
  }
};

/// What a claim asks of a store.
struct claim_request {
  /// Claim an id in `[0, count)`.
  std::uint64_t count = 0;
  /// The claimer's token.
  std::string holder{};
  /// The claimer's clock now.
  lease_time now{};
  /// The claimer's first deadline: record it with the id before answering.
  lease_time deadline{};
  /// Ids recorded at or below this (now - safe_guard) need no wait: prefer them.
  lease_time settled = lease_time::min();
  /// Skip ids whose recorded deadline lies above this: they were used too far ahead of this
  /// clock. `lease_time::max()` when `count` is 1: with no other id to take, nothing is skipped
  /// and the lease refuses a record too far ahead with `clock_backwards_error`.
  lease_time skip_above = lease_time::max();
  /// The claimer's instance (`lease_options::instance`); empty: none. The store first looks for
  /// the id recorded for this instance. Free (released or expired), it is taken whatever its
  /// deadline (`settled` and `skip_above` do not apply) and `lease_claim::own_instance` is set.
  /// Held by another holder, nothing is claimed and the answer has `held_by_instance`. When no
  /// id is recorded for it, the claim goes as usual and records the instance with the id taken
  /// (an id has at most one instance; taking another instance's free id moves the record).
  std::string instance{};
  /// Ids whose record names an instance other than `instance` (or any instance, when `instance`
  /// is empty) and whose recorded deadline lies above this are kept for that instance: pass
  /// them by (`lease_options::instance_idle`). `lease_time::max()`: none are kept;
  /// `lease_time::min()`: all are.
  lease_time kept_after = lease_time::max();
};

/// The id a store handed out, with what the claimer must wait for.
struct lease_claim {
  std::uint64_t id = 0;
  /// The deadline (or exact last timestamp, after a release) recorded by the previous holders
  /// of the id; empty: never used.
  std::optional<lease_time> last{};
  /// When the store may have lost its memory of this namespace (restarted without persistence,
  /// a file deleted); empty: not recently. The claimer then waits until this plus
  /// `ttl + safe_guard`.
  std::optional<lease_time> lost_memory_at{};
  /// The id is the one recorded for the claim's instance (taken whatever its deadline).
  bool own_instance = false;
  /// The claim's instance is recorded on `id`, which another holder holds: nothing was
  /// claimed. `last` is that holder's recorded deadline; its renewals raise it.
  bool held_by_instance = false;
  /// With `held_by_instance`: the store knows that holder is alive (a `flock` held, a holder in
  /// this process), so the claimer refuses at once instead of watching for a renewal.
  bool holder_alive = false;
};

/// The answer to a renewal.
enum class renewal { held, taken };

/// A lease store: one atomic step each to claim, renew and release an id. Every call may throw
/// `lease_store_error` (unreachable, timed out); the engine retries renewals until the lease
/// is lost. Calls come from one thread at a time.
///
/// A store implements the three steps as `do_claim`, `do_renew` and `do_release`; the public
/// calls run them and turn a failed connection (`detail::store_connection_error`, thrown by the
/// server stores' connections) into `lease_store_error` once per call.
class lease_store {
 public:
  virtual ~lease_store() = default;
  /// The store and its address, for messages: "redis 127.0.0.1:6379" (never a password).
  [[nodiscard]] virtual std::string where() const = 0;
  /// Claims a free id for `r.holder` (see `claim_request`), recording `r.deadline`.
  /// Prefers ids whose previous deadline has passed. Returns nothing when no id can be had.
  std::optional<lease_claim> claim(const claim_request& r) {
    return detail::lease_call([&] { return do_claim(r); });
  }
  /// Extends `holder`'s lease on `id` and records `max(recorded, deadline)`, before answering
  /// `held`. Answers `taken` when the id is no longer `holder`'s, also when the store's table
  /// is gone (`detail::missing_table_error`: dropped, or a server on an empty data directory),
  /// and the holder's record with it.
  renewal renew(std::uint64_t id, const std::string& holder, lease_time deadline) {
    return detail::lease_call([&] {
      try {
        return do_renew(id, holder, deadline);
      } catch (const detail::missing_table_error&) {
        return renewal::taken;
      }
    });
  }
  /// Records `last` (every ID of the holder lies at or below it) and releases the id; it is
  /// handed out again after `safe_guard`.
  void release(std::uint64_t id, const std::string& holder, lease_time last) {
    detail::lease_call([&] { do_release(id, holder, last); });
  }
  /// The store's own clock now, read on the store (a server's clock, the host's), or nothing
  /// for a store with no clock of its own (the memory store). The lease compares its clock
  /// with it (`lease_options::max_skew`).
  std::optional<lease_time> clock() {
    return detail::lease_call([&] { return do_clock(); });
  }
  /// Called in a forked child instead of the destructor's usual work: drop what is shared with
  /// the parent (sockets, lock files) without telling the server or unlocking anything.
  virtual void abandon_after_fork() noexcept {}

 protected:
  /// `claim`, as the store does it.
  virtual std::optional<lease_claim> do_claim(const claim_request& r) = 0;
  /// `renew`, as the store does it.
  virtual renewal do_renew(std::uint64_t id, const std::string& holder, lease_time deadline) = 0;
  /// `release`, as the store does it.
  virtual void do_release(std::uint64_t id, const std::string& holder, lease_time last) = 0;
  /// `clock`, as the store does it (by default: no clock of its own).
  virtual std::optional<lease_time> do_clock() { return std::nullopt; }
};

class lease;

namespace detail {

/// `claim_request::kept_after` for a claim at `now` with `lease_options::instance_idle` `idle`:
/// `now - idle`, `lease_time::max()` for 0 (nothing kept), `lease_time::min()` where `now - idle`
/// lies below every time (kept for good).
[[nodiscard]] constexpr lease_time kept_after(lease_time now,
                                              std::chrono::milliseconds idle) noexcept {
  if (idle.count() <= 0) return lease_time::max();
  if (idle == std::chrono::milliseconds::max()) return lease_time::min();
  const std::int64_t n = now.time_since_epoch().count();
  constexpr std::int64_t lowest = lease_time::min().time_since_epoch().count();
  if (n < 0 && idle.count() >= n - lowest) return lease_time::min();  // else no overflow
  return now - idle;
}

/// Whether claim `r` must pass by an id whose record names instance `recorded` (empty: none)
/// with the deadline `last`: it is kept for another instance (`claim_request::kept_after`).
[[nodiscard]] inline bool kept_for_another(std::string_view recorded,
                                           std::optional<lease_time> last,
                                           const claim_request& r) noexcept {
  return last && *last > r.kept_after && !recorded.empty() && recorded != r.instance;
}

/// What a lease store over CosId's machine-id registries takes from the lease's options, in
/// ms: `ttl` (CosId's safe-guard duration), the hold (`ttl - margin`: a deadline lies this long
/// after its renewal's send time), `ttl + safe_guard`, and whether its releases are stable
/// (`instance_idle` equal to `ttl` with an instance: CosId's `stable=true`, the instance's
/// record stays on its id). `instance_idle` takes 0 or `ttl` only: CosId's services keep a
/// stable instance's id for the safe-guard duration, no more and no less.
struct cosid_lease_times {
  std::int64_t ttl_ms;
  std::int64_t hold_ms;
  std::int64_t lost_ms;
  bool stable;

  explicit cosid_lease_times(const lease_options& o)
      : ttl_ms(o.ttl.count()),
        hold_ms((o.ttl - (o.margin.count() > 0 ? o.margin : o.ttl / 5)).count()),
        lost_ms((o.ttl + o.safe_guard).count()),
        stable(o.instance_idle.count() != 0 && !o.instance.empty()) {
    if (o.instance_idle.count() != 0 && o.instance_idle != o.ttl)
      throw invalid_option_error(
          "flakeid: lease instance_idle of " + std::to_string(o.instance_idle.count()) +
          " ms cannot be kept in CosId's machine-id registries: use 0 (a release frees the id, "
          "as CosId's instances that are not stable) or the ttl, " +
          std::to_string(o.ttl.count()) +
          " ms (stable: the id stays the instance's for CosId's safe-guard duration)");
  }
};

/// Whether `name` can be a lease's instance: 1 to 128 letters, digits, '.', '_', '-', ':' or '@'.
[[nodiscard]] constexpr bool valid_instance(std::string_view name) noexcept {
  return !name.empty() && name.size() <= 128 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-' || c == ':' || c == '@';
  });
}

/// 64 bits from the system's random source (`getentropy`), or, where it fails, from the clocks,
/// the process id and an address: a holder token must differ from every other holder's.
inline std::uint64_t holder_token_bits() noexcept {
  std::uint64_t r = 0;
  if (::getentropy(&r, sizeof r) == 0) return r;
  const auto mix = [&r](std::uint64_t v) { r ^= v + 0x9e3779b97f4a7c15U + (r << 6) + (r >> 2); };
  mix(static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  mix(static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()));
  mix(static_cast<std::uint64_t>(::getpid()));
  mix(reinterpret_cast<std::uintptr_t>(&r));
  return r;
}

/// A token that names this holder in the store: host, pid and 64 random bits.
inline std::string make_holder_token() {
  char host[128] = {};
  (void)::gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" +
         std::to_string(holder_token_bits());
}

/// The options of a lease that store options `s` make: the store's namespace and timeouts.
/// Throws `invalid_option_error` when `o` names another namespace than the store's.
inline lease_options lease_options_for_store(lease_options o, const store_options& s) {
  if (o.name_space != "default" && o.name_space != s.name_space)
    throw invalid_option_error("flakeid: lease namespace '" + o.name_space +
                               "' differs from the store's namespace '" + s.name_space +
                               "': set it in the store's options");
  o.name_space = s.name_space;
  o.connect_timeout = s.connect_timeout;
  if (s.io_timeout.count() > 0) o.io_timeout = s.io_timeout;
  return o;
}

/// Unix milliseconds of a lease time, the unit every store records.
[[nodiscard]] constexpr std::int64_t unix_ms_of(lease_time t) noexcept {
  return t.time_since_epoch().count();
}
/// The lease time of `ms` Unix milliseconds.
[[nodiscard]] constexpr lease_time lease_time_of(std::int64_t ms) noexcept {
  return lease_time{std::chrono::milliseconds{ms}};
}
/// `unix_ms_of(t)` in decimal, as the server stores send it.
inline std::string unix_ms_text(lease_time t) { return std::to_string(unix_ms_of(t)); }
/// A stored number where INT64_MIN means "none" (the fence's and the stores' encoding).
[[nodiscard]] constexpr std::optional<lease_time> lease_time_or_none(std::int64_t ms) noexcept {
  if (ms == INT64_MIN) return std::nullopt;
  return lease_time_of(ms);
}
/// The reverse of `lease_time_or_none`.
[[nodiscard]] constexpr std::int64_t unix_ms_or_min(const std::optional<lease_time>& t) noexcept {
  return t ? unix_ms_of(*t) : INT64_MIN;
}

inline lease_time system_lease_time() noexcept {
  return std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
}

/// The clock of a lease with options `o`: `o.now`, else the system clock. Stores that keep
/// time themselves (the memory store) read this one too.
inline callback<lease_time()> lease_clock(const lease_options& o) {
  if (o.now) return o.now;
  return &system_lease_time;
}

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
