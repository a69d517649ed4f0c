// expect: layout_needs_a_timestamp_field
#include <flakeid/layout.hpp>

// No timestamp field; the widths add up to 63.
using namespace flakeid::fields;
constexpr flakeid::layout bad{{worker(51), sequence(12)}, 0};
