// expect: Clock must model flakeid::clock_source
// A clock whose now() returns steady time, not Unix time, is rejected by the engine.
#include <chrono>
#include <flakeid/snowflake.hpp>

// Control: the library's own parts meet the concepts, so the failure comes from the part
// under test.
static_assert(flakeid::clock_source<flakeid::wall_clock> &&
              flakeid::sequence_start_policy<flakeid::zero_start> &&
              flakeid::worker_id_source<flakeid::fixed_node>);

struct steady_only {
  using rep = std::chrono::steady_clock::rep;
  using period = std::chrono::steady_clock::period;
  using duration = std::chrono::steady_clock::duration;
  using time_point = std::chrono::steady_clock::time_point;
  static constexpr bool is_steady = true;
  static time_point now() noexcept { return std::chrono::steady_clock::now(); }
};

flakeid::classic_snowflake<flakeid::layouts::twitter, steady_only> gen;
