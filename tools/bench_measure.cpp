// flakeid bench: the floor, and the dispatch to the file that measures each generator.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include <flakeid/clock.hpp>

#include "bench_measure.hpp"

namespace flakeid_cli {

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

bench_result measure(bench_kind k, std::size_t preset, unsigned threads,
                     const bench_window& window) {
  switch (k) {
    case bench_kind::classic:
    case bench_kind::gene:  // the classic engine on a gene layout is the gene generator
      return measure_classic(preset, threads, window);
    case bench_kind::cosid: return measure_cosid(preset, threads, window);
    case bench_kind::tick: return measure_tick(preset, threads, window);
    case bench_kind::blocks: return measure_blocks(preset, threads, window);
  }
  return measure_classic(preset, threads, window);
}

}  // namespace flakeid_cli
