// expect: layout_needs_a_sequence_field
#include <flakeid/layout.hpp>

// Control: a valid layout compiles, so the failure comes from the layout under test.
static_assert(flakeid::layout{{flakeid::fields::timestamp(41), flakeid::fields::worker(10),
                               flakeid::fields::sequence(12)},
                              0}
                  .total_bits == 63);

// No sequence field; the widths add up to 63.
using namespace flakeid::fields;
constexpr flakeid::layout bad{{timestamp(41), worker(22)}, 0};
