// expect: layout_field_kind_used_twice_merge_the_fields
#include <flakeid/layout.hpp>

// Two worker fields; the widths still add up to 63.
using namespace flakeid::fields;
constexpr flakeid::layout bad{{timestamp(41), worker(5), worker(5), sequence(12)}, 0};
