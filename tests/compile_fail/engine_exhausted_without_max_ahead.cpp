// expect: on_exhausted must have 'static constexpr std::int64_t max_ahead_ms'
// An exhaustion policy without max_ahead_ms is rejected.
#include <flakeid/snowflake.hpp>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

struct just_wait {};

flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::wall_clock,
                         flakeid::policies<flakeid::zero_start, just_wait>>
    gen;
