// The tick generator under wall-clock faults. A tick clock reads the wall clock once, then counts
// with a monotonic clock; here both are clocks the test controls (`fake_monotonic` and
// `fake_wall`), so the wall clock can be stepped back and forward in the middle of a run.
//
// Every case asserts: no ID twice, strictly increasing IDs, every ID's time exactly the
// monotonic clock's (never the stepped wall clock's), and `drift()` equal to the sum of the steps
// (wall minus tick time).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace std::chrono_literals;
using flakeid::field_kind;
using flakeid_test::expect_no_duplicate_id;
using flakeid_test::fake_monotonic;

namespace {

/// A wall clock the test steps; `now()` is static, as `system_clock`'s is.
struct fake_wall {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = nanoseconds;
  using time_point = sys_time<duration>;
  static inline std::atomic<std::int64_t> ns{0};
  static time_point now() noexcept { return time_point{duration{ns.load()}}; }
  static void set(time_point t) noexcept { ns.store(t.time_since_epoch().count()); }
  static void advance(duration d) noexcept { ns.fetch_add(d.count()); }
};

using stepped_tick_clock = flakeid::basic_tick_clock<fake_monotonic, fake_wall>;

// The default stays what it was: the steady clock, based on the system clock.
static_assert(
    std::is_same_v<flakeid::tick_clock, flakeid::basic_tick_clock<steady_clock, system_clock>>);
static_assert(flakeid::clock_source<stepped_tick_clock>);

constexpr auto start_time = time_point_cast<nanoseconds>(sys_days{2025y / June / 1} + 12h);
constexpr std::uint64_t node = 3;

/// Sets both clocks to the start, then builds a tick clock, which reads the wall clock once.
stepped_tick_clock started_clock() {
  fake_monotonic::reset();
  fake_wall::set(start_time);
  return stepped_tick_clock{};
}

/// `tick_snowflake<L>` (classic policies) on the stepped tick clock, and the checks on its IDs.
template <flakeid::layout L>
struct tick_harness {
  using generator = flakeid::basic_snowflake<L, stepped_tick_clock, flakeid::classic_policies>;
  static constexpr flakeid::layout layout = L;

  stepped_tick_clock clock = started_clock();
  generator gen{flakeid::worker_id{node}, clock};
  nanoseconds elapsed{0};  // monotonic time since the start
  nanoseconds stepped{0};  // sum of the wall clock's steps
  std::vector<std::uint64_t> ids;

  /// Real time passes: both clocks move on together.
  void advance(nanoseconds d) {
    fake_monotonic::advance(d);
    fake_wall::advance(d);
    elapsed += d;
  }
  /// The wall clock is stepped; the monotonic clock is not.
  void step_wall(nanoseconds d) {
    fake_wall::advance(d);
    stepped += d;
  }

  std::uint64_t mint() {
    const std::uint64_t id = gen.next_id();
    const auto expected = time_point_cast<milliseconds>(start_time + elapsed);
    if (!L.is_valid(id)) ADD_FAILURE() << "ID " << id << " sets a reserved bit";
    if (L.extract(id, field_kind::worker) != node) ADD_FAILURE() << "ID " << id << ": wrong worker";
    if (L.extract(id, field_kind::timestamp) != L.ticks_at(expected))
      ADD_FAILURE() << "ID " << id << " has tick " << L.extract(id, field_kind::timestamp)
                    << ", the monotonic clock " << L.ticks_at(expected) << " (wall stepped by "
                    << stepped.count() << " ns)";
    if (!ids.empty() && id <= ids.back())
      ADD_FAILURE() << "order broken: " << id << " after " << ids.back();
    ids.push_back(id);
    return id;
  }

  void expect_drift() const { EXPECT_EQ(clock.drift(), stepped); }

  void expect_unique() const { expect_no_duplicate_id(ids); }
};

template <class Layout>
class tick_fault_test : public ::testing::Test {};

template <flakeid::layout L>
struct on {
  static constexpr flakeid::layout value = L;
};
using tick_layouts =
    ::testing::Types<on<flakeid::layouts::twitter>, on<flakeid::layouts::sonyflake>>;

TYPED_TEST_SUITE(tick_fault_test, tick_layouts);

constexpr std::size_t run_length = 1'000'000;
constexpr int faults_per_run = 16;

/// A run of a million IDs with `faults_per_run` steps of the wall clock by `step` at random
/// points. Time moves on by 1 ms after a random count of IDs, never so many that a tick's
/// sequence is used up (a wait on the fake monotonic clock would never end).
template <flakeid::layout L>
void run_with_wall_steps(nanoseconds step, std::uint64_t seed) {
  tick_harness<L> h;
  h.ids.reserve(run_length);
  std::mt19937_64 rng{seed};
  std::vector<std::size_t> at(faults_per_run);
  for (auto& a : at) a = 1 + rng() % (run_length - 1);
  std::sort(at.begin(), at.end());
  // IDs per millisecond at most: a tick of T ms holds ids_per_tick IDs.
  const std::uint64_t per_ms = std::max<std::uint64_t>(1, L.ids_per_tick() / L.tick_ms - 1);
  std::uint64_t until_advance = 1 + rng() % per_ms;
  std::size_t next_fault = 0;
  while (h.ids.size() < run_length) {
    if (--until_advance == 0) {
      h.advance(1ms);
      until_advance = 1 + rng() % per_ms;
    }
    (void)h.mint();
    while (next_fault < at.size() && h.ids.size() >= at[next_fault]) {
      h.step_wall(step);
      h.expect_drift();
      (void)h.mint();  // right after the step: still the monotonic clock's time
      ++next_fault;
    }
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(next_fault, at.size());
  EXPECT_EQ(h.stepped, faults_per_run * step);
  h.expect_drift();
  h.expect_unique();
}

TYPED_TEST(tick_fault_test, wall_step_back_1ms_in_a_million_ids) {
  run_with_wall_steps<TypeParam::value>(-1ms, 1);
}
TYPED_TEST(tick_fault_test, wall_step_back_10ms_in_a_million_ids) {
  run_with_wall_steps<TypeParam::value>(-10ms, 2);
}
TYPED_TEST(tick_fault_test, wall_step_back_1s_in_a_million_ids) {
  run_with_wall_steps<TypeParam::value>(-1s, 3);
}
TYPED_TEST(tick_fault_test, wall_step_back_1h_in_a_million_ids) {
  run_with_wall_steps<TypeParam::value>(-1h, 4);
}
TYPED_TEST(tick_fault_test, wall_step_forward_1h_in_a_million_ids) {
  run_with_wall_steps<TypeParam::value>(1h, 5);
}

// The wall clock is read once, when the tick clock is built: a step before that moves the base,
// a step after it only the drift.
TEST(tick_fault_test, the_wall_clock_is_read_once_at_construction) {
  fake_monotonic::reset();
  fake_wall::set(start_time - 1h);
  const stepped_tick_clock clock;
  EXPECT_EQ(clock.base(), start_time - 1h);
  EXPECT_EQ(clock.now(), start_time - 1h);
  EXPECT_EQ(clock.drift(), 0ns);
  fake_wall::set(start_time);  // the wall clock is stepped 1 h forward
  EXPECT_EQ(clock.now(), start_time - 1h);
  EXPECT_EQ(clock.drift(), 1h);
  fake_monotonic::advance(5ms);  // time passes
  fake_wall::advance(5ms);
  EXPECT_EQ(clock.now(), start_time - 1h + 5ms);
  EXPECT_EQ(clock.drift(), 1h);
  fake_wall::set(start_time - 2h);  // stepped back 2 h and 5 ms: now behind the tick clock
  EXPECT_EQ(clock.drift(), -1h - 5ms);
}

// A drift that is not a step: the wall clock runs 1 ms per second faster than the monotonic
// clock (an NTP slew); drift() grows with it, and the IDs keep the monotonic clock's time.
TEST(tick_fault_test, drift_follows_a_slewing_wall_clock) {
  tick_harness<flakeid::layouts::twitter> h;
  for (int s = 1; s <= 10; ++s) {
    for (int ms = 0; ms < 1000; ++ms) {
      h.advance(1ms);
      (void)h.mint();
    }
    h.step_wall(1ms);
    h.expect_drift();
  }
  EXPECT_EQ(h.clock.drift(), 10ms);
  h.expect_unique();
}

}  // namespace
