// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment/engine.hpp
/// `detail::segment_engine`, the state shared by `segment_generator` and
/// `segment_chain_generator`: the ring of segment slots, the position word and the store calls.

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "../clock.hpp"
#include "../detail/fork_guard.hpp"
#include "../errors.hpp"
#include "../version.hpp"
#include "options.hpp"
#include "sizing.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {

/// Tells the processor that the caller is spinning on a value another thread will change.
inline void spin_pause() noexcept {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// One segment held by a generator, of generation `tag >> 32`: its IDs run from `first`
/// (`stride` apart) through the end of its run, the segments that one store call fetched, and
/// `tag & 0xffffffff` is the number of IDs to that end (its own `step`, and the next segments'
/// of the run). It is usable until the `expires_ms` beside it (Unix ms). Written under a
/// seqlock: `tag` is 0 while the fields change; a reader loads the fields, then the tag. Four
/// slots share a cache line.
struct alignas(16) segment_slot {
  std::atomic<std::uint64_t> tag{0};
  std::atomic<std::uint64_t> first{0};
};

/// The state shared by `segment_generator` and `segment_chain_generator`: the ring of segment
/// slots, the position word, and the store calls (serialised by `mutex_`).
///
/// The segments of one store call hold consecutive numbers: they form a run, and the position
/// word stays on the run's first segment until the whole run is used up (its offset counts
/// on across the run's segments). A caller thus moves the position to a new generation (a
/// compare-and-swap, and a slot it has not read yet) once per run, not once per segment.
template <class D, class Clock>
class segment_engine {
 public:
  segment_engine(D d, Clock clock, segment_numbering n, std::chrono::milliseconds ttl,
                 std::size_t ring)
      : slots_(std::make_unique<segment_slot[]>(ring)),
        expires_ms_(ttl == segment_ttl_forever
                        ? nullptr
                        : std::make_unique<std::atomic<std::int64_t>[]>(ring)),
        mask_(static_cast<std::uint32_t>(ring - 1)),  // ring: a power of two, at most 2^18
        ttl_ms_(ttl == segment_ttl_forever ? -1 : ttl.count()),
        num_(n),
        max_run_(static_cast<std::uint32_t>(std::max<std::uint64_t>(1, max_run_ids / n.step))),
        clock_(std::move(clock)),
        dist_(std::move(d)) {
    if (ttl != segment_ttl_forever && ttl.count() < 1)
      throw_segment_option("ttl (ms)", static_cast<std::uint64_t>(ttl.count()), 1,
                           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  }

  /// The next ID. The fast path reads the current run's copy (`current_`, see `read_current`)
  /// and then does one fetch_add, whose result it only compares: nothing it loads waits for
  /// the fetch_add. The rest is in `next_id_slow`.
  std::uint64_t next_id() {
    std::uint64_t first = 0;
    const std::uint64_t tag = read_current(first);
    const std::uint64_t p = pos_.fetch_add(1, std::memory_order_acquire);
    // The offset into the current run when p's generation is the copy's; else far above the
    // run (a later generation), or wrapped around (an earlier one).
    const std::uint64_t off = p - (tag & ~offset_mask);
    if (off < (tag & offset_mask)) [[likely]]
      return first + off * num_.stride;
    return next_id_slow(p);
  }

  /// Claims up to `want` (<= step) consecutive IDs of one run with one fetch_add (`stride`
  /// apart): returns the first, sets `got` (>= 1) and `at`, the position word the claim
  /// started at. A claim that uses its run up moves the position on to the next run when that
  /// one is prefetched.
  std::uint64_t claim(std::uint64_t want, std::uint64_t& got, std::uint64_t& at) {
    want = std::min(want, max_claim);
    for (;;) {
      const std::uint64_t p = pos_.fetch_add(want, std::memory_order_acquire);
      const auto g = gen_of(p);
      const std::uint64_t off = p & offset_mask;
      std::uint64_t first = 0;
      std::uint64_t run = 0;
      if (read_slot(g, first, run) && off < run) {
        got = std::min(want, run - off);
        if (off + got == run) advance_prefetched(g, after_run(g, run));
        at = p;
        return first + off * num_.stride;
      }
      advance(g);
    }
  }

  /// Fills `out` with IDs, claiming up to a segment's worth per fetch_add.
  void next_ids(std::span<std::uint64_t> out) {
    std::size_t i = 0;
    while (i < out.size()) {
      const std::uint64_t want = std::min({std::uint64_t{out.size() - i}, num_.step, max_claim});
      const std::uint64_t p = pos_.fetch_add(want, std::memory_order_acquire);
      const auto g = gen_of(p);
      const std::uint64_t off = p & offset_mask;
      std::uint64_t first = 0;
      std::uint64_t run = 0;
      std::uint64_t got = 0;
      if (read_slot(g, first, run) && off < run) {
        got = std::min(want, run - off);
        for (std::uint64_t k = 0; k < got; ++k) out[i++] = first + (off + k) * num_.stride;
      }
      if (got < want) advance(g);
    }
  }

  /// Stops handing out IDs: every later call throws `segment_closed_error`. Idempotent. In a
  /// forked child it takes no lock (a parent's thread may have held it) and does nothing.
  void close() {
    if (born_.forked()) return;
    std::lock_guard lk(mutex_);
    if (closed_) return;
    closed_ = true;
    // Park the position on the next unfilled generation: nothing will ever fill it.
    pos_.store(std::uint64_t{tail_.load(std::memory_order_relaxed)} << offset_bits,
               std::memory_order_release);
  }

  /// What `fill_step` did.
  enum class fill_result : std::uint8_t { filled, enough, failed, closed };

  /// Fetches the segments missing for `target` to be prefetched beyond the current one (as far
  /// as the ring has room) with one store call, `next_max_id(k * step)`, split into k segments
  /// in runs of at most `max(1, target / 8)` (a caller moves to a new run, and may wake the
  /// worker, at least every eighth of the target); only when fewer than `low` (<= target) are
  /// prefetched. Holds the store mutex for that one call only.
  fill_result fill_step(std::size_t target, std::size_t low) {
    std::lock_guard lk(mutex_);
    if (closed_) return fill_result::closed;
    const std::uint64_t p = pos_.load(std::memory_order_acquire);
    const std::uint32_t t = tail_.load(std::memory_order_relaxed);
    const std::uint32_t held = t - segment_at(p);  // current + ahead
    const std::uint32_t kept = t - gen_of(p);      // slots not to be refilled yet
    if (kept >= mask_ || held - 1 >= low) return fill_result::enough;  // a slot of margin
    auto missing = static_cast<std::uint32_t>(
        std::min<std::size_t>(target - (held - 1), std::size_t{mask_ - kept}));
    if (leaf_max_segments_ != 0) {
      missing = leaf_segments_locked();  // Leaf's step, when the ring has room for all of it
      if (missing > mask_ - kept) return fill_result::enough;
    }
    try {
      fill_locked(missing, run_for(missing));
    } catch (const std::exception&) {
      return fill_result::failed;  // recorded by take_locked
    }
    return fill_result::filled;
  }

  /// Segments prefetched beyond the current one.
  [[nodiscard]] std::size_t ahead() const noexcept {
    const std::uint64_t p = pos_.load(std::memory_order_acquire);
    const std::uint32_t held = tail_.load(std::memory_order_acquire) - segment_at(p);
    return held >= 1 && held <= mask_ + 1 ? held - 1 : 0;
  }

  /// Has a caller that finds nothing prefetched fetch `n` segments (at least 1, as far as the
  /// ring has room) with its one store call; 1 until set.
  void hungry_fetch(std::size_t n) noexcept {
    hungry_fetch_.store(static_cast<std::uint32_t>(std::max<std::size_t>(1, n)),
                        std::memory_order_relaxed);
  }

  /// Has every later store call for segments take the step of Leaf's dynamic-step rule
  /// (`leaf_next_step`, from the time since the previous such call on the engine's clock),
  /// starting at `step`, at most `leaf_max_step` IDs and `max_segments` (>= 1) segments.
  /// Called before any store call.
  void leaf_dynamic_step(std::uint32_t max_segments) noexcept { leaf_max_segments_ = max_segments; }

  /// The IDs the latest store call for segments took under Leaf's rule; 0 before the first
  /// or without it.
  [[nodiscard]] std::uint64_t leaf_step() const noexcept {
    return leaf_step_.load(std::memory_order_relaxed);
  }

  /// The store's round trip (`round_trip_meter`): an average over the successful store calls
  /// after the first, timed on the engine's clock.
  [[nodiscard]] std::chrono::nanoseconds round_trip() const noexcept {
    return std::chrono::nanoseconds{round_trip_ns_.load(std::memory_order_relaxed)};
  }

  /// The generation of the segment callers draw from now (segments are numbered in the order
  /// they were fetched).
  [[nodiscard]] std::uint32_t current_segment() const noexcept {
    return segment_at(pos_.load(std::memory_order_acquire));
  }

  /// The fork rule (see detail/fork_guard.hpp): throws `forked_process_error` naming `what` in
  /// a child forked after the engine was made. The generators call it before anything else.
  void check_fork(std::string_view what) const { born_.check(what); }
  /// Whether this process is a fork of the one the engine was made in.
  [[nodiscard]] bool forked() const noexcept { return born_.forked(); }

  [[nodiscard]] const D& distributor() const noexcept { return dist_; }
  [[nodiscard]] const Clock& clock() const noexcept { return clock_; }
  [[nodiscard]] std::uint64_t step() const noexcept { return num_.step; }
  [[nodiscard]] std::uint64_t stride() const noexcept { return num_.stride; }
  [[nodiscard]] std::uint64_t remainder() const noexcept { return num_.remainder; }
  [[nodiscard]] std::uint64_t store_calls() const noexcept {
    return store_calls_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t store_failures() const noexcept {
    return store_failures_.load(std::memory_order_relaxed);
  }
  /// Whether the latest store call failed (none yet: false).
  [[nodiscard]] bool store_failing() const noexcept {
    return failing_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t hungry() const noexcept {
    return hungry_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::string last_error() const {
    if (born_.forked()) return "made before fork(): rebuild it in the child";
    std::lock_guard lk(error_mutex_);
    return last_error_;
  }
  [[nodiscard]] bool closed() const {
    if (born_.forked()) return true;
    std::lock_guard lk(mutex_);
    return closed_;
  }

  /// Has `fn(ctx, ahead, hungry)` called (outside any lock) when a caller moved to a prefetched
  /// run, leaving `ahead` segments beyond its first; or, with `hungry`, when it found none
  /// prefetched. Set by the chain before any call.
  void on_switch(void (*fn)(void* ctx, std::size_t ahead, bool hungry), void* ctx) noexcept {
    on_switch_ = fn;
    on_switch_ctx_ = ctx;
  }

 private:
  static constexpr unsigned offset_bits = 32;
  static constexpr std::uint64_t offset_mask = (std::uint64_t{1} << offset_bits) - 1;
  // The tag of `current_` while a caller writes it: a run of no IDs (never served from).
  static constexpr std::uint64_t writing_current = ~offset_mask;
  // The most IDs in a run, so that offsets past its end (claims by callers that found it used
  // up, pulled back by `settle_offset`) stay below 2^32.
  static constexpr std::uint64_t max_run_ids = std::uint64_t{1} << 31;
  // The most IDs one fetch_add claims (a thread block, a part of `next_ids`): 2^11 claims in
  // flight past a run's end, at most, before the offset could reach 2^32 (`settle_offset`).
  static constexpr std::uint64_t max_claim = std::uint64_t{1} << 20;
  // How often a hungry caller checks for the segments another caller is fetching before it
  // waits on the mutex (a few microseconds).
  static constexpr int hungry_spins = 256;

  static constexpr std::uint32_t gen_of(std::uint64_t p) noexcept {
    return static_cast<std::uint32_t>(p >> offset_bits);
  }

  /// Reads the slot of generation `g`: its first ID and the IDs to the end of its run; false
  /// when it does not hold `g` (not filled, reused, torn by a concurrent refill) or its segment
  /// has expired.
  ///
  /// A seqlock read with one tag load, after the fields. A caller reaches generation `g` only
  /// through the position word, after `g`'s slot was filled (the filler's release of `tail_`,
  /// acquired by the caller that moved the position to `g`, whose release the caller's
  /// fetch_add acquires), so it reads `g`'s fields or a later refill's. A refill stores tag 0
  /// before its fields (release stores), so a caller whose acquire load of a field saw the
  /// refill then loads a tag of 0 or of the new generation, never `g`'s: a torn read is
  /// always caught. (The slot of a generation that is never filled, 0 or the one `close`
  /// parks on, holds tag 0 or another generation's.)
  bool read_slot(std::uint32_t g, std::uint64_t& first, std::uint64_t& run) const noexcept {
    const segment_slot& s = slots_[g & mask_];
    first = s.first.load(std::memory_order_acquire);
    const std::int64_t expires =
        ttl_ms_ < 0 ? 0 : expires_ms_[g & mask_].load(std::memory_order_acquire);
    const std::uint64_t tag = s.tag.load(std::memory_order_relaxed);
    if ((tag >> offset_bits) != g) return false;
    run = tag & offset_mask;
    return ttl_ms_ < 0 || detail::unix_ms(clock_.now()) < expires;
  }

  /// The copy of the current run's slot, `current_`: returns its tag and sets `first`.
  ///
  /// No seqlock: the caller's fetch_add that follows checks the pair. A copy is written only
  /// by a caller whose own fetch_add returned a position in the copy's generation (see
  /// `publish`), and copies are written one at a time, each of a later generation. So when
  /// `first` comes from a later copy than the tag, that copy's writer moved the position past
  /// the tag's generation before it wrote `first` (release), and the caller, having acquired
  /// that `first`, gets a position past it too: its check fails. And `first` is never from
  /// an earlier copy than the tag (acquired). A copy only ever holds a generation's own
  /// fields, which never change.
  std::uint64_t read_current(std::uint64_t& first) const noexcept {
    const std::uint64_t tag = current_.tag.load(std::memory_order_acquire);
    first = current_.first.load(std::memory_order_acquire);
    return tag;
  }

  /// Copies the slot of generation `g` (its `first` and the `run` of IDs to its run's end)
  /// into `current_`, called only by a caller whose fetch_add returned a position in `g`
  /// (which `read_current` relies on). Writes when the copy holds an earlier generation and
  /// nobody else is writing it: the copy only moves forward, so a caller that lost a race
  /// cannot put back an older run. Not for segments with a time to live: their callers take
  /// the slow path, which checks it.
  void publish(std::uint32_t g, std::uint64_t first, std::uint64_t run) noexcept {
    std::uint64_t tag = current_.tag.load(std::memory_order_relaxed);
    if (ttl_ms_ >= 0 || tag == writing_current || static_cast<std::int32_t>(gen_of(tag) - g) >= 0)
      return;
    if (!current_.tag.compare_exchange_strong(tag, writing_current, std::memory_order_acquire,
                                              std::memory_order_relaxed))
      return;
    current_.first.store(first, std::memory_order_release);
    current_.tag.store((std::uint64_t{g} << offset_bits) | run, std::memory_order_release);
  }

  /// The IDs from generation `g`'s first to the end of its run, expired or not; 0 when its
  /// slot does not hold `g`.
  [[nodiscard]] std::uint64_t run_of(std::uint32_t g) const noexcept {
    const std::uint64_t tag = slots_[g & mask_].tag.load(std::memory_order_acquire);
    return (tag >> offset_bits) == g ? tag & offset_mask : 0;
  }

  /// The generation after the run that starts at `g` with `run` IDs (0: `g` was never filled).
  [[nodiscard]] std::uint32_t after_run(std::uint32_t g, std::uint64_t run) const noexcept {
    return run == 0 ? g + 1 : g + static_cast<std::uint32_t>(run / num_.step);
  }

  /// The generation of the segment that position `p` points into (its run's last one when
  /// the run is used up).
  [[nodiscard]] std::uint32_t segment_at(std::uint64_t p) const noexcept {
    const std::uint32_t g = gen_of(p);
    const std::uint64_t run = run_of(g);
    if (run == 0) return g;
    return g + static_cast<std::uint32_t>(std::min(p & offset_mask, run - 1) / num_.step);
  }

  /// `next_id` past the fast path: a segment with a time to live, a used-up, missing or reused
  /// run. `p` is the position the caller's fetch_add returned.
  FLAKEID_NOINLINE std::uint64_t next_id_slow(std::uint64_t p) {
    for (;;) {
      const auto g = gen_of(p);
      const std::uint64_t off = p & offset_mask;
      std::uint64_t first = 0;
      std::uint64_t run = 0;
      if (read_slot(g, first, run) && off < run) {
        publish(g, first, run);
        return first + off * num_.stride;
      }
      advance(g);
      p = pos_.fetch_add(1, std::memory_order_acquire);
    }
  }

  /// Moves the position from generation `g` to `next`, the first of the next run, when that
  /// one is prefetched and no other caller has moved it yet; never calls the store.
  void advance_prefetched(std::uint32_t g, std::uint32_t next) noexcept {
    std::uint64_t p = pos_.load(std::memory_order_acquire);
    while (gen_of(p) == g) {
      const std::uint32_t t = tail_.load(std::memory_order_acquire);
      if (static_cast<std::uint32_t>(t - next - 1) > mask_) return;  // next not filled
      if (pos_.compare_exchange_weak(p, std::uint64_t{next} << offset_bits,
                                     std::memory_order_acq_rel, std::memory_order_acquire)) {
        if (on_switch_) on_switch_(on_switch_ctx_, t - next - 1, false);
        return;
      }
    }
  }

  /// Pulls the offset of generation `g`'s position back to `max_run_ids` (past the end of any
  /// run) when it has grown beyond: every caller that finds a run used up has added its claim
  /// to the offset, and while no next run comes (a store down for hours, callers retrying)
  /// these would otherwise carry into the generation above it, onto a segment already served.
  /// Between two pull-backs the offset grows by the claims in flight, each at most
  /// `max_claim`.
  void settle_offset(std::uint32_t g) noexcept {
    std::uint64_t p = pos_.load(std::memory_order_relaxed);
    while (gen_of(p) == g && (p & offset_mask) > max_run_ids) {
      if (pos_.compare_exchange_weak(p, (std::uint64_t{g} << offset_bits) | max_run_ids,
                                     std::memory_order_acq_rel, std::memory_order_relaxed))
        return;
    }
  }

  /// The run at generation `g` is used up (or missing, or expired): move the position to the
  /// next run, fetching segments from the store (`hungry_fetch`) when none is prefetched.
  /// Returns at once when another caller already moved on.
  void advance(std::uint32_t g) {
    settle_offset(g);
    bool told = false;
    for (;;) {
      const std::uint32_t next = after_run(g, run_of(g));
      advance_prefetched(g, next);
      if (gen_of(pos_.load(std::memory_order_acquire)) != g) return;
      // Nothing prefetched: tell the chain (it is hungry, unless nothing was ever fetched: a
      // first call that beat the worker), then fetch the next segments ourselves, unless a
      // store call already under way brings them.
      if (!told && store_calls_.load(std::memory_order_relaxed) != 0) {
        told = true;
        hungry_.fetch_add(1, std::memory_order_relaxed);
        if (on_switch_) on_switch_(on_switch_ctx_, 0, true);
      }
      std::unique_lock lk(mutex_, std::try_to_lock);
      if (!lk.owns_lock()) {
        // Another caller or the worker is calling the store: wait a moment for what it brings
        // (a fast store answers within microseconds) before sleeping on the mutex.
        const std::uint32_t t0 = tail_.load(std::memory_order_relaxed);
        for (int i = 0; i < hungry_spins && tail_.load(std::memory_order_relaxed) == t0; ++i)
          spin_pause();
        if (tail_.load(std::memory_order_relaxed) != t0) continue;
        lk.lock();
      }
      if (closed_) throw_segment_closed(dist_.store_name(), dist_.key());
      if (gen_of(pos_.load(std::memory_order_acquire)) != g) return;
      const std::uint32_t t = tail_.load(std::memory_order_relaxed);
      if (t == next) {
        const std::uint32_t room = mask_ - std::min(mask_ - 1, t - g);  // keeps a slot of margin
        const std::uint32_t want = leaf_max_segments_ != 0
                                       ? leaf_segments_locked()
                                       : hungry_fetch_.load(std::memory_order_relaxed);
        const std::uint32_t k = std::min(want, room);
        fill_locked(k, run_for(k));
      }
    }
  }

  /// The most segments in one run when `k` are fetched together.
  static std::uint32_t run_for(std::uint32_t k) noexcept {
    return std::max<std::uint32_t>(1, k / 8);
  }

  /// The segments the next store call takes under Leaf's rule: `step` at the first call, then
  /// `leaf_next_step` of the previous call's IDs over the time since it. Requires `mutex_`.
  [[nodiscard]] std::uint32_t leaf_segments_locked() const {
    if (leaf_calls_ == 0) return 1;
    const std::int64_t now = detail::unix_ns(clock_.now());
    const std::uint64_t cap =
        std::min(std::max(leaf_max_step, num_.step), num_.step * leaf_max_segments_);
    const std::uint64_t ids = leaf_next_step(std::uint64_t{leaf_segments_} * num_.step, num_.step,
                                             std::chrono::nanoseconds{now - leaf_at_ns_}, cap);
    return static_cast<std::uint32_t>(ids / num_.step);
  }

  /// Calls the store once for `k` segments, `next_max_id(k * step * stride)`, and puts them in
  /// the slots of generations `tail_` .. `tail_ + k - 1`, in runs of nearly equal length, at
  /// most `chunk` segments (and `max_run_ids` IDs) each. Requires `mutex_` held and `k` free
  /// slots. Throws `segment_store_error`. (step <= 2^31, stride <= 2^16 and k <= 2^16: the
  /// span fits 64 bits.)
  void fill_locked(std::uint32_t k, std::uint32_t chunk) {
    const std::uint64_t per_segment = num_.step * num_.stride;
    const std::uint64_t span = per_segment * k;
    const std::int64_t called = leaf_max_segments_ != 0 ? detail::unix_ns(clock_.now()) : 0;
    std::uint64_t max = take_locked(span);
    if (max - span + 1 < num_.start) {
      // The counter is below `start`: raise it to start - 1 (unless that one range already
      // reached it), then take the segments above it; the range below `start` is a gap.
      if (max < num_.start - 1) (void)take_locked(num_.start - 1 - max);
      max = take_locked(span);  // above start - 1: take_locked checks it lies above the last
    }
    if (leaf_max_segments_ != 0) {  // Leaf's rule times the next call from this one's start
      ++leaf_calls_;
      leaf_segments_ = k;
      leaf_at_ns_ = called;
      leaf_step_.store(std::uint64_t{k} * num_.step, std::memory_order_relaxed);
    }
    std::int64_t expires = std::numeric_limits<std::int64_t>::max();
    if (ttl_ms_ >= 0) {
      const std::int64_t now = detail::unix_ms(clock_.now());
      expires = now > std::numeric_limits<std::int64_t>::max() - ttl_ms_
                    ? std::numeric_limits<std::int64_t>::max()
                    : now + ttl_ms_;
    }
    const std::uint64_t first = num_.first_in(max, span);
    const std::uint32_t longest = std::min(chunk, max_run_);
    const std::uint32_t runs = (k + longest - 1) / longest;
    std::uint32_t i = 0;
    for (std::uint32_t r = 0; r < runs; ++r) {
      const std::uint32_t length = k / runs + (r < k % runs ? 1 : 0);
      for (std::uint32_t j = 0; j < length; ++j, ++i) {
        const std::uint32_t t = tail_.load(std::memory_order_relaxed);
        segment_slot& s = slots_[t & mask_];
        s.tag.store(0, std::memory_order_relaxed);
        s.first.store(first + std::uint64_t{i} * per_segment, std::memory_order_release);
        if (ttl_ms_ >= 0) expires_ms_[t & mask_].store(expires, std::memory_order_release);
        s.tag.store((std::uint64_t{t} << offset_bits) | ((length - j) * num_.step),
                    std::memory_order_release);
        tail_.store(t + 1, std::memory_order_release);
      }
    }
  }

  /// One store call, `next_max_id(span)`: returns the new max after checking that the range
  /// lies above every range taken before. A counter that went back once is refused for good:
  /// it lost ranges that others may have handed out above this one's last, so a later answer
  /// above that last proves nothing. Requires `mutex_` held. Throws `segment_store_error`.
  std::uint64_t take_locked(std::uint64_t span) {
    if (went_back_)
      fail_store("the counter went back below the previous max " + std::to_string(last_max_) +
                 " before: it may have lost ranges handed out since, so no range is taken from "
                 "it again (find the highest number in use, resume the counter above it and make "
                 "a new generator)");
    std::uint64_t max = 0;
    const std::int64_t t0 = detail::unix_ns(clock_.now());
    try {
      max = dist_.next_max_id(span);
    } catch (const segment_store_error& e) {
      record_failure(e.what());
      throw;
    } catch (const std::exception& e) {
      fail_store("next_max_id(" + std::to_string(span) + ") failed: " + e.what());
    }
    if (max < span || (have_max_ && max - span < last_max_)) {
      went_back_ = have_max_;
      fail_store("the store returned max " + std::to_string(max) + " for step " +
                 std::to_string(span) + ", which does not lie above the previous max " +
                 std::to_string(last_max_) + "; handing it out could repeat IDs");
    }
    have_max_ = true;
    last_max_ = max;
    round_trip_.add(detail::unix_ns(clock_.now()) - t0);
    round_trip_ns_.store(round_trip_.ns(), std::memory_order_relaxed);
    store_calls_.fetch_add(1, std::memory_order_relaxed);
    failing_.store(false, std::memory_order_relaxed);
    return max;
  }

  [[noreturn]] void fail_store(const std::string& detail) {
    record_failure(
        segment_store_error(std::string(dist_.store_name()), std::string(dist_.key()), detail)
            .what());
    throw segment_store_error(std::string(dist_.store_name()), std::string(dist_.key()), detail);
  }

  void record_failure(const std::string& detail) {
    store_failures_.fetch_add(1, std::memory_order_relaxed);
    failing_.store(true, std::memory_order_relaxed);
    std::lock_guard lk(error_mutex_);
    last_error_ = detail;
  }

  // Written by every caller: on its own cache line.
  alignas(64) std::atomic<std::uint64_t> pos_{0};
  // Read by every caller, written once per run (`publish`): on a line of its own. A copy of
  // the slot of the generation the position is in; tag 0 (a run of no IDs) until the first.
  alignas(64) segment_slot current_;
  // Read by every caller, written only before the first call: on a line of their own.
  alignas(64) std::unique_ptr<segment_slot[]> slots_;
  std::unique_ptr<std::atomic<std::int64_t>[]> expires_ms_;  // beside slots_[i]: expires_ms_[i]
  const std::uint32_t mask_;
  const std::int64_t ttl_ms_;  // -1: forever
  const segment_numbering num_;
  const std::uint32_t max_run_;  // the most segments in a run
  void (*on_switch_)(void*, std::size_t, bool) = nullptr;
  void* on_switch_ctx_ = nullptr;
  [[no_unique_address]] Clock clock_;
  // The next generation to fill; the ones after the current segment and before tail_ are
  // prefetched. Generation 0 is never filled, so the first call fetches. Written by store
  // calls.
  alignas(64) std::atomic<std::uint32_t> tail_{1};
  std::atomic<std::uint64_t> store_calls_{0};
  std::atomic<std::uint64_t> store_failures_{0};
  std::atomic<bool> failing_{false};  // the latest store call failed
  std::atomic<std::uint64_t> hungry_{0};
  std::atomic<std::uint32_t> hungry_fetch_{1};
  std::atomic<std::int64_t> round_trip_ns_{0};
  std::atomic<std::uint64_t> leaf_step_{0};
  std::uint32_t leaf_max_segments_ = 0;  // 0: no Leaf rule; set before any store call
  D dist_;
  mutable std::mutex mutex_;  // serialises store calls; guards the fields below
  bool closed_ = false;
  bool have_max_ = false;
  bool went_back_ = false;  // a store call answered below `last_max_`: refused for good
  std::uint64_t last_max_ = 0;
  round_trip_meter round_trip_;
  std::uint64_t leaf_calls_ = 0;     // store calls for segments under Leaf's rule
  std::uint32_t leaf_segments_ = 0;  // the segments the latest one took
  std::int64_t leaf_at_ns_ = 0;      // and when it started (Unix ns, the engine's clock)
  mutable std::mutex error_mutex_;   // guards last_error_ (stats never wait for the store)
  std::string last_error_;
  fork_stamp born_;
};

template <class D, class Clock>
consteval bool check_segment_params() {
  static_assert(segment_distributor<D>,
                "Distributor must model flakeid::segment_distributor: give it 'std::uint64_t "
                "next_max_id(std::uint64_t step)', 'store_name()' and 'key()' (see "
                "flakeid::memory_distributor and flakeid::file_distributor)");
  static_assert(clock_source<Clock>,
                "Clock must model flakeid::clock_source; use flakeid::wall_clock or "
                "flakeid::manual_clock");
  return true;
}

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
