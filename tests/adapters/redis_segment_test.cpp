// redis_distributor against a real redis-server (append-only, fsync always) started for each
// test (see redis_server.hpp).
#include <flakeid/adapters/redis.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <thread>

#include "../fork_child.hpp"
#include "expect_error.hpp"
#include "redis_backend.hpp"

namespace {

using namespace flakeid_test;

using redis_segment_test = redis_test;

FLAKEID_SEGMENT_SCENARIOS(redis_segment_test)
TEST_F(redis_segment_test, server_outage_drains_the_chain_fails_then_resumes) { server_outage(b); }

#if defined(FLAKEID_REDIS_TLS)
/// The same scenarios over TLS.
using redis_tls_segment_test = redis_tls_test;

FLAKEID_PROCESS_SCENARIOS(redis_tls_segment_test)
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

// The long fault soak: a wiped counter, grown again past a running distributor's ranges by
// processes started after the wipe, gave that distributor numbers handed out before the wipe.
TEST_F(redis_segment_test, a_counter_made_again_is_refused_by_a_distributor_that_counted_before) {
  a_counter_made_again_is_refused(b, [&](const std::string& ns, const std::string& key) {
    flakeid::detail::redis_connection raw{b.server.address(), patient, patient};
    for (const std::string part : {"segment:", "segment-mark:", "segment-birth:"})
      (void)raw.command({"DEL", "flakeid:{" + ns + "}:" + part + key});
  });
}

// A counter key set back by hand, or RESTOREd from an older DUMP of the key alone, while its
// mark and birth stay.
TEST_F(redis_segment_test, a_counter_gone_back_is_refused_by_a_distributor_above_it) {
  a_counter_gone_back_is_refused(b, [&](const std::string& ns, const std::string& key,
                                        std::uint64_t n) {
    flakeid::detail::redis_connection raw{b.server.address(), patient, patient};
    (void)raw.command({"SET", "flakeid:{" + ns + "}:segment:" + key, std::to_string(n), "KEEPTTL"});
  });
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
  flakeid::segment_chain_generator a{store.distributor("n"), {.segment = {.step = 100}}};
  flakeid::segment_chain_generator c{store.distributor("n"), {.segment = {.step = 100}}};
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

// ---- a server that forgets (eviction, rollback) ---------------------------------------------

/// What a process of its own (forked, sharing no connection or state) got from `ranges` calls
/// of `next_max_id(step)` on counter "orders": the maxes, then the message that stopped it.
struct child_ranges {
  std::vector<std::uint64_t> maxes;
  std::string error;
};

child_ranges ranges_in_child(const redis_backend& b, const std::string& ns, int ranges,
                             std::uint64_t step) {
  const auto take = [&] {
    std::string out;
    try {
      auto d = b.store(ns, patient).distributor("orders");
      for (int i = 0; i < ranges; ++i) out += std::to_string(d.next_max_id(step)) + "\n";
    } catch (const std::exception& e) {
      out += std::string("E") + e.what() + "\n";
    }
    return out;
  };
  const std::string in = run_in_forked_child(take).text;
  child_ranges r;
  for (std::size_t at = 0, nl; (nl = in.find('\n', at)) != std::string::npos; at = nl + 1) {
    const std::string line = in.substr(at, nl - at);
    if (line.starts_with('E'))
      r.error = line.substr(1);
    else
      r.maxes.push_back(std::stoull(line));
  }
  return r;
}

/// The numbers handed out more than once by the ranges (each `step` numbers up to a max).
std::size_t repeated_numbers(const std::vector<std::uint64_t>& maxes, std::uint64_t step) {
  std::multiset<std::uint64_t> seen;
  std::size_t repeats = 0;
  for (const auto m : maxes)
    for (std::uint64_t n = m - step + 1; n <= m; ++n) {
      repeats += seen.count(n) > 0 ? 1U : 0U;
      seen.insert(n);
    }
  return repeats;
}

std::string info_field(flakeid::detail::redis_connection& admin, const std::string& section,
                       const std::string& field) {
  const auto r = admin.command({"INFO", section});
  const std::string info(r->str, r->len);
  const auto at = info.find(field + ":") + field.size() + 1;
  return info.substr(at, info.find('\r', at) - at);
}

/// Evicts every key under maxmemory-policy `policy` (maxmemory 1 byte for one command), then
/// lifts the limit; the policy stays.
void evict_everything(flakeid::detail::redis_connection& admin, const std::string& policy) {
  (void)admin.command({"CONFIG", "SET", "maxmemory-policy", policy});
  (void)admin.command({"CONFIG", "SET", "maxmemory", "1"});
  (void)admin.command({"PING"});
  (void)admin.command({"CONFIG", "SET", "maxmemory", "0"});
}

void append(std::vector<std::uint64_t>& to, const std::vector<std::uint64_t>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

/// After a refusal: `running` resumes above `floor`, a child takes ten ranges of 100 and
/// `running` one more, which ends at `last`; no number in `all` and these repeats.
void resume_and_count_on(const redis_backend& b, const std::string& ns,
                         flakeid::redis_distributor& running, std::vector<std::uint64_t>& all,
                         std::uint64_t floor, std::uint64_t last) {
  EXPECT_EQ(running.resume_above(floor), floor);
  const auto resumed = ranges_in_child(b, ns, 10, 100);
  EXPECT_EQ(resumed.error, "");
  append(all, resumed.maxes);
  all.push_back(running.next_max_id(100));
  EXPECT_EQ(all.back(), last);
  EXPECT_EQ(repeated_numbers(all, 100), 0U) << all.size() << " ranges";
}

TEST_F(redis_segment_test, fifty_days_of_a_grouped_counter_hold_two_days_of_connections) {
  using namespace std::chrono;
  auto store = b.store(unique_segment_ns("days"), patient);
  flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
  // The server's count of clients, read again (a bounded number of times) while above `bound`:
  // a connection the generator closed may be seen by the server after the next INFO.
  const auto clients = [&](int bound) {
    int n = 0;
    for (int i = 0; i < 100; ++i)
      if ((n = std::stoi(info_field(admin, "clients", "connected_clients"))) <= bound) break;
    return n;
  };
  const auto first_day = time_point_cast<milliseconds>(sys_days{2025y / 3 / 18} + 12h);
  flakeid::manual_clock clock{first_day};
  flakeid::grouped_segment_generator gen{
      store.distributor("orders"), flakeid::group_period::day, {.step = 10}, clock};
  const int before = clients(0);  // this test's, the store's and the base distributor's
  int most = before;
  for (int day = 0; day < 50; ++day) {
    clock.set(first_day + days{day});
    const std::uint32_t stamp = gen.stamp_at(clock.now());
    ASSERT_EQ(gen.next(), (flakeid::grouped_id{stamp, 1}));
    ASSERT_EQ(gen.next(), (flakeid::grouped_id{stamp, 2}));
    most = std::max(most, clients(before + 2));
  }
  // Two days' counters, each on a connection of its own, from the second day to the fiftieth.
  EXPECT_EQ(most, before + 2);
  EXPECT_EQ(clients(before + 2), before + 2);
  EXPECT_EQ(store.current("orders@20250318"), 10U);
}

// Redis as a cache: an allkeys-* policy evicted the counter, which then counted from 0 again.
TEST_F(redis_segment_test, an_evicted_counter_never_counts_again) {
  const std::string ns = unique_segment_ns("evicted");
  flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
  auto ops = b.store(ns, patient).distributor("orders");
  const std::string head =
      "flakeid: segment store " + std::string(ops.store_name()) + ", key 'orders': ";
  std::vector<std::uint64_t> all;
  const auto a = ranges_in_child(b, ns, 50, 100);
  ASSERT_EQ(a.error, "");
  ASSERT_EQ(a.maxes.back(), 5000U);
  append(all, a.maxes);
  evict_everything(admin, "allkeys-lru");
  ASSERT_NE(info_field(admin, "stats", "evicted_keys"), "0");
  const auto c = ranges_in_child(b, ns, 50, 100);  // the policy is still allkeys-lru
  append(all, c.maxes);
  EXPECT_EQ(c.error, head +
                         "maxmemory-policy allkeys-lru may evict the counter: counters need "
                         "maxmemory-policy noeviction or a volatile-* policy");
  (void)admin.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  const auto d = ranges_in_child(b, ns, 50, 100);  // no record left of the counter
  append(all, d.maxes);
  EXPECT_EQ(d.error, head +
                         "the counter has no mark on a server that has evicted keys "
                         "(evicted_keys " +
                         info_field(admin, "stats", "evicted_keys") +
                         "): it may have lost ranges it handed out; find the highest "
                         "number in use and call resume_above(it)");
  EXPECT_EQ(repeated_numbers(all, 100), 0U) << all.size() << " ranges";
  EXPECT_EQ(ops.resume_above(5000), 5000U);  // the operator found 5000 in use
  const auto e = ranges_in_child(b, ns, 50, 100);
  EXPECT_EQ(e.error, "");
  append(all, e.maxes);
  EXPECT_EQ(e.maxes.front(), 5100U);
  EXPECT_EQ(repeated_numbers(all, 100), 0U) << all.size() << " ranges";
}

TEST_F(redis_segment_test, an_expiring_counter_is_refused_under_a_volatile_policy) {
  const std::string ns = unique_segment_ns("volatile");
  flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
  (void)admin.command({"CONFIG", "SET", "maxmemory-policy", "volatile-lru"});
  auto d = b.store(ns, patient).distributor("orders");
  EXPECT_EQ(d.next_max_id(10), 10U);  // no expiry: nothing of it may be evicted
  d.expire_after(10min);
  expect_error<flakeid::segment_store_error>(
      [&] { (void)d.next_max_id(10); },
      "flakeid: segment store " + std::string(d.store_name()) +
          ", key 'orders': maxmemory-policy volatile-lru may evict the counter, which expires "
          "(expire_after): it needs maxmemory-policy noeviction");
}

// Redis as a cache beside the counters: a volatile-* policy evicts the cache's keys (they carry
// a TTL) and never a counter without expire_after, so the evictions leave it counting, in the
// process that ran across them and in one started afterwards.
TEST_F(redis_segment_test, evictions_of_a_caches_keys_leave_the_counter_counting) {
  const std::string ns = unique_segment_ns("cache");
  flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
  auto d = b.store(ns, patient).distributor("orders");
  EXPECT_EQ(d.next_max_id(10), 10U);
  const std::string before = info_field(admin, "stats", "evicted_keys");
  const std::string cached = "cache:" + ns;
  (void)admin.command({"SET", cached, "x", "PX", "600000"});
  evict_everything(admin, "volatile-lru");
  EXPECT_EQ(admin.command({"EXISTS", cached})->integer, 0) << "the cache's key was not evicted";
  EXPECT_GT(std::stoll(info_field(admin, "stats", "evicted_keys")), std::stoll(before));
  EXPECT_EQ(d.next_max_id(10), 20U);
  EXPECT_EQ(b.store(ns, patient).distributor("orders").next_max_id(10), 30U);
  (void)admin.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  EXPECT_EQ(d.next_max_id(10), 40U);
}

// A durable server's restart is accepted only when CONFIG GET appendfsync says `always`: for
// a user denied CONFIG (as where CONFIG is renamed away) it is refused; the policy and the
// server's memory come from INFO. The user has only the commands leases.md lists.
TEST_F(redis_segment_test, a_restart_is_refused_when_config_cannot_be_read) {
  const std::string ns = unique_segment_ns("noconfig");
  const auto limit_user = [&] {
    flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
    EXPECT_TRUE(eventually([&] { return info_field(admin, "persistence", "loading") == "0"; }));
    (void)admin.command({"ACL", "SETUSER", "limited", "on", ">pw", "~flakeid:*", "+eval", "+ping",
                         "+info", "+get", "+set", "+exists", "+del", "+pexpire", "+incrby",
                         "+time"});
    return info_field(admin, "server", "run_id");
  };
  auto limited = b.server.options();
  limited.address.user = "limited";
  limited.address.password = "pw";
  const std::string before = limit_user();
  flakeid::redis_store store{limited,
                             {.name_space = ns, .connect_timeout = patient, .io_timeout = patient}};
  EXPECT_EQ(store.distributor("orders").next_max_id(100), 100U);
  {
    flakeid::lease_options o;
    o.name_space = ns;
    o.ttl = 900ms;
    o.safe_guard = 300ms;
    auto lease = store.lease(o);
    EXPECT_EQ(lease.acquire(4), 0U);
  }
  b.stop();  // SIGKILL; the append-only file has every write
  b.start();
  const std::string after = limit_user();
  auto d = store.distributor("orders");
  expect_error<flakeid::segment_store_error>(
      [&] { (void)d.next_max_id(100); },
      "flakeid: segment store " + std::string(d.store_name()) +
          ", key 'orders': the counter was last written at server run " + before +
          ", evicted_keys 0 and the server is now at run " + after +
          ", evicted_keys 0 (restarted without appendfsync always or failed over since): "
          "it may have lost ranges it handed out; find the highest number in use and "
          "call resume_above(it)");
  // A user who may read CONFIG finds appendfsync always: the restart lost nothing.
  EXPECT_EQ(b.store(ns, patient).distributor("orders").next_max_id(100), 200U);
  EXPECT_EQ(d.next_max_id(100), 300U);
}

// A server restarted on an old snapshot (RDB) serves a counter below ranges it handed out:
// neither a process started afterwards nor one running across it may repeat them.
/// No append-only file: a restart loads dump.rdb, or nothing.
class redis_segment_rollback : public redis_test {
 protected:
  redis_segment_rollback() : redis_test(false) {}
};

TEST_F(redis_segment_rollback, a_rollback_to_an_old_snapshot_never_repeats_a_number) {
  const std::string ns = unique_segment_ns("rollback");
  auto running = b.store(ns, patient).distributor("orders");  // a process running across it
  const std::string head =
      "flakeid: segment store " + std::string(running.store_name()) + ", key 'orders': ";
  std::vector<std::uint64_t> all{running.next_max_id(100)};
  append(all, ranges_in_child(b, ns, 10, 100).maxes);
  std::string saved_run;
  {
    flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
    (void)admin.command({"SAVE"});
    saved_run = info_field(admin, "server", "run_id");
  }
  append(all, ranges_in_child(b, ns, 10, 100).maxes);
  all.push_back(running.next_max_id(100));
  ASSERT_EQ(all.back(), 2200U);
  b.stop();  // SIGKILL
  b.start();
  flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
  ASSERT_TRUE(eventually([&] { return info_field(admin, "persistence", "loading") == "0"; }));
  ASSERT_EQ(admin.command({"GET", running.redis_key()})->str, std::string("1100"));
  const std::string lost = "the counter was last written at server run " + saved_run +
                           ", evicted_keys 0 and the server is now at run " +
                           info_field(admin, "server", "run_id") +
                           ", evicted_keys 0 (restarted without appendfsync always or failed "
                           "over since): it may have lost ranges it handed out; "
                           "find the highest number in use and call resume_above(it)";
  const auto after = ranges_in_child(b, ns, 10, 100);
  append(all, after.maxes);
  EXPECT_EQ(after.error, head + lost);
  expect_error<flakeid::segment_store_error>(
      [&] { (void)running.next_max_id(100); },
      head + "next_max_id(100) failed: " + b.server.options().where() +
          ": Server closed the connection");  // the connection of the old server; then:
  expect_error<flakeid::segment_store_error>([&] { all.push_back(running.next_max_id(100)); },
                                             head + lost);
  EXPECT_EQ(repeated_numbers(all, 100), 0U) << all.size() << " ranges";
  resume_and_count_on(b, ns, running, all, 2200, 3300);
}

// A server that lost everything (no persistence) looks like a new one to a process started
// afterwards; a distributor that ran across the restart refuses.
TEST_F(redis_segment_rollback, a_running_distributor_refuses_a_server_that_lost_its_memory) {
  const std::string ns = unique_segment_ns("amnesia");
  auto running = b.store(ns, patient).distributor("orders");
  EXPECT_EQ(running.next_max_id(100), 100U);
  std::string old_run;
  {
    flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
    old_run = info_field(admin, "server", "run_id");
  }
  b.stop();
  b.start();
  flakeid::detail::redis_connection admin{b.server.options(), patient, patient};
  EXPECT_THROW((void)running.next_max_id(100), flakeid::segment_store_error);  // its connection
  expect_error<flakeid::segment_store_error>(
      [&] { (void)running.next_max_id(100); },
      "flakeid: segment store " + std::string(running.store_name()) +
          ", key 'orders': the counter's mark " + "flakeid:{" + ns +
          "}:segment-mark:orders is gone since this distributor's last range at server run " +
          old_run + ", evicted_keys 0 (now run " + info_field(admin, "server", "run_id") +
          ", evicted_keys 0): it may have lost ranges it handed out; find the highest number "
          "in use and call resume_above(it)");
}

// A failover and back (Sentinel's, or an operator's): the replica had not yet received the
// last ranges when it took over, and the old primary, made its replica, loaded its data. Promoted
// again, the old primary serves the counter below ranges it handed out, under its own run id and
// the counter's own mark: without the replication id in the mark, a process started afterwards
// and one running across it both counted on from there (1,000 numbers repeated of 2,000).
TEST_F(redis_segment_test, a_failback_onto_a_lagging_replicas_data_never_repeats_a_number) {
  const std::string ns = unique_segment_ns("failback");
  redis_server replica;
  replica.start();
  flakeid::detail::redis_connection x{b.server.options(), patient, patient};
  flakeid::detail::redis_connection y{replica.options(), patient, patient};
  const auto synced = [&](flakeid::detail::redis_connection& c) {
    return info_field(c, "replication", "master_link_status") == "up" &&
           info_field(c, "persistence", "loading") == "0";
  };
  const auto counter = [&](flakeid::detail::redis_connection& c) {
    const auto r = c.command({"GET", "flakeid:{" + ns + "}:segment:orders"});
    return r->type == REDIS_REPLY_STRING ? std::string(r->str, r->len) : std::string();
  };
  for (auto* c : {&x, &y}) (void)c->command({"CONFIG", "SET", "repl-diskless-sync-delay", "0"});
  (void)y.command({"REPLICAOF", "127.0.0.1", std::to_string(b.server.port())});
  ASSERT_TRUE(eventually([&] { return synced(y); }));
  auto running = b.store(ns, patient).distributor("orders");  // a process running across it
  const std::string head =
      "flakeid: segment store " + std::string(running.store_name()) + ", key 'orders': ";
  std::vector<std::uint64_t> all{running.next_max_id(100)};
  append(all, ranges_in_child(b, ns, 9, 100).maxes);
  ASSERT_EQ(all.back(), 1000U);
  ASSERT_TRUE(eventually([&] { return counter(y) == "1000"; }));
  const std::string old_replid = info_field(x, "replication", "master_replid");
  (void)y.command({"REPLICAOF", "NO", "ONE"});  // takes over; the rest never reaches it
  append(all, ranges_in_child(b, ns, 9, 100).maxes);
  all.push_back(running.next_max_id(100));
  ASSERT_EQ(all.back(), 2000U);
  (void)x.command({"REPLICAOF", "127.0.0.1", std::to_string(replica.port())});
  ASSERT_TRUE(eventually([&] { return synced(x) && counter(x) == "1000"; }));
  (void)x.command({"REPLICAOF", "NO", "ONE"});  // and back
  ASSERT_EQ(counter(x), "1000");
  const std::string run = info_field(x, "server", "run_id");
  const std::string lost =
      "the counter was last written at server run " + run + ", evicted_keys 0, master_replid " +
      old_replid + " and the server is now at run " + run + ", evicted_keys 0, master_replid " +
      info_field(x, "replication", "master_replid") +
      ": it took over another server's data since (it was a replica, "
      "second_repl_offset is set): it may have lost ranges it handed out; "
      "find the highest number in use and call resume_above(it)";
  const auto after = ranges_in_child(b, ns, 10, 100);
  append(all, after.maxes);
  EXPECT_EQ(after.error, head + lost);
  std::string refused;  // the first call may fail on a connection the sync closed
  for (int i = 0; i < 2 && refused.find("resume_above") == std::string::npos; ++i) {
    try {
      all.push_back(running.next_max_id(100));
    } catch (const flakeid::segment_store_error& e) {
      refused = e.what();
    }
  }
  EXPECT_EQ(refused, head + lost);
  EXPECT_EQ(repeated_numbers(all, 100), 0U) << all.size() << " ranges";
  resume_and_count_on(b, ns, running, all, 2000, 3100);
}

TEST(redis_segment_unreachable, fails_within_the_connect_timeout_naming_the_store) {
  const std::string port = std::to_string(free_port());  // nothing listens there
  unreachable<flakeid::redis_store>("127.0.0.1:" + port, "redis 127.0.0.1:" + port);
}

TEST(redis_store_options, bad_options_throw) {
  EXPECT_THROW(flakeid::redis_store("127.0.0.1:x"), flakeid::invalid_option_error);
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::redis_store("127.0.0.1:6379", {.name_space = "a b"}); },
      "flakeid: redis store namespace 'a b' is invalid: use 1 to 40 letters, digits, '_' or "
      "'-'");
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::redis_store("127.0.0.1:6379", {.io_timeout = -1ms}); },
      "flakeid: redis store io_timeout of -1 ms is too short: use 0 (the default) or more");
  expect_error<flakeid::invalid_option_error>(
      [] { flakeid::redis_store("127.0.0.1:6379", {.connect_timeout = 0ms}); },
      "flakeid: redis store connect_timeout of 0 ms is too short: use at least 1 ms");
  expect_error<flakeid::invalid_option_error>(
      [] { (void)flakeid::redis_store("127.0.0.1").distributor(""); },
      "flakeid: a segment counter key must not be empty");
  // io_timeout 0 is the default (2 s), not an error.
  EXPECT_NO_THROW(flakeid::redis_store("127.0.0.1:6379", {.io_timeout = 0ms}));
}

}  // namespace
