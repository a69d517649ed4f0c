// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file store/memory_lease.hpp
/// The lease protocol over a `memory_store` (POSIX only): the records of each namespace, shared
/// by every memory store of the process, and `memory_store::lease`, declared in
/// `store/memory.hpp`.
///
///     flakeid::memory_store store;
///     auto lease = store.lease();           // worker ids for generators of this process
///     flakeid::classic_snowflake<> gen{lease};

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "../detail/server_store.hpp"
#include "../lease.hpp"
#include "../version.hpp"
#include "memory.hpp"

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

/// The lease book of namespace `ns` for store state `s`, kept for as long as the store lives.
inline std::shared_ptr<memory_lease_book> memory_lease_book_for(memory_store_state& s,
                                                                const std::string& ns) {
  s.check_fork();
  std::lock_guard lk(s.mutex);
  std::shared_ptr<memory_lease_book>& b = s.leases[ns];
  if (!b) b = memory_lease_book_of(ns);
  return b;
}

/// The lease protocol over a memory store: an id is busy while its holder renews it (until
/// `ttl + safe_guard` after the last renewal on the lease's clock) and for `safe_guard` after
/// a release. An instance's id held by another lease is held by a live holder: every holder
/// of a memory store is in this process and lets go when it is destroyed. The records of a
/// namespace are the process's (`memory_lease_book_of`), never one store's: they go only once
/// no store or lease of the namespace is left, and no holder with them.
class memory_lease_store final : public lease_store {
 public:
  memory_lease_store(const std::shared_ptr<memory_store_state>& s, const lease_options& o)
      : s_(memory_lease_book_for(*s, o.name_space)),
        hold_(o.ttl + o.safe_guard),
        guard_(o.safe_guard),
        now_(lease_clock(o)) {}

  [[nodiscard]] std::string where() const override { return "memory store"; }

  std::optional<lease_claim> do_claim(const claim_request& r) override {
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
      if (rec.busy_until > now || detail::kept_for_another(rec.instance, rec.deadline, r)) continue;
      if (!rec.deadline || *rec.deadline <= r.settled) return take(ids[id], id, r, now);
      if (*rec.deadline <= r.skip_above && *rec.deadline < best_deadline) {
        best = id;
        best_deadline = *rec.deadline;
      }
    }
    if (best) return take(ids[*best], *best, r, now);
    return std::nullopt;
  }

  renewal do_renew(std::uint64_t id, const std::string& holder, lease_time deadline) override {
    std::lock_guard lk(s_->mutex);
    memory_lease_record* rec = record_of(id, holder);
    if (rec == nullptr) return renewal::taken;
    rec->busy_until = now_() + hold_;
    raise(*rec, deadline);
    return renewal::held;
  }

  void do_release(std::uint64_t id, const std::string& holder, lease_time last) override {
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
  callback<lease_time()> now_;
};

}  // namespace detail

template <std::same_as<lease_options> Options>
auto memory_store::lease(Options options) const {
  options = detail::lease_options_for_store(std::move(options), options_);
  return flakeid::lease{std::make_unique<detail::memory_lease_store>(s_, options), options};
}

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
