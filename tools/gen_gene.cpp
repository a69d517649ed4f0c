// flakeid gen: the gene generator, for every preset layout.
#include <cstddef>
#include <utility>

#include <flakeid/snowflake.hpp>

#include "gen.hpp"

namespace flakeid_cli {
namespace {

struct gene_op {
  template <flakeid::layout L>
  static void run(gen_request& r) {
    // run_gen has checked that the layout's lowest field is a gene.
    if constexpr (L.has(flakeid::field_kind::gene) && L.shift(flakeid::field_kind::gene) == 0) {
      flakeid::gene_snowflake<L> gen{std::move(r.node)};
      mint(gen, r);
    } else {
      fail("flakeid gen: the gene generator needs a layout whose lowest field is a gene");
    }
  }
};

}  // namespace

void mint_gene(std::size_t preset, gen_request& r) {
  static constexpr auto table =
      make_preset_table<gene_op>(std::make_index_sequence<preset_count>{});
  table[preset](r);
}

}  // namespace flakeid_cli
