// Text forms of IDs: decimal, radix62, radix36, base32, friendly; reading IDs (see core.hpp).
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
#include <istream>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <flakeid/text.hpp>

namespace flakeid_cli {
std::string_view form_name(text_form f) {
  switch (f) {
    case text_form::decimal: return "decimal";
    case text_form::radix62: return "radix62";
    case text_form::radix36: return "radix36";
    case text_form::base32: return "base32";
    case text_form::friendly: return "friendly";
  }
  return "decimal";
}

text_form read_form(std::string_view command, std::string_view option, std::string_view name,
                    bool allow_decimal) {
  if (name == "radix62") return text_form::radix62;
  if (name == "radix36") return text_form::radix36;
  if (name == "base32" || name == "crockford32") return text_form::base32;
  if (name == "friendly") return text_form::friendly;
  if (allow_decimal && name == "decimal") return text_form::decimal;
  fail("flakeid " + std::string(command) + ": " + std::string(option) + " " + quote(name) +
       " is not a text form; allowed: " + (allow_decimal ? "decimal, " : "") +
       "radix62, radix36, base32, friendly");
}

std::uint64_t read_id(std::string_view command, std::string_view text, text_form form,
                      const flakeid::layout& l) {
  switch (form) {
    case text_form::decimal: return read_number(command, "ID", text);
    case text_form::radix62: return flakeid::from_radix62(text);
    case text_form::radix36: return flakeid::from_radix36(text);
    case text_form::base32: return flakeid::from_crockford32(text);
    case text_form::friendly: return flakeid::from_friendly(l, text);
  }
  return 0;
}

std::string write_id(std::uint64_t id, text_form form, const flakeid::layout& l,
                     flakeid::radix_padding pad) {
  switch (form) {
    case text_form::decimal: return std::to_string(id);
    case text_form::radix62: return flakeid::to_radix62(id, pad);
    case text_form::radix36: return flakeid::to_radix36(id, pad);
    case text_form::base32: return flakeid::to_crockford32(id);
    case text_form::friendly: return flakeid::to_friendly(l, id);
  }
  return {};
}

namespace {

bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
bool is_letter(char ch) { return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'); }

/// Why `text` is not in form `f` when the form's own reader accepts it but detection must not
/// take it, else empty: a word without digits is a word (radix62, radix36), and the friendly
/// form starts with 17 digits and a '-'.
std::string not_detected(text_form f, std::string_view text) {
  if (f == text_form::decimal && !text.empty() && text[0] == '-') return "IDs are not negative";
  if (f == text_form::decimal) return "not all digits";
  if (f == text_form::friendly && text.find('-') == std::string_view::npos) return "no '-'";
  if ((f == text_form::radix62 || f == text_form::radix36) &&
      std::none_of(text.begin(), text.end(), is_digit) && text.size() <= flakeid::radix36_width &&
      std::all_of(text.begin(), text.end(), is_letter))
    return "a word without digits is not taken for an ID";
  return {};
}

}  // namespace

/// All digits is decimal. Other text is tried in every other form, friendly (text with a '-'),
/// radix62, radix36 and base32, and read in the one form that accepts it; a word of letters only
/// is not taken for radix62 or radix36. Several forms: bad input naming each with its number;
/// none: bad input naming the forms tried and why each refused.
detected_id read_any_form(std::string_view command, std::string_view text,
                          const flakeid::layout& l) {
  if (text.empty()) fail("an empty text is not an ID");
  if (std::all_of(text.begin(), text.end(), is_digit))
    return {text_form::decimal, read_id(command, text, text_form::decimal, l)};
  std::vector<detected_id> accepted;
  std::vector<std::string> refused{"decimal (" + not_detected(text_form::decimal, text) + ")"};
  for (const text_form f :
       {text_form::friendly, text_form::radix62, text_form::radix36, text_form::base32}) {
    std::string why = not_detected(f, text);
    if (why.empty()) {
      try {
        accepted.push_back({f, read_id(command, text, f, l)});
        continue;
      } catch (const std::invalid_argument& e) {
        why = e.what();
      } catch (const std::out_of_range& e) {
        why = e.what();
      } catch (const flakeid::timestamp_overflow_error& e) {
        why = e.what();
      }
      if (why.starts_with("flakeid: ")) why.erase(0, 9);
      if (text.size() > flakeid::radix36_width && f != text_form::friendly)
        why = "the longest form has 13 characters";
    }
    refused.push_back(std::string(form_name(f)) + " (" + why + ")");
  }
  if (accepted.size() == 1) return accepted.front();
  if (accepted.empty()) {
    std::string tried;
    for (const std::string& r : refused) {
      if (!tried.empty()) tried += ", ";
      tried += r;
    }
    fail(quote(text) + " is not an ID in any text form; tried " + tried);
  }
  std::vector<std::string> found;
  std::string names;
  for (const detected_id& d : accepted) {
    found.push_back(std::string(form_name(d.form)) + " (" + std::to_string(d.id) + ")");
    if (!names.empty()) names += '|';
    names += form_name(d.form);
  }
  const std::vector<std::string_view> views(found.begin(), found.end());
  fail(quote(text) + " could be " + one_of(views) + "; pass --from " + names);
}

/// The IDs a command reads: its operands, with standard input (split at white space) read for
/// '-' or when there are none.
std::vector<std::string> gather_ids(const context& c, const arguments& a) {
  std::vector<std::string> ids;
  const auto read_input = [&] {
    if (c.io.in == nullptr) fail("give at least one ID; see 'flakeid " + c.command + " --help'");
    std::string token;
    while (*c.io.in >> token) ids.push_back(token);
    c.io.in->clear();
  };
  if (a.operands.empty()) {
    if (c.io.in == nullptr || c.io.in_is_terminal)
      fail("give at least one ID (or '-' and IDs on standard input); see 'flakeid " + c.command +
           " --help'");
    read_input();
    return ids;
  }
  bool read = false;
  for (const std::string_view op : a.operands) {
    if (op == "-") {
      if (!read) read_input();
      read = true;
    } else {
      ids.emplace_back(op);
    }
  }
  return ids;
}

}  // namespace flakeid_cli
