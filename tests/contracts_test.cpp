// Compile-time contracts of the generators: which members are noexcept, which types the
// concepts accept and which they reject.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <type_traits>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace flakeid_test;

namespace {

// ---- clocks ----------------------------------------------------------------------------------

static_assert(flakeid::clock_source<flakeid::wall_clock>);
static_assert(flakeid::clock_source<flakeid::tick_clock>);
static_assert(flakeid::clock_source<flakeid::manual_clock>);
static_assert(flakeid::clock_source<fake_tick_clock>);
static_assert(flakeid::clock_source<std::chrono::system_clock>);

struct not_unix_time {  // a steady clock's time_point is not Unix time
  using rep = std::int64_t;
  using period = std::nano;
  using duration = nanoseconds;
  using time_point = steady_clock::time_point;
  static constexpr bool is_steady = true;
  static time_point now() noexcept { return steady_clock::now(); }
};
struct no_now {  // a clock's types in Unix milliseconds, but no now()
  using rep = std::int64_t;
  using period = std::milli;
  using duration = milliseconds;
  using time_point = sys_time<milliseconds>;
  static constexpr bool is_steady = false;
};
struct wrong_now : no_now {  // now() of another time_point
  static sys_seconds now() noexcept { return {}; }
};
static_assert(!flakeid::clock_source<std::chrono::steady_clock>);
static_assert(!flakeid::clock_source<not_unix_time>);
static_assert(!flakeid::clock_source<no_now>);
static_assert(!flakeid::clock_source<wrong_now>);
static_assert(!flakeid::clock_source<int>);

static_assert(noexcept(flakeid::wall_clock::now()));
static_assert(noexcept(std::declval<const flakeid::manual_clock&>().now()));
static_assert(noexcept(std::declval<flakeid::manual_clock&>().step_back(
    std::declval<flakeid::manual_clock::duration>())));
static_assert(noexcept(std::declval<const flakeid::tick_clock&>().now()));
static_assert(noexcept(std::declval<const flakeid::tick_clock&>().drift()));
static_assert(
    !noexcept(std::declval<const flakeid::manual_clock&>().sleep_for(std::declval<nanoseconds>())));

// ---- worker-id sources -------------------------------------------------------------------------

static_assert(flakeid::worker_id_source<flakeid::fixed_node>);
static_assert(flakeid::worker_id_source<flakeid::env_worker_id>);
static_assert(flakeid::worker_id_source<flakeid::statefulset_ordinal>);
static_assert(flakeid::worker_id_source<flakeid::host_pid_guess>);
static_assert(!flakeid::worker_id_source<flakeid::worker_id>);
static_assert(!flakeid::worker_id_source<flakeid::node_id>);
static_assert(!flakeid::worker_id_source<int>);
// Strong types: a worker id is not a datacenter id, and neither comes from a bare integer.
static_assert(!std::is_convertible_v<flakeid::worker_id, flakeid::datacenter_id>);
static_assert(!std::is_convertible_v<std::uint64_t, flakeid::worker_id>);

// ---- policies ----------------------------------------------------------------------------------

static_assert(flakeid::sequence_start_policy<flakeid::zero_start>);
static_assert(flakeid::sequence_start_policy<flakeid::cosid_threshold<>>);
static_assert(flakeid::sequence_start_policy<flakeid::cosid_threshold<2>>);
static_assert(flakeid::sequence_start_policy<flakeid::vibrating_start<>>);
static_assert(flakeid::sequence_start_policy<flakeid::random_start<>>);
static_assert(flakeid::sequence_start_policy<flakeid::never_reset>);
struct throwing_start {
  std::uint64_t next(std::uint64_t, std::uint64_t) { return 0; }
};
struct int_start {
  int next(std::uint64_t, std::uint64_t) noexcept { return 0; }
};
static_assert(!flakeid::sequence_start_policy<throwing_start>);
static_assert(!flakeid::sequence_start_policy<int_start>);
static_assert(!flakeid::sequence_start_policy<flakeid::wait_next_tick>);

static_assert(flakeid::exhausted_policy<flakeid::wait_next_tick>);
static_assert(flakeid::exhausted_policy<flakeid::borrow_ticks<5>>);
struct negative_lead {
  static constexpr std::int64_t max_ahead_ms = -1;
};
static_assert(!flakeid::exhausted_policy<negative_lead>);
static_assert(!flakeid::exhausted_policy<flakeid::zero_start>);

static_assert(flakeid::backwards_policy<flakeid::throw_on_backwards>);
static_assert(flakeid::backwards_policy<flakeid::wait_on_backwards<5>>);
static_assert(flakeid::backwards_policy<flakeid::hold_on_backwards<10>>);
static_assert(!flakeid::backwards_policy<flakeid::borrow_ticks<5>>);
static_assert(!flakeid::backwards_policy<int>);

static_assert(flakeid::threading_policy<flakeid::multi_threaded>);
static_assert(flakeid::threading_policy<flakeid::single_threaded>);
static_assert(!flakeid::threading_policy<flakeid::zero_start>);

static_assert(flakeid::policy_set<flakeid::classic_policies>);
static_assert(flakeid::policy_set<flakeid::cosid_policies>);
static_assert(!flakeid::policy_set<flakeid::zero_start>);

static_assert(noexcept(std::declval<flakeid::zero_start&>().next(0, 0)));
static_assert(noexcept(std::declval<flakeid::random_start<>&>().next(0, 0)));

// ---- generators ----------------------------------------------------------------------------------

template <class G>
constexpr bool check_generator() {
  using g_ref = const G&;
  static_assert(noexcept(G::layout()));
  static_assert(noexcept(std::declval<g_ref>().node()));
  static_assert(noexcept(std::declval<g_ref>().node_source()));
  static_assert(noexcept(std::declval<g_ref>().clock()));
  static_assert(noexcept(std::declval<g_ref>().last_tick_time()));
  // Minting may throw (time range, clock steps, lease): never noexcept.
  if constexpr (G::has_gene) {
    static_assert(!noexcept(std::declval<G&>().next_id(1)));
    static_assert(!noexcept(std::declval<G&>().next_ids(std::span<std::uint64_t>{}, 1)));
  } else {
    static_assert(!noexcept(std::declval<G&>().next_id()));
    static_assert(!noexcept(std::declval<G&>().next_ids(std::span<std::uint64_t>{})));
  }
  static_assert(!std::is_copy_constructible_v<G> && !std::is_copy_assignable_v<G>);
  return true;
}
static_assert(check_generator<flakeid::classic_snowflake<>>());
static_assert(check_generator<flakeid::classic_snowflake_st<>>());
static_assert(check_generator<flakeid::gene_snowflake<>>());
static_assert(check_generator<flakeid::gene_snowflake_st<>>());
static_assert(check_generator<flakeid::cosid_snowflake<>>());
static_assert(check_generator<flakeid::cosid_snowflake_st<>>());
static_assert(check_generator<flakeid::tick_snowflake<>>());
static_assert(check_generator<flakeid::tick_snowflake_st<>>());

// Gene generators mint with a key; the others without (calling the other form is a
// static_assert naming the fix: tests/compile_fail/gene_next_id_without_key.cpp and
// classic_next_id_with_key.cpp).
static_assert(flakeid::gene_snowflake<>::has_gene && !flakeid::classic_snowflake<>::has_gene &&
              !flakeid::cosid_snowflake<>::has_gene && !flakeid::tick_snowflake<>::has_gene);

static_assert(flakeid::classic_snowflake<>::thread_safe &&
              !flakeid::classic_snowflake_st<>::thread_safe);
static_assert(flakeid::gene_snowflake<>::gene_count == 32 &&
              flakeid::classic_snowflake<>::gene_count == 1);
static_assert(flakeid::cosid_snowflake<>::layout() == flakeid::layouts::cosid);
static_assert(flakeid::tick_snowflake<>::layout() == flakeid::layouts::twitter);
static_assert(std::is_same_v<flakeid::tick_snowflake<>::clock_type, flakeid::tick_clock>);

// Default ids per generator: the CosId threshold is 2^(bits-1) - 1.
static_assert(flakeid::cosid_threshold<>{}.next(2046, 4095) == 2047);
static_assert(flakeid::cosid_threshold<>{}.next(2047, 4095) == 1);
static_assert(flakeid::cosid_threshold<>{}.next(511, 1023) == 1);  // 10 bits: threshold 511
static_assert(flakeid::cosid_threshold<>{}.next(510, 1023) == 511);
// The largest threshold a 12-bit sequence allows: at the maximum, the reset gives 1.
static_assert(flakeid::cosid_threshold<4095>{}.next(4095, 4095) == 1);
static_assert(flakeid::cosid_threshold<0>{}.next(0, 4095) == 1);  // CosId's 0: every tick
static_assert(flakeid::cosid_threshold<0>{}.next(7, 4095) == 1);
static_assert(flakeid::cosid_threshold<1>{}.next(0, 4095) == 1);
static_assert(flakeid::cosid_threshold<1>{}.next(1, 4095) == 1);
static_assert(flakeid::cosid_threshold<4095>{}.next(4094, 4095) == 4095);

TEST(contracts_test, hold_at_compile_time) { SUCCEED(); }

}  // namespace
