// basic_tick_clock counts from its base with a monotonic clock; the system clock cannot be
// stepped in a test, so a monotonic clock the test controls stands in for steady_clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace flakeid_test;

namespace {

TEST(tick_clock_test, counts_from_its_base_with_the_monotonic_clock) {
  fake_monotonic::reset();
  const fake_tick_clock clock{sys_time<nanoseconds>{start_time}};
  EXPECT_EQ(clock.base(), start_time);
  EXPECT_EQ(clock.now(), start_time);
  fake_monotonic::advance(1500us);
  EXPECT_EQ(clock.now(), start_time + 1500us);
  fake_monotonic::advance(hours{2});
  EXPECT_EQ(clock.now(), start_time + 1500us + hours{2});
  const fake_tick_clock copy = clock;  // copies share the base reading
  EXPECT_EQ(copy.now(), clock.now());
}

TEST(tick_clock_test, default_construction_reads_the_wall_clock_once) {
  fake_monotonic::reset();
  const auto before = system_clock::now();
  const fake_tick_clock clock;
  const auto after = system_clock::now();
  EXPECT_GE(clock.base(), before);
  EXPECT_LE(clock.base(), after);
  // The monotonic clock stands still, so the tick clock does too, whatever the wall clock does.
  EXPECT_EQ(clock.now(), clock.base());
  fake_monotonic::advance(7ms);
  EXPECT_EQ(clock.now(), clock.base() + 7ms);
}

TEST(tick_clock_test, drift_is_the_wall_clock_minus_the_tick_clock) {
  fake_monotonic::reset();
  const auto base = time_point_cast<nanoseconds>(system_clock::now()) - hours{1};
  const fake_tick_clock clock{base};  // as if the wall clock had been stepped 1 h forward
  const auto before = system_clock::now();
  const auto drift = clock.drift();
  const auto after = system_clock::now();
  EXPECT_GE(drift, before - base);
  EXPECT_LE(drift, after - base);
  EXPECT_GE(drift, hours{1});
  // A clock started in the future reports a negative drift.
  const fake_tick_clock ahead{time_point_cast<nanoseconds>(system_clock::now()) + hours{1}};
  EXPECT_LT(ahead.drift(), -minutes{59});
}

TEST(tick_clock_test, a_tick_snowflake_on_it_mints_from_the_monotonic_time) {
  fake_monotonic::reset();
  const fake_tick_clock clock{sys_time<nanoseconds>{start_time}};
  flakeid::basic_snowflake<flakeid::layouts::twitter, fake_tick_clock, flakeid::classic_policies>
      gen{flakeid::worker_id{3}, clock};
  const auto ticks0 = static_cast<std::uint64_t>(start_ms - twitter_epoch);
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0, 0, 3, 0));
  fake_monotonic::advance(999us);
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0, 0, 3, 1));
  fake_monotonic::advance(1us);
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0 + 1, 0, 3, 0));
  fake_monotonic::advance(seconds{10});
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0 + 10001, 0, 3, 0));
}

TEST(tick_clock_test, tick_snowflake_on_the_real_clocks_is_increasing_and_reports_drift) {
  flakeid::tick_snowflake<> gen{flakeid::worker_id{1}};
  std::vector<std::uint64_t> ids(3 * 4096 + 1);
  for (auto& id : ids) id = gen.next_id();
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
  // One tick holds 4096 IDs, so these span at least four ticks.
  const auto& l = gen.layout();
  EXPECT_GE(l.decompose(ids.back()).ticks - l.decompose(ids.front()).ticks, 3U);
  // The base was read from the wall clock when the generator was built.
  EXPECT_LE(gen.clock().base(), system_clock::now());
  (void)gen.clock().drift();
}

}  // namespace
