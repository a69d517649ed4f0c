// The point of the sequence-start policies: one ID per tick, as at a low rate, and `id % n`.
// The CosId threshold, the vibrating start and the random start spread IDs evenly over the
// shards; zero_start puts every ID in shard 0.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace flakeid_test;

namespace {

constexpr std::size_t ticks = 10'000;

/// Counts of id % 4 and id % 16 over one ID per tick.
struct counts {
  std::array<std::size_t, 4> by4{};
  std::array<std::size_t, 16> by16{};
};

template <class Start>
counts one_id_per_tick() {
  flakeid::manual_clock clock{start_time};
  flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock,
                           flakeid::policies<Start>>
      gen{flakeid::datacenter_id{3}, flakeid::worker_id{5}, clock};
  counts c;
  for (std::size_t i = 0; i < ticks; ++i) {
    const std::uint64_t id = gen.next_id();
    ++c.by4[id % 4];
    ++c.by16[id % 16];
    clock.advance(1ms);
  }
  return c;
}

/// Every bucket within `tolerance` (a fraction) of its share.
template <std::size_t N>
void expect_even(const std::array<std::size_t, N>& buckets, double tolerance) {
  const double share = static_cast<double>(ticks) / N;
  for (std::size_t b = 0; b < N; ++b)
    EXPECT_LE(std::abs(static_cast<double>(buckets[b]) - share), tolerance * share)
        << "bucket " << b << " of " << N << " holds " << buckets[b] << ", share " << share;
}

TEST(sharding_test, cosid_threshold_spreads_evenly) {
  const auto c = one_id_per_tick<flakeid::cosid_threshold<>>();
  expect_even(c.by4, 0.02);
  expect_even(c.by16, 0.02);
}

TEST(sharding_test, vibrating_start_spreads_evenly) {
  const auto c = one_id_per_tick<flakeid::vibrating_start<>>();
  expect_even(c.by4, 0.02);
  expect_even(c.by16, 0.02);
}

TEST(sharding_test, never_reset_spreads_evenly) {
  const auto c = one_id_per_tick<flakeid::never_reset>();
  expect_even(c.by4, 0.02);
  expect_even(c.by16, 0.02);
}

TEST(sharding_test, random_start_spreads_evenly_within_sampling_noise) {
  // A random start is a sample: over 10,000 draws a bucket's count has a standard deviation of
  // sqrt(n p (1 - p)), 43 for 4 buckets (1.7 % of the share) and 24 for 16 (3.9 %), so 2 % is
  // within the noise. Allow five standard deviations instead (8.7 % and 19 %): a policy that
  // favours a shard fails it, a fair one fails about once in 10^5 runs.
  const auto c = one_id_per_tick<flakeid::random_start<>>();
  auto bound = [](double buckets) {
    const double p = 1.0 / buckets;
    return 5.0 * std::sqrt(ticks * p * (1 - p)) / (ticks * p);
  };
  expect_even(c.by4, bound(4));
  expect_even(c.by16, bound(16));
}

TEST(sharding_test, zero_start_puts_everything_in_bucket_0) {
  const auto c = one_id_per_tick<flakeid::zero_start>();
  EXPECT_EQ(c.by4[0], ticks);
  EXPECT_EQ(c.by16[0], ticks);
}

}  // namespace
