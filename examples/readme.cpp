// The example at the top of the README, compiled and run so that it stays true.
#include <chrono>
#include <cstdint>
#include <flakeid/format.hpp>  // printing id_parts
#include <flakeid/snowflake.hpp>
#include <iostream>

int main() {
  using namespace std::chrono;
  const std::uint64_t user_id = 1001;

  flakeid::classic_snowflake<> gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}};
  std::uint64_t id = gen.next_id();         // Twitter layout, lock-free
  auto parts = gen.layout().decompose(id);  // time, datacenter, worker, sequence

  // The last hour, up to and including the current millisecond (the range is half-open).
  const auto now = time_point_cast<milliseconds>(system_clock::now());
  const auto from = now - hours{1};
  const auto to = now + milliseconds{1};

  flakeid::gene_snowflake<> orders{flakeid::worker_id{3}};
  std::uint64_t order_id = orders.next_id(user_id);              // order_id % 32 == user_id % 32
  auto [lo, hi] = flakeid::layouts::twitter.id_range(from, to);  // WHERE id >= lo AND id < hi

  std::cout << id << " " << parts << "\n"
            << "order " << order_id << ": order_id % 32 = " << order_id % 32
            << ", user_id % 32 = " << user_id % 32 << "\n"
            << "last hour: WHERE id >= " << lo << " AND id < " << hi << "\n";
  return (order_id % 32 == user_id % 32 && lo <= id && id < hi) ? 0 : 1;
}
