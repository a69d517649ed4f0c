// Stress: 8 threads share one generator and mint 20 million IDs in all (FLAKEID_STRESS_IDS sets
// another count: the test preset runs 20 million, the Clang presets 4 million, AddressSanitizer
// 2 million and ThreadSanitizer 400,000). No ID may appear twice, and each
// thread's IDs must be strictly increasing (per gene on the gene generator). The manual-clock
// cases add a thread that keeps stepping the clock back and forth while the others mint.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <flakeid/flakeid.hpp>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono;
using namespace std::chrono_literals;
using flakeid::field_kind;

namespace {

constexpr unsigned thread_count = 8;

/// IDs per generator, all threads together: FLAKEID_STRESS_IDS or 20 million.
std::uint64_t total_ids() {
  if (const char* v = std::getenv("FLAKEID_STRESS_IDS")) {
    const std::uint64_t n = std::strtoull(v, nullptr, 10);
    if (n >= thread_count) return n;
  }
  return 20'000'000;
}

template <class Gen>
void mint_into(Gen& gen, std::span<std::uint64_t> out, std::uint64_t key) {
  if constexpr (Gen::has_gene) {
    if (out.size() == 1) {
      out[0] = gen.next_id(key);
    } else {
      gen.next_ids(out, key);
    }
  } else {
    if (out.size() == 1) {
      out[0] = gen.next_id();
    } else {
      gen.next_ids(out);
    }
  }
}

/// Runs `thread_count` threads on `gen`, each minting its share, mostly one at a time and now
/// and then in a batch; `disturb` runs on its own thread until they finish. Then checks order
/// per thread (and gene) and uniqueness over all.
template <class Gen, class Disturb>
void stress(Gen& gen, Disturb disturb) {
  constexpr auto& L = Gen::layout_value;
  const std::uint64_t per_thread = total_ids() / thread_count;
  std::vector<std::vector<std::uint64_t>> ids(thread_count);
  std::atomic<unsigned> running{thread_count};
  std::vector<std::string> errors(thread_count);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      auto& mine = ids[t];
      mine.resize(per_thread);
      std::minstd_rand rng{t + 1};
      std::size_t i = 0;
      try {
        while (i < mine.size()) {
          const std::size_t n =
              rng() % 64 == 0 ? std::min<std::size_t>(1 + rng() % 300, mine.size() - i) : 1;
          // Two threads share each group of 8 genes, keys in turn within it: every gene's
          // sequence fills at the same pace, so the clock, not a waiting thread, sets the rate.
          mint_into(gen, std::span<std::uint64_t>(mine).subspan(i, n), (t % 4) * 8 + i % 8);
          i += n;
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
        mine.resize(i);
      }
      --running;
    });
  }
  std::thread disturber([&] { disturb(running); });
  for (auto& th : threads) th.join();
  disturber.join();

  for (unsigned t = 0; t < thread_count; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  for (unsigned t = 0; t < thread_count; ++t) {
    std::array<std::uint64_t, Gen::gene_count> last{};
    for (const std::uint64_t id : ids[t]) {
      auto& prev = last[static_cast<std::size_t>(L.gene_of(id))];
      ASSERT_GT(id, prev) << "thread " << t << ": order broken";
      ASSERT_TRUE(L.is_valid(id));
      prev = id;
    }
  }
  std::vector<std::uint64_t> all;
  all.reserve(per_thread * thread_count);
  for (auto& v : ids) {
    all.insert(all.end(), v.begin(), v.end());
    std::vector<std::uint64_t>().swap(v);
  }
  std::sort(all.begin(), all.end());
  const auto dup = std::adjacent_find(all.begin(), all.end());
  EXPECT_EQ(dup, all.end()) << "duplicate ID " << (dup == all.end() ? 0 : *dup) << " among "
                            << all.size();
}

void no_disturbance(std::atomic<unsigned>&) {}

TEST(stress_test, classic_on_the_wall_clock) {
  flakeid::classic_snowflake<> gen{flakeid::datacenter_id{1}, flakeid::worker_id{2}};
  stress(gen, no_disturbance);
}

TEST(stress_test, gene_on_the_wall_clock) {
  flakeid::gene_snowflake<> gen{flakeid::datacenter_id{1}, flakeid::worker_id{2}};
  stress(gen, no_disturbance);
}

TEST(stress_test, cosid_on_the_wall_clock) {
  flakeid::cosid_snowflake<> gen{flakeid::worker_id{2}};
  stress(gen, no_disturbance);
}

TEST(stress_test, tick_on_the_monotonic_clock) {
  flakeid::tick_snowflake<> gen{flakeid::datacenter_id{1}, flakeid::worker_id{2}};
  stress(gen, no_disturbance);
}

/// Steps the clock back by up to `max_step` and forward again past where it was, until the
/// minting threads finish.
auto clock_shaker(flakeid::manual_clock clock, milliseconds max_step) {
  return [clock, max_step](std::atomic<unsigned>& running) mutable {
    std::minstd_rand rng{42};
    while (running.load() != 0) {
      const milliseconds step{
          1 + static_cast<std::int64_t>(rng() % static_cast<unsigned>(max_step.count()))};
      clock.step_back(step);
      // The pauses only vary where the steps fall among the calls: the checks hold for any.
      std::this_thread::sleep_for(microseconds{rng() % 200});
      clock.advance(step + 1ms);
      std::this_thread::sleep_for(microseconds{rng() % 200});
    }
  };
}

constexpr auto shaken_start = sys_days{2025y / June / 1};

/// `stress` on a generator of layout `L` and `Policies`, worker 2, on a manual clock from
/// `shaken_start` that shakes by up to 10 ms.
template <flakeid::layout L, class Policies>
void stress_while_the_clock_shakes() {
  flakeid::manual_clock clock{time_point_cast<milliseconds>(shaken_start)};
  flakeid::basic_snowflake<L, flakeid::manual_clock, Policies> gen{flakeid::worker_id{2}, clock};
  stress(gen, clock_shaker(clock, 10ms));
}

TEST(stress_test, hold_while_the_clock_shakes) {
  stress_while_the_clock_shakes<flakeid::layouts::twitter,
                                flakeid::policies<flakeid::zero_start, flakeid::wait_next_tick,
                                                  flakeid::hold_on_backwards<10>>>();
}

TEST(stress_test, wait_while_the_clock_shakes) {
  stress_while_the_clock_shakes<
      flakeid::layouts::twitter,
      flakeid::policies<flakeid::cosid_threshold<>, flakeid::wait_next_tick,
                        flakeid::wait_on_backwards<10>>>();
}

TEST(stress_test, gene_hold_while_the_clock_shakes) {
  stress_while_the_clock_shakes<
      flakeid::layouts::seed_gene,
      flakeid::policies<flakeid::vibrating_start<>, flakeid::wait_next_tick,
                        flakeid::hold_on_backwards<10>>>();
}

}  // namespace
