// Fuzz target: the command-line tool's argument handling (tools/cli.cpp). The input is split at
// NUL bytes into arguments (at most 24) and given to flakeid_cli::run in sandbox mode, which never
// takes a lease, opens a store, reads standard input or the environment's "now". Whatever the
// arguments, the run returns 0, 1 or 2; bad input (2) says why on stderr; every line on stderr
// starts with "flakeid" and names no C++ internals; help output is never empty.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t max_args = 24;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  std::size_t start = 0;
  while (start <= text.size() && args.size() < max_args) {
    const std::size_t end = text.find('\0', start);
    args.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (!args.empty() && args.back().empty() && text.ends_with('\0')) args.pop_back();

  std::ostringstream out;
  std::ostringstream err;
  flakeid_cli::streams io{out, err, nullptr, false, true};
  const int rc = flakeid_cli::run(args, io);
  FLAKEID_FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2);
  const std::string messages = err.str();
  if (rc != 0) FLAKEID_FUZZ_CHECK(!messages.empty());
  if (!messages.empty()) FLAKEID_FUZZ_CHECK(messages.back() == '\n');
  for (std::size_t line = 0; line < messages.size();) {
    FLAKEID_FUZZ_CHECK(std::string_view(messages).substr(line).starts_with("flakeid"));
    line = messages.find('\n', line) + 1;
  }
  FLAKEID_FUZZ_CHECK(messages.find("std::") == std::string::npos);
  FLAKEID_FUZZ_CHECK(messages.find("basic_string") == std::string::npos);
  if (rc == 0 && !args.empty() && (args[0] == "help" || args[0] == "--help"))
    FLAKEID_FUZZ_CHECK(out.str().starts_with("usage: flakeid"));
  return 0;
}
