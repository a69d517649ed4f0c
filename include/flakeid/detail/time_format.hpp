#pragma once
// Internal: UTC text for error messages and examples (no <format> needed).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace flakeid::detail {

/// `2010-11-04T01:42:54.657Z` for a count of Unix milliseconds.
inline std::string format_utc(std::int64_t unix_ms) {
  using namespace std::chrono;
  const sys_time<milliseconds> tp{milliseconds{unix_ms}};
  const auto day = floor<days>(tp);
  const year_month_day ymd{day};
  const hh_mm_ss<milliseconds> hms{tp - day};
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()),
                static_cast<int>(hms.subseconds().count()));
  return buf;
}

inline std::string format_utc(std::chrono::sys_time<std::chrono::milliseconds> tp) {
  return format_utc(static_cast<std::int64_t>(tp.time_since_epoch().count()));
}

}  // namespace flakeid::detail
