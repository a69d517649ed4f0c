// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The scenarios of a lease whose clock is off the store's: far off, or stepped ahead while it
// holds (see lease_scenarios.hpp for the backend these run over).

#include <gtest/gtest.h>

#include <chrono>
#include <flakeid/flakeid.hpp>
#include <flakeid/lease.hpp>
#include <string>

#include "lease_support.hpp"

namespace flakeid_test {

/// A lease whose clock lies an hour ahead of the store's, or an hour behind, takes no id:
/// `clock_skew_error` says how far off it is, names the store and the bound (`max_skew`, by
/// default `safe_guard / 2`: 150 ms here); it claimed nothing, so a lease on the right clock
/// then takes the only id.
template <class Backend>
void a_clock_far_off_takes_no_id(Backend& b) {
  auto o = quick_options(unique_ns("skew"));
  o.max_ids = 1;
  for (const std::chrono::hours off : {1h, -1h}) {
    auto oc = o;
    oc.use_clock(clock_at_wall(off));
    auto l = b.make(oc);
    try {
      (void)l->acquire(1);
      ADD_FAILURE() << "acquired on a clock " << off.count() << " h off";
    } catch (const flakeid::clock_skew_error& e) {
      const std::string what = e.what();
      const std::string side = off > 0h ? " ms ahead of the clock of " : " ms behind the clock of ";
      EXPECT_NE(what.find(side + l->where() + " (Unix ms "), std::string::npos) << what;
      EXPECT_NE(what.find("; a lease accepts at most 150 ms either way (max_skew, by default "
                          "safe_guard / 2): set this host's clock right (NTP) or raise safe_guard"),
                std::string::npos)
          << what;
      EXPECT_GT(off > 0h ? e.skew() : -e.skew(), 59min) << what;
    }
  }
  auto right = b.make(o);
  EXPECT_EQ(right->acquire(1), 0U);
}

/// A holder whose clock steps 5 s ahead of the store's: its generator mints nothing on the new
/// clock (`lease_lost_error`: the clock lies past the deadline the store confirmed), and its
/// renewals are refused (`renew_failed`, saying how far ahead it is), so its deadline never
/// catches up with the stepped clock. (Without the comparison it would renew from the stepped
/// clock and mint 5 s ahead: IDs that a holder on the store's time mints again later once the
/// store has forgotten this one.)
template <class Backend>
void a_clock_stepped_ahead_mints_nothing_past_its_deadline(Backend& b) {
  auto o = quick_options(unique_ns("step"));
  const stepped_clock clk;
  o.use_clock(clk);
  const event_details failed{flakeid::lease_event::renew_failed};
  failed.watch(o);
  auto l = b.make(o);
  flakeid::classic_snowflake<flakeid::layouts::twitter, stepped_clock> gen{*l, clk};
  (void)gen.next_id();
  clk.step(5s);
  EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
  const std::string why = failed.wait_for(" ms ahead of the clock of " + l->where());
  EXPECT_FALSE(why.empty()) << "no renewal was refused for the clock";
  EXPECT_LT(ms_or_min(l->deadline()),
            ms_or_min(std::chrono::time_point_cast<std::chrono::milliseconds>(clk.now())))
      << "a renewal moved the deadline up to the stepped clock";
  EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
}

}  // namespace flakeid_test
