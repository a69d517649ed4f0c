#include <gtest/gtest.h>

// Exercise the {fmt} formatter when {fmt} is around (header-only, so nothing to link; CI installs
// libfmt-dev so that it runs there).
#if __has_include(<fmt/format.h>)
#define FMT_HEADER_ONLY
#define FLAKEID_FMT
#endif

#include <iomanip>
#include <sstream>
#include <string>

#include <flakeid/flakeid.hpp>

namespace {

// Discord developer docs, Reference > "Snowflakes": 175928847299117063 is
// 2016-04-30 11:18:25.796 UTC, internal worker 1, internal process 0, increment 7.
constexpr std::uint64_t discord_docs_id = 175928847299117063ULL;
constexpr const char* discord_docs_text =
    "{time: 2016-04-30T11:18:25.796Z, ticks: 41944705796, datacenter: 0, worker: 1, sequence: 7, "
    "gene: 0}";

TEST(format_test, to_string_prints_every_field) {
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
  EXPECT_EQ(os.str(), std::string(discord_docs_text) + std::string(110 - 100, '.') + "|");
}

#if defined(FLAKEID_HAS_STD_FORMAT)
TEST(format_test, std_format_prints_the_same_text) {
  const auto p = flakeid::layouts::discord.decompose(discord_docs_id);
  EXPECT_EQ(std::format("{}", p), discord_docs_text);
  EXPECT_EQ(std::format("{:>101}", p), " " + std::string(discord_docs_text));
}
#endif

#if defined(FLAKEID_HAS_FMT)
TEST(format_test, fmt_format_prints_the_same_text) {
  const auto p = flakeid::layouts::discord.decompose(discord_docs_id);
  EXPECT_EQ(fmt::format("{}", p), discord_docs_text);
  EXPECT_EQ(fmt::format("{:>101}", p), " " + std::string(discord_docs_text));
}
#endif

}  // namespace
