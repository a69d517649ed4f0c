// expect: layout_tick_must_be_at_least_1_ms
#include <flakeid/layout.hpp>

// A tick of 0 ms cannot count time.
using namespace flakeid::fields;
constexpr flakeid::layout bad{
    {timestamp(41), worker(10), sequence(12)}, 0, std::chrono::milliseconds{0}};
