// expect: Clock must model flakeid::clock_source
// A clock whose now() returns steady time, not Unix time, is rejected by the engine.
#include <chrono>
#include <flakeid/snowflake.hpp>

struct steady_only {
  using rep = std::chrono::steady_clock::rep;
  using period = std::chrono::steady_clock::period;
  using duration = std::chrono::steady_clock::duration;
  using time_point = std::chrono::steady_clock::time_point;
  static constexpr bool is_steady = true;
  static time_point now() noexcept { return std::chrono::steady_clock::now(); }
};

flakeid::classic_snowflake<flakeid::layouts::twitter, steady_only> gen;
