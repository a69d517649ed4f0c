// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file lease.hpp
/// Worker-id leases: a process holds one worker id (or datacenter and worker) for as long as it
/// keeps renewing, and a generator built on the lease stops minting when it cannot confirm it.
///
///   lease              the engine every store shares: claim, background renewal, the fence,
///                      the recorded last timestamp, release. Models `worker_id_source`.
///   lease_store        the small interface a store implements (claim, renew, release), with
///                      the options and events: lease_store.hpp.
///
/// Every store makes leases with `store.lease(options)`:
///   memory_store       one process (flakeid/store/memory.hpp).
///   file_store         host-local lock files held with flock (flakeid/store/file.hpp).
///   redis_store        Redis (flakeid/adapters/redis.hpp, target flakeid::redis).
///   postgres_store     PostgreSQL (flakeid/adapters/postgres.hpp, target flakeid::postgres).
///   mysql_store        MySQL and MariaDB (flakeid/adapters/mysql.hpp, target flakeid::mysql).
///   zookeeper_store    ZooKeeper (flakeid/adapters/zookeeper.hpp, target flakeid::zookeeper).
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

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "clock.hpp"
#include "detail/fork_guard.hpp"
#include "detail/lease_skew.hpp"
#include "detail/server_store.hpp"
#include "errors.hpp"
#include "layout.hpp"
#include "lease_store.hpp"
#include "version.hpp"
#include "worker_id.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

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
    const auto not_negative = [](const char* name, std::chrono::milliseconds v) {
      if (v.count() < 0)
        throw invalid_option_error("flakeid: lease " + std::string(name) + " of " +
                                   std::to_string(v.count()) + " ms is negative: use 0 or more");
    };
    not_negative("safe_guard", opt_.safe_guard);
    not_negative("max_wait", opt_.max_wait);
    not_negative("wait_for_id", opt_.wait_for_id);
    not_negative("max_skew", opt_.max_skew);
    not_negative("instance_idle", opt_.instance_idle);
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
    max_skew_ = detail::max_skew_of(opt_);
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
    refuse_second_claim();
    if (id_count == 0) detail::reject_worker("a lease needs at least one id to choose from");
    claim_request req;
    req.count = id_count;
    req.holder = holder_;
    req.instance = opt_.instance;
    const std::optional<lease_claim> c = claim_until_free(lk, req);
    if (!c) throw_no_free_id(id_count);
    const mint_after after = adopt(*c);
    refuse_far_ahead(*c);
    claimed_ = true;
    deadline_ = req.deadline;
    fence_->deadline_unix_ms.store(detail::unix_ms_of(deadline_), std::memory_order_release);
    renewer_ = std::thread([this] { renew_loop(); });
    lk.unlock();
    announce_wait(after.record, after.loss);
    confirm_after(wait_for_not_after(), lk);
    notify(lease_event::acquired,
           "worker id " + std::to_string(id_) + instance_text() + " (" + where() + ")");
    return id_;
  }

  /// Renews at once and returns once the store has confirmed it (the renewer does so every
  /// `ttl / 3` anyway): for a holder whose clock has just moved ahead, such as a clock guard
  /// whose generator borrows future ticks. Throws `worker_id_error` before a claim or after the
  /// id was lost, and `lease_store_error` when three tries go unconfirmed.
  void renew_now() {
    if (born_.forked())
      detail::reject_worker("this lease was made before fork(): take a new lease in the child");
    {
      std::lock_guard lk(m_);
      if (!claimed_ || stop_) detail::reject_worker("this lease holds no worker id to renew");
    }
    std::unique_lock lk(m_, std::defer_lock);
    confirm_after(true, lk);
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
  [[nodiscard]] const fence_ptr& fence() const noexcept { return fence_; }
  /// The store and its address.
  [[nodiscard]] std::string where() const { return store_->where(); }
  [[nodiscard]] const lease_options& options() const noexcept { return opt_; }
  /// The token this lease is held under in the store.
  [[nodiscard]] const std::string& holder() const noexcept { return holder_; }

 private:
  // ---- the steps of acquire() ------------------------------------------------------------

  void refuse_second_claim() const {
    if (claimed_)
      detail::reject_worker("this lease already holds worker id " + std::to_string(id_) + " (" +
                            where() + ")");
  }

  /// One claim at `req.now`: the ids whose record needs no wait beyond `max_wait`, then (of
  /// several ids) one let go a moment ago, whose deadline lies at most `max_wait` ahead.
  std::optional<lease_claim> claim_once(claim_request& req) {
    req.deadline = req.now + (opt_.ttl - opt_.margin);
    req.settled = req.now - opt_.safe_guard;
    req.kept_after = detail::kept_after(req.now, opt_.instance_idle);
    if (req.count > 1) req.skip_above = req.now + (opt_.max_wait - opt_.safe_guard);
    std::lock_guard io(io_m_);
    std::optional<lease_claim> c = store_->claim(req);
    if (!c && req.count > 1 && req.skip_above < req.now + opt_.max_wait) {
      req.skip_above = req.now + opt_.max_wait;
      c = store_->claim(req);
    }
    return c;
  }

  /// Claims until an id is had or `wait_for_id` has passed: every id held is tried again each
  /// tenth of the time an id takes to come free; the instance's own id, held, is waited for
  /// unless its holder shows it lives (`instance_in_use_error`). `lk` holds `m_` on entry and
  /// on return.
  std::optional<lease_claim> claim_until_free(std::unique_lock<std::mutex>& lk,
                                              claim_request& req) {
    const lease_time give_up = opt_.now() + opt_.wait_for_id;
    instance_watch watch;
    for (;;) {
      req.now = checked_claim_time(lk);
      std::optional<lease_claim> c = claim_once(req);
      if (c && c->held_by_instance) {
        watch.check(*this, *c, req.now);
        lk.unlock();
        opt_.sleep(std::max(std::chrono::milliseconds{1}, (opt_.ttl + opt_.safe_guard) / 20));
        lk.lock();
        continue;
      }
      if (c || req.now >= give_up) return c;
      lk.unlock();
      opt_.sleep(std::clamp<std::chrono::milliseconds>(
          (opt_.ttl + opt_.safe_guard) / 10, std::chrono::milliseconds{1}, give_up - req.now));
      lk.lock();
      refuse_second_claim();
    }
  }

  /// What `compare_clocks` found: the reading of this clock taken first (`now`), whether it
  /// lies within `max_skew` of the store's (`verdict`), and else why not and by how much.
  struct clock_check {
    lease_time now{};
    detail::skew_verdict verdict = detail::skew_verdict::within;
    std::string why{};
    std::chrono::milliseconds skew{0};
  };

  /// This clock compared with the store's (`max_skew`): this clock read (`now`), then the
  /// store's, then this one again; `verdict` is `within` when both readings lie within
  /// `max_skew` of the store's (or nothing is compared). An answer too slow to judge
  /// (`unsure`) is asked again: three times in a row, or, for a claim (`claim_lock`, which
  /// holds `m_`), for `connect_timeout`, a store busy with other claimers taking its time; the
  /// lease's lock is let go while it waits between tries. Throws `lease_store_error` when the
  /// store cannot be reached.
  clock_check compare_clocks(std::unique_lock<std::mutex>* claim_lock) {
    const auto give_up = steady::now() + opt_.connect_timeout;
    for (int attempt = 1;; ++attempt) {
      clock_check c{opt_.now()};
      if (max_skew_ == lease_options::skew_unchecked) return c;
      std::optional<lease_time> at;
      {
        std::lock_guard io(io_m_);
        at = store_->clock();
      }
      if (!at) return c;
      const detail::skew_reading r{c.now, *at, opt_.now()};
      c.verdict = detail::judge_skew(r, max_skew_);
      if (c.verdict == detail::skew_verdict::within) return c;
      c.why = detail::skew_message(r, c.verdict, max_skew_, where());
      c.skew = detail::skew_of(r);
      if (c.verdict != detail::skew_verdict::unsure) return c;  // ahead or behind
      if (attempt < 3) continue;
      if (claim_lock == nullptr || steady::now() >= give_up) return c;
      claim_lock->unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds{std::min(attempt, 50)});
      claim_lock->lock();
      refuse_second_claim();
    }
  }

  /// A reading of this clock for a claim, confirmed by the store's (`compare_clocks`); throws
  /// `clock_skew_error` when it is not. `lk` holds `m_` on entry and on return.
  lease_time checked_claim_time(std::unique_lock<std::mutex>& lk) {
    const clock_check c = compare_clocks(&lk);
    if (c.verdict != detail::skew_verdict::within) throw clock_skew_error(c.why, c.skew);
    return c.now;
  }

  [[noreturn]] void throw_no_free_id(std::uint64_t id_count) const {
    const std::string kept =
        opt_.instance_idle.count() > 0
            ? ", or kept for an instance (instance_idle " + idle_text(opt_.instance_idle) + ")"
            : std::string();
    if (id_count == 1)
      detail::reject_worker("worker id 0 in namespace " + opt_.name_space +
                            " is held by another process, or was let go less than safe_guard (" +
                            std::to_string(opt_.safe_guard.count()) + " ms) ago" + kept + " (" +
                            where() + ")");
    detail::reject_worker(
        "no free worker id in namespace " + opt_.name_space + ": all " + std::to_string(id_count) +
        " ids are leased, or were used further ahead of this clock than max_wait (" +
        std::to_string(opt_.max_wait.count()) + " ms)" + kept +
        (opt_.wait_for_id.count() > 0
             ? ", for wait_for_id (" + std::to_string(opt_.wait_for_id.count()) + " ms)"
             : std::string()) +
        " (" + where() + ")");
  }

  /// What a holder mints above: the previous holder's record plus `safe_guard`, and a loss of
  /// the store's memory plus `ttl + safe_guard` (an empty optional is below every time).
  struct mint_after {
    std::optional<lease_time> record;
    std::optional<lease_time> loss;
  };

  /// Takes claim `c` as this lease's: its id, the previous record, the store's loss, and the
  /// time after which it may mint (`not_after_`).
  mint_after adopt(const lease_claim& c) {
    id_ = c.id;
    previous_last_ = c.last;
    lost_memory_at_ = c.lost_memory_at;
    mint_after after;
    if (previous_last_) after.record = *previous_last_ + opt_.safe_guard;
    if (lost_memory_at_) after.loss = *lost_memory_at_ + opt_.ttl + opt_.safe_guard;
    not_after_ = std::max(after.record, after.loss);
    return after;
  }

  /// Gives claim `c` back and throws `clock_backwards_error` when the previous holder's record
  /// lies further ahead of this clock than the lease waits for: `max_wait` (for the instance's
  /// own id, `max_wait + ttl`, as its holder's last deadline can lie ahead), then `safe_guard`.
  /// (Of several ids, the claims skipped those whose record lies further ahead.)
  void refuse_far_ahead(const lease_claim& c) {
    const std::chrono::milliseconds ahead =
        previous_last_ ? *previous_last_ - opt_.now() : std::chrono::milliseconds{0};
    const std::chrono::milliseconds may_wait =
        c.own_instance ? opt_.max_wait + opt_.ttl : opt_.max_wait;
    if (ahead <= may_wait) return;
    try {
      std::lock_guard io(io_m_);
      store_->release(id_, holder_, *previous_last_);
    } catch (const std::exception&) {  // it expires on its own
    }
    throw clock_backwards_error(
        "flakeid: worker id " + std::to_string(id_) + " in namespace " + opt_.name_space +
            " was last used up to Unix ms " + std::to_string(detail::unix_ms_of(*previous_last_)) +
            ", " + std::to_string(ahead.count()) +
            " ms ahead of this clock; the lease waits up to " + std::to_string(may_wait.count()) +
            " ms for that, then safe_guard (" + std::to_string(opt_.safe_guard.count()) + " ms)",
        ahead);
  }

  /// Sleeps until the clock has passed `not_after_` (the renewer keeps the claim alive
  /// meanwhile), a renewal period (`ttl / 3`) at a time: a claim that a renewal finds taken
  /// (the store forgot it while this lease waited) ends the wait, and `confirm_after` says so.
  /// Returns whether it slept.
  bool wait_for_not_after() {
    bool waited = false;
    if (!not_after_) return waited;
    constexpr std::chrono::milliseconds tick{1};
    const std::chrono::milliseconds period = std::max(tick, renewal_period());
    for (auto left = *not_after_ - opt_.now() + tick; left > std::chrono::milliseconds::zero();
         left = *not_after_ - opt_.now() + tick) {
      if (waited && lost()) break;
      opt_.sleep(std::min(left, period));
      waited = true;
    }
    return waited;
  }

  /// Has the renewer confirm the claim until the fence is valid now, and at once after a wait,
  /// so the generator starts on a deadline a full span ahead of the first tick it may mint,
  /// however long the wait and whenever the renewer last ran. Three tries; then the id is
  /// released and `lease_store_error` thrown. `lk` is unlocked on entry and on return.
  void confirm_after(bool waited, std::unique_lock<std::mutex>& lk) {
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
  }

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

  /// "<n> ms", or "forever" for `instance_kept_forever`.
  static std::string idle_text(std::chrono::milliseconds idle) {
    return idle == lease_options::instance_kept_forever ? std::string("forever")
                                                        : std::to_string(idle.count()) + " ms";
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

  /// One renewal: asks for a deadline `ttl - margin` after a reading of this clock, sets
  /// `wanted` to it, and returns the store's answer; or nothing, and the reason in `error`.
  /// The reading is compared with the store's clock first (`compare_clocks`): a clock further
  /// off than `max_skew` asks nothing; one the store answered too slowly to judge still renews
  /// the store's record (which keeps the id this lease's), but the fence does not take the
  /// deadline.
  std::optional<renewal> send_renewal(lease_time& wanted, std::string& error) {
    try {
      const clock_check c = compare_clocks(nullptr);
      if (c.verdict != detail::skew_verdict::within && c.verdict != detail::skew_verdict::unsure) {
        error = c.why;
        return std::nullopt;
      }
      wanted = c.now + (opt_.ttl - opt_.margin);
      std::lock_guard io(io_m_);
      const renewal r = store_->renew(id_, holder_, wanted);
      if (r == renewal::held && c.verdict == detail::skew_verdict::unsure) {
        error = c.why;
        return std::nullopt;
      }
      return r;
    } catch (const std::exception& e) {
      error = e.what();
      return std::nullopt;
    }
  }

  /// After a renewal without an answer: reports it, and once the deadline has passed, that
  /// minting is suspended (once per suspension). `lk` holds `m_` on entry and on return.
  void renewal_failed(std::unique_lock<std::mutex>& lk, const std::string& error, bool& suspended) {
    const bool expired = opt_.now() >= deadline_;
    lk.unlock();
    notify(lease_event::renew_failed, error);
    if (expired && !suspended)
      notify(lease_event::suspended,
             "worker id " + std::to_string(id_) + ": renewal not confirmed by its deadline");
    lk.lock();
    suspended = suspended || expired;
  }

  /// After a renewal answered `taken`: the fence goes down for good. `lk` as above.
  void renewal_taken(std::unique_lock<std::mutex>& lk) {
    lost_ = true;
    fence_->deadline_unix_ms.store(INT64_MIN, std::memory_order_seq_cst);
    lk.unlock();
    notify(lease_event::lost,
           "worker id " + std::to_string(id_) + " is no longer held (" + where() + ")");
    lk.lock();
  }

  /// After the store confirmed deadline `wanted`: the fence moves up to it, and a suspended
  /// lease resumes. `lk` as above.
  void renewal_held(std::unique_lock<std::mutex>& lk, lease_time wanted, bool& suspended) {
    if (wanted > deadline_) {
      deadline_ = wanted;
      fence_->deadline_unix_ms.store(detail::unix_ms_of(wanted), std::memory_order_release);
    }
    if (!suspended) return;
    suspended = false;
    lk.unlock();
    notify(lease_event::resumed, "worker id " + std::to_string(id_));
    lk.lock();
  }

  /// How often the renewer renews (`ttl / 3`).
  [[nodiscard]] std::chrono::milliseconds renewal_period() const { return opt_.ttl / 3; }

  void renew_loop() {
    const auto interval = renewal_period();
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
      lease_time wanted{};
      std::string error;
      const std::optional<renewal> r = send_renewal(wanted, error);
      lk.lock();
      if (asked) renew_now_ = false;
      cv_.notify_all();
      if (stop_) break;  // released meanwhile: the fence stays down
      if (!r) {
        next = steady::now() + retry;
        renewal_failed(lk, error, suspended);
        continue;
      }
      if (*r == renewal::taken) {
        renewal_taken(lk);
        break;
      }
      next = steady::now() + interval;
      renewal_held(lk, wanted, suspended);
    }
    renew_now_ = false;
    cv_.notify_all();
  }

  std::unique_ptr<lease_store> store_;
  lease_options opt_;
  std::chrono::milliseconds max_skew_{};  // from opt_ (skew_unchecked: no comparison)
  std::string holder_;
  fence_ptr fence_ = fence_ptr::make();
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
