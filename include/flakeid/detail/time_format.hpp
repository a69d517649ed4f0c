// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// Internal: UTC text for error messages and examples (no <format> needed).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include "../version.hpp"

namespace flakeid::inline FLAKEID_ABI_NAMESPACE::detail {

/// `2010-11-04T01:42:54.657Z` for a count of Unix milliseconds; outside the years -32767 to 32767,
/// where a calendar date would overflow, `unix ms <count>`.
inline std::string format_utc(std::int64_t unix_ms) {
  using namespace std::chrono;
  // Split into days and the time of day with integer division, which cannot overflow.
  constexpr std::int64_t ms_per_day = 86'400'000;
  std::int64_t day_count = unix_ms / ms_per_day;
  std::int64_t ms_of_day = unix_ms % ms_per_day;
  if (ms_of_day < 0) {
    ms_of_day += ms_per_day;
    --day_count;
  }
  constexpr std::int64_t last_day = 11'248'737;    // 32767-12-31
  constexpr std::int64_t first_day = -12'687'428;  // -32767-01-01
  if (day_count < first_day || day_count > last_day) return "unix ms " + std::to_string(unix_ms);
  const sys_days day{days{day_count}};
  const year_month_day ymd{day};
  const hh_mm_ss<milliseconds> hms{milliseconds{ms_of_day}};
  char buf[48];
  (void)std::snprintf(
      buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(ymd.year()),
      static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
      static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
      static_cast<int>(hms.seconds().count()), static_cast<int>(hms.subseconds().count()));
  return buf;
}

inline std::string format_utc(std::chrono::sys_time<std::chrono::milliseconds> tp) {
  return format_utc(static_cast<std::int64_t>(tp.time_since_epoch().count()));
}

}  // namespace flakeid::inline FLAKEID_ABI_NAMESPACE::detail
