// flakeid gen: mints IDs with a snowflake generator of a preset layout.
#include "gen.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <flakeid/lease.hpp>
#include <flakeid/store/file.hpp>
#include <flakeid/worker_id.hpp>

namespace flakeid_cli {
const std::string_view gen_help =
    "usage: flakeid gen [-n N] [--layout L] [--generator classic|gene|cosid|tick]\n"
    "                   [--worker W] [--datacenter D] [--gene K] [--to FORM]\n"
    "                   [--format text|json|tsv] [-q]\n"
    "       flakeid gen --generator segment --store memory|file|redis|postgres [--key K]\n"
    "                   [--step S] [--start N0] [--stride M --remainder R]\n"
    "                   [--redis ADDRESS] [--postgres CONNINFO] [-n N] [--to FORM]\n"
    "       flakeid gen --config FILE --name NAME [-n N] [--format text|json|tsv]\n"
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
    "                FLAKEID_LEASE_NAMESPACE, default 'default'; in a container with an IPC\n"
    "                namespace of its own, its /dev/shm is its own: name a directory that every\n"
    "                container sees); a note on stderr says which\n"
    "                (-q silences it). When no id can be leased, gen fails (exit 1): it never\n"
    "                falls back to a fixed id.\n"
    "  --datacenter  the datacenter id (default 0), with --worker or FLAKEID_WORKER_ID only: a\n"
    "                leased id takes its datacenter from the lease.\n"
    "  --gene        the key whose gene the IDs carry (layouts with a gene field; default 0).\n"
    "  --format      text (default), json ({\"id\":\"...\"} per line) or tsv (with a header).\n"
    "\n"
    "Segment generator:\n"
    "  --store       memory    this run only: numbers start at 1 every time\n"
    "                file      a counter file in FLAKEID_SEGMENT_DIR (default\n"
    "                          $XDG_STATE_HOME/flakeid/segments or "
    "~/.local/state/flakeid/segments:\n"
    "                          this user's, in this environment; runs that share a\n"
    "                          counter need one FLAKEID_SEGMENT_DIR)\n"
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
    "'default'). A store this build lacks is reported as bad input.\n"
    "\n"
    "Registry:\n"
    "  --config      a registry configuration (JSON; docs/registry.md), the file an\n"
    "                application or 'flakeid serve' reads\n"
    "  --name        the entry to mint with: its kind, layout, worker id or lease, store and\n"
    "                text form come from the file (the text form of its \"text\" field)\n";
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

namespace {

/// Where `gen` takes its ids when --worker is not given: FLAKEID_WORKER_ID when set, else a
/// host-local file lease (namespace FLAKEID_LEASE_NAMESPACE or "default", in
/// FLAKEID_LEASE_DIR or the default lease directory), so that concurrent runs on one host never
/// share a worker id. The lease is kept in `keep`: it must outlive the generator it fences.
struct default_node {
  flakeid::worker_assignment assignment;
  std::shared_ptr<void> keep;
};

/// Why the default lease directory may be this process's container's alone, or empty. It is
/// host-wide in the host's IPC namespace only: a container with one of its own (Docker's and
/// Kubernetes' default) has a /dev/shm of its own too, unless the directory is a mount of its
/// own (a host directory mounted into every container). Empty where /proc cannot tell.
std::string private_default_directory() {
#if defined(__linux__)
  constexpr ino_t host_ipc_namespace = 0xEFFFFFFFU;  // the kernel's PROC_IPC_INIT_INO
  struct stat ns {};
  if (::stat("/proc/self/ns/ipc", &ns) != 0 || ns.st_ino == host_ipc_namespace) return {};
  struct stat dir {};
  struct stat shm {};
  if (::stat(flakeid::default_lease_directory().c_str(), &dir) == 0 &&
      ::stat("/dev/shm", &shm) == 0 && dir.st_dev != shm.st_dev)
    return {};
  return "ipc:[" + std::to_string(ns.st_ino) + "]";
#else
  return {};
#endif
}

default_node default_worker(const context& c, const flakeid::layout& l) {
  if (std::getenv("FLAKEID_WORKER_ID") != nullptr)
    return {flakeid::env_worker_id{}.assign(l), nullptr};
  flakeid::store_options where;
  if (const char* ns = std::getenv("FLAKEID_LEASE_NAMESPACE"); ns != nullptr && *ns != '\0')
    where.name_space = ns;
  const char* dir = std::getenv("FLAKEID_LEASE_DIR");
  if (dir != nullptr && *dir != '\0' && *dir != '/')
    fail("flakeid gen: FLAKEID_LEASE_DIR " + quote(dir) +
         " is a relative path, another directory in each working directory, where a run "
         "elsewhere could lease the same id; give an absolute path");
  flakeid::lease_options options;
  // A claim that must wait over a second (a new lease directory, a store that may have lost its
  // records) says so, with how long and why, before the wait.
  options.on_event = [&c](flakeid::lease_event e, const std::string& detail) {
    if (e == flakeid::lease_event::waiting) c.note(detail);
  };
  try {
    if (dir == nullptr || *dir == '\0') {
      if (const std::string ns = private_default_directory(); !ns.empty())
        throw std::runtime_error(
            "this process has an IPC namespace of its own (" + ns + ": a container's), so " +
            flakeid::default_lease_directory() +
            " may be this container's alone and another container could lease the same id: set "
            "FLAKEID_LEASE_DIR to a directory mounted into every container that mints "
            "(FLAKEID_LEASE_DIR=" +
            flakeid::default_lease_directory() + " takes this one as it is)");
    }
    const flakeid::file_store store{
        (dir != nullptr && *dir != '\0') ? std::string(dir) : flakeid::default_lease_directory(),
        where};
    // A lease does not move: the prvalue initializes the shared one in place.
    std::shared_ptr<flakeid::lease> lease{new flakeid::lease(store.lease(options))};
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

/// Mints with generator `r.kind` of the preset layout number `preset`.
void mint_preset(std::size_t preset, gen_request& r) {
  switch (r.kind) {
    case generator_kind::classic: return mint_classic(preset, r);
    case generator_kind::cosid: return mint_cosid(preset, r);
    case generator_kind::tick: return mint_tick(preset, r);
    case generator_kind::gene: return mint_gene(preset, r);
  }
}

}  // namespace

int run_gen(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"-n", true},           {"--layout", true}, {"--generator", true}, {"--worker", true},
      {"--datacenter", true}, {"--gene", true},   {"--to", true},        {"--store", true},
      {"--key", true},        {"--step", true},   {"--redis", true},     {"--postgres", true},
      {"--format", true},     {"--start", true},  {"--stride", true},    {"--remainder", true},
      {"--config", true},     {"--name", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, gen_help);
  if (!a.operands.empty())
    fail("flakeid gen: unexpected argument " + quote(a.operands.front()) +
         "; see 'flakeid gen --help'");

  gen_request r;
  const std::string_view count = a.get("-n").value_or("1");
  if (count == "0") fail("flakeid gen: -n 0 asks for no IDs; give a count of at least 1");
  r.count = read_count("gen", "-n", count, 1, 1'000'000'000);
  if (c.io.sandbox && r.count > 1000) fail("flakeid gen: this run mints at most 1000 IDs");
  r.run = &c;
  record_writer writer(read_format(a));
  r.writer = &writer;
  if (a.get("--config") || a.get("--name")) return run_gen_config(c, a, r);
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

  // A leased id is a node number over the datacenter and worker fields (lease 32 of twitter is
  // datacenter 1, worker 0): a datacenter put over it would give two holders one node.
  if (a.get("--datacenter") && !a.get("--worker") && std::getenv("FLAKEID_WORKER_ID") == nullptr)
    fail(
        "flakeid gen: --datacenter applies only to a fixed worker id (--worker or "
        "FLAKEID_WORKER_ID): a leased id takes its datacenter from the lease");
  default_node fallback;
  if (const auto w = a.get("--worker")) {
    r.node.node.worker = read_number("gen", "--worker", *w);
    r.node.source = "--worker";
  } else if (c.io.sandbox) {
    fail("flakeid gen: this run may not take a lease; give --worker");
  } else {
    fallback = default_worker(c, l);
    r.node = fallback.assignment;
  }
  if (const auto d = a.get("--datacenter"))
    r.node.node.datacenter = read_number("gen", "--datacenter", *d);
  if (!a.get("--worker"))
    c.note("worker " + std::to_string(r.node.node.worker) + " from " + r.node.source);
  mint_preset(preset, r);
  return exit_ok;
}

}  // namespace flakeid_cli
