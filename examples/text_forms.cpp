// Writes one CosId ID in every text form and reads each back, prints its decoded parts, and
// builds a layout from a spec as a command-line tool would.
#include <chrono>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <iostream>

int main() {
  using namespace std::chrono;
  const flakeid::layout& cosid = flakeid::layout_by_name("cosid");
  const std::uint64_t id = 295913926632165376ULL;

  const std::string r62 = flakeid::to_radix62(id);
  const std::string r36 = flakeid::to_radix36(id, flakeid::radix_padding::full);
  const std::string b32 = flakeid::to_crockford32(id);
  const std::string friendly = flakeid::to_friendly(cosid, id, hours{8});
  std::cout << "id            " << id << '\n'
            << "radix62       " << r62 << '\n'
            << "radix36       " << r36 << '\n'
            << "crockford32   " << b32 << '\n'
            << "friendly +8h  " << friendly << '\n'
            << "parts         " << cosid.decompose(id) << '\n'
            << "JS-safe       " << std::boolalpha << flakeid::is_javascript_safe(id) << '\n';
  const bool round_trips = flakeid::from_radix62(r62) == id && flakeid::from_radix36(r36) == id &&
                           flakeid::from_crockford32(b32) == id &&
                           flakeid::from_friendly(cosid, friendly, hours{8}) == id;

  const flakeid::layout custom =
      flakeid::parse_layout("ts:40,dc:3,worker:8,seq:12;epoch=2024-01-01;tick=1ms");
  std::cout << "custom layout " << flakeid::to_spec(custom) << '\n';
  try {
    (void)flakeid::parse_layout("ts:40,dc:3,worker:8,seq:x");
  } catch (const flakeid::invalid_layout_error& e) {
    std::cout << "bad spec      " << e.what() << '\n';
  }
  return round_trips ? 0 : 1;
}
