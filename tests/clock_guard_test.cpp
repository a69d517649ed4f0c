// clock_guard_file with a generator that borrows future ticks: the guard's confirmed deadline
// covers the generator's whole borrowing span, so a generator whose renewals are all confirmed
// is never refused, from its first ID on, and a clean release records the clock plus that span.
// Manual clock, exact IDs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <flakeid/clock_guard.hpp>
#include <flakeid/flakeid.hpp>
#include <flakeid/striped.hpp>
#include <fstream>
#include <string>

namespace {

using namespace std::chrono;
using namespace std::chrono_literals;
constexpr flakeid::layout twitter = flakeid::layouts::twitter;

// Borrows up to 400 ms ahead of the clock: its lead is 401 ms, past the guard's 240.
using borrowing_gen = flakeid::basic_snowflake<
    twitter, flakeid::manual_clock,
    flakeid::policies<flakeid::zero_start, flakeid::borrow_ticks<400>, flakeid::throw_on_backwards,
                      flakeid::multi_threaded>>;

struct temp_dir {
  std::string path = [] {
    std::string t = (std::filesystem::temp_directory_path() / "flakeid-guard-XXXXXX").string();
    return std::string(::mkdtemp(t.data()));
  }();
  ~temp_dir() { std::filesystem::remove_all(path); }
};

std::int64_t ms_of(const flakeid::manual_clock& c) { return c.now().time_since_epoch().count(); }
std::int64_t deadline_of(const flakeid::clock_guard_file& g) {
  const auto d = g.guard_lease().deadline();
  return d ? d->time_since_epoch().count() : INT64_MIN;
}
/// The number at the start of a lease file.
std::int64_t number_in(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::int64_t v = INT64_MIN;
  in >> v;
  return v;
}

/// ttl 300 ms: renewed every 100 ms, a deadline 240 ms (ttl less a margin of ttl / 5) ahead.
flakeid::lease_options guard_options(const flakeid::manual_clock& clk) {
  auto o = flakeid::clock_guard_file::default_options();
  o.ttl = 300ms;
  o.max_wait = 1000ms;
  o.use_clock(clk);
  return o;
}

/// A guard file for worker 7 in a directory of its own, on a manual clock that starts at `t0`.
struct guarded {
  temp_dir dir;
  flakeid::manual_clock clk{time_point_cast<milliseconds>(system_clock::now())};
  std::int64_t t0 = ms_of(clk);
  std::string file = dir.path + "/state";

  [[nodiscard]] flakeid::clock_guard_file guard() const {
    return flakeid::clock_guard_file{file, flakeid::fixed_node{flakeid::worker_id{7}},
                                     guard_options(clk)};
  }
};

TEST(clock_guard_test, a_borrowing_span_longer_than_the_deadline_is_never_refused) {
  guarded g;
  {
    flakeid::clock_guard_file guard = g.guard();
    borrowing_gen gen{guard, g.clk};
    // The generator told the guard its lead (401 ms) before the claim, and the guard had the
    // deadline confirmed from the clock plus that lead before the generator could mint: no
    // renewal needs to come first. The clock stands still, so a renewal that runs meanwhile
    // asks for the same deadline.
    EXPECT_EQ(deadline_of(guard), g.t0 + 401 + 240);
    EXPECT_EQ(number_in(guard.state_file()), deadline_of(guard)) << "recorded before use";
    // 4,096 IDs a tick, from the clock's tick to 400 ms ahead of it, none refused.
    std::uint64_t k = 0;
    try {
      for (; k < 401 * 4096; ++k) {
        const std::uint64_t id = gen.next_id();
        ASSERT_EQ(id, twitter.compose({.timestamp = g.clk.now() + milliseconds{k / 4096},
                                       .worker = 7,
                                       .sequence = k % 4096}))
            << k;
      }
    } catch (const flakeid::lease_lost_error& e) {
      ADD_FAILURE() << "refused after " << k << " IDs: " << e.what();
    }
    EXPECT_EQ(k, 401U * 4096);
    EXPECT_EQ(g.clk.slept(), 0ms) << "nothing waited";
    EXPECT_EQ(ms_of(g.clk), g.t0);
  }
  // A clean release records the clock plus the lead (a call in flight may have borrowed that
  // far), not the deadline.
  flakeid::clock_guard_file again = g.guard();
  (void)again.assign(twitter);
  ASSERT_TRUE(again.recorded().has_value());
  EXPECT_EQ(again.recorded()->time_since_epoch().count(), g.t0 + 401);
}

TEST(clock_guard_test, a_borrowing_striped_generator_tells_the_guard_its_lead_too) {
  // Two stripes on base worker 7 (workers 14 and 15), each borrowing up to 400 ms: the guard
  // learns the lead before its claim, as from one engine, so no stripe is refused while the
  // clock stands still and no renewal has come.
  guarded g;
  flakeid::clock_guard_file guard = g.guard();
  flakeid::striped_snowflake<twitter, flakeid::manual_clock, 1, borrowing_gen::policies_type> gen{
      guard, g.clk};
  EXPECT_EQ(deadline_of(guard), g.t0 + 401 + 240);
  EXPECT_EQ(number_in(guard.state_file()), deadline_of(guard)) << "recorded before use";
  std::uint64_t k = 0;
  try {
    for (; k < 401 * 4096; ++k) {
      const std::uint64_t id = gen.stripe(k % 2).next_id();
      ASSERT_EQ(id, twitter.compose({.timestamp = g.clk.now() + milliseconds{k / 2 / 4096},
                                     .worker = 14 + k % 2,
                                     .sequence = k / 2 % 4096}))
          << k;
    }
  } catch (const flakeid::lease_lost_error& e) {
    ADD_FAILURE() << "refused after " << k << " IDs: " << e.what();
  }
  EXPECT_EQ(k, 401U * 4096);
  EXPECT_EQ(g.clk.slept(), 0ms) << "nothing waited";
}

// A restart after a clean release: the recorded timestamp (the clock plus the lead) is waited
// for by the plain clock, not by the clock plus the lead, so the generator's first tick follows
// the record without borrowing past its span; then the deadline covers the lead at once.
TEST(clock_guard_test, a_borrowing_restart_waits_for_the_record_by_the_plain_clock) {
  guarded g;
  {
    flakeid::clock_guard_file guard = g.guard();
    borrowing_gen gen{guard, g.clk};
    EXPECT_EQ(gen.next_id(), twitter.compose({.timestamp = g.clk.now(), .worker = 7}));
  }
  flakeid::clock_guard_file again = g.guard();
  borrowing_gen gen{again, g.clk};
  ASSERT_TRUE(again.recorded().has_value());
  EXPECT_EQ(again.recorded()->time_since_epoch().count(), g.t0 + 401);
  EXPECT_EQ(g.clk.slept(), 402ms) << "waited until the clock passed the record";
  EXPECT_EQ(deadline_of(again), g.t0 + 402 + 401 + 240);
  EXPECT_EQ(gen.next_id(), twitter.compose({.timestamp = g.clk.now(), .worker = 7}));
}

/// Writes `value` as an earlier version kept it in the guard's own file.
void write_earlier_state(const std::string& path, std::int64_t value) {
  std::ofstream out(path, std::ios::trunc);
  char line[64];
  std::snprintf(line, sizeof line, "%20lld %20d\n", static_cast<long long>(value), 0);
  out << line;
}

// After the upgrade adopted the earlier version's file, that version ran again (a rollback)
// and minted further: its timestamp raises the state, the mark does not go down.
TEST(clock_guard_test, an_earlier_version_that_ran_again_raises_the_state) {
  using manual_gen = flakeid::classic_snowflake<twitter, flakeid::manual_clock>;
  guarded g;
  write_earlier_state(g.file, g.t0 - 1000);
  {
    flakeid::clock_guard_file guard = g.guard();
    manual_gen gen{guard, g.clk};
    EXPECT_EQ(guard.recorded()->time_since_epoch().count(), g.t0 - 1000) << "adopted";
    EXPECT_EQ(twitter.decompose(gen.next_id()).timestamp, g.clk.now());
  }                                         // records the clock at release plus one tick: t0 + 1
  write_earlier_state(g.file, g.t0 + 500);  // the earlier version, run again, minted up to here
  std::int64_t second_ts = 0;
  {
    flakeid::clock_guard_file guard = g.guard();
    manual_gen gen{guard, g.clk};
    ASSERT_TRUE(guard.recorded().has_value());
    EXPECT_EQ(guard.recorded()->time_since_epoch().count(), g.t0 + 500);
    second_ts = twitter.decompose(gen.next_id()).timestamp.time_since_epoch().count();
    EXPECT_EQ(second_ts, g.t0 + 501) << "waited past the earlier version's last timestamp";
  }
  // A timestamp below the state's changes nothing.
  write_earlier_state(g.file, g.t0);
  flakeid::clock_guard_file guard = g.guard();
  (void)guard.assign(twitter);
  EXPECT_EQ(guard.recorded()->time_since_epoch().count(), second_ts + 1);
}

}  // namespace
