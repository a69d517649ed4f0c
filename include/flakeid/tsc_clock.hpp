// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file tsc_clock.hpp
/// `tsc_steady_clock`, a monotonic clock read from the CPU's time-stamp counter, and
/// `fast_tick_clock`, the tick clock on it.
///
///   tsc_steady_clock   std::chrono steady clock: one `rdtsc` and a multiply per reading.
///                      Calibrated against `std::chrono::steady_clock` at first use (about
///                      10 ms, once per process). Where the TSC cannot be trusted (no invariant
///                      TSC, the kernel does not use it as its clock source, not x86-64) it is
///                      `std::chrono::steady_clock` itself.
///   fast_tick_clock    `basic_tick_clock<tsc_steady_clock>`: the wall clock read once, then the
///                      TSC. The cheapest clock a generator can read.
///
///     flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::fast_tick_clock> gen{
///         flakeid::worker_id{3}};
///
/// The rate comes from a calibration against `steady_clock`, which NTP may slew by up to
/// 500 ppm; `fast_tick_clock::drift()` reports how far the result has moved from the wall clock.

#include <chrono>
#include <cstdint>
#include <type_traits>

// The TSC is read with the compiler's built-ins (`__builtin_ia32_rdtsc`, `__builtin_ia32_rdtscp`)
// rather than through <x86intrin.h>, which brings every vector intrinsic with it.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <cstdio>
#include <cstring>
#define FLAKEID_HAS_TSC 1
#else
#define FLAKEID_HAS_TSC 0
#endif

#include "clock.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// What `tsc_steady_clock` found at its first use.
struct tsc_calibration {
  /// Whether readings come from the TSC (false: from `std::chrono::steady_clock`).
  bool uses_tsc = false;
  /// TSC ticks per second measured against `steady_clock` (0 when the TSC is not used).
  double ticks_per_second = 0.0;
  /// Why the TSC is or is not used, for logs.
  const char* reason = "";
};

namespace detail {

#if FLAKEID_HAS_TSC
__extension__ using u128 = unsigned __int128;

/// CPUID leaf 0x80000007, EDX bit 8: the TSC runs at a constant rate in every power state
/// (Linux shows it as `constant_tsc` and `nonstop_tsc`).
inline bool cpu_has_invariant_tsc() noexcept {
  unsigned a = 0;
  unsigned b = 0;
  unsigned c = 0;
  unsigned d = 0;
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000U, nullptr)) < 0x80000007U) return false;
  __get_cpuid(0x80000007U, &a, &b, &c, &d);
  return (d & (1U << 8)) != 0;
}

/// On Linux, whether the kernel's clock source is the TSC: if the kernel found the TSC
/// unsynchronised between cores and moved to another source, so do we. True where the file
/// does not exist.
inline bool kernel_trusts_tsc() noexcept {
  // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): closed below
  std::FILE* f =
      std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (f == nullptr) return true;
  char name[64] = {};
  const bool read = std::fgets(name, sizeof name, f) != nullptr;
  (void)std::fclose(f);  // NOLINT(cppcoreguidelines-owning-memory)
  return read && (std::strcmp(name, "tsc\n") == 0 || std::strcmp(name, "tsc") == 0);
}

/// The TSC (`rdtsc`): about half the cost of `rdtscp`, but the CPU may execute it before
/// earlier loads are done, so the reading can be a few nanoseconds older than a value loaded
/// just before it.
inline std::uint64_t read_tsc() noexcept { return __builtin_ia32_rdtsc(); }

/// The TSC once every earlier instruction is done and every earlier load is globally visible
/// (`rdtscp`).
inline std::uint64_t read_tsc_fenced() noexcept {
  unsigned aux = 0;
  return __builtin_ia32_rdtscp(&aux);
}
#endif

/// The fixed-point conversion from TSC ticks to steady-clock nanoseconds.
struct tsc_state {
  tsc_calibration info;
  std::uint64_t tsc0 = 0;  // a TSC reading ...
  std::int64_t ns0 = 0;    // ... and the steady-clock time it stands for
  std::uint64_t mult = 0;  // nanoseconds per tick, times 2^32
};

inline tsc_state calibrate_tsc() {
  tsc_state s;
#if FLAKEID_HAS_TSC
  if (!cpu_has_invariant_tsc()) {
    s.info.reason = "the CPU does not report an invariant TSC; using steady_clock";
    return s;
  }
  if (!kernel_trusts_tsc()) {
    s.info.reason = "the kernel's clock source is not the TSC; using steady_clock";
    return s;
  }
  using steady = std::chrono::steady_clock;
  // A (steady, tsc) pair: the TSC read between two steady readings, from the tightest of a few
  // tries, with the steady time taken as the midpoint.
  const auto pair = [](std::int64_t& ns, std::uint64_t& tsc) {
    std::int64_t best = INT64_MAX;
    for (int i = 0; i < 16; ++i) {
      const std::int64_t a = steady::now().time_since_epoch().count();
      const std::uint64_t t = read_tsc_fenced();
      const std::int64_t b = steady::now().time_since_epoch().count();
      if (b - a < best) {
        best = b - a;
        ns = a + (b - a) / 2;
        tsc = t;
      }
    }
  };
  static_assert(std::is_same_v<steady::period, std::nano>, "steady_clock counts nanoseconds");
  std::int64_t ns_a = 0;
  std::int64_t ns_b = 0;
  std::uint64_t tsc_a = 0;
  std::uint64_t tsc_b = 0;
  pair(ns_a, tsc_a);
  detail::sleep_for(std::chrono::milliseconds{10});
  pair(ns_b, tsc_b);
  if (tsc_b <= tsc_a || ns_b <= ns_a) {
    s.info.reason = "the TSC did not advance during calibration; using steady_clock";
    return s;
  }
  const double ns_per_tick = static_cast<double>(ns_b - ns_a) / static_cast<double>(tsc_b - tsc_a);
  const double mult = ns_per_tick * 4294967296.0;  // positive: rounded half up below
  const auto whole = static_cast<std::uint64_t>(mult);
  s.mult = whole + (mult - static_cast<double>(whole) >= 0.5 ? 1U : 0U);
  s.tsc0 = tsc_b;
  s.ns0 = ns_b;
  s.info.uses_tsc = true;
  s.info.ticks_per_second = 1e9 / ns_per_tick;
  s.info.reason = "invariant TSC, calibrated against steady_clock";
#else
  s.info.reason = "not an x86-64 build; using steady_clock";
#endif
  return s;
}

/// The calibration, made once on first use (thread-safe).
inline const tsc_state& tsc() {
  static const tsc_state s = calibrate_tsc();
  return s;
}

}  // namespace detail

/// A monotonic `std::chrono` clock read from the invariant TSC: one `rdtscp`, one 64x64-bit
/// multiply. Its epoch is `std::chrono::steady_clock`'s, so readings of the two are comparable.
/// Falls back to `steady_clock` where the TSC cannot be trusted (see `calibration()`).
/// Thread-safe; the first call (in any thread) calibrates, taking about 10 ms.
struct tsc_steady_clock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<tsc_steady_clock, duration>;
  static constexpr bool is_steady = true;

  /// A reading: one `rdtsc` and a multiply. It may be taken a few nanoseconds before loads
  /// that precede it in the program; `now_fenced()` is not.
  [[nodiscard]] static time_point now() noexcept { return read<false>(); }
  /// A reading taken after every earlier load is done (`rdtscp`), for a caller that compares it
  /// with a value it just loaded (a generator does when the clock seems to be behind its state).
  [[nodiscard]] static time_point now_fenced() noexcept { return read<true>(); }

  /// Calibrates now if not yet done, and says what was found.
  [[nodiscard]] static const tsc_calibration& calibration() { return detail::tsc().info; }

 private:
  template <bool Fenced>
  [[nodiscard]] static time_point read() noexcept {
#if FLAKEID_HAS_TSC
    const detail::tsc_state& s = detail::tsc();
    if (s.info.uses_tsc) [[likely]] {
      const std::uint64_t t = Fenced ? detail::read_tsc_fenced() : detail::read_tsc();
      // A reading a little before tsc0 (counters of two cores a few ticks apart) is negative.
      const auto delta = static_cast<std::int64_t>(t - s.tsc0);
      const std::int64_t off =
          delta >= 0 ? static_cast<std::int64_t>((detail::u128(delta) * s.mult) >> 32)
                     : -static_cast<std::int64_t>((detail::u128(-delta) * s.mult) >> 32);
      return time_point{duration{s.ns0 + off}};
    }
#endif
    return time_point{
        std::chrono::duration_cast<duration>(std::chrono::steady_clock::now().time_since_epoch())};
  }
};

/// The tick clock on the TSC: the wall clock read once, then `tsc_steady_clock`.
using fast_tick_clock = basic_tick_clock<tsc_steady_clock>;

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
