// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment.hpp
/// Segment generators: dense, strictly increasing IDs (1, 2, 3 ...) from a counter in a shared
/// store, handed out from segments the generator reserves in bulk.
///
///   segment_distributor            the concept of a store counter: `d.next_max_id(step)`
///                                  advances it atomically and returns the new maximum `max`;
///                                  the caller then owns the IDs `(max - step, max]`.
///   segment_generator<D, Clock>    serves its current segment lock-free and fetches the next
///                                  one from the store when it runs out (Leaf's segment mode).
///   segment_chain_generator<D, C>  keeps a chain of segments prefetched by a background worker;
///                                  the chain grows when callers drain it ("hungry") and shrinks
///                                  when they are calm (CosId's SegmentChainId). The store is
///                                  never called while a prefetched segment is left.
///   grouped_segment_generator<D,C> a counter per day, month or year (`orders@20250318`) that
///                                  restarts at 1 in every period: business numbers like
///                                  `20250318-0001`; old periods' counters expire
///                                  (`expiring_segment_distributor`).
///
/// Every store offers distributors (`store.distributor(key)`): `store/memory.hpp` and
/// `store/file.hpp` in the core, `adapters/redis.hpp` and `adapters/postgres.hpp` with their own
/// CMake targets.
///
///     flakeid::memory_store store;
///     flakeid::segment_chain_generator gen{store.distributor("orders"), {.step = 1000}};
///     std::uint64_t id = gen.next_id();  // 1, then 2, 3 ...
///
/// Guarantees: a generator never hands out an ID twice, and neither do two generators (in any
/// processes) on the same store counter, as long as the store never moves the counter back.
/// The IDs one thread receives from one generator are strictly increasing. Numbers a
/// generator reserved but did not hand out (at shutdown, a crash, an expired segment) are
/// skipped for good: gaps are possible, repeats are not.
///
/// How the fast path works: the segments a generator holds sit in a small ring of slots, and
/// one 64-bit word holds the generation of the current segment above the offset of the next
/// ID from its first:
///
///     63                    32 31                     0
///     +-----------------------+------------------------+
///     |  segment generation   |  offset from its first |
///     +-----------------------+------------------------+
///
/// `next_id()` reads a copy of the current run's slot (its generation, first ID and length),
/// then does one `fetch_add` on that word: ID = first + offset * stride while the word's
/// generation is the copy's and the offset lies in the run, the segments of consecutive
/// numbers that one store call fetched. Nothing it loads waits for the `fetch_add`. The
/// caller that runs past the run's end moves the word to the next run with a compare-and-swap
/// (chain: a run already prefetched) or, when none is ready, fetches segments from the store
/// under a mutex that serialises store calls.

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "clock.hpp"
#include "detail/fork_guard.hpp"
#include "errors.hpp"
#include "version.hpp"

// Keeps a generator's slow path (a new segment, a new thread block) out of line, so that the
// fast path, inlined into the caller, stays a few instructions that need few registers.
#if defined(__GNUC__) || defined(__clang__)
#define FLAKEID_SEGMENT_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define FLAKEID_SEGMENT_NOINLINE __declspec(noinline)
#else
#define FLAKEID_SEGMENT_NOINLINE
#endif

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

// ---- the distributor concept ---------------------------------------------------------------

/// A counter in a store that hands out segments: `d.next_max_id(step)` atomically adds `step`
/// to the counter and returns its new value `max`, so that the caller owns `(max - step, max]`.
/// A counter starts at 0, so its first segment begins at 1.
///
/// Requirements: `next_max_id` is atomic against every other user of the same counter (other
/// threads, processes, hosts) and never moves the counter back; it throws (preferably
/// `segment_store_error`) when the store cannot answer. `store_name()` and `key()` name the
/// store and the counter for error messages. A generator calls `next_max_id` from one thread at
/// a time (a chain calls it from its worker thread), so a distributor need not be thread-safe
/// itself; several generators must each have their own copy.
template <class D>
concept segment_distributor = std::move_constructible<D> &&
    requires(D& d, const D& cd, std::uint64_t step) {
  { d.next_max_id(step) } -> std::same_as<std::uint64_t>;
  { cd.store_name() } -> std::convertible_to<std::string_view>;
  { cd.key() } -> std::convertible_to<std::string_view>;
};

/// A `segment_distributor` that can open another counter of the same store:
/// `d.with_key(k)` returns a distributor for key `k` (used by `grouped_segment_generator`).
template <class D>
concept keyed_segment_distributor = segment_distributor<D> &&
    requires(const D& cd, const std::string& k) {
  { cd.with_key(k) } -> std::same_as<D>;
};

/// A `keyed_segment_distributor` whose counters may expire: after `d.expire_after(idle)`, every
/// later `d.next_max_id` also lets the store drop the counter once `idle` has passed since that
/// call, measured on the store's own clock (a Redis TTL; a cleanup in the other stores). Used by
/// `grouped_segment_generator` so that old periods' counters do not pile up. A counter that is
/// dropped counts from 0 again: only counters that nobody calls any more may expire.
template <class D>
concept expiring_segment_distributor = keyed_segment_distributor<D> &&
    requires(D& d, std::chrono::milliseconds idle) {
  { d.expire_after(idle) } -> std::same_as<void>;
};

// ---- options -------------------------------------------------------------------------------

/// A segment time to live that never runs out (the default).
inline constexpr std::chrono::milliseconds segment_ttl_forever = std::chrono::milliseconds::max();

/// The largest step a segment generator accepts (2^31 IDs per segment).
inline constexpr std::uint64_t max_segment_step = std::uint64_t{1} << 31;

/// The largest stride a segment generator accepts (2^16).
inline constexpr std::uint64_t max_segment_stride = std::uint64_t{1} << 16;

/// The largest `start` a segment generator accepts (2^63 - 1, the largest SQL BIGINT).
inline constexpr std::uint64_t max_segment_start =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

/// Settings of a `segment_generator`.
struct segment_options {
  /// IDs per segment, in [1, max_segment_step]. 1 fetches every ID from the store.
  std::uint64_t step = 1000;
  /// How long a segment may be used after it was fetched; what is left of it then is skipped.
  /// Keeps a slow process from handing out numbers far below the other processes' ones.
  std::chrono::milliseconds ttl = segment_ttl_forever;
  /// The smallest number handed out, in [1, max_segment_start]: a counter that must start
  /// above the rows a table already has. A counter still below it is raised to `start - 1`
  /// with one more store call (`next_max_id(start - 1 - max)`, so any store can do it); what
  /// it skips is a gap. Users of the counter without a `start` are not affected.
  std::uint64_t start = 1;
  /// Hand out only numbers `n` with `n % stride == remainder`, in [1, max_segment_stride]:
  /// counters in several stores interleave their numbers (MySQL's `auto_increment_increment`).
  /// A segment of `step` IDs then takes `step * stride` numbers of the counter, so every user
  /// of a counter still takes whole ranges of it, whatever its stride.
  std::uint64_t stride = 1;
  /// The remainder of every ID modulo `stride`, in [0, stride - 1] (`auto_increment_offset`
  /// modulo the increment).
  std::uint64_t remainder = 0;
};

/// Settings of a `segment_chain_generator`.
struct segment_chain_options {
  /// IDs per segment, in [1, max_segment_step].
  std::uint64_t step = 1000;
  /// Segments kept prefetched ahead of the current one when callers are calm (>= 1).
  std::size_t min_ahead = 2;
  /// The cap of prefetched segments when callers are hungry, in [min_ahead, 65536].
  std::size_t max_ahead = 64;
  /// The worker wakes at least this often to top the chain up and to shrink it when calm.
  std::chrono::milliseconds refill_period{100};
  /// After a store failure the worker waits this long before it tries again.
  std::chrono::milliseconds retry_after{50};
  /// How long a segment may be used after it was fetched (see `segment_options::ttl`).
  std::chrono::milliseconds ttl = segment_ttl_forever;
  /// The smallest number handed out (see `segment_options::start`).
  std::uint64_t start = 1;
  /// Hand out only numbers `n % stride == remainder` (see `segment_options::stride`).
  std::uint64_t stride = 1;
  /// The remainder of every ID modulo `stride`, in [0, stride - 1].
  std::uint64_t remainder = 0;
  /// IDs a thread takes from the chain at once and then serves from a thread-local block, in
  /// [1, step] (a block holds at most 2^20 IDs, what one claim takes). 1 (the default) takes
  /// every ID from the shared position. A larger block lets threads scale instead of moving
  /// one cache line between cores on every ID, at the cost of gaps (a block's unused IDs when
  /// a thread switches generators or the generator closes) and of order across threads (each
  /// thread's IDs still increase). A thread whose claims interleave with other threads' (the
  /// shared position moved between two of its claims) doubles its next block, up to a segment
  /// (at most 65536 IDs), and a thread alone halves it back to `thread_block`, so threads that
  /// draw hard touch the shared position less often.
  /// A block is served to its end even when its segment's time to live runs out meanwhile.
  std::uint64_t thread_block = 1;
};

/// A snapshot of a chain's state, for monitoring and tests.
struct segment_chain_stats {
  std::uint64_t store_calls = 0;     ///< successful `next_max_id` calls
  std::uint64_t store_failures = 0;  ///< `next_max_id` calls that threw
  std::uint64_t hungry = 0;          ///< times a caller found no prefetched segment
  std::size_t ahead = 0;             ///< segments prefetched beyond the current one now
  std::size_t ahead_target = 0;      ///< how many the worker currently keeps ahead
  std::string last_error;            ///< the message of the last store failure, or empty
};

namespace detail {

[[noreturn]] inline void throw_segment_option(const char* what, std::uint64_t value,
                                              std::uint64_t lo, std::uint64_t hi) {
  throw invalid_option_error("flakeid: segment option " + std::string(what) + " = " +
                             std::to_string(value) + " is out of range [" + std::to_string(lo) +
                             ", " + std::to_string(hi) + "]");
}

[[noreturn]] inline void throw_segment_closed(std::string_view store, std::string_view key) {
  throw segment_closed_error("flakeid: the segment generator on store " + std::string(store) +
                             ", key '" + std::string(key) +
                             "' is closed; it hands out no more IDs");
}

/// Tells the processor that the caller is spinning on a value another thread will change.
inline void spin_pause() noexcept {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
  asm volatile("yield");
#endif
}

inline void check_step(std::uint64_t step) {
  if (step < 1 || step > max_segment_step) throw_segment_option("step", step, 1, max_segment_step);
}

/// How a generator numbers its IDs: `step` IDs per segment, none below `start`, every ID
/// `% stride == remainder`.
struct segment_numbering {
  std::uint64_t step = 1000;
  std::uint64_t start = 1;
  std::uint64_t stride = 1;
  std::uint64_t remainder = 0;

  /// The numbering of generator options `o`; throws `invalid_option_error` naming a value out
  /// of range and the range.
  template <class Options>
  static segment_numbering of(const Options& o) {
    check_step(o.step);
    if (o.start < 1 || o.start > max_segment_start)
      throw_segment_option("start", o.start, 1, max_segment_start);
    if (o.stride < 1 || o.stride > max_segment_stride)
      throw_segment_option("stride", o.stride, 1, max_segment_stride);
    if (o.remainder >= o.stride) throw_segment_option("remainder", o.remainder, 0, o.stride - 1);
    return {o.step, o.start, o.stride, o.remainder};
  }

  /// The first ID of `k` segments in the counter range `(max - k * step * stride, max]`: the
  /// smallest number in it with the remainder. Segment `i` starts `i * step * stride` above.
  [[nodiscard]] constexpr std::uint64_t first_in(std::uint64_t max, std::uint64_t span) const {
    const std::uint64_t low = max - span + 1;
    return low + (remainder + stride - low % stride) % stride;
  }
};

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

/// A thread's block of IDs from a chain with `thread_block` > 1: next, next + stride, ... below
/// end, of chain `owner`. `want` is the size of the thread's next claim and `after` the
/// position word just after its last claim (to see whether other threads claimed since). On a
/// line of its own, so that nothing else is written beside it.
struct alignas(64) segment_thread_block {
  std::uint64_t owner = 0;
  std::uint64_t next = 0;
  std::uint64_t end = 0;
  std::uint64_t want = 0;
  std::uint64_t after = 0;
};

/// The calling thread's block (one per thread, shared by every chain: a thread that switches
/// chains starts a new block).
inline segment_thread_block& this_thread_segment_block() noexcept {
  static thread_local segment_thread_block block;
  return block;
}

/// A number no other chain in the process has: the owner of a block, never reused.
inline std::uint64_t next_segment_instance() noexcept {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

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
        expires_ms_(std::make_unique<std::atomic<std::int64_t>[]>(ring)),
        mask_(static_cast<std::uint32_t>(ring - 1)),  // ring: a power of two, at most 2^17
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
  /// worker, at least every eighth of the target). Holds the store mutex for that one call
  /// only.
  fill_result fill_step(std::size_t target) {
    std::lock_guard lk(mutex_);
    if (closed_) return fill_result::closed;
    const std::uint64_t p = pos_.load(std::memory_order_acquire);
    const std::uint32_t t = tail_.load(std::memory_order_relaxed);
    const std::uint32_t held = t - segment_at(p);  // current + ahead
    const std::uint32_t kept = t - gen_of(p);      // slots not to be refilled yet
    if (kept >= mask_ || held - 1 >= target) return fill_result::enough;  // a slot of margin
    const auto missing = static_cast<std::uint32_t>(
        std::min<std::size_t>(target - (held - 1), std::size_t{mask_ - kept}));
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
  FLAKEID_SEGMENT_NOINLINE std::uint64_t next_id_slow(std::uint64_t p) {
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
        const std::uint32_t k = std::min(hungry_fetch_.load(std::memory_order_relaxed), room);
        fill_locked(k, run_for(k));
      }
    }
  }

  /// The most segments in one run when `k` are fetched together.
  static std::uint32_t run_for(std::uint32_t k) noexcept {
    return std::max<std::uint32_t>(1, k / 8);
  }

  /// Calls the store once for `k` segments, `next_max_id(k * step * stride)`, and puts them in
  /// the slots of generations `tail_` .. `tail_ + k - 1`, in runs of nearly equal length, at
  /// most `chunk` segments (and `max_run_ids` IDs) each. Requires `mutex_` held and `k` free
  /// slots. Throws `segment_store_error`. (step <= 2^31, stride <= 2^16 and k <= 2^16: the
  /// span fits 64 bits.)
  void fill_locked(std::uint32_t k, std::uint32_t chunk) {
    const std::uint64_t per_segment = num_.step * num_.stride;
    const std::uint64_t span = per_segment * k;
    std::uint64_t max = take_locked(span);
    if (max - span + 1 < num_.start) {
      // The counter is below `start`: raise it to start - 1 (unless that one range already
      // reached it), then take the segments above it; the range below `start` is a gap.
      if (max < num_.start - 1) (void)take_locked(num_.start - 1 - max);
      max = take_locked(span);  // above start - 1: take_locked checks it lies above the last
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
        expires_ms_[t & mask_].store(expires, std::memory_order_release);
        s.tag.store((std::uint64_t{t} << offset_bits) | ((length - j) * num_.step),
                    std::memory_order_release);
        tail_.store(t + 1, std::memory_order_release);
      }
    }
  }

  /// One store call, `next_max_id(span)`: returns the new max after checking that the range
  /// lies above every range taken before. Requires `mutex_` held. Throws `segment_store_error`.
  std::uint64_t take_locked(std::uint64_t span) {
    std::uint64_t max = 0;
    try {
      max = dist_.next_max_id(span);
    } catch (const segment_store_error& e) {
      record_failure(e.what());
      throw;
    } catch (const std::exception& e) {
      fail_store("next_max_id(" + std::to_string(span) + ") failed: " + e.what());
    }
    if (max < span || (have_max_ && max - span < last_max_))
      fail_store("the store returned max " + std::to_string(max) + " for step " +
                 std::to_string(span) + ", which does not lie above the previous max " +
                 std::to_string(last_max_) + "; handing it out could repeat IDs");
    have_max_ = true;
    last_max_ = max;
    store_calls_.fetch_add(1, std::memory_order_relaxed);
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
  std::atomic<std::uint64_t> hungry_{0};
  std::atomic<std::uint32_t> hungry_fetch_{1};
  D dist_;
  mutable std::mutex mutex_;  // serialises store calls; guards the fields below
  bool closed_ = false;
  bool have_max_ = false;
  std::uint64_t last_max_ = 0;
  mutable std::mutex error_mutex_;  // guards last_error_ (stats never wait for the store)
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

// ---- segment_generator ---------------------------------------------------------------------

/// Dense, strictly increasing IDs from a store counter, a segment of `step` IDs at a time:
/// the current segment is served lock-free; the caller that runs past its end fetches the next
/// one from the store (one `next_max_id(step)` call) while the others wait for it.
///
/// Requirements: `Distributor` models `segment_distributor`; `Clock` models `clock_source` (it
/// is read only for segments with a time to live). Throws: `invalid_option_error` from the
/// constructor for a bad option; `segment_store_error` from `next_id` when the store fails
/// (nothing is handed out; the next call tries the store again); `segment_closed_error` after
/// `close()`. The constructor does not call the store. Thread-safety: all members may be
/// called concurrently; IDs are unique across threads and increasing within each thread.
/// Fork: in a child forked after the generator was made, every call throws
/// `forked_process_error` before it takes a lock or reads the parent's segment.
///
///     flakeid::memory_store store;
///     flakeid::segment_generator gen{store.distributor("invoices"), {.step = 100}};
///     gen.next_id();  // 1
template <class Distributor, class Clock = wall_clock>
class segment_generator {
  static_assert(detail::check_segment_params<Distributor, Clock>());

 public:
  using distributor_type = Distributor;
  using clock_type = Clock;

  /// A generator on counter `d` with `opts` (step, time to live).
  explicit segment_generator(Distributor d, segment_options opts = {}, Clock clock = Clock{})
      : engine_(std::move(d), std::move(clock), detail::segment_numbering::of(opts), opts.ttl, 4) {}

  /// A generator on counter `d` with segments of `step` IDs.
  segment_generator(Distributor d, std::uint64_t step, Clock clock = Clock{})
      : segment_generator(std::move(d), segment_options{.step = step}, std::move(clock)) {}

  segment_generator(const segment_generator&) = delete;
  segment_generator& operator=(const segment_generator&) = delete;

  /// The next ID. Throws `segment_store_error`, `segment_closed_error`, or
  /// `forked_process_error` in a child forked after the generator was made.
  [[nodiscard]] std::uint64_t next_id() {
    engine_.check_fork(forked_what);
    return engine_.next_id();
  }

  /// Fills `out` with increasing IDs (consecutive within a segment). On a throw, the IDs
  /// already written to `out` are handed out and the rest of `out` is unspecified.
  void next_ids(std::span<std::uint64_t> out) {
    engine_.check_fork(forked_what);
    engine_.next_ids(out);
  }

  /// Stops the generator: later calls throw `segment_closed_error`. The rest of the current
  /// segment is never handed out (a gap in the counter); store state is untouched.
  void close() { engine_.close(); }

  /// The distributor (store and key).
  [[nodiscard]] const Distributor& distributor() const noexcept { return engine_.distributor(); }
  /// IDs per segment.
  [[nodiscard]] std::uint64_t step() const noexcept { return engine_.step(); }
  /// The distance between two consecutive IDs of a segment (1 unless interleaving).
  [[nodiscard]] std::uint64_t stride() const noexcept { return engine_.stride(); }
  /// Every ID's remainder modulo `stride()`.
  [[nodiscard]] std::uint64_t remainder() const noexcept { return engine_.remainder(); }
  /// Successful store calls so far.
  [[nodiscard]] std::uint64_t store_calls() const noexcept { return engine_.store_calls(); }

 private:
  static constexpr std::string_view forked_what = "this segment generator";
  detail::segment_engine<Distributor, Clock> engine_;
};

// ---- segment_chain_generator ---------------------------------------------------------------

/// Dense, strictly increasing IDs from a store counter with a chain of segments prefetched by a
/// background worker, so callers never wait for the store while the chain holds a segment.
///
/// The worker keeps `ahead_target` segments prefetched beyond the current one, starting at
/// `min_ahead`. When a caller finds no prefetched segment (the chain is "hungry") the target
/// doubles, up to `max_ahead`; after a refill period with no hunger in which callers used at
/// most half the target, it halves again, down to `min_ahead`. A hungry caller fetches the
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
        engine_(std::move(d), std::move(clock), detail::segment_numbering::of(opts), opts.ttl,
                std::bit_ceil(opts.max_ahead + opts.max_ahead / 2 + 3)),
        target_(opts.min_ahead) {
    engine_.on_switch(&segment_chain_generator::switched, this);
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
        b.next = id + opts_.stride;
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
        for (; i < out.size() && b.next < b.end; b.next += opts_.stride) out[i++] = b.next;
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

  /// A snapshot of the chain: store calls and failures, hunger, segments ahead and the target.
  [[nodiscard]] segment_chain_stats stats() const {
    segment_chain_stats s;
    s.store_calls = engine_.store_calls();
    s.store_failures = engine_.store_failures();
    s.hungry = engine_.hungry();
    s.ahead = engine_.ahead();
    s.ahead_target = target_.load(std::memory_order_relaxed);
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
    (void)detail::segment_numbering::of(o);
    if (o.min_ahead < 1 || o.min_ahead > 65536)
      detail::throw_segment_option("min_ahead", o.min_ahead, 1, 65536);
    if (o.max_ahead < o.min_ahead || o.max_ahead > 65536)
      detail::throw_segment_option("max_ahead", o.max_ahead, o.min_ahead, 65536);
    if (o.refill_period.count() < 1)
      detail::throw_segment_option("refill_period (ms)",
                                   static_cast<std::uint64_t>(o.refill_period.count()), 1,
                                   std::numeric_limits<std::uint32_t>::max());
    if (o.retry_after.count() < 1)
      detail::throw_segment_option("retry_after (ms)",
                                   static_cast<std::uint64_t>(o.retry_after.count()), 1,
                                   std::numeric_limits<std::uint32_t>::max());
    if (o.thread_block < 1 || o.thread_block > o.step)
      detail::throw_segment_option("thread_block", o.thread_block, 1, o.step);
    return o;
  }

  static constexpr std::chrono::nanoseconds min_wake_gap{std::chrono::milliseconds{1}};
  static constexpr std::string_view forked_what = "this segment chain generator";

  // The owner of no block: `block_owner_` after close.
  static constexpr std::uint64_t closed_owner = std::numeric_limits<std::uint64_t>::max();

  // This thread's block is used up (or another chain's, or the chain closed): claims the next
  // one. A thread whose claims interleave with other threads' (the position moved between two
  // of its claims in one segment) doubles its block, up to a segment (at most 2^16), so that
  // threads touch the shared position less often; a thread alone halves it back down to
  // `thread_block`.
  FLAKEID_SEGMENT_NOINLINE std::uint64_t next_block(detail::segment_thread_block& b) {
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
    b.next = first + opts_.stride;
    b.end = first + got * opts_.stride;
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
      std::size_t target = target_.load(std::memory_order_relaxed);
      if (!woken && !hungry_.load(std::memory_order_relaxed)) {
        // A whole refill period without a wake-up: calm when callers moved past at most half
        // the target of segments.
        const std::uint32_t now = engine_.current_segment();
        const std::uint32_t used = now - counted_;
        counted_ = now;
        if (std::size_t{used} * 2 <= target) {
          target_.store(target = std::max(target / 2, opts_.min_ahead));
          engine_.hungry_fetch(target);
        }
      }
      for (;;) {
        if (hungry_.exchange(false, std::memory_order_relaxed)) {
          // A caller found the chain empty: prefetch further ahead.
          target_.store(target = std::min(target * 2, opts_.max_ahead), std::memory_order_relaxed);
          engine_.hungry_fetch(target);
          counted_ = engine_.current_segment();
        }
        if (stopping_.load(std::memory_order_relaxed)) return;
        const fill_result r = engine_.fill_step(target);
        failed = r == fill_result::failed;
        if (r != fill_result::filled) break;
      }
    }
  }

  // Read by every call, written only by close(): apart from what the worker writes.
  segment_chain_options opts_;
  const std::uint64_t instance_ = detail::next_segment_instance();
  const std::uint64_t max_block_ =
      std::max(opts_.thread_block, std::min<std::uint64_t>(opts_.step, 65536));
  std::atomic<std::uint64_t> block_owner_{instance_};  // closed_owner after close
  std::atomic<bool> stopping_{false};
  detail::segment_engine<Distributor, Clock> engine_;
  // The worker's state, on lines of its own.
  alignas(64) std::atomic<std::size_t> target_;
  std::atomic<bool> hungry_{false};
  std::atomic<bool> wake_{false};
  std::atomic<std::int64_t> last_wake_ns_{std::numeric_limits<std::int64_t>::min() / 2};
  std::uint32_t counted_ = 0;  // the generation at the last calm check (worker only)
  std::mutex wake_mutex_;
  std::condition_variable wake_cv_;
  bool stop_ = false;  // guarded by wake_mutex_
  std::mutex join_mutex_;
  std::thread worker_;
};

// ---- grouped counters ----------------------------------------------------------------------

/// `keep_periods` of a `grouped_segment_generator` that never lets a period's counter expire.
inline constexpr std::uint32_t group_keep_forever = 0;

/// The largest `keep_periods` a `grouped_segment_generator` accepts.
inline constexpr std::uint32_t max_group_keep_periods = 1000;

/// How often a grouped counter restarts.
enum class group_period : std::uint8_t {
  day,    ///< key `name@YYYYMMDD`
  month,  ///< key `name@YYYYMM`
  year,   ///< key `name@YYYY`
};

/// One number of a grouped counter: the period stamp (20250318, 202503 or 2025) and the
/// number within that period (1, 2, ...).
struct grouped_id {
  std::uint32_t stamp = 0;
  std::uint64_t number = 0;

  /// The stamp, `sep` and the number zero-padded to `width` digits: `20250318-0001`. A number
  /// with more digits is written in full (still unique, no longer fixed-width).
  [[nodiscard]] std::string to_string(std::size_t width = 4, std::string_view sep = "-") const {
    std::string n = std::to_string(number);
    if (n.size() < width) n.insert(0, width - n.size(), '0');
    return std::to_string(stamp) + std::string(sep) + n;
  }

  /// Stamp and number as one decimal number, `stamp * 10^width + number` (`202503180001`).
  /// Throws `std::overflow_error` when the number needs more than `width` digits or the
  /// result passes 2^64 - 1.
  [[nodiscard]] std::uint64_t packed(unsigned width = 4) const {
    std::uint64_t scale = 1;
    for (unsigned i = 0; i < width; ++i) {
      if (scale > std::numeric_limits<std::uint64_t>::max() / 10) scale = 0;
      scale *= 10;
    }
    if (scale == 0 || number >= scale ||
        stamp > (std::numeric_limits<std::uint64_t>::max() - number) / scale)
      throw timestamp_overflow_error("flakeid: grouped number " + std::to_string(number) +
                                     " of group " + std::to_string(stamp) + " does not fit " +
                                     std::to_string(width) + " digits");
    return stamp * scale + number;
  }

  friend constexpr bool operator==(const grouped_id&, const grouped_id&) = default;
};

/// A counter that restarts at 1 every day, month or year: each period has its own store key,
/// `key@20250318` (day), `key@202503` (month) or `key@2025` (year), served by a
/// `segment_generator`. For business numbers such as `20250318-0001`.
///
/// The period follows `Clock` shifted by `utc_offset` (0: UTC; `+8h` for China Standard Time),
/// so tests drive it with `flakeid::manual_clock`. A call reads the clock once and returns the
/// stamp and number together, so a number is never paired with the wrong day.
///
/// Old periods' counters expire: when `Distributor` models `expiring_segment_distributor`,
/// each period's counter may be dropped by the store `keep_periods` whole periods after its
/// period ended (1 by default: a day counter lives until the end of the next day, on the
/// generator's clock when the period began plus the store's clock since). `group_keep_forever`
/// keeps them all. A process whose clock is behind by more than `keep_periods` periods could
/// make a dropped counter anew and repeat its numbers.
///
/// Requirements: `Distributor` models `keyed_segment_distributor`. Throws as
/// `segment_generator`, and `invalid_option_error` for `keep_periods` above
/// `max_group_keep_periods`. Thread-safety: all members may be called concurrently. The
/// generator keeps a small state (a few hundred bytes) for every period it has served until it
/// is destroyed.
///
///     flakeid::grouped_segment_generator gen{store.distributor("orders"), flakeid::group_period::day,
///                                            {.step = 50}};
///     gen.next().to_string();  // "20250318-0001"
template <class Distributor, class Clock = wall_clock>
class grouped_segment_generator {
  static_assert(detail::check_segment_params<Distributor, Clock>());
  static_assert(keyed_segment_distributor<Distributor>,
                "grouped_segment_generator opens a key per period: the distributor needs "
                "'Distributor with_key(const std::string&) const'");

 public:
  using distributor_type = Distributor;
  using clock_type = Clock;

  /// Counters `base.key()@<stamp>` restarting every `period`, segments per `opts`, each kept
  /// `keep_periods` whole periods after its own (`group_keep_forever`: always).
  grouped_segment_generator(Distributor base, group_period period, segment_options opts = {},
                            Clock clock = Clock{},
                            std::chrono::minutes utc_offset = std::chrono::minutes{0},
                            std::uint32_t keep_periods = 1)
      : base_(std::move(base)),
        period_(period),
        opts_(opts),
        clock_(std::move(clock)),
        offset_(utc_offset),
        keep_periods_(keep_periods) {
    (void)detail::segment_numbering::of(opts);
    if (keep_periods > max_group_keep_periods)
      throw invalid_option_error(
          "flakeid: grouped counter keep_periods = " + std::to_string(keep_periods) +
          " is out of range [0, " + std::to_string(max_group_keep_periods) + "]");
  }

  grouped_segment_generator(const grouped_segment_generator&) = delete;
  grouped_segment_generator& operator=(const grouped_segment_generator&) = delete;

  /// The next number of the current period, with the period's stamp.
  [[nodiscard]] grouped_id next() {
    born_.check("this grouped segment generator");
    const std::int64_t now = detail::unix_ms(clock_.now());
    group* g = current_.load(std::memory_order_acquire);
    if (g == nullptr || now < g->start_ms || now >= g->end_ms) [[unlikely]]
      g = switch_to(now);
    return {g->stamp, g->gen.next_id()};
  }

  /// The next number alone (the stamp of its period is lost: prefer `next()`).
  [[nodiscard]] std::uint64_t next_id() { return next().number; }

  /// Fills `out` with the next numbers (each with its period's stamp).
  void next_ids(std::span<grouped_id> out) {
    for (auto& x : out) x = next();
  }

  /// The stamp of the period that holds Unix time `t` (UTC shifted by the offset).
  [[nodiscard]] std::uint32_t stamp_at(std::chrono::sys_time<std::chrono::milliseconds> t) const {
    return bounds(t.time_since_epoch().count()).stamp;
  }

  /// The store key of the period that holds `t`: `orders@20250318`.
  [[nodiscard]] std::string key_at(std::chrono::sys_time<std::chrono::milliseconds> t) const {
    return std::string(base_.key()) + "@" + std::to_string(stamp_at(t));
  }

  /// Stops every period's generator: later calls throw `segment_closed_error`.
  void close() {
    if (born_.forked()) return;
    std::lock_guard lk(mutex_);
    closed_ = true;
    for (auto& g : groups_) g->gen.close();
  }

 private:
  struct period_bounds {
    std::uint32_t stamp;
    std::int64_t start_ms;
    std::int64_t end_ms;
  };

  struct group {
    group(Distributor d, const segment_options& o, const Clock& c, period_bounds b)
        : stamp(b.stamp), start_ms(b.start_ms), end_ms(b.end_ms), gen(std::move(d), o, c) {}
    std::uint32_t stamp;
    std::int64_t start_ms;
    std::int64_t end_ms;
    segment_generator<Distributor, Clock> gen;
  };

  [[nodiscard]] period_bounds bounds(std::int64_t unix_ms) const {
    using namespace std::chrono;
    const std::int64_t off = duration_cast<milliseconds>(offset_).count();
    const sys_days day = floor<days>(sys_time<milliseconds>{milliseconds{unix_ms + off}});
    const year_month_day ymd{day};
    const int y = static_cast<int>(ymd.year());
    const unsigned m = static_cast<unsigned>(ymd.month());
    const unsigned d = static_cast<unsigned>(ymd.day());
    sys_days from = day;
    sys_days to = day + days{1};
    std::uint32_t stamp = 0;
    switch (period_) {
      case group_period::day: stamp = static_cast<std::uint32_t>(y * 10000) + m * 100 + d; break;
      case group_period::month:
        from = sys_days{ymd.year() / ymd.month() / 1};
        to = sys_days{(ymd.year() / ymd.month() / 1) + months{1}};
        stamp = static_cast<std::uint32_t>(y * 100) + m;
        break;
      case group_period::year:
        from = sys_days{ymd.year() / January / 1};
        to = sys_days{(ymd.year() + years{1}) / January / 1};
        stamp = static_cast<std::uint32_t>(y);
        break;
    }
    const auto ms = [&](sys_days x) {
      return duration_cast<milliseconds>(x.time_since_epoch()).count() - off;
    };
    return {stamp, ms(from), ms(to)};
  }

  group* switch_to(std::int64_t now) {
    std::lock_guard lk(mutex_);
    if (closed_) detail::throw_segment_closed(base_.store_name(), base_.key());
    group* g = current_.load(std::memory_order_relaxed);
    if (g != nullptr && now >= g->start_ms && now < g->end_ms) return g;
    const period_bounds b = bounds(now);
    // A period served before (a caller whose clock reading is older than the switch, or a
    // clock that went back) goes on with its own generator.
    for (auto it = groups_.rbegin(); it != groups_.rend(); ++it) {
      if ((*it)->start_ms == b.start_ms) {
        if (g == nullptr || (*it)->start_ms > g->start_ms)
          current_.store(it->get(), std::memory_order_release);
        return it->get();
      }
    }
    Distributor d = base_.with_key(std::string(base_.key()) + "@" + std::to_string(b.stamp));
    if constexpr (expiring_segment_distributor<Distributor>) {
      if (keep_periods_ != group_keep_forever) {
        // Kept until the end of the keep_periods-th period after this one, counted from now.
        std::int64_t until = b.end_ms;
        for (std::uint32_t i = 0; i < keep_periods_; ++i) until = bounds(until).end_ms;
        d.expire_after(std::chrono::milliseconds{until - now});
      }
    }
    groups_.push_back(std::make_unique<group>(std::move(d), opts_, clock_, b));
    group* fresh = groups_.back().get();
    if (g == nullptr || fresh->start_ms > g->start_ms)
      current_.store(fresh, std::memory_order_release);
    return fresh;
  }

  Distributor base_;
  group_period period_;
  segment_options opts_;
  [[no_unique_address]] Clock clock_;
  std::chrono::minutes offset_;
  std::uint32_t keep_periods_;
  std::atomic<group*> current_{nullptr};
  std::mutex mutex_;
  bool closed_ = false;
  std::vector<std::unique_ptr<group>> groups_;
  detail::fork_stamp born_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
