// Prints the SQL bounds that select every Twitter-layout ID minted in the last hour, and checks
// that an ID minted now falls inside.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <flakeid/flakeid.hpp>

int main() {
  using namespace std::chrono;
  constexpr auto& twitter = flakeid::layouts::twitter;
  const auto now = time_point_cast<milliseconds>(system_clock::now());
  const auto from = now - hours{1};
  const auto to = now + milliseconds{1};  // half-open: include the current millisecond
  const flakeid::id_bounds r = twitter.id_range(from, to);

  std::printf("IDs minted from %s to %s (UTC):\n", flakeid::to_iso8601(from).c_str(),
              flakeid::to_iso8601(now).c_str());
  std::printf("  SELECT * FROM tweets WHERE id >= %llu AND id < %llu;\n",
              static_cast<unsigned long long>(r.lo), static_cast<unsigned long long>(r.hi));

  flakeid::classic_snowflake<> gen{flakeid::datacenter_id{1}, flakeid::worker_id{1}};
  const std::uint64_t id = gen.next_id();
  const bool inside = r.contains(id) || twitter.decompose(id).timestamp >= to;
  std::printf("an ID minted just now, %llu, %s\n", static_cast<unsigned long long>(id),
              r.contains(id) ? "is inside the range" : "was minted after the range ended");
  return inside ? 0 : 1;
}
