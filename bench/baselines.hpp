#pragma once
/// \file baselines.hpp
/// The generators flakeid's users run today, written from their published algorithms, with the
/// same layouts, as the baselines of the benchmark. Each snowflake takes one mutex per call, as
/// the originals do (`synchronized` in Java); the segment chain is lock-free, as CosId's is.
///
///   twitter_worker<L>   Twitter's IdWorker: the wall clock in ms read on every call; sequence
///                       0 in a new ms, +1 in the same ms; on overflow spin on the clock until
///                       the next ms; throw when the clock went back.
///   article_gene<L>     the gene-embedding generator of the sharding article: a hash map from
///                       gene to (last ms, sequence); on overflow the gene borrows the next ms
///                       at once, without bound.
///   cosid_worker<L>     CosId's AbstractSnowflakeId.generate: the sequence goes on across ms
///                       and is reset to 0 in a new ms only once it reached the threshold
///                       (2^(bits-1) - 1); +1 then; on wrapping to 0 spin until the next ms.
///   cosid_segment_chain CosId's SegmentChainId: a chain of segments, each one atomic sequence,
///                       kept ahead by a prefetch worker (see its section for what it models).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include <flakeid/layout.hpp>

namespace flakeid_bench {

inline std::int64_t wall_ms() noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

template <flakeid::layout L>
class twitter_worker {
 public:
  twitter_worker(std::int64_t worker, std::int64_t datacenter)
      : worker_(worker), datacenter_(datacenter) {}

  std::uint64_t next_id() {
    std::lock_guard<std::mutex> lock(m_);
    std::int64_t ts = wall_ms();
    if (ts < last_) throw std::runtime_error("clock moved backwards");
    if (ts == last_) {
      seq_ = (seq_ + 1) & seq_mask;
      if (seq_ == 0) ts = til_next_millis(last_);
    } else {
      seq_ = 0;
    }
    last_ = ts;
    return (static_cast<std::uint64_t>(ts - L.epoch_ms)
            << L.shift(flakeid::field_kind::timestamp)) |
           (static_cast<std::uint64_t>(datacenter_) << L.shift(flakeid::field_kind::datacenter)) |
           (static_cast<std::uint64_t>(worker_) << L.shift(flakeid::field_kind::worker)) |
           static_cast<std::uint64_t>(seq_);
  }

 private:
  static constexpr std::int64_t seq_mask =
      static_cast<std::int64_t>(L.max_value(flakeid::field_kind::sequence));
  static std::int64_t til_next_millis(std::int64_t last) noexcept {
    std::int64_t ts = wall_ms();
    while (ts <= last) ts = wall_ms();
    return ts;
  }
  std::mutex m_;
  std::int64_t worker_;
  std::int64_t datacenter_;
  std::int64_t seq_ = 0;
  std::int64_t last_ = -1;
};

template <flakeid::layout L>
class article_gene {
 public:
  article_gene(std::int64_t worker, std::int64_t datacenter)
      : worker_(worker), datacenter_(datacenter) {}

  std::uint64_t next_id(std::uint64_t key) {
    const std::uint64_t gene = key & gene_mask;
    std::lock_guard<std::mutex> lock(m_);
    const std::int64_t ts = wall_ms();
    state& s = seqs_[gene];
    if (ts > s.last) {
      s.last = ts;
      s.seq = 0;
    } else if (++s.seq > seq_mask) {
      ++s.last;  // borrow the next millisecond
      s.seq = 0;
    }
    return (static_cast<std::uint64_t>(s.last - L.epoch_ms)
            << L.shift(flakeid::field_kind::timestamp)) |
           (static_cast<std::uint64_t>(datacenter_) << L.shift(flakeid::field_kind::datacenter)) |
           (static_cast<std::uint64_t>(worker_) << L.shift(flakeid::field_kind::worker)) |
           (static_cast<std::uint64_t>(s.seq) << L.shift(flakeid::field_kind::sequence)) | gene;
  }

 private:
  static constexpr std::int64_t seq_mask =
      static_cast<std::int64_t>(L.max_value(flakeid::field_kind::sequence));
  static constexpr std::uint64_t gene_mask = L.max_value(flakeid::field_kind::gene);
  struct state {
    std::int64_t last = -1;
    std::int64_t seq = 0;
  };
  std::mutex m_;
  std::unordered_map<std::uint64_t, state> seqs_;
  std::int64_t worker_;
  std::int64_t datacenter_;
};

template <flakeid::layout L>
class cosid_worker {
 public:
  explicit cosid_worker(std::int64_t machine) : machine_(machine) {}

  std::uint64_t next_id() {
    std::lock_guard<std::mutex> lock(m_);
    std::int64_t ts = wall_ms();
    if (ts < last_) throw std::runtime_error("clock moved backwards");
    if (ts > last_ && seq_ >= reset_threshold) seq_ = 0;
    seq_ = (seq_ + 1) & seq_mask;
    if (seq_ == 0) ts = next_time();
    last_ = ts;
    const std::int64_t diff = ts - L.epoch_ms;
    if (static_cast<std::uint64_t>(diff) > L.max_ticks())
      throw std::runtime_error("timestamp overflow");
    return (static_cast<std::uint64_t>(diff) << L.shift(flakeid::field_kind::timestamp)) |
           (static_cast<std::uint64_t>(machine_) << L.shift(flakeid::field_kind::worker)) |
           static_cast<std::uint64_t>(seq_);
  }

 private:
  static constexpr std::int64_t seq_mask =
      static_cast<std::int64_t>(L.max_value(flakeid::field_kind::sequence));
  static constexpr std::int64_t reset_threshold = seq_mask >> 1;
  std::int64_t next_time() const noexcept {
    std::int64_t ts = wall_ms();
    while (ts <= last_) ts = wall_ms();
    return ts;
  }
  std::mutex m_;
  std::int64_t machine_;
  std::int64_t seq_ = 0;
  std::int64_t last_ = -1;
};

// ---- CosId's SegmentChainId ---------------------------------------------------------------
//
// cosid_segment_chain models CosId's `SegmentChainId.generate()` (cosid-core, me.ahoo.cosid.
// segment) on the in-memory `IdSegmentDistributor.Atomic` (cosid_atomic_distributor: an atomic
// max id advanced by `nextMaxId(step)`), written from its published algorithm:
//
//   - An `IdSegment` owns the ids (offset, max_id], offset = max_id - step, served by one atomic
//     `sequence` that starts at offset: `incrementAndGet` returns the overflow mark (-1) when the
//     sequence already reached max_id, else `++sequence`, and -1 again when that passed max_id.
//     `isAvailable` = not expired (ttl; forever by default, then no clock read) and not
//     overflowed (sequence < max_id).
//   - An `IdSegmentChain` node holds one segment, a version (root -1, then +1 per node) and a
//     `next` link set once under the node's lock (`trySetNext`, `synchronized` in Java). A store
//     call for k segments makes one node whose segment is the merged range of k * step ids
//     (`nextIdSegment(segments, ttl)`, `MergedIdSegment`).
//   - `generate()`: from the volatile `headChain`, walk the chain to the first available node,
//     `incrementAndGet` on it, and on success move `headChain` forward to that node (`forward`:
//     only to a higher version, without a lock) and return the sequence. When no node has an id
//     left, set `next` of the head to a fresh node of `safeDistance` segments (the caller calls
//     the store itself), tell the prefetch job it is hungry (record the time, wake its worker
//     unless it runs) and retry.
//   - The prefetch job runs on a worker thread every `prefetchPeriod` (1 s) and when woken: a
//     hunger within the last 5 s doubles its prefetch distance (up to 100,000,000 segments),
//     otherwise it halves back towards `safeDistance` (2); it moves the head forward to the
//     first available node, and appends at its tail one node of `prefetchDistance` segments
//     when hungry, or of the segments missing to `safeDistance` ahead of the head otherwise.
//
// Simplified in the baseline's favour: a node holds its segment inline (in CosId the node points
// to a MergedIdSegment, which points to a DefaultIdSegment). Left out: the grouped (per-period)
// distributors, with the per-ID note of the group (`GroupedAccessor`) and the check that a next
// segment lies above its predecessor (only for grouped keys; a plain key "allows reset"), the
// logging, the ttl's clock (a segment here lives forever, CosId's default), the cached clock
// (hunger times read the system clock in seconds, as `Clock.SYSTEM.secondTime()`), and the
// worker pool that CosId shares among every chain of a process (one worker thread per chain
// here). Java's volatile fields are seq_cst atomics (a plain load on x86). Nodes are freed when
// the chain is destroyed, in place of Java's garbage collector; a hungry chain makes few, ever
// larger nodes.

/// CosId's `IdSegmentDistributor.Atomic`: an in-memory max id, `nextMaxId(step)` = addAndGet.
class cosid_atomic_distributor {
 public:
  explicit cosid_atomic_distributor(std::int64_t step) : step_(step) {}
  [[nodiscard]] std::int64_t step() const noexcept { return step_; }
  std::int64_t next_max_id(std::int64_t step) noexcept { return max_id_.fetch_add(step) + step; }

 private:
  std::int64_t step_;
  std::atomic<std::int64_t> max_id_{0};
};

class cosid_segment_chain {
 public:
  static constexpr int default_safe_distance = 2;

  explicit cosid_segment_chain(cosid_atomic_distributor& distributor,
                               int safe_distance = default_safe_distance,
                               std::chrono::milliseconds prefetch_period = std::chrono::seconds{1})
      : distributor_(distributor),
        safe_distance_(safe_distance),
        prefetch_period_(prefetch_period),
        root_(new chain_node(root_version, sequence_overflow, 0)),
        head_(root_),
        tail_(root_),
        prefetch_distance_(safe_distance) {
    worker_ = std::thread([this] { run_worker(); });
  }

  cosid_segment_chain(const cosid_segment_chain&) = delete;
  cosid_segment_chain& operator=(const cosid_segment_chain&) = delete;

  ~cosid_segment_chain() {
    {
      std::lock_guard<std::mutex> lock(park_mutex_);
      shutdown_ = true;
    }
    park_cv_.notify_one();
    worker_.join();
    for (chain_node* n = root_; n != nullptr;) {
      chain_node* next = n->next.load();
      delete n;
      n = next;
    }
  }

  /// `SegmentChainId.generate()`.
  std::int64_t next_id() {
    for (;;) {
      for (chain_node* cur = head_.load(); cur != nullptr; cur = cur->next.load()) {
        if (cur->segment.available()) {
          const std::int64_t seq = cur->segment.increment_and_get();
          if (!cur->segment.overflow(seq)) {
            forward(cur);
            return seq;
          }
        }
      }
      chain_node* pre = head_.load();
      if (pre->try_set_next([&](chain_node* p) { return generate_next(p, safe_distance_); }))
        forward(pre->next.load());
      hungry();
    }
  }

 private:
  static constexpr std::int64_t root_version = -1;
  static constexpr std::int64_t sequence_overflow = -1;
  static constexpr std::int64_t ttl_forever = std::numeric_limits<std::int64_t>::max();
  static constexpr std::int64_t hunger_threshold_s = 5;
  static constexpr int max_prefetch_distance = 100'000'000;

  static std::int64_t second_time() noexcept {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  // DefaultIdSegment; the root's is `OVERFLOW` (max id -1, step 0). A MergedIdSegment is the
  // same range with its segment count attached.
  struct id_segment {
    id_segment(std::int64_t max, std::int64_t n)
        : max_id(max), offset(max - n), step(n), sequence(max - n), fetch_time(second_time()) {}
    std::int64_t max_id;
    std::int64_t offset;
    std::int64_t step;
    std::atomic<std::int64_t> sequence;
    std::int64_t fetch_time;
    std::int64_t ttl = ttl_forever;

    [[nodiscard]] bool expired() const noexcept {
      if (ttl == ttl_forever) return false;
      return second_time() - fetch_time > ttl;
    }
    [[nodiscard]] bool overflow() const noexcept { return sequence.load() >= max_id; }
    [[nodiscard]] bool overflow(std::int64_t seq) const noexcept {
      return seq == sequence_overflow || seq > max_id;
    }
    [[nodiscard]] bool available() const noexcept { return !expired() && !overflow(); }
    std::int64_t increment_and_get() noexcept {
      if (overflow()) return sequence_overflow;
      const std::int64_t seq = sequence.fetch_add(1) + 1;
      if (overflow(seq)) return sequence_overflow;
      return seq;
    }
  };
  // IdSegmentChain.
  struct chain_node {
    chain_node(std::int64_t v, std::int64_t max_id, std::int64_t step)
        : version(v), segment(max_id, step) {}
    std::int64_t version;
    id_segment segment;
    std::atomic<chain_node*> next{nullptr};
    std::mutex lock;  // `synchronized (this)` in trySetNext

    template <class Make>
    bool try_set_next(Make make) {
      if (next.load() != nullptr) return false;
      std::lock_guard<std::mutex> guard(lock);
      if (next.load() != nullptr) return false;
      next.store(make(this));
      return true;
    }
    template <class Make>
    chain_node* ensure_set_next(Make make) {
      chain_node* cur = this;
      while (!cur->try_set_next(make)) cur = cur->next.load();
      return cur;
    }
    [[nodiscard]] int gap(const chain_node& end, std::int64_t step) const noexcept {
      return static_cast<int>((end.segment.max_id - segment.sequence.load()) / step);
    }
  };

  // `IdSegmentDistributor.nextIdSegmentChain(previous, segments, ttl)`: one store call.
  chain_node* generate_next(const chain_node* previous, int segments) {
    const std::int64_t total = distributor_.step() * segments;
    const std::int64_t max = distributor_.next_max_id(total);
    return new chain_node(previous->version + 1, max, total);
  }

  // No lock: it only matters that the head trends forward.
  void forward(chain_node* to) noexcept {
    if (head_.load()->version >= to->version) return;
    head_.store(to);
  }

  // AffinityJob.hungry(): record the time, wake the worker unless it is running.
  void hungry() {
    last_hunger_time_.store(second_time());
    if (!worker_running_.load() && !permit_.exchange(true)) {
      std::lock_guard<std::mutex> lock(park_mutex_);
      park_cv_.notify_one();
    }
  }

  // DefaultPrefetchWorker.run(): the job, then park for the period or until woken.
  void run_worker() {
    for (;;) {
      worker_running_.store(true);
      prefetch();
      std::unique_lock<std::mutex> lock(park_mutex_);
      worker_running_.store(false);
      park_cv_.wait_for(lock, prefetch_period_, [&] { return shutdown_ || permit_.load(); });
      permit_.store(false);
      if (shutdown_) return;
    }
  }

  // SegmentChainId.PrefetchJob.prefetch().
  void prefetch() {
    const bool hunger = second_time() - last_hunger_time_.load() < hunger_threshold_s;
    if (hunger) {
      prefetch_distance_ = std::min(prefetch_distance_ * 2, max_prefetch_distance);
    } else {
      prefetch_distance_ = std::max(prefetch_distance_ / 2, safe_distance_);
    }
    chain_node* available = head_.load();
    while (!available->segment.available()) {
      available = available->next.load();
      if (available == nullptr) {
        available = tail_;
        break;
      }
    }
    forward(available);
    const int safe_gap = safe_distance_ - available->gap(*tail_, distributor_.step());
    if (safe_gap <= 0 && !hunger) return;
    const int segments = hunger ? prefetch_distance_ : safe_gap;
    tail_ = tail_->ensure_set_next([&](chain_node* p) { return generate_next(p, segments); })
                ->next.load();
    while (tail_->next.load() != nullptr) tail_ = tail_->next.load();
  }

  cosid_atomic_distributor& distributor_;
  const int safe_distance_;
  const std::chrono::milliseconds prefetch_period_;
  chain_node* const root_;
  std::atomic<chain_node*> head_;  // `volatile IdSegmentChain headChain`
  // The prefetch job (a separate object in CosId, so on its own cache line here).
  alignas(64) chain_node* tail_;
  int prefetch_distance_;
  std::atomic<std::int64_t> last_hunger_time_{0};
  std::atomic<bool> worker_running_{false};
  std::atomic<bool> permit_{false};  // LockSupport's park permit
  std::mutex park_mutex_;
  std::condition_variable park_cv_;
  bool shutdown_ = false;  // guarded by park_mutex_
  std::thread worker_;
};

}  // namespace flakeid_bench
