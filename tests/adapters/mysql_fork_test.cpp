// A MySQL/MariaDB store connection in a forked child: it refuses, and leaves the parent's alone.
#include "fork_scenarios.hpp"
#include "mysql_backend.hpp"

FLAKEID_FORK_SCENARIOS(mysql_fork_test, mysql_test)
