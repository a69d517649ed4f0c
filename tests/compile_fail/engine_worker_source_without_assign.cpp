// expect: must model flakeid::worker_id_source
// A worker-id source whose assign() does not take a layout is rejected by the engine.
#include <flakeid/snowflake.hpp>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

struct from_config {
  flakeid::worker_assignment assign() const { return {}; }
};

flakeid::classic_snowflake<> gen{from_config{}};
