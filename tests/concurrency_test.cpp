// Several threads minting from one generator on the wall clock: at least 4 threads and
// 4 million IDs per generator, no duplicate, strictly increasing per thread (per gene for the
// gene generator).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include <flakeid/flakeid.hpp>

namespace {

constexpr std::size_t thread_count = 4;
constexpr std::size_t per_thread = 1'000'000;

/// Runs `mint(thread, i)` per_thread times on each of thread_count threads, started together.
template <class Mint>
std::vector<std::vector<std::uint64_t>> run(Mint mint) {
  std::vector<std::vector<std::uint64_t>> out(thread_count, std::vector<std::uint64_t>(per_thread));
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (std::size_t i = 0; i < per_thread; ++i) out[t][i] = mint(t, i);
    });
  }
  go = true;
  for (auto& th : threads) th.join();
  return out;
}

void expect_no_duplicate(const std::vector<std::vector<std::uint64_t>>& per) {
  std::vector<std::uint64_t> all;
  all.reserve(thread_count * per_thread);
  for (const auto& v : per) all.insert(all.end(), v.begin(), v.end());
  ASSERT_EQ(all.size(), thread_count * per_thread);
  std::sort(all.begin(), all.end());
  const auto dup = std::adjacent_find(all.begin(), all.end());
  EXPECT_EQ(dup, all.end()) << "duplicate ID " << (dup == all.end() ? 0 : *dup);
}

void expect_increasing_per_thread(const std::vector<std::vector<std::uint64_t>>& per) {
  for (std::size_t t = 0; t < per.size(); ++t) {
    const auto bad = std::adjacent_find(per[t].begin(), per[t].end(),
                                        [](std::uint64_t a, std::uint64_t b) { return a >= b; });
    EXPECT_EQ(bad, per[t].end()) << "thread " << t << " at " << (bad - per[t].begin());
  }
}

template <class Gen>
void expect_unique_and_ordered(Gen& gen) {
  const auto ids = run([&](std::size_t, std::size_t) { return gen.next_id(); });
  expect_increasing_per_thread(ids);
  expect_no_duplicate(ids);
}

TEST(concurrency_test, fence_ptr_copies_made_and_dropped_on_four_threads_free_the_fence_once) {
  struct probe {
    std::atomic<int>* destroyed;
    ~probe() { destroyed->fetch_add(1); }
  };
  std::atomic<int> destroyed{0};
  for (int round = 0; round < 20; ++round) {
    auto shared = flakeid::detail::counted_ptr<probe>::make(&destroyed);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([copy = shared] {
        for (int i = 0; i < 5000; ++i) {
          auto a = copy;
          auto b = std::move(a);
          a = b;
        }
      });
    shared = nullptr;  // the threads' copies now keep the object
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(destroyed.load(), round + 1) << "round " << round;
  }
}

TEST(concurrency_test, classic_from_four_threads) {
  flakeid::classic_snowflake<> gen{flakeid::datacenter_id{1}, flakeid::worker_id{1}};
  expect_unique_and_ordered(gen);
}

TEST(concurrency_test, cosid_from_four_threads) {
  flakeid::cosid_snowflake<> gen{flakeid::worker_id{5}};
  expect_unique_and_ordered(gen);
}

TEST(concurrency_test, tick_from_four_threads) {
  flakeid::tick_snowflake<> gen{flakeid::worker_id{9}};
  expect_unique_and_ordered(gen);
}

TEST(concurrency_test, borrowing_from_four_threads) {
  // Four threads run Twitter's 4096 IDs per ms out at once, so the generator borrows ticks and
  // most IDs count on in a tick ahead of the clock (the fetch_add path for a borrowed lead).
  flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::wall_clock,
                           flakeid::policies<flakeid::zero_start, flakeid::borrow_ticks<50>>>
      gen{flakeid::datacenter_id{1}, flakeid::worker_id{3}};
  expect_unique_and_ordered(gen);
}

TEST(concurrency_test, thread_blocks_from_four_threads) {
  // Twitter's 4096 IDs per ms: four threads run the tick out, so blocks are cut short by the
  // tick's end, threads wait for the next tick, and blocks go stale.
  flakeid::blocked_snowflake<> gen{flakeid::datacenter_id{1}, flakeid::worker_id{4}};
  expect_unique_and_ordered(gen);
}

TEST(concurrency_test, thread_blocks_mixed_with_batches_from_four_threads) {
  flakeid::blocked_snowflake<> gen{flakeid::worker_id{6}};
  const auto ids = run([&](std::size_t t, std::size_t i) {
    if ((i + t) % 97 != 0) return gen.next_id();
    std::uint64_t one[1];
    gen.next_ids(one);  // gives the thread's block back or leaves a gap; the thread stays in order
    return one[0];
  });
  expect_increasing_per_thread(ids);
  expect_no_duplicate(ids);
}

TEST(concurrency_test, classic_batches_from_four_threads) {
  flakeid::classic_snowflake<> gen{flakeid::worker_id{2}};
  const auto ids = run([&](std::size_t, std::size_t) {
    // next_ids in small batches, one at a time out of the batch
    thread_local std::array<std::uint64_t, 64> batch{};
    thread_local std::size_t used = batch.size();
    if (used == batch.size()) {
      gen.next_ids(batch);
      used = 0;
    }
    return batch[used++];
  });
  expect_increasing_per_thread(ids);
  expect_no_duplicate(ids);
}

TEST(concurrency_test, gene_from_four_threads_with_many_keys) {
  flakeid::gene_snowflake<> gen{flakeid::datacenter_id{1}, flakeid::worker_id{3}};
  // Every thread draws from the same 256 keys, covering all 32 genes, so threads share genes.
  std::mt19937_64 rng{20240824};
  std::vector<std::uint64_t> keys(256);
  for (auto& k : keys) k = rng();
  std::vector<std::vector<std::uint64_t>> thread_keys(thread_count,
                                                      std::vector<std::uint64_t>(per_thread));
  for (std::size_t t = 0; t < thread_count; ++t)
    for (std::size_t i = 0; i < per_thread; ++i)
      thread_keys[t][i] = keys[(i * 7 + t * 13) % keys.size()];

  const auto ids =
      run([&](std::size_t t, std::size_t i) { return gen.next_id(thread_keys[t][i]); });
  for (std::size_t t = 0; t < thread_count; ++t) {
    std::array<std::uint64_t, 32> last{};
    for (std::size_t i = 0; i < per_thread; ++i) {
      const std::uint64_t id = ids[t][i];
      const std::uint64_t gene = thread_keys[t][i] % 32;
      ASSERT_EQ(id % 32, gene);
      ASSERT_GT(id, last[gene]) << "thread " << t << " at " << i;
      last[gene] = id;
    }
  }
  expect_no_duplicate(ids);
}

}  // namespace
