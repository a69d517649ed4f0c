// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment/sizing.hpp
/// How a `segment_chain_generator` sizes itself: the look-ahead from the measured draw rate and
/// store round trip (`detail::ahead_for`, `detail::draw_rate_meter`,
/// `detail::round_trip_meter`), and Leaf's dynamic step (`detail::leaf_next_step`).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// Leaf's dynamic step: how long a segment should last (15 minutes).
inline constexpr std::chrono::minutes leaf_segment_duration{15};

/// Leaf's dynamic step: the largest step it doubles to (1,000,000 IDs).
inline constexpr std::uint64_t leaf_max_step = 1'000'000;

namespace detail {

/// The time a chain's look-ahead covers beyond the store's round trip: the least time between
/// two wake-ups of its worker by callers (`segment_chain_generator`'s `min_wake_gap`).
inline constexpr std::chrono::nanoseconds chain_wake_gap{std::chrono::milliseconds{1}};

/// The highest round trip and draw rate the sizing counts with (10 s; 10^12 IDs per second):
/// their product stays within 64 bits.
inline constexpr std::chrono::nanoseconds max_sized_round_trip{std::chrono::seconds{10}};
inline constexpr std::uint64_t max_sized_rate = 1'000'000'000'000;

/// The segments a chain keeps prefetched: `factor` times the IDs drawn at `rate` (IDs per
/// second) while the store answers one call (`round_trip`) and the worker may not be woken
/// again (`chain_wake_gap`), in segments of `step` IDs, rounded up, within [`lo`, `hi`].
///
///     ahead_for(2'000'000, 5ms, 1000, 2, 1, 64) == 24   // 2 x 2e6/s x 6 ms = 24,000 IDs
[[nodiscard]] constexpr std::size_t ahead_for(std::uint64_t rate,
                                              std::chrono::nanoseconds round_trip,
                                              std::uint64_t step, std::uint64_t factor,
                                              std::size_t lo, std::size_t hi) noexcept {
  constexpr std::uint64_t giga = 1'000'000'000;
  const std::int64_t rt = round_trip.count() < 0              ? 0
                          : round_trip > max_sized_round_trip ? max_sized_round_trip.count()
                                                              : round_trip.count();
  const auto cover = static_cast<std::uint64_t>(rt + chain_wake_gap.count());  // <= 1.0001e10
  const std::uint64_t r = rate < max_sized_rate ? rate : max_sized_rate;
  // rate x cover / 1e9 without overflow: (r / 1e9) x cover <= 1e13, (r % 1e9) x cover < 1.1e19.
  const std::uint64_t ids = (r / giga) * cover + (r % giga) * cover / giga;
  const std::uint64_t want = ids * factor;  // ids <= 1.1e13, factor <= 64
  const std::uint64_t segments = step == 0 ? 0 : (want + step - 1) / step;
  if (segments <= lo) return lo;
  return segments >= hi ? hi : static_cast<std::size_t>(segments);
}

/// Leaf's dynamic-step rule: the step of the next store call after one of `step` IDs made
/// `since` ago. Shorter than `leaf_segment_duration`: twice `step`, unless that exceeds
/// `max_step` (then `step`); shorter than twice that: `step`; else half of `step` when that is
/// still at least `min_step` (the configured step), else `step`.
///
///     leaf_next_step(2000, 1000, 10min, leaf_max_step) == 4000
///     leaf_next_step(2000, 1000, 40min, leaf_max_step) == 1000
[[nodiscard]] constexpr std::uint64_t leaf_next_step(std::uint64_t step, std::uint64_t min_step,
                                                     std::chrono::nanoseconds since,
                                                     std::uint64_t max_step) noexcept {
  if (since < leaf_segment_duration) return step * 2 > max_step ? step : step * 2;
  if (since < 2 * leaf_segment_duration) return step;
  return step / 2 >= min_step ? step / 2 : step;
}

/// The store's round trip a chain sizes by: an average of its calls' times, each new one
/// weighing a quarter (`rt += (sample - rt) / 4`), from the second call on (the first one
/// also opens the connection). Not thread-safe: written under the engine's store mutex.
class round_trip_meter {
 public:
  /// Counts one store call that took `ns` nanoseconds (a negative time, a clock stepped back
  /// during the call, counts as 0).
  void add(std::int64_t ns) noexcept {
    if (ns < 0) ns = 0;
    if (calls_++ == 0) return;
    rt_ = calls_ == 2 ? ns : rt_ + (ns - rt_) / 4;
  }
  /// The average in nanoseconds; 0 before the second call.
  [[nodiscard]] std::int64_t ns() const noexcept { return rt_; }

 private:
  std::uint64_t calls_ = 0;
  std::int64_t rt_ = 0;
};

/// The draw rate a chain sizes by (IDs per second). A window opens at the chain's start and
/// closes at the first look of the worker at least `min_window` after it opened; its rate is
/// the IDs of the segments callers moved into meanwhile over its length. The rate is the
/// highest of a window, halved for every `half_life` since that window closed, unless a later
/// window is faster: a chain keeps its look-ahead through pauses between bursts of draws, and
/// shrinks it within seconds once callers draw less. Not thread-safe: the worker's own.
class draw_rate_meter {
 public:
  static constexpr std::int64_t min_window = 1'000'000;     // 1 ms
  static constexpr std::int64_t half_life = 1'000'000'000;  // 1 s

  /// Opens the first window at Unix ns `now`, with callers in segment generation `segment`.
  void start(std::int64_t now, std::uint32_t segment) noexcept {
    at_ = now;
    segment_ = segment;
  }

  /// A look at Unix ns `now`, with callers in generation `segment` of segments of `step` IDs:
  /// closes the window when it is at least `min_window` long. A clock that went back opens a
  /// new window.
  void look(std::int64_t now, std::uint32_t segment, std::uint64_t step) noexcept {
    if (now < at_) {
      start(now, segment);
      return;
    }
    const std::int64_t length = now - at_;
    if (length < min_window) return;
    // Generations only move on; one behind the window's start is the chain before its first
    // segment (the window opens at generation 1), which counts as none.
    const auto moved = static_cast<std::int32_t>(segment - segment_);
    const std::uint64_t ids = moved > 0 ? static_cast<std::uint64_t>(moved) * step : 0;
    const double r = static_cast<double>(ids) * 1e9 / static_cast<double>(length);
    const std::uint64_t sample =
        r >= static_cast<double>(max_sized_rate) ? max_sized_rate : static_cast<std::uint64_t>(r);
    start(now, segment);
    if (sample >= rate(now)) {
      peak_ = sample;
      peak_at_ = now;
    }
  }

  /// The rate at Unix ns `now` (IDs per second; 0 before the first window closed).
  [[nodiscard]] std::uint64_t rate(std::int64_t now) const noexcept {
    const std::int64_t halvings = now <= peak_at_ ? 0 : (now - peak_at_) / half_life;
    return halvings >= 64 ? 0 : peak_ >> halvings;
  }

 private:
  std::int64_t at_ = 0;
  std::uint32_t segment_ = 0;
  std::uint64_t peak_ = 0;
  std::int64_t peak_at_ = 0;
};

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
