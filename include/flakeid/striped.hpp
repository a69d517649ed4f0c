// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file striped.hpp
/// `striped_snowflake`, a generator made of 2^StripeBits engines, one per thread, so that
/// threads do not share a state word and each gets a whole tick's capacity of its own.
///
/// The low `StripeBits` of the worker field name the stripe; the bits above them hold the
/// worker id you give. With the Twitter layout (5 worker bits) and StripeBits = 2:
///
///     worker field:   4    3    2  |  1    0
///                   +--------------+---------+
///                   | base worker  | stripe  |   engine i has worker (base << 2) | i
///                   +--------------+---------+
///
/// So the base worker must fit in `worker_bits - StripeBits` bits, and every engine is a
/// distinct (datacenter, worker): no two stripes can mint the same ID. Reserve those bits when
/// you hand out worker ids: a process using stripes takes 2^StripeBits of them.
///
/// A thread takes a stripe the first time it calls, round-robin over the stripes (per
/// generator type), and keeps it. Up to 2^StripeBits threads never share an engine; more
/// threads share stripes round-robin, and each engine's atomic state keeps them correct
/// (they then contend, that is all). `bind_this_thread(i)` chooses a thread's stripe itself.
///
/// Order: IDs are strictly increasing per stripe, so per thread while the thread keeps its
/// stripe; IDs of different threads interleave within a tick, ordered by time across ticks.
/// Fork: each stripe's engine keeps the generators' fork rule, so in a child forked after the
/// generator was made every call throws `forked_process_error`.
///
///     flakeid::striped_snowflake<flakeid::layouts::twitter, flakeid::wall_clock, 2> gen{
///         flakeid::datacenter_id{1}, flakeid::worker_id{5}};  // workers 20..23
///     std::uint64_t id = gen.next_id();  // from this thread's stripe

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "clock.hpp"
#include "errors.hpp"
#include "layout.hpp"
#include "layouts.hpp"
#include "policies.hpp"
#include "snowflake.hpp"
#include "version.hpp"
#include "worker_id.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {
[[noreturn]] inline void throw_base_worker(std::uint64_t base, unsigned free_bits,
                                           unsigned stripe_bits) {
  throw field_range_error("flakeid: base worker id " + std::to_string(base) + " does not fit in " +
                          std::to_string(free_bits) + " bits (the worker field's low " +
                          std::to_string(stripe_bits) + " bits are the stripe); allowed 0.." +
                          std::to_string((std::uint64_t{1} << free_bits) - 1));
}
/// `l` with `stripe_bits` fewer worker bits and as many more sequence bits (the widths still
/// add up). A function of its own, not a template: Clang 14 miscompiles building a layout from
/// a template parameter object's fields.
inline flakeid::layout narrow_worker(const flakeid::layout& l, unsigned stripe_bits) {
  field fs[flakeid::layout::max_fields]{};
  std::size_t n = 0;
  for (const field f : l.fields()) {
    if (f.kind == field_kind::worker) {
      if (f.bits > stripe_bits)
        fs[n++] = field{field_kind::worker, static_cast<std::uint8_t>(f.bits - stripe_bits)};
    } else if (f.kind == field_kind::sequence) {
      fs[n++] = field{field_kind::sequence, static_cast<std::uint8_t>(f.bits + stripe_bits)};
    } else {
      fs[n++] = f;
    }
  }
  return {std::span<const field>(fs, n), l.epoch_ms, std::chrono::milliseconds{l.tick_ms}};
}
[[noreturn]] inline void throw_stripe(std::size_t stripe, std::size_t count) {
  throw field_range_error("flakeid: stripe " + std::to_string(stripe) +
                          " does not exist; allowed 0.." + std::to_string(count - 1));
}
}  // namespace detail

/// A generator of 2^StripeBits engines of layout `L` on `Clock` under `Policies`, one per
/// thread (see the file comment for the worker-id scheme and how threads pick stripes).
///
/// Requirements: `L` has a worker field of at least `StripeBits` bits and no gene field.
/// Throws `field_range_error` from the constructor when the base worker or the datacenter
/// does not fit. Thread-safe.
template <flakeid::layout L = layouts::twitter, class Clock = wall_clock, unsigned StripeBits = 2,
          class Policies = classic_policies>
class striped_snowflake {
  static_assert(StripeBits >= 1 && StripeBits <= 8,
                "StripeBits must be 1..8 (2 to 256 stripes): each stripe is a whole engine");
  static_assert(L.bits(field_kind::worker) >= StripeBits,
                "the layout's worker field must have at least StripeBits bits: the stripe is kept "
                "in its low bits; widen fields::worker or lower StripeBits");
  static_assert(!L.has(field_kind::gene),
                "striped_snowflake is for layouts without a gene; use gene_snowflake");
  static_assert(Policies::threading::thread_safe,
                "striped_snowflake shares stripes between threads: its policies must be "
                "thread-safe; use flakeid::multi_threaded (e.g. flakeid::classic_policies), not "
                "single_threaded");

 public:
  using engine_type = basic_snowflake<L, Clock, Policies>;
  /// Number of stripes (engines).
  static constexpr std::size_t stripe_count = std::size_t{1} << StripeBits;
  /// Bits of the worker field left for the base worker id.
  static constexpr unsigned base_worker_bits = L.bits(field_kind::worker) - StripeBits;
  static constexpr flakeid::layout layout_value = L;

  /// Base worker `w`, datacenter `d`: engine i gets worker `(w << StripeBits) | i`.
  striped_snowflake(datacenter_id d, worker_id w, const Clock& clock = Clock{}) {
    if (base_worker_bits < 64 && w.value >> base_worker_bits != 0)
      detail::throw_base_worker(w.value, base_worker_bits, StripeBits);
    for (std::size_t i = 0; i < stripe_count; ++i)
      slots_[i].engine.emplace(d, worker_id{(w.value << StripeBits) | i}, clock);
  }
  explicit striped_snowflake(worker_id w, const Clock& clock = Clock{})
      : striped_snowflake(datacenter_id{0}, w, clock) {}
  striped_snowflake() : striped_snowflake(datacenter_id{0}, worker_id{0}) {}

  /// The base worker (and datacenter) from a worker-id source such as a lease, asked for an id
  /// of `base_layout()`, whose worker field is `StripeBits` narrower. A lease's time fence
  /// then covers every stripe. A source with a fence learns the stripes' lead before its claim,
  /// as from `basic_snowflake`.
  template <worker_id_source Source>
  requires(
      !std::is_same_v<std::remove_cvref_t<Source>,
                      worker_assignment>) explicit striped_snowflake(Source&& source,
                                                                     const Clock& clock = Clock{})
      : striped_snowflake(detail::assign_with_lead(source, base_layout(), engine_type::lead_ms),
                          clock) {}

  /// Base ids from an assignment already made for `base_layout()`.
  explicit striped_snowflake(const worker_assignment& a, const Clock& clock = Clock{}) {
    if (base_worker_bits < 64 && a.node.worker >> base_worker_bits != 0)
      detail::throw_base_worker(a.node.worker, base_worker_bits, StripeBits);
    for (std::size_t i = 0; i < stripe_count; ++i) {
      worker_assignment e = a;
      e.node.worker = (a.node.worker << StripeBits) | i;
      slots_[i].engine.emplace(std::move(e), clock);
    }
  }

  /// The layout a worker-id source is asked for: `L` with `StripeBits` fewer worker bits (and
  /// as many more sequence bits, so the widths still add up).
  [[nodiscard]] static flakeid::layout base_layout() {
    return detail::narrow_worker(L, StripeBits);
  }

  striped_snowflake(const striped_snowflake&) = delete;
  striped_snowflake& operator=(const striped_snowflake&) = delete;

  /// The next ID from this thread's stripe.
  [[nodiscard]] std::uint64_t next_id() { return stripe(this_thread_stripe()).next_id(); }
  /// Fills `out` from this thread's stripe.
  void next_ids(std::span<std::uint64_t> out) { stripe(this_thread_stripe()).next_ids(out); }

  /// The engine of stripe `i` (for its clock, node and state); `i < stripe_count`.
  [[nodiscard]] engine_type& stripe(std::size_t i) noexcept { return *slots_[i].engine; }
  [[nodiscard]] const engine_type& stripe(std::size_t i) const noexcept {
    return *slots_[i].engine;
  }

  /// The stripe of the calling thread, taken round-robin at its first call.
  [[nodiscard]] static std::size_t this_thread_stripe() noexcept {
    std::size_t s = thread_stripe;
    if (s == unassigned) [[unlikely]] {
      s = next_stripe.fetch_add(1, std::memory_order_relaxed) & (stripe_count - 1);
      thread_stripe = s;
    }
    return s;
  }
  /// Puts the calling thread on stripe `i`. Throws `field_range_error` when `i >= stripe_count`.
  static void bind_this_thread(std::size_t i) {
    if (i >= stripe_count) detail::throw_stripe(i, stripe_count);
    thread_stripe = i;
  }

  [[nodiscard]] static constexpr const flakeid::layout& layout() noexcept { return layout_value; }
  [[nodiscard]] static constexpr id_parts decompose(std::uint64_t id) { return L.decompose(id); }

 private:
  static constexpr std::size_t unassigned = ~std::size_t{0};
  // Mutable by design: the round-robin counter and each thread's stripe.
  // NOLINTBEGIN(cppcoreguidelines-avoid-non-const-global-variables)
  static inline std::atomic<std::size_t> next_stripe{0};
  static inline thread_local std::size_t thread_stripe = unassigned;
  // NOLINTEND(cppcoreguidelines-avoid-non-const-global-variables)

  // One engine per cache line pair, so that stripes never share a line.
  struct alignas(128) slot {
    std::optional<engine_type> engine;
  };
  std::array<slot, stripe_count> slots_{};
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
