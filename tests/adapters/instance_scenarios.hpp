// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The lease scenarios of stable instances (lease_options::instance): an instance takes its id
// again, a live twin is refused, twins race, and an SQL store records instances (see
// lease_scenarios.hpp for the backend these run over).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <flakeid/flakeid.hpp>
#include <flakeid/lease.hpp>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "expect_error.hpp"
#include "lease_support.hpp"
#include "server_support.hpp"

namespace flakeid_test {

/// Options for the instance scenarios. The ttl is long next to the renewal interval (ttl / 3),
/// so a holder shows it is alive to a watcher long before its record could expire.
inline flakeid::lease_options instance_options(const std::string& ns, const std::string& instance) {
  auto o = quick_options(ns);
  o.ttl = 3000ms;
  o.safe_guard = 300ms;
  o.instance = instance;
  return o;
}

/// The beginning of every `instance_in_use_error` for instance `name` on id `id`.
inline std::string in_use_prefix(const std::string& name, std::uint64_t id, const std::string& ns) {
  return "flakeid: instance '" + name + "' already holds worker id " + std::to_string(id) +
         " in namespace " + ns + " through another lease that ";
}

/// An instance that released its id takes the same id again at once, although the id was let
/// go less than `safe_guard` ago (a lease without an instance takes another one), and mints
/// above every ID of its previous run. Another instance takes another id.
template <class Backend>
void instance_takes_its_released_id_again(Backend& b) {
  const std::string ns = unique_ns("inst");
  auto plain = instance_options(ns, "");
  plain.safe_guard = 5000ms;  // the released id stays unsettled for the whole test
  auto named = plain;
  named.instance = "pod-a.orders:8080";
  std::vector<std::unique_ptr<flakeid::lease>> others;
  others.push_back(b.make(plain));
  const std::uint64_t other_id = others.back()->acquire(8);
  auto first = b.make(named);
  const std::uint64_t id = first->acquire(8);
  EXPECT_NE(id, other_id);
  std::uint64_t last = 0;
  {
    wall_gen gen{held(*first)};
    for (int i = 0; i < 1000; ++i) last = gen.next_id();
  }
  first.reset();  // released: the id records the last timestamp

  others.push_back(b.make(plain));
  EXPECT_NE(others.back()->acquire(8), id) << "a lease without an instance waits out safe_guard";
  // The instance's next run takes its id at once and waits, on its own clock, for the last
  // timestamp plus safe_guard to pass.
  flakeid::manual_clock clk = clock_at_wall();
  auto again_opt = named;
  again_opt = on_manual_clock(again_opt, clk);
  auto again = b.make(again_opt);
  EXPECT_EQ(again->acquire(8), id);
  EXPECT_GE(ms_or_min(again->previous_last()), ts_of(last));
  EXPECT_GE(ms_or_min(again->not_after()), ms_or_min(again->previous_last()) + 5000);
  manual_gen gen{held(*again), clk};
  EXPECT_GT(gen.next_id(), last);

  auto another = b.make(instance_options(ns, "pod-b"));
  const std::uint64_t b_id = another->acquire(8);
  EXPECT_NE(b_id, id);
  EXPECT_NE(b_id, other_id);
}

/// With `instance_idle`, an instance's released id stays its own: a lease without an instance
/// and one of another instance pass it by (the one finds no other id free and says why) while
/// its record is younger than `instance_idle` on the claimer's clock; the instance takes it
/// again at once; once the record is idle that long, another instance takes it. Without
/// `instance_idle` the id is free to anyone after `safe_guard`.
template <class Backend>
void an_instance_id_is_kept_while_its_record_is_young(Backend& b) {
  const std::string ns = unique_ns("kept");
  flakeid::manual_clock clk = clock_at_wall();
  auto plain = on_manual_clock(instance_options(ns, ""), clk);
  plain.instance_idle = 60s;
  auto pod_k = plain;
  pod_k.instance = "pod-k";
  auto pod_j = plain;
  pod_j.instance = "pod-j";
  // Past safe_guard on the store's clock (a released id's guard runs there) and on the test's.
  const auto let_settle = [&clk, &plain] {
    std::this_thread::sleep_for(plain.safe_guard + 200ms);
    clk.advance(10s);
  };

  std::uint64_t last = 0;
  {
    auto k = b.make(pod_k);
    ASSERT_EQ(k->acquire(2), 0U);
    manual_gen gen{held(*k), clk};
    last = gen.next_id();
  }  // released: id 0 records pod-k and the last timestamp
  let_settle();
  auto other = b.make(plain);
  EXPECT_EQ(other->acquire(2), 1U) << "id 0 is pod-k's for 60 s after its last use";
  auto j = b.make(pod_j);
  expect_error<flakeid::worker_id_error>(
      [&] { (void)j->acquire(2); },
      "flakeid: no free worker id in namespace " + ns +
          ": all 2 ids are leased, or were used further ahead of this clock than max_wait (" +
          std::to_string(plain.max_wait.count()) +
          " ms), or kept for an instance (instance_idle 60000 ms) (" + j->where() + ")");
  other.reset();  // from here on, claims of one id (0) only
  {
    auto k = b.make(pod_k);
    EXPECT_EQ(k->acquire(1), 0U) << "pod-k takes its id again";
    manual_gen gen{held(*k), clk};
    const std::uint64_t next = gen.next_id();
    EXPECT_GT(next, last);
    last = next;
  }  // released again, at the timestamp after `last`
  let_settle();
  clk.advance(50s);  // 60 s after the release: still pod-k's
  j = b.make(pod_j);
  expect_error<flakeid::worker_id_error>(
      [&] { (void)j->acquire(1); },
      "flakeid: worker id 0 in namespace " + ns +
          " is held by another process, or was let go less than safe_guard (300 ms) ago, or "
          "kept for an instance (instance_idle 60000 ms) (" +
          j->where() + ")");
  clk.advance(1s);  // idle 61 s: anyone's
  j = b.make(pod_j);
  EXPECT_EQ(j->acquire(1), 0U) << "pod-k's record is idle for longer than instance_idle";
  manual_gen gj{held(*j), clk};
  EXPECT_GT(gj.next_id(), last);

  // The rule without instance_idle: free to every claimer after safe_guard.
  const std::string ns2 = unique_ns("free");
  auto plain2 = on_manual_clock(instance_options(ns2, ""), clk);
  auto pod_k2 = plain2;
  pod_k2.instance = "pod-k";
  ASSERT_EQ(b.make(pod_k2)->acquire(2), 0U);  // released at once
  let_settle();
  EXPECT_EQ(b.make(plain2)->acquire(2), 0U);
}

/// An instance killed with SIGKILL: its next run takes the same id (not one of the free ids
/// below it) as soon as the store lets the dead holder's record go, and mints above every ID the
/// dead run minted.
template <class Backend>
void instance_takes_its_id_again_after_sigkill(Backend& b) {
  const std::string ns = unique_ns("instk");
  const auto named = instance_options(ns, "pod-k");
  // The child is forked before this process starts any thread (the renewers of the leases
  // below), and claims once they hold the ids below the instance's, which come free before the
  // instance comes back.
  gate go;
  child_process child([&](child_pipe out) {
    go.wait();
    auto l = b.make(named);
    std::uint64_t said[2] = {l->acquire(8), 0};
    wall_gen gen{held(*l)};
    for (int i = 0; i < 1000; ++i) said[1] = gen.next_id();
    (void)out.say_value(said);
    for (;;) ::pause();  // holds its id until the parent's SIGKILL
  });
  auto plain = instance_options(ns, "");
  std::vector<std::unique_ptr<flakeid::lease>> below;
  for (int i = 0; i < 2; ++i) {
    below.push_back(b.make(plain));
    (void)below.back()->acquire(8);
  }
  go.open();
  std::uint64_t got[2] = {0, 0};
  const std::string said = child.read_exactly(sizeof got);
  ASSERT_EQ(said.size(), sizeof got) << "the child could not mint";
  std::memcpy(got, said.data(), sizeof got);
  child.kill();
  below.clear();  // two lower ids come free

  auto again = b.make(named);
  EXPECT_EQ(again->acquire(8), got[0]);
  EXPECT_GT(ms_or_min(again->previous_last()), ts_of(got[1]))
      << "the recorded deadline covers every ID of the dead run";
  wall_gen gen{held(*again)};
  EXPECT_GT(gen.next_id(), got[1]);
}

/// A second lease with the name of a live instance is refused with `instance_in_use_error`;
/// the holder keeps its id. On a machine so loaded that the holder could not renew before its
/// record expired, the second lease may take the id over instead: then the holder is lost.
template <class Backend>
void a_live_twin_is_refused(Backend& b) {
  const std::string ns = unique_ns("twin");
  const auto named = instance_options(ns, "pod-t");
  auto holder = b.make(named);
  const std::uint64_t id = holder->acquire(8);
  auto twin = b.make(named);
  try {
    const std::uint64_t took = twin->acquire(8);
    EXPECT_EQ(took, id);
    EXPECT_TRUE(holder->lost() || !holder->valid())
        << "the twin took the id of a holder that kept it";
  } catch (const flakeid::instance_in_use_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(in_use_prefix("pod-t", id, ns), 0), 0U) << e.what();
    EXPECT_FALSE(holder->lost());
    EXPECT_EQ(holder->id(), id);
  }
}

/// Six leases with one instance name race: one holds the instance's id, every other one is
/// refused with `instance_in_use_error`. On a machine too loaded for the winner to renew in
/// time, the winner may lose the id while it waits (and another may then take it over from it).
/// Never do two hold it at once.
template <class Backend>
void twins_race_for_one_instance(Backend& b) {
  const std::string ns = unique_ns("twins");
  const auto named = instance_options(ns, "pod-r");
  constexpr int n = 6;
  std::vector<std::unique_ptr<flakeid::lease>> leases;
  for (int i = 0; i < n; ++i) leases.push_back(b.make(named));
  const std::vector<std::string> result = acquire_together(leases, 8);
  std::set<std::string> ids;
  int holding = 0;
  int refused = 0;
  int lost = 0;  // winners too slow to renew, lost while waiting or since: they mint nothing
  for (int i = 0; i < n; ++i) {
    const std::string& r = result[static_cast<std::size_t>(i)];
    if (r.rfind("id ", 0) == 0) {
      ids.insert(r);
      ++(leases[static_cast<std::size_t>(i)]->lost() ? lost : holding);
    } else if (r.rfind("flakeid: worker id ", 0) == 0 &&
               r.find(" was lost while waiting") != std::string::npos) {
      ++lost;
    } else {
      EXPECT_EQ(r.rfind("flakeid: instance 'pod-r' already holds worker id ", 0), 0U) << r;
      ++refused;
    }
  }
  EXPECT_LE(ids.size(), 1U) << "every lease of the instance that took an id took the same one";
  EXPECT_LE(holding, 1) << "never do two leases hold the instance's id";
  EXPECT_GE(holding + lost, 1) << "one lease won the race";
  EXPECT_GE(refused, 1);
}

/// Six claims of instance "pod-z" in `ns`, on the store itself (without the lease's watch), race,
/// each on a store of its own from `make_store()`: the first takes an id and records the
/// instance, every other one finds that id held. `id` gets the id.
template <class MakeStore>
void six_store_claims_of_one_instance(MakeStore make_store, std::uint64_t& id) {
  constexpr std::size_t n = 6;
  std::vector<std::unique_ptr<flakeid::lease_store>> stores;
  for (std::size_t i = 0; i < n; ++i) stores.push_back(make_store());
  std::vector<std::optional<flakeid::lease_claim>> claims(n);
  std::vector<std::string> errors(n);
  std::barrier start(static_cast<std::ptrdiff_t>(n));
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      flakeid::claim_request q;
      q.count = 8;
      q.holder = "holder-" + std::to_string(i);
      q.now = flakeid::detail::system_lease_time();
      q.deadline = q.now + 2000ms;
      q.instance = "pod-z";
      start.arrive_and_wait();
      try {
        claims[i] = stores[i]->claim(q);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  int taken = 0;
  std::set<std::uint64_t> ids;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(errors[i], "");
    ASSERT_TRUE(claims[i].has_value());
    ids.insert(claims[i]->id);
    if (!claims[i]->held_by_instance) {
      ++taken;
    } else {
      EXPECT_TRUE(claims[i]->last.has_value()) << "the holder's deadline";
    }
  }
  EXPECT_EQ(taken, 1);
  ASSERT_EQ(ids.size(), 1U);
  id = *ids.begin();
}

// An SQL lease store's backend also offers, for the scenarios below:
//   std::unique_ptr<flakeid::lease_store> store(const flakeid::lease_options&);  // its own
//   void make_older_table(const std::string& ns, std::chrono::milliseconds age);
//       // namespace ns's lease table as the version before instances made it, `age` ago
//   std::string has_instance_column(const std::string& ns);  // "1" or "0"
//   std::string instances_of(const std::string& ns);  // "id=instance,...", '-' for none

/// A table made before instances: a lease without an instance leaves it as it is; the first
/// lease with one adds the column, records its instance, and takes its released id at once.
template <class Backend>
void an_older_table_gets_the_instance_column_from_a_claim_that_names_one(Backend& b) {
  const std::string ns = unique_ns("old");
  b.make_older_table(ns, 24h);
  auto plain = b.make(instance_options(ns, ""));
  EXPECT_EQ(plain->acquire(8), 0U);
  EXPECT_EQ(b.has_instance_column(ns), "0") << "a lease without an instance alters nothing";
  const auto named_options = instance_options(ns, "pod-old");
  auto named = b.make(named_options);
  EXPECT_EQ(named->acquire(8), 1U);
  EXPECT_EQ(b.has_instance_column(ns), "1");
  EXPECT_EQ(b.instances_of(ns), "-1=-,0=-,1=pod-old");
  named.reset();
  auto again = b.make(named_options);
  EXPECT_EQ(again->acquire(8), 1U) << "its released id, at once";
  auto another = b.make(instance_options(ns, ""));
  EXPECT_EQ(another->acquire(8), 2U);
  EXPECT_EQ(b.instances_of(ns), "-1=-,0=-,1=pod-old,2=-");
}

/// Every claim records its instance, or none; a release keeps the record. Returns the
/// namespace, whose id 0 instance "pod-x" holds again at the end (in `holder`).
template <class Backend>
std::string a_claim_records_its_instance_or_none(Backend& b,
                                                 std::unique_ptr<flakeid::lease>& holder) {
  const std::string ns = unique_ns("rec");
  auto named_options = instance_options(ns, "pod-x");
  named_options.safe_guard = 300ms;
  named_options.wait_for_id = 60s;  // a bound for a busy machine: the id comes free after 300 ms
  auto plain_options = named_options;
  plain_options.instance.clear();
  {
    auto named = b.make(named_options);
    EXPECT_EQ(named->acquire(1), 0U);
    EXPECT_EQ(b.instances_of(ns), "-1=-,0=pod-x");
  }
  EXPECT_EQ(b.instances_of(ns), "-1=-,0=pod-x") << "the release keeps the record";
  {
    // A lease without an instance takes the instance's free id: the record goes.
    auto plain = b.make(plain_options);
    EXPECT_EQ(plain->acquire(1), 0U);
    EXPECT_EQ(b.instances_of(ns), "-1=-,0=-");
  }
  holder = b.make(named_options);
  EXPECT_EQ(holder->acquire(1), 0U);
  EXPECT_EQ(b.instances_of(ns), "-1=-,0=pod-x");
  return ns;
}

/// Six claims of one instance on the store itself race (see
/// `six_store_claims_of_one_instance`), on a new table or on one made before instances (which
/// gains the column once): one row records it.
template <class Backend>
void six_claims_of_one_instance_record_it_on_one_id(Backend& b, bool older_table) {
  const std::string ns = unique_ns(older_table ? "sixold" : "six");
  if (older_table) b.make_older_table(ns, 0ms);
  const auto o = instance_options(ns, "pod-z");
  std::uint64_t id = 0;
  six_store_claims_of_one_instance([&] { return b.store(o); }, id);
  EXPECT_EQ(id, 0U);
  EXPECT_EQ(b.instances_of(ns), "-1=-,0=pod-z");
}

}  // namespace flakeid_test

/// The lease scenarios of instances and twins, as tests of `suite`, for every backend.
#define FLAKEID_INSTANCE_SCENARIOS(suite)                                                \
  FLAKEID_SCENARIO_TEST(suite, instance_takes_its_released_id_again,                     \
                        instance_takes_its_released_id_again)                            \
  FLAKEID_SCENARIO_TEST(suite, instance_takes_its_id_again_after_sigkill,                \
                        instance_takes_its_id_again_after_sigkill)                       \
  FLAKEID_SCENARIO_TEST(suite, a_live_twin_is_refused, a_live_twin_is_refused)           \
  FLAKEID_SCENARIO_TEST(suite, twins_race_for_one_instance, twins_race_for_one_instance) \
  FLAKEID_SCENARIO_TEST(suite, an_instance_id_is_kept_while_its_record_is_young,         \
                        an_instance_id_is_kept_while_its_record_is_young)
