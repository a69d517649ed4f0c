// flakeid-serve's command line: what it reads and the one-line errors for what it refuses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

namespace flakeid_serve {

/// Bad input on the command line: exit 2 with the message.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct options {
  std::string config;  ///< --config FILE; empty: FLAKEID_GENERATORS
  std::string host = "127.0.0.1";
  int port = 8080;
  std::size_t threads = 0;  ///< event loops; 0: one per core
  std::string token;        ///< the bearer token; empty: none asked for
  std::string tls_cert;
  std::string tls_key;
  std::uint64_t max_count = 10'000;
  bool help = false;
  bool version = false;
};

/// The options of `args` (without the program's name). Throws `usage_error` naming the option,
/// the value and what is allowed; never a token's value.
options parse_options(std::span<const std::string> args);

extern const char* const help_text;

}  // namespace flakeid_serve
