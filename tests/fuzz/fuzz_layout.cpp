// Fuzz target: building a layout at run time from an arbitrary field list, epoch and tick. It
// either throws invalid_layout_error or gives a layout whose fields tile the ID, whose codec
// round-trips and whose time range fits.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <vector>

#include "fuzz_check.hpp"

namespace {

using flakeid::field_kind;

void check_layout(const flakeid::layout& l, flakeid_fuzz::input& in) {
  FLAKEID_FUZZ_CHECK(l.total_bits == 63 || l.total_bits == 64);
  FLAKEID_FUZZ_CHECK(l.has(field_kind::timestamp) && l.has(field_kind::sequence));
  unsigned sum = 0;
  std::uint64_t used = 0;
  for (const flakeid::field f : l.fields()) {
    sum += f.bits;
    FLAKEID_FUZZ_CHECK(l.bits(f.kind) == f.bits);
    if (f.kind != field_kind::reserved) {
      FLAKEID_FUZZ_CHECK((used & l.mask(f.kind)) == 0);  // fields do not overlap
      used |= l.mask(f.kind);
    }
  }
  FLAKEID_FUZZ_CHECK(sum == l.total_bits);
  FLAKEID_FUZZ_CHECK(used == ~l.reserved_mask());
  FLAKEID_FUZZ_CHECK(l.max_id() == used);
  if (l.total_bits == 63) FLAKEID_FUZZ_CHECK((l.reserved_mask() >> 63) == 1);
  FLAKEID_FUZZ_CHECK(l.ids_per_tick() == l.max_value(field_kind::sequence) + 1);
  FLAKEID_FUZZ_CHECK(l.expires_at() >= l.epoch());
  FLAKEID_FUZZ_CHECK(l.ticks_at(l.expires_at()) == l.max_ticks());
  FLAKEID_FUZZ_CHECK(l.ticks_at(l.epoch()) == 0);
  FLAKEID_FUZZ_CHECK(l.time_left(l.expires_at()) == std::chrono::milliseconds{1});
  // A layout equals itself rebuilt from its own description.
  FLAKEID_FUZZ_CHECK(flakeid::layout(l.fields(), l.epoch_ms, l.tick()) == l);
  const std::uint64_t id = in.u64() & ~l.reserved_mask();
  FLAKEID_FUZZ_CHECK(l.compose(l.decompose(id)) == id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  flakeid_fuzz::input in(data, size);
  const std::size_t n = in.byte() % 8;  // 0..7 fields: also too few and too many
  std::vector<flakeid::field> fields;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t kind = in.byte();
    const std::uint8_t bits = in.byte();
    // Mostly known kinds and plausible widths; sometimes anything.
    fields.push_back(
        {static_cast<field_kind>(kind < 0xF0 ? kind % flakeid::field_kind_count : kind),
         static_cast<std::uint8_t>(bits < 0xF0 ? bits % 65 : bits)});
  }
  const std::uint8_t how = in.byte();
  std::int64_t epoch = in.i64();
  std::int64_t tick = in.i64();
  if ((how & 1) != 0) epoch = epoch < 0 ? -(epoch % 4'000'000'000'000) : epoch % 4'000'000'000'000;
  if ((how & 2) != 0) tick = tick % 100'000;
  try {
    const flakeid::layout l(fields, epoch, std::chrono::milliseconds{tick});
    check_layout(l, in);
  } catch (const flakeid::invalid_layout_error&) {
  }
  return 0;
}
