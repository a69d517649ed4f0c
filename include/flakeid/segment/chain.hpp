// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment/chain.hpp
/// `segment_chain_generator`: a chain of segments prefetched by a background worker, and
/// thread-local blocks of IDs for threads that draw hard.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include "../clock.hpp"
#include "../detail/fork_guard.hpp"
#include "../detail/thread_blocks.hpp"
#include "../errors.hpp"
#include "../version.hpp"
#include "engine.hpp"
#include "options.hpp"
#include "sizing.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

// ---- segment_chain_generator ---------------------------------------------------------------

/// Dense, strictly increasing IDs from a store counter with a chain of segments prefetched by a
/// background worker, so callers never wait for the store while the chain holds a segment.
///
/// The worker keeps `ahead_target` segments prefetched beyond the current one, starting at
/// `min_ahead`. At each of its looks it measures the callers' draw rate and the store's round
/// trip (`stats()`), and keeps the target at least at what they call for (`ahead_needed`:
/// `ahead_factor` times the IDs drawn during a round trip plus a millisecond, in segments,
/// within [`min_ahead`, `max_ahead`]). When a caller finds no prefetched segment (the chain is
/// "hungry") the target doubles, up to `max_ahead`; after a refill period with no hunger in
/// which callers used at most half the target, it halves again, down to `ahead_needed`. A hungry caller fetches the
/// target's worth of segments itself (one store call), so the chain never stalls on the
/// worker. A caller that moves on with fewer than half the target left wakes the worker, at
/// most once per millisecond: a chain drained faster than that is refilled by its hungry
/// callers, which costs them less than waking a thread every few microseconds.
///
/// When the store fails, callers go on with the prefetched segments; once those are used up,
/// `next_id` throws `segment_store_error` (with the store's message), and resumes as soon as
/// the store answers again, above every number handed out before.
///
/// Requirements: as `segment_generator`; the distributor is called from the worker thread.
/// Throws: `invalid_option_error` from the constructor for a bad option; `segment_store_error`,
/// `segment_closed_error` from `next_id`. Thread-safety: all members may be called concurrently.
/// The destructor closes the generator and joins the worker. Fork: the worker does not exist in
/// a forked child; every call there throws `forked_process_error`.
template <class Distributor, class Clock = wall_clock>
class segment_chain_generator {
  static_assert(detail::check_segment_params<Distributor, Clock>());

 public:
  using distributor_type = Distributor;
  using clock_type = Clock;

  /// A chain on counter `d`; starts the worker, which prefetches `min_ahead` segments at once.
  explicit segment_chain_generator(Distributor d, segment_chain_options opts = {},
                                   Clock clock = Clock{})
      : opts_(check(opts)),
        engine_(std::move(d), std::move(clock), detail::segment_numbering::of(opts.segment),
                opts.segment.ttl,
                std::bit_ceil(opts.max_ahead + opts.max_ahead / 2 + 3 +
                              (opts.leaf_dynamic_step ? opts.max_ahead : 0))),
        target_(opts.min_ahead) {
    engine_.on_switch(&segment_chain_generator::switched, this);
    if (opts_.leaf_dynamic_step)
      engine_.leaf_dynamic_step(static_cast<std::uint32_t>(opts_.max_ahead));
    // The first window of the draw rate opens now, at the first segment (generation 1).
    meter_.start(detail::unix_ns(engine_.clock().now()), 1);
    needed_.store(opts_.min_ahead, std::memory_order_relaxed);
    engine_.hungry_fetch(opts_.min_ahead);
    wake_.store(true, std::memory_order_relaxed);
    worker_ = std::thread([this] { run(); });
  }

  segment_chain_generator(const segment_chain_generator&) = delete;
  segment_chain_generator& operator=(const segment_chain_generator&) = delete;

  /// Closes the generator and joins the worker. In a forked child, where the worker does not
  /// exist, it leaves the parent's thread, locks and store state alone.
  ~segment_chain_generator() {
    if (engine_.forked()) {
      detail::forget_after_fork(worker_);
      detail::forget_after_fork(wake_cv_);  // the parent's worker may wait on it
      return;
    }
    close();
  }

  /// The next ID. Lock-free while the chain holds a segment; never calls the store then.
  /// Throws `segment_store_error` (chain empty and the store failing), `segment_closed_error`.
  /// With `thread_block` > 1, a thread serves its own block of IDs and touches the shared
  /// position once per block.
  [[nodiscard]] std::uint64_t next_id() {
    engine_.check_fork(forked_what);
    if (opts_.thread_block > 1) {
      detail::segment_thread_block& b = detail::this_thread_segment_block();
      if (b.owner == block_owner_.load(std::memory_order_relaxed) && b.next < b.end) [[likely]] {
        const std::uint64_t id = b.next;
        b.next = id + opts_.segment.stride;
        return id;
      }
      return next_block(b);
    }
    return engine_.next_id();
  }

  /// Fills `out` with increasing IDs (the rest of this thread's block first). On a throw, the
  /// IDs already written are handed out.
  void next_ids(std::span<std::uint64_t> out) {
    engine_.check_fork(forked_what);
    std::size_t i = 0;
    if (opts_.thread_block > 1) {
      detail::segment_thread_block& b = detail::this_thread_segment_block();
      if (b.owner == block_owner_.load(std::memory_order_relaxed))
        for (; i < out.size() && b.next < b.end; b.next += opts_.segment.stride) out[i++] = b.next;
    }
    engine_.next_ids(out.subspan(i));
  }

  /// Stops the worker (after the store call it may be in finishes, so no store state is
  /// lost) and the generator: later calls throw `segment_closed_error`. Prefetched numbers
  /// are never handed out (gaps), nor are the rest of the threads' blocks. Idempotent; called
  /// by the destructor. Does nothing in a forked child.
  void close() {
    if (engine_.forked()) return;
    block_owner_.store(closed_owner, std::memory_order_relaxed);  // no block is served any more
    stopping_.store(true, std::memory_order_relaxed);
    {
      std::lock_guard lk(wake_mutex_);
      stop_ = true;
    }
    wake_cv_.notify_all();
    {
      std::lock_guard lk(join_mutex_);
      if (worker_.joinable()) worker_.join();
    }
    engine_.close();
  }

  /// A snapshot of the chain: store calls and failures, hunger, segments ahead, the target and
  /// the measurements it comes from.
  [[nodiscard]] segment_chain_stats stats() const {
    segment_chain_stats s;
    s.store_calls = engine_.store_calls();
    s.store_failures = engine_.store_failures();
    s.store_failing = engine_.store_failing();
    s.hungry = engine_.hungry();
    s.ahead = engine_.ahead();
    s.ahead_target = target_.load(std::memory_order_relaxed);
    s.ahead_needed = needed_.load(std::memory_order_relaxed);
    s.draw_rate = rate_.load(std::memory_order_relaxed);
    s.round_trip = engine_.round_trip();
    s.leaf_step = engine_.leaf_step();
    s.last_error = engine_.last_error();
    return s;
  }

  /// The distributor (store and key).
  [[nodiscard]] const Distributor& distributor() const noexcept { return engine_.distributor(); }
  /// IDs per segment.
  [[nodiscard]] std::uint64_t step() const noexcept { return engine_.step(); }
  /// The distance between two consecutive IDs of a segment (1 unless interleaving).
  [[nodiscard]] std::uint64_t stride() const noexcept { return engine_.stride(); }
  /// The options the chain runs with.
  [[nodiscard]] const segment_chain_options& options() const noexcept { return opts_; }

 private:
  static segment_chain_options check(const segment_chain_options& o) {
    (void)detail::segment_numbering::of(o.segment);
    if (o.min_ahead < 1 || o.min_ahead > 65536)
      detail::throw_segment_option("min_ahead", o.min_ahead, 1, 65536);
    if (o.max_ahead < o.min_ahead || o.max_ahead > 65536)
      detail::throw_segment_option("max_ahead", o.max_ahead, o.min_ahead, 65536);
    if (o.ahead_factor < 1 || o.ahead_factor > 64)
      detail::throw_segment_option("ahead_factor", o.ahead_factor, 1, 64);
    if (o.refill_period.count() < 1)
      detail::throw_segment_option("refill_period (ms)",
                                   static_cast<std::uint64_t>(o.refill_period.count()), 1,
                                   std::numeric_limits<std::uint32_t>::max());
    if (o.retry_after.count() < 1)
      detail::throw_segment_option("retry_after (ms)",
                                   static_cast<std::uint64_t>(o.retry_after.count()), 1,
                                   std::numeric_limits<std::uint32_t>::max());
    if (o.thread_block < 1 || o.thread_block > o.segment.step)
      detail::throw_segment_option("thread_block", o.thread_block, 1, o.segment.step);
    return o;
  }

  static constexpr std::chrono::nanoseconds min_wake_gap = detail::chain_wake_gap;
  static constexpr std::string_view forked_what = "this segment chain generator";

  // The owner of no block: `block_owner_` after close.
  static constexpr std::uint64_t closed_owner = std::numeric_limits<std::uint64_t>::max();

  // This thread's block is used up (or another chain's, or the chain closed): claims the next
  // one. A thread whose claims interleave with other threads' (the position moved between two
  // of its claims in one segment) doubles its block, up to a segment (at most 2^16), so that
  // threads touch the shared position less often; a thread alone halves it back down to
  // `thread_block`.
  FLAKEID_NOINLINE std::uint64_t next_block(detail::segment_thread_block& b) {
    const bool mine = b.owner == instance_;
    std::uint64_t want = mine ? b.want : opts_.thread_block;
    std::uint64_t got = 0;
    std::uint64_t at = 0;
    const std::uint64_t first = engine_.claim(want, got, at);
    if (mine && (at >> 32) == (b.after >> 32)) {
      if (at != b.after) {
        want = std::min(want * 2, max_block_);
      } else {
        want = std::max(want / 2, opts_.thread_block);
      }
    }
    b.owner = instance_;
    b.want = want;
    b.after = at + got;
    b.next = first + opts_.segment.stride;
    b.end = first + got * opts_.segment.stride;
    return first;
  }

  // A caller moved to the next segment (`ahead` left beyond it) or fetched one itself (hungry).
  static void switched(void* ctx, std::size_t ahead, bool hungry) {
    auto* self = static_cast<segment_chain_generator*>(ctx);
    if (hungry) self->hungry_.store(true, std::memory_order_relaxed);
    if (hungry || ahead * 2 < self->target_.load(std::memory_order_relaxed)) self->wake();
  }

  // Wakes the worker, at most once per `min_wake_gap`: a chain drained faster than the worker
  // can be woken is refilled by its hungry callers, a target's worth per store call, which
  // costs them less than waking a thread every few microseconds.
  void wake() {
    // No lock here, so a caller never blocks on the worker: a wake-up that races with the
    // worker going to sleep is picked up at its next refill period. A caller that finds the
    // worker already woken writes nothing.
    if (wake_.load(std::memory_order_relaxed)) return;
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    if (now - last_wake_ns_.load(std::memory_order_relaxed) < min_wake_gap.count()) return;
    if (!wake_.exchange(true, std::memory_order_acq_rel)) {
      last_wake_ns_.store(now, std::memory_order_relaxed);
      wake_cv_.notify_one();
    }
  }

  // The worker's look at the draw rate and the store's round trip: returns what they call for
  // (`ahead_needed`) and publishes them.
  std::size_t measure() {
    const std::int64_t now = detail::unix_ns(engine_.clock().now());
    meter_.look(now, engine_.current_segment(), opts_.segment.step);
    const std::uint64_t rate = meter_.rate(now);
    const std::size_t needed =
        detail::ahead_for(rate, engine_.round_trip(), opts_.segment.step, opts_.ahead_factor,
                          opts_.min_ahead, opts_.max_ahead);
    rate_.store(rate, std::memory_order_relaxed);
    needed_.store(needed, std::memory_order_relaxed);
    return needed;
  }

  void run() {
    using fill_result = typename detail::segment_engine<Distributor, Clock>::fill_result;
    bool failed = false;
    for (;;) {
      bool woken = false;
      {
        std::unique_lock lk(wake_mutex_);
        const auto period = failed ? opts_.retry_after : opts_.refill_period;
        woken = wake_cv_.wait_for(lk, period,
                                  [&] { return stop_ || wake_.load(std::memory_order_acquire); });
        if (stop_) return;
      }
      wake_.store(false, std::memory_order_release);
      const std::size_t needed = measure();
      std::size_t target = std::max(target_.load(std::memory_order_relaxed), needed);
      if (!woken && !hungry_.load(std::memory_order_relaxed)) {
        // A whole refill period without a wake-up: calm when callers moved past at most half
        // the target of segments.
        const std::uint32_t now = engine_.current_segment();
        const std::uint32_t used = now - counted_;
        counted_ = now;
        if (std::size_t{used} * 2 <= target) target = std::max(target / 2, needed);
      }
      target_.store(target, std::memory_order_relaxed);
      engine_.hungry_fetch(target);
      // Tops the chain up to the target, then again only while less than half of it is left
      // (what would wake the worker): not a store call for each few segments used meanwhile.
      std::size_t low = target;
      for (;;) {
        if (hungry_.exchange(false, std::memory_order_relaxed)) {
          // A caller found the chain empty: prefetch further ahead.
          target_.store(target = std::min(target * 2, opts_.max_ahead), std::memory_order_relaxed);
          engine_.hungry_fetch(target);
          counted_ = engine_.current_segment();
          low = target;
        }
        if (stopping_.load(std::memory_order_relaxed)) return;
        const fill_result r = engine_.fill_step(target, low);
        low = (target + 1) / 2;
        failed = r == fill_result::failed;
        if (r != fill_result::filled) break;
      }
    }
  }

  // Read by every call, written only by close(): apart from what the worker writes.
  segment_chain_options opts_;
  const std::uint64_t instance_ = detail::next_block_owner();
  const std::uint64_t max_block_ =
      std::max(opts_.thread_block, std::min<std::uint64_t>(opts_.segment.step, 65536));
  std::atomic<std::uint64_t> block_owner_{instance_};  // closed_owner after close
  std::atomic<bool> stopping_{false};
  detail::segment_engine<Distributor, Clock> engine_;
  // The worker's state, on lines of its own.
  alignas(64) std::atomic<std::size_t> target_;
  std::atomic<bool> hungry_{false};
  std::atomic<bool> wake_{false};
  std::atomic<std::int64_t> last_wake_ns_{std::numeric_limits<std::int64_t>::min() / 2};
  std::uint32_t counted_ = 0;      // the generation at the last calm check (worker only)
  detail::draw_rate_meter meter_;  // the worker's (and the constructor's, before it starts)
  std::atomic<std::uint64_t> rate_{0};
  std::atomic<std::size_t> needed_{0};
  std::mutex wake_mutex_;
  std::condition_variable wake_cv_;
  bool stop_ = false;  // guarded by wake_mutex_
  std::mutex join_mutex_;
  std::thread worker_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
