// Fuzz target: the codec of every preset. decompose/compose round-trip, compose of arbitrary
// parts, and the time-range functions; each either gives a result that checks out or throws one
// of the documented exceptions.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <stdexcept>

#include "fuzz_check.hpp"

namespace {

using flakeid::field_kind;
using time_point = flakeid::layout::time_point;

constexpr const flakeid::layout* presets[] = {
    &flakeid::layouts::twitter,      &flakeid::layouts::discord,
    &flakeid::layouts::sonyflake,    &flakeid::layouts::sonyflake_v2,
    &flakeid::layouts::instagram,    &flakeid::layouts::mastodon,
    &flakeid::layouts::cosid,        &flakeid::layouts::cosid_seconds,
    &flakeid::layouts::cosid_js,     &flakeid::layouts::baidu,
    &flakeid::layouts::seed_classic, &flakeid::layouts::seed_gene};

void round_trip(const flakeid::layout& l, std::uint64_t id) {
  const flakeid::id_parts raw = l.decompose_unchecked(id);
  FLAKEID_FUZZ_CHECK(raw.ticks <= l.max_ticks());
  if (l.is_valid(id)) {
    const flakeid::id_parts p = l.decompose(id);
    FLAKEID_FUZZ_CHECK(p == raw);
    FLAKEID_FUZZ_CHECK(l.compose(p) == id);
    FLAKEID_FUZZ_CHECK(p.timestamp == l.time_at(p.ticks));
    FLAKEID_FUZZ_CHECK(l.ticks_at(p.timestamp) == p.ticks);
    FLAKEID_FUZZ_CHECK(l.min_id_at(p.timestamp) <= id && id <= l.max_id_at(p.timestamp));
    for (std::uint64_t n = 1; n <= (std::uint64_t{1} << l.bits(field_kind::gene)); n <<= 1)
      FLAKEID_FUZZ_CHECK(l.shard_of(id, n) == p.gene % n);
  } else {
    bool threw = false;
    try {
      (void)l.decompose(id);
    } catch (const flakeid::invalid_id_error&) {
      threw = true;
    }
    FLAKEID_FUZZ_CHECK(threw);
    // Without the reserved bits it is a valid ID with the same fields.
    FLAKEID_FUZZ_CHECK(l.compose(raw) == (id & ~l.reserved_mask()));
  }
}

void compose_parts(const flakeid::layout& l, flakeid_fuzz::input& in) {
  flakeid::id_parts p;
  const std::uint8_t shape = in.byte();
  // Mostly values that fit (so composing succeeds), sometimes anything.
  auto value = [&](field_kind k) {
    const std::uint64_t v = in.u64();
    return (shape & 1) != 0 ? v : (l.max_value(k) == 0 ? 0 : v % (l.max_value(k) + 1));
  };
  p.ticks = value(field_kind::timestamp);
  p.datacenter = value(field_kind::datacenter);
  p.worker = value(field_kind::worker);
  p.sequence = value(field_kind::sequence);
  p.gene = value(field_kind::gene);
  if ((shape & 2) != 0) p.timestamp = time_point{std::chrono::milliseconds{in.i64()}};
  std::uint64_t id = 0;
  try {
    id = l.compose(p);
  } catch (const flakeid::field_range_error&) {
    return;
  } catch (const flakeid::timestamp_overflow_error&) {
    return;
  } catch (const std::invalid_argument&) {  // ticks and timestamp disagree
    FLAKEID_FUZZ_CHECK(p.timestamp != time_point{} && p.ticks != 0);
    return;
  }
  FLAKEID_FUZZ_CHECK(l.is_valid(id));
  const flakeid::id_parts q = l.decompose(id);
  FLAKEID_FUZZ_CHECK(q.datacenter == p.datacenter && q.worker == p.worker);
  FLAKEID_FUZZ_CHECK(q.sequence == p.sequence && q.gene == p.gene);
  if (p.timestamp == time_point{}) {
    FLAKEID_FUZZ_CHECK(q.ticks == p.ticks);
  } else {
    FLAKEID_FUZZ_CHECK(q.timestamp <= p.timestamp && p.timestamp < q.timestamp + l.tick());
  }
}

void time_ranges(const flakeid::layout& l, flakeid_fuzz::input& in) {
  // Times near the layout's range, where the edges are.
  const std::int64_t span = l.expires_at().time_since_epoch().count() - l.epoch_ms;
  auto near = [&](std::int64_t raw) {
    const std::uint8_t where = static_cast<std::uint8_t>(raw & 3);
    const std::int64_t off = (raw >> 2) % 100'000;
    switch (where) {
      case 0: return l.epoch_ms + off;
      case 1: return l.epoch_ms + span - off;
      case 2: return l.epoch_ms + (span / 2) + off;
      default: return raw;
    }
  };
  const time_point from{std::chrono::milliseconds{near(in.i64())}};
  const time_point to{std::chrono::milliseconds{near(in.i64())}};
  try {
    const flakeid::id_bounds r = l.id_range(from, to);
    FLAKEID_FUZZ_CHECK(from <= to);
    FLAKEID_FUZZ_CHECK(r.lo <= r.hi);
    FLAKEID_FUZZ_CHECK(r.empty() == (from == to));
    if (from < to) {
      FLAKEID_FUZZ_CHECK(r.contains(l.min_id_at(from)));
      FLAKEID_FUZZ_CHECK(r.contains(l.max_id_at(to - std::chrono::milliseconds{1})));
      FLAKEID_FUZZ_CHECK(l.decompose(r.lo).ticks == l.ticks_at(from));
    }
  } catch (const flakeid::timestamp_overflow_error&) {
  } catch (const std::invalid_argument&) {
    FLAKEID_FUZZ_CHECK(from > to || !l.time_ordered());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  flakeid_fuzz::input in(data, size);
  const flakeid::layout& l = *presets[in.byte() % std::size(presets)];
  round_trip(l, in.u64());
  compose_parts(l, in);
  time_ranges(l, in);
  return 0;
}
