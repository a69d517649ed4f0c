// expect: a generator's gene field must be the lowest field of the layout
// A gene above the sequence would break id % n == key % n, so it is rejected.
#include <flakeid/snowflake.hpp>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

using namespace flakeid::fields;
constexpr flakeid::layout gene_high{{timestamp(41), gene(5), worker(5), sequence(12)}, 0};
flakeid::gene_snowflake<gene_high> gen;
