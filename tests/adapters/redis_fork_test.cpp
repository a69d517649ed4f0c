// A redis store connection in a forked child: it refuses, and leaves the parent's alone.
#include "fork_scenarios.hpp"
#include "redis_backend.hpp"

FLAKEID_FORK_SCENARIOS(redis_fork_test, redis_test)
