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
// status 1. The argument parser is written here rather than taken from a library so that every
// message is exactly the one docs/cli.md shows and tests/cli/cli_test.cmake checks.

#include "cli.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <istream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <flakeid/flakeid.hpp>
#if defined(FLAKEID_HAS_REDIS)
#include <flakeid/adapters/redis.hpp>
#endif
#if defined(FLAKEID_HAS_POSTGRES)
#include <flakeid/adapters/postgres.hpp>
#endif

#ifndef FLAKEID_CLI_VERSION
#define FLAKEID_CLI_VERSION "unknown"
#endif

#if defined(FLAKEID_HAS_REDIS)
#define FLAKEID_CLI_REDIS_NOTE ", redis"
#else
#define FLAKEID_CLI_REDIS_NOTE ""
#endif
#if defined(FLAKEID_HAS_POSTGRES)
#define FLAKEID_CLI_POSTGRES_NOTE ", postgres"
#else
#define FLAKEID_CLI_POSTGRES_NOTE ""
#endif

namespace flakeid_cli {
namespace {

// ---- errors and exit codes ---------------------------------------------------------------------

constexpr int exit_ok = 0;
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

/// Bad command-line input: reported on one line, exit status 2.
class usage_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The output could not be written (a full disk, a closed pipe): exit status 1.
class write_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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

/// One run of the tool: its streams, the command being run and the global switches.
struct context {
  streams& io;
  std::string command;  // "parse", "sql"; empty before a command is known
  bool quiet = false;
  std::optional<std::int64_t> now_ms;

  [[nodiscard]] std::string prefix() const {
    return command.empty() ? std::string("flakeid: ") : "flakeid " + command + ": ";
  }
  /// A note on stderr (where gen's worker id came from, a time hint); -q silences it.
  void note(const std::string& msg) const {
    if (!quiet) io.err << prefix() << msg << '\n';
  }
};

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

// ---- help --------------------------------------------------------------------------------------

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

constexpr std::string_view gen_help =
    "usage: flakeid gen [-n N] [--layout L] [--generator classic|gene|cosid|tick]\n"
    "                   [--worker W] [--datacenter D] [--gene K] [--to FORM]\n"
    "                   [--format text|json|tsv] [-q]\n"
    "       flakeid gen --generator segment --store memory|file|redis|postgres [--key K]\n"
    "                   [--step S] [--start N0] [--stride M --remainder R]\n"
    "                   [--redis ADDRESS] [--postgres CONNINFO] [-n N] [--to FORM]\n"
    "\n"
    "Mints N IDs (default 1), one per line, in decimal or in the text form FORM\n"
    "(radix62, radix36, base32, friendly).\n"
    "\n"
    "  --generator   classic  Twitter's: sequence 0 every tick (default; layout twitter)\n"
    "                cosid    CosId's: the sequence runs on across ticks (layout cosid)\n"
    "                tick     classic on a monotonic clock (layout twitter)\n"
    "                gene     the gene of --gene K in the lowest bits (layout seed_gene)\n"
    "                segment  dense numbers 1, 2, 3 ... from a counter in a store, reserved a\n"
    "                         segment of S at a time (no layout, worker or gene)\n"
    "  --layout      a preset layout; a spec is accepted when it equals a preset. Generators\n"
    "                take their layout at compile time, so a custom layout needs a program of\n"
    "                its own: flakeid::classic_snowflake<my_layout>.\n"
    "  --worker      the worker id. Without it, the id comes from the environment variable\n"
    "                FLAKEID_WORKER_ID, else from a host-wide file lease (directory\n"
    "                FLAKEID_LEASE_DIR, default /dev/shm/flakeid; namespace\n"
    "                FLAKEID_LEASE_NAMESPACE, default 'default'); a note on stderr says which\n"
    "                (-q silences it). When no id can be leased, gen fails (exit 1): it never\n"
    "                falls back to a fixed id.\n"
    "  --datacenter  the datacenter id (default 0).\n"
    "  --gene        the key whose gene the IDs carry (layouts with a gene field; default 0).\n"
    "  --format      text (default), json ({\"id\":\"...\"} per line) or tsv (with a header).\n"
    "\n"
    "Segment generator:\n"
    "  --store       memory    this run only: numbers start at 1 every time\n"
    "                file      a counter file in FLAKEID_SEGMENT_DIR (default\n"
    "                          $XDG_STATE_HOME/flakeid/segments or "
    "~/.local/state/flakeid/segments)\n"
    "                redis     INCRBY on a Redis key (--redis ADDRESS, else the environment\n"
    "                          variable FLAKEID_REDIS_URL, else FLAKEID_REDIS_ADDRESS, else\n"
    "                          127.0.0.1:6379). ADDRESS is HOST:PORT or a URI:\n"
    "                          redis[s]://[user[:password]@]host[:port][/db] or unix:///path\n"
    "                postgres  a row in PostgreSQL (--postgres CONNINFO, else the environment\n"
    "                          variable FLAKEID_POSTGRES_CONNINFO, else libpq's defaults)\n"
    "  --store URI   redis://..., rediss://... (TLS), unix://... or postgresql://...: that\n"
    "                store at that address. Messages never show the password.\n"
    "  --key         the counter's name (default 'default')\n"
    "  --step        numbers reserved per store call, 1 to 2147483648 (default N): a run hands\n"
    "                out the first N of what it reserved, the next run goes on above it\n"
    "  --start       the smallest number handed out, 1 to 9223372036854775807 (default 1): a\n"
    "                counter below it is raised to it\n"
    "  --stride, --remainder\n"
    "                only numbers n with n % M == R (M from 1 to 65536, R from 0 to M - 1;\n"
    "                default 1 and 0): counters in several stores interleave their numbers\n"
    "Redis and PostgreSQL counters use the namespace FLAKEID_SEGMENT_NAMESPACE (default\n"
    "'default'). A store this build lacks is reported as bad input.\n";

constexpr std::string_view parse_help =
    "usage: flakeid parse [ID...|-] [--layout L] [--format text|json|tsv] [--bits]\n"
    "                     [--from decimal|radix62|radix36|base32|friendly]\n"
    "\n"
    "Prints the fields and the UTC time of each ID under the layout (default twitter), one line\n"
    "per ID: 'id=... time=... ticks=...' then the layout's fields from high to low; with\n"
    "--format json one JSON object per line (the ID as a string, safe for JavaScript), with\n"
    "--format tsv a header line, then tab-separated values. --bits draws the 64 bits of each ID\n"
    "grouped by field, with each field's name, width and value.\n"
    "\n"
    "Without IDs (or for '-') the IDs are read from standard input, separated by white space.\n"
    "IDs that cannot be read are reported on stderr, the others printed; the exit status is 2.\n"
    "\n"
    "The text form of each ID is detected only where it cannot be mistaken: all digits is\n"
    "decimal, text with a '-' is the friendly form, and other text is taken in the one form\n"
    "among radix62, radix36 and base32 that accepts it (or when all that accept it give the\n"
    "same number). Otherwise name the form with --from (--input is a synonym).\n";

constexpr std::string_view range_help =
    "usage: flakeid range FROM TO [--layout L] [--column NAME] [--format text|json|tsv]\n"
    "\n"
    "Prints the half-open bounds [lo, hi) holding every ID minted from FROM up to (not\n"
    "including) TO under the layout (default twitter), then the SQL predicate\n"
    "'id >= lo AND id < hi' (--column names the column: an SQL identifier, a.b, or a\n"
    "double-quoted name; default id).\n"
    "\n"
    "FROM and TO are UTC times: 2024-01-01, 2024-01-01T00:00:00Z, 2024-01-01T00:00:00.5Z (1 to\n"
    "9 fraction digits), 2024-01-01T08:00:00+08:00; times from now: now, now-1h, now+15m,\n"
    "-15m, -1h30m (units ms, s, m, h, d, w); or Unix milliseconds (1704067200000). A number\n"
    "that looks like Unix seconds gets a note. FLAKEID_NOW (a UTC time or Unix milliseconds)\n"
    "sets 'now', for tests and scripts.\n";

constexpr std::string_view encode_help =
    "usage: flakeid encode --to radix62|radix36|base32|friendly [--pad] [--layout L]\n"
    "                      [--from FORM] [--format text|json|tsv] [ID...|-]\n"
    "\n"
    "Writes each ID in the text form, one per line. The IDs are decimal unless --from names\n"
    "another form; without IDs (or for '-') they are read from standard input.\n"
    "  radix62   0-9A-Za-z, as CosId writes it (--pad: always 11 characters)\n"
    "  radix36   0-9A-Z (--pad: always 13 characters)\n"
    "  base32    Crockford's base32, always 13 characters; text order is ID order\n"
    "  friendly  yyyyMMddHHmmssSSS-<fields> in UTC, under the layout (default twitter)\n";

constexpr std::string_view decode_help =
    "usage: flakeid decode [--from radix62|radix36|base32|friendly] [--layout L]\n"
    "                      [--format text|json|tsv] [TEXT...|-]\n"
    "\n"
    "Writes each ID given in a text form as a decimal number, one per line. Without --from\n"
    "(or its synonym --to) the form is detected as 'flakeid parse' does: only where it cannot\n"
    "be mistaken. The friendly form is read under the layout (default twitter) in UTC. Without\n"
    "TEXT (or for '-') the text is read from standard input.\n";

constexpr std::string_view layouts_help =
    "usage: flakeid layouts [--format text|json|tsv]\n"
    "\n"
    "Lists the preset layouts: name, spec (fields high to low; epoch in Unix ms; tick) and the\n"
    "last instant each can encode.\n";

constexpr std::string_view bench_help =
    "usage: flakeid bench [--layout L] [--generator classic|gene|cosid|tick|blocks|all]\n"
    "                     [--threads N[,N...]] [--seconds S] [--format text|json|tsv]\n"
    "\n"
    "Measures the generators on this machine for a layout (a preset, or a spec equal to one),\n"
    "so that a generator can be chosen on the hardware it will run on. For each thread count N\n"
    "and generator, N threads mint from one shared generator for S seconds; a row gives:\n"
    "  IDs/s        IDs per second of wall time, all threads together\n"
    "  CPU ns/ID    the threads' CPU time (CLOCK_THREAD_CPUTIME_ID, summed) per ID\n"
    "  CPU share    the threads' CPU time over N times the time they ran: below 100% when\n"
    "               the threads outnumber the cores, other programs had the cores, or the\n"
    "               generator parks threads that wait for the next tick (at capacity)\n"
    "  floor IDs/s  the floor at N threads, measured in the same run: N threads each reading\n"
    "               the wall clock and adding 1 to one shared counter (fetch_add)\n"
    "  vs floor     IDs/s over the floor's\n"
    "  vs capacity  IDs/s over the layout's capacity: 2^sequence_bits IDs per tick, times\n"
    "               ticks per second, times 2^gene_bits on a layout with a gene\n"
    "\n"
    "  --generator  classic  Twitter's (default layout twitter)\n"
    "               cosid    CosId's: the sequence runs on across ticks (layout cosid)\n"
    "               tick     classic on a monotonic clock (layout twitter)\n"
    "               blocks   classic with thread_blocks: each thread takes a block of the\n"
    "                        tick's sequences at once (layouts without a gene)\n"
    "               gene     the gene generator, each thread cycling through the keys (layout\n"
    "                        seed_gene); on a gene layout every generator mints that way\n"
    "               all      every generator that fits the layout (default; layout twitter)\n"
    "  --threads    thread counts from 1 to 1024, separated by commas (default 1, 2, 4, ... up\n"
    "               to the number of hardware threads)\n"
    "  --seconds    the length of each measurement, 0.001 to 60 (default 0.5), rounded to\n"
    "               whole ticks of the layout (at least one), from the start of a tick\n"
    "  --format     text (default: a table under a few lines on the layout), json (one object\n"
    "               per row) or tsv (with a header)\n"
    "\n"
    "Speeds depend on the machine and on what else runs on it: compare the rows of one run.\n";

constexpr std::string_view version_help =
    "usage: flakeid version\n"
    "\n"
    "Prints the version of flakeid (as 'flakeid --version' does).\n";

constexpr std::string_view help_help =
    "usage: flakeid help [COMMAND]\n"
    "\n"
    "Describes COMMAND, or without it lists the commands.\n";
constexpr std::string_view sql_help =
    "usage: flakeid sql fields     [--layout L] [--dialect D] [--type T] [--column C]\n"
    "                              [--shards N] [--by gene|worker]\n"
    "       flakeid sql functions  [--layout L] [--dialect D] [--type T] [--prefix P]\n"
    "                              [--shards N] [--by gene|worker]\n"
    "       flakeid sql partitions [--layout L] [--dialect D] [--type T] --table T [--column C]\n"
    "                              --from TIME --to TIME [--every day|month|year] [--columns SQL]\n"
    "       flakeid sql shards     [--layout L] [--dialect D] [--type T] --table T [--column C]\n"
    "                              --shards N [--by gene|worker] [--columns SQL]\n"
    "\n"
    "Writes SQL that knows the layout (default twitter):\n"
    "  fields      one expression per line, 'name expression', decoding the column (default\n"
    "              id): created_at, unix_ms, ticks, each field, and shard with --shards\n"
    "  functions   CREATE FUNCTION statements <prefix>created_at(id) ... (default prefix id_)\n"
    "  partitions  CREATE TABLE ... PARTITION BY RANGE (id), one partition per day, month\n"
    "              (default) or year from FROM up to TO (UTC; as for 'flakeid range')\n"
    "  shards      CREATE TABLE ... partitioned into N shards by the gene (or worker):\n"
    "              PostgreSQL LIST partitions on id % N, MySQL PARTITION BY HASH\n"
    "\n"
    "  --dialect   postgres (default) or mysql (MySQL and MariaDB)\n"
    "  --type      the ID column's type: bigint (default), numeric (PostgreSQL) or unsigned\n"
    "              (MySQL's BIGINT UNSIGNED); a layout that sets bit 63 needs one of the last two\n"
    "  --columns   the table's column list (default: the ID column as its primary key)\n"
    "Identifiers are [A-Za-z_][A-Za-z0-9_]* (a table may be schema.table); they are quoted.\n"
    "--column is such an identifier (or a.b, or a double-quoted name). TIME is read as for\n"
    "'flakeid range' (2026-01-01, now-30d, Unix milliseconds ...).\n";

// ---- arguments ---------------------------------------------------------------------------------

struct option_spec {
  std::string_view name;  // "--layout", "-n"
  bool takes_value;
  std::string_view alias_of = {};  // "--input" is read as "--from"
};

/// One option as given: its name (an alias resolved), the name as typed and its value.
struct option_value {
  std::string_view name;
  std::string_view typed;
  std::string_view value;
};

/// The command line of one command: its options (each at most once) and its operands.
struct arguments {
  std::vector<option_value> options;
  std::vector<std::string_view> operands;
  bool help = false;

  [[nodiscard]] const option_value* find(std::string_view name) const {
    for (const auto& o : options)
      if (o.name == name) return &o;
    return nullptr;
  }
  [[nodiscard]] std::optional<std::string_view> get(std::string_view name) const {
    if (const option_value* o = find(name)) return o->value;
    return std::nullopt;
  }
  /// The option's name as the user typed it ("--input" for --from), for messages.
  [[nodiscard]] std::string_view typed(std::string_view name) const {
    const option_value* o = find(name);
    return o != nullptr ? o->typed : name;
  }
  [[nodiscard]] bool flag(std::string_view name) const { return find(name) != nullptr; }
};

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
                          std::uint64_t max = UINT64_MAX) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || v > max)
    fail("flakeid " + std::string(command) + ": " + std::string(what) + " " + quote(text) +
         " is not a decimal number in [0, " + std::to_string(max) + "]");
  return v;
}

flakeid::layout read_layout(const arguments& a, std::string_view fallback) {
  return flakeid::parse_layout(a.get("--layout").value_or(fallback));
}

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

std::string_view read_column(const arguments& a) {
  const std::string_view column = a.get("--column").value_or("id");
  if (!is_sql_name(column))
    fail("--column " + quote(column) +
         " is not an SQL identifier: letters, digits and _, not starting with a digit (a.b for a "
         "qualified name), or a double-quoted name");
  return column;
}

// ---- output records ----------------------------------------------------------------------------

enum class format { text, json, tsv };

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

/// Writes records as text lines (each command's own), JSON lines or TSV with a header, into a
/// buffer that `flush` writes out.
class record_writer {
 public:
  explicit record_writer(format f) : format_(f) {}

  [[nodiscard]] format kind() const noexcept { return format_; }

  void begin() {
    row_start_ = buffer_.size();
    first_ = true;
    if (format_ == format::json) buffer_ += '{';
  }
  void str(std::string_view key, std::string_view value) {
    next_cell(key);
    if (format_ == format::json) {
      append_json_string(buffer_, value);
    } else {
      append_tsv_cell(buffer_, value);
    }
  }
  void num(std::string_view key, std::int64_t value) {
    next_cell(key);
    buffer_ += std::to_string(value);
  }
  void unum(std::string_view key, std::uint64_t value) {
    next_cell(key);
    buffer_ += std::to_string(value);
  }
  /// `value` with `decimals` digits after the point; not a finite number: null (JSON), an empty
  /// cell (TSV).
  void real(std::string_view key, double value, int decimals) {
    next_cell(key);
    if (!std::isfinite(value)) {
      if (format_ == format::json) buffer_ += "null";
      return;
    }
    buffer_ += fixed(value, decimals);
  }
  void end() {
    if (format_ == format::json) buffer_ += '}';
    buffer_ += '\n';
    if (format_ == format::tsv && !header_done_) {
      header_ += '\n';
      buffer_.insert(row_start_, header_);
      header_done_ = true;
    }
  }
  /// A record in the text format: the command's own line.
  void line(std::string_view text) {
    buffer_ += text;
    buffer_ += '\n';
  }
  void flush(const context& c) {
    emit(c, buffer_);
    buffer_.clear();
  }

 private:
  void next_cell(std::string_view key) {
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

  format format_;
  std::string buffer_;
  std::string header_;
  std::size_t row_start_ = 0;
  bool first_ = true;
  bool header_done_ = false;
};

// ---- text forms --------------------------------------------------------------------------------

enum class text_form { decimal, radix62, radix36, base32, friendly };

std::string_view form_name(text_form f) {
  switch (f) {
    case text_form::decimal: return "decimal";
    case text_form::radix62: return "radix62";
    case text_form::radix36: return "radix36";
    case text_form::base32: return "base32";
    case text_form::friendly: return "friendly";
  }
  return "decimal";
}

text_form read_form(std::string_view command, std::string_view option, std::string_view name,
                    bool allow_decimal) {
  if (name == "radix62") return text_form::radix62;
  if (name == "radix36") return text_form::radix36;
  if (name == "base32" || name == "crockford32") return text_form::base32;
  if (name == "friendly") return text_form::friendly;
  if (allow_decimal && name == "decimal") return text_form::decimal;
  fail("flakeid " + std::string(command) + ": " + std::string(option) + " " + quote(name) +
       " is not a text form; allowed: " + (allow_decimal ? "decimal, " : "") +
       "radix62, radix36, base32, friendly");
}

std::uint64_t read_id(std::string_view command, std::string_view text, text_form form,
                      const flakeid::layout& l) {
  switch (form) {
    case text_form::decimal: return read_number(command, "ID", text);
    case text_form::radix62: return flakeid::from_radix62(text);
    case text_form::radix36: return flakeid::from_radix36(text);
    case text_form::base32: return flakeid::from_crockford32(text);
    case text_form::friendly: return flakeid::from_friendly(l, text);
  }
  return 0;
}

std::string write_id(std::uint64_t id, text_form form, const flakeid::layout& l,
                     flakeid::radix_padding pad = flakeid::radix_padding::none) {
  switch (form) {
    case text_form::decimal: return std::to_string(id);
    case text_form::radix62: return flakeid::to_radix62(id, pad);
    case text_form::radix36: return flakeid::to_radix36(id, pad);
    case text_form::base32: return flakeid::to_crockford32(id);
    case text_form::friendly: return flakeid::to_friendly(l, id);
  }
  return {};
}

/// The form of `text` when it cannot be mistaken: all digits is decimal, and text with a '-'
/// (which no other form has) is the friendly form. Any other text is bad input naming the forms
/// that accept it and the number each reads, or the text alone when no form accepts it: a word
/// of letters and digits is valid radix62 (and often radix36 or base32) and names a different
/// number in each, so the form must be given with --from.
text_form detect_form(std::string_view text) {
  if (text.empty()) fail("an empty text is not an ID");
  if (std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return text_form::decimal;
  if (text.find('-') != std::string_view::npos) return text_form::friendly;
  std::vector<std::string> accepted;
  std::string names;
  std::string reason;
  for (const text_form f : {text_form::radix62, text_form::radix36, text_form::base32}) {
    try {
      const std::uint64_t v = read_id("", text, f, flakeid::layouts::twitter);
      accepted.push_back(std::string(form_name(f)) + " (" + std::to_string(v) + ")");
      names += (names.empty() ? "" : "|") + std::string(form_name(f));
    } catch (const flakeid::invalid_id_error& e) {
      const bool fits = (f == text_form::radix62 && text.size() <= flakeid::radix62_width) ||
                        (f == text_form::radix36 && text.size() <= flakeid::radix36_width) ||
                        (f == text_form::base32 && text.size() == flakeid::crockford32_width);
      if (reason.empty() && fits) reason = e.what();
    }
  }
  if (accepted.empty()) {
    if (reason.starts_with("flakeid: ")) reason.erase(0, 9);
    fail(quote(text) +
         " is not an ID in any text form (decimal, radix62, radix36, base32, friendly)" +
         (reason.empty() ? "; the longest form has 13 characters" : "; " + reason));
  }
  const std::vector<std::string_view> views(accepted.begin(), accepted.end());
  fail(quote(text) + " could be " + one_of(views) + "; pass --from " + names);
}

/// The IDs a command reads: its operands, with standard input (split at white space) read for
/// '-' or when there are none.
std::vector<std::string> gather_ids(const context& c, const arguments& a) {
  std::vector<std::string> ids;
  const auto read_input = [&] {
    if (c.io.in == nullptr) fail("give at least one ID; see 'flakeid " + c.command + " --help'");
    std::string token;
    while (*c.io.in >> token) ids.push_back(token);
    c.io.in->clear();
  };
  if (a.operands.empty()) {
    if (c.io.in == nullptr || c.io.in_is_terminal)
      fail("give at least one ID (or '-' and IDs on standard input); see 'flakeid " + c.command +
           " --help'");
    read_input();
    return ids;
  }
  bool read = false;
  for (const std::string_view op : a.operands) {
    if (op == "-") {
      if (!read) read_input();
      read = true;
    } else {
      ids.emplace_back(op);
    }
  }
  return ids;
}

/// Runs `step` on each of `items`; a failure that is bad input is reported on stderr and the
/// batch goes on. Returns the exit status: 2 when an item failed, else 0.
template <class Item, class Step>
int for_each_item(const context& c, const std::vector<Item>& items, Step step) {
  int status = exit_ok;
  for (const Item& item : items) {
    try {
      step(item);
    } catch (const write_error&) {
      throw;
    } catch (const std::invalid_argument&) {
      status = std::max(status, report_exception(c, std::current_exception()));
    } catch (const std::out_of_range&) {
      status = std::max(status, report_exception(c, std::current_exception()));
    } catch (const flakeid::timestamp_overflow_error&) {
      status = std::max(status, report_exception(c, std::current_exception()));
    }
  }
  return status;
}

/// `2016-04-30T11:18:25.796Z`.
std::string utc_text(flakeid::layout::time_point t) { return flakeid::detail::format_utc(t); }
std::string utc_text(std::int64_t unix_ms) { return flakeid::detail::format_utc(unix_ms); }

// ---- times -------------------------------------------------------------------------------------

constexpr std::int64_t sandbox_now_ms = 1704067200000;  // 2024-01-01T00:00:00Z
constexpr std::int64_t max_time_ms = 253402300799999;   // 9999-12-31T23:59:59.999Z
constexpr std::int64_t min_time_ms = -62167219200000;   // 0000-01-01T00:00:00.000Z

/// Reads `n` digits at `s[pos]`, advancing `pos`.
bool read_digits(std::string_view s, std::size_t& pos, std::size_t n, unsigned& out) {
  if (s.size() < pos + n) return false;
  unsigned v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char ch = s[pos + i];
    if (ch < '0' || ch > '9') return false;
    v = v * 10 + static_cast<unsigned>(ch - '0');
  }
  pos += n;
  out = v;
  return true;
}

/// An ISO 8601 instant in Unix milliseconds: `2024-01-01` (midnight UTC) or
/// `2024-01-01T08:00[:00[.f]]` with `Z`, `+08:00` or `+0800`, 1 to 9 fraction digits (floored to
/// the millisecond).
std::optional<std::int64_t> parse_iso(std::string_view s) {
  using namespace std::chrono;
  std::size_t pos = 0;
  unsigned y = 0;
  unsigned mo = 0;
  unsigned d = 0;
  const auto expect = [&](char ch) {
    if (pos >= s.size() || s[pos] != ch) return false;
    ++pos;
    return true;
  };
  if (!read_digits(s, pos, 4, y) || !expect('-') || !read_digits(s, pos, 2, mo) || !expect('-') ||
      !read_digits(s, pos, 2, d))
    return std::nullopt;
  const year_month_day ymd{year{static_cast<int>(y)}, month{mo}, day{d}};
  if (!ymd.ok()) return std::nullopt;
  std::int64_t ms = sys_days{ymd}.time_since_epoch().count() * std::int64_t{86'400'000};
  if (pos == s.size()) return ms;
  unsigned h = 0;
  unsigned mi = 0;
  unsigned sec = 0;
  if (!expect('T') || !read_digits(s, pos, 2, h) || !expect(':') || !read_digits(s, pos, 2, mi) ||
      h > 23 || mi > 59)
    return std::nullopt;
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    if (!read_digits(s, pos, 2, sec) || sec > 59) return std::nullopt;
    if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
      ++pos;
      std::size_t n = 0;
      unsigned frac = 0;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        if (n < 3) frac = frac * 10 + static_cast<unsigned>(s[pos] - '0');
        ++n;
        ++pos;
      }
      if (n == 0 || n > 9) return std::nullopt;
      for (std::size_t i = n; i < 3; ++i) frac *= 10;
      ms += frac;
    }
  }
  ms += ((static_cast<std::int64_t>(h) * 60 + mi) * 60 + sec) * 1000;
  if (pos >= s.size()) return std::nullopt;  // a time of day needs its zone
  const char zone = s[pos++];
  if (zone == 'Z') return pos == s.size() ? std::optional<std::int64_t>(ms) : std::nullopt;
  if (zone != '+' && zone != '-') return std::nullopt;
  unsigned oh = 0;
  unsigned om = 0;
  if (!read_digits(s, pos, 2, oh)) return std::nullopt;
  if (pos < s.size() && s[pos] == ':') ++pos;
  if (!read_digits(s, pos, 2, om) || pos != s.size() || oh > 18 || om > 59) return std::nullopt;
  const std::int64_t offset = (static_cast<std::int64_t>(oh) * 60 + om) * 60'000;
  return zone == '+' ? ms - offset : ms + offset;
}

/// A signed duration such as `-1h`, `+15m`, `-1h30m`, `+500ms` in milliseconds.
std::optional<std::int64_t> parse_offset(std::string_view s) {
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  const bool minus = s[0] == '-';
  std::size_t pos = 1;
  std::int64_t total = 0;
  constexpr std::int64_t limit = 400'000LL * 366 * 86'400'000;  // beyond any layout
  while (pos < s.size()) {
    std::int64_t n = 0;
    const std::size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      n = n * 10 + (s[pos] - '0');
      if (n > limit) return std::nullopt;
      ++pos;
    }
    if (pos == start) return std::nullopt;
    std::int64_t unit = 0;
    if (s.substr(pos).starts_with("ms")) {
      unit = 1;
      pos += 2;
    } else if (pos < s.size()) {
      switch (s[pos]) {
        case 's': unit = 1000; break;
        case 'm': unit = 60'000; break;
        case 'h': unit = 3'600'000; break;
        case 'd': unit = 86'400'000; break;
        case 'w': unit = 7 * 86'400'000LL; break;
        default: return std::nullopt;
      }
      ++pos;
    } else {
      return std::nullopt;
    }
    if (n > limit / unit) return std::nullopt;
    total += n * unit;
    if (total > limit) return std::nullopt;
  }
  return minus ? -total : total;
}

/// "now": FLAKEID_NOW when set (a UTC time or Unix milliseconds), else the system clock.
std::int64_t now_ms(context& c) {
  if (c.now_ms) return *c.now_ms;
  if (c.io.sandbox) return *(c.now_ms = sandbox_now_ms);
  if (const char* e = std::getenv("FLAKEID_NOW"); e != nullptr && *e != '\0') {
    const std::string_view text = e;
    std::uint64_t ms = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec == std::errc{} && end == text.data() + text.size() &&
        ms <= static_cast<std::uint64_t>(max_time_ms))
      return *(c.now_ms = static_cast<std::int64_t>(ms));
    if (const auto iso = parse_iso(text)) return *(c.now_ms = *iso);
    fail("FLAKEID_NOW " + quote(text) +
         " is neither a UTC time (2024-01-01T00:00:00Z) nor Unix milliseconds");
  }
  using namespace std::chrono;
  return *(c.now_ms =
               time_point_cast<milliseconds>(system_clock::now()).time_since_epoch().count());
}

/// A time read from the command line, and a hint to show when a number looks like seconds.
struct read_time_result {
  flakeid::layout::time_point time;
  std::string hint;
};

read_time_result read_time(context& c, std::string_view what, std::string_view text) {
  const auto at = [](std::int64_t ms) {
    return flakeid::layout::time_point{std::chrono::milliseconds{ms}};
  };
  std::uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (!text.empty() && ec == std::errc{} && end == text.data() + text.size() &&
      number <= static_cast<std::uint64_t>(max_time_ms)) {
    read_time_result r{at(static_cast<std::int64_t>(number)), {}};
    // 9 or 10 digits: as milliseconds 1970, as seconds 1973 to 2286.
    if (number >= 100'000'000 && number < 100'000'000'000)
      r.hint = std::string(what) + " " + std::string(text) + " is read as Unix milliseconds (" +
               utc_text(static_cast<std::int64_t>(number)) + "); if it is Unix seconds, write " +
               std::string(text) + "000 (" + utc_text(static_cast<std::int64_t>(number) * 1000) +
               ")";
    return r;
  }
  if (const auto iso = parse_iso(text)) return {at(*iso), {}};
  std::optional<std::int64_t> offset;
  if (text == "now") offset = 0;
  if (text.starts_with("now") && text.size() > 3) offset = parse_offset(text.substr(3));
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) offset = parse_offset(text);
  if (offset) {
    const std::int64_t t = now_ms(c) + *offset;
    if (t < min_time_ms || t > max_time_ms)
      fail(std::string(what) + " " + quote(text) + " is outside years 0000 to 9999");
    return {at(t), {}};
  }
  fail(std::string(what) + " " + quote(text) +
       " is neither a UTC time (2024-01-01, 2024-01-01T00:00:00Z, 2024-01-01T00:00:00.5Z, "
       "2024-01-01T08:00:00+08:00), a time from now (now, now-1h, now+15m, -15m) nor Unix "
       "milliseconds");
}

/// The bounds of the IDs minted in [from, to): a time the layout cannot hold is bad input, with
/// the seconds hint when there is one; otherwise the hints are notes.
flakeid::id_bounds checked_range(const context& c, const flakeid::layout& l,
                                 const read_time_result& from, const read_time_result& to) {
  flakeid::id_bounds b;
  try {
    b = l.id_range(from.time, to.time);
  } catch (const flakeid::timestamp_overflow_error& e) {
    std::string msg = e.what();
    for (const read_time_result* r : {&from, &to})
      if (!r->hint.empty()) msg += "; " + r->hint;
    fail(msg);
  }
  for (const read_time_result* r : {&from, &to})
    if (!r->hint.empty()) c.note(r->hint);
  return b;
}

// ---- gen ---------------------------------------------------------------------------------------

enum class generator_kind { classic, gene, cosid, tick };

struct gen_request {
  std::uint64_t count = 1;
  generator_kind kind = generator_kind::classic;
  flakeid::worker_assignment node;
  std::optional<std::uint64_t> gene;
  text_form to = text_form::decimal;
  bool to_given = false;
  std::string layout_name;
  const context* run = nullptr;
  record_writer* writer = nullptr;
};

/// Writes one batch of minted IDs as records and flushes them.
void write_batch(const gen_request& r, std::span<const std::uint64_t> batch,
                 const flakeid::layout& l) {
  record_writer& w = *r.writer;
  const text_form to = r.to;
  const bool to_given = r.to_given;
  for (const std::uint64_t id : batch) {
    if (w.kind() == format::text) {
      w.line(write_id(id, to, l));
      continue;
    }
    w.begin();
    w.str("id", std::to_string(id));
    if (to_given) w.str("text", write_id(id, to, l));
    w.end();
  }
  w.flush(*r.run);
}

/// Where `gen` takes its ids when --worker is not given: FLAKEID_WORKER_ID when set, else a
/// host-local file lease (namespace FLAKEID_LEASE_NAMESPACE or "default", in
/// FLAKEID_LEASE_DIR or the default lease directory), so that concurrent runs on one host never
/// share a worker id. The lease is kept in `keep`: it must outlive the generator it fences.
struct default_node {
  flakeid::worker_assignment assignment;
  std::shared_ptr<void> keep;
};

default_node default_worker(const flakeid::layout& l) {
  if (std::getenv("FLAKEID_WORKER_ID") != nullptr)
    return {flakeid::env_worker_id{}.assign(l), nullptr};
  flakeid::lease_options options;
  if (const char* ns = std::getenv("FLAKEID_LEASE_NAMESPACE"); ns != nullptr && *ns != '\0')
    options.name_space = ns;
  const char* dir = std::getenv("FLAKEID_LEASE_DIR");
  try {
    auto lease = std::make_shared<flakeid::file_lease>(
        options, (dir != nullptr && *dir != '\0') ? std::filesystem::path(dir)
                                                  : flakeid::default_lease_directory());
    default_node d{lease->assign(l), nullptr};
    d.keep = lease;
    return d;
  } catch (const std::exception& e) {
    // Never a silent fixed id: another process could be minting on it.
    std::string why = e.what();
    if (why.rfind("flakeid: ", 0) == 0) why.erase(0, 9);
    throw std::runtime_error("flakeid gen: no worker id could be leased: " + why +
                             "; pass --worker W (or set FLAKEID_WORKER_ID) to use a fixed id");
  }
}

template <class Generator>
void mint(Generator& gen, const gen_request& r) {
  constexpr flakeid::layout l = Generator::layout_value;
  std::vector<std::uint64_t> ids(static_cast<std::size_t>(std::min<std::uint64_t>(r.count, 4096)));
  for (std::uint64_t left = r.count; left != 0;) {
    const std::span<std::uint64_t> batch(
        ids.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, ids.size())));
    if constexpr (Generator::has_gene) {
      gen.next_ids(batch, r.gene.value_or(0));
    } else {
      gen.next_ids(batch);
    }
    write_batch(r, batch, l);
    left -= batch.size();
  }
}

template <flakeid::layout L>
void gen_with(gen_request& r) {
  // run_gen has checked the generator and --gene against the layout.
  switch (r.kind) {
    case generator_kind::classic: {
      flakeid::classic_snowflake<L> gen{std::move(r.node)};
      return mint(gen, r);
    }
    case generator_kind::cosid: {
      flakeid::cosid_snowflake<L> gen{std::move(r.node)};
      return mint(gen, r);
    }
    case generator_kind::tick: {
      flakeid::tick_snowflake<L> gen{std::move(r.node)};
      return mint(gen, r);
    }
    case generator_kind::gene:
      if constexpr (L.has(flakeid::field_kind::gene) && L.shift(flakeid::field_kind::gene) == 0) {
        flakeid::gene_snowflake<L> gen{std::move(r.node)};
        return mint(gen, r);
      } else {
        fail("flakeid gen: the gene generator needs a layout whose lowest field is a gene");
      }
  }
}

/// `Op::run<L>` for each preset layout `L`, in the order of `flakeid::preset_names()`: commands
/// that need a generator (gen, bench) dispatch a layout read at run time through such a table.
template <class Op, std::size_t... I>
constexpr auto make_preset_table(std::index_sequence<I...>) {
  return std::array{&Op::template run<flakeid::layout_by_name(flakeid::preset_names()[I])>...};
}

constexpr std::size_t preset_count = flakeid::preset_names().size();

/// The index in `flakeid::preset_names()` of layout `l` (a spec equal to a preset is that
/// preset); any other layout is bad input: generators take their layout at compile time.
/// `doing` completes the message: "mint IDs of", "measure".
std::size_t preset_index(std::string_view command, const flakeid::layout& l, std::string_view name,
                         std::string_view doing) {
  for (std::size_t i = 0; i < preset_count; ++i)
    if (flakeid::layout_by_name(flakeid::preset_names()[i]) == l) return i;
  fail("flakeid " + std::string(command) + ": layout " + quote(name) +
       " is not a preset; generators take their layout at compile time, so " + std::string(doing) +
       " a custom layout from a program (flakeid::classic_snowflake<my_layout>); 'flakeid "
       "layouts' lists the presets");
}

/// Whether generators of `l` mint with a key: its lowest field is a gene.
bool keyed_layout(const flakeid::layout& l) {
  return l.has(flakeid::field_kind::gene) && l.shift(flakeid::field_kind::gene) == 0;
}

struct gen_op {
  template <flakeid::layout L>
  static void run(gen_request& r) {
    gen_with<L>(r);
  }
};
constexpr auto gen_table = make_preset_table<gen_op>(std::make_index_sequence<preset_count>{});

// ---- gen --generator segment -------------------------------------------------------------------

/// The file store's directory: FLAKEID_SEGMENT_DIR, else $XDG_STATE_HOME/flakeid/segments, else
/// ~/.local/state/flakeid/segments.
std::filesystem::path segment_directory() {
  if (const char* d = std::getenv("FLAKEID_SEGMENT_DIR"); d != nullptr && *d != '\0') return d;
  if (const char* s = std::getenv("XDG_STATE_HOME"); s != nullptr && *s != '\0')
    return std::filesystem::path(s) / "flakeid" / "segments";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return std::filesystem::path(h) / ".local" / "state" / "flakeid" / "segments";
  fail("flakeid gen: no directory for the file store: set FLAKEID_SEGMENT_DIR");
}

[[maybe_unused]] std::string segment_namespace() {
  const char* ns = std::getenv("FLAKEID_SEGMENT_NAMESPACE");
  return ns != nullptr && *ns != '\0' ? ns : "default";
}

/// Where a server store is: `option`, else the environment variable `env`, else `fallback`.
[[maybe_unused]] std::string server_of(const arguments& a, std::string_view option, const char* env,
                                       std::string_view fallback) {
  if (const auto v = a.get(option)) return std::string(*v);
  if (const char* e = std::getenv(env); e != nullptr) return e;
  return std::string(fallback);
}

/// `text` with the password of a URI in it (user info after its first ':') shown as `***`.
std::string hide_password(std::string_view text) {
  const auto scheme = text.find("://");
  const auto at = text.rfind('@');
  if (scheme == std::string_view::npos || at == std::string_view::npos || at < scheme)
    return std::string(text);
  const auto colon = text.find(':', scheme + 3);
  if (colon == std::string_view::npos || colon > at) return std::string(text);
  return std::string(text.substr(0, colon + 1)) + "***" + std::string(text.substr(at));
}

/// Draws `count` numbers from a segment generator on `d` and prints them.
template <class Distributor>
void draw_segment(Distributor d, const flakeid::segment_options& o, const gen_request& r) {
  flakeid::segment_generator<Distributor> gen{std::move(d), o};
  const std::uint64_t count = r.count;
  std::vector<std::uint64_t> ids(static_cast<std::size_t>(std::min<std::uint64_t>(count, 4096)));
  for (std::uint64_t left = count; left != 0;) {
    const std::span<std::uint64_t> batch(
        ids.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, ids.size())));
    gen.next_ids(batch);
    write_batch(r, batch, flakeid::layouts::twitter);
    left -= batch.size();
  }
}

int run_gen_segment(const context& c, const arguments& a, gen_request& r) {
  for (const std::string_view o : {"--layout", "--worker", "--datacenter", "--gene"})
    if (a.get(o))
      fail("flakeid gen: option " + quote(o) +
           " does not apply to --generator segment (its numbers have no fields)");
  if (const auto t = a.get("--to")) {
    r.to = read_form("gen", "--to", *t, true);
    r.to_given = true;
    if (r.to == text_form::friendly)
      fail(
          "flakeid gen: --to friendly needs a snowflake layout; segment numbers are written in "
          "decimal, radix62, radix36 or base32");
  }
  const auto store_arg = a.get("--store");
  if (!store_arg) fail("flakeid gen: --generator segment needs --store memory|file|redis|postgres");
  // A URI names the store and where it is: redis://, rediss://, unix://, postgresql://.
  std::string_view store = *store_arg;
  std::string store_uri;
  for (const std::string_view scheme : {"redis://", "rediss://", "unix://"})
    if (store.starts_with(scheme)) store = "redis";
  for (const std::string_view scheme : {"postgresql://", "postgres://"})
    if (store.starts_with(scheme)) store = "postgres";
  if (store != *store_arg) store_uri = std::string(*store_arg);
  const std::string key(a.get("--key").value_or("default"));
  if (key.empty()) fail("flakeid gen: --key must not be empty");
  const std::uint64_t step =
      a.get("--step") ? read_number("gen", "--step", *a.get("--step"), flakeid::max_segment_step)
                      : std::min(r.count, flakeid::max_segment_step);
  if (step == 0) fail("flakeid gen: --step 0 reserves nothing; give a step of at least 1");
  flakeid::segment_options opts{.step = step};
  if (const auto v = a.get("--start"))
    opts.start = read_number("gen", "--start", *v, flakeid::max_segment_start);
  if (const auto v = a.get("--stride"))
    opts.stride = read_number("gen", "--stride", *v, flakeid::max_segment_stride);
  if (const auto v = a.get("--remainder"))
    opts.remainder = read_number("gen", "--remainder", *v, flakeid::max_segment_stride - 1);
  // The generator checks start, stride and remainder (before any store call) and names the
  // value and its range: "flakeid gen: segment option stride = 0 is out of range [1, 65536]".
  if (a.get("--redis") && store != "redis")
    fail("flakeid gen: --redis applies only to --store redis");
  if (a.get("--postgres") && store != "postgres")
    fail("flakeid gen: --postgres applies only to --store postgres");
  if (!store_uri.empty() && (a.get("--redis") || a.get("--postgres")))
    fail("flakeid gen: --store " + quote(hide_password(store_uri)) +
         " already says where the server is; drop --redis/--postgres");
  if (c.io.sandbox && store != "memory")
    fail("flakeid gen: this run may not open stores; use --store memory");

  if (store == "memory") {
    const flakeid::memory_store s;
    draw_segment(s.distributor(key), opts, r);
  } else if (store == "file") {
#if defined(FLAKEID_HAS_FILE_SEGMENT_STORE)
    const flakeid::file_store s{segment_directory()};
    draw_segment(s.distributor(key), opts, r);
#else
    fail("flakeid gen: the file store needs a POSIX system");
#endif
  } else if (store == "redis") {
#if defined(FLAKEID_HAS_REDIS)
    const char* address = std::getenv("FLAKEID_REDIS_ADDRESS");
    const flakeid::redis_store s{!store_uri.empty()
                                     ? store_uri
                                     : server_of(a, "--redis", "FLAKEID_REDIS_URL",
                                                 address != nullptr ? address : "127.0.0.1:6379"),
                                 {.name_space = segment_namespace()}};
    draw_segment(s.distributor(key), opts, r);
#else
    fail(
        "flakeid gen: this flakeid was built without the Redis adapter (hiredis was not found); "
        "stores available: memory, file" FLAKEID_CLI_POSTGRES_NOTE);
#endif
  } else if (store == "postgres") {
#if defined(FLAKEID_HAS_POSTGRES)
    const flakeid::postgres_store s{
        !store_uri.empty() ? store_uri
                           : server_of(a, "--postgres", "FLAKEID_POSTGRES_CONNINFO", ""),
        {.name_space = segment_namespace()}};
    draw_segment(s.distributor(key), opts, r);
#else
    fail(
        "flakeid gen: this flakeid was built without the PostgreSQL adapter (libpq was not "
        "found); stores available: memory, file" FLAKEID_CLI_REDIS_NOTE);
#endif
  } else {
    fail("flakeid gen: store " + quote(hide_password(store)) +
         " is unknown; allowed: memory, file, redis, postgres, or a redis://, rediss://, "
         "unix:// or postgresql:// URI");
  }
  return exit_ok;
}

int run_gen(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"-n", true},           {"--layout", true}, {"--generator", true}, {"--worker", true},
      {"--datacenter", true}, {"--gene", true},   {"--to", true},        {"--store", true},
      {"--key", true},        {"--step", true},   {"--redis", true},     {"--postgres", true},
      {"--format", true},     {"--start", true},  {"--stride", true},    {"--remainder", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, gen_help);
  if (!a.operands.empty())
    fail("flakeid gen: unexpected argument " + quote(a.operands.front()) +
         "; see 'flakeid gen --help'");

  gen_request r;
  r.count = read_number("gen", "-n", a.get("-n").value_or("1"), 1'000'000'000);
  if (r.count == 0) fail("flakeid gen: -n 0 asks for no IDs; give a count of at least 1");
  if (c.io.sandbox && r.count > 1000) fail("flakeid gen: this run mints at most 1000 IDs");
  r.run = &c;
  record_writer writer(read_format(a));
  r.writer = &writer;
  const std::string_view kind = a.get("--generator").value_or("classic");
  if (kind == "segment") return run_gen_segment(c, a, r);
  for (const std::string_view o : {"--store", "--key", "--step", "--start", "--stride",
                                   "--remainder", "--redis", "--postgres"})
    if (a.get(o)) fail("flakeid gen: option " + quote(o) + " applies only to --generator segment");
  std::string_view default_layout = "twitter";
  if (kind == "classic") {
    r.kind = generator_kind::classic;
  } else if (kind == "cosid") {
    r.kind = generator_kind::cosid;
    default_layout = "cosid";
  } else if (kind == "tick") {
    r.kind = generator_kind::tick;
  } else if (kind == "gene") {
    r.kind = generator_kind::gene;
    default_layout = "seed_gene";
  } else {
    fail("flakeid gen: generator " + quote(kind) +
         " is unknown; allowed: classic, gene, cosid, tick, segment");
  }
  const flakeid::layout l = read_layout(a, default_layout);
  r.layout_name = a.get("--layout").value_or(default_layout);
  if (const auto to = a.get("--to")) {
    r.to = read_form("gen", "--to", *to, true);
    r.to_given = true;
  }
  if (const auto g = a.get("--gene")) r.gene = read_number("gen", "--gene", *g);

  if (r.gene && !l.has(flakeid::field_kind::gene))
    fail("flakeid gen: layout " + r.layout_name +
         " has no gene field, so --gene cannot apply; use a "
         "layout with one, such as seed_gene");
  if (r.kind == generator_kind::gene && !keyed_layout(l))
    fail(
        "flakeid gen: the gene generator needs a layout whose lowest field is a gene, such as "
        "seed_gene; layout " +
        r.layout_name + " has none");
  const std::size_t preset = preset_index("gen", l, r.layout_name, "mint IDs of");

  default_node fallback;
  if (const auto w = a.get("--worker")) {
    r.node.node.worker = read_number("gen", "--worker", *w);
    r.node.source = "--worker";
  } else if (c.io.sandbox) {
    fail("flakeid gen: this run may not take a lease; give --worker");
  } else {
    fallback = default_worker(l);
    r.node = fallback.assignment;
  }
  if (const auto d = a.get("--datacenter"))
    r.node.node.datacenter = read_number("gen", "--datacenter", *d);
  if (!a.get("--worker"))
    c.note("worker " + std::to_string(r.node.node.worker) + " from " + r.node.source);
  gen_table[preset](r);
  return exit_ok;
}

// ---- parse -------------------------------------------------------------------------------------

std::string pad_right(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}
std::string pad_left(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

/// The bit-level view of `id`: the 64 bits high to low in groups, one group per field, then a
/// row per field with its bits, width, name and value.
std::string bits_view(const flakeid::layout& l, std::uint64_t id) {
  struct group {
    std::string name;
    unsigned width;
    unsigned low;
    std::uint64_t value;
  };
  std::vector<group> groups;
  unsigned used = 0;
  for (const flakeid::field& f : l.fields()) used += f.bits;
  unsigned top = 64;
  if (used < 64) {  // 63-bit layouts leave the sign bit unused
    top = used;
    groups.push_back({"sign", 64 - used, used, id >> used});
  }
  for (const flakeid::field& f : l.fields()) {
    top -= f.bits;
    const std::uint64_t mask = f.bits >= 64 ? UINT64_MAX : (std::uint64_t{1} << f.bits) - 1;
    groups.push_back({std::string(flakeid::to_string(f.kind)), f.bits, top, (id >> top) & mask});
  }
  std::string out = "id=" + std::to_string(id) + "\n";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i != 0) out += ' ';
    for (unsigned b = groups[i].width; b-- > 0;)
      out += ((groups[i].value >> b) & 1U) != 0 ? '1' : '0';
  }
  out += "\nbits   width  field       value\n";
  for (const group& g : groups) {
    const unsigned high = g.low + g.width - 1;
    std::string label = std::to_string(high);
    if (g.width > 1) label += "-" + std::to_string(g.low);
    std::string value = std::to_string(g.value);
    if (g.name == "timestamp") value += " (" + utc_text(l.decompose(id).timestamp) + ")";
    out += pad_right(label, 7) + pad_left(std::to_string(g.width), 5) + "  " +
           pad_right(g.name, 12) + value + "\n";
  }
  return out;
}

int run_parse(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {{"--layout", true},
                                            {"--format", true},
                                            {"--from", true},
                                            {"--input", true, "--from"},
                                            {"--bits", false}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, parse_help);
  const flakeid::layout l = read_layout(a, "twitter");
  const format f = read_format(a);
  const bool bits = a.flag("--bits");
  if (bits && f != format::text)
    fail("--bits draws the bits as text; drop --format " + std::string(*a.get("--format")));
  const auto input = a.get("--from");
  const std::optional<text_form> forced =
      input ? std::optional<text_form>(read_form("parse", a.typed("--from"), *input, true))
            : std::nullopt;
  const std::vector<std::string> ids = gather_ids(c, a);
  record_writer w(f);
  bool first = true;
  const int status = for_each_item(c, ids, [&](const std::string& text) {
    const std::uint64_t id = read_id("parse", text, forced ? *forced : detect_form(text), l);
    const flakeid::id_parts p = l.decompose(id);
    if (bits) {
      if (!first) w.line("");
      first = false;
      std::string view = bits_view(l, id);
      view.pop_back();
      w.line(view);
    } else if (f == format::text) {
      std::string line = "id=" + std::to_string(id) + " time=" + utc_text(p.timestamp) +
                         " ticks=" + std::to_string(p.ticks);
      for (const flakeid::field& fd : l.fields()) {
        if (fd.kind == flakeid::field_kind::timestamp || fd.kind == flakeid::field_kind::reserved)
          continue;
        line += " ";
        line += flakeid::to_string(fd.kind);
        line += "=" + std::to_string(l.extract(id, fd.kind));
      }
      w.line(line);
    } else {
      w.begin();
      w.str("id", std::to_string(id));
      w.str("time", utc_text(p.timestamp));
      w.num("unix_ms", p.timestamp.time_since_epoch().count());
      w.unum("ticks", p.ticks);
      for (const flakeid::field& fd : l.fields()) {
        if (fd.kind == flakeid::field_kind::timestamp || fd.kind == flakeid::field_kind::reserved)
          continue;
        w.unum(flakeid::to_string(fd.kind), l.extract(id, fd.kind));
      }
      w.end();
    }
    w.flush(c);
  });
  return status;
}

// ---- range -------------------------------------------------------------------------------------

int run_range(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"--layout", true}, {"--column", true}, {"--format", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, range_help);
  if (a.operands.size() != 2)
    fail("flakeid range: give two times, FROM and TO (got " + std::to_string(a.operands.size()) +
         "); see 'flakeid range --help'");
  const flakeid::layout l = read_layout(a, "twitter");
  const format f = read_format(a);
  const std::string column(read_column(a));
  const read_time_result from = read_time(c, "FROM", a.operands[0]);
  const read_time_result to = read_time(c, "TO", a.operands[1]);
  const flakeid::id_bounds b = checked_range(c, l, from, to);
  const std::string lo = std::to_string(b.lo);
  const std::string hi = std::to_string(b.hi);
  const std::string predicate = column + " >= " + lo + " AND " + column + " < " + hi;
  record_writer w(f);
  if (f == format::text) {
    w.line("[" + lo + ", " + hi + ")");
    w.line(predicate);
  } else {
    w.begin();
    w.str("from", utc_text(from.time));
    w.str("to", utc_text(to.time));
    w.str("lo", lo);
    w.str("hi", hi);
    w.str("predicate", predicate);
    w.end();
  }
  w.flush(c);
  return exit_ok;
}

// ---- encode and decode ---------------------------------------------------------------------------

int run_encode(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"--to", true}, {"--layout", true}, {"--pad", false}, {"--from", true}, {"--format", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, encode_help);
  const auto to = a.get("--to");
  if (!to) fail("flakeid encode: give the form with --to radix62|radix36|base32|friendly");
  const text_form form = read_form("encode", "--to", *to, false);
  const text_form from =
      a.get("--from") ? read_form("encode", "--from", *a.get("--from"), true) : text_form::decimal;
  const flakeid::layout l = read_layout(a, "twitter");
  const format f = read_format(a);
  const auto pad = a.flag("--pad") ? flakeid::radix_padding::full : flakeid::radix_padding::none;
  const std::vector<std::string> ids = gather_ids(c, a);
  record_writer w(f);
  return for_each_item(c, ids, [&](const std::string& text) {
    const std::uint64_t id = read_id("encode", text, from, l);
    const std::string out = write_id(id, form, l, pad);
    if (f == format::text) {
      w.line(out);
    } else {
      w.begin();
      w.str("id", std::to_string(id));
      w.str("form", form_name(form));
      w.str("text", out);
      w.end();
    }
    w.flush(c);
  });
}

int run_decode(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"--from", true}, {"--to", true, "--from"}, {"--layout", true}, {"--format", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, decode_help);
  const auto name = a.get("--from");
  const std::optional<text_form> forced =
      name ? std::optional<text_form>(read_form("decode", a.typed("--from"), *name, true))
           : std::nullopt;
  const flakeid::layout l = read_layout(a, "twitter");
  const format f = read_format(a);
  const std::vector<std::string> texts = gather_ids(c, a);
  record_writer w(f);
  return for_each_item(c, texts, [&](const std::string& text) {
    const text_form form = forced ? *forced : detect_form(text);
    const std::uint64_t id = read_id("decode", text, form, l);
    if (f == format::text) {
      w.line(std::to_string(id));
    } else {
      w.begin();
      w.str("text", text);
      w.str("form", form_name(form));
      w.str("id", std::to_string(id));
      w.end();
    }
    w.flush(c);
  });
}

// ---- layouts -----------------------------------------------------------------------------------

int run_layouts(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {{"--format", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, layouts_help);
  if (!a.operands.empty())
    fail("flakeid layouts: unexpected argument " + quote(a.operands.front()));
  record_writer w(read_format(a));
  for (const std::string_view name : flakeid::preset_names()) {
    const flakeid::layout& l = flakeid::layout_by_name(name);
    const std::string spec = flakeid::to_spec(l);
    const std::string expires = utc_text(l.expires_at());
    if (w.kind() == format::text) {
      w.line(pad_right(std::string(name), 14) + " " + pad_right(spec, 62) + " expires " + expires);
    } else {
      w.begin();
      w.str("name", name);
      w.str("spec", spec);
      w.str("expires", expires);
      w.end();
    }
  }
  w.flush(c);
  return exit_ok;
}

// ---- bench -------------------------------------------------------------------------------------

enum class bench_kind { classic, gene, cosid, tick, blocks };

std::string_view bench_kind_name(bench_kind k) {
  switch (k) {
    case bench_kind::classic: return "classic";
    case bench_kind::gene: return "gene";
    case bench_kind::cosid: return "cosid";
    case bench_kind::tick: return "tick";
    case bench_kind::blocks: return "blocks";
  }
  return "classic";
}

constexpr std::uint64_t max_bench_threads = 1024;
constexpr double min_bench_seconds = 0.001;
constexpr double max_bench_seconds = 60;

/// When a measurement runs: a whole number of the layout's ticks, so that a generator that
/// uses up every tick's sequences is measured at exactly its capacity.
struct bench_window {
  std::int64_t epoch_ms = 0;  // ticks start at epoch_ms + k * tick_ms (Unix ms)
  std::int64_t tick_ms = 1;
  std::int64_t ticks = 1;
};

/// What `flakeid bench` measures, and where the rows go.
struct bench_request {
  std::vector<bench_kind> kinds;
  std::vector<unsigned> threads;
  bench_window window;
  std::string layout_name;
  std::uint64_t capacity = 0;  // IDs per second
  const context* run = nullptr;
  record_writer* writer = nullptr;
};

/// One measurement: threads minting together for the request's duration.
struct bench_result {
  double ids_per_s = 0;                                             // all threads, per wall second
  double cpu_ns_per_id = std::numeric_limits<double>::quiet_NaN();  // summed over the threads
  double cpu_share = std::numeric_limits<double>::quiet_NaN();      // CPU time / (threads * wall)
};

/// The CPU time the calling thread has used, in seconds; NaN where the system cannot tell.
double thread_cpu_seconds() noexcept {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  timespec ts{};
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
#endif
  return std::numeric_limits<double>::quiet_NaN();
}

/// Starts `threads` threads; thread t calls the function `make(t)` returns (one ID per call)
/// as fast as it can, from the start of the layout's next tick for `window.ticks` ticks. The
/// threads are stopped a tenth of a tick early: a generator that has used up the last tick
/// waits for the next one, and must not take IDs from it. The rate is the IDs of all threads
/// over the window's length; the CPU share, their CPU time over the time they were let run.
template <class Make>
bench_result run_threads(unsigned threads, const bench_window& window, const Make& make) {
  using wall = std::chrono::system_clock;
  struct alignas(64) slot {  // one per thread, on cache lines of its own
    std::uint64_t ids = 0;
    std::uint64_t sink = 0;  // what the IDs fold to, so that no call can be left out
    double cpu_s = 0;
    std::exception_ptr error;
  };
  std::vector<slot> slots(threads);
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  const auto work = [&](unsigned t) {
    slot& s = slots[t];
    auto mint = make(t);
    ready.fetch_add(1, std::memory_order_release);
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    try {
      const double cpu0 = thread_cpu_seconds();
      std::uint64_t n = 0;
      std::uint64_t sink = 0;
      for (; !stop.load(std::memory_order_relaxed); ++n) sink ^= mint();
      s.cpu_s = thread_cpu_seconds() - cpu0;
      s.ids = n;
      s.sink = sink;
    } catch (...) {
      s.error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    try {
      pool.emplace_back(work, t);
    } catch (const std::system_error& e) {
      go.store(true, std::memory_order_release);
      stop.store(true, std::memory_order_relaxed);
      for (std::thread& th : pool) th.join();
      throw std::runtime_error("flakeid bench: cannot start thread " + std::to_string(t + 1) +
                               " of " + std::to_string(threads) + ": " + e.code().message());
    }
  }
  while (ready.load(std::memory_order_acquire) < threads) std::this_thread::yield();
  using ms = std::chrono::milliseconds;
  const std::int64_t now_ms =
      std::chrono::duration_cast<ms>(wall::now().time_since_epoch()).count();
  const std::int64_t since = now_ms - window.epoch_ms;
  const std::int64_t first_tick = (since >= 0 ? since / window.tick_ms : 0) + 1;
  const wall::time_point t0{ms{window.epoch_ms + first_tick * window.tick_ms}};
  const auto length = ms{window.ticks * window.tick_ms};
  std::this_thread::sleep_until(t0);
  go.store(true, std::memory_order_release);
  const auto started = std::chrono::steady_clock::now();
  std::this_thread::sleep_until(t0 + length - std::chrono::microseconds{window.tick_ms * 100});
  stop.store(true, std::memory_order_relaxed);
  const double run_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (std::thread& th : pool) th.join();
  for (const slot& s : slots)
    if (s.error) std::rethrow_exception(s.error);

  std::uint64_t ids = 0;
  double cpu_s = 0;
  for (const slot& s : slots) {
    ids += s.ids;
    cpu_s += s.cpu_s;
  }
  const double wall_s = std::chrono::duration<double>(length).count();
  bench_result r;
  r.ids_per_s = static_cast<double>(ids) / wall_s;
  if (run_s > 0) r.cpu_share = cpu_s / (run_s * threads);
  if (ids != 0) r.cpu_ns_per_id = cpu_s * 1e9 / static_cast<double>(ids);
  return r;
}

/// The floor at `threads` threads: each reads the wall clock and `fetch_add`s one shared
/// counter, the least a generator shared by the threads must do per ID.
bench_result measure_floor(unsigned threads, const bench_window& window) {
  struct alignas(64) shared_counter {
    std::atomic<std::uint64_t> value{0};
  };
  shared_counter counter;
  return run_threads(threads, window, [&counter](unsigned) {
    return [&counter] {
      const auto now = flakeid::wall_clock::now().time_since_epoch().count();
      return counter.value.fetch_add(1, std::memory_order_relaxed) ^
             static_cast<std::uint64_t>(now);
    };
  });
}

/// One generator of type `Gen` (worker 0) shared by `threads` threads; on a gene layout each
/// thread cycles through the keys, one key per call.
template <class Gen>
bench_result measure_generator(unsigned threads, const bench_window& window) {
  flakeid::worker_assignment node;
  node.source = "flakeid bench";
  const auto gen = std::make_unique<Gen>(std::move(node));
  return run_threads(threads, window, [&g = *gen](unsigned t) {
    if constexpr (Gen::has_gene) {
      return [&g, key = std::uint64_t{t}]() mutable { return g.next_id(key++); };
    } else {
      return [&g] { return g.next_id(); };
    }
  });
}

template <flakeid::layout L>
bench_result measure_kind(bench_kind k, unsigned threads, const bench_window& window) {
  switch (k) {
    case bench_kind::classic:
    case bench_kind::gene:  // the classic engine on a gene layout is the gene generator
      return measure_generator<flakeid::classic_snowflake<L>>(threads, window);
    case bench_kind::cosid: return measure_generator<flakeid::cosid_snowflake<L>>(threads, window);
    case bench_kind::tick: return measure_generator<flakeid::tick_snowflake<L>>(threads, window);
    case bench_kind::blocks:
      // run_bench has checked that the layout has no gene.
      if constexpr (!L.has(flakeid::field_kind::gene)) {
        return measure_generator<flakeid::blocked_snowflake<L>>(threads, window);
      }
      break;
  }
  fail("flakeid bench: generator " + std::string(bench_kind_name(k)) +
       " does not apply to this layout");
}

/// 4096000 as "4,096,000".
std::string grouped(std::uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

/// A rate rounded to whole IDs per second, grouped; "-" when unknown.
std::string rate_text(double v) {
  return std::isfinite(v) ? grouped(static_cast<std::uint64_t>(std::llround(std::max(0.0, v))))
                          : "-";
}

std::string ratio_text(double v) { return std::isfinite(v) ? fixed(v, 2) + "x" : "-"; }

// Widths of the text table's columns, after the generator's name.
constexpr std::array<std::size_t, 7> bench_widths{7, 15, 9, 9, 15, 8, 11};

std::string bench_text_row(std::string name, const std::array<std::string, 7>& cells) {
  std::string line = pad_right(std::move(name), 9);
  for (std::size_t i = 0; i < cells.size(); ++i) line += "  " + pad_left(cells[i], bench_widths[i]);
  return line;
}

void write_bench_row(const bench_request& r, bench_kind k, unsigned threads, const bench_result& m,
                     const bench_result& floor) {
  record_writer& w = *r.writer;
  const double vs_floor = floor.ids_per_s > 0 ? m.ids_per_s / floor.ids_per_s
                                              : std::numeric_limits<double>::quiet_NaN();
  const double vs_capacity = m.ids_per_s / static_cast<double>(r.capacity);
  if (w.kind() == format::text) {
    w.line(bench_text_row(
        std::string(bench_kind_name(k)),
        {std::to_string(threads), rate_text(m.ids_per_s),
         std::isfinite(m.cpu_ns_per_id) ? fixed(m.cpu_ns_per_id, 1) : "-",
         std::isfinite(m.cpu_share) ? fixed(m.cpu_share * 100, 0) + "%" : "-",
         rate_text(floor.ids_per_s), ratio_text(vs_floor), ratio_text(vs_capacity)}));
  } else {
    w.begin();
    w.str("layout", r.layout_name);
    w.str("generator", bench_kind_name(k));
    w.unum("threads", threads);
    w.real("ids_per_s", std::round(m.ids_per_s), 0);
    w.real("cpu_ns_per_id", m.cpu_ns_per_id, 2);
    w.real("cpu_share", m.cpu_share, 3);
    w.real("floor_ids_per_s", std::round(floor.ids_per_s), 0);
    w.real("vs_floor", vs_floor, 3);
    w.unum("capacity_ids_per_s", r.capacity);
    w.real("vs_capacity", vs_capacity, 3);
    w.end();
  }
  w.flush(*r.run);
}

template <flakeid::layout L>
void bench_with(bench_request& r) {
  for (const unsigned n : r.threads) {
    const bench_result floor = measure_floor(n, r.window);
    for (const bench_kind k : r.kinds)
      write_bench_row(r, k, n, measure_kind<L>(k, n, r.window), floor);
  }
}

struct bench_op {
  template <flakeid::layout L>
  static void run(bench_request& r) {
    bench_with<L>(r);
  }
};
constexpr auto bench_table = make_preset_table<bench_op>(std::make_index_sequence<preset_count>{});

/// `--threads 1,2,4`: counts from 1 to max_bench_threads, separated by commas.
std::vector<unsigned> read_thread_counts(std::string_view text) {
  std::vector<unsigned> counts;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view item =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || n == 0 ||
        n > max_bench_threads)
      fail("flakeid bench: --threads " + quote(text) + ": " + quote(item) +
           " is not a thread count in [1, " + std::to_string(max_bench_threads) +
           "]; give counts separated by commas, such as 1,2,4");
    counts.push_back(static_cast<unsigned>(n));
    if (comma == std::string_view::npos) return counts;
    pos = comma + 1;
  }
}

/// The threads the hardware runs at once (1 when it cannot tell), at most max_bench_threads.
unsigned hardware_threads() {
  return static_cast<unsigned>(
      std::clamp<std::uint64_t>(std::thread::hardware_concurrency(), 1, max_bench_threads));
}

/// 1, 2, 4, ... up to the hardware threads, and the hardware threads themselves.
std::vector<unsigned> default_thread_counts() {
  const unsigned hardware = hardware_threads();
  std::vector<unsigned> counts;
  for (unsigned n = 1; n < hardware; n *= 2) counts.push_back(n);
  counts.push_back(hardware);
  return counts;
}

/// `--seconds 0.5`: a decimal number of seconds in [min_bench_seconds, max_bench_seconds].
std::chrono::nanoseconds read_seconds(std::string_view text) {
  const auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  const std::size_t point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  const std::string_view part = point == std::string_view::npos ? "" : text.substr(point + 1);
  const bool decimal = (!whole.empty() || !part.empty()) &&
                       std::all_of(whole.begin(), whole.end(), digit) &&
                       std::all_of(part.begin(), part.end(), digit) && text.size() <= 20;
  const double seconds = decimal ? std::strtod(std::string(text).c_str(), nullptr) : -1;
  if (!decimal || seconds < min_bench_seconds || seconds > max_bench_seconds)
    fail("flakeid bench: --seconds " + quote(text) + " is not a number of seconds in [" +
         fixed(min_bench_seconds, 3) + ", " + fixed(max_bench_seconds, 0) + "], such as 0.5");
  return std::chrono::nanoseconds{std::llround(seconds * 1e9)};
}

int run_bench(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {{"--layout", true},
                                            {"--generator", true},
                                            {"--threads", true},
                                            {"--seconds", true},
                                            {"--format", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, bench_help);
  if (!a.operands.empty())
    fail("flakeid bench: unexpected argument " + quote(a.operands.front()) +
         "; see 'flakeid bench --help'");
  const std::string_view kind = a.get("--generator").value_or("all");
  std::string_view default_layout = "twitter";
  if (kind == "cosid") {
    default_layout = "cosid";
  } else if (kind == "gene") {
    default_layout = "seed_gene";
  } else if (kind != "classic" && kind != "tick" && kind != "blocks" && kind != "all") {
    fail("flakeid bench: generator " + quote(kind) +
         " is unknown; allowed: classic, gene, cosid, tick, blocks, all");
  }
  const flakeid::layout l = read_layout(a, default_layout);
  bench_request r;
  r.layout_name = a.get("--layout").value_or(default_layout);
  const bool keyed = keyed_layout(l);
  if (kind == "gene" && !keyed)
    fail(
        "flakeid bench: the gene generator needs a layout whose lowest field is a gene, such as "
        "seed_gene; layout " +
        r.layout_name + " has none");
  if (kind == "blocks" && l.has(flakeid::field_kind::gene))
    fail("flakeid bench: the blocks generator needs a layout without a gene field; layout " +
         r.layout_name + " has one");
  if (kind == "all") {
    r.kinds = keyed ? std::vector<bench_kind>{bench_kind::gene, bench_kind::cosid, bench_kind::tick}
                    : std::vector<bench_kind>{bench_kind::classic, bench_kind::cosid,
                                              bench_kind::tick, bench_kind::blocks};
  } else {
    for (const bench_kind k : {bench_kind::classic, bench_kind::gene, bench_kind::cosid,
                               bench_kind::tick, bench_kind::blocks})
      if (bench_kind_name(k) == kind) r.kinds = {k};
  }
  const std::size_t preset = preset_index("bench", l, r.layout_name, "measure");
  r.threads =
      a.get("--threads") ? read_thread_counts(*a.get("--threads")) : default_thread_counts();
  const std::string_view seconds = a.get("--seconds").value_or("0.5");
  const std::chrono::nanoseconds duration = read_seconds(seconds);
  record_writer w(read_format(a));
  if (c.io.sandbox) fail("flakeid bench: this run may not start threads");
  // A layout whose time is up (baidu's 28 bits of seconds ran out in 2024) mints nothing.
  (void)l.ticks_at(std::chrono::system_clock::now());

  // Capacity: 2^sequence_bits IDs per tick (per gene value on a gene layout), times ticks per
  // second. Every preset's tick divides a second or is a whole number of seconds.
  const std::uint64_t per_tick = std::uint64_t{1} << l.bits(flakeid::field_kind::sequence);
  const std::uint64_t genes = std::uint64_t{1} << l.bits(flakeid::field_kind::gene);
  const auto tick_ms = static_cast<std::uint64_t>(l.tick_ms);
  r.capacity = per_tick * genes * 1000 / tick_ms;
  r.window.epoch_ms = l.epoch_ms;
  r.window.tick_ms = l.tick_ms;
  r.window.ticks = std::max<std::int64_t>(1, std::llround(static_cast<double>(duration.count()) /
                                                          (static_cast<double>(l.tick_ms) * 1e6)));
  r.run = &c;
  r.writer = &w;
  if (w.kind() == format::text) {
    std::string threads;
    for (const unsigned n : r.threads) threads += (threads.empty() ? "" : ",") + std::to_string(n);
    w.line("layout " + r.layout_name + ": " + flakeid::to_spec(l));
    w.line("capacity " + grouped(r.capacity) + " IDs/s: " + grouped(per_tick) + " IDs per " +
           std::to_string(tick_ms) + " ms tick" +
           (genes > 1 ? " for each of " + std::to_string(genes) + " genes" : ""));
    const std::int64_t length_ms = r.window.ticks * r.window.tick_ms;
    w.line("threads " + threads + "; each measurement " + std::to_string(r.window.ticks) +
           (r.window.ticks == 1 ? " tick (" : " ticks (") +
           fixed(static_cast<double>(length_ms) / 1000, 3) + " s); " +
           std::to_string(hardware_threads()) + " hardware threads");
    w.line("floor: each thread reads the wall clock and adds 1 to one shared counter");
    w.line("");
    w.line(bench_text_row("generator", {"threads", "IDs/s", "CPU ns/ID", "CPU share", "floor IDs/s",
                                        "vs floor", "vs capacity"}));
    w.flush(c);
  }
  bench_table[preset](r);
  return exit_ok;
}

// ---- sql ---------------------------------------------------------------------------------------

flakeid::sql::dialect read_dialect(std::string_view name) {
  if (name == "postgres" || name == "postgresql") return flakeid::sql::dialect::postgres;
  if (name == "mysql" || name == "mariadb") return flakeid::sql::dialect::mysql;
  fail("flakeid sql: --dialect " + quote(name) + " is unknown; use postgres or mysql");
}

flakeid::sql::column_type read_column_type(std::string_view name) {
  if (name == "bigint") return flakeid::sql::column_type::bigint;
  if (name == "numeric") return flakeid::sql::column_type::numeric;
  if (name == "unsigned") return flakeid::sql::column_type::bigint_unsigned;
  fail("flakeid sql: --type " + quote(name) + " is unknown; use bigint, numeric or unsigned");
}

flakeid::sql::shard_by read_shard_by(std::string_view name) {
  if (name == "gene") return flakeid::sql::shard_by::gene;
  if (name == "worker") return flakeid::sql::shard_by::worker;
  fail("flakeid sql: --by " + quote(name) + " is unknown; use gene or worker");
}

flakeid::sql::period read_period(std::string_view name) {
  if (name == "day") return flakeid::sql::period::day;
  if (name == "month") return flakeid::sql::period::month;
  if (name == "year") return flakeid::sql::period::year;
  fail("flakeid sql: --every " + quote(name) + " is unknown; use day, month or year");
}

std::string_view required(const arguments& a, std::string_view option, std::string_view what) {
  const auto v = a.get(option);
  if (!v)
    fail("flakeid sql " + std::string(what) + ": give " + std::string(option) +
         "; see 'flakeid sql --help'");
  return *v;
}

int run_sql(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"--layout", true}, {"--dialect", true}, {"--type", true},  {"--column", true},
      {"--prefix", true}, {"--shards", true},  {"--by", true},    {"--table", true},
      {"--from", true},   {"--to", true},      {"--every", true}, {"--columns", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, sql_help);
  if (a.operands.size() != 1)
    fail(
        "flakeid sql: give one of fields, functions, partitions, shards; see 'flakeid sql --help'");
  const std::string_view what = a.operands[0];
  const flakeid::sql::writer w{read_layout(a, "twitter"),
                               read_dialect(a.get("--dialect").value_or("postgres")),
                               read_column_type(a.get("--type").value_or("bigint"))};
  const std::string_view column = read_column(a);
  const std::uint64_t shards =
      a.get("--shards") ? read_number("sql", "--shards", *a.get("--shards")) : 0;
  const flakeid::sql::shard_by by = read_shard_by(a.get("--by").value_or("gene"));
  const std::string_view columns = a.get("--columns").value_or("");
  std::string out;
  if (what == "fields") {
    const auto line = [&](std::string_view name, const std::string& expr) {
      out += std::string(name) + std::string(12 - name.size(), ' ') + expr + "\n";
    };
    if (w.fits_time_type()) line("created_at", w.created_at(column));
    line("unix_ms", w.unix_ms(column));
    for (const flakeid::field f : w.id_layout().fields()) {
      if (f.kind == flakeid::field_kind::reserved) continue;
      line(f.kind == flakeid::field_kind::timestamp ? "ticks" : flakeid::to_string(f.kind),
           w.field(f.kind, column));
    }
    if (shards != 0) line("shard", w.shard(column, shards, by));
  } else if (what == "functions") {
    for (const std::string& s : w.functions(a.get("--prefix").value_or("id_"), shards, by))
      out += s + "\n";
  } else if (what == "partitions") {
    const std::string_view table = required(a, "--table", what);
    const read_time_result from = read_time(c, "--from", required(a, "--from", what));
    const read_time_result to = read_time(c, "--to", required(a, "--to", what));
    (void)checked_range(c, w.id_layout(), from, to);
    if (c.io.sandbox && to.time - from.time > std::chrono::days{3660})
      fail("flakeid sql partitions: this run writes at most ten years of partitions");
    out = w.time_partitions(table, column, from.time, to.time,
                            read_period(a.get("--every").value_or("month")), columns)
              .script;
  } else if (what == "shards") {
    const std::string_view table = required(a, "--table", what);
    if (shards == 0) fail("flakeid sql shards: give --shards N (N >= 1)");
    if (c.io.sandbox && shards > 4096) fail("flakeid sql shards: this run writes at most 4096");
    out = w.shard_partitions(table, column, shards, by, columns).script;
  } else {
    fail("flakeid sql: unknown SQL " + quote(what) +
         "; give fields, functions, partitions or shards");
  }
  emit(c, out);
  return exit_ok;
}

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
  std::string_view help;
};

int run_help(context& c, std::span<const std::string> argv);

constexpr std::array<command_entry, 10> commands{{{"gen", &run_gen, gen_help},
                                                  {"parse", &run_parse, parse_help},
                                                  {"range", &run_range, range_help},
                                                  {"encode", &run_encode, encode_help},
                                                  {"decode", &run_decode, decode_help},
                                                  {"layouts", &run_layouts, layouts_help},
                                                  {"sql", &run_sql, sql_help},
                                                  {"bench", &run_bench, bench_help},
                                                  {"help", &run_help, help_help},
                                                  {"version", &run_version, version_help}}};

[[noreturn]] void unknown_command(std::string_view name) {
  std::vector<std::string_view> names;
  names.reserve(commands.size());
  for (const command_entry& e : commands) names.push_back(e.name);
  const std::string_view guess = closest(name, names);
  if (!guess.empty())
    fail("flakeid: unknown command " + quote(name) + "; did you mean " + std::string(guess) + "?");
  fail("flakeid: unknown command " + quote(name) +
       "; commands: gen, parse, range, encode, decode, layouts, sql, bench, help, version (see "
       "'flakeid --help')");
}

/// `flakeid help [COMMAND]`: the command's help, or the list of commands. Never recurses.
int run_help(context& c, std::span<const std::string> argv) {
  if (argv.empty()) return print_help(c, main_help);
  const std::string_view topic = argv[0];
  if (topic == "-h" || topic == "--help") return print_help(c, help_help);
  for (const command_entry& e : commands)
    if (e.name == topic) return print_help(c, e.help);
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
        "flakeid: give a command (gen, parse, range, encode, decode, layouts, sql, bench); see "
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
