// Segment generators under Google Benchmark: throughput of the prefetched chain and of the plain
// segment generator on the in-memory store, one and two threads, and the latency of single calls
// (p50 / p99 / p99.99), where the chain's point shows: on a file store (one fsync per segment)
// the plain generator stalls on the store once per segment, the chain does not.
//
//   seg/chain_memory      segment_chain_generator, memory store, step 1000
//   seg/chain_memory_block64  the same with thread_block = 64 (one shared fetch_add per 64 IDs)
//   seg/plain_memory      segment_generator, memory store, step 1000
//   seg/chain_next_ids    next_ids over 256 IDs at a time (time per ID)
//   seg/chain_redis       segment_chain_generator on Redis (INCRBY), step 1000, one thread
//   seg/chain_postgres    segment_chain_generator on PostgreSQL (one upsert), step 1000
//                         both report vs_memory: their rate over the memory chain's, measured
//                         in the same run (target >= 0.9). Built when the adapters are; each
//                         starts its own server (tests/adapters/test_servers.hpp) or skips with
//                         a note when the server programs are missing.
//   seg/latency_*         per-call latency percentiles (ns) as counters p50_ns, p99_ns, p9999_ns;
//                         each sample is one next_id() bracketed by two steady_clock reads, minus
//                         the median cost of an empty bracket (timer_ns); slow_calls counts
//                         calls over 100 us (a store call, or the thread preempted)
//
// Times are wall time per ID.

#include <benchmark/benchmark.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <flakeid/segment.hpp>
#include <flakeid/store/file.hpp>
#include <flakeid/store/memory.hpp>

#if defined(FLAKEID_BENCH_HAS_REDIS)
#include <flakeid/adapters/redis.hpp>
#endif
#if defined(FLAKEID_BENCH_HAS_POSTGRES)
#include <flakeid/adapters/postgres.hpp>
#endif
#if defined(FLAKEID_BENCH_HAS_REDIS) || defined(FLAKEID_BENCH_HAS_POSTGRES)
#include <cstdio>
#include <optional>

#include "test_servers.hpp"
#endif

namespace {

using clk = std::chrono::steady_clock;
constexpr std::uint64_t step = 1000;
// On the file store a segment costs an fsync (0.3-1.5 ms): a step this large keeps the store's
// throughput above the draw rate, so the chain can stay ahead and the plain generator's stalls
// show as slow_calls.
constexpr std::uint64_t file_step = 50'000;

flakeid::memory_store& memory_store() {
  static flakeid::memory_store store;
  return store;
}

std::filesystem::path file_store_dir() {
  static const auto dir = std::filesystem::temp_directory_path() /
                          ("flakeid_segment_bench_" + std::to_string(::getpid()));
  return dir;
}

// Shared by the threads of one run: thread 0 creates it before the loop, and Google Benchmark
// holds every thread at a barrier until all are ready to start timing.
template <class Gen>
std::unique_ptr<Gen>& shared_gen() {
  static std::unique_ptr<Gen> gen;
  return gen;
}

using chain_mem = flakeid::segment_chain_generator<flakeid::memory_distributor>;
using plain_mem = flakeid::segment_generator<flakeid::memory_distributor>;
using chain_file = flakeid::segment_chain_generator<flakeid::file_distributor>;
using plain_file = flakeid::segment_generator<flakeid::file_distributor>;

std::unique_ptr<chain_mem> make(std::type_identity<chain_mem>) {
  return std::make_unique<chain_mem>(
      memory_store().distributor("bench.chain"),
      flakeid::segment_chain_options{.step = step, .min_ahead = 4, .max_ahead = 256});
}
// The same chain with thread-local blocks of 64 IDs: threads touch the shared position once per
// block, not once per ID.
struct chain_mem_block : chain_mem {
  using chain_mem::chain_mem;
};
std::unique_ptr<chain_mem_block> make(std::type_identity<chain_mem_block>) {
  return std::make_unique<chain_mem_block>(
      memory_store().distributor("bench.chain_block"),
      flakeid::segment_chain_options{
          .step = step, .min_ahead = 4, .max_ahead = 256, .thread_block = 64});
}
std::unique_ptr<plain_mem> make(std::type_identity<plain_mem>) {
  return std::make_unique<plain_mem>(memory_store().distributor("bench.plain"),
                                     flakeid::segment_options{.step = step});
}
std::unique_ptr<chain_file> make(std::type_identity<chain_file>) {
  return std::make_unique<chain_file>(
      flakeid::file_store{file_store_dir()}.distributor("bench.chain"),
      flakeid::segment_chain_options{.step = file_step, .min_ahead = 4, .max_ahead = 64});
}
std::unique_ptr<plain_file> make(std::type_identity<plain_file>) {
  return std::make_unique<plain_file>(
      flakeid::file_store{file_store_dir()}.distributor("bench.plain"),
      flakeid::segment_options{.step = file_step});
}

template <class Gen>
void throughput(benchmark::State& st) {
  auto& gen = shared_gen<Gen>();
  if (st.thread_index() == 0) gen = make(std::type_identity<Gen>{});
  for (auto _ : st) benchmark::DoNotOptimize(gen->next_id());
  st.SetItemsProcessed(st.iterations());
}

void chain_next_ids(benchmark::State& st) {
  auto gen = make(std::type_identity<chain_mem>{});
  std::vector<std::uint64_t> out(static_cast<std::size_t>(st.range(0)));
  for (auto _ : st) {
    gen->next_ids(out);
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * st.range(0));
}

double empty_bracket_ns() {
  std::vector<double> t(100'000);
  for (auto& x : t) {
    const auto a = clk::now();
    const auto b = clk::now();
    x = std::chrono::duration<double, std::nano>(b - a).count();
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

double percentile(std::vector<double>& v, double p) {
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

template <class Gen>
void latency(benchmark::State& st) {
  auto& gen = shared_gen<Gen>();
  if (st.thread_index() == 0) gen = make(std::type_identity<Gen>{});
  const double timer = empty_bracket_ns();
  std::vector<double> samples;
  samples.reserve(1 << 21);
  for (auto _ : st) {
    const auto a = clk::now();
    benchmark::DoNotOptimize(gen->next_id());
    const auto b = clk::now();
    samples.push_back(
        std::max(0.0, std::chrono::duration<double, std::nano>(b - a).count() - timer));
  }
  using C = benchmark::Counter;
  st.counters["timer_ns"] = C(timer, C::kAvgThreads);
  st.counters["p50_ns"] = C(percentile(samples, 0.50), C::kAvgThreads);
  st.counters["p99_ns"] = C(percentile(samples, 0.99), C::kAvgThreads);
  st.counters["p9999_ns"] = C(percentile(samples, 0.9999), C::kAvgThreads);
  st.counters["max_ns"] = C(*std::max_element(samples.begin(), samples.end()), C::kAvgThreads);
  st.counters["slow_calls"] = C(static_cast<double>(
      std::count_if(samples.begin(), samples.end(), [](double x) { return x > 100'000; })));
}

constexpr std::int64_t latency_samples = 2'000'000;

// ---- server stores ------------------------------------------------------------------------

#if defined(FLAKEID_BENCH_HAS_REDIS) || defined(FLAKEID_BENCH_HAS_POSTGRES)

/// The memory chain's rate (IDs per second, one thread), measured once per process.
double memory_chain_rate() {
  static const double rate = [] {
    auto gen = make(std::type_identity<chain_mem>{});
    for (int i = 0; i < 1'000'000; ++i) benchmark::DoNotOptimize(gen->next_id());  // warm up
    constexpr int n = 50'000'000;
    const auto t0 = clk::now();
    for (int i = 0; i < n; ++i) benchmark::DoNotOptimize(gen->next_id());
    return n / std::chrono::duration<double>(clk::now() - t0).count();
  }();
  return rate;
}

/// Draws from a chain on `d` (step 1000) for the benchmark's iterations; reports the rate as
/// vs_memory against the memory chain, and the store calls.
template <class Distributor>
void server_chain(benchmark::State& st, Distributor d) {
  const double memory = memory_chain_rate();
  flakeid::segment_chain_generator<Distributor> gen{
      std::move(d), flakeid::segment_chain_options{.step = step, .min_ahead = 4, .max_ahead = 256}};
  (void)gen.next_id();  // connected, first segment in
  const auto t0 = clk::now();
  for (auto _ : st) benchmark::DoNotOptimize(gen.next_id());
  const double secs = std::chrono::duration<double>(clk::now() - t0).count();
  const double rate = static_cast<double>(st.iterations()) / secs;
  st.SetItemsProcessed(st.iterations());
  using C = benchmark::Counter;
  st.counters["vs_memory"] = C(rate / memory);
  st.counters["memory_ids_per_s"] = C(memory);
  st.counters["store_calls"] = C(static_cast<double>(gen.stats().store_calls));
  st.counters["hungry"] = C(static_cast<double>(gen.stats().hungry));
}

#endif

#if defined(FLAKEID_BENCH_HAS_REDIS)
flakeid_test::redis_server& bench_redis() {
  static flakeid_test::redis_server server;
  return server;
}

void chain_redis(benchmark::State& st) {
  auto& server = bench_redis();
  if (!server.available()) {
    st.SkipWithError("redis-server not found: seg/chain_redis skipped");
    return;
  }
  static const bool started = (server.start(), true);
  (void)started;
  server_chain(st, flakeid::redis_store{server.address()}.distributor("bench.chain"));
}
#endif

#if defined(FLAKEID_BENCH_HAS_POSTGRES)
flakeid_test::postgres_cluster& bench_postgres() {
  static flakeid_test::postgres_cluster server{true};
  return server;
}

void chain_postgres(benchmark::State& st) {
  auto& server = bench_postgres();
  if (!server.available()) {
    st.SkipWithError("initdb/pg_ctl not found: seg/chain_postgres skipped");
    return;
  }
  static const bool started = (server.start(), true);
  (void)started;
  server_chain(st, flakeid::postgres_store{server.conninfo()}.distributor("bench.chain"));
}
#endif

}  // namespace

BENCHMARK(throughput<chain_mem>)->Name("seg/chain_memory")->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(throughput<chain_mem_block>)
    ->Name("seg/chain_memory_block64")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK(throughput<plain_mem>)->Name("seg/plain_memory")->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(chain_next_ids)->Name("seg/chain_next_ids")->Arg(256)->UseRealTime();
#if defined(FLAKEID_BENCH_HAS_REDIS)
BENCHMARK(chain_redis)->Name("seg/chain_redis")->UseRealTime();
#endif
#if defined(FLAKEID_BENCH_HAS_POSTGRES)
BENCHMARK(chain_postgres)->Name("seg/chain_postgres")->UseRealTime();
#endif
BENCHMARK(latency<chain_mem>)
    ->Name("seg/latency_chain_memory")
    ->Threads(1)
    ->Threads(2)
    ->Iterations(latency_samples);
BENCHMARK(latency<plain_mem>)
    ->Name("seg/latency_plain_memory")
    ->Threads(1)
    ->Iterations(latency_samples);
BENCHMARK(latency<chain_file>)
    ->Name("seg/latency_chain_file")
    ->Threads(1)
    ->Iterations(latency_samples);
BENCHMARK(latency<plain_file>)
    ->Name("seg/latency_plain_file")
    ->Threads(1)
    ->Iterations(latency_samples);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
#if defined(FLAKEID_BENCH_HAS_REDIS)
  if (!bench_redis().available())
    std::printf("note: %s; seg/chain_redis is skipped\n", bench_redis().missing().c_str());
#else
  std::printf("note: flakeid::redis was not built (hiredis missing); no seg/chain_redis\n");
#endif
#if defined(FLAKEID_BENCH_HAS_POSTGRES)
  if (!bench_postgres().available())
    std::printf("note: %s; seg/chain_postgres is skipped\n", bench_postgres().missing().c_str());
#else
  std::printf("note: flakeid::postgres was not built (libpq missing); no seg/chain_postgres\n");
#endif
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  std::filesystem::remove_all(file_store_dir(), ec);
}
