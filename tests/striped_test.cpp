#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

#include <flakeid/flakeid.hpp>
#include <flakeid/striped.hpp>

#include "generator_support.hpp"

using namespace std::chrono;
using flakeid::datacenter_id;
using flakeid::worker_id;

namespace {

using striped4 = flakeid::striped_snowflake<flakeid::layouts::twitter, flakeid::wall_clock, 2>;
static_assert(striped4::stripe_count == 4);
static_assert(striped4::base_worker_bits == 3);

TEST(striped_test, each_stripe_is_an_engine_with_the_base_worker_above_the_stripe) {
  striped4 gen{datacenter_id{2}, worker_id{5}};
  for (std::size_t i = 0; i < striped4::stripe_count; ++i) {
    EXPECT_EQ(gen.stripe(i).node().worker, (5U << 2) | i);
    EXPECT_EQ(gen.stripe(i).node().datacenter, 2U);
    const auto p = gen.decompose(gen.stripe(i).next_id());
    EXPECT_EQ(p.worker, (5U << 2) | i);
    EXPECT_EQ(p.datacenter, 2U);
  }
}

TEST(striped_test, mints_from_the_stripe_the_thread_is_bound_to) {
  const flakeid::manual_clock clock{sys_days{2024y / 6 / 1}};
  using gen_t = flakeid::striped_snowflake<flakeid::layouts::twitter, flakeid::manual_clock, 1>;
  gen_t gen{datacenter_id{1}, worker_id{7}, clock};
  std::uint64_t id = 0;
  std::thread t([&] {
    gen_t::bind_this_thread(1);
    id = gen.next_id();
  });
  t.join();
  flakeid::id_parts want;
  want.timestamp = clock.now();
  want.datacenter = 1;
  want.worker = (7U << 1) | 1U;
  want.sequence = 0;
  EXPECT_EQ(id, flakeid::layouts::twitter.compose(want));
}

TEST(striped_test, rejects_a_base_worker_that_does_not_fit) {
  try {
    striped4 gen{datacenter_id{0}, worker_id{8}};
    FAIL() << "expected field_range_error";
  } catch (const flakeid::field_range_error& e) {
    EXPECT_STREQ(e.what(),
                 "flakeid: base worker id 8 does not fit in 3 bits (the worker field's low 2 bits "
                 "are the stripe); allowed 0..7");
  }
  EXPECT_THROW(striped4(datacenter_id{32}, worker_id{0}), flakeid::field_range_error);
  EXPECT_THROW(striped4::bind_this_thread(4), flakeid::field_range_error);
}

TEST(striped_test, fresh_threads_take_distinct_stripes_round_robin) {
  // A type of its own, so that no other test has taken stripes of it.
  using gen_t = flakeid::striped_snowflake<flakeid::layouts::cosid, flakeid::wall_clock, 2>;
  std::vector<std::size_t> got(4);
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < got.size(); ++i) {
    pool.emplace_back([&got, i] {
      got[i] = gen_t::this_thread_stripe();
      EXPECT_EQ(gen_t::this_thread_stripe(), got[i]);  // kept
    });
  }
  for (auto& t : pool) t.join();
  EXPECT_EQ(std::set<std::size_t>(got.begin(), got.end()).size(), 4U);
}

// More threads than stripes share them; IDs stay unique, and increasing per thread.
TEST(striped_test, unique_across_more_threads_than_stripes) {
  using gen_t = flakeid::striped_snowflake<flakeid::layouts::twitter, flakeid::wall_clock, 1>;
  gen_t gen{datacenter_id{3}, worker_id{9}};
  const auto out = flakeid_test::drawn_in_threads(6, 30'000, [&gen] { return gen.next_id(); });
  std::vector<std::uint64_t> all;
  std::set<std::uint64_t> workers;
  for (const auto& v : out) {
    EXPECT_TRUE(std::adjacent_find(v.begin(), v.end(), std::greater_equal<>{}) == v.end());
    for (auto id : v) workers.insert(gen.decompose(id).worker);
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  EXPECT_EQ(workers, (std::set<std::uint64_t>{18, 19}));
}

TEST(striped_test, next_ids_fills_from_the_threads_stripe) {
  striped4 gen{datacenter_id{0}, worker_id{1}};
  striped4::bind_this_thread(3);
  std::vector<std::uint64_t> ids(10'000);
  gen.next_ids(ids);
  EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>{}) == ids.end());
  for (auto id : ids) ASSERT_EQ(gen.decompose(id).worker, (1U << 2) | 3U);
}

}  // namespace
