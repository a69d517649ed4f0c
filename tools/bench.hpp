// What `flakeid bench` (bench.cpp) shares with its measurements (bench_measure.cpp and one file
// per generator, bench_<generator>.cpp, each instantiating that generator for every preset).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace flakeid_cli {

enum class bench_kind { classic, gene, cosid, tick, blocks };

constexpr std::string_view bench_kind_name(bench_kind k) {
  switch (k) {
    case bench_kind::classic: return "classic";
    case bench_kind::gene: return "gene";
    case bench_kind::cosid: return "cosid";
    case bench_kind::tick: return "tick";
    case bench_kind::blocks: return "blocks";
  }
  return "classic";
}

/// When a measurement runs: a whole number of the layout's ticks, so that a generator that
/// uses up every tick's sequences is measured at exactly its capacity.
struct bench_window {
  std::int64_t epoch_ms = 0;  // ticks start at epoch_ms + k * tick_ms (Unix ms)
  std::int64_t tick_ms = 1;
  std::int64_t ticks = 1;
};

/// One measurement: threads minting together for the request's duration.
struct bench_result {
  double ids_per_s = 0;                                             // all threads, per wall second
  double cpu_ns_per_id = std::numeric_limits<double>::quiet_NaN();  // summed over the threads
  double cpu_share = std::numeric_limits<double>::quiet_NaN();      // CPU time / (threads * wall)
};

/// The floor at `threads` threads: each reads the wall clock and `fetch_add`s one shared
/// counter, the least a generator shared by the threads must do per ID.
bench_result measure_floor(unsigned threads, const bench_window& window);

/// Generator `k` of the preset layout number `preset` (worker 0), shared by `threads` threads;
/// on a gene layout each thread cycles through the keys, one key per call.
bench_result measure(bench_kind k, std::size_t preset, unsigned threads,
                     const bench_window& window);

bench_result measure_classic(std::size_t preset, unsigned threads, const bench_window& window);
bench_result measure_cosid(std::size_t preset, unsigned threads, const bench_window& window);
bench_result measure_tick(std::size_t preset, unsigned threads, const bench_window& window);
bench_result measure_blocks(std::size_t preset, unsigned threads, const bench_window& window);

}  // namespace flakeid_cli
