// What `flakeid gen` shares between its snowflake generators (gen.cpp) and its segment
// generator (gen_segment.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <flakeid/worker_id.hpp>

#include "core.hpp"

namespace flakeid_cli {

enum class generator_kind { classic, gene, cosid, tick };

struct gen_request {
  std::uint64_t count = 1;
  generator_kind kind = generator_kind::classic;
  flakeid::worker_assignment node;
  std::optional<std::uint64_t> gene;
  text_form to = text_form::decimal;
  bool to_given = false;
  std::string layout_name;
  const context* run = nullptr;
  record_writer* writer = nullptr;
};

/// Writes one batch of minted IDs as records and flushes them.
void write_batch(const gen_request& r, std::span<const std::uint64_t> batch,
                 const flakeid::layout& l);

/// Mints `r.count` IDs from `gen` in batches and writes them.
template <class Generator>
void mint(Generator& gen, const gen_request& r) {
  constexpr flakeid::layout l = Generator::layout_value;
  std::vector<std::uint64_t> ids(static_cast<std::size_t>(std::min<std::uint64_t>(r.count, 4096)));
  for (std::uint64_t left = r.count; left != 0;) {
    const std::span<std::uint64_t> batch(
        ids.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, ids.size())));
    if constexpr (Generator::has_gene) {
      gen.next_ids(batch, r.gene.value_or(0));
    } else {
      gen.next_ids(batch);
    }
    write_batch(r, batch, l);
    left -= batch.size();
  }
}

/// Mints `r.count` IDs with the classic, cosid, tick or gene generator (gen_<generator>.cpp)
/// of the preset layout number `preset` and writes them.
void mint_classic(std::size_t preset, gen_request& r);
void mint_cosid(std::size_t preset, gen_request& r);
void mint_tick(std::size_t preset, gen_request& r);
void mint_gene(std::size_t preset, gen_request& r);

/// `flakeid gen --config FILE --name NAME` (gen_config.cpp): `r` holds the count and the writer.
int run_gen_config(const context& c, const arguments& a, gen_request& r);

/// `flakeid gen --generator segment`: `r` holds the count and the writer.
int run_gen_segment(const context& c, const arguments& a, gen_request& r);

}  // namespace flakeid_cli
