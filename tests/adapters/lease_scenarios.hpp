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
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <flakeid/flakeid.hpp>
#include <flakeid/lease.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../fork_child.hpp"
#include "test_servers.hpp"

namespace flakeid_test {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
using manual_gen = flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>;
using wall_gen = flakeid::classic_snowflake<flakeid::layouts::twitter>;

/// A lease time in Unix ms, INT64_MIN for none: how these tests compare times with IDs'.
inline std::int64_t ms_or_min(const std::optional<flakeid::lease_time>& t) {
  return t ? t->time_since_epoch().count() : INT64_MIN;
}
/// The reverse of `ms_or_min`.
inline std::optional<flakeid::lease_time> time_or_none(std::int64_t ms) {
  if (ms == INT64_MIN) return std::nullopt;
  return flakeid::lease_time{std::chrono::milliseconds{ms}};
}

inline std::string unique_ns(const std::string& stem) {
  return stem + "_" + std::to_string(::getpid()) + "_" +
         std::to_string(steady::now().time_since_epoch().count() % 1000000);
}

/// Short leases, so the tests take seconds. The timeouts only bound waits for a server that
/// is there: generous, so that a busy machine (40 clients, a sanitizer) changes no result.
inline flakeid::lease_options quick_options(const std::string& ns) {
  flakeid::lease_options o;
  o.name_space = ns;
  o.ttl = 900ms;
  o.safe_guard = 300ms;
  o.connect_timeout = 10'000ms;
  o.io_timeout = 5'000ms;
  return o;
}

/// Store options that carry `o`'s namespace and timeouts.
inline flakeid::store_options store_options_of(const flakeid::lease_options& o) {
  return {
      .name_space = o.name_space, .connect_timeout = o.connect_timeout, .io_timeout = o.io_timeout};
}

/// `store.lease(o)` on the heap (a lease does not move; the prvalue initializes it in place).
template <class Store>
std::unique_ptr<flakeid::lease> lease_from(const Store& store, const flakeid::lease_options& o) {
  return std::unique_ptr<flakeid::lease>(new flakeid::lease(store.lease(o)));
}

/// `o` reading manual clock `clk`, with the comparison of clocks (`max_skew`) off: the test
/// moves `clk` (its waits do, and it may start it ahead of or behind the wall clock), while the
/// store's clock runs on; what is tested is what the store's records alone keep.
inline flakeid::lease_options on_manual_clock(flakeid::lease_options o,
                                              const flakeid::manual_clock& clk) {
  o.use_clock(clk);
  o.max_skew = flakeid::lease_options::skew_unchecked;
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

/// The assignment of a lease that already holds its id, for a generator.
inline flakeid::worker_assignment held(const flakeid::lease& l) {
  return {{0, l.id()}, ms_or_min(l.not_after()), l.fence(), "test"};
}

/// Every lease of `leases` calls `acquire(count)` at once, one thread each. The results, in
/// order: "id <n>", the message of the `worker_id_error` it threw, or "unexpected: <message>".
inline std::vector<std::string> acquire_together(
    const std::vector<std::unique_ptr<flakeid::lease>>& leases, std::uint64_t count) {
  std::vector<std::string> result(leases.size());
  std::barrier start(static_cast<std::ptrdiff_t>(leases.size()));
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < leases.size(); ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        result[i] = "id " + std::to_string(leases[i]->acquire(count));
      } catch (const flakeid::worker_id_error& e) {
        result[i] = e.what();
      } catch (const std::exception& e) {
        result[i] = std::string("unexpected: ") + e.what();
      }
    });
  for (auto& t : threads) t.join();
  return result;
}

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

/// IDs a forked child wrote to `fd` as raw 64-bit words, until EOF.
inline std::vector<std::uint64_t> read_ids(int fd) {
  std::vector<std::uint64_t> ids;
  std::uint64_t buf[512];
  std::size_t have = 0;
  for (;;) {
    const ssize_t n = ::read(fd, reinterpret_cast<char*>(buf) + have, sizeof buf - have);
    if (n <= 0) break;
    have += static_cast<std::size_t>(n);
    const std::size_t whole = have / sizeof(std::uint64_t);
    ids.insert(ids.end(), buf, buf + whole);
    const std::size_t rest = have % sizeof(std::uint64_t);
    std::memmove(buf, reinterpret_cast<char*>(buf) + whole * sizeof(std::uint64_t), rest);
    have = rest;
  }
  return ids;
}

/// Counts the IDs that occur more than once across `a` and `b`.
inline std::size_t duplicates(const std::vector<std::uint64_t>& a,
                              const std::vector<std::uint64_t>& b) {
  std::vector<std::uint64_t> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  std::size_t d = 0;
  for (std::size_t i = 1; i < all.size(); ++i) d += all[i] == all[i - 1] ? 1U : 0U;
  return d;
}

/// A process that mints on id 0 of `o`'s namespace and writes every ID to `out` until the
/// generator refuses with `lease_lost_error`; exits 0 then, 3 on any other error. `ready` gets
/// one byte once it has minted 1,000 IDs.
template <class Backend>
pid_t spawn_minter(Backend& b, const flakeid::lease_options& o, int out, int ready) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  int code = 3;
  try {
    auto l = b.make(o);
    wall_gen gen{*l};
    for (std::uint64_t n = 0;; ++n) {
      std::uint64_t id = 0;
      try {
        id = gen.next_id();
      } catch (const flakeid::lease_lost_error&) {
        code = 0;
        break;
      }
      if (::write(out, &id, sizeof id) != static_cast<ssize_t>(sizeof id)) break;
      if (n == 1000) (void)!::write(ready, "r", 1);
    }
  } catch (...) {
  }
  ::_exit(code);
}

/// The next ID of `gen`, waiting out a renewal that came late (on a busy machine the holder's
/// renewal can miss its deadline by a few ms; the generator then refuses until the next one is
/// confirmed). Throws the `lease_lost_error` when `lease` is lost for good, or when no ID comes
/// for 60 s. Asserts nothing, so a forked child can use it too.
template <class Gen>
std::uint64_t next_id_through_late_renewals(Gen& gen, const flakeid::lease& lease) {
  const auto give_up = steady::now() + 60s;
  for (;;) {
    try {
      return gen.next_id();
    } catch (const flakeid::lease_lost_error&) {
      if (lease.lost() || steady::now() >= give_up) throw;
      std::this_thread::sleep_for(1ms);
    }
  }
}

/// Mints `n` IDs from `gen` into `out` with `next_id_through_late_renewals`; fails the test
/// when the lease is lost for good or no ID comes for 60 s.
template <class Gen>
void mint_through_late_renewals(Gen& gen, const flakeid::lease& lease, int n,
                                std::vector<std::uint64_t>& out) {
  for (int i = 0; i < n; ++i) {
    try {
      out.push_back(next_id_through_late_renewals(gen, lease));
    } catch (const flakeid::lease_lost_error& e) {
      FAIL() << (lease.lost() ? "the lease was lost: " : "no renewal confirmed for 60 s: ")
             << e.what();
    }
  }
}

/// Kills and reaps a child process when the test ends before it did (a failed assertion), so
/// that a stopped child never outlives its test nor holds its output open.
class reap_on_exit {
 public:
  explicit reap_on_exit(pid_t pid) : pid_(pid) {}
  reap_on_exit(const reap_on_exit&) = delete;
  reap_on_exit& operator=(const reap_on_exit&) = delete;
  ~reap_on_exit() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  /// The child was reaped by the test: nothing to do.
  void reaped() { pid_ = -1; }

 private:
  pid_t pid_;
};

/// A holder stopped with SIGSTOP for longer than ttl + safe_guard while a second holder claims
/// its id and mints; then SIGCONT: the first one gets `lease_lost_error`, not IDs, and no ID
/// is minted twice.
template <class Backend>
void sigstop_holder(Backend& b) {
  auto o = quick_options(unique_ns("stop"));
  o.max_ids = 1;
  o.max_wait = 30'000ms;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  // The minter writes into a file, so that a stopped reader never blocks it.
  const std::string file = make_temp_dir("flakeid-stop") + "/ids";
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  const pid_t a = spawn_minter(b, o, fd, ready[1]);
  ASSERT_GT(a, 0);
  reap_on_exit guard{a};
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1) << "the first holder did not start minting";
  ::kill(a, SIGSTOP);
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
  ::kill(a, SIGCONT);
  int status = 0;
  ::waitpid(a, &status, 0);
  guard.reaped();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the first holder did not end on lease_lost_error";
  ::lseek(fd, 0, SEEK_SET);
  const std::vector<std::uint64_t> a_ids = read_ids(fd);
  ::close(fd);
  ::close(ready[0]);
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
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

// ---- stable instances (lease_options::instance) --------------------------------------------

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
  int go[2];
  int fds[2];
  ASSERT_EQ(::pipe(go), 0);
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(go[1]);
    ::close(fds[0]);
    std::uint64_t out[2] = {0, 0};
    try {
      char c = 0;
      if (::read(go[0], &c, 1) == 1) {
        auto l = b.make(named);
        out[0] = l->acquire(8);
        wall_gen gen{held(*l)};
        for (int i = 0; i < 1000; ++i) out[1] = gen.next_id();
        (void)!::write(fds[1], out, sizeof out);
        ::pause();
      }
    } catch (...) {
    }
    (void)!::write(fds[1], out, sizeof out);
    ::_exit(1);
  }
  reap_on_exit guard{child};
  ::close(go[0]);
  ::close(fds[1]);
  auto plain = instance_options(ns, "");
  std::vector<std::unique_ptr<flakeid::lease>> below;
  for (int i = 0; i < 2; ++i) {
    below.push_back(b.make(plain));
    (void)below.back()->acquire(8);
  }
  ASSERT_EQ(::write(go[1], "g", 1), 1);
  ::close(go[1]);
  std::uint64_t got[2] = {0, 0};
  ASSERT_EQ(::read(fds[0], got, sizeof got), static_cast<ssize_t>(sizeof got));
  ::close(fds[0]);
  ASSERT_NE(got[1], 0U) << "the child could not mint";
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  guard.reaped();
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
/// refused with `instance_in_use_error` (or, on a machine too loaded for the winner to renew in
/// time, took the id over from a winner that is now lost). Never do two hold it at once.
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
  for (int i = 0; i < n; ++i) {
    const std::string& r = result[static_cast<std::size_t>(i)];
    if (r.rfind("id ", 0) == 0) {
      ids.insert(r);
      if (!leases[static_cast<std::size_t>(i)]->lost()) ++holding;
    } else {
      EXPECT_EQ(r.rfind("flakeid: instance 'pod-r' already holds worker id ", 0), 0U) << r;
      ++refused;
    }
  }
  EXPECT_EQ(ids.size(), 1U) << "every lease of the instance that took an id took the same one";
  EXPECT_EQ(holding, 1) << "exactly one lease holds the instance's id";
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

// ---- SQL stores that forget: rows deleted, a server restarted -------------------------------
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
  const auto got_a = first->claim(a);
  ASSERT_TRUE(got_a);
  EXPECT_EQ(got_a->id, 0U);
  EXPECT_FALSE(got_a->lost_memory_at) << "the table is a day old";
  (void)b.value_of("DELETE FROM " + b.table(ns) + " WHERE id = 0");
  EXPECT_EQ(first->renew(0, "holder-a", a.deadline), flakeid::renewal::taken)
      << "a renewal kept a row that is gone";
  auto second = b.store(o);
  const auto r = sql_claim(1, "holder-b", o);
  const auto got_b = second->claim(r);
  ASSERT_TRUE(got_b);
  EXPECT_EQ(got_b->id, 0U);
  EXPECT_TRUE(got_b->lost_memory_at) << "a deleted row was taken for one never used";
  (void)b.value_of("DELETE FROM " + b.table(ns));
  EXPECT_EQ(second->renew(0, "holder-b", r.deadline), flakeid::renewal::taken);
  const auto got_c = second->claim(sql_claim(1, "holder-c", o));
  ASSERT_TRUE(got_c);
  EXPECT_EQ(got_c->id, 0U);
  EXPECT_TRUE(got_c->lost_memory_at) << "an emptied table was taken for one never used";
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

/// The wall clock plus an offset that the test steps (shared by the clock's copies).
struct stepped_clock : flakeid::wall_clock {
  std::shared_ptr<std::atomic<std::int64_t>> offset_ms =
      std::make_shared<std::atomic<std::int64_t>>(0);
  [[nodiscard]] time_point now() const {
    return std::chrono::system_clock::now() + std::chrono::milliseconds{offset_ms->load()};
  }
  void step(std::chrono::milliseconds by) const { offset_ms->fetch_add(by.count()); }
};

/// The details of the events of the kinds watched that a lease reports, collected from its
/// threads.
struct event_details {
  std::vector<flakeid::lease_event> kinds;
  std::shared_ptr<std::mutex> m = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<std::pair<flakeid::lease_event, std::string>>> seen =
      std::make_shared<std::vector<std::pair<flakeid::lease_event, std::string>>>();

  event_details(std::initializer_list<flakeid::lease_event> k) : kinds(k) {}

  /// Sets `o.on_event` to collect them.
  void watch(flakeid::lease_options& o) const {
    o.on_event = [kinds = kinds, m = m, seen = seen](flakeid::lease_event e, const std::string& d) {
      if (std::find(kinds.begin(), kinds.end(), e) == kinds.end()) return;
      const std::lock_guard lk(*m);
      seen->emplace_back(e, d);
    };
  }
  /// The first detail of the first kind watched that contains `text`, once one has come.
  [[nodiscard]] std::string wait_for(const std::string& text) const {
    return wait_for(kinds.front(), text);
  }
  /// The first detail of `kind` that contains `text`, once one has come (empty when none came
  /// within a minute: the limit only ends a broken run).
  [[nodiscard]] std::string wait_for(flakeid::lease_event kind, const std::string& text) const {
    for (const auto end = steady::now() + 60s; steady::now() < end;
         std::this_thread::sleep_for(5ms)) {
      const std::lock_guard lk(*m);
      for (const auto& [e, d] : *seen)
        if (e == kind && d.find(text) != std::string::npos) return d;
    }
    return {};
  }
};

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

/// What a lease of a `Store` at `address`, where nothing listens, throws from `acquire`: a
/// lease_store_error that names `where` and the connect timeout (500 ms) first (checked).
template <class Store>
std::string unreachable_lease_error(const std::string& address, const std::string& where) {
  auto o = quick_options("unreachable");
  o.connect_timeout = 500ms;
  auto l = Store{address, store_options_of(o)}.lease(o);
  try {
    (void)l.acquire(32);
  } catch (const flakeid::lease_store_error& e) {
    const std::string expected = "flakeid: cannot connect to " + where + " within 500 ms: ";
    EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "acquired from nowhere";
  return "";
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

/// The lease scenarios of instances and twins, as tests of `suite`, for every backend.
#define FLAKEID_INSTANCE_SCENARIOS(suite)                                      \
  FLAKEID_SCENARIO_TEST(suite, instance_takes_its_released_id_again,           \
                        instance_takes_its_released_id_again)                  \
  FLAKEID_SCENARIO_TEST(suite, instance_takes_its_id_again_after_sigkill,      \
                        instance_takes_its_id_again_after_sigkill)             \
  FLAKEID_SCENARIO_TEST(suite, a_live_twin_is_refused, a_live_twin_is_refused) \
  FLAKEID_SCENARIO_TEST(suite, twins_race_for_one_instance, twins_race_for_one_instance)
