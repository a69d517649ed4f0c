// The JSON a registry configuration is written in: what it reads (values, escapes, numbers as
// written, keys in their order) and every way text fails to be JSON, with its exact byte and
// reason. (How the registry reports such text: registry_test.cpp.)
#include <gtest/gtest.h>
#include <flakeid/registry/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using flakeid::detail::json_parse_error;
using flakeid::detail::json_value;

// The byte and reason of the error `text` raises ("" and 0 when it parses).
std::pair<std::size_t, std::string> error_of(const std::string& text) {
  try {
    (void)json_value::parse(text);
  } catch (const json_parse_error& e) {
    EXPECT_EQ(std::string(e.what()),
              e.reason() + std::string(" at byte ") + std::to_string(e.byte()));
    return {e.byte(), e.reason()};
  }
  return {0, ""};
}

TEST(registry_json_test, reads_every_kind_of_value_with_keys_in_the_order_written) {
  const json_value v =
      json_value::parse(" {\"z\": null, \"a\": [true, false, 12, \"s\"], \"m\": {}, \"e\": []}\n");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.keys(), (std::vector<std::string>{"z", "a", "m", "e"}));
  EXPECT_EQ(v.find("z")->type(), json_value::kind::null);
  const json_value& a = *v.find("a");
  EXPECT_STREQ(a.type_name(), "array");
  ASSERT_EQ(a.values().size(), 4U);
  EXPECT_TRUE(a.values()[0].is_boolean());
  EXPECT_TRUE(a.values()[0].boolean());
  EXPECT_FALSE(a.values()[1].boolean());
  EXPECT_EQ(a.values()[2].whole<std::uint64_t>(), 12U);
  EXPECT_EQ(a.values()[3].text(), "s");
  EXPECT_STREQ(v.find("m")->type_name(), "object");
  EXPECT_EQ(v.find("nope"), nullptr);
  EXPECT_EQ(v.dump(), R"({"z":null,"a":[true,false,12,"s"],"m":{},"e":[]})");
}

TEST(registry_json_test, resolves_escapes_and_writes_them_back) {
  const json_value v =
      json_value::parse(R"("q\" b\\ s\/ \b\f\n\r\t \u00e9 \u20ac \ud83d\ude00 \u0001")");
  EXPECT_EQ(v.text(), "q\" b\\ s/ \b\f\n\r\t \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \x01");
  EXPECT_EQ(v.dump(),
            "\"q\\\" b\\\\ s/ \\u0008\\u000c\\n\\r\\t \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 "
            "\\u0001\"");
  EXPECT_EQ(json_value::parse(v.dump()).text(), v.text());
}

TEST(registry_json_test, keeps_numbers_as_written_and_reads_whole_ones_that_fit) {
  const auto whole_u = [](const char* t) { return json_value::parse(t).whole<std::uint64_t>(); };
  const auto whole_i = [](const char* t) { return json_value::parse(t).whole<std::int64_t>(); };
  EXPECT_EQ(whole_u("0"), 0U);
  EXPECT_EQ(whole_u("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(whole_u("18446744073709551616"), std::nullopt);
  EXPECT_EQ(whole_u("-1"), std::nullopt);
  EXPECT_EQ(whole_i("-1"), -1);
  EXPECT_EQ(whole_i("-0"), 0);
  EXPECT_EQ(whole_i("-9223372036854775809"), std::nullopt);
  EXPECT_EQ(whole_u("1.0"), std::nullopt);
  EXPECT_EQ(whole_u("1e3"), std::nullopt);
  EXPECT_EQ(json_value::parse("\"7\"").whole<std::uint64_t>(), std::nullopt);
  EXPECT_EQ(json_value::parse(" -12.5e+3 ").dump(), "-12.5e+3");
  EXPECT_EQ(json_value::parse("1E-2").dump(), "1E-2");
}

TEST(registry_json_test, names_the_byte_and_the_reason_where_text_stops_being_json) {
  struct bad {
    std::string text;
    std::size_t byte;
    std::string reason;
  };
  const std::vector<bad> cases = {
      {"", 1, "the text ends where a value should be"},
      {"  ", 3, "the text ends where a value should be"},
      {R"({"a":1,})", 8, "a key (a string) expected"},
      {"[1,]", 4, "not a value"},
      {R"({"a":1,"a":2})", 10, "a key given twice in one object"},
      {R"({"a" 1})", 6, "':' expected after a key"},
      {R"({"a":1 "b":2})", 8, "',' or '}' expected"},
      {"[1 2]", 4, "',' or ']' expected"},
      {"{a:1}", 2, "a key (a string) expected"},
      {"// note\n{}", 1, "not a value"},
      {"{} x", 4, "text after the value"},
      {"01", 2, "text after the value"},
      {"-", 2, "not a value"},
      {"+1", 1, "not a value"},
      {"1.", 3, "a digit expected"},
      {"1e", 3, "a digit expected"},
      {"tru", 1, "not a value"},
      {"nul", 1, "not a value"},
      {"\"a\tb\"", 3, "a control character inside a string"},
      {"\"abc", 5, "the text ends inside a string"},
      {R"("\x")", 3, R"(not an escape (\" \\ \/ \b \f \n \r \t \uXXXX))"},
      {R"("\u12g4")", 6, "four hex digits expected after \\u"},
      {R"("\ud800")", 8, "a high surrogate without its low half"},
      {R"("\ud800\u0041")", 14, "a high surrogate without its low half"},
      {R"("\udc00")", 8, "a lone low surrogate"},
  };
  for (const bad& c : cases)
    EXPECT_EQ(error_of(c.text), std::make_pair(c.byte, c.reason)) << c.text;
}

TEST(registry_json_test, refuses_nesting_past_its_depth_without_running_out_of_stack) {
  const auto nested = [](std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  EXPECT_EQ(error_of(nested(json_value::max_depth)), std::make_pair(std::size_t{0}, std::string()));
  EXPECT_EQ(error_of(nested(json_value::max_depth + 1)),
            std::make_pair(std::size_t{json_value::max_depth + 1},
                           std::string("arrays and objects nested too deep")));
  EXPECT_EQ(error_of(std::string(1'000'000, '[')).second, "arrays and objects nested too deep");
}

}  // namespace
