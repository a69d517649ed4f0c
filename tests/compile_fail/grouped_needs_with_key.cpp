// expect: the distributor needs 'Distributor with_key
#include <flakeid/segment.hpp>
#include <flakeid/store/memory.hpp>

#include <cstdint>
#include <string_view>

// Control: the library's own store meets the concept, so the failure comes from the store
// under test.
static_assert(flakeid::keyed_segment_distributor<flakeid::memory_distributor>);

// A grouped counter opens one key per period: a distributor without with_key() cannot do that.
struct one_key_store {
  std::uint64_t next_max_id(std::uint64_t step) { return step; }
  std::string_view store_name() const { return "one"; }
  std::string_view key() const { return "k"; }
};
flakeid::grouped_segment_generator<one_key_store> gen{one_key_store{}, flakeid::group_period::day};
