// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file format.hpp
/// Printing decoded IDs: `to_string(id_parts)`, `operator<<`, and formatters for `std::format`
/// (where the standard library has it) and for {fmt} (opt-in). All print the same text:
///
///     {time: 2016-04-30T11:18:25.796Z, ticks: 41944705796, datacenter: 0, worker: 1, sequence: 7, gene: 0}
///
/// The time is UTC with milliseconds; every field is printed, 0 where the layout has none.
///
/// `std::formatter<flakeid::id_parts>` is defined when the library provides `<format>`
/// (`__cpp_lib_format`). `fmt::formatter<flakeid::id_parts>` is defined when `FLAKEID_FMT` is
/// defined before this header is included and `<fmt/format.h>` is found (fmt 9 or later; flakeid
/// itself does not depend on fmt). Both accept the format spec of a string, so width, fill and
/// alignment apply to the whole text: `std::format("{:>120}", parts)`.

#include <chrono>
#include <ostream>
#include <string>
#include <string_view>

#include "detail/time_format.hpp"
#include "layout.hpp"

#if __has_include(<version>)
#include <version>
#endif

#if defined(__cpp_lib_format) && __has_include(<format>)
#include <format>
#define FLAKEID_HAS_STD_FORMAT 1
#endif

#if defined(FLAKEID_FMT) && __has_include(<fmt/format.h>)
#include <fmt/format.h>
#define FLAKEID_HAS_FMT 1
#endif

namespace flakeid {

/// A time as ISO 8601 UTC with milliseconds: `2016-04-30T11:18:25.796Z`.
[[nodiscard]] inline std::string to_iso8601(std::chrono::sys_time<std::chrono::milliseconds> t) {
  return detail::format_utc(t);
}

/// The text of `p`: `{time: <UTC>, ticks: <n>, datacenter: <n>, worker: <n>, sequence: <n>,
/// gene: <n>}`. Throws `std::bad_alloc` only.
[[nodiscard]] inline std::string to_string(const id_parts& p) {
  std::string s = "{time: ";
  s += detail::format_utc(p.timestamp);
  s += ", ticks: " + std::to_string(p.ticks);
  s += ", datacenter: " + std::to_string(p.datacenter);
  s += ", worker: " + std::to_string(p.worker);
  s += ", sequence: " + std::to_string(p.sequence);
  s += ", gene: " + std::to_string(p.gene);
  s += '}';
  return s;
}

/// Writes `to_string(p)` to `os`, honouring its width and fill as for a string.
inline std::ostream& operator<<(std::ostream& os, const id_parts& p) { return os << to_string(p); }

}  // namespace flakeid

#if defined(FLAKEID_HAS_STD_FORMAT)
/// `std::format("{}", parts)`: the text of `flakeid::to_string(parts)`, with a string's spec.
template <>
struct std::formatter<flakeid::id_parts, char> : std::formatter<std::string_view, char> {
  template <class FormatContext>
  auto format(const flakeid::id_parts& p, FormatContext& ctx) const {
    const std::string s = flakeid::to_string(p);
    return std::formatter<std::string_view, char>::format(std::string_view(s), ctx);
  }
};
#endif

#if defined(FLAKEID_HAS_FMT)
/// `fmt::format("{}", parts)`: the text of `flakeid::to_string(parts)`, with a string's spec.
template <>
struct fmt::formatter<flakeid::id_parts> : fmt::formatter<fmt::string_view> {
  template <class FormatContext>
  auto format(const flakeid::id_parts& p, FormatContext& ctx) const {
    const std::string s = flakeid::to_string(p);
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};
#endif
