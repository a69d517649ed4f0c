// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file snowflake.hpp
/// `basic_snowflake`, the one engine behind every generator, and the four generators on it:
///
///   classic_snowflake<Layout, Clock>  Twitter: sequence 0 each tick, wait on overflow, throw
///                                     when the clock goes back.
///   gene_snowflake<Layout, Clock>     the low bits of a related key (the gene) in the lowest
///                                     field, one sequence per gene value: `id % n == key % n`.
///   cosid_snowflake<Layout, Clock>    CosId: the sequence runs on across ticks until a reset
///                                     threshold, so `id % n` is even at low rates.
///   tick_snowflake<Layout>            on `tick_clock`: a wall-clock step cannot move it.
///
/// Each has a `_st` alias without atomics, for one thread.
///
///     flakeid::classic_snowflake<> gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}};
///     std::uint64_t id = gen.next_id();
///     auto parts = gen.layout().decompose(id);
///
/// The state is one 64-bit word per gene value: the last tick used above the last sequence
/// used. A call reads the clock once and, in the common case (same tick, sequence not used
/// up), takes the next sequence with one `fetch_add`; a new tick, a used-up sequence or a
/// clock behind the state go through a compare-and-swap. Nothing else is shared, nothing is
/// locked. (The clock is read a second time only when the state holds a newer tick than the
/// reading, or after a wait.) Threads that wait for the next tick do not all spin: one spins
/// to the tick's start, the others sleep to it.

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "clock.hpp"
#include "detail/fork_guard.hpp"
#include "detail/min_max.hpp"
#include "detail/snowflake_checks.hpp"
#include "detail/snowflake_errors.hpp"
#include "detail/thread_blocks.hpp"
#include "errors.hpp"
#include "layout.hpp"
#include "layouts.hpp"
#include "policies.hpp"
#include "version.hpp"
#include "worker_id.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// The snowflake engine: IDs of layout `L` from clock `Clock` under `Policies`.
///
/// Requirements (checked with a message that says the fix): `L` has the timestamp as its most
/// significant field; `Clock` models `clock_source`; each policy models its concept.
///
/// Guarantees: one generator never returns the same ID twice, from any number of threads,
/// whatever the clock does; IDs are strictly increasing (per gene value on a gene layout);
/// generators with different (datacenter, worker) never collide.
///
/// Throws: `timestamp_overflow_error` before the epoch or past `expires_at()`,
/// `clock_backwards_error` per the backwards policy, `lease_lost_error` when a lease fence is
/// down, `forked_process_error` in a child forked after the generator was made (make a new one
/// there). Thread-safety: every member is safe to call concurrently with `multi_threaded`.
template <flakeid::layout L, class Clock = wall_clock, class Policies = classic_policies>
class basic_snowflake {
  static_assert(detail::check_snowflake_params<L, Clock, Policies>());

 public:
  using clock_type = Clock;
  using policies_type = Policies;
  using time_point = flakeid::layout::time_point;

  /// The layout, for `decompose`, `id_range` and the rest of the codec.
  static constexpr flakeid::layout layout_value = L;
  /// Whether IDs carry a gene (then mint with `next_id(key)`).
  static constexpr bool has_gene = L.has(field_kind::gene);
  /// Number of gene values, each with its own sequence (1 without a gene).
  static constexpr std::size_t gene_count = std::size_t{1} << L.bits(field_kind::gene);
  /// Whether the generator may be used from several threads at once.
  static constexpr bool thread_safe = Policies::threading::thread_safe;

  /// Node (datacenter 0, worker 0) on a default clock. Two such generators collide: give each
  /// process its own worker id.
  basic_snowflake() : basic_snowflake(fixed_node{datacenter_id{0}, worker_id{0}}) {}

  /// Worker `w` (datacenter 0). Throws `field_range_error` when it does not fit the layout.
  explicit basic_snowflake(worker_id w, Clock clock = Clock{})
      : basic_snowflake(fixed_node{w}, std::move(clock)) {}

  /// Datacenter `d`, worker `w`. Throws `field_range_error` when one does not fit the layout.
  basic_snowflake(datacenter_id d, worker_id w, Clock clock = Clock{})
      : basic_snowflake(fixed_node{d, w}, std::move(clock)) {}

  /// A raw integer, or a worker id before the datacenter id, does not compile: the strong
  /// types say which id is which, so the two cannot be swapped.
  template <class First, class... Rest>
  requires(std::is_integral_v<std::remove_cvref_t<First>> ||
           (std::is_same_v<std::remove_cvref_t<First>, worker_id> &&
            (std::is_same_v<std::remove_cvref_t<Rest>, datacenter_id> ||
             ...))) explicit basic_snowflake(First&&, Rest&&...) {
    static_assert(sizeof(First) == 0,
                  "flakeid: give ids as flakeid::worker_id{w}, or flakeid::datacenter_id{d} "
                  "then flakeid::worker_id{w}: a raw integer (or a worker id first) could be "
                  "the wrong one");
  }

  /// Only a clock: node (0, 0).
  explicit basic_snowflake(Clock clock)
      : basic_snowflake(fixed_node{datacenter_id{0}, worker_id{0}}, std::move(clock)) {}

  /// Ids from any worker-id source (fixed, environment, StatefulSet ordinal, a lease).
  /// A source with a fence (a lease, a clock guard) learns how far the generator borrows before
  /// its claim, so a clock guard's first deadline already covers the whole lead.
  template <worker_id_source Source>
  explicit basic_snowflake(Source&& source, Clock clock = Clock{})
      : basic_snowflake(worker_assignment(detail::assign_with_lead(source, L, borrow_lead_ms)),
                        std::move(clock)) {}

  /// Not a worker-id source: any other class passed where a source goes fails to compile here,
  /// with a message that says what a source needs.
  template <class Source>
  requires(std::is_class_v<std::remove_cvref_t<Source>> &&
           !worker_id_source<std::remove_cvref_t<Source>> &&
           !std::is_same_v<std::remove_cvref_t<Source>, basic_snowflake> &&
           !std::is_convertible_v<Source, worker_assignment> &&
           !std::is_convertible_v<Source, worker_id> &&
           !std::is_convertible_v<Source, datacenter_id> &&
           !std::is_convertible_v<Source, std::uint64_t> &&
           !std::is_convertible_v<Source, Clock>) explicit basic_snowflake(Source&&,
                                                                           Clock = Clock{}) {
    static_assert(sizeof(Source) == 0,
                  "Source must model flakeid::worker_id_source: give it 'worker_assignment "
                  "assign(const flakeid::layout&)'; or use flakeid::fixed_node, env_worker_id, "
                  "statefulset_ordinal or a lease");
  }

  /// Ids from an assignment already made.
  explicit basic_snowflake(worker_assignment a, Clock clock = Clock{})
      : clock_(std::move(clock)),
        node_(a.node),
        node_bits_(L.place(field_kind::datacenter, node_.datacenter) |
                   L.place(field_kind::worker, node_.worker)),
        fence_(std::move(a.fence)),
        fence_ptr_(fence_ ? fence_.get() : &detail::no_fence()),
        source_(std::move(a.source)) {
    // A generator on a lease's fence belongs to the process the lease was taken in: built in a
    // forked child from an assignment made before the fork, it refuses as the lease does.
    if (fence_) born_ = fence_->born;
    if (fence_) detail::raise_lead(*fence_, borrow_lead_ms);
    std::uint64_t first_tick = 0;
    if (a.not_after_unix_ms != INT64_MIN && a.not_after_unix_ms >= L.epoch_ms) {
      first_tick = static_cast<std::uint64_t>((a.not_after_unix_ms - L.epoch_ms) / L.tick_ms);
      if (first_tick > L.max_ticks()) first_tick = L.max_ticks();
    }
    // Sequence at its maximum: the first ID comes from a tick after `first_tick`.
    for (auto& w : states_) w.store(pack(first_tick, seq_max), std::memory_order_relaxed);
  }

  basic_snowflake(const basic_snowflake&) = delete;
  basic_snowflake& operator=(const basic_snowflake&) = delete;

  /// The next ID. Not for gene layouts (use `next_id(key)`).
  [[nodiscard]] std::uint64_t next_id() {
    static_assert(!has_gene,
                  "flakeid: this generator's IDs carry a gene: call next_id(key) with the key "
                  "whose gene the ID takes, e.g. orders.next_id(user_id)");
    born_.check(forked_what);
    if constexpr (uses_blocks) {
      return next_from_block();
    } else {
      const grant g = reserve(0, 1);
      return make_id(g.tick, g.seq, 0);
    }
  }

  /// The next ID carrying the gene of `key` (`key mod 2^gene_bits` in the lowest bits), so that
  /// `id % n == key % n` and `layout().shard_of(id, n) == key % n` for every `n` dividing
  /// `2^gene_bits`. IDs are strictly increasing per gene value.
  [[nodiscard]] std::uint64_t next_id(std::uint64_t key) {
    static_assert(has_gene,
                  "flakeid: this generator's layout has no gene field: call next_id() without a "
                  "key, or use a layout with one (fields::gene(bits) last)");
    born_.check(forked_what);
    const std::uint64_t gene = key & gene_mask;
    const grant g = reserve(static_cast<std::size_t>(gene), 1);
    return make_id(g.tick, g.seq, gene);
  }

  /// Fills `out` with consecutive IDs, with one state update per tick's worth.
  void next_ids(std::span<std::uint64_t> out) {
    static_assert(!has_gene, "flakeid: this generator's IDs carry a gene: call next_ids(out, key)");
    born_.check(forked_what);
    if constexpr (uses_blocks) drop_block();  // the thread's IDs stay in order
    fill(out, 0);
  }

  /// Fills `out` with IDs carrying the gene of `key`.
  void next_ids(std::span<std::uint64_t> out, std::uint64_t key) {
    static_assert(
        has_gene,
        "flakeid: this generator's layout has no gene field: call next_ids(out) without a key");
    born_.check(forked_what);
    fill(out, key & gene_mask);
  }

  /// The layout.
  [[nodiscard]] static constexpr const flakeid::layout& layout() noexcept { return layout_value; }
  /// Decodes an ID of this generator's layout (checked form).
  [[nodiscard]] static constexpr id_parts decompose(std::uint64_t id) { return L.decompose(id); }
  /// This generator's datacenter and worker ids.
  [[nodiscard]] node_id node() const noexcept { return node_; }
  /// Where the ids came from ("fixed", "env FLAKEID_WORKER_ID", a lease ...).
  [[nodiscard]] const std::string& node_source() const noexcept { return source_; }
  /// The clock (a copy shares a manual clock's time).
  [[nodiscard]] const Clock& clock() const noexcept { return clock_; }
  /// The start of the newest tick this generator has used (or reserved), across all genes.
  [[nodiscard]] time_point last_tick_time() const noexcept {
    std::uint64_t t = 0;
    for (const auto& w : states_)
      t = detail::larger(t, w.load(std::memory_order_acquire) >> state_shift);
    return L.time_at(t);
  }

 private:
  using word = typename Policies::threading::template word<std::uint64_t>;
  using start_policy = typename Policies::sequence_start;
  using exhausted = typename Policies::on_exhausted;
  using backwards = typename Policies::on_backwards;

  static constexpr unsigned seq_bits = L.bits(field_kind::sequence);
  static constexpr std::uint64_t seq_max = L.max_value(field_kind::sequence);
  // The state word, high to low: the tick (the timestamp's width), spare guard bits, the
  // sequence. A `fetch_add` that finds the sequence used up (threads racing to the end of a
  // tick) runs into the guard bits, never into the tick; the word holds up to
  // (2^guard - 1) * 2^seq_bits such overshoots, at most one per thread per tick.
  static constexpr unsigned state_shift = 64 - L.bits(field_kind::timestamp);
  static constexpr std::uint64_t state_seq_mask = (std::uint64_t{1} << state_shift) - 1;
  // The one-`fetch_add` path needs guard bits, and room for more overshoots than a process has
  // threads (at least 2^20); otherwise every call takes the compare-and-swap.
  static constexpr bool fast_add = (state_shift > seq_bits) && (state_shift >= 21);
  // thread_blocks<B>: each thread serves up to B sequences of a tick from a cache of its own.
  static constexpr std::uint64_t block_max = [] {
    if constexpr (requires { Policies::threading::block; }) {
      return static_cast<std::uint64_t>(Policies::threading::block);
    } else {
      return std::uint64_t{1};
    }
  }();
  static constexpr bool uses_blocks = block_max > 1;
  static_assert(!uses_blocks || !L.has(field_kind::gene),
                "flakeid::thread_blocks<B> is for layouts without a gene (a thread's block is one "
                "sequence range of one state word): use multi_threaded on a gene layout");
  static constexpr std::uint64_t gene_mask = L.max_value(field_kind::gene);
  static constexpr std::uint64_t tick_max = L.max_ticks();
  static constexpr std::int64_t tick_ms = L.tick_ms;
  static constexpr std::int64_t epoch_ms = L.epoch_ms;
  static constexpr std::uint64_t span_ms = (tick_max + 1) * static_cast<std::uint64_t>(tick_ms) - 1;
  // Ticks the IDs may run ahead of the clock (borrowing), rounded down.
  static constexpr std::uint64_t ahead_ticks =
      static_cast<std::uint64_t>(exhausted::max_ahead_ms / tick_ms);
  // How far (ms) a tick may run ahead of the clock: borrowing, plus the tick itself.
  static constexpr std::int64_t borrow_lead_ms =
      static_cast<std::int64_t>(ahead_ticks + 1) * tick_ms;
  // Below this much of a wait left, spin instead of sleeping.
  static constexpr std::int64_t spin_ns = 60'000;

 public:
  /// How far (ms) an ID's time may run ahead of the clock: the borrowing bound in whole ticks,
  /// plus the tick itself. A source with a fence (a lease, a clock guard) is told it before its
  /// claim.
  static constexpr std::int64_t lead_ms = borrow_lead_ms;

 private:
  struct grant {
    std::uint64_t tick;
    std::uint64_t seq;    // first sequence granted
    std::uint64_t count;  // how many consecutive sequences, >= 1
  };

  static constexpr std::uint64_t pack(std::uint64_t tick, std::uint64_t seq) noexcept {
    return (tick << state_shift) | seq;
  }

  [[nodiscard]] std::uint64_t make_id(std::uint64_t tick, std::uint64_t seq,
                                      std::uint64_t gene) const noexcept {
    return (tick << L.shift(field_kind::timestamp)) | node_bits_ |
           (seq << L.shift(field_kind::sequence)) | (gene << L.shift(field_kind::gene));
  }

  /// The clock's tick now; throws timestamp_overflow_error outside the layout's range.
  /// `Fenced`: a reading not taken before earlier loads (see `clock_source`'s `now_fenced`).
  template <bool Fenced = false>
  [[nodiscard]] std::uint64_t read_tick() const {
    std::int64_t ms = 0;
    return read_tick<Fenced>(ms);
  }
  /// The same, also giving the reading in Unix ms.
  template <bool Fenced = false>
  [[nodiscard]] std::uint64_t read_tick(std::int64_t& ms) const {
    if constexpr (Fenced) {
      ms = detail::unix_ms(detail::clock_now_fenced(clock_));
    } else {
      ms = detail::unix_ms(clock_.now());
    }
    const auto since = static_cast<std::uint64_t>(ms - epoch_ms);  // before the epoch: huge
    if (since > span_ms) [[unlikely]]
      detail::reject_time(ms, epoch_ms, epoch_ms + static_cast<std::int64_t>(span_ms));
    return since / static_cast<std::uint64_t>(tick_ms);
  }
  /// How far (ms) a reading lies behind the start of tick `last`.
  [[nodiscard]] static constexpr std::int64_t behind_ms(std::uint64_t last,
                                                        std::int64_t ms) noexcept {
    return epoch_ms + static_cast<std::int64_t>(last) * tick_ms - ms;
  }

  /// Waits until the clock reaches tick `target`, sleeping most of the way and spinning at the
  /// end; returns the tick then read. Gives up (returns the tick read) once it has slept for
  /// `budget_ms` (negative: no bound). Of several threads waiting at once, one spins at the end
  /// and the others sleep to the tick's start (they are a few tens of microseconds late, and
  /// burn no core meanwhile): the spinning thread starts the tick on time.
  std::uint64_t wait_for_tick(std::uint64_t target, std::int64_t budget_ms) const {
    // The target as a millisecond time point; the time left is taken as a difference in the
    // clock's own unit, so a reading past the year 2262 (a 48-bit Unix-ms layout lasts to 10889)
    // does not overflow a count of nanoseconds since 1970.
    const time_point target_time{
        std::chrono::milliseconds{epoch_ms + static_cast<std::int64_t>(target) * tick_ms}};
    const spin_token token(*this);
    std::int64_t slept_ns = 0;
    for (;;) {
      const std::uint64_t now = read_tick();
      if (now >= target) return now;
      if (budget_ms >= 0 && slept_ns > budget_ms * 1'000'000) return now;
      const std::int64_t left =
          std::chrono::duration_cast<std::chrono::nanoseconds>(target_time - clock_.now()).count();
      if (!token.spins && left > 0) {
        detail::clock_sleep(clock_, std::chrono::nanoseconds{left});
        slept_ns += left;
      } else if (left > spin_ns) {
        detail::clock_sleep(clock_, std::chrono::nanoseconds{left - spin_ns / 2});
        slept_ns += left - spin_ns / 2;
      } else {
        detail::cpu_relax();
      }
    }
  }

  /// Whether this waiting thread is the one that spins to the tick's start: the first to ask
  /// while no other thread holds the token (always, for a single-threaded generator).
  struct spin_token {
    const basic_snowflake& gen;
    bool spins = true;
    explicit spin_token(const basic_snowflake& g) noexcept : gen(g) {
      if constexpr (thread_safe) spins = gen.spinner_.exchange(1, std::memory_order_acquire) == 0;
    }
    ~spin_token() {
      if constexpr (thread_safe) {
        if (spins) gen.spinner_.store(0, std::memory_order_release);
      }
    }
    spin_token(const spin_token&) = delete;
    spin_token& operator=(const spin_token&) = delete;
  };

  /// Reserves up to `want` consecutive sequences in one tick for gene index `g`.
  grant reserve(std::size_t g, std::uint64_t want) {
    std::int64_t now_ms = 0;
    const std::uint64_t now = read_tick(now_ms);
    return reserve_at(g, want, now, now_ms);
  }

  /// The same, for the clock's reading `now` (Unix ms `now_ms`), just taken.
  grant reserve_at(std::size_t g, std::uint64_t want, std::uint64_t now, std::int64_t now_ms) {
    word& w = states_[g];
    if constexpr (fast_add) {
      if (want == 1) {
        // The common case, one read-modify-write that cannot fail: the state holds this tick
        // and its sequence is not used up, so the next sequence is ours. Anything else (a new
        // tick, the sequence used up, a state ahead of the reading) goes on from the value the
        // `fetch_add` left; a sequence it took and did not use is given back when possible.
        check_fence(now);
        const std::uint64_t prev = w.fetch_add(1, std::memory_order_acq_rel);
        const std::uint64_t seq = prev & state_seq_mask;
        const std::uint64_t last = prev >> state_shift;
        if (last == now && seq < seq_max) [[likely]]
          return {now, seq + 1, 1};
        if constexpr (ahead_ticks > 0) {
          // A lead that borrowing built up: the state holds a later tick, within the bound, that
          // still has sequences, so the next one is ours as well, if the fence lets that tick
          // through (what `reserve_cas` decides here, without its compare-and-swap).
          if (last > now && last - now <= ahead_ticks && seq < seq_max && fence_allows(last))
            return {last, seq + 1, 1};
        }
        return reserve_claimed(w, want, now, now_ms, prev);
      }
    }
    return reserve_cas(w, want, now, now_ms, w.load(std::memory_order_acquire), false, 0);
  }

  /// `reserve_at` after a `fetch_add` that did not give a usable sequence: the state was `prev`
  /// and our `fetch_add` made it `prev + 1`. If nothing can be handed out, the sequence is given
  /// back (the state returns to `prev` unless another thread moved it meanwhile).
  grant reserve_claimed(word& w, std::uint64_t want, std::uint64_t now, std::int64_t now_ms,
                        std::uint64_t prev) {
    try {
      return reserve_cas(w, want, now, now_ms, prev + 1, true, prev);
    } catch (...) {
      std::uint64_t expected = prev + 1;
      while (!w.compare_exchange_weak(expected, prev, std::memory_order_relaxed,
                                      std::memory_order_relaxed) &&
             expected == prev + 1) {
      }
      throw;
    }
  }

  /// The compare-and-swap path, from the state `old`. With `claimed`, a state still equal to
  /// the value our own `fetch_add` left counts as `before` (the sequence it took is ours).
  grant reserve_cas(word& w, std::uint64_t want, std::uint64_t now, std::int64_t now_ms,
                    std::uint64_t old, bool claimed, std::uint64_t before) {
    // The clock first, then the state: the load and the compare-and-swap stay a few
    // instructions apart, so another thread rarely slips in between (the clock read, the
    // slowest step, is outside that window). A failed compare-and-swap retries with the same
    // reading and the state it returned, without reading the clock again.
    const std::uint64_t mine = before + 1;
    for (;;) {
      const std::uint64_t base = claimed && old == mine ? before : old;
      const std::uint64_t last = base >> state_shift;
      if (now + ahead_ticks < last) [[unlikely]] {
        // The state may hold a tick another thread read after our reading. Read again, after
        // the load (fenced, for a clock whose plain read the CPU may take early): only if the
        // clock is still behind did it step back. (A lag within the borrowing bound is the
        // lead borrowing built up, and needs no second reading.)
        now = read_tick<true>(now_ms);
      }
      // Overshoots of threads racing to the end of a tick lie above seq_max: used up.
      const std::uint64_t seq = detail::smaller(base & state_seq_mask, seq_max);
      std::uint64_t tick = 0;
      std::uint64_t first = 0;
      if (now > last) {
        tick = now;
        first = start_.next(seq, seq_max);
      } else {
        // Behind the last tick: count on in it (a borrowed lead, or held), or go again with a
        // fresh reading after a wait. `now` keeps the clock's reading, which bounds borrowing.
        if (now < last) [[unlikely]] {
          if (behind(last, now, now_ms) > last) {  // waited for the clock: go again, read afresh
            now = read_tick(now_ms);
            continue;
          }
        }
        if (seq < seq_max) {
          tick = last;
          first = seq + 1;
        } else {
          // The tick after an exhausted one starts at 0, whether borrowed or waited for.
          tick = exhausted_tick(last, now);
          first = 0;
        }
      }
      // The time fence, on the tick that goes into the ID (read, borrowed or held).
      check_fence(tick);
      const std::uint64_t count = detail::smaller(want, seq_max - first + 1);
      if (w.compare_exchange_weak(old, pack(tick, first + count - 1), std::memory_order_acq_rel,
                                  std::memory_order_acquire)) {
        if (fence_ && tick != last) publish(tick);
        return {tick, first, count};
      }
    }
  }

  /// The clock reads tick `now` (Unix ms `now_ms`), behind the last tick used: the lead
  /// borrowing built up, or a step back for the backwards policy. Returns the tick to continue
  /// from (`last` to count on in it, a fresh reading > last after a wait), or throws.
  /// The step is measured in ms from the reading to the start of `last`, not in whole ticks: a
  /// step of 1 ms across the boundary of a 1 s tick is a step of 1 ms.
  std::uint64_t behind(std::uint64_t last, std::uint64_t now, std::int64_t now_ms) {
    const std::uint64_t lag = last - now;
    if (lag <= ahead_ticks) return last;
    const std::int64_t step_ms = behind_ms(last, now_ms);
    if constexpr (backwards::action == backwards_action::hold) {
      if (step_ms <= backwards::max_step_ms) return last;
    } else if constexpr (backwards::action == backwards_action::wait) {
      if (step_ms <= backwards::max_step_ms) {
        const std::uint64_t t = wait_for_tick(last, backwards::max_step_ms + tick_ms);
        if (t >= last) return t > last ? t : last;
        detail::throw_backwards(
            detail::larger<std::int64_t>(1, behind_ms(last, detail::unix_ms(clock_.now()))),
            backwards::max_step_ms);
      }
    }
    detail::throw_backwards(step_ms, backwards::max_step_ms);
  }

  /// The tick `last` is used up. Returns the tick to move on to: `last + 1` at once while
  /// borrowing allows it, else the later of `last + 1` and the clock's tick after waiting.
  std::uint64_t exhausted_tick(std::uint64_t last, std::uint64_t now) {
    if (last >= tick_max) [[unlikely]]
      detail::reject_time(epoch_ms + static_cast<std::int64_t>(span_ms) + 1, epoch_ms,
                          epoch_ms + static_cast<std::int64_t>(span_ms));
    if constexpr (ahead_ticks > 0) {
      if (last + 1 <= now + ahead_ticks) return last + 1;
      return detail::larger(last + 1, wait_for_tick(last + 1 - ahead_ticks, -1));
    } else {
      return wait_for_tick(last + 1, -1);
    }
  }

  void fill(std::span<std::uint64_t> out, std::uint64_t gene) {
    std::size_t i = 0;
    while (i < out.size()) {
      const grant g = reserve(static_cast<std::size_t>(gene), out.size() - i);
      std::uint64_t id = make_id(g.tick, g.seq, gene);
      const std::uint64_t step = std::uint64_t{1} << L.shift(field_kind::sequence);
      for (std::uint64_t k = 0; k < g.count; ++k, id += step) out[i++] = id;
    }
  }

  using block_entry = detail::snowflake_block;
  block_entry* find_block() const noexcept {
    for (block_entry& e : detail::this_thread_snowflake_blocks<basic_snowflake>())
      if (e.owner == instance_) return &e;
    return nullptr;
  }

  /// `next_id()` with `thread_blocks`: from the thread's block while it is of the clock's tick
  /// (or within the borrowing lead), else from a new block. A thread that used its block up
  /// within its tick asks for twice as many next time (up to the policy's bound), one whose
  /// block went stale asks for half: at low rates a thread takes one sequence at a time, as
  /// without blocks.
  std::uint64_t next_from_block() {
    std::int64_t now_ms = 0;
    const std::uint64_t now = read_tick(now_ms);
    block_entry* e = find_block();
    if (e != nullptr && e->next <= e->end && e->tick - now <= ahead_ticks) [[likely]] {
      check_fence(e->tick);
      return make_id(e->tick, e->next++, 0);
    }
    return refill_block(e, now, now_ms);
  }

  std::uint64_t refill_block(block_entry* e, std::uint64_t now, std::int64_t now_ms) {
    if (e == nullptr) {
      static thread_local std::size_t victim = 0;
      e = &detail::this_thread_snowflake_blocks<basic_snowflake>()[victim++ %
                                                                   detail::snowflake_block_ways];
      *e = block_entry{instance_, 0, 1, 0, 1};
    } else if (e->next > e->end && e->tick == now) {
      e->want = detail::smaller(e->want * 2, block_max);
    } else {
      e->want = detail::larger<std::uint64_t>(e->want / 2, 1);
      give_back(*e);
    }
    e->next = 1;  // nothing left to serve until the reservation succeeds
    e->end = 0;
    const grant g = reserve_at(0, e->want, now, now_ms);
    e->tick = g.tick;
    e->next = g.seq + 1;
    e->end = g.seq + g.count - 1;
    return make_id(g.tick, g.seq, 0);
  }

  /// Drops the calling thread's block (its IDs would be below those taken from the state).
  void drop_block() noexcept {
    if (block_entry* e = find_block()) {
      give_back(*e);
      e->next = 1;
      e->end = 0;
    }
  }

  /// Returns the unserved rest of block `e` to the state if no thread has taken sequences since
  /// (the state still ends where the block does), so that a sequence-start policy goes on from
  /// the last sequence served, as without blocks; else the rest is a gap.
  void give_back(const block_entry& e) noexcept {
    if (e.next > e.end) return;
    std::uint64_t expected = pack(e.tick, e.end);
    states_[0].compare_exchange_strong(expected, pack(e.tick, e.next - 1),
                                       std::memory_order_relaxed, std::memory_order_relaxed);
  }

  /// Throws `lease_lost_error` unless tick `tick` starts before the fence's deadline: one
  /// relaxed load and a compare.
  void check_fence(std::uint64_t tick) const {
    const std::int64_t ms = epoch_ms + static_cast<std::int64_t>(tick) * tick_ms;
    const std::int64_t deadline = fence_ptr_->deadline_unix_ms.load(std::memory_order_relaxed);
    if (ms >= deadline) [[unlikely]]
      detail::throw_lease_lost(ms, deadline);
  }
  /// Whether `check_fence(tick)` passes.
  [[nodiscard]] bool fence_allows(std::uint64_t tick) const noexcept {
    return fence_ptr_->allows(epoch_ms + static_cast<std::int64_t>(tick) * tick_ms);
  }

  void publish(std::uint64_t tick) noexcept {
    const std::int64_t ms = epoch_ms + static_cast<std::int64_t>(tick) * tick_ms;
    std::int64_t prev = fence_->last_unix_ms.load(std::memory_order_relaxed);
    while (prev < ms &&
           !fence_->last_unix_ms.compare_exchange_weak(prev, ms, std::memory_order_relaxed)) {
    }
  }

  static constexpr std::string_view forked_what = "this snowflake generator";

  [[no_unique_address]] Clock clock_;
  [[no_unique_address]] start_policy start_{};
  detail::fork_stamp born_;  // a forked child's calls throw before touching the state
  node_id node_;
  std::uint64_t node_bits_ = 0;
  fence_ptr fence_;
  const lease_fence* fence_ptr_ = nullptr;  // fence_, or a fence without a deadline
  std::string source_;
  std::uint64_t instance_ = uses_blocks ? detail::next_block_owner() : 0;
  alignas(64) std::array<word, gene_count> states_{};
  // Set while a thread spins to the next tick's start (see `wait_for_tick`); on a line of its
  // own, away from the state.
  alignas(64) mutable std::atomic<std::uint32_t> spinner_{0};
};

/// Twitter's snowflake: sequence 0 every tick, wait for the next tick on overflow, throw
/// `clock_backwards_error` when the clock goes back.
template <flakeid::layout L = layouts::twitter, class Clock = wall_clock>
using classic_snowflake = basic_snowflake<L, Clock, classic_policies>;
template <flakeid::layout L = layouts::twitter, class Clock = wall_clock>
using classic_snowflake_st = basic_snowflake<L, Clock, classic_policies_st>;

/// The gene-embedding snowflake: `next_id(key)` puts `key mod 2^gene_bits` in the lowest field,
/// so an order lands on its user's shard. One sequence per gene value. It is Twitter's engine on
/// a layout with a gene field (the layout, not a policy, makes the gene): on a layout without
/// one, `next_id(key)` does not compile.
template <flakeid::layout L = layouts::seed_gene, class Clock = wall_clock>
using gene_snowflake = basic_snowflake<L, Clock, classic_policies>;
template <flakeid::layout L = layouts::seed_gene, class Clock = wall_clock>
using gene_snowflake_st = basic_snowflake<L, Clock, classic_policies_st>;

/// CosId's snowflake: the sequence runs on across ticks until the reset threshold
/// (`2^(bits-1) - 1`), the same sequences as CosId for the same clock readings; a clock that
/// went back is waited for up to 500 ms (spinning the last stretch), beyond that it throws.
template <flakeid::layout L = layouts::cosid, class Clock = wall_clock>
using cosid_snowflake = basic_snowflake<L, Clock, cosid_policies>;
template <flakeid::layout L = layouts::cosid, class Clock = wall_clock>
using cosid_snowflake_st = basic_snowflake<L, Clock, cosid_policies_st>;

/// Twitter's snowflake for services that mint from many threads: each thread takes a block of
/// the current tick's sequences at once (`thread_blocks<>`), so threads do not share a cache
/// line per ID. IDs are unique and increase per thread; IDs of different threads within one
/// tick are not in the order they were minted.
template <flakeid::layout L = layouts::twitter, class Clock = wall_clock>
using blocked_snowflake =
    basic_snowflake<L, Clock, classic_policies::with_threading<thread_blocks<>>>;

/// Twitter's behaviour on `tick_clock`: the wall clock is read once, at construction, and a
/// monotonic clock counts from there, so stepping the wall clock cannot cause a duplicate.
/// `gen.clock().drift()` tells how far the wall clock has moved away.
template <flakeid::layout L = layouts::twitter>
using tick_snowflake = basic_snowflake<L, tick_clock, classic_policies>;
template <flakeid::layout L = layouts::twitter>
using tick_snowflake_st = basic_snowflake<L, tick_clock, classic_policies_st>;

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
