// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// Internal: the small parsing and formatting pieces shared by the text forms, layout specs and
// the stores (decimal digits, quoting user input in messages). Everything that cannot fail is
// constexpr and noexcept; nothing here throws. Calendar code is in civil_time.hpp.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// Whether `c` is an ASCII decimal digit.
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// Reads `s` as an unsigned decimal number: one or more digits, nothing else, no overflow.
/// Returns false (leaving `out` unspecified) when `s` is not such a number.
constexpr bool parse_decimal(std::string_view s, std::uint64_t& out) noexcept {
  if (s.empty()) return false;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (!is_digit(c)) return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

/// Number of decimal digits of `v` (1 for 0).
constexpr std::size_t decimal_width(std::uint64_t v) noexcept {
  std::size_t n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

/// Writes `v` in decimal at `out`, left-padded with '0' to `min_width`; returns the end.
/// Requires room for `max(decimal_width(v), min_width)` characters.
constexpr char* write_decimal(char* out, std::uint64_t v, std::size_t min_width = 1) noexcept {
  std::size_t n = decimal_width(v);
  if (n < min_width) n = min_width;
  char* end = out + n;
  for (char* p = end; p != out;) {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return end;
}

/// Appends the bytes of `s` to `out` as lowercase hex digits, two per byte.
inline void append_hex(std::string& out, std::string_view s) {
  constexpr char hex[] = "0123456789abcdef";
  for (const char ch : s) {
    const auto b = static_cast<unsigned char>(ch);
    out += hex[b >> 4];
    out += hex[b & 0xf];
  }
}

/// `s` in double quotes for a message: printable ASCII as is, `"` and `\` escaped, other bytes
/// as `\xNN`; text past 64 characters is cut and marked with `...`.
inline std::string quote(std::string_view s) {
  constexpr std::size_t max_shown = 64;
  constexpr char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    }
  }
  if (s.size() > max_shown) out += "...";
  out += '"';
  return out;
}

/// `c` in single quotes for a message, escaped as `quote` does.
inline std::string quote_char(char c) {
  std::string q = quote(std::string_view(&c, 1));
  q.front() = '\'';
  q.back() = '\'';
  if (q == "'''") q = "'\\''";
  if (q == "'\\\"'") q = "'\"'";
  return q;
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
