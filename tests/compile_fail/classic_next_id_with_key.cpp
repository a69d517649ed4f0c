// expect: this generator's layout has no gene field: call next_id\(\) without a key
#include <flakeid/snowflake.hpp>

#include <cstdint>

// Control: without a key, the classic generator mints.
[[maybe_unused]] std::uint64_t control(flakeid::classic_snowflake<>& gen) { return gen.next_id(); }

// With a key it does not compile: its layout has no gene for the key to go into.
[[maybe_unused]] std::uint64_t broken(flakeid::classic_snowflake<>& gen, std::uint64_t user) {
  return gen.next_id(user);
}
