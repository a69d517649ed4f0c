// Printing a decoded ID as the README shows it, with the headers it names: the layouts and
// <flakeid/format.hpp> (which holds operator<<, to_string and the std::format formatter for
// id_parts; layout.hpp, which returns the parts, does not print them).
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include <flakeid/format.hpp>
#include <flakeid/layouts.hpp>

namespace {

// Discord developer docs, "Snowflakes": 2016-04-30 11:18:25.796 UTC, worker 1, process 0,
// increment 7.
constexpr std::uint64_t discord_docs_id = 175928847299117063ULL;

TEST(format_print_test, the_readme_line_prints_the_parts_with_format_hpp) {
  std::ostringstream out;
  out << flakeid::layouts::discord.decompose(discord_docs_id);
  EXPECT_EQ(out.str(),
            "{time: 2016-04-30T11:18:25.796Z, ticks: 41944705796, datacenter: 0, worker: 1, "
            "sequence: 7}");
}

TEST(format_print_test, a_twitter_reading_of_a_discord_id_is_another_time) {
  // What `flakeid parse 175928847299117063` prints without --layout: Twitter's reading.
  EXPECT_EQ(flakeid::to_string(flakeid::layouts::twitter.decompose(discord_docs_id)),
            "{time: 2012-03-03T13:01:20.453Z, ticks: 41944705796, datacenter: 1, worker: 0, "
            "sequence: 7}");
}

}  // namespace
