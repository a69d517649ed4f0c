// The clock-fault matrix: every generator (classic on 1 ms and 10 ms ticks, gene, cosid) under
// every clock-backwards policy, with steps back and forward at random points of long runs, a
// clock that stands still, and steps back at a tick boundary and with the sequence exhausted.
//
// Every case asserts the three promises: no ID twice, the generator's order (strictly
// increasing, per gene on the gene generator), and the policy's documented outcome: the
// exception carries the step; a wait never lasts past its bound; a hold never counts past it.
#include <gtest/gtest.h>
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace std::chrono_literals;
using flakeid::field_kind;
using flakeid_test::expect_no_duplicate_id;
using flakeid_test::expect_step_back;

namespace {

// ---- the matrix ----------------------------------------------------------------------------

template <flakeid::layout L, class Start, bool Gene>
struct row {
  static constexpr flakeid::layout layout = L;
  template <class Backwards>
  using policies = flakeid::policies<Start, flakeid::wait_next_tick, Backwards>;
  template <class Backwards>
  using generator = flakeid::basic_snowflake<L, flakeid::manual_clock, policies<Backwards>>;
};

using classic_row = row<flakeid::layouts::twitter, flakeid::zero_start, false>;
using classic_10ms_row = row<flakeid::layouts::sonyflake, flakeid::zero_start, false>;
using gene_row = row<flakeid::layouts::seed_gene, flakeid::zero_start, true>;
using cosid_row = row<flakeid::layouts::cosid, flakeid::cosid_threshold<>, false>;

constexpr std::int64_t bound_ms = 10;  // the bound of the wait and hold policies under test
using throw_policy = flakeid::throw_on_backwards;
using wait_policy = flakeid::wait_on_backwards<bound_ms>;
using hold_policy = flakeid::hold_on_backwards<bound_ms>;

template <class Row, class Backwards>
struct fault_case {
  using generator = typename Row::template generator<Backwards>;
  using backwards = Backwards;
};

using fault_cases = ::testing::Types<
    fault_case<classic_row, throw_policy>, fault_case<classic_row, wait_policy>,
    fault_case<classic_row, hold_policy>, fault_case<classic_10ms_row, throw_policy>,
    fault_case<classic_10ms_row, wait_policy>, fault_case<classic_10ms_row, hold_policy>,
    fault_case<gene_row, throw_policy>, fault_case<gene_row, wait_policy>,
    fault_case<gene_row, hold_policy>, fault_case<cosid_row, throw_policy>,
    fault_case<cosid_row, wait_policy>, fault_case<cosid_row, hold_policy>>;

// ---- the harness -----------------------------------------------------------------------------

constexpr auto start_time = sys_days{2025y / June / 1} + 12h;
constexpr std::uint64_t node = 3;

/// Drives one generator on a manual clock and checks every ID it mints.
template <class Case>
class harness {
 public:
  using generator = typename Case::generator;
  using backwards = typename Case::backwards;
  static constexpr flakeid::layout L = generator::layout_value;
  static constexpr std::size_t genes = generator::gene_count;
  static constexpr std::int64_t tick_ms = L.tick_ms;
  static constexpr std::uint64_t seq_max = L.max_value(field_kind::sequence);
  static constexpr flakeid::backwards_action action = backwards::action;

  flakeid::manual_clock clock{time_point_cast<milliseconds>(start_time)};
  generator gen{flakeid::worker_id{node}, clock};
  std::vector<std::uint64_t> ids;
  std::array<std::uint64_t, genes> last{};  // last ID per gene, 0 before the first
  std::uint64_t key = 0;                    // the key of the last call
  std::uint64_t policy_events = 0;          // times the backwards policy acted

  /// Mints one ID for `k` and checks it; returns it.
  std::uint64_t mint(std::uint64_t k) {
    key = k;
    std::uint64_t id = 0;
    if constexpr (generator::has_gene) {
      id = gen.next_id(k);
    } else {
      id = gen.next_id();
    }
    check(id);
    return id;
  }

  void check(std::uint64_t id) {
    const std::size_t g = static_cast<std::size_t>(L.gene_of(id));
    if (!L.is_valid(id)) ADD_FAILURE() << "ID " << id << " sets a reserved bit";
    if (L.extract(id, field_kind::worker) != node) ADD_FAILURE() << "ID " << id << ": wrong worker";
    if (g != (key & L.max_value(field_kind::gene))) ADD_FAILURE() << "ID " << id << ": wrong gene";
    if (id <= last[g])
      ADD_FAILURE() << "order broken for gene " << g << ": " << id << " after " << last[g];
    // No policy lets the IDs' time run ahead of the clock, except a hold within its bound.
    const auto ahead = L.decompose(id).timestamp - clock.now();
    const milliseconds allowed{action == flakeid::backwards_action::hold ? bound_ms : 0};
    if (ahead > allowed)
      ADD_FAILURE() << "ID " << id << " is " << ahead.count() << " ms ahead of the clock";
    last[g] = id;
    ids.push_back(id);
  }

  /// How far (ms) the clock now reads behind the start of the last tick used for `k`'s gene.
  [[nodiscard]] std::int64_t behind_ms(std::uint64_t k) const {
    const std::uint64_t prev = last[static_cast<std::size_t>(k & L.max_value(field_kind::gene))];
    if (prev == 0) return 0;
    return (L.decompose(prev).timestamp - clock.now()).count();
  }
  [[nodiscard]] bool exhausted(std::uint64_t k) const {
    const std::uint64_t prev = last[static_cast<std::size_t>(k & L.max_value(field_kind::gene))];
    return prev != 0 && L.extract(prev, field_kind::sequence) == seq_max;
  }

  /// Steps the clock by `step` (negative: back), then mints for the last key and asserts the
  /// policy's outcome. After a throw it sets the clock back to where it was, as an application
  /// waiting for the clock would, and mints again.
  void fault(milliseconds step) {
    const auto before = clock.now();
    if (step < 0ms) {
      clock.step_back(-step);
    } else {
      clock.advance(step);
    }
    const std::int64_t behind = behind_ms(key);
    const bool was_exhausted = exhausted(key);
    const std::uint64_t prev = last[static_cast<std::size_t>(key & L.max_value(field_kind::gene))];
    const std::uint64_t sleeps = clock.sleeps();
    const milliseconds slept = clock.slept();
    const std::int64_t extra = was_exhausted ? tick_ms : 0;  // the wait for the next tick

    if (behind <= 0) {  // not behind the last tick: an ordinary call
      const std::uint64_t id = mint(key);
      if (!was_exhausted) {
        EXPECT_EQ(clock.sleeps(), sleeps) << "a call with the clock ahead waited";
        EXPECT_EQ(L.decompose(id).timestamp, floor_tick(clock.now()));
      }
      return;
    }
    ++policy_events;
    const bool tolerated = action != flakeid::backwards_action::fail && behind <= bound_ms;
    if (!tolerated) {
      try {
        (void)mint(key);
        ADD_FAILURE() << "a step back of " << behind << " ms did not throw";
      } catch (const flakeid::clock_backwards_error& e) {
        EXPECT_EQ(e.step(), milliseconds{behind}) << e.what();
      }
      EXPECT_EQ(clock.sleeps(), sleeps) << "waited before throwing for a step past the bound";
      clock.set(before);
      (void)mint(key);
      return;
    }
    const std::uint64_t id = mint(key);
    const std::int64_t waited = (clock.slept() - slept).count();
    if (action == flakeid::backwards_action::wait) {
      EXPECT_GE(waited, behind) << "returned before the clock caught up";
      EXPECT_LE(waited, bound_ms + extra) << "a wait lasted past its bound";
      EXPECT_LE(L.decompose(id).timestamp, clock.now());
    } else {  // hold: count on in the last tick without waiting, unless it is used up
      if (was_exhausted) {
        EXPECT_LE(waited, behind + extra);
        EXPECT_EQ(L.extract(id, field_kind::timestamp), L.extract(prev, field_kind::timestamp) + 1);
      } else {
        EXPECT_EQ(clock.sleeps(), sleeps) << "a hold waited";
        EXPECT_EQ(L.extract(id, field_kind::timestamp), L.extract(prev, field_kind::timestamp));
      }
    }
  }

  [[nodiscard]] static flakeid::layout::time_point floor_tick(flakeid::layout::time_point t) {
    return L.time_at(L.ticks_at(t));
  }

  /// Mints for `k` until its gene's sequence is used up in the current tick.
  void exhaust(std::uint64_t k) {
    for (std::uint64_t n = 0; n <= seq_max + 1 && !exhausted(k); ++n) (void)mint(k);
    ASSERT_TRUE(exhausted(k));
  }

  void expect_unique() { expect_no_duplicate_id(ids); }
};

template <class Case>
class fault_matrix_test : public ::testing::Test {};
TYPED_TEST_SUITE(fault_matrix_test, fault_cases);

constexpr std::size_t run_length = 1'000'000;
constexpr int faults_per_run = 16;

/// A run of a million IDs with `faults_per_run` steps of `step` at random points; the clock
/// otherwise moves on by a millisecond now and then, and waits move it when a tick is used up.
template <class Case>
void run_with_steps(milliseconds step, std::uint64_t seed) {
  harness<Case> h;
  h.ids.reserve(run_length + 2 * faults_per_run);
  std::mt19937_64 rng{seed};
  std::vector<std::size_t> at(faults_per_run);
  for (auto& a : at) a = 1 + rng() % (run_length - 1);
  std::sort(at.begin(), at.end());
  std::size_t next_fault = 0;
  while (h.ids.size() < run_length) {
    if (rng() % 512 == 0) h.clock.advance(1ms);
    (void)h.mint(rng() % 64);
    while (next_fault < at.size() && h.ids.size() >= at[next_fault]) {
      h.fault(step);
      ++next_fault;
    }
    if (::testing::Test::HasFailure()) break;
  }
  if (step < 0ms) {
    EXPECT_GT(h.policy_events, 0U);
  }
  h.expect_unique();
}

TYPED_TEST(fault_matrix_test, step_back_1ms_in_a_million_ids) {
  run_with_steps<TypeParam>(-1ms, 1);
}
TYPED_TEST(fault_matrix_test, step_back_10ms_in_a_million_ids) {
  run_with_steps<TypeParam>(-10ms, 2);
}
TYPED_TEST(fault_matrix_test, step_back_1s_in_a_million_ids) {
  run_with_steps<TypeParam>(-1000ms, 3);
}
TYPED_TEST(fault_matrix_test, step_back_1h_in_a_million_ids) {
  run_with_steps<TypeParam>(-milliseconds{1h}, 4);
}
TYPED_TEST(fault_matrix_test, step_forward_1h_in_a_million_ids) {
  run_with_steps<TypeParam>(milliseconds{1h}, 5);
}

// Steps back of 1 ms, exactly the bound, and one past it, right after the generator entered a
// new tick (its first ID there), from the tick's first millisecond.
TYPED_TEST(fault_matrix_test, step_back_at_a_tick_boundary) {
  for (const milliseconds step : {1ms, milliseconds{bound_ms}, milliseconds{bound_ms + 1}}) {
    harness<TypeParam> h;
    (void)h.mint(5);
    const auto now = h.clock.now();
    const auto next_tick = h.floor_tick(now) + h.L.tick();
    h.clock.advance(next_tick - now);
    (void)h.mint(5);
    ASSERT_EQ(h.L.decompose(h.ids.back()).timestamp, next_tick);
    h.fault(-step);
    EXPECT_EQ(h.policy_events, 1U) << "step " << step.count() << " ms";
    for (int i = 0; i < 10'000; ++i) (void)h.mint(5);
    h.expect_unique();
  }
}

// Within a 10 ms tick a step back that stays in the tick is no step back for the generator.
TYPED_TEST(fault_matrix_test, step_back_within_a_tick) {
  harness<TypeParam> h;
  const auto now = h.clock.now();
  h.clock.advance(h.floor_tick(now) + h.L.tick() / 2 - now);
  (void)h.mint(5);
  h.fault(-(h.L.tick() / 2));  // 0 on 1 ms ticks, where every millisecond is a boundary
  EXPECT_EQ(h.policy_events, 0U);
  h.expect_unique();
}

// The step back comes exactly when the tick's sequence is used up: the policy acts first, then
// the generator waits for the next tick; neither may repeat an ID.
TYPED_TEST(fault_matrix_test, step_back_when_the_sequence_is_exhausted) {
  for (const milliseconds step :
       {1ms, milliseconds{bound_ms}, milliseconds{bound_ms + 1}, 1000ms}) {
    harness<TypeParam> h;
    (void)h.mint(9);
    const auto now = h.clock.now();
    h.clock.advance(h.floor_tick(now) + h.L.tick() - now);  // a fresh tick on a clock boundary
    h.exhaust(9);
    h.fault(-step);
    EXPECT_EQ(h.policy_events, 1U) << "step " << step.count() << " ms";
    for (int i = 0; i < 10'000; ++i) (void)h.mint(9);
    h.expect_unique();
  }
}

/// The CPU time `cpu_clock` (a thread's, from `pthread_getcpuclockid`) has counted, in seconds.
[[nodiscard]] double cpu_seconds(clockid_t cpu_clock) {
  timespec ts{};
  clock_gettime(cpu_clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The clock stands still for a second of real time: the generator uses up its tick, then waits
// (sleeping, not spinning) until the clock moves, and goes on in the next tick. The second is
// counted from the generator's first wait, however long using up the tick took; the CPU time
// the minting thread spends in that second is measured from the other thread.
TYPED_TEST(fault_matrix_test, clock_stands_still_for_a_second) {
  harness<TypeParam> h;
  h.clock.auto_advance(false);
  (void)h.mint(2);
  const auto frozen = h.floor_tick(h.clock.now());
  clockid_t minter_cpu{};
  ASSERT_EQ(pthread_getcpuclockid(pthread_self(), &minter_cpu), 0);
  std::atomic<bool> moved{false};
  steady_clock::time_point t0{};
  double cpu0 = 0;
  std::thread mover([&] {
    // The bound only ends a broken run (no wait at all fails below).
    for (const auto end = steady_clock::now() + 60s;
         h.clock.sleeps() == 0 && steady_clock::now() < end;)
      std::this_thread::sleep_for(1ms);
    t0 = steady_clock::now();
    cpu0 = cpu_seconds(minter_cpu);
    std::this_thread::sleep_for(1s);
    moved = true;
    h.clock.advance(h.L.tick());
  });
  std::uint64_t in_frozen_tick = 1;
  for (;;) {
    const std::uint64_t id = h.mint(2);
    if (h.L.decompose(id).timestamp != frozen) {
      EXPECT_TRUE(moved.load()) << "moved to another tick while the clock stood still";
      EXPECT_EQ(h.L.decompose(id).timestamp, frozen + h.L.tick());
      break;
    }
    ++in_frozen_tick;
    ASSERT_LE(in_frozen_tick, h.L.ids_per_tick());
  }
  const auto t1 = steady_clock::now();
  const double cpu1 = cpu_seconds(minter_cpu);
  mover.join();
  const double wall = duration<double>(t1 - t0).count();
  const double cpu = cpu1 - cpu0;
  EXPECT_GE(wall, 0.9);
  EXPECT_LT(cpu, 0.5 * wall) << "the wait burned a core";
  EXPECT_GT(h.clock.sleeps(), 0U);
  h.expect_unique();
}

// ---- regressions -------------------------------------------------------------------------------

// A step back of 1 ms across the boundary of a 1 s tick is a step of 1 ms, not of a whole tick:
// CosId's policy (wait up to 500 ms) waits for it instead of throwing.
TEST(fault_matrix_test, cosid_seconds_waits_out_a_1ms_step_across_a_tick) {
  flakeid::manual_clock clock{time_point_cast<milliseconds>(sys_days{2025y / June / 1})};
  flakeid::cosid_snowflake<flakeid::layouts::cosid_seconds, flakeid::manual_clock> gen{
      flakeid::worker_id{1}, clock};
  const std::uint64_t a = gen.next_id();
  clock.step_back(1ms);
  const std::uint64_t b = gen.next_id();
  EXPECT_GT(b, a);
  EXPECT_EQ(clock.slept(), 1ms);
}

TEST(fault_matrix_test, the_exception_carries_the_step_in_milliseconds) {
  flakeid::manual_clock clock{time_point_cast<milliseconds>(sys_days{2025y / June / 1})};
  flakeid::classic_snowflake<flakeid::layouts::sonyflake, flakeid::manual_clock> gen{
      flakeid::worker_id{1}, clock};
  (void)gen.next_id();
  clock.step_back(3ms);
  EXPECT_EQ(expect_step_back(gen, 3ms),
            "flakeid: clock moved back by 3 ms; the policy tolerates no step back");
}

}  // namespace
