// expect: threading must be flakeid::multi_threaded or flakeid::single_threaded
// A threading policy that is not one (here a mutex type) is rejected.
#include <flakeid/snowflake.hpp>
#include <mutex>

flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::wall_clock,
                         flakeid::policies<flakeid::zero_start, flakeid::wait_next_tick,
                                           flakeid::throw_on_backwards, std::mutex>>
    gen;
