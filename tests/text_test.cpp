#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <flakeid/flakeid.hpp>

using namespace std::chrono;
using namespace std::string_literals;

namespace {

constexpr std::uint64_t u64_max = UINT64_MAX;
constexpr std::uint64_t i64_max = INT64_MAX;

// The message of the invalid_id_error that `f` throws ("" when it throws nothing).
template <class F>
std::string id_error(F f) {
  try {
    (void)f();
  } catch (const flakeid::invalid_id_error& e) {
    return e.what();
  }
  return "";
}

template <class F>
std::string any_error(F f) {
  try {
    (void)f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// ---- compile-time contracts ------------------------------------------------------------------

static_assert(noexcept(flakeid::to_radix62(nullptr, nullptr, 0)));
static_assert(noexcept(flakeid::to_radix36(nullptr, nullptr, 0)));
static_assert(noexcept(flakeid::to_crockford32(nullptr, nullptr, 0)));
static_assert(noexcept(flakeid::is_javascript_safe(0)));
static_assert(!noexcept(flakeid::from_radix62("")));
static_assert(!noexcept(flakeid::from_crockford32("")));

static_assert(flakeid::from_radix62("10") == 62);
static_assert(flakeid::from_radix62("LygHa16AHYF") == u64_max);
static_assert(flakeid::from_radix36("3W5E11264SGSF") == u64_max);
static_assert(flakeid::from_crockford32("FZZZZZZZZZZZZ") == u64_max);
static_assert(flakeid::from_friendly(flakeid::layouts::cosid, "20220320133617924-5-0", hours{8}) ==
              295913926632165376ULL);

constexpr std::array<char, 13> crockford_at_compile_time(std::uint64_t id) {
  std::array<char, 13> buf{};
  (void)flakeid::to_crockford32(buf.data(), buf.data() + buf.size(), id);
  return buf;
}
static_assert(crockford_at_compile_time(32)[11] == '1');
static_assert(crockford_at_compile_time(32)[12] == '0');

static_assert(flakeid::javascript_safe_max == 9007199254740991ULL);
static_assert(flakeid::is_javascript_safe(flakeid::layouts::cosid_js.max_id()));
static_assert(!flakeid::is_javascript_safe(flakeid::layouts::cosid.max_id()));

// ---- radix 62 --------------------------------------------------------------------------------

TEST(text_test, radix62_encodes_known_values) {
  EXPECT_EQ(flakeid::to_radix62(0), "0");
  EXPECT_EQ(flakeid::to_radix62(1), "1");
  EXPECT_EQ(flakeid::to_radix62(10), "A");
  EXPECT_EQ(flakeid::to_radix62(36), "a");
  EXPECT_EQ(flakeid::to_radix62(61), "z");
  EXPECT_EQ(flakeid::to_radix62(62), "10");
  EXPECT_EQ(flakeid::to_radix62(i64_max), "AzL8n0Y58m7");
  EXPECT_EQ(flakeid::to_radix62(u64_max), "LygHa16AHYF");
  EXPECT_EQ(flakeid::to_radix62(0, flakeid::radix_padding::full), "00000000000");
  EXPECT_EQ(flakeid::to_radix62(62, flakeid::radix_padding::full), "00000000010");
  EXPECT_EQ(flakeid::to_radix62(u64_max, flakeid::radix_padding::full), "LygHa16AHYF");
}

// CosId v1.14.1 release notes (github.com/Ahoo-Wang/CosId/releases/tag/v1.14.1): the
// Radix62CosIdGenerator wrote "0TEXPEbg0001001" for timestamp 1660526325024, machine 1,
// sequence 1; its timestamp part is that number in CosId's radix 62, padded to 8. The digit
// order is 0-9A-Za-z (with 0-9a-zA-Z it would read "0tejpeBG").
TEST(text_test, radix62_matches_cosid_published_value) {
  EXPECT_EQ(flakeid::to_radix62(1660526325024ULL), "TEXPEbg");
  EXPECT_EQ(flakeid::from_radix62("0TEXPEbg"), 1660526325024ULL);
  EXPECT_EQ(flakeid::from_radix62("1"), 1U);  // machine and sequence parts: "0001", "001"
  EXPECT_EQ(flakeid::from_radix62("0001"), 1U);
}

// CosId Radix62IdConverterTest (cosid-core/src/test/.../converter/Radix62IdConverterTest.java):
// these values round-trip, unpadded text is at most 11 characters, padded text exactly 11.
TEST(text_test, radix62_round_trips_cosid_test_values) {
  for (const std::uint64_t id :
       {1ULL, 5ULL, 62ULL, 63ULL, 124ULL, 2147483647ULL, 9223372036854775807ULL}) {
    const std::string plain = flakeid::to_radix62(id);
    const std::string padded = flakeid::to_radix62(id, flakeid::radix_padding::full);
    EXPECT_LE(plain.size(), flakeid::radix62_width);
    EXPECT_EQ(padded.size(), flakeid::radix62_width);
    EXPECT_EQ(flakeid::from_radix62(plain), id);
    EXPECT_EQ(flakeid::from_radix62(padded), id);
  }
}

TEST(text_test, radix62_rejects_bad_text) {
  EXPECT_EQ(id_error([] { return flakeid::from_radix62(""); }),
            "flakeid: radix62 text \"\" is empty; expected 1 to 11 characters of 0-9A-Za-z");
  // CosId's asLongWhenNumberFormat rejects "-1" and "1_" too.
  EXPECT_EQ(id_error([] { return flakeid::from_radix62("-1"); }),
            "flakeid: radix62 text \"-1\" has '-' at index 0; allowed: 0-9A-Za-z");
  EXPECT_EQ(id_error([] { return flakeid::from_radix62("1_"); }),
            "flakeid: radix62 text \"1_\" has '_' at index 1; allowed: 0-9A-Za-z");
  EXPECT_EQ(id_error([] { return flakeid::from_radix62("12 "); }),
            "flakeid: radix62 text \"12 \" has ' ' at index 2; allowed: 0-9A-Za-z");
  EXPECT_EQ(id_error([] { return flakeid::from_radix62("a\nb"s); }),
            "flakeid: radix62 text \"a\\x0ab\" has '\\x0a' at index 1; allowed: 0-9A-Za-z");
  EXPECT_EQ(id_error([] { return flakeid::from_radix62("000000000010"); }),
            "flakeid: radix62 text \"000000000010\" has 12 characters; at most 11 allowed");
  EXPECT_EQ(id_error([] { return flakeid::from_radix62("LygHa16AHYG"); }),
            "flakeid: radix62 text \"LygHa16AHYG\" overflows 64 bits; the largest allowed is "
            "\"LygHa16AHYF\"");
  EXPECT_EQ(id_error([] { return flakeid::from_radix62("zzzzzzzzzzz"); }),
            "flakeid: radix62 text \"zzzzzzzzzzz\" overflows 64 bits; the largest allowed is "
            "\"LygHa16AHYF\"");
}

TEST(text_test, try_parse_gives_nullopt_where_the_parser_throws) {
  EXPECT_EQ(flakeid::try_parse(flakeid::from_radix62, "Czks0tP37X"),
            flakeid::from_radix62("Czks0tP37X"));
  EXPECT_EQ(flakeid::try_parse(flakeid::from_radix62, "1_"), std::nullopt);
  EXPECT_EQ(flakeid::try_parse(flakeid::from_radix62, "LygHa16AHYG"), std::nullopt);
  EXPECT_EQ(flakeid::try_parse(flakeid::from_radix36, "a"), std::nullopt);  // upper case only
  EXPECT_EQ(flakeid::try_parse(flakeid::from_crockford32, "04W86BB0G4007"), 175928847299117063U);
  EXPECT_EQ(flakeid::try_parse(flakeid::from_crockford32, "U"), std::nullopt);
  const auto& d = flakeid::layouts::discord;
  const auto friendly = [&](std::string_view t) { return flakeid::from_friendly(d, t); };
  EXPECT_EQ(flakeid::try_parse(friendly, flakeid::to_friendly(d, 175928847299117063U)),
            175928847299117063U);
  EXPECT_EQ(flakeid::try_parse(friendly, "20160431111825796-1-0-7"), std::nullopt);  // April 31
  // Errors that are not about the text still throw.
  EXPECT_THROW(
      (void)flakeid::try_parse(
          [](std::string_view) -> std::uint64_t { throw std::runtime_error("disk"); }, "1"),
      std::runtime_error);
}

// ---- radix 36 --------------------------------------------------------------------------------

TEST(text_test, radix36_encodes_known_values) {
  EXPECT_EQ(flakeid::to_radix36(0), "0");
  EXPECT_EQ(flakeid::to_radix36(1), "1");
  EXPECT_EQ(flakeid::to_radix36(35), "Z");
  EXPECT_EQ(flakeid::to_radix36(36), "10");
  EXPECT_EQ(flakeid::to_radix36(61), "1P");
  EXPECT_EQ(flakeid::to_radix36(62), "1Q");
  EXPECT_EQ(flakeid::to_radix36(i64_max), "1Y2P0IJ32E8E7");
  EXPECT_EQ(flakeid::to_radix36(u64_max), "3W5E11264SGSF");
  EXPECT_EQ(flakeid::to_radix36(0, flakeid::radix_padding::full), "0000000000000");
  EXPECT_EQ(flakeid::to_radix36(36, flakeid::radix_padding::full), "0000000000010");
}

// CosId v1.14.1 release notes: the Radix36CosIdGenerator wrote "0L6U2PAD600010001" for
// timestamp 1660526664378, machine 1, sequence 1; the timestamp part is "0L6U2PAD6".
TEST(text_test, radix36_matches_cosid_published_value) {
  EXPECT_EQ(flakeid::to_radix36(1660526664378ULL), "L6U2PAD6");
  EXPECT_EQ(flakeid::from_radix36("0L6U2PAD6"), 1660526664378ULL);
}

// CosId Radix36IdConverterTest: the same round-trip values as for radix 62, 13 characters padded.
TEST(text_test, radix36_round_trips_cosid_test_values) {
  for (const std::uint64_t id :
       {1ULL, 5ULL, 62ULL, 63ULL, 124ULL, 2147483647ULL, 9223372036854775807ULL}) {
    const std::string padded = flakeid::to_radix36(id, flakeid::radix_padding::full);
    EXPECT_EQ(padded.size(), flakeid::radix36_width);
    EXPECT_EQ(flakeid::from_radix36(flakeid::to_radix36(id)), id);
    EXPECT_EQ(flakeid::from_radix36(padded), id);
  }
}

TEST(text_test, radix36_rejects_bad_text) {
  EXPECT_EQ(
      id_error([] { return flakeid::from_radix36(""); }),
      "flakeid: radix36 text \"\" is empty; expected 1 to 13 characters of 0-9A-Z (upper case)");
  EXPECT_EQ(id_error([] { return flakeid::from_radix36("1_"); }),
            "flakeid: radix36 text \"1_\" has '_' at index 1; allowed: 0-9A-Z (upper case)");
  EXPECT_EQ(id_error([] { return flakeid::from_radix36("1a"); }),
            "flakeid: radix36 text \"1a\" has 'a' at index 1; allowed: 0-9A-Z (upper case)");
  EXPECT_EQ(id_error([] { return flakeid::from_radix36("00000000000010"); }),
            "flakeid: radix36 text \"00000000000010\" has 14 characters; at most 13 allowed");
  EXPECT_EQ(id_error([] { return flakeid::from_radix36("3W5E11264SGSG"); }),
            "flakeid: radix36 text \"3W5E11264SGSG\" overflows 64 bits; the largest allowed is "
            "\"3W5E11264SGSF\"");
}

// ---- Crockford base32 -----------------------------------------------------------------------

TEST(text_test, crockford32_encodes_known_values) {
  EXPECT_EQ(flakeid::to_crockford32(0), "0000000000000");
  EXPECT_EQ(flakeid::to_crockford32(1), "0000000000001");
  EXPECT_EQ(flakeid::to_crockford32(31), "000000000000Z");
  EXPECT_EQ(flakeid::to_crockford32(32), "0000000000010");
  EXPECT_EQ(flakeid::to_crockford32(61), "000000000001X");
  EXPECT_EQ(flakeid::to_crockford32(62), "000000000001Y");
  EXPECT_EQ(flakeid::to_crockford32(i64_max), "7ZZZZZZZZZZZZ");
  EXPECT_EQ(flakeid::to_crockford32(u64_max), "FZZZZZZZZZZZZ");
  EXPECT_EQ(flakeid::to_crockford32(0x0123456789abcdefULL), "028T5CY4TQKFF");
}

TEST(text_test, crockford32_decodes_any_case_and_substitutions) {
  EXPECT_EQ(flakeid::from_crockford32("028t5cy4tqkff"), 0x0123456789abcdefULL);
  EXPECT_EQ(flakeid::from_crockford32("000000000000o"), 0U);
  EXPECT_EQ(flakeid::from_crockford32("OOOOOOOOOOOOO"), 0U);
  EXPECT_EQ(flakeid::from_crockford32("000000000000I"), 1U);
  EXPECT_EQ(flakeid::from_crockford32("000000000000i"), 1U);
  EXPECT_EQ(flakeid::from_crockford32("000000000000L"), 1U);
  EXPECT_EQ(flakeid::from_crockford32("000000000000l"), 1U);
  EXPECT_EQ(flakeid::from_crockford32("fzzzzzzzzzzzz"), u64_max);
}

TEST(text_test, crockford32_rejects_bad_text) {
  const std::string allowed =
      "; allowed: 0-9A-HJKMNP-TV-Z in either case, O read as 0, I and L as 1";
  EXPECT_EQ(id_error([] { return flakeid::from_crockford32(""); }),
            "flakeid: Crockford base32 text \"\" has 0 characters; exactly 13 are required");
  EXPECT_EQ(
      id_error([] { return flakeid::from_crockford32("000000000001"); }),
      "flakeid: Crockford base32 text \"000000000001\" has 12 characters; exactly 13 are required");
  EXPECT_EQ(id_error([] { return flakeid::from_crockford32("00000000000001"); }),
            "flakeid: Crockford base32 text \"00000000000001\" has 14 characters; exactly 13 are "
            "required");
  EXPECT_EQ(id_error([] { return flakeid::from_crockford32("000000000000U"); }),
            "flakeid: Crockford base32 text \"000000000000U\" has 'U' at index 12" + allowed);
  EXPECT_EQ(id_error([] { return flakeid::from_crockford32("00000u0000000"); }),
            "flakeid: Crockford base32 text \"00000u0000000\" has 'u' at index 5" + allowed);
  EXPECT_EQ(id_error([] { return flakeid::from_crockford32("000000-000000"); }),
            "flakeid: Crockford base32 text \"000000-000000\" has '-' at index 6" + allowed);
  EXPECT_EQ(
      id_error([] { return flakeid::from_crockford32("G000000000000"); }),
      "flakeid: Crockford base32 text \"G000000000000\" overflows 64 bits: its first character "
      "'G' must be 0-9 or A-F; the largest allowed is \"FZZZZZZZZZZZZ\"");
  EXPECT_EQ(
      id_error([] { return flakeid::from_crockford32("z000000000000"); }),
      "flakeid: Crockford base32 text \"z000000000000\" overflows 64 bits: its first character "
      "'z' must be 0-9 or A-F; the largest allowed is \"FZZZZZZZZZZZZ\"");
}

// ---- properties over random IDs ---------------------------------------------------------------

TEST(text_test, every_form_round_trips_random_ids) {
  std::mt19937_64 rng(20240917);
  for (int i = 0; i < 20000; ++i) {
    // Mix full-range IDs with small ones so short texts are covered too.
    const std::uint64_t id = rng() >> (rng() % 64);
    ASSERT_EQ(flakeid::from_radix62(flakeid::to_radix62(id)), id);
    ASSERT_EQ(flakeid::from_radix62(flakeid::to_radix62(id, flakeid::radix_padding::full)), id);
    ASSERT_EQ(flakeid::from_radix36(flakeid::to_radix36(id)), id);
    ASSERT_EQ(flakeid::from_radix36(flakeid::to_radix36(id, flakeid::radix_padding::full)), id);
    ASSERT_EQ(flakeid::from_crockford32(flakeid::to_crockford32(id)), id);
  }
}

TEST(text_test, crockford32_text_order_is_numeric_order) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t a = rng() >> (rng() % 64);
    const std::uint64_t b = i % 7 == 0 ? a + 1 : rng() >> (rng() % 64);
    const std::string ta = flakeid::to_crockford32(a);
    const std::string tb = flakeid::to_crockford32(b);
    ASSERT_EQ(a < b, ta < tb) << a << " " << b;
    ASSERT_EQ(a == b, ta == tb) << a << " " << b;
  }
}

// CosId's digit order is also ASCII order, so padded radix text sorts like the numbers.
TEST(text_test, padded_radix_text_order_is_numeric_order) {
  std::mt19937_64 rng(7);
  constexpr auto full = flakeid::radix_padding::full;
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t a = rng() >> (rng() % 64);
    const std::uint64_t b = rng() >> (rng() % 64);
    ASSERT_EQ(a < b, flakeid::to_radix62(a, full) < flakeid::to_radix62(b, full));
    ASSERT_EQ(a < b, flakeid::to_radix36(a, full) < flakeid::to_radix36(b, full));
  }
}

// ---- buffers -----------------------------------------------------------------------------------

TEST(text_test, buffer_encoders_report_a_short_buffer_and_write_nothing) {
  std::array<char, 16> buf{};
  buf.fill('#');
  auto r = flakeid::to_radix62(buf.data(), buf.data() + 1, 62);
  EXPECT_EQ(r.ec, std::errc::value_too_large);
  EXPECT_EQ(r.ptr, buf.data() + 1);
  EXPECT_EQ(buf[0], '#');
  r = flakeid::to_radix62(buf.data(), buf.data() + 2, 62);
  EXPECT_EQ(r.ec, std::errc{});
  EXPECT_EQ(std::string_view(buf.data(), 2), "10");
  r = flakeid::to_radix36(buf.data(), buf.data() + 12, 0, flakeid::radix_padding::full);
  EXPECT_EQ(r.ec, std::errc::value_too_large);
  r = flakeid::to_crockford32(buf.data(), buf.data() + 12, 0);
  EXPECT_EQ(r.ec, std::errc::value_too_large);
  r = flakeid::to_crockford32(buf.data(), buf.data() + buf.size(), 0);
  EXPECT_EQ(r.ec, std::errc{});
  EXPECT_EQ(r.ptr, buf.data() + 13);
  buf.fill('#');
  r = flakeid::to_friendly(buf.data(), buf.data() + buf.size(), flakeid::layouts::cosid,
                           295913926632165376ULL, hours{8});
  EXPECT_EQ(r.ec, std::errc::value_too_large);
  EXPECT_EQ(buf[0], '#');
  std::array<char, flakeid::friendly_max_size> big{};
  r = flakeid::to_friendly(big.data(), big.data() + big.size(), flakeid::layouts::cosid,
                           295913926632165376ULL, hours{8});
  EXPECT_EQ(r.ec, std::errc{});
  EXPECT_EQ(std::string_view(big.data(), static_cast<std::size_t>(r.ptr - big.data())),
            "20220320133617924-5-0");
}

// ---- friendly form ----------------------------------------------------------------------------

// CosId SnowflakeFriendlyIdConverterTest: 295913926632165376 under the CosId millisecond layout
// at Asia/Shanghai (UTC+8) reads "20220320133617924-5-0".
TEST(text_test, friendly_matches_cosid_published_value) {
  const auto& l = flakeid::layouts::cosid;
  EXPECT_EQ(flakeid::to_friendly(l, 295913926632165376ULL, hours{8}), "20220320133617924-5-0");
  EXPECT_EQ(flakeid::from_friendly(l, "20220320133617924-5-0", hours{8}), 295913926632165376ULL);
  EXPECT_EQ(flakeid::to_friendly(l, 295913926632165376ULL), "20220320053617924-5-0");
  EXPECT_EQ(flakeid::from_friendly(l, "20220320053617924-5-0"), 295913926632165376ULL);
}

// Discord docs, Reference > "Snowflakes": 175928847299117063 is 2016-04-30 11:18:25.796 UTC,
// worker 1, process (held as datacenter) 0, increment 7. The datacenter comes before the worker.
TEST(text_test, friendly_puts_datacenter_before_worker_and_gene_last) {
  EXPECT_EQ(flakeid::to_friendly(flakeid::layouts::discord, 175928847299117063ULL),
            "20160430111825796-0-1-7");
  const auto& g = flakeid::layouts::seed_gene;
  const std::uint64_t id =
      g.compose({.ticks = 1000, .datacenter = 3, .worker = 4, .sequence = 5, .gene = 6});
  EXPECT_EQ(flakeid::to_friendly(g, id), "20240824131605000-3-4-5-6");
  EXPECT_EQ(flakeid::from_friendly(g, "20240824131605000-3-4-5-6"), id);
  const auto& m = flakeid::layouts::mastodon;
  EXPECT_EQ(flakeid::to_friendly(m, m.compose({.ticks = 1000, .sequence = 2})),
            "19700101000001000-2");
}

TEST(text_test, friendly_uses_seconds_for_second_ticks) {
  const auto& l = flakeid::layouts::cosid_seconds;
  const std::uint64_t id = l.compose(
      {.timestamp = sys_time<milliseconds>{sys_days{2022y / March / 20} + 5h + 36min + 17s},
       .worker = 5,
       .sequence = 9});
  EXPECT_EQ(flakeid::to_friendly(l, id), "20220320053617-5-9");
  EXPECT_EQ(flakeid::to_friendly(l, id, hours{8}), "20220320133617-5-9");
  EXPECT_EQ(flakeid::from_friendly(l, "20220320133617-5-9", hours{8}), id);
}

// A layout with second ticks whose epoch is not on a whole second: its IDs' times carry
// milliseconds, so its friendly form keeps them (dropping them lost the tick on the way back).
TEST(text_test, friendly_keeps_milliseconds_when_the_epoch_has_them) {
  const flakeid::layout l =
      flakeid::parse_layout("ts:31,worker:10,seq:22;epoch=1577203200500;tick=1s");
  const std::uint64_t first = l.compose({.ticks = 0, .worker = 1, .sequence = 2});
  EXPECT_EQ(flakeid::to_friendly(l, first), "20191224160000500-1-2");
  EXPECT_EQ(flakeid::from_friendly(l, "20191224160000500-1-2"), first);
  const std::uint64_t later = l.compose({.ticks = 1000, .worker = 1, .sequence = 2});
  EXPECT_EQ(flakeid::to_friendly(l, later, hours{8}), "20191225001640500-1-2");
  EXPECT_EQ(flakeid::from_friendly(l, "20191225001640500-1-2", hours{8}), later);
  EXPECT_EQ(flakeid::from_friendly(l, "20191224161640999-1-2"), later);  // floored to the tick
}

TEST(text_test, friendly_floors_a_time_inside_a_tick) {
  const auto& l = flakeid::layouts::sonyflake;  // 10 ms ticks
  const std::uint64_t id = flakeid::from_friendly(l, "20240101000000125-7-3");
  EXPECT_EQ(flakeid::to_friendly(l, id), "20240101000000120-7-3");
  EXPECT_EQ(flakeid::from_friendly(l, "20240101000000120-0007-03"), id);
}

TEST(text_test, friendly_round_trips_random_ids_of_every_preset) {
  std::mt19937_64 rng(1234);
  const flakeid::layout* presets[] = {
      &flakeid::layouts::twitter,       &flakeid::layouts::discord,   &flakeid::layouts::sonyflake,
      &flakeid::layouts::sonyflake_v2,  &flakeid::layouts::instagram, &flakeid::layouts::cosid,
      &flakeid::layouts::cosid_seconds, &flakeid::layouts::cosid_js,  &flakeid::layouts::baidu,
      &flakeid::layouts::seed_classic,  &flakeid::layouts::seed_gene};
  const minutes offsets[] = {minutes{0}, hours{8}, -hours{5} - minutes{30}, hours{18}, -hours{18}};
  for (const flakeid::layout* l : presets) {
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t id = rng() & l->max_id();
      const minutes offset = offsets[static_cast<std::size_t>(i) % std::size(offsets)];
      const std::string text = flakeid::to_friendly(*l, id, offset);
      ASSERT_EQ(flakeid::from_friendly(*l, text, offset), id) << text;
    }
  }
}

// Mastodon's 48 bits of Unix ms run past the year 9999, which the friendly form cannot write.
TEST(text_test, friendly_round_trips_mastodon_up_to_year_9999) {
  const auto& m = flakeid::layouts::mastodon;
  std::mt19937_64 rng(99);
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t ticks = rng() % 253402300800000ULL;
    const std::uint64_t id = m.compose({.ticks = ticks, .sequence = rng() & 0xffff});
    ASSERT_EQ(flakeid::from_friendly(m, flakeid::to_friendly(m, id)), id);
  }
  const std::uint64_t last = m.compose({.ticks = 253402300799999ULL});
  EXPECT_EQ(flakeid::to_friendly(m, last), "99991231235959999-0");
  EXPECT_EQ(any_error([&] { return flakeid::to_friendly(m, last, minutes{1}); }),
            "flakeid: time 9999-12-31T23:59:59.999Z at UTC offset +1 min does not fit the friendly "
            "form's years 0000 to 9999");
  EXPECT_THROW((void)flakeid::to_friendly(m, m.max_id()), flakeid::timestamp_overflow_error);
}

TEST(text_test, friendly_rejects_bad_text) {
  const auto& l = flakeid::layouts::cosid;
  const auto from = [&](std::string_view t) {
    return id_error([&] { return flakeid::from_friendly(l, t, hours{8}); });
  };
  // The four rejections of CosId's SnowflakeFriendlyIdConverterTest.
  EXPECT_EQ(
      from("20191224235959999-5-0"),
      "flakeid: friendly ID \"20191224235959999-5-0\" has time 2019-12-24T15:59:59.999Z, outside "
      "the layout's range [2019-12-24T16:00:00.000Z, 2089-08-30T07:47:35.551Z]");
  EXPECT_EQ(
      from("99991231235959999-5-0"),
      "flakeid: friendly ID \"99991231235959999-5-0\" has time 9999-12-31T15:59:59.999Z, outside "
      "the layout's range [2019-12-24T16:00:00.000Z, 2089-08-30T07:47:35.551Z]");
  EXPECT_EQ(from("20220320133617924-1024-0"),
            "flakeid: friendly ID \"20220320133617924-1024-0\" has worker 1024 at index 18; "
            "allowed [0, 1023]");
  EXPECT_EQ(
      from("20220320133617924-5-4096"),
      "flakeid: friendly ID \"20220320133617924-5-4096\" has sequence 4096 at index 20; allowed "
      "[0, 4095]");
  EXPECT_EQ(from("20220320133617924-5-99999999999999999999"),
            "flakeid: friendly ID \"20220320133617924-5-99999999999999999999\" has sequence "
            "99999999999999999999 at index 20; allowed [0, 4095]");
  EXPECT_EQ(from(""),
            "flakeid: friendly ID \"\" must start with 17 digits yyyyMMddHHmmssSSS; got \"\" (this "
            "layout's form is yyyyMMddHHmmssSSS-worker-sequence)");
  EXPECT_EQ(
      from("2022032013361792-5-0"),
      "flakeid: friendly ID \"2022032013361792-5-0\" must start with 17 digits yyyyMMddHHmmssSSS; "
      "got \"2022032013361792\" (this layout's form is yyyyMMddHHmmssSSS-worker-sequence)");
  EXPECT_EQ(
      from("2022032013361792x-5-0"),
      "flakeid: friendly ID \"2022032013361792x-5-0\" must start with 17 digits yyyyMMddHHmmssSSS; "
      "got \"2022032013361792x\" (this layout's form is yyyyMMddHHmmssSSS-worker-sequence)");
  EXPECT_EQ(from("20221320133617924-5-0"),
            "flakeid: friendly ID \"20221320133617924-5-0\" has an impossible time "
            "\"20221320133617924\": month 13 is outside [1, 12]");
  EXPECT_EQ(from("20230229133617924-5-0"),
            "flakeid: friendly ID \"20230229133617924-5-0\" has an impossible time "
            "\"20230229133617924\": day 29 is outside [1, 28]");
  EXPECT_EQ(from("20220320243617924-5-0"),
            "flakeid: friendly ID \"20220320243617924-5-0\" has an impossible time "
            "\"20220320243617924\": hour 24 is outside [0, 23]");
  EXPECT_EQ(from("20220320136017924-5-0"),
            "flakeid: friendly ID \"20220320136017924-5-0\" has an impossible time "
            "\"20220320136017924\": minute 60 is outside [0, 59]");
  EXPECT_EQ(from("20220320133660924-5-0"),
            "flakeid: friendly ID \"20220320133660924-5-0\" has an impossible time "
            "\"20220320133660924\": second 60 is outside [0, 59]");
  EXPECT_EQ(
      from("20220320133617924-5"),
      "flakeid: friendly ID \"20220320133617924-5\" has 1 number after the time; this layout's "
      "form is yyyyMMddHHmmssSSS-worker-sequence");
  EXPECT_EQ(from("20220320133617924-1-5-0"),
            "flakeid: friendly ID \"20220320133617924-1-5-0\" has 3 numbers after the time; this "
            "layout's form is yyyyMMddHHmmssSSS-worker-sequence");
  EXPECT_EQ(
      from("20220320133617924-5-"),
      "flakeid: friendly ID \"20220320133617924-5-\" has \"\" at index 20 where the sequence goes; "
      "expected decimal digits");
  EXPECT_EQ(
      from("20220320133617924-+5-0"),
      "flakeid: friendly ID \"20220320133617924-+5-0\" has \"+5\" at index 18 where the worker "
      "goes; expected decimal digits");
  EXPECT_EQ(
      from("20220320133617924- 5-0"),
      "flakeid: friendly ID \"20220320133617924- 5-0\" has \" 5\" at index 18 where the worker "
      "goes; expected decimal digits");
}

TEST(text_test, friendly_rejects_bad_offsets_and_reserved_bits) {
  const auto& l = flakeid::layouts::cosid;
  try {
    (void)flakeid::to_friendly(l, 1, hours{19});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "flakeid: UTC offset 1140 min is outside [-1080, 1080] min");
  }
  EXPECT_THROW((void)flakeid::from_friendly(l, "20220320133617924-5-0", -hours{19}),
               std::invalid_argument);
  EXPECT_EQ(id_error([&] { return flakeid::to_friendly(l, 1ULL << 63); }),
            "flakeid: ID 9223372036854775808 sets reserved bits (mask 9223372036854775808); this "
            "layout keeps them 0");
}

// ---- JavaScript ---------------------------------------------------------------------------------

TEST(text_test, javascript_safety_stops_at_2_pow_53) {
  EXPECT_TRUE(flakeid::is_javascript_safe(0));
  EXPECT_TRUE(flakeid::is_javascript_safe((1ULL << 53) - 1));
  EXPECT_FALSE(flakeid::is_javascript_safe(1ULL << 53));
  EXPECT_FALSE(flakeid::is_javascript_safe(u64_max));
  EXPECT_TRUE(flakeid::is_javascript_safe(flakeid::layouts::cosid_js.max_id()));
}

}  // namespace
