#include <gtest/gtest.h>

#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

using namespace std::chrono;
using flakeid::field_kind;

namespace {

template <flakeid::layout L>
struct holder {
  static constexpr const flakeid::layout& value = L;
};

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

/// Builds a layout at run time, which must throw invalid_layout_error with exactly `what`.
template <class Build>
void expect_invalid_layout(Build build, const char* what) {
  try {
    (void)build();
    ADD_FAILURE() << "no exception; expected: " << what;
  } catch (const flakeid::invalid_layout_error& e) {
    EXPECT_STREQ(e.what(), what);
  }
}

// One run-time test per rejection; tests/compile_fail/ holds the compile-time twin of each.
TEST(layout_test, rejects_a_zero_tick_at_run_time) {
  using namespace flakeid::fields;
  expect_invalid_layout(
      [] {
        return flakeid::layout{{timestamp(41), worker(10), sequence(12)}, 0, milliseconds{0}};
      },
      "flakeid: invalid layout: the tick must be at least 1 ms (got 0)");
  expect_invalid_layout(
      [] {
        return flakeid::layout{{timestamp(41), worker(10), sequence(12)}, 0, milliseconds{-10}};
      },
      "flakeid: invalid layout: the tick must be at least 1 ms (got -10)");
}

TEST(layout_test, rejects_a_zero_width_field_at_run_time) {
  using namespace flakeid::fields;
  expect_invalid_layout(
      [] {
        return flakeid::layout{{timestamp(41), worker(0), datacenter(10), sequence(12)}, 0};
      },
      "flakeid: invalid layout: a field has width 0 (index given); give it at least 1 bit or "
      "remove it (got 1)");
}

TEST(layout_test, rejects_a_duplicate_kind_at_run_time) {
  using namespace flakeid::fields;
  static_assert(static_cast<int>(field_kind::worker) == 2);
  expect_invalid_layout(
      [] {
        return flakeid::layout{{timestamp(41), worker(5), worker(5), sequence(12)}, 0};
      },
      "flakeid: invalid layout: the kind 'worker' appears twice; each kind may appear once, "
      "merge them");
}

TEST(layout_test, rejects_a_layout_without_a_timestamp_at_run_time) {
  using namespace flakeid::fields;
  expect_invalid_layout(
      [] {
        return flakeid::layout{{worker(51), sequence(12)}, 0};
      },
      "flakeid: invalid layout: a layout needs a timestamp field; add "
      "fields::timestamp(bits)");
}

TEST(layout_test, rejects_a_layout_without_a_sequence_at_run_time) {
  using namespace flakeid::fields;
  expect_invalid_layout(
      [] {
        return flakeid::layout{{timestamp(41), worker(22)}, 0};
      },
      "flakeid: invalid layout: a layout needs a sequence field; add "
      "fields::sequence(bits)");
}

TEST(layout_test, rejects_a_timestamp_range_past_64_bit_unix_ms_at_run_time) {
  using namespace flakeid::fields;
  const char* what =
      "flakeid: invalid layout: epoch must be >= 0 and epoch + 2^timestamp_bits * tick must fit "
      "64-bit Unix ms; narrow the timestamp or shorten the tick (got 60)";
  expect_invalid_layout(
      [] {
        return flakeid::layout{{timestamp(60), sequence(3)}, 0, seconds{1}};
      },
      what);
  // Wide timestamps fit as long as the end of their range (one past the last millisecond)
  // fits std::int64_t: 2^62 ms from an epoch up to 2^62 - 1.
  EXPECT_NO_THROW((flakeid::layout{{timestamp(62), sequence(1)}, 0}));
  constexpr std::int64_t latest = (std::int64_t{1} << 62) - 1;
  const flakeid::layout widest{{timestamp(62), sequence(1)}, latest};
  EXPECT_EQ(widest.expires_at().time_since_epoch().count(), INT64_MAX - 1);
  EXPECT_EQ(widest.time_left(widest.epoch()).count(), std::int64_t{1} << 62);
  struct range {
    int bits;
    std::int64_t epoch;
    int tick;
  };
  for (const range r : {range{63, 0, 1}, range{62, latest + 1, 1}, range{62, 0, 2}}) {
    expect_invalid_layout(
        [r] {
          return flakeid::layout{{timestamp(static_cast<std::uint8_t>(r.bits)),
                                  sequence(static_cast<std::uint8_t>(64 - r.bits))},
                                 r.epoch,
                                 milliseconds{r.tick}};
        },
        ("flakeid: invalid layout: epoch must be >= 0 and epoch + 2^timestamp_bits * tick "
         "must fit 64-bit Unix ms; narrow the timestamp or shorten the tick (got " +
         std::to_string(r.bits) + ")")
            .c_str());
  }
  expect_invalid_layout(
      [] {
        return flakeid::layout{{timestamp(41), worker(10), sequence(12)}, -1};
      },
      "flakeid: invalid layout: epoch must be >= 0 and epoch + 2^timestamp_bits * tick must fit "
      "64-bit Unix ms; narrow the timestamp or shorten the tick (got 41)");
}

TEST(layout_test, rejects_more_than_6_fields_or_fewer_than_2_at_run_time) {
  using namespace flakeid::fields;
  expect_invalid_layout(
      [] {
        return flakeid::layout{{timestamp(41), datacenter(5), worker(5), sequence(6), gene(3),
                                reserved(2), reserved(1)},
                               0};
      },
      "flakeid: invalid layout: a layout needs 2 to 6 fields: a timestamp, a sequence, each kind "
      "at most once (got 7)");
  expect_invalid_layout(
      [] {
        return flakeid::layout{{timestamp(63)}, 0};
      },
      "flakeid: invalid layout: a layout needs 2 to 6 fields: a timestamp, a sequence, each kind "
      "at most once (got 1)");
  // All six kinds once is the most a layout holds.
  EXPECT_NO_THROW((flakeid::layout{
      {reserved(1), timestamp(41), datacenter(4), worker(4), sequence(9), gene(5)}, 0}));
}

TEST(layout_test, rejects_an_unknown_field_kind_at_run_time) {
  using namespace flakeid::fields;
  const flakeid::field unknown{static_cast<field_kind>(9), 10};
  expect_invalid_layout(
      [&] {
        return flakeid::layout{{timestamp(41), unknown, sequence(12)}, 0};
      },
      "flakeid: invalid layout: unknown field kind (got 9)");
}

TEST(layout_test, invalid_layout_error_is_an_invalid_argument) {
  using namespace flakeid::fields;
  static_assert(std::is_base_of_v<std::invalid_argument, flakeid::invalid_layout_error>);
  EXPECT_THROW((flakeid::layout{{timestamp(41), sequence(12)}, 0, milliseconds{0}}),
               std::invalid_argument);
}

TEST(layout_test, works_as_a_template_argument) {
  using l = holder<flakeid::layouts::twitter>;
  static_assert(l::value.shift(field_kind::timestamp) == 22);
  static_assert(
      !std::is_same_v<holder<flakeid::layouts::twitter>, holder<flakeid::layouts::seed_classic>>);
  static_assert(
      std::is_same_v<
          holder<flakeid::layouts::twitter>,
          holder<flakeid::layout{{flakeid::fields::timestamp(41), flakeid::fields::datacenter(5),
                                  flakeid::fields::worker(5), flakeid::fields::sequence(12)},
                                 1288834974657}>>);
  SUCCEED();
}

}  // namespace
