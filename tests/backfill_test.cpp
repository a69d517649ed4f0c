// backfill_minter: IDs for given times, a sequence per tick (and gene) that never repeats, a
// bounded memory that refuses rather than forgets silently, and exact errors.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <flakeid/backfill.hpp>
#include <flakeid/flakeid.hpp>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "adapters/expect_error.hpp"

namespace {

using namespace std::chrono;
using namespace std::chrono_literals;
using flakeid_test::expect_error;
using ms_time = sys_time<milliseconds>;
constexpr flakeid::layout twitter = flakeid::layouts::twitter;
constexpr flakeid::layout gene = flakeid::layouts::seed_gene;

const ms_time day = ms_time{sys_days{2021y / March / 4}};

std::uint64_t twitter_id(ms_time t, std::uint64_t seq, std::uint64_t worker = 31) {
  return twitter.compose({.timestamp = t, .worker = worker, .sequence = seq});
}

TEST(backfill_test, each_tick_has_its_own_sequence_so_no_id_repeats) {
  flakeid::backfill_minter<> m{flakeid::worker_id{31}};
  EXPECT_EQ(m.next_id_at(day), twitter_id(day, 0));
  EXPECT_EQ(m.next_id_at(day), twitter_id(day, 1));
  EXPECT_EQ(m.next_id_at(day + 1ms), twitter_id(day + 1ms, 0));
  // 4,095 calls at other times between two calls for one time: the second still goes on from
  // where the first left off (one shared counter would have wrapped to sequence 1 again).
  for (int i = 0; i < 4095; ++i) (void)m.next_id_at(day + 10ms + milliseconds{i % 7});
  EXPECT_EQ(m.next_id_at(day), twitter_id(day, 2));
  // Any sys_time: floored to the millisecond, then to the tick.
  EXPECT_EQ(m.next_id_at(time_point_cast<microseconds>(day) + 999us), twitter_id(day, 3));
  EXPECT_EQ(m.remembered(), 9U);
}

TEST(backfill_test, a_tick_that_used_every_sequence_number_is_an_error) {
  flakeid::backfill_minter<> m{flakeid::datacenter_id{2}, flakeid::worker_id{31}};
  std::set<std::uint64_t> ids;
  for (int i = 0; i < 4096; ++i) ids.insert(m.next_id_at(day));
  EXPECT_EQ(ids.size(), 4096U);
  expect_error<flakeid::backfill_error>(
      [&] { (void)m.next_id_at(day); },
      "flakeid: back-fill tick 2021-03-04T00:00:00.000Z has used all 4096 sequence numbers of "
      "node (2, 31): use another worker id for more");
  EXPECT_EQ(
      m.next_id_at(day + 1ms),
      twitter.compose({.timestamp = day + 1ms, .datacenter = 2, .worker = 31, .sequence = 0}));
}

TEST(backfill_test, a_full_memory_forgets_the_oldest_tick_and_refuses_it_from_then_on) {
  flakeid::backfill_minter<> m{flakeid::worker_id{31}, 3};
  (void)m.next_id_at(day + 10ms);
  (void)m.next_id_at(day + 20ms);
  (void)m.next_id_at(day + 30ms);
  EXPECT_EQ(m.next_id_at(day + 40ms), twitter_id(day + 40ms, 0)) << "forgets day + 10 ms";
  EXPECT_EQ(m.remembered(), 3U);
  const std::string refused =
      "flakeid: back-fill tick 2021-03-04T00:00:00.010Z is at or before "
      "2021-03-04T00:00:00.010Z, which this minter no longer remembers (it keeps 3 sequences): "
      "mint in time order, raise its capacity, or use another worker id";
  expect_error<flakeid::backfill_error>([&] { (void)m.next_id_at(day + 10ms); }, refused);
  // An earlier tick it never used is refused too: it cannot tell it from a forgotten one.
  EXPECT_THROW((void)m.next_id_at(day + 5ms), flakeid::backfill_error);
  // Ticks it still remembers go on; later ones are new.
  EXPECT_EQ(m.next_id_at(day + 20ms), twitter_id(day + 20ms, 1));
  EXPECT_EQ(m.next_id_at(day + 50ms), twitter_id(day + 50ms, 0));
}

// Capacity 2, times +10, +20, +5, +30, +10 ms: forgetting +5 (the oldest after +10 went)
// must not lower the refusal mark below +10, or +10 comes back with sequence 0.
TEST(backfill_test, the_refusal_mark_never_goes_down_so_a_forgotten_tick_stays_refused) {
  flakeid::backfill_minter<> m{flakeid::worker_id{31}, 2};
  EXPECT_EQ(m.next_id_at(day + 10ms), twitter_id(day + 10ms, 0));
  EXPECT_EQ(m.next_id_at(day + 20ms), twitter_id(day + 20ms, 0));
  // +5 lies before both remembered ticks: making room would forget +10 and put +5 under the
  // mark, so it is refused and nothing is forgotten.
  expect_error<flakeid::backfill_error>(
      [&] { (void)m.next_id_at(day + 5ms); },
      "flakeid: back-fill tick 2021-03-04T00:00:00.005Z is not after 2021-03-04T00:00:00.010Z, "
      "the oldest tick this minter remembers, and its memory is full (it keeps 2 sequences): "
      "mint in time order, raise its capacity, or use another worker id");
  EXPECT_EQ(m.remembered(), 2U);
  EXPECT_EQ(m.next_id_at(day + 30ms), twitter_id(day + 30ms, 0)) << "forgets day + 10 ms";
  expect_error<flakeid::backfill_error>(
      [&] { (void)m.next_id_at(day + 10ms); },
      "flakeid: back-fill tick 2021-03-04T00:00:00.010Z is at or before "
      "2021-03-04T00:00:00.010Z, which this minter no longer remembers (it keeps 2 sequences): "
      "mint in time order, raise its capacity, or use another worker id");
  EXPECT_EQ(m.next_id_at(day + 20ms), twitter_id(day + 20ms, 1));
}

// Many random orders over a few ticks, small capacities (fixed seed): no ID comes twice, and a
// refused call is always a backfill_error.
TEST(backfill_test, random_orders_never_repeat_an_id) {
  std::mt19937_64 rng{20'260'501};
  std::size_t duplicates = 0;
  std::size_t minted = 0;
  std::size_t refused = 0;
  for (int round = 0; round < 2'000; ++round) {
    flakeid::backfill_minter<> m{flakeid::worker_id{31}, 1 + rng() % 4};
    std::set<std::uint64_t> ids;
    for (int call = 0; call < 40; ++call) {
      const ms_time t = day + milliseconds{static_cast<std::int64_t>(rng() % 12)};
      try {
        if (!ids.insert(m.next_id_at(t)).second) ++duplicates;
        ++minted;
      } catch (const flakeid::backfill_error&) {
        ++refused;
      }
    }
  }
  EXPECT_EQ(duplicates, 0U);
  EXPECT_GT(minted, 10'000U);
  EXPECT_GT(refused, 10'000U);
  // A gene layout forgets a tick with all its genes.
  const ms_time g_day = ms_time{sys_days{2025y / March / 4}};
  duplicates = 0;
  for (int round = 0; round < 500; ++round) {
    flakeid::backfill_minter<gene> m{flakeid::worker_id{3}, 1 + rng() % 6};
    std::set<std::uint64_t> ids;
    for (int call = 0; call < 60; ++call) {
      const ms_time t = g_day + milliseconds{static_cast<std::int64_t>(rng() % 8)};
      try {
        if (!ids.insert(m.next_id_at(t, rng() % 3)).second) ++duplicates;
      } catch (const flakeid::backfill_error&) {
      }
    }
  }
  EXPECT_EQ(duplicates, 0U);
}

TEST(backfill_test, in_time_order_a_small_memory_serves_any_number_of_ticks) {
  flakeid::backfill_minter<> m{flakeid::worker_id{31}, 2};
  std::set<std::uint64_t> ids;
  for (int i = 0; i < 10'000; ++i) {
    ids.insert(m.next_id_at(day + milliseconds{i / 3}));
  }
  EXPECT_EQ(ids.size(), 10'000U);
  EXPECT_LE(m.remembered(), 2U);
}

TEST(backfill_test, a_gene_layout_keeps_a_sequence_per_tick_and_gene) {
  const ms_time g_day = ms_time{sys_days{2025y / March / 4}};  // after seed_gene's epoch
  flakeid::backfill_minter<gene> m{flakeid::worker_id{3}};
  const std::uint64_t a = m.next_id_at(g_day, 5);
  const std::uint64_t b = m.next_id_at(g_day, 37);  // 37 % 32 == 5: the same gene, so seq 1
  const std::uint64_t c = m.next_id_at(g_day, 6);   // another gene: its own sequence from 0
  EXPECT_EQ(a, gene.compose({.timestamp = g_day, .worker = 3, .sequence = 0, .gene = 5}));
  EXPECT_EQ(b, gene.compose({.timestamp = g_day, .worker = 3, .sequence = 1, .gene = 5}));
  EXPECT_EQ(c, gene.compose({.timestamp = g_day, .worker = 3, .sequence = 0, .gene = 6}));
  EXPECT_EQ(a % 32, 5U);
  EXPECT_EQ(b % 32, 37U % 32);
  EXPECT_EQ(gene.shard_of(c, 8), 6U);
}

TEST(backfill_test, bad_input_is_a_typed_error) {
  EXPECT_THROW(flakeid::backfill_minter<>{flakeid::worker_id{32}}, flakeid::field_range_error);
  expect_error<flakeid::invalid_option_error>(
      [] {
        flakeid::backfill_minter<>{flakeid::worker_id{1}, 0};
      },
      "flakeid: a backfill minter's capacity of 0 leaves no tick to mint in: use 1 or more");
  flakeid::backfill_minter<> m{flakeid::worker_id{1}};
  EXPECT_THROW((void)m.next_id_at(twitter.epoch() - 1ms), flakeid::timestamp_overflow_error);
  EXPECT_THROW((void)m.next_id_at(twitter.expires_at() + 1ms), flakeid::timestamp_overflow_error);
  EXPECT_EQ(m.next_id_at(twitter.epoch()), twitter_id(twitter.epoch(), 0, 1));
}

TEST(backfill_test, threads_sharing_a_minter_get_distinct_ids) {
  flakeid::backfill_minter<> m{flakeid::worker_id{31}};
  std::mutex mu;
  std::set<std::uint64_t> all;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::uint64_t> mine;
      for (int i = 0; i < 5'000; ++i)
        mine.push_back(m.next_id_at(day + milliseconds{(i * 7 + t) % 13}));
      std::lock_guard lk(mu);
      all.insert(mine.begin(), mine.end());
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(all.size(), 20'000U);
}

}  // namespace
