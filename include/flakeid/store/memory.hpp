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
///     auto lease = store.lease();
///     flakeid::classic_snowflake<> gen{lease};

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../detail/fork_guard.hpp"
#include "../detail/server_store.hpp"
#include "../errors.hpp"
#include "../segment.hpp"
#include "../version.hpp"
#if !defined(_WIN32)
#include "../lease.hpp"
#endif

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {
/// A worker id's record in a memory store.
struct memory_lease_record {
  using time = std::chrono::sys_time<std::chrono::milliseconds>;  ///< `flakeid::lease_time`
  std::string holder;                                             ///< empty: released
  time busy_until = time::min();                                  ///< free from then on
  std::optional<time> deadline;  ///< every ID of its holders lies below it (empty: none yet)
  std::string instance;          ///< the instance of its last holder (empty: none)
};

/// A counter of a memory store, and when it may be dropped (after `expire_after`).
struct memory_counter {
  using clock = std::chrono::steady_clock;
  std::atomic<std::uint64_t> value{0};
  std::atomic<clock::rep> expires{clock::time_point::max().time_since_epoch().count()};
};

/// The lease records of one namespace, shared by every memory store of the process that
/// leases in it, and by their leases.
struct memory_lease_book {
  std::mutex mutex;
  std::map<std::uint64_t, memory_lease_record> ids;
};

/// The book of namespace `ns`: the one a live store or lease of this process keeps, else a
/// new one. A store made again therefore finds the ids its predecessor's leases still hold.
inline std::shared_ptr<memory_lease_book> memory_lease_book_of(const std::string& ns) {
  struct registry {
    std::mutex mutex;
    std::map<std::string, std::weak_ptr<memory_lease_book>, std::less<>> books;
  };
  // Never destroyed: leases may outlive statics.
  // NOLINTNEXTLINE(cppcoreguidelines-owning-memory,cppcoreguidelines-avoid-non-const-global-variables)
  static auto* const r = new registry;
  std::lock_guard lk(r->mutex);
  std::erase_if(r->books, [](const auto& kv) { return kv.second.expired(); });
  std::weak_ptr<memory_lease_book>& w = r->books[ns];
  std::shared_ptr<memory_lease_book> b = w.lock();
  if (!b) {
    b = std::make_shared<memory_lease_book>();
    w = b;
  }
  return b;
}

/// The counters of a memory store and the lease books of its namespaces, shared by the store,
/// its distributors and its leases.
struct memory_store_state {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<memory_counter>, std::less<>> counters;
  std::atomic<std::uint64_t> calls{0};
  fork_stamp born;  // a forked child has a copy of the counters: it may use none of them

  /// Throws `forked_process_error` in a child forked after the store was made.
  void check_fork() const { born.check("this memory store"); }
  std::map<std::string, std::shared_ptr<memory_lease_book>, std::less<>> leases;

  /// The lease book of namespace `ns`, kept for as long as this store lives.
  std::shared_ptr<memory_lease_book> book(const std::string& ns) {
    check_fork();
    std::lock_guard lk(mutex);
    std::shared_ptr<memory_lease_book>& b = leases[ns];
    if (!b) b = memory_lease_book_of(ns);
    return b;
  }

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

#if !defined(_WIN32)
namespace detail {

/// The lease protocol over a memory store: an id is busy while its holder renews it (until
/// `ttl + safe_guard` after the last renewal on the lease's clock) and for `safe_guard` after
/// a release. An instance's id held by another lease is held by a live holder: every holder
/// of a memory store is in this process and lets go when it is destroyed. The records of a
/// namespace are the process's (`memory_lease_book_of`), never one store's: they go only once
/// no store or lease of the namespace is left, and no holder with them.
class memory_lease_store final : public lease_store {
 public:
  memory_lease_store(const std::shared_ptr<memory_store_state>& s, const lease_options& o)
      : s_(s->book(o.name_space)),
        hold_(o.ttl + o.safe_guard),
        guard_(o.safe_guard),
        now_(lease_clock(o)) {}

  [[nodiscard]] std::string where() const override { return "memory store"; }

  std::optional<lease_claim> claim(const claim_request& r) override {
    std::lock_guard lk(s_->mutex);
    auto& ids = s_->ids;
    const lease_time now = now_();
    if (!r.instance.empty()) {
      for (auto& [id, rec] : ids) {
        if (id >= r.count || rec.instance != r.instance) continue;
        if (!rec.holder.empty() && rec.busy_until > now) {
          lease_claim c;
          c.id = id;
          c.last = rec.deadline;
          c.held_by_instance = true;
          c.holder_alive = true;
          return c;
        }
        lease_claim c = take(rec, id, r, now);
        c.own_instance = true;
        return c;
      }
    }
    // The lowest free id whose deadline is settled; else the free one with the earliest
    // deadline that is not too far ahead (the claimer waits for it).
    std::optional<std::uint64_t> best;
    lease_time best_deadline = lease_time::max();
    for (std::uint64_t id = 0; id < r.count; ++id) {
      const auto it = ids.find(id);
      if (it == ids.end()) return take(ids[id], id, r, now);
      const memory_lease_record& rec = it->second;
      if (rec.busy_until > now) continue;
      if (!rec.deadline || *rec.deadline <= r.settled) return take(ids[id], id, r, now);
      if (*rec.deadline <= r.skip_above && *rec.deadline < best_deadline) {
        best = id;
        best_deadline = *rec.deadline;
      }
    }
    if (best) return take(ids[*best], *best, r, now);
    return std::nullopt;
  }

  renewal renew(std::uint64_t id, const std::string& holder, lease_time deadline) override {
    std::lock_guard lk(s_->mutex);
    memory_lease_record* rec = record_of(id, holder);
    if (rec == nullptr) return renewal::taken;
    rec->busy_until = now_() + hold_;
    raise(*rec, deadline);
    return renewal::held;
  }

  void release(std::uint64_t id, const std::string& holder, lease_time last) override {
    std::lock_guard lk(s_->mutex);
    memory_lease_record* rec = record_of(id, holder);
    if (rec == nullptr) return;
    rec->holder.clear();
    rec->deadline = last;
    rec->busy_until = now_() + guard_;
  }

 private:
  static void raise(memory_lease_record& rec, lease_time deadline) {
    rec.deadline = rec.deadline ? std::max(*rec.deadline, deadline) : deadline;
  }

  lease_claim take(memory_lease_record& rec, std::uint64_t id, const claim_request& r,
                   lease_time now) const {
    if (!r.instance.empty()) {  // an instance is recorded on one id at most
      for (auto& [other, o] : s_->ids)
        if (o.instance == r.instance) o.instance.clear();
    }
    lease_claim c;
    c.id = id;
    c.last = rec.deadline;
    rec.holder = r.holder;
    rec.instance = r.instance;
    rec.busy_until = now + hold_;
    raise(rec, r.deadline);
    return c;
  }

  memory_lease_record* record_of(std::uint64_t id, const std::string& holder) {
    auto& ids = s_->ids;
    const auto it = ids.find(id);
    return it == ids.end() || it->second.holder != holder ? nullptr : &it->second;
  }

  std::shared_ptr<memory_lease_book> s_;
  std::chrono::milliseconds hold_;
  std::chrono::milliseconds guard_;
  std::function<lease_time()> now_;
};

}  // namespace detail
#endif  // !_WIN32

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
  /// A lease on a worker id of this store's namespace (see `lease`): each live lease of the
  /// store holds another id, and an id given back is handed out again after `safe_guard`.
  /// Throws as `lease`'s constructor.
  [[nodiscard]] flakeid::lease lease(lease_options options = {}) const {
    options = detail::lease_options_for_store(std::move(options), options_);
    return {std::make_unique<detail::memory_lease_store>(s_, options), options};
  }
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
