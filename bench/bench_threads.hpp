// What the benchmarks share for runs on several threads: the thread counts (the defaults from
// the hardware, or a list the user gives), the calling thread's CPU time, and a timed run of N
// own threads that each mint in a loop.
#pragma once

#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace flakeid_bench {

inline constexpr int max_threads = 1024;
inline constexpr const char* threads_env = "FLAKEID_BENCH_THREADS";

/// The counts sorted, without repeats.
inline std::vector<int> sorted_unique(std::vector<int> counts) {
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

/// The counts of a comma-separated list such as "1,2,4", sorted, without repeats. Throws
/// std::invalid_argument naming `origin` (e.g. "--threads=" or "FLAKEID_BENCH_THREADS="), the
/// bad value and what is allowed.
inline std::vector<int> parse_thread_counts(std::string_view list, std::string_view origin) {
  const std::string allowed = "a comma-separated list of thread counts, each an integer in [1, " +
                              std::to_string(max_threads) + "], e.g. 1,2,4";
  std::vector<int> counts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string_view item = list.substr(pos, comma - pos);
    int n = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || n < 1 ||
        n > max_threads) {
      throw std::invalid_argument(std::string(origin) + "\"" + std::string(list) + "\": \"" +
                                  std::string(item) +
                                  "\" is not a thread count; allowed: " + allowed);
    }
    counts.push_back(n);
    if (comma == list.size()) break;
    pos = comma + 1;
  }
  return sorted_unique(std::move(counts));
}

/// 1, 2, 4, ... up to `hardware` (and `hardware` itself), with the counts in `named`.
inline std::vector<int> default_counts(unsigned hardware, std::vector<int> named) {
  for (unsigned n = 1; n <= hardware && n <= static_cast<unsigned>(max_threads); n *= 2)
    named.push_back(static_cast<int>(n));
  if (hardware >= 1 && hardware <= static_cast<unsigned>(max_threads))
    named.push_back(static_cast<int>(hardware));
  return sorted_unique(std::move(named));
}

/// CPU time of the calling thread, in seconds.
inline double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// What one timed run of several threads did: IDs minted by all, their CPU time summed (s),
/// and the wall time from the start signal to the last thread's exit (s).
struct thread_run {
  double ids = 0;
  double cpu_s = 0;
  double wall_s = 0;
};

/// Runs `threads` threads that each call a copy of `mint` with `t` (the thread's index; one ID
/// per call) in batches of 256 for `seconds`, and returns the totals. The threads are started
/// and wait (yielding, so that more threads than cores all reach the start line) for one start
/// signal.
template <class Mint>
thread_run run_threads(int threads, double seconds, Mint& mint) {
  constexpr int batch = 256;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::vector<std::uint64_t> n(static_cast<std::size_t>(threads));
  std::vector<double> c(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      // A copy of its own in a local: what `mint` refers to stays in registers across the
      // calls, as a caller's reference to its generator would, instead of being loaded
      // through the captures again for every ID.
      Mint local = mint;
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      const double c0 = thread_cpu_s();
      std::uint64_t k = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        for (int i = 0; i < batch; ++i) benchmark::DoNotOptimize(local(t));
        k += batch;
      }
      c[static_cast<std::size_t>(t)] = thread_cpu_s() - c0;
      n[static_cast<std::size_t>(t)] = k;
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  const auto t0 = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (auto& th : pool) th.join();
  thread_run r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int t = 0; t < threads; ++t) {
    r.ids += static_cast<double>(n[static_cast<std::size_t>(t)]);
    r.cpu_s += c[static_cast<std::size_t>(t)];
  }
  return r;
}

}  // namespace flakeid_bench
