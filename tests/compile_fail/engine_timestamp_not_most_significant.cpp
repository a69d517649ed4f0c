// expect: the layout's timestamp must be its most significant field
// A layout with the worker above the timestamp would not sort by time: rejected.
#include <flakeid/snowflake.hpp>

using namespace flakeid::fields;
constexpr flakeid::layout worker_first{{worker(10), timestamp(41), sequence(12)}, 0};
flakeid::classic_snowflake<worker_first> gen;
