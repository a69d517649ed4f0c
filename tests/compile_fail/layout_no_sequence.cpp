// expect: layout_needs_a_sequence_field
#include <flakeid/layout.hpp>

// No sequence field; the widths add up to 63.
using namespace flakeid::fields;
constexpr flakeid::layout bad{{timestamp(41), worker(22)}, 0};
