// The timestamp field running out, on every preset: generation goes on to the last valid tick,
// uses it up, then fails with timestamp_overflow_error; never a wrapped or negative ID. And the
// layout says how much time it has left, so an application can warn years ahead.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <span>
#include <string>
#include <vector>

using namespace std::chrono;
using namespace std::chrono_literals;
using flakeid::field_kind;

namespace {

template <const flakeid::layout& L>
struct preset {
  static constexpr const flakeid::layout& layout = L;
  using generator =
      std::conditional_t<L.has(field_kind::gene), flakeid::gene_snowflake<L, flakeid::manual_clock>,
                         flakeid::classic_snowflake<L, flakeid::manual_clock>>;
};

namespace lay = flakeid::layouts;
using presets =
    ::testing::Types<preset<lay::twitter>, preset<lay::discord>, preset<lay::sonyflake>,
                     preset<lay::sonyflake_v2>, preset<lay::instagram>, preset<lay::mastodon>,
                     preset<lay::cosid>, preset<lay::cosid_seconds>, preset<lay::cosid_js>,
                     preset<lay::baidu>, preset<lay::seed_classic>, preset<lay::seed_gene>,
                     preset<lay::newlife>>;

template <class P>
class expiry_test : public ::testing::Test {};
TYPED_TEST_SUITE(expiry_test, presets);

template <class Gen>
std::uint64_t mint(Gen& gen) {
  if constexpr (Gen::has_gene) {
    return gen.next_id(5);
  } else {
    return gen.next_id();
  }
}

constexpr std::uint64_t ticks_before_end = 3;

TYPED_TEST(expiry_test, mints_to_the_last_tick_then_fails) {
  constexpr auto& L = TypeParam::layout;
  flakeid::manual_clock clock{L.time_at(L.max_ticks() - ticks_before_end)};
  typename TypeParam::generator gen{clock};

  std::uint64_t prev = 0;
  std::uint64_t count = 0;
  bool failed = false;
  // At most every sequence of the remaining ticks, and one more call that must fail.
  const std::uint64_t limit = (ticks_before_end + 1) * L.ids_per_tick() + 1;
  for (std::uint64_t n = 0; n <= limit; ++n) {
    std::uint64_t id = 0;
    try {
      id = mint(gen);
    } catch (const flakeid::timestamp_overflow_error& e) {
      failed = true;
      EXPECT_NE(std::string(e.what()).find("outside the layout's range"), std::string::npos)
          << e.what();
      break;
    }
    ++count;
    ASSERT_TRUE(L.is_valid(id)) << id;
    ASSERT_GT(id, prev) << "an ID wrapped";
    ASSERT_LE(L.extract(id, field_kind::timestamp), L.max_ticks());
    if ((L.reserved_mask() >> 63) != 0) {
      ASSERT_GE(static_cast<std::int64_t>(id), 0) << "a negative ID";
    }
    prev = id;
  }
  ASSERT_TRUE(failed) << "generation went on past the last tick";
  // The last ID is in the last tick, with its sequence used up.
  EXPECT_EQ(L.extract(prev, field_kind::timestamp), L.max_ticks());
  EXPECT_EQ(L.extract(prev, field_kind::sequence), L.max_value(field_kind::sequence));
  EXPECT_GE(count, L.ids_per_tick());
  // And it keeps failing: no wrapped ID later either, however the clock moves.
  EXPECT_THROW((void)mint(gen), flakeid::timestamp_overflow_error);
  clock.set(L.expires_at() + 1ms);
  EXPECT_THROW((void)mint(gen), flakeid::timestamp_overflow_error);
  clock.advance(24h * 365);
  EXPECT_THROW((void)mint(gen), flakeid::timestamp_overflow_error);
}

TYPED_TEST(expiry_test, a_batch_at_the_end_fails_too) {
  constexpr auto& L = TypeParam::layout;
  flakeid::manual_clock clock{L.time_at(L.max_ticks())};
  typename TypeParam::generator gen{clock};
  std::vector<std::uint64_t> out(
      static_cast<std::size_t>(std::min<std::uint64_t>(L.ids_per_tick() + 1, 1 << 23)));
  if (out.size() <= L.ids_per_tick()) GTEST_SKIP() << "tick too large to overfill in a test";
  if constexpr (TypeParam::generator::has_gene) {
    EXPECT_THROW(gen.next_ids(out, 5), flakeid::timestamp_overflow_error);
  } else {
    EXPECT_THROW(gen.next_ids(out), flakeid::timestamp_overflow_error);
  }
}

TYPED_TEST(expiry_test, past_the_end_and_before_the_epoch_fail) {
  constexpr auto& L = TypeParam::layout;
  flakeid::manual_clock clock{L.expires_at() + 1ms};
  typename TypeParam::generator gen{clock};
  EXPECT_THROW((void)mint(gen), flakeid::timestamp_overflow_error);
  clock.set(L.expires_at());
  const std::uint64_t id = mint(gen);
  EXPECT_EQ(L.extract(id, field_kind::timestamp), L.max_ticks());
  if (L.epoch_ms > 0) {
    flakeid::manual_clock early{L.epoch() - 1ms};
    typename TypeParam::generator gen2{early};
    EXPECT_THROW((void)mint(gen2), flakeid::timestamp_overflow_error);
    early.set(L.epoch());
    // A new generator starts after tick 0 (its state begins as "tick 0 used up"), so at the
    // epoch it waits one tick: the ID's time is never ahead of the clock.
    const std::uint64_t first = mint(gen2);
    EXPECT_LE(L.extract(first, field_kind::timestamp), 1U);
    EXPECT_LE(L.decompose(first).timestamp, early.now());
  }
  clock.set(L.expires_at() + 1ms);
  EXPECT_THROW((void)mint(gen), flakeid::timestamp_overflow_error);
}

TYPED_TEST(expiry_test, time_left) {
  constexpr auto& L = TypeParam::layout;
  static_assert(L.time_left(L.expires_at()) == 1ms);
  static_assert(L.time_left(L.expires_at() + 1ms) == 0ms);
  static_assert(L.time_left(L.expires_at() + 24h) == 0ms);
  static_assert(L.time_left(L.epoch()) ==
                milliseconds{static_cast<std::int64_t>(L.max_ticks() + 1) * L.tick_ms});
  // Warning years ahead: every preset has more than a decade left on 2025-06-01 (baidu's 28-bit
  // seconds run out in 2024, cosid_seconds' 31 bits in 2088).
  const auto now = time_point_cast<milliseconds>(sys_days{2025y / June / 1});
  if (&L == &lay::baidu) {
    EXPECT_EQ(L.time_left(now), 0ms) << "baidu's default layout expired in 2024";
  } else {
    EXPECT_GT(L.time_left(now), duration_cast<milliseconds>(years{10}));
  }
}

}  // namespace

namespace {

// Found by fuzz_codec: composing with a time near the ends of the 64-bit millisecond range
// overflowed while formatting the error message. It is an error, with a message.
TEST(expiry_test, a_time_at_the_ends_of_the_range_is_an_error_with_a_message) {
  for (const std::int64_t ms : {INT64_MIN, INT64_MIN + 1, INT64_MAX}) {
    flakeid::id_parts p;
    p.timestamp = flakeid::layout::time_point{milliseconds{ms}};
    try {
      (void)lay::twitter.compose(p);
      FAIL() << "no exception";
    } catch (const flakeid::timestamp_overflow_error& e) {
      EXPECT_NE(std::string(e.what()).find("unix ms " + std::to_string(ms)), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
