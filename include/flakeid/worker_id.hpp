// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file worker_id.hpp
/// Where a generator's datacenter and worker ids come from.
///
///   fixed_node              values you pass (strong types `datacenter_id`, `worker_id`).
///   env_worker_id           an environment variable (FLAKEID_WORKER_ID by default).
///
/// The sources that ask the host (its name, its address, the process id: `statefulset_ordinal`,
/// `private_ipv4_node`, `host_pid_guess`) are in `host_worker_id.hpp`, POSIX only, so that a
/// generator's include path carries no network header.
///
/// A source models `flakeid::worker_id_source`: `s.assign(layout)` returns a
/// `worker_assignment`. A generator checks the ids against its layout when it is built and
/// throws `field_range_error` when one does not fit. Leases from a coordination service plug in
/// the same way and add a fence that stops the generator when the lease is lost.

#include <atomic>
#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "detail/counted_ptr.hpp"
#include "detail/fork_guard.hpp"
#include "detail/text_util.hpp"
#include "layout.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// A worker id (strong type, so it cannot be swapped with a datacenter id).
struct worker_id {
  std::uint64_t value = 0;
  constexpr explicit worker_id(std::uint64_t v) noexcept : value(v) {}
  friend constexpr bool operator==(worker_id, worker_id) = default;
};

/// A datacenter id (strong type). Layouts without a datacenter field accept only 0.
struct datacenter_id {
  std::uint64_t value = 0;
  constexpr explicit datacenter_id(std::uint64_t v) noexcept : value(v) {}
  friend constexpr bool operator==(datacenter_id, datacenter_id) = default;
};

/// The (datacenter, worker) pair that makes a generator's IDs its own.
struct node_id {
  std::uint64_t datacenter = 0;
  std::uint64_t worker = 0;
  friend constexpr bool operator==(const node_id&, const node_id&) = default;
};

/// Shared between a lease and the generator it fences: a time fence.
///
/// Every ID the generator mints carries a timestamp (the start of its tick, in Unix ms of the
/// generator's own clock) strictly below `deadline_unix_ms`. The generator checks this on the
/// very clock reading that goes into the ID, after reading it, so a thread paused anywhere
/// between the check and the return cannot carry an ID past the deadline. The lease raises the
/// deadline only after its store has recorded the new value, and drops it to `INT64_MIN` when
/// it releases or loses the id, or in a forked child. No thread has to run for the fence to
/// hold: time passing is enough to stop a holder whose renewals stopped.
struct lease_fence {
  /// Exclusive upper bound on the timestamp of every ID (Unix ms). `INT64_MAX`: no limit;
  /// `INT64_MIN`: refuse every ID.
  std::atomic<std::int64_t> deadline_unix_ms{INT64_MAX};
  /// The start of the newest tick the generator minted in (Unix ms), published at each new
  /// tick; the lease records it for the next holder at release.
  std::atomic<std::int64_t> last_unix_ms{INT64_MIN};
  /// How far (ms) the generator's ticks may run ahead of its clock (borrowing, plus one tick),
  /// set by the generator: at release the lease records at least `now + lead_ms`.
  std::atomic<std::int64_t> lead_ms{0};
  /// The process the fence was made in: a generator built on it in a forked child refuses
  /// (`forked_process_error`), as the lease that owns the fence does.
  detail::fork_stamp born;

  /// Whether an ID with timestamp `unix_ms` may be minted now.
  [[nodiscard]] bool allows(std::int64_t unix_ms) const noexcept {
    return unix_ms < deadline_unix_ms.load(std::memory_order_relaxed);
  }
};

/// A shared pointer to a `lease_fence`: the lease (or clock guard) that raises and drops the
/// deadline holds one, and so does every generator on its id; the fence goes with the last of
/// them. `fence_ptr::make()` makes a new one (no limit, as `lease_fence{}`); it copies, compares
/// and tests as `std::shared_ptr` does.
using fence_ptr = detail::counted_ptr<lease_fence>;

/// What a worker-id source hands a generator.
struct worker_assignment {
  node_id node{};
  /// The generator mints only in ticks that start after this Unix time (the last timestamp of
  /// a previous holder of the id, or of this process before a restart). INT64_MIN: no limit.
  std::int64_t not_after_unix_ms = INT64_MIN;
  /// The lease fence, or null for an id that needs no lease.
  fence_ptr fence{};
  /// Where the id came from, for logs: "fixed", "env FLAKEID_WORKER_ID", ...
  std::string source;
};

/// A source of worker ids: `s.assign(layout)` returns the `worker_assignment` for a generator
/// of that layout, or throws `worker_id_error` (or `field_range_error` for an id too large).
template <class S>
concept worker_id_source = requires(S& s, const layout& l) {
  { s.assign(l) } -> std::convertible_to<worker_assignment>;
};

namespace detail {
/// Raises `f.lead_ms` to `lead_ms` (never lowers it: generators sharing a fence keep the largest).
inline void raise_lead(lease_fence& f, std::int64_t lead_ms) noexcept {
  std::int64_t prev = f.lead_ms.load(std::memory_order_relaxed);
  while (prev < lead_ms &&
         !f.lead_ms.compare_exchange_weak(prev, lead_ms, std::memory_order_relaxed)) {
  }
}

/// `s.assign(l)`, after telling a source with a fence (`s.fence()`: a lease, a clock guard) the
/// generator's lead: a clock guard measures its claim's deadline from the clock plus that lead.
template <class Source>
worker_assignment assign_with_lead(Source& s, const layout& l, std::int64_t lead_ms) {
  if constexpr (requires {
                  { s.fence() } -> std::convertible_to<const fence_ptr&>;
                }) {
    if (const fence_ptr& f = s.fence()) raise_lead(*f, lead_ms);
  }
  return worker_assignment(s.assign(l));
}

[[noreturn]] inline void reject_worker(const std::string& msg) {
  throw worker_id_error("flakeid: " + msg);
}

/// The datacenter and worker bits of `l` together: the width of a node number.
inline unsigned node_bits(const layout& l) {
  return l.bits(field_kind::datacenter) + l.bits(field_kind::worker);
}

/// The largest node number of `l`: 2^node_bits(l) - 1.
inline std::uint64_t last_node(const layout& l) {
  const unsigned bits = node_bits(l);
  return bits >= 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
}

/// Node number `n` of `l`: its low worker bits are the worker id, the rest the datacenter id.
/// (How stores that hand out one number per process spread it over the two fields.)
inline node_id node_of(const layout& l, std::uint64_t n) {
  const unsigned wbits = l.bits(field_kind::worker);
  return {.datacenter = wbits >= 64 ? 0 : (n >> wbits),
          .worker = wbits == 0 ? 0 : (n & l.max_value(field_kind::worker))};
}

/// Checks `n` against the layout's field of kind `k` (field_range_error when it does not fit).
inline void check_node_field(const layout& l, field_kind k, std::uint64_t v) {
  (void)l.place(k, v);
}
}  // namespace detail

/// Fixed ids, given by the application.
struct fixed_node {
  node_id node{};
  constexpr fixed_node(datacenter_id d, worker_id w) noexcept : node{d.value, w.value} {}
  constexpr explicit fixed_node(worker_id w) noexcept : node{0, w.value} {}
  [[nodiscard]] worker_assignment assign(const layout&) const {
    return {node, INT64_MIN, nullptr, "fixed"};
  }
};

/// The worker id (and optionally the datacenter id) from environment variables.
/// Throws `worker_id_error` when a variable is missing or not a decimal number.
struct env_worker_id {
  std::string worker_variable = "FLAKEID_WORKER_ID";
  std::string datacenter_variable;  // empty: datacenter 0

  env_worker_id() = default;
  explicit env_worker_id(std::string worker_var, std::string datacenter_var = {})
      : worker_variable(std::move(worker_var)), datacenter_variable(std::move(datacenter_var)) {}

  [[nodiscard]] worker_assignment assign(const layout&) const {
    worker_assignment a;
    a.node.worker = read(worker_variable);
    if (!datacenter_variable.empty()) a.node.datacenter = read(datacenter_variable);
    a.source = "env " + worker_variable;
    return a;
  }

 private:
  static std::uint64_t read(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) detail::reject_worker("environment variable " + name + " is not set");
    std::uint64_t n = 0;
    if (!detail::parse_decimal(v, n))
      detail::reject_worker("environment variable " + name + " is '" + v +
                            "', not a decimal number");
    return n;
  }
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
