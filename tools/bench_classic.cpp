// flakeid bench: the classic generator, for every preset layout.
#include <cstddef>
#include <utility>

#include <flakeid/snowflake.hpp>

#include "bench_measure.hpp"
#include "core.hpp"

namespace flakeid_cli {
namespace {

struct classic_op {
  template <flakeid::layout L>
  static bench_result run(unsigned threads, const bench_window& window) {
    return measure_generator<flakeid::classic_snowflake<L>>(threads, window);
  }
};

}  // namespace

bench_result measure_classic(std::size_t preset, unsigned threads, const bench_window& window) {
  static constexpr auto table =
      make_preset_table<classic_op>(std::make_index_sequence<preset_count>{});
  return table[preset](threads, window);
}

}  // namespace flakeid_cli
