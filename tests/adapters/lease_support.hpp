// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The helpers of the lease tests: the options, clocks and leases they start from, threads that
// acquire together, forked minters and what they wrote, and what a lease reports. The
// scenarios over them are in lease_scenarios.hpp, instance_scenarios.hpp, clock_scenarios.hpp
// and memory_loss_scenarios.hpp.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <flakeid/flakeid.hpp>
#include <flakeid/lease.hpp>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../fork_child.hpp"
#include "server_support.hpp"

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

/// IDs a forked child wrote to `fd` as raw 64-bit words, until EOF.
inline std::vector<std::uint64_t> read_ids(int fd) { return ids_of(read_until_eof(fd)); }

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

/// A process that mints on id 0 of `o`'s namespace (a lease of backend `b`) and writes every
/// ID into a file of its own (so that a stopped reader never blocks it) until the generator
/// refuses with `lease_lost_error`: it exits 0 then, 3 on any other error. Waited for until it
/// has minted 1,000 IDs (`started()` is false when it never did); killed and reaped, and its
/// file removed, when it goes.
class minter_process {
 public:
  template <class Backend>
  minter_process(Backend& b, const flakeid::lease_options& o)
      : dir_(make_temp_dir("flakeid-minter")),
        fd_(::open((dir_ + "/ids").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)),
        child_([&](child_pipe ready) { return mint(b, o, ready); }) {
    started_ = child_.read_exactly(1).size() == 1;
  }
  minter_process(const minter_process&) = delete;
  minter_process& operator=(const minter_process&) = delete;
  ~minter_process() {
    child_.kill();
    if (fd_ >= 0) ::close(fd_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  [[nodiscard]] bool started() const noexcept { return started_; }
  void signal(int sig) const { child_.signal(sig); }
  /// Waits for the process to end; its wait status.
  int wait() { return child_.wait(); }
  /// Whether it ended on `lease_lost_error` (exit 0).
  static bool ended_on_loss(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
  /// The IDs it wrote so far.
  [[nodiscard]] std::vector<std::uint64_t> ids() const {
    ::lseek(fd_, 0, SEEK_SET);
    return read_ids(fd_);
  }

 private:
  // In the child: mints until the lease is lost; says "r" once it has minted 1,000 IDs.
  template <class Backend>
  int mint(Backend& b, const flakeid::lease_options& o, child_pipe& ready) const {
    if (fd_ < 0) return 3;
    try {
      auto l = b.make(o);
      wall_gen gen{*l};
      for (std::uint64_t n = 0;; ++n) {
        std::uint64_t id = 0;
        try {
          id = gen.next_id();
        } catch (const flakeid::lease_lost_error&) {
          return 0;
        }
        if (!write_all(fd_, {reinterpret_cast<const char*>(&id), sizeof id})) return 3;
        if (n == 1000) (void)ready.say("r");
      }
    } catch (...) {
      return 3;
    }
  }

  std::string dir_;
  int fd_;
  child_process child_;
  bool started_ = false;
};

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
