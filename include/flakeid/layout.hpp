// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file layout.hpp
/// `flakeid::layout`, the bit-layout descriptor every generator and codec is built on, and
/// `flakeid::id_parts`, the decoded form of an ID.
///
/// A layout lists its fields from the most to the least significant bit, with an epoch (Unix
/// milliseconds) and a tick length. The Twitter layout, drawn high to low:
///
///     63   62                                   22 21      17 16      12 11            0
///     +----+--------------------------------------+----------+----------+---------------+
///     | 0  |  timestamp: ms since 1288834974657   |datacenter|  worker  |   sequence    |
///     +----+--------------------------------------+----------+----------+---------------+
///      1 b              41 bits                      5 bits     5 bits       12 bits
///
/// Widths add up to 64 (every bit described) or 63 (the sign bit is an implicit reserved bit,
/// so no ID ever reads as negative in a signed 64-bit column).
///
/// A layout is a literal, structural type: use it as a template argument
/// (`classic_snowflake<my_layout>`) or build one at run time (a CLI, a config file). A constant
/// layout that cannot work fails to compile at the line that says why; at run time the
/// constructor throws `invalid_layout_error` (a `std::invalid_argument`).
///
///     constexpr flakeid::layout orders{{flakeid::fields::timestamp(41),
///                                       flakeid::fields::worker(10),
///                                       flakeid::fields::sequence(12)},
///                                      1700000000000};

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "detail/civil_time.hpp"
#include "errors.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// What a field of an ID holds.
enum class field_kind : std::uint8_t { timestamp, datacenter, worker, sequence, gene, reserved };

/// Number of field kinds.
inline constexpr std::size_t field_kind_count = 6;

/// The name of a field kind, as used in messages and layout specs.
constexpr std::string_view to_string(field_kind k) noexcept {
  switch (k) {
    case field_kind::timestamp: return "timestamp";
    case field_kind::datacenter: return "datacenter";
    case field_kind::worker: return "worker";
    case field_kind::sequence: return "sequence";
    case field_kind::gene: return "gene";
    case field_kind::reserved: return "reserved";
  }
  return "unknown";
}

/// One field of a layout: its kind and its width in bits.
struct field {
  field_kind kind{};
  std::uint8_t bits{};
  friend constexpr bool operator==(const field&, const field&) = default;
};

/// Shorthands for the fields of a layout: `fields::timestamp(41)`, `fields::worker(10)` ...
namespace fields {
constexpr field timestamp(std::uint8_t bits) noexcept { return {field_kind::timestamp, bits}; }
constexpr field datacenter(std::uint8_t bits) noexcept { return {field_kind::datacenter, bits}; }
constexpr field worker(std::uint8_t bits) noexcept { return {field_kind::worker, bits}; }
constexpr field sequence(std::uint8_t bits) noexcept { return {field_kind::sequence, bits}; }
constexpr field gene(std::uint8_t bits) noexcept { return {field_kind::gene, bits}; }
constexpr field reserved(std::uint8_t bits) noexcept { return {field_kind::reserved, bits}; }
}  // namespace fields

/// The fields of an ID, decoded. `timestamp` is `epoch + ticks * tick`, the start of the tick
/// the ID was minted in; fields the layout does not have are 0.
struct id_parts {
  std::chrono::sys_time<std::chrono::milliseconds> timestamp{};
  std::uint64_t ticks = 0;
  std::uint64_t datacenter = 0;
  std::uint64_t worker = 0;
  std::uint64_t sequence = 0;
  std::uint64_t gene = 0;
  /// The fields of the layout that decoded these parts, one bit per `field_kind`
  /// (`1 << kind`), so that they print only what the layout has; 0 for parts built by hand,
  /// which print every field. Not part of `==`.
  std::uint8_t present = 0;
  /// Whether field `k` is one the layout has (true for every field when `present` is 0).
  [[nodiscard]] constexpr bool has(field_kind k) const noexcept {
    return present == 0 || (present >> static_cast<unsigned>(k) & 1U) != 0;
  }
  friend constexpr bool operator==(const id_parts& a, const id_parts& b) noexcept {
    return a.timestamp == b.timestamp && a.ticks == b.ticks && a.datacenter == b.datacenter &&
           a.worker == b.worker && a.sequence == b.sequence && a.gene == b.gene;
  }
};

/// The half-open range `[lo, hi)` of IDs, for `WHERE id >= lo AND id < hi`.
struct id_bounds {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  [[nodiscard]] constexpr bool contains(std::uint64_t id) const noexcept {
    return lo <= id && id < hi;
  }
  [[nodiscard]] constexpr bool empty() const noexcept { return lo >= hi; }
  friend constexpr bool operator==(const id_bounds&, const id_bounds&) = default;
};

namespace detail {
// Out of line so the codec stays small; not constexpr, so a constant layout that reaches one
// of these fails to compile at the call, whose string literal says what to fix.
[[noreturn]] inline void reject_layout(const char* fix, long long got) {
  throw invalid_layout_error(std::string("flakeid: invalid layout: ") + fix + " (got " +
                             std::to_string(got) + ")");
}
// One function per rejection: in a constant expression the compiler's error names the function,
// so its name is the message.
[[noreturn]] inline void layout_tick_must_be_at_least_1_ms(long long got) {
  reject_layout("the tick must be at least 1 ms", got);
}
[[noreturn]] inline void layout_needs_between_2_and_6_fields(long long got) {
  reject_layout("a layout needs 2 to 6 fields: a timestamp, a sequence, each kind at most once",
                got);
}
[[noreturn]] inline void layout_field_width_must_not_be_0(long long index) {
  reject_layout("a field has width 0 (index given); give it at least 1 bit or remove it", index);
}
[[noreturn]] inline void layout_field_kind_used_twice_merge_the_fields(long long kind) {
  throw invalid_layout_error(std::string("flakeid: invalid layout: the kind '") +
                             std::string(to_string(static_cast<field_kind>(kind))) +
                             "' appears twice; each kind may appear once, merge them");
}
[[noreturn]] inline void layout_widths_must_add_up_to_63_or_64(long long sum) {
  reject_layout(
      "field widths must add up to 63 (sign bit reserved) or 64; resize a field or add a "
      "reserved one",
      sum);
}
[[noreturn]] inline void layout_needs_a_timestamp_field(long long) {
  throw invalid_layout_error(
      "flakeid: invalid layout: a layout needs a timestamp field; add fields::timestamp(bits)");
}
[[noreturn]] inline void layout_needs_a_sequence_field(long long) {
  throw invalid_layout_error(
      "flakeid: invalid layout: a layout needs a sequence field; add fields::sequence(bits)");
}
[[noreturn]] inline void layout_unknown_field_kind(long long kind) {
  reject_layout("unknown field kind", kind);
}
[[noreturn]] inline void layout_timestamp_range_must_fit_64_bit_unix_ms(long long ts_bits) {
  reject_layout(
      "epoch must be >= 0 and epoch + 2^timestamp_bits * tick must fit 64-bit Unix ms; narrow "
      "the timestamp or shorten the tick",
      ts_bits);
}
// The three below are reached from every generator (`place`, `ticks_at`): their messages are
// written with snprintf into a buffer, which compiles far faster than std::string arithmetic.
[[noreturn]] inline void reject_field_value(field_kind k, std::uint64_t value, std::uint64_t max,
                                            unsigned bits) {
  const std::string_view name = to_string(k);
  const int len = static_cast<int>(name.size());
  char msg[192];
  if (bits == 0)
    (void)std::snprintf(
        msg, sizeof msg,
        "flakeid: %.*s %llu is out of range [0, %llu]: the layout has no %.*s field", len,
        name.data(), static_cast<unsigned long long>(value), static_cast<unsigned long long>(max),
        len, name.data());
  else
    (void)std::snprintf(msg, sizeof msg,
                        "flakeid: %.*s %llu is out of range [0, %llu] for a %u-bit field", len,
                        name.data(), static_cast<unsigned long long>(value),
                        static_cast<unsigned long long>(max), bits);
  throw field_range_error(msg);
}
[[noreturn]] inline void reject_time(std::int64_t unix_ms, std::int64_t first_ms,
                                     std::int64_t last_ms) {
  char t[utc_text_size];
  char first[utc_text_size];
  char last[utc_text_size];
  char msg[3 * utc_text_size + 64];
  (void)std::snprintf(msg, sizeof msg, "flakeid: time %s is outside the layout's range [%s, %s]",
                      format_utc_into(t, unix_ms), format_utc_into(first, first_ms),
                      format_utc_into(last, last_ms));
  throw timestamp_overflow_error(msg);
}
[[noreturn]] inline void reject_ticks(std::uint64_t ticks, std::uint64_t max) {
  char msg[128];
  (void)std::snprintf(msg, sizeof msg, "flakeid: timestamp %llu ticks is out of range [0, %llu]",
                      static_cast<unsigned long long>(ticks), static_cast<unsigned long long>(max));
  throw timestamp_overflow_error(msg);
}
[[noreturn]] inline void reject_reserved(std::uint64_t id, std::uint64_t reserved_mask) {
  throw invalid_id_error("flakeid: ID " + std::to_string(id) + " sets reserved bits (mask " +
                         std::to_string(id & reserved_mask) + "); this layout keeps them 0");
}
[[noreturn]] inline void reject_parts_mismatch(std::uint64_t ticks, std::uint64_t from_time) {
  throw invalid_id_error("flakeid: id_parts disagree: ticks is " + std::to_string(ticks) +
                         " but timestamp falls in tick " + std::to_string(from_time) +
                         "; set one of them, or both alike");
}
[[noreturn]] inline void reject_shard_count(std::uint64_t n, unsigned gene_bits) {
  throw invalid_option_error("flakeid: shard count " + std::to_string(n) +
                             " cannot be honoured by a " + std::to_string(gene_bits) +
                             "-bit gene: it must be a power of two in [1, " +
                             std::to_string(std::uint64_t{1} << gene_bits) + "]");
}
[[noreturn]] inline void reject_unordered(const char* what) {
  throw invalid_layout_error(std::string("flakeid: ") + what +
                             " needs the timestamp to be the most significant field");
}
[[noreturn]] inline void reject_range_past_the_last_id(std::int64_t to_ms) {
  throw timestamp_overflow_error(
      "flakeid: id_range up to " + format_utc(to_ms) +
      " holds the layout's last ID, 2^64 - 1, so its upper bound would be 2^64, which no 64-bit "
      "bound holds: query id >= min_id_at(from) alone");
}
[[noreturn]] inline void reject_time_order(std::int64_t from_ms, std::int64_t to_ms) {
  throw invalid_option_error("flakeid: id_range needs from <= to (got from " + format_utc(from_ms) +
                             ", to " + format_utc(to_ms) + ")");
}
}  // namespace detail

/// A bit layout: ordered fields (most significant first), an epoch and a tick length.
///
/// Requirements: widths add up to 63 or 64; a timestamp and a sequence field; each kind at most
/// once; no zero-width field; a tick of at least 1 ms; the timestamp field's last tick must fit a
/// signed 64-bit count of Unix milliseconds.
///
/// The data members are public only because a structural type needs them to be; read them
/// through the member functions.
struct layout {
  using time_point = std::chrono::sys_time<std::chrono::milliseconds>;
  static constexpr std::size_t max_fields = field_kind_count;

  field field_list[max_fields]{};
  std::uint8_t field_count = 0;
  std::uint8_t total_bits = 0;
  std::int64_t epoch_ms = 0;
  std::int64_t tick_ms = 1;
  std::uint8_t kind_shift[field_kind_count]{};
  std::uint8_t kind_bits[field_kind_count]{};

  /// Builds a layout from fields listed most significant first.
  /// Throws `invalid_layout_error` at run time; fails to compile in a constant expression.
  constexpr layout(std::span<const field> fields, std::int64_t epoch_unix_ms,
                   std::chrono::milliseconds tick = std::chrono::milliseconds{1})
      : epoch_ms(epoch_unix_ms), tick_ms(tick.count()) {
    if (tick.count() < 1) detail::layout_tick_must_be_at_least_1_ms(tick.count());
    if (fields.size() < 2 || fields.size() > max_fields)
      detail::layout_needs_between_2_and_6_fields(static_cast<long long>(fields.size()));
    unsigned sum = 0;
    bool seen[field_kind_count]{};
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const field f = fields[i];
      const auto k = static_cast<std::size_t>(f.kind);
      if (k >= field_kind_count) detail::layout_unknown_field_kind(static_cast<long long>(k));
      if (f.bits == 0) detail::layout_field_width_must_not_be_0(static_cast<long long>(i));
      if (seen[k]) detail::layout_field_kind_used_twice_merge_the_fields(static_cast<long long>(k));
      seen[k] = true;
      sum += f.bits;
      field_list[i] = f;
    }
    if (sum != 63 && sum != 64) detail::layout_widths_must_add_up_to_63_or_64(sum);
    if (!seen[static_cast<std::size_t>(field_kind::timestamp)])
      detail::layout_needs_a_timestamp_field(0);
    if (!seen[static_cast<std::size_t>(field_kind::sequence)])
      detail::layout_needs_a_sequence_field(0);
    field_count = static_cast<std::uint8_t>(fields.size());
    total_bits = static_cast<std::uint8_t>(sum);
    unsigned shift = sum;
    for (const field f : fields) {
      shift -= f.bits;
      kind_shift[static_cast<std::size_t>(f.kind)] = static_cast<std::uint8_t>(shift);
      kind_bits[static_cast<std::size_t>(f.kind)] = f.bits;
    }
    // The end of the range, `epoch + 2^ts_bits * tick` in Unix ms, must fit std::int64_t: so
    // does every instant of the layout (sys_time<milliseconds>), `expires_at() + 1 ms` included,
    // and a tick's start always lies below a fence without a deadline (INT64_MAX).
    const unsigned ts_bits = kind_bits[static_cast<std::size_t>(field_kind::timestamp)];
    const auto limit = static_cast<unsigned long long>(INT64_MAX);
    if (epoch_ms < 0 || ts_bits >= 63 ||
        (1ULL << ts_bits) > (limit - static_cast<unsigned long long>(epoch_ms)) /
                                static_cast<unsigned long long>(tick_ms))
      detail::layout_timestamp_range_must_fit_64_bit_unix_ms(ts_bits);
  }

  constexpr layout(std::initializer_list<field> fields, std::int64_t epoch_unix_ms,
                   std::chrono::milliseconds tick = std::chrono::milliseconds{1})
      : layout(std::span<const field>(fields.begin(), fields.size()), epoch_unix_ms, tick) {}

  constexpr layout(std::initializer_list<field> fields, time_point epoch,
                   std::chrono::milliseconds tick = std::chrono::milliseconds{1})
      : layout(std::span<const field>(fields.begin(), fields.size()),
               static_cast<std::int64_t>(epoch.time_since_epoch().count()), tick) {}

  friend constexpr bool operator==(const layout&, const layout&) = default;

  // ---- structure ------------------------------------------------------------------------

  /// The fields, most significant first.
  [[nodiscard]] constexpr std::span<const field> fields() const noexcept {
    return {field_list, field_count};
  }
  /// Whether the layout has a field of kind `k`.
  [[nodiscard]] constexpr bool has(field_kind k) const noexcept { return bits(k) != 0; }
  /// Width of the field of kind `k` (0 when absent; for `reserved`, the explicit field only).
  [[nodiscard]] constexpr unsigned bits(field_kind k) const noexcept {
    return kind_bits[static_cast<std::size_t>(k)];
  }
  /// Position of the lowest bit of the field of kind `k` (0 when absent).
  [[nodiscard]] constexpr unsigned shift(field_kind k) const noexcept {
    return kind_shift[static_cast<std::size_t>(k)];
  }
  /// Largest value the field of kind `k` holds (0 when absent).
  [[nodiscard]] constexpr std::uint64_t max_value(field_kind k) const noexcept {
    return bits(k) == 0 ? 0 : (~std::uint64_t{0} >> (64 - bits(k)));
  }
  /// The field's bits in place within an ID.
  [[nodiscard]] constexpr std::uint64_t mask(field_kind k) const noexcept {
    return max_value(k) << shift(k);
  }
  /// Bits no valid ID sets: explicit reserved fields, and bit 63 in a 63-bit layout.
  [[nodiscard]] constexpr std::uint64_t reserved_mask() const noexcept {
    std::uint64_t used = 0;
    for (std::size_t k = 0; k < field_kind_count; ++k)
      if (static_cast<field_kind>(k) != field_kind::reserved)
        used |= mask(static_cast<field_kind>(k));
    return ~used;
  }
  /// Largest ID the layout can produce.
  [[nodiscard]] constexpr std::uint64_t max_id() const noexcept { return ~reserved_mask(); }
  /// IDs one (datacenter, worker[, gene]) can mint in one tick: 2^sequence_bits.
  [[nodiscard]] constexpr std::uint64_t ids_per_tick() const noexcept {
    return max_value(field_kind::sequence) + 1;
  }
  /// Whether the timestamp is the most significant non-reserved field, so IDs sort by time.
  [[nodiscard]] constexpr bool time_ordered() const noexcept {
    for (std::size_t k = 0; k < field_kind_count; ++k) {
      const auto kind = static_cast<field_kind>(k);
      if (kind != field_kind::timestamp && kind != field_kind::reserved && has(kind) &&
          shift(kind) > shift(field_kind::timestamp))
        return false;
    }
    return true;
  }

  // ---- time -------------------------------------------------------------------------------

  [[nodiscard]] constexpr time_point epoch() const noexcept {
    return time_point{std::chrono::milliseconds{epoch_ms}};
  }
  [[nodiscard]] constexpr std::chrono::milliseconds tick() const noexcept {
    return std::chrono::milliseconds{tick_ms};
  }
  /// The largest value of the timestamp field.
  [[nodiscard]] constexpr std::uint64_t max_ticks() const noexcept {
    return max_value(field_kind::timestamp);
  }
  /// The last instant the timestamp field can hold: the last millisecond of the last tick.
  [[nodiscard]] constexpr time_point expires_at() const noexcept {
    return time_point{std::chrono::milliseconds{
        epoch_ms + static_cast<std::int64_t>(max_ticks()) * tick_ms + (tick_ms - 1)}};
  }
  /// How long the layout still has at `now`: `expires_at() - now + 1 ms`, or zero once expired.
  /// An application can warn years ahead: `if (l.time_left(now) < years{2}) ...`.
  [[nodiscard]] constexpr std::chrono::milliseconds time_left(time_point now) const noexcept {
    if (now < epoch()) now = epoch();  // keeps the subtraction in range
    const auto left = expires_at() - now + std::chrono::milliseconds{1};
    return left.count() > 0 ? left : std::chrono::milliseconds{0};
  }
  /// The timestamp field for an ID minted at `t`: `(t - epoch) / tick`.
  /// Throws `timestamp_overflow_error` for `t` before the epoch or past `expires_at()`.
  [[nodiscard]] constexpr std::uint64_t ticks_at(time_point t) const {
    const std::int64_t ms = t.time_since_epoch().count();
    if (ms < epoch_ms || ms > expires_at().time_since_epoch().count())
      detail::reject_time(ms, epoch_ms, expires_at().time_since_epoch().count());
    return static_cast<std::uint64_t>((ms - epoch_ms) / tick_ms);
  }
  /// `ticks_at` for any `std::chrono::sys_time` (`system_clock::now()` as it is): floored to the
  /// millisecond, then to its tick.
  template <class Duration>
  [[nodiscard]] constexpr std::uint64_t ticks_at(std::chrono::sys_time<Duration> t) const {
    return ticks_at(std::chrono::floor<std::chrono::milliseconds>(t));
  }
  /// `time_left` for any `std::chrono::sys_time`, floored to the millisecond.
  template <class Duration>
  [[nodiscard]] constexpr std::chrono::milliseconds time_left(
      std::chrono::sys_time<Duration> now) const noexcept {
    return time_left(std::chrono::floor<std::chrono::milliseconds>(now));
  }
  /// The start of tick `ticks`. Requires `ticks <= max_ticks()`.
  [[nodiscard]] constexpr time_point time_at(std::uint64_t ticks) const noexcept {
    return time_point{
        std::chrono::milliseconds{epoch_ms + static_cast<std::int64_t>(ticks) * tick_ms}};
  }

  // ---- codec --------------------------------------------------------------------------------

  /// The raw value of field `k` in `id` (0 when the layout has no such field). Unchecked.
  [[nodiscard]] constexpr std::uint64_t extract(std::uint64_t id, field_kind k) const noexcept {
    return (id >> shift(k)) & max_value(k);
  }
  /// Whether `id` could have come from this layout (no reserved bit set).
  [[nodiscard]] constexpr bool is_valid(std::uint64_t id) const noexcept {
    return (id & reserved_mask()) == 0;
  }
  /// The fast form: decodes every field without checking reserved bits.
  [[nodiscard]] constexpr id_parts decompose_unchecked(std::uint64_t id) const noexcept {
    id_parts p;
    p.ticks = extract(id, field_kind::timestamp);
    p.timestamp = time_at(p.ticks);
    p.datacenter = extract(id, field_kind::datacenter);
    p.worker = extract(id, field_kind::worker);
    p.sequence = extract(id, field_kind::sequence);
    p.gene = extract(id, field_kind::gene);
    for (const field_kind k : {field_kind::timestamp, field_kind::datacenter, field_kind::worker,
                               field_kind::sequence, field_kind::gene})
      if (bits(k) != 0) p.present |= static_cast<std::uint8_t>(1U << static_cast<unsigned>(k));
    return p;
  }
  /// The checked form: decodes `id`, throwing `invalid_id_error` when it sets a reserved bit.
  [[nodiscard]] constexpr id_parts decompose(std::uint64_t id) const {
    if (!is_valid(id)) detail::reject_reserved(id, reserved_mask());
    return decompose_unchecked(id);
  }
  /// The non-throwing form: the parts of `id`, or `std::nullopt` when it sets a reserved bit.
  [[nodiscard]] constexpr std::optional<id_parts> try_decompose(std::uint64_t id) const noexcept {
    if (!is_valid(id)) return std::nullopt;
    return decompose_unchecked(id);
  }
  /// Places `value` in field `k` of an ID; throws `field_range_error` when it does not fit.
  [[nodiscard]] constexpr std::uint64_t place(field_kind k, std::uint64_t value) const {
    if (value > max_value(k)) {
      if (k == field_kind::timestamp) detail::reject_ticks(value, max_ticks());
      detail::reject_field_value(k, value, max_value(k), bits(k));
    }
    return value << shift(k);
  }
  /// The inverse of `decompose`. The time comes from `ticks`, or from `timestamp` when that is
  /// set (it is floored to its tick); when both are set they must agree.
  /// Throws `field_range_error` for a value that does not fit its field (or a field the layout
  /// lacks, set non-zero), `timestamp_overflow_error` for a time outside the layout's range,
  /// `invalid_id_error` when `ticks` and `timestamp` disagree.
  [[nodiscard]] constexpr std::uint64_t compose(const id_parts& p) const {
    std::uint64_t ticks = p.ticks;
    if (p.timestamp != time_point{}) {
      const std::uint64_t from_time = ticks_at(p.timestamp);
      if (p.ticks != 0 && p.ticks != from_time) detail::reject_parts_mismatch(p.ticks, from_time);
      ticks = from_time;
    }
    return place(field_kind::timestamp, ticks) | place(field_kind::datacenter, p.datacenter) |
           place(field_kind::worker, p.worker) | place(field_kind::sequence, p.sequence) |
           place(field_kind::gene, p.gene);
  }

  // ---- time ranges (for SQL) ------------------------------------------------------------------

  /// The smallest ID that can be minted at `t` (its tick, every other field 0).
  /// Throws `timestamp_overflow_error` outside the layout's range, `invalid_layout_error` when
  /// the timestamp is not the most significant field.
  [[nodiscard]] constexpr std::uint64_t min_id_at(time_point t) const {
    if (!time_ordered()) detail::reject_unordered("min_id_at");
    return ticks_at(t) << shift(field_kind::timestamp);
  }
  /// The largest ID that can be minted at `t` (its tick, every other field at its maximum).
  [[nodiscard]] constexpr std::uint64_t max_id_at(time_point t) const {
    if (!time_ordered()) detail::reject_unordered("max_id_at");
    const std::uint64_t below = (std::uint64_t{1} << shift(field_kind::timestamp)) - 1;
    return (ticks_at(t) << shift(field_kind::timestamp)) | (below & ~reserved_mask());
  }
  /// The half-open `[lo, hi)` holding every ID minted in `[from, to)`, for
  /// `WHERE id >= lo AND id < hi`. With ticks longer than 1 ms the range covers whole ticks, so
  /// it may also hold IDs minted in the same tick just before `from` or just after `to`.
  /// Throws `timestamp_overflow_error` when `from` or `to - 1 ms` lies outside the layout's range,
  /// or when `[from, to)` holds the last ID of a 64-bit layout (2^64 - 1: `hi` would be 2^64);
  /// `invalid_option_error` when `from > to`, `invalid_layout_error` when the timestamp is not the
  /// most significant field.
  [[nodiscard]] constexpr id_bounds id_range(time_point from, time_point to) const {
    if (from > to)
      detail::reject_time_order(from.time_since_epoch().count(), to.time_since_epoch().count());
    const std::uint64_t lo = min_id_at(from);
    if (from == to) return {lo, lo};
    const std::uint64_t last = max_id_at(to - std::chrono::milliseconds{1});
    if (last == ~std::uint64_t{0})  // only a full 64-bit layout in its very last tick
      detail::reject_range_past_the_last_id(to.time_since_epoch().count());
    return {lo, last + 1};
  }

  /// `min_id_at` and `max_id_at` for any `std::chrono::sys_time` (`system_clock::now()` as it
  /// is): the time is floored to the millisecond, then to its tick, the tick an ID minted at
  /// `t` carries.
  template <class Duration>
  [[nodiscard]] constexpr std::uint64_t min_id_at(std::chrono::sys_time<Duration> t) const {
    return min_id_at(std::chrono::floor<std::chrono::milliseconds>(t));
  }
  template <class Duration>
  [[nodiscard]] constexpr std::uint64_t max_id_at(std::chrono::sys_time<Duration> t) const {
    return max_id_at(std::chrono::floor<std::chrono::milliseconds>(t));
  }
  /// `id_range` for any `std::chrono::sys_time`: `from` is floored and `to` rounded up to the
  /// millisecond, so the range still holds every ID minted in `[from, to)`; then whole ticks.
  template <class FromDuration, class ToDuration>
  [[nodiscard]] constexpr id_bounds id_range(std::chrono::sys_time<FromDuration> from,
                                             std::chrono::sys_time<ToDuration> to) const {
    return id_range(std::chrono::floor<std::chrono::milliseconds>(from),
                    std::chrono::ceil<std::chrono::milliseconds>(to));
  }

  // ---- gene and shard --------------------------------------------------------------------------

  /// The gene field of `id` (0 when the layout has none).
  [[nodiscard]] constexpr std::uint64_t gene_of(std::uint64_t id) const noexcept {
    return extract(id, field_kind::gene);
  }
  /// The shard of `id` among `n` shards: `gene_of(id) % n`, equal to `source % n` for the key the
  /// gene came from. `n` must divide `2^gene_bits` (a power of two no larger than it); any other
  /// `n` throws `invalid_option_error`, because the gene cannot honour it.
  [[nodiscard]] constexpr std::uint64_t shard_of(std::uint64_t id, std::uint64_t n) const {
    const unsigned g = bits(field_kind::gene);
    if (n == 0 || (n & (n - 1)) != 0 || n > (std::uint64_t{1} << g))
      detail::reject_shard_count(n, g);
    return gene_of(id) & (n - 1);
  }
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
