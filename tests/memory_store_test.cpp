// The memory store proves what it holds: a namespace's lease records are the process's, so a
// store made again finds the ids that live leases of its predecessor hold; a renewal answers
// `taken` once the record is another holder's, and that holder waits out the recorded deadline.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using manual_gen = flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>;

flakeid::manual_clock new_year() {
  using namespace std::chrono;
  return flakeid::manual_clock{sys_days{2026y / January / 1}};
}

/// A lease that renews every 20 s of real time, so that none renews while a test runs.
flakeid::lease_options slow_lease(const flakeid::manual_clock& c, const std::string& ns) {
  flakeid::lease_options o;
  o.name_space = ns;
  o.ttl = 60s;
  o.safe_guard = 2s;
  o.use_clock(c);
  return o;
}

/// A claim of one of `count` ids for `holder` at `now`, recording `now + 50 s`.
flakeid::claim_request claim_at(flakeid::lease_time now, const std::string& holder,
                                std::uint64_t count) {
  flakeid::claim_request q;
  q.count = count;
  q.holder = holder;
  q.now = now;
  q.deadline = now + 50s;
  q.settled = now - 2s;
  return q;
}

/// The IDs that occur in both `a` and `b`.
std::size_t shared_ids(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  const std::set<std::uint64_t> in_a(a.begin(), a.end());
  std::size_t n = 0;
  for (const std::uint64_t id : b) n += in_a.count(id);
  return n;
}

TEST(memory_store_test, a_store_made_again_does_not_hand_out_an_id_a_live_lease_holds) {
  auto clk = new_year();
  const auto o = slow_lease(clk, "remade");
  // The first store is gone; its lease lives on (it keeps what it needs) and mints.
  std::unique_ptr<flakeid::lease> first;
  {
    const flakeid::memory_store store{{.name_space = "remade"}};
    first.reset(new flakeid::lease(store.lease(o)));  // a lease does not move
  }
  const flakeid::memory_store again{{.name_space = "remade"}};
  flakeid::lease second = again.lease(o);
  manual_gen ga{*first, clk};
  manual_gen gb{second, clk};
  EXPECT_EQ(ga.node(), (flakeid::node_id{0, 0}));
  EXPECT_EQ(gb.node(), (flakeid::node_id{0, 1}));
  std::vector<std::uint64_t> a_ids;
  std::vector<std::uint64_t> b_ids;
  for (int i = 0; i < 1000; ++i) {
    a_ids.push_back(ga.next_id());
    b_ids.push_back(gb.next_id());
  }
  EXPECT_EQ(shared_ids(a_ids, b_ids), 0U);
}

TEST(memory_store_test, stores_of_one_namespace_share_its_records_and_others_do_not) {
  auto clk = new_year();
  const flakeid::memory_store a{{.name_space = "shared"}};
  const flakeid::memory_store b{{.name_space = "shared"}};
  const flakeid::memory_store other{{.name_space = "other"}};
  auto la = a.lease(slow_lease(clk, "shared"));
  auto lb = b.lease(slow_lease(clk, "shared"));
  auto lo = other.lease(slow_lease(clk, "other"));
  EXPECT_EQ(la.acquire(4), 0U);
  EXPECT_EQ(lb.acquire(4), 1U);
  EXPECT_EQ(lo.acquire(4), 0U);
}

TEST(memory_store_test, a_renewal_answers_taken_once_the_record_is_another_holders) {
  auto clk = new_year();
  const auto o = slow_lease(clk, "taken");
  const auto state = std::make_shared<flakeid::detail::memory_store_state>();
  flakeid::detail::memory_lease_store store{state, o};
  const flakeid::lease_time t0 = clk.now();
  auto c = store.claim(claim_at(t0, "holder-a", 1));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 0U);
  EXPECT_FALSE(c->last.has_value());
  EXPECT_FALSE(c->lost_memory_at.has_value()) << "a memory store never loses its memory";
  EXPECT_EQ(store.renew(0, "holder-a", t0 + 55s), flakeid::renewal::held);
  EXPECT_EQ(store.renew(0, "holder-b", t0 + 55s), flakeid::renewal::taken) << "another token";
  // Busy until ttl + safe_guard (62 s) after the renewal; then holder-b takes it, with
  // holder-a's recorded deadline to wait out.
  clk.advance(61'999ms);
  EXPECT_FALSE(store.claim(claim_at(clk.now(), "holder-b", 1)).has_value());
  clk.advance(1ms);
  c = store.claim(claim_at(clk.now(), "holder-b", 1));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 0U);
  EXPECT_EQ(c->last, t0 + 55s);
  EXPECT_EQ(store.renew(0, "holder-a", t0 + 70s), flakeid::renewal::taken);
  // holder-a's late release changes nothing: the record stays holder-b's.
  store.release(0, "holder-a", t0 + 1s);
  EXPECT_EQ(store.renew(0, "holder-b", t0 + 115s), flakeid::renewal::held);
  EXPECT_FALSE(store.claim(claim_at(clk.now(), "holder-c", 1)).has_value());
}

TEST(memory_store_test, the_next_holder_mints_above_a_holder_that_stopped_renewing) {
  auto clk = new_year();
  const std::int64_t t0 = clk.now().time_since_epoch().count();
  flakeid::memory_store store{{.name_space = "stopped"}};
  auto o = slow_lease(clk, "stopped");
  o.max_ids = 1;
  o.max_wait = 5s;
  auto a = store.lease(o);
  manual_gen ga{a, clk};
  const std::uint64_t last_a = ga.next_id();
  // a never renews (its thread renews every 20 s of real time): 62 s on, its id is free.
  clk.advance(62s);
  EXPECT_THROW((void)ga.next_id(), flakeid::lease_lost_error) << "past its deadline";
  auto b = store.lease(o);
  manual_gen gb{b, clk};
  EXPECT_EQ(gb.node(), (flakeid::node_id{0, 0}));
  // a's recorded deadline: t0 + ttl - margin (ttl / 5 = 12 s).
  EXPECT_EQ(b.previous_last(), flakeid::lease_time{std::chrono::milliseconds{t0 + 48'000}});
  EXPECT_EQ(b.not_after(), flakeid::lease_time{std::chrono::milliseconds{t0 + 50'000}});
  EXPECT_GT(gb.next_id(), last_a);
}

}  // namespace
