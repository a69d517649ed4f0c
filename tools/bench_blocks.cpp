// flakeid bench: the classic generator with thread blocks, for every preset layout without a
// gene field.
#include <cstddef>
#include <string>
#include <utility>

#include <flakeid/snowflake.hpp>

#include "bench_measure.hpp"
#include "core.hpp"

namespace flakeid_cli {
namespace {

struct blocks_op {
  template <flakeid::layout L>
  static bench_result run(unsigned threads, const bench_window& window) {
    // run_bench has checked that the layout has no gene.
    if constexpr (!L.has(flakeid::field_kind::gene)) {
      return measure_generator<flakeid::blocked_snowflake<L>>(threads, window);
    } else {
      fail("flakeid bench: generator blocks does not apply to a layout with a gene field");
    }
  }
};

}  // namespace

bench_result measure_blocks(std::size_t preset, unsigned threads, const bench_window& window) {
  static constexpr auto table =
      make_preset_table<blocks_op>(std::make_index_sequence<preset_count>{});
  return table[preset](threads, window);
}

}  // namespace flakeid_cli
