// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The walk of a chain in Leaf mode (segment_chain_options::leaf_dynamic_step) through Leaf's
// dynamic-step rule, for any distributor: segment_test over the memory store,
// mysql_segment_test over a leaf_alloc row.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <flakeid/clock.hpp>
#include <flakeid/segment.hpp>
#include <string>
#include <thread>
#include <vector>

namespace flakeid_test {

/// A chain on `d` in Leaf mode (step 100, one segment ahead, at most 8 segments a call) on a
/// manual clock, walked through nine store calls: 100 IDs, then doubled within 15 min (200),
/// kept from 15 to 30 min (200), halved at 30 min or more (100), never below the step (100),
/// then 200, 400, 800, and 800 again (1,600 would pass max_ahead segments). After call `n`,
/// once its segments are in, `after_call(n)` returns what the test reads of the store then,
/// which must be `seen[n - 1]`. Every ID is 1, 2, 3 ...: each segment served whole, in order.
template <class Distributor, class AfterCall>
void walk_leaf_dynamic_step(Distributor d, AfterCall after_call,
                            const std::vector<std::string>& seen) {
  using namespace std::chrono_literals;
  flakeid::manual_clock clock{std::chrono::sys_days{std::chrono::year{2025} / 3 / 18}};
  // One segment ahead: the worker calls the store when the callers move into the last segment
  // it fetched, and only then, so each call's time on the manual clock is the test's.
  flakeid::segment_chain_generator gen{std::move(d),
                                       {.segment = {.step = 100},
                                        .min_ahead = 1,
                                        .max_ahead = 8,
                                        .leaf_dynamic_step = true,
                                        .refill_period = 1ms},
                                       clock};
  std::vector<std::uint64_t> ids;
  // Draws up to the first ID of segment `g` (the first segment is 1).
  const auto enter = [&](std::size_t g) {
    while (ids.size() < 100 * (g - 1) + 1) ids.push_back(gen.next_id());
  };
  // Call `n`'s step and what `after_call` reads, once its segments are in (the callers are in
  // the last segment before it, so none is ahead until then; the wait ends a broken run only).
  const auto call = [&](std::uint64_t n) {
    for (int i = 0; i < 6000 && gen.stats().ahead < 1; ++i) std::this_thread::sleep_for(10ms);
    EXPECT_EQ(gen.stats().store_calls, n);
    return std::to_string(gen.stats().leaf_step) + " " + after_call(n);
  };
  const std::string steps[] = {"100", "200", "200", "100", "100", "200", "400", "800", "800"};
  const auto expect_call = [&](std::uint64_t n, const char* why) {
    EXPECT_EQ(call(n), steps[n - 1] + " " + seen.at(n - 1)) << "call " << n << ": " << why;
  };
  expect_call(1, "the first call takes the configured step");
  enter(1);
  expect_call(2, "under 15 min since the last call: doubled");
  clock.advance(20min);
  enter(3);
  expect_call(3, "from 15 to 30 min: kept");
  clock.advance(31min);
  enter(5);
  expect_call(4, "30 min or more: halved");
  clock.advance(31min);
  enter(6);
  expect_call(5, "never below the configured step");
  enter(7);
  expect_call(6, "doubled");
  enter(9);
  expect_call(7, "doubled");
  enter(13);
  expect_call(8, "doubled");
  enter(21);
  expect_call(9, "1,600 IDs would be more than max_ahead segments");
  EXPECT_EQ(gen.stats().hungry, 0U);
  for (std::size_t i = 0; i < ids.size(); ++i)
    ASSERT_EQ(ids[i], i + 1) << "Leaf's segments [1, 101), [101, 301) ... served whole, in order";
}

}  // namespace flakeid_test
