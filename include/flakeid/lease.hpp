#pragma once
/// \file lease.hpp
/// Worker-id leases: a process holds one worker id (or datacenter and worker) for as long as it
/// keeps renewing, and a generator built on the lease stops minting when it cannot confirm it.
///
///   lease              the engine every store shares: claim, background renewal, the fence,
///                      the recorded last timestamp, release. Models `worker_id_source`.
///   lease_store        the small interface a store implements (claim, renew, release).
///   file_lease         host-local lock files held with flock (flakeid/file_lease.hpp).
///   clock_guard_file   no lease, a fixed id: remembers the last minted timestamp across
///                      restarts (flakeid/clock_guard.hpp).
///   redis_lease        Redis (flakeid/adapters/redis_lease.hpp, target flakeid::redis).
///   postgres_lease     PostgreSQL (flakeid/adapters/postgres_lease.hpp, target
///                      flakeid::postgres).
///
/// The contract every store keeps:
/// - Two holders never hold the same id: a claim is one atomic step in the store.
/// - An id is handed out again only after its lease expired (`ttl` after the last renewal) or
///   was released, plus `safe_guard`.
/// - The store records the last timestamp the holder minted (at each renewal and at release);
///   the next holder gets it as `not_after_unix_ms` and mints only after it. When that
///   timestamp is ahead of the clock, `acquire` waits up to `max_wait`, else throws
///   `clock_backwards_error`.
///
/// Renewal runs on a background thread every `ttl / 3` and never blocks `next_id()`: the
/// generator reads one atomic flag. A watchdog clears the flag at `ttl - margin` after the
/// start of the last confirmed renewal, so the generator refuses (`lease_lost_error`) before
/// the store could hand the id to someone else. When the store confirms again and the id was
/// not used by anyone else meanwhile, minting resumes; when it was, the lease stays down and
/// reports `lease_event::lost`.
///
///     flakeid::file_lease lease;                       // declare the lease first: it
///     flakeid::classic_snowflake<> gen{lease};         // outlives the generator
///     std::uint64_t id = gen.next_id();

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "clock.hpp"
#include "errors.hpp"
#include "layout.hpp"
#include "worker_id.hpp"

namespace flakeid {

/// A lease store could not be reached or answered with an error (connection refused, a
/// timeout, an unwritable lock directory). The message names the store and its address,
/// e.g. `flakeid: cannot connect to redis 127.0.0.1:6390 within 1000 ms: Connection
/// refused`.
class lease_store_error : public worker_id_error {
 public:
  using worker_id_error::worker_id_error;
};

/// What a lease reports to `lease_options::on_event` (from its renewal thread).
enum class lease_event {
  acquired,       ///< an id was claimed
  renew_failed,   ///< a renewal could not be confirmed (the detail says why); minting goes on
                  ///< until the lease would expire
  suspended,      ///< the lease could not be confirmed in time: the generator refuses
  resumed,        ///< the same id is held again: the generator mints again
  lost,           ///< someone else used the id meanwhile: the lease stays down for good
  released,       ///< released at shutdown
  release_failed  ///< the release could not be confirmed (the lease then just expires)
};

/// The name of an event, for logs.
[[nodiscard]] constexpr std::string_view to_string(lease_event e) noexcept {
  switch (e) {
    case lease_event::acquired: return "acquired";
    case lease_event::renew_failed: return "renew_failed";
    case lease_event::suspended: return "suspended";
    case lease_event::resumed: return "resumed";
    case lease_event::lost: return "lost";
    case lease_event::released: return "released";
    case lease_event::release_failed: return "release_failed";
  }
  return "?";
}

/// Settings shared by every lease store.
struct lease_options {
  /// Several applications share one store under different namespaces (letters, digits, '_',
  /// '-'; PostgreSQL folds it into a table name).
  std::string name_space = "default";
  /// How long a lease lasts without renewal. Renewal runs every `ttl / 3`.
  std::chrono::milliseconds ttl{10'000};
  /// How long an expired or released id stays unused before it is handed out again: covers
  /// clock-rate differences and a holder that has not noticed its loss yet.
  std::chrono::milliseconds safe_guard{2'000};
  /// The watchdog stops the generator this long before the lease would expire (0: ttl / 5).
  std::chrono::milliseconds margin{0};
  /// Bound on connecting to a server (and on opening a lock file's directory).
  std::chrono::milliseconds connect_timeout{2'000};
  /// Bound on one request to the store (0: ttl / 5).
  std::chrono::milliseconds io_timeout{0};
  /// When the previous holder's last timestamp is ahead of this process's clock, wait up to
  /// this long for the clock to pass it; beyond, `acquire` throws `clock_backwards_error`.
  std::chrono::milliseconds max_wait{1'000};
  /// Claim only ids below this (0: every id the layout's datacenter and worker bits can hold).
  std::uint64_t max_ids = 0;
  /// Record, at each renewal, the farthest timestamp the holder may mint before its fence
  /// drops (`now + ttl`) instead of the last one it minted, so a crash between two renewals
  /// cannot leave a later timestamp unrecorded. Used by `clock_guard_file`; meaningful only
  /// when `use_clock` names the generator's clock.
  bool record_horizon = false;
  /// Reads the time the generator mints with, in Unix ms (empty: the system clock).
  std::function<std::int64_t()> now_ms;
  /// Waits on that clock (empty: `std::this_thread::sleep_for`).
  std::function<void(std::chrono::milliseconds)> sleep;
  /// Called from the renewal thread (and from `acquire`/`release`) on every change.
  std::function<void(lease_event, const std::string&)> on_event;

  /// Reads and waits on the generator's clock `c` (a `manual_clock` in tests: waits then move
  /// it instead of sleeping). A copy of `c` is kept.
  template <clock_source C>
  lease_options& use_clock(C c) {
    now_ms = [c] { return detail::unix_ms(c.now()); };
    sleep = [c](std::chrono::milliseconds d) { detail::clock_sleep(c, d); };
    return *this;
  }
};

/// The id a store handed out, with the last timestamp its previous holder recorded.
struct lease_claim {
  std::uint64_t id = 0;
  std::int64_t last_unix_ms = INT64_MIN;  ///< INT64_MIN: never used
};

/// The answer to a renewal.
enum class renewal { held, taken };

/// A lease store: one atomic step each to claim, renew and release an id. Every call may throw
/// `lease_store_error` (unreachable, timed out); the engine retries renewals until the lease
/// would expire. Calls come from one thread at a time.
class lease_store {
 public:
  virtual ~lease_store() = default;
  /// The store and its address, for messages: "redis 127.0.0.1:6379".
  [[nodiscard]] virtual std::string where() const = 0;
  /// Claims a free id in `[0, count)` for `holder`: one whose lease expired or was released at
  /// least `safe_guard` ago. Returns nothing when every id is leased.
  virtual std::optional<lease_claim> claim(std::uint64_t count, const std::string& holder) = 0;
  /// Extends `holder`'s lease on `id` and records `last_unix_ms` (INT64_MIN: nothing to record).
  /// When the lease lapsed but the id is free and its recorded last timestamp is not above
  /// `last_unix_ms` (nobody minted with it since), takes it again and answers `held`.
  /// Answers `taken` when someone else holds or has used the id.
  virtual renewal renew(std::uint64_t id, const std::string& holder, std::int64_t last_unix_ms) = 0;
  /// Records `last_unix_ms` (the exact last timestamp, INT64_MIN: keep the record) and releases
  /// the id; it is handed out again after `safe_guard`.
  virtual void release(std::uint64_t id, const std::string& holder, std::int64_t last_unix_ms) = 0;
};

namespace detail {

/// A token that names this holder in the store: host, pid and 64 random bits.
inline std::string make_holder_token() {
  char host[128] = {};
  (void)::gethostname(host, sizeof host - 1);
  std::random_device rd;
  const std::uint64_t r =
      (std::uint64_t{rd()} << 32) ^ rd() ^
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + std::to_string(r);
}

/// Checks a namespace: 1 to 40 of [A-Za-z0-9_-].
inline void check_namespace(const std::string& ns) {
  const bool ok = !ns.empty() && ns.size() <= 40 && std::all_of(ns.begin(), ns.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
  if (!ok)
    throw std::invalid_argument("flakeid: lease namespace '" + ns +
                                "' is invalid: use 1 to 40 letters, digits, '_' or '-'");
}

inline std::int64_t system_unix_ms() noexcept { return unix_ms(std::chrono::system_clock::now()); }

}  // namespace detail

/// The lease engine, shared by every store: claims an id, renews it in the background, fences
/// the generator, records the last timestamp and releases the id at destruction.
///
/// Models `worker_id_source`: `assign(layout)` claims an id below `2^(datacenter bits + worker
/// bits)` (or `max_ids`) and splits it into datacenter (high bits) and worker (low bits).
/// A lease serves one generator. Declare it before the generator, so that it outlives it; a
/// lease destroyed first releases the id and the generator then throws `lease_lost_error`.
///
/// Throws from `acquire`/`assign`: `worker_id_error` when every id is leased
/// ("flakeid: no free worker id in namespace orders: all 32 ids are leased"),
/// `lease_store_error` when the store cannot be reached within `connect_timeout`,
/// `clock_backwards_error` when the previous holder minted further ahead of this clock than
/// `max_wait`. Thread-safety: every member may be called from any thread.
class lease {
 public:
  lease(std::unique_ptr<lease_store> store, lease_options options)
      : store_(std::move(store)), opt_(std::move(options)), holder_(detail::make_holder_token()) {
    detail::check_namespace(opt_.name_space);
    if (opt_.ttl.count() < 30)
      throw std::invalid_argument("flakeid: lease ttl of " + std::to_string(opt_.ttl.count()) +
                                  " ms is too short: use at least 30 ms");
    if (opt_.safe_guard.count() < 0)
      throw std::invalid_argument("flakeid: lease safe_guard must not be negative");
    if (opt_.margin.count() <= 0) opt_.margin = opt_.ttl / 5;
    if (opt_.margin >= opt_.ttl * 2 / 3)
      throw std::invalid_argument(
          "flakeid: lease margin of " + std::to_string(opt_.margin.count()) +
          " ms leaves no time to renew a " + std::to_string(opt_.ttl.count()) +
          " ms lease: use less than ttl * 2 / 3");
    if (!opt_.now_ms) opt_.now_ms = &detail::system_unix_ms;
    if (!opt_.sleep)
      opt_.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  }

  lease(const lease&) = delete;
  lease& operator=(const lease&) = delete;

  /// Releases the id (recording the last timestamp minted).
  virtual ~lease() { release(); }

  /// Claims an id below `id_count` and starts renewing it; returns the id. Waits (or throws)
  /// when the previous holder's last timestamp is ahead of the clock. See the class comment
  /// for what it throws. A lease claims once: a second call throws `worker_id_error`.
  std::uint64_t acquire(std::uint64_t id_count) {
    std::unique_lock lk(m_);
    if (claimed_)
      detail::reject_worker("this lease already holds worker id " + std::to_string(id_) + " (" +
                            where() + ")");
    if (id_count == 0) detail::reject_worker("a lease needs at least one id to choose from");
    const auto c = store_->claim(id_count, holder_);
    const auto t0 = std::chrono::steady_clock::now();
    if (!c)
      detail::reject_worker("no free worker id in namespace " + opt_.name_space + ": all " +
                            std::to_string(id_count) + " ids are leased (" + where() + ")");
    id_ = c->id;
    previous_last_ = c->last_unix_ms;
    if (previous_last_ != INT64_MIN) {
      std::int64_t ahead = previous_last_ - opt_.now_ms() + 1;
      if (ahead > opt_.max_wait.count()) {
        try {
          store_->release(id_, holder_, previous_last_);
        } catch (const std::exception&) {  // it expires on its own
        }
        throw clock_backwards_error(
            "flakeid: worker id " + std::to_string(id_) + " in namespace " + opt_.name_space +
                " was last used at Unix ms " + std::to_string(previous_last_) + ", " +
                std::to_string(ahead) + " ms ahead of this clock; the lease waits up to " +
                std::to_string(opt_.max_wait.count()) + " ms",
            std::chrono::milliseconds{ahead});
      }
      while (ahead > 0) {
        opt_.sleep(std::chrono::milliseconds{ahead});
        ahead = previous_last_ - opt_.now_ms() + 1;
      }
    }
    claimed_ = true;
    fence_->last_unix_ms.store(previous_last_, std::memory_order_relaxed);
    fence_->valid.store(true, std::memory_order_release);
    confirmed_until_ = t0 + opt_.ttl;
    renewer_ = std::thread([this] { renew_loop(); });
    watchdog_ = std::thread([this] { watch_loop(); });
    lk.unlock();
    notify(lease_event::acquired, "worker id " + std::to_string(id_) + " (" + where() + ")");
    return id_;
  }

  /// `worker_id_source`: claims an id for a generator of layout `l`.
  [[nodiscard]] worker_assignment assign(const flakeid::layout& l) {
    const unsigned wbits = l.bits(field_kind::worker);
    const unsigned bits = l.bits(field_kind::datacenter) + wbits;
    std::uint64_t count = bits >= 63 ? (std::uint64_t{1} << 63) : (std::uint64_t{1} << bits);
    if (opt_.max_ids != 0) count = std::min(count, opt_.max_ids);
    const std::uint64_t n = acquire(count);
    worker_assignment a;
    a.node.worker = wbits == 0 ? 0 : (n & l.max_value(field_kind::worker));
    a.node.datacenter = wbits >= 64 ? 0 : (n >> wbits);
    a.not_after_unix_ms = previous_last_;
    a.fence = fence_;
    a.source = "lease " + where() + " namespace " + opt_.name_space + " id " + std::to_string(n);
    return a;
  }

  /// Records the last timestamp and releases the id; the generator refuses from now on.
  /// Idempotent; errors go to `on_event` (the lease then expires on its own).
  void release() noexcept {
    {
      std::lock_guard lk(m_);
      if (!claimed_ || stop_) return;
      stop_ = true;
      fence_->valid.store(false, std::memory_order_release);
    }
    cv_.notify_all();
    if (renewer_.joinable()) renewer_.join();
    if (watchdog_.joinable()) watchdog_.join();
    if (lost_) return;
    try {
      store_->release(id_, holder_, fence_->last_unix_ms.load(std::memory_order_acquire));
      notify(lease_event::released, "worker id " + std::to_string(id_));
    } catch (const std::exception& e) {
      notify(lease_event::release_failed, e.what());
    }
  }

  /// The id held (valid after `acquire`).
  [[nodiscard]] std::uint64_t id() const {
    std::lock_guard lk(m_);
    return id_;
  }
  /// Whether the generator may mint now.
  [[nodiscard]] bool valid() const noexcept {
    return fence_->valid.load(std::memory_order_acquire);
  }
  /// Whether someone else used the id after this lease lapsed (the lease stays down).
  [[nodiscard]] bool lost() const {
    std::lock_guard lk(m_);
    return lost_;
  }
  /// The last timestamp the previous holder recorded (INT64_MIN: none).
  [[nodiscard]] std::int64_t previous_last_unix_ms() const {
    std::lock_guard lk(m_);
    return previous_last_;
  }
  /// The fence shared with the generator.
  [[nodiscard]] const std::shared_ptr<lease_fence>& fence() const noexcept { return fence_; }
  /// The store and its address.
  [[nodiscard]] std::string where() const { return store_->where(); }
  [[nodiscard]] const lease_options& options() const noexcept { return opt_; }
  /// The token this lease is held under in the store.
  [[nodiscard]] const std::string& holder() const noexcept { return holder_; }

 private:
  using steady = std::chrono::steady_clock;

  void notify(lease_event e, const std::string& detail) const {
    if (opt_.on_event) opt_.on_event(e, detail);
  }

  std::int64_t value_to_record() const {
    const std::int64_t last = fence_->last_unix_ms.load(std::memory_order_acquire);
    if (!opt_.record_horizon) return last;
    return std::max(last, opt_.now_ms() + opt_.ttl.count());
  }

  void renew_loop() {
    const auto interval = opt_.ttl / 3;
    const auto retry = std::max(std::chrono::milliseconds{5}, opt_.ttl / 15);
    std::unique_lock lk(m_);
    auto next = confirmed_until_ - opt_.ttl + interval;
    while (!stop_) {
      if (cv_.wait_until(lk, next, [&] { return stop_; })) break;
      if (lost_) {
        next = steady::now() + interval;
        continue;
      }
      lk.unlock();
      const auto t0 = steady::now();
      std::optional<renewal> r;
      std::string error;
      try {
        r = store_->renew(id_, holder_, value_to_record());
      } catch (const std::exception& e) {
        error = e.what();
      }
      lk.lock();
      if (!r) {
        next = steady::now() + retry;
        lk.unlock();
        notify(lease_event::renew_failed, error);
        lk.lock();
        continue;
      }
      if (*r == renewal::taken) {
        lost_ = true;
        const bool was = fence_->valid.exchange(false, std::memory_order_acq_rel);
        (void)was;
        next = steady::now() + interval;
        lk.unlock();
        notify(lease_event::lost, "worker id " + std::to_string(id_) +
                                      " was used by another holder (" + where() + ")");
        lk.lock();
        continue;
      }
      confirmed_until_ = t0 + opt_.ttl;
      next = t0 + interval;
      const bool resume = !fence_->valid.load(std::memory_order_acquire) &&
                          steady::now() < confirmed_until_ - opt_.margin;
      if (resume) fence_->valid.store(true, std::memory_order_release);
      cv_.notify_all();
      if (resume) {
        lk.unlock();
        notify(lease_event::resumed, "worker id " + std::to_string(id_));
        lk.lock();
      }
    }
  }

  void watch_loop() {
    std::unique_lock lk(m_);
    while (!stop_) {
      const auto deadline = confirmed_until_ - opt_.margin;
      if (steady::now() < deadline) {
        cv_.wait_until(lk, deadline);
        continue;
      }
      if (fence_->valid.exchange(false, std::memory_order_acq_rel) && !lost_) {
        lk.unlock();
        notify(lease_event::suspended,
               "worker id " + std::to_string(id_) + ": renewal not confirmed in time");
        lk.lock();
      }
      cv_.wait(lk, [&] { return stop_ || steady::now() < confirmed_until_ - opt_.margin; });
    }
  }

  std::unique_ptr<lease_store> store_;
  lease_options opt_;
  std::string holder_;
  std::shared_ptr<lease_fence> fence_ = [] {
    auto f = std::make_shared<lease_fence>();
    f->valid.store(false);
    return f;
  }();
  mutable std::mutex m_;
  std::condition_variable cv_;
  bool claimed_ = false;
  bool stop_ = false;
  bool lost_ = false;
  std::uint64_t id_ = 0;
  std::int64_t previous_last_ = INT64_MIN;
  steady::time_point confirmed_until_{};
  std::thread renewer_;
  std::thread watchdog_;
};

}  // namespace flakeid
