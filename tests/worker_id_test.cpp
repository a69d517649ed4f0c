// Worker-id sources (fixed, environment, StatefulSet ordinal, host/pid guess) and the lease
// fence a generator honours.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <atomic>
#include <cstdlib>
#include <flakeid/host_worker_id.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "generator_support.hpp"

using namespace std::chrono;
using namespace flakeid_test;

namespace {

using classic = flakeid::classic_snowflake<flakeid::layouts::twitter, flakeid::manual_clock>;
constexpr auto ticks0 = static_cast<std::uint64_t>(start_ms - twitter_epoch);

template <class Error, class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no exception";
}

TEST(worker_id_test, fixed_node_uses_the_given_ids) {
  flakeid::manual_clock clock{start_time};
  classic gen{flakeid::fixed_node{flakeid::datacenter_id{2}, flakeid::worker_id{30}}, clock};
  EXPECT_EQ(gen.node(), (flakeid::node_id{2, 30}));
  EXPECT_EQ(gen.node_source(), "fixed");
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0, 2, 30, 0));
  EXPECT_EQ(error_of<flakeid::field_range_error>([&] {
              classic g{flakeid::fixed_node{flakeid::worker_id{32}}, clock};
            }),
            "flakeid: worker 32 is out of range [0, 31] for a 5-bit field");
}

TEST(worker_id_test, a_node_number_fills_the_worker_bits_then_the_datacenter_bits) {
  namespace L = flakeid::layouts;
  EXPECT_EQ(flakeid::detail::node_bits(L::twitter), 10U);
  EXPECT_EQ(flakeid::detail::last_node(L::twitter), 1023U);
  EXPECT_EQ(flakeid::detail::node_of(L::twitter, 0), (flakeid::node_id{0, 0}));
  EXPECT_EQ(flakeid::detail::node_of(L::twitter, 31), (flakeid::node_id{0, 31}));
  EXPECT_EQ(flakeid::detail::node_of(L::twitter, 32), (flakeid::node_id{1, 0}));
  EXPECT_EQ(flakeid::detail::node_of(L::twitter, 1023), (flakeid::node_id{31, 31}));
  EXPECT_EQ(flakeid::detail::last_node(L::instagram), 8191U);
  EXPECT_EQ(flakeid::detail::node_of(L::instagram, 8191), (flakeid::node_id{0, 8191}));
  // No node field at all: one node, number 0.
  EXPECT_EQ(flakeid::detail::node_bits(L::mastodon), 0U);
  EXPECT_EQ(flakeid::detail::last_node(L::mastodon), 0U);
  EXPECT_EQ(flakeid::detail::node_of(L::mastodon, 0), (flakeid::node_id{0, 0}));
}

TEST(worker_id_test, env_worker_id_reads_the_variables) {
  ::setenv("FLAKEID_TEST_WORKER", "17", 1);
  ::setenv("FLAKEID_TEST_DC", "3", 1);
  flakeid::manual_clock clock{start_time};
  classic gen{flakeid::env_worker_id{"FLAKEID_TEST_WORKER", "FLAKEID_TEST_DC"}, clock};
  EXPECT_EQ(gen.node(), (flakeid::node_id{3, 17}));
  EXPECT_EQ(gen.node_source(), "env FLAKEID_TEST_WORKER");
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0, 3, 17, 0));

  const auto only_worker =
      flakeid::env_worker_id{"FLAKEID_TEST_WORKER", ""}.assign(flakeid::layouts::twitter);
  EXPECT_EQ(only_worker.node, (flakeid::node_id{0, 17}));
}

TEST(worker_id_test, env_worker_id_rejects_a_missing_or_bad_variable) {
  ::unsetenv("FLAKEID_TEST_MISSING");
  flakeid::manual_clock clock{start_time};
  EXPECT_EQ(error_of<flakeid::worker_id_error>([&] {
              classic g{flakeid::env_worker_id{"FLAKEID_TEST_MISSING", ""}, clock};
            }),
            "flakeid: environment variable FLAKEID_TEST_MISSING is not set");
  for (const char* bad : {"abc", "", "12x", "-1", " 3"}) {
    ::setenv("FLAKEID_TEST_BAD", bad, 1);
    EXPECT_EQ(error_of<flakeid::worker_id_error>([&] {
                classic g{flakeid::env_worker_id{"FLAKEID_TEST_BAD", ""}, clock};
              }),
              std::string("flakeid: environment variable FLAKEID_TEST_BAD is '") + bad +
                  "', not a decimal number");
  }
  ::setenv("FLAKEID_TEST_BIG", "32", 1);
  EXPECT_EQ(error_of<flakeid::field_range_error>([&] {
              classic g{flakeid::env_worker_id{"FLAKEID_TEST_BIG", ""}, clock};
            }),
            "flakeid: worker 32 is out of range [0, 31] for a 5-bit field");
}

TEST(worker_id_test, statefulset_ordinal_takes_the_number_after_the_last_dash) {
  flakeid::manual_clock clock{start_time};
  classic gen{flakeid::statefulset_ordinal{"orders-12"}, clock};
  EXPECT_EQ(gen.node(), (flakeid::node_id{0, 12}));
  EXPECT_EQ(gen.node_source(), "statefulset ordinal of orders-12");
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0, 0, 12, 0));
  EXPECT_EQ(
      flakeid::statefulset_ordinal{"order-api-7"}.assign(flakeid::layouts::twitter).node.worker,
      7U);
  EXPECT_EQ(flakeid::statefulset_ordinal{"orders-1023"}.assign(flakeid::layouts::cosid).node.worker,
            1023U);
}

TEST(worker_id_test, statefulset_ordinal_rejects_names_without_a_usable_ordinal) {
  const auto& l = flakeid::layouts::twitter;
  const std::pair<const char*, const char*> refused[] = {
      {"orders",
       "flakeid: host name 'orders' has no StatefulSet ordinal (expected <name>-<number>)"},
      {"orders-",
       "flakeid: host name 'orders-' has no StatefulSet ordinal (expected <name>-<number>)"},
      {"orders-abc", "flakeid: host name 'orders-abc' ends in 'abc', not a StatefulSet ordinal"}};
  for (const auto& r : refused) {
    const char* host = r.first;
    EXPECT_EQ(error_of<flakeid::worker_id_error>(
                  [&] { (void)flakeid::statefulset_ordinal{host}.assign(l); }),
              r.second);
  }
  EXPECT_EQ(error_of<flakeid::field_range_error>(
                [&] { (void)flakeid::statefulset_ordinal{"orders-32"}.assign(l); }),
            "flakeid: worker 32 is out of range [0, 31] for a 5-bit field");
  flakeid::manual_clock clock{start_time};
  EXPECT_THROW((classic{flakeid::statefulset_ordinal{"orders-99"}, clock}),
               flakeid::field_range_error);
}

TEST(worker_id_test, private_ipv4_node_takes_the_low_16_bits_as_sonyflake_does) {
  const auto& sony = flakeid::layouts::sonyflake;
  const auto worker_of = [&](const char* address) {
    return flakeid::private_ipv4_node{address}.assign(sony).node.worker;
  };
  EXPECT_EQ(worker_of("10.1.2.3"), 2U * 256 + 3);
  EXPECT_EQ(worker_of("192.168.255.254"), 65534U);
  EXPECT_EQ(worker_of("172.31.0.1"), 1U);
  EXPECT_EQ(worker_of("172.16.7.0"), 7U * 256);
  const auto a = flakeid::private_ipv4_node{"10.0.4.2"}.assign(sony);
  EXPECT_EQ(a.node, (flakeid::node_id{0, 1026}));
  EXPECT_EQ(a.source, "low 16 bits of private IPv4 10.0.4.2");
  for (const char* bad : {"8.8.8.8", "172.32.0.1", "192.169.0.1", "10.1.2", "10.1.2.3.4",
                          "10.1.2.256", "10..2.3", "ten.1.2.3", "10.1.2.3 "}) {
    EXPECT_EQ(error_of<flakeid::worker_id_error>(
                  [&] { (void)flakeid::private_ipv4_node{bad}.assign(sony); }),
              std::string("flakeid: '") + bad +
                  "' is not a private IPv4 address (10/8, 172.16/12, 192.168/16)");
  }
  // Twitter's 5 worker bits cannot hold 16.
  EXPECT_EQ(error_of<flakeid::field_range_error>([&] {
              (void)flakeid::private_ipv4_node{"10.1.2.3"}.assign(flakeid::layouts::twitter);
            }),
            "flakeid: worker 515 is out of range [0, 31] for a 5-bit field");
  // This machine's own address: an id below 2^16 from its first private IPv4, or the error
  // that says there is none.
  try {
    const auto own = flakeid::private_ipv4_node{}.assign(sony);
    EXPECT_LE(own.node.worker, 65535U);
    EXPECT_TRUE(own.source.starts_with("low 16 bits of private IPv4 ")) << own.source;
  } catch (const flakeid::worker_id_error& e) {
    EXPECT_STREQ(e.what(),
                 "flakeid: no network interface that is up has a private IPv4 address (10/8, "
                 "172.16/12, 192.168/16)");
  }
}

// Interfaces as `getifaddrs` lists them: a name, an IPv4 address, the flags.
struct interface_entry {
  std::string name;
  const char* ip;
  unsigned flags;
};
constexpr auto up = static_cast<unsigned>(IFF_UP);
constexpr auto loopback = static_cast<unsigned>(IFF_UP | IFF_LOOPBACK);

// The address `private_ipv4_node{}` takes from `entries` (docker0 and virbr0 are bridges), and
// in `passed_over` the bridges' it passed over.
std::string own_address(std::vector<interface_entry> entries, std::string& passed_over) {
  std::vector<sockaddr_in> addresses(entries.size());
  std::vector<ifaddrs> list(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    addresses[k].sin_family = AF_INET;
    EXPECT_EQ(::inet_pton(AF_INET, entries[k].ip, &addresses[k].sin_addr), 1);
    list[k].ifa_name = entries[k].name.data();
    list[k].ifa_flags = entries[k].flags;
    list[k].ifa_addr = reinterpret_cast<sockaddr*>(&addresses[k]);
    list[k].ifa_next = k + 1 < entries.size() ? &list[k + 1] : nullptr;
  }
  const auto bridge = [](const char* name) {
    return std::string_view(name) == "docker0" || std::string_view(name) == "virbr0";
  };
  return flakeid::detail::own_private_ipv4(list.data(), bridge, passed_over);
}

// Two hosts with public addresses on eth0 and Docker's bridge took docker0's 172.17.0.1, both
// worker 1 (2 hosts x 1,000,000 IDs: 933,888 duplicates). A bridge's address is every such
// host's: it is passed over, and a host with no other private address is told to name its own.
TEST(worker_id_test, private_ipv4_node_passes_over_a_bridges_address_that_other_hosts_have) {
  std::string passed_over;
  EXPECT_EQ(own_address({{"eth0", "203.0.113.5", up}, {"docker0", "172.17.0.1", up}}, passed_over),
            "");
  EXPECT_EQ(passed_over, "172.17.0.1 on docker0");
  passed_over.clear();
  EXPECT_EQ(own_address({{"virbr0", "192.168.122.1", up},
                         {"docker0", "172.17.0.1", up},
                         {"eth0", "10.1.2.3", up}},
                        passed_over),
            "10.1.2.3");
  EXPECT_EQ(passed_over, "192.168.122.1 on virbr0, 172.17.0.1 on docker0");
  // Neither an address on a loopback (an anycast address that many hosts carry) nor one on an
  // interface that is down.
  passed_over.clear();
  EXPECT_EQ(
      own_address(
          {{"lo", "10.9.9.9", loopback}, {"eth0", "10.0.0.1", 0}, {"eth1", "192.168.1.20", up}},
          passed_over),
      "192.168.1.20");
  EXPECT_EQ(passed_over, "");
}

TEST(worker_id_test, host_pid_guess_stays_within_the_layouts_fields) {
  for (const flakeid::layout* l : {&flakeid::layouts::twitter, &flakeid::layouts::cosid,
                                   &flakeid::layouts::cosid_js, &flakeid::layouts::sonyflake}) {
    const auto a = flakeid::host_pid_guess{}.assign(*l);
    EXPECT_LE(a.node.worker, l->max_value(flakeid::field_kind::worker));
    EXPECT_LE(a.node.datacenter, l->max_value(flakeid::field_kind::datacenter));
    EXPECT_EQ(a.source, "guess from host name and pid (may collide)");
  }
  flakeid::manual_clock clock{start_time};
  EXPECT_NO_THROW((classic{flakeid::host_pid_guess{}, clock}));
}

// ---- lease fence ----------------------------------------------------------------------------------

/// The refusal of an ID of `ms` by a fence whose deadline `deadline` is not confirmed anew.
std::string refused_text(std::int64_t ms, std::int64_t deadline) {
  return "flakeid: the worker-id lease does not cover timestamp " + std::to_string(ms) +
         " (Unix ms): it holds until " + std::to_string(deadline) +
         " and its renewal is not confirmed; minting stops until it is";
}

flakeid::worker_assignment leased(flakeid::fence_ptr fence, std::int64_t not_after = INT64_MIN) {
  return {flakeid::node_id{1, 7}, not_after, std::move(fence), "lease"};
}

TEST(worker_id_test, the_fence_is_a_deadline_on_each_ids_timestamp) {
  auto fence = flakeid::fence_ptr::make();
  fence->deadline_unix_ms = start_ms + 2;  // IDs of ticks start_ms and start_ms + 1 only
  flakeid::manual_clock clock{start_time};
  classic gen{leased(fence), clock};
  EXPECT_EQ(gen.node_source(), "lease");
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0, 1, 7, 0));
  EXPECT_EQ(fence->last_unix_ms.load(), start_ms);
  clock.advance(1ms);
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0 + 1, 1, 7, 0));

  clock.advance(1ms);
  EXPECT_EQ(error_of<flakeid::lease_lost_error>([&] { (void)gen.next_id(); }),
            refused_text(start_ms + 2, start_ms + 2));
  std::uint64_t out[2];
  EXPECT_THROW(gen.next_ids(out), flakeid::lease_lost_error);
  EXPECT_EQ(fence->last_unix_ms.load(), start_ms + 1);  // nothing minted, nothing published

  fence->deadline_unix_ms = start_ms + 10;  // a renewal confirmed
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0 + 2, 1, 7, 0));
  EXPECT_EQ(fence->last_unix_ms.load(), start_ms + 2);
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0 + 2, 1, 7, 1));

  fence->deadline_unix_ms = INT64_MIN;  // released or lost
  EXPECT_EQ(error_of<flakeid::lease_lost_error>([&] { (void)gen.next_id(); }),
            "flakeid: the worker-id lease does not cover timestamp " +
                std::to_string(start_ms + 2) +
                " (Unix ms): the lease was released or lost, or this is a forked child; take a "
                "new lease");
}

TEST(worker_id_test, a_borrowed_tick_is_fenced_like_a_tick_read_from_the_clock) {
  // Borrowing built a lead of 3 ticks. The deadline then comes down to the tick the generator
  // counts on in, though it stays above the clock: the next ID, which would take that tick's
  // next sequence, is refused. Once the deadline is back, minting goes on with that very
  // sequence: the one the refused call took is given back.
  using borrowing = flakeid::basic_snowflake<
      flakeid::layouts::twitter, flakeid::manual_clock,
      flakeid::policies<flakeid::zero_start, flakeid::borrow_ticks<5>, flakeid::throw_on_backwards,
                        flakeid::multi_threaded>>;
  auto fence = flakeid::fence_ptr::make();
  flakeid::manual_clock clock{start_time};
  borrowing gen{leased(fence), clock};
  for (int k = 0; k < 3 * 4096; ++k) (void)gen.next_id();     // ticks 0 to 2
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0 + 3, 1, 7, 0));  // borrowed, 3 ahead
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0 + 3, 1, 7, 1));

  fence->deadline_unix_ms = start_ms + 3;
  EXPECT_EQ(error_of<flakeid::lease_lost_error>([&] { (void)gen.next_id(); }),
            refused_text(start_ms + 3, start_ms + 3));
  std::uint64_t out[2];
  EXPECT_THROW(gen.next_ids(out), flakeid::lease_lost_error);

  fence->deadline_unix_ms = start_ms + 10;
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0 + 3, 1, 7, 2));
  EXPECT_EQ(clock.now(), start_time) << "the clock never moved";
}

/// Counts its destructions, for the counted pointer's tests.
struct destruction_probe {
  std::atomic<int>* destroyed;
  ~destruction_probe() { destroyed->fetch_add(1); }
};

TEST(worker_id_test, fence_ptr_copies_share_one_fence_that_goes_with_the_last) {
  flakeid::fence_ptr none;
  EXPECT_FALSE(none);
  EXPECT_TRUE(none == nullptr);
  EXPECT_EQ(none.get(), nullptr);
  EXPECT_EQ(none.use_count(), 0);

  auto a = flakeid::fence_ptr::make();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->deadline_unix_ms.load(), INT64_MAX) << "a new fence sets no limit";
  EXPECT_EQ(a->last_unix_ms.load(), INT64_MIN);
  flakeid::fence_ptr b = a;
  EXPECT_EQ(a.use_count(), 2);
  EXPECT_TRUE(a == b);
  b->deadline_unix_ms = 42;
  EXPECT_EQ(a->deadline_unix_ms.load(), 42) << "copies share the fence";
  flakeid::fence_ptr c = std::move(b);
  EXPECT_FALSE(b);  // NOLINT(bugprone-use-after-move): a moved-from pointer is empty
  EXPECT_EQ(c.get(), a.get());
  EXPECT_EQ(a.use_count(), 2);
  c = flakeid::fence_ptr::make();
  EXPECT_FALSE(c == a);
  EXPECT_EQ(a.use_count(), 1);
  c = a;  // the fence c held goes
  EXPECT_EQ(a.use_count(), 2);

  std::atomic<int> destroyed{0};
  {
    auto p = flakeid::detail::counted_ptr<destruction_probe>::make(&destroyed);
    {
      const auto q = p;
      auto r = p;
      r = q;
      auto s = std::move(r);
      s = nullptr;
    }
    EXPECT_EQ(destroyed.load(), 0) << "freed while a pointer still held it";
    const auto& same = p;
    p = same;  // assigning a pointer to itself keeps the object
    EXPECT_EQ(destroyed.load(), 0);
    EXPECT_EQ(p.use_count(), 1);
  }
  EXPECT_EQ(destroyed.load(), 1) << "the last pointer frees the object, once";
}

TEST(worker_id_test, lease_fence_publishes_the_newest_tick_of_a_gene_generator) {
  auto fence = flakeid::fence_ptr::make();
  flakeid::manual_clock clock{start_time};
  flakeid::gene_snowflake<flakeid::layouts::seed_gene, flakeid::manual_clock> gen{leased(fence),
                                                                                  clock};
  (void)gen.next_id(1);
  clock.advance(5ms);
  (void)gen.next_id(2);
  EXPECT_EQ(fence->last_unix_ms.load(), start_ms + 5);
  EXPECT_EQ(gen.last_tick_time(), start_time + 5ms);
}

TEST(worker_id_test, not_after_makes_the_first_id_come_from_a_later_tick) {
  flakeid::manual_clock clock{start_time};
  // The previous holder minted in the tick the clock now reads.
  classic gen{leased(nullptr, start_ms), clock};
  EXPECT_EQ(gen.next_id(), twitter_id(ticks0 + 1, 1, 7, 0));
  EXPECT_EQ(clock.sleeps(), 1U);
  EXPECT_EQ(clock.now(), start_time + 1ms);
}

TEST(worker_id_test, not_after_ahead_of_the_clock_is_a_step_back_for_the_policy) {
  flakeid::manual_clock clock{start_time};
  classic strict{leased(nullptr, start_ms + 5), clock};
  try {
    (void)strict.next_id();
    FAIL() << "no exception";
  } catch (const flakeid::clock_backwards_error& e) {
    EXPECT_EQ(e.step(), 5ms);
  }
  flakeid::cosid_snowflake<flakeid::layouts::cosid, flakeid::manual_clock> patient{
      flakeid::worker_assignment{flakeid::node_id{0, 7}, start_ms + 5, nullptr, "lease"}, clock};
  const std::uint64_t id = patient.next_id();
  EXPECT_EQ(id, cosid_id(static_cast<std::uint64_t>(start_ms + 6 - cosid_epoch), 7, 0));
  EXPECT_EQ(clock.now(), start_time + 6ms);
}

}  // namespace
