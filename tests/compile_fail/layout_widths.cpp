// expect: layout_widths_must_add_up_to_63_or_64
#include <flakeid/layout.hpp>

// Control: a valid layout compiles, so the failure comes from the layout under test.
static_assert(flakeid::layout{{flakeid::fields::timestamp(41), flakeid::fields::worker(10),
                               flakeid::fields::sequence(12)},
                              0}
                  .total_bits == 63);

using namespace flakeid::fields;
constexpr flakeid::layout bad{{timestamp(41), worker(10), sequence(10)}, 0};
