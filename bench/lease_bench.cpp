// The latency of next_id() on a generator that holds a Redis lease renewing every 10 ms, against
// the same generator without a lease, in one run (issue 17, target 6: p99.9 with the lease at
// most 1.2x p99.9 without).
//
// Each sample is one next_id() between two reads of the TSC (lfence; rdtsc; lfence), minus the
// median cost of an empty pair of reads; the TSC's rate comes from flakeid::tsc_steady_clock's
// calibration (or the same calibration made here, where that clock does not use the TSC because
// the kernel's clock source is another, as in many VMs). Samples are kept in a histogram of
// whole TSC ticks, so every percentile is exact.
//
// The run alternates two phases, `--rounds` times, each `--phase-ms` long:
//   no lease   no lease in the process: blocks of samples from two generators on fixed worker
//              ids, alternately, both counted as "none"
//   leased     a Redis lease (ttl 30 ms: renewed every 10 ms) on a redis-server on loopback,
//              started in a temporary directory by the tests' helper: blocks from the leased
//              generator ("leased") alternate with blocks from a fixed-worker generator
//              ("beside": no fence, but the renewal thread and the server run meanwhile)
// So "leased / none" is what the lease costs a caller (target <= 1.2 at p99.9), "beside / none"
// the part that comes from the renewal running on the machine at all, and "leased / beside" the
// part that comes from the fence on the generator's hot path.
//
// The lease is a redis_store lease's store wrapped in one that times each renewal: the run also
// reports the interval between renewals, their round trips, how late the renewal thread woke,
// how many answers came after the deadline the renewal before had set (ttl - margin = 24 ms
// after its send), and the calls the fence refused meanwhile (lease_lost_error; they are not
// latency samples). It also times each reading of the store's clock (Redis TIME), which the
// lease takes before every claim and renewal to compare its clock with the store's (max_skew),
// and reports what that round trip adds to a renewal's.
//
// The layout is 41 bits of ms, 5 worker bits and 17 sequence bits (131072 IDs per ms): one
// thread never uses a tick up, so no sample waits for the next tick.
//
//   lease_bench [--rounds N] [--phase-ms MS] [--json FILE]
//
// Exit status 0 (whatever the ratio: speed is reported, not tested), 77 when there is nothing
// to measure (the Redis adapter was not built, or redis-server is missing), 1 on an error.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <flakeid/flakeid.hpp>
#include <flakeid/tsc_clock.hpp>

#if defined(FLAKEID_BENCH_HAS_REDIS)
#include <unistd.h>

#include <flakeid/adapters/redis.hpp>

#include "redis_server.hpp"
#endif

#if FLAKEID_HAS_TSC
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace {

constexpr int exit_skip = 77;

#if defined(FLAKEID_BENCH_HAS_REDIS)

using steady = std::chrono::steady_clock;

/// 41 bits of ms, 5 worker bits, 17 sequence bits.
inline constexpr flakeid::layout wide_leased{
    {flakeid::fields::timestamp(41), flakeid::fields::worker(5), flakeid::fields::sequence(17)},
    flakeid::layouts::twitter.epoch_ms};
using generator = flakeid::classic_snowflake<wide_leased>;

// ---- timing ------------------------------------------------------------------------------

/// The timer around one call: TSC ticks (rdtsc between lfences) on an x86-64 CPU whose TSC
/// runs at a constant rate, else steady-clock nanoseconds. The rate is tsc_steady_clock's
/// calibration; where that clock does not use the TSC (a kernel whose clock source is another,
/// as in many VMs), the TSC is calibrated here the same way, against steady_clock.
struct timer {
  bool tsc = false;
  double ns_per_tick = 1.0;
  std::string why;

  timer() {
    const flakeid::tsc_calibration& c = flakeid::tsc_steady_clock::calibration();
    why = c.reason;
    if (c.uses_tsc) {
      tsc = true;
      ns_per_tick = 1e9 / c.ticks_per_second;
      return;
    }
#if FLAKEID_HAS_TSC
    unsigned a = 0;
    unsigned b = 0;
    unsigned cx = 0;
    unsigned d = 0;
    if (__get_cpuid_max(0x80000000U, nullptr) >= 0x80000007U &&
        __get_cpuid(0x80000007U, &a, &b, &cx, &d) != 0 && (d & (1U << 8)) != 0) {
      const auto pair = [&](std::int64_t& ns, std::uint64_t& ticks) {
        std::int64_t best = INT64_MAX;
        for (int i = 0; i < 64; ++i) {
          const std::int64_t x = steady::now().time_since_epoch().count();
          const std::uint64_t t = begin_tsc();
          const std::int64_t y = steady::now().time_since_epoch().count();
          if (y - x < best) {
            best = y - x;
            ns = x + (y - x) / 2;
            ticks = t;
          }
        }
      };
      std::int64_t ns0 = 0;
      std::int64_t ns1 = 0;
      std::uint64_t t0 = 0;
      std::uint64_t t1 = 0;
      pair(ns0, t0);
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
      pair(ns1, t1);
      if (t1 > t0 && ns1 > ns0) {
        tsc = true;
        ns_per_tick = static_cast<double>(ns1 - ns0) / static_cast<double>(t1 - t0);
        why = "invariant TSC, calibrated here against steady_clock (tsc_steady_clock: " + why + ")";
      }
    }
#endif
  }
#if FLAKEID_HAS_TSC
  static std::uint64_t begin_tsc() noexcept {
    _mm_lfence();
    const std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
  }
#endif
  /// A reading after every earlier instruction and before any later one.
  [[nodiscard]] std::uint64_t read() const noexcept {
#if FLAKEID_HAS_TSC
    if (tsc) return begin_tsc();
#endif
    return static_cast<std::uint64_t>(steady::now().time_since_epoch().count());
  }
};

/// Latencies in whole timer ticks: exact counts below 2^16, the rest kept as they are.
class histogram {
 public:
  void add(std::uint64_t v) {
    ++n_;
    if (v < counts_.size()) {
      ++counts_[v];
    } else {
      large_.push_back(v);
    }
  }
  [[nodiscard]] std::uint64_t size() const noexcept { return n_; }
  /// The mean of the fastest fraction `keep` of the samples, in ticks: over many samples it
  /// resolves differences finer than the timer's steps, without the preemptions of the tail.
  [[nodiscard]] double trimmed_mean(double keep) const noexcept {
    const auto want = static_cast<std::uint64_t>(keep * static_cast<double>(n_));
    std::uint64_t taken = 0;
    double sum = 0;
    for (std::size_t v = 0; v < counts_.size() && taken < want; ++v) {
      const std::uint64_t k = std::min(counts_[v], want - taken);
      taken += k;
      sum += static_cast<double>(k) * static_cast<double>(v);
    }
    return taken == 0 ? 0.0 : sum / static_cast<double>(taken);
  }
  /// The smallest value at or above which lies at most the fraction 1 - p of the samples.
  [[nodiscard]] std::uint64_t percentile(double p) {
    if (n_ == 0) return 0;
    const auto rank = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::ceil(p * static_cast<double>(n_))));
    std::uint64_t seen = 0;
    for (std::size_t v = 0; v < counts_.size(); ++v) {
      seen += counts_[v];
      if (seen >= rank) return v;
    }
    std::sort(large_.begin(), large_.end());
    return large_[rank - seen - 1];
  }
  [[nodiscard]] std::uint64_t max() const {
    if (!large_.empty()) return *std::max_element(large_.begin(), large_.end());
    for (std::size_t v = counts_.size(); v-- > 0;)
      if (counts_[v] != 0) return v;
    return 0;
  }
  /// Samples of `v` ticks or more.
  [[nodiscard]] std::uint64_t at_least(std::uint64_t v) const {
    std::uint64_t k = 0;
    for (std::size_t i = v; i < counts_.size(); ++i) k += counts_[i];
    for (const std::uint64_t x : large_) k += x >= v ? 1 : 0;
    return k;
  }

 private:
  std::vector<std::uint64_t> counts_ = std::vector<std::uint64_t>(std::size_t{1} << 16);
  std::vector<std::uint64_t> large_;
  std::uint64_t n_ = 0;
};

/// The median cost of an empty pair of timer reads, in timer ticks.
std::uint64_t timer_overhead(const timer& t) {
  histogram h;
  for (int i = 0; i < 200'000; ++i) {
    const std::uint64_t a = t.read();
    const std::uint64_t b = t.read();
    h.add(b - a);
  }
  return h.percentile(0.5);
}

// ---- sampling ----------------------------------------------------------------------------

constexpr int block = 4096;  // samples from one generator before switching to the other

// Calls the fence refused (lease_lost_error: the lease's deadline passed before a renewal was
// confirmed), and how many times it went down. Only the sampling thread touches them.
std::uint64_t fence_refused = 0;
std::uint64_t fence_downs = 0;
bool fence_was_down = false;

/// Makes the compiler finish computing `v` before what follows (the second timer read).
inline void keep(std::uint64_t v) noexcept {
#if defined(__GNUC__)
  asm volatile("" : : "r"(v) : "memory");
#else
  static volatile std::uint64_t sink;
  sink = v;
#endif
}

/// `block` samples of `gen.next_id()` into `h`, net of the timer's overhead.
void sample_block(generator& gen, histogram& h, const timer& t, std::uint64_t overhead) {
  for (int i = 0; i < block; ++i) {
    const std::uint64_t a = t.read();
    try {
      keep(gen.next_id());
    } catch (const flakeid::lease_lost_error&) {
      ++fence_refused;
      fence_downs += fence_was_down ? 0 : 1;
      fence_was_down = true;
      continue;
    }
    fence_was_down = false;
    const std::uint64_t d = t.read() - a;
    if (d > (std::uint64_t{1} << 40)) continue;  // another core's counter, behind this one's
    h.add(d > overhead ? d - overhead : 0);
  }
}

/// Alternates blocks of `a` into `ha` and `b` into `hb` for `length`; calls `after_block` after
/// each pair.
template <class After>
void alternate(generator& a, histogram& ha, generator& b, histogram& hb,
               std::chrono::milliseconds length, const timer& t, std::uint64_t overhead,
               const After& after_block) {
  const auto until = steady::now() + length;
  while (steady::now() < until) {
    sample_block(a, ha, t, overhead);
    sample_block(b, hb, t, overhead);
    after_block();
  }
}

// ---- the renewals ------------------------------------------------------------------------

/// When each renewal of a round was sent and answered (steady clock), as the renewal thread saw
/// it.
struct renewal_log {
  struct call {
    steady::time_point sent;
    steady::time_point answered;
  };
  std::vector<std::vector<call>> rounds;
  std::vector<std::vector<call>> clocks;  // the store's clock, read before each claim and renewal
};

/// A lease store that passes every call to `inner` and logs the times of the renewals and of
/// the readings of the store's clock (the lease compares its clock with it before each claim
/// and renewal). The lease makes one store call at a time; the logs are read after the lease is
/// gone.
class timed_store final : public flakeid::lease_store {
 public:
  timed_store(std::unique_ptr<flakeid::lease_store> inner, std::vector<renewal_log::call>& log,
              std::vector<renewal_log::call>& clock_log)
      : inner_(std::move(inner)), log_(&log), clock_log_(&clock_log) {}
  [[nodiscard]] std::string where() const override { return inner_->where(); }
  std::optional<flakeid::lease_claim> do_claim(const flakeid::claim_request& r) override {
    return inner_->claim(r);
  }
  flakeid::renewal do_renew(std::uint64_t id, const std::string& holder,
                            flakeid::lease_time deadline) override {
    const auto sent = steady::now();
    try {
      const flakeid::renewal r = inner_->renew(id, holder, deadline);
      log_->push_back({sent, steady::now()});
      return r;
    } catch (...) {
      log_->push_back({sent, steady::now()});
      throw;
    }
  }
  void do_release(std::uint64_t id, const std::string& holder, flakeid::lease_time last) override {
    inner_->release(id, holder, last);
  }
  std::optional<flakeid::lease_time> do_clock() override {
    const auto sent = steady::now();
    std::optional<flakeid::lease_time> at = inner_->clock();
    clock_log_->push_back({sent, steady::now()});
    return at;
  }
  void abandon_after_fork() noexcept override { inner_->abandon_after_fork(); }

 private:
  std::unique_ptr<flakeid::lease_store> inner_;
  std::vector<renewal_log::call>* log_;
  std::vector<renewal_log::call>* clock_log_;
};

/// Percentiles of durations in ms.
struct ms_spread {
  double p50 = 0;
  double p99 = 0;
  double max = 0;
  std::size_t n = 0;
};

ms_spread spread(std::vector<double> v) {
  ms_spread s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.p50 = v[v.size() / 2];
  s.p99 = v[static_cast<std::size_t>(0.99 * static_cast<double>(v.size() - 1))];
  s.max = v.back();
  return s;
}

// ---- the run -----------------------------------------------------------------------------

struct options {
  int rounds = 5;
  int phase_ms = 200;
  std::string json;
};

std::optional<options> read_options(int argc, char** argv) {
  options o;
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto number = [&](int lo, int hi) -> std::optional<int> {
      if (i + 1 >= args.size()) return std::nullopt;
      const int v = std::atoi(std::string(args[++i]).c_str());
      if (v < lo || v > hi) return std::nullopt;
      return v;
    };
    if (args[i] == "--rounds") {
      const auto v = number(1, 1000);
      if (!v) return std::nullopt;
      o.rounds = *v;
    } else if (args[i] == "--phase-ms") {
      const auto v = number(10, 60'000);
      if (!v) return std::nullopt;
      o.phase_ms = *v;
    } else if (args[i] == "--json" && i + 1 < args.size()) {
      o.json = std::string(args[++i]);
    } else {
      return std::nullopt;
    }
  }
  return o;
}

struct figures {
  std::string name;
  std::uint64_t samples = 0;
  std::array<double, 4> p{};  // p50, p99, p99.9, p99.99 in ns
  double mean = 0;            // of the fastest 99%
  double max = 0;
  std::uint64_t slow = 0;  // samples of 10 us or more
};

figures summarise(std::string name, histogram& h, const timer& t) {
  figures f;
  f.name = std::move(name);
  f.samples = h.size();
  const std::array<double, 4> ps{0.50, 0.99, 0.999, 0.9999};
  for (std::size_t i = 0; i < ps.size(); ++i)
    f.p[i] = static_cast<double>(h.percentile(ps[i])) * t.ns_per_tick;
  f.mean = h.trimmed_mean(0.99) * t.ns_per_tick;
  f.max = static_cast<double>(h.max()) * t.ns_per_tick;
  f.slow = h.at_least(static_cast<std::uint64_t>(10'000 / t.ns_per_tick));
  return f;
}

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a;
  std::string b;
  std::string c;
  f >> a >> b >> c;
  return a.empty() ? "unknown" : a + " " + b + " " + c;
}

int run(const options& o) {
  flakeid_test::redis_server server;
  if (!server.available()) {
    std::printf("lease_bench: skipped: %s\n", server.missing().c_str());
    return exit_skip;
  }
  server.start();

  const timer t;
  const std::uint64_t overhead = timer_overhead(t);
  histogram none;
  histogram leased;
  histogram beside;
  generator fixed_a{flakeid::worker_id{30}};
  generator fixed_b{flakeid::worker_id{31}};

  std::atomic<std::uint64_t> renew_failed{0};
  std::atomic<std::uint64_t> suspended{0};
  renewal_log renewals;

  flakeid::lease_options lo;
  lo.name_space = "lease_bench_" + std::to_string(::getpid());
  lo.ttl = std::chrono::milliseconds{30};  // renewed every ttl / 3 = 10 ms
  // Redis keeps the holder's key ttl + safe_guard after each renewal: 100 ms more than the ttl,
  // so a renewal that comes late on a busy machine finds the key still there (the fence lapses
  // meanwhile, which is counted).
  lo.safe_guard = std::chrono::milliseconds{100};
  lo.io_timeout = std::chrono::milliseconds{20};
  const bool show_events = std::getenv("LEASE_BENCH_EVENTS") != nullptr;
  lo.on_event = [&](flakeid::lease_event e, const std::string& detail) {
    if (e == flakeid::lease_event::renew_failed) renew_failed.fetch_add(1);
    if (e == flakeid::lease_event::suspended) suspended.fetch_add(1);
    if (show_events || e == flakeid::lease_event::lost)
      std::fprintf(stderr, "lease_bench: lease %s: %s\n",
                   std::string(flakeid::to_string(e)).c_str(), detail.c_str());
  };
  const std::chrono::milliseconds phase{o.phase_ms};

  int lost_rounds = 0;
  for (int round = 0; round < o.rounds; ++round) {
    alternate(fixed_a, none, fixed_b, none, phase, t, overhead, [] {});
    try {
      // A redis_store lease, with its store's renewals timed.
      std::vector<renewal_log::call>& log = renewals.rounds.emplace_back();
      std::vector<renewal_log::call>& clock_log = renewals.clocks.emplace_back();
      flakeid::lease lease{
          std::make_unique<timed_store>(std::make_unique<flakeid::detail::redis_lease_store>(
                                            flakeid::redis_options::parse(server.address()), lo),
                                        log, clock_log),
          lo};
      generator held{lease};
      alternate(held, leased, fixed_a, beside, phase, t, overhead, [] {});
      if (lease.lost()) ++lost_rounds;
    } catch (const flakeid::worker_id_error& e) {  // lost while acquire waited for the clock
      std::fprintf(stderr, "lease_bench: round %d: %s\n", round + 1, e.what());
      ++lost_rounds;
    }
  }

  std::vector<figures> rows{summarise("none", none, t), summarise("leased", leased, t),
                            summarise("beside", beside, t)};
  const auto ratio = [&](std::size_t a, std::size_t b, std::size_t p) {
    return rows[b].p[p] > 0 ? rows[a].p[p] / rows[b].p[p] : 0.0;
  };
  constexpr std::size_t p999 = 2;
  const double leased_vs_none = ratio(1, 0, p999);
  const double beside_vs_none = ratio(2, 0, p999);
  const double leased_vs_beside = ratio(1, 2, p999);
  const std::string load = load_average();
  // The renewal thread sends a renewal ttl / 3 after the answer to the one before; the fence
  // lapses when an answer comes ttl - margin (24 ms) or more after the send of the one before.
  using ms_d = std::chrono::duration<double, std::milli>;
  std::vector<double> intervals;  // send to send
  std::vector<double> round_trips;
  std::vector<double> late;  // send after (answer before + 10 ms)
  std::size_t lapses = 0;
  for (const std::vector<renewal_log::call>& calls : renewals.rounds) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      round_trips.push_back(ms_d(calls[i].answered - calls[i].sent).count());
      if (i == 0) continue;
      intervals.push_back(ms_d(calls[i].sent - calls[i - 1].sent).count());
      late.push_back(ms_d(calls[i].sent - calls[i - 1].answered).count() - 10.0);
      if (calls[i].answered - calls[i - 1].sent >= std::chrono::milliseconds{24}) ++lapses;
    }
  }
  const ms_spread interval = spread(intervals);
  const ms_spread round_trip = spread(round_trips);
  const ms_spread lateness = spread(late);
  // The comparison of clocks: one more round trip (Redis TIME) before each claim and renewal.
  std::vector<double> clock_trips;
  for (const std::vector<renewal_log::call>& calls : renewals.clocks)
    for (const renewal_log::call& c : calls)
      clock_trips.push_back(ms_d(c.answered - c.sent).count());
  const ms_spread clock_trip = spread(clock_trips);
  // What a renewal keeps the store busy for, with the comparison against without (p50s).
  const double with_clock_vs_renewal =
      round_trip.p50 > 0 ? (round_trip.p50 + clock_trip.p50) / round_trip.p50 : 0.0;

  std::printf(
      "lease_bench: next_id() latency in ns, %s-timed (timer overhead %.1f ns subtracted; %s)\n"
      "layout 41 ts / 5 worker / 17 seq (ms); redis_store lease on %s, ttl 30 ms (renewed every "
      "10 ms)\n%d rounds of %d ms per phase; load average %s\n\n",
      t.tsc ? "TSC" : "steady-clock", static_cast<double>(overhead) * t.ns_per_tick, t.why.c_str(),
      server.address().c_str(), o.rounds, o.phase_ms, load.c_str());
  std::printf("%-8s %10s %8s %8s %8s %8s %8s %10s %8s\n", "config", "samples", "mean99", "p50",
              "p99", "p99.9", "p99.99", "max", ">=10us");
  for (const figures& f : rows)
    std::printf("%-8s %10llu %8.2f %8.1f %8.1f %8.1f %8.1f %10.0f %8llu\n", f.name.c_str(),
                static_cast<unsigned long long>(f.samples), f.mean, f.p[0], f.p[1], f.p[2], f.p[3],
                f.max, static_cast<unsigned long long>(f.slow));
  const double mean_leased_vs_none = rows[0].mean > 0 ? rows[1].mean / rows[0].mean : 0.0;
  std::printf(
      "\np99.9 leased / none:   %.2f (target <= 1.20: %s); mean of the fastest 99%%: %.3f\n"
      "p99.9 beside / none:   %.2f (the renewal running beside, no fence)\n"
      "p99.9 leased / beside: %.2f (the fence on the hot path)\n"
      "renewals: %zu; ms between sends p50 %.1f, p99 %.1f, max %.1f; round trip p50 %.2f, p99 "
      "%.2f, max %.2f; the renewal thread's wake-up after its 10 ms wait p50 %.2f, p99 %.2f, max "
      "%.2f late\n"
      "the store's clock read before each claim and renewal: %zu readings, round trip p50 %.2f, "
      "p99 %.2f, max %.2f ms; a renewal's round trips with the reading / without it (p50): "
      "%.2f\n"
      "answers 24 ms (ttl - margin) or more after the send before: %zu; the fence went down %llu "
      "times and refused %llu calls; renew_failed %llu, suspended %llu, rounds whose lease was "
      "lost %d\n",
      leased_vs_none, leased_vs_none <= 1.2 ? "met" : "missed", mean_leased_vs_none, beside_vs_none,
      leased_vs_beside, round_trip.n, interval.p50, interval.p99, interval.max, round_trip.p50,
      round_trip.p99, round_trip.max, lateness.p50, lateness.p99, lateness.max, clock_trip.n,
      clock_trip.p50, clock_trip.p99, clock_trip.max, with_clock_vs_renewal, lapses,
      static_cast<unsigned long long>(fence_downs), static_cast<unsigned long long>(fence_refused),
      static_cast<unsigned long long>(renew_failed.load()),
      static_cast<unsigned long long>(suspended.load()), lost_rounds);

  if (!o.json.empty()) {
    std::ofstream out(o.json);
    out << "{\"load_average\":\"" << load << "\",\"timer\":\"" << (t.tsc ? "tsc" : "steady")
        << "\",\"rounds\":" << o.rounds << ",\"phase_ms\":" << o.phase_ms << ",\"configs\":[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const figures& f = rows[i];
      out << (i ? "," : "") << "{\"name\":\"" << f.name << "\",\"samples\":" << f.samples
          << ",\"mean99_ns\":" << f.mean << ",\"p50_ns\":" << f.p[0] << ",\"p99_ns\":" << f.p[1]
          << ",\"p999_ns\":" << f.p[2] << ",\"p9999_ns\":" << f.p[3] << ",\"max_ns\":" << f.max
          << ",\"slow\":" << f.slow << "}";
    }
    out << "],\"p999_leased_vs_none\":" << leased_vs_none
        << ",\"p999_beside_vs_none\":" << beside_vs_none
        << ",\"p999_leased_vs_beside\":" << leased_vs_beside << ",\"renewals\":" << round_trip.n
        << ",\"renewal_interval_p50_ms\":" << interval.p50
        << ",\"renewal_interval_max_ms\":" << interval.max
        << ",\"renewal_round_trip_p50_ms\":" << round_trip.p50
        << ",\"renewal_round_trip_max_ms\":" << round_trip.max
        << ",\"clock_readings\":" << clock_trip.n
        << ",\"clock_round_trip_p50_ms\":" << clock_trip.p50
        << ",\"clock_round_trip_max_ms\":" << clock_trip.max
        << ",\"renewal_with_clock_vs_without_p50\":" << with_clock_vs_renewal
        << ",\"renewal_wakeup_late_p50_ms\":" << lateness.p50
        << ",\"renewal_wakeup_late_max_ms\":" << lateness.max << ",\"late_answers\":" << lapses
        << ",\"renew_failed\":" << renew_failed.load() << ",\"lost_rounds\":" << lost_rounds
        << ",\"fence_downs\":" << fence_downs << ",\"fence_refused\":" << fence_refused << "}\n";
    if (!out) {
      std::fprintf(stderr, "lease_bench: cannot write %s\n", o.json.c_str());
      return 1;
    }
  }
  return 0;
}

#endif

}  // namespace

int main(int argc, char** argv) {
#if defined(FLAKEID_BENCH_HAS_REDIS)
  const std::optional<options> o = read_options(argc, argv);
  if (!o) {
    std::fprintf(stderr,
                 "usage: lease_bench [--rounds 1-1000] [--phase-ms 10-60000] [--json FILE]\n");
    return 2;
  }
  try {
    return run(*o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lease_bench: %s\n", e.what());
    return 1;
  }
#else
  (void)argc;
  (void)argv;
  std::printf(
      "lease_bench: skipped: flakeid::redis was not built (hiredis missing), so there is no "
      "lease to measure\n");
  return exit_skip;
#endif
}
