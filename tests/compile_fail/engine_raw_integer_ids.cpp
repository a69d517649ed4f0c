// expect: give ids as flakeid::worker_id\{w\}, or flakeid::datacenter_id\{d\} then flakeid::worker_id\{w\}
// Two raw integers could be (worker, datacenter) or (datacenter, worker): rejected.
#include <flakeid/snowflake.hpp>

// Control: strong types build a generator.
[[maybe_unused]] flakeid::classic_snowflake<> control{flakeid::datacenter_id{3},
                                                      flakeid::worker_id{9}};

[[maybe_unused]] flakeid::classic_snowflake<> broken{9, 3};
