#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <flakeid/flakeid.hpp>
#include <flakeid/tsc_clock.hpp>

#include "generator_support.hpp"

using namespace std::chrono;

namespace {

// The Cpp17Clock requirements, spelled out (libc++ 14 has no std::chrono::is_clock_v).
static_assert(std::is_same_v<flakeid::tsc_steady_clock::duration,
                             flakeid::tsc_steady_clock::time_point::duration> &&
              std::is_same_v<decltype(flakeid::tsc_steady_clock::now()),
                             flakeid::tsc_steady_clock::time_point> &&
              std::is_same_v<decltype(flakeid::tsc_steady_clock::is_steady), const bool>);
#if defined(__cpp_lib_chrono) && __cpp_lib_chrono >= 201907L
static_assert(std::chrono::is_clock_v<flakeid::tsc_steady_clock>);
#endif
static_assert(flakeid::tsc_steady_clock::is_steady);
static_assert(flakeid::clock_source<flakeid::fast_tick_clock>);
static_assert(noexcept(flakeid::tsc_steady_clock::now()));
static_assert(noexcept(flakeid::tsc_steady_clock::now_fenced()));
static_assert(flakeid::detail::has_now_fenced<flakeid::fast_tick_clock>);
static_assert(!flakeid::detail::has_now_fenced<flakeid::tick_clock>);

/// Whether /proc/cpuinfo lists both flags of an invariant TSC and the kernel clocks from it.
bool linux_reports_invariant_tsc() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool constant = false;
  bool nonstop = false;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    constant = line.find(" constant_tsc") != std::string::npos;
    nonstop = line.find(" nonstop_tsc") != std::string::npos;
    break;
  }
  std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  source >> name;
  return constant && nonstop && name == "tsc";
}

TEST(tsc_clock_test, uses_the_tsc_exactly_where_the_cpu_reports_an_invariant_one) {
  const auto& c = flakeid::tsc_steady_clock::calibration();
  EXPECT_NE(std::string(c.reason), "");
#if defined(__x86_64__)
  EXPECT_EQ(c.uses_tsc, linux_reports_invariant_tsc()) << c.reason;
#else
  EXPECT_FALSE(c.uses_tsc);
#endif
}

TEST(tsc_clock_test, calibrated_rate_is_a_plausible_counter_frequency) {
  const auto& c = flakeid::tsc_steady_clock::calibration();
  if (!c.uses_tsc) GTEST_SKIP() << c.reason;
  EXPECT_GT(c.ticks_per_second, 1e8);   // 100 MHz
  EXPECT_LT(c.ticks_per_second, 1e11);  // 100 GHz
}

TEST(tsc_clock_test, readings_never_decrease_within_a_thread) {
  auto prev = flakeid::tsc_steady_clock::now();
  for (int i = 0; i < 200'000; ++i) {
    const auto t =
        (i % 2) != 0 ? flakeid::tsc_steady_clock::now() : flakeid::tsc_steady_clock::now_fenced();
    ASSERT_GE(t, prev) << "at reading " << i;
    prev = t;
  }
}

// The clock shares steady_clock's epoch and rate: an interval measured by one of them inside an
// interval measured by the other is not longer (beyond the calibration's error and NTP's slew,
// 0.1 %). This holds however the scheduler delays the test: it compares orders, not speeds.
TEST(tsc_clock_test, agrees_with_steady_clock_on_nested_intervals) {
  using flakeid::tsc_steady_clock;
  const auto s0 = steady_clock::now();
  const auto t0 = tsc_steady_clock::now_fenced();
  const auto s1 = steady_clock::now();
  std::this_thread::sleep_for(5ms);
  const auto s2 = steady_clock::now();
  const auto t1 = tsc_steady_clock::now_fenced();
  const auto s3 = steady_clock::now();
  const auto tsc_inner = t1 - t0;  // inside [s0, s3], around [s1, s2]
  const auto slack = [](nanoseconds d) { return d / 1000 + 2us; };
  EXPECT_LE(tsc_inner, (s3 - s0) + slack(s3 - s0));
  EXPECT_GE(tsc_inner + slack(tsc_inner), s2 - s1);
  // Same epoch: a reading lies between the steady readings around it (within the same slack).
  EXPECT_LE(nanoseconds{t0.time_since_epoch()},
            nanoseconds{s1.time_since_epoch()} + slack(s1.time_since_epoch()));
  EXPECT_GE(nanoseconds{t1.time_since_epoch()} + slack(s2.time_since_epoch()),
            nanoseconds{s2.time_since_epoch()});
}

TEST(tsc_clock_test, fast_tick_generator_mints_increasing_ids_near_wall_time) {
  flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::fast_tick_clock> gen{
      flakeid::worker_id{3}};
  std::uint64_t prev = 0;
  for (int i = 0; i < 100'000; ++i) {
    const std::uint64_t id = gen.next_id();
    ASSERT_GT(id, prev);
    prev = id;
  }
  const auto parts = gen.decompose(prev);
  EXPECT_EQ(parts.worker, 3U);
  EXPECT_LT(abs(parts.timestamp - time_point_cast<milliseconds>(system_clock::now())), 10s);
}

TEST(tsc_clock_test, fast_tick_generator_is_unique_across_threads) {
  flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::fast_tick_clock> gen{
      flakeid::worker_id{1}};
  const auto out = flakeid_test::drawn_in_threads(3, 100'000, [&gen] { return gen.next_id(); });
  std::vector<std::uint64_t> all;
  for (const auto& v : out) {
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

/// A clock whose plain reading lags its fenced one, as a bare rdtsc taken before a load can.
class lagging_clock {
 public:
  using rep = std::int64_t;
  using period = std::milli;
  using duration = milliseconds;
  using time_point = sys_time<milliseconds>;
  static constexpr bool is_steady = false;
  explicit lagging_clock(time_point t) : s_(std::make_shared<state>(state{t, t})) {}
  [[nodiscard]] time_point now() const noexcept { return s_->plain; }
  [[nodiscard]] time_point now_fenced() const noexcept { return s_->fenced; }
  void set(time_point plain, time_point fenced) const noexcept { *s_ = {plain, fenced}; }

 private:
  struct state {
    time_point plain;
    time_point fenced;
  };
  std::shared_ptr<state> s_;
};

TEST(tsc_clock_test, generator_reads_a_clock_again_fenced_before_calling_it_a_step_back) {
  const sys_time<milliseconds> t{sys_days{2024y / 1 / 1}};
  const lagging_clock clock{t};
  flakeid::classic_snowflake<flakeid::layouts::twitter, lagging_clock> gen{flakeid::worker_id{1},
                                                                           clock};
  const std::uint64_t first = gen.next_id();

  // The plain reading is a tick behind the state, the fenced one is not: no step back.
  clock.set(t - 1ms, t);
  const std::uint64_t second = gen.next_id();
  EXPECT_EQ(second, first + 1);

  // Both readings behind: a step back, reported with its size.
  clock.set(t - 3ms, t - 2ms);
  try {
    (void)gen.next_id();
    FAIL() << "expected clock_backwards_error";
  } catch (const flakeid::clock_backwards_error& e) {
    EXPECT_EQ(e.step(), 2ms);
  }
}

}  // namespace
