// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file text_converter.hpp
/// IDs as configured text, the way CosId's ID converters write them (its `converter` settings:
/// `type`, `pad-start`, `char-size`, `prefix`, `suffix`): a number form (radix 62, radix 36 or
/// decimal), left-padded with '0' to a width or not, between a prefix and a suffix; and the
/// text read back.
///
///     flakeid::text_converter orders{{.form = flakeid::text_form::decimal, .pad = true,
///                                     .width = 7, .prefix = "ORD-"}};
///     orders.to_text(123);               // "ORD-0000123"
///     orders.from_text("ORD-0000123");   // 123
///
/// | setting | CosId (`cosid.*.converter`) | here |
/// |---|---|---|
/// | number form | `type`: `radix` (the default), `radix36`, `to_string`, `snowflake_friendly` | `form`: `radix62` (the default), `radix36`, `decimal`, `friendly` (needs `layout`); also `base32` |
/// | padding | `radix.pad-start` (true), `radix36.pad-start` (true), `to-string.pad-start` (false) | `pad` (unset: CosId's default for the form) |
/// | width | `char-size`: 11 (radix 62), 13 (radix 36), 11 (to_string) | `width` (0: CosId's default for the form) |
/// | prefix, suffix | `prefix`, `suffix` | `prefix`, `suffix` |
///
/// A radix form narrower than its full width (11 or 13 characters) holds IDs up to
/// `radix^width - 1` only, as in CosId: a larger ID is an `invalid_id_error`. Decimal text is
/// padded to at least `width` digits and never cut. Reading takes padded and unpadded text
/// alike. CosId's date and group prefixes (the time or the group at conversion, not the ID's)
/// are not offered: the friendly form (`to_friendly`, text.hpp) writes the ID's own time.
/// Thread-safety: a converter is immutable; every member may be called from any thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "detail/text_util.hpp"
#include "errors.hpp"
#include "layout.hpp"
#include "text.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// The number form of a `text_converter`.
enum class text_form {
  radix62,   ///< `0-9A-Za-z`, CosId's `Radix62IdConverter`
  radix36,   ///< `0-9A-Z`, CosId's `Radix36IdConverter`
  decimal,   ///< `0-9`, CosId's `ToStringIdConverter`
  base32,    ///< Crockford base 32, always 13 characters (`to_crockford32`): text order is
             ///< numeric order
  friendly,  ///< the ID's time and fields, CosId's `SnowflakeFriendlyIdConverter` (`to_friendly`);
             ///< needs `layout`
};

/// Settings of a `text_converter` (CosId's converter settings; see the file comment).
struct text_converter_options {
  /// The number form.
  text_form form = text_form::radix62;
  /// Left-pad the number with '0' to `width` characters; unset: CosId's default for the form
  /// (radix forms padded, decimal not).
  std::optional<bool> pad{};
  /// Characters of the number: for a radix form at most its full width (11 or 13), and the IDs
  /// it holds end at `radix^width - 1`; for decimal, the width padding fills up to (1 to 20).
  /// 0: CosId's default `char-size` (11 for radix 62 and decimal, 13 for radix 36).
  std::size_t width = 0;
  /// Text before the number.
  std::string prefix{};
  /// Text after the number.
  std::string suffix{};
  /// The IDs' layout, for the friendly form (which writes the time and fields it gives).
  std::optional<flakeid::layout> layout{};
  /// The friendly form's time zone: its offset from UTC (CosId uses the system's zone).
  std::chrono::minutes utc_offset{0};
};

/// Writes IDs as text by `text_converter_options` and reads them back. Throws
/// `invalid_option_error` from the constructor for a width out of range, naming it and the
/// range.
class text_converter {
 public:
  explicit text_converter(text_converter_options o = {}) : o_(std::move(o)) {
    if (o_.form == text_form::friendly && !o_.layout)
      throw invalid_option_error(
          "flakeid: the friendly text form needs the IDs' layout (text_converter_options::layout)");
    if (o_.form == text_form::base32 || o_.form == text_form::friendly) {
      if (o_.width != 0 || o_.pad)
        throw invalid_option_error(std::string("flakeid: the ") + name_of(o_.form) +
                                   " text form has a width of its own: give no width or pad");
      o_.pad = false;
      return;
    }
    const std::size_t full = full_width(o_.form);
    if (o_.width == 0) o_.width = o_.form == text_form::radix36 ? radix36_width : radix62_width;
    if (o_.width > full)
      throw invalid_option_error("flakeid: text converter width " + std::to_string(o_.width) +
                                 " is out of range [1, " + std::to_string(full) + "] for " +
                                 name_of(o_.form));
    if (!o_.pad) o_.pad = o_.form != text_form::decimal;
    if (o_.form != text_form::decimal && o_.width < full) {
      max_id_ = 1;
      for (std::size_t i = 0; i < o_.width; ++i) max_id_ *= radix_of(o_.form);
      --max_id_;
    }
  }

  /// The settings, with the defaults filled in (`pad` set, `width` not 0).
  [[nodiscard]] const text_converter_options& options() const noexcept { return o_; }

  /// The largest ID this converter writes: `radix^width - 1` for a radix form narrower than its
  /// full width, else 2^64 - 1.
  [[nodiscard]] std::uint64_t max_id() const noexcept { return max_id_; }

  /// The text of `id`. Throws `invalid_id_error` when `id` is above `max_id()`.
  [[nodiscard]] std::string to_text(std::uint64_t id) const {
    if (id > max_id_)
      throw invalid_id_error("flakeid: ID " + std::to_string(id) + " does not fit " +
                             std::to_string(o_.width) + " " + name_of(o_.form) +
                             " characters; at most " + std::to_string(max_id_));
    std::string number;
    switch (o_.form) {
      case text_form::radix62: number = to_radix62(id); break;
      case text_form::radix36: number = to_radix36(id); break;
      case text_form::decimal: number = std::to_string(id); break;
      case text_form::base32: number = to_crockford32(id); break;
      case text_form::friendly: number = to_friendly(*o_.layout, id, o_.utc_offset); break;
    }
    std::string out = o_.prefix;
    if (*o_.pad && number.size() < o_.width) out.append(o_.width - number.size(), '0');
    return out.append(number).append(o_.suffix);
  }

  /// The ID of `text`. Throws `invalid_id_error` naming the text when it lacks the prefix or the
  /// suffix, or when the number between them is empty, longer than the width (radix forms; 20
  /// digits for decimal), has a character outside the form's alphabet, or passes 64 bits.
  [[nodiscard]] std::uint64_t from_text(std::string_view text) const {
    if (text.size() < o_.prefix.size() + o_.suffix.size() ||
        text.substr(0, o_.prefix.size()) != o_.prefix)
      reject(text, "does not start with the prefix " + detail::quote(o_.prefix));
    if (text.substr(text.size() - o_.suffix.size()) != o_.suffix)
      reject(text, "does not end with the suffix " + detail::quote(o_.suffix));
    const std::string_view number =
        text.substr(o_.prefix.size(), text.size() - o_.prefix.size() - o_.suffix.size());
    if (number.empty()) reject(text, "has no number between its prefix and suffix");
    switch (o_.form) {
      case text_form::radix62:
      case text_form::radix36:
        if (number.size() > o_.width)
          reject(text, "has " + std::to_string(number.size()) + " " + name_of(o_.form) +
                           " characters; at most " + std::to_string(o_.width) + " allowed");
        try {
          return o_.form == text_form::radix62 ? from_radix62(number) : from_radix36(number);
        } catch (const invalid_id_error& e) {
          rethrow_naming(text, e);
        }
      case text_form::base32:
      case text_form::friendly:
        try {
          return o_.form == text_form::base32 ? from_crockford32(number)
                                              : from_friendly(*o_.layout, number, o_.utc_offset);
        } catch (const invalid_id_error& e) {
          rethrow_naming(text, e);
        }
      case text_form::decimal: break;
    }
    return from_decimal(text, number);
  }

 private:
  static constexpr std::size_t decimal_width = 20;  // 2^64 - 1 has 20 digits

  static constexpr std::size_t full_width(text_form f) noexcept {
    return f == text_form::radix62   ? radix62_width
           : f == text_form::radix36 ? radix36_width
                                     : decimal_width;
  }
  static constexpr std::uint64_t radix_of(text_form f) noexcept {
    return f == text_form::radix62 ? 62 : 36;
  }
  static constexpr const char* name_of(text_form f) noexcept {
    switch (f) {
      case text_form::radix62: return "radix62";
      case text_form::radix36: return "radix36";
      case text_form::decimal: return "decimal";
      case text_form::base32: return "base32";
      case text_form::friendly: return "friendly";
    }
    return "?";
  }

  /// The same words as `e`, naming the whole text.
  [[noreturn]] static void rethrow_naming(std::string_view text, const invalid_id_error& e) {
    const std::string_view why = e.what();
    throw invalid_id_error("flakeid: text " + detail::quote(text) + ": " +
                           std::string(why.substr(why.find(' ') + 1)));
  }

  [[noreturn]] static void reject(std::string_view text, const std::string& why) {
    throw invalid_id_error("flakeid: text " + detail::quote(text) + " " + why);
  }

  static std::uint64_t from_decimal(std::string_view text, std::string_view number) {
    if (number.size() > decimal_width)
      reject(text, "has " + std::to_string(number.size()) + " digits; at most 20 allowed");
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < number.size(); ++i) {
      const char c = number[i];
      if (c < '0' || c > '9')
        reject(text, "has " + detail::quote_char(c) + " in its number at index " +
                         std::to_string(i) + "; allowed: 0-9");
      const auto digit = static_cast<std::uint64_t>(c - '0');
      if (v > (UINT64_MAX - digit) / 10) reject(text, "overflows 64 bits");
      v = v * 10 + digit;
    }
    return v;
  }

  text_converter_options o_;
  std::uint64_t max_id_ = UINT64_MAX;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
