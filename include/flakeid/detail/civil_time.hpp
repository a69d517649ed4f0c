// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// Internal: the one calendar of the library. Civil dates and times of day to and from Unix
// milliseconds (proleptic Gregorian, UTC, through <chrono>'s calendar types), ISO 8601 instants
// read, and UTC text written for messages and examples (no <format> needed).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include "../version.hpp"
#include "text_util.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// `a / b` rounded towards negative infinity (`b > 0`).
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  const std::int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// A civil date and time of day, as read from or written to text.
struct civil_time {
  int year = 1970;
  unsigned month = 1;
  unsigned day = 1;
  unsigned hour = 0;
  unsigned minute = 0;
  unsigned second = 0;
  unsigned millisecond = 0;
};

/// The civil time of `ms` milliseconds after 1970-01-01T00:00:00 (of the same clock).
constexpr civil_time civil_from_ms(std::int64_t ms) noexcept {
  using namespace std::chrono;
  const std::int64_t day_count = floor_div(ms, 86'400'000);
  const auto of_day = static_cast<unsigned>(ms - day_count * 86'400'000);
  const year_month_day ymd{sys_days{days{day_count}}};
  civil_time t;
  t.year = static_cast<int>(ymd.year());
  t.month = static_cast<unsigned>(ymd.month());
  t.day = static_cast<unsigned>(ymd.day());
  t.hour = of_day / 3'600'000;
  t.minute = of_day / 60'000 % 60;
  t.second = of_day / 1'000 % 60;
  t.millisecond = of_day % 1'000;
  return t;
}

/// Milliseconds since 1970-01-01T00:00:00 of `t`. Requires the fields to be in range (see
/// `civil_field_error`).
constexpr std::int64_t ms_from_civil(const civil_time& t) noexcept {
  using namespace std::chrono;
  const sys_days d{year{t.year} / month{t.month} / day{t.day}};
  return static_cast<std::int64_t>(d.time_since_epoch().count()) * 86'400'000 +
         static_cast<std::int64_t>(t.hour) * 3'600'000 +
         static_cast<std::int64_t>(t.minute) * 60'000 +
         static_cast<std::int64_t>(t.second) * 1'000 + static_cast<std::int64_t>(t.millisecond);
}

/// The first field of `t` that is out of range, as "month 13 is outside [1, 12]", or an empty
/// string when every field is valid.
inline std::string civil_field_error(const civil_time& t) {
  using namespace std::chrono;
  const auto out = [](const char* what, long long v, long long lo, long long hi) {
    return std::string(what) + " " + std::to_string(v) + " is outside [" + std::to_string(lo) +
           ", " + std::to_string(hi) + "]";
  };
  if (t.month < 1 || t.month > 12) return out("month", t.month, 1, 12);
  const auto last_day =
      static_cast<unsigned>((year{t.year} / month{t.month} / std::chrono::last).day());
  if (t.day < 1 || t.day > last_day) return out("day", t.day, 1, last_day);
  if (t.hour > 23) return out("hour", t.hour, 0, 23);
  if (t.minute > 59) return out("minute", t.minute, 0, 59);
  if (t.second > 59) return out("second", t.second, 0, 59);
  if (t.millisecond > 999) return out("millisecond", t.millisecond, 0, 999);
  return {};
}

/// Whether every field of `t` is in range (a real calendar date, a real time of day).
constexpr bool civil_valid(const civil_time& t) noexcept {
  using namespace std::chrono;
  return t.month >= 1 && t.month <= 12 &&
         year_month_day{year{t.year} / month{t.month} / day{t.day}}.ok() && t.hour <= 23 &&
         t.minute <= 59 && t.second <= 59 && t.millisecond <= 999;
}

/// Reads exactly `n` decimal digits at `s[pos]`, advancing `pos`. False when they are not digits.
constexpr bool read_fixed_digits(std::string_view s, std::size_t& pos, std::size_t n,
                                 unsigned& out) noexcept {
  if (s.size() < pos + n) return false;
  unsigned v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (!is_digit(c)) return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  pos += n;
  out = v;
  return true;
}

/// What `parse_iso_instant` accepts beyond its strict forms.
enum class iso_forms {
  strict,   ///< seconds required, exactly 3 fraction digits, `+hh:mm` offsets
  lenient,  ///< also `hh:mm`, 1 to 9 fraction digits after '.' or ',' (floored to the
            ///< millisecond) and `+hhmm` (the forms a command line takes)
};

/// Reads an ISO 8601 UTC instant in Unix milliseconds: `2014-09-01` (midnight UTC),
/// `2014-09-01T00:00:00Z`, `2014-09-01T00:00:00.000Z` or with an offset instead of `Z`
/// (`2016-05-20T00:00:00+08:00`). False for anything else, including an impossible date.
constexpr bool parse_iso_instant(std::string_view s, std::int64_t& unix_ms,
                                 iso_forms forms = iso_forms::strict) noexcept {
  const bool lenient = forms == iso_forms::lenient;
  civil_time t;
  std::size_t pos = 0;
  unsigned y = 0;
  if (!read_fixed_digits(s, pos, 4, y)) return false;
  t.year = static_cast<int>(y);
  const auto expect = [&](char c) {
    if (pos >= s.size() || s[pos] != c) return false;
    ++pos;
    return true;
  };
  if (!expect('-') || !read_fixed_digits(s, pos, 2, t.month) || !expect('-') ||
      !read_fixed_digits(s, pos, 2, t.day))
    return false;
  std::int64_t offset_ms = 0;
  if (pos != s.size()) {
    if (!expect('T') || !read_fixed_digits(s, pos, 2, t.hour) || !expect(':') ||
        !read_fixed_digits(s, pos, 2, t.minute))
      return false;
    const bool has_seconds = pos < s.size() && s[pos] == ':';
    if ((has_seconds || !lenient) && (!expect(':') || !read_fixed_digits(s, pos, 2, t.second)))
      return false;
    if (has_seconds && pos < s.size() && (s[pos] == '.' || (lenient && s[pos] == ','))) {
      ++pos;
      std::size_t n = 0;
      for (; pos < s.size() && is_digit(s[pos]); ++pos, ++n)
        if (n < 3) t.millisecond = t.millisecond * 10 + static_cast<unsigned>(s[pos] - '0');
      if (n == 0 || n > (lenient ? 9U : 3U) || (!lenient && n != 3)) return false;
      for (; n < 3; ++n) t.millisecond *= 10;
    }
    if (pos >= s.size()) return false;
    const char zone = s[pos++];
    if (zone == '+' || zone == '-') {
      unsigned oh = 0;
      unsigned om = 0;
      if (!read_fixed_digits(s, pos, 2, oh) || (!expect(':') && !lenient) ||
          !read_fixed_digits(s, pos, 2, om) || oh > 18 || om > 59)
        return false;
      offset_ms = (static_cast<std::int64_t>(oh) * 60 + om) * 60'000;
      if (zone == '-') offset_ms = -offset_ms;
    } else if (zone != 'Z') {
      return false;
    }
    if (pos != s.size()) return false;
  }
  if (!civil_valid(t)) return false;
  unix_ms = ms_from_civil(t) - offset_ms;
  return true;
}

/// The buffer `format_utc_into` writes to: room for the longest text and its terminating 0.
inline constexpr std::size_t utc_text_size = 48;

/// `format_utc` written into `buf`, which it returns: no `std::string`, so the messages built
/// on a generator's path stay cheap to compile.
inline const char* format_utc_into(char (&buf)[utc_text_size], std::int64_t unix_ms) noexcept {
  constexpr std::int64_t first_ms = -12'687'428 * std::int64_t{86'400'000};  // -32767-01-01
  constexpr std::int64_t end_ms = 11'248'738 * std::int64_t{86'400'000};     // 32768-01-01
  if (unix_ms < first_ms || unix_ms >= end_ms) {
    (void)std::snprintf(buf, utc_text_size, "unix ms %lld", static_cast<long long>(unix_ms));
    return buf;
  }
  const civil_time t = civil_from_ms(unix_ms);
  (void)std::snprintf(buf, utc_text_size, "%04d-%02u-%02uT%02u:%02u:%02u.%03uZ", t.year, t.month,
                      t.day, t.hour, t.minute, t.second, t.millisecond);
  return buf;
}

/// `2010-11-04T01:42:54.657Z` for a count of Unix milliseconds; outside the years -32767 to 32767,
/// where a calendar date would overflow, `unix ms <count>`.
inline std::string format_utc(std::int64_t unix_ms) {
  char buf[utc_text_size];
  return format_utc_into(buf, unix_ms);
}

inline std::string format_utc(std::chrono::sys_time<std::chrono::milliseconds> tp) {
  return format_utc(static_cast<std::int64_t>(tp.time_since_epoch().count()));
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
