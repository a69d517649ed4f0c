// Redis leases (redis_store.lease()) against a real redis-server started for each test (see redis_server.hpp).
#include <flakeid/adapters/redis.hpp>

#include <initializer_list>
#include <mutex>

#include "../eventually.hpp"
#include "expect_error.hpp"
#include "instance_scenarios.hpp"
#include "lease_scenarios.hpp"
#include "redis_backend.hpp"

namespace {

using namespace flakeid_test;

/// Without persistence: a restarted server forgets its keys (unless a test asks for it).
class redis_lease_test : public redis_test {
 protected:
  redis_lease_test() : redis_test(false) {}
};

TEST_F(redis_lease_test, forty_contenders_race_for_thirty_two_ids) { race_40_for_32(b); }
FLAKEID_LEASE_SCENARIOS(redis_lease_test)
TEST_F(redis_lease_test, refuses_while_server_is_down_and_is_lost_when_it_forgot) {
  server_outage(b, false);
}
// With persistence the token survives the restart, but it still expires `ttl + safe_guard`
// after the last renewal: a restart that takes longer than that (a loaded machine) loses the
// lease, and a new one takes over.
using redis_lease_durable = redis_test;  // appendonly, fsync always: the token survives
TEST_F(redis_lease_durable, refuses_while_server_is_down_and_resumes_with_persistence) {
  server_outage(b, true, /*record_may_expire=*/true);
}
TEST_F(redis_lease_test, restarted_without_persistence_no_duplicate) {
  store_forgets(b, [&] {
    b.stop();
    b.start();
  });
}
FLAKEID_INSTANCE_SCENARIOS(redis_lease_test)

#if defined(FLAKEID_REDIS_TLS)
/// The same scenarios over TLS.
using redis_tls_lease_test = redis_tls_test;

TEST_F(redis_tls_lease_test, forty_contenders_race_for_thirty_two_ids) { race_40_for_32(b); }
TEST_F(redis_tls_lease_test, refuses_while_server_is_down_and_resumes) {
  server_outage(b, true, /*record_may_expire=*/true);
}
TEST_F(redis_tls_lease_test, a_live_twin_is_refused) { a_live_twin_is_refused(b); }
#endif

TEST_F(redis_lease_test, assigns_datacenter_and_worker_from_the_layout) {
  auto o = quick_options(unique_ns("layout"));
  auto a = flakeid::redis_store{b.server.address(), store_options_of(o)}.lease(o);
  auto c = flakeid::redis_store{b.server.address(), store_options_of(o)}.lease(o);
  const flakeid::worker_assignment x = a.assign(flakeid::layouts::twitter);
  const flakeid::worker_assignment y = c.assign(flakeid::layouts::twitter);
  EXPECT_EQ(x.node, (flakeid::node_id{0, 0}));
  EXPECT_EQ(y.node, (flakeid::node_id{0, 1}));
  EXPECT_NE(x.source.find("redis 127.0.0.1:"), std::string::npos) << x.source;
}

TEST_F(redis_lease_test, namespaces_do_not_share_ids) {
  auto o = quick_options(unique_ns("ns_a"));
  auto p = quick_options(unique_ns("ns_b"));
  auto a = flakeid::redis_store{b.server.address(), store_options_of(o)}.lease(o);
  auto c = flakeid::redis_store{b.server.address(), store_options_of(p)}.lease(p);
  EXPECT_EQ(a.acquire(1), 0U);
  EXPECT_EQ(c.acquire(1), 0U);
}

/// The keys of namespace `ns` on the test's server, read and written directly.
struct raw_keys {
  raw_keys(const redis_backend& b, const std::string& ns)
      : conn{b.server.options(), 10s, 10s}, prefix{"flakeid:{" + ns + "}:"} {}
  /// The value of `key` (under the prefix), "(nil)" when it does not exist.
  std::string get(const std::string& key) {
    const auto r = conn.command({"GET", prefix + key});
    return r->type == REDIS_REPLY_STRING ? std::string(r->str, r->len) : "(nil)";
  }
  void set(const std::vector<std::string>& args) {
    std::vector<std::string> argv{"SET", prefix + args.at(0)};
    argv.insert(argv.end(), args.begin() + 1, args.end());
    (void)conn.command(argv);
  }
  long long pttl(const std::string& key) { return conn.command({"PTTL", prefix + key})->integer; }
  flakeid::detail::redis_connection conn;
  std::string prefix;
};

/// What a claim records: `inst:<id>` and the index `instance:<name>`, without expiry. A
/// release keeps them, a claim of another instance moves them, a claim without an instance
/// deletes them.
TEST_F(redis_lease_test, records_the_instance_with_its_id_and_moves_or_clears_it) {
  const std::string ns = unique_ns("instrec");
  raw_keys raw{b, ns};
  auto plain = quick_options(ns);
  plain.wait_for_id = 30s;  // each claim of the one id waits out the last release's safe_guard
  auto a = plain;
  a.instance = "pod-a";
  auto c = plain;
  c.instance = "pod-c";
  {
    auto l = b.make(a);
    EXPECT_EQ(l->acquire(1), 0U);
    EXPECT_EQ(raw.get("inst:0"), "pod-a");
    EXPECT_EQ(raw.get("instance:pod-a"), "0");
    EXPECT_EQ(raw.pttl("inst:0"), -1);
    EXPECT_EQ(raw.pttl("instance:pod-a"), -1);
  }
  EXPECT_EQ(raw.get("worker:0"), "released");
  EXPECT_EQ(raw.get("inst:0"), "pod-a") << "a release keeps the record";
  EXPECT_EQ(raw.get("instance:pod-a"), "0");
  {
    auto l = b.make(c);
    EXPECT_EQ(l->acquire(1), 0U);  // pod-a's free id: the record moves to pod-c
    EXPECT_EQ(raw.get("inst:0"), "pod-c");
    EXPECT_EQ(raw.get("instance:pod-c"), "0");
    EXPECT_EQ(raw.get("instance:pod-a"), "(nil)");
  }
  {
    auto l = b.make(plain);
    EXPECT_EQ(l->acquire(1), 0U);
    EXPECT_EQ(raw.get("inst:0"), "(nil)") << "a claim without an instance clears the record";
    EXPECT_EQ(raw.get("instance:pod-c"), "(nil)");
  }
  auto l = b.make(a);
  EXPECT_EQ(l->acquire(1), 0U);
  EXPECT_EQ(raw.get("inst:0"), "pod-a");
  EXPECT_EQ(raw.get("instance:pod-a"), "0");
}

/// An index entry that its id's `inst:<id>` does not confirm (keys lost or written by someone
/// else), a malformed one, or one at an id beyond the claim's count is no record: the claim
/// goes as usual (it is not refused or kept waiting for a stranger's id) and records the
/// instance on the id it takes.
TEST_F(redis_lease_test, an_index_entry_its_id_does_not_confirm_is_no_record) {
  const std::string ns = unique_ns("instidx");
  raw_keys raw{b, ns};
  const std::string far =
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch() + 10min)
                         .count());
  // Id 2 is held by a stranger that recorded another instance; id 20 by one of pod-z.
  raw.set({"worker:2", "stranger", "PX", "600000"});
  raw.set({"last:2", far});
  raw.set({"inst:2", "pod-other"});
  raw.set({"instance:pod-x", "2"});
  raw.set({"instance:pod-y", "x1"});
  raw.set({"worker:20", "stranger", "PX", "600000"});
  raw.set({"last:20", far});
  raw.set({"inst:20", "pod-z"});
  raw.set({"instance:pod-z", "20"});
  auto named = [&](const std::string& instance) {
    auto o = quick_options(ns);
    o.instance = instance;
    return b.make(o);
  };
  auto x = named("pod-x");
  EXPECT_EQ(x->acquire(8), 0U);
  EXPECT_EQ(raw.get("instance:pod-x"), "0");
  EXPECT_EQ(raw.get("inst:0"), "pod-x");
  EXPECT_EQ(raw.get("inst:2"), "pod-other") << "another instance's record stays";
  auto y = named("pod-y");
  EXPECT_EQ(y->acquire(8), 1U);
  EXPECT_EQ(raw.get("instance:pod-y"), "1");
  auto z = named("pod-z");
  EXPECT_EQ(z->acquire(8), 3U);
  EXPECT_EQ(raw.get("instance:pod-z"), "3");
  EXPECT_EQ(raw.get("inst:3"), "pod-z");
  EXPECT_EQ(raw.get("inst:20"), "(nil)") << "an instance is recorded on one id only";
  EXPECT_EQ(raw.get("worker:20"), "stranger");
}

// ---- Redis as a cache: eviction --------------------------------------------------------------

/// Evicts every key under maxmemory-policy `policy` (maxmemory 1 byte for one command), then
/// lifts the limit; the policy stays.
void evict_everything(flakeid::detail::redis_connection& admin, const std::string& policy) {
  (void)admin.command({"CONFIG", "SET", "maxmemory-policy", policy});
  (void)admin.command({"CONFIG", "SET", "maxmemory", "1"});
  (void)admin.command({"PING"});
  (void)admin.command({"CONFIG", "SET", "maxmemory", "0"});
}

/// Deletes the one key of each of `patterns` (a clean-up of keys taken for stale), through
/// `admin`.
void delete_the_key_of_each(flakeid::detail::redis_connection& admin,
                            std::initializer_list<const char*> patterns) {
  for (const char* pattern : patterns) {
    const auto keys = admin.command({"KEYS", pattern});
    ASSERT_EQ(keys->elements, 1U) << pattern;
    (void)admin.command({"DEL", std::string(keys->element[0]->str, keys->element[0]->len)});
  }
}

// Someone deletes the holder's two keys, `worker:<id>` and `last:<id>`, and leaves the
// namespace's epoch: the id must not pass to a claimer at once (the count of ids ever taken,
// `ids`, says the id had records).
TEST_F(redis_lease_test, lease_keys_deleted_under_a_holder_no_duplicate) {
  flakeid::detail::redis_connection admin{b.server.options(), 10s, 10s};
  store_forgets(b, [&] {
    delete_the_key_of_each(admin, {"flakeid:*:worker:*", "flakeid:*:last:*"});
  });
}

// The same with the count of ids ever taken deleted too: a missing count under an epoch that
// is not new is a loss.
TEST_F(redis_lease_test, lease_keys_and_the_id_count_deleted_under_a_holder_no_duplicate) {
  flakeid::detail::redis_connection admin{b.server.options(), 10s, 10s};
  store_forgets(b, [&] {
    delete_the_key_of_each(admin, {"flakeid:*:worker:*", "flakeid:*:last:*", "flakeid:*:ids"});
  });
}

// An allkeys-* policy evicted the holder's keys while it minted; the epoch key survived (the
// waiting claimer kept reading it, so LRU kept it). The policy is then noeviction again: the
// evictions alone must make the next claimer wait as after a restart.
TEST_F(redis_lease_test, keys_evicted_while_a_holder_mints_no_duplicate) {
  flakeid::detail::redis_connection admin{b.server.options(), 10s, 10s};
  store_forgets(b, [&] {
    const auto keys = admin.command({"KEYS", "flakeid:*:epoch"});
    ASSERT_EQ(keys->elements, 1U);
    const std::string epoch_key(keys->element[0]->str, keys->element[0]->len);
    const auto epoch = admin.command({"GET", epoch_key});
    const std::string value(epoch->str, epoch->len);
    evict_everything(admin, "allkeys-lru");
    (void)admin.command({"SET", epoch_key, value});
    (void)admin.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  });
}

// A failover and back while a holder mints: the replica stopped replicating (it took over)
// once it had the holder's token, the token expired in its copy, and the old primary, made its
// replica, loaded that copy and was promoted again, keeping its run id. The epoch must change
// all the same: without the replication id in it, the next claimer took the id at once, on
// the copy's old deadline, while the holder minted to its own (26,153 of 1.6 million IDs of
// two processes minted twice).
TEST_F(redis_lease_test, a_failback_onto_a_lagging_replicas_data_no_duplicate) {
  redis_server replica;
  replica.start();
  flakeid::detail::redis_connection x{b.server.options(), 10s, 10s};
  flakeid::detail::redis_connection y{replica.options(), 10s, 10s};
  for (auto* c : {&x, &y}) (void)c->command({"CONFIG", "SET", "repl-diskless-sync-delay", "0"});
  const auto synced = [](flakeid::detail::redis_connection& c) {
    const auto r = c.command({"INFO", "replication"});
    const auto l = c.command({"INFO", "persistence"});
    return std::string(r->str, r->len).find("master_link_status:up") != std::string::npos &&
           std::string(l->str, l->len).find("loading:0") != std::string::npos;
  };
  const auto tokens = [](flakeid::detail::redis_connection& c) {
    return c.command({"KEYS", "flakeid:*:worker:*"})->elements;
  };
  store_forgets(b, [&] {
    (void)y.command({"REPLICAOF", "127.0.0.1", std::to_string(b.server.port())});
    ASSERT_TRUE(eventually([&] { return synced(y) && tokens(y) == 1; }, 60s, 10ms));
    (void)y.command({"REPLICAOF", "NO", "ONE"});
    // The holder renews on the old primary; in the copy its token expires.
    ASSERT_TRUE(eventually([&] { return tokens(y) == 0; }, 60s, 10ms));
    (void)x.command({"REPLICAOF", "127.0.0.1", std::to_string(replica.port())});
    ASSERT_TRUE(eventually([&] { return synced(x) && tokens(x) == 0; }, 60s, 10ms));
    (void)x.command({"REPLICAOF", "NO", "ONE"});
  });
}

// A policy that may evict the records a lease relies on is refused at each claim and each
// renewal, naming the policy; a volatile-* policy is not (only tokens carry a TTL).
TEST_F(redis_lease_test, an_allkeys_policy_is_refused_at_claim_and_renewal) {
  const std::string ns = unique_ns("policy");
  flakeid::detail::redis_connection admin{b.server.options(), 10s, 10s};
  auto o = quick_options(ns);
  std::mutex m;
  std::vector<std::string> failed;
  o.on_event = [&](flakeid::lease_event e, const std::string& detail) {
    std::lock_guard lk(m);
    if (e == flakeid::lease_event::renew_failed) failed.push_back(detail);
  };
  auto holder = b.make(o);
  EXPECT_EQ(holder->acquire(4), 0U);
  (void)admin.command({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"});
  const std::string refused = "flakeid: " + b.server.options().where() +
                              ": maxmemory-policy allkeys-lru may evict the lease records "
                              "(flakeid:{" +
                              ns + "}:last:<id>, flakeid:{" + ns +
                              "}:epoch): leases need maxmemory-policy noeviction or a "
                              "volatile-* policy";
  auto claimer = b.make(quick_options(ns));
  expect_error<flakeid::lease_store_error>([&] { (void)claimer->acquire(4); }, refused);
  for (const auto give_up = steady::now() + 60s; steady::now() < give_up;) {  // a guard only
    std::this_thread::sleep_for(5ms);
    std::lock_guard lk(m);
    if (!failed.empty()) break;
  }
  {
    std::lock_guard lk(m);
    ASSERT_FALSE(failed.empty()) << "no renewal failed within 60 s";
    EXPECT_NE(failed.front().find(refused), std::string::npos) << failed.front();
  }
  (void)admin.command({"CONFIG", "SET", "maxmemory-policy", "volatile-lru"});
  EXPECT_EQ(b.make(quick_options(ns))->acquire(4), 1U);
}

TEST(redis_lease_unreachable, fails_with_a_clear_error_within_the_connect_timeout) {
  const std::string port = std::to_string(free_port());  // nothing listens there
  (void)unreachable_lease_error<flakeid::redis_store>("127.0.0.1:" + port,
                                                      "redis 127.0.0.1:" + port);
}

TEST(redis_lease_address, parses_host_and_port) {
  const auto a = flakeid::redis_options::parse("10.0.0.1:7000");
  EXPECT_EQ(a.address.host, "10.0.0.1");
  EXPECT_EQ(a.address.port, 7000);
  const auto c = flakeid::redis_options::parse("cache");
  EXPECT_EQ(c.address.host, "cache");
  EXPECT_EQ(c.address.port, 6379);
  const auto v6 = flakeid::redis_options::parse("[::1]:7000");
  EXPECT_EQ(v6.address.host, "::1");
  EXPECT_EQ(v6.address.port, 7000);
  EXPECT_EQ(v6.where(), "redis [::1]:7000");
  EXPECT_THROW((void)flakeid::redis_options::parse("cache:x"), std::invalid_argument);
}

}  // namespace
