// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment/generator.hpp
/// `segment_generator`: IDs from the current segment, lock-free; the caller that runs past its
/// end fetches the next segment from the store.

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include "../clock.hpp"
#include "engine.hpp"
#include "options.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

// ---- segment_generator ---------------------------------------------------------------------

/// Dense, strictly increasing IDs from a store counter, a segment of `step` IDs at a time:
/// the current segment is served lock-free; the caller that runs past its end fetches the next
/// one from the store (one `next_max_id(step)` call) while the others wait for it.
///
/// Requirements: `Distributor` models `segment_distributor`; `Clock` models `clock_source` (it
/// is read only for segments with a time to live). Throws: `invalid_option_error` from the
/// constructor for a bad option; `segment_store_error` from `next_id` when the store fails
/// (nothing is handed out; the next call tries the store again); `segment_closed_error` after
/// `close()`. The constructor does not call the store. Thread-safety: all members may be
/// called concurrently; IDs are unique across threads and increasing within each thread.
/// Fork: in a child forked after the generator was made, every call throws
/// `forked_process_error` before it takes a lock or reads the parent's segment.
///
///     flakeid::memory_store store;
///     flakeid::segment_generator gen{store.distributor("invoices"), {.step = 100}};
///     gen.next_id();  // 1
template <class Distributor, class Clock = wall_clock>
class segment_generator {
  static_assert(detail::check_segment_params<Distributor, Clock>());

 public:
  using distributor_type = Distributor;
  using clock_type = Clock;

  /// A generator on counter `d` with `opts` (step, time to live).
  explicit segment_generator(Distributor d, segment_options opts = {}, Clock clock = Clock{})
      : engine_(std::move(d), std::move(clock), detail::segment_numbering::of(opts), opts.ttl, 4) {}

  /// A generator on counter `d` with segments of `step` IDs.
  segment_generator(Distributor d, std::uint64_t step, Clock clock = Clock{})
      : segment_generator(std::move(d), segment_options{.step = step}, std::move(clock)) {}

  segment_generator(const segment_generator&) = delete;
  segment_generator& operator=(const segment_generator&) = delete;

  /// The next ID. Throws `segment_store_error`, `segment_closed_error`, or
  /// `forked_process_error` in a child forked after the generator was made.
  [[nodiscard]] std::uint64_t next_id() {
    engine_.check_fork(forked_what);
    return engine_.next_id();
  }

  /// Fills `out` with increasing IDs (consecutive within a segment). On a throw, the IDs
  /// already written to `out` are handed out and the rest of `out` is unspecified.
  void next_ids(std::span<std::uint64_t> out) {
    engine_.check_fork(forked_what);
    engine_.next_ids(out);
  }

  /// Stops the generator: later calls throw `segment_closed_error`. The rest of the current
  /// segment is never handed out (a gap in the counter); store state is untouched.
  void close() { engine_.close(); }

  /// The distributor (store and key).
  [[nodiscard]] const Distributor& distributor() const noexcept { return engine_.distributor(); }
  /// IDs per segment.
  [[nodiscard]] std::uint64_t step() const noexcept { return engine_.step(); }
  /// The distance between two consecutive IDs of a segment (1 unless interleaving).
  [[nodiscard]] std::uint64_t stride() const noexcept { return engine_.stride(); }
  /// Every ID's remainder modulo `stride()`.
  [[nodiscard]] std::uint64_t remainder() const noexcept { return engine_.remainder(); }
  /// Successful store calls so far.
  [[nodiscard]] std::uint64_t store_calls() const noexcept { return engine_.store_calls(); }
  /// Whether the latest store call failed (none yet: false); `last_error()` says how.
  [[nodiscard]] bool store_failing() const noexcept { return engine_.store_failing(); }
  /// The message of the latest store failure, or empty.
  [[nodiscard]] std::string last_error() const { return engine_.last_error(); }

 private:
  static constexpr std::string_view forked_what = "this segment generator";
  detail::segment_engine<Distributor, Clock> engine_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
