// flakeid gen: the classic generator, for every preset layout.
#include <cstddef>
#include <utility>

#include <flakeid/snowflake.hpp>

#include "gen.hpp"

namespace flakeid_cli {
namespace {

struct classic_op {
  template <flakeid::layout L>
  static void run(gen_request& r) {
    flakeid::classic_snowflake<L> gen{std::move(r.node)};
    mint(gen, r);
  }
};

}  // namespace

void mint_classic(std::size_t preset, gen_request& r) {
  static constexpr auto table =
      make_preset_table<classic_op>(std::make_index_sequence<preset_count>{});
  table[preset](r);
}

}  // namespace flakeid_cli
