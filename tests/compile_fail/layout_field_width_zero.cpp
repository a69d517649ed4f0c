// expect: layout_field_width_must_not_be_0
#include <flakeid/layout.hpp>

// A field of width 0 holds nothing; the widths still add up to 63.
using namespace flakeid::fields;
constexpr flakeid::layout bad{{timestamp(41), worker(0), datacenter(10), sequence(12)}, 0};
