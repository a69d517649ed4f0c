// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// Leases in CosId's machine ids beside a peer that does what CosId's machine-id distributor
// does (distribute, guard, revert), for every store that has them. Both sides read one manual
// clock, so every time is exact. A backend gives `cosid` (the value of `store.lease(o, which)`
// that names CosId's machine ids); a scenario takes `peer_of(namespace, instance)`, which makes
// a peer with `distribute(now, machine_bit)` (the id, or -1 when none is left), `guard(now,
// id)` (false: lost) and `revert(now)`, with a safe-guard duration of 60 s, and `stamp`: the
// stamp its last distribute wrote with the id (CosId's services hold the id until it + 60 s). An SQL backend also
// gives `cosid_sql` (its dialect of cosid_machine_store.hpp) and `cosid_sql_of()`, for
// `cosid_peer` (the statements of CosId's JDBC distributor) and for looking at rows.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <flakeid/adapters/detail/cosid_machine_store.hpp>
#include <flakeid/lease.hpp>

#include "expect_error.hpp"
#include "lease_support.hpp"
#include "server_support.hpp"

namespace flakeid_test {

/// The time line of a test: past the table's creation by more than `ttl + safe_guard`, so that
/// no claim waits for a table that may have been made again.
inline flakeid::manual_clock past_the_table() { return clock_at_wall(70'000ms); }

/// A CosId service's machine-id distributor (not stable, safe-guard duration `guard_ms`): the
/// statements CosId's JDBC distributor issues, in its order, with its parameters, on a
/// connection of its own; the time is what the caller says.
template <class Sql>
struct cosid_peer {
  Sql conn;
  std::string ns;
  std::string instance;
  std::int64_t guard_ms;
  std::int64_t stamp = 0;  // written by the last distribute

  /// distribute: the instance's own live row, else a released or expired row (the first that
  /// the conditional update takes), else max + 1 (a duplicate key tries again). -1: overflow.
  std::int64_t distribute(std::int64_t now, int machine_bit) {
    const std::string at = std::to_string(std::max<std::int64_t>(now - guard_ms, 0));
    const std::string t = std::to_string(now);
    auto self = conn.exec(
        "select machine_id, last_timestamp from cosid_machine where namespace=" + lit(ns) +
        " and instance_id=" + lit(instance) + " and last_timestamp>" + at);
    if (!self.rows.empty()) {
      const std::int64_t id = std::stoll(*self.rows[0][0]);
      const std::int64_t last = std::stoll(*self.rows[0][1]);
      stamp = std::max(last, now);
      return guard(stamp, id) ? id : -2;
    }
    auto free = conn.exec("select machine_id, last_timestamp from cosid_machine where namespace=" +
                          lit(ns) + " and (instance_id='' or last_timestamp<=" + at + ")");
    for (const auto& row : free.rows) {
      const std::string id = *row[0];
      auto took = conn.exec("update cosid_machine set instance_id=" + lit(instance) +
                            ",last_timestamp=" + t + ",distribute_time=" + t +
                            " where name=" + lit(name(std::stoll(id))) +
                            " and (instance_id='' or last_timestamp<=" + at + ")");
      if (took.affected > 0) {
        stamp = now;
        return std::int64_t{std::stoll(id)};
      }
    }
    for (;;) {
      auto next = conn.exec(
          "select max(machine_id)+1 as next_machine_id from cosid_machine "
          "where namespace=" +
          lit(ns));
      const std::int64_t id = next.rows[0][0] ? std::int64_t{std::stoll(*next.rows[0][0])} : 0;
      if (id > (std::int64_t{1} << machine_bit) - 1) return -1;
      try {
        (void)conn.exec(
            "insert into cosid_machine (name, namespace, machine_id, last_timestamp, "
            "instance_id, distribute_time, revert_time) values (" +
            lit(name(id)) + "," + lit(ns) + "," + std::to_string(id) + "," + t + "," +
            lit(instance) + "," + t + ",0)");
        stamp = now;
        return id;
      } catch (const flakeid::detail::store_connection_error& e) {
        const std::string what = e.what();  // MySQL; PostgreSQL
        if (what.find("Duplicate entry") == std::string::npos &&
            what.find("duplicate key value") == std::string::npos)
          throw;
      }
    }
  }
  /// guard: false when no row matched (CosId's MachineIdLostException).
  bool guard(std::int64_t now, std::int64_t id) {
    return conn.exec("update cosid_machine set last_timestamp=" + std::to_string(now) +
                     " where namespace=" + lit(ns) + " and instance_id=" + lit(instance) +
                     " and machine_id=" + std::to_string(id))
               .affected > 0;
  }
  /// revert, not stable: the instance's rows are free.
  void revert(std::int64_t now) {
    const std::string t = std::to_string(now);
    (void)conn.exec("update cosid_machine set instance_id='',last_timestamp=" + t +
                    ",revert_time=" + t + " where namespace=" + lit(ns) +
                    " and instance_id=" + lit(instance));
  }
  static std::string lit(const std::string& s) { return Sql::literal(s); }
  [[nodiscard]] std::string name(std::int64_t id) const {
    return flakeid::detail::cosid_machine_name(ns, static_cast<std::uint64_t>(id));
  }
};

/// Options for CosId's table: `ttl` is the peers' safe-guard duration, long enough that the
/// renewal thread never runs during a test (the test renews with `renew_now`).
inline flakeid::lease_options cosid_options(const std::string& ns,
                                            const flakeid::manual_clock& clk) {
  auto o = quick_options(ns);
  o.ttl = 60'000ms;
  o.safe_guard = 2'000ms;
  return on_manual_clock(o, clk);
}

inline std::int64_t ms(const flakeid::manual_clock& c) {
  return c.now().time_since_epoch().count();
}

/// The peers of an SQL backend `b`: `(namespace, instance)` -> a `cosid_peer` with a safe-guard
/// duration of 60 s, on a connection of its own.
template <class Backend>
auto sql_peers(const Backend& b) {
  return [&b](const std::string& ns, const std::string& instance) {
    return cosid_peer<typename Backend::cosid_sql>{b.cosid_sql_of(), ns, instance, 60'000};
  };
}

/// The row of `id` in namespace `ns`: "name|namespace|machine_id|last|instance|distribute|revert".
template <class Sql>
std::string row_of(Sql& sql, const std::string& ns, int id) {
  const auto r = sql.exec(
      "SELECT name, namespace, machine_id, last_timestamp, instance_id, distribute_time, "
      "revert_time FROM cosid_machine WHERE namespace = " +
      Sql::literal(ns) + " AND machine_id = " + std::to_string(id));
  if (r.rows.size() != 1) return "<" + std::to_string(r.rows.size()) + " rows>";
  std::string out;
  for (const auto& v : r.rows[0]) out += (out.empty() ? "" : "|") + v.value_or("NULL");
  return out;
}

/// In CosId's registry `instance_idle` is 0 (a release frees the id) or the ttl (a stable
/// release keeps it the instance's for CosId's safe-guard duration); any other value is an
/// `invalid_option_error`.
template <class Backend>
void instance_idle_other_than_ttl_is_refused_in_cosid_registries(Backend& b) {
  flakeid::manual_clock clk = past_the_table();
  auto o = cosid_options(unique_ns("cosidle"), clk);
  o.instance = "pod-s";
  o.instance_idle = 1234ms;
  expect_error<flakeid::invalid_option_error>(
      [&] { (void)b.make_in(o, Backend::cosid); },
      "flakeid: lease instance_idle of 1234 ms cannot be kept in CosId's machine-id registries: "
      "use 0 (a release frees the id, as CosId's instances that are not stable) or the ttl, "
      "60000 ms (stable: the id stays the instance's for CosId's safe-guard duration)");
}

/// A lease with an instance and `instance_idle` equal to the ttl releases as CosId's stable
/// instances revert: the id stays the instance's. A CosId peer and a flakeid lease without the
/// instance pass it by while its stamp is younger than the ttl; the instance takes it back at
/// once and mints above its last timestamp; once the stamp is older than the ttl, a peer takes it.
template <class Backend, class Peers>
void a_stable_instance_keeps_its_id_in_cosid_registries(Backend& b, Peers peer_of) {
  flakeid::manual_clock clk = past_the_table();
  const std::string ns = unique_ns("cosstable");
  auto stable = cosid_options(ns, clk);
  stable.instance = "pod-s";
  stable.instance_idle = stable.ttl;
  std::uint64_t last = 0;
  {
    auto l = b.make_in(stable, Backend::cosid);
    ASSERT_EQ(l->acquire(2), 0U);
    manual_gen gen{held(*l), clk};
    last = gen.next_id();
  }  // released stably
  clk.advance(5'000ms);
  auto holder = peer_of(ns, "10.0.0.5:8080");
  EXPECT_EQ(holder.distribute(ms(clk), 1), 1) << "id 0 stays pod-s's: the peer makes id 1";
  auto plain = b.make_in(cosid_options(ns, clk), Backend::cosid);
  expect_error<flakeid::worker_id_error>(
      [&] { (void)plain->acquire(2); },
      "flakeid: no free worker id in namespace " + ns +
          ": all 2 ids are leased, or were used further ahead of this clock than max_wait (1000 "
          "ms) (" +
          plain->where() + ")");
  {
    auto again = b.make_in(stable, Backend::cosid);
    EXPECT_EQ(again->acquire(2), 0U) << "pod-s takes its id back at once";
    // The release's stamp: the millisecond after the lease's last timestamp (the tick after
    // the last ID's).
    EXPECT_EQ(ms_or_min(again->previous_last()), ts_of(last) + 2);
    manual_gen gen{held(*again), clk};
    const std::uint64_t next = gen.next_id();
    EXPECT_GT(next, last);
    last = next;
  }  // released stably again
  clk.advance(59'000ms);
  ASSERT_TRUE(holder.guard(ms(clk), 1));
  auto taker = peer_of(ns, "10.0.0.6:8080");
  EXPECT_EQ(taker.distribute(ms(clk), 1), -1) << "pod-s's stamp is younger than the ttl";
  clk.advance(2'000ms);
  ASSERT_TRUE(holder.guard(ms(clk), 1));
  EXPECT_EQ(taker.distribute(ms(clk), 1), 0) << "pod-s's stamp is older than the ttl";
}

template <class Backend>
void cosid_rows_are_claimed_guarded_and_reverted(Backend& b) {
  flakeid::manual_clock clk = past_the_table();
  const std::string ns = unique_ns("cosrow");
  const auto o = cosid_options(ns, clk);
  auto l = b.make_in(o, Backend::cosid);
  const std::int64_t t0 = ms(clk);
  ASSERT_EQ(l->acquire(4), 0U);
  const std::string token = l->holder();
  auto sql = b.cosid_sql_of();
  EXPECT_EQ(row_of(sql, ns, 0), ns + ".00000000|" + ns + "|0|" + std::to_string(t0) + "|" + token +
                                    "|" + std::to_string(t0) + "|0");
  EXPECT_EQ(ms_or_min(l->deadline()), t0 + 60'000 - 12'000) << "ttl - margin after the claim";
  clk.advance(5'000ms);
  l->renew_now();  // CosId's guard: the send time
  EXPECT_EQ(row_of(sql, ns, 0), ns + ".00000000|" + ns + "|0|" + std::to_string(t0 + 5'000) + "|" +
                                    token + "|" + std::to_string(t0) + "|0");
  manual_gen gen{held(*l), clk};
  const std::uint64_t id = gen.next_id();
  l->release();  // CosId's revert: free, stamped just after the last timestamp the lease used
  const auto r = sql.exec("SELECT last_timestamp FROM cosid_machine WHERE name = " +
                          decltype(sql)::literal(ns + ".00000000"));
  ASSERT_EQ(r.rows.size(), 1U);
  const std::string after = r.rows[0].at(0).value_or("NULL");
  EXPECT_GT(std::stoll(after), ts_of(id));
  EXPECT_LT(std::stoll(after), ts_of(id) + 10) << "the manual clock moved a few ms since";
  EXPECT_EQ(row_of(sql, ns, 0),
            ns + ".00000000|" + ns + "|0|" + after + "||" + std::to_string(t0) + "|" + after);
}

template <class Backend, class Peers>
void a_cosid_holder_keeps_its_id_until_its_guard_is_older_than_ttl(Backend& b, Peers peer_of) {
  flakeid::manual_clock clk = past_the_table();
  const std::string ns = unique_ns("coshold");
  const auto o = cosid_options(ns, clk);
  auto peer = peer_of(ns, "10.0.0.7:8080");
  const std::int64_t t0 = ms(clk);
  ASSERT_EQ(peer.distribute(t0, 2), 0);
  {
    auto l = b.make_in(o, Backend::cosid);
    EXPECT_EQ(l->acquire(4), 1U) << "id 0 is the peer's";
  }
  clk.advance(30'000ms);
  const std::int64_t guarded = ms(clk);
  ASSERT_TRUE(peer.guard(guarded, 0));
  // With one id to take, a claim while the peer's guard is younger than ttl finds none.
  clk.advance(59'000ms);
  auto refused = b.make_in(o, Backend::cosid);
  expect_error<flakeid::worker_id_error>(
      [&] { (void)refused->acquire(1); },
      "flakeid: worker id 0 in namespace " + ns +
          " is held by another process, or was let go less than safe_guard (2000 ms) ago (" +
          refused->where() + ")");
  // Once the guard is older than ttl the id is taken, and minted on only after the peer's
  // hold (guard + ttl) plus safe_guard.
  clk.advance(1'000ms);
  auto l = b.make_in(o, Backend::cosid);
  ASSERT_EQ(l->acquire(1), 0U);
  EXPECT_EQ(ms_or_min(l->previous_last()), guarded + 60'000);
  EXPECT_EQ(ms_or_min(l->not_after()), guarded + 62'000);
  manual_gen gen{held(*l), clk};
  EXPECT_GT(ts_of(gen.next_id()), guarded + 62'000);
  EXPECT_FALSE(peer.guard(ms(clk), 0)) << "the peer's next guard finds its id lost";
}

template <class Backend, class Peers>
void cosid_claimers_take_a_flakeid_id_only_after_its_deadline(Backend& b, Peers peer_of) {
  flakeid::manual_clock clk = past_the_table();
  const std::string ns = unique_ns("cosfence");
  auto l = b.make_in(cosid_options(ns, clk), Backend::cosid);
  ASSERT_EQ(l->acquire(4), 0U);
  clk.advance(20'000ms);
  l->renew_now();
  const std::int64_t renewed = ms(clk);
  auto peer = peer_of(ns, "10.0.0.9:8080");
  clk.advance(59'999ms);
  EXPECT_EQ(peer.distribute(ms(clk), 0), -1) << "id 0 is held until renewed + ttl";
  EXPECT_LT(ms_or_min(l->deadline()), renewed + 60'000);
  EXPECT_FALSE(l->valid()) << "the lease's deadline passed before any peer may take the id";
  clk.advance(1ms);
  EXPECT_EQ(peer.distribute(ms(clk), 0), 0);
  EXPECT_THROW(l->renew_now(), flakeid::worker_id_error) << "the id is lost";
  EXPECT_TRUE(l->lost());
}

/// Flakeid leases and CosId peers take, guard and give back four ids on one time line. Every
/// holder's time on an id (a lease: from the first tick it may mint to its deadline; a peer:
/// from its claim to its last guard + its safe-guard duration, or its revert) is disjoint
/// from every other holder's on that id.
template <class Backend, class Peers>
void a_mixed_fleet_never_holds_an_id_twice(Backend& b, Peers peer_of) {
  flakeid::manual_clock clk = past_the_table();
  const std::string ns = unique_ns("cosmix");
  const auto o = cosid_options(ns, clk);
  struct span {
    std::string who;
    std::int64_t from, to;
  };
  std::map<std::uint64_t, std::vector<span>> spans;
  struct lease_slot {
    std::unique_ptr<flakeid::lease> l;
    std::int64_t from = 0, to = 0;  // to: the last deadline confirmed
  };
  struct peer_slot {
    std::unique_ptr<decltype(peer_of(std::string(), std::string()))> p;
    std::int64_t id = -1, from = 0, guarded = 0;
  };
  std::vector<lease_slot> leases(3);
  std::vector<peer_slot> peers(3);
  for (std::size_t i = 0; i < peers.size(); ++i)
    peers[i].p = std::make_unique<decltype(peer_of(std::string(), std::string()))>(
        peer_of(ns, "10.0.1." + std::to_string(i) + ":80"));
  const auto close_lease = [&](std::size_t i) {  // released now, or lost
    auto& s = leases[i];
    if (!s.l) return;
    spans[s.l->id()].push_back({"lease " + std::to_string(i), s.from, std::min(s.to, ms(clk))});
    s.l->release();
    s.l.reset();
  };
  std::mt19937 rng(20261128);
  int claims = 0;
  int peer_claims = 0;
  for (int step = 0; step < 300; ++step) {
    const std::size_t who = rng() % 6;
    const int what = static_cast<int>(rng() % 3);
    if (who < 3) {
      auto& s = leases[who];
      if (!s.l && what != 2) {
        s.l = b.make_in(o, Backend::cosid);
        try {
          (void)s.l->acquire(4);
          s.from = std::max(ms_or_min(s.l->not_after()), ms(clk));
          s.to = ms_or_min(s.l->deadline());
          ++claims;
        } catch (const flakeid::worker_id_error&) {
          s.l.reset();
        }
      } else if (s.l && what == 0) {
        try {
          s.l->renew_now();
          s.to = ms_or_min(s.l->deadline());
        } catch (const flakeid::worker_id_error&) {
          close_lease(who);  // lost: it minted up to its deadline
        }
      } else if (s.l) {
        close_lease(who);
      }
    } else {
      auto& s = peers[who - 3];
      if (s.id < 0 && what != 2) {
        s.id = s.p->distribute(ms(clk), 2);
        s.from = ms(clk);
        s.guarded = s.p->stamp;  // what the peer wrote: CosId holds the id until it + 60 s
        if (s.id >= 0) ++peer_claims;
      } else if (s.id >= 0 && what == 0) {
        if (s.p->guard(ms(clk), s.id)) {
          s.guarded = ms(clk);
        } else {
          spans[static_cast<std::uint64_t>(s.id)].push_back(
              {"peer " + std::to_string(who - 3), s.from, s.guarded + 60'000});
          s.id = -1;
        }
      } else if (s.id >= 0) {
        s.p->revert(ms(clk));  // held until now, or until its guard ran out
        spans[static_cast<std::uint64_t>(s.id)].push_back(
            {"peer " + std::to_string(who - 3), s.from, std::min(ms(clk), s.guarded + 60'000)});
        s.id = -1;
      }
    }
    clk.advance(std::chrono::milliseconds{rng() % 25'000});
  }
  for (std::size_t i = 0; i < leases.size(); ++i) close_lease(i);
  for (std::size_t i = 0; i < peers.size(); ++i)
    if (peers[i].id >= 0)
      spans[static_cast<std::uint64_t>(peers[i].id)].push_back(
          {"peer " + std::to_string(i), peers[i].from, peers[i].guarded + 60'000});
  EXPECT_GT(claims, 20);
  EXPECT_GT(peer_claims, 20);
  int overlaps = 0;
  for (auto& [id, list] : spans) {
    std::sort(list.begin(), list.end(),
              [](const span& a, const span& c) { return a.from < c.from; });
    for (std::size_t i = 1; i < list.size(); ++i)
      if (list[i].from < list[i - 1].to) {
        ++overlaps;
        ADD_FAILURE() << "id " << id << ": " << list[i - 1].who << " [" << list[i - 1].from << ", "
                      << list[i - 1].to << ") and " << list[i].who << " [" << list[i].from << ", "
                      << list[i].to << ")";
      }
  }
  EXPECT_EQ(overlaps, 0);
}

/// A flakeid process mints on id 0 of CosId's machine ids (one id, a ttl of 900 ms, on the
/// wall clock) until it is stopped with SIGSTOP (`kill`: SIGKILL); a CosId peer then takes
/// the id as soon as CosId's rule lets it (the process's last stamp older than ttl). Every ID
/// the process minted lies before that moment, also after SIGCONT, when it ends on
/// `lease_lost_error` instead of minting.
template <class Backend, class Peers>
void a_stopped_flakeid_process_yields_to_cosid(Backend& b, Peers peer_of, bool kill) {
  auto o = quick_options(unique_ns(kill ? "coskill" : "cosstop"));
  o.max_ids = 1;
  struct in_cosid {  // spawn_minter's backend: leases over CosId's machine ids
    Backend& b;
    [[nodiscard]] std::unique_ptr<flakeid::lease> make(const flakeid::lease_options& l) const {
      return b.make_in(l, Backend::cosid);
    }
  } cosid{b};
  minter_process a{cosid, o};
  ASSERT_TRUE(a.started()) << "the flakeid process did not start minting";
  a.signal(kill ? SIGKILL : SIGSTOP);
  auto peer = peer_of(o.name_space, "10.0.2.1:8080");
  peer.guard_ms = o.ttl.count();
  std::int64_t taken_at = 0;
  for (const auto give_up = steady::now() + 60s; steady::now() < give_up;) {  // a guard only
    taken_at = ms(clock_at_wall());
    if (peer.distribute(taken_at, 0) == 0) break;
    taken_at = 0;
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_GT(taken_at, 0) << "the CosId peer never got the stopped process's id";
  if (!kill) a.signal(SIGCONT);
  const int status = a.wait();
  if (!kill) {
    EXPECT_TRUE(minter_process::ended_on_loss(status)) << "it did not end on lease_lost_error";
  }
  const std::vector<std::uint64_t> ids = a.ids();
  ASSERT_GT(ids.size(), 1000U);
  EXPECT_LT(ts_of(*std::max_element(ids.begin(), ids.end())), taken_at)
      << "the flakeid process minted after the CosId peer took its id";
}

/// The namespace's CosId records are deleted (`forget(namespace)`) under a flakeid holder: the
/// next claim takes id 0 again, and since flakeid counted that id out before, it waits `ttl +
/// safe_guard` (on the wall clock, from the claim) before minting, while the first holder finds
/// its record gone.
template <class Backend, class Forget>
void deleted_cosid_records_make_the_next_claim_wait(Backend& b, Forget forget) {
  const auto o = quick_options(unique_ns("cosgone"));
  auto first = b.make_in(o, Backend::cosid);
  ASSERT_EQ(first->acquire(4), 0U);
  std::this_thread::sleep_for(o.ttl + o.safe_guard);  // the namespace's age: no loss by itself
  forget(o.name_space);
  const std::int64_t before = ms(clock_at_wall());
  auto next = b.make_in(o, Backend::cosid);
  ASSERT_EQ(next->acquire(4), 0U) << "CosId's records count from 0 again";
  EXPECT_GE(ms_or_min(next->not_after()),
            before + (o.ttl + o.safe_guard / 2).count())  // the store's clock: within max_skew
      << "the id was made again, and the claim did not wait ttl + safe_guard";
  EXPECT_THROW(first->renew_now(), flakeid::worker_id_error) << "the first holder's record is gone";
}

/// The fixture of an SQL backend's CosId tests (`Base`: its `server_test`): CosId's table
/// made, as its operators make it before its services start; its peers; its rows deleted.
template <class Base>
class cosid_sql_test : public Base {
 protected:
  void SetUp() override {
    Base::SetUp();
    this->b.cosid_sql_of().make_table();
  }
  [[nodiscard]] auto peers() const { return sql_peers(this->b); }
  void forget_cosid_records(const std::string& ns) const {
    (void)this->b.cosid_sql_of().exec("DELETE FROM cosid_machine WHERE namespace = '" + ns + "'");
  }
};

}  // namespace flakeid_test

/// The scenarios every store with CosId's machine ids passes alike, as tests of the fixture
/// `suite`: its `b` is the backend, `peers()` gives the `peer_of` above, and
/// `forget_cosid_records(ns)` deletes CosId's records of namespace `ns`, as an operator might.
/// A test of `suite` that runs `scenario(b, args...)`.
#define FLAKEID_COSID_SCENARIO_TEST(suite, name, scenario, ...) \
  TEST_F(suite, name) { ::flakeid_test::scenario(b, __VA_ARGS__); }

/// The scenarios every store with CosId's machine ids passes alike, as tests of the fixture
/// `suite`: its `b` is the backend, `peers()` gives the `peer_of` above, and
/// `forget_cosid_records(ns)` deletes CosId's records of namespace `ns`, as an operator might.
#define FLAKEID_COSID_SCENARIOS(suite)                                                           \
  TEST_F(suite, refuses_an_instance_idle_other_than_ttl) {                                       \
    ::flakeid_test::instance_idle_other_than_ttl_is_refused_in_cosid_registries(b);              \
  }                                                                                              \
  FLAKEID_COSID_SCENARIO_TEST(suite, a_stable_instance_keeps_its_id,                             \
                              a_stable_instance_keeps_its_id_in_cosid_registries, peers())       \
  FLAKEID_COSID_SCENARIO_TEST(                                                                   \
      suite, a_cosid_holder_keeps_its_id_until_its_guard_is_older_than_ttl,                      \
      a_cosid_holder_keeps_its_id_until_its_guard_is_older_than_ttl, peers())                    \
  FLAKEID_COSID_SCENARIO_TEST(suite, cosid_claimers_take_a_flakeid_id_only_after_its_deadline,   \
                              cosid_claimers_take_a_flakeid_id_only_after_its_deadline, peers()) \
  FLAKEID_COSID_SCENARIO_TEST(suite, a_mixed_fleet_never_holds_an_id_twice,                      \
                              a_mixed_fleet_never_holds_an_id_twice, peers())                    \
  FLAKEID_COSID_SCENARIO_TEST(suite, a_flakeid_process_stopped_past_ttl_yields_to_cosid,         \
                              a_stopped_flakeid_process_yields_to_cosid, peers(), false)         \
  FLAKEID_COSID_SCENARIO_TEST(suite, a_flakeid_process_killed_yields_to_cosid,                   \
                              a_stopped_flakeid_process_yields_to_cosid, peers(), true)          \
  TEST_F(suite, deleted_records_make_the_next_claim_wait) {                                      \
    ::flakeid_test::deleted_cosid_records_make_the_next_claim_wait(                              \
        b, [this](const std::string& ns) { forget_cosid_records(ns); });                         \
  }
