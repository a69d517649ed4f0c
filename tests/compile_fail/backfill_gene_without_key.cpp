// expect: this layout's IDs carry a gene: call next_id_at\(t, key\)
#include <flakeid/backfill.hpp>

#include <chrono>
#include <cstdint>

using when = std::chrono::sys_time<std::chrono::milliseconds>;
using gene_minter = flakeid::backfill_minter<flakeid::layouts::seed_gene>;

// Control: with a key, the minter of a gene layout mints.
[[maybe_unused]] std::uint64_t control(gene_minter& m, when t, std::uint64_t user) {
  return m.next_id_at(t, user);
}

// Without one it does not compile: the ID would carry gene 0 instead of the key's.
[[maybe_unused]] std::uint64_t broken(gene_minter& m, when t) { return m.next_id_at(t); }
