// expect: this generator's IDs carry a gene: call next_id\(key\) with the key whose gene the ID takes
#include <flakeid/snowflake.hpp>

#include <cstdint>

// Control: with a key, the gene generator mints.
[[maybe_unused]] std::uint64_t control(flakeid::gene_snowflake<>& orders, std::uint64_t user) {
  return orders.next_id(user);
}

// Without a key, it does not compile, and the message says what to call.
[[maybe_unused]] std::uint64_t broken(flakeid::gene_snowflake<>& orders) {
  return orders.next_id();
}
