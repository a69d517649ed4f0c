// expect: layout_field_width_must_not_be_0
#include <flakeid/layout.hpp>

// Control: a valid layout compiles, so the failure comes from the layout under test.
static_assert(flakeid::layout{{flakeid::fields::timestamp(41), flakeid::fields::worker(10),
                               flakeid::fields::sequence(12)},
                              0}
                  .total_bits == 63);

// A field of width 0 holds nothing; the widths still add up to 63.
using namespace flakeid::fields;
constexpr flakeid::layout bad{{timestamp(41), worker(0), datacenter(10), sequence(12)}, 0};
