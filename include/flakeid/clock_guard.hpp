// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file clock_guard.hpp
/// `clock_guard_file`: a fixed worker id, and a local state file that remembers how far the
/// generator may have minted, so a process restarted after the wall clock moved back waits or
/// refuses instead of repeating IDs. No lease store is involved.
///
/// The guard is a lease over one file, with the same time fence as every lease: the file holds
/// a deadline, written and `fsync`ed (file and directory) before the generator may mint up to
/// it, and every ID the generator mints has a timestamp strictly below that deadline, also when
/// it borrows future ticks. A background thread moves the deadline on every `ttl / 3` (to
/// `now + ttl - margin`), and the destructor writes the exact last timestamp. So after a clean
/// shutdown the next start is limited by the last ID itself, and after a crash by at most `ttl`
/// more. At start, a recorded timestamp ahead of the clock by up to `max_wait` is waited for; a
/// larger one throws `clock_backwards_error`. The file is held with `flock`: a second process
/// using the same file fails with `worker_id_error` instead of sharing the worker id.
///
///     flakeid::clock_guard_file guard{"/var/lib/orders/flakeid.state",
///                                     flakeid::fixed_node{flakeid::worker_id{7}}};
///     flakeid::classic_snowflake<> gen{guard};
///
/// Use `options.use_clock(c)` when the generator reads another clock than the system clock.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "lease.hpp"
#include "store/file.hpp"
#include "version.hpp"
#include "worker_id.hpp"

namespace flakeid::inline FLAKEID_ABI_NAMESPACE {

/// A fixed node plus a restart clock guard in `file` (see the file comment). Models
/// `worker_id_source`; serves one generator and must outlive it.
class clock_guard_file {
 public:
  /// Settings suited to a guard: written every 500 ms, waits up to 3 s at start.
  [[nodiscard]] static lease_options default_options() {
    lease_options o;
    o.ttl = std::chrono::milliseconds{1'500};
    o.safe_guard = std::chrono::milliseconds{0};
    o.max_wait = std::chrono::milliseconds{3'000};
    return o;
  }

  clock_guard_file(const std::filesystem::path& file, fixed_node node,
                   const lease_options& options = default_options())
      : node_(node.node),
        file_(file),
        lease_(std::make_unique<detail::file_lease_store>(file, options, true), options) {}

  /// Reads the file (waiting or throwing as the class comment says), locks it and starts the
  /// writer; the assignment carries the fixed node and the recorded timestamp.
  [[nodiscard]] worker_assignment assign(const flakeid::layout& l) {
    detail::check_node_field(l, field_kind::datacenter, node_.datacenter);
    detail::check_node_field(l, field_kind::worker, node_.worker);
    (void)lease_.acquire(1);
    worker_assignment a;
    a.node = node_;
    a.not_after_unix_ms = detail::unix_ms_or_min(lease_.not_after());
    a.fence = lease_.fence();
    a.source = "fixed, clock guard " + file_.string();
    return a;
  }

  /// The timestamp the file held at start; empty: a new file.
  [[nodiscard]] std::optional<lease_time> recorded() const { return lease_.previous_last(); }
  /// Deprecated: `recorded()` in Unix ms, INT64_MIN for a new file.
  [[deprecated("use recorded(), a std::optional<flakeid::lease_time>")]] [[nodiscard]] std::int64_t
  recorded_unix_ms() const {
    return detail::unix_ms_or_min(recorded());
  }
  /// Writes the exact last timestamp and unlocks the file (also done by the destructor).
  void release() noexcept { lease_.release(); }
  [[nodiscard]] const std::shared_ptr<lease_fence>& fence() const noexcept {
    return lease_.fence();
  }
  /// The lease under the guard (its deadline, events and options).
  [[nodiscard]] const lease& guard_lease() const noexcept { return lease_; }

 private:
  node_id node_;
  std::filesystem::path file_;
  lease lease_;
};

}  // namespace flakeid::inline FLAKEID_ABI_NAMESPACE
