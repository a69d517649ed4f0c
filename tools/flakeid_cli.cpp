// flakeid: the command-line tool. Mints IDs, decodes them, converts their text forms and turns a
// time range into a SQL predicate, for any preset layout or a layout spec.
//
//   flakeid gen -n 3 --layout sonyflake --worker 7
//   flakeid parse 175928847299117063 --layout discord
//   flakeid range 2024-01-01 2024-01-02 --layout twitter
//   flakeid encode --to base32 175928847299117063
//   flakeid decode --from radix62 Dz7Z5zTg
//   flakeid gen --generator segment --store file --key orders -n 10
//   flakeid sql partitions --layout twitter --table orders --from 2026-01-01 --to 2027-01-01
//
// Every command has --help. Bad input prints one line on stderr and exits with status 2; any
// other failure (the clock went back, a lease was lost) exits with status 1.

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <flakeid/flakeid.hpp>
#if defined(FLAKEID_HAS_REDIS)
#include <flakeid/adapters/redis_segment.hpp>
#endif
#if defined(FLAKEID_HAS_POSTGRES)
#include <flakeid/adapters/postgres_segment.hpp>
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

[[noreturn]] void fail(const std::string& msg) { throw usage_error(msg); }

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

int print_help(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
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
    "  parse     print the fields and the UTC time of IDs\n"
    "  range     the IDs minted between two times, as bounds and a SQL predicate\n"
    "  encode    decimal IDs to radix62, radix36, base32 (Crockford) or the friendly form\n"
    "  decode    IDs in those forms back to decimal\n"
    "  layouts   list the preset layouts and their specs\n"
    "  sql       SQL that decodes IDs, partitions tables by ID and routes shards by gene\n"
    "\n"
    "A layout (--layout) is a preset name (twitter, discord, sonyflake, ...; see 'flakeid\n"
    "layouts') or a spec such as 'ts:41,worker:10,seq:12;epoch=2024-01-01;tick=1ms'.\n"
    "\n"
    "'flakeid <command> --help' describes a command. 'flakeid --version' prints the version.\n"
    "Exit status: 0 success, 1 failure while minting, 2 bad input.\n";

constexpr std::string_view gen_help =
    "usage: flakeid gen [-n N] [--layout L] [--generator classic|gene|cosid|tick]\n"
    "                   [--worker W] [--datacenter D] [--gene K] [--to FORM]\n"
    "       flakeid gen --generator segment --store memory|file|redis|postgres [--key K]\n"
    "                   [--step S] [--redis ADDRESS] [--postgres CONNINFO] [-n N] [--to FORM]\n"
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
    "                FLAKEID_LEASE_NAMESPACE, default 'default'); a note on stderr says which.\n"
    "                When no id can be leased, gen fails (exit 1): it never falls back to 0.\n"
    "  --datacenter  the datacenter id (default 0).\n"
    "  --gene        the key whose gene the IDs carry (layouts with a gene field; default 0).\n"
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
    "Redis and PostgreSQL counters use the namespace FLAKEID_SEGMENT_NAMESPACE (default\n"
    "'default'). A store this build lacks is reported as bad input.\n";

constexpr std::string_view parse_help =
    "usage: flakeid parse ID... [--layout L] [--format text|json]\n"
    "                           [--input decimal|radix62|radix36|base32|friendly]\n"
    "\n"
    "Prints the fields and the UTC time of each ID under the layout (default twitter), one line\n"
    "per ID: 'id=... time=... ticks=...' then the layout's fields from high to low, or with\n"
    "--format json one JSON object per line (the ID as a string, safe for JavaScript).\n"
    "\n"
    "The text form of each ID is detected unless --input names it: all digits is decimal;\n"
    "13 characters of Crockford's alphabet is base32; text with a '-' is the friendly form;\n"
    "anything else is radix62. A padded radix36 ID needs --input radix36.\n";

constexpr std::string_view range_help =
    "usage: flakeid range FROM TO [--layout L] [--column NAME]\n"
    "\n"
    "Prints the half-open bounds [lo, hi) holding every ID minted from FROM up to (not\n"
    "including) TO under the layout (default twitter), then the SQL predicate\n"
    "'id >= lo AND id < hi' (--column names the column; default id).\n"
    "\n"
    "FROM and TO are UTC times: 2024-01-01, 2024-01-01T00:00:00Z, 2024-01-01T00:00:00.000Z,\n"
    "2024-01-01T08:00:00+08:00, or Unix milliseconds (1704067200000).\n";

constexpr std::string_view encode_help =
    "usage: flakeid encode --to radix62|radix36|base32|friendly [--pad] [--layout L] ID...\n"
    "\n"
    "Writes each decimal ID in the text form, one per line.\n"
    "  radix62   0-9A-Za-z, as CosId writes it (--pad: always 11 characters)\n"
    "  radix36   0-9A-Z (--pad: always 13 characters)\n"
    "  base32    Crockford's base32, always 13 characters; text order is ID order\n"
    "  friendly  yyyyMMddHHmmssSSS-<fields> in UTC, under the layout (default twitter)\n";

constexpr std::string_view decode_help =
    "usage: flakeid decode [--from radix62|radix36|base32|friendly] [--layout L] TEXT...\n"
    "\n"
    "Writes each ID given in a text form as a decimal number, one per line. Without --from\n"
    "(or its synonym --to) the form is detected as 'flakeid parse' does. The friendly form is\n"
    "read under the layout (default twitter) in UTC.\n";

constexpr std::string_view layouts_help =
    "usage: flakeid layouts\n"
    "\n"
    "Lists the preset layouts: name, spec (fields high to low; epoch in Unix ms; tick) and the\n"
    "last instant each can encode.\n";

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
    "Identifiers are [A-Za-z_][A-Za-z0-9_]* (a table may be schema.table); they are quoted.\n";

// ---- arguments ---------------------------------------------------------------------------------

/// The command line of one command: its options (each at most once) and its operands.
struct arguments {
  std::vector<std::pair<std::string_view, std::string_view>> options;
  std::vector<std::string_view> operands;
  bool help = false;

  [[nodiscard]] std::optional<std::string_view> get(std::string_view name) const {
    for (const auto& [k, v] : options)
      if (k == name) return v;
    return std::nullopt;
  }
  [[nodiscard]] bool flag(std::string_view name) const { return get(name).has_value(); }
};

struct option_spec {
  std::string_view name;  // "--layout", "-n"
  bool takes_value;
};

arguments read_arguments(std::string_view command, std::span<char* const> argv,
                         std::span<const option_spec> allowed) {
  arguments a;
  bool options_done = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string_view arg = argv[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
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
    const std::size_t eq = arg.find('=');
    const std::string_view name = arg.substr(0, eq);
    const option_spec* spec = nullptr;
    for (const auto& o : allowed)
      if (o.name == name) spec = &o;
    if (spec == nullptr)
      fail("flakeid " + std::string(command) + ": unknown option " + quote(name) +
           "; see 'flakeid " + std::string(command) + " --help'");
    if (a.get(name))
      fail("flakeid " + std::string(command) + ": option " + quote(name) + " is given twice");
    std::string_view value;
    if (spec->takes_value) {
      if (eq != std::string_view::npos) {
        value = arg.substr(eq + 1);
      } else if (i + 1 < argv.size()) {
        value = argv[++i];
      } else {
        fail("flakeid " + std::string(command) + ": option " + quote(name) + " needs a value");
      }
    } else if (eq != std::string_view::npos) {
      fail("flakeid " + std::string(command) + ": option " + quote(name) + " takes no value");
    }
    a.options.emplace_back(name, value);
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

// ---- text forms --------------------------------------------------------------------------------

enum class text_form { decimal, radix62, radix36, base32, friendly };

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

bool is_crockford_char(char c) {
  if (c >= '0' && c <= '9') return true;
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return c >= 'A' && c <= 'Z' && c != 'U';
}

/// The text form `text` is most likely in (see the help of `parse`).
text_form detect_form(std::string_view text) {
  bool digits = !text.empty();
  bool crockford = text.size() == flakeid::crockford32_width;
  for (const char c : text) {
    digits = digits && c >= '0' && c <= '9';
    crockford = crockford && is_crockford_char(c);
  }
  if (digits) return text_form::decimal;
  if (crockford) return text_form::base32;
  if (text.find('-') != std::string_view::npos) return text_form::friendly;
  return text_form::radix62;
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

/// `2016-04-30T11:18:25.796Z`.
std::string utc_text(flakeid::layout::time_point t) { return flakeid::detail::format_utc(t); }

// ---- gen ---------------------------------------------------------------------------------------

enum class generator_kind { classic, gene, cosid, tick };

struct gen_request {
  std::uint64_t count = 1;
  generator_kind kind = generator_kind::classic;
  flakeid::worker_assignment node;
  std::optional<std::uint64_t> gene;
  text_form to = text_form::decimal;
  std::string layout_name;
};

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
  std::string out;
  for (std::uint64_t left = r.count; left != 0;) {
    const std::span<std::uint64_t> batch(
        ids.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, ids.size())));
    if constexpr (Generator::has_gene) {
      gen.next_ids(batch, r.gene.value_or(0));
    } else {
      gen.next_ids(batch);
    }
    out.clear();
    for (const std::uint64_t id : batch) {
      out += write_id(id, r.to, l);
      out += '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
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

/// One `gen_with` per preset layout, in the order of `flakeid::preset_names()`.
using gen_function = void (*)(gen_request&);

template <std::size_t... I>
constexpr std::array<gen_function, sizeof...(I)> make_gen_table(std::index_sequence<I...>) {
  return {&gen_with<flakeid::layout_by_name(flakeid::preset_names()[I])>...};
}

constexpr std::size_t preset_count = flakeid::preset_names().size();
constexpr auto gen_table = make_gen_table(std::make_index_sequence<preset_count>{});

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
void draw_segment(Distributor d, std::uint64_t step, std::uint64_t count, text_form to) {
  flakeid::segment_generator<Distributor> gen{std::move(d), step};
  std::vector<std::uint64_t> ids(static_cast<std::size_t>(std::min<std::uint64_t>(count, 4096)));
  std::string out;
  for (std::uint64_t left = count; left != 0;) {
    const std::span<std::uint64_t> batch(
        ids.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, ids.size())));
    gen.next_ids(batch);
    out.clear();
    for (const std::uint64_t id : batch) {
      out += write_id(id, to, flakeid::layouts::twitter);
      out += '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    left -= batch.size();
  }
}

int run_gen_segment(const arguments& a, std::uint64_t count) {
  for (const std::string_view o : {"--layout", "--worker", "--datacenter", "--gene"})
    if (a.get(o))
      fail("flakeid gen: option " + quote(o) +
           " does not apply to --generator segment (its numbers have no fields)");
  text_form to = text_form::decimal;
  if (const auto t = a.get("--to")) {
    to = read_form("gen", "--to", *t, true);
    if (to == text_form::friendly)
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
                      : std::min(count, flakeid::max_segment_step);
  if (step == 0) fail("flakeid gen: --step 0 reserves nothing; give a step of at least 1");
  if (a.get("--redis") && store != "redis")
    fail("flakeid gen: --redis applies only to --store redis");
  if (a.get("--postgres") && store != "postgres")
    fail("flakeid gen: --postgres applies only to --store postgres");
  if (!store_uri.empty() && (a.get("--redis") || a.get("--postgres")))
    fail("flakeid gen: --store " + quote(hide_password(store_uri)) +
         " already says where the server is; drop --redis/--postgres");

  if (store == "memory") {
    const flakeid::memory_segment_store s;
    draw_segment(s.distributor(key), step, count, to);
  } else if (store == "file") {
#if defined(FLAKEID_HAS_FILE_SEGMENT_STORE)
    const flakeid::file_segment_store s{segment_directory()};
    draw_segment(s.distributor(key), step, count, to);
#else
    fail("flakeid gen: the file store needs a POSIX system");
#endif
  } else if (store == "redis") {
#if defined(FLAKEID_HAS_REDIS)
    const char* address = std::getenv("FLAKEID_REDIS_ADDRESS");
    const flakeid::redis_segment_store s{
        !store_uri.empty() ? store_uri
                           : server_of(a, "--redis", "FLAKEID_REDIS_URL",
                                       address != nullptr ? address : "127.0.0.1:6379"),
        {.name_space = segment_namespace()}};
    draw_segment(s.distributor(key), step, count, to);
#else
    fail(
        "flakeid gen: this flakeid was built without the Redis adapter (hiredis was not found); "
        "stores available: memory, file" FLAKEID_CLI_POSTGRES_NOTE);
#endif
  } else if (store == "postgres") {
#if defined(FLAKEID_HAS_POSTGRES)
    const flakeid::postgres_segment_store s{
        !store_uri.empty() ? store_uri
                           : server_of(a, "--postgres", "FLAKEID_POSTGRES_CONNINFO", ""),
        {.name_space = segment_namespace()}};
    draw_segment(s.distributor(key), step, count, to);
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

int run_gen(std::span<char* const> argv) {
  static constexpr option_spec allowed[] = {
      {"-n", true},           {"--layout", true}, {"--generator", true}, {"--worker", true},
      {"--datacenter", true}, {"--gene", true},   {"--to", true},        {"--store", true},
      {"--key", true},        {"--step", true},   {"--redis", true},     {"--postgres", true}};
  const arguments a = read_arguments("gen", argv, allowed);
  if (a.help) return print_help(gen_help);
  if (!a.operands.empty())
    fail("flakeid gen: unexpected argument " + quote(a.operands.front()) +
         "; see 'flakeid gen --help'");

  gen_request r;
  r.count = read_number("gen", "-n", a.get("-n").value_or("1"), 1'000'000'000);
  if (r.count == 0) fail("flakeid gen: -n 0 asks for no IDs; give a count of at least 1");
  const std::string_view kind = a.get("--generator").value_or("classic");
  if (kind == "segment") return run_gen_segment(a, r.count);
  for (const std::string_view o : {"--store", "--key", "--step", "--redis", "--postgres"})
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
  if (const auto to = a.get("--to")) r.to = read_form("gen", "--to", *to, true);
  if (const auto g = a.get("--gene")) r.gene = read_number("gen", "--gene", *g);

  const bool gene_layout = l.has(flakeid::field_kind::gene);
  if (r.gene && !gene_layout)
    fail("flakeid gen: layout " + r.layout_name +
         " has no gene field, so --gene cannot apply; use a "
         "layout with one, such as seed_gene");
  if (r.kind == generator_kind::gene && !(gene_layout && l.shift(flakeid::field_kind::gene) == 0))
    fail(
        "flakeid gen: the gene generator needs a layout whose lowest field is a gene, such as "
        "seed_gene; layout " +
        r.layout_name + " has none");

  std::size_t preset = preset_count;
  for (std::size_t i = 0; i < preset_count; ++i)
    if (flakeid::layout_by_name(flakeid::preset_names()[i]) == l) preset = i;
  if (preset == preset_count)
    fail("flakeid gen: layout " + quote(r.layout_name) +
         " is not a preset; generators take their layout at compile time, so mint IDs of a custom "
         "layout from a program (flakeid::classic_snowflake<my_layout>); 'flakeid layouts' lists "
         "the presets");

  default_node fallback;
  if (const auto w = a.get("--worker")) {
    r.node.node.worker = read_number("gen", "--worker", *w);
    r.node.source = "--worker";
  } else {
    fallback = default_worker(l);
    r.node = fallback.assignment;
  }
  if (const auto d = a.get("--datacenter"))
    r.node.node.datacenter = read_number("gen", "--datacenter", *d);
  if (!a.get("--worker"))
    std::fprintf(stderr, "flakeid gen: worker %llu from %s\n",
                 static_cast<unsigned long long>(r.node.node.worker), r.node.source.c_str());
  gen_table[preset](r);
  return exit_ok;
}

// ---- parse -------------------------------------------------------------------------------------

int run_parse(std::span<char* const> argv) {
  static constexpr option_spec allowed[] = {
      {"--layout", true}, {"--format", true}, {"--input", true}};
  const arguments a = read_arguments("parse", argv, allowed);
  if (a.help) return print_help(parse_help);
  if (a.operands.empty()) fail("flakeid parse: give at least one ID; see 'flakeid parse --help'");
  const flakeid::layout l = read_layout(a, "twitter");
  const std::string_view format = a.get("--format").value_or("text");
  if (format != "text" && format != "json")
    fail("flakeid parse: format " + quote(format) + " is unknown; allowed: text, json");
  const auto input = a.get("--input");
  const std::optional<text_form> forced =
      input ? std::optional<text_form>(read_form("parse", "--input", *input, true)) : std::nullopt;
  const bool json = format == "json";

  // Decode every ID before printing, so bad input prints nothing but its error.
  std::vector<std::pair<std::uint64_t, flakeid::id_parts>> decoded;
  for (const std::string_view text : a.operands) {
    const std::uint64_t id = read_id("parse", text, forced.value_or(detect_form(text)), l);
    decoded.emplace_back(id, l.decompose(id));
  }
  std::string out;
  for (const auto& [id, p] : decoded) {
    const std::string time = utc_text(p.timestamp);
    out += json
               ? "{\"id\":\"" + std::to_string(id) + "\",\"time\":\"" + time +
                     "\",\"unix_ms\":" + std::to_string(p.timestamp.time_since_epoch().count()) +
                     ",\"ticks\":" + std::to_string(p.ticks)
               : "id=" + std::to_string(id) + " time=" + time + " ticks=" + std::to_string(p.ticks);
    for (const flakeid::field& f : l.fields()) {
      if (f.kind == flakeid::field_kind::timestamp || f.kind == flakeid::field_kind::reserved)
        continue;
      const std::string name(flakeid::to_string(f.kind));
      const std::string value = std::to_string(l.extract(id, f.kind));
      out += json ? ",\"" + name + "\":" + value : " " + name + "=" + value;
    }
    out += json ? "}\n" : "\n";
  }
  std::fputs(out.c_str(), stdout);
  return exit_ok;
}

// ---- range -------------------------------------------------------------------------------------

flakeid::layout::time_point read_time(std::string_view what, std::string_view text,
                                      std::string_view command = "range") {
  std::uint64_t ms = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (!text.empty() && ec == std::errc{} && end == text.data() + text.size() &&
      ms <= static_cast<std::uint64_t>(INT64_MAX))
    return flakeid::layout::time_point{std::chrono::milliseconds{static_cast<std::int64_t>(ms)}};
  std::int64_t unix_ms = 0;
  if (flakeid::detail::parse_iso_instant(text, unix_ms))
    return flakeid::layout::time_point{std::chrono::milliseconds{unix_ms}};
  fail("flakeid " + std::string(command) + ": " + std::string(what) + " " + quote(text) +
       " is neither a UTC time (2024-01-01, 2024-01-01T00:00:00Z, 2024-01-01T08:00:00+08:00) "
       "nor Unix milliseconds");
}

int run_range(std::span<char* const> argv) {
  static constexpr option_spec allowed[] = {{"--layout", true}, {"--column", true}};
  const arguments a = read_arguments("range", argv, allowed);
  if (a.help) return print_help(range_help);
  if (a.operands.size() != 2)
    fail("flakeid range: give two times, FROM and TO (got " + std::to_string(a.operands.size()) +
         "); see 'flakeid range --help'");
  const flakeid::layout l = read_layout(a, "twitter");
  const auto from = read_time("FROM", a.operands[0]);
  const auto to = read_time("TO", a.operands[1]);
  const flakeid::id_bounds b = l.id_range(from, to);
  const std::string column(a.get("--column").value_or("id"));
  const std::string lo = std::to_string(b.lo);
  const std::string hi = std::to_string(b.hi);
  std::printf("[%s, %s)\n%s >= %s AND %s < %s\n", lo.c_str(), hi.c_str(), column.c_str(),
              lo.c_str(), column.c_str(), hi.c_str());
  return exit_ok;
}

// ---- encode and decode ---------------------------------------------------------------------------

int run_encode(std::span<char* const> argv) {
  static constexpr option_spec allowed[] = {{"--to", true}, {"--layout", true}, {"--pad", false}};
  const arguments a = read_arguments("encode", argv, allowed);
  if (a.help) return print_help(encode_help);
  const auto to = a.get("--to");
  if (!to) fail("flakeid encode: give the form with --to radix62|radix36|base32|friendly");
  const text_form form = read_form("encode", "--to", *to, false);
  if (a.operands.empty())
    fail("flakeid encode: give at least one decimal ID; see 'flakeid encode --help'");
  const flakeid::layout l = read_layout(a, "twitter");
  const auto pad = a.flag("--pad") ? flakeid::radix_padding::full : flakeid::radix_padding::none;
  std::string out;
  for (const std::string_view text : a.operands) {
    out += write_id(read_number("encode", "ID", text), form, l, pad);
    out += '\n';
  }
  std::fputs(out.c_str(), stdout);
  return exit_ok;
}

int run_decode(std::span<char* const> argv) {
  static constexpr option_spec allowed[] = {{"--from", true}, {"--to", true}, {"--layout", true}};
  const arguments a = read_arguments("decode", argv, allowed);
  if (a.help) return print_help(decode_help);
  if (a.get("--from") && a.get("--to"))
    fail("flakeid decode: give the form once, with --from (or its synonym --to)");
  const auto name = a.get("--from") ? a.get("--from") : a.get("--to");
  const std::optional<text_form> forced =
      name ? std::optional<text_form>(read_form("decode", "--from", *name, true)) : std::nullopt;
  if (a.operands.empty()) fail("flakeid decode: give at least one ID; see 'flakeid decode --help'");
  const flakeid::layout l = read_layout(a, "twitter");
  std::string out;
  for (const std::string_view text : a.operands) {
    out += std::to_string(read_id("decode", text, forced.value_or(detect_form(text)), l));
    out += '\n';
  }
  std::fputs(out.c_str(), stdout);
  return exit_ok;
}

// ---- layouts -----------------------------------------------------------------------------------

int run_layouts(std::span<char* const> argv) {
  const arguments a = read_arguments("layouts", argv, {});
  if (a.help) return print_help(layouts_help);
  if (!a.operands.empty())
    fail("flakeid layouts: unexpected argument " + quote(a.operands.front()));
  for (const std::string_view name : flakeid::preset_names()) {
    const flakeid::layout& l = flakeid::layout_by_name(name);
    std::printf("%-14.*s %-62s expires %s\n", static_cast<int>(name.size()), name.data(),
                flakeid::to_spec(l).c_str(), utc_text(l.expires_at()).c_str());
  }
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

int run_sql(std::span<char* const> argv) {
  static constexpr option_spec allowed[] = {
      {"--layout", true}, {"--dialect", true}, {"--type", true},  {"--column", true},
      {"--prefix", true}, {"--shards", true},  {"--by", true},    {"--table", true},
      {"--from", true},   {"--to", true},      {"--every", true}, {"--columns", true}};
  const arguments a = read_arguments("sql", argv, allowed);
  if (a.help) return print_help(sql_help);
  if (a.operands.size() != 1)
    fail(
        "flakeid sql: give one of fields, functions, partitions, shards; see 'flakeid sql --help'");
  const std::string_view what = a.operands[0];
  const flakeid::sql::writer w{read_layout(a, "twitter"),
                               read_dialect(a.get("--dialect").value_or("postgres")),
                               read_column_type(a.get("--type").value_or("bigint"))};
  const std::string_view column = a.get("--column").value_or("id");
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
    const auto from = read_time("--from", required(a, "--from", what), "sql");
    const auto to = read_time("--to", required(a, "--to", what), "sql");
    out = w.time_partitions(table, column, from, to,
                            read_period(a.get("--every").value_or("month")), columns)
              .script;
  } else if (what == "shards") {
    const std::string_view table = required(a, "--table", what);
    if (shards == 0) fail("flakeid sql shards: give --shards N (N >= 1)");
    out = w.shard_partitions(table, column, shards, by, columns).script;
  } else {
    fail("flakeid sql: unknown SQL " + quote(what) +
         "; give fields, functions, partitions or shards");
  }
  std::fputs(out.c_str(), stdout);
  return exit_ok;
}

// ---- main --------------------------------------------------------------------------------------

int run(std::span<char* const> args) {
  if (args.empty())
    fail(
        "flakeid: give a command (gen, parse, range, encode, decode, layouts, sql); see "
        "'flakeid --help'");
  const std::string_view command = args[0];
  const std::span<char* const> rest = args.subspan(1);
  if (command == "--help" || command == "-h" || command == "help") {
    if (!rest.empty()) {
      char help_flag[] = "--help";
      std::array<char*, 2> again{rest[0], help_flag};
      return run(again);
    }
    return print_help(main_help);
  }
  if (command == "--version") return print_help("flakeid " FLAKEID_CLI_VERSION "\n");
  if (command == "gen") return run_gen(rest);
  if (command == "parse") return run_parse(rest);
  if (command == "range") return run_range(rest);
  if (command == "encode") return run_encode(rest);
  if (command == "decode") return run_decode(rest);
  if (command == "layouts") return run_layouts(rest);
  if (command == "sql") return run_sql(rest);
  fail("flakeid: unknown command " + quote(command) +
       "; commands: gen, parse, range, encode, decode, layouts, sql (see 'flakeid --help')");
}

/// The message of `e` on one line, starting with "flakeid".
void report(const std::exception& e) {
  std::string msg = e.what();
  for (char& c : msg)
    if (c == '\n') c = ' ';
  if (msg.rfind("flakeid", 0) != 0) msg = "flakeid: " + msg;
  std::fprintf(stderr, "%s\n", msg.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int rc =
        run(std::span<char* const>(argv + 1, static_cast<std::size_t>(argc > 0 ? argc - 1 : 0)));
    return std::fflush(stdout) == 0 ? rc : exit_failure;
  } catch (const std::invalid_argument& e) {  // usage errors, bad layouts, bad ID text
    report(e);
    return exit_usage;
  } catch (const std::out_of_range& e) {  // a worker, datacenter or gene too large for the layout
    report(e);
    return exit_usage;
  } catch (const flakeid::timestamp_overflow_error& e) {  // a time outside the layout's range
    report(e);
    return exit_usage;
  } catch (const flakeid::worker_id_error& e) {  // FLAKEID_WORKER_ID is not a number
    report(e);
    return exit_usage;
  } catch (const std::exception& e) {
    report(e);
    return exit_failure;
  }
}
