// expect: layout_widths_must_add_up_to_63_or_64
#include <flakeid/layout.hpp>

using namespace flakeid::fields;
constexpr flakeid::layout bad{{timestamp(41), worker(10), sequence(10)}, 0};
