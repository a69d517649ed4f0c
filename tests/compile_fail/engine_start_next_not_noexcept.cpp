// expect: sequence_start must have 'std::uint64_t next
// A sequence-start policy whose next() may throw is rejected: the hot path counts on it.
#include <cstdint>
#include <flakeid/snowflake.hpp>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

struct throwing_start {
  std::uint64_t next(std::uint64_t, std::uint64_t) { return 0; }
};

flakeid::basic_snowflake<flakeid::layouts::twitter, flakeid::wall_clock,
                         flakeid::policies<throwing_start>>
    gen;
