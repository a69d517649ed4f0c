// expect: the layout's timestamp must be its most significant field
// A layout with the worker above the timestamp would not sort by time: rejected.
#include <flakeid/snowflake.hpp>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

using namespace flakeid::fields;
constexpr flakeid::layout worker_first{{worker(10), timestamp(41), sequence(12)}, 0};
flakeid::classic_snowflake<worker_first> gen;
