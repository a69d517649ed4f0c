// Decodes real, published IDs of several systems and prints their fields and UTC time, then the
// SQL range that holds one day of Twitter IDs.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <flakeid/flakeid.hpp>

namespace {

struct sample {
  const char* system;
  const flakeid::layout& layout;
  std::uint64_t id;
  const char* source;
};

// uid-generator's README example was minted with the README's configuration (29 bits of seconds
// since 2016-09-20, 21-bit worker, 13-bit sequence), not the class defaults in layouts::baidu.
constexpr flakeid::layout baidu_readme{
    {flakeid::fields::timestamp(29), flakeid::fields::worker(21), flakeid::fields::sequence(13)},
    flakeid::layout::time_point{std::chrono::sys_days{std::chrono::year{2016} / 9 / 20}},
    std::chrono::seconds{1}};

unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

}  // namespace

int main() {
  using namespace std::chrono;
  const sample samples[] = {
      {"twitter", flakeid::layouts::twitter, 1050118621198921728ULL, "X docs, Tweet object"},
      {"discord", flakeid::layouts::discord, 175928847299117063ULL, "Discord docs, Snowflakes"},
      {"instagram", flakeid::layouts::instagram, 1661953437569832666ULL, "media BcQcdiXltba"},
      {"mastodon", flakeid::layouts::mastodon, 103270115826048975ULL, "Mastodon docs, Status"},
      {"cosid", flakeid::layouts::cosid, 295913926632165376ULL, "CosId converter test"},
      {"baidu", baidu_readme, 180363646902239241ULL, "uid-generator README"},
  };
  std::printf("%-10s %20s  %-24s %13s %4s %6s %8s  %s\n", "system", "id", "time (UTC)", "ticks",
              "dc", "worker", "sequence", "published in");
  for (const auto& s : samples) {
    const auto p = s.layout.decompose(s.id);
    std::printf("%-10s %20llu  %-24s %13llu %4llu %6llu %8llu  %s\n", s.system, ull(s.id),
                flakeid::to_iso8601(p.timestamp).c_str(), ull(p.ticks), ull(p.datacenter),
                ull(p.worker), ull(p.sequence), s.source);
  }
  std::printf(
      "\nDiscord's process id is held as dc, Instagram's shard as worker; Mastodon's low 16 bits\n"
      "are a hashed counter. Twitter's published created_at is the same second; Mastodon's is\n"
      "52 ms later, because the database stamps the ID and the application stamps created_at.\n");

  const sys_time<milliseconds> day{sys_days{2024y / January / 1}};
  const auto r = flakeid::layouts::twitter.id_range(day, day + days{1});
  std::printf("\nTwitter IDs minted on 2024-01-01 (UTC):\n  WHERE id >= %llu AND id < %llu\n",
              ull(r.lo), ull(r.hi));
}
