// expect: gene_snowflake needs a gene field as the lowest field of the layout
// The gene generator on a layout without a gene field is rejected.
#include <flakeid/snowflake.hpp>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

flakeid::gene_snowflake<flakeid::layouts::twitter> gen;
