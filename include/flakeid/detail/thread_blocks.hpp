// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/thread_blocks.hpp
/// The thread-local blocks that generators with thread blocks serve from (a
/// `basic_snowflake` under `thread_blocks<B>`, a `segment_chain_generator` with
/// `thread_block` > 1), and the owner numbers that tell whose block a thread holds.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// A number no other block owner (generator or chain) in the process has, never reused: a
/// block is keyed by it, never by address, so an object made where a destroyed one lay never
/// serves that one's block.
inline std::uint64_t next_block_owner() noexcept {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

// ---- segment chains --------------------------------------------------------------------------

/// A thread's block of IDs from a chain with `thread_block` > 1: next, next + stride, ... below
/// end, of chain `owner`. `want` is the size of the thread's next claim and `after` the
/// position word just after its last claim (to see whether other threads claimed since). On a
/// line of its own, so that nothing else is written beside it.
struct alignas(64) segment_thread_block {
  std::uint64_t owner = 0;
  std::uint64_t next = 0;
  std::uint64_t end = 0;
  std::uint64_t want = 0;
  std::uint64_t after = 0;
};

/// The calling thread's block (one per thread, shared by every chain: a thread that switches
/// chains starts a new block).
inline segment_thread_block& this_thread_segment_block() noexcept {
  static thread_local segment_thread_block block;
  return block;
}

// ---- snowflake generators --------------------------------------------------------------------

/// A thread's block of sequences of one snowflake generator: sequences `next` to `end` of tick
/// `tick`, and the size of the block it asks for next.
struct snowflake_block {
  std::uint64_t owner = 0;  // the generator's owner number; 0: free
  std::uint64_t tick = 0;
  std::uint64_t next = 1;
  std::uint64_t end = 0;
  std::uint64_t want = 1;
};

/// How many generators of one type a thread keeps blocks for (the ones it used last).
inline constexpr std::size_t snowflake_block_ways = 4;

/// The calling thread's blocks for the generators of type `Generator`.
template <class Generator>
std::array<snowflake_block, snowflake_block_ways>& this_thread_snowflake_blocks() noexcept {
  static thread_local std::array<snowflake_block, snowflake_block_ways> cache{};
  return cache;
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
