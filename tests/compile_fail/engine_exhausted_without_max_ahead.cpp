// expect: on_exhausted must have 'static constexpr std::int64_t max_ahead_ms'
// An exhaustion policy without max_ahead_ms is rejected.
#include <flakeid/snowflake.hpp>

struct just_wait {};

flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::wall_clock,
                         flakeid::policies<flakeid::zero_start, just_wait>>
    gen;
