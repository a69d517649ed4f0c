// The stores' shared shape: one object per backend that makes both leases (`.lease()`) and
// segment distributors (`.distributor(key)`), the options every store checks the same way, and
// the one decimal reader and timeout rule behind them. The memory and file stores run here; the
// Redis and PostgreSQL stores run the same lease scenarios through `.lease()` in
// tests/adapters.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <flakeid/detail/server_store.hpp>
#include <flakeid/flakeid.hpp>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "adapters/expect_error.hpp"
#include "adapters/lease_support.hpp"
#include "adapters/server_support.hpp"

namespace {

using namespace std::chrono_literals;
using flakeid_test::expect_error;
using manual_gen = flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>;

std::int64_t ms_of(const flakeid::manual_clock& c) { return c.now().time_since_epoch().count(); }
flakeid::lease_time at(std::int64_t unix_ms) {
  return flakeid::lease_time{std::chrono::milliseconds{unix_ms}};
}
std::int64_t ts_of(std::uint64_t id) {
  return manual_gen::decompose(id).timestamp.time_since_epoch().count();
}

/// A lease that renews every 20 s of real time, so that none renews while a test runs: what
/// the store holds changes only by what the test does. Its manual clock is not compared with
/// the host's (`max_skew`).
flakeid::lease_options slow_lease(const flakeid::manual_clock& c) {
  flakeid::lease_options o;
  o.ttl = 60s;
  o.safe_guard = 2s;
  return flakeid_test::on_manual_clock(o, c);
}

flakeid::manual_clock new_year() {
  using namespace std::chrono;
  return flakeid::manual_clock{sys_days{2026y / January / 1}};
}

// ---- memory store ---------------------------------------------------------------------------

TEST(memory_store_test, leases_take_distinct_ids_and_a_released_id_returns_after_safe_guard) {
  auto clk = new_year();
  const std::int64_t t0 = ms_of(clk);
  flakeid::memory_store store;
  auto a = store.lease(slow_lease(clk));
  auto b = store.lease(slow_lease(clk));
  manual_gen ga{a, clk};
  manual_gen gb{b, clk};
  EXPECT_EQ(ga.node(), (flakeid::node_id{0, 0}));
  EXPECT_EQ(gb.node(), (flakeid::node_id{0, 1}));
  const std::uint64_t last = ga.next_id();
  EXPECT_EQ(ts_of(last), t0);
  a.release();  // records the exact last timestamp: the ID's plus the generator's one-tick lead
  EXPECT_THROW((void)ga.next_id(), flakeid::lease_lost_error);

  // Within safe_guard of the release, id 0 is still busy: the next lease takes id 2.
  clk.advance(1s);
  auto c = store.lease(slow_lease(clk));
  manual_gen gc{c, clk};
  EXPECT_EQ(gc.node(), (flakeid::node_id{0, 2}));

  // Past it, id 0 is free and settled: the lowest free id is taken again, and minting resumes
  // at once because the clock is past the old last timestamp plus safe_guard.
  clk.advance(2s);
  auto d = store.lease(slow_lease(clk));
  manual_gen gd{d, clk};
  EXPECT_EQ(gd.node(), (flakeid::node_id{0, 0}));
  EXPECT_EQ(d.previous_last(), at(t0 + 1));
  EXPECT_EQ(ts_of(gd.next_id()), t0 + 3000);
}

TEST(memory_store_test, a_new_holder_waits_out_the_previous_deadline_plus_safe_guard) {
  auto clk = new_year();
  const std::int64_t t0 = ms_of(clk);
  flakeid::memory_store store;
  auto o = slow_lease(clk);
  o.max_ids = 1;  // one id: the second holder must take the first one's
  o.max_wait = 5s;
  {
    auto a = store.lease(o);
    manual_gen ga{a, clk};
    clk.advance(500ms);
    (void)ga.next_id();
  }                 // released at t0 + 500 with last timestamp t0 + 501
  clk.advance(1s);  // busy until t0 + 2500
  EXPECT_THROW((void)store.lease(o).assign(flakeid::layouts::twitter), flakeid::worker_id_error);
  clk.advance(1s);  // t0 + 2500: free, but not yet settled (settled: up to now - 2 s = t0 + 500)
  auto b = store.lease(o);
  manual_gen gb{b, clk};
  EXPECT_EQ(b.not_after(), at(t0 + 501 + 2000));
  EXPECT_EQ(ts_of(gb.next_id()), t0 + 2502) << "the first ID lies above the old one plus the guard";
}

TEST(memory_store_test, an_instance_takes_its_released_id_again_at_once) {
  auto clk = new_year();
  const std::int64_t t0 = ms_of(clk);
  flakeid::memory_store store;
  auto named = slow_lease(clk);
  named.instance = "pod-a";
  auto a = store.lease(named);
  auto b = store.lease(slow_lease(clk));
  manual_gen ga{a, clk};
  manual_gen gb{b, clk};
  EXPECT_EQ(ga.node(), (flakeid::node_id{0, 0}));
  EXPECT_EQ(ts_of(ga.next_id()), t0);
  a.release();  // last timestamp t0 + 1

  // Within safe_guard of the release a lease without an instance takes another id; instance
  // pod-a takes its own at once and mints above the last timestamp plus safe_guard.
  clk.advance(1s);
  auto c = store.lease(slow_lease(clk));
  manual_gen gc{c, clk};
  EXPECT_EQ(gc.node(), (flakeid::node_id{0, 2}));
  auto d = store.lease(named);
  manual_gen gd{d, clk};
  EXPECT_EQ(gd.node(), (flakeid::node_id{0, 0}));
  EXPECT_EQ(d.previous_last(), at(t0 + 1));
  EXPECT_EQ(d.not_after(), at(t0 + 2001));
  EXPECT_EQ(ts_of(gd.next_id()), t0 + 2002);
}

TEST(memory_store_test, a_second_lease_of_a_live_instance_is_refused_at_once) {
  auto clk = new_year();
  const std::int64_t t0 = ms_of(clk);
  flakeid::memory_store store{{.name_space = "orders"}};
  auto named = slow_lease(clk);
  named.instance = "pod-a";
  auto a = store.lease(named);
  EXPECT_EQ(a.acquire(4), 0U);
  expect_error<flakeid::instance_in_use_error>(
      [&] { (void)store.lease(named).acquire(4); },
      "flakeid: instance 'pod-a' already holds worker id 0 in namespace orders through another "
      "lease that is alive (memory store)");
  EXPECT_EQ(ms_of(clk), t0) << "refused without waiting";
  EXPECT_TRUE(a.valid());
}

TEST(memory_store_test, an_instance_takes_its_id_from_a_holder_whose_lease_ran_out) {
  auto clk = new_year();
  const std::int64_t t0 = ms_of(clk);
  flakeid::memory_store store;
  auto named = slow_lease(clk);  // ttl 60 s, safe_guard 2 s: deadline t0 + 48 s
  named.instance = "pod-a";
  auto a = store.lease(named);
  manual_gen ga{a, clk};
  (void)ga.next_id();
  clk.advance(62s + 1ms);  // not renewed: the record ran out (ttl + safe_guard)
  auto b = store.lease(named);
  manual_gen gb{b, clk};
  EXPECT_EQ(gb.node(), (flakeid::node_id{0, 0}));
  EXPECT_EQ(b.previous_last(), at(t0 + 48'000));
  EXPECT_EQ(ts_of(gb.next_id()), t0 + 62'001) << "the old deadline plus safe_guard is past";
  EXPECT_THROW((void)ga.next_id(), flakeid::lease_lost_error);
}

TEST(memory_store_test, a_lease_without_an_instance_that_takes_the_id_clears_the_record) {
  auto clk = new_year();
  flakeid::memory_store store;
  auto named = slow_lease(clk);
  named.instance = "pod-a";
  {
    auto a = store.lease(named);
    EXPECT_EQ(a.acquire(4), 0U);
  }
  clk.advance(3s);  // id 0 settled
  auto plain = store.lease(slow_lease(clk));
  EXPECT_EQ(plain.acquire(4), 0U);
  // pod-a has no id now: it claims as usual instead of watching another holder.
  auto again = store.lease(named);
  EXPECT_EQ(again.acquire(4), 1U);
  auto twin = store.lease(named);
  EXPECT_THROW((void)twin.acquire(4), flakeid::instance_in_use_error) << "and records it there";
}

/// Two leases hold both ids of namespace "orders" (max_ids 2) of a memory store; a third one,
/// with `wait_for_id` if given, fails to claim with `message`.
void expect_all_ids_leased(std::optional<std::chrono::milliseconds> wait_for_id,
                           const std::string& message) {
  auto clk = new_year();
  flakeid::memory_store store{{.name_space = "orders"}};
  auto o = slow_lease(clk);
  o.max_ids = 2;
  auto a = store.lease(o);
  auto b = store.lease(o);
  (void)a.assign(flakeid::layouts::twitter);
  (void)b.assign(flakeid::layouts::twitter);
  if (wait_for_id) o.wait_for_id = *wait_for_id;
  auto c = store.lease(o);
  expect_error<flakeid::worker_id_error>([&] { (void)c.assign(flakeid::layouts::twitter); },
                                         message);
}

TEST(memory_store_test, all_ids_leased_is_a_worker_id_error_that_names_the_count) {
  expect_all_ids_leased(
      std::nullopt,
      "flakeid: no free worker id in namespace orders: all 2 ids are leased, or were used "
      "further ahead of this clock than max_wait (1000 ms) (memory store)");
}

TEST(memory_store_test, wait_for_id_keeps_trying_until_an_id_comes_free) {
  auto clk = new_year();
  const std::int64_t t0 = ms_of(clk);
  flakeid::memory_store store{{.name_space = "orders"}};
  auto o = slow_lease(clk);  // ttl 60 s, safe_guard 2 s: one try each 6.2 s of this clock
  o.max_ids = 1;
  auto a = store.lease(o);
  (void)a.assign(flakeid::layouts::twitter);

  // Nobody lets go: the wait ends at exactly wait_for_id on this clock, with the error.
  auto w = o;
  w.wait_for_id = 20s;
  auto b = store.lease(w);
  expect_error<flakeid::worker_id_error>(
      [&] { (void)b.acquire(1); },
      "flakeid: worker id 0 in namespace orders is held by another process, or was let go less "
      "than safe_guard (2000 ms) ago (memory store)");
  EXPECT_EQ(ms_of(clk), t0 + 20'000);

  // The holder lets go during the wait: the id is taken once safe_guard has passed, and the
  // first ID lies above the holder's last timestamp plus the guard.
  int tries = 0;
  w.sleep = [&](std::chrono::milliseconds d) {
    if (++tries == 2) a.release();  // at t0 + 20 s + 6.2 s
    clk.advance(d);
  };
  auto c = store.lease(w);
  EXPECT_EQ(c.acquire(1), 0U);
  EXPECT_EQ(tries, 2) << "released as the second wait began, free and settled at its end";
  EXPECT_EQ(c.not_after(), at(t0 + 20'000 + 6'200 + 2'000));
  EXPECT_EQ(ms_of(clk), t0 + 20'000 + 2 * 6'200) << "past not_after already: no further wait";

  expect_error<flakeid::invalid_option_error>(
      [&] {
        auto bad = o;
        bad.wait_for_id = -1ms;
        (void)store.lease(bad);
      },
      "flakeid: lease wait_for_id of -1 ms is negative: use 0 or more");
}

TEST(memory_store_test, wait_for_id_names_itself_when_all_ids_stay_leased) {
  expect_all_ids_leased(
      1s,
      "flakeid: no free worker id in namespace orders: all 2 ids are leased, or were used "
      "further ahead of this clock than max_wait (1000 ms), for wait_for_id (1000 ms) (memory "
      "store)");
}

TEST(memory_store_test, copies_share_counters_and_leases) {
  auto clk = new_year();
  flakeid::memory_store store;
  const flakeid::memory_store copy = store;
  EXPECT_EQ(store.distributor("orders").next_max_id(10), 10U);
  EXPECT_EQ(copy.distributor("orders").next_max_id(5), 15U);
  EXPECT_EQ(store.current("orders"), 15U);
  EXPECT_EQ(copy.calls(), 2U);
  auto a = store.lease(slow_lease(clk));
  auto b = copy.lease(slow_lease(clk));
  EXPECT_EQ(a.assign(flakeid::layouts::twitter).node, (flakeid::node_id{0, 0}));
  EXPECT_EQ(b.assign(flakeid::layouts::twitter).node, (flakeid::node_id{0, 1}));
}

// ---- file store -----------------------------------------------------------------------------

TEST(file_store_test, one_directory_holds_lock_files_and_counters) {
  const std::filesystem::path dir =
      std::filesystem::path(flakeid_test::make_temp_dir("flakeid-store")) / "ids";
  auto clk = new_year();
  const flakeid::file_store store{dir, {.name_space = "orders"}};
  EXPECT_FALSE(std::filesystem::exists(dir)) << "a store touches the disk only when used";
  {
    auto a = store.lease(slow_lease(clk));
    auto b = flakeid::file_store{store}.lease(slow_lease(clk));
    EXPECT_EQ(a.assign(flakeid::layouts::twitter).node, (flakeid::node_id{0, 0}));
    EXPECT_EQ(b.assign(flakeid::layouts::twitter).node, (flakeid::node_id{0, 1}));
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / "flakeid-orders-0.lease"));
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / "flakeid-orders-1.lease"));
  }
  auto d = store.distributor("orders");
  EXPECT_EQ(d.next_max_id(10), 10U);
  EXPECT_EQ(store.distributor("orders").next_max_id(10), 20U);
  EXPECT_EQ(store.current("orders"), 20U);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "orders.segment"));
  std::filesystem::remove_all(dir.parent_path());
}

TEST(file_store_test, a_full_namespace_takes_an_id_let_go_a_moment_ago_after_safe_guard) {
  // Two ids: one held, the other released just now. No id needs a wait within max_wait (1 s;
  // safe_guard is 2 s): the claim takes the released one and waits for its last timestamp plus
  // safe_guard, instead of reporting no free id.
  const std::filesystem::path dir =
      std::filesystem::path(flakeid_test::make_temp_dir("flakeid-store")) / "ids";
  // A private directory: the lock files made in it wait for nothing (in one others may write,
  // each made file waits ttl + safe_guard; file_store_test.cpp).
  ASSERT_TRUE(std::filesystem::create_directory(dir));
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
  auto clk = new_year();
  const std::int64_t t0 = ms_of(clk);
  const flakeid::file_store store{dir, {.name_space = "orders"}};
  auto o = slow_lease(clk);
  o.max_ids = 2;
  auto a = store.lease(o);
  EXPECT_EQ(a.acquire(2), 0U);
  std::uint64_t last = 0;
  {
    auto b = store.lease(o);
    manual_gen gb{b, clk};
    EXPECT_EQ(gb.node(), (flakeid::node_id{0, 1}));
    last = gb.next_id();
  }  // released: id 1 records the last timestamp, t0 + 1 (the generator's one-tick lead)
  auto c = store.lease(o);
  manual_gen gc{c, clk};  // claims among max_ids = 2
  EXPECT_EQ(gc.node(), (flakeid::node_id{0, 1}));
  EXPECT_EQ(c.previous_last(), at(t0 + 1));
  EXPECT_EQ(c.not_after(), at(t0 + 1 + 2'000));
  EXPECT_EQ(ms_of(clk), t0 + 2'002) << "waited on the lease's clock for the guard to pass";
  const std::uint64_t first = gc.next_id();
  EXPECT_EQ(ts_of(first), t0 + 2'002);
  EXPECT_GT(first, last);

  // A record more than max_wait ahead of this clock (a holder whose clock ran fast) is still
  // skipped: with the other id held, no id is free.
  c.release();             // records this clock's time plus the one-tick lead
  clk.step_back(1'500ms);  // the record now lies about 1.5 s ahead
  auto d = store.lease(o);
  expect_error<flakeid::worker_id_error>(
      [&] { (void)d.acquire(2); },
      "flakeid: no free worker id in namespace orders: all 2 ids are leased, or were used "
      "further ahead of this clock than max_wait (1000 ms) (file lease " +
          dir.string() + ")");
  std::filesystem::remove_all(dir.parent_path());
}

// ---- what every store checks ----------------------------------------------------------------

TEST(store_options_test, every_store_rejects_the_same_bad_options_with_the_same_words) {
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::memory_store({.name_space = ""}); },
      "flakeid: memory store namespace '' is invalid: use 1 to 40 letters, digits, '_' or '-'");
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::file_store("/tmp", {.name_space = std::string(41, 'a')}); },
      "flakeid: file store namespace '" + std::string(41, 'a') +
          "' is invalid: use 1 to 40 letters, digits, '_' or '-'");
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::file_store("/tmp", {.connect_timeout = 0ms}); },
      "flakeid: file store connect_timeout of 0 ms is too short: use at least 1 ms");
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::memory_store({.io_timeout = -1ms}); },
      "flakeid: memory store io_timeout of -1 ms is too short: use 0 (the default) or more");
  expect_error<flakeid::invalid_option_error>([] { (void)flakeid::memory_store{}.distributor(""); },
                                              "flakeid: a segment counter key must not be empty");
  // A lease made by a store lives in the store's namespace; naming another one is an error,
  // not a silent choice between the two.
  flakeid::lease_options o;
  o.name_space = "billing";
  expect_error<flakeid::invalid_option_error>(
      [&] { (void)flakeid::memory_store({.name_space = "orders"}).lease(o); },
      "flakeid: lease namespace 'billing' differs from the store's namespace 'orders': set it in "
      "the store's options");
  o.name_space = "orders";
  EXPECT_NO_THROW((void)flakeid::memory_store({.name_space = "orders"}).lease(o));
  // The lease itself checks its timeouts the same way.
  o.io_timeout = -3ms;
  expect_error<flakeid::invalid_option_error>(
      [&] { (void)flakeid::memory_store({.name_space = "orders"}).lease(o); },
      "flakeid: lease io_timeout of -3 ms is too short: use 0 (the default) or more");
}

TEST(store_options_test, io_timeout_zero_is_the_protocols_default) {
  using flakeid::detail::lease_io_timeout;
  EXPECT_EQ(lease_io_timeout(0ms, 10s), 2s) << "a lease: ttl / 5";
  EXPECT_EQ(lease_io_timeout(0ms, 30ms), 10ms) << "at least 10 ms";
  EXPECT_EQ(lease_io_timeout(250ms, 10s), 250ms) << "a set timeout wins";
  EXPECT_EQ(flakeid::detail::io_timeout_or(0ms, flakeid::detail::segment_io_timeout), 2s);
}

TEST(store_options_test, numbers_from_a_store_are_read_whole_or_not_at_all) {
  using flakeid::detail::parse_decimal;
  EXPECT_EQ(parse_decimal<std::uint64_t>("0"), std::optional<std::uint64_t>{0});
  EXPECT_EQ(parse_decimal<std::uint64_t>("18446744073709551615"),
            std::optional<std::uint64_t>{std::numeric_limits<std::uint64_t>::max()});
  EXPECT_EQ(parse_decimal<std::uint64_t>("18446744073709551616"), std::nullopt);
  EXPECT_EQ(parse_decimal<std::uint64_t>("-1"), std::nullopt);
  EXPECT_EQ(parse_decimal<std::int64_t>("-1"), std::optional<std::int64_t>{-1});
  EXPECT_EQ(parse_decimal<std::int64_t>("-9223372036854775808"),
            std::optional<std::int64_t>{std::numeric_limits<std::int64_t>::min()});
  EXPECT_EQ(parse_decimal<std::int64_t>("+1"), std::nullopt);
  EXPECT_EQ(parse_decimal<std::int64_t>(""), std::nullopt);
  EXPECT_EQ(parse_decimal<std::int64_t>("12a"), std::nullopt);
  EXPECT_EQ(parse_decimal<std::int64_t>(" 12"), std::nullopt);
}

TEST(errors_test, the_option_errors_are_flakeid_types_under_the_standard_ones) {
  static_assert(std::is_base_of_v<std::invalid_argument, flakeid::invalid_option_error>);
  static_assert(std::is_base_of_v<flakeid::worker_id_error, flakeid::lease_store_error>);
  EXPECT_THROW((void)flakeid::layouts::seed_gene.shard_of(1, 3), flakeid::invalid_option_error);
}

}  // namespace
