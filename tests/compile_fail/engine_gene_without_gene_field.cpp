// expect: this generator's layout has no gene field: call next_id\(\) without a key
// The gene generator on a layout without a gene field has no gene to put a key in.
#include <flakeid/snowflake.hpp>

#include <cstdint>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

flakeid::gene_snowflake<flakeid::layouts::twitter> gen;

[[maybe_unused]] std::uint64_t broken(std::uint64_t user) { return gen.next_id(user); }
