// HTTP/1.1 request heads and answers for flakeid-serve (http_message.hpp).
#include "http_message.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <system_error>

namespace flakeid_serve::http {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool same_letters(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

/// Whether the comma-separated list `v` (a Connection header) names `token`.
bool lists(std::string_view v, std::string_view token) {
  while (!v.empty()) {
    const auto comma = v.find(',');
    if (same_letters(trim(v.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return false;
}

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 503: return "Service Unavailable";
    default: return status < 500 ? "Bad Request" : "Internal Server Error";
  }
}

/// The line at the front of `rest`, which it leaves: lines end with CRLF or a bare LF (RFC
/// 9112, 2.2, as curl, nc and most servers allow), and the CR is not part of the line.
std::string_view take_line(std::string_view& rest) {
  const auto lf = rest.find('\n');
  std::string_view line = rest.substr(0, lf);
  rest = lf == std::string_view::npos ? std::string_view{} : rest.substr(lf + 1);
  if (line.ends_with('\r')) line.remove_suffix(1);
  return line;
}

/// Fills `h` from the head `text` (without its blank line); sets `h.refused` on bad input.
void read_head(std::string_view text, detail::head& h) {
  const auto refuse = [&h](std::string why) {
    h.refused = 400;
    h.why = std::move(why);
    h.keep_alive = false;
  };
  for (auto cr = text.find('\r'); cr != std::string_view::npos; cr = text.find('\r', cr + 1))
    if (cr + 1 == text.size() || text[cr + 1] != '\n')
      return refuse("a CR in the request head is not followed by LF");
  std::string_view rest = text;
  const std::string_view line = take_line(rest);
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos ||
      sp1 == 0)
    return refuse("a request line is METHOD TARGET HTTP/1.1");
  h.req.method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (version == "HTTP/1.0") {
    h.http10 = true;
    h.keep_alive = false;
  } else if (version != "HTTP/1.1") {
    return refuse("only HTTP/1.0 and HTTP/1.1 are served");
  }
  if (!target.starts_with('/')) return refuse("a request target starts with '/'");
  const auto q = target.find('?');
  if (!detail::percent_decode(target.substr(0, q), h.req.path, false))
    return refuse("the path has a bad % escape");
  if (q != std::string_view::npos) h.req.query = target.substr(q + 1);

  std::optional<std::size_t> length;
  while (!rest.empty()) {
    const std::string_view field = take_line(rest);
    const auto colon = field.find(':');
    if (colon == std::string_view::npos || colon == 0 || field.front() == ' ' ||
        field.front() == '\t')
      return refuse("a header line is NAME: VALUE");
    const std::string_view name = field.substr(0, colon);
    const std::string_view value = trim(field.substr(colon + 1));
    if (same_letters(name, "authorization")) {
      h.req.authorization = value;
    } else if (same_letters(name, "connection")) {
      if (lists(value, "close")) h.keep_alive = false;
      if (h.http10 && lists(value, "keep-alive")) h.keep_alive = true;
    } else if (same_letters(name, "transfer-encoding")) {
      return refuse("a request body in chunks is not read");
    } else if (same_letters(name, "content-length")) {
      std::size_t n = 0;
      const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (value.empty() || ec != std::errc{} || p != value.data() + value.size() ||
          (length && *length != n))
        return refuse("Content-Length is not one whole number");
      if (n > detail::max_body)
        return refuse("a request body over " + std::to_string(detail::max_body) +
                      " bytes is not read");
      length = n;
    }
  }
  h.body = length.value_or(0);
}

}  // namespace

std::optional<std::string> request::param(std::string_view name) const {
  std::string_view q = query;
  while (!q.empty()) {
    const auto amp = q.find('&');
    const std::string_view pair = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view{} : q.substr(amp + 1);
    const auto eq = pair.find('=');
    std::string key;
    if (!detail::percent_decode(pair.substr(0, eq), key, true) || key != name) continue;
    if (eq == std::string_view::npos) return std::string();
    std::string value;
    if (!detail::percent_decode(pair.substr(eq + 1), value, true))
      return std::string(pair.substr(eq + 1));
    return value;
  }
  return std::nullopt;
}

namespace detail {

bool percent_decode(std::string_view in, std::string& out, bool plus_is_space) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '+' && plus_is_space) {
      out += ' ';
    } else if (in[i] != '%') {
      out += in[i];
    } else {
      if (i + 2 >= in.size()) return false;
      const int hi = hex_digit(in[i + 1]);
      const int lo = hex_digit(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  }
  return true;
}

parse_result parse_head(std::string_view in, head& h) {
  // The blank line: LF LF or LF CR LF (lines may end with a bare LF).
  const std::string_view window = in.substr(0, max_head);
  const auto lf_lf = window.find("\n\n");
  const auto lf_crlf = window.find("\n\r\n");
  const auto end = std::min(lf_lf, lf_crlf);
  if (end == std::string_view::npos) {
    if (in.size() < max_head) return parse_result::incomplete;
    h.refused = 400;
    h.why = "a request head over " + std::to_string(max_head) + " bytes is not read";
    h.keep_alive = false;
    return parse_result::done;
  }
  h.size = end + (end == lf_lf ? 2 : 3);
  read_head(in.substr(0, end + 1), h);
  return parse_result::done;
}

void write_response(std::string& out, const response& res, bool keep_alive, bool http10) {
  char number[24];
  out += "HTTP/1.1 ";
  out.append(number, std::to_chars(number, number + sizeof number, res.status).ptr);
  out += ' ';
  out += reason(res.status);
  out += "\r\nContent-Type: ";
  out += res.type;
  out += "\r\nContent-Length: ";
  out.append(number, std::to_chars(number, number + sizeof number, res.body.size()).ptr);
  if (res.status == 401) out += "\r\nWWW-Authenticate: Bearer";
  if (res.status == 405) out += "\r\nAllow: GET";
  if (!keep_alive)
    out += "\r\nConnection: close";
  else if (http10)
    out += "\r\nConnection: keep-alive";
  out += "\r\n\r\n";
  out += res.body;
}

}  // namespace detail

}  // namespace flakeid_serve::http
