// redis_distributor against a real redis-server (append-only, fsync always) started for each
// test (see test_servers.hpp).
#include <flakeid/adapters/redis.hpp>
#include <flakeid/adapters/redis_segment.hpp>  // the names before redis_store, still in use below

#include <thread>

#include "expect_error.hpp"
#include "segment_scenarios.hpp"
#include "test_servers.hpp"

namespace {

using namespace flakeid_test;

static_assert(flakeid::keyed_segment_distributor<flakeid::redis_distributor>);
static_assert(flakeid::expiring_segment_distributor<flakeid::redis_distributor>);

struct redis_backend {
  using store_type = flakeid::redis_store;
  using distributor_type = flakeid::redis_distributor;
  redis_server server{true};
  /// A store in namespace `ns` whose connect and I/O timeouts are both `timeout`.
  store_type store(const std::string& ns, std::chrono::milliseconds timeout) const {
    return store_type{server.options(),
                      {.name_space = ns, .connect_timeout = timeout, .io_timeout = timeout}};
  }
  void stop() { server.stop(); }
  void start() { server.start(); }
};

class redis_segment_test : public ::testing::Test {
 protected:
  void SetUp() override {
    FLAKEID_REQUIRE_SERVER(b.server.available(), b.server.missing());
    b.start();
  }
  redis_backend b;
};

TEST_F(redis_segment_test, forty_processes_on_chains_call_the_store_once_per_segment) {
  forty_processes_on_chains(b);
}
TEST_F(redis_segment_test, processes_on_segment_generators_waste_no_segment) {
  processes_on_segment_generators(b);
}
TEST_F(redis_segment_test, server_outage_drains_the_chain_fails_then_resumes) { server_outage(b); }
TEST_F(redis_segment_test, restart_after_sigkill_never_repeats_a_number) {
  restart_after_sigkill(b);
}
TEST_F(redis_segment_test, grouped_counter_restarts_at_one_after_midnight) {
  grouped_counter_across_midnight(b);
}
TEST_F(redis_segment_test, idle_counters_expire_when_asked) { counters_expire_when_asked(b); }

#if defined(FLAKEID_REDIS_TLS)
/// The same scenarios over TLS (CA and certificate made at test time).
class redis_tls_segment_test : public ::testing::Test {
 protected:
  void SetUp() override {
    FLAKEID_REQUIRE_SERVER(b.server.available(), b.server.missing());
    b.start();
  }
  redis_backend b{redis_server{redis_config{.durable = true, .tls = true}}};
};

TEST_F(redis_tls_segment_test, forty_processes_on_chains_call_the_store_once_per_segment) {
  forty_processes_on_chains(b);
}
TEST_F(redis_tls_segment_test, restart_after_sigkill_never_repeats_a_number) {
  restart_after_sigkill(b);
}
#endif

TEST_F(redis_segment_test, a_counter_that_may_expire_gets_a_ttl) {
  auto store = b.store(unique_segment_ns("expiry"), patient);
  flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
  const auto pttl = [&](const std::string& key) { return admin.command({"PTTL", key})->integer; };
  auto day = store.distributor("d@20250318");
  day.expire_after(10min);
  EXPECT_EQ(day.next_max_id(10), 10U);
  EXPECT_GT(pttl(day.redis_key()), 0);
  EXPECT_LE(pttl(day.redis_key()), 600'000);
  auto plain = store.distributor("plain");
  EXPECT_EQ(plain.next_max_id(5), 5U);
  EXPECT_EQ(pttl(plain.redis_key()), -1) << "no expiry unless asked for";
}

TEST_F(redis_segment_test, counts_in_a_namespaced_key_and_names_the_store) {
  const std::string ns = unique_segment_ns("names");
  auto store = b.store(ns, patient);
  auto d = store.distributor("orders");
  EXPECT_EQ(d.store_name(), b.server.address().insert(0, "redis ") + " namespace " + ns);
  EXPECT_EQ(d.key(), "orders");
  EXPECT_EQ(d.redis_key(), "flakeid:{" + ns + "}:segment:orders");
  EXPECT_EQ(d.next_max_id(100), 100u);
  EXPECT_EQ(d.next_max_id(50), 150u);
  auto other = d.with_key("invoices");
  EXPECT_EQ(other.next_max_id(7), 7u);
  auto copy = d;  // its own connection, the same counter
  EXPECT_EQ(copy.next_max_id(1), 151u);
  EXPECT_EQ(store.current("orders"), 151u);
  EXPECT_EQ(store.current("missing"), 0u);
  flakeid::detail::redis_connection raw{b.server.address(), patient, patient};
  const auto r = raw.command({"GET", "flakeid:{" + ns + "}:segment:invoices"});
  EXPECT_EQ(std::string(r->str, r->len), "7");
}

TEST_F(redis_segment_test, a_key_holding_no_counter_is_a_clear_error) {
  const std::string ns = unique_segment_ns("garbage");
  auto d = b.store(ns, patient).distributor("orders");
  flakeid::detail::redis_connection raw{b.server.address(), patient, patient};
  (void)raw.command({"SET", d.redis_key(), "hello"});
  try {
    (void)d.next_max_id(10);
    FAIL() << "counted on a string";
  } catch (const flakeid::segment_store_error& e) {
    EXPECT_STREQ(e.what(), ("flakeid: segment store " + std::string(d.store_name()) +
                            ", key 'orders': next_max_id(10) failed: redis " + b.server.address() +
                            ": ERR value is not an integer or out of range")
                               .c_str());
  }
  (void)raw.command({"SET", d.redis_key(), "9223372036854775000"});
  EXPECT_THROW((void)d.next_max_id(1000), flakeid::segment_store_error);  // would overflow
}

TEST_F(redis_segment_test, chains_on_one_counter_from_several_threads_never_overlap) {
  const std::string ns = unique_segment_ns("threads");
  auto store = b.store(ns, patient);
  flakeid::segment_chain_generator a{store.distributor("n"), {.step = 100}};
  flakeid::segment_chain_generator c{store.distributor("n"), {.step = 100}};
  std::vector<std::uint64_t> x(20'000);
  std::vector<std::uint64_t> y(20'000);
  std::thread t1([&] {
    for (auto& v : x) v = a.next_id();
  });
  std::thread t2([&] {
    for (auto& v : y) v = c.next_id();
  });
  t1.join();
  t2.join();
  expect_strictly_increasing(x);
  expect_strictly_increasing(y);
  x.insert(x.end(), y.begin(), y.end());
  std::sort(x.begin(), x.end());
  EXPECT_EQ(std::adjacent_find(x.begin(), x.end()), x.end());
}

TEST(redis_segment_unreachable, fails_within_the_connect_timeout_naming_the_store) {
  const int port = free_port();  // nothing listens there
  const std::string where = "redis 127.0.0.1:" + std::to_string(port);
  unreachable(
      [&](std::chrono::milliseconds t) {
        return flakeid::redis_segment_store{
            // the name before redis_store
            "127.0.0.1:" + std::to_string(port),
            {.name_space = "unreachable", .connect_timeout = t, .io_timeout = t}};
      },
      where);
}

TEST(redis_segment_options, bad_options_throw) {
  EXPECT_THROW(flakeid::redis_store("127.0.0.1:x"), flakeid::invalid_option_error);
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::redis_store("127.0.0.1:6379", {.name_space = "a b"}); },
      "flakeid: segment store namespace 'a b' is invalid: use 1 to 40 letters, digits, '_' or "
      "'-'");
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::redis_store("127.0.0.1:6379", {.io_timeout = -1ms}); },
      "flakeid: segment store io_timeout of -1 ms is too short: use 0 (the default) or more");
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::redis_store("127.0.0.1:6379", {.connect_timeout = 0ms}); },
      "flakeid: segment store connect_timeout of 0 ms is too short: use at least 1 ms");
  expect_error<flakeid::invalid_option_error>(
      [] { (void)flakeid::redis_store("127.0.0.1").distributor(""); },
      "flakeid: a segment counter key must not be empty");
  // io_timeout 0 is the default (2 s), not an error.
  EXPECT_NO_THROW(flakeid::redis_store("127.0.0.1:6379", {.io_timeout = 0ms}));
}

}  // namespace
