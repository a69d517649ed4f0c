#pragma once
// Shared by the generator tests: a fixed start time, IDs drawn by hand (independent of the
// library's codec), a monotonic clock the test controls, and one "rig" per generator that
// owns a generator and the clock it reads.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace flakeid_test {

using namespace std::chrono;
using ms_time = sys_time<milliseconds>;

/// 2025-01-01T00:00:00Z, after every preset's epoch.
inline constexpr std::int64_t start_ms = 1735689600000;
inline constexpr ms_time start_time{milliseconds{start_ms}};

inline constexpr std::int64_t twitter_epoch = 1288834974657;
inline constexpr std::int64_t cosid_epoch = 1577203200000;
inline constexpr std::int64_t seed_gene_epoch = 1724505364000;

/// Twitter: ts 41 | dc 5 | worker 5 | seq 12.
constexpr std::uint64_t twitter_id(std::uint64_t ticks, std::uint64_t dc, std::uint64_t w,
                                   std::uint64_t seq) {
  return ticks << 22 | dc << 17 | w << 12 | seq;
}
/// CosId: ts 41 | worker 10 | seq 12.
constexpr std::uint64_t cosid_id(std::uint64_t ticks, std::uint64_t w, std::uint64_t seq) {
  return ticks << 22 | w << 12 | seq;
}
/// seed_gene: ts 41 | dc 5 | worker 5 | seq 7 | gene 5.
constexpr std::uint64_t seed_gene_id(std::uint64_t ticks, std::uint64_t dc, std::uint64_t w,
                                     std::uint64_t seq, std::uint64_t gene) {
  return ticks << 22 | dc << 17 | w << 12 | seq << 5 | gene;
}

/// A monotonic clock whose time the test sets; `now()` is static, as `steady_clock`'s is.
struct fake_monotonic {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = nanoseconds;
  using time_point = std::chrono::time_point<fake_monotonic, duration>;
  static constexpr bool is_steady = true;
  static inline std::atomic<std::int64_t> ns{0};
  static time_point now() noexcept { return time_point{duration{ns.load()}}; }
  static void advance(duration d) noexcept { ns.fetch_add(d.count()); }
  static void reset(duration d = duration{123'456'789}) noexcept { ns.store(d.count()); }
};
using fake_tick_clock = flakeid::basic_tick_clock<fake_monotonic>;

/// Has `threads` threads draw `per_thread` IDs each with `next()` at once: each thread's IDs, in
/// the order it drew them.
template <class Next>
std::vector<std::vector<std::uint64_t>> drawn_in_threads(std::size_t threads,
                                                         std::size_t per_thread, Next next) {
  std::vector<std::vector<std::uint64_t>> out(threads);
  std::vector<std::thread> pool;
  for (auto& v : out) {
    pool.emplace_back([&next, &v, per_thread] {
      v.reserve(per_thread);
      for (std::size_t i = 0; i < per_thread; ++i) v.push_back(next());
    });
  }
  for (auto& t : pool) t.join();
  return out;
}

// ---- rigs: one generator and its clock ---------------------------------------------------------

/// A generator on a manual clock: waits advance the clock, and the clock can step back.
template <class Gen, std::uint64_t Dc, std::uint64_t W>
struct manual_rig {
  static constexpr bool manual = true;
  flakeid::manual_clock clock;
  Gen gen;
  explicit manual_rig(ms_time t = start_time)
      : clock(t), gen(flakeid::datacenter_id{Dc}, flakeid::worker_id{W}, clock) {}
  void advance(milliseconds d) { clock.advance(d); }
};

/// A tick generator on a tick clock counting with `fake_monotonic` from `t`. It cannot step
/// back, and a wait on it would never end (it sleeps for real), so tests never exhaust it.
template <class Policies>
struct tick_rig {
  static constexpr bool manual = false;
  fake_tick_clock clock;
  flakeid::basic_snowflake<flakeid::layouts::twitter, fake_tick_clock, Policies> gen;
  explicit tick_rig(ms_time t = start_time)
      : clock((fake_monotonic::reset(), t)),
        gen(flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock) {}
  void advance(milliseconds d) { fake_monotonic::advance(d); }
};

// ---- the generators under test, one case each ---------------------------------------------------

/// A case of a plain generator on the twitter layout, datacenter 1 and worker 7, that throws on
/// any step back; the other cases change what differs.
template <class Rig>
struct plain_case {
  using rig = Rig;
  static constexpr auto& layout = flakeid::layouts::twitter;
  static std::uint64_t mint(rig& r) { return r.gen.next_id(); }
  static void fill(rig& r, std::span<std::uint64_t> out) { r.gen.next_ids(out); }
  static constexpr std::uint64_t first_seq = 0;
  static constexpr std::int64_t backwards_wait_ms = 0;  // throws on any step back
  static constexpr std::uint64_t next_start(std::uint64_t) { return 0; }
  static constexpr std::uint64_t id(std::int64_t unix_ms, std::uint64_t seq) {
    return twitter_id(static_cast<std::uint64_t>(unix_ms - twitter_epoch), 1, 7, seq);
  }
};

template <class Gen>
struct classic_like : plain_case<manual_rig<Gen, 1, 7>> {};
struct classic_case
    : classic_like<flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>> {};
struct classic_st_case
    : classic_like<
          flakeid::classic_snowflake_st<flakeid::layouts::twitter, flakeid::manual_clock>> {};

template <class Gen>
struct gene_like : plain_case<manual_rig<Gen, 1, 7>> {
  using rig = manual_rig<Gen, 1, 7>;
  static constexpr auto& layout = flakeid::layouts::seed_gene;
  static constexpr std::uint64_t key = 1000045;  // gene 1000045 % 32 == 13
  static std::uint64_t mint(rig& r) { return r.gen.next_id(key); }
  static void fill(rig& r, std::span<std::uint64_t> out) { r.gen.next_ids(out, key); }
  static constexpr std::uint64_t id(std::int64_t unix_ms, std::uint64_t seq) {
    return seed_gene_id(static_cast<std::uint64_t>(unix_ms - seed_gene_epoch), 1, 7, seq, 13);
  }
};
struct gene_case
    : gene_like<flakeid::gene_snowflake<flakeid::layouts::seed_gene, flakeid::manual_clock>> {};
struct gene_st_case
    : gene_like<flakeid::gene_snowflake_st<flakeid::layouts::seed_gene, flakeid::manual_clock>> {};

template <class Gen>
struct cosid_like {
  using rig = manual_rig<Gen, 0, 7>;
  static constexpr auto& layout = flakeid::layouts::cosid;
  static std::uint64_t mint(rig& r) { return r.gen.next_id(); }
  static void fill(rig& r, std::span<std::uint64_t> out) { r.gen.next_ids(out); }
  static constexpr std::uint64_t first_seq = 1;
  static constexpr std::int64_t backwards_wait_ms = 500;  // waits up to 500 ms
  static constexpr std::uint64_t next_start(std::uint64_t prev) {
    return prev >= 2047 ? 1 : prev + 1;
  }
  static constexpr std::uint64_t id(std::int64_t unix_ms, std::uint64_t seq) {
    return cosid_id(static_cast<std::uint64_t>(unix_ms - cosid_epoch), 7, seq);
  }
};
struct cosid_case
    : cosid_like<flakeid::cosid_snowflake<flakeid::layouts::cosid, flakeid::manual_clock>> {};
struct cosid_st_case
    : cosid_like<flakeid::cosid_snowflake_st<flakeid::layouts::cosid, flakeid::manual_clock>> {};

/// The tick generators, with their policies, on a fake monotonic clock.
template <class Gen>
struct tick_like : plain_case<tick_rig<typename Gen::policies_type>> {};
struct tick_case : tick_like<flakeid::tick_snowflake<>> {};
struct tick_st_case : tick_like<flakeid::tick_snowflake_st<>> {};

/// `g.next_id()` refuses with a `clock_backwards_error` whose step is `step` (checked); returns
/// its message ("" when nothing was thrown, which fails the test).
template <class Gen>
std::string expect_step_back(Gen& g, milliseconds step) {
  try {
    (void)g.next_id();
  } catch (const flakeid::clock_backwards_error& e) {
    EXPECT_EQ(e.step(), step);
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return "";
}

/// No ID occurs twice in `ids`.
inline void expect_no_duplicate_id(std::vector<std::uint64_t> ids) {
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end())
      << "a duplicate ID among " << ids.size();
}

}  // namespace flakeid_test
