// flakeid: the command-line tool. Mints IDs, decodes them, converts their text forms, turns a
// time range into a SQL predicate, for any preset layout or a layout spec, and measures the
// generators on the machine it runs on.
//
//   flakeid gen -n 3 --layout sonyflake --worker 7
//   flakeid parse 175928847299117063 --layout discord
//   flakeid range 2024-01-01 2024-01-02 --layout twitter
//   flakeid encode --to base32 175928847299117063
//   flakeid decode --from radix62 Dz7Z5zTg
//   flakeid gen --generator segment --store file --key orders -n 10
//   flakeid sql partitions --layout twitter --table orders --from 2026-01-01 --to 2027-01-01
//   flakeid bench --layout twitter --threads 1,2,4 --seconds 0.5
//
// Every command has --help. Bad input prints one line on stderr and exits with status 2; any
// other failure (the clock went back, a lease was lost, the output cannot be written) exits with
// status 1. This file holds the commands' table and the dispatch; each command has a file of its
// own over the shared core (core.hpp). The argument parser (core.cpp) is written here rather than
// taken from a library so that every message is exactly the one docs/cli.md shows and
// tests/cli/cli_test.cmake checks.

#include "cli.hpp"

#include <array>
#include <cerrno>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core.hpp"

#ifndef FLAKEID_CLI_VERSION
#define FLAKEID_CLI_VERSION "unknown"
#endif

namespace flakeid_cli {
namespace {

constexpr std::string_view main_help =
    "usage: flakeid <command> [options] [arguments]\n"
    "\n"
    "Snowflake-family 64-bit IDs: mint, decode, convert, and turn times into ID ranges.\n"
    "\n"
    "commands:\n"
    "  gen       mint IDs\n"
    "  parse     print the fields and the UTC time of IDs (--bits: bit by bit)\n"
    "  range     the IDs minted between two times, as bounds and a SQL predicate\n"
    "  encode    IDs to radix62, radix36, base32 (Crockford) or the friendly form\n"
    "  decode    IDs in those forms back to decimal\n"
    "  layouts   list the preset layouts and their specs\n"
    "  sql       SQL that decodes IDs, partitions tables by ID and routes shards by gene\n"
    "  bench     measure the generators on this machine: IDs/s, CPU per ID, floor, capacity\n"
    "  serve     the HTTP ID service over a registry file (runs flakeid-serve)\n"
    "  help      'flakeid help <command>' describes a command\n"
    "  version   print the version (also --version)\n"
    "\n"
    "A layout (--layout) is a preset name (twitter, discord, sonyflake, ...; see 'flakeid\n"
    "layouts') or a spec such as 'ts:41,worker:10,seq:12;epoch=2024-01-01;tick=1ms'.\n"
    "\n"
    "Options take their value as '--layout discord' or '--layout=discord' ('-n3' or '-n 3').\n"
    "--from names the text form of the IDs a command reads; --format text|json|tsv chooses how\n"
    "records are printed. IDs are read from standard input when an argument is '-' or no ID is\n"
    "given. -q (--quiet) silences the notes on stderr.\n"
    "\n"
    "Exit status: 0 success, 1 failure (minting, a store, writing the output), 2 bad input.\n";

constexpr std::string_view version_help =
    "usage: flakeid version\n"
    "\n"
    "Prints the version of flakeid (as 'flakeid --version' does).\n";

constexpr std::string_view help_help =
    "usage: flakeid help [COMMAND]\n"
    "\n"
    "Describes COMMAND, or without it lists the commands.\n";

// ---- dispatch ----------------------------------------------------------------------------------

int run_version(context& c, std::span<const std::string> argv) {
  const arguments a = read_arguments(c, argv, {});
  if (a.help) return print_help(c, version_help);
  if (!a.operands.empty())
    fail("flakeid version: unexpected argument " + quote(a.operands.front()));
  return print_help(c, "flakeid " FLAKEID_CLI_VERSION "\n");
}

using command_function = int (*)(context&, std::span<const std::string>);

struct command_entry {
  std::string_view name;
  command_function run;
  const std::string_view* help;
};

int run_help(context& c, std::span<const std::string> argv);

constexpr std::array<command_entry, 11> commands{{{"gen", &run_gen, &gen_help},
                                                  {"parse", &run_parse, &parse_help},
                                                  {"range", &run_range, &range_help},
                                                  {"encode", &run_encode, &encode_help},
                                                  {"decode", &run_decode, &decode_help},
                                                  {"layouts", &run_layouts, &layouts_help},
                                                  {"sql", &run_sql, &sql_help},
                                                  {"bench", &run_bench, &bench_help},
                                                  {"serve", &run_serve, &serve_help},
                                                  {"help", &run_help, &help_help},
                                                  {"version", &run_version, &version_help}}};

[[noreturn]] void unknown_command(std::string_view name) {
  std::vector<std::string_view> names;
  names.reserve(commands.size());
  for (const command_entry& e : commands) names.push_back(e.name);
  const std::string_view guess = closest(name, names);
  if (!guess.empty())
    fail("flakeid: unknown command " + quote(name) + "; did you mean " + std::string(guess) + "?");
  fail("flakeid: unknown command " + quote(name) +
       "; commands: gen, parse, range, encode, decode, layouts, sql, bench, serve, help, version "
       "(see "
       "'flakeid --help')");
}

/// `flakeid help [COMMAND]`: the command's help, or the list of commands. Never recurses.
int run_help(context& c, std::span<const std::string> argv) {
  if (argv.empty()) return print_help(c, main_help);
  const std::string_view topic = argv[0];
  if (topic == "-h" || topic == "--help") return print_help(c, help_help);
  for (const command_entry& e : commands)
    if (e.name == topic) return print_help(c, *e.help);
  c.command.clear();
  unknown_command(topic);
}

int dispatch(context& c, std::span<const std::string> args) {
  while (!args.empty() && (args[0] == "-q" || args[0] == "--quiet")) {
    c.quiet = true;
    args = args.subspan(1);
  }
  if (args.empty())
    fail(
        "flakeid: give a command (gen, parse, range, encode, decode, layouts, sql, bench, serve); "
        "see "
        "'flakeid --help'");
  const std::string_view command = args[0];
  const std::span<const std::string> rest = args.subspan(1);
  if (command == "--help" || command == "-h") {
    if (rest.empty() || rest[0] == "--help" || rest[0] == "-h") return print_help(c, main_help);
    c.command = "help";
    return run_help(c, rest);
  }
  if (command == "--version" || command == "-V") {
    c.command = "version";
    return run_version(c, rest);
  }
  for (const command_entry& e : commands) {
    if (e.name == command) {
      c.command = std::string(command);
      return e.run(c, rest);
    }
  }
  unknown_command(command);
}

/// The message for an output stream that failed, with the system's reason when there is one.
std::string write_failure(int error) {
  std::string msg = "cannot write to standard output";
  if (error != 0) msg += ": " + std::generic_category().message(error);
  return msg;
}

}  // namespace

int run(std::span<const std::string> args, streams& io) noexcept {
  try {
    context c{io, {}, false, std::nullopt};
    int rc = exit_ok;
    try {
      errno = 0;
      rc = dispatch(c, args);
      errno = 0;
      io.out.flush();
      if (!io.out) throw write_error("cannot write to standard output");
    } catch (const write_error&) {
      const int error = errno;
      report(c, write_failure(error));
      io.out.clear();
      return exit_failure;
    } catch (...) {
      return report_exception(c, std::current_exception());
    }
    return rc;
  } catch (...) {
    return exit_failure;  // the error stream itself failed
  }
}

}  // namespace flakeid_cli
