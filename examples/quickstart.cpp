// Mints IDs with each generator and decodes one of them.
#include <cstdint>
#include <cstdio>
#include <flakeid/flakeid.hpp>

namespace {

void print_parts(const flakeid::layout& l, std::uint64_t id) {
  const auto p = l.decompose(id);
  std::printf("  %llu = time %s, datacenter %llu, worker %llu, sequence %llu, gene %llu\n",
              static_cast<unsigned long long>(id), flakeid::to_iso8601(p.timestamp).c_str(),
              static_cast<unsigned long long>(p.datacenter),
              static_cast<unsigned long long>(p.worker),
              static_cast<unsigned long long>(p.sequence), static_cast<unsigned long long>(p.gene));
}

template <class Mint>
void print_three(const char* name, Mint mint) {
  std::printf("%-18s", name);
  for (int i = 0; i < 3; ++i) std::printf(" %llu", static_cast<unsigned long long>(mint()));
  std::printf("\n");
}

}  // namespace

int main() {
  // Twitter's snowflake: datacenter 1, worker 7.
  flakeid::classic_snowflake<> classic{flakeid::datacenter_id{1}, flakeid::worker_id{7}};
  print_three("classic_snowflake", [&] { return classic.next_id(); });

  // The gene of user 1001 in the low bits: id % 32 == 1001 % 32.
  flakeid::gene_snowflake<> gene{flakeid::datacenter_id{1}, flakeid::worker_id{7}};
  print_three("gene_snowflake", [&] { return gene.next_id(1001); });

  // CosId: the sequence runs on across milliseconds, so id % n spreads at low rates.
  flakeid::cosid_snowflake<> cosid{flakeid::worker_id{7}};
  print_three("cosid_snowflake", [&] { return cosid.next_id(); });

  // Wall clock read once, then a monotonic clock: immune to clock steps.
  flakeid::tick_snowflake<> tick{flakeid::worker_id{7}};
  print_three("tick_snowflake", [&] { return tick.next_id(); });
  std::printf("  tick clock drift from the wall clock: %lld ns\n",
              static_cast<long long>(tick.clock().drift().count()));

  // A batch in one call.
  std::uint64_t batch[4];
  classic.next_ids(batch);
  std::printf("%-18s %llu .. %llu\n", "next_ids(4)", static_cast<unsigned long long>(batch[0]),
              static_cast<unsigned long long>(batch[3]));

  std::printf("\ndecoded:\n");
  print_parts(classic.layout(), classic.next_id());
  print_parts(gene.layout(), gene.next_id(1001));
  print_parts(cosid.layout(), cosid.next_id());
  std::printf("\nthe twitter layout lasts until %s\n",
              flakeid::to_iso8601(flakeid::layouts::twitter.expires_at()).c_str());
}
