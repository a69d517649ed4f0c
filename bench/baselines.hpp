#pragma once
/// \file baselines.hpp
/// The generators flakeid's users run today, written from their published algorithms, with the
/// same layouts, as the baselines of the benchmark. Each takes one mutex per call, as the
/// originals do (`synchronized` in Java).
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

#include <chrono>
#include <cstdint>
#include <mutex>
#include <stdexcept>
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

}  // namespace flakeid_bench
