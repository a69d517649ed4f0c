// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file store/memory.hpp
/// `memory_store`: segment counters and worker-id leases in this process's memory, for one
/// process, tests and benchmarks; everything is lost at exit (leases are POSIX only). Like every
/// store, it offers the two protocols: `.distributor(key)` (a `keyed_segment_distributor`) and
/// `.lease(options)`.
///
///     flakeid::memory_store store;
///     flakeid::segment_chain_generator ids{store.distributor("orders")};
///     auto lease = store.lease();  // with <flakeid/store/memory_lease.hpp>
///     flakeid::classic_snowflake<> gen{lease};
///
/// This header holds the store and its counters; the lease protocol over it is in
/// `store/memory_lease.hpp`, which a caller of `.lease()` includes (as `<flakeid/flakeid.hpp>`
/// does), so that a translation unit that only counts does not compile the lease engine.

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "../detail/fork_guard.hpp"
#include "../detail/server_store.hpp"
#include "../errors.hpp"
#include "../segment.hpp"
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

#if !defined(_WIN32)
struct lease_options;  // lease.hpp
#endif

namespace detail {
/// A counter of a memory store, and when it may be dropped (after `expire_after`).
struct memory_counter {
  using clock = std::chrono::steady_clock;
  std::atomic<std::uint64_t> value{0};
  std::atomic<clock::rep> expires{clock::time_point::max().time_since_epoch().count()};
};

struct memory_lease_book;  // store/memory_lease.hpp

/// The counters of a memory store and the lease books of its namespaces, shared by the store,
/// its distributors and its leases.
struct memory_store_state {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<memory_counter>, std::less<>> counters;
  std::atomic<std::uint64_t> calls{0};
  fork_stamp born;  // a forked child has a copy of the counters: it may use none of them

  /// Throws `forked_process_error` in a child forked after the store was made.
  void check_fork() const { born.check("this memory store"); }
  /// The lease books of the namespaces this store has leased in, kept for as long as it lives
  /// (`memory_lease_book_for`, store/memory_lease.hpp).
  std::map<std::string, std::shared_ptr<memory_lease_book>, std::less<>> leases;

  /// Counter `key` (made at 0 when missing). Drops the expired counters that no distributor
  /// holds first.
  std::shared_ptr<memory_counter> counter(const std::string& key) {
    check_segment_key(key);
    check_fork();
    std::lock_guard lk(mutex);
    const auto now = memory_counter::clock::now().time_since_epoch().count();
    std::erase_if(counters, [&](const auto& kv) {
      return kv.second.use_count() == 1 && kv.second->expires.load(std::memory_order_relaxed) < now;
    });
    auto& c = counters[key];
    if (!c) c = std::make_shared<memory_counter>();
    return c;
  }
};
}  // namespace detail

/// A counter of a `memory_store`. Cheap to copy; copies advance the same counter.
/// `next_max_id` is lock-free and thread-safe. Throws `segment_store_error` when the counter
/// would pass 2^64 - 1, `forked_process_error` in a child forked after the store was made (the
/// child's copy of the counters is not the parent's).
class memory_distributor {
 public:
  /// Adds `step` to the counter and returns its new value.
  std::uint64_t next_max_id(std::uint64_t step) {
    state_->check_fork();
    std::atomic<std::uint64_t>& value = counter_->value;
    std::uint64_t cur = value.load(std::memory_order_relaxed);
    do {
      if (cur > std::numeric_limits<std::uint64_t>::max() - step)
        detail::throw_store_overflow("memory", key_, cur, step);
    } while (!value.compare_exchange_weak(cur, cur + step, std::memory_order_acq_rel,
                                          std::memory_order_relaxed));
    if (idle_.count() > 0)
      counter_->expires.store(
          (detail::memory_counter::clock::now() + idle_).time_since_epoch().count(),
          std::memory_order_relaxed);
    state_->calls.fetch_add(1, std::memory_order_relaxed);
    return cur + step;
  }
  /// From now on every `next_max_id` also lets the store drop the counter `idle` after it,
  /// once no distributor of it is left (the next `distributor()` call of the store drops it).
  /// Not to be called while another thread uses this distributor. Throws
  /// `invalid_option_error` below 1 ms.
  void expire_after(std::chrono::milliseconds idle) {
    detail::check_timeout("segment counter", "expire_after", idle, std::chrono::milliseconds{1});
    idle_ = idle;
  }
  /// `"memory"`.
  [[nodiscard]] std::string_view store_name() const noexcept { return "memory"; }
  /// The counter's key.
  [[nodiscard]] std::string_view key() const noexcept { return key_; }
  /// A distributor for counter `key` of the same store. Throws `invalid_option_error` for an
  /// empty key.
  [[nodiscard]] memory_distributor with_key(const std::string& key) const { return {state_, key}; }

 private:
  friend class memory_store;
  memory_distributor(std::shared_ptr<detail::memory_store_state> s, const std::string& key)
      : state_(std::move(s)), key_(key), counter_(state_->counter(key)) {}
  std::shared_ptr<detail::memory_store_state> state_;
  std::string key_;
  std::shared_ptr<detail::memory_counter> counter_;
  std::chrono::milliseconds idle_{0};  // 0: no expiry
};

/// Segment counters and worker-id leases in this process's memory: for one process, tests and
/// benchmarks. Copies share the counters and the leases. Thread-safe. In a forked child every
/// counter, lease and look-up throws `forked_process_error`: the child holds a copy only.
///
///     flakeid::memory_store store;
///     auto d = store.distributor("orders");
///     d.next_max_id(100);  // 100: the caller owns 1..100
///     auto lease = store.lease();           // worker ids for generators of this process
///     flakeid::classic_snowflake<> gen{lease};
class memory_store {
 public:
  /// An empty store; `options.name_space` names its leases' namespace (the timeouts are not
  /// used). Throws `invalid_option_error` for a bad namespace.
  explicit memory_store(store_options options = {})
      : s_(std::make_shared<detail::memory_store_state>()), options_(std::move(options)) {
    detail::check_store_options(options_, "memory store");
  }

#if !defined(_WIN32)
  /// A `flakeid::lease` on a worker id of this store's namespace (see `lease`): each live lease
  /// of the store holds another id, and an id given back is handed out again after
  /// `safe_guard`. Throws as `lease`'s constructor. Defined in `store/memory_lease.hpp`: a
  /// call without it does not compile ("used before its type is deduced").
  template <std::same_as<lease_options> Options = lease_options>
  [[nodiscard]] auto lease(Options options = {}) const;
#endif

  /// A distributor for counter `key` (created at 0 on first use). Throws
  /// `invalid_option_error` for an empty key.
  [[nodiscard]] memory_distributor distributor(const std::string& key) const { return {s_, key}; }
  /// The counter's value: the largest ID reserved so far (0 when unused).
  [[nodiscard]] std::uint64_t current(std::string_view key) const {
    s_->check_fork();
    std::lock_guard lk(s_->mutex);
    auto it = s_->counters.find(key);
    return it == s_->counters.end() ? 0 : it->second->value.load(std::memory_order_acquire);
  }
  /// Successful `next_max_id` calls over all counters.
  [[nodiscard]] std::uint64_t calls() const noexcept {
    return s_->calls.load(std::memory_order_relaxed);
  }
  /// The options.
  [[nodiscard]] const store_options& options() const noexcept { return options_; }

 private:
  std::shared_ptr<detail::memory_store_state> s_;
  store_options options_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
