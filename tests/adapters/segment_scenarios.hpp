#pragma once
// The scenarios every server segment store must pass, over a backend that makes stores and
// stops and starts its server. Shared by the Redis and PostgreSQL tests.
//
//   struct backend {
//     using store_type = ...;                      // redis_store, postgres_store
//     store_type store(const std::string& ns, std::chrono::milliseconds timeout);
//     void stop(); void start();
//   };

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <flakeid/segment.hpp>
#include <flakeid/store/file.hpp>
#include <flakeid/store/memory.hpp>
#include <functional>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "../eventually.hpp"
#include "../fork_child.hpp"
#include "fork_scenarios.hpp"
#include "server_support.hpp"

namespace flakeid_test {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

/// The connect and I/O timeout of every store in these tests. It bounds a wait for a server
/// that is there and no result depends on it, so it is long: 40 processes connecting at once
/// (TLS, a password) on a busy machine must never reach it. The tests of a timeout set their own.
inline constexpr std::chrono::milliseconds patient = 30s;

inline std::string unique_segment_ns(const std::string& stem) {
  return stem + "_" + std::to_string(::getpid()) + "_" +
         std::to_string(steady::now().time_since_epoch().count() % 1000000);
}

inline void expect_strictly_increasing(const std::vector<std::uint64_t>& ids) {
  for (std::size_t i = 1; i < ids.size(); ++i) ASSERT_LT(ids[i - 1], ids[i]) << "at " << i;
}

/// Memory shared with forked children: `slots` rows of `width` IDs, each with a count.
class shared_ids {
 public:
  shared_ids(std::size_t slots, std::size_t width)
      : width_(width), bytes_(slots * (width + 1) * sizeof(std::uint64_t)) {
    mem_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem_ == MAP_FAILED) throw std::runtime_error("mmap failed");
  }
  shared_ids(const shared_ids&) = delete;
  shared_ids& operator=(const shared_ids&) = delete;
  ~shared_ids() { ::munmap(mem_, bytes_); }

  std::atomic<std::uint64_t>& count(std::size_t slot) {
    return *reinterpret_cast<std::atomic<std::uint64_t>*>(base() + slot * (width_ + 1));
  }
  std::span<std::uint64_t> row(std::size_t slot) {
    return {base() + slot * (width_ + 1) + 1, width_};
  }
  [[nodiscard]] std::size_t width() const noexcept { return width_; }

 private:
  std::uint64_t* base() { return static_cast<std::uint64_t*>(mem_); }
  std::size_t width_;
  std::size_t bytes_;
  void* mem_ = nullptr;
};

/// A generator `gen` made after crashes (as a restarted process makes it) goes on above every
/// number in `handed_out`, repeating none: 10,000 IDs (checked; `handed_out` gains them).
template <class Gen>
void expect_goes_on_above(Gen& gen, std::vector<std::uint64_t>& handed_out) {
  const std::uint64_t before = *std::max_element(handed_out.begin(), handed_out.end());
  for (int i = 0; i < 10'000; ++i) {
    const std::uint64_t id = gen.next_id();
    ASSERT_GT(id, before);
    handed_out.push_back(id);
  }
  std::sort(handed_out.begin(), handed_out.end());
  EXPECT_EQ(std::adjacent_find(handed_out.begin(), handed_out.end()), handed_out.end());
}

/// What `drain_until_it_fails` saw: the IDs served, and the error that ended them.
struct drained {
  std::size_t served = 0;
  std::optional<flakeid::segment_store_error> error;
};

/// Draws from `gen` onto `ids` until its store's failure reaches the caller (at most 1,000
/// IDs: a chain whose store is down runs dry before that).
template <class Gen>
drained drain_until_it_fails(Gen& gen, std::vector<std::uint64_t>& ids) {
  drained d;
  try {
    for (; d.served < 1000; ++d.served) ids.push_back(gen.next_id());
    ADD_FAILURE() << "the chain should have run dry";
  } catch (const flakeid::segment_store_error& e) {
    d.error = e;
  }
  return d;
}

/// Forks `processes` children; child `p` runs `Gen` on counter "orders" of a fresh store in
/// namespace `ns` and draws `per_process` IDs (alternating next_ids and next_id) into row `p`.
/// Checks every process's IDs are strictly increasing and all are distinct; returns the final
/// counter value.
template <class Gen, class Backend, class Options>
std::uint64_t run_forked(Backend& b, const std::string& ns, int processes, std::size_t per_process,
                         Options opts) {
  shared_ids out(static_cast<std::size_t>(processes), per_process);
  expect_children_exit_cleanly(fork_children(processes, [&](int p) {
    auto store = b.store(ns, patient);
    const std::span<std::uint64_t> ids = out.row(static_cast<std::size_t>(p));
    Gen gen{store.distributor("orders"), opts};
    for (std::size_t i = 0; i < ids.size(); i += 1000) {
      const std::size_t n = std::min<std::size_t>(1000, ids.size() - i);
      if (i % 2000 == 0) {
        gen.next_ids(ids.subspan(i, n));
      } else {
        for (std::size_t k = i; k < i + n; ++k) ids[k] = gen.next_id();
      }
    }
    gen.close();
    out.count(static_cast<std::size_t>(p)).store(ids.size());
  }));
  std::vector<std::uint64_t> all;
  all.reserve(static_cast<std::size_t>(processes) * per_process);
  for (int p = 0; p < processes; ++p) {
    const auto ids = out.row(static_cast<std::size_t>(p));
    // A process that failed is reported here; its row (not filled) is left out of the checks
    // below, which are about the IDs handed out.
    EXPECT_EQ(out.count(static_cast<std::size_t>(p)).load(), per_process)
        << "process " << p << " did not finish";
    if (out.count(static_cast<std::size_t>(p)).load() != per_process) continue;
    EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) == ids.end())
        << "process " << p << "'s IDs are not strictly increasing";
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "an ID was handed out twice";
  if (!all.empty()) {
    EXPECT_GE(all.front(), 1u);
  }
  return b.store(ns, patient).current("orders");
}

/// 40 processes x 100,000 IDs through chains: all distinct, each process strictly increasing,
/// and the store called about once per segment (the counter's final value / step).
template <class Backend>
void forty_processes_on_chains(Backend& b) {
  using gen_type = flakeid::segment_chain_generator<typename Backend::distributor_type>;
  constexpr int processes = 40;
  constexpr std::size_t per_process = 100'000;
  constexpr std::uint64_t step = 1000;
  const std::string ns = unique_segment_ns("chains");
  const std::uint64_t final_max = run_forked<gen_type>(
      b, ns, processes, per_process,
      flakeid::segment_chain_options{.segment = {.step = step}, .min_ahead = 2, .max_ahead = 8});
  const std::uint64_t calls = final_max / step;
  EXPECT_EQ(final_max % step, 0u);
  const std::uint64_t segments_used = std::uint64_t{processes} * per_process / step;  // 4000
  EXPECT_GE(calls, segments_used);
  // Besides one call per segment used, each process may leave its prefetched chain (at most
  // max_ahead, plus the partly used current segment) unused.
  EXPECT_LE(calls, segments_used + std::uint64_t{processes} * (8 + 2))
      << "more than one store call per segment";
  ::testing::Test::RecordProperty("store_calls", std::to_string(calls));
}

/// A smaller run through plain segment generators: no segment is wasted.
template <class Backend>
void processes_on_segment_generators(Backend& b) {
  // 10 processes x 20,000 IDs in segments of 500: the counter ends at exactly 200,000.
  EXPECT_EQ(run_forked<flakeid::segment_generator<typename Backend::distributor_type>>(
                b, unique_segment_ns("plain"), 10, 20'000, flakeid::segment_options{.step = 500}),
            200'000U);
}

/// The server stops while a chain runs: the chain serves what it prefetched, then fails with a
/// segment_store_error naming the store; the server comes back: it resumes, repeating nothing.
template <class Backend>
void server_outage(Backend& b) {
  const std::string ns = unique_segment_ns("outage");
  auto store = b.store(ns, patient);
  auto d = store.distributor("orders");
  const std::string name(d.store_name());
  flakeid::segment_chain_generator gen{std::move(d),
                                       {.segment = {.step = 10},
                                        .min_ahead = 3,
                                        .max_ahead = 3,
                                        .refill_period = 5ms,
                                        .retry_after = 20ms}};
  std::vector<std::uint64_t> ids{gen.next_id()};
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 3; }));
  b.stop();
  // The chain's worker asks for every missing segment at once: next_max_id(10), (20) or (30),
  // as far as it had got when the server went away.
  const std::string head = "flakeid: segment store " + name + ", key 'orders': next_max_id(";
  const auto expect_head = [&](const std::string& what) {
    EXPECT_EQ(what.substr(0, head.size()), head) << what;
    const std::string rest = what.substr(std::min(head.size(), what.size()));
    EXPECT_TRUE(rest.rfind("10) failed: ", 0) == 0 || rest.rfind("20) failed: ", 0) == 0 ||
                rest.rfind("30) failed: ", 0) == 0)
        << what;
  };
  const drained run = drain_until_it_fails(gen, ids);
  ASSERT_TRUE(run.error.has_value());
  expect_head(run.error->what());
  EXPECT_EQ(run.error->store(), name);
  EXPECT_EQ(run.error->key(), "orders");
  const std::size_t served = run.served;
  // The rest of the current segment and the three prefetched ones.
  EXPECT_GE(served, 30u);
  EXPECT_LE(served, 39u);
  EXPECT_THROW((void)gen.next_id(), flakeid::segment_store_error);
  EXPECT_GE(gen.stats().store_failures, 1u);
  expect_head(gen.stats().last_error);

  b.start();
  ASSERT_TRUE(eventually([&] {
    try {
      ids.push_back(gen.next_id());
      return true;
    } catch (const flakeid::segment_store_error&) {
      return false;
    }
  }));
  for (int i = 0; i < 200; ++i) ids.push_back(gen.next_id());
  expect_strictly_increasing(ids);
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 3; }));
  EXPECT_LE(ids.back(), store.current("orders"));
}

/// A process killed with SIGKILL mid-run (a chain, then a plain generator): a new process goes
/// on above every number handed out before.
template <class Backend>
void restart_after_sigkill(Backend& b) {
  using dist = typename Backend::distributor_type;
  const std::string ns = unique_segment_ns("crash");
  constexpr std::size_t capacity = 400'000;
  shared_ids log(1, capacity);
  std::vector<std::uint64_t> handed_out;
  const std::size_t kill_after[] = {30'000, 20'000};
  for (int run = 0; run < 2; ++run) {
    log.count(0).store(0);
    child_process child([&](child_pipe) {
      auto store = b.store(ns, patient);
      auto draw = [&](auto& gen) {
        const auto ids = log.row(0);
        for (std::uint64_t c = 0;; ++c) {
          if (c == capacity) {
            for (;;) ::pause();
          }
          ids[c] = gen.next_id();
          log.count(0).store(c + 1, std::memory_order_release);
        }
      };
      try {
        if (run == 0) {
          flakeid::segment_chain_generator<dist> gen{
              store.distributor("orders"),
              {.segment = {.step = 500}, .min_ahead = 2, .max_ahead = 16}};
          draw(gen);
        } else {
          flakeid::segment_generator<dist> gen{store.distributor("orders"), 300};
          draw(gen);
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child: %s\n", e.what());
      }
      return 2;
    });
    const auto deadline = steady::now() + 120s;
    while (log.count(0).load(std::memory_order_acquire) < kill_after[run] &&
           steady::now() < deadline)
      std::this_thread::sleep_for(1ms);
    child.signal(SIGKILL);
    const int status = child.wait();
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
    const std::uint64_t n = log.count(0).load(std::memory_order_acquire);
    ASSERT_GE(n, kill_after[run]) << "run " << run << " was too slow";
    const std::uint64_t in_store = b.store(ns, patient).current("orders");
    const std::uint64_t before =
        handed_out.empty() ? 0 : *std::max_element(handed_out.begin(), handed_out.end());
    const auto ids = log.row(0);
    for (std::uint64_t i = 0; i < n; ++i) {
      ASSERT_LE(ids[i], in_store);
      ASSERT_GT(ids[i], before) << "run " << run << " repeated a number of an earlier run";
      handed_out.push_back(ids[i]);
    }
  }
  auto store = b.store(ns, patient);
  flakeid::segment_chain_generator<dist> gen{store.distributor("orders"),
                                             {.segment = {.step = 500}}};
  expect_goes_on_above(gen, handed_out);
}

/// A daily counter crossing midnight under a manual clock restarts at 1 in its own key; a
/// restart the same day goes on above the reserved segment.
template <class Backend>
void grouped_counter_across_midnight(Backend& b) {
  using std::chrono::sys_days;
  using namespace std::chrono;
  const std::string ns = unique_segment_ns("grouped");
  auto store = b.store(ns, patient);
  flakeid::manual_clock clock{
      time_point_cast<milliseconds>(sys_days{2025y / 12 / 31} + 23h + 59min + 59s + 999ms)};
  {
    flakeid::grouped_segment_generator gen{
        store.distributor("inv"), flakeid::group_period::day, {.step = 5}, clock};
    EXPECT_EQ(gen.next().to_string(), "20251231-0001");
    EXPECT_EQ(gen.next().to_string(), "20251231-0002");
    clock.advance(1ms);  // 2026-01-01 00:00:00.000
    EXPECT_EQ(gen.next().to_string(), "20260101-0001");
    EXPECT_EQ(gen.next().packed(4), 202601010002u);
    EXPECT_EQ(gen.key_at(clock.now()), "inv@20260101");
  }
  EXPECT_EQ(store.current("inv@20251231"), 5u);
  EXPECT_EQ(store.current("inv@20260101"), 5u);
  flakeid::grouped_segment_generator again{
      store.distributor("inv"), flakeid::group_period::day, {.step = 5}, clock};
  EXPECT_EQ(again.next().to_string(), "20260101-0006");
}

/// A counter that may expire goes once it has been idle that long (Redis drops it on its own;
/// the other stores when a later distributor with an expiry sweeps), while a fresh one, and
/// one that may not expire, stay.
template <class Backend>
void counters_expire_when_asked(Backend& b) {
  auto store = b.store(unique_segment_ns("expiry"), patient);
  auto plain = store.distributor("plain");
  EXPECT_EQ(plain.next_max_id(5), 5U);
  auto old_day = store.distributor("d@20250318");
  old_day.expire_after(1ms);
  EXPECT_EQ(old_day.next_max_id(10), 10U);
  auto new_day = store.distributor("d@20250319");
  new_day.expire_after(1h);
  EXPECT_EQ(new_day.next_max_id(10), 10U);
  EXPECT_TRUE(eventually([&] {
    auto sweeper = store.distributor("sweeper");
    sweeper.expire_after(1h);
    (void)sweeper.next_max_id(1);
    return store.current("d@20250318") == 0;
  })) << "the idle counter was not dropped";
  EXPECT_EQ(store.current("d@20250319"), 10U);
  EXPECT_EQ(store.current("plain"), 5U);
}

/// A counter made again (`forget(ns, key)` deletes it, as a server that lost it would) is
/// refused by a distributor that counted on it before, without counting: a process started
/// since counts anew from 0 and cannot tell, but the next range from 0 would be the other
/// distributor's. After `resume_above`, the refused distributor counts again above every number
/// in use. A counter that may expire (`expire_after`) and was idle that long is taken as made
/// anew, without a refusal.
template <class Backend, class Forget>
void a_counter_made_again_is_refused(Backend& b, Forget forget) {
  const std::string ns = unique_segment_ns("again");
  auto store = b.store(ns, patient);
  auto before = store.distributor("orders");
  auto other = store.distributor("orders");
  EXPECT_EQ(before.next_max_id(50), 50U);
  EXPECT_EQ(other.next_max_id(50), 100U);
  auto copied = before;  // remembers the counter `before` counted on
  forget(ns, "orders");
  auto since = store.distributor("orders");
  EXPECT_EQ(since.next_max_id(50), 50U);
  const auto refused = [](auto& d, const char* who) {
    try {
      (void)d.next_max_id(50);
      ADD_FAILURE() << who << " counted on a counter made again";
    } catch (const flakeid::segment_store_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(", key 'orders': the counter was made again since this distributor's "
                          "last range (born "),
                std::string::npos)
          << what;
      EXPECT_NE(what.find(", and a process started since counted anew from 0: it may have lost "
                          "ranges it handed out; find the highest number in use and call "
                          "resume_above(it)"),
                std::string::npos)
          << what;
    }
  };
  refused(before, "a distributor");
  refused(copied, "a copy of a distributor");
  EXPECT_EQ(since.next_max_id(50), 100U) << "the refusals took no range";
  EXPECT_EQ(before.resume_above(100), 100U);
  EXPECT_EQ(before.next_max_id(50), 150U);
  EXPECT_EQ(other.resume_above(150), 150U);
  EXPECT_EQ(other.next_max_id(50), 200U);

  auto daily = store.distributor("d@20250318");
  daily.expire_after(1ms);
  EXPECT_EQ(daily.next_max_id(10), 10U);
  forget(ns, "d@20250318");
  std::this_thread::sleep_for(2ms);  // idle past expire_after on this distributor's clock
  EXPECT_EQ(daily.next_max_id(10), 10U) << "an idle counter that may expire is made anew";
}

/// A counter set back under running distributors (a restore of the row, key or file from an
/// older backup or copy, a hand edit), its birth unchanged: each distributor that took a range
/// above it refuses it, without counting, until `resume_above` (before, two running processes
/// counted on from there and handed out again what they had handed out since: 2,002,000 IDs,
/// 1,000,000 twice). `set_back(ns, key, n)` sets the counter to `n` as an operator would.
template <class Backend, class SetBack>
void a_counter_gone_back_is_refused(Backend& b, SetBack set_back, bool stays_refused = false) {
  const std::string ns = unique_segment_ns("back");
  auto store = b.store(ns, patient);
  auto first = store.distributor("orders");
  auto second = store.distributor("orders");
  EXPECT_EQ(first.next_max_id(50), 50U);
  EXPECT_EQ(second.next_max_id(50), 100U);
  EXPECT_EQ(first.next_max_id(50), 150U);
  set_back(ns, "orders", 50);  // the backup was taken after the first range
  const auto refused = [](auto& d, const std::string& reached) {
    const std::string head = "flakeid: segment store " + std::string(d.store_name()) +
                             ", key 'orders': the counter went back since this distributor's " +
                             "last range (it had reached " + reached + ", now 50): ";
    const std::string tail =
        "; numbers above 50 may have been handed out: find the highest number in use and call "
        "resume_above(it)";
    try {
      (void)d.next_max_id(50);
      ADD_FAILURE() << "counted on a counter gone back below " << reached;
    } catch (const flakeid::segment_store_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.substr(0, head.size()), head) << what;
      EXPECT_EQ(what.substr(what.size() - std::min(what.size(), tail.size())), tail) << what;
    }
  };
  refused(first, "150");
  refused(second, "100");
  auto copy = first;  // remembers how far `first` reached
  refused(copy, "150");
  EXPECT_EQ(store.current("orders"), 50U) << "the refusals took no range";
  EXPECT_EQ(first.resume_above(150), 150U);
  EXPECT_EQ(first.next_max_id(50), 200U);
  if (stays_refused) {  // refused until its own resume_above, whatever the counter does since
    refused(second, "100");
    EXPECT_EQ(second.resume_above(200), 200U);
  }
  EXPECT_EQ(second.next_max_id(50), 250U) << "above its last range again";
  // A counter that may expire, set back while in use, is refused too.
  auto daily = store.distributor("d@20250318");
  daily.expire_after(1h);
  EXPECT_EQ(daily.next_max_id(50), 50U);
  EXPECT_EQ(daily.next_max_id(50), 100U);
  set_back(ns, "d@20250318", 50);
  EXPECT_THROW((void)daily.next_max_id(50), flakeid::segment_store_error);
}

/// A counter "orders" in a new namespace's table, on a store that `where` plus the namespace
/// names: it counts on from 0 (100, then 150), `other_key` is a counter of its own, a copy of
/// the distributor counts on the same counter. `check(d)` looks at the distributor once the
/// store has made its table. Returns the namespace.
template <class Backend, class Check>
std::string counts_orders_and_another_key(Backend& b, const std::string& where,
                                          const std::string& other_key, Check check) {
  const std::string ns = unique_segment_ns("names");
  auto store = b.store(ns, patient);
  auto d = store.distributor("orders");
  EXPECT_EQ(d.store_name(), where + ns);
  EXPECT_EQ(store.current("orders"), 0U);  // creates the table
  check(d);
  EXPECT_EQ(d.next_max_id(100), 100U);
  EXPECT_EQ(d.next_max_id(50), 150U);
  auto other = d.with_key(other_key);
  EXPECT_EQ(other.next_max_id(7), 7U);
  auto copy = d;
  EXPECT_EQ(copy.next_max_id(1), 151U);
  EXPECT_EQ(store.current("orders"), 151U);
  return ns;
}

/// `d.next_max_id(n)` on `key` fails with a `segment_store_error` whose message begins with
/// the store, the key and the call, then `cause` (checked).
template <class Distributor>
void expect_next_max_id_fails(Distributor& d, const std::string& key, std::uint64_t n,
                              const std::string& cause) {
  const std::string head = "flakeid: segment store " + std::string(d.store_name()) + ", key '" +
                           key + "': next_max_id(" + std::to_string(n) + ") failed: " + cause;
  try {
    (void)d.next_max_id(n);
    ADD_FAILURE() << "next_max_id(" << n << ") counted on; expected: " << head;
  } catch (const flakeid::segment_store_error& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, head.size()), head) << e.what();
  }
}

/// Nothing listens at `address` (a `Store`'s, which names it `where`): the first call fails
/// within the connect timeout with a message naming the store, the key and the address.
template <class Store>
void unreachable(const std::string& address, const std::string& where) {
  const Store store{address,
                    {.name_space = "unreachable", .connect_timeout = 300ms, .io_timeout = 300ms}};
  flakeid::segment_generator gen{store.distributor("orders"), 1000};
  const std::string expected = "flakeid: segment store " + where +
                               " namespace unreachable, key 'orders': next_max_id(1000) failed: "
                               "cannot connect to " +
                               where + " within 300 ms: ";
  try {
    (void)gen.next_id();
    ADD_FAILURE() << "an ID from nowhere";
  } catch (const flakeid::segment_store_error& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
  }
}

}  // namespace flakeid_test

/// The segment scenarios of processes (forty on chains; one killed and started again), as
/// tests of `suite`: part of FLAKEID_SEGMENT_SCENARIOS, and run alone on a backend's other
/// fixtures (another table, TLS).
#define FLAKEID_PROCESS_SCENARIOS(suite)                                                  \
  FLAKEID_SCENARIO_TEST(suite, forty_processes_on_chains_call_the_store_once_per_segment, \
                        forty_processes_on_chains)                                        \
  FLAKEID_SCENARIO_TEST(suite, restart_after_sigkill_never_repeats_a_number, restart_after_sigkill)

/// The segment scenarios every server store passes, as tests of `suite`: one list for every
/// backend (server_outage, which ZooKeeper's sessions do not ride out alike, is a test of each).
#define FLAKEID_SEGMENT_SCENARIOS(suite)                                                          \
  FLAKEID_PROCESS_SCENARIOS(suite)                                                                \
  FLAKEID_SCENARIO_TEST(suite, forked_child_distributor_refuses_and_the_parents_connection_works, \
                        forked_child_distributor_refuses)                                         \
  FLAKEID_SCENARIO_TEST(suite, processes_on_segment_generators_waste_no_segment,                  \
                        processes_on_segment_generators)                                          \
  FLAKEID_SCENARIO_TEST(suite, grouped_counter_restarts_at_one_after_midnight,                    \
                        grouped_counter_across_midnight)                                          \
  FLAKEID_SCENARIO_TEST(suite, idle_counters_expire_when_asked, counters_expire_when_asked)
