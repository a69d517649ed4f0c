// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment/options.hpp
/// What a segment generator asks of a store counter (the `segment_distributor` concepts) and
/// the generators' options with their checks (`detail::segment_numbering`).

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include "../errors.hpp"
#include "../version.hpp"

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

/// Settings of a `segment_chain_generator`: its segments' (`segment`, the same settings as a
/// `segment_generator`'s) and how far it prefetches.
///
///     segment_chain_options{.segment = {.step = 5000, .start = 100'000}, .max_ahead = 256}
///
/// The worker keeps `ahead_factor` times the IDs that callers draw during one store round trip
/// plus a millisecond prefetched (the draw rate and the round trip as it measures them; see
/// `segment_chain_stats`), in whole segments, within [`min_ahead`, `max_ahead`]; a hungry
/// caller doubles that target for the moment. A chain holds a ring of
/// `bit_ceil(max_ahead * 3 / 2 + 3)` segment slots (`bit_ceil(max_ahead * 5 / 2 + 3)` with
/// `leaf_dynamic_step`),
/// 16 bytes each (24 with a `ttl`): 32 KiB at the default `max_ahead`.
struct segment_chain_options {
  /// The segments: IDs per segment, time to live, start, stride and remainder.
  segment_options segment{};
  /// The fewest segments kept prefetched ahead of the current one, in [1, 65536].
  std::size_t min_ahead = 2;
  /// The most segments kept prefetched ahead of the current one, in [min_ahead, 65536].
  std::size_t max_ahead = 1024;
  /// How many times the IDs drawn during a store round trip plus a millisecond the worker keeps
  /// prefetched, in [1, 64]. The worker is woken when half its target is left, so 2 covers a
  /// round trip with the rate the chain measured, and more covers a rate that rises faster.
  std::uint64_t ahead_factor = 2;
  /// Every store call takes the step of Leaf's dynamic-step rule instead of the segments
  /// missing from the target: the first `segment.step` IDs (set it to the `leaf_alloc` row's
  /// `step`, Leaf's least step); then, from the time since the previous call on the chain's
  /// clock, twice the last step when that was under `leaf_segment_duration` (15 min), unless
  /// that exceeds `leaf_max_step` (1,000,000 IDs) or `max_ahead` segments; the same under
  /// twice that (30 min); else half, but not below `segment.step`. Meant for a chain on Leaf's
  /// `leaf_alloc` (`mysql_store::distributor(biz_tag, mysql_table::leaf)`), where it takes the
  /// steps a Leaf server in dynamic-step mode would; any distributor accepts it.
  bool leaf_dynamic_step = false;
  /// The worker wakes at least this often to top the chain up and to shrink it when calm.
  std::chrono::milliseconds refill_period{100};
  /// After a store failure the worker waits this long before it tries again.
  std::chrono::milliseconds retry_after{50};
  /// IDs a thread takes from the chain at once and then serves from a thread-local block, in
  /// [1, segment.step] (a block holds at most 2^20 IDs, what one claim takes). 1 (the default) takes
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
  bool store_failing = false;        ///< whether the latest `next_max_id` call threw
  std::uint64_t hungry = 0;          ///< times a caller found no prefetched segment
  std::size_t ahead = 0;             ///< segments prefetched beyond the current one now
  std::size_t ahead_target = 0;      ///< how many the worker currently keeps ahead
  /// What the measurements call for: `ahead_factor` x `draw_rate` x (`round_trip` + 1 ms) in
  /// segments, within [min_ahead, max_ahead]; `ahead_target` is never below it.
  std::size_t ahead_needed = 0;
  /// IDs per second the callers draw, as the worker measured it: the fastest window of at least
  /// 1 ms between two of its looks, halved for every second since, unless a later one is faster.
  std::uint64_t draw_rate = 0;
  /// The store's round trip: the average of the successful store calls after the first (each
  /// new one weighs a quarter), timed on the chain's clock.
  std::chrono::nanoseconds round_trip{0};
  /// With `leaf_dynamic_step`: the IDs the latest store call took (0 before it, and without).
  std::uint64_t leaf_step = 0;
  std::string last_error;  ///< the message of the last store failure, or empty
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

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
