// Output records: text lines, JSON lines or TSV (see core.hpp).
#include "core.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
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

format read_format(const arguments& a) {
  const std::string_view f = a.get("--format").value_or("text");
  if (f == "text") return format::text;
  if (f == "json") return format::json;
  if (f == "tsv") return format::tsv;
  fail("format " + quote(f) + " is unknown; allowed: text, json, tsv");
}

/// `s` as a JSON string, quotes included: '"', '\' and control characters escaped; bytes past
/// ASCII are written \u00XX so that the output is valid JSON whatever the input.
void append_json_string(std::string& out, std::string_view s) {
  constexpr std::string_view hex = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          out += "\\u00";
          out += hex[c >> 4U];
          out += hex[c & 0xfU];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

/// `s` for a TSV cell: tab, newline, carriage return and backslash escaped.
void append_tsv_cell(std::string& out, std::string_view s) {
  for (const char ch : s) {
    switch (ch) {
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default: out += ch;
    }
  }
}

/// `value` in decimal with `decimals` digits after the point ("12.5"), as printf's %.*f in the
/// C locale.
std::string fixed(double value, int decimals) {
  std::array<char, 512> text{};  // %f of the largest double has 309 digits
  const int n = std::snprintf(text.data(), text.size(), "%.*f", decimals, value);
  if (n <= 0) return "0";
  return {text.data(), std::min(static_cast<std::size_t>(n), text.size() - 1)};
}

void record_writer::begin() {
  row_start_ = buffer_.size();
  first_ = true;
  if (format_ == format::json) buffer_ += '{';
}

void record_writer::str(std::string_view key, std::string_view value) {
  next_cell(key);
  if (format_ == format::json) {
    append_json_string(buffer_, value);
  } else {
    append_tsv_cell(buffer_, value);
  }
}

void record_writer::num(std::string_view key, std::int64_t value) {
  next_cell(key);
  buffer_ += std::to_string(value);
}

void record_writer::unum(std::string_view key, std::uint64_t value) {
  next_cell(key);
  buffer_ += std::to_string(value);
}

void record_writer::real(std::string_view key, double value, int decimals) {
  next_cell(key);
  if (!std::isfinite(value)) {
    if (format_ == format::json) buffer_ += "null";
    return;
  }
  buffer_ += fixed(value, decimals);
}

void record_writer::end() {
  if (format_ == format::json) buffer_ += '}';
  buffer_ += '\n';
  if (format_ == format::tsv && !header_done_) {
    header_ += '\n';
    buffer_.insert(row_start_, header_);
    header_done_ = true;
  }
}

void record_writer::line(std::string_view text) {
  buffer_ += text;
  buffer_ += '\n';
}

void record_writer::flush(const context& c) {
  emit(c, buffer_);
  buffer_.clear();
}

void record_writer::next_cell(std::string_view key) {
  if (!first_) buffer_ += format_ == format::json ? ',' : '\t';
  if (format_ == format::json) {
    append_json_string(buffer_, key);
    buffer_ += ':';
  } else if (!header_done_) {
    if (!first_) header_ += '\t';
    append_tsv_cell(header_, key);
  }
  first_ = false;
}

}  // namespace flakeid_cli
