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

#include <barrier>
#include <chrono>
#include <cstdio>
#include <flakeid/flakeid.hpp>
#include <flakeid/lease.hpp>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace flakeid_test {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
using manual_gen = flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>;
using wall_gen = flakeid::classic_snowflake<flakeid::layouts::twitter>;

inline std::string unique_ns(const std::string& stem) {
  return stem + "_" + std::to_string(::getpid()) + "_" +
         std::to_string(steady::now().time_since_epoch().count() % 1000000);
}

/// Short leases, so the tests take seconds.
inline flakeid::lease_options quick_options(const std::string& ns) {
  flakeid::lease_options o;
  o.name_space = ns;
  o.ttl = 900ms;
  o.safe_guard = 300ms;
  o.connect_timeout = 1000ms;
  o.io_timeout = 200ms;
  return o;
}

inline flakeid::manual_clock clock_at_wall(std::chrono::milliseconds offset = 0ms) {
  return flakeid::manual_clock{
      std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now()) +
      offset};
}

inline std::int64_t ts_of(std::uint64_t id) {
  return flakeid::layouts::twitter.decompose(id).timestamp.time_since_epoch().count();
}

/// 40 leases (separate connections) race for 32 ids: 32 distinct winners, 8 clear errors.
template <class Backend>
void race_40_for_32(Backend& b) {
  const std::string ns = unique_ns("race");
  auto o = quick_options(ns);
  o.ttl = 5000ms;  // no renewal interferes
  std::vector<std::unique_ptr<flakeid::lease>> leases;
  for (int i = 0; i < 40; ++i) leases.push_back(b.make(o));
  std::vector<std::string> result(40);
  std::barrier start(40);
  std::vector<std::thread> threads;
  for (int i = 0; i < 40; ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        result[static_cast<std::size_t>(i)] =
            "id " + std::to_string(leases[static_cast<std::size_t>(i)]->acquire(32));
      } catch (const flakeid::worker_id_error& e) {
        result[static_cast<std::size_t>(i)] = e.what();
      }
    });
  for (auto& t : threads) t.join();
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

/// Tries to claim one id (`max_ids` 1) until `deadline`; returns the lease or null.
template <class Backend>
std::unique_ptr<flakeid::lease> claim_until(Backend& b, const flakeid::lease_options& o,
                                            steady::time_point deadline,
                                            steady::time_point* when = nullptr) {
  for (;;) {
    auto l = b.make(o);
    try {
      (void)l->acquire(1);
      if (when != nullptr) *when = steady::now();
      return l;
    } catch (const flakeid::worker_id_error&) {
    }
    if (steady::now() > deadline) return nullptr;
    std::this_thread::sleep_for(20ms);
  }
}

/// A holder killed with SIGKILL: its id is not handed out again before expiry plus safe guard,
/// and is afterwards; the new holder mints only after the old holder's last timestamp.
template <class Backend>
void sigkill_holder(Backend& b) {
  const auto o = quick_options(unique_ns("kill"));
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    std::uint64_t last = 0;
    try {
      // Minting 3 s ahead of the wall clock: the next holder must not reuse those timestamps.
      flakeid::manual_clock clk = clock_at_wall(3000ms);
      auto l = b.make(o);
      (void)l->acquire(1);
      manual_gen gen{
          flakeid::worker_assignment{{0, l->id()}, l->previous_last_unix_ms(), l->fence(), "t"},
          clk};
      for (int i = 0; i < 50; ++i) {
        last = gen.next_id();
        clk.advance(1ms);
      }
      std::this_thread::sleep_for(o.ttl / 2);  // one renewal records the last timestamp
      (void)!::write(fds[1], &last, sizeof last);
      ::pause();
    } catch (...) {
      (void)!::write(fds[1], &last, sizeof last);
    }
    ::_exit(1);
  }
  ::close(fds[1]);
  std::uint64_t last = 0;
  ASSERT_EQ(::read(fds[0], &last, sizeof last), static_cast<ssize_t>(sizeof last));
  ::close(fds[0]);
  ASSERT_NE(last, 0U) << "the child could not mint";
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  const auto killed = steady::now();

  // The child renewed at most ttl/3 before it was killed: its id stays taken until at least
  // killed - ttl/3 + ttl + safe_guard.
  const auto earliest = killed - o.ttl / 3 + o.ttl + o.safe_guard - 50ms;
  auto o2 = o;
  flakeid::manual_clock clk = clock_at_wall();
  o2.use_clock(clk);
  o2.max_wait = 10'000ms;
  o2.max_ids = 1;
  steady::time_point got{};
  auto next = claim_until(b, o2, killed + o.ttl + o.safe_guard + 3000ms, &got);
  ASSERT_NE(next, nullptr) << "the id was not handed out again after expiry plus safe guard";
  EXPECT_GE(got, earliest)
      << "handed out "
      << std::chrono::duration_cast<std::chrono::milliseconds>(earliest - got).count()
      << " ms too early";
  EXPECT_EQ(next->previous_last_unix_ms(), ts_of(last));
  EXPECT_GT(clk.now().time_since_epoch().count(), ts_of(last)) << "the lease waited for the clock";
  manual_gen gen{flakeid::worker_assignment{
                     {0, next->id()}, next->previous_last_unix_ms(), next->fence(), "t"},
                 clk};
  const std::uint64_t first = gen.next_id();
  EXPECT_GT(ts_of(first), ts_of(last));
  EXPECT_GT(first, last);
}

/// The server stopped while a generator runs: it refuses within one lease period; the server
/// back: it resumes, with no duplicate across the gap.
template <class Backend>
void server_outage(Backend& b) {
  const auto o = quick_options(unique_ns("outage"));
  auto l = b.make(o);
  wall_gen gen{*l};
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(gen.next_id());
  std::this_thread::sleep_for(o.ttl / 2);

  b.stop();
  const auto stopped = steady::now();
  steady::time_point refused{};
  while (steady::now() < stopped + 3 * o.ttl) {
    try {
      ids.push_back(gen.next_id());
    } catch (const flakeid::lease_lost_error&) {
      refused = steady::now();
      break;
    }
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_NE(refused, steady::time_point{}) << "the generator kept minting without its store";
  EXPECT_LE(refused - stopped, o.ttl)
      << "refused only after "
      << std::chrono::duration_cast<std::chrono::milliseconds>(refused - stopped).count() << " ms";
  EXPECT_FALSE(l->valid());

  b.start();
  const auto back = steady::now();
  bool resumed = false;
  while (steady::now() < back + 10s) {
    try {
      ids.push_back(gen.next_id());
      resumed = true;
      break;
    } catch (const flakeid::lease_lost_error&) {
      std::this_thread::sleep_for(10ms);
    }
  }
  ASSERT_TRUE(resumed) << "the generator did not resume after the server came back";
  for (int i = 0; i < 100; ++i) ids.push_back(gen.next_id());
  const std::set<std::uint64_t> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), ids.size());
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  EXPECT_FALSE(l->lost());
}

/// A restart with the clock moved back: the lease waits when allowed (max_wait), refuses when
/// not, and the new holder never repeats an ID of the old one.
template <class Backend>
void restart_with_clock_back(Backend& b) {
  auto o = quick_options(unique_ns("back"));
  o.safe_guard = 100ms;
  o.max_ids = 1;
  flakeid::manual_clock clk = clock_at_wall();
  o.use_clock(clk);
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
    auto l = claim_until(b, o, steady::now() + 3s);
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->previous_last_unix_ms(), ts_of(last));
    manual_gen gen{
        flakeid::worker_assignment{{0, l->id()}, l->previous_last_unix_ms(), l->fence(), "t"}, clk};
    for (int i = 0; i < 200; ++i) {
      const std::uint64_t id = gen.next_id();
      EXPECT_GT(id, last);
      EXPECT_TRUE(ids.insert(id).second) << "duplicate " << id;
    }
    last = *ids.rbegin();
  }

  // The clock moved back 5 s, beyond max_wait: refused with clock_backwards_error.
  clk.step_back(5000ms);
  const auto before = clk.now();
  std::this_thread::sleep_for(o.safe_guard + 50ms);
  auto l = b.make(o);
  try {
    (void)l->acquire(1);
    ADD_FAILURE() << "acquired although the previous holder minted 5 s ahead of the clock";
  } catch (const flakeid::clock_backwards_error& e) {
    EXPECT_GT(e.step(), 4900ms);
    EXPECT_NE(std::string(e.what()).find("ahead of this clock; the lease waits up to 1000 ms"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(clk.now(), before) << "refusing does not wait";
}

}  // namespace flakeid_test
