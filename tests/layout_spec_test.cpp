#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include <flakeid/flakeid.hpp>

using namespace std::chrono_literals;

namespace {

std::string spec_error(std::string_view spec) {
  try {
    (void)flakeid::parse_layout(spec);
  } catch (const flakeid::invalid_layout_error& e) {
    return e.what();
  }
  return "";
}

// ---- compile-time contracts ------------------------------------------------------------------

static_assert(noexcept(flakeid::preset_names()));
static_assert(flakeid::preset_names().size() == 13);
static_assert(&flakeid::layout_by_name("twitter") == &flakeid::layouts::twitter);
static_assert(flakeid::parse_layout("ts:41,dc:5,worker:5,seq:12;epoch=1288834974657;tick=1ms") ==
              flakeid::layouts::twitter);
static_assert(flakeid::parse_layout("sonyflake") == flakeid::layouts::sonyflake);

// ---- names -----------------------------------------------------------------------------------

TEST(layout_spec_test, every_preset_has_a_name) {
  const std::pair<std::string_view, const flakeid::layout*> expected[] = {
      {"twitter", &flakeid::layouts::twitter},
      {"discord", &flakeid::layouts::discord},
      {"sonyflake", &flakeid::layouts::sonyflake},
      {"sonyflake_v2", &flakeid::layouts::sonyflake_v2},
      {"instagram", &flakeid::layouts::instagram},
      {"mastodon", &flakeid::layouts::mastodon},
      {"cosid", &flakeid::layouts::cosid},
      {"cosid_seconds", &flakeid::layouts::cosid_seconds},
      {"cosid_js", &flakeid::layouts::cosid_js},
      {"baidu", &flakeid::layouts::baidu},
      {"seed_classic", &flakeid::layouts::seed_classic},
      {"seed_gene", &flakeid::layouts::seed_gene},
      {"newlife", &flakeid::layouts::newlife},
  };
  ASSERT_EQ(flakeid::preset_names().size(), std::size(expected));
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    EXPECT_EQ(flakeid::preset_names()[i], expected[i].first);
    EXPECT_EQ(&flakeid::layout_by_name(expected[i].first), expected[i].second);
    EXPECT_EQ(flakeid::parse_layout(expected[i].first), *expected[i].second);
  }
  EXPECT_EQ(flakeid::parse_layout("  cosid_js "), flakeid::layouts::cosid_js);
}

TEST(layout_spec_test, unknown_names_list_the_known_ones) {
  const std::string known =
      "known: twitter, discord, sonyflake, sonyflake_v2, instagram, mastodon, cosid, "
      "cosid_seconds, "
      "cosid_js, baidu, seed_classic, seed_gene, newlife";
  try {
    (void)flakeid::layout_by_name("Twitter");
    FAIL() << "no exception";
  } catch (const flakeid::invalid_layout_error& e) {
    EXPECT_EQ(std::string(e.what()), "flakeid: unknown layout name \"Twitter\"; " + known);
  }
  EXPECT_EQ(spec_error("snowflake"),
            "flakeid: invalid layout spec \"snowflake\": layout name \"snowflake\" at index 0 is "
            "unknown; " +
                known +
                "; or give fields like \"ts:41,worker:10,seq:12;epoch=1577203200000;tick=1ms\"");
}

// ---- specs -----------------------------------------------------------------------------------

TEST(layout_spec_test, parses_the_documented_spec) {
  const flakeid::layout l =
      flakeid::parse_layout("ts:41,dc:5,worker:5,seq:12;epoch=1288834974657;tick=1ms");
  EXPECT_EQ(l, flakeid::layouts::twitter);
  EXPECT_EQ(flakeid::parse_layout(
                "timestamp:41, datacenter:5, worker:5, sequence:12 ; epoch = 1288834974657"),
            flakeid::layouts::twitter);
}

TEST(layout_spec_test, defaults_to_the_unix_epoch_and_1_ms) {
  EXPECT_EQ(flakeid::parse_layout("ts:48,seq:16"), flakeid::layouts::mastodon);
}

TEST(layout_spec_test, reads_iso_epochs_and_second_ticks) {
  EXPECT_EQ(flakeid::parse_layout("ts:39,seq:8,worker:16;epoch=2014-09-01;tick=10ms"),
            flakeid::layouts::sonyflake);
  EXPECT_EQ(flakeid::parse_layout("ts:39,seq:8,worker:16;tick=10ms;epoch=2025-01-01T00:00:00Z"),
            flakeid::layouts::sonyflake_v2);
  EXPECT_EQ(flakeid::parse_layout("ts:28,worker:22,seq:13;epoch=2016-05-20T00:00:00+08:00;tick=1s"),
            flakeid::layouts::baidu);
  EXPECT_EQ(flakeid::parse_layout("ts:41,worker:10,seq:12;epoch=2019-12-24T16:00:00.000Z"),
            flakeid::layouts::cosid);
  EXPECT_EQ(flakeid::parse_layout("ts:31,worker:10,seq:22;epoch=1577203200000;tick=1000ms"),
            flakeid::layouts::cosid_seconds);
}

TEST(layout_spec_test, writes_specs_that_read_back_for_every_preset) {
  EXPECT_EQ(flakeid::to_spec(flakeid::layouts::twitter),
            "ts:41,dc:5,worker:5,seq:12;epoch=1288834974657;tick=1ms");
  EXPECT_EQ(flakeid::to_spec(flakeid::layouts::sonyflake),
            "ts:39,seq:8,worker:16;epoch=1409529600000;tick=10ms");
  EXPECT_EQ(flakeid::to_spec(flakeid::layouts::cosid_seconds),
            "ts:31,worker:10,seq:22;epoch=1577203200000;tick=1s");
  EXPECT_EQ(flakeid::to_spec(flakeid::layouts::cosid_js),
            "reserved:11,ts:41,worker:3,seq:9;epoch=1577203200000;tick=1ms");
  for (const std::string_view name : flakeid::preset_names()) {
    const flakeid::layout& l = flakeid::layout_by_name(name);
    EXPECT_EQ(flakeid::parse_layout(flakeid::to_spec(l)), l) << name;
  }
  const flakeid::layout odd{
      {flakeid::fields::gene(3), flakeid::fields::timestamp(40), flakeid::fields::sequence(20)},
      123456789,
      1500ms};
  EXPECT_EQ(flakeid::to_spec(odd), "gene:3,ts:40,seq:20;epoch=123456789;tick=1500ms");
  EXPECT_EQ(flakeid::parse_layout(flakeid::to_spec(odd)), odd);
}

TEST(layout_spec_test, errors_point_at_the_bad_part) {
  const std::string kinds =
      "allowed: ts|timestamp, dc|datacenter, worker, seq|sequence, gene, reserved";
  EXPECT_EQ(spec_error(""),
            "flakeid: invalid layout spec \"\": it is empty; give a preset name (twitter, discord, "
            "sonyflake, sonyflake_v2, instagram, mastodon, cosid, cosid_seconds, cosid_js, baidu, "
            "seed_classic, seed_gene, newlife) or fields like "
            "\"ts:41,worker:10,seq:12;epoch=1577203200000;tick=1ms\"");
  EXPECT_EQ(
      spec_error("ts:41,dc:x,worker:5,seq:12"),
      "flakeid: invalid layout spec \"ts:41,dc:x,worker:5,seq:12\": width \"x\" at index 9 is not "
      "a number in [1, 64]");
  EXPECT_EQ(
      spec_error("ts:41,dc:0,worker:10,seq:12"),
      "flakeid: invalid layout spec \"ts:41,dc:0,worker:10,seq:12\": width \"0\" at index 9 is not "
      "a number in [1, 64]");
  EXPECT_EQ(
      spec_error("ts:65,seq:12"),
      "flakeid: invalid layout spec \"ts:65,seq:12\": width \"65\" at index 3 is not a number in "
      "[1, 64]");
  EXPECT_EQ(
      spec_error("ts:41,dc:,seq:12"),
      "flakeid: invalid layout spec \"ts:41,dc:,seq:12\": width \"\" at index 9 is not a number in "
      "[1, 64]");
  EXPECT_EQ(
      spec_error("ts:41,machine:10,seq:12"),
      "flakeid: invalid layout spec \"ts:41,machine:10,seq:12\": field kind \"machine\" at index 6 "
      "is unknown; " +
          kinds);
  EXPECT_EQ(spec_error("ts:41,worker10,seq:12"),
            "flakeid: invalid layout spec \"ts:41,worker10,seq:12\": field \"worker10\" at index 6 "
            "is not "
            "kind:bits");
  EXPECT_EQ(
      spec_error("ts:41,,seq:12"),
      "flakeid: invalid layout spec \"ts:41,,seq:12\": field \"\" at index 6 is not kind:bits");
  EXPECT_EQ(
      spec_error("ts:41,worker:5,worker:5,seq:12"),
      "flakeid: invalid layout spec \"ts:41,worker:5,worker:5,seq:12\": field \"worker:5\" at "
      "index 15 repeats the worker kind; each kind may appear once");
  EXPECT_EQ(
      spec_error("ts:41,worker:10,seq:10;epoch=0"),
      "flakeid: invalid layout spec \"ts:41,worker:10,seq:10;epoch=0\": fields "
      "\"ts:41,worker:10,seq:10\" at index 0 add up to 61 bits; they must add up to 63 (sign bit "
      "reserved) or 64");
  EXPECT_EQ(
      spec_error("worker:51,seq:12"),
      "flakeid: invalid layout spec \"worker:51,seq:12\": fields \"worker:51,seq:12\" at index 0 "
      "have no timestamp field; add ts:<bits>");
  EXPECT_EQ(
      spec_error(" ts:51,worker:12 ;tick=1ms"),
      "flakeid: invalid layout spec \" ts:51,worker:12 ;tick=1ms\": fields \"ts:51,worker:12\" at "
      "index 1 have no sequence field; add seq:<bits>");
  EXPECT_EQ(
      spec_error("ts:41,worker:10,seq:12;epoch"),
      "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;epoch\": option \"epoch\" at index 23 "
      "is not key=value; allowed: epoch=<Unix ms or ISO date>, tick=<n>ms or <n>s");
  EXPECT_EQ(
      spec_error("ts:41,worker:10,seq:12;"),
      "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;\": option \"\" at index 23 is not "
      "key=value; allowed: epoch=<Unix ms or ISO date>, tick=<n>ms or <n>s");
  EXPECT_EQ(
      spec_error("ts:41,worker:10,seq:12;step=1"),
      "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;step=1\": option \"step\" at index 23 "
      "is unknown; allowed: epoch, tick");
  EXPECT_EQ(spec_error("ts:41,worker:10,seq:12;tick=1ms;tick=2ms"),
            "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;tick=1ms;tick=2ms\": option "
            "\"tick=2ms\" at index 32 is given twice; give it once");
  const std::string epoch_rest =
      " is neither Unix ms in [0, 9223372036854775807] nor an ISO date such as 2014-09-01, "
      "2014-09-01T00:00:00Z or 2016-05-20T00:00:00+08:00";
  EXPECT_EQ(spec_error("ts:41,worker:10,seq:12;epoch=2014-13-01"),
            "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;epoch=2014-13-01\": epoch "
            "\"2014-13-01\" at index 29" +
                epoch_rest);
  EXPECT_EQ(spec_error("ts:41,worker:10,seq:12;epoch=2014-02-30"),
            "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;epoch=2014-02-30\": epoch "
            "\"2014-02-30\" at index 29" +
                epoch_rest);
  EXPECT_EQ(
      spec_error("ts:41,worker:10,seq:12;epoch=2014-09-01T00:00:00"),
      "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;epoch=2014-09-01T00:00:00\": epoch "
      "\"2014-09-01T00:00:00\" at index 29" +
          epoch_rest);
  EXPECT_EQ(
      spec_error("ts:41,worker:10,seq:12;epoch=-1"),
      "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;epoch=-1\": epoch \"-1\" at index 29" +
          epoch_rest);
  EXPECT_EQ(spec_error("ts:41,worker:10,seq:12;epoch=1969-12-31"),
            "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;epoch=1969-12-31\": epoch "
            "\"1969-12-31\" at index 29" +
                epoch_rest);
  const std::string tick_rest =
      " is not a positive whole number of ms or s, such as 1ms, 10ms or 1s";
  EXPECT_EQ(
      spec_error("ts:41,worker:10,seq:12;tick=0ms"),
      "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;tick=0ms\": tick \"0ms\" at index 28" +
          tick_rest);
  EXPECT_EQ(
      spec_error("ts:41,worker:10,seq:12;tick=10"),
      "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;tick=10\": tick \"10\" at index 28" +
          tick_rest);
  EXPECT_EQ(spec_error("ts:41,worker:10,seq:12;tick=1min"),
            "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;tick=1min\": tick \"1min\" at "
            "index 28" +
                tick_rest);
  EXPECT_EQ(spec_error("ts:41,worker:10,seq:12;tick=9223372036854776s"),
            "flakeid: invalid layout spec \"ts:41,worker:10,seq:12;tick=9223372036854776s\": tick "
            "\"9223372036854776s\" at index 28" +
                tick_rest);
  // The one rule only the layout as a whole can check: its last tick must fit 64-bit Unix ms.
  EXPECT_EQ(
      spec_error("ts:62,seq:2;tick=1s"),
      "flakeid: invalid layout spec \"ts:62,seq:2;tick=1s\": epoch must be >= 0 and epoch + "
      "2^timestamp_bits * tick must fit 64-bit Unix ms; narrow the timestamp or shorten the tick "
      "(got 62)");
}

}  // namespace
