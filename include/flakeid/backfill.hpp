// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file backfill.hpp
/// `backfill_minter`: IDs for business times in the past (or future), for rows imported or
/// back-filled after the fact, as NewLife's `NewId(time)` does, but without ever repeating one.
///
///     flakeid::backfill_minter<> old_orders{flakeid::worker_id{31}};  // a worker id of its own
///     std::uint64_t id = old_orders.next_id_at(row.created_at);
///
/// Each ID carries the tick of the time it is given, the minter's node, and the next number of
/// a sequence kept **per tick** (per tick and gene on a gene layout): two calls for the same
/// time get different IDs however many calls come between them. The minter remembers at most
/// `capacity` sequences (one per tick used, per tick and gene on a gene layout; about 50 bytes
/// each). When it must forget one, it forgets the oldest tick and from then on refuses every
/// tick at or below it (`backfill_error`), rather than hand out a number it may already have
/// used; that mark only rises. A new tick not after the oldest one remembered, with the memory
/// full, is refused as well (making room would put it under the mark). Import in time order,
/// or give a longer import a larger capacity or a minter of its own per worker id.
///
/// A generator minting live IDs on the same node can mint the same IDs for the same ticks: give
/// the minter a worker id that no live generator uses (or back-fill only times that no live
/// generator on its node served).
///
/// Thread-safety: every member may be called from any thread (calls take a mutex: back-filling
/// is not a hot path).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "detail/civil_time.hpp"
#include "detail/fork_guard.hpp"
#include "errors.hpp"
#include "layout.hpp"
#include "layouts.hpp"
#include "version.hpp"
#include "worker_id.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// IDs of layout `L` for given times (see the file comment).
template <flakeid::layout L = layouts::twitter>
class backfill_minter {
 public:
  /// Whether the layout has a gene: then `next_id_at(t, key)` is the call.
  static constexpr bool has_gene = L.has(field_kind::gene);
  /// The default bound on the sequences a minter remembers (under a megabyte).
  static constexpr std::size_t default_capacity = 16'384;

  /// Worker `w` (datacenter 0). Throws `field_range_error` when it does not fit the layout,
  /// `invalid_option_error` for `capacity` 0.
  explicit backfill_minter(worker_id w, std::size_t capacity = default_capacity)
      : backfill_minter(datacenter_id{0}, w, capacity) {}

  /// Datacenter `d`, worker `w`. Throws as the one-id form.
  backfill_minter(datacenter_id d, worker_id w, std::size_t capacity = default_capacity)
      : node_{d.value, w.value},
        node_bits_(L.place(field_kind::datacenter, d.value) | L.place(field_kind::worker, w.value)),
        capacity_(capacity) {
    if (capacity_ == 0)
      throw invalid_option_error(
          "flakeid: a backfill minter's capacity of 0 leaves no tick to "
          "mint in: use 1 or more");
  }

  backfill_minter(const backfill_minter&) = delete;
  backfill_minter& operator=(const backfill_minter&) = delete;

  /// An ID in the tick of `t` (any `std::chrono::sys_time`, floored to the millisecond). Not
  /// for gene layouts (use `next_id_at(t, key)`). Throws `timestamp_overflow_error` for `t`
  /// outside the layout's range, `backfill_error` as the file comment says.
  template <class Duration>
  [[nodiscard]] std::uint64_t next_id_at(std::chrono::sys_time<Duration> t) {
    static_assert(!has_gene,
                  "flakeid: this layout's IDs carry a gene: call next_id_at(t, key) with the key "
                  "whose gene the ID takes");
    return mint(L.ticks_at(t), 0);
  }

  /// An ID in the tick of `t` carrying the gene of `key` (its low bits). Only for gene layouts.
  /// Throws as `next_id_at(t)`.
  template <class Duration>
  [[nodiscard]] std::uint64_t next_id_at(std::chrono::sys_time<Duration> t, std::uint64_t key) {
    static_assert(has_gene,
                  "flakeid: this layout has no gene field to carry a key: call next_id_at(t) "
                  "without one");
    return mint(L.ticks_at(t), key & L.max_value(field_kind::gene));
  }

  /// The layout.
  [[nodiscard]] static constexpr const flakeid::layout& layout() noexcept { return layout_value; }
  /// This minter's datacenter and worker ids.
  [[nodiscard]] node_id node() const noexcept { return node_; }
  /// The bound on remembered sequences.
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  /// How many (tick, gene) sequences it remembers now.
  [[nodiscard]] std::size_t remembered() const {
    std::lock_guard lk(m_);
    return next_.size();
  }

 private:
  static constexpr flakeid::layout layout_value = L;
  static constexpr unsigned gene_bits = L.bits(field_kind::gene);
  static constexpr std::uint64_t seq_max = L.max_value(field_kind::sequence);

  std::uint64_t mint(std::uint64_t tick, std::uint64_t gene) {
    const std::uint64_t slot = (tick << gene_bits) | gene;
    born_.check("this backfill minter");  // before the lock, which a parent's thread may hold
    std::lock_guard lk(m_);
    auto it = next_.find(slot);
    if (it == next_.end()) {
      if (forgotten_ && tick <= forgotten_through_) reject_forgotten(tick);
      if (next_.size() == capacity_) {
        // Room comes from forgetting the oldest tick, which would put a tick not after it
        // under the mark: refused, and nothing is forgotten.
        if (tick <= oldest_tick()) reject_full(tick);
        forget_oldest();
      }
      it = next_.emplace(slot, 0).first;
    }
    const std::uint64_t seq = it->second;
    if (seq > seq_max) reject_exhausted(tick);
    ++it->second;
    return (tick << L.shift(field_kind::timestamp)) | node_bits_ |
           (seq << L.shift(field_kind::sequence)) | (gene << L.shift(field_kind::gene));
  }

  [[nodiscard]] std::uint64_t oldest_tick() const { return next_.begin()->first >> gene_bits; }

  /// Drops the oldest remembered tick (all its genes); every tick up to it is refused from now.
  /// The mark only rises: every remembered tick lies above it, and so does the oldest.
  void forget_oldest() {
    const std::uint64_t tick = oldest_tick();
    while (!next_.empty() && (next_.begin()->first >> gene_bits) == tick)
      next_.erase(next_.begin());
    forgotten_through_ = forgotten_ ? std::max(forgotten_through_, tick) : tick;
    forgotten_ = true;
  }

  [[noreturn]] void reject_exhausted(std::uint64_t tick) const {
    throw backfill_error("flakeid: back-fill tick " + detail::format_utc(L.time_at(tick)) +
                         " has used all " + std::to_string(seq_max + 1) +
                         " sequence numbers of node (" + std::to_string(node_.datacenter) + ", " +
                         std::to_string(node_.worker) + "): use another worker id for more");
  }

  [[noreturn]] void reject_forgotten(std::uint64_t tick) const {
    throw backfill_error("flakeid: back-fill tick " + detail::format_utc(L.time_at(tick)) +
                         " is at or before " + detail::format_utc(L.time_at(forgotten_through_)) +
                         ", which this minter no longer remembers (it keeps " +
                         std::to_string(capacity_) +
                         " sequences): mint in time order, raise its capacity, or use another "
                         "worker id");
  }

  [[noreturn]] void reject_full(std::uint64_t tick) const {
    throw backfill_error("flakeid: back-fill tick " + detail::format_utc(L.time_at(tick)) +
                         " is not after " + detail::format_utc(L.time_at(oldest_tick())) +
                         ", the oldest tick this minter remembers, and its memory is full (it "
                         "keeps " +
                         std::to_string(capacity_) +
                         " sequences): mint in time order, raise its capacity, or use another "
                         "worker id");
  }

  node_id node_;
  std::uint64_t node_bits_ = 0;
  std::size_t capacity_ = 0;
  detail::fork_stamp born_;  // a forked child's calls throw: its copy's worker is the parent's
  mutable std::mutex m_;
  std::map<std::uint64_t, std::uint64_t> next_;  // (tick << gene bits | gene) -> next sequence
  bool forgotten_ = false;
  std::uint64_t forgotten_through_ = 0;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
