#include <gtest/gtest.h>

#include <iomanip>
#include <sstream>
#include <string>

#include <flakeid/flakeid.hpp>

// Exercise the {fmt} formatter when {fmt} is around (header-only, so nothing to link; CI installs
// libfmt-dev so that it runs there).
#if __has_include(<fmt/format.h>)
#define FMT_HEADER_ONLY
#include <flakeid/fmt.hpp>
#endif

namespace {

// Discord developer docs, Reference > "Snowflakes": 175928847299117063 is
// 2016-04-30 11:18:25.796 UTC, internal worker 1, internal process 0, increment 7.
constexpr std::uint64_t discord_docs_id = 175928847299117063ULL;
constexpr std::string_view discord_docs_text =
    "{time: 2016-04-30T11:18:25.796Z, ticks: 41944705796, datacenter: 0, worker: 1, sequence: 7}";

TEST(format_test, to_string_prints_the_fields_of_the_layout) {
  EXPECT_EQ(flakeid::to_string(flakeid::layouts::discord.decompose(discord_docs_id)),
            discord_docs_text);
  EXPECT_EQ(
      flakeid::to_string(flakeid::id_parts{}),
      "{time: 1970-01-01T00:00:00.000Z, ticks: 0, datacenter: 0, worker: 0, sequence: 0, gene: 0}");
  const auto& g = flakeid::layouts::seed_gene;
  EXPECT_EQ(flakeid::to_string(g.decompose(g.compose(
                {.ticks = 1, .datacenter = 31, .worker = 30, .sequence = 127, .gene = 17}))),
            "{time: 2024-08-24T13:16:04.001Z, ticks: 1, datacenter: 31, worker: 30, sequence: 127, "
            "gene: 17}");
  // Sonyflake has no datacenter and no gene; Mastodon only a time and a sequence.
  EXPECT_EQ(flakeid::to_string(flakeid::layouts::sonyflake.decompose(
                flakeid::layouts::sonyflake.compose({.ticks = 5, .worker = 9, .sequence = 3}))),
            "{time: 2014-09-01T00:00:00.050Z, ticks: 5, worker: 9, sequence: 3}");
  EXPECT_EQ(flakeid::to_string(flakeid::layouts::mastodon.decompose(65536 * 1000 + 2)),
            "{time: 1970-01-01T00:00:01.000Z, ticks: 1000, sequence: 2}");
}

TEST(format_test, parts_compare_by_value_not_by_where_they_came_from) {
  const auto& l = flakeid::layouts::twitter;
  const flakeid::id_parts by_hand{.ticks = 7, .datacenter = 1, .worker = 2, .sequence = 3};
  const flakeid::id_parts decoded = l.decompose(l.compose(by_hand));
  EXPECT_EQ(by_hand.present, 0);
  EXPECT_NE(decoded.present, 0);
  EXPECT_EQ(
      decoded,
      (flakeid::id_parts{
          .timestamp = l.time_at(7), .ticks = 7, .datacenter = 1, .worker = 2, .sequence = 3}));
  EXPECT_TRUE(decoded.has(flakeid::field_kind::worker));
  EXPECT_FALSE(decoded.has(flakeid::field_kind::gene));
  EXPECT_TRUE(by_hand.has(flakeid::field_kind::gene));
}

TEST(format_test, stream_operator_prints_the_same_text) {
  std::ostringstream os;
  os << flakeid::layouts::discord.decompose(discord_docs_id);
  EXPECT_EQ(os.str(), discord_docs_text);
}

TEST(format_test, stream_operator_honours_width_and_fill) {
  std::ostringstream os;
  os << std::setw(110) << std::setfill('.') << std::left
     << flakeid::layouts::discord.decompose(discord_docs_id) << '|';
  EXPECT_EQ(os.str(), std::string(discord_docs_text) +
                          std::string(110 - discord_docs_text.size(), '.') + "|");
}

// The C++23 preset (Clang 16, libc++ 16) must find <format>: this test must not vanish there.
#if defined(FLAKEID_EXPECT_STD_FORMAT) && !defined(FLAKEID_HAS_STD_FORMAT)
#error "std::format was expected here, but <flakeid/format.hpp> did not detect it"
#endif

/// The parts of the Discord docs' ID.
[[maybe_unused]] flakeid::id_parts docs_parts() {
  return flakeid::layouts::discord.decompose(discord_docs_id);
}

/// What a formatting library printed for `docs_parts()` with "{}" (`plain`) and "{:>101}"
/// (`padded`): its text, and the text right-aligned in 101 columns.
[[maybe_unused]] void expect_docs_text(const std::string& plain, const std::string& padded) {
  EXPECT_EQ(plain, discord_docs_text);
  EXPECT_EQ(padded,
            std::string(101 - discord_docs_text.size(), ' ') + std::string(discord_docs_text));
}

#if defined(FLAKEID_HAS_STD_FORMAT)
TEST(format_test, std_format_prints_the_same_text) {
  expect_docs_text(std::format("{}", docs_parts()), std::format("{:>101}", docs_parts()));
}
#endif

#if defined(FLAKEID_HAS_FMT)
TEST(format_test, fmt_format_prints_the_same_text) {
  expect_docs_text(fmt::format("{}", docs_parts()), fmt::format("{:>101}", docs_parts()));
}
#endif

}  // namespace
