// The lease engine (with a scripted in-memory store), the host-local file lease (with
// separate processes) and the restart clock guard.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <flakeid/clock_guard.hpp>
#include <flakeid/file_lease.hpp>
#include <flakeid/flakeid.hpp>
#include <flakeid/lease.hpp>
#include <mutex>

#include "adapters/lease_scenarios.hpp"
#include "adapters/test_servers.hpp"

namespace {

using namespace flakeid_test;

// ---- the engine, on a store the test scripts --------------------------------------------

struct scripted_store final : flakeid::lease_store {
  struct state {
    std::mutex m;
    bool reachable = true;
    bool taken = false;
    int renewals = 0;
    std::int64_t recorded = INT64_MIN;
    std::int64_t released = INT64_MIN - 0;
    bool was_released = false;
  };
  std::shared_ptr<state> s = std::make_shared<state>();
  std::string where() const override { return "scripted"; }
  std::optional<flakeid::lease_claim> claim(std::uint64_t, const std::string&) override {
    std::lock_guard lk(s->m);
    return flakeid::lease_claim{3, s->recorded};
  }
  flakeid::renewal renew(std::uint64_t, const std::string&, std::int64_t last) override {
    std::lock_guard lk(s->m);
    if (!s->reachable) throw flakeid::lease_store_error("flakeid: scripted: unreachable");
    ++s->renewals;
    s->recorded = std::max(s->recorded, last);
    return s->taken ? flakeid::renewal::taken : flakeid::renewal::held;
  }
  void release(std::uint64_t, const std::string&, std::int64_t last) override {
    std::lock_guard lk(s->m);
    s->was_released = true;
    s->released = last;
  }
};

flakeid::lease_options engine_options() {
  flakeid::lease_options o;
  o.name_space = "engine";
  o.ttl = 300ms;
  return o;
}

bool wait_for(const std::function<bool()>& cond, std::chrono::milliseconds limit) {
  const auto end = steady::now() + limit;
  while (!cond()) {
    if (steady::now() > end) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

TEST(lease_test, renews_in_the_background_and_records_the_last_timestamp) {
  auto store = std::make_unique<scripted_store>();
  auto s = store->s;
  flakeid::lease l{std::move(store), engine_options()};
  flakeid::manual_clock clk = clock_at_wall();
  manual_gen gen{l, clk};
  EXPECT_EQ(gen.node(), (flakeid::node_id{0, 3}));
  const std::uint64_t id = gen.next_id();
  ASSERT_TRUE(wait_for(
      [&] {
        std::lock_guard lk(s->m);
        return s->renewals >= 2;
      },
      1s));
  {
    std::lock_guard lk(s->m);
    EXPECT_EQ(s->recorded, ts_of(id));
  }
  EXPECT_TRUE(l.valid());
  l.release();
  EXPECT_TRUE(s->was_released);
  EXPECT_EQ(s->released, ts_of(id));
  EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
}

TEST(lease_test, stops_minting_before_expiry_and_resumes_when_renewed_again) {
  auto store = std::make_unique<scripted_store>();
  auto s = store->s;
  std::vector<flakeid::lease_event> events;
  std::mutex em;
  auto o = engine_options();
  o.on_event = [&](flakeid::lease_event e, const std::string&) {
    std::lock_guard lk(em);
    events.push_back(e);
  };
  flakeid::lease l{std::move(store), o};
  wall_gen gen{l};
  (void)gen.next_id();
  {
    std::lock_guard lk(s->m);
    s->reachable = false;
  }
  const auto cut = steady::now();
  ASSERT_TRUE(wait_for([&] { return !l.valid(); }, 1s));
  EXPECT_LE(steady::now() - cut, o.ttl);
  EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
  {
    std::lock_guard lk(s->m);
    s->reachable = true;
  }
  ASSERT_TRUE(wait_for([&] { return l.valid(); }, 1s));
  EXPECT_NO_THROW((void)gen.next_id());
  std::lock_guard lk(em);
  EXPECT_NE(std::find(events.begin(), events.end(), flakeid::lease_event::renew_failed),
            events.end());
  EXPECT_NE(std::find(events.begin(), events.end(), flakeid::lease_event::suspended), events.end());
  EXPECT_NE(std::find(events.begin(), events.end(), flakeid::lease_event::resumed), events.end());
}

TEST(lease_test, stays_down_when_the_id_was_used_by_someone_else) {
  auto store = std::make_unique<scripted_store>();
  auto s = store->s;
  flakeid::lease l{std::move(store), engine_options()};
  wall_gen gen{l};
  {
    std::lock_guard lk(s->m);
    s->taken = true;
  }
  ASSERT_TRUE(wait_for([&] { return l.lost(); }, 1s));
  EXPECT_FALSE(l.valid());
  {
    std::lock_guard lk(s->m);
    s->taken = false;
  }
  std::this_thread::sleep_for(250ms);
  EXPECT_FALSE(l.valid());
  EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
  l.release();
  EXPECT_FALSE(s->was_released) << "a lost id is not the lease's to release";
}

TEST(lease_test, serves_one_generator) {
  flakeid::lease l{std::make_unique<scripted_store>(), engine_options()};
  (void)l.assign(flakeid::layouts::twitter);
  EXPECT_THROW((void)l.assign(flakeid::layouts::twitter), flakeid::worker_id_error);
}

TEST(lease_test, rejects_bad_options) {
  auto o = engine_options();
  o.name_space = "no spaces";
  EXPECT_THROW((flakeid::lease{std::make_unique<scripted_store>(), o}), std::invalid_argument);
  o = engine_options();
  o.ttl = 10ms;
  EXPECT_THROW((flakeid::lease{std::make_unique<scripted_store>(), o}), std::invalid_argument);
}

static_assert(flakeid::worker_id_source<flakeid::lease>);
static_assert(flakeid::worker_id_source<flakeid::file_lease>);
static_assert(flakeid::worker_id_source<flakeid::clock_guard_file>);

// ---- file lease -------------------------------------------------------------------------

struct file_backend {
  std::string dir = make_temp_dir("flakeid-lease");
  ~file_backend() { std::filesystem::remove_all(dir); }
  std::unique_ptr<flakeid::lease> make(const flakeid::lease_options& o) {
    return std::make_unique<flakeid::file_lease>(o, dir);
  }
};

TEST(file_lease_test, forty_processes_race_for_thirty_two_ids) {
  file_backend b;
  const std::string ns = unique_ns("race");
  auto o = quick_options(ns);
  o.ttl = 5000ms;
  // Closing `go` starts every child at once; closing `hold` lets them release and exit.
  int go[2];
  int hold[2];
  ASSERT_EQ(::pipe(go), 0);
  ASSERT_EQ(::pipe(hold), 0);
  struct child {
    pid_t pid;
    int out;
  };
  std::vector<child> children;
  for (int i = 0; i < 40; ++i) {
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(go[1]);
      ::close(hold[1]);
      ::close(out[0]);
      char c = 0;
      (void)!::read(go[0], &c, 1);  // EOF: start
      std::string r;
      {
        flakeid::file_lease l{o, b.dir};
        try {
          r = "id " + std::to_string(l.acquire(32));
        } catch (const std::exception& e) {
          r = e.what();
        }
        (void)!::write(out[1], r.data(), r.size());
        ::close(out[1]);
        (void)!::read(hold[0], &c, 1);  // EOF: the parent has every answer
      }
      ::_exit(0);
    }
    ::close(out[1]);
    children.push_back({pid, out[0]});
  }
  ::close(go[0]);
  ::close(hold[0]);
  ::close(go[1]);
  std::set<std::string> ids;
  int refused = 0;
  const std::string expected =
      "flakeid: no free worker id in namespace " + ns + ": all 32 ids are leased";
  for (auto& c : children) {
    std::string r;
    char buf[512];
    for (ssize_t n; (n = ::read(c.out, buf, sizeof buf)) > 0;)
      r.append(buf, static_cast<std::size_t>(n));
    ::close(c.out);
    if (r.rfind("id ", 0) == 0) {
      ids.insert(r);
    } else {
      EXPECT_EQ(r.substr(0, expected.size()), expected) << r;
      ++refused;
    }
  }
  ::close(hold[1]);  // releases every child
  for (auto& c : children) ::waitpid(c.pid, nullptr, 0);
  EXPECT_EQ(ids.size(), 32U);
  EXPECT_EQ(refused, 8);
}

TEST(file_lease_test, killed_holder_id_returns_after_expiry_and_safe_guard) {
  file_backend b;
  sigkill_holder(b);
}

TEST(file_lease_test, restart_with_clock_moved_back_waits_or_refuses) {
  file_backend b;
  restart_with_clock_back(b);
}

TEST(file_lease_test, an_unusable_directory_is_a_clear_error) {
  flakeid::file_lease l{quick_options("nodir"), "/nonexistent/flakeid"};
  try {
    (void)l.acquire(4);
    FAIL() << "acquired in a directory that does not exist";
  } catch (const flakeid::lease_store_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "flakeid: cannot open /nonexistent/flakeid/flakeid-nodir-0.lease: No such file or "
              "directory");
  }
}

TEST(file_lease_test, releases_at_destruction_and_splits_the_id_into_datacenter_and_worker) {
  file_backend b;
  auto o = quick_options(unique_ns("split"));
  o.safe_guard = 0ms;
  flakeid::worker_assignment first;
  {
    std::vector<std::unique_ptr<flakeid::file_lease>> held;
    for (int i = 0; i < 33; ++i) held.push_back(std::make_unique<flakeid::file_lease>(o, b.dir));
    for (int i = 0; i < 32; ++i) (void)held[static_cast<std::size_t>(i)]->acquire(32);
    first = held[32]->assign(flakeid::layouts::twitter);  // id 32: datacenter 1, worker 0
    EXPECT_EQ(first.node, (flakeid::node_id{1, 0}));
  }
  flakeid::file_lease again{o, b.dir};
  EXPECT_EQ(again.acquire(32), 0U);
}

TEST(file_lease_test, default_directory_is_xdg_runtime_dir_or_tmp) {
  const char* x = std::getenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(flakeid::default_lease_directory(),
            (x != nullptr && *x != '\0') ? std::filesystem::path(x) : "/tmp");
}

// ---- clock guard ------------------------------------------------------------------------

flakeid::lease_options guard_options(const flakeid::manual_clock& clk) {
  auto o = flakeid::clock_guard_file::default_options();
  o.ttl = 300ms;
  o.max_wait = 1000ms;
  o.use_clock(clk);
  return o;
}

TEST(clock_guard_test, a_restart_after_the_clock_moved_back_waits_or_refuses) {
  file_backend b;
  const std::string file = b.dir + "/state";
  const flakeid::fixed_node node{flakeid::worker_id{7}};
  flakeid::manual_clock clk = clock_at_wall();
  std::uint64_t last = 0;
  {
    flakeid::clock_guard_file guard{file, node, guard_options(clk)};
    manual_gen gen{guard, clk};
    EXPECT_EQ(guard.recorded_unix_ms(), INT64_MIN);
    EXPECT_EQ(gen.node(), (flakeid::node_id{0, 7}));
    for (int i = 0; i < 100; ++i) {
      last = gen.next_id();
      clk.advance(1ms);
    }
  }
  clk.step_back(400ms);  // 300 ms behind the last ID: waited for
  {
    flakeid::clock_guard_file guard{file, node, guard_options(clk)};
    manual_gen gen{guard, clk};
    EXPECT_EQ(guard.recorded_unix_ms(), ts_of(last))
        << "a clean shutdown records the exact last timestamp";
    const std::uint64_t id = gen.next_id();
    EXPECT_GT(id, last);
    last = id;
  }
  clk.step_back(10'000ms);  // beyond max_wait: refused
  flakeid::clock_guard_file guard{file, node, guard_options(clk)};
  EXPECT_THROW((void)manual_gen(guard, clk), flakeid::clock_backwards_error);
}

TEST(clock_guard_test, a_crash_leaves_a_horizon_that_covers_every_minted_id) {
  file_backend b;
  const std::string file = b.dir + "/state";
  const flakeid::fixed_node node{flakeid::worker_id{7}};
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    flakeid::manual_clock clk = clock_at_wall();
    flakeid::clock_guard_file guard{file, node, guard_options(clk)};
    manual_gen gen{guard, clk};
    std::uint64_t last = 0;
    for (int i = 0; i < 50; ++i) {
      last = gen.next_id();
      clk.advance(1ms);
    }
    std::this_thread::sleep_for(150ms);  // the writer runs every 100 ms
    for (int i = 0; i < 50; ++i) {       // minted after the last write
      last = gen.next_id();
      clk.advance(1ms);
    }
    (void)!::write(fds[1], &last, sizeof last);
    ::pause();
    ::_exit(1);
  }
  ::close(fds[1]);
  std::uint64_t last = 0;
  ASSERT_EQ(::read(fds[0], &last, sizeof last), static_cast<ssize_t>(sizeof last));
  ::close(fds[0]);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);

  flakeid::manual_clock clk = clock_at_wall(-200ms);  // restarted with the clock moved back
  flakeid::clock_guard_file guard{file, node, guard_options(clk)};
  manual_gen gen{guard, clk};
  EXPECT_GE(guard.recorded_unix_ms(), ts_of(last));
  EXPECT_GT(gen.next_id(), last);
}

TEST(clock_guard_test, a_second_process_on_the_same_file_is_refused) {
  file_backend b;
  const std::string file = b.dir + "/state";
  flakeid::manual_clock clk = clock_at_wall();
  flakeid::clock_guard_file one{file, flakeid::fixed_node{flakeid::worker_id{1}},
                                guard_options(clk)};
  flakeid::clock_guard_file two{file, flakeid::fixed_node{flakeid::worker_id{1}},
                                guard_options(clk)};
  (void)one.assign(flakeid::layouts::twitter);
  try {
    (void)two.assign(flakeid::layouts::twitter);
    FAIL() << "two guards share one state file";
  } catch (const flakeid::worker_id_error& e) {
    EXPECT_EQ(std::string(e.what()), "flakeid: clock guard file " + file +
                                         " is locked by another process using the same worker id");
  }
}

}  // namespace
