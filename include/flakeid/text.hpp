// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file text.hpp
/// Text forms of an ID: radix 62 and radix 36 (as CosId writes them), Crockford's base32 (fixed
/// width, so text order is numeric order), and the friendly form
/// `yyyyMMddHHmmssSSS-<worker>-<sequence>` of CosId's SnowflakeFriendlyId. Also the JavaScript
/// safe-integer check.
///
/// | form        | characters                            | width                 | text order = ID order |
/// |-------------|---------------------------------------|-----------------------|-----------------------|
/// | radix62     | `0-9A-Za-z` (CosId's digit order)     | 1 to 11, or padded 11 | when padded           |
/// | radix36     | `0-9A-Z`                              | 1 to 13, or padded 13 | when padded           |
/// | crockford32 | `0-9A-HJKMNP-TV-Z`                    | always 13             | always                |
/// | friendly    | `yyyyMMddHHmmssSSS-worker-sequence`   | varies                | no                    |
///
/// Every encoder comes twice: one writes into a caller's buffer without allocating, in the
/// manner of `std::to_chars` (it returns `{end, std::errc{}}`, or `{last,
/// std::errc::value_too_large}` when the buffer is too small, writing nothing), and one returns a
/// `std::string`. The buffer forms and the decoders are `constexpr`; encoders that cannot fail are
/// `noexcept`. Decoders throw `invalid_id_error` naming the text, the offending character or part
/// and its index (0-based), and what was allowed. All functions are thread-safe (no shared state).
///
///     char buf[flakeid::radix62_width];
///     auto [end, ec] = flakeid::to_radix62(buf, buf + sizeof buf, 62);  // writes "10"
///     std::string s = flakeid::to_crockford32(62);                     // "000000000001Y"
///     std::uint64_t back = flakeid::from_crockford32(s);               // 62
///
/// **Radix 62 and 36.** CosId's `Radix62IdConverter` and `Radix36IdConverter` (Ahoo-Wang/CosId,
/// cosid-core `me.ahoo.cosid.converter`) write the digits 0-9, then A-Z, then (radix 62 only)
/// a-z, most significant first, either unpadded or left-padded with '0' to 11 (radix 62) or 13
/// (radix 36) characters. flakeid writes the same text for every ID CosId accepts (CosId's Java
/// `long` stops at 2^63 - 1; flakeid goes on to 2^64 - 1, which still fits the width). Zero is
/// written "0" unpadded. Decoding takes padded and unpadded text alike; radix 36 takes upper
/// case only, because its lower-case letters have other values in radix 62.
///
/// **Crockford base32** (crockford.com/base32.html): always 13 characters, the first holding the
/// top 4 bits, so comparing two texts byte-wise orders them as their IDs. Decoding ignores case
/// and reads O as 0 and I and L as 1, as Crockford specifies; U, hyphens, check symbols and
/// every other character are rejected.
///
/// **Friendly form.** `to_friendly(layout, id)` writes the time of the ID's tick as
/// `yyyyMMddHHmmssSSS` (UTC, or local time at a fixed offset), then each number field of the
/// layout in decimal, unpadded, after a '-'. The number fields appear in this fixed order, each
/// only when the layout has it:
///
///     yyyyMMddHHmmssSSS[-datacenter][-worker]-sequence[-gene]
///
/// so a CosId layout gives CosId's own text (`20220320133617924-5-0` at UTC+8 for
/// 295913926632165376), a Twitter layout gives `<time>-<datacenter>-<worker>-<sequence>`, and a
/// Mastodon layout `<time>-<sequence>`. Layouts whose tick and epoch are whole numbers of seconds
/// drop the milliseconds (`yyyyMMddHHmmss`), as CosId's SecondSnowflakeId does. The form covers years
/// 0000 to 9999.

#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "detail/civil_time.hpp"
#include "detail/text_util.hpp"
#include "errors.hpp"
#include "layout.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

// ---- JavaScript -------------------------------------------------------------------------------

/// The largest integer a JavaScript number holds exactly: 2^53 - 1 (`Number.MAX_SAFE_INTEGER`).
/// Every ID of the `layouts::cosid_js` preset is at most this, so it survives `JSON.parse`.
inline constexpr std::uint64_t javascript_safe_max = (std::uint64_t{1} << 53) - 1;

/// Whether `id` survives a trip through a JavaScript number (`id < 2^53`). IDs of most layouts
/// do not; send them as strings, or mint them with the `layouts::cosid_js` preset.
[[nodiscard]] constexpr bool is_javascript_safe(std::uint64_t id) noexcept {
  return id <= javascript_safe_max;
}

// ---- widths -------------------------------------------------------------------------------------

/// Whether radix text is left-padded with '0' to its full width.
enum class radix_padding : bool {
  none,  ///< as few characters as the value needs ("0" for 0)
  full,  ///< always the full width: 11 for radix 62, 13 for radix 36
};

/// Characters of radix 62 text for any 64-bit ID (CosId's `Radix62IdConverter.MAX_CHAR_SIZE`).
inline constexpr std::size_t radix62_width = 11;
/// Characters of radix 36 text for any 64-bit ID (CosId's `Radix36IdConverter.MAX_CHAR_SIZE`).
inline constexpr std::size_t radix36_width = 13;
/// Characters of Crockford base32 text, always.
inline constexpr std::size_t crockford32_width = 13;
/// The most characters a friendly form can take: 17 for the time, then up to four numbers of up
/// to 20 digits, each after a '-'.
inline constexpr std::size_t friendly_max_size = 17 + 4 * 21;

namespace detail {

// Radix digits in CosId's order: 0-9, A-Z, a-z.
inline constexpr char radix_digits[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
inline constexpr char crockford_digits[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

struct radix_form {
  unsigned radix;
  std::size_t width;
  const char* name;
  const char* alphabet;
};
inline constexpr radix_form radix62_form{62, radix62_width, "radix62", "0-9A-Za-z"};
inline constexpr radix_form radix36_form{36, radix36_width, "radix36", "0-9A-Z (upper case)"};

constexpr int radix_digit_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  if (c >= 'a' && c <= 'z') return c - 'a' + 36;
  return -1;
}

constexpr std::to_chars_result to_radix(char* first, char* last, std::uint64_t id,
                                        const radix_form& form, radix_padding pad) noexcept {
  char digits[radix36_width]{};
  std::size_t n = 0;
  do {
    digits[n++] = radix_digits[id % form.radix];
    id /= form.radix;
  } while (id != 0);
  const std::size_t len = pad == radix_padding::full ? form.width : n;
  if (static_cast<std::size_t>(last - first) < len) return {last, std::errc::value_too_large};
  for (std::size_t i = n; i < len; ++i) *first++ = '0';
  while (n != 0) *first++ = digits[--n];
  return {first, std::errc{}};
}

inline std::string to_radix_string(std::uint64_t id, const radix_form& form, radix_padding pad) {
  char buf[radix36_width];
  const auto r = to_radix(buf, buf + sizeof buf, id, form, pad);
  return {buf, r.ptr};
}

[[noreturn]] inline void reject_radix_empty(const radix_form& form) {
  throw invalid_id_error(std::string("flakeid: ") + form.name +
                         " text \"\" is empty; expected 1 to " + std::to_string(form.width) +
                         " characters of " + form.alphabet);
}
[[noreturn]] inline void reject_radix_length(const radix_form& form, std::string_view text) {
  throw invalid_id_error(std::string("flakeid: ") + form.name + " text " + quote(text) + " has " +
                         std::to_string(text.size()) + " characters; at most " +
                         std::to_string(form.width) + " allowed");
}
[[noreturn]] inline void reject_radix_char(const radix_form& form, std::string_view text,
                                           std::size_t index) {
  throw invalid_id_error(std::string("flakeid: ") + form.name + " text " + quote(text) + " has " +
                         quote_char(text[index]) + " at index " + std::to_string(index) +
                         "; allowed: " + form.alphabet);
}
[[noreturn]] inline void reject_radix_overflow(const radix_form& form, std::string_view text) {
  throw invalid_id_error(std::string("flakeid: ") + form.name + " text " + quote(text) +
                         " overflows 64 bits; the largest allowed is " +
                         quote(to_radix_string(UINT64_MAX, form, radix_padding::none)));
}

constexpr std::uint64_t from_radix(std::string_view text, const radix_form& form) {
  if (text.empty()) reject_radix_empty(form);
  if (text.size() > form.width) reject_radix_length(form, text);
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const int d = radix_digit_value(text[i]);
    if (d < 0 || d >= static_cast<int>(form.radix)) reject_radix_char(form, text, i);
    const auto digit = static_cast<std::uint64_t>(d);
    if (v > (UINT64_MAX - digit) / form.radix) reject_radix_overflow(form, text);
    v = v * form.radix + digit;
  }
  return v;
}

// Crockford's decoding: case-insensitive, O -> 0, I and L -> 1; U and the rest are not digits.
constexpr int crockford_digit_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  switch (c) {
    case 'O': return 0;
    case 'I':
    case 'L': return 1;
    case 'U': return -1;
    default: break;
  }
  for (int i = 10; i < 32; ++i)
    if (crockford_digits[i] == c) return i;
  return -1;
}

[[noreturn]] inline void reject_crockford_length(std::string_view text) {
  throw invalid_id_error("flakeid: Crockford base32 text " + quote(text) + " has " +
                         std::to_string(text.size()) + " characters; exactly 13 are required");
}
[[noreturn]] inline void reject_crockford_char(std::string_view text, std::size_t index) {
  throw invalid_id_error("flakeid: Crockford base32 text " + quote(text) + " has " +
                         quote_char(text[index]) + " at index " + std::to_string(index) +
                         "; allowed: 0-9A-HJKMNP-TV-Z in either case, O read as 0, I and L as 1");
}
[[noreturn]] inline void reject_crockford_overflow(std::string_view text) {
  throw invalid_id_error("flakeid: Crockford base32 text " + quote(text) +
                         " overflows 64 bits: its first character " + quote_char(text[0]) +
                         " must be 0-9 or A-F; the largest allowed is \"FZZZZZZZZZZZZ\"");
}

// ---- friendly form ---------------------------------------------------------------------------

inline constexpr std::int64_t friendly_offset_limit_min =
    std::int64_t{18} * 60;  // as java.time.ZoneOffset
// Local milliseconds of 0000-01-01T00:00:00.000 and 9999-12-31T23:59:59.999.
inline constexpr std::int64_t friendly_first_ms = -62'167'219'200'000;
inline constexpr std::int64_t friendly_last_ms = 253'402'300'799'999;

struct friendly_shape {
  field_kind kinds[4]{};
  std::size_t count = 0;
  std::size_t time_digits = 17;
};

constexpr friendly_shape friendly_shape_of(const layout& l) noexcept {
  friendly_shape s;
  for (const field_kind k :
       {field_kind::datacenter, field_kind::worker, field_kind::sequence, field_kind::gene})
    if (l.has(k)) s.kinds[s.count++] = k;
  // Seconds only when every ID's time falls on a whole second: tick and epoch both whole seconds.
  s.time_digits = l.tick_ms % 1000 == 0 && l.epoch_ms % 1000 == 0 ? 14 : 17;
  return s;
}

inline std::string friendly_pattern(const layout& l) {
  const friendly_shape s = friendly_shape_of(l);
  std::string p = s.time_digits == 14 ? "yyyyMMddHHmmss" : "yyyyMMddHHmmssSSS";
  for (std::size_t i = 0; i < s.count; ++i) {
    p += '-';
    p += to_string(s.kinds[i]);
  }
  return p;
}

inline std::string format_offset(std::int64_t minutes) {
  // Appended to one string: GCC 12 at -O3 warns -Wrestrict on `string + string&&` here.
  std::string s(1, minutes < 0 ? '-' : '+');
  s += std::to_string(minutes < 0 ? -minutes : minutes);
  s += " min";
  return s;
}

[[noreturn]] inline void reject_utc_offset(std::int64_t minutes) {
  throw invalid_option_error("flakeid: UTC offset " + std::to_string(minutes) +
                             " min is outside [-1080, 1080] min");
}
[[noreturn]] inline void reject_friendly_year(std::int64_t unix_ms, std::int64_t offset_min) {
  throw timestamp_overflow_error("flakeid: time " + format_utc(unix_ms) + " at UTC offset " +
                                 format_offset(offset_min) +
                                 " does not fit the friendly form's years 0000 to 9999");
}
[[noreturn]] inline void reject_friendly_time_digits(const layout& l, std::string_view text,
                                                     std::string_view time_text) {
  const std::string pattern = friendly_pattern(l);
  const std::size_t digits = friendly_shape_of(l).time_digits;
  throw invalid_id_error("flakeid: friendly ID " + quote(text) + " must start with " +
                         std::to_string(digits) + " digits " + pattern.substr(0, digits) +
                         "; got " + quote(time_text) + " (this layout's form is " + pattern + ")");
}
[[noreturn]] inline void reject_friendly_time_value(std::string_view text,
                                                    std::string_view time_text,
                                                    const civil_time& t) {
  throw invalid_id_error("flakeid: friendly ID " + quote(text) + " has an impossible time " +
                         quote(time_text) + ": " + civil_field_error(t));
}
[[noreturn]] inline void reject_friendly_count(const layout& l, std::string_view text,
                                               std::size_t got) {
  throw invalid_id_error("flakeid: friendly ID " + quote(text) + " has " + std::to_string(got) +
                         (got == 1 ? " number" : " numbers") +
                         " after the time; this layout's form is " + friendly_pattern(l));
}
[[noreturn]] inline void reject_friendly_number(std::string_view text, field_kind k,
                                                std::string_view part, std::size_t index) {
  throw invalid_id_error("flakeid: friendly ID " + quote(text) + " has " + quote(part) +
                         " at index " + std::to_string(index) + " where the " +
                         std::string(to_string(k)) + " goes; expected decimal digits");
}
[[noreturn]] inline void reject_friendly_range(std::string_view text, field_kind k,
                                               std::string_view value, std::size_t index,
                                               std::uint64_t max) {
  throw invalid_id_error("flakeid: friendly ID " + quote(text) + " has " +
                         std::string(to_string(k)) + " " + std::string(value) + " at index " +
                         std::to_string(index) + "; allowed [0, " + std::to_string(max) + "]");
}
[[noreturn]] inline void reject_friendly_time_range(std::string_view text, std::int64_t unix_ms,
                                                    const layout& l) {
  throw invalid_id_error("flakeid: friendly ID " + quote(text) + " has time " +
                         format_utc(unix_ms) + ", outside the layout's range [" +
                         format_utc(l.epoch()) + ", " + format_utc(l.expires_at()) + "]");
}

constexpr std::int64_t checked_offset_ms(std::chrono::minutes offset) {
  const auto m = static_cast<std::int64_t>(offset.count());
  if (m < -friendly_offset_limit_min || m > friendly_offset_limit_min) reject_utc_offset(m);
  return m * 60'000;
}

}  // namespace detail

// ---- radix 62 -------------------------------------------------------------------------------

/// Writes `id` in radix 62 (digits 0-9A-Za-z, CosId's order) to `[first, last)`.
/// Returns `{end, std::errc{}}`, or `{last, std::errc::value_too_large}` (nothing written) when
/// the buffer is shorter than the text; `radix62_width` characters always suffice.
constexpr std::to_chars_result to_radix62(char* first, char* last, std::uint64_t id,
                                          radix_padding pad = radix_padding::none) noexcept {
  return detail::to_radix(first, last, id, detail::radix62_form, pad);
}

/// `id` in radix 62, e.g. `to_radix62(62) == "10"`, `to_radix62(62, radix_padding::full) ==
/// "00000000010"`. Throws `std::bad_alloc` only.
[[nodiscard]] inline std::string to_radix62(std::uint64_t id,
                                            radix_padding pad = radix_padding::none) {
  return detail::to_radix_string(id, detail::radix62_form, pad);
}

/// The ID written as radix 62 text, padded or not.
/// Throws `invalid_id_error` for empty text, more than 11 characters, a character outside
/// 0-9A-Za-z, or a value past 2^64 - 1.
[[nodiscard]] constexpr std::uint64_t from_radix62(std::string_view text) {
  return detail::from_radix(text, detail::radix62_form);
}

// ---- radix 36 -------------------------------------------------------------------------------

/// Writes `id` in radix 36 (digits 0-9A-Z) to `[first, last)`; see `to_radix62` for the result.
/// `radix36_width` characters always suffice.
constexpr std::to_chars_result to_radix36(char* first, char* last, std::uint64_t id,
                                          radix_padding pad = radix_padding::none) noexcept {
  return detail::to_radix(first, last, id, detail::radix36_form, pad);
}

/// `id` in radix 36, e.g. `to_radix36(36) == "10"`. Throws `std::bad_alloc` only.
[[nodiscard]] inline std::string to_radix36(std::uint64_t id,
                                            radix_padding pad = radix_padding::none) {
  return detail::to_radix_string(id, detail::radix36_form, pad);
}

/// The ID written as radix 36 text, padded or not.
/// Throws `invalid_id_error` for empty text, more than 13 characters, a character outside
/// 0-9 and A-Z (lower case is refused: radix 36 text is upper case), or a value past 2^64 - 1.
[[nodiscard]] constexpr std::uint64_t from_radix36(std::string_view text) {
  return detail::from_radix(text, detail::radix36_form);
}

// ---- Crockford base32 ---------------------------------------------------------------------

/// Writes `id` as 13 characters of Crockford base32 (upper case) to `[first, last)`; see
/// `to_radix62` for the result. Text order equals numeric order.
constexpr std::to_chars_result to_crockford32(char* first, char* last, std::uint64_t id) noexcept {
  if (static_cast<std::size_t>(last - first) < crockford32_width)
    return {last, std::errc::value_too_large};
  *first++ = detail::crockford_digits[id >> 60];
  for (int shift = 55; shift >= 0; shift -= 5)
    *first++ = detail::crockford_digits[(id >> shift) & 0x1f];
  return {first, std::errc{}};
}

/// `id` as 13 characters of Crockford base32, e.g. `to_crockford32(32) == "0000000000010"`.
/// Throws `std::bad_alloc` only.
[[nodiscard]] inline std::string to_crockford32(std::uint64_t id) {
  std::string s(crockford32_width, '0');
  (void)to_crockford32(s.data(), s.data() + s.size(), id);
  return s;
}

/// The ID written as 13 characters of Crockford base32, in either case, O read as 0, I and L as 1.
/// Throws `invalid_id_error` for any other length, any other character (U included), or a first
/// character past F (a value past 2^64 - 1).
[[nodiscard]] constexpr std::uint64_t from_crockford32(std::string_view text) {
  if (text.size() != crockford32_width) detail::reject_crockford_length(text);
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const int d = detail::crockford_digit_value(text[i]);
    if (d < 0) detail::reject_crockford_char(text, i);
    if (i == 0 && d > 15) detail::reject_crockford_overflow(text);
    v = (v << 5) | static_cast<std::uint64_t>(d);
  }
  return v;
}

// ---- friendly form ------------------------------------------------------------------------

/// Writes the friendly form of `id` under layout `l` to `[first, last)`: the time of its tick as
/// `yyyyMMddHHmmssSSS` (at UTC plus `utc_offset`), then the layout's datacenter, worker, sequence
/// and gene in decimal, each after '-' and only when the layout has it (see the file comment).
/// Returns as `to_radix62` does; `friendly_max_size` characters always suffice.
/// Throws `invalid_id_error` when `id` sets a reserved bit of `l`, `timestamp_overflow_error` when
/// the time falls outside years 0000 to 9999, `invalid_option_error` for an offset beyond
/// ±18 h.
constexpr std::to_chars_result to_friendly(char* first, char* last, const layout& l,
                                           std::uint64_t id,
                                           std::chrono::minutes utc_offset = std::chrono::minutes{
                                               0}) {
  const std::int64_t offset_ms = detail::checked_offset_ms(utc_offset);
  const id_parts p = l.decompose(id);
  const auto unix_ms = static_cast<std::int64_t>(p.timestamp.time_since_epoch().count());
  if (unix_ms > detail::friendly_last_ms - offset_ms ||
      unix_ms < detail::friendly_first_ms - offset_ms)
    detail::reject_friendly_year(unix_ms, utc_offset.count());
  const detail::civil_time t = detail::civil_from_ms(unix_ms + offset_ms);
  const detail::friendly_shape shape = detail::friendly_shape_of(l);
  std::uint64_t values[4]{};
  std::size_t size = shape.time_digits;
  for (std::size_t i = 0; i < shape.count; ++i) {
    values[i] = l.extract(id, shape.kinds[i]);
    size += 1 + detail::decimal_width(values[i]);
  }
  if (static_cast<std::size_t>(last - first) < size) return {last, std::errc::value_too_large};
  char* out = detail::write_decimal(first, static_cast<std::uint64_t>(t.year), 4);
  out = detail::write_decimal(out, t.month, 2);
  out = detail::write_decimal(out, t.day, 2);
  out = detail::write_decimal(out, t.hour, 2);
  out = detail::write_decimal(out, t.minute, 2);
  out = detail::write_decimal(out, t.second, 2);
  if (shape.time_digits == 17) out = detail::write_decimal(out, t.millisecond, 3);
  for (std::size_t i = 0; i < shape.count; ++i) {
    *out++ = '-';
    out = detail::write_decimal(out, values[i]);
  }
  return {out, std::errc{}};
}

/// The friendly form of `id` under layout `l`, e.g. `20220320133617924-5-0` for CosId's
/// 295913926632165376 at `std::chrono::hours{8}`. Throws as the buffer form does.
[[nodiscard]] inline std::string to_friendly(const layout& l, std::uint64_t id,
                                             std::chrono::minutes utc_offset = std::chrono::minutes{
                                                 0}) {
  char buf[friendly_max_size];
  const auto r = to_friendly(buf, buf + sizeof buf, l, id, utc_offset);
  return {buf, r.ptr};
}

/// The ID whose friendly form under layout `l` (read at UTC plus `utc_offset`) is `text`. A time
/// inside a tick longer than 1 ms is floored to the tick, as `layout::compose` does. Numbers may
/// carry leading zeros.
/// Throws `invalid_id_error` when the time is not the layout's 17 (or 14) digits, names an
/// impossible date or time, or falls outside the layout's range; when the count of numbers after
/// it differs from the layout's; or when a number is not decimal digits or does not fit its
/// field. Throws `invalid_option_error` for an offset beyond ±18 h.
[[nodiscard]] constexpr std::uint64_t from_friendly(
    const layout& l, std::string_view text,
    std::chrono::minutes utc_offset = std::chrono::minutes{0}) {
  const std::int64_t offset_ms = detail::checked_offset_ms(utc_offset);
  const detail::friendly_shape shape = detail::friendly_shape_of(l);
  const std::size_t time_end = text.find('-');
  const std::string_view time_text = text.substr(0, time_end);
  detail::civil_time t;
  std::size_t pos = 0;
  unsigned year = 0;
  if (time_text.size() != shape.time_digits ||
      !detail::read_fixed_digits(time_text, pos, 4, year) ||
      !detail::read_fixed_digits(time_text, pos, 2, t.month) ||
      !detail::read_fixed_digits(time_text, pos, 2, t.day) ||
      !detail::read_fixed_digits(time_text, pos, 2, t.hour) ||
      !detail::read_fixed_digits(time_text, pos, 2, t.minute) ||
      !detail::read_fixed_digits(time_text, pos, 2, t.second) ||
      (shape.time_digits == 17 && !detail::read_fixed_digits(time_text, pos, 3, t.millisecond)))
    detail::reject_friendly_time_digits(l, text, time_text);
  t.year = static_cast<int>(year);
  if (!detail::civil_valid(t)) detail::reject_friendly_time_value(text, time_text, t);

  std::size_t parts = 0;
  for (std::size_t i = time_end; i != std::string_view::npos; i = text.find('-', i + 1)) ++parts;
  if (parts != shape.count) detail::reject_friendly_count(l, text, parts);

  std::uint64_t id = 0;
  std::size_t start = time_end + 1;
  for (std::size_t i = 0; i < shape.count; ++i) {
    const std::size_t end = text.find('-', start);
    const std::string_view part =
        text.substr(start, end == std::string_view::npos ? end : end - start);
    bool digits = !part.empty();
    for (const char c : part) digits = digits && detail::is_digit(c);
    if (!digits) detail::reject_friendly_number(text, shape.kinds[i], part, start);
    std::uint64_t v = 0;
    // A run of digits too long for 64 bits is out of range like any other large number.
    if (!detail::parse_decimal(part, v) || v > l.max_value(shape.kinds[i]))
      detail::reject_friendly_range(text, shape.kinds[i], part, start, l.max_value(shape.kinds[i]));
    id |= v << l.shift(shape.kinds[i]);
    start = end + 1;
  }

  const std::int64_t unix_ms = detail::ms_from_civil(t) - offset_ms;
  if (unix_ms < l.epoch_ms || unix_ms > l.expires_at().time_since_epoch().count())
    detail::reject_friendly_time_range(text, unix_ms, l);
  const auto ticks = static_cast<std::uint64_t>((unix_ms - l.epoch_ms) / l.tick_ms);
  return id | (ticks << l.shift(field_kind::timestamp));
}

// ---- without exceptions -----------------------------------------------------------------------

/// The ID that `text` spells in a form, or `std::nullopt` where the form's parser would throw
/// `invalid_id_error`: `try_parse(from_radix62, text)`, `try_parse(from_crockford32, text)`, or
/// `try_parse([&](std::string_view t) { return from_friendly(layout, t); }, text)`. For input
/// that is expected to be bad (a URL segment, a search box); every other error still throws.
template <class Parse>
[[nodiscard]] std::optional<std::uint64_t> try_parse(Parse&& parse, std::string_view text) {
  try {
    return std::forward<Parse>(parse)(text);
  } catch (const invalid_id_error&) {
    return std::nullopt;
  }
}

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
