// The clock steps back by 1 ms, 10 ms, 1 s and 1 h at random points (fixed seed) under a manual
// clock. Whatever the policy, no ID repeats and IDs keep increasing; each step has the
// policy's documented outcome:
//   throw_on_backwards    clock_backwards_error carrying the step;
//   wait_on_backwards<10> within 10 ms: waits until the clock is back at the last tick and
//                         counts on there; beyond: throws the step without waiting;
//   hold_on_backwards<1000> within 1 s: keeps counting in the last tick without waiting;
//                         beyond: throws the step.
// After a throw the test moves the clock forward again by the step, as NTP would.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace flakeid_test;

namespace {

constexpr auto ticks0 = static_cast<std::uint64_t>(start_ms - twitter_epoch);
constexpr std::int64_t tick_of(std::uint64_t id) {
  return static_cast<std::int64_t>((id >> 22) - ticks0);
}
constexpr std::uint64_t seq_of(std::uint64_t id) { return id & 4095; }
constexpr std::array<milliseconds, 4> steps{1ms, 10ms, 1000ms, 3'600'000ms};

struct tally {
  int thrown = 0, waited = 0, held = 0, minted = 0;
};

template <class Backwards, class Threading = flakeid::multi_threaded>
tally run_steps(std::uint64_t seed) {
  using policy =
      flakeid::policies<flakeid::zero_start, flakeid::wait_next_tick, Backwards, Threading>;
  flakeid::manual_clock clock{start_time};
  flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock, policy> gen{
      flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  constexpr auto action = Backwards::action;
  constexpr std::int64_t bound = Backwards::max_step_ms;

  std::mt19937_64 rng{seed};
  std::vector<std::uint64_t> ids;
  tally t;
  std::uint64_t last_id = gen.next_id();
  ids.push_back(last_id);
  milliseconds pending{0};  // steps the test has not yet undone
  for (int i = 0; i < 20'000; ++i) {
    const auto r = rng() % 100;
    if (r < 3) {
      const milliseconds step = steps[rng() % steps.size()];
      clock.step_back(step);
      pending += step;
    } else if (r < 50) {
      clock.advance(milliseconds{1 + static_cast<std::int64_t>(rng() % 2)});
    }
    const std::int64_t clock_tick = (clock.now() - start_time).count();
    const std::int64_t lag = tick_of(last_id) - clock_tick;
    const auto slept_before = clock.slept();
    try {
      const std::uint64_t id = gen.next_id();
      if (lag > 0) {
        // Only a policy that tolerates this lag may mint; it counts on in the last tick.
        EXPECT_NE(action, flakeid::backwards_action::fail)
            << "minted with the clock " << lag << " ms behind";
        EXPECT_LE(lag, bound);
        if (seq_of(last_id) < 4095) {
          EXPECT_EQ(tick_of(id), tick_of(last_id));
          EXPECT_EQ(seq_of(id), seq_of(last_id) + 1);
        }
        if (action == flakeid::backwards_action::wait) {
          EXPECT_EQ(clock.slept() - slept_before, milliseconds{lag});
          EXPECT_EQ((clock.now() - start_time).count(), tick_of(last_id));
          ++t.waited;
        } else {
          EXPECT_EQ(clock.slept(), slept_before);
          ++t.held;
        }
      } else {
        EXPECT_EQ(tick_of(id), std::max(clock_tick, tick_of(last_id)));
      }
      EXPECT_GT(id, last_id);
      last_id = id;
      ids.push_back(id);
      ++t.minted;
    } catch (const flakeid::clock_backwards_error& e) {
      EXPECT_GT(lag, 0);
      EXPECT_EQ(e.step(), milliseconds{lag});
      if (action != flakeid::backwards_action::fail) {
        EXPECT_GT(lag, bound);
      }
      EXPECT_EQ(clock.slept(), slept_before);  // nothing waited for a step beyond the bound
      ++t.thrown;
      clock.advance(pending);  // the clock is put right
      pending = 0ms;
    }
    if (::testing::Test::HasFailure()) break;
    if (lag <= 0) pending = 0ms;  // the clock caught up on its own
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
  return t;
}

/// The tallies of `Policy` on a multi-threaded generator (seed `seed`) and on a single-threaded
/// one (seed `seed + 1`).
template <class Policy>
std::array<tally, 2> both_kinds(std::uint64_t seed) {
  return {run_steps<Policy>(seed), run_steps<Policy, flakeid::single_threaded>(seed + 1)};
}

TEST(clock_step_test, throw_on_backwards_throws_every_step) {
  const auto both = both_kinds<flakeid::throw_on_backwards>(1);
  for (const tally& t : both) EXPECT_GT(t.thrown, 50);
  EXPECT_EQ(both[0].waited + both[0].held, 0);
}

/// `Policy` on both kinds of generator (seeds `seed` and `seed + 1`): each handled more than 10
/// steps within its bound the way `within` counts, and threw on more than 10 beyond it; the
/// multi-threaded one never handled a step the way `other` counts.
template <class Policy>
void expect_within_and_beyond(std::uint64_t seed, int tally::*within, int tally::*other) {
  const auto both = both_kinds<Policy>(seed);
  for (const tally& t : both) {
    EXPECT_GT(t.*within, 10);
    EXPECT_GT(t.thrown, 10);
  }
  EXPECT_EQ(both[0].*other, 0);
}

TEST(clock_step_test, wait_on_backwards_waits_within_10_ms_and_throws_beyond) {
  expect_within_and_beyond<flakeid::wait_on_backwards<10>>(3, &tally::waited, &tally::held);
}

TEST(clock_step_test, hold_on_backwards_holds_within_1_s_and_throws_beyond) {
  expect_within_and_beyond<flakeid::hold_on_backwards<1000>>(5, &tally::held, &tally::waited);
}

}  // namespace
