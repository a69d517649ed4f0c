// flakeid's benchmark: the generators side by side with the baselines of baselines.hpp and with
// the physical floor (one clock read, one compare-and-swap), all in one run, so that every
// figure can be read as a ratio. bench/report.py turns the JSON output into the ratio table
// and the chart.
//
// Groups (the first path component of each name):
//   floor   one wall-clock read, one steady-clock read, one TSC read, one uncontended CAS
//   cap     within capacity: the wide layout (22 sequence bits), which never runs out
//   sat     at saturation: Twitter's layout (4096 IDs per ms), so the sequence runs out each ms
//   gene    the gene layout, bursts of one tick's worth (4096 IDs over 32 genes)
//   burst   one million IDs at once with borrowing
//
// Each benchmark reports wall time per ID (aggregate over threads) and CPU time per ID (summed
// over threads): on a loaded machine wall time also measures the scheduler, so per-call costs
// are compared in CPU time and throughput (capacity, scaling) in wall time.

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <memory>
#include <thread>
#include <vector>

#include <flakeid/flakeid.hpp>
#include <flakeid/striped.hpp>
#include <flakeid/tsc_clock.hpp>

#include "baselines.hpp"

namespace {

using namespace flakeid;
using flakeid_bench::wall_ms;

/// 41 bits of ms, 22 of sequence: 4 194 304 IDs per ms, more than one core can mint.
inline constexpr layout wide{{fields::timestamp(41), fields::sequence(22)},
                             layouts::twitter.epoch_ms};

using classic_wide = classic_snowflake<wide>;
using classic_wide_st = classic_snowflake_st<wide>;
using tick_wide = tick_snowflake<wide>;
using fast_tick_wide = basic_snowflake<wide, fast_tick_clock, classic_policies>;
using fast_tick_twitter = basic_snowflake<layouts::twitter, fast_tick_clock, classic_policies>;
using striped_twitter = striped_snowflake<layouts::twitter, wall_clock, 1>;
inline constexpr std::int64_t burst_bound_ms = 250;
using borrow_twitter = basic_snowflake<layouts::twitter, wall_clock,
                                       policies<zero_start, borrow_ticks<burst_bound_ms>>>;

constexpr double min_time = 0.15;

/// CPU time of the calling thread, in seconds.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
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
    flakeid::worker_assignment a{
        {0, 0}, INT64_MIN, std::make_shared<flakeid::lease_fence>(), "bench"};
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

// ---- several threads, and saturation ------------------------------------------------------

constexpr int batch = 256;

/// Runs `threads` threads minting with `mint(thread)` (one ID per call) for `seconds`, once per
/// iteration, and reports the aggregate: wall time from the start signal to the last thread's
/// exit (so time per ID is wall / all IDs), and CPU time summed over the threads.
template <class Mint>
void threaded(benchmark::State& st, Mint mint, double seconds) {
  const int threads = static_cast<int>(st.range(0));
  double ids = 0;
  double cpu = 0;
  for (auto _ : st) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::atomic<bool> stop{false};
    std::vector<std::uint64_t> n(static_cast<std::size_t>(threads));
    std::vector<double> c(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) {
        }
        const double c0 = thread_cpu_s();
        std::uint64_t k = 0;
        while (!stop.load(std::memory_order_relaxed)) {
          for (int i = 0; i < batch; ++i) benchmark::DoNotOptimize(mint(t));
          k += batch;
        }
        c[static_cast<std::size_t>(t)] = thread_cpu_s() - c0;
        n[static_cast<std::size_t>(t)] = k;
      });
    }
    while (ready.load() < threads) {
    }
    const auto t0 = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop.store(true);
    for (auto& th : pool) th.join();
    const auto t1 = std::chrono::steady_clock::now();
    st.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    for (int t = 0; t < threads; ++t) {
      ids += static_cast<double>(n[static_cast<std::size_t>(t)]);
      cpu += c[static_cast<std::size_t>(t)];
    }
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(ids));
  st.counters["cpu_ns_per_id"] = cpu * 1e9 / ids;
}

constexpr double mt_seconds = 0.1;
constexpr double sat_seconds = 0.25;

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

}  // namespace

// Each registration: name, then how it runs. Real or manual (hand-measured wall) time
// everywhere: a generator that sleeps is charged for the wall time it takes.
BENCHMARK(floor_wall_read)->Name("floor/wall_read")->MinTime(min_time);
BENCHMARK(floor_steady_read)->Name("floor/steady_read")->MinTime(min_time);
BENCHMARK(floor_tsc_read)->Name("floor/tsc_read")->MinTime(min_time);
BENCHMARK(floor_cas)->Name("floor/cas")->MinTime(min_time);

BENCHMARK(cap_twitter_mutex)->Name("cap/twitter_mutex")->MinTime(min_time)->UseRealTime();
BENCHMARK(cap_classic)->Name("cap/classic")->MinTime(min_time)->UseRealTime();
BENCHMARK(cap_classic_leased)->Name("cap/classic_leased")->MinTime(min_time)->UseRealTime();
BENCHMARK(cap_classic_st)->Name("cap/classic_st")->MinTime(min_time)->UseRealTime();
BENCHMARK(cap_tick)->Name("cap/tick")->MinTime(min_time)->UseRealTime();
BENCHMARK(cap_fast_tick)->Name("cap/fast_tick")->MinTime(min_time)->UseRealTime();
BENCHMARK(cap_next_ids)->Name("cap/next_ids")->Arg(256)->MinTime(min_time)->UseRealTime();

// Own threads (see `threaded`); the argument is the thread count.
BENCHMARK(mt_twitter_mutex)
    ->Name("mt/twitter_mutex")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(2)
    ->UseManualTime();
BENCHMARK(mt_classic)->Name("mt/classic")->Arg(1)->Arg(2)->Iterations(2)->UseManualTime();
BENCHMARK(mt_fast_tick)->Name("mt/fast_tick")->Arg(1)->Arg(2)->Iterations(2)->UseManualTime();
BENCHMARK(sat_twitter_mutex)
    ->Name("sat/twitter_mutex")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(2)
    ->UseManualTime();
BENCHMARK(sat_classic)->Name("sat/classic")->Arg(1)->Arg(2)->Iterations(2)->UseManualTime();
BENCHMARK(sat_fast_tick)->Name("sat/fast_tick")->Arg(1)->Iterations(2)->UseManualTime();
BENCHMARK(sat_cosid_mutex)->Name("sat/cosid_mutex")->Arg(1)->Iterations(2)->UseManualTime();
BENCHMARK(sat_cosid)->Name("sat/cosid")->Arg(1)->Iterations(2)->UseManualTime();
BENCHMARK(sat_striped)->Name("sat/striped")->Arg(1)->Arg(2)->Iterations(2)->UseManualTime();

BENCHMARK(gene_article)->Name("gene/article_mutex")->Iterations(150)->UseManualTime();
BENCHMARK(gene_flakeid)->Name("gene/gene")->Iterations(150)->UseManualTime();
BENCHMARK(gene_fast_tick)->Name("gene/gene_fast_tick")->Iterations(150)->UseManualTime();

BENCHMARK(burst_twitter_mutex)->Name("burst/twitter_mutex")->Iterations(1)->UseManualTime();
BENCHMARK(burst_borrow)->Name("burst/borrow")->Iterations(3)->UseManualTime();
BENCHMARK(burst_borrow_bulk)->Name("burst/borrow_next_ids")->Iterations(3)->UseManualTime();

BENCHMARK_MAIN();
