// What the benchmarks and `flakeid bench` (tools/bench.cpp) share for runs on several threads:
// the thread counts (the defaults from the hardware, or a list the user gives), the calling
// thread's CPU time, and a timed run of N own threads that each mint in a loop.
#pragma once

#include <time.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
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

/// CPU time of the calling thread, in seconds; NaN where the system cannot tell.
inline double thread_cpu_s() noexcept {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
#endif
  return std::numeric_limits<double>::quiet_NaN();
}

/// What one timed run of several threads did: IDs minted by all, their CPU time summed (s), the
/// time from the start signal to the stop signal (s) and to the last thread's exit (s).
struct thread_run {
  double ids = 0;
  double cpu_s = 0;
  double run_s = 0;
  double wall_s = 0;
};

/// Runs `threads` threads; thread t calls `make(t)` once for its minting function (one ID per
/// call), which it calls in batches of `batch` from the start signal to the stop signal. The
/// threads wait for the start signal (yielding, so that more threads than cores all reach the
/// start line); the caller's `schedule.start()` returns when it is time to start and
/// `schedule.stop()` when it is time to stop. An exception in a thread is rethrown after all
/// have stopped; a thread that cannot be started is a std::runtime_error naming it.
template <class Make, class Schedule>
thread_run run_scheduled(int threads, int batch, const Make& make, Schedule& schedule) {
  struct alignas(64) slot {  // one per thread, on cache lines of its own
    std::uint64_t ids = 0;
    std::uint64_t sink = 0;  // what the IDs fold to, so that no call can be left out
    double cpu_s = 0;
    std::exception_ptr error;
  };
  std::vector<slot> slots(static_cast<std::size_t>(threads));
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  const auto work = [&](int t) {
    slot& s = slots[static_cast<std::size_t>(t)];
    bool counted = false;
    try {
      auto mint = make(t);
      ready.fetch_add(1, std::memory_order_release);
      counted = true;
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      const double c0 = thread_cpu_s();
      std::uint64_t n = 0;
      std::uint64_t sink = 0;
      for (; !stop.load(std::memory_order_relaxed); n += static_cast<std::uint64_t>(batch))
        for (int i = 0; i < batch; ++i) sink ^= static_cast<std::uint64_t>(mint());
      s.cpu_s = thread_cpu_s() - c0;
      s.ids = n;
      s.sink = sink;
    } catch (...) {
      s.error = std::current_exception();
      if (!counted) ready.fetch_add(1, std::memory_order_release);
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  const auto halt = [&] {
    go.store(true, std::memory_order_release);
    stop.store(true, std::memory_order_relaxed);
    for (std::thread& th : pool) th.join();
  };
  for (int t = 0; t < threads; ++t) {
    try {
      pool.emplace_back(work, t);
    } catch (const std::system_error& e) {
      halt();
      throw std::runtime_error("cannot start thread " + std::to_string(t + 1) + " of " +
                               std::to_string(threads) + ": " + e.code().message());
    }
  }
  while (ready.load(std::memory_order_acquire) < threads) std::this_thread::yield();
  schedule.start();
  go.store(true, std::memory_order_release);
  const auto t0 = std::chrono::steady_clock::now();
  schedule.stop();
  stop.store(true, std::memory_order_relaxed);
  const auto t1 = std::chrono::steady_clock::now();
  for (std::thread& th : pool) th.join();
  thread_run r;
  r.run_s = std::chrono::duration<double>(t1 - t0).count();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const slot& s : slots) {
    if (s.error) std::rethrow_exception(s.error);
    r.ids += static_cast<double>(s.ids);
    r.cpu_s += s.cpu_s;
  }
  return r;
}

/// Runs `threads` threads that each call a copy of `mint` with `t` (the thread's index; one ID
/// per call) in batches of 256 for `seconds`, and returns the totals.
template <class Mint>
thread_run run_threads(int threads, double seconds, Mint& mint) {
  struct for_seconds {
    double seconds;
    void start() {}
    void stop() { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }
  } schedule{seconds};
  // A copy of its own in each thread: what `mint` refers to stays in registers across the
  // calls, as a caller's reference to its generator would, instead of being loaded through the
  // captures again for every ID.
  const auto make = [&mint](int t) { return [local = mint, t]() mutable { return local(t); }; };
  return run_scheduled(threads, 256, make, schedule);
}

}  // namespace flakeid_bench
