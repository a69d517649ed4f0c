// expect: flakeid::thread_blocks<B> is for layouts without a gene
// A thread's block is one sequence range of one state word: a gene layout has a word per gene.
#include <flakeid/snowflake.hpp>

#include <cstdint>

int main() {
  using gen_t =
      flakeid::basic_snowflake<flakeid::layouts::seed_gene, flakeid::wall_clock,
                               flakeid::classic_policies::with_threading<flakeid::thread_blocks<>>>;
  gen_t gen{flakeid::worker_id{1}};
  return static_cast<int>(gen.next_id(std::uint64_t{7}) & 1U);
}
