// Decodes real IDs of several systems and prints their fields and UTC time, then the SQL range
// that holds one day of Twitter IDs.
#include <cstdint>
#include <cstdio>
#include <flakeid/flakeid.hpp>

namespace {

struct sample {
  const char* system;
  const flakeid::layout& layout;
  std::uint64_t id;
};

}  // namespace

int main() {
  using namespace std::chrono;
  const sample samples[] = {
      {"discord", flakeid::layouts::discord, 175928847299117063ULL},
      {"mastodon", flakeid::layouts::mastodon, 103270115826048975ULL},
  };
  std::printf("%-10s %20s  %-24s %12s %6s %6s %8s\n", "system", "id", "time (UTC)", "ticks", "dc",
              "worker", "sequence");
  for (const auto& s : samples) {
    const auto p = s.layout.decompose(s.id);
    std::printf(
        "%-10s %20llu  %-24s %12llu %6llu %6llu %8llu\n", s.system,
        static_cast<unsigned long long>(s.id), flakeid::detail::format_utc(p.timestamp).c_str(),
        static_cast<unsigned long long>(p.ticks), static_cast<unsigned long long>(p.datacenter),
        static_cast<unsigned long long>(p.worker), static_cast<unsigned long long>(p.sequence));
  }
  const sys_time<milliseconds> day{sys_days{2024y / January / 1}};
  const auto r = flakeid::layouts::twitter.id_range(day, day + days{1});
  std::printf("\nTwitter IDs minted on 2024-01-01 (UTC):\n  WHERE id >= %llu AND id < %llu\n",
              static_cast<unsigned long long>(r.lo), static_cast<unsigned long long>(r.hi));
}
