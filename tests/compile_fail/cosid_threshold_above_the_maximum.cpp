// expect: cosid_threshold<T>: T is above the layout's largest sequence
#include <flakeid/snowflake.hpp>

// Control: the largest threshold a 12-bit sequence allows compiles.
[[maybe_unused]] flakeid::basic_snowflake<flakeid::layouts::cosid, flakeid::wall_clock,
                                          flakeid::policies<flakeid::cosid_threshold<4095>>>*
    control = nullptr;
static_assert(sizeof(flakeid::basic_snowflake<flakeid::layouts::cosid, flakeid::wall_clock,
                                              flakeid::policies<flakeid::cosid_threshold<4095>>>) >
              0);

// 5000 is above 4095: CosId's sequence would wrap where this generator's does not.
static_assert(sizeof(flakeid::basic_snowflake<flakeid::layouts::cosid, flakeid::wall_clock,
                                              flakeid::policies<flakeid::cosid_threshold<5000>>>) >
              0);
