// expect: must model flakeid::worker_id_source
// A worker-id source whose assign() does not take a layout is rejected by the engine.
#include <flakeid/snowflake.hpp>

struct from_config {
  flakeid::worker_assignment assign() const { return {}; }
};

flakeid::classic_snowflake<> gen{from_config{}};
