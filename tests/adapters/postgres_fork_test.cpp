// A postgres store connection in a forked child: it refuses, and leaves the parent's alone.
#include "fork_scenarios.hpp"
#include "postgres_backend.hpp"

FLAKEID_FORK_SCENARIOS(postgres_fork_test, postgres_test)
