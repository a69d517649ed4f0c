// expect: striped_snowflake shares stripes between threads: its policies must be thread-safe
// Stripes are shared by threads; a single-threaded policy set would race on a plain word.
#include <flakeid/striped.hpp>

// Control: the same generator with the thread-safe policies compiles.
static_assert(sizeof(flakeid::striped_snowflake<flakeid::layouts::twitter, flakeid::wall_clock, 2,
                                                flakeid::classic_policies>) > 0);

using single = flakeid::policies<flakeid::zero_start, flakeid::wait_next_tick,
                                 flakeid::throw_on_backwards, flakeid::single_threaded>;
flakeid::striped_snowflake<flakeid::layouts::twitter, flakeid::wall_clock, 2, single> gen;
