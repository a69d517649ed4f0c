// flakeid bench: the generators measured on this machine.
#include "bench.hpp"
#include "core.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <flakeid/layout_spec.hpp>

namespace flakeid_cli {
const std::string_view bench_help =
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
namespace {

constexpr std::uint64_t max_bench_threads = 1024;
constexpr double min_bench_seconds = 0.001;
constexpr double max_bench_seconds = 60;

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

/// Every row of the request for the preset layout number `preset`.
void bench_rows(const bench_request& r, std::size_t preset) {
  for (const unsigned n : r.threads) {
    const bench_result floor = measure_floor(n, r.window);
    for (const bench_kind k : r.kinds)
      write_bench_row(r, k, n, measure(k, preset, n, r.window), floor);
  }
}

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

}  // namespace

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
    for (const unsigned n : r.threads) {
      if (!threads.empty()) threads += ',';
      threads += std::to_string(n);
    }
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
  bench_rows(r, preset);
  return exit_ok;
}

}  // namespace flakeid_cli
