// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/snowflake_checks.hpp
/// What `basic_snowflake` checks of its parameters at compile time, each with a message that
/// says the fix.

#include <chrono>
#include <cstdint>

#include "../clock.hpp"
#include "../layout.hpp"
#include "../policies.hpp"
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {

/// True when layout `L`, clock `Clock` and policy bundle `Policies` make a generator; else a
/// compile error naming the fix.
template <flakeid::layout L, class Clock, class Policies>
consteval bool check_snowflake_params() {
  static_assert(clock_source<Clock>,
                "Clock must model flakeid::clock_source: std::chrono Clock members and a now() "
                "returning a std::chrono::system_clock time_point (Unix time); use "
                "flakeid::wall_clock, flakeid::tick_clock or flakeid::manual_clock");
  static_assert(policy_set<Policies>,
                "Policies must name sequence_start, on_exhausted, on_backwards and threading: "
                "write flakeid::policies<Start, Exhausted, Backwards, Threading>");
  static_assert(sequence_start_policy<typename Policies::sequence_start>,
                "sequence_start must have 'std::uint64_t next(std::uint64_t prev, std::uint64_t "
                "max) noexcept'; use zero_start, cosid_threshold<>, vibrating_start<>, "
                "random_start<> or never_reset");
  static_assert(exhausted_policy<typename Policies::on_exhausted>,
                "on_exhausted must have 'static constexpr std::int64_t max_ahead_ms' (0 waits); "
                "use wait_next_tick or borrow_ticks<Ms>");
  static_assert(backwards_policy<typename Policies::on_backwards>,
                "on_backwards must have 'static constexpr backwards_action action' and "
                "'max_step_ms'; use throw_on_backwards, wait_on_backwards<Ms> or "
                "hold_on_backwards<Ms>");
  static_assert(threading_policy<typename Policies::threading>,
                "threading must be flakeid::multi_threaded, flakeid::thread_blocks<B> or "
                "flakeid::single_threaded");
  static_assert(L.time_ordered(),
                "the layout's timestamp must be its most significant field (reserved bits may "
                "stand above it), or IDs would not sort by time");

  constexpr bool threshold_fits = [] {
    using start = typename Policies::sequence_start;
    if constexpr (requires { start::layout_default; })
      if (start::layout_default) return true;
    if constexpr (requires { start::threshold; })
      return start::threshold <= L.max_value(field_kind::sequence);
    return true;
  }();
  static_assert(threshold_fits,
                "cosid_threshold<T>: T is above the layout's largest sequence, so CosId's "
                "sequence would never reset and would wrap to 0, which this generator does not "
                "follow: use a T up to 2^sequence_bits - 1, or cosid_threshold<> for CosId's "
                "default");

  static_assert(!L.has(field_kind::gene) || L.shift(field_kind::gene) == 0,
                "a generator's gene field must be the lowest field of the layout, so that "
                "id % n == key % n: list fields::gene(bits) last");
  static_assert(L.bits(field_kind::gene) <= 12,
                "a gene of at most 12 bits (4096 shards): the generator keeps one state word per "
                "gene value");
  return true;
}

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
