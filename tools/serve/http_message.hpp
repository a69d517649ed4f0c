// The text of HTTP/1.1 for flakeid-serve's server (http.hpp): a request head read into a
// `request`, an answer written out. No sockets here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "http.hpp"

namespace flakeid_serve::http::detail {

inline constexpr std::size_t max_head = 8192;        ///< request line and headers, in bytes
inline constexpr std::size_t max_body = 1 << 20;     ///< a body is read and dropped, up to this
inline constexpr std::size_t max_pending = 4 << 20;  ///< answers not yet written, per connection

/// A request head read from the front of a connection's bytes.
struct head {
  request req;
  std::size_t size = 0;    ///< bytes of the head, blank line included
  std::size_t body = 0;    ///< bytes of body that follow it (read and dropped)
  bool keep_alive = true;  ///< the client keeps the connection after this answer
  bool http10 = false;     ///< HTTP/1.0 (keep-alive only when asked)
  int refused = 0;         ///< non-zero: the status to refuse with, `why` saying why
  std::string why;
};

enum class parse_result { incomplete, done };

/// Reads the head at the front of `in`: `incomplete` while its blank line has not come (and
/// `in` is within max_head), else `done` with `h` filled (or `h.refused` set).
parse_result parse_head(std::string_view in, head& h);

/// `in` with %XX escapes decoded (and '+' as a space when `plus_is_space`) appended to `out`;
/// false on a bad escape.
bool percent_decode(std::string_view in, std::string& out, bool plus_is_space);

/// Appends the answer `res` to `out`: status line, headers, body.
void write_response(std::string& out, const response& res, bool keep_alive, bool http10);

}  // namespace flakeid_serve::http::detail
