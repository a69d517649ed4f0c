// The gene property: for random keys and every shard count the gene can honour,
// id % n == key % n and shard_of(id, n) == key % n; IDs strictly increasing per gene.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace flakeid_test;

namespace {

/// seed_gene with an 8-bit gene instead of 5: 41 ts, 6 worker, 8 seq, 8 gene.
inline constexpr flakeid::layout gene8{{flakeid::fields::timestamp(41), flakeid::fields::worker(6),
                                        flakeid::fields::sequence(8), flakeid::fields::gene(8)},
                                       flakeid::layouts::seed_gene.epoch_ms};

template <class Gen>
void check_gene_property(std::uint64_t seed) {
  constexpr auto& l = Gen::layout();
  const unsigned gene_bits = l.bits(flakeid::field_kind::gene);
  flakeid::manual_clock clock{start_time};
  Gen gen{flakeid::worker_id{5}, clock};
  std::mt19937_64 rng{seed};
  std::vector<std::uint64_t> last(Gen::gene_count, 0);
  for (int i = 0; i < 100'000; ++i) {
    if (i % 97 == 0) clock.advance(milliseconds{1 + rng() % 3});
    const std::uint64_t key = rng();
    const std::uint64_t id = gen.next_id(key);
    for (std::uint64_t n = 1; n <= (std::uint64_t{1} << gene_bits); n *= 2) {
      ASSERT_EQ(id % n, key % n) << "key " << key << " n " << n;
      ASSERT_EQ(l.shard_of(id, n), key % n) << "key " << key << " n " << n;
    }
    const std::uint64_t gene = l.gene_of(id);
    ASSERT_EQ(gene, key % Gen::gene_count);
    ASSERT_GT(id, last[gene]) << "gene " << gene << " at " << i;
    last[gene] = id;
  }
}

TEST(gene_test, seed_gene_routes_every_key_to_its_shard) {
  check_gene_property<flakeid::gene_snowflake<flakeid::layouts::seed_gene, flakeid::manual_clock>>(
      1);
  check_gene_property<
      flakeid::gene_snowflake_st<flakeid::layouts::seed_gene, flakeid::manual_clock>>(2);
}

TEST(gene_test, an_8_bit_gene_honours_up_to_256_shards) {
  check_gene_property<flakeid::gene_snowflake<gene8, flakeid::manual_clock>>(3);
}

TEST(gene_test, a_shard_count_the_gene_cannot_honour_is_an_error) {
  flakeid::manual_clock clock{start_time};
  flakeid::gene_snowflake<flakeid::layouts::seed_gene, flakeid::manual_clock> gen{
      flakeid::worker_id{5}, clock};
  const std::uint64_t id = gen.next_id(12345);
  const auto& l = gen.layout();
  for (const std::uint64_t n : {0U, 3U, 6U, 12U, 64U})
    EXPECT_THROW((void)l.shard_of(id, n), std::invalid_argument) << n;
  try {
    (void)l.shard_of(id, 64);
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "flakeid: shard count 64 cannot be honoured by a 5-bit gene: it must be a power of "
        "two in [1, 32]");
  }
}

TEST(gene_test, batches_carry_the_gene) {
  flakeid::manual_clock clock{start_time};
  flakeid::gene_snowflake<flakeid::layouts::seed_gene, flakeid::manual_clock> gen{
      flakeid::worker_id{5}, clock};
  std::vector<std::uint64_t> ids(300);  // more than the 128 IDs a gene has per tick
  gen.next_ids(ids, 77);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ASSERT_EQ(ids[i] % 32, 77U % 32);
    if (i > 0) {
      ASSERT_GT(ids[i], ids[i - 1]);
    }
  }
  EXPECT_EQ(clock.slept(), 2ms);
}

}  // namespace
