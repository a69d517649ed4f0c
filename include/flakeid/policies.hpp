// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file policies.hpp
/// The policies of `basic_snowflake`, each a small struct, bundled by `flakeid::policies<...>`.
///
/// Sequence start: where the sequence begins in a new tick.
///   zero_start            0 every tick (Twitter). Best packing; `id % n` lands on 0 at low rates.
///   cosid_threshold<T>    counts on across ticks and restarts at 1 only once it reached T
///                         (CosId's number: 0 and 1 restart every tick; cosid_threshold<> is
///                         CosId's default, 2^(bits-1) - 1). Even `id % n`, CosId's sequences.
///   vibrating_start<M>    a start offset rotating 0, 1, ..., M, 0, ... per new tick
///                         (ShardingSphere's max-vibration-offset). Even `id % n` for n <= M + 1.
///   random_start<B>       a random start in [0, B) per tick (hutool, Leaf).
///   never_reset           counts on across ticks and wraps (NewLife).
///   A tick the generator moves on to because the last one was used up (waiting for it, or
///   borrowing it) starts at 0 under every policy; a tick the clock reached by itself starts by
///   the policy, as any new tick does (so `cosid_threshold` at 1 after a used-up tick, as
///   CosId does).
///
/// Sequence exhausted within a tick:
///   wait_next_tick        sleep most of the rest of the tick, spin only at its end (default).
///   borrow_ticks<Ms>      move on to the next tick at once while the IDs' time stays at most Ms
///                         ahead of the clock, then wait. For bursts.
///
/// Clock moved back (behind the last tick used):
///   throw_on_backwards    throw `clock_backwards_error` carrying the step (Twitter; default).
///   wait_on_backwards<Ms> wait for the clock to catch up when the step is at most Ms, else throw
///                         (mybatis-plus 5, ShardingSphere 10 = `<9>`, CosId 500).
///   hold_on_backwards<Ms> keep counting in the last tick when the step is at most Ms, moving to
///                         the next one only when the sequence runs out; else throw (NewLife,
///                         hutool).
///   No policy ever repeats an ID: every one of them only moves forward from the last tick used.
///
/// Threading:
///   multi_threaded        lock-free: tick and sequence in one atomic word; the common case is
///                         one fetch_add, a new tick a compare-and-swap.
///   thread_blocks<B>      multi_threaded, and each thread takes up to B sequences of the tick at
///                         once into a cache of its own: threads minting at a high rate do not
///                         share a cache line per ID. IDs of different threads are not in mint
///                         order within a tick. For services minting from many threads.
///   single_threaded       the same state without atomics, for one thread (or an outside lock).
///
/// Durations are template arguments in milliseconds.

#include <atomic>
#include <concepts>
#include <cstdint>
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

// ---- sequence start ------------------------------------------------------------------------

/// The sequence starts at 0 in every tick (Twitter's snowflake).
struct zero_start {
  [[nodiscard]] constexpr std::uint64_t next(std::uint64_t /*prev*/,
                                             std::uint64_t /*max*/) noexcept {
    return 0;
  }
};

/// `cosid_threshold<>`: CosId's default threshold, `2^(sequence_bits - 1) - 1` of the
/// generator's layout. A marker, not a number CosId can be configured with (a Java `long` stops
/// at 2^63 - 1), so no copied setting turns into the default.
inline constexpr std::uint64_t cosid_default_threshold = ~std::uint64_t{0};

/// CosId's sequence-reset threshold (`sequenceResetThreshold`, the same number): in a new tick
/// the sequence restarts at 1 when the last one is at least `Threshold`, else it goes on from
/// it. 0 and 1 restart every tick (CosId's 0 and 1 do too); `cosid_threshold<>` is CosId's
/// default, `2^(sequence_bits - 1) - 1`. The first ID has sequence 1, as in CosId. A
/// `Threshold` above the layout's largest sequence does not compile with the generator:
/// CosId's sequence would then never reset and wrap to 0, which flakeid's does not follow.
template <std::uint64_t Threshold = cosid_default_threshold>
struct cosid_threshold {
  /// The threshold the generator checks against its layout.
  static constexpr std::uint64_t threshold = Threshold;
  /// Whether this is `cosid_threshold<>`, the layout's default (always valid).
  static constexpr bool layout_default = Threshold == cosid_default_threshold;
  [[nodiscard]] constexpr std::uint64_t next(std::uint64_t prev, std::uint64_t max) noexcept {
    const std::uint64_t t = layout_default ? (max >> 1) : Threshold;
    return (prev >= t || prev >= max) ? 1 : prev + 1;
  }
};

/// ShardingSphere's vibration: each new tick starts at an offset rotating 0, 1, ..., MaxOffset.
/// Costs up to MaxOffset IDs of a tick's capacity. Thread-safe.
template <std::uint64_t MaxOffset = 15>
struct vibrating_start {
  std::atomic<std::uint64_t> offset{0};
  [[nodiscard]] std::uint64_t next(std::uint64_t /*prev*/, std::uint64_t max) noexcept {
    const std::uint64_t o = offset.fetch_add(1, std::memory_order_relaxed) % (MaxOffset + 1);
    return o <= max ? o : o & max;
  }
};

/// A random start in `[0, Bound)` per tick (hutool's randomSequenceLimit, Leaf's 0-99).
/// Costs up to Bound - 1 IDs of a tick's capacity. Thread-safe (a SplitMix64 stream).
template <std::uint64_t Bound = 128>
struct random_start {
  static_assert(Bound >= 1, "random_start<Bound> needs Bound >= 1");
  std::atomic<std::uint64_t> state{0x9E3779B97F4A7C15ULL ^
                                   reinterpret_cast<std::uintptr_t>(&state)};
  [[nodiscard]] std::uint64_t next(std::uint64_t /*prev*/, std::uint64_t max) noexcept {
    std::uint64_t z = state.fetch_add(0x9E3779B97F4A7C15ULL, std::memory_order_relaxed);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    const std::uint64_t r = z % Bound;
    return r <= max ? r : r & max;
  }
};

/// The sequence never resets: it goes on across ticks and wraps to 0 (NewLife).
struct never_reset {
  [[nodiscard]] constexpr std::uint64_t next(std::uint64_t prev, std::uint64_t max) noexcept {
    return prev >= max ? 0 : prev + 1;
  }
};

/// A sequence-start policy: `p.next(prev, max)` is the first sequence of a new tick, given the
/// last sequence used and the largest the layout holds. It must return a value <= max.
template <class P>
concept sequence_start_policy = std::default_initializable<P> &&
    requires(P& p, std::uint64_t prev, std::uint64_t max) {
  { p.next(prev, max) }
  noexcept->std::same_as<std::uint64_t>;
};

// ---- sequence exhausted --------------------------------------------------------------------

/// Wait for the next tick: sleep most of the remaining time, spin only at the end.
struct wait_next_tick {
  static constexpr std::int64_t max_ahead_ms = 0;
};

/// Borrow future ticks: move on to the next tick at once while the IDs' time stays at most
/// `MaxAheadMs` ahead of the clock; past that, wait. The bound counts whole ticks, rounded down
/// (`borrow_ticks<25>` on 10 ms ticks borrows two; a bound under one tick borrows none). A clock
/// that is behind the last tick by no more than that is taken as the lead this policy built up,
/// not as a step back.
template <std::int64_t MaxAheadMs>
struct borrow_ticks {
  static_assert(MaxAheadMs >= 1, "borrow_ticks<MaxAheadMs> needs a bound of at least 1 ms");
  static constexpr std::int64_t max_ahead_ms = MaxAheadMs;
};

/// An exhaustion policy: `P::max_ahead_ms`, how far (ms) IDs may run ahead of the clock; 0 waits.
template <class P>
concept exhausted_policy = requires {
  { P::max_ahead_ms } -> std::convertible_to<std::int64_t>;
}
&&(P::max_ahead_ms >= 0);

// ---- clock moved back ----------------------------------------------------------------------

/// What a backwards policy does within its bound.
enum class backwards_action : std::uint8_t { fail, wait, hold };

/// Throw `clock_backwards_error` on any step back (Twitter).
struct throw_on_backwards {
  static constexpr backwards_action action = backwards_action::fail;
  static constexpr std::int64_t max_step_ms = 0;
};

/// Wait for the clock to catch up when it went back at most `MaxStepMs`; else throw.
template <std::int64_t MaxStepMs>
struct wait_on_backwards {
  static_assert(MaxStepMs >= 1, "wait_on_backwards<MaxStepMs> needs a bound of at least 1 ms");
  static constexpr backwards_action action = backwards_action::wait;
  static constexpr std::int64_t max_step_ms = MaxStepMs;
};

/// Keep counting in the last tick when the clock went back at most `MaxStepMs`; else throw.
template <std::int64_t MaxStepMs>
struct hold_on_backwards {
  static_assert(MaxStepMs >= 1, "hold_on_backwards<MaxStepMs> needs a bound of at least 1 ms");
  static constexpr backwards_action action = backwards_action::hold;
  static constexpr std::int64_t max_step_ms = MaxStepMs;
};

/// A backwards policy: `P::action` (a `backwards_action`) and `P::max_step_ms`.
template <class P>
concept backwards_policy = requires {
  { P::action } -> std::convertible_to<backwards_action>;
  { P::max_step_ms } -> std::convertible_to<std::int64_t>;
};

// ---- threading -------------------------------------------------------------------------------

namespace detail {
/// `std::atomic`'s interface over a plain value, for single-threaded generators.
template <class T>
struct plain_word {
  T value{};
  plain_word() = default;
  constexpr explicit plain_word(T v) noexcept : value(v) {}
  [[nodiscard]] constexpr T load(std::memory_order = std::memory_order_seq_cst) const noexcept {
    return value;
  }
  constexpr void store(T v, std::memory_order = std::memory_order_seq_cst) noexcept { value = v; }
  constexpr bool compare_exchange_weak(T& /*expected*/, T desired, std::memory_order = {},
                                       std::memory_order = {}) noexcept {
    value = desired;
    return true;
  }
  constexpr T fetch_add(T d, std::memory_order = std::memory_order_seq_cst) noexcept {
    const T old = value;
    value += d;
    return old;
  }
};
}  // namespace detail

/// Lock-free and thread-safe: the state is one atomic 64-bit word updated by compare-and-swap.
struct multi_threaded {
  static constexpr bool thread_safe = true;
  template <class T>
  using word = std::atomic<T>;
};

/// Lock-free like `multi_threaded`, and each thread takes a block of up to `Block` consecutive
/// sequences of the current tick at once and serves its IDs from it, touching the shared state
/// once per block instead of once per ID. A thread's block starts at one sequence in each tick
/// and doubles each time the thread uses it up within the tick, so at low rates the sequences
/// are taken one at a time as with `multi_threaded` (and a sequence-start policy keeps its
/// spread); a block left when the tick ends is dropped (a gap, never a repeat).
///
/// Trade-off: IDs are unique and strictly increasing per thread, but IDs that different threads
/// mint within one tick are not in the order they were minted (a thread may still serve
/// sequences below those another thread took later). For layouts without a gene.
template <std::uint64_t Block = 64>
struct thread_blocks {
  static_assert(Block >= 2 && Block <= 65536,
                "thread_blocks<Block> needs a block of 2 to 65536 sequences (use multi_threaded "
                "for one at a time)");
  static constexpr bool thread_safe = true;
  /// The largest block a thread takes at once.
  static constexpr std::uint64_t block = Block;
  template <class T>
  using word = std::atomic<T>;
};

/// No atomics: for a generator used by one thread at a time.
struct single_threaded {
  static constexpr bool thread_safe = false;
  template <class T>
  using word = detail::plain_word<T>;
};

/// A threading policy: `P::thread_safe` and a `P::word<T>` with `std::atomic<T>`'s load, store,
/// compare_exchange_weak and fetch_add; optionally `P::block`, the largest block of sequences a
/// thread takes at once (see `thread_blocks`).
template <class P>
concept threading_policy = requires(typename P::template word<std::uint64_t>& w, std::uint64_t v) {
  { P::thread_safe } -> std::convertible_to<bool>;
  { w.load(std::memory_order_acquire) } -> std::same_as<std::uint64_t>;
  {
    w.compare_exchange_weak(v, v, std::memory_order_acq_rel, std::memory_order_acquire)
    } -> std::same_as<bool>;
};

// ---- the bundle ------------------------------------------------------------------------------

/// The policies of one generator. Each `with_...` alias is the same bundle with one slot
/// changed, so a bundle is adjusted without respelling the others:
///
///     using mine = flakeid::classic_policies::with_backwards<flakeid::hold_on_backwards<10>>;
template <class SequenceStart = zero_start, class Exhausted = wait_next_tick,
          class Backwards = throw_on_backwards, class Threading = multi_threaded>
struct policies {
  using sequence_start = SequenceStart;
  using on_exhausted = Exhausted;
  using on_backwards = Backwards;
  using threading = Threading;

  /// This bundle with another sequence-start policy.
  template <class S>
  using with_start = policies<S, Exhausted, Backwards, Threading>;
  /// This bundle with another policy for an exhausted sequence.
  template <class E>
  using with_exhausted = policies<SequenceStart, E, Backwards, Threading>;
  /// This bundle with another policy for a clock that moved back.
  template <class B>
  using with_backwards = policies<SequenceStart, Exhausted, B, Threading>;
  /// This bundle with another threading policy.
  template <class T>
  using with_threading = policies<SequenceStart, Exhausted, Backwards, T>;
  /// This bundle for one thread: no atomics.
  using single_threaded_bundle = with_threading<single_threaded>;
};

/// Twitter's snowflake: 0 every tick, wait on overflow, throw on a step back.
using classic_policies = policies<>;
/// `classic_policies` for one thread.
using classic_policies_st = classic_policies::single_threaded_bundle;
/// CosId: reset threshold, wait on overflow, wait up to 500 ms for a clock that went back.
using cosid_policies = policies<cosid_threshold<>, wait_next_tick, wait_on_backwards<500>>;
/// `cosid_policies` for one thread.
using cosid_policies_st = cosid_policies::single_threaded_bundle;

/// A bundle of policies: the four member types, each meeting its concept.
template <class P>
concept policy_set = requires {
  typename P::sequence_start;
  typename P::on_exhausted;
  typename P::on_backwards;
  typename P::threading;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
