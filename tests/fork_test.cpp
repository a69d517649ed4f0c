// Every object with state refuses in a forked child: a snowflake generator (plain and striped),
// a segment generator and a chain over the memory and the file store, a lease. Real fork(); a
// child forked while another thread of the parent holds the engine's lock, or is inside a
// store call, answers at once. Every test forks: `forked_child` in each name.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <flakeid/backfill.hpp>
#include <flakeid/segment.hpp>
#include <flakeid/snowflake.hpp>
#include <flakeid/store/file.hpp>
#include <flakeid/store/memory.hpp>
#include <flakeid/striped.hpp>

#include "fork_child.hpp"
#include "temp_dir.hpp"

using namespace std::chrono_literals;
using std::chrono::sys_days;

namespace {

using manual_gen = flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>;

// 2025-01-01 UTC; datacenter 1, worker 7: (1735689600000 - 1288834974657) << 22 | 1 << 17 | 7 << 12
constexpr std::uint64_t first_id_2025 = 1874244142494806016ULL;

std::string forked_message(const std::string& what) {
  return "forked_process_error: flakeid: " + what +
         " was made before fork() and belongs to the parent process: rebuild it in the child";
}

/// What a child drew: the error that stopped it ("none" if none) and the IDs it got first.
struct child_draw {
  std::string error;
  std::vector<std::uint64_t> ids;
};

/// Child side: calls `next()` up to `n` times; reports the error that stopped it and the IDs.
template <class Next>
std::string draw(std::size_t n, Next next) {
  std::vector<std::uint64_t> ids;
  std::string error = "none";
  try {
    while (ids.size() < n) ids.push_back(next());
  } catch (const flakeid::forked_process_error& e) {
    error = std::string("forked_process_error: ") + e.what();
  } catch (const std::exception& e) {
    error = std::string("other: ") + e.what();
  }
  return error + '\n' + bytes_of(ids);
}

child_draw parse(const forked_child_result& r) {
  const auto nl = r.text.find('\n');
  if (nl == std::string::npos) return {r.text, {}};
  return {r.text.substr(0, nl), ids_of(r.text.substr(nl + 1))};
}

/// After the child `r`, the parent draws `n` more IDs with `next` onto `parent`; the child
/// exited with 0 and was refused as `what` ("this snowflake generator"). The child's report.
template <class Next>
child_draw refused_child(const forked_child_result& r, const std::string& what,
                         std::vector<std::uint64_t>& parent, int n, Next next) {
  for (int i = 0; i < n; ++i) parent.push_back(next());
  const child_draw c = parse(r);
  EXPECT_TRUE(r.exited_with(0)) << r.text;
  EXPECT_EQ(c.error, forked_message(what));
  return c;
}

std::size_t duplicates(std::vector<std::uint64_t> a, std::vector<std::uint64_t> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<std::uint64_t> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both.size();
}

using flakeid_test::temp_dir;

// ---- snowflake generators ---------------------------------------------------------------------

TEST(fork_test, forked_child_snowflake_generator_throws_and_the_parent_goes_on) {
  flakeid::manual_clock clock{sys_days{std::chrono::year{2025} / 1 / 1}};
  manual_gen gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  std::vector<std::uint64_t> parent;
  for (int i = 0; i < 10; ++i) parent.push_back(gen.next_id());
  const forked_child_result r = run_in_forked_child([&] {
    std::string out = draw(1000, [&] { return gen.next_id(); });
    std::uint64_t batch[4] = {};
    try {
      gen.next_ids(batch);
      out.insert(0, "next_ids minted;");
    } catch (const flakeid::forked_process_error&) {
    }
    return out;
  });
  const child_draw c =
      refused_child(r, "this snowflake generator", parent, 1000, [&] { return gen.next_id(); });
  EXPECT_TRUE(c.ids.empty());
  EXPECT_EQ(duplicates(parent, c.ids), 0U);
  for (std::size_t i = 0; i < parent.size(); ++i) ASSERT_EQ(parent[i], first_id_2025 + i);
}

TEST(fork_test, forked_child_generator_built_on_a_pre_fork_lease_assignment_throws) {
  // A worker assignment taken before the fork carries the lease's fence: a generator the child
  // builds on it belongs to the parent's lease and refuses, as that lease does.
  flakeid::manual_clock clock{sys_days{std::chrono::year{2025} / 1 / 1}};
  flakeid::worker_assignment a;
  a.node = {1, 7};
  a.fence = flakeid::fence_ptr::make();
  a.source = "lease test";
  manual_gen gen{a, clock};
  std::vector<std::uint64_t> parent{gen.next_id()};
  const forked_child_result r = run_in_forked_child([&] {
    manual_gen child_gen{a, clock};
    std::string out = draw(100, [&] { return child_gen.next_id(); });
    // An assignment without a lease (a fixed id) is the child's to use.
    flakeid::worker_assignment fixed;
    fixed.node = {1, 8};
    manual_gen own{fixed, clock};
    out += bytes_of({own.next_id()});
    return out;
  });
  const child_draw c =
      refused_child(r, "this snowflake generator", parent, 100, [&] { return gen.next_id(); });
  // Only the generator on worker 8 minted: 2025-01-01, datacenter 1, worker 8, sequence 0.
  EXPECT_EQ(c.ids, std::vector<std::uint64_t>{first_id_2025 + (std::uint64_t{1} << 12)});
  EXPECT_EQ(duplicates(parent, c.ids), 0U);
  for (std::size_t i = 0; i < parent.size(); ++i) ASSERT_EQ(parent[i], first_id_2025 + i);
}

TEST(fork_test, forked_child_backfill_minter_throws_and_the_parent_goes_on) {
  flakeid::backfill_minter<flakeid::layouts::twitter> minter{flakeid::datacenter_id{1},
                                                             flakeid::worker_id{7}};
  const auto t = sys_days{std::chrono::year{2025} / 1 / 1};
  std::vector<std::uint64_t> parent{minter.next_id_at(t)};
  const forked_child_result r =
      run_in_forked_child([&] { return draw(100, [&] { return minter.next_id_at(t); }); });
  const child_draw c =
      refused_child(r, "this backfill minter", parent, 100, [&] { return minter.next_id_at(t); });
  EXPECT_TRUE(c.ids.empty());
  for (std::size_t i = 0; i < parent.size(); ++i) ASSERT_EQ(parent[i], first_id_2025 + i);
}

TEST(fork_test, forked_child_striped_generator_throws_and_a_rebuilt_one_mints) {
  flakeid::manual_clock clock{sys_days{std::chrono::year{2025} / 1 / 1}};
  using striped = flakeid::striped_snowflake<flakeid::layouts::twitter, flakeid::manual_clock, 1>;
  striped gen{flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  striped::bind_this_thread(0);
  std::vector<std::uint64_t> parent{gen.next_id()};
  const forked_child_result r = run_in_forked_child([&] {
    std::string out = draw(100, [&] { return gen.next_id(); });
    // Rebuilt in the child (on a worker id of its own): it mints.
    striped own{flakeid::datacenter_id{1}, flakeid::worker_id{8}, clock};
    out += bytes_of({own.next_id()});
    return out;
  });
  const child_draw c =
      refused_child(r, "this snowflake generator", parent, 100, [&] { return gen.next_id(); });
  ASSERT_EQ(c.ids.size(), 1U) << "only the rebuilt generator's ID";
  // Worker 8 << 1 | stripe 0 = 16 (the parent's stripe is 7 << 1 | 0 = 14).
  EXPECT_EQ(c.ids[0], first_id_2025 - (std::uint64_t{7} << 12) + (std::uint64_t{16} << 12));
  EXPECT_EQ(parent[0], first_id_2025 - (std::uint64_t{7} << 12) + (std::uint64_t{14} << 12));
  EXPECT_EQ(duplicates(parent, c.ids), 0U);
}

// ---- segment generators -----------------------------------------------------------------------

struct memory_backend {
  flakeid::memory_store store;
  flakeid::memory_distributor distributor() const { return store.distributor("orders"); }
};

struct file_backend {
  temp_dir dir{"segments"};
  flakeid::file_distributor distributor() const {
    return flakeid::file_store{dir.path}.distributor("orders");
  }
};

/// A parent with generator `Gen` on `b`'s counter draws one ID, forks, and draws on: the child
/// gets nothing from the parent's generator, and a generator it rebuilds on the same counter
/// (the file store: it can; the memory store: the child's copy refuses too) never repeats the
/// parent's IDs.
template <class Gen, class Backend, class Options>
void child_draws_nothing(Backend& b, Options opts, const std::string& what,
                         const std::string& rebuilt_error) {
  Gen gen{b.distributor(), opts};
  std::vector<std::uint64_t> parent{gen.next_id()};
  ASSERT_EQ(parent[0], 1U);
  const forked_child_result r = run_in_forked_child([&] {
    std::string out = draw(5000, [&] { return gen.next_id(); });
    std::string rebuilt = "none";
    try {
      Gen own{b.distributor(), opts};
      std::vector<std::uint64_t> ids(3000);
      own.next_ids(ids);
      out += bytes_of(ids);
    } catch (const flakeid::forked_process_error& e) {
      rebuilt = std::string("forked_process_error: ") + e.what();
    }
    return rebuilt + '\n' + out;
  });
  for (int i = 0; i < 4999; ++i) parent.push_back(gen.next_id());
  EXPECT_TRUE(r.exited_with(0)) << r.text;
  const auto nl = r.text.find('\n');
  ASSERT_NE(nl, std::string::npos) << r.text;
  EXPECT_EQ(r.text.substr(0, nl), rebuilt_error);
  forked_child_result rest = r;
  rest.text = r.text.substr(nl + 1);
  const child_draw c = parse(rest);
  EXPECT_EQ(c.error, forked_message(what));
  EXPECT_EQ(c.ids.size(), rebuilt_error == "none" ? 3000U : 0U)
      << "the parent's generator gave the child IDs";
  EXPECT_EQ(duplicates(parent, c.ids), 0U);
  std::vector<std::uint64_t> sorted = parent;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
}

const flakeid::segment_options plain{.step = 1000};
const flakeid::segment_chain_options chained{
    .segment = {.step = 1000}, .min_ahead = 1, .max_ahead = 2};

TEST(fork_test, forked_child_segment_generator_on_the_file_store_hands_out_nothing) {
  file_backend b;
  child_draws_nothing<flakeid::segment_generator<flakeid::file_distributor>>(
      b, plain, "this segment generator", "none");
}

TEST(fork_test, forked_child_segment_chain_on_the_file_store_hands_out_nothing) {
  file_backend b;
  child_draws_nothing<flakeid::segment_chain_generator<flakeid::file_distributor>>(
      b, chained, "this segment chain generator", "none");
}

TEST(fork_test, forked_child_segment_generator_on_the_memory_store_hands_out_nothing) {
  memory_backend b;
  child_draws_nothing<flakeid::segment_generator<flakeid::memory_distributor>>(
      b, plain, "this segment generator", forked_message("this memory store"));
}

TEST(fork_test, forked_child_segment_chain_on_the_memory_store_hands_out_nothing) {
  memory_backend b;
  child_draws_nothing<flakeid::segment_chain_generator<flakeid::memory_distributor>>(
      b, chained, "this segment chain generator", forked_message("this memory store"));
}

TEST(fork_test, forked_child_grouped_segment_generator_hands_out_nothing) {
  memory_backend b;
  flakeid::manual_clock clock{sys_days{std::chrono::year{2025} / 3 / 18}};
  flakeid::grouped_segment_generator<flakeid::memory_distributor, flakeid::manual_clock> gen{
      b.distributor(), flakeid::group_period::day, plain, clock};
  EXPECT_EQ(gen.next().number, 1U);
  const forked_child_result r =
      run_in_forked_child([&] { return draw(10, [&] { return gen.next_id(); }); });
  EXPECT_TRUE(r.exited_with(0)) << r.text;
  EXPECT_EQ(parse(r).error, forked_message("this grouped segment generator"));
  EXPECT_TRUE(parse(r).ids.empty());
  EXPECT_EQ(gen.next().number, 2U);
}

/// A gate in a distributor's store call: once armed, a call stops inside until it opens.
struct gate {
  std::mutex m;
  std::condition_variable cv;
  bool armed = false;
  bool inside = false;
  bool open = false;

  void pass() {
    std::unique_lock lk(m);
    if (!armed) return;
    inside = true;
    cv.notify_all();
    cv.wait(lk, [&] { return open; });
  }
  /// Whether a call is inside (waits up to 30 s: a guard against a hang only).
  bool wait_inside() {
    std::unique_lock lk(m);
    return cv.wait_for(lk, 30s, [&] { return inside; });
  }
  void release() {
    {
      std::lock_guard lk(m);
      open = true;
    }
    cv.notify_all();
  }
};

/// A distributor whose store calls pass through a gate.
template <class D>
struct gated {
  D d;
  std::shared_ptr<gate> g;
  std::uint64_t next_max_id(std::uint64_t step) {
    g->pass();
    return d.next_max_id(step);
  }
  [[nodiscard]] std::string_view store_name() const noexcept { return d.store_name(); }
  [[nodiscard]] std::string_view key() const noexcept { return d.key(); }
};

/// The parent's other thread is inside a store call, holding the engine's lock (and, on the
/// file store, about to take the counter file's flock); the child forked then answers at once.
template <class Backend>
void child_answers_while_a_store_call_is_in_flight(Backend& b) {
  using D = decltype(b.distributor());
  auto g = std::make_shared<gate>();
  flakeid::segment_generator<gated<D>> gen{gated<D>{b.distributor(), g}, plain};
  std::vector<std::uint64_t> ids(1000);
  gen.next_ids(ids);  // the first segment, used up
  g->armed = true;
  std::uint64_t next = 0;
  std::thread t([&] { next = gen.next_id(); });  // fetches the next segment: stops in the gate
  ASSERT_TRUE(g->wait_inside());
  const forked_child_result r = run_in_forked_child([&] {
    std::string out = draw(1, [&] { return gen.next_id(); });
    gen.close();  // takes no lock either
    return out;
  });
  g->release();
  t.join();
  EXPECT_FALSE(r.hung) << "the child waited on the parent's lock:\n" << r.waits;
  EXPECT_TRUE(r.exited_with(0)) << r.text;
  EXPECT_EQ(parse(r).error, forked_message("this segment generator"));
  EXPECT_EQ(next, 1001U);
  EXPECT_EQ(gen.next_id(), 1002U);
}

TEST(fork_test, forked_child_answers_while_the_parent_is_inside_a_file_store_call) {
  file_backend b;
  child_answers_while_a_store_call_is_in_flight(b);
  // Nobody holds the counter file's lock: another generator on it draws at once.
  flakeid::segment_generator<flakeid::file_distributor> other{b.distributor(), plain};
  EXPECT_EQ(other.next_id(), 2001U);
}

// The parent's thread draws from the file store one store call per ID, so its counter file is
// locked at almost every fork: a child that rebuilds its generator on that file draws at once
// (its copy of the parent's descriptor was closed at fork time, not left holding the lock).
TEST(fork_test, forked_child_rebuilds_on_the_file_store_while_the_parent_holds_its_lock) {
  file_backend b;
  flakeid::segment_generator<flakeid::file_distributor> gen{b.distributor(), 1};
  std::atomic<bool> stop{false};
  std::vector<std::uint64_t> parent;
  std::thread t([&] {
    while (!stop.load()) parent.push_back(gen.next_id());
  });
  std::vector<std::uint64_t> children;
  int hung = 0;
  for (int i = 0; i < 20; ++i) {
    const forked_child_result r = run_in_forked_child([&] {
      flakeid::segment_generator<flakeid::file_distributor> own{b.distributor(), 1};
      return draw(10, [&] { return own.next_id(); });
    });
    hung += r.hung ? 1 : 0;
    const child_draw c = parse(r);
    EXPECT_EQ(c.error, "none");
    children.insert(children.end(), c.ids.begin(), c.ids.end());
  }
  stop.store(true);
  t.join();
  EXPECT_EQ(hung, 0) << "children waited on a lock their copy of the parent's descriptor held";
  EXPECT_EQ(children.size(), 200U);
  EXPECT_EQ(duplicates(parent, children), 0U);
}

TEST(fork_test, forked_child_answers_while_the_parent_is_inside_a_memory_store_call) {
  memory_backend b;
  child_answers_while_a_store_call_is_in_flight(b);
}

/// The chain's worker is inside its first store call when the parent forks: the child's chain
/// answers at once, and destroying it there neither joins nor waits for the worker.
template <class Backend>
void chain_child_answers_while_the_worker_is_inside_a_store_call(Backend& b) {
  using D = decltype(b.distributor());
  auto g = std::make_shared<gate>();
  g->armed = true;
  std::optional<flakeid::segment_chain_generator<gated<D>>> chain;
  chain.emplace(gated<D>{b.distributor(), g}, chained);
  ASSERT_TRUE(g->wait_inside());
  const forked_child_result r = run_in_forked_child([&] {
    std::string out = draw(1, [&] { return chain->next_id(); });
    chain.reset();
    return out;
  });
  g->release();
  EXPECT_FALSE(r.hung) << "the child waited on the parent's lock or worker:\n" << r.waits;
  EXPECT_TRUE(r.exited_with(0)) << r.text;
  EXPECT_EQ(parse(r).error, forked_message("this segment chain generator"));
  EXPECT_EQ(chain->next_id(), 1U);
}

TEST(fork_test, forked_child_chain_answers_while_its_worker_is_inside_a_file_store_call) {
  file_backend b;
  chain_child_answers_while_the_worker_is_inside_a_store_call(b);
}

TEST(fork_test, forked_child_chain_answers_while_its_worker_is_inside_a_memory_store_call) {
  memory_backend b;
  chain_child_answers_while_the_worker_is_inside_a_store_call(b);
}

// ---- leases -------------------------------------------------------------------------------------

TEST(fork_test, forked_child_lease_refuses_and_its_destruction_leaves_the_parent_holding) {
  temp_dir dir{"lease"};
  const flakeid::file_store store{dir.path, {.name_space = "fork"}};
  // A lease does not move: the prvalue initializes the one on the heap in place.
  auto held = std::unique_ptr<flakeid::lease>(new flakeid::lease(store.lease()));
  flakeid::classic_snowflake<> gen{*held};
  const std::uint64_t parent_id = held->id();
  std::vector<std::uint64_t> parent{gen.next_id()};
  const forked_child_result r = run_in_forked_child([&] {
    std::string out = draw(1, [&] { return gen.next_id(); });
    out.insert(0,
               std::string(held->valid() ? "valid;" : "") + (held->deadline() ? "deadline;" : ""));
    try {
      (void)held->acquire(4);
      out.insert(0, "acquired;");
    } catch (const flakeid::worker_id_error&) {
    }
    held.reset();  // leaves the parent's lock file and renewal thread alone
    auto own = store.lease();
    return std::to_string(own.acquire(1024)) + ";" + out;
  });
  EXPECT_FALSE(r.hung) << "the child's lease waited for the parent's renewal thread:\n" << r.waits;
  EXPECT_TRUE(r.exited_with(0)) << r.text;
  const auto semi = r.text.find(';');
  ASSERT_NE(semi, std::string::npos) << r.text;
  EXPECT_NE(r.text.substr(0, semi), std::to_string(parent_id)) << "the child took the parent's id";
  forked_child_result rest = r;
  rest.text = r.text.substr(semi + 1);
  EXPECT_EQ(parse(rest).error, forked_message("this snowflake generator"));
  // The parent still holds its id: its generator mints, a lease of its own gets another id.
  EXPECT_TRUE(held->valid());
  parent.push_back(gen.next_id());
  EXPECT_GT(parent[1], parent[0]);
  auto other = store.lease();
  EXPECT_NE(other.acquire(1024), parent_id);
}

}  // namespace
