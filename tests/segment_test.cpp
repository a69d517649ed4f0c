// Segment generators: the distributor concept, the memory and file stores, segment_generator,
// segment_chain_generator (prefetch, hunger, store failures, shutdown), time to live, grouped
// counters across midnight, and several threads on one generator.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/leaf_step_walk.hpp"
#include "eventually.hpp"
#include "temp_dir.hpp"

#include <flakeid/flakeid.hpp>

#include "adapters/expect_error.hpp"
#include "adapters/segment_scenarios.hpp"

using namespace std::chrono;
using namespace std::chrono_literals;

namespace {

// ---- test distributors ---------------------------------------------------------------------

/// Wraps a memory distributor: counts calls (and which thread made them), and can be switched
/// to throw, for every thread or for all but one. Copies share the switches.
class test_distributor {
 public:
  struct control {
    std::atomic<bool> failing{false};
    std::thread::id serves_only{};  // when set, the other threads' calls throw (under `mutex`)
    std::atomic<std::uint64_t> calls{0};
    std::atomic<std::uint64_t> failures{0};
    std::mutex mutex;
    std::set<std::thread::id> threads;
  };

  explicit test_distributor(flakeid::memory_distributor inner)
      : inner_(std::move(inner)), ctl_(std::make_shared<control>()) {}

  std::uint64_t next_max_id(std::uint64_t step) {
    bool refused = false;
    {
      std::lock_guard lk(ctl_->mutex);
      ctl_->threads.insert(std::this_thread::get_id());
      refused =
          ctl_->serves_only != std::thread::id{} && ctl_->serves_only != std::this_thread::get_id();
    }
    if (refused || ctl_->failing.load()) {
      ctl_->failures.fetch_add(1);
      throw std::runtime_error("store down");
    }
    ctl_->calls.fetch_add(1);
    return inner_.next_max_id(step);
  }
  [[nodiscard]] std::string_view store_name() const noexcept { return "flaky"; }
  [[nodiscard]] std::string_view key() const noexcept { return inner_.key(); }
  [[nodiscard]] control& ctl() const noexcept { return *ctl_; }
  /// Answers only `thread`'s calls from now on (every thread's again with a default id).
  void serve_only(std::thread::id thread) const {
    std::lock_guard lk(ctl_->mutex);
    ctl_->serves_only = thread;
  }

 private:
  flakeid::memory_distributor inner_;
  std::shared_ptr<control> ctl_;
};

/// Returns the values it is given, in turn: a store that misbehaves.
struct scripted_distributor {
  std::vector<std::uint64_t> answers;
  std::size_t at = 0;
  std::uint64_t next_max_id(std::uint64_t /*step*/) { return answers.at(at++); }
  [[nodiscard]] std::string_view store_name() const noexcept { return "scripted"; }
  [[nodiscard]] std::string_view key() const noexcept { return "k"; }
};

struct not_a_distributor {
  int next_max_id(int) { return 0; }
};

static_assert(flakeid::segment_distributor<flakeid::memory_distributor>);
static_assert(flakeid::keyed_segment_distributor<flakeid::memory_distributor>);
static_assert(flakeid::segment_distributor<flakeid::file_distributor>);
static_assert(flakeid::keyed_segment_distributor<flakeid::file_distributor>);
static_assert(flakeid::segment_distributor<test_distributor>);
static_assert(!flakeid::keyed_segment_distributor<test_distributor>);
static_assert(flakeid::segment_distributor<scripted_distributor>);
static_assert(!flakeid::segment_distributor<not_a_distributor>);
static_assert(!flakeid::segment_distributor<int>);
// A store call can fail, so the generators' calls are not noexcept.
static_assert(
    !noexcept(std::declval<flakeid::segment_generator<flakeid::memory_distributor>&>().next_id()));
static_assert(!noexcept(
    std::declval<flakeid::segment_chain_generator<flakeid::memory_distributor>&>().next_id()));

using flakeid_test::temp_dir;

using flakeid_test::eventually;

void expect_strictly_increasing(const std::vector<std::uint64_t>& ids) {
  for (std::size_t i = 1; i < ids.size(); ++i) ASSERT_LT(ids[i - 1], ids[i]) << "at " << i;
}

void expect_distinct(std::vector<std::uint64_t> ids) {
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "a repeated ID";
}

/// Runs `draw(t, ids)` in `threads` threads (t from 0), each filling `ids`, a vector of its
/// own; returns the vectors once every thread is done.
template <class Id = std::uint64_t, class Draw>
std::vector<std::vector<Id>> in_threads(std::size_t threads, Draw draw) {
  std::vector<std::vector<Id>> got(threads);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back([&, t] { draw(t, got[t]); });
  for (auto& th : pool) th.join();
  return got;
}

/// Has `threads` threads, started together, draw `per_thread` IDs each from `gen` with
/// `next_id()`: each thread's IDs, in the order it drew them.
template <class Gen>
std::vector<std::vector<std::uint64_t>> draw_together(Gen& gen, std::size_t threads,
                                                      std::size_t per_thread) {
  std::atomic<std::size_t> ready{0};
  return in_threads(threads, [&](std::size_t, std::vector<std::uint64_t>& ids) {
    ids.reserve(per_thread);
    ready.fetch_add(1);
    while (ready.load() < threads) std::this_thread::yield();  // all draw at once
    for (std::size_t i = 0; i < per_thread; ++i) ids.push_back(gen.next_id());
  });
}

/// Checks that each thread's IDs in `got` strictly increase; returns them all, after `before`.
std::vector<std::uint64_t> joined_increasing(const std::vector<std::vector<std::uint64_t>>& got,
                                             std::vector<std::uint64_t> before = {}) {
  for (const auto& v : got) {
    expect_strictly_increasing(v);
    before.insert(before.end(), v.begin(), v.end());
  }
  return before;
}

using sys_ms = sys_time<milliseconds>;

}  // namespace

// ---- stores --------------------------------------------------------------------------------

TEST(segment_store_test, memory_counter_hands_out_ranges_above_zero) {
  flakeid::memory_store store;
  auto d = store.distributor("orders");
  EXPECT_EQ(d.next_max_id(100), 100u);  // owns 1..100
  EXPECT_EQ(d.next_max_id(100), 200u);
  auto other = d.with_key("invoices");
  EXPECT_EQ(other.next_max_id(7), 7u);
  EXPECT_EQ(store.distributor("orders").next_max_id(1), 201u);  // a copy shares the counter
  EXPECT_EQ(store.current("orders"), 201u);
  EXPECT_EQ(store.current("invoices"), 7u);
  EXPECT_EQ(store.current("nothing"), 0u);
  EXPECT_EQ(store.calls(), 4u);
  EXPECT_EQ(d.store_name(), "memory");
  EXPECT_EQ(other.key(), "invoices");
  EXPECT_THROW((void)store.distributor(""), std::invalid_argument);
}

TEST(segment_store_test, memory_counter_refuses_to_wrap) {
  flakeid::memory_store store;
  auto d = store.distributor("big");
  (void)d.next_max_id(UINT64_MAX - 5);
  try {
    (void)d.next_max_id(10);
    FAIL() << "no throw";
  } catch (const flakeid::segment_store_error& e) {
    EXPECT_STREQ(e.what(),
                 "flakeid: segment store memory, key 'big': the counter is at "
                 "18446744073709551610; adding step 10 "
                 "would pass 2^64 - 1");
    EXPECT_EQ(e.store(), "memory");
    EXPECT_EQ(e.key(), "big");
  }
}

TEST(segment_store_test, file_counter_is_durable_text) {
  temp_dir dir;
  flakeid::file_store store{dir.path / "ids"};
  auto d = store.distributor("orders@20250318");
  EXPECT_EQ(d.next_max_id(5), 5u);
  EXPECT_EQ(d.next_max_id(5), 10u);
  EXPECT_EQ(store.current("orders@20250318"), 10u);
  EXPECT_EQ(store.current("absent"), 0u);
  EXPECT_EQ(d.path(), dir.path / "ids" / "orders@20250318.segment");
  std::ifstream in(d.path());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "00000000000000000010\n");
  // A second store object (another process would do the same) continues the counter.
  flakeid::file_store again{dir.path / "ids"};
  EXPECT_EQ(again.distributor("orders@20250318").next_max_id(1), 11u);
  EXPECT_EQ(d.store_name(), "file:" + (dir.path / "ids").string());
}

namespace {

/// The scenarios' backend over a file store: a directory per namespace.
struct file_segment_backend {
  temp_dir dir;
  [[nodiscard]] flakeid::file_store store(const std::string& ns, milliseconds) const {
    return flakeid::file_store{dir.path / ns};
  }
};

}  // namespace

TEST(segment_store_test, a_file_counter_gone_back_is_refused_by_a_distributor_above_it) {
  // `cp -p` of an older copy of the counter file over it.
  file_segment_backend b;
  flakeid_test::a_counter_gone_back_is_refused(
      b,
      [&](const std::string& ns, const std::string& key, std::uint64_t n) {
        const std::string path = b.dir.path / ns / (key + ".segment");
        std::string text = std::string(20 - std::to_string(n).size(), '0') + std::to_string(n);
        text += "\n";
        std::ifstream in(path);
        std::string line;
        std::getline(in, line);
        if (std::getline(in, line)) text += line + "\n";  // the idle time of one that may expire
        in.close();
        std::ofstream(path, std::ios::trunc) << text;  // in place, as cp -p does
      },
      /*stays_refused=*/true);
  // A counter that may expire, removed once idle and made anew by another process, did not go
  // back: it is counted on.
  const flakeid::file_store store{b.dir.path / "expiring"};
  auto day = store.distributor("d@20250319");
  day.expire_after(1ms);
  EXPECT_EQ(day.next_max_id(50), 50U);
  EXPECT_EQ(day.next_max_id(50), 100U);
  std::filesystem::remove(day.path());
  EXPECT_EQ(store.distributor("d@20250319").next_max_id(10), 10U);
  std::this_thread::sleep_for(2ms);  // idle past expire_after on this distributor's clock
  EXPECT_EQ(day.next_max_id(10), 20U);
}

// Processes started since a loss count the lost numbers again and bring the counter back above
// a running distributor's range, whose next numbers they (or others before the loss) may have
// handed out: the running one stays refused until resume_above (the fault soak's directory
// removal repeated 201-210 before).
TEST(segment_store_test, a_file_counter_that_went_back_stays_refused_until_resume_above) {
  temp_dir dir;
  const flakeid::file_store store{dir.path};
  auto running = store.distributor("orders");
  EXPECT_EQ(running.next_max_id(100), 100U);
  EXPECT_EQ(running.next_max_id(100), 200U);
  std::filesystem::remove(running.path());  // a cleaner, or the directory removed whole
  const auto refusal = [&] {
    try {
      (void)running.next_max_id(100);
    } catch (const flakeid::segment_store_error& e) {
      return std::string(e.what());
    }
    return std::string("no refusal");
  };
  EXPECT_NE(refusal().find("(it had reached 200, now 0)"), std::string::npos);
  auto since = store.distributor("orders");  // a process started after the loss
  EXPECT_EQ(since.next_max_id(250), 250U);
  EXPECT_NE(refusal().find("(it had reached 200, now 0)"), std::string::npos)
      << "counted on once the counter climbed past the running distributor's range";
  EXPECT_EQ(running.resume_above(400), 400U);
  EXPECT_EQ(running.next_max_id(100), 500U);
}

TEST(segment_store_test, file_counters_that_may_expire_are_removed_once_idle_too_long) {
  temp_dir dir;
  flakeid::file_store store{dir.path};
  auto day = store.distributor("d@20250318");
  day.expire_after(24h);
  EXPECT_EQ(day.next_max_id(10), 10U);
  std::ifstream in(day.path());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "00000000000000000010\n00000000000086400000\n");  // the counter, the idle ms
  auto kept = store.distributor("kept");
  EXPECT_EQ(kept.next_max_id(5), 5U);
  const auto age = [](const std::filesystem::path& p, hours h) {
    std::filesystem::last_write_time(p, std::filesystem::last_write_time(p) - h);
  };
  // Written 23 h ago: not yet idle for a day, so the sweep of the next expire_after keeps it.
  age(day.path(), 23h);
  age(kept.path(), 1000h);  // never marked: never removed
  store.distributor("d@20250319").expire_after(24h);
  EXPECT_EQ(store.current("d@20250318"), 10U);
  // Idle for 25 h, but locked by a process that uses it: left for a later sweep.
  age(day.path(), 2h);
  {
    const int held = ::open(day.path().c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(held, 0);
    ASSERT_EQ(::flock(held, LOCK_EX), 0);
    store.distributor("d@20250320").expire_after(24h);
    EXPECT_TRUE(std::filesystem::exists(day.path()));
    ::close(held);
  }
  store.distributor("d@20250320").expire_after(24h);
  EXPECT_FALSE(std::filesystem::exists(day.path()));
  EXPECT_EQ(store.current("d@20250318"), 0U);
  EXPECT_EQ(store.current("kept"), 5U);
  // The distributor made before the sweep counts from 0 again: a counter may expire only once
  // nobody calls it.
  EXPECT_EQ(day.next_max_id(10), 10U);
  // A file written before expiry existed (one line) still reads, and a broken second line is
  // no counter.
  EXPECT_EQ(store.current("kept"), 5U);
  std::ofstream(dir.path / "bad.segment") << "00000000000000000010\nnot-a-number\n";
  EXPECT_THROW((void)store.current("bad"), flakeid::segment_store_error);
}

TEST(segment_store_test, file_names_cannot_escape_the_directory) {
  temp_dir dir;
  flakeid::file_store store{dir.path};
  EXPECT_EQ(std::filesystem::path(store.distributor("a/b").path()).filename(), "a%2Fb.segment");
  EXPECT_EQ(std::filesystem::path(store.distributor("..").path()).filename(), "%2E..segment");
  EXPECT_EQ(std::filesystem::path(store.distributor("x y").path()).filename(), "x%20y.segment");
  (void)store.distributor("../up").next_max_id(1);
  EXPECT_TRUE(std::filesystem::exists(dir.path / "%2E.%2Fup.segment"));
}

TEST(segment_store_test, file_with_garbage_is_an_error_naming_it) {
  temp_dir dir;
  flakeid::file_store store{dir.path};
  auto d = store.distributor("orders");
  std::ofstream(d.path()) << "twelve\n";
  try {
    (void)d.next_max_id(1);
    FAIL() << "no throw";
  } catch (const flakeid::segment_store_error& e) {
    EXPECT_EQ(std::string(e.what()), "flakeid: segment store file:" + dir.path.string() +
                                         ", key 'orders': " + d.path() +
                                         " does not hold a counter (20 decimal digits)");
  }
}

TEST(segment_store_test, a_distributor_makes_its_directory_with_every_missing_parent) {
  temp_dir dir;
  const std::string deep = dir.path.string() + "/a/b//c/";
  const flakeid::file_store store{deep};
  EXPECT_EQ(store.distributor("orders").next_max_id(5), 5U);
  EXPECT_EQ(store.distributor("orders").path(), deep + "orders.segment");
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.path / "a" / "b" / "c" / "orders.segment"));
  EXPECT_EQ(store.current("orders"), 5U);
}

TEST(segment_store_test, a_directory_under_a_plain_file_is_an_error_naming_the_errno) {
  temp_dir dir;
  std::ofstream(dir.path / "plain") << "not a directory\n";
  const std::string under = (dir.path / "plain" / "sub").string();
  const flakeid::file_store store{under};
  try {
    (void)store.distributor("orders");
    FAIL() << "no throw";
  } catch (const flakeid::segment_store_error& e) {
    EXPECT_EQ(std::string(e.what()), "flakeid: segment store file:" + under +
                                         ", key 'orders': cannot create the directory: Not "
                                         "a directory");
  }
}

TEST(segment_store_test, paths_are_joined_and_split_as_the_file_store_names_its_files) {
  using flakeid::detail::absolute_path;
  using flakeid::detail::file_name_of;
  using flakeid::detail::join_path;
  using flakeid::detail::parent_directory;
  EXPECT_EQ(join_path("", "x.lease"), "x.lease");
  EXPECT_EQ(join_path("d", "x.lease"), "d/x.lease");
  EXPECT_EQ(join_path("d/", "x.lease"), "d/x.lease");
  EXPECT_EQ(join_path("/", "x.lease"), "/x.lease");
  EXPECT_EQ(parent_directory("state"), ".");
  EXPECT_EQ(parent_directory("/state"), "/");
  EXPECT_EQ(parent_directory("var/lib/state"), "var/lib");
  EXPECT_EQ(parent_directory("var//lib//state/"), "var//lib");
  EXPECT_EQ(file_name_of("var/lib/state"), "state");
  EXPECT_EQ(file_name_of("state"), "state");
  EXPECT_EQ(file_name_of("var/state/"), "state");
  EXPECT_EQ(absolute_path("/var/lib"), "/var/lib");
  EXPECT_EQ(absolute_path("leases"), std::filesystem::current_path().string() + "/leases");
}

TEST(segment_store_test, file_in_a_missing_directory_names_the_errno) {
  temp_dir dir;
  flakeid::file_distributor d{dir.path / "missing", "orders"};
  try {
    (void)d.next_max_id(1);
    FAIL() << "no throw";
  } catch (const flakeid::segment_store_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open " + d.path() + ": No such file or directory"),
              std::string::npos)
        << e.what();
  }
}

// ---- segment_generator ---------------------------------------------------------------------

TEST(segment_generator_test, step_one_takes_every_id_from_the_store) {
  flakeid::memory_store store;
  flakeid::segment_generator gen{store.distributor("n"), 1};
  EXPECT_EQ(gen.next_id(), 1u);
  EXPECT_EQ(gen.next_id(), 2u);
  EXPECT_EQ(gen.next_id(), 3u);
  EXPECT_EQ(gen.store_calls(), 3u);
  EXPECT_EQ(store.calls(), 3u);
}

TEST(segment_generator_test, serves_segments_in_order_and_calls_the_store_per_segment) {
  flakeid::memory_store store;
  flakeid::segment_generator gen{store.distributor("n"), {.step = 10}};
  EXPECT_EQ(store.calls(), 0u) << "the constructor must not call the store";
  for (std::uint64_t want = 1; want <= 25; ++want) EXPECT_EQ(gen.next_id(), want);
  EXPECT_EQ(gen.store_calls(), 3u);
  std::vector<std::uint64_t> more(17);
  gen.next_ids(more);
  for (std::size_t i = 0; i < more.size(); ++i) EXPECT_EQ(more[i], 26 + i);
  EXPECT_EQ(gen.store_calls(), 5u);
}

TEST(segment_generator_test, two_generators_on_one_counter_never_overlap) {
  flakeid::memory_store store;
  flakeid::segment_generator a{store.distributor("n"), 10};
  flakeid::segment_generator b{store.distributor("n"), 10};
  EXPECT_EQ(a.next_id(), 1u);
  EXPECT_EQ(b.next_id(), 11u);
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 100; ++i) {
    ids.push_back(a.next_id());
    ids.push_back(b.next_id());
  }
  expect_distinct(ids);
}

TEST(segment_generator_test, bad_options_throw_naming_the_range) {
  flakeid::memory_store store;
  try {
    flakeid::segment_generator gen{store.distributor("n"), 0};
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "flakeid: segment option step = 0 is out of range [1, 2147483648]");
  }
  EXPECT_THROW((flakeid::segment_generator{store.distributor("n"), flakeid::max_segment_step + 1}),
               std::invalid_argument);
  EXPECT_THROW((flakeid::segment_generator{store.distributor("n"), {.step = 10, .ttl = 0ms}}),
               std::invalid_argument);
  EXPECT_THROW(
      (flakeid::segment_chain_generator{store.distributor("n"), {.min_ahead = 4, .max_ahead = 2}}),
      std::invalid_argument);
}

TEST(segment_generator_test, a_store_that_goes_back_is_refused) {
  flakeid::segment_generator gen{scripted_distributor{{10, 5, 5}}, 5};
  EXPECT_EQ(gen.next_id(), 6u);
  for (int i = 0; i < 4; ++i) (void)gen.next_id();
  try {
    (void)gen.next_id();
    FAIL() << "no throw";
  } catch (const flakeid::segment_store_error& e) {
    EXPECT_STREQ(e.what(),
                 "flakeid: segment store scripted, key 'k': the store returned max 5 for step 5, "
                 "which does not "
                 "lie above the previous max 10; handing it out could repeat IDs");
  }
}

TEST(segment_generator_test, store_failure_is_wrapped_and_retried) {
  flakeid::memory_store store;
  test_distributor d{store.distributor("orders")};
  auto& ctl = d.ctl();
  flakeid::segment_generator gen{d, 10};
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 15; ++i) ids.push_back(gen.next_id());
  ctl.failing = true;
  for (int i = 0; i < 5; ++i) ids.push_back(gen.next_id());  // the rest of the segment
  try {
    (void)gen.next_id();
    FAIL() << "no throw";
  } catch (const flakeid::segment_store_error& e) {
    EXPECT_STREQ(e.what(),
                 "flakeid: segment store flaky, key 'orders': next_max_id(10) failed: store down");
  }
  EXPECT_THROW((void)gen.next_id(), flakeid::segment_store_error);
  ctl.failing = false;
  for (int i = 0; i < 15; ++i) ids.push_back(gen.next_id());
  expect_strictly_increasing(ids);
  EXPECT_EQ(ids.back(), 35u);
}

TEST(segment_generator_test, close_hands_out_nothing_more) {
  flakeid::memory_store store;
  flakeid::segment_generator gen{store.distributor("orders"), 10};
  EXPECT_EQ(gen.next_id(), 1u);
  gen.close();
  gen.close();
  try {
    (void)gen.next_id();
    FAIL() << "no throw";
  } catch (const flakeid::segment_closed_error& e) {
    EXPECT_STREQ(e.what(),
                 "flakeid: the segment generator on store memory, key 'orders' is closed; it hands "
                 "out no more IDs");
  }
  std::vector<std::uint64_t> out(3);
  EXPECT_THROW(gen.next_ids(out), flakeid::segment_closed_error);
  EXPECT_EQ(store.current("orders"), 10u);  // the store keeps its state; 2..10 are a gap
}

TEST(segment_generator_test, expired_segment_is_skipped) {
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 3 / 18}}};
  flakeid::memory_store store;
  flakeid::segment_generator gen{store.distributor("n"), {.step = 100, .ttl = 1s}, clock};
  EXPECT_EQ(gen.next_id(), 1u);
  clock.advance(999ms);
  EXPECT_EQ(gen.next_id(), 2u);
  clock.advance(1ms);
  EXPECT_EQ(gen.next_id(), 101u);  // 3..100 expired
  EXPECT_EQ(gen.next_id(), 102u);
  EXPECT_EQ(gen.store_calls(), 2u);
}

TEST(segment_generator_test, four_threads_get_distinct_increasing_ids) {
  flakeid::memory_store store;
  flakeid::segment_generator gen{store.distributor("n"), 37};
  constexpr std::size_t threads = 4;
  constexpr std::size_t per_thread = 50'000;
  const std::vector<std::uint64_t> all =
      joined_increasing(in_threads(threads, [&](std::size_t, std::vector<std::uint64_t>& ids) {
        ids.reserve(per_thread);
        for (std::size_t i = 0; i < per_thread; ++i) {
          if (i % 100 == 0) {
            std::uint64_t few[3];
            gen.next_ids(few);
            ids.insert(ids.end(), few, few + 3);
            i += 2;
          } else {
            ids.push_back(gen.next_id());
          }
        }
      }));
  expect_distinct(all);
  EXPECT_EQ(all.size(), std::size_t{threads} * per_thread);
  EXPECT_LE(*std::max_element(all.begin(), all.end()), store.current("n"));
}

// ---- segment_chain_generator ---------------------------------------------------------------

TEST(segment_chain_test, serves_increasing_ids_from_prefetched_segments) {
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{store.distributor("n"),
                                       {.segment = {.step = 100}, .min_ahead = 3, .max_ahead = 8}};
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 3; }));
  std::vector<std::uint64_t> ids(1000);
  for (auto& id : ids) id = gen.next_id();
  expect_strictly_increasing(ids);
  EXPECT_EQ(ids.front(), 1u);
  EXPECT_EQ(ids.back(), 1000u);  // one process alone on the counter: no gaps
}

TEST(segment_chain_test, the_caller_never_calls_the_store_while_segments_are_prefetched) {
  flakeid::memory_store store;
  test_distributor d{store.distributor("n")};
  auto& ctl = d.ctl();
  flakeid::segment_chain_generator gen{d,
                                       {.segment = {.step = 100}, .min_ahead = 4, .max_ahead = 4}};
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 4; }));
  std::vector<std::uint64_t> ids(150);  // 300 IDs in all: within the 400 prefetched
  gen.next_ids(ids);
  for (auto& id : ids) id = gen.next_id();
  EXPECT_EQ(gen.stats().hungry, 0u);
  std::lock_guard lk(ctl.mutex);
  EXPECT_EQ(ctl.threads.count(std::this_thread::get_id()), 0u)
      << "the store was called on the caller's thread";
}

TEST(segment_chain_test, the_worker_fetches_the_missing_segments_in_one_store_call) {
  flakeid::memory_store store;
  test_distributor d{store.distributor("batch")};
  // No caller yet: the worker alone fills the chain, 8 segments of 100, with one call.
  flakeid::segment_chain_generator gen{
      d, {.segment = {.step = 100}, .min_ahead = 8, .max_ahead = 8, .refill_period = 5ms}};
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 7; }));
  const std::uint64_t calls = d.ctl().calls.load();
  EXPECT_LE(calls, 2u);  // one batch, or a first call that raced it plus one batch
  EXPECT_EQ(store.distributor("batch").next_max_id(1), 801u);  // 8 segments of 100 reserved
  // The segments of one batch are served in order, 1, 2, ... without a gap between them.
  for (std::uint64_t want = 1; want <= 300; ++want) ASSERT_EQ(gen.next_id(), want);
}

TEST(segment_chain_test, store_failure_drains_the_chain_then_fails_then_resumes) {
  flakeid::memory_store store;
  test_distributor d{store.distributor("orders")};
  auto& ctl = d.ctl();
  flakeid::segment_chain_generator gen{d,
                                       {.segment = {.step = 10},
                                        .min_ahead = 3,
                                        .max_ahead = 3,
                                        .refill_period = 5ms,
                                        .retry_after = 5ms}};
  std::vector<std::uint64_t> ids;
  ids.push_back(gen.next_id());
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 3; }));
  ctl.failing = true;
  const flakeid_test::drained run = flakeid_test::drain_until_it_fails(gen, ids);
  ASSERT_TRUE(run.error.has_value());
  // The caller that found the chain empty asked for the target's worth, three segments of 10,
  // with one call.
  EXPECT_STREQ(run.error->what(),
               "flakeid: segment store flaky, key 'orders': next_max_id(30) failed: store down");
  EXPECT_EQ(run.error->store(), "flaky");
  EXPECT_EQ(run.error->key(), "orders");
  const std::size_t served = run.served;
  // It served the rest of the current segment and the three prefetched ones.
  EXPECT_GE(served, 30u);
  EXPECT_LE(served, 39u);
  EXPECT_THROW((void)gen.next_id(), flakeid::segment_store_error);
  ASSERT_TRUE(eventually([&] { return gen.stats().store_failures >= 3; }));
  // Callers and the worker alike fetch the three missing segments in one call.
  EXPECT_EQ(gen.stats().last_error,
            "flakeid: segment store flaky, key 'orders': next_max_id(30) failed: store down");
  ctl.failing = false;
  for (int i = 0; i < 100; ++i) ids.push_back(gen.next_id());
  expect_strictly_increasing(ids);
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 3; }));
}

TEST(segment_chain_test, hungry_callers_double_the_prefetch_and_calm_shrinks_it) {
  flakeid::memory_store store;
  test_distributor d{store.distributor("n")};
  // The worker's store calls fail, so every segment comes from a hungry caller: the chain is
  // empty at each caller's turn to the store, however fast either thread runs.
  d.serve_only(std::this_thread::get_id());
  // On a clock that stands still no draw rate is measured: the target is the hunger's alone.
  flakeid::segment_chain_generator gen{
      d,
      {.segment = {.step = 1}, .min_ahead = 2, .max_ahead = 16, .refill_period = 20ms},
      flakeid::manual_clock{}};
  std::size_t peak = 0;
  std::vector<std::uint64_t> ids;
  // Until the worker has doubled the target three times; the bound only ends a broken run.
  for (const auto end = steady_clock::now() + 60s; peak < 16 && steady_clock::now() < end;) {
    ids.push_back(gen.next_id());
    peak = std::max(peak, gen.stats().ahead_target);
  }
  d.serve_only(std::thread::id{});
  EXPECT_EQ(peak, 16u);
  EXPECT_GT(gen.stats().hungry, 0u);
  expect_strictly_increasing(ids);
  // Nobody draws: the target halves every calm refill period, down to min_ahead.
  EXPECT_TRUE(eventually([&] { return gen.stats().ahead_target == 2; }, 30s))
      << gen.stats().ahead_target;
}

TEST(segment_chain_test, four_threads_get_distinct_increasing_ids) {
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{store.distributor("n"),
                                       {.segment = {.step = 64}, .min_ahead = 2, .max_ahead = 32}};
  constexpr std::size_t threads = 4;
  constexpr std::size_t per_thread = 100'000;
  const std::vector<std::uint64_t> all =
      joined_increasing(in_threads(threads, [&](std::size_t, std::vector<std::uint64_t>& ids) {
        ids.resize(per_thread);
        for (std::size_t i = 0; i < per_thread; i += 10) {
          gen.next_ids(std::span(ids).subspan(i, 5));
          for (std::size_t k = i + 5; k < i + 10; ++k) ids[k] = gen.next_id();
        }
      }));
  expect_distinct(all);
  EXPECT_EQ(all.size(), std::size_t{threads} * per_thread);
}

TEST(segment_chain_test, short_runs_switch_under_eight_threads_without_a_repeat) {
  // Every next_id takes its run's copy (generation, first, length) before its fetch_add, and
  // every run here holds a few IDs (step 1), so nearly every call finds the copy of a
  // run the position has left, and the callers that move on rewrite it, racing each other.
  // A copy put back or torn would hand out an ID twice or one off the stride.
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{
      store.distributor("n"),
      {.segment = {.step = 1, .stride = 3, .remainder = 1}, .min_ahead = 2, .max_ahead = 64}};
  constexpr std::size_t threads = 8;
  constexpr std::size_t per_thread = 100'000;
  const std::vector<std::uint64_t> all = joined_increasing(draw_together(gen, threads, per_thread));
  expect_distinct(all);
  EXPECT_EQ(all.size(), std::size_t{threads} * per_thread);
  for (const std::uint64_t id : all) ASSERT_EQ(id % 3, 1u) << id;
  EXPECT_LE(*std::max_element(all.begin(), all.end()), store.current("n"));
}

TEST(segment_chain_test, a_long_store_outage_never_carries_the_position_into_a_served_segment) {
  // During an outage every call claims past the end of the used-up run and fails, and each
  // claim adds to the offset in the position word. Were the offset let grow into the
  // generation bits above it, a claim would land in the run's second segment, already served,
  // and hand its IDs out again. Here a block is 2^19 IDs, so some 8,190 failing calls would.
  flakeid::memory_store store;
  test_distributor d{store.distributor("n")};
  test_distributor::control& ctl = d.ctl();
  constexpr std::uint64_t step = std::uint64_t{1} << 20;
  constexpr std::uint64_t block = std::uint64_t{1} << 19;
  flakeid::segment_chain_generator gen{
      d, {.segment = {.step = step}, .min_ahead = 16, .max_ahead = 16, .thread_block = block}};
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 16; }));
  // One store call brought 16 segments, in runs of two: 1-2, 3-4, ... 15-16.
  ASSERT_EQ(gen.stats().store_calls, 1u);
  ctl.failing = true;
  std::uint64_t highest = 0;
  std::uint64_t served = 0;
  for (;;) {
    std::uint64_t id = 0;
    try {
      id = gen.next_id();
    } catch (const flakeid::segment_store_error&) {
      break;
    }
    ASSERT_EQ(id, highest + 1);
    highest = id;
    ++served;
  }
  ASSERT_EQ(served, 16 * step);
  for (int i = 0; i < 10'000; ++i)
    ASSERT_THROW((void)gen.next_id(), flakeid::segment_store_error) << "call " << i;
  ctl.failing = false;
  // The outage over, the chain goes on above what it served.
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t id = gen.next_id();
    ASSERT_GT(id, highest);
    highest = id;
  }
}

TEST(segment_chain_test, a_thread_block_holds_at_most_2_to_the_20_ids) {
  // One claim takes at most 2^20 IDs, whatever thread_block asks (see the test above).
  flakeid::memory_store store;
  constexpr std::uint64_t step = std::uint64_t{1} << 22;
  flakeid::segment_chain_generator gen{store.distributor("n"),
                                       {.segment = {.step = step}, .thread_block = step}};
  EXPECT_EQ(gen.next_id(), 1u);
  EXPECT_EQ(gen.next_id(), 2u);
  std::uint64_t other = 0;
  std::thread([&] { other = gen.next_id(); }).join();
  EXPECT_EQ(other, (std::uint64_t{1} << 20) + 1);
}

TEST(segment_chain_test, thread_blocks_give_distinct_ids_increasing_per_thread) {
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{
      store.distributor("blocks"), {.segment = {.step = 1000}, .min_ahead = 4, .thread_block = 64}};
  constexpr std::size_t threads = 4;
  constexpr std::size_t per_thread = 50'000;
  expect_distinct(
      joined_increasing(in_threads(threads, [&](std::size_t, std::vector<std::uint64_t>& ids) {
        ids.reserve(per_thread + 8);
        for (std::size_t i = 0; i < per_thread; ++i) {
          if (i % 97 == 0) {  // a batch drains the thread's block first, then goes on above it
            std::uint64_t few[5];
            gen.next_ids(few);
            ids.insert(ids.end(), few, few + 5);
          } else {
            ids.push_back(gen.next_id());
          }
        }
      })));
}

namespace {

/// A thread that runs the functions it is given, one at a time, and waits for each: steps of a
/// test that must run on one thread other than the test's own, in an exact order with it.
class stepper {
 public:
  stepper() : thread_([this] { loop(); }) {}
  ~stepper() {
    run([this] { done_ = true; });
    thread_.join();
  }
  void run(std::function<void()> f) {
    std::unique_lock lk(m_);
    job_ = std::move(f);
    cv_.notify_all();
    cv_.wait(lk, [&] { return !job_; });
  }

 private:
  void loop() {
    std::unique_lock lk(m_);
    while (!done_) {
      cv_.wait(lk, [&] { return static_cast<bool>(job_); });
      job_();
      job_ = nullptr;
      cv_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

TEST(segment_chain_test, a_thread_block_doubles_while_other_threads_claim_and_halves_alone) {
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{store.distributor("adaptive"),
                                       {.segment = {.step = 1000}, .thread_block = 8}};
  stepper other;
  // Draws on this thread (or the other) one ID per number in the ranges [from, to], in order,
  // and expects exactly those numbers.
  using ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  const auto serves = [&](bool on_other, const ranges& expected) {
    for (const auto& [from, to] : expected) {
      for (std::uint64_t want = from; want <= to; ++want) {
        std::uint64_t got = 0;
        if (on_other) {
          other.run([&] { got = gen.next_id(); });
        } else {
          got = gen.next_id();
        }
        ASSERT_EQ(got, want) << (on_other ? "on the other thread" : "on this thread");
      }
    }
  };
  serves(false, {{1, 1}});              // this thread's block: 1..8
  serves(true, {{9, 9}});               // the other's: 9..16
  serves(false, {{2, 8}, {17, 17}});    // 17..24; the other claimed since: its next claim is 16
  serves(true, {{10, 16}, {25, 25}});   // 25..32; likewise, next 16
  serves(false, {{18, 24}, {33, 33}});  // 33..48, doubled; next 32
  serves(true, {{26, 32}, {49, 49}});   // 49..64, doubled: this thread's block was 16; next 32
  // This thread alone: 65..96 (32; the other claimed since: next 64), 97..160 (64; alone from
  // now on: next 32), 161..192, 193..208 and 209..216 (8, thread_block, the least).
  serves(false, {{34, 48}, {65, 216}});
  serves(true, {{50, 64}, {217, 217}});  // the other's next block starts right above
}

TEST(segment_chain_test, a_thread_block_is_not_served_after_close) {
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{store.distributor("closing"),
                                       {.segment = {.step = 100}, .thread_block = 50}};
  EXPECT_EQ(gen.next_id(), 1u);  // takes 1..50 for this thread
  EXPECT_EQ(gen.next_id(), 2u);
  gen.close();
  EXPECT_THROW((void)gen.next_id(), flakeid::segment_closed_error);
}

TEST(segment_chain_test, a_thread_block_larger_than_a_segment_is_rejected) {
  flakeid::memory_store store;
  try {
    flakeid::segment_chain_generator gen{store.distributor("x"),
                                         {.segment = {.step = 10}, .thread_block = 11}};
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "flakeid: segment option thread_block = 11 is out of range [1, 10]");
  }
}

TEST(segment_chain_test, close_stops_the_worker_and_the_generator) {
  flakeid::memory_store store;
  std::uint64_t at_close = 0;
  {
    flakeid::segment_chain_generator gen{store.distributor("orders"),
                                         {.segment = {.step = 10}, .min_ahead = 2, .max_ahead = 2}};
    EXPECT_GE(gen.next_id(), 1u);
    ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 2; }));
    gen.close();
    at_close = store.current("orders");
    EXPECT_THROW((void)gen.next_id(), flakeid::segment_closed_error);
    gen.close();
  }
  // Checked once the generator is gone: a store call at any time after close() shows, not only
  // one within some wait.
  EXPECT_EQ(store.current("orders"), at_close) << "the worker called the store after close()";
}

TEST(segment_chain_test, expired_prefetched_segments_are_skipped) {
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 3 / 18}}};
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{
      store.distributor("n"),
      {.segment = {.step = 10, .ttl = 1s}, .min_ahead = 2, .max_ahead = 2},
      clock};
  const std::uint64_t first = gen.next_id();
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 2; }));
  const std::uint64_t reserved = store.current("n");
  clock.advance(2s);  // everything held is stale now
  const std::uint64_t after = gen.next_id();
  EXPECT_GT(after, reserved) << "an expired segment was served";
  EXPECT_GT(after, first);
}

// ---- look-ahead sizing and Leaf's dynamic step ---------------------------------------------

TEST(segment_sizing_test, the_look_ahead_covers_the_draws_of_a_round_trip_and_a_millisecond) {
  using flakeid::detail::ahead_for;
  // 2 x 2,000,000 IDs/s x (5 ms + 1 ms) = 24,000 IDs: 24 segments of 1000.
  static_assert(ahead_for(2'000'000, 5ms, 1000, 2, 1, 64) == 24);
  // 1 x 1,500,000 IDs/s x 1 ms = 1,500 IDs: rounded up to 2 segments.
  static_assert(ahead_for(1'500'000, 0ns, 1000, 1, 1, 64) == 2);
  static_assert(ahead_for(1'500'000, 0ns, 1000, 1, 3, 64) == 3, "never below min_ahead");
  static_assert(ahead_for(0, 5ms, 1000, 2, 2, 64) == 2, "nothing drawn: min_ahead");
  // 2 x 10^9 IDs/s x 2 ms = 4,000,000 IDs: 4000 segments, capped at max_ahead.
  static_assert(ahead_for(1'000'000'000, 1ms, 1000, 2, 2, 1024) == 1024);
  // Past the sizing's bounds (10^12 IDs/s, a 10 s round trip) nothing overflows.
  static_assert(ahead_for(~std::uint64_t{0}, 1h, 1, 64, 1, 65536) == 65536);
  static_assert(ahead_for(1'000'000, -3ms, 1000, 2, 1, 64) == 2, "a negative round trip is 0");
  EXPECT_EQ(ahead_for(300'000'000, 250us, 1000, 2, 2, 1024), 750u);
}

TEST(segment_sizing_test, leaf_rule_doubles_keeps_and_halves_within_its_bounds) {
  using flakeid::detail::leaf_next_step;
  constexpr std::uint64_t max = flakeid::leaf_max_step;
  static_assert(max == 1'000'000 && flakeid::leaf_segment_duration == 15min);
  // Under 15 minutes: doubled, unless that exceeds the largest step.
  static_assert(leaf_next_step(1000, 1000, 0ns, max) == 2000);
  static_assert(leaf_next_step(2000, 1000, 15min - 1ns, max) == 4000);
  static_assert(leaf_next_step(500'000, 1000, 1min, max) == 1'000'000, "reaching it is allowed");
  static_assert(leaf_next_step(512'000, 1000, 1min, max) == 512'000, "1,024,000 would exceed it");
  static_assert(leaf_next_step(4000, 1000, 1min, 4000) == 4000, "a lower cap (max_ahead)");
  // From 15 to under 30 minutes: kept.
  static_assert(leaf_next_step(4000, 1000, 15min, max) == 4000);
  static_assert(leaf_next_step(4000, 1000, 30min - 1ns, max) == 4000);
  // From 30 minutes: halved, but never below the configured step.
  static_assert(leaf_next_step(4000, 1000, 30min, max) == 2000);
  static_assert(leaf_next_step(2000, 1000, 5h, max) == 1000);
  static_assert(leaf_next_step(1000, 1000, 5h, max) == 1000);
  static_assert(leaf_next_step(1500, 1000, 1h, max) == 1500, "750 would be below 1000");
  // A configured step above the largest one is kept.
  static_assert(leaf_next_step(2'000'000, 2'000'000, 0ns, max) == 2'000'000);
}

TEST(segment_sizing_test, the_round_trip_is_an_average_from_the_second_call_on) {
  flakeid::detail::round_trip_meter rt;
  rt.add(9'000'000);  // the first call also connects: not counted
  EXPECT_EQ(rt.ns(), 0);
  rt.add(4'000'000);
  EXPECT_EQ(rt.ns(), 4'000'000);
  rt.add(8'000'000);  // a quarter of the way: 4 ms + 1 ms
  EXPECT_EQ(rt.ns(), 5'000'000);
  rt.add(-7);  // a clock stepped back during the call counts as 0
  EXPECT_EQ(rt.ns(), 3'750'000);
}

TEST(segment_sizing_test, the_draw_rate_is_the_fastest_window_halved_every_second_since) {
  flakeid::detail::draw_rate_meter m;
  constexpr std::int64_t ms = 1'000'000;
  m.start(0, 1);
  m.look(ms / 2, 11, 1000);  // shorter than a millisecond: the window stays open
  EXPECT_EQ(m.rate(ms / 2), 0u);
  m.look(10 * ms, 11, 1000);  // 10 segments of 1000 in 10 ms
  EXPECT_EQ(m.rate(10 * ms), 1'000'000u);
  m.look(1010 * ms, 11, 1000);  // a second without draws: the peak halved once
  EXPECT_EQ(m.rate(1010 * ms), 500'000u);
  m.look(1012 * ms, 13, 1000);  // 2,000 IDs in 2 ms: as fast again, the new peak
  EXPECT_EQ(m.rate(1012 * ms), 1'000'000u);
  m.look(1013 * ms, 13, 1000);
  EXPECT_EQ(m.rate(3011 * ms), 500'000u) << "1.999 s since the peak: halved once";
  EXPECT_EQ(m.rate(3012 * ms), 250'000u);
  EXPECT_EQ(m.rate(80'000 * ms), 0u);
  m.look(5 * ms, 14, 1000);  // the clock went back: a new window, the peak unchanged
  EXPECT_EQ(m.rate(1012 * ms), 1'000'000u);
  m.look(6 * ms, 14, 1000);
  EXPECT_EQ(m.rate(1012 * ms), 1'000'000u);
  m.start(0, 1);  // a look before the first segment (generation 0) counts no IDs
  m.look(2 * ms, 0, 1000);
  EXPECT_EQ(m.rate(1012 * ms), 1'000'000u);
}

TEST(segment_chain_test, the_worker_sizes_the_look_ahead_from_the_rate_on_the_chains_clock) {
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 3 / 18}}};
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{
      store.distributor("n"),
      {.segment = {.step = 100}, .min_ahead = 24, .max_ahead = 64, .refill_period = 1ms},
      clock};
  // The clock moves only while the chain is full and no caller draws, so that no store call
  // is under way then: every round trip on this clock is 0.
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 24; }));
  // 20 segments of 100 (the 2001st ID opens the 21st) while the clock stands still: no window
  // closes, whenever the worker looks; 24 segments ahead, no caller goes hungry.
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 2001; ++i) ids.push_back(gen.next_id());
  expect_strictly_increasing(ids);
  EXPECT_EQ(gen.stats().draw_rate, 0u);
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 24; }));
  clock.advance(1ms);
  // 2,000 IDs in 1 ms: 2,000,000 IDs/s; 2 x 2,000,000/s x (0 + 1 ms) = 4,000 IDs, 40 segments.
  // (The worker publishes the three one after the other: the test waits for all of them.)
  const auto shows = [&](std::uint64_t rate, std::size_t needed, std::size_t target) {
    const bool ok = eventually([&] {
      const flakeid::segment_chain_stats s = gen.stats();
      return s.draw_rate == rate && s.ahead_needed == needed && s.ahead_target == target;
    });
    const flakeid::segment_chain_stats s = gen.stats();
    EXPECT_TRUE(ok) << "draw_rate " << s.draw_rate << ", ahead_needed " << s.ahead_needed
                    << ", ahead_target " << s.ahead_target;
    return ok;
  };
  ASSERT_TRUE(shows(2'000'000, 40, 40));
  EXPECT_EQ(gen.stats().leaf_step, 0u);
  ASSERT_TRUE(eventually([&] { return gen.stats().ahead >= 40; })) << gen.stats().ahead;
  // A second without draws halves the rate: 20 segments, below min_ahead; the calm target
  // halves down to that.
  clock.advance(1s);
  ASSERT_TRUE(shows(1'000'000, 24, 24));
  EXPECT_EQ(gen.stats().round_trip, 0ns);
  EXPECT_EQ(gen.stats().hungry, 0u);
  EXPECT_EQ(gen.next_id(), ids.back() + 1);
}

/// A memory counter whose every call takes `took` on a manual clock.
class slow_distributor {
 public:
  slow_distributor(flakeid::memory_distributor inner, flakeid::manual_clock clock,
                   milliseconds took)
      : inner_(std::move(inner)), clock_(std::move(clock)), took_(took) {}
  std::uint64_t next_max_id(std::uint64_t step) {
    clock_.advance(took_);
    return inner_.next_max_id(step);
  }
  [[nodiscard]] std::string_view store_name() const { return inner_.store_name(); }
  [[nodiscard]] std::string_view key() const { return inner_.key(); }

 private:
  flakeid::memory_distributor inner_;
  flakeid::manual_clock clock_;
  milliseconds took_;
};

TEST(segment_chain_test, the_round_trip_is_timed_on_the_chains_clock) {
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 3 / 18}}};
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{slow_distributor{store.distributor("n"), clock, 3ms},
                                       {.segment = {.step = 10}, .min_ahead = 2, .max_ahead = 8},
                                       clock};
  EXPECT_EQ(gen.stats().round_trip, 0ns) << "the first call (it connects) is not counted";
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 200; ++i) ids.push_back(gen.next_id());
  expect_strictly_increasing(ids);
  // Every call took 3 ms on the chain's clock (the round trip is published just before the call
  // is counted: the test waits for both).
  EXPECT_TRUE(eventually([&] {
    return gen.stats().store_calls >= 3 && gen.stats().round_trip == 3ms;
  })) << gen.stats().round_trip.count()
      << " ns after " << gen.stats().store_calls << " calls";
}

TEST(segment_chain_test, ahead_factor_is_checked) {
  flakeid::memory_store store;
  using flakeid_test::expect_error;
  expect_error<flakeid::invalid_option_error>(
      [&] {
        flakeid::segment_chain_generator gen{store.distributor("n"), {.ahead_factor = 0}};
      },
      "flakeid: segment option ahead_factor = 0 is out of range [1, 64]");
  expect_error<flakeid::invalid_option_error>(
      [&] {
        flakeid::segment_chain_generator gen{store.distributor("n"), {.ahead_factor = 65}};
      },
      "flakeid: segment option ahead_factor = 65 is out of range [1, 64]");
  const flakeid::segment_chain_options defaults{};
  EXPECT_EQ(defaults.ahead_factor, 2u);
  EXPECT_EQ(defaults.max_ahead, 1024u);
  EXPECT_FALSE(defaults.leaf_dynamic_step);
}

TEST(segment_chain_test, leaf_dynamic_step_takes_the_steps_of_leafs_rule) {
  flakeid::memory_store store;
  // The counter after each call: the sum of the steps so far.
  flakeid_test::walk_leaf_dynamic_step(
      store.distributor("leaf"),
      [&](std::uint64_t) { return std::to_string(store.current("leaf")); },
      {"100", "300", "500", "600", "700", "900", "1300", "2100", "2900"});
}

// ---- grouped counters ----------------------------------------------------------------------

TEST(grouped_segment_test, daily_counter_restarts_at_one_after_midnight) {
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 3 / 18}} + 23h + 59min + 59s + 998ms};
  flakeid::memory_store store;
  flakeid::grouped_segment_generator gen{
      store.distributor("orders"), flakeid::group_period::day, {.step = 10}, clock};
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250318, 1}));
  EXPECT_EQ(gen.next().to_string(), "20250318-0002");
  clock.advance(1ms);
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250318, 3}));
  clock.advance(1ms);  // 2025-03-19 00:00:00.000
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250319, 1}));
  EXPECT_EQ(gen.next().to_string(), "20250319-0002");
  EXPECT_EQ(store.current("orders@20250318"), 10u);
  EXPECT_EQ(store.current("orders@20250319"), 10u);
  EXPECT_EQ(gen.key_at(clock.now()), "orders@20250319");
  // A late reading from before midnight goes on with the old day; it repeats nothing.
  clock.step_back(1ms);
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250318, 4}));
  clock.advance(1ms);
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250319, 3}));
}

TEST(grouped_segment_test, daily_counter_in_a_file_store_restarts_after_midnight) {
  temp_dir dir;
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 12 / 31}} + 23h + 59min + 59s + 999ms};
  flakeid::file_store store{dir.path};
  {
    flakeid::grouped_segment_generator gen{
        store.distributor("inv"), flakeid::group_period::day, {.step = 5}, clock};
    EXPECT_EQ(gen.next().to_string(), "20251231-0001");
    clock.advance(1ms);
    EXPECT_EQ(gen.next().to_string(), "20260101-0001");
    EXPECT_EQ(gen.next().packed(4), 202601010002u);
  }
  // A restart the same day continues above the reserved segment.
  flakeid::grouped_segment_generator again{
      store.distributor("inv"), flakeid::group_period::day, {.step = 5}, clock};
  EXPECT_EQ(again.next().to_string(), "20260101-0006");
  EXPECT_TRUE(std::filesystem::exists(dir.path / "inv@20260101.segment"));
}

TEST(grouped_segment_test, month_year_and_utc_offset) {
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 3 / 18}} + 16h};  // 2025-03-19 00:00 at UTC+8
  flakeid::memory_store store;
  flakeid::grouped_segment_generator monthly{
      store.distributor("m"), flakeid::group_period::month, {}, clock};
  flakeid::grouped_segment_generator yearly{
      store.distributor("y"), flakeid::group_period::year, {}, clock};
  flakeid::grouped_segment_generator china{
      store.distributor("c"), flakeid::group_period::day, {}, clock, 8h};
  EXPECT_EQ(monthly.next(), (flakeid::grouped_id{202503, 1}));
  EXPECT_EQ(yearly.next(), (flakeid::grouped_id{2025, 1}));
  EXPECT_EQ(china.next(), (flakeid::grouped_id{20250319, 1}));
  clock.set(sys_ms{sys_days{2025y / 4 / 1}});
  EXPECT_EQ(monthly.next(), (flakeid::grouped_id{202504, 1}));
  EXPECT_EQ(yearly.next(), (flakeid::grouped_id{2025, 2}));
  clock.set(sys_ms{sys_days{2026y / 1 / 1}});
  EXPECT_EQ(yearly.next(), (flakeid::grouped_id{2026, 1}));
  EXPECT_EQ(china.stamp_at(sys_ms{sys_days{2025y / 12 / 31}} + 15h + 59min), 20251231u);
  EXPECT_EQ(china.stamp_at(sys_ms{sys_days{2025y / 12 / 31}} + 16h), 20260101u);
}

/// A memory distributor that records every `expire_after` it is given (key and ms); copies and
/// `with_key` share the record.
class expiry_recorder {
 public:
  using log = std::vector<std::pair<std::string, std::int64_t>>;
  explicit expiry_recorder(flakeid::memory_distributor inner)
      : inner_(std::move(inner)), log_(std::make_shared<log>()) {}
  std::uint64_t next_max_id(std::uint64_t step) { return inner_.next_max_id(step); }
  [[nodiscard]] std::string_view store_name() const noexcept { return inner_.store_name(); }
  [[nodiscard]] std::string_view key() const noexcept { return inner_.key(); }
  [[nodiscard]] expiry_recorder with_key(const std::string& k) const {
    return expiry_recorder{inner_.with_key(k), log_};
  }
  void expire_after(milliseconds idle) {
    log_->emplace_back(std::string(inner_.key()), idle.count());
    inner_.expire_after(idle);
  }
  [[nodiscard]] const log& recorded() const { return *log_; }

 private:
  expiry_recorder(flakeid::memory_distributor inner, std::shared_ptr<log> l)
      : inner_(std::move(inner)), log_(std::move(l)) {}
  flakeid::memory_distributor inner_;
  std::shared_ptr<log> log_;
};

static_assert(flakeid::expiring_segment_distributor<expiry_recorder>);
static_assert(flakeid::expiring_segment_distributor<flakeid::memory_distributor>);
static_assert(flakeid::expiring_segment_distributor<flakeid::file_distributor>);
static_assert(!flakeid::expiring_segment_distributor<test_distributor>);

TEST(grouped_segment_test, period_counters_expire_whole_periods_after_their_end) {
  const sys_ms before_midnight = sys_ms{sys_days{2025y / 3 / 18}} + 23h + 59min + 59s + 998ms;
  flakeid::manual_clock clock{before_midnight};
  flakeid::memory_store store;
  const expiry_recorder days{store.distributor("d")};
  flakeid::grouped_segment_generator daily{days, flakeid::group_period::day, {}, clock};
  EXPECT_EQ(daily.next(), (flakeid::grouped_id{20250318, 1}));
  clock.advance(2ms);  // 2025-03-19 00:00:00.000
  EXPECT_EQ(daily.next(), (flakeid::grouped_id{20250319, 1}));
  // Each day's counter lives until the end of the next day: 2025-03-20 00:00, 2025-03-21 00:00.
  EXPECT_EQ(days.recorded(),
            (expiry_recorder::log{{"d@20250318", duration_cast<milliseconds>(24h + 2ms).count()},
                                  {"d@20250319", duration_cast<milliseconds>(48h).count()}}));

  // Months, kept two months after their own: March's counter until 2025-06-01 at UTC+8.
  const expiry_recorder months{store.distributor("m")};
  flakeid::grouped_segment_generator monthly{months, flakeid::group_period::month, {}, clock, 8h,
                                             2};
  EXPECT_EQ(monthly.next(), (flakeid::grouped_id{202503, 1}));
  const sys_ms june_at_utc8 = sys_ms{sys_days{2025y / 6 / 1}} - 8h;
  EXPECT_EQ(months.recorded(),
            (expiry_recorder::log{{"m@202503", (june_at_utc8 - clock.now()).count()}}));

  // Kept forever: no expiry asked.
  const expiry_recorder years{store.distributor("y")};
  flakeid::grouped_segment_generator yearly{years, flakeid::group_period::year, {}, clock,
                                            0min,  flakeid::group_keep_forever};
  EXPECT_EQ(yearly.next(), (flakeid::grouped_id{2025, 1}));
  EXPECT_TRUE(years.recorded().empty());

  flakeid_test::expect_error<flakeid::invalid_option_error>(
      [&] {
        flakeid::grouped_segment_generator too_long{
            years, flakeid::group_period::day, {}, clock, 0min, 1001};
      },
      "flakeid: grouped counter keep_periods = 1001 is out of range [0, 1000]");
}

/// A memory distributor that counts its live copies (every object, moved-from ones too) in a
/// count that `with_key` copies share.
class live_counter {
 public:
  live_counter(flakeid::memory_distributor inner, std::shared_ptr<std::atomic<int>> live)
      : inner_(std::move(inner)), live_(std::move(live)) {
    ++*live_;
  }
  live_counter(const live_counter& o) : inner_(o.inner_), live_(o.live_) { ++*live_; }
  live_counter(live_counter&& o) noexcept : inner_(o.inner_), live_(o.live_) { ++*live_; }
  live_counter& operator=(const live_counter&) = delete;
  ~live_counter() { --*live_; }
  std::uint64_t next_max_id(std::uint64_t step) { return inner_.next_max_id(step); }
  [[nodiscard]] std::string_view store_name() const noexcept { return inner_.store_name(); }
  [[nodiscard]] std::string_view key() const noexcept { return inner_.key(); }
  [[nodiscard]] live_counter with_key(const std::string& k) const {
    return live_counter{inner_.with_key(k), live_};
  }
  void expire_after(milliseconds idle) { inner_.expire_after(idle); }

 private:
  flakeid::memory_distributor inner_;
  std::shared_ptr<std::atomic<int>> live_;
};

static_assert(flakeid::expiring_segment_distributor<live_counter>);

/// A daily counter "orders" of step 10 over a memory store, on a manual clock at noon of
/// 2025-03-18, whose distributors count themselves in `live`.
struct counted_days {
  sys_ms first_day = sys_ms{sys_days{2025y / 3 / 18}} + 12h;
  flakeid::manual_clock clock{first_day};
  flakeid::memory_store store;
  std::shared_ptr<std::atomic<int>> live = std::make_shared<std::atomic<int>>(0);
  flakeid::grouped_segment_generator<live_counter, flakeid::manual_clock> gen{
      live_counter{store.distributor("orders"), live},
      flakeid::group_period::day,
      {.step = 10},
      clock};
};

TEST(grouped_segment_test, a_thousand_days_hold_two_days_of_distributors) {
  counted_days t;
  EXPECT_EQ(t.live->load(), 1);  // the base distributor
  int most = 0;
  for (int day = 0; day < 1000; ++day) {
    t.clock.set(t.first_day + days{day});
    const std::uint32_t stamp = t.gen.stamp_at(t.clock.now());
    ASSERT_EQ(t.gen.next(), (flakeid::grouped_id{stamp, 1}));
    ASSERT_EQ(t.gen.next(), (flakeid::grouped_id{stamp, 2}));
    most = std::max(most, t.live->load());
  }
  // The base distributor and two days' counters, from the second day to the thousandth.
  EXPECT_EQ(most, 3);
  EXPECT_EQ(t.live->load(), 3);
  EXPECT_EQ(t.store.current("orders@20250318"), 10U);  // the store keeps the counters
  EXPECT_EQ(t.gen.stamp_at(t.clock.now()), 20271212U);
}

TEST(grouped_segment_test, a_thousand_days_in_a_file_store_keep_the_open_files_bounded) {
  const auto open_fds = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                         std::filesystem::directory_iterator{});
  };
  // On tmpfs when there is one (a day's segment costs an fsync of the file and its directory),
  // with the counters kept (an expiring counter sweeps the directory for each new day: 1000
  // days would read it 1000 times).
  const std::filesystem::path shm = "/dev/shm";
  const temp_dir dir{
      std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path(), "days"};
  const sys_ms first_day = sys_ms{sys_days{2025y / 3 / 18}} + 12h;
  flakeid::manual_clock clock{first_day};
  flakeid::file_store store{dir.path};
  flakeid::grouped_segment_generator gen{
      store.distributor("inv"),   flakeid::group_period::day, {.step = 5}, clock, 0min,
      flakeid::group_keep_forever};
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250318, 1}));
  const auto before = open_fds();
  for (int day = 1; day < 1000; ++day) {
    clock.set(first_day + days{day});
    const std::uint32_t stamp = gen.stamp_at(clock.now());
    ASSERT_EQ(gen.next(), (flakeid::grouped_id{stamp, 1}));
    ASSERT_EQ(open_fds(), before) << "day " << day;
  }
  EXPECT_EQ(open_fds(), before);
}

TEST(grouped_segment_test, a_dropped_day_seen_again_goes_on_above_its_numbers) {
  counted_days t;
  EXPECT_EQ(t.gen.next(), (flakeid::grouped_id{20250318, 1}));
  EXPECT_EQ(t.gen.next(), (flakeid::grouped_id{20250318, 2}));
  t.clock.set(t.first_day + days{1});
  EXPECT_EQ(t.gen.next(), (flakeid::grouped_id{20250319, 1}));
  t.clock.set(t.first_day + days{2});
  EXPECT_EQ(t.gen.next(), (flakeid::grouped_id{20250320, 1}));
  EXPECT_EQ(t.live->load(), 3);  // 18 March's counter is dropped
  // The clock goes back two days: 18 March gets a new counter on the same key, which the
  // store kept at 10, so it goes on at 11 (3 to 10 are a gap), never at 1 again.
  t.clock.set(t.first_day);
  EXPECT_EQ(t.gen.next(), (flakeid::grouped_id{20250318, 11}));
  EXPECT_EQ(t.gen.next(), (flakeid::grouped_id{20250318, 12}));
  EXPECT_EQ(t.store.current("orders@20250318"), 20U);
  EXPECT_EQ(t.live->load(), 3);  // 20 March (the latest) and 18 March; 19 March is dropped
  t.clock.set(t.first_day + days{2});
  EXPECT_EQ(t.gen.next(), (flakeid::grouped_id{20250320, 2}));
  t.clock.set(t.first_day + days{1});
  EXPECT_EQ(t.gen.next(), (flakeid::grouped_id{20250319, 11}));
}

TEST(grouped_segment_test, threads_across_many_days_never_repeat_a_number) {
  const sys_ms first_day = sys_ms{sys_days{2025y / 3 / 18}} + 12h;
  flakeid::manual_clock clock{first_day};
  flakeid::memory_store store;
  flakeid::grouped_segment_generator gen{
      store.distributor("orders"), flakeid::group_period::day, {.step = 3}, clock};
  constexpr int threads = 3;
  constexpr int per_thread = 3000;
  std::vector<std::vector<flakeid::grouped_id>> got(threads);
  std::atomic<int> running{threads};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) got[static_cast<std::size_t>(t)].push_back(gen.next());
      --running;
    });
  // The days move on (and now and then back) while the threads call.
  for (int day = 1; running.load() > 0 && day < 3000; ++day)
    clock.set(first_day + days{day % 7 == 0 ? day - 3 : day});
  for (auto& th : pool) th.join();
  std::set<std::pair<std::uint32_t, std::uint64_t>> seen;
  for (const auto& v : got)
    for (const auto& n : v) EXPECT_TRUE(seen.emplace(n.stamp, n.number).second);
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(threads * per_thread));
}

TEST(memory_store_test, an_expired_counter_is_dropped_once_no_distributor_holds_it) {
  flakeid::memory_store store;
  {
    auto d = store.distributor("old");
    d.expire_after(1ms);
    EXPECT_EQ(d.next_max_id(10), 10U);
    // At least 5 ms of steady time, the counter's clock: a longer wait leaves it as expired.
    const auto since = steady_clock::now();
    while (steady_clock::now() - since < 5ms) std::this_thread::sleep_for(1ms);
    // Expired, but a distributor still holds it: kept.
    (void)store.distributor("other");
    EXPECT_EQ(store.current("old"), 10U);
    EXPECT_EQ(d.next_max_id(10), 20U);
  }
  // Held by none and past its expiry (every call set it 1 ms ahead): the next distributor call
  // drops it, and the key counts from 0 again (waited for as above).
  const auto since = steady_clock::now();
  while (steady_clock::now() - since < 5ms) std::this_thread::sleep_for(1ms);
  (void)store.distributor("other");
  EXPECT_EQ(store.current("old"), 0U);
  // A counter without expiry is never dropped.
  {
    auto keep = store.distributor("kept");
    EXPECT_EQ(keep.next_max_id(5), 5U);
  }
  (void)store.distributor("other");
  EXPECT_EQ(store.current("kept"), 5U);
  flakeid_test::expect_error<flakeid::invalid_option_error>(
      [&] { store.distributor("x").expire_after(0ms); },
      "flakeid: segment counter expire_after of 0 ms is too short: use at least 1 ms");
}

TEST(grouped_segment_test, formats) {
  const flakeid::grouped_id id{20250318, 7};
  EXPECT_EQ(id.to_string(), "20250318-0007");
  EXPECT_EQ(id.to_string(6, ""), "20250318000007");
  EXPECT_EQ((flakeid::grouped_id{20250318, 123456}).to_string(), "20250318-123456");
  EXPECT_EQ(id.packed(), 202503180007u);
  EXPECT_THROW((void)(flakeid::grouped_id{20250318, 10000}).packed(4), std::overflow_error);
  EXPECT_THROW((void)id.packed(19), std::overflow_error);
}

TEST(grouped_segment_test, four_threads_across_midnight_never_repeat) {
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 3 / 18}} + 23h + 59min + 59s};
  flakeid::memory_store store;
  flakeid::grouped_segment_generator gen{
      store.distributor("o"), flakeid::group_period::day, {.step = 16}, clock};
  const auto got = in_threads<flakeid::grouped_id>(4, [&](std::size_t t, auto& ids) {
    for (int i = 0; i < 20'000; ++i) {
      ids.push_back(gen.next());
      if (t == 0 && i % 1000 == 0) clock.advance(100ms);
    }
  });
  std::set<std::pair<std::uint32_t, std::uint64_t>> seen;
  for (auto& v : got)
    for (auto& id : v) EXPECT_TRUE(seen.emplace(id.stamp, id.number).second) << id.to_string();
  EXPECT_TRUE(seen.count({20250319, 1}) == 1);
}

// Step 1 switches segments on every ID, so the slots of the ring are reused all the time and a
// preempted caller's slot is often overwritten before it reads it: it must retry, not repeat.
TEST(segment_generator_test, step_one_under_four_threads_reuses_slots_safely) {
  flakeid::memory_store store;
  flakeid::segment_generator plain{store.distributor("p"), 1};
  flakeid::segment_chain_generator chain{store.distributor("c"),
                                         {.segment = {.step = 1}, .min_ahead = 8, .max_ahead = 64}};
  const auto got = in_threads(8, [&](std::size_t t, std::vector<std::uint64_t>& ids) {
    for (int i = 0; i < 20'000; ++i) ids.push_back(t % 2 == 0 ? plain.next_id() : chain.next_id());
  });
  std::vector<std::uint64_t> p;
  std::vector<std::uint64_t> c;
  for (std::size_t t = 0; t < 8; ++t) {
    expect_strictly_increasing(got[t]);
    (t % 2 == 0 ? p : c).insert((t % 2 == 0 ? p : c).end(), got[t].begin(), got[t].end());
  }
  expect_distinct(p);
  expect_distinct(c);
  EXPECT_LE(*std::max_element(p.begin(), p.end()), store.current("p"));
}

// ---- stride and remainder: interleaved numbers -------------------------------------------

TEST(segment_stride_test, two_stores_interleave_odd_and_even_numbers) {
  flakeid::memory_store east;
  flakeid::memory_store west;
  flakeid::segment_generator odd{east.distributor("orders"),
                                 {.step = 3, .stride = 2, .remainder = 1}};
  flakeid::segment_generator even{west.distributor("orders"),
                                  {.step = 3, .stride = 2, .remainder = 0}};
  std::vector<std::uint64_t> got_odd;
  std::vector<std::uint64_t> got_even;
  for (int i = 0; i < 7; ++i) {
    got_odd.push_back(odd.next_id());
    got_even.push_back(even.next_id());
  }
  EXPECT_EQ(got_odd, (std::vector<std::uint64_t>{1, 3, 5, 7, 9, 11, 13}));
  EXPECT_EQ(got_even, (std::vector<std::uint64_t>{2, 4, 6, 8, 10, 12, 14}));
  // A segment of 3 IDs takes 3 * 2 numbers of its store's counter: 3 segments so far.
  EXPECT_EQ(east.current("orders"), 18u);
  EXPECT_EQ(west.current("orders"), 18u);
  EXPECT_EQ(odd.store_calls(), 3u);
  EXPECT_EQ(odd.stride(), 2u);
  EXPECT_EQ(odd.remainder(), 1u);
}

TEST(segment_stride_test, different_strides_on_one_counter_take_disjoint_ranges) {
  // Every user takes whole ranges of the counter (step * stride numbers), so a plain generator,
  // a strided one and a bare store call (another service on the same counter) never meet.
  flakeid::memory_store store;
  flakeid::segment_generator plain{store.distributor("n"), {.step = 10}};
  flakeid::segment_generator strided{store.distributor("n"),
                                     {.step = 4, .stride = 3, .remainder = 2}};
  auto bare = store.distributor("n");
  EXPECT_EQ(plain.next_id(), 1u);       // takes (0, 10]
  EXPECT_EQ(strided.next_id(), 11u);    // takes (10, 22]: 11, 14, 17, 20
  EXPECT_EQ(bare.next_max_id(5), 27u);  // the other service owns (22, 27]
  EXPECT_EQ(strided.next_id(), 14u);
  EXPECT_EQ(strided.next_id(), 17u);
  EXPECT_EQ(strided.next_id(), 20u);
  EXPECT_EQ(strided.next_id(), 29u);  // (27, 39]: the first number % 3 == 2 is 29
  std::vector<std::uint64_t> ids{1, 11, 14, 17, 20, 29};
  for (int i = 0; i < 200; ++i) {
    ids.push_back(plain.next_id());
    const std::uint64_t s = strided.next_id();
    EXPECT_EQ(s % 3, 2u);
    ids.push_back(s);
    if (i % 50 == 0) {
      const std::uint64_t max = bare.next_max_id(5);
      for (std::uint64_t n = max - 4; n <= max; ++n) ids.push_back(n);
    }
  }
  expect_distinct(ids);
}

TEST(segment_stride_test, batches_and_the_chain_keep_the_remainder) {
  flakeid::memory_store store;
  flakeid::segment_generator gen{store.distributor("g"), {.step = 4, .stride = 10, .remainder = 7}};
  std::vector<std::uint64_t> batch(6);
  gen.next_ids(batch);
  EXPECT_EQ(batch, (std::vector<std::uint64_t>{7, 17, 27, 37, 47, 57}));
  EXPECT_EQ(store.current("g"), 80u);

  flakeid::segment_chain_generator chain{store.distributor("c"),
                                         {.segment = {.step = 4, .stride = 10, .remainder = 7}}};
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(chain.next_id());
  std::vector<std::uint64_t> more(30);
  chain.next_ids(more);
  ids.insert(ids.end(), more.begin(), more.end());
  expect_strictly_increasing(ids);
  EXPECT_EQ(ids.front(), 7u);
  for (const std::uint64_t id : ids) ASSERT_EQ(id % 10, 7u) << id;
}

TEST(segment_stride_test, thread_blocks_step_by_the_stride) {
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{
      store.distributor("blocks"),
      {.segment = {.step = 100, .stride = 4, .remainder = 3}, .min_ahead = 2, .thread_block = 8}};
  EXPECT_EQ(gen.next_id(), 3u);  // this thread's block: 3, 7, ... 31
  EXPECT_EQ(gen.next_id(), 7u);
  std::uint64_t few[3];
  gen.next_ids(few);
  EXPECT_EQ(few[0], 11u);
  EXPECT_EQ(few[2], 19u);
  constexpr std::size_t threads = 4;
  constexpr std::size_t per_thread = 200'000;
  const std::vector<std::uint64_t> all =
      joined_increasing(draw_together(gen, threads, per_thread), {3, 7, 11, 15, 19});
  for (const std::uint64_t id : all) ASSERT_EQ(id % 4, 3u) << id;
  expect_distinct(all);
}

TEST(segment_stride_test, grouped_counters_keep_the_remainder_in_every_period) {
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 3 / 18}} + 23h + 59min};
  flakeid::memory_store store;
  flakeid::grouped_segment_generator gen{store.distributor("orders"),
                                         flakeid::group_period::day,
                                         {.step = 2, .stride = 2, .remainder = 1},
                                         clock};
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250318, 1}));
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250318, 3}));
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250318, 5}));
  clock.advance(1min);
  EXPECT_EQ(gen.next(), (flakeid::grouped_id{20250319, 1}));
  EXPECT_EQ(store.current("orders@20250318"), 8u);
  EXPECT_EQ(store.current("orders@20250319"), 4u);
}

TEST(segment_stride_test, bad_stride_or_remainder_throws_naming_the_range) {
  flakeid::memory_store store;
  const auto message = [&](flakeid::segment_options o) -> std::string {
    try {
      flakeid::segment_generator gen{store.distributor("n"), o};
    } catch (const flakeid::invalid_option_error& e) {
      return e.what();
    }
    return "no throw";
  };
  EXPECT_EQ(message({.stride = 0}),
            "flakeid: segment option stride = 0 is out of range [1, 65536]");
  EXPECT_EQ(message({.stride = flakeid::max_segment_stride + 1}),
            "flakeid: segment option stride = 65537 is out of range [1, 65536]");
  EXPECT_EQ(message({.stride = 3, .remainder = 3}),
            "flakeid: segment option remainder = 3 is out of range [0, 2]");
  EXPECT_EQ(message({.remainder = 1}),
            "flakeid: segment option remainder = 1 is out of range [0, 0]");
  EXPECT_EQ(message({.stride = 65536, .remainder = 65535}), "no throw");
  EXPECT_THROW((flakeid::segment_chain_generator{store.distributor("n"),
                                                 {.segment = {.stride = 2, .remainder = 2}}}),
               flakeid::invalid_option_error);
  EXPECT_THROW((flakeid::grouped_segment_generator{
                   store.distributor("n"), flakeid::group_period::day, {.stride = 0}}),
               flakeid::invalid_option_error);
}

TEST(segment_stride_test, the_largest_step_and_stride_do_not_overflow) {
  // 2^31 IDs per segment, 2^16 apart: one segment spans 2^47 numbers of the counter.
  flakeid::memory_store store;
  flakeid::segment_generator gen{
      store.distributor("wide"),
      {.step = flakeid::max_segment_step, .stride = flakeid::max_segment_stride, .remainder = 5}};
  EXPECT_EQ(gen.next_id(), 5u);
  EXPECT_EQ(gen.next_id(), 5u + 65536u);
  EXPECT_EQ(store.current("wide"), std::uint64_t{1} << 47);
}

// ---- start: a counter that begins above existing rows -----------------------------------

TEST(segment_start_test, a_fresh_counter_is_raised_to_start_once) {
  flakeid::memory_store store;
  flakeid::segment_generator gen{store.distributor("orders"), {.step = 10, .start = 1001}};
  for (std::uint64_t want = 1001; want <= 1010; ++want) EXPECT_EQ(gen.next_id(), want);
  // (0, 10] was taken and skipped, the counter raised to 1000, then (1000, 1010] taken.
  EXPECT_EQ(gen.store_calls(), 3u);
  EXPECT_EQ(store.current("orders"), 1010u);
  EXPECT_EQ(gen.next_id(), 1011u);
  EXPECT_EQ(gen.store_calls(), 4u);
}

TEST(segment_start_test, a_counter_above_start_is_used_as_it_is) {
  flakeid::memory_store store;
  EXPECT_EQ(store.distributor("orders").next_max_id(5000), 5000u);
  flakeid::segment_generator gen{store.distributor("orders"), {.step = 10, .start = 1001}};
  EXPECT_EQ(gen.next_id(), 5001u);
  EXPECT_EQ(gen.store_calls(), 1u);
}

TEST(segment_start_test, a_range_across_start_is_skipped_without_raising) {
  flakeid::memory_store store;
  EXPECT_EQ(store.distributor("orders").next_max_id(995), 995u);
  flakeid::segment_generator gen{store.distributor("orders"), {.step = 10, .start = 1001}};
  EXPECT_EQ(gen.next_id(), 1006u);  // (995, 1005] reaches past 1000: skipped, no raise
  EXPECT_EQ(gen.store_calls(), 2u);
}

TEST(segment_start_test, start_with_a_stride_takes_the_first_number_with_the_remainder) {
  flakeid::memory_store store;
  flakeid::segment_generator gen{store.distributor("orders"),
                                 {.step = 5, .start = 1001, .stride = 2, .remainder = 0}};
  std::vector<std::uint64_t> ids(7);
  gen.next_ids(ids);
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{1002, 1004, 1006, 1008, 1010, 1012, 1014}));
}

TEST(segment_start_test, a_chain_starts_at_start_without_gaps) {
  flakeid::memory_store store;
  flakeid::segment_chain_generator gen{
      store.distributor("n"), {.segment = {.step = 100, .start = 1'000'001}, .min_ahead = 3}};
  std::vector<std::uint64_t> ids(1000);
  for (auto& id : ids) id = gen.next_id();
  for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], 1'000'001 + i);
}

TEST(segment_start_test, every_period_of_a_grouped_counter_starts_at_start) {
  flakeid::manual_clock clock{sys_ms{sys_days{2025y / 3 / 18}} + 23h + 59min};
  flakeid::memory_store store;
  flakeid::grouped_segment_generator gen{
      store.distributor("orders"), flakeid::group_period::day, {.step = 5, .start = 100}, clock};
  EXPECT_EQ(gen.next().to_string(), "20250318-0100");
  EXPECT_EQ(gen.next().to_string(), "20250318-0101");
  clock.advance(1min);
  EXPECT_EQ(gen.next().to_string(), "20250319-0100");
}

TEST(segment_start_test, a_store_that_does_not_raise_the_counter_is_refused) {
  // The raise of 990 answers 10 again: the store did not move the counter.
  flakeid::segment_generator gen{scripted_distributor{{10, 10}}, {.step = 10, .start = 1001}};
  flakeid_test::expect_error<flakeid::segment_store_error>(
      [&] { (void)gen.next_id(); },
      "flakeid: segment store scripted, key 'k': the store returned max 10 for step 990, which "
      "does not lie above the previous max 10; handing it out could repeat IDs");
}

// A counter that went back lost ranges: others may have handed out numbers above this
// generator's own last range. A later answer above that range proves nothing, so the generator
// stays refused. (The fault soak found it: a running process handed out again, once the wiped
// counter had climbed past its own last range, numbers another process had handed out.)
TEST(segment_start_test, a_counter_that_went_back_is_refused_for_good) {
  flakeid::segment_generator gen{scripted_distributor{{10, 20, 15, 200}}, {.step = 10}};
  for (std::uint64_t i = 1; i <= 20; ++i) ASSERT_EQ(gen.next_id(), i);
  flakeid_test::expect_error<flakeid::segment_store_error>(
      [&] { (void)gen.next_id(); },
      "flakeid: segment store scripted, key 'k': the store returned max 15 for step 10, which "
      "does not lie above the previous max 20; handing it out could repeat IDs");
  flakeid_test::expect_error<flakeid::segment_store_error>(
      [&] { (void)gen.next_id(); },
      "flakeid: segment store scripted, key 'k': the counter went back below the previous max 20 "
      "before: it may have lost ranges handed out since, so no range is taken from it again "
      "(find the highest number in use, resume the counter above it and make a new generator)");
}

TEST(segment_start_test, bad_start_throws_naming_the_range) {
  flakeid::memory_store store;
  for (const std::uint64_t start : {std::uint64_t{0}, flakeid::max_segment_start + 1})
    flakeid_test::expect_error<flakeid::invalid_option_error>(
        [&] {
          flakeid::segment_chain_generator gen{store.distributor("n"),
                                               {.segment = {.start = start}}};
        },
        "flakeid: segment option start = " + std::to_string(start) +
            " is out of range [1, 9223372036854775807]");
}
