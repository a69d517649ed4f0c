// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The scenarios of SQL lease stores that forget: rows deleted under their holders, a server
// restarted (see lease_scenarios.hpp for the backend these run over).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <flakeid/flakeid.hpp>
#include <flakeid/lease.hpp>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "lease_support.hpp"

namespace flakeid_test {

// A backend also provides `table(ns)` (the quoted lease table), `restart()` (the server killed
// and started again on its data) and `settle()` (what is committed so far survives a restart,
// and the server has run 4 s, longer than `quick_options`' ttl + safe_guard).

/// A claim of `count` ids for `holder` at this wall clock, its first deadline one ttl ahead.
inline flakeid::claim_request sql_claim(std::uint64_t count, const std::string& holder,
                                        const flakeid::lease_options& o) {
  flakeid::claim_request r;
  r.count = count;
  r.holder = holder;
  r.now = std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  r.deadline = r.now + o.ttl;
  return r;
}

/// `store->renew(...)`, tried again while the store's old connection fails (a server that was
/// restarted drops it; the next call reconnects).
inline flakeid::renewal renew_after_reconnect(flakeid::lease_store& store, std::uint64_t id,
                                              const std::string& holder, flakeid::lease_time d) {
  for (int attempt = 0;; ++attempt) {
    try {
      return store.renew(id, holder, d);
    } catch (const flakeid::lease_store_error&) {
      if (attempt == 3) throw;
    }
  }
}

/// Whether `store.claim(q)` took id 0, told (`lost`) or not told that the store lost memory.
inline ::testing::AssertionResult takes_id_0(flakeid::lease_store& store,
                                             const flakeid::claim_request& q, bool lost) {
  const auto got = store.claim(q);
  if (!got) return ::testing::AssertionFailure() << "no id for " << q.holder;
  if (got->id != 0) return ::testing::AssertionFailure() << q.holder << " took id " << got->id;
  if (got->lost_memory_at.has_value() != lost)
    return ::testing::AssertionFailure()
           << q.holder << (lost ? " was not told" : " was told") << " that the store lost memory";
  return ::testing::AssertionSuccess();
}

/// A row deleted under its holder (a "clean-up of stale rows") on a table a day old (on a
/// server that has run longer than `ttl + safe_guard`, see `settle`): the
/// holder's renewal answers `taken`, and the claim that has to create the row again is told
/// the store lost memory, so it waits `ttl + safe_guard`. The same once every row, the table's
/// own included, is deleted.
template <class Backend>
void deleted_rows_are_lost_memory(Backend& b) {
  const std::string ns = unique_ns("deleted");
  b.make_older_table(ns, 24h);
  b.settle();
  const auto o = quick_options(ns);
  auto first = b.store(o);
  const auto a = sql_claim(1, "holder-a", o);
  ASSERT_TRUE(takes_id_0(*first, a, false)) << "the table is a day old";
  (void)b.value_of("DELETE FROM " + b.table(ns) + " WHERE id = 0");
  EXPECT_EQ(first->renew(0, "holder-a", a.deadline), flakeid::renewal::taken)
      << "a renewal kept a row that is gone";
  auto second = b.store(o);
  const auto r = sql_claim(1, "holder-b", o);
  ASSERT_TRUE(takes_id_0(*second, r, true)) << "a deleted row was taken for one never used";
  (void)b.value_of("DELETE FROM " + b.table(ns));
  EXPECT_EQ(second->renew(0, "holder-b", r.deadline), flakeid::renewal::taken);
  EXPECT_TRUE(takes_id_0(*second, sql_claim(1, "holder-c", o), true))
      << "an emptied table was taken for one never used";
}

/// The lease table dropped under a holder (a cleaner, or a server that lost its data
/// directory and was started empty): the holder's renewal answers `taken` at once, not an
/// error to try again until its lease runs out, and the claim that makes the table again is
/// told the store lost memory.
template <class Backend>
void a_dropped_table_is_lost_memory(Backend& b) {
  const std::string ns = unique_ns("dropped");
  const auto o = quick_options(ns);
  auto first = b.store(o);
  const auto a = sql_claim(1, "holder-a", o);
  ASSERT_TRUE(first->claim(a).has_value());
  (void)b.value_of("DROP TABLE " + b.table(ns));
  EXPECT_EQ(first->renew(0, "holder-a", a.deadline), flakeid::renewal::taken)
      << "a renewal kept a lease whose table is gone";
  auto second = b.store(o);
  EXPECT_TRUE(takes_id_0(*second, sql_claim(1, "holder-b", o), true))
      << "a table made again was taken for one never used";
}

/// The server killed and started again on its data (`restart`) while a holder holds id 0 of a
/// table a day old (settled, so that the table itself survives): the holder's next renewal
/// answers `taken` (its record may be gone with the last commits), and a claim made soon after
/// the start is told the store lost memory at the server's start, so it waits from there.
template <class Backend>
void a_restarted_server_is_lost_memory(Backend& b) {
  const std::string ns = unique_ns("restart");
  b.make_older_table(ns, 24h);
  b.settle();
  auto o = quick_options(ns);
  o.ttl = 10min;  // the start lies within ttl + safe_guard of the claim below, however slow
  auto first = b.store(o);
  const auto a = sql_claim(2, "holder-a", o);
  const auto got_a = first->claim(a);
  ASSERT_TRUE(got_a);
  EXPECT_EQ(got_a->id, 0U);
  const auto before = std::chrono::floor<std::chrono::seconds>(a.now);
  b.restart();
  EXPECT_EQ(renew_after_reconnect(*first, 0, "holder-a", a.deadline), flakeid::renewal::taken)
      << "a renewal after the server's restart kept the fence";
  auto second = b.store(o);
  const auto got_b = second->claim(sql_claim(2, "holder-b", o));
  ASSERT_TRUE(got_b);
  std::printf("after the restart the second claimer got id %llu\n",
              static_cast<unsigned long long>(got_b->id));
  ASSERT_TRUE(got_b->lost_memory_at) << "a claim right after a restart did not wait";
  EXPECT_GE(*got_b->lost_memory_at, before) << "the wait starts at the server's start";
}

}  // namespace flakeid_test
