// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment/grouped.hpp
/// `grouped_segment_generator`: a counter per day, month or year (`orders@20250318`) that
/// restarts at 1 in every period, and `grouped_id`, the number with its period stamp.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "../clock.hpp"
#include "../detail/fork_guard.hpp"
#include "../errors.hpp"
#include "generator.hpp"
#include "options.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

// ---- grouped counters ----------------------------------------------------------------------

/// `keep_periods` of a `grouped_segment_generator` that never lets a period's counter expire.
inline constexpr std::uint32_t group_keep_forever = 0;

/// The largest `keep_periods` a `grouped_segment_generator` accepts.
inline constexpr std::uint32_t max_group_keep_periods = 1000;

/// How often a grouped counter restarts.
enum class group_period : std::uint8_t {
  day,    ///< key `name@YYYYMMDD`
  month,  ///< key `name@YYYYMM`
  year,   ///< key `name@YYYY`
};

/// One number of a grouped counter: the period stamp (20250318, 202503 or 2025) and the
/// number within that period (1, 2, ...).
struct grouped_id {
  std::uint32_t stamp = 0;
  std::uint64_t number = 0;

  /// The stamp, `sep` and the number zero-padded to `width` digits: `20250318-0001`. A number
  /// with more digits is written in full (still unique, no longer fixed-width).
  [[nodiscard]] std::string to_string(std::size_t width = 4, std::string_view sep = "-") const {
    std::string n = std::to_string(number);
    if (n.size() < width) n.insert(0, width - n.size(), '0');
    return std::to_string(stamp) + std::string(sep) + n;
  }

  /// Stamp and number as one decimal number, `stamp * 10^width + number` (`202503180001`).
  /// Throws `std::overflow_error` when the number needs more than `width` digits or the
  /// result passes 2^64 - 1.
  [[nodiscard]] std::uint64_t packed(unsigned width = 4) const {
    std::uint64_t scale = 1;
    for (unsigned i = 0; i < width; ++i) {
      if (scale > std::numeric_limits<std::uint64_t>::max() / 10) scale = 0;
      scale *= 10;
    }
    if (scale == 0 || number >= scale ||
        stamp > (std::numeric_limits<std::uint64_t>::max() - number) / scale)
      throw timestamp_overflow_error("flakeid: grouped number " + std::to_string(number) +
                                     " of group " + std::to_string(stamp) + " does not fit " +
                                     std::to_string(width) + " digits");
    return stamp * scale + number;
  }

  friend constexpr bool operator==(const grouped_id&, const grouped_id&) = default;
};

/// A counter that restarts at 1 every day, month or year: each period has its own store key,
/// `key@20250318` (day), `key@202503` (month) or `key@2025` (year), served by a
/// `segment_generator`. For business numbers such as `20250318-0001`.
///
/// The period follows `Clock` shifted by `utc_offset` (0: UTC; `+8h` for China Standard Time),
/// so tests drive it with `flakeid::manual_clock`. A call reads the clock once and returns the
/// stamp and number together, so a number is never paired with the wrong day.
///
/// Old periods' counters expire: when `Distributor` models `expiring_segment_distributor`,
/// each period's counter may be dropped by the store `keep_periods` whole periods after its
/// period ended (1 by default: a day counter lives until the end of the next day, on the
/// generator's clock when the period began plus the store's clock since). `group_keep_forever`
/// keeps them all. A process whose clock is behind by more than `keep_periods` periods could
/// make a dropped counter anew and repeat its numbers.
///
/// Two periods at a time: the generator keeps the counters (each a `segment_generator` with its
/// distributor, and so its connection) of the latest period it has served and of one more, the
/// period before it (for a caller whose clock reading is a little older) or the period a clock
/// that went back is in. Any other period's counter is dropped with its distributor once no
/// call can still hold it. A dropped period seen again gets a new counter on the same store
/// key, which goes on above the segments it reserved before (the rest of its last segment is a
/// gap), so nothing repeats while the store keeps the key.
///
/// Requirements: `Distributor` models `keyed_segment_distributor`. Throws as
/// `segment_generator`, and `invalid_option_error` for `keep_periods` above
/// `max_group_keep_periods`. Thread-safety: all members may be called concurrently.
///
///     flakeid::grouped_segment_generator gen{store.distributor("orders"), flakeid::group_period::day,
///                                            {.step = 50}};
///     gen.next().to_string();  // "20250318-0001"
template <class Distributor, class Clock = wall_clock>
class grouped_segment_generator {
  static_assert(detail::check_segment_params<Distributor, Clock>());
  static_assert(keyed_segment_distributor<Distributor>,
                "grouped_segment_generator opens a key per period: the distributor needs "
                "'Distributor with_key(const std::string&) const'");

 public:
  using distributor_type = Distributor;
  using clock_type = Clock;

  /// Counters `base.key()@<stamp>` restarting every `period`, segments per `opts`, each kept
  /// `keep_periods` whole periods after its own (`group_keep_forever`: always).
  grouped_segment_generator(Distributor base, group_period period, segment_options opts = {},
                            Clock clock = Clock{},
                            std::chrono::minutes utc_offset = std::chrono::minutes{0},
                            std::uint32_t keep_periods = 1)
      : base_(std::move(base)),
        period_(period),
        opts_(opts),
        clock_(std::move(clock)),
        offset_(utc_offset),
        keep_periods_(keep_periods) {
    (void)detail::segment_numbering::of(opts);
    if (keep_periods > max_group_keep_periods)
      throw invalid_option_error(
          "flakeid: grouped counter keep_periods = " + std::to_string(keep_periods) +
          " is out of range [0, " + std::to_string(max_group_keep_periods) + "]");
  }

  grouped_segment_generator(const grouped_segment_generator&) = delete;
  grouped_segment_generator& operator=(const grouped_segment_generator&) = delete;

  /// The next number of the current period, with the period's stamp.
  [[nodiscard]] grouped_id next() {
    born_.check("this grouped segment generator");
    const std::int64_t now = detail::unix_ms(clock_.now());
    grouped_id out;
    {
      const pin held{*this};
      group* g = current_.load(std::memory_order_acquire);
      if (g == nullptr || now < g->start_ms || now >= g->end_ms) [[unlikely]]
        g = switch_to(now);
      out = {g->stamp, g->gen.next_id()};
    }
    if (dropping_.load(std::memory_order_relaxed)) [[unlikely]] {
      std::unique_lock lk(mutex_, std::try_to_lock);
      if (lk.owns_lock()) reclaim();
    }
    return out;
  }

  /// The next number alone (the stamp of its period is lost: prefer `next()`).
  [[nodiscard]] std::uint64_t next_id() { return next().number; }

  /// Fills `out` with the next numbers (each with its period's stamp).
  void next_ids(std::span<grouped_id> out) {
    for (auto& x : out) x = next();
  }

  /// The stamp of the period that holds Unix time `t` (UTC shifted by the offset).
  [[nodiscard]] std::uint32_t stamp_at(std::chrono::sys_time<std::chrono::milliseconds> t) const {
    return bounds(t.time_since_epoch().count()).stamp;
  }

  /// The store key of the period that holds `t`: `orders@20250318`.
  [[nodiscard]] std::string key_at(std::chrono::sys_time<std::chrono::milliseconds> t) const {
    return std::string(base_.key()) + "@" + std::to_string(stamp_at(t));
  }

  /// Stops every period's generator: later calls throw `segment_closed_error`.
  void close() {
    if (born_.forked()) return;
    std::lock_guard lk(mutex_);
    closed_ = true;
    for (auto* list : {&groups_, &retiring_, &draining_})
      for (auto& g : *list) g->gen.close();
  }

 private:
  /// A call under way: a group dropped from `groups_` is destroyed only once every call that
  /// may hold it has returned. Calls count in one of two counters, picked by the parity of
  /// `epoch_`; the groups dropped before a flip of the epoch wait for the counter of the
  /// epoch before it to reach 0 (a call counts itself only if the epoch did not change
  /// meanwhile, so no later call can join that counter before it is drained).
  class pin {
   public:
    explicit pin(grouped_segment_generator& s) noexcept {
      for (;;) {
        const std::uint64_t e = s.epoch_.load(std::memory_order_seq_cst);
        std::atomic<std::uint64_t>& r = s.readers_[e & 1].n;
        r.fetch_add(1, std::memory_order_seq_cst);
        if (s.epoch_.load(std::memory_order_seq_cst) == e) {
          count_ = &r;
          return;
        }
        r.fetch_sub(1, std::memory_order_seq_cst);
      }
    }
    ~pin() { count_->fetch_sub(1, std::memory_order_seq_cst); }
    pin(const pin&) = delete;
    pin& operator=(const pin&) = delete;

   private:
    std::atomic<std::uint64_t>* count_ = nullptr;
  };

  struct alignas(64) reader_count {
    std::atomic<std::uint64_t> n{0};
  };

  struct period_bounds {
    std::uint32_t stamp;
    std::int64_t start_ms;
    std::int64_t end_ms;
  };

  struct group {
    group(Distributor d, const segment_options& o, const Clock& c, period_bounds b)
        : stamp(b.stamp), start_ms(b.start_ms), end_ms(b.end_ms), gen(std::move(d), o, c) {}
    std::uint32_t stamp;
    std::int64_t start_ms;
    std::int64_t end_ms;
    segment_generator<Distributor, Clock> gen;
  };

  [[nodiscard]] period_bounds bounds(std::int64_t unix_ms) const {
    using namespace std::chrono;
    const std::int64_t off = duration_cast<milliseconds>(offset_).count();
    const sys_days day = floor<days>(sys_time<milliseconds>{milliseconds{unix_ms + off}});
    const year_month_day ymd{day};
    const int y = static_cast<int>(ymd.year());
    const unsigned m = static_cast<unsigned>(ymd.month());
    const unsigned d = static_cast<unsigned>(ymd.day());
    sys_days from = day;
    sys_days to = day + days{1};
    std::uint32_t stamp = 0;
    switch (period_) {
      case group_period::day: stamp = static_cast<std::uint32_t>(y * 10000) + m * 100 + d; break;
      case group_period::month:
        from = sys_days{ymd.year() / ymd.month() / 1};
        to = sys_days{(ymd.year() / ymd.month() / 1) + months{1}};
        stamp = static_cast<std::uint32_t>(y * 100) + m;
        break;
      case group_period::year:
        from = sys_days{ymd.year() / January / 1};
        to = sys_days{(ymd.year() + years{1}) / January / 1};
        stamp = static_cast<std::uint32_t>(y);
        break;
    }
    const auto ms = [&](sys_days x) {
      return duration_cast<milliseconds>(x.time_since_epoch()).count() - off;
    };
    return {stamp, ms(from), ms(to)};
  }

  group* switch_to(std::int64_t now) {
    std::lock_guard lk(mutex_);
    if (closed_) detail::throw_segment_closed(base_.store_name(), base_.key());
    group* g = current_.load(std::memory_order_relaxed);
    if (g != nullptr && now >= g->start_ms && now < g->end_ms) return g;
    const period_bounds b = bounds(now);
    // A period served before (a caller whose clock reading is older than the switch, or a
    // clock that went back) goes on with its own generator.
    for (auto it = groups_.rbegin(); it != groups_.rend(); ++it) {
      if ((*it)->start_ms == b.start_ms) {
        if (g == nullptr || (*it)->start_ms > g->start_ms)
          current_.store(it->get(), std::memory_order_release);
        return it->get();
      }
    }
    Distributor d = base_.with_key(std::string(base_.key()) + "@" + std::to_string(b.stamp));
    if constexpr (expiring_segment_distributor<Distributor>) {
      if (keep_periods_ != group_keep_forever) {
        // Kept until the end of the keep_periods-th period after this one, counted from now.
        std::int64_t until = b.end_ms;
        for (std::uint32_t i = 0; i < keep_periods_; ++i) until = bounds(until).end_ms;
        d.expire_after(std::chrono::milliseconds{until - now});
      }
    }
    groups_.push_back(std::make_unique<group>(std::move(d), opts_, clock_, b));
    group* fresh = groups_.back().get();
    // Two periods stay: the new latest one and the latest before it, or (a clock that went
    // back) the latest one and this older one.
    if (g == nullptr || fresh->start_ms > g->start_ms) {
      current_.store(fresh, std::memory_order_release);
      drop_all_but(fresh, g);
    } else {
      drop_all_but(g, fresh);
    }
    return fresh;
  }

  /// Moves every group but `a` and `b` out of `groups_` (under `mutex_`): the calls under way
  /// may still hold them.
  void drop_all_but(const group* a, const group* b) {
    for (auto it = groups_.begin(); it != groups_.end();) {
      if (it->get() == a || it->get() == b) {
        ++it;
      } else {
        retiring_.push_back(std::move(*it));
        it = groups_.erase(it);
      }
    }
    reclaim();
  }

  /// Destroys the dropped groups no call can hold any more (under `mutex_`): those dropped
  /// before the last flip of the epoch, once the calls of the epoch before have returned; then
  /// flips the epoch for the groups dropped since.
  void reclaim() {
    if (!draining_.empty() && readers_[draining_slot_].n.load(std::memory_order_seq_cst) == 0)
      draining_.clear();
    if (draining_.empty() && !retiring_.empty()) {
      draining_.swap(retiring_);
      draining_slot_ = epoch_.load(std::memory_order_relaxed) & 1;
      epoch_.fetch_add(1, std::memory_order_seq_cst);
    }
    dropping_.store(!draining_.empty(), std::memory_order_relaxed);
  }

  Distributor base_;
  group_period period_;
  segment_options opts_;
  [[no_unique_address]] Clock clock_;
  std::chrono::minutes offset_;
  std::uint32_t keep_periods_;
  std::atomic<group*> current_{nullptr};
  std::atomic<std::uint64_t> epoch_{0};
  reader_count readers_[2];
  std::atomic<bool> dropping_{false};  // draining_ is not empty: a call may destroy it
  std::mutex mutex_;
  bool closed_ = false;
  std::vector<std::unique_ptr<group>> groups_;    // the periods served: at most 2
  std::vector<std::unique_ptr<group>> retiring_;  // dropped since the last flip of epoch_
  std::vector<std::unique_ptr<group>> draining_;  // dropped before it: destroyed once drained
  std::size_t draining_slot_ = 0;
  detail::fork_stamp born_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
