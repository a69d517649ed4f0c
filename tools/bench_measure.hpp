// The thread harness of `flakeid bench`: bench/bench_threads.hpp's, run over whole ticks of the
// layout. Included by the files that measure (bench_measure.cpp, bench_<generator>.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

#include <flakeid/worker_id.hpp>

#include "bench.hpp"
#include "bench_threads.hpp"

namespace flakeid_cli {

/// Starts `threads` threads; thread t calls the function `make(t)` returns (one ID per call)
/// as fast as it can, from the start of the layout's next tick for `window.ticks` ticks. The
/// threads are stopped a tenth of a tick early: a generator that has used up the last tick
/// waits for the next one, and must not take IDs from it. The rate is the IDs of all threads
/// over the window's length; the CPU share, their CPU time over the time they were let run.
template <class Make>
bench_result run_threads(unsigned threads, const bench_window& window, const Make& make) {
  using wall = std::chrono::system_clock;
  using ms = std::chrono::milliseconds;
  const auto length = ms{window.ticks * window.tick_ms};
  struct tick_schedule {
    const bench_window& w;
    ms length;
    wall::time_point t0{};
    void start() {
      const std::int64_t wall_ms =
          std::chrono::duration_cast<ms>(wall::now().time_since_epoch()).count();
      const std::int64_t since = wall_ms - w.epoch_ms;
      const std::int64_t first_tick = (since >= 0 ? since / w.tick_ms : 0) + 1;
      t0 = wall::time_point{ms{w.epoch_ms + first_tick * w.tick_ms}};
      std::this_thread::sleep_until(t0);
    }
    void stop() const {
      std::this_thread::sleep_until(t0 + length - std::chrono::microseconds{w.tick_ms * 100});
    }
  } schedule{window, length};
  const auto per_thread = [&make](int t) { return make(static_cast<unsigned>(t)); };
  const flakeid_bench::thread_run m =
      flakeid_bench::run_scheduled(static_cast<int>(threads), 1, per_thread, schedule);
  bench_result r;
  r.ids_per_s = m.ids / std::chrono::duration<double>(length).count();
  if (m.run_s > 0) r.cpu_share = m.cpu_s / (m.run_s * threads);
  if (m.ids != 0) r.cpu_ns_per_id = m.cpu_s * 1e9 / m.ids;
  return r;
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

}  // namespace flakeid_cli
