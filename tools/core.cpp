// The shared core of the tool: messages, exit statuses, the argument parser (see core.hpp).
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
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flakeid_cli {
[[noreturn]] void fail(const std::string& msg) { throw usage_error(msg); }

/// `s` in single quotes for a message: printable ASCII as is, other bytes as \xNN, cut after 80.
std::string quote(std::string_view s) {
  constexpr std::size_t max_shown = 80;
  constexpr std::string_view hex = "0123456789abcdef";
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4U];
      out += hex[c & 0xfU];
    }
  }
  if (s.size() > max_shown) out += "...";
  out += '\'';
  return out;
}

/// "a", "a or b", "a, b or c".
std::string one_of(std::span<const std::string_view> items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) s += i + 1 == items.size() ? " or " : ", ";
    s += items[i];
  }
  return s;
}

namespace {

/// The edit distance between `a` and `b` (insertions, deletions, substitutions, swaps).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev2(b.size() + 1);
  std::vector<std::size_t> prev(b.size() + 1);
  std::vector<std::size_t> cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

}  // namespace

/// The candidate closest to `typed` when it is close enough to be a typo (or `typed` is a
/// prefix of it), else empty.
std::string_view closest(std::string_view typed, std::span<const std::string_view> candidates) {
  std::string_view best;
  std::size_t best_distance = SIZE_MAX;
  for (const std::string_view c : candidates) {
    const std::size_t d = edit_distance(typed, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  const std::size_t allowed = std::max<std::size_t>(1, std::min<std::size_t>(2, typed.size() / 3));
  if (best_distance <= allowed) return best;
  for (const std::string_view c : candidates)
    if (typed.size() >= 3 && c.starts_with(typed)) return c;
  return {};
}

// ---- the run -----------------------------------------------------------------------------------

void context::note(const std::string& msg) const {
  if (!quiet) io.err << prefix() << msg << '\n';
}

namespace {

/// `msg` on one line, starting with "flakeid <command>:" (library messages start "flakeid:").
std::string one_line(const context& c, std::string msg) {
  for (char& ch : msg)
    if (ch == '\n' || ch == '\r') ch = ' ';
  const std::string own = "flakeid " + c.command;
  if (!c.command.empty() && msg.starts_with(own) && msg.size() > own.size() &&
      (msg[own.size()] == ':' || msg[own.size()] == ' '))
    return msg;
  if (msg.starts_with("flakeid: ")) msg.erase(0, 9);
  return c.prefix() + msg;
}

/// Whether `msg` names C++ internals (a standard library function or type) rather than input.
bool names_internals(std::string_view msg) {
  constexpr std::array<std::string_view, 9> tokens{
      "std::",    "basic_string", "_M_",   "bad_alloc", "bad_array",
      "vector::", "stoull",       "stoll", "__cxx"};
  return std::any_of(tokens.begin(), tokens.end(),
                     [&](std::string_view t) { return msg.find(t) != std::string_view::npos; });
}

}  // namespace

void report(const context& c, const std::string& msg) { c.io.err << one_line(c, msg) << '\n'; }

/// The exit status for `e` (reported on stderr): 2 for bad input, 1 for anything else.
int report_exception(const context& c, const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    report(c, "out of memory");
    return exit_failure;
  } catch (const std::invalid_argument& x) {  // usage errors, bad layouts, bad ID text, SQL
    report(c, names_internals(x.what()) ? "invalid argument" : x.what());
    return exit_usage;
  } catch (const std::out_of_range& x) {  // a worker, datacenter or gene too large for the layout
    report(c, names_internals(x.what()) ? "a number is out of range" : x.what());
    return exit_usage;
  } catch (const flakeid::timestamp_overflow_error& x) {  // a time outside the layout's range
    report(c, x.what());
    return exit_usage;
  } catch (const flakeid::worker_id_error& x) {  // FLAKEID_WORKER_ID is not a number
    report(c, x.what());
    return exit_usage;
  } catch (const std::exception& x) {
    report(c, names_internals(x.what()) ? "internal error" : x.what());
    return exit_failure;
  } catch (...) {
    report(c, "internal error");
    return exit_failure;
  }
}

/// Writes `text` to standard output; a stream that failed is a write error.
void emit(const context& c, std::string_view text) {
  c.io.out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!c.io.out) throw write_error("cannot write to standard output");
}

int print_help(const context& c, std::string_view text) {
  emit(c, text);
  return exit_ok;
}

/// Reads a command's options: `--name value`, `--name=value`, `-n3`, `-n 3`; `--` ends the
/// options; `-` and text starting with '-' and a digit (a time such as -15m) are operands.
arguments read_arguments(context& c, std::span<const std::string> argv,
                         std::span<const option_spec> allowed) {
  arguments a;
  bool options_done = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string_view arg = argv[i];
    if (options_done || arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) {
      a.operands.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      a.help = true;
      continue;
    }
    if (arg == "--quiet" || arg == "-q") {
      c.quiet = true;
      continue;
    }
    const bool long_option = arg.starts_with("--");
    const std::size_t eq = long_option ? arg.find('=') : std::string_view::npos;
    const std::string_view name = long_option ? arg.substr(0, eq) : arg.substr(0, 2);
    std::optional<std::string_view> inline_value;
    if (long_option && eq != std::string_view::npos) inline_value = arg.substr(eq + 1);
    if (!long_option && arg.size() > 2) inline_value = arg.substr(2);

    const option_spec* spec = nullptr;
    for (const auto& o : allowed)
      if (o.name == name) spec = &o;
    if (spec == nullptr || (!long_option && inline_value && !spec->takes_value)) {
      std::vector<std::string_view> names{"--help", "--quiet"};
      for (const auto& o : allowed) names.push_back(o.name);
      const std::string_view typed = long_option ? name : arg;
      const std::string_view guess = closest(typed, names);
      if (!guess.empty())
        fail("unknown option " + quote(typed) + "; did you mean " + std::string(guess) + "?");
      fail("unknown option " + quote(typed) + "; see 'flakeid " + c.command + " --help'");
    }
    const std::string_view canonical = spec->alias_of.empty() ? spec->name : spec->alias_of;
    if (const option_value* before = a.find(canonical)) {
      if (before->typed == name) fail("option " + quote(name) + " is given twice");
      fail("options " + quote(before->typed) + " and " + quote(name) +
           " are the same option; give it once");
    }
    std::string_view value;
    if (spec->takes_value) {
      if (inline_value) {
        value = *inline_value;
      } else if (i + 1 < argv.size()) {
        value = argv[++i];
      } else {
        fail("option " + quote(name) + " needs a value");
      }
    } else if (inline_value) {
      fail("option " + quote(name) + " takes no value");
    }
    a.options.push_back({canonical, name, value});
  }
  return a;
}

/// Reads `text` as an unsigned decimal number no larger than `max`.
std::uint64_t read_number(std::string_view command, std::string_view what, std::string_view text,
                          std::uint64_t max) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || v > max)
    fail("flakeid " + std::string(command) + ": " + std::string(what) + " " + quote(text) +
         " is not a decimal number in [0, " + std::to_string(max) + "]");
  return v;
}

std::uint64_t read_count(std::string_view command, std::string_view what, std::string_view text,
                         std::uint64_t min, std::uint64_t max) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || v < min || v > max)
    fail("flakeid " + std::string(command) + ": " + std::string(what) + " " + quote(text) +
         " is not a decimal number in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return v;
}

flakeid::layout read_layout(const arguments& a, std::string_view fallback) {
  return flakeid::parse_layout(a.get("--layout").value_or(fallback));
}

namespace {

/// Whether `text` is an SQL column name: identifiers [A-Za-z_][A-Za-z0-9_]* or double-quoted
/// names ("" for a quote inside), joined by '.' (table.column, schema.table.column).
bool is_sql_name(std::string_view text) {
  if (text.empty()) return false;
  std::size_t i = 0;
  while (true) {
    if (i < text.size() && text[i] == '"') {
      std::size_t j = i + 1;
      bool closed = false;
      bool empty = true;
      while (j < text.size()) {
        const auto ch = static_cast<unsigned char>(text[j]);
        if (ch == '"') {
          if (j + 1 < text.size() && text[j + 1] == '"') {
            j += 2;
            empty = false;
            continue;
          }
          closed = true;
          ++j;
          break;
        }
        if (ch < 0x20 || ch == 0x7f) return false;
        empty = false;
        ++j;
      }
      if (!closed || empty) return false;
      i = j;
    } else {
      const std::size_t start = i;
      while (i < text.size()) {
        const char ch = text[i];
        const bool letter = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_';
        const bool digit = ch >= '0' && ch <= '9';
        if (!letter && !(digit && i != start)) break;
        ++i;
      }
      if (i == start) return false;
    }
    if (i == text.size()) return true;
    if (text[i] != '.') return false;
    ++i;
  }
}

}  // namespace

std::string layout_name(const arguments& a, std::string_view fallback) {
  return std::string(a.get("--layout").value_or(fallback));
}

std::string pad_right(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string pad_left(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

std::string_view read_column(const arguments& a) {
  const std::string_view column = a.get("--column").value_or("id");
  if (!is_sql_name(column))
    fail("--column " + quote(column) +
         " is not an SQL identifier: letters, digits and _, not starting with a digit (a.b for a "
         "qualified name), or a double-quoted name");
  return column;
}

// ---- preset layouts ----------------------------------------------------------------------------

std::size_t preset_index(std::string_view command, const flakeid::layout& l, std::string_view name,
                         std::string_view doing) {
  for (std::size_t i = 0; i < preset_count; ++i)
    if (flakeid::layout_by_name(flakeid::preset_names()[i]) == l) return i;
  fail("flakeid " + std::string(command) + ": layout " + quote(name) +
       " is not a preset; generators take their layout at compile time, so " + std::string(doing) +
       " a custom layout from a program (flakeid::classic_snowflake<my_layout>); 'flakeid "
       "layouts' lists the presets");
}

bool keyed_layout(const flakeid::layout& l) {
  return l.has(flakeid::field_kind::gene) && l.shift(flakeid::field_kind::gene) == 0;
}

}  // namespace flakeid_cli
