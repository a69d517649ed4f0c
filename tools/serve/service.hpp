// flakeid-serve's HTTP API over a registry: Leaf's paths, batches, text, decoding, health and
// Prometheus metrics. Requests are dispatched by prefix (no regular expressions); the counters
// are atomics in a table fixed at start, so no request takes a lock of the service's own.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <flakeid/registry.hpp>

#include "http.hpp"

namespace flakeid_serve {

class service {
 public:
  /// Serves `ids` (which must outlive the service); an empty `token` asks for none.
  service(const flakeid::registry& ids, std::string token, std::uint64_t max_count);

  /// What the HTTP server calls: this service's answers and its refusals.
  http::handlers handlers();

  /// One request: its status and body.
  void handle(const http::request& req, http::response& res);

  /// The metrics in the Prometheus text format.
  [[nodiscard]] std::string metrics() const;

 private:
  struct name_stats {
    std::atomic<std::uint64_t> served{0};
    std::atomic<std::uint64_t> errors{0};
  };
  static constexpr std::array<int, 7> codes{200, 400, 401, 404, 405, 500, 503};

  void reply(http::response& res, int status, std::string body, const char* type);
  void refuse(http::response& res, int status, const std::string& why);
  void mint(std::string_view name, std::string_view want, const http::request& req,
            http::response& res);
  void text(std::string_view name, const http::request& req, http::response& res);
  void decode(std::string_view rest, const http::request& req, http::response& res);
  void health(http::response& res);
  /// The entry `name`, or a 404 answered (null).
  flakeid::id_source* source_or_404(std::string_view name, http::response& res);
  /// `?count=N` into `count` (0 when absent); false, with a 400 answered, when it is bad.
  bool read_count(const http::request& req, http::response& res, std::uint64_t& count);

  const flakeid::registry& ids_;
  std::string token_;
  std::string bearer_;  // "Bearer " + token_, built once
  std::uint64_t max_count_;
  std::map<std::string, std::unique_ptr<name_stats>, std::less<>> stats_;  // fixed at start
  std::array<std::atomic<std::uint64_t>, codes.size()> by_code_{};
};

}  // namespace flakeid_serve
