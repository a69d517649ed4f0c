// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file lease.hpp
/// Worker-id leases: a process holds one worker id (or datacenter and worker) for as long as it
/// keeps renewing, and a generator built on the lease stops minting when it cannot confirm it.
///
///   lease              the engine every store shares: claim, background renewal, the fence,
///                      the recorded last timestamp, release. Models `worker_id_source`.
///   lease_store        the small interface a store implements (claim, renew, release).
///
/// Every store makes leases with `store.lease(options)`:
///   memory_store       one process (flakeid/store/memory.hpp).
///   file_store         host-local lock files held with flock (flakeid/store/file.hpp).
///   redis_store        Redis (flakeid/adapters/redis.hpp, target flakeid::redis).
///   postgres_store     PostgreSQL (flakeid/adapters/postgres.hpp, target flakeid::postgres).
///   clock_guard_file   no store, a fixed id: remembers the last minted timestamp across
///                      restarts (flakeid/clock_guard.hpp).
///
/// The contract every store keeps:
/// - Two holders never hold the same id: a claim is one atomic step in the store.
/// - The store records, for each id, a *deadline*: every ID its holder minted has a timestamp
///   strictly below it. A claim records the claimer's first deadline, each renewal the next
///   one, before the holder adopts it; a release lowers it to the exact last timestamp.
/// - A claim returns the previous holder's deadline, and the new holder mints only timestamps
///   above it plus `safe_guard` (which covers clock skew between hosts). A small gap is waited
///   for; an id recorded more than `max_wait` ahead of this clock is skipped.
/// - A store that may have lost its memory (a server restarted without persistence, a lease
///   file deleted) says so with `lost_memory_at`: then the claimer also waits one `ttl` plus
///   `safe_guard` from that moment, long enough for any holder it forgot to reach its deadline.
/// - Stable instances (`lease_options::instance`): the store records, with each id, the instance
///   of the holder that claimed it last (or none). A claim that names an instance takes the id
///   recorded for it when that id is free (released or expired), however recent its deadline;
///   when another holder holds it, the claim takes nothing and says so, and the engine watches:
///   a renewal (the recorded deadline rises) means a live twin and `instance_in_use_error`, the
///   record running out means a dead one, whose id it then takes. One claim step finds or
///   records an instance, so two claimers of one name never record it on two ids.
///
/// The fence is a time fence (`lease_fence`): the generator compares the timestamp of every ID
/// with the holder's deadline, on the very clock reading that goes into the ID. The deadline
/// is `send time of the last confirmed renewal + ttl - margin`, in the generator's clock. No
/// thread has to run for the fence to hold: a process paused for any length of time resumes
/// past its deadline and gets `lease_lost_error`, not IDs. One background thread renews every
/// `ttl / 3` and reports events. A forked child never mints on its parent's lease.
///
///     auto lease = flakeid::file_store{flakeid::default_lease_directory()}.lease();
///     flakeid::classic_snowflake<> gen{lease};  // declared after the lease: it outlives gen
///     std::uint64_t id = gen.next_id();

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "clock.hpp"
#include "detail/fork_guard.hpp"
#include "detail/server_store.hpp"
#include "errors.hpp"
#include "layout.hpp"
#include "version.hpp"
#include "worker_id.hpp"

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
  /// This process's stable name (a pod name, `host:port`; 1 to 128 letters, digits, '.', '_',
  /// '-', ':' or '@'), recorded with the id it holds; empty: none. A lease that names an
  /// instance takes that instance's id again: at once when it was released (minting above its
  /// last timestamp plus `safe_guard`), and when its holder died as soon as the store lets it go
  /// (at most `ttl + safe_guard` after the last renewal, about as long as the new holder would
  /// wait for the old deadline anyway). A holder of the same name that is still alive (it renews
  /// while this lease watches, or the store knows it lives) makes `acquire` throw
  /// `instance_in_use_error`. An instance without an id yet claims as usual and records its name.
  std::string instance{};
  /// Reads the time the generator mints with (empty: the system clock).
  std::function<lease_time()> now{};
  /// Waits on that clock (empty: `std::this_thread::sleep_for`).
  std::function<void(std::chrono::milliseconds)> sleep{};
  /// Called from the renewal thread (and from `acquire`/`release`) on every change.
  /// Messages name the store's host, port and namespace, never a password.
  std::function<void(lease_event, const std::string&)> on_event{};

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
class lease_store {
 public:
  virtual ~lease_store() = default;
  /// The store and its address, for messages: "redis 127.0.0.1:6379" (never a password).
  [[nodiscard]] virtual std::string where() const = 0;
  /// Claims a free id for `r.holder` (see `claim_request`), recording `r.deadline`.
  /// Prefers ids whose previous deadline has passed. Returns nothing when no id can be had.
  virtual std::optional<lease_claim> claim(const claim_request& r) = 0;
  /// Extends `holder`'s lease on `id` and records `max(recorded, deadline)`, before answering
  /// `held`. Answers `taken` when the id is no longer `holder`'s.
  virtual renewal renew(std::uint64_t id, const std::string& holder, lease_time deadline) = 0;
  /// Records `last` (every ID of the holder lies at or below it) and releases the id; it is
  /// handed out again after `safe_guard`.
  virtual void release(std::uint64_t id, const std::string& holder, lease_time last) = 0;
  /// Called in a forked child instead of the destructor's usual work: drop what is shared with
  /// the parent (sockets, lock files) without telling the server or unlocking anything.
  virtual void abandon_after_fork() noexcept {}
};

class lease;

namespace detail {

/// Whether `name` can be a lease's instance: 1 to 128 letters, digits, '.', '_', '-', ':' or '@'.
[[nodiscard]] constexpr bool valid_instance(std::string_view name) noexcept {
  return !name.empty() && name.size() <= 128 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-' || c == ':' || c == '@';
  });
}

/// A token that names this holder in the store: host, pid and 64 random bits.
inline std::string make_holder_token() {
  char host[128] = {};
  (void)::gethostname(host, sizeof host - 1);
  std::random_device rd;
  const std::uint64_t r =
      (std::uint64_t{rd()} << 32) ^ rd() ^
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + std::to_string(r);
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
inline std::function<lease_time()> lease_clock(const lease_options& o) {
  if (o.now) return o.now;
  return &system_lease_time;
}

}  // namespace detail

/// The lease engine, shared by every store: claims an id, renews it in the background, keeps
/// the generator's time fence, and releases the id at destruction.
///
/// Models `worker_id_source`: `assign(layout)` claims an id below `2^(datacenter bits + worker
/// bits)` (or `max_ids`) and splits it into datacenter (high bits) and worker (low bits).
/// A lease serves one generator. Declare it before the generator, so that it outlives it; a
/// lease destroyed first releases the id and the generator then throws `lease_lost_error`.
///
/// Throws from `acquire`/`assign`: `worker_id_error` when no id can be had
/// ("flakeid: no free worker id in namespace orders: all 32 ids are leased ..."),
/// `lease_store_error` when the store cannot be reached within `connect_timeout`,
/// `clock_backwards_error` when the previous holder minted further ahead of this clock than
/// `max_wait`. Thread-safety: every member may be called from any thread.
class lease {
 public:
  lease(std::unique_ptr<lease_store> store, lease_options options)
      : store_(std::move(store)), opt_(std::move(options)), holder_(detail::make_holder_token()) {
    detail::check_namespace(opt_.name_space, "lease");
    detail::check_timeout("lease", "connect_timeout", opt_.connect_timeout,
                          std::chrono::milliseconds{1});
    detail::check_timeout("lease", "io_timeout", opt_.io_timeout, std::chrono::milliseconds{0});
    if (opt_.ttl.count() < 30)
      throw invalid_option_error("flakeid: lease ttl of " + std::to_string(opt_.ttl.count()) +
                                 " ms is too short: use at least 30 ms");
    if (opt_.safe_guard.count() < 0)
      throw invalid_option_error("flakeid: lease safe_guard of " +
                                 std::to_string(opt_.safe_guard.count()) +
                                 " ms is negative: use 0 or more");
    if (opt_.max_wait.count() < 0)
      throw invalid_option_error("flakeid: lease max_wait of " +
                                 std::to_string(opt_.max_wait.count()) +
                                 " ms is negative: use 0 or more");
    if (opt_.wait_for_id.count() < 0)
      throw invalid_option_error("flakeid: lease wait_for_id of " +
                                 std::to_string(opt_.wait_for_id.count()) +
                                 " ms is negative: use 0 or more");
    if (!opt_.instance.empty() && !detail::valid_instance(opt_.instance))
      throw invalid_option_error(
          "flakeid: lease instance '" + opt_.instance +
          "' is invalid: use 1 to 128 letters, digits, '.', '_', '-', ':' or '@'");
    if (opt_.margin.count() <= 0) opt_.margin = opt_.ttl / 5;
    if (opt_.margin >= opt_.ttl * 2 / 3)
      throw invalid_option_error("flakeid: lease margin of " + std::to_string(opt_.margin.count()) +
                                 " ms leaves no time to renew a " +
                                 std::to_string(opt_.ttl.count()) +
                                 " ms lease: use less than ttl * 2 / 3");
    opt_.now = detail::lease_clock(opt_);
    if (!opt_.sleep)
      opt_.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
    fence_->deadline_unix_ms.store(INT64_MIN, std::memory_order_relaxed);
  }

  lease(const lease&) = delete;
  lease& operator=(const lease&) = delete;

  /// Releases the id (recording the last timestamp minted).
  virtual ~lease() {
    release();
    if (born_.forked()) {
      // The parent's store objects (sockets, locks), renewal thread and the condition it waits
      // on are not this process's to close, join or destroy.
      store_->abandon_after_fork();
      (void)store_.release();  // NOLINT(bugprone-unused-return-value): left to the parent
      detail::forget_after_fork(renewer_);
      detail::forget_after_fork(cv_);
    }
  }

  /// Claims an id below `id_count` and starts renewing it; returns the id. Waits when the
  /// previous holder's deadline plus `safe_guard` (or a store's loss of memory plus `ttl +
  /// safe_guard`) is ahead of the clock, and returns only on a fence that is valid now. See the
  /// class comment for what it throws. A lease claims once: a second call throws
  /// `worker_id_error`.
  std::uint64_t acquire(std::uint64_t id_count) {
    if (born_.forked())
      detail::reject_worker("this lease was made before fork(): take a new lease in the child");
    std::unique_lock lk(m_);
    if (claimed_)
      detail::reject_worker("this lease already holds worker id " + std::to_string(id_) + " (" +
                            where() + ")");
    if (id_count == 0) detail::reject_worker("a lease needs at least one id to choose from");
    claim_request req;
    req.count = id_count;
    req.holder = holder_;
    req.instance = opt_.instance;
    std::optional<lease_claim> c;
    const lease_time give_up = opt_.now() + opt_.wait_for_id;
    instance_watch watch;
    for (;;) {
      req.now = opt_.now();
      req.deadline = req.now + (opt_.ttl - opt_.margin);
      req.settled = req.now - opt_.safe_guard;
      if (id_count > 1) req.skip_above = req.now + (opt_.max_wait - opt_.safe_guard);
      {
        std::lock_guard io(io_m_);
        c = store_->claim(req);
        if (!c && id_count > 1 && req.skip_above < req.now + opt_.max_wait) {
          // No id that needs a wait within max_wait: take one whose deadline lies at most
          // max_wait ahead (one let go a moment ago), and wait for it plus safe_guard.
          req.skip_above = req.now + opt_.max_wait;
          c = store_->claim(req);
        }
      }
      if (c && c->held_by_instance) {
        // The instance's id is held: wait for it to come free, unless its holder shows it lives.
        watch.check(*this, *c, req.now);
        lk.unlock();
        opt_.sleep(std::max(std::chrono::milliseconds{1}, (opt_.ttl + opt_.safe_guard) / 20));
        lk.lock();
        continue;
      }
      if (c || req.now >= give_up) break;
      // Every id is held: try again, each tenth of the time an id takes to come free.
      lk.unlock();
      opt_.sleep(std::clamp<std::chrono::milliseconds>(
          (opt_.ttl + opt_.safe_guard) / 10, std::chrono::milliseconds{1}, give_up - req.now));
      lk.lock();
      if (claimed_)
        detail::reject_worker("this lease already holds worker id " + std::to_string(id_) + " (" +
                              where() + ")");
    }
    if (!c && id_count == 1)
      detail::reject_worker("worker id 0 in namespace " + opt_.name_space +
                            " is held by another process, or was let go less than safe_guard (" +
                            std::to_string(opt_.safe_guard.count()) + " ms) ago (" + where() + ")");
    if (!c)
      detail::reject_worker(
          "no free worker id in namespace " + opt_.name_space + ": all " +
          std::to_string(id_count) +
          " ids are leased, or were used further ahead of this clock than max_wait (" +
          std::to_string(opt_.max_wait.count()) + " ms)" +
          (opt_.wait_for_id.count() > 0
               ? ", for wait_for_id (" + std::to_string(opt_.wait_for_id.count()) + " ms)"
               : std::string()) +
          " (" + where() + ")");
    id_ = c->id;
    previous_last_ = c->last;
    lost_memory_at_ = c->lost_memory_at;
    // Mint only above the previous holder's deadline plus the guard, and, when the store lost
    // its memory, above any deadline it forgot (an empty optional is below every time).
    std::optional<lease_time> after_record;
    std::optional<lease_time> after_loss;
    if (previous_last_) after_record = *previous_last_ + opt_.safe_guard;
    if (lost_memory_at_) after_loss = *lost_memory_at_ + opt_.ttl + opt_.safe_guard;
    not_after_ = std::max(after_record, after_loss);
    // How far the previous holder's record lies ahead of this clock: up to `max_wait` is waited
    // for (for the instance's own id, as long as its holder's last deadline can lie ahead), and
    // then `safe_guard`, whatever its length. (Of several ids, the claims skipped those whose
    // record lies further ahead.)
    const std::chrono::milliseconds ahead =
        previous_last_ ? *previous_last_ - opt_.now() : std::chrono::milliseconds{0};
    const std::chrono::milliseconds may_wait =
        c->own_instance ? opt_.max_wait + opt_.ttl : opt_.max_wait;
    if (ahead > may_wait) {
      try {
        std::lock_guard io(io_m_);
        store_->release(id_, holder_, *previous_last_);
      } catch (const std::exception&) {  // it expires on its own
      }
      throw clock_backwards_error(
          "flakeid: worker id " + std::to_string(id_) + " in namespace " + opt_.name_space +
              " was last used up to Unix ms " +
              std::to_string(detail::unix_ms_of(*previous_last_)) + ", " +
              std::to_string(ahead.count()) + " ms ahead of this clock; the lease waits up to " +
              std::to_string(may_wait.count()) + " ms for that, then safe_guard (" +
              std::to_string(opt_.safe_guard.count()) + " ms)",
          ahead);
    }
    claimed_ = true;
    deadline_ = req.deadline;
    fence_->deadline_unix_ms.store(detail::unix_ms_of(deadline_), std::memory_order_release);
    renewer_ = std::thread([this] { renew_loop(); });
    lk.unlock();
    // Wait for the clock to pass `not_after_` (the renewer keeps the claim alive meanwhile).
    // After a wait, renew at once: the generator starts on a deadline a full span ahead of the
    // first tick it may mint, however long the wait and whenever the renewer last ran.
    bool waited = false;
    announce_wait(after_record, after_loss);
    if (not_after_) {
      constexpr std::chrono::milliseconds tick{1};
      for (auto left = *not_after_ - opt_.now() + tick; left > std::chrono::milliseconds::zero();
           left = *not_after_ - opt_.now() + tick) {
        opt_.sleep(left);
        waited = true;
      }
    }
    for (int attempt = 0; std::exchange(waited, false) || !valid(); ++attempt) {
      lk.lock();
      if (lost_ || stop_)
        detail::reject_worker("worker id " + std::to_string(id_) + " was lost while waiting (" +
                              where() + ")");
      if (attempt == 3) {
        lk.unlock();
        release();
        throw lease_store_error("flakeid: worker id " + std::to_string(id_) +
                                " could not be confirmed after waiting for the clock (" + where() +
                                ")");
      }
      renew_now_ = true;
      cv_.notify_all();
      cv_.wait(lk, [&] { return !renew_now_ || stop_; });
      lk.unlock();
    }
    notify(lease_event::acquired,
           "worker id " + std::to_string(id_) + instance_text() + " (" + where() + ")");
    return id_;
  }

  /// `worker_id_source`: claims an id for a generator of layout `l`.
  [[nodiscard]] worker_assignment assign(const flakeid::layout& l) {
    // At most 2^63 ids: acquire counts them in 64 bits.
    std::uint64_t count = std::min(detail::last_node(l), std::uint64_t{INT64_MAX}) + 1;
    if (opt_.max_ids != 0) count = std::min(count, opt_.max_ids);
    const std::uint64_t n = acquire(count);
    worker_assignment a;
    a.node = detail::node_of(l, n);
    a.not_after_unix_ms = detail::unix_ms_or_min(not_after());
    a.fence = fence_;
    a.source = "lease " + where() + " namespace " + opt_.name_space + " id " + std::to_string(n) +
               (opt_.instance.empty() ? std::string() : " instance " + opt_.instance);
    return a;
  }

  /// Stops the generator, records the last timestamp and releases the id. Idempotent; errors
  /// go to `on_event` (the lease then expires on its own). A renewal in flight cannot bring
  /// the fence back.
  void release() noexcept {
    if (born_.forked()) return;  // the renewal thread and the locks belong to the parent
    {
      std::lock_guard lk(m_);
      if (!claimed_ || stop_) return;
      stop_ = true;
      fence_->deadline_unix_ms.store(INT64_MIN, std::memory_order_seq_cst);
    }
    cv_.notify_all();
    if (renewer_.joinable()) renewer_.join();
    if (lost_) return;
    // Every ID lies below the confirmed deadline; a call still in flight read its clock before
    // the fence dropped, so its tick is at most the clock now plus the generator's lead.
    const std::int64_t last = std::min(
        detail::unix_ms_of(deadline_) - 1,
        std::max(fence_->last_unix_ms.load(std::memory_order_acquire),
                 detail::unix_ms_of(opt_.now()) + fence_->lead_ms.load(std::memory_order_acquire)));
    try {
      std::lock_guard io(io_m_);
      store_->release(id_, holder_, detail::lease_time_of(last));
      notify(lease_event::released, "worker id " + std::to_string(id_));
    } catch (const std::exception& e) {
      notify(lease_event::release_failed, e.what());
    }
  }

  /// The id held (valid after `acquire`).
  [[nodiscard]] std::uint64_t id() const {
    if (born_.forked()) return id_;
    std::lock_guard lk(m_);
    return id_;
  }
  /// Whether the generator may mint now: the clock is below the confirmed deadline.
  [[nodiscard]] bool valid() const {
    if (born_.forked()) return false;
    return detail::unix_ms_of(opt_.now()) <
           fence_->deadline_unix_ms.load(std::memory_order_acquire);
  }
  /// The confirmed deadline: every ID of the generator lies below it. Empty before `acquire`
  /// and after release or loss.
  [[nodiscard]] std::optional<lease_time> deadline() const noexcept {
    if (born_.forked()) return std::nullopt;
    return detail::lease_time_or_none(fence_->deadline_unix_ms.load(std::memory_order_acquire));
  }
  /// Whether the id is no longer this lease's (the lease stays down).
  [[nodiscard]] bool lost() const {
    if (born_.forked()) return true;
    std::lock_guard lk(m_);
    return lost_;
  }
  /// The deadline (or last timestamp) the previous holders recorded; empty: never used.
  [[nodiscard]] std::optional<lease_time> previous_last() const {
    std::lock_guard lk(m_);
    return previous_last_;
  }
  /// The generator mints only in ticks that start after this: the previous deadline plus
  /// `safe_guard`, or a store's loss of memory plus `ttl + safe_guard`; empty: no bound.
  [[nodiscard]] std::optional<lease_time> not_after() const {
    std::lock_guard lk(m_);
    return not_after_;
  }
  /// The fence shared with the generator.
  [[nodiscard]] const std::shared_ptr<lease_fence>& fence() const noexcept { return fence_; }
  /// The store and its address.
  [[nodiscard]] std::string where() const { return store_->where(); }
  [[nodiscard]] const lease_options& options() const noexcept { return opt_; }
  /// The token this lease is held under in the store.
  [[nodiscard]] const std::string& holder() const noexcept { return holder_; }

 private:
  using steady = std::chrono::steady_clock;

  /// Reports `lease_event::waiting` when the claimed id may mint only more than a second from
  /// now, with the reason: a store that may have lost its records (`after_loss`), else the
  /// previous holder's deadline plus `safe_guard` (`after_record`).
  void announce_wait(const std::optional<lease_time>& after_record,
                     const std::optional<lease_time>& after_loss) {
    if (!not_after_) return;
    const std::chrono::milliseconds left = *not_after_ - opt_.now();
    if (left <= std::chrono::seconds{1}) return;
    const bool loss = after_loss && (!after_record || *after_loss >= *after_record);
    notify(lease_event::waiting,
           "worker id " + std::to_string(id_) + instance_text() + " waits " +
               std::to_string(left.count()) + " ms before it mints: " +
               (loss ? "the store may have lost its records (ttl + safe_guard, " +
                           std::to_string((opt_.ttl + opt_.safe_guard).count()) +
                           " ms, from Unix ms " +
                           std::to_string(detail::unix_ms_of(*lost_memory_at_)) + ")"
                     : "its previous holder's deadline plus safe_guard (" +
                           std::to_string(opt_.safe_guard.count()) + " ms)") +
               " (" + where() + ")");
  }

  void notify(lease_event e, const std::string& detail) const {
    if (opt_.on_event) opt_.on_event(e, detail);
  }

  /// " (instance <name>)", or nothing without an instance.
  [[nodiscard]] std::string instance_text() const {
    return opt_.instance.empty() ? std::string() : " (instance " + opt_.instance + ")";
  }

  /// What `acquire` saw of the holder of its instance's id while waiting for the id.
  struct instance_watch {
    bool seen = false;
    lease_time first{};  // the holder's deadline when first seen
    lease_time until{};  // by then the id must be free or renewed

    /// Throws `instance_in_use_error` when the holder in `c` is alive: the store says so, or its
    /// deadline rose since the first look (a renewal). A holder that neither renews nor lets go
    /// within twice `ttl + safe_guard` is taken to be alive as well.
    void check(const lease& l, const lease_claim& c, lease_time now) {
      const lease_time last = c.last.value_or(lease_time::min());
      const auto refuse = [&](const std::string& why) {
        throw instance_in_use_error("flakeid: instance '" + l.opt_.instance +
                                    "' already holds worker id " + std::to_string(c.id) +
                                    " in namespace " + l.opt_.name_space +
                                    " through another lease that " + why + " (" + l.where() + ")");
      };
      if (c.holder_alive) refuse("is alive");
      if (!seen) {
        seen = true;
        first = last;
        until = now + 2 * (l.opt_.ttl + l.opt_.safe_guard);
        return;
      }
      if (last > first) refuse("is still renewing it");
      if (now >= until)
        refuse("has neither renewed nor let it go in " +
               std::to_string((2 * (l.opt_.ttl + l.opt_.safe_guard)).count()) + " ms");
    }
  };

  void renew_loop() {
    const auto interval = opt_.ttl / 3;
    const auto retry = std::max(std::chrono::milliseconds{5}, opt_.ttl / 15);
    std::unique_lock lk(m_);
    auto next = steady::now() + interval;
    bool suspended = false;
    while (!stop_ && !lost_) {
      cv_.wait_until(lk, next, [&] { return stop_ || renew_now_; });
      if (stop_) break;
      if (!renew_now_ && steady::now() < next) continue;
      // A request that comes while this renewal is in flight gets one sent after it.
      const bool asked = renew_now_;
      lk.unlock();
      // The new deadline counts from the send time, in the generator's clock; the store
      // records it before it answers, and only then does the fence move up to it.
      const lease_time sent = opt_.now();
      const lease_time wanted = sent + (opt_.ttl - opt_.margin);
      std::optional<renewal> r;
      std::string error;
      try {
        std::lock_guard io(io_m_);
        r = store_->renew(id_, holder_, wanted);
      } catch (const std::exception& e) {
        error = e.what();
      }
      lk.lock();
      if (asked) renew_now_ = false;
      cv_.notify_all();
      if (stop_) break;  // released meanwhile: the fence stays down
      if (!r) {
        next = steady::now() + retry;
        const bool expired = opt_.now() >= deadline_;
        lk.unlock();
        notify(lease_event::renew_failed, error);
        if (expired && !suspended)
          notify(lease_event::suspended,
                 "worker id " + std::to_string(id_) + ": renewal not confirmed by its deadline");
        lk.lock();
        suspended = suspended || expired;
        continue;
      }
      if (*r == renewal::taken) {
        lost_ = true;
        fence_->deadline_unix_ms.store(INT64_MIN, std::memory_order_seq_cst);
        lk.unlock();
        notify(lease_event::lost,
               "worker id " + std::to_string(id_) + " is no longer held (" + where() + ")");
        lk.lock();
        break;
      }
      next = steady::now() + interval;
      if (wanted > deadline_) {
        deadline_ = wanted;
        fence_->deadline_unix_ms.store(detail::unix_ms_of(wanted), std::memory_order_release);
      }
      if (suspended) {
        suspended = false;
        lk.unlock();
        notify(lease_event::resumed, "worker id " + std::to_string(id_));
        lk.lock();
      }
    }
    renew_now_ = false;
    cv_.notify_all();
  }

  std::unique_ptr<lease_store> store_;
  lease_options opt_;
  std::string holder_;
  std::shared_ptr<lease_fence> fence_ = std::make_shared<lease_fence>();
  mutable std::mutex m_;
  std::mutex io_m_;  // one store call at a time
  std::condition_variable cv_;
  bool claimed_ = false;
  bool stop_ = false;
  bool lost_ = false;
  bool renew_now_ = false;
  detail::fork_stamp born_;  // in a forked child: mints nothing, touches no lock
  std::uint64_t id_ = 0;
  std::optional<lease_time> previous_last_;
  std::optional<lease_time> lost_memory_at_;
  std::optional<lease_time> not_after_;
  lease_time deadline_ = lease_time::min();  // the confirmed deadline (under m_)
  std::thread renewer_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
