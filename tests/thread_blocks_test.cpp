// thread_blocks<B>: each thread serves its IDs from a block of the tick's sequences. Exact IDs
// on a manual clock, with threads run one after another so that who takes which block is
// fixed: how blocks grow, what another thread gets meanwhile, what goes back to the state, and
// that the lease fence and the generator's identity hold for a cached block.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace flakeid_test;

namespace {

static_assert(flakeid::threading_policy<flakeid::thread_blocks<>>);
static_assert(flakeid::thread_blocks<>::block == 64 && flakeid::thread_blocks<8>::block == 8);
static_assert(flakeid::thread_blocks<>::thread_safe);

using blocked =
    flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock,
                             flakeid::classic_policies::with_threading<flakeid::thread_blocks<>>>;
using blocked8 =
    flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock,
                             flakeid::classic_policies::with_threading<flakeid::thread_blocks<8>>>;
static_assert(
    std::is_same_v<flakeid::blocked_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>,
                   blocked>);

constexpr auto ticks0 = static_cast<std::uint64_t>(start_ms - twitter_epoch);
/// Worker 7 of datacenter 1, `dt` ticks after the start.
constexpr std::uint64_t id_at(std::uint64_t dt, std::uint64_t seq, std::uint64_t w = 7) {
  return twitter_id(ticks0 + dt, 1, w, seq);
}

/// Runs `f` on a thread of its own (a fresh block cache) and waits for it.
template <class F>
void on_new_thread(F f) {
  std::thread t(f);
  t.join();
}

/// `n` IDs of `gen`, minted on a new thread.
template <class Gen>
std::vector<std::uint64_t> mint_on_new_thread(Gen& gen, int n) {
  std::vector<std::uint64_t> ids;
  on_new_thread([&] {
    for (int i = 0; i < n; ++i) ids.push_back(gen.next_id());
  });
  return ids;
}

TEST(thread_blocks_test, a_thread_takes_growing_blocks_and_another_thread_goes_on_above_them) {
  flakeid::manual_clock clock{start_time};
  blocked gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  std::vector<std::uint64_t> a;
  std::vector<std::uint64_t> b;
  std::thread ta([&] {
    // Blocks of 1, 2, 4: sequences 0 | 1 2 | 3 4 5 6, the thread serving 0 to 3 so far.
    for (int i = 0; i < 4; ++i) a.push_back(gen.next_id());
    on_new_thread([&] { b.push_back(gen.next_id()); });  // above the block: 7
    a.push_back(gen.next_id());                          // the block's rest: 4, below 7
  });
  ta.join();
  EXPECT_EQ(a, (std::vector<std::uint64_t>{id_at(0, 0), id_at(0, 1), id_at(0, 2), id_at(0, 3),
                                           id_at(0, 4)}));
  EXPECT_EQ(b, std::vector<std::uint64_t>{id_at(0, 7)});
}

TEST(thread_blocks_test, blocks_stop_growing_at_the_policy_bound) {
  flakeid::manual_clock clock{start_time};
  blocked8 gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  std::vector<std::uint64_t> b;
  on_new_thread([&] {
    // Blocks of 1, 2, 4, 8, 8: 23 sequences taken (0 to 22), 16 served (0 to 15).
    for (int i = 0; i < 16; ++i) ASSERT_EQ(gen.next_id(), id_at(0, static_cast<std::uint64_t>(i)));
    on_new_thread([&] { b.push_back(gen.next_id()); });
  });
  EXPECT_EQ(b, std::vector<std::uint64_t>{id_at(0, 23)});
}

TEST(thread_blocks_test, at_one_id_per_tick_a_thread_takes_one_sequence_at_a_time) {
  flakeid::manual_clock clock{start_time};
  using cosid_blocked = flakeid::basic_snowflake<
      flakeid::layouts::twitter, flakeid::manual_clock,
      flakeid::policies<flakeid::cosid_threshold<>, flakeid::wait_next_tick,
                        flakeid::throw_on_backwards, flakeid::thread_blocks<>>>;
  cosid_blocked gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  on_new_thread([&] {
    // CosId's sequence runs on across ticks, one a tick, as without blocks.
    for (std::uint64_t t = 0; t < 6; ++t) {
      ASSERT_EQ(gen.next_id(), id_at(t, t + 1));
      clock.advance(1ms);
    }
  });
}

TEST(thread_blocks_test, the_unserved_rest_of_a_block_goes_back_when_nobody_took_more) {
  flakeid::manual_clock clock{start_time};
  blocked gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  std::vector<std::uint64_t> b;
  on_new_thread([&] {
    for (int i = 0; i < 4; ++i) (void)gen.next_id();  // 0 to 3 served, 4 to 6 in the block
    // next_ids gives the rest back and goes on from there, so the thread stays in order.
    std::uint64_t out[2];
    gen.next_ids(out);
    EXPECT_EQ(out[0], id_at(0, 4));
    EXPECT_EQ(out[1], id_at(0, 5));
    // The block emptied within its tick: the next one is twice as large (6 to 13).
    EXPECT_EQ(gen.next_id(), id_at(0, 6));
    on_new_thread([&] { b.push_back(gen.next_id()); });
  });
  EXPECT_EQ(b, std::vector<std::uint64_t>{id_at(0, 14)});
}

TEST(thread_blocks_test, a_block_another_thread_passed_is_a_gap_never_a_repeat) {
  flakeid::manual_clock clock{start_time};
  blocked gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  std::vector<std::uint64_t> a;
  std::vector<std::uint64_t> b;
  on_new_thread([&] {
    a.push_back(gen.next_id());                          // 0
    a.push_back(gen.next_id());                          // 1, block 1 to 2
    on_new_thread([&] { b.push_back(gen.next_id()); });  // 3
    clock.advance(1ms);
    a.push_back(gen.next_id());  // a new tick; sequence 2 of the old one stays unused
    a.push_back(gen.next_id());
  });
  EXPECT_EQ(a, (std::vector<std::uint64_t>{id_at(0, 0), id_at(0, 1), id_at(1, 0), id_at(1, 1)}));
  EXPECT_EQ(b, std::vector<std::uint64_t>{id_at(0, 3)});
}

TEST(thread_blocks_test, an_exhausted_tick_waits_for_the_next_one_with_blocks_too) {
  flakeid::manual_clock clock{start_time};
  blocked gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  on_new_thread([&] {
    for (std::uint64_t s = 0; s < 4096; ++s) ASSERT_EQ(gen.next_id(), id_at(0, s));
    EXPECT_EQ(gen.next_id(), id_at(1, 0));  // the manual clock's wait moved it on 1 ms
    EXPECT_EQ(clock.now(), start_time + 1ms);
  });
}

TEST(thread_blocks_test, a_cached_block_is_refused_past_the_lease_deadline) {
  flakeid::manual_clock clock{start_time};
  auto fence = flakeid::fence_ptr::make();
  blocked gen{flakeid::worker_assignment{{1, 7}, INT64_MIN, fence, "test"}, clock};
  on_new_thread([&] {
    for (std::uint64_t s = 0; s < 4; ++s) ASSERT_EQ(gen.next_id(), id_at(0, s));  // 4 to 6 cached
    fence->deadline_unix_ms.store(start_ms);  // the lease ends where this tick starts
    try {
      (void)gen.next_id();
      ADD_FAILURE() << "no exception";
    } catch (const flakeid::lease_lost_error& e) {
      EXPECT_STREQ(e.what(), ("flakeid: the worker-id lease does not cover timestamp " +
                              std::to_string(start_ms) + " (Unix ms): it holds until " +
                              std::to_string(start_ms) +
                              " and its renewal is not confirmed; minting stops until it is")
                                 .c_str());
    }
    fence->deadline_unix_ms.store(start_ms + 1);  // renewed
    EXPECT_EQ(gen.next_id(), id_at(0, 4));
  });
}

TEST(thread_blocks_test, a_generator_made_where_another_lay_does_not_serve_its_block) {
  flakeid::manual_clock clock{start_time};
  std::optional<blocked> gen;
  on_new_thread([&] {
    gen.emplace(flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock);
    for (std::uint64_t s = 0; s < 4; ++s) ASSERT_EQ(gen->next_id(), id_at(0, s));  // 4 to 6 cached
    gen.reset();
    gen.emplace(flakeid::datacenter_id{1}, flakeid::worker_id{8}, clock);  // same address
    EXPECT_EQ(gen->next_id(), id_at(0, 0, 8));
  });
}

TEST(thread_blocks_test, six_generators_on_one_thread_keep_their_own_blocks) {
  flakeid::manual_clock clock{start_time};
  std::vector<std::unique_ptr<blocked>> gens;
  for (std::uint64_t w = 0; w < 6; ++w)
    gens.push_back(
        std::make_unique<blocked>(flakeid::datacenter_id{1}, flakeid::worker_id{w}, clock));
  std::vector<std::vector<std::uint64_t>> ids(6);
  on_new_thread([&] {
    // The thread keeps the blocks of the four generators it used last; a block pushed out is a
    // gap in its generator's sequences, never an ID of another generator.
    for (int round = 0; round < 50; ++round) {
      for (std::size_t g = 0; g < 6; ++g) {
        const std::size_t k = (g * 5 + static_cast<std::size_t>(round)) % 6;
        ids[k].push_back(gens[k]->next_id());
      }
    }
  });
  for (std::uint64_t k = 0; k < 6; ++k) {
    ASSERT_EQ(ids[k].size(), 50U);
    for (std::size_t i = 0; i < ids[k].size(); ++i) {
      const auto parts = flakeid::layouts::twitter.decompose(ids[k][i]);
      EXPECT_EQ(parts.worker, k);
      EXPECT_EQ(parts.timestamp, start_time);
      if (i > 0) {
        EXPECT_GT(ids[k][i], ids[k][i - 1]) << "generator " << k << " at " << i;
      }
    }
  }
  // Blocks were pushed out (six generators, four blocks), so some generator has a gap.
  bool gap = false;
  for (const auto& v : ids) gap = gap || (v.back() & 4095) != v.size() - 1;
  EXPECT_TRUE(gap);
}

}  // namespace
