// flakeid's command-line tool as a function: tools/main.cpp calls it with the process's streams,
// the fuzz target tests/fuzz/fuzz_cli.cpp with string streams. It never exits the process.
#pragma once

#include <iosfwd>
#include <span>
#include <string>

namespace flakeid_cli {

/// Where a run reads and writes, and what it may touch.
struct streams {
  std::ostream& out;
  std::ostream& err;
  /// Standard input for IDs given as `-` or not given at all; nullptr: never read it.
  std::istream* in = nullptr;
  /// Whether `in` is a terminal: then a command without IDs asks for them instead of waiting.
  bool in_is_terminal = false;
  /// For fuzzing: `gen` refuses leases and stores (it needs --worker, or --store memory), counts
  /// are capped, `bench` checks its options but starts no thread, the environment is not read
  /// and "now" is fixed at 2024-01-01T00:00:00Z.
  bool sandbox = false;
};

/// Runs `flakeid <args...>` (`args` excludes the program name) and returns the exit status:
/// 0 success, 1 failure (minting, a store, writing the output), 2 bad input. Messages go to
/// `io.err`, one line each, starting with `flakeid <command>:`.
int run(std::span<const std::string> args, streams& io) noexcept;

}  // namespace flakeid_cli
