// Times on the command line: UTC, times from now, Unix milliseconds (see core.hpp).
#include "core.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <flakeid/detail/civil_time.hpp>

namespace flakeid_cli {
/// `2016-04-30T11:18:25.796Z`.
std::string utc_text(flakeid::layout::time_point t) { return flakeid::detail::format_utc(t); }
std::string utc_text(std::int64_t unix_ms) { return flakeid::detail::format_utc(unix_ms); }

namespace {

// ---- times -------------------------------------------------------------------------------------

constexpr std::int64_t sandbox_now_ms = 1704067200000;  // 2024-01-01T00:00:00Z
constexpr std::int64_t max_time_ms = 253402300799999;   // 9999-12-31T23:59:59.999Z
constexpr std::int64_t min_time_ms = -62167219200000;   // 0000-01-01T00:00:00.000Z

/// An ISO 8601 instant in Unix milliseconds, as the library reads it with the forms a command
/// line allows: `2024-01-01`, `2024-01-01T08:00[:00[.f]]` with `Z`, `+08:00` or `+0800`.
std::optional<std::int64_t> parse_iso(std::string_view s) {
  std::int64_t ms = 0;
  if (!flakeid::detail::parse_iso_instant(s, ms, flakeid::detail::iso_forms::lenient))
    return std::nullopt;
  return ms;
}

/// A signed duration such as `-1h`, `+15m`, `-1h30m`, `+500ms` in milliseconds.
std::optional<std::int64_t> parse_offset(std::string_view s) {
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  const bool minus = s[0] == '-';
  std::size_t pos = 1;
  std::int64_t total = 0;
  constexpr std::int64_t limit = 400'000LL * 366 * 86'400'000;  // beyond any layout
  while (pos < s.size()) {
    std::int64_t n = 0;
    const std::size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      n = n * 10 + (s[pos] - '0');
      if (n > limit) return std::nullopt;
      ++pos;
    }
    if (pos == start) return std::nullopt;
    std::int64_t unit = 0;
    if (s.substr(pos).starts_with("ms")) {
      unit = 1;
      pos += 2;
    } else if (pos < s.size()) {
      switch (s[pos]) {
        case 's': unit = 1000; break;
        case 'm': unit = 60'000; break;
        case 'h': unit = 3'600'000; break;
        case 'd': unit = 86'400'000; break;
        case 'w': unit = 7 * 86'400'000LL; break;
        default: return std::nullopt;
      }
      ++pos;
    } else {
      return std::nullopt;
    }
    if (n > limit / unit) return std::nullopt;
    total += n * unit;
    if (total > limit) return std::nullopt;
  }
  return minus ? -total : total;
}

/// "now": FLAKEID_NOW when set (a UTC time or Unix milliseconds), else the system clock.
std::int64_t current_ms(context& c) {
  if (c.now_cache) return *c.now_cache;
  if (c.io.sandbox) return *(c.now_cache = sandbox_now_ms);
  if (const char* e = std::getenv("FLAKEID_NOW"); e != nullptr && *e != '\0') {
    const std::string_view text = e;
    std::uint64_t ms = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec == std::errc{} && end == text.data() + text.size() &&
        ms <= static_cast<std::uint64_t>(max_time_ms))
      return *(c.now_cache = static_cast<std::int64_t>(ms));
    if (const auto iso = parse_iso(text)) return *(c.now_cache = *iso);
    fail("FLAKEID_NOW " + quote(text) +
         " is neither a UTC time (2024-01-01T00:00:00Z) nor Unix milliseconds");
  }
  using namespace std::chrono;
  return *(c.now_cache =
               time_point_cast<milliseconds>(system_clock::now()).time_since_epoch().count());
}

}  // namespace

read_time_result read_time(context& c, std::string_view what, std::string_view text) {
  const auto at = [](std::int64_t ms) {
    return flakeid::layout::time_point{std::chrono::milliseconds{ms}};
  };
  std::uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (!text.empty() && ec == std::errc{} && end == text.data() + text.size() &&
      number <= static_cast<std::uint64_t>(max_time_ms)) {
    read_time_result r{at(static_cast<std::int64_t>(number)), {}};
    // 9 or 10 digits: as milliseconds 1970, as seconds 1973 to 2286.
    if (number >= 100'000'000 && number < 100'000'000'000)
      r.hint = std::string(what) + " " + std::string(text) + " is read as Unix milliseconds (" +
               utc_text(static_cast<std::int64_t>(number)) + "); if it is Unix seconds, write " +
               std::string(text) + "000 (" + utc_text(static_cast<std::int64_t>(number) * 1000) +
               ")";
    return r;
  }
  if (const auto iso = parse_iso(text)) return {at(*iso), {}};
  std::optional<std::int64_t> offset;
  if (text == "now") offset = 0;
  if (text.starts_with("now") && text.size() > 3) offset = parse_offset(text.substr(3));
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) offset = parse_offset(text);
  if (offset) {
    const std::int64_t t = current_ms(c) + *offset;
    if (t < min_time_ms || t > max_time_ms)
      fail(std::string(what) + " " + quote(text) + " is outside years 0000 to 9999");
    return {at(t), {}};
  }
  fail(std::string(what) + " " + quote(text) +
       " is neither a UTC time (2024-01-01, 2024-01-01T00:00:00Z, 2024-01-01T00:00:00.5Z, "
       "2024-01-01T08:00:00+08:00), a time from now (now, now-1h, now+15m, -15m) nor Unix "
       "milliseconds");
}

/// The bounds of the IDs minted in [from, to): a time the layout cannot hold is bad input, with
/// the seconds hint when there is one; otherwise the hints are notes.
flakeid::id_bounds checked_range(const context& c, const flakeid::layout& l,
                                 const read_time_result& from, const read_time_result& to) {
  flakeid::id_bounds b;
  try {
    b = l.id_range(from.time, to.time);
  } catch (const flakeid::timestamp_overflow_error& e) {
    std::string msg = e.what();
    for (const read_time_result* r : {&from, &to})
      if (!r->hint.empty()) msg += "; " + r->hint;
    fail(msg);
  }
  for (const read_time_result* r : {&from, &to})
    if (!r->hint.empty()) c.note(r->hint);
  return b;
}

}  // namespace flakeid_cli
