// Every policy of basic_snowflake, with multi_threaded, single_threaded and thread_blocks state, on the
// Twitter layout and a manual clock: exact IDs for each sequence start, each way of handling
// an exhausted tick and each way of handling a clock that went back.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <set>
#include <type_traits>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace flakeid_test;

namespace {

constexpr auto ticks0 = static_cast<std::uint64_t>(start_ms - twitter_epoch);
/// Worker 7 of datacenter 1 on the Twitter layout, `dt` ticks after the start.
constexpr std::uint64_t id_at(std::uint64_t dt, std::uint64_t seq) {
  return twitter_id(ticks0 + dt, 1, 7, seq);
}
constexpr std::uint64_t tick_of(std::uint64_t id) { return (id >> 22) - ticks0; }
constexpr std::uint64_t seq_of(std::uint64_t id) { return id & 4095; }

template <class Threading>
class policy_test : public ::testing::Test {
 protected:
  template <class Start, class Exhausted = flakeid::wait_next_tick,
            class Backwards = flakeid::throw_on_backwards>
  using gen = flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock,
                                       flakeid::policies<Start, Exhausted, Backwards, Threading>>;
  flakeid::manual_clock clock{start_time};
};
using threadings =
    ::testing::Types<flakeid::multi_threaded, flakeid::single_threaded, flakeid::thread_blocks<>>;
TYPED_TEST_SUITE(policy_test, threadings);

// basic_snowflake is neither copyable nor movable, so tests build it in place.
#define FLAKEID_GEN(name, ...)                                    \
  typename TestFixture::template gen<__VA_ARGS__> name {          \
    flakeid::datacenter_id{1}, flakeid::worker_id{7}, this->clock \
  }

// ---- sequence start ----------------------------------------------------------------------------

/// One step of a generator's run: the clock advances by `advance`, then the next ID is `id`.
struct id_step {
  milliseconds advance;
  std::uint64_t id;
};

/// Runs `steps` on `g` and its manual clock `clock`.
template <class Gen, class Clock>
void expect_steps(Gen& g, Clock& clock, std::initializer_list<id_step> steps) {
  for (const id_step& s : steps) {
    if (s.advance > 0ms) clock.advance(s.advance);
    EXPECT_EQ(g.next_id(), s.id);
  }
}

TYPED_TEST(policy_test, zero_start_begins_every_tick_at_0) {
  FLAKEID_GEN(g, flakeid::zero_start);
  expect_steps(g, this->clock,
               {{0ms, id_at(0, 0)}, {0ms, id_at(0, 1)}, {1ms, id_at(1, 0)}, {4ms, id_at(5, 0)}});
}

TYPED_TEST(policy_test, cosid_threshold_default_is_2047_for_12_bits) {
  FLAKEID_GEN(g, flakeid::cosid_threshold<>);
  EXPECT_EQ(g.next_id(), id_at(0, 1));  // CosId's first ID has sequence 1
  for (std::uint64_t s = 2; s <= 2047; ++s) {
    this->clock.advance(1ms);
    ASSERT_EQ(g.next_id(), id_at(s - 1, s));
  }
  this->clock.advance(1ms);
  EXPECT_EQ(g.next_id(), id_at(2047, 1));
}

TYPED_TEST(policy_test, cosid_threshold_0_and_1_restart_every_tick_as_cosids_do) {
  // CosId resets a sequence that is at least the threshold at each new tick: with 0 or 1 every
  // new tick starts at 1. flakeid's 0 is CosId's 0, not the default.
  FLAKEID_GEN(g0, flakeid::cosid_threshold<0>);
  FLAKEID_GEN(g1, flakeid::cosid_threshold<1>);
  const auto first_tick = [](auto& g) {
    EXPECT_EQ(g.next_id(), id_at(0, 1));
    EXPECT_EQ(g.next_id(), id_at(0, 2));
    EXPECT_EQ(g.next_id(), id_at(0, 3));
  };
  first_tick(g0);
  first_tick(g1);
  for (std::uint64_t t = 1; t <= 3; ++t) {
    this->clock.advance(1ms);
    EXPECT_EQ(g0.next_id(), id_at(t, 1));
    EXPECT_EQ(g1.next_id(), id_at(t, 1));
  }
}

TYPED_TEST(policy_test, cosid_threshold_4095_counts_on_to_the_largest_sequence) {
  // 4095, the largest a 12-bit sequence holds: one ID per tick runs 1, 2, ..., 4095, then 1.
  FLAKEID_GEN(g, flakeid::cosid_threshold<4095>);
  EXPECT_EQ(g.next_id(), id_at(0, 1));
  for (std::uint64_t s = 2; s <= 4095; ++s) {
    this->clock.advance(1ms);
    ASSERT_EQ(g.next_id(), id_at(s - 1, s));
  }
  this->clock.advance(1ms);
  EXPECT_EQ(g.next_id(), id_at(4095, 1));
  // Exhausted within a tick: the next tick starts at 0, then counts on (CosId wraps to 0 and
  // waits for the next tick too).
  for (std::uint64_t s = 2; s <= 4095; ++s) ASSERT_EQ(g.next_id(), id_at(4095, s));
  EXPECT_EQ(g.next_id(), id_at(4096, 0));
  EXPECT_EQ(g.next_id(), id_at(4096, 1));
}

TYPED_TEST(policy_test, cosid_threshold_2_at_1000_1001_1002_ms_gives_1_2_1) {
  this->clock.set(ms_time{milliseconds{twitter_epoch + 1000}});
  FLAKEID_GEN(g, flakeid::cosid_threshold<2>);
  EXPECT_EQ(g.next_id(), twitter_id(1000, 1, 7, 1));
  this->clock.advance(1ms);
  EXPECT_EQ(g.next_id(), twitter_id(1001, 1, 7, 2));
  this->clock.advance(1ms);
  EXPECT_EQ(g.next_id(), twitter_id(1002, 1, 7, 1));
  // Within a tick it counts past the threshold.
  EXPECT_EQ(g.next_id(), twitter_id(1002, 1, 7, 2));
  EXPECT_EQ(g.next_id(), twitter_id(1002, 1, 7, 3));
  this->clock.advance(1ms);
  EXPECT_EQ(g.next_id(), twitter_id(1003, 1, 7, 1));
}

TYPED_TEST(policy_test, vibrating_start_rotates_the_first_sequence) {
  FLAKEID_GEN(g, flakeid::vibrating_start<3>);
  for (std::uint64_t t = 0; t < 9; ++t) {
    ASSERT_EQ(g.next_id(), id_at(t, t % 4)) << "tick " << t;
    ASSERT_EQ(g.next_id(), id_at(t, t % 4 + 1)) << "tick " << t;
    this->clock.advance(1ms);
  }
}

TYPED_TEST(policy_test, vibrating_start_default_rotates_through_16_offsets) {
  FLAKEID_GEN(g, flakeid::vibrating_start<>);
  for (std::uint64_t t = 0; t < 40; ++t) {
    ASSERT_EQ(g.next_id(), id_at(t, t % 16)) << "tick " << t;
    this->clock.advance(1ms);
  }
}

TYPED_TEST(policy_test, random_start_stays_below_its_bound) {
  FLAKEID_GEN(g, flakeid::random_start<8>);
  std::set<std::uint64_t> starts;
  for (std::uint64_t t = 0; t < 2000; ++t) {
    const std::uint64_t first = g.next_id();
    ASSERT_EQ(tick_of(first), t);
    ASSERT_LT(seq_of(first), 8U);
    starts.insert(seq_of(first));
    ASSERT_EQ(g.next_id(), first + 1);  // then it counts up within the tick
    this->clock.advance(1ms);
  }
  EXPECT_EQ(starts.size(), 8U);  // 2000 draws below 8 reach every value
}

TYPED_TEST(policy_test, random_start_default_bound_is_128_and_bound_1_is_zero_start) {
  FLAKEID_GEN(g, flakeid::random_start<>);
  FLAKEID_GEN(one, flakeid::random_start<1>);
  for (std::uint64_t t = 0; t < 1000; ++t) {
    ASSERT_LT(seq_of(g.next_id()), 128U);
    ASSERT_EQ(one.next_id(), id_at(t, 0));
    this->clock.advance(1ms);
  }
}

TYPED_TEST(policy_test, never_reset_counts_on_across_ticks_and_wraps) {
  FLAKEID_GEN(g, flakeid::never_reset);
  expect_steps(g, this->clock,
               {{0ms, id_at(0, 0)}, {0ms, id_at(0, 1)}, {1ms, id_at(1, 2)}, {1ms, id_at(2, 3)}});
  for (std::uint64_t s = 4; s <= 4095; ++s) ASSERT_EQ(g.next_id(), id_at(2, s));
  this->clock.advance(1ms);  // the last sequence was used at tick 2; tick 3 wraps to 0
  EXPECT_EQ(g.next_id(), id_at(3, 0));
  EXPECT_EQ(this->clock.sleeps(), 0U);
}

TYPED_TEST(policy_test,
           every_start_policy_restarts_at_0_in_a_tick_waited_for_after_an_exhausted_one) {
  FLAKEID_GEN(zero, flakeid::zero_start);
  FLAKEID_GEN(cosid, flakeid::cosid_threshold<>);
  FLAKEID_GEN(vibrating, flakeid::vibrating_start<>);
  FLAKEID_GEN(rnd, flakeid::random_start<>);
  FLAKEID_GEN(never, flakeid::never_reset);
  auto drain = [&](auto& g) {
    const std::uint64_t t = tick_of(g.next_id());
    std::uint64_t id = 0;
    while (tick_of(id = g.next_id()) == t) {
    }
    EXPECT_EQ(tick_of(id), t + 1);
    EXPECT_EQ(seq_of(id), 0U);
    EXPECT_EQ(g.next_id(), id + 1);
  };
  drain(zero);
  drain(cosid);
  drain(vibrating);
  drain(rnd);
  drain(never);
  EXPECT_EQ(this->clock.sleeps(), 5U);
}

TYPED_TEST(policy_test, a_tick_the_clock_reached_after_an_exhausted_one_starts_by_the_policy) {
  // The tick is used up, then the clock moves on before the next call: the new tick starts as
  // any new tick does (CosId's rule gives 1 here, as CosId does), with no wait.
  FLAKEID_GEN(zero, flakeid::zero_start);
  FLAKEID_GEN(cosid, flakeid::cosid_threshold<>);
  FLAKEID_GEN(vibrating, flakeid::vibrating_start<>);
  FLAKEID_GEN(rnd, flakeid::random_start<>);
  FLAKEID_GEN(never, flakeid::never_reset);
  const auto use_up = [](auto& g) {
    std::uint64_t id = g.next_id();
    while (seq_of(id) < 4095) id = g.next_id();
    EXPECT_EQ(tick_of(id), 0U);
  };
  use_up(zero);
  use_up(cosid);
  use_up(vibrating);
  use_up(rnd);
  use_up(never);
  this->clock.advance(1ms);
  EXPECT_EQ(zero.next_id(), id_at(1, 0));
  EXPECT_EQ(cosid.next_id(), id_at(1, 1));
  EXPECT_EQ(vibrating.next_id(), id_at(1, 1));  // the offset's second turn
  const std::uint64_t r = rnd.next_id();
  EXPECT_EQ(tick_of(r), 1U);
  EXPECT_LT(seq_of(r), 128U);
  EXPECT_EQ(never.next_id(), id_at(1, 0));  // wraps
  EXPECT_EQ(this->clock.sleeps(), 0U);
}

// ---- sequence exhausted -------------------------------------------------------------------------

TYPED_TEST(policy_test, wait_next_tick_waits_exactly_until_the_next_tick) {
  FLAKEID_GEN(g, flakeid::zero_start, flakeid::wait_next_tick);
  for (std::uint64_t t = 0; t < 3; ++t)
    for (std::uint64_t s = 0; s < 4096; ++s) ASSERT_EQ(g.next_id(), id_at(t, s));
  EXPECT_EQ(this->clock.sleeps(), 2U);
  EXPECT_EQ(this->clock.slept(), 2ms);
  EXPECT_EQ(this->clock.now(), start_time + 2ms);
}

TYPED_TEST(policy_test, borrow_ticks_runs_ahead_at_most_its_bound) {
  FLAKEID_GEN(g, flakeid::zero_start, flakeid::borrow_ticks<3>);
  const std::uint64_t total = 10 * 4096;
  for (std::uint64_t k = 0; k < total; ++k) {
    const std::uint64_t id = g.next_id();
    ASSERT_EQ(id, id_at(k / 4096, k % 4096)) << k;
    const auto clock_tick = static_cast<std::uint64_t>((this->clock.now() - start_time).count());
    ASSERT_LE(tick_of(id), clock_tick + 3) << k;  // never more than 3 ms ahead of the clock
  }
  // Ticks 1-3 were borrowed at once; ticks 4-9 each waited 1 ms for the clock.
  EXPECT_EQ(this->clock.sleeps(), 6U);
  EXPECT_EQ(this->clock.slept(), 6ms);
  EXPECT_EQ(this->clock.now(), start_time + 6ms);
}

TYPED_TEST(policy_test, borrowed_lead_is_not_a_step_back_but_a_larger_lag_is) {
  FLAKEID_GEN(g, flakeid::zero_start, flakeid::borrow_ticks<3>);
  for (std::uint64_t k = 0; k < 3 * 4096; ++k) (void)g.next_id();  // ticks 0-2
  EXPECT_EQ(g.next_id(), id_at(3, 0));                             // borrowed, 3 ahead
  EXPECT_EQ(g.next_id(), id_at(3, 1));                             // clock 3 behind: the lead
  EXPECT_EQ(this->clock.sleeps(), 0U);
  this->clock.step_back(1ms);  // now 4 behind the last tick
  (void)expect_step_back(g, 4ms);
}

TYPED_TEST(policy_test, next_ids_borrows_like_next_id) {
  FLAKEID_GEN(g, flakeid::zero_start, flakeid::borrow_ticks<2>);
  std::vector<std::uint64_t> ids(5 * 4096);
  g.next_ids(ids);
  for (std::uint64_t k = 0; k < ids.size(); ++k) ASSERT_EQ(ids[k], id_at(k / 4096, k % 4096)) << k;
  EXPECT_EQ(this->clock.now(), start_time + 2ms);
}

// ---- clock moved back -----------------------------------------------------------------------------

TYPED_TEST(policy_test, throw_on_backwards_reports_the_step_and_mints_nothing) {
  FLAKEID_GEN(g, flakeid::zero_start, flakeid::wait_next_tick, flakeid::throw_on_backwards);
  EXPECT_EQ(g.next_id(), id_at(0, 0));
  this->clock.step_back(5ms);
  EXPECT_EQ(expect_step_back(g, 5ms),
            "flakeid: clock moved back by 5 ms; the policy tolerates no step back");
  std::uint64_t out[4];
  EXPECT_THROW(g.next_ids(out), flakeid::clock_backwards_error);
  this->clock.advance(5ms);
  EXPECT_EQ(g.next_id(), id_at(0, 1));  // nothing was used while the clock was behind
}

TYPED_TEST(policy_test, the_step_is_measured_from_the_last_tick_used) {
  FLAKEID_GEN(g, flakeid::zero_start, flakeid::wait_next_tick, flakeid::throw_on_backwards);
  EXPECT_EQ(g.next_id(), id_at(0, 0));
  this->clock.advance(10ms);    // no ID minted at +10
  this->clock.step_back(15ms);  // 5 ms behind tick 0
  (void)expect_step_back(g, 5ms);
  this->clock.advance(3ms);  // still 2 behind
  (void)expect_step_back(g, 2ms);
}

TYPED_TEST(policy_test, wait_on_backwards_waits_within_its_bound_and_throws_beyond) {
  FLAKEID_GEN(g, flakeid::zero_start, flakeid::wait_next_tick, flakeid::wait_on_backwards<5>);
  EXPECT_EQ(g.next_id(), id_at(0, 0));
  this->clock.step_back(5ms);
  EXPECT_EQ(g.next_id(), id_at(0, 1));  // waited until the clock was back at tick 0
  EXPECT_EQ(this->clock.sleeps(), 1U);
  EXPECT_EQ(this->clock.slept(), 5ms);
  EXPECT_EQ(this->clock.now(), start_time);
  this->clock.step_back(6ms);
  EXPECT_EQ(expect_step_back(g, 6ms),
            "flakeid: clock moved back by 6 ms; the policy tolerates up to 5 ms");
  EXPECT_EQ(this->clock.slept(), 5ms);  // beyond the bound it does not wait at all
}

TYPED_TEST(policy_test, wait_on_backwards_gives_up_when_the_clock_does_not_catch_up) {
  FLAKEID_GEN(g, flakeid::zero_start, flakeid::wait_next_tick, flakeid::wait_on_backwards<5>);
  EXPECT_EQ(g.next_id(), id_at(0, 0));
  this->clock.step_back(4ms);
  this->clock.auto_advance(false);  // waits sleep for real and the clock stays 4 ms behind
  EXPECT_EQ(expect_step_back(g, 4ms),
            "flakeid: clock moved back by 4 ms; the policy tolerates up to 5 ms");
  EXPECT_GE(this->clock.sleeps(), 1U);
}

TYPED_TEST(policy_test, hold_on_backwards_keeps_counting_in_the_last_tick) {
  FLAKEID_GEN(g, flakeid::zero_start, flakeid::wait_next_tick, flakeid::hold_on_backwards<10>);
  EXPECT_EQ(g.next_id(), id_at(0, 0));
  this->clock.step_back(10ms);
  for (std::uint64_t s = 1; s < 4096; ++s) ASSERT_EQ(g.next_id(), id_at(0, s));
  EXPECT_EQ(this->clock.sleeps(), 0U);
  // The held tick is used up: wait until the clock reaches the next tick.
  EXPECT_EQ(g.next_id(), id_at(1, 0));
  EXPECT_EQ(this->clock.now(), start_time + 1ms);
  EXPECT_EQ(this->clock.slept(), 11ms);
  this->clock.step_back(11ms);
  EXPECT_EQ(expect_step_back(g, 11ms),
            "flakeid: clock moved back by 11 ms; the policy tolerates up to 10 ms");
  this->clock.advance(11ms);
  EXPECT_EQ(g.next_id(), id_at(1, 1));
}

TYPED_TEST(policy_test, ten_ms_ticks_report_the_step_in_milliseconds) {
  using sony_gen =
      flakeid::basic_snowflake<flakeid::layouts::sonyflake, flakeid::manual_clock,
                               flakeid::policies<flakeid::zero_start, flakeid::wait_next_tick,
                                                 flakeid::throw_on_backwards, TypeParam>>;
  sony_gen g{flakeid::worker_id{1}, this->clock};
  (void)g.next_id();
  this->clock.step_back(25ms);      // from the start of a tick to 25 ms (2.5 ticks) before it
  (void)expect_step_back(g, 25ms);  // from the reading to the start of the last tick used
}

TYPED_TEST(policy_test, a_borrowing_bound_counts_whole_ticks_rounded_down) {
  // Sonyflake: 10 ms ticks of 256 sequences. 25 ms is two whole ticks ahead; 5 ms is none.
  const auto run = []<std::int64_t Ms>(flakeid::borrow_ticks<Ms>) {
    using sony_gen =
        flakeid::basic_snowflake<flakeid::layouts::sonyflake, flakeid::manual_clock,
                                 flakeid::policies<flakeid::zero_start, flakeid::borrow_ticks<Ms>,
                                                   flakeid::throw_on_backwards, TypeParam>>;
    flakeid::manual_clock manual{start_time};
    sony_gen g{flakeid::worker_id{1}, manual};
    std::uint64_t first_tick = 0;
    std::uint64_t furthest = 0;  // the most ticks an ID ran ahead of the clock
    for (std::uint64_t k = 0; k < 5 * 256; ++k) {
      const std::uint64_t tick = flakeid::layouts::sonyflake.decompose(g.next_id()).ticks;
      if (k == 0) first_tick = tick;
      const auto clock_tick =
          first_tick + static_cast<std::uint64_t>((manual.now() - start_time) / milliseconds{10});
      EXPECT_EQ(tick, first_tick + k / 256) << k;
      furthest = std::max(furthest, tick - clock_tick);
    }
    return std::pair{furthest, manual.now() - start_time};
  };
  EXPECT_EQ(run(flakeid::borrow_ticks<25>{}), std::pair(std::uint64_t{2}, milliseconds{20}));
  EXPECT_EQ(run(flakeid::borrow_ticks<5>{}), std::pair(std::uint64_t{0}, milliseconds{40}));
}

// ---- bundles ------------------------------------------------------------------------------------

// A one-slot rebind changes that slot and keeps the other three.
static_assert(
    std::is_same_v<flakeid::classic_policies::with_backwards<flakeid::hold_on_backwards<10>>,
                   flakeid::policies<flakeid::zero_start, flakeid::wait_next_tick,
                                     flakeid::hold_on_backwards<10>, flakeid::multi_threaded>>);
static_assert(
    std::is_same_v<flakeid::cosid_policies::with_start<flakeid::never_reset>,
                   flakeid::policies<flakeid::never_reset, flakeid::wait_next_tick,
                                     flakeid::wait_on_backwards<500>, flakeid::multi_threaded>>);
static_assert(std::is_same_v<
              flakeid::classic_policies::with_exhausted<flakeid::borrow_ticks<5>>::on_exhausted,
              flakeid::borrow_ticks<5>>);
// The _st bundles are their threaded bundle for one thread.
static_assert(std::is_same_v<flakeid::cosid_policies_st,
                             flakeid::cosid_policies::with_threading<flakeid::single_threaded>>);
static_assert(
    std::is_same_v<flakeid::classic_snowflake_st<>::policies_type, flakeid::classic_policies_st>);
static_assert(
    std::is_same_v<flakeid::gene_snowflake_st<>::policies_type, flakeid::classic_policies_st>);

TEST(policy_bundle_test, a_rebound_bundle_behaves_as_its_new_slot_says) {
  flakeid::manual_clock clock{start_time};
  flakeid::basic_snowflake<
      flakeid::layouts::twitter, flakeid::manual_clock,
      flakeid::classic_policies::with_backwards<flakeid::hold_on_backwards<10>>>
      gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  EXPECT_EQ(gen.next_id(), id_at(0, 0));
  clock.step_back(5ms);  // held: counts on in the last tick instead of throwing
  EXPECT_EQ(gen.next_id(), id_at(0, 1));
  clock.step_back(10ms);  // 15 ms back: beyond the bound
  EXPECT_THROW((void)gen.next_id(), flakeid::clock_backwards_error);
}

}  // namespace
