// expect: layout_needs_between_2_and_6_fields
#include <flakeid/layout.hpp>

// Control: a valid layout compiles, so the failure comes from the layout under test.
static_assert(flakeid::layout{{flakeid::fields::timestamp(41), flakeid::fields::worker(10),
                               flakeid::fields::sequence(12)},
                              0}
                  .total_bits == 63);

// Seven fields (widths add up to 63): at most one of each of the six kinds fits.
using namespace flakeid::fields;
constexpr flakeid::layout bad{
    {timestamp(41), datacenter(5), worker(5), sequence(6), gene(3), reserved(2), reserved(1)}, 0};
