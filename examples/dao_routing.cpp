// Routes orders to 16 tables by the gene of the user id: an order's ID carries its user's
// gene, so the order and the user land on the same shard and a lookup by order ID alone
// finds the table without asking anyone.
#include <array>
#include <cstdint>
#include <cstdio>
#include <flakeid/flakeid.hpp>
#include <vector>

namespace {

constexpr std::uint64_t tables = 16;

struct order {
  std::uint64_t id;
  std::uint64_t user_id;
};

/// The table of a user's rows.
std::uint64_t user_table(std::uint64_t user_id) { return user_id % tables; }
/// The table of an order, from its ID alone.
std::uint64_t order_table(std::uint64_t order_id) {
  return flakeid::layouts::seed_gene.shard_of(order_id, tables);
}

}  // namespace

int main() {
  flakeid::gene_snowflake<> orders{flakeid::datacenter_id{2}, flakeid::worker_id{5}};
  const std::uint64_t users[] = {10001, 10002, 10017, 20480, 31337, 99999};

  std::array<std::vector<order>, tables> shards;
  std::printf("%-8s %-22s %-11s %-12s\n", "user", "order id", "user table", "order table");
  int mismatches = 0;
  for (std::uint64_t user : users) {
    for (int n = 0; n < 2; ++n) {
      const order o{orders.next_id(user), user};
      const std::uint64_t table = order_table(o.id);
      shards[table].push_back(o);
      std::printf("%-8llu %-22llu t_order_%02llu  t_order_%02llu\n",
                  static_cast<unsigned long long>(user), static_cast<unsigned long long>(o.id),
                  static_cast<unsigned long long>(user_table(user)),
                  static_cast<unsigned long long>(table));
      if (table != user_table(user)) ++mismatches;
    }
  }
  std::printf("\nrows per table:");
  for (std::uint64_t t = 0; t < tables; ++t)
    if (!shards[t].empty())
      std::printf(" t_order_%02llu=%zu", static_cast<unsigned long long>(t), shards[t].size());
  std::printf("\norders on their user's shard: %s\n", mismatches == 0 ? "all" : "NOT ALL");
  return mismatches == 0 ? 0 : 1;
}
