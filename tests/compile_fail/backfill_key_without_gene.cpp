// expect: this layout has no gene field to carry a key: call next_id_at\(t\) without one
#include <flakeid/backfill.hpp>

#include <chrono>
#include <cstdint>

using when = std::chrono::sys_time<std::chrono::milliseconds>;

// Control: without a key, the minter of a layout without a gene mints.
[[maybe_unused]] std::uint64_t control(flakeid::backfill_minter<>& m, when t) {
  return m.next_id_at(t);
}

// With a key it does not compile: the key would be dropped silently.
[[maybe_unused]] std::uint64_t broken(flakeid::backfill_minter<>& m, when t, std::uint64_t user) {
  return m.next_id_at(t, user);
}
