// flakeid-serve's HTTP/1.1 server: one epoll loop per thread; the first also accepts and hands
// each connection to the loop that serves the fewest. Keep-alive and pipelined requests, GET
// without a body, TLS over OpenSSL when asked. A request is answered on the thread of the loop
// that serves its connection, with no thread per connection, so a busy loop takes many
// requests per wake-up. Handlers run on the loop's thread: one that waits (a plain segment
// entry calling its store) holds that loop's other connections meanwhile, which is why
// docs/serve.md recommends chains.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace flakeid_serve::http {

/// One request as a handler sees it. The views point into the connection's buffer and are valid
/// for the handler's call only.
struct request {
  std::string_view method;
  std::string path;                ///< percent-decoded, without the query
  std::string_view query;          ///< as sent, after '?'
  std::string_view authorization;  ///< the Authorization header's value; empty when absent

  /// The first value of the query parameter `name`, percent-decoded ('+' is a space); its text
  /// as sent when it has a bad escape; nullopt when absent.
  [[nodiscard]] std::optional<std::string> param(std::string_view name) const;
};

struct response {
  int status = 200;
  std::string body;
  const char* type = "text/plain";
};

struct handlers {
  /// Answers a request.
  std::function<void(const request&, response&)> serve;
  /// Answers a request the server refuses itself (malformed, too large, a handler that threw):
  /// `why` is one line. The connection closes after it.
  std::function<void(int status, const std::string& why, response&)> refuse;
};

struct settings {
  std::string host = "127.0.0.1";
  int port = 0;  ///< 0: a free port (see server::port)
  unsigned loops = 2;
  std::string tls_cert;  ///< PEM files; both empty: plain HTTP
  std::string tls_key;
  /// A connection with nothing under way is closed after this long (also one that sent part of
  /// a request and stopped).
  std::chrono::milliseconds idle{60'000};
  /// At stop(), the longest wait for answers still being read or written.
  std::chrono::milliseconds drain{10'000};
};

/// The server cannot start: the address cannot be bound, the TLS files cannot be loaded. The
/// message is one line.
class server_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class server {
 public:
  /// Listens on `s.host`:`s.port` (and loads the TLS files); throws server_error.
  server(const settings& s, handlers h);
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// The port listened on.
  [[nodiscard]] int port() const noexcept;

  /// Serves on `loops` threads (this one among them) until stop(), then stops taking
  /// connections, finishes the requests under way (each answer says `Connection: close`), and
  /// returns. Called once.
  void run();

  /// Makes run() finish (or return at once when it has not started). Any thread; not from a
  /// signal handler.
  void stop() noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace flakeid_serve::http
