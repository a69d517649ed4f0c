#include <gtest/gtest.h>

#include <flakeid/flakeid.hpp>

using namespace std::chrono;
using flakeid::field_kind;

namespace {

// Discord developer docs, Reference > "Snowflakes": 175928847299117063 is
// 2016-04-30 11:18:25.796 UTC, internal worker 1, internal process 0, increment 7.
TEST(layout_test, decodes_discord_docs_example) {
  const auto p = flakeid::layouts::discord.decompose(175928847299117063ULL);
  EXPECT_EQ(p.timestamp, sys_time<milliseconds>{milliseconds{1462015105796}});
  EXPECT_EQ(p.ticks, 1462015105796ULL - 1420070400000ULL);
  EXPECT_EQ(p.worker, 1U);
  EXPECT_EQ(p.datacenter, 0U);
  EXPECT_EQ(p.sequence, 7U);
  EXPECT_EQ(flakeid::layouts::discord.compose(p), 175928847299117063ULL);
}

TEST(layout_test, derives_shifts_and_masks_at_compile_time) {
  constexpr auto& t = flakeid::layouts::twitter;
  static_assert(t.shift(field_kind::timestamp) == 22);
  static_assert(t.shift(field_kind::datacenter) == 17);
  static_assert(t.shift(field_kind::worker) == 12);
  static_assert(t.shift(field_kind::sequence) == 0);
  static_assert(t.ids_per_tick() == 4096);
  static_assert(t.reserved_mask() == (1ULL << 63));
  static_assert(t.max_id() == ~(1ULL << 63));
  static_assert(flakeid::layouts::sonyflake.shift(field_kind::worker) == 0);
  static_assert(flakeid::layouts::sonyflake.shift(field_kind::sequence) == 16);
  static_assert(flakeid::layouts::cosid_js.max_id() == (1ULL << 53) - 1);
  EXPECT_EQ(t.expires_at(),
            sys_time<milliseconds>{milliseconds{1288834974657LL + (1LL << 41) - 1}});
}

TEST(layout_test, rejects_bad_layouts_at_run_time) {
  using namespace flakeid::fields;
  EXPECT_THROW((flakeid::layout{{timestamp(41), worker(10), sequence(10)}, 0}),
               std::invalid_argument);
  try {
    (void)flakeid::layout{{timestamp(41), worker(10), sequence(10)}, 0};
    FAIL() << "no exception";
  } catch (const flakeid::invalid_layout_error& e) {
    EXPECT_STREQ(e.what(),
                 "flakeid: invalid layout: field widths must add up to 63 (sign bit reserved) or "
                 "64; resize a field or add a reserved one (got 61)");
  }
}

}  // namespace
