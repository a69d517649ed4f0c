// expect: layout_tick_must_be_at_least_1_ms
#include <flakeid/layout.hpp>

// Control: a valid layout compiles, so the failure comes from the layout under test.
static_assert(flakeid::layout{{flakeid::fields::timestamp(41), flakeid::fields::worker(10),
                               flakeid::fields::sequence(12)},
                              0}
                  .total_bits == 63);

// A tick of 0 ms cannot count time.
using namespace flakeid::fields;
constexpr flakeid::layout bad{
    {timestamp(41), worker(10), sequence(12)}, 0, std::chrono::milliseconds{0}};
