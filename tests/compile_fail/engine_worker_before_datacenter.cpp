// expect: give ids as flakeid::worker_id\{w\}, or flakeid::datacenter_id\{d\} then flakeid::worker_id\{w\}
// The datacenter id comes first, as in the layout; the other order is rejected, not swapped.
#include <flakeid/snowflake.hpp>

// Control: the datacenter first builds a generator.
[[maybe_unused]] flakeid::classic_snowflake<> control{flakeid::datacenter_id{3},
                                                      flakeid::worker_id{9}};

[[maybe_unused]] flakeid::classic_snowflake<> broken{flakeid::worker_id{9},
                                                     flakeid::datacenter_id{3}};
