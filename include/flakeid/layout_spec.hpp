// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file layout_spec.hpp
/// Layouts by name or from a one-line text spec, for tools, config files and command lines.
///
///     flakeid::layout_by_name("sonyflake")             // a preset of flakeid::layouts
///     flakeid::parse_layout("twitter")                 // the same, through the parser
///     flakeid::parse_layout("ts:41,dc:5,worker:5,seq:12;epoch=1288834974657;tick=1ms")
///     flakeid::to_spec(flakeid::layouts::sonyflake)    // "ts:39,seq:8,worker:16;epoch=1409529600000;tick=10ms"
///
/// The spec grammar (spaces around any token are ignored):
///
///     spec    := fields { ";" option }
///     fields  := field { "," field }            most significant first, as in `layout`
///     field   := kind ":" bits                  bits in [1, 64]
///     kind    := "ts" | "timestamp" | "dc" | "datacenter" | "worker"
///              | "seq" | "sequence" | "gene" | "reserved"
///     option  := "epoch=" ( unix-ms | iso-date )    default 0 (the Unix epoch)
///              | "tick=" count ( "ms" | "s" )        default 1ms
///     iso-date:= yyyy-MM-dd | yyyy-MM-ddTHH:mm:ss[.SSS](Z | +HH:mm | -HH:mm)
///
/// Widths follow `layout`'s rule: they add up to 64, or to 63 with the sign bit an implicit
/// reserved bit. `to_spec` writes the short kind names, the epoch in Unix milliseconds and the
/// tick in seconds when it is a whole number of them, and `parse_layout(to_spec(l)) == l` for
/// every layout.
///
/// Every error is an `invalid_layout_error` that quotes the spec, then the part at fault with its
/// index (0-based) and what is allowed there, e.g.
/// `flakeid: invalid layout spec "ts:41,dc:x,worker:5,seq:12": width "x" at index 9 is not a
/// number in [1, 64]`. All functions are thread-safe (no shared state).

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

#include "detail/civil_time.hpp"
#include "detail/text_util.hpp"
#include "errors.hpp"
#include "layout.hpp"
#include "layouts.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {

struct named_layout {
  std::string_view name;
  const layout* value;
};

inline constexpr named_layout preset_table[] = {
    {"twitter", &layouts::twitter},
    {"discord", &layouts::discord},
    {"sonyflake", &layouts::sonyflake},
    {"sonyflake_v2", &layouts::sonyflake_v2},
    {"instagram", &layouts::instagram},
    {"mastodon", &layouts::mastodon},
    {"cosid", &layouts::cosid},
    {"cosid_seconds", &layouts::cosid_seconds},
    {"cosid_js", &layouts::cosid_js},
    {"baidu", &layouts::baidu},
    {"seed_classic", &layouts::seed_classic},
    {"seed_gene", &layouts::seed_gene},
    {"newlife", &layouts::newlife},
};

inline constexpr std::size_t preset_count = std::size(preset_table);

inline constexpr std::array<std::string_view, preset_count> preset_name_list = [] {
  std::array<std::string_view, preset_count> names{};
  for (std::size_t i = 0; i < preset_count; ++i) names[i] = preset_table[i].name;
  return names;
}();

inline std::string joined_preset_names() {
  std::string s;
  for (const auto& p : preset_table) {
    if (!s.empty()) s += ", ";
    s += p.name;
  }
  return s;
}

// A part of the spec and where it starts.
struct spec_part {
  std::string_view text;
  std::size_t index = 0;
};

// `spec[begin, end)` without the spaces around it.
constexpr spec_part spec_slice(std::string_view spec, std::size_t begin, std::size_t end) noexcept {
  while (begin < end && spec[begin] == ' ') ++begin;
  while (end > begin && spec[end - 1] == ' ') --end;
  return {spec.substr(begin, end - begin), begin};
}

constexpr std::string_view spec_kind_short_name(field_kind k) noexcept {
  switch (k) {
    case field_kind::timestamp: return "ts";
    case field_kind::datacenter: return "dc";
    case field_kind::worker: return "worker";
    case field_kind::sequence: return "seq";
    case field_kind::gene: return "gene";
    case field_kind::reserved: return "reserved";
  }
  return "unknown";
}

constexpr bool spec_kind(std::string_view s, field_kind& k) noexcept {
  if (s == "ts" || s == "timestamp")
    k = field_kind::timestamp;
  else if (s == "dc" || s == "datacenter")
    k = field_kind::datacenter;
  else if (s == "worker")
    k = field_kind::worker;
  else if (s == "seq" || s == "sequence")
    k = field_kind::sequence;
  else if (s == "gene")
    k = field_kind::gene;
  else if (s == "reserved")
    k = field_kind::reserved;
  else
    return false;
  return true;
}

[[noreturn]] inline void reject_spec(std::string_view spec, const std::string& what) {
  throw invalid_layout_error("flakeid: invalid layout spec " + quote(spec) + ": " + what);
}
[[noreturn]] inline void reject_spec_part(std::string_view spec, const char* what, spec_part part,
                                          const std::string& rest) {
  reject_spec(spec, std::string(what) + " " + quote(part.text) + " at index " +
                        std::to_string(part.index) + " " + rest);
}
[[noreturn]] inline void reject_layout_name(std::string_view name) {
  throw invalid_layout_error("flakeid: unknown layout name " + quote(name) +
                             "; known: " + joined_preset_names());
}
[[noreturn]] inline void reject_spec_empty(std::string_view spec) {
  reject_spec(spec, "it is empty; give a preset name (" + joined_preset_names() +
                        ") or fields like \"ts:41,worker:10,seq:12;epoch=1577203200000;tick=1ms\"");
}
[[noreturn]] inline void reject_spec_name(std::string_view spec, spec_part part) {
  reject_spec_part(
      spec, "layout name", part,
      "is unknown; known: " + joined_preset_names() +
          "; or give fields like \"ts:41,worker:10,seq:12;epoch=1577203200000;tick=1ms\"");
}
[[noreturn]] inline void reject_spec_field_syntax(std::string_view spec, spec_part part) {
  reject_spec_part(spec, "field", part, "is not kind:bits");
}
[[noreturn]] inline void reject_spec_kind(std::string_view spec, spec_part part) {
  reject_spec_part(spec, "field kind", part,
                   "is unknown; allowed: ts|timestamp, dc|datacenter, worker, seq|sequence, gene, "
                   "reserved");
}
[[noreturn]] inline void reject_spec_width(std::string_view spec, spec_part part) {
  reject_spec_part(spec, "width", part, "is not a number in [1, 64]");
}
[[noreturn]] inline void reject_spec_duplicate(std::string_view spec, spec_part part,
                                               field_kind k) {
  reject_spec_part(spec, "field", part,
                   "repeats the " + std::string(to_string(k)) + " kind; each kind may appear once");
}
[[noreturn]] inline void reject_spec_sum(std::string_view spec, spec_part part, unsigned sum) {
  reject_spec_part(spec, "fields", part,
                   "add up to " + std::to_string(sum) +
                       " bits; they must add up to 63 (sign bit reserved) or 64");
}
[[noreturn]] inline void reject_spec_missing(std::string_view spec, spec_part part,
                                             const char* kind, const char* fix) {
  reject_spec_part(spec, "fields", part, std::string("have no ") + kind + " field; add " + fix);
}
[[noreturn]] inline void reject_spec_option_syntax(std::string_view spec, spec_part part) {
  reject_spec_part(spec, "option", part,
                   "is not key=value; allowed: epoch=<Unix ms or ISO date>, tick=<n>ms or <n>s");
}
[[noreturn]] inline void reject_spec_option_unknown(std::string_view spec, spec_part part) {
  reject_spec_part(spec, "option", part, "is unknown; allowed: epoch, tick");
}
[[noreturn]] inline void reject_spec_option_twice(std::string_view spec, spec_part part) {
  reject_spec_part(spec, "option", part, "is given twice; give it once");
}
[[noreturn]] inline void reject_spec_epoch(std::string_view spec, spec_part part) {
  reject_spec_part(
      spec, "epoch", part,
      "is neither Unix ms in [0, 9223372036854775807] nor an ISO date such as 2014-09-01, "
      "2014-09-01T00:00:00Z or 2016-05-20T00:00:00+08:00");
}
[[noreturn]] inline void reject_spec_tick(std::string_view spec, spec_part part) {
  reject_spec_part(spec, "tick", part,
                   "is not a positive whole number of ms or s, such as 1ms, 10ms or 1s");
}
[[noreturn]] inline void reject_spec_layout(std::string_view spec, const invalid_layout_error& e) {
  constexpr std::string_view prefix = "flakeid: invalid layout: ";
  std::string_view what = e.what();
  if (what.substr(0, prefix.size()) == prefix) what.remove_prefix(prefix.size());
  reject_spec(spec, std::string(what));
}

constexpr bool spec_epoch(std::string_view s, std::int64_t& out) noexcept {
  std::uint64_t v = 0;
  if (parse_decimal(s, v)) {
    if (v > static_cast<std::uint64_t>(INT64_MAX)) return false;
    out = static_cast<std::int64_t>(v);
    return true;
  }
  return parse_iso_instant(s, out) && out >= 0;
}

constexpr bool spec_tick(std::string_view s, std::int64_t& out) noexcept {
  std::uint64_t scale = 0;
  if (s.size() > 2 && s.substr(s.size() - 2) == "ms") {
    scale = 1;
    s.remove_suffix(2);
  } else if (s.size() > 1 && s.back() == 's') {
    scale = 1000;
    s.remove_suffix(1);
  } else {
    return false;
  }
  std::uint64_t n = 0;
  if (!parse_decimal(s, n) || n == 0 || n > static_cast<std::uint64_t>(INT64_MAX) / scale)
    return false;
  out = static_cast<std::int64_t>(n * scale);
  return true;
}

/// The fields of `spec` in `fields_part` (everything before the first ';'), into `list`;
/// returns how many. Throws as `parse_layout` does.
constexpr std::size_t spec_fields(std::string_view spec, const spec_part& fields_part,
                                  field (&list)[layout::max_fields]) {
  std::size_t count = 0;
  bool seen[field_kind_count]{};
  unsigned sum = 0;
  const std::size_t fields_end = fields_part.index + fields_part.text.size();
  for (std::size_t begin = fields_part.index;;) {
    std::size_t end = spec.find(',', begin);
    if (end == std::string_view::npos || end > fields_end) end = fields_end;
    const spec_part f = spec_slice(spec, begin, end);
    const std::size_t colon = f.text.find(':');
    if (colon == std::string_view::npos) reject_spec_field_syntax(spec, f);
    const spec_part kind_part = spec_slice(spec, f.index, f.index + colon);
    const spec_part bits_part = spec_slice(spec, f.index + colon + 1, f.index + f.text.size());
    field_kind k{};
    if (!spec_kind(kind_part.text, k)) reject_spec_kind(spec, kind_part);
    std::uint64_t bits = 0;
    if (!parse_decimal(bits_part.text, bits) || bits < 1 || bits > 64)
      reject_spec_width(spec, bits_part);
    if (seen[static_cast<std::size_t>(k)]) reject_spec_duplicate(spec, f, k);
    seen[static_cast<std::size_t>(k)] = true;
    sum += static_cast<unsigned>(bits);
    list[count++] = field{k, static_cast<std::uint8_t>(bits)};
    if (end == fields_end) break;
    begin = end + 1;
  }
  if (!seen[static_cast<std::size_t>(field_kind::timestamp)])
    reject_spec_missing(spec, fields_part, "timestamp", "ts:<bits>");
  if (!seen[static_cast<std::size_t>(field_kind::sequence)])
    reject_spec_missing(spec, fields_part, "sequence", "seq:<bits>");
  if (sum != 63 && sum != 64) reject_spec_sum(spec, fields_part, sum);
  return count;
}

/// The options of `spec`, each ';'-separated part from `begin` (the first ';', or npos for
/// none): `epoch=` and `tick=`, each at most once. Throws as `parse_layout` does.
constexpr void spec_options(std::string_view spec, std::size_t begin, std::int64_t& epoch_ms,
                            std::int64_t& tick_ms) {
  bool have_epoch = false;
  bool have_tick = false;
  while (begin != std::string_view::npos) {
    const std::size_t end = spec.find(';', begin + 1);
    const spec_part opt =
        spec_slice(spec, begin + 1, end == std::string_view::npos ? spec.size() : end);
    const std::size_t eq = opt.text.find('=');
    if (eq == std::string_view::npos) reject_spec_option_syntax(spec, opt);
    const spec_part key = spec_slice(spec, opt.index, opt.index + eq);
    const spec_part value = spec_slice(spec, opt.index + eq + 1, opt.index + opt.text.size());
    if (key.text == "epoch") {
      if (have_epoch) reject_spec_option_twice(spec, opt);
      have_epoch = true;
      if (!spec_epoch(value.text, epoch_ms)) reject_spec_epoch(spec, value);
    } else if (key.text == "tick") {
      if (have_tick) reject_spec_option_twice(spec, opt);
      have_tick = true;
      if (!spec_tick(value.text, tick_ms)) reject_spec_tick(spec, value);
    } else {
      reject_spec_option_unknown(spec, key);
    }
    begin = end;
  }
}

}  // namespace detail

/// The names of the presets in `flakeid::layouts`, in the order of that header's table.
[[nodiscard]] constexpr std::span<const std::string_view> preset_names() noexcept {
  return detail::preset_name_list;
}

/// The preset of `flakeid::layouts` called `name` (exact, lower case: "twitter", "sonyflake_v2").
/// Throws `invalid_layout_error` naming `name` and listing the known names.
[[nodiscard]] constexpr const layout& layout_by_name(std::string_view name) {
  for (const auto& p : detail::preset_table)
    if (p.name == name) return *p.value;
  detail::reject_layout_name(name);
}

/// A layout from a preset name or a spec such as
/// `ts:41,dc:5,worker:5,seq:12;epoch=1288834974657;tick=1ms` (grammar in the file comment).
/// Throws `invalid_layout_error` quoting the spec and the part at fault with its index.
[[nodiscard]] constexpr layout parse_layout(std::string_view spec) {
  const detail::spec_part whole = detail::spec_slice(spec, 0, spec.size());
  if (whole.text.empty()) detail::reject_spec_empty(spec);
  if (whole.text.find_first_of(":,;=") == std::string_view::npos) {
    for (const auto& p : detail::preset_table)
      if (p.name == whole.text) return *p.value;
    detail::reject_spec_name(spec, whole);
  }

  // Fields: everything before the first ';'; then the options, each part after a ';'.
  const std::size_t fields_end = spec.find(';');
  field list[layout::max_fields]{};
  const std::size_t count = detail::spec_fields(
      spec,
      detail::spec_slice(spec, 0, fields_end == std::string_view::npos ? spec.size() : fields_end),
      list);
  std::int64_t epoch_ms = 0;
  std::int64_t tick_ms = 1;
  detail::spec_options(spec, fields_end, epoch_ms, tick_ms);

  // What is left to check (the timestamp range fitting 64-bit Unix ms) is the layout's own.
  try {
    return layout{std::span<const field>(list, count), epoch_ms,
                  std::chrono::milliseconds{tick_ms}};
  } catch (const invalid_layout_error& e) {
    detail::reject_spec_layout(spec, e);
  }
}

/// The spec of `l`, e.g. `ts:41,dc:5,worker:5,seq:12;epoch=1288834974657;tick=1ms`, which
/// `parse_layout` reads back to a layout equal to `l`. Throws `std::bad_alloc` only.
[[nodiscard]] inline std::string to_spec(const layout& l) {
  std::string s;
  for (const field& f : l.fields()) {
    if (!s.empty()) s += ',';
    s += detail::spec_kind_short_name(f.kind);
    s += ':';
    s += std::to_string(f.bits);
  }
  s += ";epoch=" + std::to_string(l.epoch_ms);
  s += ";tick=";
  s += l.tick_ms % 1000 == 0 ? std::to_string(l.tick_ms / 1000) + "s"
                             : std::to_string(l.tick_ms) + "ms";
  return s;
}

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
