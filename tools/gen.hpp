// What `flakeid gen` shares between its snowflake generators (gen.cpp) and its segment
// generator (gen_segment.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

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

/// `flakeid gen --generator segment`: `r` holds the count and the writer.
int run_gen_segment(const context& c, const arguments& a, gen_request& r);

}  // namespace flakeid_cli
