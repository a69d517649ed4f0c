// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment.hpp
/// Segment generators: dense, strictly increasing IDs (1, 2, 3 ...) from a counter in a shared
/// store, handed out from segments the generator reserves in bulk.
///
///   segment_distributor            the concept of a store counter: `d.next_max_id(step)`
///                                  advances it atomically and returns the new maximum `max`;
///                                  the caller then owns the IDs `(max - step, max]`.
///   segment_generator<D, Clock>    serves its current segment lock-free and fetches the next
///                                  one from the store when it runs out (Leaf's segment mode).
///   segment_chain_generator<D, C>  keeps a chain of segments prefetched by a background worker,
///                                  as far ahead as the measured draw rate and store round trip
///                                  call for; it grows when callers drain it ("hungry") and
///                                  shrinks when they are calm (CosId's SegmentChainId), and can
///                                  take Leaf's dynamic step. The store is never called while a
///                                  prefetched segment is left.
///   grouped_segment_generator<D,C> a counter per day, month or year (`orders@20250318`) that
///                                  restarts at 1 in every period: business numbers like
///                                  `20250318-0001`; old periods' counters expire
///                                  (`expiring_segment_distributor`).
///
/// This header includes the four parts of `segment/`: `options.hpp` (the distributor concepts
/// and the options), `generator.hpp`, `chain.hpp` and `grouped.hpp`, over `engine.hpp` (the
/// segment ring the generators share) and `sizing.hpp` (the chain's look-ahead and Leaf's
/// dynamic step).
///
/// Every store offers distributors (`store.distributor(key)`): `store/memory.hpp` and
/// `store/file.hpp` in the core; `adapters/redis.hpp`, `adapters/postgres.hpp`,
/// `adapters/mysql.hpp` and `adapters/zookeeper.hpp` with their own CMake targets.
///
///     flakeid::memory_store store;
///     flakeid::segment_chain_generator gen{store.distributor("orders"), {.step = 1000}};
///     std::uint64_t id = gen.next_id();  // 1, then 2, 3 ...
///
/// Guarantees: a generator never hands out an ID twice, and neither do two generators (in any
/// processes) on the same store counter, as long as the store never moves the counter back.
/// The IDs one thread receives from one generator are strictly increasing. Numbers a
/// generator reserved but did not hand out (at shutdown, a crash, an expired segment) are
/// skipped for good: gaps are possible, repeats are not.
///
/// How the fast path works: the segments a generator holds sit in a small ring of slots, and
/// one 64-bit word holds the generation of the current segment above the offset of the next
/// ID from its first:
///
///     63                    32 31                     0
///     +-----------------------+------------------------+
///     |  segment generation   |  offset from its first |
///     +-----------------------+------------------------+
///
/// `next_id()` reads a copy of the current run's slot (its generation, first ID and length),
/// then does one `fetch_add` on that word: ID = first + offset * stride while the word's
/// generation is the copy's and the offset lies in the run, the segments of consecutive
/// numbers that one store call fetched. Nothing it loads waits for the `fetch_add`. The
/// caller that runs past the run's end moves the word to the next run with a compare-and-swap
/// (chain: a run already prefetched) or, when none is ready, fetches segments from the store
/// under a mutex that serialises store calls.

#include "segment/chain.hpp"
#include "segment/generator.hpp"
#include "segment/grouped.hpp"
#include "segment/options.hpp"
