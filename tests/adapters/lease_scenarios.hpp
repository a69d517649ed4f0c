// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The scenarios every lease store must pass, over a backend that makes leases (and, for the
// server stores, stops and starts its server). Shared by the file, Redis and PostgreSQL tests.
//
//   struct backend {
//     std::unique_ptr<flakeid::lease> make(const flakeid::lease_options&);
//     void stop(); void start();                       // server stores only
//   };

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <flakeid/flakeid.hpp>
#include <flakeid/lease.hpp>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../fork_child.hpp"
#include "clock_scenarios.hpp"
#include "lease_support.hpp"
#include "server_support.hpp"

namespace flakeid_test {

/// 40 leases (separate connections) race for 32 ids: 32 distinct winners, 8 clear errors.
template <class Backend>
void race_40_for_32(Backend& b) {
  const std::string ns = unique_ns("race");
  auto o = quick_options(ns);
  o.ttl = 5000ms;  // no renewal interferes
  std::vector<std::unique_ptr<flakeid::lease>> leases;
  for (int i = 0; i < 40; ++i) leases.push_back(b.make(o));
  const std::vector<std::string> result = acquire_together(leases, 32);
  std::set<std::string> ids;
  int refused = 0;
  const std::string expected =
      "flakeid: no free worker id in namespace " + ns + ": all 32 ids are leased";
  for (const auto& r : result) {
    if (r.rfind("id ", 0) == 0) {
      ids.insert(r);
    } else {
      EXPECT_EQ(r.substr(0, expected.size()), expected) << r;
      ++refused;
    }
  }
  EXPECT_EQ(ids.size(), 32U);
  EXPECT_EQ(refused, 8);
}

/// A holder killed with SIGKILL: its id is not handed out again before expiry plus safe guard,
/// and is afterwards; the new holder mints only after the old holder's last timestamp.
template <class Backend>
void sigkill_holder(Backend& b) {
  const auto o = quick_options(unique_ns("kill"));
  const std::vector<std::uint64_t> minted = ids_of(report_then_sigkill([&](const auto& report) {
    // Minting 3 s ahead of the wall clock: the next holder must not reuse those timestamps.
    flakeid::manual_clock clk = clock_at_wall(3000ms);
    auto oc = o;
    oc = on_manual_clock(oc, clk);  // the fence speaks the generator's time
    auto l = b.make(oc);
    manual_gen gen{*l, clk};
    std::uint64_t last = 0;
    for (int i = 0; i < 50; ++i) {
      last = gen.next_id();
      clk.advance(1ms);
    }
    // Usually lets one renewal record the last timestamp; the checks below hold whether or
    // not it ran, since every ID lies below the deadline the lease confirmed before minting.
    std::this_thread::sleep_for(o.ttl / 2);
    report(bytes_of({last}));
  }));
  ASSERT_EQ(minted.size(), 1U) << "the child could not mint";
  const std::uint64_t last = minted[0];
  ASSERT_NE(last, 0U) << "the child could not mint";

  // The next holder mints only above the child's recorded deadline plus the safe guard: the
  // child's IDs all lie below that deadline, whatever time it is now.
  auto o2 = o;
  flakeid::manual_clock clk = clock_at_wall();
  o2 = on_manual_clock(o2, clk);
  o2.max_wait = 10'000ms;
  o2.max_ids = 1;
  auto next = claim_until(b, o2, steady::now() + 60s);
  ASSERT_NE(next, nullptr) << "the id was not handed out again after expiry plus safe guard";
  EXPECT_GT(ms_or_min(next->previous_last()), ts_of(last))
      << "the recorded deadline covers every ID";
  EXPECT_GE(ms_or_min(next->not_after()), ms_or_min(next->previous_last()) + o.safe_guard.count());
  EXPECT_GT(clk.now().time_since_epoch().count(), ms_or_min(next->not_after()))
      << "the lease waited for the clock";
  manual_gen gen{held(*next), clk};
  const std::uint64_t first = gen.next_id();
  EXPECT_GT(ts_of(first), ms_or_min(next->previous_last()) + o.safe_guard.count());
  EXPECT_GT(first, last);
}

/// The server stopped while a generator runs: the generator refuses once its deadline has
/// passed. The server back: with its data (`durable`), the holder resumes, with no duplicate
/// across the gap; without it, the lease is lost for good and the generator keeps refusing.
/// `record_may_expire` (Redis, whose token key expires `ttl + safe_guard` after the last
/// renewal; ZooKeeper, whose lease is a session that a restarted server expires one session
/// timeout after its start): a durable server still drops the holder's record when the holder
/// does not get back to it in time, which a loaded machine can delay; then the holder must be
/// lost for good instead, and a new lease takes an id, with no duplicate either way.
template <class Backend>
void server_outage(Backend& b, bool durable, bool record_may_expire = false) {
  const auto o = quick_options(unique_ns("outage"));
  auto l = b.make(o);
  wall_gen gen{*l};
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(gen.next_id());

  b.stop();
  bool refused = false;
  // The deadline passes within one ttl of the stop; the bound below only ends a broken run.
  for (const auto end = steady::now() + 60s; steady::now() < end;) {
    try {
      ids.push_back(gen.next_id());
    } catch (const flakeid::lease_lost_error&) {
      refused = true;
      break;
    }
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(refused) << "the generator kept minting without its store";
  EXPECT_FALSE(l->valid());
  const std::optional<flakeid::lease_time> deadline = l->deadline();
  for (const std::uint64_t id : ids)
    ASSERT_LT(ts_of(id), deadline ? ms_or_min(deadline) : INT64_MAX);

  b.start();
  bool resumed = false;
  for (const auto end = steady::now() + 60s; steady::now() < end && !l->lost();) {
    try {
      ids.push_back(gen.next_id());
      resumed = true;
      break;
    } catch (const flakeid::lease_lost_error&) {
      std::this_thread::sleep_for(10ms);
    }
  }
  if (durable && !resumed && record_may_expire && l->lost()) {
    std::printf("the record expired before the holder got back to it: a new lease takes over\n");
    EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
    auto next = claim_until(b, o, steady::now() + 60s);
    ASSERT_NE(next, nullptr) << "no id after the session expired";
    wall_gen fresh{held(*next)};
    for (int i = 0; i < 100; ++i) ids.push_back(fresh.next_id());
  } else if (durable) {
    ASSERT_TRUE(resumed) << "the generator did not resume after the server came back";
    for (int i = 0; i < 100; ++i) ids.push_back(gen.next_id());
    EXPECT_FALSE(l->lost());
  } else {
    EXPECT_FALSE(resumed) << "minted on a lease the server forgot";
    EXPECT_TRUE(l->lost());
    EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
  }
  const std::set<std::uint64_t> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), ids.size());
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
}

/// A restart with the clock moved back: the lease waits when allowed (max_wait), refuses when
/// not, and the new holder never repeats an ID of the old one.
template <class Backend>
void restart_with_clock_back(Backend& b) {
  auto o = quick_options(unique_ns("back"));
  o.safe_guard = 100ms;
  o.max_ids = 1;
  flakeid::manual_clock clk = clock_at_wall();
  o = on_manual_clock(o, clk);
  std::set<std::uint64_t> ids;
  std::uint64_t last = 0;
  {
    auto l = b.make(o);
    manual_gen gen{*l, clk};
    for (int i = 0; i < 200; ++i) {
      last = gen.next_id();
      ids.insert(last);
      clk.advance(1ms);
    }
  }  // generator, then lease: released with its last timestamp

  // The clock moved back 150 ms behind the last ID; up to 1 s is waited for.
  clk.step_back(350ms);
  o.max_wait = 1000ms;
  {
    auto l = claim_until(b, o, steady::now() + 60s);
    ASSERT_NE(l, nullptr);
    // The release recorded the clock then (1 ms past the last ID) plus the generator's lead of
    // one tick: no call still in flight can have minted above it.
    EXPECT_EQ(ms_or_min(l->previous_last()), ts_of(last) + 2);
    manual_gen gen{held(*l), clk};
    for (int i = 0; i < 200; ++i) {
      const std::uint64_t id = gen.next_id();
      EXPECT_GT(id, last);
      EXPECT_TRUE(ids.insert(id).second) << "duplicate " << id;
    }
    last = *ids.rbegin();
  }

  // The clock moved back 5 s, beyond max_wait: with no other id to take, the claim is refused
  // as the clock's fault, naming the step, without waiting. (A server keeps a released id busy
  // for safe_guard of its own time: until then the claim finds it held, and is tried again.)
  clk.step_back(5000ms);
  const auto before = clk.now();
  bool refused = false;
  for (const auto end = steady::now() + 60s; !refused && steady::now() < end;) {
    auto l = b.make(o);
    try {
      (void)l->acquire(1);
      ADD_FAILURE() << "acquired although the previous holder minted 5 s ahead of the clock";
      break;
    } catch (const flakeid::clock_backwards_error& e) {
      refused = true;
      // The record lies at or just above the last ID (the generator's lead).
      const std::chrono::milliseconds least{ts_of(last) - clk.now().time_since_epoch().count()};
      EXPECT_GE(e.step(), least) << e.what();
      EXPECT_LE(e.step(), least + 10ms) << e.what();
      EXPECT_NE(std::string(e.what()).find(
                    "ms ahead of this clock; the lease waits up to 1000 ms for that, then "
                    "safe_guard (100 ms)"),
                std::string::npos)
          << e.what();
    } catch (const flakeid::worker_id_error& e) {
      EXPECT_NE(std::string(e.what()).find("is held by another process, or was let go less than "
                                           "safe_guard (100 ms) ago"),
                std::string::npos)
          << e.what();
      std::this_thread::sleep_for(20ms);
    }
  }
  EXPECT_TRUE(refused) << "the claim never reached the record";
  EXPECT_EQ(clk.now(), before) << "refusing does not wait";
}

/// A holder whose clock ran 2 h fast released id 0 (its record lies 2 h ahead): the next
/// claimer takes id 1 instead of failing, and a claim for id 0 alone is refused, without
/// waiting.
template <class Backend>
void skips_an_id_used_far_ahead(Backend& b) {
  auto o = quick_options(unique_ns("fast"));
  o.safe_guard = 0ms;
  {
    flakeid::manual_clock fast = clock_at_wall(2h);
    auto of = o;
    of = on_manual_clock(of, fast);
    auto l = b.make(of);
    manual_gen gen{*l, fast};
    (void)gen.next_id();
  }
  flakeid::manual_clock clk = clock_at_wall();
  o = on_manual_clock(o, clk);
  o.max_wait = 10'000ms;  // covers a new namespace's first wait, not 2 h
  auto next = b.make(o);
  EXPECT_EQ(next->acquire(32), 1U);
  auto one = o;
  one.max_ids = 1;
  auto only = b.make(one);
  const auto before = clk.now();
  // With one id to choose from nothing is skipped: the clock is at fault, and the error says by
  // how much.
  try {
    (void)only->assign(flakeid::layouts::twitter);
    ADD_FAILURE() << "acquired id 0, used 2 h ahead of this clock";
  } catch (const flakeid::clock_backwards_error& e) {
    // About 2 h: less by the real time the test took, which no bound here depends on, and by
    // this clock's wait for the new namespace; more by at most the first holder's ttl.
    EXPECT_GT(e.step(), 1h) << e.what();
    EXPECT_LT(e.step(), 2h + o.ttl) << e.what();
  }
  EXPECT_EQ(clk.now(), before) << "refusing does not wait";
}

/// A holder stopped with SIGSTOP for longer than ttl + safe_guard while a second holder claims
/// its id and mints; then SIGCONT: the first one gets `lease_lost_error`, not IDs, and no ID
/// is minted twice.
template <class Backend>
void sigstop_holder(Backend& b) {
  auto o = quick_options(unique_ns("stop"));
  o.max_ids = 1;
  o.max_wait = 30'000ms;
  minter_process a{b, o};
  ASSERT_TRUE(a.started()) << "the first holder did not start minting";
  a.signal(SIGSTOP);
  // Its record's age: the id is free only past ttl + safe_guard. A longer wait (a slow machine)
  // changes nothing, since the stopped holder cannot renew; claim_until polls for it anyway.
  std::this_thread::sleep_for(o.ttl + o.safe_guard + 200ms);

  auto second = claim_until(b, o, steady::now() + 60s);
  ASSERT_NE(second, nullptr) << "the stopped holder's id was never handed out again";
  std::vector<std::uint64_t> b_ids;
  {
    wall_gen gen{held(*second)};
    mint_through_late_renewals(gen, *second, 20'000, b_ids);
  }
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  a.signal(SIGCONT);
  EXPECT_TRUE(minter_process::ended_on_loss(a.wait()))
      << "the first holder did not end on lease_lost_error";
  const std::vector<std::uint64_t> a_ids = a.ids();
  ASSERT_GT(a_ids.size(), 1000U);
  EXPECT_EQ(duplicates(a_ids, b_ids), 0U);
  EXPECT_LT(*std::max_element(a_ids.begin(), a_ids.end()), b_ids.front())
      << "the second holder minted only above the first one's deadline";
}

/// The store forgets everything while a holder mints (`forget`: a server restarted without
/// persistence, a lease file deleted): a second holder claims the same id and mints; the
/// first one stops at its deadline; no ID is minted twice.
template <class Backend, class Forget>
void store_forgets(Backend& b, Forget forget) {
  auto o = quick_options(unique_ns("forget"));
  o.max_ids = 1;
  o.max_wait = 30'000ms;
  auto first = b.make(o);
  wall_gen gen_a{*first};
  std::vector<std::uint64_t> a_ids;  // the minter's until it is joined
  std::atomic<std::size_t> minted{0};
  std::atomic<bool> stop{false};
  std::thread minter([&] {
    while (!stop.load()) {
      try {
        a_ids.push_back(gen_a.next_id());
        minted.fetch_add(1);
      } catch (const flakeid::lease_lost_error&) {
        std::this_thread::sleep_for(1ms);
      }
    }
  });
  // An assertion that returns early still stops and joins the minter.
  struct join_on_exit {
    std::atomic<bool>& stop;
    std::thread& t;
    ~join_on_exit() {
      stop.store(true);
      if (t.joinable()) t.join();
    }
  } joiner{stop, minter};
  // The first ID; the bound only ends a broken run.
  for (const auto end = steady::now() + 60s; minted.load() == 0 && steady::now() < end;)
    std::this_thread::sleep_for(1ms);
  ASSERT_GT(minted.load(), 0U) << "the first holder minted nothing within 60 s";
  forget();
  auto second = claim_until(b, o, steady::now() + 60s);
  ASSERT_NE(second, nullptr);
  std::vector<std::uint64_t> b_ids;
  {
    wall_gen gen_b{held(*second)};
    mint_through_late_renewals(gen_b, *second, 20'000, b_ids);
  }
  // The first holder's deadline has passed by the time the second could mint.
  EXPECT_THROW((void)gen_a.next_id(), flakeid::lease_lost_error);
  stop.store(true);
  minter.join();
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  EXPECT_EQ(duplicates(a_ids, b_ids), 0U) << a_ids.size() << " and " << b_ids.size() << " IDs";
  EXPECT_GT(b_ids.front(), a_ids.back());
}

/// A layout with 22 worker bits (baidu: 2^22 worker ids) on an SQL store: two leases take ids 0
/// and 1, each claim adding the next row, not millions of them; `check_rows(namespace)` reads
/// the table while both hold their ids.
template <class Backend, class CheckRows>
void wide_layout_adds_rows_as_used(Backend& b, CheckRows check_rows) {
  const auto o = quick_options(unique_ns("wide"));
  auto first = b.make(o);
  auto second = b.make(o);
  EXPECT_EQ(first->assign(flakeid::layouts::baidu).node, (flakeid::node_id{0, 0}));
  EXPECT_EQ(second->assign(flakeid::layouts::baidu).node, (flakeid::node_id{0, 1}));
  check_rows(o.name_space);
}

}  // namespace flakeid_test

/// The lease scenarios of a holder every server store passes alike, as tests of `suite`: one
/// list for every backend (the race of 40 and the server outage, whose options differ by
/// backend, are tests of each).
#define FLAKEID_LEASE_SCENARIOS(suite)                                                   \
  FLAKEID_SCENARIO_TEST(suite, killed_holder_id_returns_after_expiry_and_safe_guard,     \
                        sigkill_holder)                                                  \
  FLAKEID_SCENARIO_TEST(suite, a_stopped_holder_gets_lease_lost_not_ids, sigstop_holder) \
  FLAKEID_SCENARIO_TEST(suite, skips_an_id_used_far_ahead_of_this_clock,                 \
                        skips_an_id_used_far_ahead)                                      \
  FLAKEID_SCENARIO_TEST(suite, restart_with_clock_moved_back_waits_or_refuses,           \
                        restart_with_clock_back)                                         \
  FLAKEID_SCENARIO_TEST(suite, a_clock_far_off_takes_no_id, a_clock_far_off_takes_no_id) \
  FLAKEID_SCENARIO_TEST(suite, a_clock_stepped_ahead_mints_nothing_past_its_deadline,    \
                        a_clock_stepped_ahead_mints_nothing_past_its_deadline)
