// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file clock_guard.hpp
/// `clock_guard_file`: a fixed worker id, and a local state file that remembers how far the
/// generator may have minted, so a process restarted after the wall clock moved back waits or
/// refuses instead of repeating IDs. No server is involved.
///
/// The guard is an ordinary lease with exactly one id over the file store of the guard's
/// directory: guard `<dir>/<name>` keeps its state in `<dir>/flakeid-guard-<name>-0.lease`
/// (`<name>` with every character but letters, digits, '_' and '-' turned into '_'), with the
/// same time fence as every lease. The file holds a deadline, written and `fsync`ed before the
/// generator may mint up to it, and every ID the generator mints has a timestamp strictly below
/// that deadline, also when it borrows future ticks. A background thread moves the deadline on
/// every `ttl / 3`, to `now + lead + ttl - margin`, where `lead` is how far the generator may
/// borrow ahead of its clock (`borrow_ticks`, plus one tick): no other process can take the id,
/// so the deadline is measured from the furthest tick the generator may use, and a generator
/// whose renewals are confirmed is never refused, however far it borrows. A generator built on
/// the guard tells it its lead before the claim; the claim waits for a recorded timestamp by the
/// plain clock, and before `assign` returns a confirmed renewal has moved the deadline to cover
/// the lead, so no ID is refused in the first `ttl / 3` either. (A generator built from an
/// assignment taken earlier sets its lead later: the next renewal adds it.) The destructor writes the last timestamp (the clock plus
/// the lead, when the generator borrows). So after a clean shutdown the next start is limited
/// by the last ID, and after a crash by at most `ttl` plus the lead more. At start, a recorded
/// timestamp ahead of the clock by up to `max_wait` is waited for; a larger one throws
/// `clock_backwards_error`: give a generator that borrows far a `max_wait` above its lead. The
/// file is held with `flock`: a second process using the same guard fails with
/// `worker_id_error` instead of sharing the worker id.
///
///     flakeid::clock_guard_file guard{"/var/lib/orders/flakeid.state",
///                                     flakeid::fixed_node{flakeid::worker_id{7}}};
///     flakeid::classic_snowflake<> gen{guard};      // state: /var/lib/orders/
///                                                   //   flakeid-guard-flakeid_state-0.lease
///
/// Earlier versions kept the state in `<dir>/<name>` itself. When that file exists, every start
/// copies its timestamp into the lease file when the lease file does not exist or holds less, so
/// the restart after an upgrade is guarded as before, and so is one after an earlier version ran
/// again (a rollback); the old file may be deleted once no earlier version runs.
///
/// Use `options.use_clock(c)` when the generator reads another clock than the system clock.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "detail/posix_file.hpp"
#include "errors.hpp"
#include "lease.hpp"
#include "store/file.hpp"
#include "version.hpp"
#include "worker_id.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// A fixed node plus a restart clock guard named `file` (see the file comment). Models
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

  /// The guard `file`: one id of namespace `guard-<file name>` in the file store of `file`'s
  /// directory (made, like every file store's, when missing). The guard sets
  /// `options.name_space` and `options.max_ids`.
  clock_guard_file(const std::string& file, fixed_node node,
                   const lease_options& options = default_options())
      : node_(node.node),
        file_(file),
        store_(detail::parent_directory(file), {.name_space = namespace_of(file)}),
        lease_(store_.lease(ahead_clock(one_id(options, store_.options().name_space), lead_))) {}

  clock_guard_file(const clock_guard_file&) = delete;
  clock_guard_file& operator=(const clock_guard_file&) = delete;
  ~clock_guard_file() { release(); }

  /// Reads the state (waiting or throwing as the file comment says), locks it and starts the
  /// writer; the assignment carries the fixed node and the recorded timestamp.
  [[nodiscard]] worker_assignment assign(const flakeid::layout& l) {
    detail::check_node_field(l, field_kind::datacenter, node_.datacenter);
    detail::check_node_field(l, field_kind::worker, node_.worker);
    adopt_earlier_state();
    (void)lease_.acquire(1);
    // From here the lease measures from the clock plus the generator's lead; a generator built
    // on the guard has set it before the claim, and the claim's deadline is raised to cover it
    // before the generator mints.
    lead_->fence.store(lease_.fence().get(), std::memory_order_release);
    if (lease_.fence()->lead_ms.load(std::memory_order_acquire) > 0) lease_.renew_now();
    worker_assignment a;
    a.node = node_;
    a.not_after_unix_ms = detail::unix_ms_or_min(lease_.not_after());
    a.fence = lease_.fence();
    a.source = "fixed, clock guard " + file_;
    return a;
  }

  /// The file that holds the guard's state: `<dir>/flakeid-guard-<name>-0.lease`.
  [[nodiscard]] std::string state_file() const {
    return detail::join_path(store_.directory(), detail::file_lease_store::lock_file_name(
                                                     store_.options().name_space, 0));
  }
  /// The timestamp the state held at start; empty: a new guard.
  [[nodiscard]] std::optional<lease_time> recorded() const { return lease_.previous_last(); }
  /// Writes the last timestamp and unlocks the file (also done by the destructor).
  void release() noexcept {
    lead_->released.store(true, std::memory_order_release);  // the release reads the clock
    lease_.release();
  }
  [[nodiscard]] const fence_ptr& fence() const noexcept { return lease_.fence(); }
  /// The lease under the guard (its deadline, events and options).
  [[nodiscard]] const lease& guard_lease() const noexcept { return lease_; }

 private:
  /// `guard-` and the file name, each character outside [A-Za-z0-9_-] as '_', at most 40 in all.
  static std::string namespace_of(std::string_view file) {
    std::string ns = "guard-";
    for (const char c : detail::file_name_of(file)) {
      if (ns.size() == 40) break;
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '_' || c == '-';
      ns += plain ? c : '_';
    }
    return ns;
  }

  static lease_options one_id(lease_options o, const std::string& ns) {
    o.name_space = ns;
    o.max_ids = 1;
    return o;
  }

  /// What the guard's clock adds to the generator's: the lead the generator set on the fence,
  /// from the end of the claim (whose wait for a recorded timestamp reads the plain clock) until
  /// the release (which adds the lead itself).
  struct lead_source {
    std::atomic<const lease_fence*> fence{nullptr};
    std::atomic<bool> released{false};
  };

  /// `o` reading the clock plus the generator's lead: the lease measures its deadlines from
  /// the furthest tick the generator may use.
  static lease_options ahead_clock(lease_options o, const std::shared_ptr<lead_source>& lead) {
    o.now = [clock = detail::lease_clock(o), lead] {
      const lease_fence* f = lead->fence.load(std::memory_order_acquire);
      if (f == nullptr || lead->released.load(std::memory_order_acquire)) return clock();
      return clock() + std::chrono::milliseconds{f->lead_ms.load(std::memory_order_acquire)};
    };
    return o;
  }

  /// Copies the timestamp that an earlier version kept in `file_` itself into the state file,
  /// when the state file does not exist yet (see the file comment).
  void adopt_earlier_state() {
    const detail::unique_fd old{::open(file_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)};
    if (old.get() < 0) return;  // none (or not ours to read): nothing to adopt
    if (!detail::lock_file(old.get(), LOCK_SH | LOCK_NB))
      throw worker_id_error("flakeid: clock guard file " + file_ +
                            " is locked by another process using the same worker id");
    const std::int64_t last = detail::file_lease_store::read_number(old.get());
    if (last == INT64_MIN) return;
    struct stat dir {};
    if (::stat(store_.directory().c_str(), &dir) != 0) return;  // the lease reports it
    const std::string state = state_file();
    const detail::unique_fd fd{::open(state.c_str(),
                                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                      detail::file_lease_store::lock_file_mode(dir))};
    if (fd.get() < 0) {
      if (errno == EEXIST) return raise_state(last, state);  // adopted before
      throw lease_store_error("flakeid: cannot create " + state + ": " + std::strerror(errno));
    }
    (void)::fchmod(fd.get(), detail::file_lease_store::lock_file_mode(dir));  // past the umask
    detail::file_lease_store::write_raw(fd.get(), last, state);
    const detail::unique_fd d{
        ::open(store_.directory().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (d.get() < 0 || !detail::sync_fd(d.get()))
      throw lease_store_error("flakeid: cannot sync the directory of " + state);
  }

  /// Raises the state file `state` to `last` when it holds less: an earlier version ran again
  /// after the adoption (a rollback), so the mark never goes down. Left alone while another
  /// guard holds it (whose claim then fails anyway).
  static void raise_state(std::int64_t last, const std::string& state) {
    const detail::unique_fd fd{::open(state.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC)};
    if (fd.get() < 0 || !detail::lock_file(fd.get(), LOCK_EX | LOCK_NB)) return;
    const std::int64_t recorded = detail::file_lease_store::read_number(fd.get());
    if (recorded < last) detail::file_lease_store::write_raw(fd.get(), last, state);
  }

  node_id node_;
  std::string file_;
  std::shared_ptr<lead_source> lead_ = std::make_shared<lead_source>();
  file_store store_;
  lease lease_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
