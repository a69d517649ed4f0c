// flakeid's benchmark: the generators side by side with the baselines of baselines.hpp and with
// the physical floor (a clock read, a compare-and-swap or fetch_add), all in one run, so that
// every figure can be read as a ratio. bench/report.py turns the JSON output into the ratio table
// and the charts.
//
// Groups (the first path component of each name):
//   floor   one wall-clock read, one steady-clock read, one TSC read, one uncontended CAS; and
//           clock_fetch_add/N: N threads each reading the wall clock and fetch_add-ing one
//           shared counter per ID, the floor of N threads on one shared generator
//   cap     one thread within capacity: the wide layout (22 sequence bits), which never runs
//           out, and the wide gene layout (17 sequence bits over 32 genes)
//   mt      N threads on one shared generator within capacity (the wide layout); blocks is
//           the thread_blocks policy
//   sat     N threads at saturation: Twitter's layout (4096 IDs per ms), so the sequence runs
//           out each ms; sat/floor is their floor, N threads taking tickets from one shared
//           counter and sleeping when a ticket's millisecond has not begun
//   gene    the gene layout, bursts of one tick's worth (4096 IDs over 32 genes)
//   burst   one million IDs at once with borrowing
//
// Thread counts (mt, sat and floor/clock_fetch_add): 1, 2, 4, ... up to
// std::thread::hardware_concurrency(), with the counts the targets name (mt: 1, 2, 4, 8; sat: 1,
// 2, 8, 16). `--threads=1,2,4` or FLAKEID_BENCH_THREADS=1,2,4 (the flag wins) sets one list for
// all three instead.
//
// Each benchmark reports wall time per ID (aggregate over threads) and CPU time per ID (summed
// over threads): on a loaded machine wall time also measures the scheduler, so per-call costs
// are compared in CPU time and throughput (capacity, scaling) in wall time.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <flakeid/flakeid.hpp>
#include <flakeid/striped.hpp>
#include <flakeid/tsc_clock.hpp>

#include "baselines.hpp"
#include "bench_threads.hpp"

namespace {

using namespace flakeid;
using flakeid_bench::default_counts;
using flakeid_bench::parse_thread_counts;
using flakeid_bench::thread_cpu_s;
using flakeid_bench::threads_env;
using flakeid_bench::wall_ms;

/// 41 bits of ms, 22 of sequence: 4 194 304 IDs per ms, more than one core can mint.
inline constexpr layout wide{{fields::timestamp(41), fields::sequence(22)},
                             layouts::twitter.epoch_ms};

/// 41 bits of ms, 17 of sequence, a 5-bit gene: 131 072 IDs per ms for each of the 32 genes.
inline constexpr layout wide_gene{{fields::timestamp(41), fields::sequence(17), fields::gene(5)},
                                  layouts::twitter.epoch_ms};

using classic_wide = classic_snowflake<wide>;
using gene_wide = gene_snowflake<wide_gene>;
using classic_wide_st = classic_snowflake_st<wide>;
using tick_wide = tick_snowflake<wide>;
using fast_tick_wide = basic_snowflake<wide, fast_tick_clock, classic_policies>;
using fast_tick_twitter = basic_snowflake<layouts::twitter, fast_tick_clock, classic_policies>;
using striped_twitter = striped_snowflake<layouts::twitter, wall_clock, 1>;
inline constexpr std::int64_t burst_bound_ms = 250;
using borrow_twitter = basic_snowflake<layouts::twitter, wall_clock,
                                       policies<zero_start, borrow_ticks<burst_bound_ms>>>;

/// Seconds each single-threaded benchmark runs, unless `--benchmark_min_time` is given.
constexpr double min_time = 0.15;

// ---- thread counts -------------------------------------------------------------------------

inline constexpr std::string_view threads_flag = "--threads=";

/// The thread counts of the threaded groups, and where they came from.
struct thread_counts {
  std::vector<int> mt;   // mt/*/N and floor/clock_fetch_add/N
  std::vector<int> sat;  // sat/*/N
  std::string source;    // "default", FLAKEID_BENCH_THREADS or --threads
};

std::string join(const std::vector<int>& counts) {
  std::string out;
  for (const int n : counts) {
    if (!out.empty()) out += ',';
    out += std::to_string(n);
  }
  return out;
}

/// The thread counts for this run: `--threads=LIST` (taken out of `args`), else
/// FLAKEID_BENCH_THREADS when it is set and not empty, else the defaults.
thread_counts choose_thread_counts(std::vector<char*>& args) {
  std::string flag;
  bool has_flag = false;
  for (auto it = args.begin(); it != args.end();) {
    const std::string_view arg = *it;
    if (arg == "--threads") {
      throw std::invalid_argument("--threads takes its list after '=': --threads=1,2,4");
    }
    if (arg.starts_with(threads_flag)) {
      flag = arg.substr(threads_flag.size());
      has_flag = true;
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  if (has_flag) {
    auto counts = parse_thread_counts(flag, "--threads=");
    return {counts, counts, "--threads"};
  }
  const char* env = std::getenv(threads_env);  // NOLINT(concurrency-mt-unsafe): before threads
  if (env != nullptr && *env != '\0') {
    auto counts = parse_thread_counts(env, std::string(threads_env) + "=");
    return {counts, counts, threads_env};
  }
  const unsigned hardware = std::thread::hardware_concurrency();
  return {default_counts(hardware, {1, 2, 4, 8}), default_counts(hardware, {1, 2, 8, 16}),
          "default"};
}

template <class Gen>
void mint_loop(benchmark::State& st, Gen& gen) {
  for (auto _ : st) benchmark::DoNotOptimize(gen.next_id());
  st.SetItemsProcessed(st.iterations());
}

// ---- floor -------------------------------------------------------------------------------

void floor_wall_read(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(std::chrono::system_clock::now());
  st.SetItemsProcessed(st.iterations());
}
void floor_steady_read(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(std::chrono::steady_clock::now());
  st.SetItemsProcessed(st.iterations());
}
void floor_tsc_read(benchmark::State& st) {
  (void)tsc_steady_clock::calibration();
  for (auto _ : st) benchmark::DoNotOptimize(tsc_steady_clock::now());
  st.SetItemsProcessed(st.iterations());
  st.counters["uses_tsc"] = tsc_steady_clock::calibration().uses_tsc ? 1 : 0;
}
void floor_cas(benchmark::State& st) {
  alignas(64) static std::atomic<std::uint64_t> word{0};
  std::uint64_t old = word.load(std::memory_order_relaxed);
  for (auto _ : st) {
    while (!word.compare_exchange_weak(old, old + 1, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
    }
    ++old;
  }
  st.SetItemsProcessed(st.iterations());
}

// ---- within capacity (wide layout) -------------------------------------------------------

void cap_twitter_mutex(benchmark::State& st) {
  static flakeid_bench::twitter_worker<wide> gen{0, 0};
  mint_loop(st, gen);
}
void cap_classic(benchmark::State& st) {
  static classic_wide gen{worker_id{0}};
  mint_loop(st, gen);
}
// The same generator fenced by a lease (a fence whose deadline never comes): the time fence
// costs one relaxed load and a compare per ID, and one publish per new tick.
void cap_classic_leased(benchmark::State& st) {
  static classic_wide gen{[] {
    flakeid::worker_assignment a{{0, 0}, INT64_MIN, flakeid::fence_ptr::make(), "bench"};
    return a;
  }()};
  mint_loop(st, gen);
}
void cap_classic_st(benchmark::State& st) {
  static classic_wide_st gen{worker_id{0}};
  mint_loop(st, gen);
}
void cap_tick(benchmark::State& st) {
  static tick_wide gen{worker_id{0}};
  mint_loop(st, gen);
}
void cap_fast_tick(benchmark::State& st) {
  static fast_tick_wide gen{worker_id{0}};
  mint_loop(st, gen);
}
// The gene generator within capacity, keys cycling over the 32 genes.
void cap_gene(benchmark::State& st) {
  static gene_wide gen{worker_id{0}};
  std::uint64_t key = 0;
  for (auto _ : st) benchmark::DoNotOptimize(gen.next_id(key++));
  st.SetItemsProcessed(st.iterations());
}
void cap_next_ids(benchmark::State& st) {
  static classic_wide gen{worker_id{0}};
  std::vector<std::uint64_t> buf(static_cast<std::size_t>(st.range(0)));
  for (auto _ : st) {
    gen.next_ids(buf);
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations() * st.range(0));
}

// ---- several threads: the floor, within capacity, at saturation ---------------------------

/// Runs `st.range(0)` threads minting with `mint(thread)` (one ID per call) for `seconds`, once
/// per iteration (see `run_threads`), and reports the aggregate: wall time per ID over all the
/// threads' IDs, and CPU time summed over the threads.
template <class Mint, class Before>
void threaded(benchmark::State& st, Mint mint, double seconds, Before before) {
  const int threads = static_cast<int>(st.range(0));
  double ids = 0;
  double cpu = 0;
  for (auto _ : st) {
    before();
    const flakeid_bench::thread_run r = flakeid_bench::run_threads(threads, seconds, mint);
    st.SetIterationTime(r.wall_s);
    ids += r.ids;
    cpu += r.cpu_s;
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(ids));
  st.counters["cpu_ns_per_id"] = cpu * 1e9 / ids;
}
template <class Mint>
void threaded(benchmark::State& st, Mint mint, double seconds) {
  threaded(st, mint, seconds, [] {});
}

constexpr double mt_seconds = 0.1;
constexpr double sat_seconds = 0.25;

// The floor of N threads on one shared generator: each ID is one wall-clock read and one
// fetch_add on a counter all threads share (the reading and the count are combined, as an ID
// combines a tick and a sequence).
void floor_clock_fetch_add(benchmark::State& st) {
  alignas(64) static std::atomic<std::uint64_t> counter{0};
  threaded(
      st,
      [&](int) {
        const auto now = std::chrono::system_clock::now().time_since_epoch().count();
        return static_cast<std::uint64_t>(now) + counter.fetch_add(1, std::memory_order_relaxed);
      },
      mt_seconds);
}

void mt_twitter_mutex(benchmark::State& st) {
  static flakeid_bench::twitter_worker<wide> gen{0, 0};
  threaded(
      st, [&](int) { return gen.next_id(); }, mt_seconds);
}
void mt_classic(benchmark::State& st) {
  static classic_wide gen{worker_id{0}};
  threaded(
      st, [&](int) { return gen.next_id(); }, mt_seconds);
}
void mt_fast_tick(benchmark::State& st) {
  static fast_tick_wide gen{worker_id{0}};
  threaded(
      st, [&](int) { return gen.next_id(); }, mt_seconds);
}
// thread_blocks: each thread serves its IDs from a block of the tick's sequences of its own.
using blocks_wide = blocked_snowflake<wide>;
void mt_blocks(benchmark::State& st) {
  static blocks_wide gen{worker_id{0}};
  threaded(
      st, [&](int) { return gen.next_id(); }, mt_seconds);
}

// The floor of N threads on one shared generator at saturation (Twitter's 4096 IDs per ms):
// each ID is one fetch_add on a ticket counter all threads share and one wall-clock read.
// Ticket k belongs to millisecond start + k / 4096; a thread whose ticket's millisecond has not
// begun sleeps until it does, so the rate is capped at capacity and no thread spins. Any shared
// generator does at least this per ID: one read-modify-write of a shared word, and a sleep when
// the tick is full.
void sat_floor(benchmark::State& st) {
  constexpr std::uint64_t per_ms = 4096;
  alignas(64) static std::atomic<std::uint64_t> ticket{0};
  static std::int64_t start_ms = 0;  // written before the threads start, read-only after
  threaded(
      st,
      [&](int) {
        const std::uint64_t k = ticket.fetch_add(1, std::memory_order_relaxed);
        const std::int64_t ms = start_ms + static_cast<std::int64_t>(k / per_ms);
        if (wall_ms() < ms) {
          std::this_thread::sleep_until(std::chrono::system_clock::time_point{
              std::chrono::duration_cast<std::chrono::system_clock::duration>(
                  std::chrono::milliseconds{ms})});
        }
        return (static_cast<std::uint64_t>(ms) << 12U) | (k % per_ms);
      },
      sat_seconds,
      [&] {
        ticket.store(0);
        start_ms = wall_ms();
      });
}

void sat_twitter_mutex(benchmark::State& st) {
  static flakeid_bench::twitter_worker<layouts::twitter> gen{1, 1};
  threaded(
      st, [&](int) { return gen.next_id(); }, sat_seconds);
}
void sat_classic(benchmark::State& st) {
  static classic_snowflake<> gen{datacenter_id{1}, worker_id{1}};
  threaded(
      st, [&](int) { return gen.next_id(); }, sat_seconds);
}
void sat_fast_tick(benchmark::State& st) {
  static fast_tick_twitter gen{datacenter_id{1}, worker_id{1}};
  threaded(
      st, [&](int) { return gen.next_id(); }, sat_seconds);
}
void sat_cosid_mutex(benchmark::State& st) {
  static flakeid_bench::cosid_worker<layouts::cosid> gen{1};
  threaded(
      st, [&](int) { return gen.next_id(); }, sat_seconds);
}
void sat_cosid(benchmark::State& st) {
  static cosid_snowflake<> gen{worker_id{1}};
  threaded(
      st, [&](int) { return gen.next_id(); }, sat_seconds);
}
void sat_striped(benchmark::State& st) {
  static striped_twitter gen{datacenter_id{1}, worker_id{1}};
  threaded(
      st,
      [&](int t) {
        // Thread t on stripe t (what the round-robin gives two fresh threads, made explicit).
        static thread_local const bool bound =
            (striped_twitter::bind_this_thread(static_cast<std::size_t>(t)), true);
        (void)bound;
        return gen.next_id();
      },
      sat_seconds);
}

// ---- gene ----------------------------------------------------------------------------------

constexpr int gene_burst = 4096;  // one tick's worth: 128 sequences x 32 genes

void wait_next_ms() {
  const std::int64_t now = wall_ms();
  while (wall_ms() == now) {
  }
}

/// The largest lead (ms, to the nanosecond) of the start of an ID's tick over the wall clock
/// read just after the ID was minted, over `n` IDs minted as fast as possible by `mint(i)`.
/// A generator on the wall clock never leads (<= 0); borrowing leads up to its bound; a tick
/// clock leads by its drift when it runs ahead of the wall clock.
template <class Mint>
double max_lead_ms(const layout& l, Mint mint, int n) {
  std::int64_t lead = INT64_MIN;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t id = mint(static_cast<std::uint64_t>(i));
    const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
    const std::int64_t t_ns =
        l.decompose_unchecked(id).timestamp.time_since_epoch().count() * 1'000'000;
    if (t_ns - now_ns > lead) lead = t_ns - now_ns;
  }
  return static_cast<double>(lead) / 1e6;
}

/// Bursts of one tick's worth, each starting in a fresh millisecond, timed by hand; then the
/// lead over the wall clock of a fresh generator minting 40 000 IDs flat out.
template <class Gen>
void gene_bench(benchmark::State& st, Gen& gen, double bound_ms, std::unique_ptr<Gen> fresh) {
  double cpu = 0;
  for (auto _ : st) {
    wait_next_ms();
    const double c0 = thread_cpu_s();
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < gene_burst; ++k)
      benchmark::DoNotOptimize(gen.next_id(static_cast<std::uint64_t>(k)));
    const auto t1 = std::chrono::steady_clock::now();
    cpu += thread_cpu_s() - c0;
    st.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  st.SetItemsProcessed(st.iterations() * gene_burst);
  st.counters["cpu_ns_per_id"] = cpu * 1e9 / static_cast<double>(st.iterations() * gene_burst);
  st.counters["max_lead_ms"] = max_lead_ms(
      layouts::seed_gene, [&](std::uint64_t k) { return fresh->next_id(k); }, 40'000);
  st.counters["bound_ms"] = bound_ms;
}

void gene_article(benchmark::State& st) {
  using gen_t = flakeid_bench::article_gene<layouts::seed_gene>;
  static gen_t gen{1, 1};
  gene_bench(st, gen, -1, std::make_unique<gen_t>(1, 1));
}
void gene_flakeid(benchmark::State& st) {
  using gen_t = gene_snowflake<>;
  static gen_t gen{datacenter_id{1}, worker_id{1}};
  gene_bench(st, gen, 0, std::make_unique<gen_t>(datacenter_id{1}, worker_id{1}));
}

void gene_fast_tick(benchmark::State& st) {
  using gen_t = gene_snowflake<layouts::seed_gene, fast_tick_clock>;
  static gen_t gen{datacenter_id{1}, worker_id{1}};
  gene_bench(st, gen, 0, std::make_unique<gen_t>(datacenter_id{1}, worker_id{1}));
  st.counters["drift_us"] = static_cast<double>(gen.clock().drift().count()) / 1e3;
}

// ---- burst: one million IDs with borrowing -------------------------------------------------

constexpr std::size_t burst_ids = 1'000'000;

/// One million IDs per iteration from a fresh generator (so each burst starts with no lead),
/// by `next_id` calls or one `next_ids`; then the lead over the wall clock of a fresh generator
/// minting a million IDs flat out.
template <class Gen, class MakeGen>
void burst_bench(benchmark::State& st, MakeGen make, bool bulk, double bound_ms) {
  std::vector<std::uint64_t> out(burst_ids, 1);  // touched: no page faults while timed
  double cpu = 0;
  for (auto _ : st) {
    auto gen = make();
    const double c0 = thread_cpu_s();
    const auto t0 = std::chrono::steady_clock::now();
    if constexpr (requires { gen->next_ids(out); }) {
      if (bulk) gen->next_ids(out);
    }
    if (!bulk) {
      for (auto& id : out) id = gen->next_id();
    }
    const auto t1 = std::chrono::steady_clock::now();
    cpu += thread_cpu_s() - c0;
    benchmark::DoNotOptimize(out.data());
    st.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(burst_ids));
  st.counters["cpu_ns_per_id"] =
      cpu * 1e9 / static_cast<double>(st.iterations() * static_cast<std::int64_t>(burst_ids));
  if (bound_ms >= 0) {
    auto gen = make();
    st.counters["max_lead_ms"] = max_lead_ms(
        layouts::twitter, [&](std::uint64_t) { return gen->next_id(); },
        static_cast<int>(burst_ids));
    st.counters["bound_ms"] = bound_ms;
  }
}

void burst_borrow(benchmark::State& st) {
  burst_bench<borrow_twitter>(
      st, [] { return std::make_unique<borrow_twitter>(datacenter_id{1}, worker_id{1}); }, false,
      burst_bound_ms);
}
void burst_borrow_bulk(benchmark::State& st) {
  burst_bench<borrow_twitter>(
      st, [] { return std::make_unique<borrow_twitter>(datacenter_id{1}, worker_id{1}); }, true,
      burst_bound_ms);
}
void burst_twitter_mutex(benchmark::State& st) {
  using gen_t = flakeid_bench::twitter_worker<layouts::twitter>;
  burst_bench<gen_t>(
      st, [] { return std::make_unique<gen_t>(1, 1); }, false, -1);
}

/// The first line of `path` that starts with `prefix`, after the prefix ("" when there is none):
/// the machine's facts for the report, which may run on another machine.
std::string first_line(const char* path, std::string_view prefix = "") {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(prefix)) return line.substr(prefix.size());
  }
  return "";
}

// ---- registration ------------------------------------------------------------------------

using bench_fn = void (*)(benchmark::State&);

/// One thread; it runs `min_time` seconds unless the command line gave --benchmark_min_time.
benchmark::internal::Benchmark* single(const char* name, bench_fn fn, bool own_min_time) {
  auto* b = benchmark::RegisterBenchmark(name, fn);
  return own_min_time ? b->MinTime(min_time) : b;
}

/// Own threads (see `threaded`), one run per count; the argument is the thread count.
void threaded_at(const char* name, bench_fn fn, const std::vector<int>& counts) {
  auto* b = benchmark::RegisterBenchmark(name, fn)->Iterations(2)->UseManualTime();
  for (const int n : counts) b->Arg(n);
}

// Real or manual (hand-measured wall) time everywhere but the floor's reads: a generator that
// sleeps is charged for the wall time it takes.
void register_benchmarks(const thread_counts& counts, bool own_min_time) {
  const bool m = own_min_time;
  single("floor/wall_read", floor_wall_read, m);
  single("floor/steady_read", floor_steady_read, m);
  single("floor/tsc_read", floor_tsc_read, m);
  single("floor/cas", floor_cas, m);
  threaded_at("floor/clock_fetch_add", floor_clock_fetch_add, counts.mt);

  single("cap/twitter_mutex", cap_twitter_mutex, m)->UseRealTime();
  single("cap/classic", cap_classic, m)->UseRealTime();
  single("cap/classic_leased", cap_classic_leased, m)->UseRealTime();
  single("cap/classic_st", cap_classic_st, m)->UseRealTime();
  single("cap/gene", cap_gene, m)->UseRealTime();
  single("cap/tick", cap_tick, m)->UseRealTime();
  single("cap/fast_tick", cap_fast_tick, m)->UseRealTime();
  single("cap/next_ids", cap_next_ids, m)->Arg(256)->UseRealTime();

  threaded_at("mt/twitter_mutex", mt_twitter_mutex, counts.mt);
  threaded_at("mt/classic", mt_classic, counts.mt);
  threaded_at("mt/fast_tick", mt_fast_tick, counts.mt);
  threaded_at("mt/blocks", mt_blocks, counts.mt);

  threaded_at("sat/floor", sat_floor, counts.sat);
  threaded_at("sat/twitter_mutex", sat_twitter_mutex, counts.sat);
  threaded_at("sat/classic", sat_classic, counts.sat);
  threaded_at("sat/fast_tick", sat_fast_tick, {1});
  threaded_at("sat/cosid_mutex", sat_cosid_mutex, {1});
  threaded_at("sat/cosid", sat_cosid, {1});
  threaded_at("sat/striped", sat_striped, {1, 2});  // one thread per stripe at most

  benchmark::RegisterBenchmark("gene/article_mutex", gene_article)
      ->Iterations(150)
      ->UseManualTime();
  benchmark::RegisterBenchmark("gene/gene", gene_flakeid)->Iterations(150)->UseManualTime();
  benchmark::RegisterBenchmark("gene/gene_fast_tick", gene_fast_tick)
      ->Iterations(150)
      ->UseManualTime();

  benchmark::RegisterBenchmark("burst/twitter_mutex", burst_twitter_mutex)
      ->Iterations(1)
      ->UseManualTime();
  benchmark::RegisterBenchmark("burst/borrow", burst_borrow)->Iterations(3)->UseManualTime();
  benchmark::RegisterBenchmark("burst/borrow_next_ids", burst_borrow_bulk)
      ->Iterations(3)
      ->UseManualTime();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  thread_counts counts;
  try {
    counts = choose_thread_counts(args);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "flakeid_bench: %s\n", e.what());
    return 2;
  }
  const bool own_min_time = std::none_of(args.begin(), args.end(), [](const char* a) {
    return std::string_view(a).starts_with("--benchmark_min_time");
  });
  register_benchmarks(counts, own_min_time);

  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::AddCustomContext("flakeid_threads_mt", join(counts.mt));
  benchmark::AddCustomContext("flakeid_threads_sat", join(counts.sat));
  benchmark::AddCustomContext("flakeid_threads_from", counts.source);
  benchmark::AddCustomContext("flakeid_hardware_concurrency",
                              std::to_string(std::thread::hardware_concurrency()));
  benchmark::AddCustomContext(
      "flakeid_clock_source",
      first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
  std::string model = first_line("/proc/cpuinfo", "model name");
  model.erase(0, std::min(model.find_first_not_of(" \t:"), model.size()));
  benchmark::AddCustomContext("flakeid_cpu_model", model);
  const std::string flags = first_line("/proc/cpuinfo", "flags") + " ";
  std::string tsc;
  for (const char* f : {"constant_tsc", "nonstop_tsc"}) {
    if (flags.find(std::string(" ") + f + " ") != std::string::npos)
      tsc += (tsc.empty() ? "" : " ") + std::string(f);
  }
  benchmark::AddCustomContext("flakeid_tsc_flags", tsc.empty() ? "none" : tsc);
  benchmark::AddCustomContext("flakeid_kernel", first_line("/proc/sys/kernel/osrelease"));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
