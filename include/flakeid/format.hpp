// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file format.hpp
/// Printing decoded IDs: `to_string(id_parts)`, `operator<<`, and formatters for `std::format`
/// (where the standard library has it) and for {fmt} (opt-in). All print the same text:
///
///     {time: 2016-04-30T11:18:25.796Z, ticks: 41944705796, datacenter: 0, worker: 1, sequence: 7, gene: 0}
///
/// The time is UTC with milliseconds. Parts from `decompose` print only the fields their layout
/// has (`{time: ..., ticks: 250367789554, datacenter: 10, worker: 27, sequence: 0}` for
/// Twitter's); parts built by hand print every field.
///
/// `std::formatter<flakeid::id_parts>` is defined when the library provides `<format>`
/// (`__cpp_lib_format`, or libc++ 16 and later with its `<format>` enabled). `fmt::formatter<flakeid::id_parts>` comes with
/// `<flakeid/fmt.hpp>` (fmt 9 or later; flakeid itself does not depend on fmt). Both accept the format spec of a string, so width, fill and
/// alignment apply to the whole text: `std::format("{:>120}", parts)`.

#include <chrono>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "detail/civil_time.hpp"
#include "layout.hpp"
#include "version.hpp"

#if __has_include(<version>)
#include <version>
#endif

// libc++ 16 has a complete enough <format> (with -fexperimental-library) but does not define
// __cpp_lib_format; it says it has none with _LIBCPP_HAS_NO_INCOMPLETE_FORMAT.
#if __has_include(<format>) &&                                             \
    (defined(__cpp_lib_format) ||                                          \
     (defined(_LIBCPP_VERSION) && _LIBCPP_VERSION >= 16000 &&              \
      !defined(_LIBCPP_HAS_NO_INCOMPLETE_FORMAT)))
#include <format>
#define FLAKEID_HAS_STD_FORMAT 1
#endif

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// A time as ISO 8601 UTC with milliseconds: `2016-04-30T11:18:25.796Z`.
[[nodiscard]] inline std::string to_iso8601(std::chrono::sys_time<std::chrono::milliseconds> t) {
  return detail::format_utc(t);
}

/// The text of `p`: `{time: <UTC>, ticks: <n>, datacenter: <n>, worker: <n>, sequence: <n>,
/// gene: <n>}`, without the fields `p`'s layout lacks (`id_parts::has`). Throws `std::bad_alloc`
/// only.
[[nodiscard]] inline std::string to_string(const id_parts& p) {
  std::string s = "{time: ";
  s += detail::format_utc(p.timestamp);
  s += ", ticks: " + std::to_string(p.ticks);
  for (const auto& [kind, value] :
       {std::pair{field_kind::datacenter, p.datacenter}, std::pair{field_kind::worker, p.worker},
        std::pair{field_kind::sequence, p.sequence}, std::pair{field_kind::gene, p.gene}}) {
    if (!p.has(kind)) continue;
    s += ", ";
    s += flakeid::to_string(kind);
    s += ": " + std::to_string(value);
  }
  s += '}';
  return s;
}

/// Writes `to_string(p)` to `os`, honouring its width and fill as for a string.
inline std::ostream& operator<<(std::ostream& os, const id_parts& p) { return os << to_string(p); }

}  // namespace FLAKEID_ABI_NAMESPACE
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
