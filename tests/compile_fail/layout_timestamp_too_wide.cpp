// expect: layout_timestamp_range_must_fit_64_bit_unix_ms
#include <flakeid/layout.hpp>

// Control: a valid layout compiles, so the failure comes from the layout under test.
static_assert(flakeid::layout{{flakeid::fields::timestamp(41), flakeid::fields::worker(10),
                               flakeid::fields::sequence(12)},
                              0}
                  .total_bits == 63);

// 2^60 seconds do not fit a signed 64-bit count of Unix milliseconds.
using namespace flakeid::fields;
constexpr flakeid::layout bad{{timestamp(60), sequence(3)}, 0, std::chrono::seconds{1}};
