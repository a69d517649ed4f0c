// text_converter: IDs as CosId's converters write them (a number form, padding, width, prefix
// and suffix), with the values CosId's own tests and docs give, and back.
#include <flakeid/text_converter.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "adapters/expect_error.hpp"

namespace {

using flakeid::text_converter;
using flakeid::text_form;
using flakeid_test::expect_error;

TEST(text_converter_test, defaults_are_cosids_padded_radix62) {
  const text_converter c;
  EXPECT_EQ(c.options().form, text_form::radix62);
  EXPECT_EQ(c.options().width, 11U);
  EXPECT_TRUE(*c.options().pad);
  EXPECT_EQ(c.max_id(), UINT64_MAX);
  EXPECT_EQ(c.to_text(62), "00000000010");
  EXPECT_EQ(c.to_text(839'299'365'868'340'224ULL), "10000000000") << "62^10";
  EXPECT_EQ(c.from_text("00000000010"), 62U);
  EXPECT_EQ(c.from_text("10"), 62U) << "unpadded text is read too";
}

TEST(text_converter_test, cosid_examples) {
  // CosId's ToStringIdConverter(padStart true, charSize 5): 1 -> "00001".
  const text_converter padded{{.form = text_form::decimal, .pad = true, .width = 5}};
  EXPECT_EQ(padded.to_text(1), "00001");
  EXPECT_EQ(padded.from_text("00001"), 1U);
  // Its PrefixIdConverter "prefix_" over ToString: 42 <-> "prefix_42"; docs: "no_" and 1 -> "no_1".
  const text_converter prefixed{{.form = text_form::decimal, .prefix = "prefix_"}};
  EXPECT_EQ(prefixed.to_text(42), "prefix_42");
  EXPECT_EQ(prefixed.from_text("prefix_42"), 42U);
  EXPECT_EQ(text_converter({.form = text_form::decimal, .prefix = "no_"}).to_text(1), "no_1");
  // The decimal form is not padded unless asked, whatever its width (CosId's to-string default).
  const text_converter plain{{.form = text_form::decimal}};
  EXPECT_FALSE(*plain.options().pad);
  EXPECT_EQ(plain.options().width, 11U);
  EXPECT_EQ(plain.to_text(123), "123");
  // Radix 36, padded to 13 by default.
  const text_converter r36{{.form = text_form::radix36}};
  EXPECT_EQ(r36.to_text(36), "0000000000010");
  EXPECT_EQ(r36.to_text(UINT64_MAX), "3W5E11264SGSF");
}

TEST(text_converter_test, order_numbers_with_prefix_padding_and_suffix) {
  const text_converter orders{
      {.form = text_form::decimal, .pad = true, .width = 7, .prefix = "ORD-", .suffix = "-X"}};
  EXPECT_EQ(orders.to_text(123), "ORD-0000123-X");
  EXPECT_EQ(orders.from_text("ORD-0000123-X"), 123U);
  EXPECT_EQ(orders.from_text("ORD-123-X"), 123U);
  EXPECT_EQ(orders.to_text(123'456'789), "ORD-123456789-X") << "decimal is never cut";
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)orders.from_text("INV-0000123-X"); },
      "flakeid: text \"INV-0000123-X\" does not start with the prefix \"ORD-\"");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)orders.from_text("ORD-0000123"); },
      "flakeid: text \"ORD-0000123\" does not end with the suffix \"-X\"");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)orders.from_text("ORD--X"); },
      "flakeid: text \"ORD--X\" has no number between its prefix and suffix");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)orders.from_text("ORD-12a4-X"); },
      "flakeid: text \"ORD-12a4-X\" has 'a' in its number at index 2; allowed: 0-9");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)orders.from_text("ORD-18446744073709551616-X"); },
      "flakeid: text \"ORD-18446744073709551616-X\" overflows 64 bits");
  EXPECT_EQ(orders.from_text("ORD-18446744073709551615-X"), UINT64_MAX);
}

TEST(text_converter_test, a_narrow_radix_holds_ids_up_to_radix_to_the_width_less_one) {
  const text_converter two{{.form = text_form::radix62, .pad = false, .width = 2}};
  EXPECT_EQ(two.max_id(), 3843U);
  EXPECT_EQ(two.to_text(61), "z");
  EXPECT_EQ(two.to_text(3843), "zz");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)two.to_text(3844); },
      "flakeid: ID 3844 does not fit 2 radix62 characters; at most 3843");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)two.from_text("100"); },
      "flakeid: text \"100\" has 3 radix62 characters; at most 2 allowed");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)two.from_text("1_"); },
      "flakeid: text \"1_\": radix62 text \"1_\" has '_' at index 1; allowed: 0-9A-Za-z");
  // An empty number is named as such, not measured against the form's full width.
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)two.from_text(""); },
      "flakeid: text \"\" has no number between its prefix and suffix");
  const text_converter padded{{.form = text_form::radix62, .width = 2}};
  EXPECT_EQ(padded.to_text(61), "0z");
  const text_converter r36{{.form = text_form::radix36, .width = 3, .prefix = "T"}};
  EXPECT_EQ(r36.max_id(), 46'655U);
  EXPECT_EQ(r36.to_text(46'655), "TZZZ");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)r36.from_text("Tzz"); },
      "flakeid: text \"Tzz\": radix36 text \"zz\" has 'z' at index 0; allowed: 0-9A-Z (upper "
      "case)");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)r36.from_text("T"); },
      "flakeid: text \"T\" has no number between its prefix and suffix");
  const text_converter b32{{.form = text_form::base32, .prefix = "B-"}};
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)b32.from_text("B-"); },
      "flakeid: text \"B-\" has no number between its prefix and suffix");
}

TEST(text_converter_test, a_width_past_the_form_is_refused) {
  const auto option_error = [](flakeid::text_converter_options o) -> std::string {
    try {
      text_converter c{o};
    } catch (const flakeid::invalid_option_error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(option_error({.form = text_form::radix62, .width = 12}),
            "flakeid: text converter width 12 is out of range [1, 11] for radix62");
  EXPECT_EQ(option_error({.form = text_form::radix36, .width = 14}),
            "flakeid: text converter width 14 is out of range [1, 13] for radix36");
  EXPECT_EQ(option_error({.form = text_form::decimal, .width = 21}),
            "flakeid: text converter width 21 is out of range [1, 20] for decimal");
  EXPECT_EQ(option_error({.form = text_form::decimal, .width = 20}), "no error");
}

TEST(text_converter_test, every_form_reads_back_what_it_writes) {
  std::mt19937_64 rng(2026);
  const text_converter converters[] = {
      text_converter{},
      text_converter{{.pad = false, .prefix = "a", .suffix = "z"}},
      text_converter{{.form = text_form::radix36, .pad = false}},
      text_converter{{.form = text_form::radix36, .prefix = "O-", .suffix = "-9"}},
      text_converter{{.form = text_form::decimal, .pad = true, .width = 20, .prefix = "0"}},
      text_converter{{.form = text_form::decimal, .suffix = "1"}},
      text_converter{{.form = text_form::base32, .prefix = "B"}},
  };
  for (const text_converter& c : converters) {
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t id = rng() >> (rng() % 64);
      ASSERT_EQ(c.from_text(c.to_text(id)), id) << c.to_text(id);
    }
  }
}

TEST(text_converter_test, base32_and_friendly_forms) {
  // Crockford base 32, 13 characters, between the prefix and the suffix.
  const text_converter b32{{.form = text_form::base32, .prefix = "T-"}};
  EXPECT_EQ(b32.to_text(32), "T-0000000000010");
  EXPECT_EQ(b32.from_text("T-0000000000010"), 32U);
  EXPECT_EQ(b32.from_text("T-000000000001o"), 32U);  // O read as 0, in either case
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)b32.from_text("T-0000000000U10"); },
      "flakeid: text \"T-0000000000U10\": Crockford base32 text \"0000000000U10\" has 'U' at "
      "index 10; allowed: 0-9A-HJKMNP-TV-Z in either case, O read as 0, I and L as 1");
  // CosId's friendly form of its documented ID 295913926632165376, at UTC+8.
  const text_converter friendly{{.form = text_form::friendly,
                                 .prefix = "F",
                                 .layout = flakeid::layouts::cosid,
                                 .utc_offset = std::chrono::hours{8}}};
  EXPECT_EQ(friendly.to_text(295913926632165376), "F20220320133617924-5-0");
  EXPECT_EQ(friendly.from_text("F20220320133617924-5-0"), 295913926632165376U);
  EXPECT_EQ(text_converter({.form = text_form::friendly, .layout = flakeid::layouts::cosid})
                .to_text(295913926632165376),
            "20220320053617924-5-0");
  expect_error<flakeid::invalid_option_error>(
      [] { (void)text_converter({.form = text_form::friendly}); },
      "flakeid: the friendly text form needs the IDs' layout (text_converter_options::layout)");
  expect_error<flakeid::invalid_option_error>(
      [] { (void)text_converter({.form = text_form::base32, .width = 5}); },
      "flakeid: the base32 text form has a width of its own: give no width or pad");
}

}  // namespace
