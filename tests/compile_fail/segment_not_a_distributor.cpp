// expect: Distributor must model flakeid::segment_distributor
#include <flakeid/segment.hpp>
#include <flakeid/store/memory.hpp>

// Control: the library's own store meets the concept, so the failure comes from the store
// under test.
static_assert(flakeid::keyed_segment_distributor<flakeid::memory_distributor>);

// A type without next_max_id(step), store_name() and key() cannot hand out segments.
struct not_a_store {
  int next_max_id(int) { return 0; }
};
flakeid::segment_generator<not_a_store> gen{not_a_store{}, 10};
