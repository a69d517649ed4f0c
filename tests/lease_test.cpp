// The lease engine (with a scripted in-memory store), the host-local file lease (with
// separate processes) and the restart clock guard.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <flakeid/clock_guard.hpp>
#include <flakeid/flakeid.hpp>
#include <flakeid/lease.hpp>
#include <flakeid/store/file.hpp>
#include <flakeid/striped.hpp>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "adapters/expect_error.hpp"
#include "adapters/instance_scenarios.hpp"
#include "adapters/lease_scenarios.hpp"
#include "adapters/lease_support.hpp"
#include "adapters/server_support.hpp"
#include "fork_child.hpp"

namespace {

using namespace flakeid_test;

// ---- the engine, on a store the test scripts --------------------------------------------

struct scripted_store final : flakeid::lease_store {
  struct state {
    std::mutex m;
    bool reachable = true;
    bool taken = false;
    int renewals = 0;
    std::int64_t recorded = INT64_MIN;  // the deadline the store holds
    std::int64_t lost_memory_at = INT64_MIN;
    std::int64_t released = INT64_MIN;
    bool was_released = false;
    std::int64_t skip_above = INT64_MIN;         // the last claim's `skip_above`
    std::function<void()> in_renew;              // runs inside renew(), unlocked
    std::function<flakeid::lease_time()> clock;  // the store's clock (empty: it has none)
  };
  std::shared_ptr<state> s = std::make_shared<state>();
  std::string where() const override { return "scripted"; }
  std::optional<flakeid::lease_claim> do_claim(const flakeid::claim_request& r) override {
    std::lock_guard lk(s->m);
    flakeid::lease_claim c{3, time_or_none(s->recorded), time_or_none(s->lost_memory_at)};
    s->skip_above = ms_or_min(r.skip_above);
    s->recorded = std::max(s->recorded, ms_or_min(r.deadline));
    return c;
  }
  flakeid::renewal do_renew(std::uint64_t, const std::string&,
                            flakeid::lease_time deadline) override {
    std::function<void()> hook;
    {
      std::lock_guard lk(s->m);
      hook = s->in_renew;
    }
    if (hook) hook();
    std::lock_guard lk(s->m);
    if (!s->reachable) throw flakeid::lease_store_error("flakeid: scripted: unreachable");
    ++s->renewals;
    if (s->taken) return flakeid::renewal::taken;
    s->recorded = std::max(s->recorded, ms_or_min(deadline));
    return flakeid::renewal::held;
  }
  std::optional<flakeid::lease_time> do_clock() override {
    std::function<flakeid::lease_time()> c;
    {
      std::lock_guard lk(s->m);
      c = s->clock;
    }
    if (c) return c();
    return std::nullopt;
  }
  void do_release(std::uint64_t, const std::string&, flakeid::lease_time last) override {
    std::lock_guard lk(s->m);
    s->was_released = true;
    s->released = ms_or_min(last);
    s->recorded = s->released;
  }
};

flakeid::lease_options engine_options() {
  flakeid::lease_options o;
  o.name_space = "engine";
  o.ttl = 300ms;
  o.safe_guard = 100ms;
  return o;
}

/// Waits for `cond`; the limit only ends a broken run, it is no measure of speed.
bool wait_for(const std::function<bool()>& cond, std::chrono::milliseconds limit = 60s) {
  const auto end = steady::now() + limit;
  while (!cond()) {
    if (steady::now() > end) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

std::int64_t ms_of(const flakeid::manual_clock& c) { return c.now().time_since_epoch().count(); }

/// Makes the scripted store unreachable: no renewal is confirmed from now on.
void cut(const std::shared_ptr<scripted_store::state>& s) {
  std::lock_guard lk(s->m);
  s->reachable = false;
}

/// A lease on a scripted store, reading a manual clock that starts at the wall clock's time.
struct scripted {
  std::unique_ptr<scripted_store> store = std::make_unique<scripted_store>();
  std::shared_ptr<scripted_store::state> s = store->s;
  flakeid::manual_clock clk = clock_at_wall();
  flakeid::lease l;

  explicit scripted(flakeid::lease_options o = engine_options())
      : l(std::move(store), o.use_clock(clk)) {}
  /// No renewal is confirmed from now on.
  void cut() { ::cut(s); }
  /// The store says from now on that it lost its records 50 ms before the clock's reading;
  /// returns that time (Unix ms).
  std::int64_t lose_memory() {
    const std::int64_t at = ms_of(clk) - 50;
    std::lock_guard lk(s->m);
    s->lost_memory_at = at;
    return at;
  }
};

/// A scripted store and a manual clock, for a test that builds its lease itself (with a sleep
/// of its own): the store's state stays reachable through `s`.
struct scripted_parts {
  std::unique_ptr<scripted_store> store = std::make_unique<scripted_store>();
  std::shared_ptr<scripted_store::state> s = store->s;
  flakeid::manual_clock clk = clock_at_wall();
  std::int64_t t0 = ms_of(clk);
};

TEST(lease_test, records_each_deadline_before_using_it_and_the_last_timestamp_at_release) {
  scripted t;
  manual_gen gen{t.l, t.clk};
  EXPECT_EQ(gen.node(), (flakeid::node_id{0, 3}));
  const std::int64_t t0 = ms_of(t.clk);
  // The first deadline: claim time + ttl - margin (margin = ttl / 5), recorded by the claim.
  EXPECT_EQ(ms_or_min(t.l.deadline()), t0 + 240);
  {
    std::lock_guard lk(t.s->m);
    EXPECT_EQ(t.s->recorded, t0 + 240);
  }
  const std::uint64_t id = gen.next_id();
  t.clk.advance(100ms);
  ASSERT_TRUE(wait_for([&] { return ms_or_min(t.l.deadline()) == t0 + 340; }))
      << "a renewal moves the deadline to its send time + ttl - margin";
  {
    std::lock_guard lk(t.s->m);
    EXPECT_GE(t.s->recorded, ms_or_min(t.l.deadline())) << "the store holds every deadline in use";
  }
  EXPECT_TRUE(t.l.valid());
  t.l.release();
  EXPECT_TRUE(t.s->was_released);
  // Released: the clock (id + 100 ms) plus the generator's lead of one tick.
  EXPECT_EQ(t.s->released, ts_of(id) + 101);
  EXPECT_FALSE(t.l.deadline().has_value());
  EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
}

// ---- the comparison with the store's clock (max_skew) ------------------------------------

TEST(lease_skew_test, the_readings_are_judged_at_their_bounds) {
  using flakeid::detail::skew_verdict;
  const flakeid::lease_time s{1'000'000ms};
  const auto reading = [&](int before, int after) {
    return flakeid::detail::skew_reading{s + std::chrono::milliseconds{before}, s,
                                         s + std::chrono::milliseconds{after}};
  };
  const auto judge = [&](int before, int after) {
    return flakeid::detail::judge_skew(reading(before, after), 100ms);
  };
  EXPECT_EQ(judge(-100, 100), skew_verdict::within);
  EXPECT_EQ(judge(100, 100), skew_verdict::within);
  EXPECT_EQ(judge(-100, -100), skew_verdict::within);
  EXPECT_EQ(judge(101, 101), skew_verdict::ahead);
  EXPECT_EQ(judge(-101, -101), skew_verdict::behind);
  EXPECT_EQ(judge(-101, 0), skew_verdict::unsure) << "the answer took 101 ms";
  EXPECT_EQ(judge(0, 101), skew_verdict::unsure);
  EXPECT_EQ(judge(50, 40), skew_verdict::unsure) << "this clock went back between its readings";
  EXPECT_EQ(flakeid::detail::skew_of(reading(-20, 60)), 20ms);
}

TEST(lease_skew_test, max_skew_is_half_the_safe_guard_unless_set) {
  flakeid::lease_options o;
  EXPECT_EQ(flakeid::detail::max_skew_of(o), 1000ms);
  o.safe_guard = 1ms;
  EXPECT_EQ(flakeid::detail::max_skew_of(o), flakeid::lease_options::skew_unchecked)
      << "a safe_guard under 2 ms says the clocks agree exactly";
  o.max_skew = 40ms;
  EXPECT_EQ(flakeid::detail::max_skew_of(o), 40ms);
  o.max_skew = -1ms;
  expect_error<flakeid::invalid_option_error>(
      [&] {
        flakeid::lease l{std::make_unique<scripted_store>(), o};
      },
      "flakeid: lease max_skew of -1 ms is negative: use 0 or more");
}

/// The store's clock reads the manual clock `clk` less `behind`.
std::function<flakeid::lease_time()> clock_behind(
    const flakeid::manual_clock& clk, std::shared_ptr<std::atomic<std::int64_t>> behind) {
  return [clk, behind] {
    return std::chrono::time_point_cast<std::chrono::milliseconds>(clk.now()) -
           std::chrono::milliseconds{behind->load()};
  };
}

TEST(lease_skew_test, a_clock_an_hour_off_the_stores_takes_no_id) {
  for (const std::int64_t off : {3'600'000, -3'600'000}) {
    auto store = std::make_unique<scripted_store>();
    const auto s = store->s;
    const flakeid::manual_clock clk = clock_at_wall();
    s->clock = clock_behind(clk, std::make_shared<std::atomic<std::int64_t>>(off));
    flakeid::lease l{std::move(store), engine_options().use_clock(clk)};
    try {
      (void)l.acquire(4);
      ADD_FAILURE() << "acquired on a clock " << off << " ms off";
    } catch (const flakeid::clock_skew_error& e) {
      EXPECT_EQ(e.skew(), std::chrono::milliseconds{off});
      EXPECT_EQ(std::string(e.what()),
                "flakeid: this clock is 3600000 ms " +
                    std::string(off > 0 ? "ahead of" : "behind") +
                    " the clock of scripted (Unix ms " + std::to_string(ms_of(clk) - off) +
                    " there); a lease accepts at most 50 ms either way (max_skew, by default "
                    "safe_guard / 2): set this host's clock right (NTP) or raise safe_guard");
    }
    const std::lock_guard lk(s->m);
    EXPECT_EQ(s->recorded, INT64_MIN) << "a claim was made";
  }
}

TEST(lease_skew_test, an_answer_too_slow_to_judge_is_asked_again_then_refused) {
  for (const int slow_answers : {1'000'000, 1}) {
    auto store = std::make_unique<scripted_store>();
    const auto s = store->s;
    flakeid::manual_clock clk = clock_at_wall();
    const auto calls = std::make_shared<std::atomic<int>>(0);
    // The store reads its clock as this one reads, then answers 101 ms later (this clock's
    // next reading): 101 ms after the store's, more than max_skew (50 ms).
    s->clock = [clk, calls, slow_answers]() mutable {
      const auto at = std::chrono::time_point_cast<std::chrono::milliseconds>(clk.now());
      if (calls->fetch_add(1) < slow_answers) clk.advance(101ms);
      return at;
    };
    auto o = engine_options();
    o.connect_timeout = 100ms;  // a claim asks for this long (and at least three times)
    flakeid::lease l{std::move(store), o.use_clock(clk)};
    if (slow_answers == 1) {
      EXPECT_EQ(l.acquire(4), 3U) << "the second reading is judged";
      EXPECT_EQ(calls->load(), 2);
      continue;
    }
    try {
      (void)l.acquire(4);
      ADD_FAILURE() << "acquired on answers too slow to judge";
    } catch (const flakeid::clock_skew_error& e) {
      EXPECT_GE(calls->load(), 3);
      EXPECT_EQ(e.skew(), 50ms) << "this clock at the midpoint of its readings, less the store's";
      EXPECT_STREQ(e.what(),
                   "flakeid: this clock could not be compared with the clock of scripted: its "
                   "readings before and after the store's lie 101 ms apart; a lease accepts at "
                   "most 50 ms either way (max_skew, by default safe_guard / 2), so the store "
                   "must answer within twice that (a slow answer, or this process paused)");
    }
    const std::lock_guard lk(s->m);
    EXPECT_EQ(s->recorded, INT64_MIN) << "a claim was made";
  }
}

TEST(lease_skew_test, a_claim_asking_the_stores_clock_again_lets_go_of_the_lease_meanwhile) {
  auto store = std::make_unique<scripted_store>();
  const auto s = store->s;
  flakeid::manual_clock clk = clock_at_wall();
  const auto calls = std::make_shared<std::atomic<int>>(0);
  const auto slow = std::make_shared<std::atomic<bool>>(true);
  // Answers 101 ms late (more than twice max_skew) until `slow` is cleared.
  s->clock = [clk, calls, slow]() mutable {
    const auto at = std::chrono::time_point_cast<std::chrono::milliseconds>(clk.now());
    if (slow->load()) clk.advance(101ms);
    calls->fetch_add(1);
    return at;
  };
  auto o = engine_options();
  o.connect_timeout = 10min;  // the claim asks again for this long
  flakeid::lease l{std::move(store), o.use_clock(clk)};
  std::uint64_t id = 0;
  std::string error;
  std::thread claimer([&] { error = message_of([&] { id = l.acquire(4); }); });
  // From the third slow answer on, the claim waits between tries; the lease's lock must be free
  // meanwhile, so `lost()` answers while the claim goes on (else it would wait for the claim to
  // give up, ten minutes on).
  ASSERT_TRUE(wait_for([&] { return calls->load() >= 3; }));
  EXPECT_FALSE(l.lost());
  EXPECT_FALSE(l.previous_last().has_value());
  slow->store(false);
  claimer.join();
  EXPECT_EQ(error, "");
  EXPECT_EQ(id, 3U);
}

TEST(lease_skew_test, renewals_on_a_clock_off_the_stores_are_refused_until_it_is_back) {
  auto store = std::make_unique<scripted_store>();
  const auto s = store->s;
  flakeid::manual_clock clk = clock_at_wall();
  const auto behind = std::make_shared<std::atomic<std::int64_t>>(0);
  s->clock = clock_behind(clk, behind);
  auto o = engine_options();
  using flakeid::lease_event;
  const event_details events{lease_event::renew_failed, lease_event::suspended,
                             lease_event::resumed};
  events.watch(o);
  flakeid::lease l{std::move(store), o.use_clock(clk)};
  manual_gen gen{l, clk};
  (void)gen.next_id();
  const std::int64_t t0 = ms_of(clk);
  ASSERT_EQ(ms_or_min(l.deadline()), t0 + 240);
  behind->store(1000);  // the store's clock falls 1 s behind: this one is 1 s ahead
  EXPECT_EQ(events.wait_for(lease_event::renew_failed, "flakeid: this clock"),
            "flakeid: this clock is 1000 ms ahead of the clock of scripted (Unix ms " +
                std::to_string(t0 - 1000) +
                " there); a lease accepts at most 50 ms either way (max_skew, by default "
                "safe_guard / 2): set this host's clock right (NTP) or raise safe_guard");
  EXPECT_EQ(ms_or_min(l.deadline()), t0 + 240) << "the deadline rose on a clock off the store's";
  clk.advance(300ms);  // past the deadline
  EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
  EXPECT_EQ(events.wait_for(lease_event::suspended, "worker id 3"),
            "worker id 3: renewal not confirmed by its deadline");
  behind->store(0);  // back
  EXPECT_EQ(events.wait_for(lease_event::resumed, "worker id 3"), "worker id 3");
  EXPECT_EQ(ms_or_min(l.deadline()), t0 + 300 + 240);
  EXPECT_NO_THROW((void)gen.next_id());
}

TEST(lease_skew_test, a_renewal_too_slow_to_judge_keeps_the_record_but_not_the_deadline) {
  auto store = std::make_unique<scripted_store>();
  const auto s = store->s;
  flakeid::manual_clock clk = clock_at_wall();
  s->clock = clock_behind(clk, std::make_shared<std::atomic<std::int64_t>>(0));
  auto o = engine_options();
  const event_details failed{flakeid::lease_event::renew_failed};
  failed.watch(o);
  flakeid::lease l{std::move(store), o.use_clock(clk)};
  ASSERT_EQ(l.acquire(4), 3U);
  const std::int64_t t0 = ms_of(clk);
  ASSERT_EQ(ms_or_min(l.deadline()), t0 + 240);
  {
    // From now on the store answers its clock 101 ms late: more than twice max_skew (50 ms).
    const std::lock_guard lk(s->m);
    s->clock = [clk]() mutable {
      const auto at = std::chrono::time_point_cast<std::chrono::milliseconds>(clk.now());
      clk.advance(101ms);
      return at;
    };
  }
  EXPECT_NE(failed.wait_for("could not be compared"), "");
  const std::lock_guard lk(s->m);
  EXPECT_GT(s->recorded, t0 + 240) << "the store's record was renewed";
  EXPECT_EQ(ms_or_min(l.deadline()), t0 + 240) << "the fence took an unconfirmed deadline";
}

// A holder whose renewals stop is refused from its deadline onward, on every generator kind.
template <class Gen>
void refused_from_the_deadline() {
  scripted t;
  Gen gen{t.l, t.clk};
  t.cut();  // no renewal is ever confirmed again
  const std::int64_t deadline = ms_or_min(t.l.deadline());
  std::set<std::uint64_t> ids;
  bool refused = false;
  for (int i = 0; i < 100'000 && !refused; ++i) {
    try {
      const std::uint64_t id = gen.next_id();
      EXPECT_LT(Gen::decompose(id).timestamp.time_since_epoch().count(), deadline);
      EXPECT_TRUE(ids.insert(id).second);
      if (i % 64 == 0) t.clk.advance(1ms);
    } catch (const flakeid::lease_lost_error& e) {
      refused = true;
      EXPECT_NE(std::string(e.what()).find("it holds until " + std::to_string(deadline)),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_TRUE(refused);
  EXPECT_GE(ids.size(), 64U);
  EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error) << "and stays refused";
}

using borrowing = flakeid::basic_snowflake<
    flakeid::layouts::twitter, flakeid::manual_clock,
    flakeid::policies<flakeid::zero_start, flakeid::borrow_ticks<5000>, flakeid::throw_on_backwards,
                      flakeid::multi_threaded>>;
using cosid_manual = flakeid::cosid_snowflake<flakeid::layouts::cosid, flakeid::manual_clock>;
using holding = flakeid::basic_snowflake<
    flakeid::layouts::twitter, flakeid::manual_clock,
    flakeid::policies<flakeid::zero_start, flakeid::wait_next_tick,
                      flakeid::hold_on_backwards<10'000>, flakeid::multi_threaded>>;

TEST(lease_fence_test, classic_is_refused_from_its_deadline) {
  refused_from_the_deadline<manual_gen>();
}
TEST(lease_fence_test, cosid_reset_is_refused_from_its_deadline) {
  refused_from_the_deadline<cosid_manual>();
}
TEST(lease_fence_test, hold_on_backwards_is_refused_from_its_deadline) {
  refused_from_the_deadline<holding>();
}

TEST(lease_fence_test, borrowing_stops_at_the_deadline_although_the_clock_is_behind_it) {
  scripted t;
  borrowing gen{t.l, t.clk};
  t.cut();
  const std::int64_t deadline = ms_or_min(t.l.deadline());
  std::uint64_t last = 0;
  // The clock stands still; 4,096 IDs a tick: the generator borrows ahead, up to the deadline.
  std::size_t n = 0;
  try {
    for (;; ++n) last = gen.next_id();
  } catch (const flakeid::lease_lost_error&) {
  }
  EXPECT_EQ(ts_of(last), deadline - 1) << "the last tick before the deadline";
  EXPECT_EQ(n, 4096U * static_cast<std::size_t>(deadline - ms_of(t.clk)));
  EXPECT_LT(ms_of(t.clk), deadline) << "the clock never moved";
}

TEST(lease_fence_test, gene_generator_is_refused_from_its_deadline) {
  using gene_manual = flakeid::gene_snowflake<flakeid::layouts::seed_gene, flakeid::manual_clock>;
  scripted t;
  gene_manual gen{t.l, t.clk};
  t.cut();
  const std::int64_t deadline = ms_or_min(t.l.deadline());
  t.clk.set(flakeid::manual_clock::time_point{std::chrono::milliseconds{deadline - 1}});
  const std::uint64_t id = gen.next_id(12345);
  EXPECT_EQ(gene_manual::decompose(id).timestamp.time_since_epoch().count(), deadline - 1);
  t.clk.advance(1ms);
  EXPECT_THROW((void)gen.next_id(12345), flakeid::lease_lost_error);
  EXPECT_THROW((void)gen.next_id(7), flakeid::lease_lost_error) << "every gene is fenced";
}

TEST(lease_fence_test, striped_stripes_share_the_fence) {
  using striped = flakeid::striped_snowflake<flakeid::layouts::twitter, flakeid::manual_clock, 2>;
  scripted t;
  striped gen{t.l, t.clk};
  EXPECT_EQ(gen.stripe(0).node(), (flakeid::node_id{0, 3 << 2}));
  EXPECT_EQ(gen.stripe(3).node(), (flakeid::node_id{0, (3 << 2) | 3}));
  t.cut();
  t.clk.set(*t.l.deadline());
  for (std::size_t i = 0; i < striped::stripe_count; ++i)
    EXPECT_THROW((void)gen.stripe(i).next_id(), flakeid::lease_lost_error) << i;
}

TEST(lease_fence_test, tick_generator_is_refused_from_its_deadline) {
  // The tick clock counts real time: the holder runs into its deadline within ttl - margin.
  auto store = std::make_unique<scripted_store>();
  auto s = store->s;
  const flakeid::tick_clock tc;
  auto o = engine_options();
  o.use_clock(tc);
  flakeid::lease l{std::move(store), o};
  flakeid::tick_snowflake<> gen{l, tc};
  cut(s);
  const std::int64_t deadline = ms_or_min(l.deadline());
  std::uint64_t last = 0;
  bool refused = false;
  for (const auto end = steady::now() + 60s; !refused && steady::now() < end;) {
    try {
      last = gen.next_id();
      ASSERT_LT(ts_of(last), deadline);
    } catch (const flakeid::lease_lost_error&) {
      refused = true;
    }
  }
  EXPECT_TRUE(refused);
  EXPECT_NE(last, 0U);
}

TEST(lease_fence_test, a_new_holder_mints_only_above_the_old_deadline_plus_safe_guard) {
  scripted t;
  const std::int64_t old_deadline = ms_of(t.clk) + 500;
  {
    std::lock_guard lk(t.s->m);
    t.s->recorded = old_deadline;
  }
  manual_gen gen{t.l, t.clk};
  EXPECT_EQ(ms_or_min(t.l.not_after()), old_deadline + 100);
  EXPECT_EQ(ts_of(gen.next_id()), old_deadline + 101) << "waited for the clock to pass it";
  EXPECT_GT(ms_or_min(t.l.deadline()), ms_of(t.clk)) << "acquire returns on a valid fence";
}

/// The defaults' proportions: safe_guard (2 s) longer than max_wait (1 s).
flakeid::lease_options guard_longer_than_max_wait() {
  auto o = engine_options();
  o.safe_guard = 2'000ms;
  o.max_wait = 1'000ms;
  return o;
}

/// Makes the scripted store hold a deadline `ahead` of the lease's clock; returns the clock's
/// reading.
std::int64_t record_ahead(scripted& t, std::chrono::milliseconds ahead) {
  const std::int64_t now = ms_of(t.clk);
  std::lock_guard lk(t.s->m);
  t.s->recorded = now + ahead.count();
  return now;
}

TEST(lease_fence_test, after_a_wait_acquire_renews_so_the_deadline_lies_a_full_span_ahead) {
  // ttl 300 ms, margin 60 ms: a claim's deadline lies 240 ms ahead of its send time.
  {
    // The record lies 100 ms ahead and the guard is 100 ms: acquire waits until t0 + 201. The
    // claim's deadline (t0 + 240) is still valid then, but the generator starts on a renewal
    // sent at the end of the wait.
    scripted t;
    const std::int64_t t0 = record_ahead(t, 100ms);
    EXPECT_EQ(t.l.acquire(1), 3U);
    EXPECT_EQ(ms_of(t.clk), t0 + 201);
    EXPECT_EQ(ms_or_min(t.l.deadline()), t0 + 201 + 240);
  }
  {
    // Nothing to wait for: the claim's deadline serves (a renewal on this clock, which stands
    // still, would give the same one).
    scripted t;
    const std::int64_t t0 = ms_of(t.clk);
    EXPECT_EQ(t.l.acquire(1), 3U);
    EXPECT_EQ(ms_or_min(t.l.deadline()), t0 + 240);
  }
}

TEST(lease_fence_test, renew_now_sends_a_renewal_and_returns_on_its_confirmation) {
  scripted t;
  EXPECT_THROW(
      {
        try {
          t.l.renew_now();
        } catch (const flakeid::worker_id_error& e) {
          EXPECT_STREQ(e.what(), "flakeid: this lease holds no worker id to renew");
          throw;
        }
      },
      flakeid::worker_id_error);
  const std::int64_t t0 = ms_of(t.clk);
  EXPECT_EQ(t.l.acquire(1), 3U);
  const int before = [&] {
    std::lock_guard lk(t.s->m);
    return t.s->renewals;
  }();
  t.clk.advance(50ms);
  t.l.renew_now();
  // Returned only once the store confirmed a renewal sent at t0 + 50: the deadline is its.
  EXPECT_EQ(ms_or_min(t.l.deadline()), t0 + 50 + 240);
  {
    std::lock_guard lk(t.s->m);
    EXPECT_GT(t.s->renewals, before);
    EXPECT_EQ(t.s->recorded, t0 + 50 + 240);
  }
  t.l.release();
  EXPECT_THROW(t.l.renew_now(), flakeid::worker_id_error);
}

TEST(lease_fence_test, a_renewal_asked_for_while_one_is_in_flight_is_sent_after_it) {
  // ttl 300 ms, margin 60 ms: the renewer sends every 100 ms, each deadline 240 ms after the
  // send time. The store holds a record 100 ms ahead, so acquire waits for the clock (to
  // p.t0 + 201) and then asks for a renewal. The renewer's periodic renewal, sent at p.t0 before
  // the wait ended, is held in the store until the wait is over: it does not answer the
  // request (its deadline, p.t0 + 240, counts from before the wait); the renewer sends another
  // after it, and acquire returns on that one's deadline.
  scripted_parts p;
  {
    std::lock_guard lk(p.s->m);
    p.s->recorded = p.t0 + 100;
  }
  std::mutex m;
  std::condition_variable cv;
  bool in_flight = false;                // the periodic renewal is in the store
  bool waited = false;                   // acquire's wait is over
  std::vector<std::int64_t> renewed_at;  // the clock when each renewal reached the store
  {
    std::lock_guard lk(p.s->m);
    p.s->in_renew = [&] {
      std::unique_lock hold(m);
      renewed_at.push_back(ms_of(p.clk));
      if (renewed_at.size() > 1) return;
      in_flight = true;
      cv.notify_all();
      cv.wait(hold, [&] { return waited; });
      // Gives acquire, which the end of the wait let go on, time to ask for its renewal before
      // this one answers. (Should it ask later, the request finds no renewal in flight and the
      // test checks less, but still passes.)
      hold.unlock();
      for (int i = 0; i < 1000; ++i) std::this_thread::yield();
    };
  }
  auto o = engine_options();
  o.use_clock(p.clk);
  o.sleep = [&](std::chrono::milliseconds d) {
    // The wait lasts until the periodic renewal is in flight (the renewer sends it 100 ms of
    // steady time after the claim), then moves the clock on.
    std::unique_lock hold(m);
    cv.wait(hold, [&] { return in_flight; });
    p.clk.advance(d);
    waited = true;
    cv.notify_all();
  };
  flakeid::lease l{std::move(p.store), o};
  EXPECT_EQ(l.acquire(1), 3U);
  EXPECT_EQ(ms_of(p.clk), p.t0 + 201);
  EXPECT_EQ(ms_or_min(l.deadline()), p.t0 + 201 + 240)
      << "acquire returned on the renewal sent before its request";
  std::lock_guard lk(m);
  ASSERT_GE(renewed_at.size(), 2U);
  EXPECT_EQ(renewed_at[0], p.t0);
  EXPECT_EQ(renewed_at[1], p.t0 + 201);
}

TEST(lease_fence_test, an_id_let_go_a_moment_ago_is_taken_after_a_guard_longer_than_max_wait) {
  // The previous holder released the only id at this very moment: the new holder waits for
  // the guard.
  scripted t{guard_longer_than_max_wait()};
  const std::int64_t t0 = record_ahead(t, 0ms);
  manual_gen gen{t.l, t.clk};
  EXPECT_EQ(ms_or_min(t.l.not_after()), t0 + 2'000);
  EXPECT_EQ(ts_of(gen.next_id()), t0 + 2'001);
  EXPECT_TRUE(t.l.valid());
}

TEST(lease_fence_test, max_wait_bounds_how_far_the_record_lies_ahead_and_the_guard_comes_on_top) {
  {
    // Exactly max_wait ahead: waited for, then the guard.
    scripted t{guard_longer_than_max_wait()};
    const std::int64_t t0 = record_ahead(t, 1'000ms);
    EXPECT_EQ(t.l.acquire(1), 3U);
    EXPECT_EQ(ms_of(t.clk), t0 + 3'001);
    EXPECT_EQ(ms_or_min(t.l.not_after()), t0 + 3'000);
  }
  {
    // 1 ms further: this clock is behind the record; refused at once, naming both bounds.
    scripted t{guard_longer_than_max_wait()};
    const std::int64_t t0 = record_ahead(t, 1'001ms);
    try {
      (void)t.l.acquire(1);
      ADD_FAILURE() << "acquired an id recorded 1001 ms ahead with max_wait 1000 ms";
    } catch (const flakeid::clock_backwards_error& e) {
      EXPECT_EQ(std::string(e.what()),
                "flakeid: worker id 3 in namespace engine was last used up to Unix ms " +
                    std::to_string(t0 + 1'001) +
                    ", 1001 ms ahead of this clock; the lease waits up to 1000 ms for that, then "
                    "safe_guard (2000 ms)");
      EXPECT_EQ(e.step(), 1'001ms);
    }
    EXPECT_EQ(ms_of(t.clk), t0) << "refused without waiting";
    EXPECT_TRUE(t.s->was_released) << "the id taken is given back with its record";
    EXPECT_EQ(t.s->released, t0 + 1'001);
  }
  {
    // Of several ids, a claim skips those whose record plus safe_guard lies more than max_wait
    // ahead (another id is taken without a wait that long).
    scripted t{guard_longer_than_max_wait()};
    const std::int64_t t0 = ms_of(t.clk);
    (void)t.l.acquire(8);
    EXPECT_EQ(t.s->skip_above, t0 - 1'000);
  }
  {
    // A single id: no record is skipped.
    scripted t{guard_longer_than_max_wait()};
    (void)t.l.acquire(1);
    EXPECT_EQ(t.s->skip_above, INT64_MAX);
  }
}

TEST(lease_fence_test, a_store_that_lost_its_memory_makes_the_claimer_wait_ttl_plus_guard) {
  scripted t;
  const std::int64_t lost_at = t.lose_memory();
  manual_gen gen{t.l, t.clk};
  EXPECT_EQ(ms_or_min(t.l.not_after()), lost_at + 300 + 100);
  EXPECT_EQ(ts_of(gen.next_id()), lost_at + 401);
}

TEST(lease_fence_test, a_claim_taken_while_it_waits_ends_the_wait_at_the_next_renewal) {
  // The store lost its memory, so the claim may mint only ttl + safe_guard (400 ms) later, and
  // waits a renewal period (100 ms on the manual clock) at a time. During the first period the
  // store forgets the claim as well (the renewal answers taken): acquire says so once that
  // period is over, and does not sleep out the rest of the wait before a new claim may start.
  scripted_parts p;
  {
    std::lock_guard lk(p.s->m);
    p.s->lost_memory_at = p.t0 - 50;
  }
  auto o = engine_options();
  o.use_clock(p.clk);
  std::vector<std::int64_t> slept;
  const flakeid::lease* seen = nullptr;
  o.sleep = [&](std::chrono::milliseconds d) {
    slept.push_back(d.count());
    if (slept.size() == 1) {
      {
        std::lock_guard lk(p.s->m);
        p.s->taken = true;
      }
      EXPECT_TRUE(wait_for([&] { return seen->lost(); })) << "the renewer's next renewal";
    }
    p.clk.advance(d);
  };
  flakeid::lease l{std::move(p.store), o};
  seen = &l;
  try {
    (void)l.acquire(1);
    ADD_FAILURE() << "acquired a claim the store forgot";
  } catch (const flakeid::worker_id_error& e) {
    EXPECT_STREQ(e.what(), "flakeid: worker id 3 was lost while waiting (scripted)");
  }
  EXPECT_EQ(slept, (std::vector<std::int64_t>{100})) << "one renewal period, not the whole wait";
  EXPECT_EQ(ms_of(p.clk), p.t0 + 100);
}

TEST(lease_fence_test, a_wait_over_a_second_is_announced_with_its_reason) {
  // The claim may mint only ttl + safe_guard after the store lost its memory: 2,450 ms from now
  // on the manual clock, which only the wait moves. The announcement says how long and why.
  std::vector<std::pair<flakeid::lease_event, std::string>> events;
  std::mutex em;
  auto o = engine_options();
  o.ttl = 2000ms;
  o.safe_guard = 500ms;
  o.on_event = [&](flakeid::lease_event e, const std::string& d) {
    std::lock_guard lk(em);
    events.emplace_back(e, d);
  };
  scripted t{o};
  const std::int64_t lost_at = t.lose_memory();
  manual_gen gen{t.l, t.clk};
  EXPECT_EQ(ts_of(gen.next_id()), lost_at + 2501);
  std::lock_guard lk(em);
  const auto w = std::find_if(events.begin(), events.end(), [](const auto& e) {
    return e.first == flakeid::lease_event::waiting;
  });
  ASSERT_NE(w, events.end());
  EXPECT_EQ(w->second,
            "worker id 3 waits 2450 ms before it mints: the store may have lost its records "
            "(ttl + safe_guard, 2500 ms, from Unix ms " +
                std::to_string(lost_at) + ") (scripted)");
  EXPECT_EQ(to_string(flakeid::lease_event::waiting), "waiting");
}

TEST(lease_fence_test, a_wait_of_a_second_or_less_is_not_announced) {
  std::vector<flakeid::lease_event> events;
  std::mutex em;
  auto o = engine_options();  // ttl 300 ms, safe_guard 100 ms: a wait of 350 ms
  o.on_event = [&](flakeid::lease_event e, const std::string&) {
    std::lock_guard lk(em);
    events.push_back(e);
  };
  scripted t{o};
  const std::int64_t lost_at = t.lose_memory();
  manual_gen gen{t.l, t.clk};
  EXPECT_EQ(ts_of(gen.next_id()), lost_at + 401);
  std::lock_guard lk(em);
  EXPECT_EQ(std::count(events.begin(), events.end(), flakeid::lease_event::waiting), 0);
  EXPECT_EQ(std::count(events.begin(), events.end(), flakeid::lease_event::acquired), 1);
}

TEST(lease_fence_test, acquire_never_returns_on_an_expired_fence) {
  // The previous deadline lies 900 ms ahead: longer than ttl - margin (240 ms). The claim's
  // own deadline has passed when the wait ends, so acquire renews before returning.
  scripted t;
  {
    std::lock_guard lk(t.s->m);
    t.s->recorded = ms_of(t.clk) + 800;
  }
  (void)t.l.acquire(1);
  EXPECT_GT(ms_or_min(t.l.deadline()), ms_of(t.clk));
  EXPECT_TRUE(t.l.valid());
}

TEST(lease_fence_test, a_release_racing_a_renewal_leaves_the_fence_down) {
  for (int round = 0; round < 20; ++round) {
    auto o = engine_options();
    o.ttl = 30ms;  // renewals every 10 ms
    scripted t{o};
    manual_gen gen{t.l, t.clk};
    // The renewal answers "held" only after release() has dropped the fence.
    std::atomic<bool> in_renew{false};
    {
      std::lock_guard lk(t.s->m);
      t.s->in_renew = [&] {
        in_renew.store(true);
        while (t.l.deadline()) std::this_thread::yield();
      };
    }
    while (!in_renew.load()) std::this_thread::yield();
    t.l.release();
    EXPECT_FALSE(t.l.deadline().has_value()) << "round " << round;
    EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error) << "round " << round;
  }
}

TEST(lease_test, refuses_when_unconfirmed_and_resumes_when_renewed_again) {
  std::vector<flakeid::lease_event> events;
  std::mutex em;
  auto o = engine_options();
  o.on_event = [&](flakeid::lease_event e, const std::string&) {
    std::lock_guard lk(em);
    events.push_back(e);
  };
  scripted t{o};
  manual_gen gen{t.l, t.clk};
  (void)gen.next_id();
  t.cut();
  t.clk.set(*t.l.deadline());
  EXPECT_FALSE(t.l.valid());
  EXPECT_THROW((void)gen.next_id(), flakeid::lease_lost_error);
  auto seen = [&](flakeid::lease_event e) {
    std::lock_guard lk(em);
    return std::find(events.begin(), events.end(), e) != events.end();
  };
  ASSERT_TRUE(wait_for([&] { return seen(flakeid::lease_event::suspended); }));
  {
    std::lock_guard lk(t.s->m);
    t.s->reachable = true;
  }
  ASSERT_TRUE(wait_for([&] { return t.l.valid(); }));
  EXPECT_NO_THROW((void)gen.next_id());
  EXPECT_TRUE(seen(flakeid::lease_event::renew_failed));
  EXPECT_TRUE(wait_for([&] { return seen(flakeid::lease_event::resumed); }));
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
  ASSERT_TRUE(wait_for([&] { return l.lost(); }));
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

// ---- stable instances, on a store the test scripts --------------------------------------

/// A store whose only answer about the instance's id (5) is what the test sets: held by another
/// holder (alive or not, its deadline `recorded`), or free.
struct instance_store final : flakeid::lease_store {
  struct state {
    std::mutex m;
    bool held = true;
    bool alive = false;
    std::int64_t recorded = INT64_MIN;
    int claims = 0;
    std::function<void(state&)> on_claim;  // runs at the start of every claim, locked
  };
  std::shared_ptr<state> s = std::make_shared<state>();
  std::string where() const override { return "scripted"; }
  std::optional<flakeid::lease_claim> do_claim(const flakeid::claim_request& r) override {
    std::lock_guard lk(s->m);
    ++s->claims;
    if (s->on_claim) s->on_claim(*s);
    flakeid::lease_claim c;
    c.id = 5;
    c.last = time_or_none(s->recorded);
    if (s->held) {
      c.held_by_instance = true;
      c.holder_alive = s->alive;
      return c;
    }
    c.own_instance = !r.instance.empty();
    s->recorded = std::max(s->recorded, ms_or_min(r.deadline));
    return c;
  }
  flakeid::renewal do_renew(std::uint64_t, const std::string&, flakeid::lease_time d) override {
    std::lock_guard lk(s->m);
    s->recorded = std::max(s->recorded, ms_or_min(d));
    return flakeid::renewal::held;
  }
  void do_release(std::uint64_t, const std::string&, flakeid::lease_time last) override {
    std::lock_guard lk(s->m);
    s->recorded = ms_or_min(last);
  }
};

/// A lease of instance "pod-1" on an `instance_store`, on a manual clock at the wall's time.
struct instance_lease {
  std::unique_ptr<instance_store> store = std::make_unique<instance_store>();
  std::shared_ptr<instance_store::state> s = store->s;
  flakeid::manual_clock clk = clock_at_wall();
  std::int64_t t0 = ms_of(clk);
  std::optional<flakeid::lease> l;

  instance_lease() {
    auto o = engine_options();  // ttl 300 ms, safe_guard 100 ms: watched for 800 ms at most
    o.instance = "pod-1";
    {
      std::lock_guard lk(s->m);
      s->recorded = t0 + 200;
    }
    l.emplace(std::move(store), o.use_clock(clk));
  }
  int claims() {
    std::lock_guard lk(s->m);
    return s->claims;
  }
};

TEST(lease_instance_test, a_holder_the_store_knows_alive_is_refused_at_once) {
  instance_lease t;
  t.s->alive = true;
  expect_error<flakeid::instance_in_use_error>(
      [&] { (void)t.l->acquire(8); },
      "flakeid: instance 'pod-1' already holds worker id 5 in namespace engine through another "
      "lease that is alive (scripted)");
  EXPECT_EQ(t.claims(), 1);
  EXPECT_EQ(ms_of(t.clk), t.t0) << "nothing was waited for";
}

TEST(lease_instance_test, a_holder_that_renews_while_watched_is_a_live_twin) {
  instance_lease t;
  t.s->on_claim = [](instance_store::state& s) {
    if (s.claims == 3) s.recorded += 100;  // the holder renewed between the second and third look
  };
  expect_error<flakeid::instance_in_use_error>(
      [&] { (void)t.l->acquire(8); },
      "flakeid: instance 'pod-1' already holds worker id 5 in namespace engine through another "
      "lease that is still renewing it (scripted)");
  EXPECT_EQ(t.claims(), 3);
  EXPECT_EQ(ms_of(t.clk), t.t0 + 40) << "two looks apart by (ttl + safe_guard) / 20";
  EXPECT_FALSE(t.l->deadline().has_value());
}

TEST(lease_instance_test, a_holder_that_lets_go_hands_its_id_to_the_instance) {
  instance_lease t;
  t.s->on_claim = [](instance_store::state& s) {
    if (s.claims == 4) s.held = false;  // the dead holder's record ran out
  };
  EXPECT_EQ(t.l->acquire(8), 5U);
  EXPECT_EQ(t.claims(), 4);
  EXPECT_EQ(t.l->previous_last(), time_or_none(t.t0 + 200));
  EXPECT_EQ(t.l->not_after(), time_or_none(t.t0 + 300));
  EXPECT_GT(ms_of(t.clk), t.t0 + 300) << "and minted only above its deadline plus safe_guard";
}

TEST(lease_instance_test, the_own_id_is_waited_for_beyond_max_wait) {
  // The previous run of the instance crashed right after a renewal: its deadline lies almost a
  // ttl ahead, more than max_wait (100 ms here) ahead of this clock.
  instance_lease t;
  t.s->held = false;
  {
    std::lock_guard lk(t.s->m);
    t.s->recorded = t.t0 + 250;
  }
  auto o = engine_options();
  o.instance = "pod-1";
  o.max_wait = 100ms;
  auto store = std::make_unique<instance_store>();
  store->s = t.s;
  flakeid::lease own{std::move(store), o.use_clock(t.clk)};
  EXPECT_EQ(own.acquire(8), 5U);
  EXPECT_EQ(own.not_after(), time_or_none(t.t0 + 350));
  EXPECT_EQ(ms_of(t.clk), t.t0 + 351);

  // Further ahead than max_wait + ttl (400 ms), the clock is behind: refused.
  auto far = std::make_unique<instance_store>();
  far->s->held = false;
  far->s->recorded = ms_of(t.clk) + 600;
  flakeid::lease behind{std::move(far), o.use_clock(t.clk)};
  try {
    (void)behind.acquire(8);
    ADD_FAILURE() << "a record 600 ms ahead was accepted";
  } catch (const flakeid::clock_backwards_error& e) {
    EXPECT_NE(std::string(e.what()).find("600 ms ahead of this clock; the lease waits up to "
                                         "400 ms for that, then safe_guard (100 ms)"),
              std::string::npos)
        << e.what();
  }
}

TEST(lease_instance_test, a_holder_that_neither_renews_nor_lets_go_is_taken_as_alive) {
  instance_lease t;
  expect_error<flakeid::instance_in_use_error>(
      [&] { (void)t.l->acquire(8); },
      "flakeid: instance 'pod-1' already holds worker id 5 in namespace engine through another "
      "lease that has neither renewed nor let it go in 800 ms (scripted)");
  EXPECT_EQ(t.claims(), 41) << "one look each 20 ms for 800 ms";
  EXPECT_EQ(ms_of(t.clk), t.t0 + 800);
}

TEST(lease_instance_test, names_are_checked_and_shown_in_events_and_the_source) {
  for (const std::string& bad :
       std::vector<std::string>{"a b", "x/y", "caf\xc3\xa9", std::string(129, 'p')}) {
    auto o = engine_options();
    o.instance = bad;
    expect_error<flakeid::invalid_option_error>(
        [&] {
          flakeid::lease l{std::make_unique<scripted_store>(), o};
        },
        "flakeid: lease instance '" + bad +
            "' is invalid: use 1 to 128 letters, digits, '.', '_', '-', ':' or '@'");
  }
  auto o = engine_options();
  o.instance = "svc@pod-7.orders:8080_" + std::string(106, 'x');  // 128 characters
  std::vector<std::string> events;
  o.on_event = [&](flakeid::lease_event e, const std::string& d) {
    events.push_back(std::string(to_string(e)) + ": " + d);
  };
  flakeid::lease l{std::make_unique<scripted_store>(), o};
  const flakeid::worker_assignment a = l.assign(flakeid::layouts::twitter);
  EXPECT_EQ(a.source, "lease scripted namespace engine id 3 instance " + o.instance);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front(), "acquired: worker id 3 (instance " + o.instance + ") (scripted)");
}

static_assert(flakeid::worker_id_source<flakeid::lease>);
static_assert(flakeid::worker_id_source<flakeid::clock_guard_file>);

// ---- file lease -------------------------------------------------------------------------

struct file_backend {
  std::string dir = make_temp_dir("flakeid-lease");
  ~file_backend() { std::filesystem::remove_all(dir); }
  std::unique_ptr<flakeid::lease> make(const flakeid::lease_options& o) {
    return lease_from(flakeid::file_store{dir, store_options_of(o)}, o);
  }
};

TEST(file_lease_test, lock_files_are_writable_by_their_maker_and_readable_as_their_directory) {
  const std::pair<::mode_t, ::mode_t> modes[] = {{01777, 0644}, {0770, 0640}, {0700, 0600}};
  for (const auto& [dir_mode, file_mode] : modes) {
    file_backend b;
    ASSERT_EQ(::chmod(b.dir.c_str(), dir_mode), 0);
    const std::string ns = unique_ns("mode");
    flakeid::file_store store{b.dir, {.name_space = ns}};
    auto l = store.lease(quick_options(ns));
    EXPECT_EQ(l.acquire(1), 0U);
    for (const std::string& name : {"flakeid-" + ns + "-0.lease", "flakeid-" + ns + ".namespace"}) {
      struct stat st {};
      ASSERT_EQ(::stat((b.dir + "/" + name).c_str(), &st), 0) << name;
      EXPECT_EQ(st.st_mode & 0777, file_mode)
          << name << " in a directory of mode " << std::oct << dir_mode;
    }
  }
}

/// The `lease_event::waiting` details of a second claim of id 0 in a directory of mode
/// `dir_mode`, after a first lease took it and let it go (so that no claim makes the file).
std::vector<std::string> waits_of_a_second_claim(::mode_t dir_mode) {
  file_backend b;
  EXPECT_EQ(::chmod(b.dir.c_str(), dir_mode), 0);
  std::vector<std::string> waits;
  std::mutex m;
  auto o = on_manual_clock(quick_options(unique_ns("rename")), clock_at_wall());
  o.on_event = [&](flakeid::lease_event e, const std::string& d) {
    std::lock_guard lk(m);
    if (e == flakeid::lease_event::waiting) waits.push_back(d);
  };
  flakeid::file_store store{b.dir, store_options_of(o)};
  {
    auto first = store.lease(o);
    EXPECT_EQ(first.acquire(1), 0U);
    first.release();
  }
  {
    std::lock_guard lk(m);
    waits.clear();
  }
  auto second = store.lease(o);
  EXPECT_EQ(second.acquire(1), 0U);
  std::lock_guard lk(m);
  return waits;
}

TEST(file_lease_test, every_claim_waits_where_another_user_may_rename_the_lock_files) {
  // Group-writable without the sticky bit: the group may rename this user's files, putting one
  // whose record reads as settled in place of a held one. The second claim waits ttl +
  // safe_guard (1,200 ms) as after a loss, and says so. With the sticky bit, it does not.
  const std::vector<std::string> waits = waits_of_a_second_claim(0770);
  ASSERT_EQ(waits.size(), 1U);
  EXPECT_NE(waits[0].find(" ms before it mints: the store may have lost its records (ttl + "
                          "safe_guard, 1200 ms, from Unix ms "),
            std::string::npos)
      << waits[0];
  EXPECT_EQ(waits_of_a_second_claim(01770), std::vector<std::string>{});
  EXPECT_EQ(waits_of_a_second_claim(0700), std::vector<std::string>{});
}

TEST(file_lease_test, forty_processes_race_for_thirty_two_ids) {
  file_backend b;
  const std::string ns = unique_ns("race");
  auto o = quick_options(ns);
  o.ttl = 5000ms;
  // Opening `go` starts every child at once; opening `hold` lets them release and exit.
  gate go;
  gate hold;
  std::deque<child_process> children;
  for (int i = 0; i < 40; ++i)
    children.emplace_back([&](child_pipe out) {
      go.wait();
      auto l = flakeid::file_store{b.dir, store_options_of(o)}.lease(o);
      try {
        (void)out.say("id " + std::to_string(l.acquire(32)));
      } catch (const std::exception& e) {
        (void)out.say(e.what());
      }
      out.close();
      hold.wait();  // the parent has every answer
    });
  go.open();
  std::set<std::string> ids;
  int refused = 0;
  const std::string expected =
      "flakeid: no free worker id in namespace " + ns + ": all 32 ids are leased";
  for (auto& c : children) {
    const std::string r = c.read_all();
    if (r.rfind("id ", 0) == 0) {
      ids.insert(r);
    } else {
      EXPECT_EQ(r.substr(0, expected.size()), expected) << r;
      ++refused;
    }
  }
  hold.open();  // releases every child
  for (auto& c : children) EXPECT_EQ(c.wait(), 0);
  EXPECT_EQ(ids.size(), 32U);
  EXPECT_EQ(refused, 8);
}

TEST(file_lease_test, killed_holder_id_returns_after_expiry_and_safe_guard) {
  file_backend b;
  sigkill_holder(b);
}

TEST(file_lease_test, an_instance_takes_its_released_id_again) {
  file_backend b;
  instance_takes_its_released_id_again(b);
}
TEST(file_lease_test, an_instance_takes_its_id_again_after_sigkill) {
  file_backend b;
  instance_takes_its_id_again_after_sigkill(b);
}
TEST(file_lease_test, an_instance_id_is_kept_while_its_record_is_young) {
  file_backend b;
  an_instance_id_is_kept_while_its_record_is_young(b);
}

/// Leases over memory stores; every store made is kept, and with it its namespace's records.
struct memory_lease_backend {
  std::vector<flakeid::memory_store> stores;
  std::unique_ptr<flakeid::lease> make(const flakeid::lease_options& o) {
    stores.emplace_back(store_options_of(o));
    return lease_from(stores.back(), o);
  }
};

TEST(memory_lease_test, an_instance_id_is_kept_while_its_record_is_young) {
  memory_lease_backend b;
  an_instance_id_is_kept_while_its_record_is_young(b);
}

TEST(memory_lease_test, an_instance_id_kept_forever_is_never_passed_on) {
  memory_lease_backend b;
  flakeid::manual_clock clk = clock_at_wall();
  auto plain = on_manual_clock(quick_options(unique_ns("forever")), clk);
  plain.instance_idle = flakeid::lease_options::instance_kept_forever;
  auto named = plain;
  named.instance = "pod-f";
  ASSERT_EQ(b.make(named)->acquire(1), 0U);  // released at once
  clk.advance(std::chrono::hours{24 * 365 * 50});
  auto other = b.make(plain);
  expect_error<flakeid::worker_id_error>(
      [&] { (void)other->acquire(1); },
      "flakeid: worker id 0 in namespace " + plain.name_space +
          " is held by another process, or was let go less than safe_guard (300 ms) ago, or "
          "kept for an instance (instance_idle forever) (memory store)");
  EXPECT_EQ(b.make(named)->acquire(1), 0U);
}

TEST(lease_instance_test, kept_after_is_now_less_instance_idle_saturating) {
  using flakeid::lease_time;
  const lease_time now{std::chrono::milliseconds{1'700'000'000'000}};
  EXPECT_EQ(flakeid::detail::kept_after(now, 0ms), lease_time::max()) << "nothing kept";
  EXPECT_EQ(flakeid::detail::kept_after(now, 60s), now - 60s);
  EXPECT_EQ(flakeid::detail::kept_after(now, flakeid::lease_options::instance_kept_forever),
            lease_time::min());
  EXPECT_EQ(flakeid::detail::kept_after(lease_time::min() + 5ms, 6ms), lease_time::min());
  flakeid::lease_options o;
  o.instance_idle = -1ms;
  expect_error<flakeid::invalid_option_error>(
      [&] {
        flakeid::lease l{std::make_unique<scripted_store>(), o};
      },
      "flakeid: lease instance_idle of -1 ms is negative: use 0 or more");
}

TEST(file_lease_test, a_live_twin_instance_is_refused) {
  file_backend b;
  a_live_twin_is_refused(b);
}
TEST(file_lease_test, twins_race_for_one_instance) {
  file_backend b;
  twins_race_for_one_instance(b);
}

/// The first line of a lock file.
std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(file_lease_test, the_lock_file_records_the_instance_and_a_plain_claim_clears_it) {
  file_backend b;
  flakeid::manual_clock clk = clock_at_wall();
  auto o = on_manual_clock(quick_options("files"), clk);
  auto named = o;
  named.instance = "pod-a:8080";
  const std::string file0 = b.dir + "/flakeid-files-0.lease";
  {
    auto a = b.make(named);
    ASSERT_EQ(a->acquire(2), 0U);
    const std::string line = first_line(file0);
    EXPECT_EQ(line.substr(20), " " + std::string(19, ' ') + "0 pod-a:8080") << line;
    EXPECT_EQ(std::stoll(line.substr(0, 20)), ms_or_min(a->deadline()));
  }
  clk.advance(o.safe_guard + 1s);  // id 0 is settled: a lease without an instance takes it
  auto plain = b.make(o);
  ASSERT_EQ(plain->acquire(2), 0U);
  EXPECT_EQ(first_line(file0).size(), 41U) << "no third column: the record was cleared";
  // Instance pod-a has no id any more: it claims as usual instead of watching a stranger.
  auto again = b.make(named);
  EXPECT_EQ(again->acquire(2), 1U);
  EXPECT_FALSE(again->previous_last().has_value());
}

TEST(file_lease_test, a_lock_file_of_an_older_version_has_no_instance) {
  file_backend b;
  auto named = quick_options("older");
  named.instance = "pod-a";
  // The line an older version writes (a deadline long past, and a second column of 0).
  {
    std::ofstream f(b.dir + "/flakeid-older-0.lease");
    f << "       1700000000000                    0\n";
  }
  {
    std::ofstream m(b.dir + "/flakeid-older.namespace");
    m << "                   1                    0\n";
  }
  auto a = b.make(named);
  EXPECT_EQ(a->acquire(4), 0U);
  EXPECT_EQ(a->previous_last(), time_or_none(1700000000000));
  EXPECT_EQ(first_line(b.dir + "/flakeid-older-0.lease").substr(41), " pod-a");
}

TEST(file_lease_test, restart_with_clock_moved_back_waits_or_refuses) {
  file_backend b;
  restart_with_clock_back(b);
}

TEST(file_lease_test, a_clock_far_off_takes_no_id) {
  file_backend b;
  a_clock_far_off_takes_no_id(b);
}

TEST(file_lease_test, a_clock_stepped_ahead_mints_nothing_past_its_deadline) {
  file_backend b;
  a_clock_stepped_ahead_mints_nothing_past_its_deadline(b);
}

// The child of file_lease_test.a_process_whose_clock_an_ld_preload_moves_takes_no_id, run
// before main when FLAKEID_TEST_FAKETIME_DIR names its lease directory: it exits 0 when its
// claim is refused for its clock, 1 when it takes an id, 2 on another error.
[[maybe_unused]] const int faketime_child = [] {
  const char* dir = std::getenv("FLAKEID_TEST_FAKETIME_DIR");
  if (dir == nullptr) return 0;
  const auto o = quick_options("faketime");
  try {
    auto l = flakeid::file_store{dir, store_options_of(o)}.lease(o);
    (void)l.acquire(4);
    std::_Exit(1);
  } catch (const flakeid::clock_skew_error&) {
    std::_Exit(0);
  } catch (...) {
    std::_Exit(2);
  }
}();

// The file store's clock is the kernel's, read by the system call: a process whose own clock
// libfaketime (an LD_PRELOAD) moves 30 s ahead is off it and takes no id, as a holder whose
// clock is off a server store's takes none. Read through the C library, the store's clock moved
// with the process's, and such a process minted ahead of the others on the same host (the
// fault soak: duplicates once the lock files were deleted).
TEST(file_lease_test, a_process_whose_clock_an_ld_preload_moves_takes_no_id) {
  const std::string lib = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";
  FLAKEID_REQUIRE_SERVER(::access(lib.c_str(), R_OK) == 0,
                         "libfaketime (" + lib + ") is not installed (Debian: faketime)");
  file_backend b;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("LD_PRELOAD", lib.c_str(), 1);
    ::setenv("FAKETIME", "+30s", 1);
    ::setenv("FAKETIME_DONT_FAKE_MONOTONIC", "1", 1);
    ::setenv("FLAKEID_TEST_FAKETIME_DIR", b.dir.c_str(), 1);
    ::execl("/proc/self/exe", "leases_tests", "--gtest_list_tests", static_cast<char*>(nullptr));
    ::_exit(3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: it took an id with its clock 30 s ahead; 2: another error; 3: no exec";
}

TEST(file_lease_test, an_unusable_directory_is_a_clear_error) {
  const auto o = quick_options("nodir");
  auto l = flakeid::file_store{"/nonexistent/flakeid", store_options_of(o)}.lease(o);
  try {
    (void)l.acquire(4);
    FAIL() << "acquired in a directory that does not exist";
  } catch (const flakeid::lease_store_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "flakeid: cannot create the lease directory /nonexistent/flakeid: No such file or "
              "directory");
  }
}

TEST(file_lease_test, releases_at_destruction_and_splits_the_id_into_datacenter_and_worker) {
  file_backend b;
  auto o = quick_options(unique_ns("split"));
  o.safe_guard = 0ms;
  flakeid::worker_assignment first;
  {
    const flakeid::file_store store{b.dir, store_options_of(o)};
    std::vector<std::unique_ptr<flakeid::lease>> held;
    for (int i = 0; i < 33; ++i) held.push_back(lease_from(store, o));
    for (int i = 0; i < 32; ++i) (void)held[static_cast<std::size_t>(i)]->acquire(32);
    first = held[32]->assign(flakeid::layouts::twitter);  // id 32: datacenter 1, worker 0
    EXPECT_EQ(first.node, (flakeid::node_id{1, 0}));
  }
  auto again = flakeid::file_store{b.dir, store_options_of(o)}.lease(o);
  EXPECT_LT(again.acquire(64), 33U);
}

TEST(file_lease_test, default_directory_is_one_place_for_the_whole_host) {
  EXPECT_EQ(flakeid::default_lease_directory(), "/dev/shm/flakeid");
  ::setenv("XDG_RUNTIME_DIR", "/run/user/4242", 1);
  ::setenv("TMPDIR", "/var/tmp/private", 1);
  EXPECT_EQ(flakeid::default_lease_directory(), "/dev/shm/flakeid") << "whatever the environment";
  ::unsetenv("XDG_RUNTIME_DIR");
  ::unsetenv("TMPDIR");
}

TEST(file_lease_test, processes_with_different_environments_and_users_take_distinct_ids) {
  // The default directory, as a cron job of another user (no XDG_RUNTIME_DIR, another TMPDIR)
  // and a service (XDG_RUNTIME_DIR set) would use it, each naming its instance: the second
  // opens the files of instances the first made (in a sticky directory, where
  // fs.protected_regular refuses O_CREAT on another user's file).
  struct environment {
    const char* xdg;
    const char* tmp;
    bool nobody;
    const char* instance;
  };
  const environment envs[2] = {{nullptr, "/var/tmp/b", true, "cron"},
                               {"/run/user/1000", "/tmp/a", false, "service"}};
  const std::string ns = unique_ns("host");
  gate hold;  // opened: the children release and exit
  std::deque<child_process> children;
  std::vector<std::string> answers;
  for (const environment& e : envs) {
    children.emplace_back([&](child_pipe out) {
      if (e.xdg != nullptr) {
        ::setenv("XDG_RUNTIME_DIR", e.xdg, 1);
      } else {
        ::unsetenv("XDG_RUNTIME_DIR");
      }
      ::setenv("TMPDIR", e.tmp, 1);
      if (e.nobody && ::geteuid() == 0) {
        const passwd* pw = ::getpwnam("nobody");
        if (pw == nullptr || ::setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) != 0 ||
            ::setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) != 0) {
          (void)out.say("cannot become nobody");
          return 1;
        }
      }
      try {
        auto o = quick_options(ns);
        o.instance = e.instance;
        auto l =
            flakeid::file_store{flakeid::default_lease_directory(), store_options_of(o)}.lease(o);
        (void)out.say("id " + std::to_string(l.acquire(32)) + " uid " +
                      std::to_string(::geteuid()));
        out.close();
        hold.wait();  // then release and exit
        return 0;
      } catch (const std::exception& ex) {
        (void)out.say(ex.what());
        return 1;
      }
    });
    answers.push_back(children.back().read_all());  // it holds its id once it has answered
  }
  hold.open();
  for (auto& c : children) (void)c.wait();
  // This test's namespace leaves the shared directory as it found it.
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(flakeid::default_lease_directory(), ec))
    if (f.path().filename().string().rfind("flakeid-" + ns + "-", 0) == 0 ||
        f.path().filename() == "flakeid-" + ns + ".namespace" ||
        f.path().filename() == "flakeid-" + ns + ".instances")
      std::filesystem::remove(f.path(), ec);
  ASSERT_EQ(answers[0].rfind("id ", 0), 0U) << answers[0];
  ASSERT_EQ(answers[1].rfind("id ", 0), 0U) << answers[1];
  EXPECT_NE(answers[0].substr(0, answers[0].find(" uid")),
            answers[1].substr(0, answers[1].find(" uid")));
  if (::geteuid() == 0) {
    const passwd* pw = ::getpwnam("nobody");
    ASSERT_NE(pw, nullptr);
    EXPECT_NE(answers[0].find(" uid " + std::to_string(pw->pw_uid)), std::string::npos)
        << answers[0];
  }
}

TEST(file_lease_test, refuses_a_symlink_and_a_world_writable_directory_without_sticky_bit) {
  file_backend b;
  const std::string ns = unique_ns("link");
  const std::string target = b.dir + "/target";
  { std::ofstream(target) << "precious\n"; }
  const std::string dir = b.dir + "/leases";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(::symlink(target.c_str(), (dir + "/flakeid-" + ns + "-0.lease").c_str()), 0);
  {
    auto l = flakeid::file_store{dir, store_options_of(quick_options(ns))}.lease(quick_options(ns));
    EXPECT_THROW((void)l.acquire(1), flakeid::lease_store_error);
  }
  EXPECT_EQ(read_file(target), "precious\n") << "nothing written through the link";
  const std::string open_dir = b.dir + "/open";
  ASSERT_EQ(::mkdir(open_dir.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(open_dir.c_str(), 0777), 0);
  auto l =
      flakeid::file_store{open_dir, store_options_of(quick_options(ns))}.lease(quick_options(ns));
  try {
    (void)l.acquire(1);
    FAIL() << "used a directory anyone can swap files in";
  } catch (const flakeid::lease_store_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "flakeid: lease directory " + open_dir +
                  " is writable by everyone without the sticky bit: anyone could replace a lock "
                  "file; use chmod 1777 or a private directory");
  }
}

TEST(file_lease_test, skips_an_id_used_far_ahead_of_this_clock) {
  file_backend b;
  skips_an_id_used_far_ahead(b);
}

TEST(file_lease_test, a_stopped_holder_keeps_its_id_until_it_is_killed) {
  file_backend b;
  auto o = quick_options(unique_ns("stopf"));
  o.max_ids = 1;
  o.max_wait = 30'000ms;
  minter_process a{b, o};
  ASSERT_TRUE(a.started());
  a.signal(SIGSTOP);
  // Past its record's ttl + safe_guard: still held, by the lock the stopped process keeps; a
  // longer wait (a slow machine) changes nothing.
  std::this_thread::sleep_for(o.ttl + o.safe_guard + 200ms);
  {
    auto l = flakeid::file_store{b.dir, store_options_of(o)}.lease(o);
    EXPECT_THROW((void)l.acquire(1), flakeid::worker_id_error) << "held while stopped";
  }
  a.signal(SIGKILL);
  (void)a.wait();
  auto l = flakeid::file_store{b.dir, store_options_of(o)}.lease(o);
  EXPECT_EQ(l.acquire(1), 0U) << "free the moment its holder died";
  std::vector<std::uint64_t> b_ids;
  {
    wall_gen gen{held(l)};
    mint_through_late_renewals(gen, l, 20'000, b_ids);
  }
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const std::vector<std::uint64_t> a_ids = a.ids();
  ASSERT_GT(a_ids.size(), 1000U);
  EXPECT_EQ(duplicates(a_ids, b_ids), 0U);
  EXPECT_GT(ts_of(b_ids.front()), ms_or_min(l.previous_last()) + o.safe_guard.count());
  EXPECT_GT(ms_or_min(l.previous_last()), ts_of(*std::max_element(a_ids.begin(), a_ids.end())));
}

TEST(file_lease_test, a_lease_file_deleted_under_its_holder_causes_no_duplicate) {
  file_backend b;
  store_forgets(b, [&] {
    for (const auto& e : std::filesystem::directory_iterator(b.dir))
      if (e.path().extension() == ".lease") std::filesystem::remove(e.path());
  });
}

// A claimer that made a lock file after the old one was deleted under its holder, and then
// could not write its deadline into it (a full disk; killed in between), leaves the file empty.
// The next claimer opens that file without making it, and must still wait `ttl + safe_guard`,
// as its maker would have: the holder of the deleted file mints until its next renewal. (The
// fault soak found it: docs/soak.md.)
TEST(file_lease_test, an_empty_lock_file_left_by_a_failed_claim_is_waited_for_as_a_new_one) {
  for (const ::mode_t dir_mode : {::mode_t{01777}, ::mode_t{0700}}) {
    file_backend b;
    ASSERT_EQ(::chmod(b.dir.c_str(), dir_mode), 0);
    flakeid::manual_clock clk = clock_at_wall();
    auto o = quick_options(unique_ns("empty"));
    o.max_ids = 1;
    o = on_manual_clock(o, clk);
    auto holder = b.make(o);
    ASSERT_EQ(holder->acquire(1), 0U);
    const std::string file = b.dir + "/flakeid-" + o.name_space + "-0.lease";
    ASSERT_TRUE(std::filesystem::remove(file));
    { std::ofstream made(file); }  // made, never written
    auto next = b.make(o);
    const flakeid::lease_time claimed =
        std::chrono::time_point_cast<std::chrono::milliseconds>(clk.now());
    ASSERT_EQ(next->acquire(1), 0U);
    ASSERT_TRUE(next->not_after().has_value()) << "directory mode " << std::oct << dir_mode;
    EXPECT_GE(*next->not_after(), claimed + o.ttl + o.safe_guard)
        << "directory mode " << std::oct << dir_mode;
  }
}

TEST(file_lease_test, a_forked_child_never_mints_on_its_parents_lease) {
  file_backend b;
  auto o = quick_options(unique_ns("fork"));
  auto parent_lease = flakeid::file_store{b.dir, store_options_of(o)}.lease(o);
  wall_gen gen{parent_lease};
  std::vector<std::uint64_t> parent_ids;
  for (int i = 0; i < 1000; ++i) parent_ids.push_back(gen.next_id());
  child_process child([&](child_pipe out) {
    try {
      (void)gen.next_id();
      return 2;  // minted on the parent's lease
    } catch (const flakeid::lease_lost_error&) {
    }
    // The child's own lease: another id.
    auto own = flakeid::file_store{b.dir, store_options_of(o)}.lease(o);
    wall_gen child_gen{own};
    for (int i = 0; i < 20'000; ++i) {
      const std::uint64_t id = next_id_through_late_renewals(child_gen, own);
      (void)out.say_value(id);
    }
    return 0;
  });
  mint_through_late_renewals(gen, parent_lease, 20'000, parent_ids);
  const std::vector<std::uint64_t> child_ids = ids_of(child.read_all());
  const int status = child.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: the child minted on its parent's lease; 99: an error";
  EXPECT_EQ(child_ids.size(), 20'000U);
  EXPECT_EQ(duplicates(parent_ids, child_ids), 0U);
  EXPECT_NO_THROW((void)gen.next_id()) << "the parent keeps its lease";
}

// ---- clock guard ------------------------------------------------------------------------

flakeid::lease_options guard_options(const flakeid::manual_clock& clk) {
  auto o = flakeid::clock_guard_file::default_options();
  o.ttl = 300ms;
  o.max_wait = 1000ms;
  return on_manual_clock(o, clk);
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
    EXPECT_FALSE(guard.recorded().has_value());
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
    // A clean shutdown records the clock at release (1 ms past the last ID) plus one tick.
    EXPECT_EQ(ms_or_min(guard.recorded()), ts_of(last) + 2);
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
  const std::vector<std::uint64_t> minted = ids_of(report_then_sigkill([&](const auto& report) {
    flakeid::manual_clock clk = clock_at_wall();
    flakeid::clock_guard_file guard{file, node, guard_options(clk)};
    manual_gen gen{guard, clk};
    std::uint64_t last = 0;
    for (int i = 0; i < 50; ++i) {
      last = gen.next_id();
      clk.advance(1ms);
    }
    // The writer runs every 100 ms, so this pause usually lets it record once between the two
    // batches; the assertions below hold whether or not it did (every ID lies below the
    // horizon the guard recorded before handing it out).
    std::this_thread::sleep_for(150ms);
    for (int i = 0; i < 50; ++i) {  // minted after the last write
      last = gen.next_id();
      clk.advance(1ms);
    }
    report(bytes_of({last}));
  }));
  ASSERT_EQ(minted.size(), 1U) << "the child reported no ID";
  const std::uint64_t last = minted[0];

  flakeid::manual_clock clk = clock_at_wall(-200ms);  // restarted with the clock moved back
  flakeid::clock_guard_file guard{file, node, guard_options(clk)};
  manual_gen gen{guard, clk};
  EXPECT_GE(ms_or_min(guard.recorded()), ts_of(last));
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
    EXPECT_EQ(std::string(e.what()),
              "flakeid: worker id 0 in namespace guard-state is held by another process, or was "
              "let go less than safe_guard (0 ms) ago (file lease " +
                  b.dir + ")");
  }
}

/// The number at the start of `path` (the lease files' format: right-aligned in 20 columns).
std::int64_t number_in(const std::string& path) {
  std::ifstream in(path);
  std::int64_t v = INT64_MIN;
  in >> v;
  return v;
}

// The guard is a one-id lease of the file store in its directory: its state is that store's
// lock file, as private as the directory, and holds the deadline in use.
TEST(clock_guard_test, keeps_its_state_in_the_one_lock_file_of_a_file_store) {
  file_backend b;
  ASSERT_EQ(::chmod(b.dir.c_str(), 0700), 0);
  flakeid::manual_clock clk = clock_at_wall();
  flakeid::clock_guard_file guard{b.dir + "/orders.state",
                                  flakeid::fixed_node{flakeid::worker_id{7}}, guard_options(clk)};
  EXPECT_EQ(guard.state_file(),
            std::filesystem::path(b.dir) / "flakeid-guard-orders_state-0.lease");
  manual_gen gen{guard, clk};
  const std::uint64_t id = gen.next_id();
  struct stat st {};
  ASSERT_EQ(::stat(guard.state_file().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
  EXPECT_FALSE(std::filesystem::exists(b.dir + "/orders.state")) << "the name only names the guard";
  EXPECT_EQ(number_in(guard.state_file()), ms_or_min(guard.guard_lease().deadline()));
  EXPECT_LT(ts_of(id), number_in(guard.state_file()));
  EXPECT_EQ(guard.guard_lease().options().max_ids, 1U);
  EXPECT_EQ(guard.guard_lease().where(), "file lease " + b.dir);
}

// A state file of an earlier version (the guard's own path) is adopted: its timestamp bounds
// the first start, and every later one when it is higher than the state's; while an earlier
// version's process holds it, the guard refuses.
TEST(clock_guard_test, adopts_the_state_an_earlier_version_kept_in_the_named_file) {
  file_backend b;
  const std::string old_file = b.dir + "/state";
  flakeid::manual_clock clk = clock_at_wall();
  const std::int64_t t0 = ms_of(clk);
  {
    std::ofstream out(old_file);
    char line[64];
    std::snprintf(line, sizeof line, "%20lld %20d\n", static_cast<long long>(t0 + 500), 0);
    out << line;
  }
  const flakeid::fixed_node node{flakeid::worker_id{7}};
  {
    const int held = ::open(old_file.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(held, 0);
    ASSERT_EQ(::flock(held, LOCK_EX), 0);  // an earlier version's running guard
    flakeid::clock_guard_file guard{old_file, node, guard_options(clk)};
    expect_error<flakeid::worker_id_error>(
        [&] { (void)manual_gen(guard, clk); },
        "flakeid: clock guard file " + old_file +
            " is locked by another process using the same worker id");
    ::close(held);
  }
  {
    flakeid::clock_guard_file guard{old_file, node, guard_options(clk)};
    manual_gen gen{guard, clk};
    EXPECT_EQ(ms_or_min(guard.recorded()), t0 + 500) << "the earlier version's timestamp";
    EXPECT_GT(ts_of(gen.next_id()), t0 + 500) << "the first start waited past it";
  }
  {
    std::ofstream out(old_file);  // an earlier version ran again, with its clock an hour ahead
    out << std::to_string(t0 + 3'600'000) << "\n";
  }
  flakeid::clock_guard_file guard{old_file, node, guard_options(clk)};
  EXPECT_THROW((void)manual_gen(guard, clk), flakeid::clock_backwards_error)
      << "read at every start: a higher timestamp raises the state";
}

TEST(clock_guard_test, borrowing_stays_below_the_recorded_deadline_across_sigkill) {
  // A generator that borrows future ticks mints as far ahead as it may, is killed, and the
  // process restarts at once on the same state file: no ID comes back. Its clock stands still,
  // so that it borrows its whole span (400 ms ahead, a lead of 401 ms) however fast the
  // machine mints; the guard's deadline covers that span from the first renewal after the
  // generator is built, which the child waits for (bounded).
  using borrowing_gen = flakeid::basic_snowflake<
      flakeid::layouts::twitter, flakeid::manual_clock,
      flakeid::policies<flakeid::zero_start, flakeid::borrow_ticks<400>,
                        flakeid::throw_on_backwards, flakeid::multi_threaded>>;
  constexpr std::size_t span = 401 * 4096;
  file_backend b;
  const std::string file = b.dir + "/state";
  const std::string ids_file = b.dir + "/ids";
  const flakeid::fixed_node node{flakeid::worker_id{7}};
  const std::string said = report_then_sigkill([&](const auto& report) {
    const int out = ::open(ids_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    flakeid::manual_clock clk = clock_at_wall();
    flakeid::clock_guard_file guard{file, node, guard_options(clk)};
    borrowing_gen gen{guard, clk};
    const std::int64_t covered = ms_of(clk) + 401 + 240;  // clock + lead + ttl - margin
    for (int i = 0; i < 6000 && ms_or_min(guard.guard_lease().deadline()) != covered; ++i)
      std::this_thread::sleep_for(10ms);
    std::vector<std::uint64_t> ids(span);
    std::size_t n = 0;
    try {
      for (; n < ids.size(); ++n) ids[n] = gen.next_id();
    } catch (const flakeid::lease_lost_error&) {
    }
    (void)!::write(out, ids.data(), n * sizeof(std::uint64_t));
    ::close(out);
    report(n == span && clk.slept() == 0ms ? "a" : "r");
  });
  ASSERT_EQ(said.size(), 1U);
  EXPECT_EQ(said[0], 'a')
      << "the generator did not borrow its whole span without a refusal or a wait";
  const int in = ::open(ids_file.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(in, 0);
  const std::vector<std::uint64_t> before = read_ids(in);
  ::close(in);
  ASSERT_EQ(before.size(), span);
  const std::uint64_t highest = *std::max_element(before.begin(), before.end());
  // The restart waits for the recorded deadline (the child's clock + 401 + 240 ms, that is the
  // last borrowed tick + 241 ms), and acquire then renews.
  flakeid::manual_clock clk = clock_at_wall();
  flakeid::clock_guard_file guard{file, node, guard_options(clk)};
  borrowing_gen gen{guard, clk};
  EXPECT_EQ(ms_or_min(guard.recorded()), ts_of(highest) + 241);
  std::vector<std::uint64_t> after;
  for (int i = 0; i < 100'000; ++i) after.push_back(gen.next_id());
  EXPECT_EQ(duplicates(before, after), 0U);
  EXPECT_GT(after.front(), highest);
}

}  // namespace
