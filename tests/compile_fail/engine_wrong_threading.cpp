// expect: threading must be flakeid::multi_threaded, flakeid::thread_blocks<B> or
// A threading policy that is not one (here a mutex type) is rejected.
#include <flakeid/snowflake.hpp>
#include <mutex>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::wall_clock,
                         flakeid::policies<flakeid::zero_start, flakeid::wait_next_tick,
                                           flakeid::throw_on_backwards, std::mutex>>
    gen;
