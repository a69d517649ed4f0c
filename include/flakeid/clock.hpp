// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file clock.hpp
/// Clocks a generator reads its time from, and the concept they model.
///
///   wall_clock     std::chrono::system_clock: the default; follows every step of the wall clock.
///   tick_clock     reads the wall clock once, then counts with a monotonic clock, so a step of
///                  the wall clock does not move it; reports its drift from the wall clock.
///   manual_clock   set, advanced and stepped back by tests; copies share one time; thread-safe.
///
/// A clock models `flakeid::clock_source`: the `std::chrono` Clock members (`rep`, `period`,
/// `duration`, `time_point`, `is_steady`, `now()`), with `now()` static or a member, and a
/// `time_point` of `std::chrono::system_clock` (Unix time). It may have a member
/// `sleep_for(std::chrono::nanoseconds)`; a generator that waits calls it instead of
/// `std::this_thread::sleep_for`, which lets `manual_clock` move its time instead of sleeping.
/// It may have a member `now_fenced()`, a reading the CPU does not take before the loads that
/// precede it, for a clock whose `now()` may be taken early (a bare `rdtsc`); a generator that
/// finds the clock behind its state reads it again that way before calling it a step back.

#if defined(_WIN32)
#include <thread>
#else
#include <time.h>  // NOLINT(modernize-deprecated-headers): nanosleep is POSIX, not <ctime>
#include <cerrno>
#endif

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include "detail/counted_ptr.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {
/// `std::this_thread::sleep_for` without `<thread>` in the engine's include path (POSIX:
/// `nanosleep`, resumed after a signal for the time left).
inline void sleep_for(std::chrono::nanoseconds d) {
  if (d <= std::chrono::nanoseconds::zero()) return;
#if defined(_WIN32)
  std::this_thread::sleep_for(d);
#else
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(d);
  timespec left{};
  left.tv_sec = static_cast<time_t>(secs.count());
  left.tv_nsec = static_cast<long>((d - secs).count());
  while (::nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
#endif
}
}  // namespace detail

/// A clock a generator can read Unix time from (see the file comment).
template <class C>
concept clock_source = requires(const C& c) {
  typename C::rep;
  typename C::period;
  typename C::duration;
  typename C::time_point;
  { C::is_steady } -> std::convertible_to<bool>;
  { c.now() } -> std::same_as<typename C::time_point>;
  requires std::same_as<typename C::time_point::clock, std::chrono::system_clock>;
}
&&std::copy_constructible<C>;

/// The system wall clock. Stateless; `now()` is `std::chrono::system_clock::now()`.
struct wall_clock {
  using rep = std::chrono::system_clock::rep;
  using period = std::chrono::system_clock::period;
  using duration = std::chrono::system_clock::duration;
  using time_point = std::chrono::system_clock::time_point;
  static constexpr bool is_steady = false;
  [[nodiscard]] static time_point now() noexcept { return std::chrono::system_clock::now(); }
};

namespace detail {

/// A type whose static `now()` reads Unix time (a `std::chrono::system_clock` time point).
template <class W>
concept static_wall_clock = requires {
  W::now();
  requires std::same_as<typename decltype(W::now())::clock, std::chrono::system_clock>;
};

}  // namespace detail

/// A wall clock that reads the wall clock `Wall` once, at construction, and from then on
/// advances with the monotonic clock `Monotonic`: a step of the wall clock (NTP, an operator,
/// a VM resume) does not move it, so a generator on it never sees time go back.
///
/// `drift()` says how far the wall clock has moved away since (wall minus tick time), for
/// monitoring. Copies share the same base reading. Thread-safe: `now()` only reads.
///
/// Requires: `Monotonic::now()` static and `Monotonic::is_steady`; `Wall::now()` static,
/// returning a `std::chrono::system_clock` time point (Unix time). `Wall` defaults to
/// `std::chrono::system_clock`; a test passes a wall clock it can step, to show that the tick
/// clock does not follow it and that `drift()` reports the step.
template <class Monotonic = std::chrono::steady_clock, class Wall = std::chrono::system_clock>
class basic_tick_clock {
  static_assert(Monotonic::is_steady,
                "basic_tick_clock needs a monotonic clock: pass one whose is_steady is true, "
                "e.g. std::chrono::steady_clock");
  static_assert(detail::static_wall_clock<Wall>,
                "basic_tick_clock needs a wall clock with a static now() that returns a "
                "std::chrono::system_clock time point: pass std::chrono::system_clock or such a "
                "type");

 public:
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::sys_time<duration>;
  static constexpr bool is_steady = false;  // Unix time, though it never steps

  /// Reads `Wall` and the monotonic clock once, back to back. The monotonic clock is
  /// read once before, so that a first reading that sets it up (`tsc_steady_clock` calibrates)
  /// does not come between the two.
  basic_tick_clock() noexcept : basic_tick_clock(warm_up{}) {}

  /// Starts from a given wall time (a restored state, a test).
  explicit basic_tick_clock(time_point start) noexcept
      : base_wall_(start), base_mono_(Monotonic::now()) {}

  [[nodiscard]] time_point now() const noexcept {
    return base_wall_ + std::chrono::duration_cast<duration>(Monotonic::now() - base_mono_);
  }
  /// `now()` from `Monotonic::now_fenced()`: a reading not taken before earlier loads (only
  /// when `Monotonic` has it, as `tsc_steady_clock` does).
  [[nodiscard]] time_point now_fenced() const noexcept requires requires {
    Monotonic::now_fenced();
  }
  {
    return base_wall_ + std::chrono::duration_cast<duration>(Monotonic::now_fenced() - base_mono_);
  }
  /// The wall clock minus this clock's time: positive when the wall clock is ahead.
  [[nodiscard]] duration drift() const noexcept {
    return std::chrono::duration_cast<duration>(Wall::now() - now());
  }
  /// The wall time read at construction.
  [[nodiscard]] time_point base() const noexcept { return base_wall_; }

 private:
  struct warm_up {};
  explicit basic_tick_clock(warm_up) noexcept
      : base_wall_((static_cast<void>(Monotonic::now()),
                    std::chrono::time_point_cast<duration>(Wall::now()))),
        base_mono_(Monotonic::now()) {}

  time_point base_wall_;
  typename Monotonic::time_point base_mono_;
};

/// `basic_tick_clock` on `std::chrono::steady_clock`.
using tick_clock = basic_tick_clock<>;

/// A clock for tests: it stands still until told to move. Copies share one time, so a test
/// keeps a copy and steps the clock a generator reads. Thread-safe.
///
/// A generator that waits calls `sleep_for`, which by default advances the clock by the wait
/// (at least 1 ms) instead of sleeping, so waits are instant and exact in tests;
/// `auto_advance(false)` makes it sleep for real and leave the time to the test.
///
///     flakeid::manual_clock clock{sys_days{2024y / 1 / 1}};
///     flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock> gen{
///         flakeid::worker_id{1}, clock};
///     clock.step_back(10ms);  // the next gen.next_id() throws clock_backwards_error
class manual_clock {
 public:
  using rep = std::int64_t;
  using period = std::milli;
  using duration = std::chrono::milliseconds;
  using time_point = std::chrono::sys_time<duration>;
  static constexpr bool is_steady = false;

  explicit manual_clock(time_point start = time_point{}) : s_(detail::counted_ptr<state>::make()) {
    s_->ms.store(start.time_since_epoch().count());
  }

  [[nodiscard]] time_point now() const noexcept { return time_point{duration{s_->ms.load()}}; }
  void set(time_point t) noexcept { s_->ms.store(t.time_since_epoch().count()); }
  void advance(duration d) noexcept { s_->ms.fetch_add(d.count()); }
  void step_back(duration d) noexcept { s_->ms.fetch_sub(d.count()); }

  /// Called by a waiting generator: advances the time by `d` rounded up to whole milliseconds
  /// (at least 1 ms), or sleeps for real when auto-advance is off.
  void sleep_for(std::chrono::nanoseconds d) const {
    s_->sleeps.fetch_add(1);
    if (!s_->auto_advance.load()) {
      detail::sleep_for(d);
      return;
    }
    auto ms = std::chrono::ceil<duration>(d);
    if (ms.count() < 1) ms = duration{1};
    s_->slept.fetch_add(ms.count());
    s_->ms.fetch_add(ms.count());
  }
  void auto_advance(bool on) noexcept { s_->auto_advance.store(on); }
  /// How many times a generator waited on this clock.
  [[nodiscard]] std::uint64_t sleeps() const noexcept { return s_->sleeps.load(); }
  /// The total time the clock was advanced by waits.
  [[nodiscard]] duration slept() const noexcept { return duration{s_->slept.load()}; }

 private:
  struct state {
    std::atomic<std::int64_t> ms{0};
    std::atomic<std::int64_t> slept{0};
    std::atomic<std::uint64_t> sleeps{0};
    std::atomic<bool> auto_advance{true};
  };
  detail::counted_ptr<state> s_;
};

namespace detail {

template <class C>
concept has_sleep_for = requires(const C& c, std::chrono::nanoseconds d) {
  c.sleep_for(d);
};

/// Unix milliseconds of a clock reading.
template <class TimePoint>
[[nodiscard]] constexpr std::int64_t unix_ms(TimePoint t) noexcept {
  return static_cast<std::int64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
}

/// Unix nanoseconds of a clock reading.
template <class TimePoint>
[[nodiscard]] constexpr std::int64_t unix_ns(TimePoint t) noexcept {
  return static_cast<std::int64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

template <class C>
concept has_now_fenced = requires(const C& c) {
  { c.now_fenced() } -> std::same_as<typename C::time_point>;
};

/// `c.now_fenced()` where the clock has it, else `c.now()`.
template <class C>
[[nodiscard]] typename C::time_point clock_now_fenced(const C& c) noexcept(noexcept(c.now())) {
  if constexpr (has_now_fenced<C>) {
    return c.now_fenced();
  } else {
    return c.now();
  }
}

/// Waits on behalf of a generator: the clock's own `sleep_for` when it has one.
template <class C>
void clock_sleep(const C& c, std::chrono::nanoseconds d) {
  if constexpr (has_sleep_for<C>) {
    c.sleep_for(d);
  } else {
    detail::sleep_for(d);
  }
}

/// One pause of a spin loop.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
