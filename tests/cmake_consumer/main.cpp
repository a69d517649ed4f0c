// A program that uses flakeid the way a consumer does: mint an ID, decode it, print its text.
#include <cstdio>
#include <flakeid/flakeid.hpp>

int main() {
  flakeid::classic_snowflake<flakeid::layouts::twitter> gen{flakeid::datacenter_id{2},
                                                            flakeid::worker_id{7}};
  const std::uint64_t id = gen.next_id();
  const flakeid::id_parts parts = flakeid::layout_by_name("twitter").decompose(id);
  std::printf("%s %s\n", flakeid::to_radix62(id).c_str(), flakeid::to_string(parts).c_str());
  return parts.datacenter == 2 && parts.worker == 7 ? 0 : 1;
}
