// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file registry/json.hpp
/// The JSON a registry configuration is written in (RFC 8259), read into `detail::json_value`:
/// a small tree of null, booleans, numbers (kept as written), strings, arrays and objects (in
/// the order written). Strict: a key given twice, a trailing comma, a comment, a control
/// character inside a string or text after the value is an error at the byte where it is met,
/// and the error never quotes the text (a configuration may hold a password). Nesting deeper
/// than `json_value::max_depth` is refused, so no input can exhaust the stack. Bytes from 0x80
/// up are taken as they are (a string's UTF-8 is not checked).

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// Text that is not JSON: `byte` is the 1-based position of the first byte that does not fit.
class json_parse_error : public std::runtime_error {
 public:
  json_parse_error(std::size_t byte, const char* reason)
      : std::runtime_error(std::string(reason) + " at byte " + std::to_string(byte)),
        byte_(byte),
        reason_(reason) {}
  [[nodiscard]] std::size_t byte() const noexcept { return byte_; }
  [[nodiscard]] const char* reason() const noexcept { return reason_; }

 private:
  std::size_t byte_;
  const char* reason_;
};

/// Appends `s` as a JSON string (quotes, `\"`, `\\` and control characters escaped).
inline void append_json_string(std::string& out, std::string_view s) {
  constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += ch;
    }
  }
  out += '"';
}

/// One JSON value and everything inside it.
class json_value {
 public:
  enum class kind : std::uint8_t { null, boolean, number, string, array, object };
  /// Arrays and objects nested deeper than this are refused.
  static constexpr int max_depth = 64;

  /// The value of the JSON text `text`; throws `json_parse_error`.
  [[nodiscard]] static json_value parse(std::string_view text) {
    parser p{text};
    p.skip_space();
    json_value v = p.value(0);
    p.skip_space();
    if (p.i != text.size()) p.fail("text after the value");
    return v;
  }

  [[nodiscard]] kind type() const noexcept { return kind_; }
  /// "null", "boolean", "number", "string", "array" or "object", for messages.
  [[nodiscard]] const char* type_name() const noexcept {
    constexpr const char* names[] = {"null", "boolean", "number", "string", "array", "object"};
    return names[static_cast<int>(kind_)];
  }
  [[nodiscard]] bool is_object() const noexcept { return kind_ == kind::object; }
  [[nodiscard]] bool is_string() const noexcept { return kind_ == kind::string; }
  [[nodiscard]] bool is_boolean() const noexcept { return kind_ == kind::boolean; }

  /// A string's text; any other value but an array or object as written (`12`, `true`, `null`).
  [[nodiscard]] const std::string& text() const noexcept { return text_; }
  /// Whether the value is the boolean `true`.
  [[nodiscard]] bool boolean() const noexcept { return kind_ == kind::boolean && text_ == "true"; }
  /// A number written without fraction or exponent that fits `T`; otherwise nothing.
  template <class T>
  [[nodiscard]] std::optional<T> whole() const noexcept {
    if (kind_ != kind::number || text_.find_first_of(".eE") != std::string::npos) return {};
    T v{};
    const auto [end, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), v);
    if (ec != std::errc{} || end != text_.data() + text_.size()) return {};
    return v;
  }

  /// An object's keys, in the order written, and its values or an array's elements.
  [[nodiscard]] const std::vector<std::string>& keys() const noexcept { return keys_; }
  [[nodiscard]] const std::vector<json_value>& values() const noexcept { return values_; }
  /// An object's member `key`, or null.
  [[nodiscard]] const json_value* find(std::string_view key) const noexcept {
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] == key) return &values_[i];
    return nullptr;
  }

  /// The value as compact JSON text (a number as it was written).
  [[nodiscard]] std::string dump() const {
    std::string out;
    dump_to(out);
    return out;
  }

 private:
  void dump_to(std::string& out) const {
    switch (kind_) {
      case kind::string: append_json_string(out, text_); return;
      case kind::array:
      case kind::object: {
        const bool object = kind_ == kind::object;
        out += object ? '{' : '[';
        for (std::size_t i = 0; i < values_.size(); ++i) {
          if (i != 0) out += ',';
          if (object) {
            append_json_string(out, keys_[i]);
            out += ':';
          }
          values_[i].dump_to(out);
        }
        out += object ? '}' : ']';
        return;
      }
      default: out += text_;
    }
  }

  struct parser {
    std::string_view s;
    std::size_t i = 0;

    [[noreturn]] void fail(const char* reason) const { throw json_parse_error(i + 1, reason); }
    [[nodiscard]] bool at_end() const noexcept { return i >= s.size(); }
    void skip_space() noexcept {
      while (!at_end() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    }
    void expect(char c, const char* reason) {
      if (at_end() || s[i] != c) fail(reason);
      ++i;
    }

    json_value value(int depth) {
      if (at_end()) fail("the text ends where a value should be");
      json_value v;
      switch (s[i]) {
        case '{':
        case '[':
          if (depth == max_depth) fail("arrays and objects nested too deep");
          container(v, depth + 1);
          return v;
        case '"':
          v.kind_ = kind::string;
          v.text_ = string();
          return v;
        case 't':
        case 'f':
        case 'n': {
          const std::string_view word = s[i] == 't' ? "true" : s[i] == 'f' ? "false" : "null";
          if (s.substr(i, word.size()) != word) fail("not a value");
          v.kind_ = word == "null" ? kind::null : kind::boolean;
          v.text_ = word;
          i += word.size();
          return v;
        }
        default:
          v.kind_ = kind::number;
          v.text_ = number();
          return v;
      }
    }

    void container(json_value& v, int depth) {
      const bool object = s[i] == '{';
      const char close = object ? '}' : ']';
      v.kind_ = object ? kind::object : kind::array;
      v.text_.clear();
      ++i;
      skip_space();
      if (!at_end() && s[i] == close) {
        ++i;
        return;
      }
      for (;;) {
        skip_space();
        if (object) {
          if (at_end() || s[i] != '"') fail("a key (a string) expected");
          std::string key = string();
          if (v.find(key) != nullptr) {
            i -= 1;  // the error points at the key's closing quote
            fail("a key given twice in one object");
          }
          v.keys_.push_back(std::move(key));
          skip_space();
          expect(':', "':' expected after a key");
          skip_space();
        }
        v.values_.push_back(value(depth));
        skip_space();
        if (!at_end() && s[i] == ',') {
          ++i;
          continue;
        }
        expect(close, object ? "',' or '}' expected" : "',' or ']' expected");
        return;
      }
    }

    std::string number() {
      const std::size_t start = i;
      const auto digits = [&] {
        const std::size_t from = i;
        while (!at_end() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == from) fail("a digit expected");
      };
      if (s[i] == '-') ++i;
      if (!at_end() && s[i] == '0') {
        ++i;
      } else {
        if (at_end() || s[i] < '1' || s[i] > '9') fail("not a value");
        digits();
      }
      if (!at_end() && s[i] == '.') {
        ++i;
        digits();
      }
      if (!at_end() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (!at_end() && (s[i] == '+' || s[i] == '-')) ++i;
        digits();
      }
      return std::string(s.substr(start, i - start));
    }

    unsigned hex4() {
      unsigned v = 0;
      for (int k = 0; k < 4; ++k, ++i) {
        if (at_end()) fail("four hex digits expected after \\u");
        const char c = s[i];
        const unsigned d = c >= '0' && c <= '9'   ? static_cast<unsigned>(c - '0')
                           : c >= 'a' && c <= 'f' ? static_cast<unsigned>(c - 'a' + 10)
                           : c >= 'A' && c <= 'F' ? static_cast<unsigned>(c - 'A' + 10)
                                                  : 16U;
        if (d == 16U) fail("four hex digits expected after \\u");
        v = v * 16 + d;
      }
      return v;
    }

    static void append_utf8(std::string& out, unsigned cp) {
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
      } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
      } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
      }
    }

    // The string at `i` (which is '"'), its escapes resolved.
    std::string string() {
      ++i;
      std::string out;
      for (;;) {
        if (at_end()) fail("the text ends inside a string");
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '"') {
          ++i;
          return out;
        }
        if (c < 0x20) fail("a control character inside a string");
        if (c != '\\') {
          out += static_cast<char>(c);
          ++i;
          continue;
        }
        ++i;
        if (at_end()) fail("the text ends inside a string");
        const char e = s[i++];
        switch (e) {
          case '"':
          case '\\':
          case '/': out += e; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            unsigned cp = hex4();
            if (cp >= 0xdc00 && cp <= 0xdfff) fail("a lone low surrogate");
            if (cp >= 0xd800 && cp <= 0xdbff) {
              if (s.substr(i, 2) != "\\u") fail("a high surrogate without its low half");
              i += 2;
              const unsigned low = hex4();
              if (low < 0xdc00 || low > 0xdfff) fail("a high surrogate without its low half");
              cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            }
            append_utf8(out, cp);
            break;
          }
          default: --i; fail(R"(not an escape (\" \\ \/ \b \f \n \r \t \uXXXX))");
        }
      }
    }
  };

  kind kind_ = kind::null;
  std::string text_ = "null";  // a string's text; a number, boolean or null as written; empty for
                               // an array or object
  std::vector<std::string> keys_;
  std::vector<json_value> values_;
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
