// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file registry/config.hpp
/// Reading one registry entry of a JSON configuration: `registry_error` (every error names the
/// entry and the field) and `detail::entry_reader`, which checks each field's type and range
/// and refuses fields it does not know (a misspelt `"stpe"` is an error, not a default).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../errors.hpp"
#include "../text_converter.hpp"
#include "../version.hpp"
#include "json.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// A registry configuration that cannot be used: the message names the entry (when there is
/// one), the field and what is allowed, never a password. An error from building an entry (a
/// store that refuses, no free worker id) is nested in it (`std::rethrow_if_nested`).
class registry_error : public invalid_option_error {
 public:
  registry_error(std::string entry, std::string field, const std::string& what)
      : invalid_option_error(message(entry, field, what)),
        entry_(std::move(entry)),
        field_(std::move(field)) {}
  /// The entry's name; empty for an error of the whole configuration.
  [[nodiscard]] const std::string& entry() const noexcept { return entry_; }
  /// The field; empty for an error of the whole entry.
  [[nodiscard]] const std::string& field() const noexcept { return field_; }

 private:
  static std::string message(const std::string& entry, const std::string& field,
                             const std::string& what) {
    std::string m = "flakeid: registry";
    if (!entry.empty()) m += " entry '" + entry + "'";
    if (!field.empty()) m += ", field '" + field + "'";
    return m + ": " + what;
  }
  std::string entry_;
  std::string field_;
};

namespace detail {

/// The message of a library error inside a registry error: without its "flakeid: ".
[[nodiscard]] inline std::string inner_message(const std::exception& e) {
  std::string_view m = e.what();
  if (m.starts_with("flakeid: ")) m.remove_prefix(9);
  return std::string(m);
}

/// Whether `name` may name a registry entry: 1 to 64 of [A-Za-z0-9_.-] (it is a path segment
/// of the ID service's URLs).
[[nodiscard]] inline bool valid_entry_name(std::string_view name) noexcept {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

/// The scheme of a store URI (`redis` of `redis://…`, `memory` of `memory:`), or empty.
[[nodiscard]] inline std::string_view uri_scheme(std::string_view uri) noexcept {
  const auto colon = uri.find(':');
  return colon == std::string_view::npos ? std::string_view{} : uri.substr(0, colon);
}

/// Reads the fields of one JSON object of entry `entry`; `path` prefixes field names
/// (`lease.` for the fields of an entry's lease).
class entry_reader {
 public:
  entry_reader(const json_value& object, std::string entry, std::string path = {})
      : j_(object), entry_(std::move(entry)), path_(std::move(path)) {
    if (!j_.is_object())
      throw registry_error(entry_, path_.empty() ? "" : path_.substr(0, path_.size() - 1),
                           "must be a JSON object, not " + std::string(j_.type_name()));
  }

  /// Throws for a field not in `known`.
  void only(std::initializer_list<std::string_view> known) const {
    for (const std::string& key : j_.keys()) {
      bool ok = false;
      for (const std::string_view k : known) ok = ok || k == key;
      if (ok) continue;
      std::string list;
      for (const std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      throw registry_error(entry_, path_ + key, "unknown field (allowed: " + list + ")");
    }
  }

  [[nodiscard]] bool has(const char* key) const { return j_.find(key) != nullptr; }
  /// The field `key`, which `has`.
  [[nodiscard]] const json_value& at(const char* key) const { return *j_.find(key); }

  [[nodiscard]] std::optional<std::string> text(const char* key) const {
    const json_value* v = j_.find(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) fail(key, "must be a string, not " + std::string(v->type_name()));
    return v->text();
  }
  [[nodiscard]] std::string required_text(const char* key) const {
    auto v = text(key);
    if (!v || v->empty()) fail(key, "is required (a non-empty string)");
    return *v;
  }
  [[nodiscard]] std::optional<std::uint64_t> number(
      const char* key, std::uint64_t lo = 0,
      std::uint64_t hi = std::numeric_limits<std::uint64_t>::max()) const {
    const json_value* v = j_.find(key);
    if (v == nullptr) return std::nullopt;
    const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    const auto whole = v->whole<std::uint64_t>();
    if (!whole) fail(key, "must be a whole number in " + range + ", not " + v->dump());
    const std::uint64_t n = *whole;
    if (n < lo || n > hi) fail(key, std::to_string(n) + " is out of range " + range);
    return n;
  }
  [[nodiscard]] std::optional<std::chrono::milliseconds> millis(const char* key,
                                                                std::uint64_t lo = 0) const {
    const auto n = number(key, lo, static_cast<std::uint64_t>(INT64_MAX / 1'000'000));
    if (!n) return std::nullopt;
    return std::chrono::milliseconds{static_cast<std::int64_t>(*n)};
  }
  [[nodiscard]] std::optional<bool> flag(const char* key) const {
    const json_value* v = j_.find(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_boolean()) fail(key, "must be true or false, not " + v->dump());
    return v->boolean();
  }

  [[noreturn]] void fail(const char* key, const std::string& what) const {
    throw registry_error(entry_, path_ + key, what);
  }
  [[nodiscard]] const std::string& entry() const noexcept { return entry_; }

 private:
  const json_value& j_;
  std::string entry_;
  std::string path_;
};

/// An entry's `"text"` object: the settings of its `text_converter` (CosId's converter
/// settings); the friendly form's layout is the entry's, filled in by the caller.
inline text_converter_options read_converter(const json_value& j, const std::string& entry) {
  const entry_reader r(j, entry, "text.");
  r.only({"form", "pad", "width", "prefix", "suffix", "utc_offset_minutes"});
  text_converter_options o;
  if (const auto form = r.text("form")) {
    constexpr std::pair<std::string_view, text_form> forms[] = {{"radix62", text_form::radix62},
                                                                {"radix36", text_form::radix36},
                                                                {"decimal", text_form::decimal},
                                                                {"base32", text_form::base32},
                                                                {"friendly", text_form::friendly}};
    const auto* it = std::find_if(std::begin(forms), std::end(forms),
                                  [&](const auto& f) { return f.first == *form; });
    if (it == std::end(forms))
      r.fail("form", "'" + *form + "' is not a form (radix62, radix36, decimal, base32, friendly)");
    o.form = it->second;
  }
  o.pad = r.flag("pad");
  o.width = static_cast<std::size_t>(r.number("width", 0, 20).value_or(0));
  o.prefix = r.text("prefix").value_or("");
  o.suffix = r.text("suffix").value_or("");
  if (r.has("utc_offset_minutes")) {
    const json_value& v = r.at("utc_offset_minutes");
    const auto minutes = v.whole<std::int64_t>();
    if (!minutes || *minutes < -1080 || *minutes > 1080)
      r.fail("utc_offset_minutes", "must be a whole number in [-1080, 1080], not " + v.dump());
    o.utc_offset = std::chrono::minutes{*minutes};
  }
  return o;
}

/// The converter of entry `entry` from `o`; a setting it refuses names the field `text`.
inline text_converter make_converter(text_converter_options o, const std::string& entry) {
  try {
    return text_converter(std::move(o));
  } catch (const std::exception& e) {
    throw registry_error(entry, "text", inner_message(e));
  }
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
