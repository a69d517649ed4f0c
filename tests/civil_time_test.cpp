// The one calendar (detail/civil_time.hpp): Unix milliseconds to civil time and back, ISO
// instants, and the UTC text of messages, at the edges of its range.
#include <gtest/gtest.h>

#include <cstdint>
#include <flakeid/detail/civil_time.hpp>
#include <string>

namespace {

using flakeid::detail::civil_from_ms;
using flakeid::detail::civil_time;
using flakeid::detail::format_utc;
using flakeid::detail::ms_from_civil;
using flakeid::detail::parse_iso_instant;

constexpr std::int64_t ms_per_day = 86'400'000;

TEST(civil_time_test, utc_text_of_known_instants) {
  EXPECT_EQ(format_utc(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_utc(1288834974657), "2010-11-04T01:42:54.657Z");  // Twitter's epoch
  EXPECT_EQ(format_utc(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(format_utc(-ms_per_day), "1969-12-31T00:00:00.000Z");
  EXPECT_EQ(format_utc(951782400000), "2000-02-29T00:00:00.000Z");  // a leap day
}

TEST(civil_time_test, utc_text_at_the_ends_of_the_calendar_range) {
  // 32767-12-31T23:59:59.999Z is the last instant with a date; one ms more has none.
  const std::int64_t end = 11'248'738 * ms_per_day;
  EXPECT_EQ(format_utc(end - 1), "32767-12-31T23:59:59.999Z");
  EXPECT_EQ(format_utc(end), "unix ms " + std::to_string(end));
  // -32767-01-01T00:00:00.000Z is the first; one ms less has none.
  const std::int64_t first = -12'687'428 * ms_per_day;
  EXPECT_EQ(format_utc(first), "-32767-01-01T00:00:00.000Z");
  EXPECT_EQ(format_utc(first - 1), "unix ms " + std::to_string(first - 1));
  EXPECT_EQ(format_utc(INT64_MAX), "unix ms 9223372036854775807");
  EXPECT_EQ(format_utc(INT64_MIN), "unix ms -9223372036854775808");
}

TEST(civil_time_test, civil_time_round_trips_across_1970) {
  for (const std::int64_t ms :
       {std::int64_t{-86'400'001}, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1},
        std::int64_t{1288834974657}, std::int64_t{4102444800000}}) {
    const civil_time t = civil_from_ms(ms);
    EXPECT_TRUE(flakeid::detail::civil_valid(t)) << ms;
    EXPECT_EQ(ms_from_civil(t), ms) << ms;
  }
  const civil_time before = civil_from_ms(-86'400'001);  // 1969-12-30T23:59:59.999
  EXPECT_EQ(before.year, 1969);
  EXPECT_EQ(before.month, 12U);
  EXPECT_EQ(before.day, 30U);
  EXPECT_EQ(before.hour, 23U);
  EXPECT_EQ(before.millisecond, 999U);
}

TEST(civil_time_test, iso_instants_and_what_they_refuse) {
  std::int64_t ms = 0;
  ASSERT_TRUE(parse_iso_instant("2016-05-20T00:00:00+08:00", ms));
  EXPECT_EQ(ms, 1463673600000);
  ASSERT_TRUE(parse_iso_instant("2014-09-01", ms));
  EXPECT_EQ(ms, 1409529600000);
  ASSERT_TRUE(parse_iso_instant("2010-11-04T01:42:54.657Z", ms));
  EXPECT_EQ(ms, 1288834974657);
  EXPECT_FALSE(parse_iso_instant("2015-02-29", ms));            // not a leap year
  EXPECT_FALSE(parse_iso_instant("2014-09-01T24:00:00Z", ms));  // no hour 24
  EXPECT_FALSE(parse_iso_instant("2014-09-01T00:00:00", ms));   // no zone
  EXPECT_FALSE(parse_iso_instant("2014-09-01T00:00:00+19:00", ms));
  EXPECT_EQ(flakeid::detail::civil_field_error({2015, 2, 29, 0, 0, 0, 0}),
            "day 29 is outside [1, 28]");
  EXPECT_EQ(flakeid::detail::civil_field_error({2016, 2, 29, 0, 0, 0, 0}), "");
}

}  // namespace
