// Every preset in flakeid::layouts: its exact shape (checked at compile time) and, for each system
// that publishes IDs, real IDs decoded field by field. Every expected value below was worked out
// by hand from the system's published layout, independently of the code under test.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>

#include <flakeid/flakeid.hpp>

using namespace std::chrono;
using flakeid::field_kind;
namespace layouts = flakeid::layouts;

namespace {

using time_point = flakeid::layout::time_point;

/// One expected field: kind, width, position of its lowest bit.
struct field_at {
  field_kind kind;
  unsigned bits;
  unsigned shift;
};

/// Whether `l` has exactly these fields, most significant first, and no others.
constexpr bool has_fields(const flakeid::layout& l, std::initializer_list<field_at> expected) {
  if (l.fields().size() != expected.size()) return false;
  std::size_t i = 0;
  for (const field_at& f : expected) {
    if (l.fields()[i].kind != f.kind || l.fields()[i].bits != f.bits) return false;
    if (l.bits(f.kind) != f.bits || l.shift(f.kind) != f.shift) return false;
    ++i;
  }
  for (std::size_t k = 0; k < flakeid::field_kind_count; ++k) {
    bool listed = false;
    for (const field_at& f : expected) listed = listed || f.kind == static_cast<field_kind>(k);
    if (!listed && l.has(static_cast<field_kind>(k))) return false;
  }
  return true;
}

/// A UTC instant with millisecond precision.
constexpr time_point utc(year_month_day day, hours h = hours{0}, minutes m = minutes{0},
                         seconds s = seconds{0}, milliseconds ms = milliseconds{0}) {
  return time_point{sys_days{day}} + h + m + s + ms;
}

constexpr time_point unix_ms(std::int64_t ms) { return time_point{milliseconds{ms}}; }

constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;

// ---- shapes -----------------------------------------------------------------------------------
// Field widths and shifts come from each system's published layout; expires_at is
// epoch + 2^timestamp_bits * tick - 1 ms, worked out by hand.

TEST(presets_test, twitter_shape) {
  constexpr auto& l = layouts::twitter;
  static_assert(has_fields(l, {{field_kind::timestamp, 41, 22},
                               {field_kind::datacenter, 5, 17},
                               {field_kind::worker, 5, 12},
                               {field_kind::sequence, 12, 0}}));
  static_assert(l.total_bits == 63 && l.reserved_mask() == sign_bit);
  static_assert(l.epoch() == unix_ms(1288834974657));
  static_assert(l.epoch() == utc(2010y / November / 4, 1h, 42min, 54s, 657ms));
  static_assert(l.tick() == 1ms);
  static_assert(l.expires_at() == unix_ms(3487858230208));
  static_assert(l.expires_at() == utc(2080y / July / 10, 17h, 30min, 30s, 208ms));
  static_assert(l.time_ordered() && l.ids_per_tick() == 4096);
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2080-07-10T17:30:30.208Z");
}

TEST(presets_test, discord_shape) {
  constexpr auto& l = layouts::discord;
  // Worker (bits 21-17) sits above the process id (bits 16-12), which is held as datacenter.
  static_assert(has_fields(l, {{field_kind::timestamp, 42, 22},
                               {field_kind::worker, 5, 17},
                               {field_kind::datacenter, 5, 12},
                               {field_kind::sequence, 12, 0}}));
  static_assert(l.total_bits == 64 && l.reserved_mask() == 0);
  static_assert(l.epoch() == utc(2015y / January / 1));
  static_assert(l.tick() == 1ms);
  static_assert(l.expires_at() == unix_ms(5818116911103));
  static_assert(l.expires_at() == utc(2154y / May / 15, 7h, 35min, 11s, 103ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2154-05-15T07:35:11.103Z");
}

TEST(presets_test, sonyflake_shape) {
  constexpr auto& l = layouts::sonyflake;
  // Sequence above the machine id, which takes the lowest 16 bits.
  static_assert(has_fields(l, {{field_kind::timestamp, 39, 24},
                               {field_kind::sequence, 8, 16},
                               {field_kind::worker, 16, 0}}));
  static_assert(l.total_bits == 63 && l.reserved_mask() == sign_bit);
  static_assert(l.epoch() == utc(2014y / September / 1));
  static_assert(l.tick() == 10ms);
  // Last tick 2^39 - 1 starts at 6907087738870 ms and ends 9 ms later.
  static_assert(l.expires_at() == unix_ms(6907087738879));
  static_assert(l.expires_at() == utc(2188y / November / 16, 3h, 28min, 58s, 879ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2188-11-16T03:28:58.879Z");
}

TEST(presets_test, sonyflake_v2_shape) {
  constexpr auto& l = layouts::sonyflake_v2;
  static_assert(has_fields(l, {{field_kind::timestamp, 39, 24},
                               {field_kind::sequence, 8, 16},
                               {field_kind::worker, 16, 0}}));
  static_assert(l.total_bits == 63 && l.reserved_mask() == sign_bit);
  static_assert(l.epoch() == utc(2025y / January / 1));
  static_assert(l.epoch() == unix_ms(1735689600000));
  static_assert(l.tick() == 10ms);
  static_assert(l.expires_at() == unix_ms(7233247738879));
  static_assert(l.expires_at() == utc(2199y / March / 19, 3h, 28min, 58s, 879ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2199-03-19T03:28:58.879Z");
}

TEST(presets_test, instagram_shape) {
  constexpr auto& l = layouts::instagram;
  static_assert(has_fields(l, {{field_kind::timestamp, 41, 23},
                               {field_kind::worker, 13, 10},
                               {field_kind::sequence, 10, 0}}));
  static_assert(l.total_bits == 64 && l.reserved_mask() == 0);
  static_assert(l.epoch() == utc(2011y / August / 24, 21h, 7min, 1s, 721ms));
  static_assert(l.tick() == 1ms);
  static_assert(l.expires_at() == unix_ms(3513243277272));
  static_assert(l.expires_at() == utc(2081y / April / 30, 12h, 54min, 37s, 272ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2081-04-30T12:54:37.272Z");
}

TEST(presets_test, mastodon_shape) {
  constexpr auto& l = layouts::mastodon;
  static_assert(has_fields(l, {{field_kind::timestamp, 48, 16}, {field_kind::sequence, 16, 0}}));
  static_assert(l.total_bits == 64 && l.reserved_mask() == 0);
  static_assert(l.epoch() == time_point{});
  static_assert(l.tick() == 1ms);
  static_assert(l.expires_at() == unix_ms((std::int64_t{1} << 48) - 1));
  static_assert(l.expires_at() == utc(10889y / August / 2, 5h, 31min, 50s, 655ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "10889-08-02T05:31:50.655Z");
}

TEST(presets_test, cosid_shape) {
  constexpr auto& l = layouts::cosid;
  static_assert(has_fields(l, {{field_kind::timestamp, 41, 22},
                               {field_kind::worker, 10, 12},
                               {field_kind::sequence, 12, 0}}));
  static_assert(l.total_bits == 63 && l.reserved_mask() == sign_bit);
  static_assert(l.epoch() == utc(2019y / December / 24, 16h));  // 2019-12-25 00:00 at UTC+8
  static_assert(l.tick() == 1ms);
  static_assert(l.expires_at() == unix_ms(3776226455551));
  static_assert(l.expires_at() == utc(2089y / August / 30, 7h, 47min, 35s, 551ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2089-08-30T07:47:35.551Z");
}

TEST(presets_test, cosid_seconds_shape) {
  constexpr auto& l = layouts::cosid_seconds;
  static_assert(has_fields(l, {{field_kind::timestamp, 31, 32},
                               {field_kind::worker, 10, 22},
                               {field_kind::sequence, 22, 0}}));
  static_assert(l.total_bits == 63 && l.reserved_mask() == sign_bit);
  static_assert(l.epoch() == utc(2019y / December / 24, 16h));
  static_assert(l.tick() == 1s);
  // Last second 2^31 - 1 after the epoch, to its last millisecond.
  static_assert(l.expires_at() == unix_ms(3724686847999));
  static_assert(l.expires_at() == utc(2088y / January / 11, 19h, 14min, 7s, 999ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2088-01-11T19:14:07.999Z");
}

TEST(presets_test, cosid_js_shape) {
  constexpr auto& l = layouts::cosid_js;
  static_assert(has_fields(l, {{field_kind::reserved, 11, 53},
                               {field_kind::timestamp, 41, 12},
                               {field_kind::worker, 3, 9},
                               {field_kind::sequence, 9, 0}}));
  static_assert(l.total_bits == 64);
  static_assert(l.reserved_mask() == ~((std::uint64_t{1} << 53) - 1));
  static_assert(l.max_id() == 9007199254740991);  // Number.MAX_SAFE_INTEGER
  static_assert(l.epoch() == utc(2019y / December / 24, 16h));
  static_assert(l.tick() == 1ms);
  static_assert(l.expires_at() == unix_ms(3776226455551));
  static_assert(l.time_ordered());
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2089-08-30T07:47:35.551Z");
}

TEST(presets_test, baidu_shape) {
  constexpr auto& l = layouts::baidu;
  static_assert(has_fields(l, {{field_kind::timestamp, 28, 35},
                               {field_kind::worker, 22, 13},
                               {field_kind::sequence, 13, 0}}));
  static_assert(l.total_bits == 63 && l.reserved_mask() == sign_bit);
  static_assert(l.epoch() == utc(2016y / May / 19, 16h));  // 2016-05-20 00:00 at UTC+8
  static_assert(l.tick() == 1s);
  // 2^28 - 1 seconds after the epoch is 2024-11-20 21:24:15 at UTC+8, the end of the range
  // uid-generator documents ("until to 2024-11-20 21:24:16", its first second past the end).
  static_assert(l.expires_at() == unix_ms(1732109055999));
  static_assert(l.expires_at() == utc(2024y / November / 20, 13h, 24min, 15s, 999ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2024-11-20T13:24:15.999Z");
}

TEST(presets_test, seed_classic_shape) {
  constexpr auto& l = layouts::seed_classic;
  static_assert(has_fields(l, {{field_kind::timestamp, 41, 22},
                               {field_kind::datacenter, 5, 17},
                               {field_kind::worker, 5, 12},
                               {field_kind::sequence, 12, 0}}));
  static_assert(l.total_bits == 63 && l.reserved_mask() == sign_bit);
  static_assert(l.epoch() == utc(2014y / December / 31, 16h));  // 2015-01-01 00:00 at UTC+8
  static_assert(l.tick() == 1ms);
  static_assert(l.expires_at() == unix_ms(3619064855551));
  static_assert(l.expires_at() == utc(2084y / September / 6, 7h, 47min, 35s, 551ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2084-09-06T07:47:35.551Z");
}

TEST(presets_test, seed_gene_shape) {
  constexpr auto& l = layouts::seed_gene;
  static_assert(has_fields(l, {{field_kind::timestamp, 41, 22},
                               {field_kind::datacenter, 5, 17},
                               {field_kind::worker, 5, 12},
                               {field_kind::sequence, 7, 5},
                               {field_kind::gene, 5, 0}}));
  static_assert(l.total_bits == 63 && l.reserved_mask() == sign_bit);
  static_assert(l.epoch() == utc(2024y / August / 24, 13h, 16min, 4s));
  static_assert(l.tick() == 1ms);
  static_assert(l.ids_per_tick() == 128);
  static_assert(l.expires_at() == unix_ms(3923528619551));
  static_assert(l.expires_at() == utc(2094y / May / 1, 5h, 3min, 39s, 551ms));
  EXPECT_EQ(flakeid::detail::format_utc(l.expires_at()), "2094-05-01T05:03:39.551Z");
}

// ---- real IDs ---------------------------------------------------------------------------------

TEST(presets_test, decodes_real_twitter_ids) {
  constexpr auto& l = layouts::twitter;
  // X/Twitter developer docs, v1.1 Tweet object data dictionary: "id": 1050118621198921728,
  // "created_at": "Wed Oct 10 20:19:24 +0000 2018" (created_at is given to the second).
  static_assert(l.decompose(1050118621198921728) ==
                flakeid::id_parts{utc(2018y / October / 10, 20h, 19min, 24s, 211ms), 250367789554,
                                  10, 27, 0, 0});
  // X/Twitter developer docs, "Example payloads" (v1.1 and v2): id 1307025659294674945,
  // "created_at": "Fri Sep 18 18:36:15 +0000 2020" (v2: "2020-09-18T18:36:15.000Z").
  static_assert(l.decompose(1307025659294674945) ==
                flakeid::id_parts{utc(2020y / September / 18, 18h, 36min, 15s, 195ms), 311619200538,
                                  10, 7, 1, 0});
  // X developer docs, Posts lookup quickstart (API v2): id 1228393702244134912,
  // "created_at": "2020-02-14T19:00:55.000Z".
  const auto p = l.decompose(1228393702244134912);
  EXPECT_EQ(p.timestamp, utc(2020y / February / 14, 19h, 0min, 55s, 723ms));
  EXPECT_EQ(floor<seconds>(p.timestamp), utc(2020y / February / 14, 19h, 0min, 55s));
  EXPECT_EQ(p.ticks, 292871881066U);
  EXPECT_EQ(p.datacenter, 11U);
  EXPECT_EQ(p.worker, 11U);
  EXPECT_EQ(p.sequence, 0U);
  for (std::uint64_t id : {1050118621198921728ULL, 1307025659294674945ULL, 1228393702244134912ULL})
    EXPECT_EQ(l.compose(l.decompose(id)), id);
}

TEST(presets_test, decodes_real_discord_ids) {
  constexpr auto& l = layouts::discord;
  // Discord developer docs, Reference > Snowflakes, "Snowflake ID Broken Down in Binary":
  // 175928847299117063 is 2016-04-30 11:18:25.796 UTC, internal worker 1, internal process 0,
  // increment 7. The process id is held as datacenter.
  static_assert(
      l.decompose(175928847299117063) ==
      flakeid::id_parts{utc(2016y / April / 30, 11h, 18min, 25s, 796ms), 41944705796, 0, 1, 7, 0});
  // @pcordjs/snowflake README (a Discord snowflake parser): 937847820382261308 ->
  // Date(2022-01-31T23:12:24.749Z), worker 1, process 5, increment 60.
  const auto p = l.decompose(937847820382261308);
  EXPECT_EQ(p.timestamp, utc(2022y / January / 31, 23h, 12min, 24s, 749ms));
  EXPECT_EQ(p.ticks, 223600344749U);
  EXPECT_EQ(p.worker, 1U);
  EXPECT_EQ(p.datacenter, 5U);
  EXPECT_EQ(p.sequence, 60U);
  EXPECT_EQ(l.compose(p), 937847820382261308U);
}

TEST(presets_test, decodes_a_published_sonyflake_time_field) {
  constexpr auto& l = layouts::sonyflake;
  // No full Sonyflake ID is published with its fields. sony/sonyflake issue #33 (filed
  // 2022-07-19) quotes a Decompose "time" of 24869724975 (10 ms units) for an ID generated
  // that day; the rest of this ID is composed by hand (sequence 0, machine 0).
  constexpr std::uint64_t id = 24869724975ULL << 24;
  static_assert(id == 417244747766169600);
  const auto p = l.decompose(id);
  EXPECT_EQ(p.timestamp, utc(2022y / July / 19, 10h, 34min, 9s, 750ms));
  EXPECT_EQ(p.ticks, 24869724975U);
  EXPECT_EQ(flakeid::detail::format_utc(p.timestamp), "2022-07-19T10:34:09.750Z");
}

TEST(presets_test, composes_hand_computed_sonyflake_ids) {
  // Hand-computed (no published vectors): 2020-01-01T00:00Z is 1577836800000 ms, i.e.
  // 16830720000 ticks of 10 ms after 2014-09-01; machine 1 (sonyflake's default for 192.168.0.1).
  // 16830720000 << 24 | 0 << 16 | 1 = 282372624875520001.
  EXPECT_EQ(layouts::sonyflake.compose({utc(2020y / January / 1), 0, 0, 1, 0, 0}),
            282372624875520001U);
  // 2022-07-19T12:34:56.785Z floors to the tick at .780 (24870449678); sequence 5, machine
  // 0xC0A8: 24870449678 << 24 | 5 << 16 | 49320 = 417256906265313448.
  const auto p = layouts::sonyflake.decompose(417256906265313448);
  EXPECT_EQ(p, (flakeid::id_parts{utc(2022y / July / 19, 12h, 34min, 56s, 780ms), 24870449678, 0,
                                  49320, 5, 0}));
  EXPECT_EQ(layouts::sonyflake.compose(
                {utc(2022y / July / 19, 12h, 34min, 56s, 785ms), 0, 0, 49320, 5, 0}),
            417256906265313448U);
  // v2 (epoch 2025-01-01): 2025-06-01T00:00Z is 1304640000 ticks; sequence 3, machine 1:
  // 1304640000 << 24 | 3 << 16 | 1 = 21888227082436609.
  EXPECT_EQ(layouts::sonyflake_v2.compose({utc(2025y / June / 1), 0, 0, 1, 3, 0}),
            21888227082436609U);
  EXPECT_EQ(layouts::sonyflake_v2.decompose(21888227082436609).ticks, 1304640000U);
}

TEST(presets_test, decodes_real_instagram_ids) {
  constexpr auto& l = layouts::instagram;
  // Instagram media "BcQcdiXltba" (a post by @vegan), id 1661953437569832666, as returned by
  // instagram.com's GraphQL API and recorded in InstaPy/instapy-research
  // (api/old_api/basic_endpoint/post_page_basic.md); that response gives
  // "taken_at_timestamp": 1512340310, i.e. 2017-12-03T22:31:50Z. The shard is held as worker.
  static_assert(l.decompose(1661953437569832666) ==
                flakeid::id_parts{utc(2017y / December / 3, 22h, 31min, 50s, 280ms), 198120288559,
                                  0, 1461, 730, 0});
  EXPECT_EQ(floor<seconds>(l.decompose(1661953437569832666).timestamp),
            time_point{seconds{1512340310}});
  // ramsey/identifier's Instagram snowflake test decodes 2147483647 to 2011-08-24 21:07:01.976:
  // 255 ms after the epoch, shard 8191, sequence 1023.
  static_assert(
      l.decompose(2147483647) ==
      flakeid::id_parts{utc(2011y / August / 24, 21h, 7min, 1s, 976ms), 255, 0, 8191, 1023, 0});
  // Instagram Engineering, "Sharding & IDs at Instagram": the worked example has 1387263000 ms
  // since the epoch, shard 1341 and sequence 5001 % 1024 = 905; the post does not print the
  // resulting ID, which is 1387263000 << 23 | 1341 << 10 | 905 (hand-computed).
  EXPECT_EQ(l.compose({time_point{}, 1387263000, 0, 1341, 905, 0}), 11637205501278089U);
}

TEST(presets_test, decodes_real_mastodon_ids) {
  constexpr auto& l = layouts::mastodon;
  // Mastodon docs, Entities > Status example: "id": "103270115826048975",
  // "created_at": "2019-12-08T03:48:33.901Z". The ID's 48-bit field is 1575776913849 ms,
  // 2019-12-08T03:48:33.849Z. The ID comes from the database's timestamp_id() default and
  // created_at from the application (mastodon lib/mastodon/snowflake.rb), so the two need not
  // agree to the millisecond: here created_at is 52 ms later.
  static_assert(l.decompose(103270115826048975) ==
                flakeid::id_parts{utc(2019y / December / 8, 3h, 48min, 33s, 849ms), 1575776913849,
                                  0, 0, 40911, 0});
  const auto created_at = utc(2019y / December / 8, 3h, 48min, 33s, 901ms);
  EXPECT_EQ(created_at - l.decompose(103270115826048975).timestamp, 52ms);
  // Mastodon docs, Methods > statuses, POST /api/v1/statuses response: "id":
  // "103254962155278888", "created_at": "2019-12-05T11:34:47.196Z" (13 ms after the ID's time).
  static_assert(l.decompose(103254962155278888) ==
                flakeid::id_parts{utc(2019y / December / 5, 11h, 34min, 47s, 183ms), 1575545687183,
                                  0, 0, 53800, 0});
  // The low 16 bits are a hashed counter, not a per-ms sequence, but they round-trip all the same.
  EXPECT_EQ(l.compose(l.decompose(103270115826048975)), 103270115826048975U);
}

TEST(presets_test, decodes_a_real_cosid_id) {
  constexpr auto& l = layouts::cosid;
  // CosId's own tests, cosid-core SnowflakeFriendlyIdConverterTest: 295913926632165376, whose
  // friendly form (same test file) is "20220320133617924-5-0": 2022-03-20 13:36:17.924 at UTC+8,
  // machine 5, sequence 0.
  static_assert(
      l.decompose(295913926632165376) ==
      flakeid::id_parts{utc(2022y / March / 20, 5h, 36min, 17s, 924ms), 70551377924, 0, 5, 0, 0});
  EXPECT_EQ(l.decompose(295913926632165376).timestamp + 8h,
            utc(2022y / March / 20, 13h, 36min, 17s, 924ms));
}

TEST(presets_test, composes_hand_computed_cosid_seconds_and_js_ids) {
  // Hand-computed (no published vectors). cosid_seconds: 2022-03-20T05:36:17.924Z is 70551377 s
  // after the epoch; machine 5, sequence 3: 70551377 << 32 | 5 << 22 | 3 = 303015856923738115.
  constexpr auto t = utc(2022y / March / 20, 5h, 36min, 17s, 924ms);
  EXPECT_EQ(layouts::cosid_seconds.compose({t, 0, 0, 5, 3, 0}), 303015856923738115U);
  EXPECT_EQ(layouts::cosid_seconds.decompose(303015856923738115).timestamp,
            utc(2022y / March / 20, 5h, 36min, 17s));
  // cosid_js: 70551377924 ms << 12 | 5 << 9 | 3 = 288978443979267 (below 2^53).
  EXPECT_EQ(layouts::cosid_js.compose({t, 0, 0, 5, 3, 0}), 288978443979267U);
  EXPECT_EQ(layouts::cosid_js.decompose(288978443979267).timestamp, t);
}

TEST(presets_test, decodes_a_real_baidu_uid) {
  // baidu/uid-generator README, "Run UnitTest": {"UID":"180363646902239241","parsed":
  // {"timestamp":"2017-01-19 12:15:46","workerId":"4","sequence":"9"}}. The README's Spring
  // configuration for that run is timeBits 29, workerBits 21, seqBits 13, epochStr "2016-09-20",
  // not the class defaults, so decode it with that layout. uid-generator parses the epoch and
  // prints the time in the same (server) zone; with the epoch at UTC midnight the UTC reading
  // equals the printed wall time.
  constexpr flakeid::layout readme{
      {flakeid::fields::timestamp(29), flakeid::fields::worker(21), flakeid::fields::sequence(13)},
      utc(2016y / September / 20),
      1s};
  static_assert(
      readme.decompose(180363646902239241) ==
      flakeid::id_parts{utc(2017y / January / 19, 12h, 15min, 46s), 10498546, 0, 4, 9, 0});
  // With the class defaults (the preset) the same number keeps worker 4 and sequence 9 but the
  // time differs, which is how the README's layout is told apart.
  const auto p = layouts::baidu.decompose(180363646902239241);
  EXPECT_EQ(p.worker, 4U);
  EXPECT_EQ(p.sequence, 9U);
  EXPECT_EQ(p.ticks, 5249273U);
}

TEST(presets_test, composes_hand_computed_baidu_uids) {
  // Hand-computed for the preset: 2020-01-01 00:00 at UTC+8 is 114134400 s after 2016-05-20 00:00
  // at UTC+8; worker 1, sequence 0: 114134400 << 35 | 1 << 13 = 3921628122788667392.
  EXPECT_EQ(layouts::baidu.compose({utc(2019y / December / 31, 16h), 0, 0, 1, 0, 0}),
            3921628122788667392U);
  // 2017-01-01T00:00Z, worker 12345, sequence 7: 19555200 << 35 | 12345 << 13 | 7.
  EXPECT_EQ(layouts::baidu.decompose(671911555835043847),
            (flakeid::id_parts{utc(2017y / January / 1), 19555200, 0, 12345, 7, 0}));
}

TEST(presets_test, composes_hand_computed_seed_ids) {
  // Hand-computed (the article gives no IDs). seed_classic: 2024-01-01T00:00Z is 284025600000 ms
  // after 2015-01-01 00:00 at UTC+8; dc 3, worker 17, sequence 42:
  // 284025600000 << 22 | 3 << 17 | 17 << 12 | 42.
  constexpr std::uint64_t classic = (284025600000ULL << 22) | (3 << 17) | (17 << 12) | 42;
  static_assert(classic == 1191289710182862890);
  EXPECT_EQ(layouts::seed_classic.compose({utc(2024y / January / 1), 0, 3, 17, 42, 0}), classic);
  // seed_gene: 2024-09-01T00:00Z is 643436000 ms after its epoch; dc 1, worker 2, sequence 127,
  // gene 19: 643436000 << 22 | 1 << 17 | 2 << 12 | 127 << 5 | 19.
  constexpr std::uint64_t gene = (643436000ULL << 22) | (1 << 17) | (2 << 12) | (127 << 5) | 19;
  static_assert(gene == 2698766188687347);
  EXPECT_EQ(layouts::seed_gene.compose({utc(2024y / September / 1), 0, 1, 2, 127, 19}), gene);
  EXPECT_EQ(layouts::seed_gene.gene_of(gene), 19U);
  EXPECT_EQ(layouts::seed_gene.shard_of(gene, 8), 3U);
}

}  // namespace
