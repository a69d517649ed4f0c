// Every generator (and its _st variant) under a clock the test drives: exact IDs at the first
// tick, across tick boundaries, on sequence exhaustion, in batches, for a given time (with a
// backfill minter on the same node), and at both ends of the layout's time range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "adapters/expect_error.hpp"
#include "generator_support.hpp"

using namespace std::chrono;
using namespace flakeid_test;

namespace {

template <class Case>
class generator_test : public ::testing::Test {};
using all_generators = ::testing::Types<classic_case, classic_st_case, gene_case, gene_st_case,
                                        cosid_case, cosid_st_case, tick_case, tick_st_case>;
TYPED_TEST_SUITE(generator_test, all_generators);

/// Generators on a manual clock: they can wait (the clock advances) and see the clock go back.
template <class Case>
class manual_generator_test : public ::testing::Test {};
using manual_generators = ::testing::Types<classic_case, classic_st_case, gene_case, gene_st_case,
                                           cosid_case, cosid_st_case>;
TYPED_TEST_SUITE(manual_generator_test, manual_generators);

constexpr std::uint64_t seq_max_of(const flakeid::layout& l) {
  return l.max_value(flakeid::field_kind::sequence);
}

TYPED_TEST(generator_test, first_ids_are_exact) {
  using C = TypeParam;
  typename C::rig r;
  EXPECT_EQ(C::mint(r), C::id(start_ms, C::first_seq));
  EXPECT_EQ(C::mint(r), C::id(start_ms, C::first_seq + 1));
  EXPECT_EQ(C::mint(r), C::id(start_ms, C::first_seq + 2));
}

TYPED_TEST(generator_test, new_tick_starts_the_sequence_per_policy) {
  using C = TypeParam;
  typename C::rig r;
  std::uint64_t seq = C::first_seq;
  EXPECT_EQ(C::mint(r), C::id(start_ms, seq));
  EXPECT_EQ(C::mint(r), C::id(start_ms, ++seq));
  r.advance(1ms);
  seq = C::next_start(seq);
  EXPECT_EQ(C::mint(r), C::id(start_ms + 1, seq));
  EXPECT_EQ(C::mint(r), C::id(start_ms + 1, ++seq));
  r.advance(5ms);
  seq = C::next_start(seq);
  EXPECT_EQ(C::mint(r), C::id(start_ms + 6, seq));
  EXPECT_EQ(C::mint(r), C::id(start_ms + 6, ++seq));
}

TYPED_TEST(generator_test, ids_are_strictly_increasing_as_time_moves) {
  using C = TypeParam;
  typename C::rig r;
  std::uint64_t prev = C::mint(r);
  for (int i = 0; i < 5000; ++i) {
    if (i % 7 == 0) r.advance(milliseconds{1 + i % 3});
    const std::uint64_t id = C::mint(r);
    ASSERT_GT(id, prev) << "at " << i;
    prev = id;
  }
}

TYPED_TEST(generator_test, next_ids_gives_the_ids_of_repeated_next_id) {
  using C = TypeParam;
  typename C::rig one;
  std::vector<std::uint64_t> expected;
  for (int i = 0; i < 40; ++i) expected.push_back(C::mint(one));
  one.advance(3ms);
  for (int i = 0; i < 25; ++i) expected.push_back(C::mint(one));

  typename C::rig batch;
  std::vector<std::uint64_t> got(65);
  C::fill(batch, std::span(got).first(40));
  batch.advance(3ms);
  C::fill(batch, std::span(got).subspan(40));
  EXPECT_EQ(got, expected);
  EXPECT_EQ(got.front(), C::id(start_ms, C::first_seq));
  EXPECT_EQ(got[40], C::id(start_ms + 3, C::next_start(C::first_seq + 39)));
}

// IDs for a given time come from a backfill minter on the generator's node: the given tick, and
// a sequence of the minter's own, per tick.
TYPED_TEST(generator_test, a_backfill_minter_on_its_node_mints_at_the_given_time) {
  using C = TypeParam;
  typename C::rig r;
  constexpr bool has_datacenter = C::layout.has(flakeid::field_kind::datacenter);
  flakeid::backfill_minter<C::layout> minter{flakeid::datacenter_id{has_datacenter ? 1U : 0U},
                                             flakeid::worker_id{7}};
  const auto at = [&minter](ms_time when) {
    if constexpr (requires { C::key; }) {
      return minter.next_id_at(when, C::key);
    } else {
      return minter.next_id_at(when);
    }
  };
  const ms_time t = start_time - hours{24 * 30};
  const std::int64_t t_ms = t.time_since_epoch().count();
  EXPECT_EQ(at(t), C::id(t_ms, 0));
  EXPECT_EQ(at(t), C::id(t_ms, 1));
  EXPECT_EQ(at(t + 1ms), C::id(t_ms + 1, 0));
  EXPECT_THROW((void)at(C::layout.epoch() - 1ms), flakeid::timestamp_overflow_error);
  EXPECT_THROW((void)at(C::layout.expires_at() + 1ms), flakeid::timestamp_overflow_error);
  // The generator's clock-driven sequence is its own.
  EXPECT_EQ(C::mint(r), C::id(start_ms, C::first_seq));
}

TYPED_TEST(generator_test, refuses_to_mint_before_the_epoch) {
  using C = TypeParam;
  typename C::rig r{C::layout.epoch() - 1ms};
  EXPECT_THROW((void)C::mint(r), flakeid::timestamp_overflow_error);
  r.advance(1ms);  // the epoch itself is tick 0, which a new generator treats as used
  r.advance(1ms);
  EXPECT_EQ(C::mint(r), C::id(C::layout.epoch_ms + 1, C::first_seq));
}

TYPED_TEST(generator_test, mints_in_the_last_tick_then_refuses) {
  using C = TypeParam;
  const ms_time last = C::layout.expires_at();
  typename C::rig r{last};
  const std::uint64_t max_ticks = C::layout.max_ticks();
  const std::uint64_t id = C::mint(r);
  EXPECT_EQ(id, C::id(C::layout.epoch_ms + static_cast<std::int64_t>(max_ticks), C::first_seq));
  EXPECT_EQ(C::layout.decompose(id).ticks, max_ticks);
  EXPECT_EQ(id >> 63, 0U);
  r.advance(1ms);
  EXPECT_THROW((void)C::mint(r), flakeid::timestamp_overflow_error);
  std::uint64_t out[3] = {};
  EXPECT_THROW(C::fill(r, out), flakeid::timestamp_overflow_error);
}

TYPED_TEST(manual_generator_test, exhausted_tick_waits_for_the_next_one) {
  using C = TypeParam;
  typename C::rig r;
  constexpr std::uint64_t max = seq_max_of(C::layout);
  for (std::uint64_t s = C::first_seq; s <= max; ++s) ASSERT_EQ(C::mint(r), C::id(start_ms, s));
  EXPECT_EQ(r.clock.sleeps(), 0U);
  // The tick is used up: the next ID comes from the next tick, after a wait of exactly 1 ms,
  // and every policy restarts at 0 after an exhausted tick.
  EXPECT_EQ(C::mint(r), C::id(start_ms + 1, 0));
  EXPECT_EQ(r.clock.sleeps(), 1U);
  EXPECT_EQ(r.clock.slept(), 1ms);
  EXPECT_EQ(r.clock.now(), start_time + 1ms);
  EXPECT_EQ(C::mint(r), C::id(start_ms + 1, 1));
}

TYPED_TEST(manual_generator_test, next_ids_crosses_ticks_like_next_id) {
  using C = TypeParam;
  constexpr std::uint64_t per_tick = seq_max_of(C::layout) + 1;
  const std::size_t n = 2 * per_tick + 17;
  typename C::rig one;
  std::vector<std::uint64_t> expected(n);
  for (auto& id : expected) id = C::mint(one);

  typename C::rig batch;
  std::vector<std::uint64_t> got(n);
  C::fill(batch, got);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(batch.clock.now(), one.clock.now());
  EXPECT_EQ(batch.clock.sleeps(), one.clock.sleeps());
  EXPECT_EQ(batch.clock.slept(), 2ms);
  // The first tick holds first_seq..max, the next two start at 0.
  const std::size_t first_tick = per_tick - C::first_seq;
  EXPECT_EQ(got[first_tick - 1], C::id(start_ms, per_tick - 1));
  EXPECT_EQ(got[first_tick], C::id(start_ms + 1, 0));
  EXPECT_EQ(got[first_tick + per_tick], C::id(start_ms + 2, 0));
  EXPECT_EQ(got.back(), C::id(start_ms + 2, n - first_tick - per_tick - 1));
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
  EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end());
}

TYPED_TEST(manual_generator_test, exhausting_the_last_tick_throws_instead_of_wrapping) {
  using C = TypeParam;
  typename C::rig r{C::layout.expires_at()};
  constexpr std::uint64_t max = seq_max_of(C::layout);
  const auto last_ms = C::layout.epoch_ms + static_cast<std::int64_t>(C::layout.max_ticks());
  for (std::uint64_t s = C::first_seq; s <= max; ++s) ASSERT_EQ(C::mint(r), C::id(last_ms, s));
  EXPECT_THROW((void)C::mint(r), flakeid::timestamp_overflow_error);
  EXPECT_THROW((void)C::mint(r), flakeid::timestamp_overflow_error);
}

TYPED_TEST(manual_generator_test, a_clock_step_back_beyond_the_preset_bound_throws_the_step) {
  using C = TypeParam;
  typename C::rig r;
  (void)C::mint(r);
  const milliseconds step{C::backwards_wait_ms + 3};
  r.clock.step_back(step);
  try {
    (void)C::mint(r);
    FAIL() << "no exception";
  } catch (const flakeid::clock_backwards_error& e) {
    EXPECT_EQ(e.step(), step);
  }
  EXPECT_EQ(r.clock.sleeps(), 0U);
  r.clock.advance(step);
  EXPECT_EQ(C::mint(r), C::id(start_ms, C::first_seq + 1));
}

TYPED_TEST(manual_generator_test, a_small_step_back_is_waited_out_or_thrown_per_preset) {
  using C = TypeParam;
  typename C::rig r;
  (void)C::mint(r);
  if constexpr (C::backwards_wait_ms == 0) {
    // classic and gene throw on any step, even 1 ms.
    r.clock.step_back(1ms);
    try {
      (void)C::mint(r);
      FAIL() << "no exception";
    } catch (const flakeid::clock_backwards_error& e) {
      EXPECT_EQ(e.step(), 1ms);
    }
    EXPECT_EQ(r.clock.slept(), 0ms);
  } else {
    // cosid waits for the clock to come back, up to its bound.
    r.clock.step_back(milliseconds{C::backwards_wait_ms});
    EXPECT_EQ(C::mint(r), C::id(start_ms, C::first_seq + 1));
    EXPECT_EQ(r.clock.slept(), milliseconds{C::backwards_wait_ms});
    EXPECT_EQ(r.clock.now(), start_time);
  }
}

// ---- generator-specific ------------------------------------------------------------------------

TEST(generator_test, classic_first_id_is_the_hand_computed_value) {
  flakeid::manual_clock clock{start_time};
  flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock> gen{
      flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  // (1735689600000 - 1288834974657) << 22 | 1 << 17 | 7 << 12
  EXPECT_EQ(gen.next_id(), 1874244142494806016ULL);
  EXPECT_EQ(gen.next_id(), 1874244142494806017ULL);
  const auto p = gen.layout().decompose(1874244142494806017ULL);
  EXPECT_EQ(p.timestamp, start_time);
  EXPECT_EQ(p.datacenter, 1U);
  EXPECT_EQ(p.worker, 7U);
  EXPECT_EQ(p.sequence, 1U);
  EXPECT_EQ(gen.last_tick_time(), start_time);
}

TEST(generator_test, the_constructors_give_the_node_they_name) {
  flakeid::manual_clock clock{start_time};
  using gen_t = flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>;
  const gen_t a{flakeid::datacenter_id{3}, flakeid::worker_id{9}, clock};
  const gen_t b{flakeid::worker_id{9}, clock};
  const gen_t c{flakeid::fixed_node{flakeid::datacenter_id{3}, flakeid::worker_id{9}}, clock};
  const gen_t d{flakeid::worker_assignment{{3, 9}, INT64_MIN, nullptr, "assigned"}, clock};
  const gen_t e{clock};
  EXPECT_EQ(a.node(), (flakeid::node_id{3, 9}));
  EXPECT_EQ(b.node(), (flakeid::node_id{0, 9}));
  EXPECT_EQ(c.node(), a.node());
  EXPECT_EQ(d.node(), a.node());
  EXPECT_EQ(e.node(), (flakeid::node_id{0, 0}));
  EXPECT_EQ(a.node_source(), "fixed");
  EXPECT_EQ(d.node_source(), "assigned");
  // A raw integer or a worker id before the datacenter id is a compile error
  // (tests/compile_fail/engine_raw_integer_ids.cpp, engine_worker_before_datacenter.cpp).
}

TEST(generator_test, cosid_threshold_2_gives_cosids_sequences) {
  flakeid::manual_clock clock{ms_time{milliseconds{cosid_epoch + 1000}}};
  flakeid::basic_snowflake<flakeid::layouts::cosid, flakeid::manual_clock,
                           flakeid::policies<flakeid::cosid_threshold<2>>>
      gen{flakeid::worker_id{7}, clock};
  EXPECT_EQ(gen.next_id(), cosid_id(1000, 7, 1));
  clock.advance(1ms);
  EXPECT_EQ(gen.next_id(), cosid_id(1001, 7, 2));
  clock.advance(1ms);
  EXPECT_EQ(gen.next_id(), cosid_id(1002, 7, 1));
}

TEST(generator_test, cosid_counts_on_across_ticks_until_2047) {
  const std::int64_t t0 = cosid_epoch + 1000;
  flakeid::manual_clock clock{ms_time{milliseconds{t0}}};
  flakeid::cosid_snowflake<flakeid::layouts::cosid, flakeid::manual_clock> gen{
      flakeid::worker_id{7}, clock};
  // Within a tick the sequence counts up; a new tick goes on from the last one.
  EXPECT_EQ(gen.next_id(), cosid_id(1000, 7, 1));
  EXPECT_EQ(gen.next_id(), cosid_id(1000, 7, 2));
  clock.advance(1ms);
  EXPECT_EQ(gen.next_id(), cosid_id(1001, 7, 3));
  // One ID per tick: 4, 5, ..., 2047 (2^11 - 1), then back to 1.
  for (std::uint64_t s = 4; s <= 2047; ++s) {
    clock.advance(1ms);
    ASSERT_EQ(gen.next_id(), cosid_id(1001 + s - 3, 7, s));
  }
  clock.advance(1ms);
  EXPECT_EQ(gen.next_id(), cosid_id(1001 + 2045, 7, 1));
}

TEST(generator_test, cosid_threshold_is_measured_at_the_new_tick) {
  // Past the threshold within one tick the sequence keeps counting; the reset comes with the
  // next tick.
  flakeid::manual_clock clock{ms_time{milliseconds{cosid_epoch + 1000}}};
  flakeid::basic_snowflake<flakeid::layouts::cosid, flakeid::manual_clock,
                           flakeid::policies<flakeid::cosid_threshold<2>>>
      gen{flakeid::worker_id{7}, clock};
  for (std::uint64_t s = 1; s <= 5; ++s) EXPECT_EQ(gen.next_id(), cosid_id(1000, 7, s));
  clock.advance(1ms);
  EXPECT_EQ(gen.next_id(), cosid_id(1001, 7, 1));
}

/// CosId's sequence rule for a configured reset threshold, written from its description: at a
/// new tick a sequence at or above the threshold goes back to 0; every ID then adds 1 (a wrap
/// past the largest sequence is not reached here).
struct cosid_sequence_model {
  std::uint64_t threshold;
  std::uint64_t seq = 0;
  std::uint64_t next(bool new_tick) {
    if (new_tick && seq >= threshold) seq = 0;
    return ++seq;
  }
};

/// The sequences flakeid's `cosid_threshold<T>` gives next to the model's for threshold
/// `model_threshold`, over 6000 ticks of 1, 2, ..., `most` IDs in turn; the number of IDs that
/// differ.
template <class Start>
std::size_t cosid_mismatches(std::uint64_t model_threshold, std::uint64_t most = 7) {
  flakeid::manual_clock clock{ms_time{milliseconds{cosid_epoch + 1000}}};
  flakeid::basic_snowflake<flakeid::layouts::cosid, flakeid::manual_clock, flakeid::policies<Start>>
      gen{flakeid::worker_id{7}, clock};
  cosid_sequence_model model{model_threshold, 0};
  std::size_t differ = 0;
  for (std::uint64_t t = 0; t < 6000; ++t) {
    for (std::uint64_t i = 0; i <= t % most; ++i)
      differ += gen.next_id() == cosid_id(1000 + t, 7, model.next(i == 0)) ? 0U : 1U;
    clock.advance(1ms);
  }
  return differ;
}

TEST(generator_test, a_cosid_threshold_copied_from_cosid_gives_cosids_sequences) {
  EXPECT_EQ(cosid_mismatches<flakeid::cosid_threshold<0>>(0), 0U);
  EXPECT_EQ(cosid_mismatches<flakeid::cosid_threshold<1>>(1), 0U);
  EXPECT_EQ(cosid_mismatches<flakeid::cosid_threshold<2>>(2), 0U);
  EXPECT_EQ(cosid_mismatches<flakeid::cosid_threshold<100>>(100), 0U);
  EXPECT_EQ(cosid_mismatches<flakeid::cosid_threshold<2047>>(2047), 0U);
  // One ID per tick: 4095 is reached (and the sequence goes back to 1) without running out.
  EXPECT_EQ(cosid_mismatches<flakeid::cosid_threshold<4095>>(4095, 1), 0U);
  // The default is CosId's default for 12 bits, 2047; 0 is not the default.
  EXPECT_EQ(cosid_mismatches<flakeid::cosid_threshold<>>(2047), 0U);
  EXPECT_GT(cosid_mismatches<flakeid::cosid_threshold<0>>(2047), 0U);
}

TEST(generator_test, gene_keeps_one_sequence_per_gene) {
  flakeid::manual_clock clock{start_time};
  flakeid::gene_snowflake<flakeid::layouts::seed_gene, flakeid::manual_clock> gen{
      flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  const auto ticks = static_cast<std::uint64_t>(start_ms - seed_gene_epoch);
  EXPECT_EQ(gen.next_id(5), seed_gene_id(ticks, 1, 7, 0, 5));
  EXPECT_EQ(gen.next_id(37), seed_gene_id(ticks, 1, 7, 1, 5));  // 37 % 32 == 5
  EXPECT_EQ(gen.next_id(6), seed_gene_id(ticks, 1, 7, 0, 6));
  EXPECT_EQ(gen.next_id(5), seed_gene_id(ticks, 1, 7, 2, 5));
  // Exhausting gene 5 does not touch gene 6.
  for (std::uint64_t s = 3; s < 128; ++s)
    ASSERT_EQ(gen.next_id(5), seed_gene_id(ticks, 1, 7, s, 5));
  EXPECT_EQ(gen.next_id(6), seed_gene_id(ticks, 1, 7, 1, 6));
  EXPECT_EQ(clock.sleeps(), 0U);
  EXPECT_EQ(gen.next_id(5), seed_gene_id(ticks + 1, 1, 7, 0, 5));
  EXPECT_EQ(clock.sleeps(), 1U);
  EXPECT_EQ(gen.next_id(6), seed_gene_id(ticks + 1, 1, 7, 0, 6));
}

// ---- time range errors -----------------------------------------------------------------------

TEST(generator_test, timestamp_overflow_messages_name_the_time_and_the_range) {
  flakeid::manual_clock clock{ms_time{milliseconds{twitter_epoch - 1}}};
  flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock> gen{
      flakeid::worker_id{1}, clock};
  expect_error<flakeid::timestamp_overflow_error>(
      [&] { (void)gen.next_id(); },
      "flakeid: time 2010-11-04T01:42:54.656Z is outside the layout's range "
      "[2010-11-04T01:42:54.657Z, 2080-07-10T17:30:30.208Z]");
  clock.set(flakeid::layouts::twitter.expires_at() + 1ms);
  expect_error<flakeid::timestamp_overflow_error>(
      [&] { (void)gen.next_id(); },
      "flakeid: time 2080-07-10T17:30:30.209Z is outside the layout's range "
      "[2010-11-04T01:42:54.657Z, 2080-07-10T17:30:30.208Z]");
}

TEST(generator_test, a_ten_ms_layout_expires_at_the_end_of_its_last_tick) {
  constexpr auto& sf = flakeid::layouts::sonyflake;
  const ms_time last_tick_start = sf.time_at(sf.max_ticks());
  flakeid::manual_clock clock{last_tick_start + 9ms};
  flakeid::classic_snowflake<sf, flakeid::manual_clock> gen{flakeid::worker_id{300}, clock};
  // sonyflake: ts 39 | seq 8 | machine 16
  EXPECT_EQ(gen.next_id(), sf.max_ticks() << 24 | 0 << 16 | 300);
  EXPECT_EQ(gen.next_id(), sf.max_ticks() << 24 | 1 << 16 | 300);
  clock.advance(1ms);
  EXPECT_THROW((void)gen.next_id(), flakeid::timestamp_overflow_error);
}

TEST(generator_test, a_ten_ms_tick_waits_for_the_start_of_the_next_tick) {
  constexpr auto& sf = flakeid::layouts::sonyflake;
  const auto ticks = static_cast<std::uint64_t>((start_ms - sf.epoch_ms) / 10);
  flakeid::manual_clock clock{start_time + 3ms};  // 3 ms into a 10 ms tick
  flakeid::classic_snowflake<sf, flakeid::manual_clock> gen{flakeid::worker_id{300}, clock};
  for (std::uint64_t s = 0; s < 256; ++s) ASSERT_EQ(gen.next_id(), ticks << 24 | s << 16 | 300);
  EXPECT_EQ(gen.next_id(), (ticks + 1) << 24 | 0 << 16 | 300);
  EXPECT_EQ(clock.now(), start_time + 10ms);
  EXPECT_EQ(clock.slept(), 7ms);
}

// ---- node ids -----------------------------------------------------------------------------------

/// The `field_range_error` that building a `Gen` of `ids` on `clock` throws ("no exception" for
/// none).
template <class Gen, class... Ids>
std::string build_error(flakeid::manual_clock& clock, Ids... ids) {
  try {
    const Gen g{ids..., clock};
  } catch (const flakeid::field_range_error& e) {
    return e.what();
  }
  return "no exception";
}

TEST(generator_test, out_of_range_node_ids_throw_when_the_generator_is_built) {
  using classic = flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>;
  using cosid = flakeid::cosid_snowflake<flakeid::layouts::cosid, flakeid::manual_clock>;
  using gene = flakeid::gene_snowflake<flakeid::layouts::seed_gene, flakeid::manual_clock>;
  flakeid::manual_clock clock{start_time};
  EXPECT_EQ(build_error<classic>(clock, flakeid::worker_id{32}),
            "flakeid: worker 32 is out of range [0, 31] for a 5-bit field");
  EXPECT_EQ(build_error<classic>(clock, flakeid::datacenter_id{40}, flakeid::worker_id{1}),
            "flakeid: datacenter 40 is out of range [0, 31] for a 5-bit field");
  EXPECT_EQ(build_error<gene>(clock, flakeid::datacenter_id{1}, flakeid::worker_id{99}),
            "flakeid: worker 99 is out of range [0, 31] for a 5-bit field");
  EXPECT_EQ(build_error<cosid>(clock, flakeid::worker_id{1024}),
            "flakeid: worker 1024 is out of range [0, 1023] for a 10-bit field");
  EXPECT_EQ(build_error<cosid>(clock, flakeid::datacenter_id{1}, flakeid::worker_id{1}),
            "flakeid: datacenter 1 is out of range [0, 0]: the layout has no datacenter field");
  EXPECT_NO_THROW((classic{flakeid::datacenter_id{31}, flakeid::worker_id{31}, clock}));
  EXPECT_NO_THROW((cosid{flakeid::worker_id{1023}, clock}));
}

TEST(generator_test, different_nodes_never_collide) {
  flakeid::manual_clock clock{start_time};
  using gen_t = flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>;
  gen_t a{flakeid::datacenter_id{0}, flakeid::worker_id{1}, clock};
  gen_t b{flakeid::datacenter_id{1}, flakeid::worker_id{0}, clock};
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 10000; ++i) {
    ids.push_back(a.next_id());
    ids.push_back(b.next_id());
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

}  // namespace
