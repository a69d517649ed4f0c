// expect: on_backwards must have 'static constexpr backwards_action action'
// A backwards policy with a bound but no action is rejected.
#include <cstdint>
#include <flakeid/snowflake.hpp>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

struct tolerate_5ms {
  static constexpr std::int64_t max_step_ms = 5;
};

flakeid::basic_snowflake<
    flakeid::layouts::twitter, flakeid::wall_clock,
    flakeid::policies<flakeid::zero_start, flakeid::wait_next_tick, tolerate_5ms>>
    gen;
