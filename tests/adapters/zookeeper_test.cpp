// zookeeper_store leases and segments against a real ZooKeeper server (Debian's package, run
// standalone on loopback with its data in a temporary directory) started for each test.
#include <flakeid/adapters/zookeeper.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "expect_error.hpp"
#include "instance_scenarios.hpp"
#include "lease_scenarios.hpp"
#include "segment_scenarios.hpp"
#include "server_support.hpp"
#include "zookeeper_backend.hpp"
#include "zookeeper_server.hpp"

namespace {

using namespace flakeid_test;

static_assert(flakeid::keyed_segment_distributor<flakeid::zookeeper_distributor>);
static_assert(flakeid::expiring_segment_distributor<flakeid::zookeeper_distributor>);

/// The lease and the segment scenarios, on the same kind of server.
using zookeeper_lease_test = server_test<zookeeper_backend>;
using zookeeper_segment_test = server_test<zookeeper_backend>;

TEST_F(zookeeper_lease_test, forty_contenders_race_for_thirty_two_ids) {
  // 40 sessions racing on a loaded machine: with 1 s sessions the client gives a request up
  // after 667 ms without an answer ("operation timeout"), which a busy server can exceed. This
  // test is about who wins, not about expiry: 6 s sessions.
  b.session_timeout = std::chrono::milliseconds{6'000};
  race_40_for_32(b);
}
FLAKEID_LEASE_SCENARIOS(zookeeper_lease_test)
TEST_F(zookeeper_lease_test, refuses_while_server_is_down_and_resumes) {
  // The holder resumes only if its session outlives the restart: the server gives each session
  // it restores one timeout from its start, and the client must reconnect within it. With 1 s
  // sessions a loaded machine (the JVM starting beside busy cores) lost that race; 6 s, as in
  // the ensemble test, leave more room, but the client also takes longer to reconnect with a
  // longer session (with 60 s it took about 40 s here), so no timeout makes the race certain.
  // When the session does expire, the lease must be lost for good and a new one takes over.
  b.session_timeout = std::chrono::milliseconds{6'000};
  server_outage(b, true, /*record_may_expire=*/true);
}

FLAKEID_INSTANCE_SCENARIOS(zookeeper_lease_test)
FLAKEID_SEGMENT_SCENARIOS(zookeeper_segment_test)
TEST_F(zookeeper_segment_test, a_counter_that_may_expire_keeps_its_idle_time_in_its_node) {
  auto store = b.store(unique_segment_ns("expiry"), patient);
  auto d = store.distributor("d@20250318");
  d.expire_after(1h);
  EXPECT_EQ(d.next_max_id(10), 10U);
  EXPECT_EQ(d.next_max_id(10), 20U);
  flakeid::detail::zookeeper_session peek{b.address(), patient};
  const auto node = peek.get(d.path());
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->first, "20\n3600000");
  EXPECT_EQ(store.current("d@20250318"), 20U);
}

// The child of zookeeper_segment_test.a_host_whose_clock_is_ahead_sweeps_no_counter_in_use,
// run before main when FLAKEID_TEST_ZK_SWEEP holds "<hosts> <namespace>": one call on another
// key that may expire after an hour sweeps the namespace; it exits 0 when the call answers.
[[maybe_unused]] const int zookeeper_sweep_child = [] {
  const char* env = std::getenv("FLAKEID_TEST_ZK_SWEEP");
  if (env == nullptr) return 0;
  const std::string arg = env;
  const auto sp = arg.find(' ');
  try {
    flakeid::zookeeper_store store{arg.substr(0, sp),
                                   {.name_space = arg.substr(sp + 1), .connect_timeout = 30s}};
    auto d = store.distributor("d@20250319");
    d.expire_after(1h);
    std::_Exit(d.next_max_id(10) == 10 ? 0 : 1);
  } catch (...) {
    std::_Exit(2);
  }
}();

// A counter that may expire is deleted once idle that long on the ensemble's clock. Held
// against this host's clock instead, a process whose clock is 2 h ahead (here libfaketime)
// deleted a counter written a moment ago, in use, and it counted from 0 again: a second run of
// 1,000 calls repeated all 1,000 segments of the first.
TEST_F(zookeeper_segment_test, a_host_whose_clock_is_ahead_sweeps_no_counter_in_use) {
  const std::string lib = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";
  FLAKEID_REQUIRE_SERVER(::access(lib.c_str(), R_OK) == 0,
                         "libfaketime (" + lib + ") is not installed (Debian: faketime)");
  const std::string ns = unique_segment_ns("sweep");
  auto store = b.store(ns, patient);
  auto d = store.distributor("d@20250318");
  d.expire_after(1h);
  EXPECT_EQ(d.next_max_id(10), 10U);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("LD_PRELOAD", lib.c_str(), 1);
    ::setenv("FAKETIME", "+2h", 1);
    ::setenv("FAKETIME_DONT_FAKE_MONOTONIC", "1", 1);
    ::setenv("FLAKEID_TEST_ZK_SWEEP", (b.server.hosts() + " " + ns).c_str(), 1);
    ::execl("/proc/self/exe", "zookeeper_tests", "--gtest_list_tests", static_cast<char*>(nullptr));
    ::_exit(3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "1: a wrong answer; 2: an error; 3: no exec";
  EXPECT_EQ(d.next_max_id(10), 20U);
  EXPECT_EQ(store.current("d@20250318"), 20U);
}

/// A segment store on sessions of 1 s (the client gives up on an answer after 667 ms) with
/// `io_timeout`.
flakeid::zookeeper_store frozen_store(const zookeeper_backend& b, const std::string& ns,
                                      std::chrono::milliseconds io_timeout) {
  return flakeid::zookeeper_store{
      flakeid::zookeeper_address{b.server.hosts(), 1'000ms},
      {.name_space = ns, .connect_timeout = 30s, .io_timeout = io_timeout}};
}

/// Whether `n` is the next segment's end after `before`, or the one after it (a try whose
/// answer was lost may have been applied: its segment is skipped, never handed out).
bool next_or_one_skipped(std::uint64_t n, std::uint64_t before, std::uint64_t step) {
  return n == before + step || n == before + 2 * step;
}

TEST_F(zookeeper_segment_test, a_call_outlives_a_frozen_server_within_io_timeout) {
  auto store = frozen_store(b, unique_segment_ns("frozen"), 60s);
  auto d = store.distributor("orders");
  ASSERT_EQ(d.next_max_id(10), 10U);
  b.server.pause();
  std::uint64_t got = 0;
  std::string error;
  std::thread t([&] { error = message_of([&] { got = d.next_max_id(10); }); });
  // Frozen for longer than the client waits for an answer, and than the session lives: the
  // call is tried again, on a new session, and answers once the server runs again. (Should the
  // thread reach its call only after the freeze, the call answers at once: the checks hold
  // either way, and io_timeout is far longer than any stretched freeze.)
  std::this_thread::sleep_for(3s);
  b.server.resume();
  t.join();
  EXPECT_EQ(error, "");
  EXPECT_TRUE(next_or_one_skipped(got, 10, 10)) << got;
  EXPECT_EQ(d.current(), got);
  EXPECT_EQ(d.next_max_id(10), got + 10);
}

TEST_F(zookeeper_segment_test, a_frozen_server_fails_a_call_after_io_timeout) {
  const std::string ns = unique_segment_ns("frozen");
  auto store = frozen_store(b, ns, 1'000ms);
  auto d = store.distributor("orders");
  ASSERT_EQ(d.next_max_id(10), 10U);
  b.server.pause();
  std::string error;
  try {
    (void)d.next_max_id(10);
  } catch (const flakeid::segment_store_error& e) {
    error = e.what();
  }
  b.server.resume();
  const std::string prefix = "flakeid: segment store zookeeper " + b.server.hosts() +
                             " namespace " + store.options().name_space +
                             ", key 'orders': next_max_id(10) failed: zookeeper " +
                             b.server.hosts() + ": ";
  ASSERT_EQ(error.rfind(prefix, 0), 0U) << error;
  const std::string code = error.substr(prefix.size());
  EXPECT_TRUE(code == "operation timeout" || code == "connection loss") << code;
  // The server back, the counter goes on above every range handed out (on a distributor that
  // may wait for the server to come round: a busy machine may take more than 1 s).
  const std::uint64_t next = frozen_store(b, ns, 60s).distributor("orders").next_max_id(10);
  EXPECT_TRUE(next_or_one_skipped(next, 10, 10)) << next;
}

/// Freezes the server from the calling thread and lets it run again `frozen` later (or at
/// destruction, whichever comes first).
class freeze_for {
 public:
  freeze_for(zookeeper_backend& b, std::chrono::milliseconds frozen) : b_(b) {
    b_.server.pause();
    resumer_ = std::thread([this, frozen] {
      std::unique_lock lk(m_);
      cv_.wait_for(lk, frozen, [this] { return done_; });
      b_.server.resume();
    });
  }
  freeze_for(const freeze_for&) = delete;
  freeze_for& operator=(const freeze_for&) = delete;
  ~freeze_for() {
    {
      std::lock_guard lk(m_);
      done_ = true;
    }
    cv_.notify_all();
    resumer_.join();
  }

 private:
  zookeeper_backend& b_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread resumer_;
};

TEST_F(zookeeper_lease_test, a_claim_outlives_a_frozen_server_within_io_timeout) {
  // The second lease's first claim finds the only id held; before it tries again, the holder
  // lets the id go and the server freezes for 3 s, longer than the client waits for an answer
  // (two thirds of the 1 s session): the claim's requests are tried again, on a new session
  // once the server expired the old one, and the id is taken when the server runs again.
  auto o = quick_options(unique_ns("frzclaim"));
  o.max_ids = 1;
  o.io_timeout = 60s;
  auto first = b.make(o);
  ASSERT_EQ(first->acquire(1), 0U);
  std::optional<freeze_for> freeze;
  std::atomic<int> waits{0};
  auto o2 = o;
  o2.wait_for_id = 60s;
  o2.sleep = [&](std::chrono::milliseconds d) {
    if (waits.fetch_add(1) == 0) {
      first.reset();  // released while the server runs
      freeze.emplace(b, 3s);
      return;
    }
    std::this_thread::sleep_for(d);
  };
  auto second = b.make(o2);
  std::string error;
  std::uint64_t id = 99;
  try {
    id = second->acquire(1);
  } catch (const std::exception& e) {
    error = e.what();
  }
  freeze.reset();
  EXPECT_EQ(error, "");
  EXPECT_EQ(id, 0U);
  EXPECT_GE(waits.load(), 1) << "the first claim found the id held";
  if (error.empty()) {
    wall_gen gen{held(*second)};
    EXPECT_NE(gen.next_id(), 0U);
  }
}

TEST_F(zookeeper_lease_test, a_release_outlives_a_frozen_server_within_io_timeout) {
  // Released while the server is frozen for longer than the client waits for an answer: the
  // release is tried again instead of failing (it reports no `release_failed`), and the id is
  // free for the next holder, who mints above every ID of the first.
  auto o = quick_options(unique_ns("frzrel"));
  o.max_ids = 1;
  o.io_timeout = 60s;
  std::mutex m;
  std::vector<flakeid::lease_event> events;
  o.on_event = [&](flakeid::lease_event e, const std::string&) {
    std::lock_guard lk(m);
    events.push_back(e);
  };
  auto first = b.make(o);
  ASSERT_EQ(first->acquire(1), 0U);
  std::uint64_t last = 0;
  {
    wall_gen gen{held(*first)};
    last = gen.next_id();
  }
  {
    freeze_for freeze(b, 3s);
    first->release();
  }
  {
    std::lock_guard lk(m);
    EXPECT_EQ(std::count(events.begin(), events.end(), flakeid::lease_event::release_failed), 0);
  }
  o.on_event = nullptr;
  auto next = claim_until(b, o, steady::now() + 60s);
  ASSERT_NE(next, nullptr);
  wall_gen gen{held(*next)};
  EXPECT_GT(gen.next_id(), last);
}

TEST_F(zookeeper_lease_test, the_lease_is_an_ephemeral_node_and_the_deadline_a_persistent_one) {
  auto o = quick_options(unique_ns("nodes"));
  flakeid::zookeeper_store store{b.address(), store_options_of(o)};
  {
    flakeid::lease l = store.lease(o);
    EXPECT_EQ(l.acquire(8), 0U);
    flakeid::detail::zookeeper_session peek{b.address(), std::chrono::seconds{30}};
    const auto held = peek.exists("/flakeid/" + o.name_space + "/held/0");
    ASSERT_TRUE(held.has_value());
    EXPECT_NE(held->ephemeralOwner, 0) << "ephemeral";
    const auto last = peek.get("/flakeid/" + o.name_space + "/last/0");
    ASSERT_TRUE(last.has_value());
    EXPECT_GT(std::stoll(last->first), 0);
  }
  flakeid::detail::zookeeper_session peek{b.address(), std::chrono::seconds{30}};
  EXPECT_FALSE(peek.exists("/flakeid/" + o.name_space + "/held/0").has_value()) << "released";
  EXPECT_TRUE(peek.exists("/flakeid/" + o.name_space + "/last/0").has_value()) << "kept";
}

// ---- every claim and every renewal proves what the store recorded ------------------------

/// The namespace of the only lease namespace on the server (`store_forgets` names its own).
std::string only_namespace(flakeid::detail::zookeeper_session& peek) {
  const auto names = peek.children("/flakeid");
  return names.size() == 1 ? "/flakeid/" + names[0] : std::string("<not one namespace>");
}

/// A claim of id 0 alone for `holder` on the store itself, at the wall clock.
flakeid::claim_request claim_of_id_0(const std::string& holder) {
  flakeid::claim_request q;
  q.count = 1;
  q.holder = holder;
  q.now = std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  q.deadline = q.now + 600ms;
  return q;
}

/// A lease store of a new namespace (`quick_options`) holding id 0 for "holder-a" (check
/// `claimed`), and the path of its `held/0`.
struct holder_of_id_0 {
  holder_of_id_0(const flakeid::zookeeper_address& a, const std::string& name)
      : o(quick_options(unique_ns(name))),
        held("/flakeid/" + o.name_space + "/held/0"),
        store(a, o),
        q(claim_of_id_0("holder-a")),
        claimed(store.claim(q).has_value()) {}
  flakeid::lease_options o;
  std::string held;
  flakeid::detail::zookeeper_lease_store store;
  flakeid::claim_request q;
  bool claimed;

  /// Makes `held/0` an ephemeral node of `session` holding `token` (delete and create in one
  /// `multi`): the node a session the store gave up may hold.
  void hold_in(flakeid::detail::zookeeper_session& session, const std::string& token) const {
    flakeid::detail::zookeeper_ops ops;
    ops.remove(held, -1);
    ops.create(held, token, ZOO_EPHEMERAL);
    ASSERT_EQ(ops.run(session), ZOK);
  }
};

TEST_F(zookeeper_lease_test, a_held_node_deleted_under_its_holder_makes_the_next_claimer_wait) {
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  store_forgets(b, [&] { ASSERT_TRUE(peek.remove(only_namespace(peek) + "/held/0", -1)); });
}

TEST_F(zookeeper_lease_test, deadline_nodes_deleted_under_the_holder_make_the_next_claimer_wait) {
  // A cleaner deletes both nodes of id 0: the next claimer makes them again, and finds in the
  // deadline nodes' parent that one was deleted.
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  store_forgets(b, [&] {
    const std::string ns = only_namespace(peek);
    ASSERT_TRUE(peek.remove(ns + "/held/0", -1));
    ASSERT_TRUE(peek.remove(ns + "/last/0", -1));
  });
}

TEST_F(zookeeper_lease_test, a_recreated_namespace_makes_the_next_claimer_wait) {
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  store_forgets(b, [&] {
    const std::string ns = only_namespace(peek);
    for (const std::string dir : {"/held", "/last"}) {
      for (const std::string& child : peek.children(ns + dir))
        ASSERT_TRUE(peek.remove(ns + dir + "/" + child, -1));
      ASSERT_TRUE(peek.remove(ns + dir, -1));
    }
    (void)peek.remove(ns + "/clock", -1);  // written by the leases' clock readings
    ASSERT_TRUE(peek.remove(ns, -1));
  });
}

TEST_F(zookeeper_lease_test,
       a_server_restarted_from_an_empty_data_dir_makes_the_next_claimer_wait) {
  store_forgets(b, [&] {
    b.server.wipe();
    b.server.start();
  });
}

TEST_F(zookeeper_lease_test, a_renewal_proves_the_holders_token_and_deadline_node) {
  const auto o = quick_options(unique_ns("prove"));
  flakeid::detail::zookeeper_lease_store store{b.address(), o};
  const flakeid::claim_request q = claim_of_id_0("holder-a");
  const auto c = store.claim(q);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 0U);
  EXPECT_EQ(store.renew(0, "holder-a", q.deadline + 100ms), flakeid::renewal::held);
  EXPECT_EQ(store.renew(0, "holder-b", q.deadline + 100ms), flakeid::renewal::taken)
      << "another token";
  // The deadline node deleted and made again (with an older deadline): not the holder's any more.
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  const std::string last = "/flakeid/" + o.name_space + "/last/0";
  ASSERT_TRUE(peek.remove(last, -1));
  ASSERT_TRUE(peek.create(last, "1000", 0));
  EXPECT_EQ(store.renew(0, "holder-a", q.deadline + 200ms), flakeid::renewal::taken)
      << "a recreated deadline node";
  EXPECT_EQ(peek.get(last)->first, "1000");
  // The holder marked the loss on last/ (its modification time): claimers wait from it.
  const auto marked = peek.exists("/flakeid/" + o.name_space + "/last");
  ASSERT_TRUE(marked.has_value());
  EXPECT_EQ(marked->version, 1) << "one mark";
  flakeid::detail::zookeeper_lease_store next{b.address(), o};
  auto q2 = claim_of_id_0("holder-c");
  q2.count = 2;
  const auto c2 = next.claim(q2);
  ASSERT_TRUE(c2.has_value());
  EXPECT_EQ(c2->id, 1U);
  // The deletion under the holder is noticed by this claim, later than the holder's mark.
  const auto mine = peek.exists("/flakeid/" + o.name_space + "/held/1");
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(ms_or_min(c2->lost_memory_at), mine->ctime);
  EXPECT_GE(mine->ctime, marked->mtime);
  EXPECT_EQ(peek.get("/flakeid/" + o.name_space + "/last")->first, "1") << "one deletion";
}

TEST_F(zookeeper_lease_test,
       a_holder_whose_deadline_settled_is_taken_over_while_its_session_lives) {
  // A holder that died (or lost the server) keeps its held node until its session expires;
  // once its recorded deadline has settled (passed safe_guard ago on the claimer's clock), a
  // claimer takes the id over without waiting for the session.
  const auto o = quick_options(unique_ns("stale"));
  const std::string held = "/flakeid/" + o.name_space + "/held/0";
  flakeid::detail::zookeeper_lease_store dead{b.address(), o};
  const flakeid::claim_request q = claim_of_id_0("holder-a");
  ASSERT_TRUE(dead.claim(q).has_value());
  flakeid::detail::zookeeper_lease_store next{b.address(), o};
  flakeid::claim_request early = claim_of_id_0("holder-b");
  early.settled = q.deadline - 1ms;
  EXPECT_FALSE(next.claim(early).has_value()) << "the holder's deadline has not settled";
  flakeid::claim_request late = claim_of_id_0("holder-b");
  late.settled = q.deadline;
  const auto c = next.claim(late);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 0U);
  EXPECT_EQ(c->last, q.deadline) << "the dead holder's recorded deadline";
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  EXPECT_EQ(peek.get(held)->first, "holder-b");
  // The old holder, back, finds the id another's: no renewal, and its release leaves it alone.
  EXPECT_EQ(dead.renew(0, "holder-a", q.deadline + 100ms), flakeid::renewal::taken);
  dead.release(0, "holder-a", q.deadline);
  EXPECT_EQ(peek.get(held)->first, "holder-b");
  EXPECT_EQ(next.renew(0, "holder-b", late.deadline + 100ms), flakeid::renewal::held);
}

TEST_F(zookeeper_lease_test, a_deadline_set_back_by_hand_lets_no_claim_take_a_live_holders_id) {
  // An operator sets `last/0` of a live holder to an old value (`set` in zkCli). A holder's own
  // write records a deadline ahead of its write, so the claimer counts the node as written at
  // its modification time plus ttl: before, the id was taken over at once while its holder
  // minted (1,001,926 of 2,005,000 IDs repeated).
  holder_of_id_0 h{b.address(), "setback"};
  ASSERT_TRUE(h.claimed);
  flakeid::detail::zookeeper_session peer{b.address(), 30s};
  const std::string last = "/flakeid/" + h.o.name_space + "/last/0";
  ASSERT_EQ(zoo_set(peer.handle(), last.c_str(), "1", 1, -1), ZOK);
  const auto node = peer.get(last);
  ASSERT_TRUE(node.has_value());
  const std::chrono::sys_time<std::chrono::milliseconds> bound{
      std::chrono::milliseconds{node->second.mtime} + h.o.ttl};
  flakeid::detail::zookeeper_lease_store next{b.address(), h.o};
  flakeid::claim_request early = claim_of_id_0("holder-b");
  early.settled = bound - 1ms;
  EXPECT_FALSE(next.claim(early).has_value()) << "took the id of a live holder";
  flakeid::claim_request late = claim_of_id_0("holder-b");
  late.settled = bound;
  const auto c = next.claim(late);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 0U);
  EXPECT_EQ(c->last, bound) << "the latest deadline the holder could have had";
}

TEST_F(zookeeper_lease_test, a_takeover_between_a_renewals_reads_fails_the_renewal) {
  // A renewal reads two nodes before its `multi`; a claimer takes the id over (the holder's
  // deadline has settled) between the two reads. Read `held/<id>` first and `last/<id>` second,
  // the renewal saw its own session in one and a version it could write in the other, and both
  // held the id (the fault soak: 120 IDs minted twice after a ZooKeeper restart).
  holder_of_id_0 h{b.address(), "between"};
  ASSERT_TRUE(h.claimed);
  flakeid::detail::zookeeper_lease_store next{b.address(), h.o};
  flakeid::claim_request late = claim_of_id_0("holder-b");
  late.settled = h.q.deadline;
  std::optional<flakeid::lease_claim> taken_over;
  bool once = false;
  h.store.between_renewal_reads = [&] {
    if (std::exchange(once, true)) return;
    taken_over = next.claim(late);
  };
  EXPECT_EQ(h.store.renew(0, "holder-a", h.q.deadline + 100ms), flakeid::renewal::taken);
  ASSERT_TRUE(taken_over.has_value()) << "the takeover between the reads";
  EXPECT_EQ(taken_over->id, 0U);
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  EXPECT_EQ(peek.get(h.held)->first, "holder-b");
  EXPECT_EQ(next.renew(0, "holder-b", late.deadline + 100ms), flakeid::renewal::held);
}

TEST_F(zookeeper_lease_test, a_renewal_in_a_new_session_makes_the_holders_node_again) {
  // The store gave its session up (cut off for longer than its patience) while the server
  // kept it: `held/<id>` holds this lease's token in a session that is no longer the store's.
  // The renewal makes the node again in the store's session, so that the old session's expiry
  // does not take it; a node with another token is still another's.
  holder_of_id_0 h{b.address(), "adopt"};
  ASSERT_TRUE(h.claimed);
  const auto mine = [&] {
    flakeid::detail::zookeeper_session peek{b.address(), 30s};
    return peek.exists(h.held)->ephemeralOwner;
  }();
  {
    flakeid::detail::zookeeper_session old{b.address(), 30s};
    h.hold_in(old, "holder-a");
    ASSERT_NE(old.exists(h.held)->ephemeralOwner, mine);
    EXPECT_EQ(h.store.renew(0, "holder-a", h.q.deadline + 100ms), flakeid::renewal::held);
  }  // the old session ends here, and its ephemeral nodes with it
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  const auto now = peek.get(h.held);
  ASSERT_TRUE(now.has_value()) << "made again in the store's session";
  EXPECT_EQ(now->first, "holder-a");
  EXPECT_EQ(now->second.ephemeralOwner, mine);
  EXPECT_EQ(h.store.renew(0, "holder-a", h.q.deadline + 200ms), flakeid::renewal::held);
  {
    flakeid::detail::zookeeper_session other{b.address(), 30s};
    h.hold_in(other, "holder-b");
    EXPECT_EQ(h.store.renew(0, "holder-a", h.q.deadline + 300ms), flakeid::renewal::taken);
    EXPECT_EQ(other.get(h.held)->first, "holder-b");
  }
}

TEST_F(zookeeper_lease_test, a_release_in_a_new_session_frees_the_holders_node_at_once) {
  // As above, `held/<id>` holds this lease's token in a session the store gave up and the
  // server kept: the release knows the node by its token and deletes it, so the id is free at
  // once rather than when the old session expires. A node with another token stays.
  holder_of_id_0 h{b.address(), "release_adopt"};
  ASSERT_TRUE(h.claimed);
  flakeid::detail::zookeeper_session old{b.address(), 30s};
  h.hold_in(old, "holder-b");
  h.store.release(0, "holder-a", h.q.deadline);
  ASSERT_TRUE(old.get(h.held).has_value()) << "another holder's node was deleted";
  EXPECT_EQ(old.get(h.held)->first, "holder-b");
  h.hold_in(old, "holder-a");
  h.store.release(0, "holder-a", h.q.deadline);
  EXPECT_FALSE(old.exists(h.held).has_value()) << "the holder's node outlives its release";
  const auto last = old.get("/flakeid/" + h.o.name_space + "/last/0");
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->first, std::to_string(h.q.deadline.time_since_epoch().count()));
}

TEST_F(zookeeper_lease_test, a_session_cut_off_longer_than_its_patience_is_replaced) {
  // A server restarted from an empty data directory refuses a session that saw a newer zxid
  // without saying so; the lease store gives a session cut off for a second up rather than
  // wait out its timeout (6 s here), and the next request opens a new one.
  flakeid::detail::zookeeper_session s{{b.server.hosts(), 6s}, 500ms};
  s.replace_when_cut_for(1s);
  ASSERT_TRUE(s.exists("/zookeeper").has_value());
  const std::int64_t first = s.session_id();
  b.stop();
  for (int i = 0; i < 3000 && s.connected(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_FALSE(s.connected()) << "the client saw the server go";
  std::this_thread::sleep_for(1100ms);
  EXPECT_THROW((void)s.exists("/zookeeper"), flakeid::detail::store_connection_error)
      << "the old session given up, and no server for a new one";
  b.start();
  ASSERT_TRUE(s.exists("/zookeeper").has_value());
  EXPECT_NE(s.session_id(), first) << "a new session, though the server still knows the old";
}

TEST_F(zookeeper_lease_test, a_request_cut_off_waits_no_longer_than_its_calls_bound) {
  // A request made while the session is cut off waits in the store, not in the client (which
  // holds it for two thirds of the session timeout and then answers "operation timeout"), and
  // no longer than its call's bound: the call fails with "connection loss". The session, cut
  // off for less than its patience, stays, and is connected again once the server is back.
  flakeid::detail::zookeeper_session s{{b.server.hosts(), 6s}, 30s};
  ASSERT_TRUE(s.exists("/zookeeper").has_value());
  const std::int64_t first = s.session_id();
  b.stop();
  for (int i = 0; i < 3000 && s.connected(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_FALSE(s.connected()) << "the client saw the server go";
  try {
    (void)s.retry(200ms, [&] { return s.exists("/zookeeper"); });
    ADD_FAILURE() << "an answer with the server down";
  } catch (const flakeid::detail::zookeeper_answer_lost& e) {
    EXPECT_EQ(std::string(e.what()), "zookeeper " + b.server.hosts() + ": connection loss");
  }
  b.start();
  // The client connects again in the background; a request sent before it has may time out in
  // the client on a loaded machine, so it is asked again, within a bound far above that.
  ASSERT_TRUE(s.retry(60s, [&] { return s.exists("/zookeeper"); }).has_value());
  EXPECT_EQ(s.session_id(), first) << "the session was given up";
}

TEST_F(zookeeper_lease_test, an_instances_own_id_held_by_a_settled_holder_is_taken_over) {
  auto o = quick_options(unique_ns("stale_own"));
  const std::string held = "/flakeid/" + o.name_space + "/held/0";
  flakeid::detail::zookeeper_lease_store dead{b.address(), o};
  flakeid::claim_request q = claim_of_id_0("holder-a");
  q.instance = "pod-0";
  ASSERT_TRUE(dead.claim(q).has_value());
  flakeid::detail::zookeeper_lease_store next{b.address(), o};
  flakeid::claim_request early = claim_of_id_0("holder-b");
  early.instance = "pod-0";
  early.settled = q.deadline - 1ms;
  const auto twin = next.claim(early);
  ASSERT_TRUE(twin.has_value());
  EXPECT_TRUE(twin->held_by_instance) << "the holder may live: a twin is watched for";
  flakeid::claim_request late = early;
  late.settled = q.deadline;
  const auto c = next.claim(late);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->held_by_instance);
  EXPECT_TRUE(c->own_instance);
  EXPECT_EQ(c->id, 0U);
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  EXPECT_EQ(peek.get(held)->first, "holder-b");
  EXPECT_EQ(dead.renew(0, "holder-a", q.deadline + 100ms), flakeid::renewal::taken);
}

TEST_F(zookeeper_lease_test, a_claim_reports_a_deleted_deadline_node_as_lost_memory) {
  const auto o = quick_options(unique_ns("noticed"));
  const std::string root = "/flakeid/" + o.name_space;
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  // A namespace made long ago (its creation is no loss), whose id 0 a cleaner deleted.
  for (const std::string& p : {std::string("/flakeid"), root, root + "/held", root + "/last"})
    (void)peek.create(p, "", 0);
  ASSERT_TRUE(peek.create(root + "/last/0", "1000", 0));
  std::this_thread::sleep_for(o.ttl + o.safe_guard);  // the namespace's age: no loss by itself
  flakeid::detail::zookeeper_lease_store first{b.address(), o};
  auto c = first.claim(claim_of_id_0("holder-a"));
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->lost_memory_at.has_value()) << "an old namespace, nothing deleted";
  first.release(0, "holder-a", c->last.value_or(flakeid::lease_time{}));
  ASSERT_TRUE(peek.remove(root + "/last/0", -1));
  flakeid::detail::zookeeper_lease_store second{b.address(), o};
  c = second.claim(claim_of_id_0("holder-b"));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 0U);
  EXPECT_FALSE(c->last.has_value()) << "its record is gone";
  ASSERT_TRUE(c->lost_memory_at.has_value()) << "the deletion is a loss";
  const auto mine = peek.exists(root + "/held/0");
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(ms_or_min(c->lost_memory_at), mine->ctime) << "noticed at this claim";
  EXPECT_EQ(peek.get(root + "/last")->first, "1") << "one deletion noticed";
}

/// `store.renew(...)` until it answers (a renewal that finds its session expired throws
/// `lease_store_error` first; the next one runs on a new session), for at most 60 s.
flakeid::renewal renew_until_answered(flakeid::detail::zookeeper_lease_store& store,
                                      const std::string& holder, flakeid::lease_time deadline) {
  for (const auto end = steady::now() + 60s;;) {
    try {
      return store.renew(0, holder, deadline);
    } catch (const flakeid::lease_store_error&) {
      if (steady::now() > end) throw;
    }
    std::this_thread::sleep_for(20ms);
  }
}

TEST_F(zookeeper_lease_test, a_held_node_deleted_answers_taken_and_the_claim_gets_the_deadline) {
  // A loss counts within ttl + safe_guard of the claim, on the server's clock: a long ttl, so
  // that a loaded machine's steps fall within it.
  auto o = quick_options(unique_ns("heldgone"));
  o.ttl = 60'000ms;
  const std::string root = "/flakeid/" + o.name_space;
  flakeid::detail::zookeeper_lease_store holder{b.address(), o};
  const flakeid::claim_request q = claim_of_id_0("holder-a");
  ASSERT_TRUE(holder.claim(q).has_value());
  ASSERT_EQ(holder.renew(0, "holder-a", q.deadline + 100ms), flakeid::renewal::held);
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  ASSERT_TRUE(peek.remove(root + "/held/0", -1));
  EXPECT_EQ(holder.renew(0, "holder-a", q.deadline + 200ms), flakeid::renewal::taken);
  flakeid::detail::zookeeper_lease_store next{b.address(), o};
  const auto c = next.claim(claim_of_id_0("holder-b"));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 0U);
  EXPECT_EQ(c->last, q.deadline + 100ms) << "the holder's last confirmed deadline";
  EXPECT_EQ(ms_or_min(c->lost_memory_at), peek.exists(root + "/last")->mtime)
      << "a namespace made now (its last node just after it)";
}

TEST_F(zookeeper_lease_test, after_an_empty_data_dir_renewal_answers_taken_and_the_claim_waits) {
  const auto o = quick_options(unique_ns("emptied"));
  const std::string root = "/flakeid/" + o.name_space;
  flakeid::detail::zookeeper_lease_store holder{b.address(), o};
  const flakeid::claim_request q = claim_of_id_0("holder-a");
  ASSERT_TRUE(holder.claim(q).has_value());
  b.server.wipe();
  b.server.start();
  EXPECT_EQ(renew_until_answered(holder, "holder-a", q.deadline + 100ms), flakeid::renewal::taken);
  flakeid::detail::zookeeper_lease_store next{b.address(), o};
  const auto c = next.claim(claim_of_id_0("holder-b"));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 0U);
  EXPECT_FALSE(c->last.has_value()) << "the server forgot the deadline";
  flakeid::detail::zookeeper_session peek{b.address(), 30s};
  EXPECT_EQ(ms_or_min(c->lost_memory_at), peek.exists(root + "/last")->mtime)
      << "waits ttl + safe_guard from the namespace made again (its last node just after it)";
}

/// `d.next_max_id(step)` on key "orders" is refused: its node `how` after it reached `reached`.
void expect_refused(flakeid::zookeeper_distributor& d, std::uint64_t step, const std::string& how,
                    std::uint64_t reached) {
  const std::string r = std::to_string(reached);
  expect_error<flakeid::segment_store_error>(
      [&] { (void)d.next_max_id(step); },
      "flakeid: segment store " + std::string(d.store_name()) + ", key 'orders': next_max_id(" +
          std::to_string(step) + "): node " + d.path() + " " + how + " after it reached " + r +
          ": a counter that lost its value would hand out numbers again (restore it above " + r +
          ", or use another key)");
}

TEST_F(zookeeper_segment_test, a_counter_deleted_under_its_distributor_is_refused) {
  auto store = b.store(unique_segment_ns("deleted"), patient);
  auto d = store.distributor("orders");
  ASSERT_EQ(d.next_max_id(10), 10U);
  flakeid::detail::zookeeper_session peek{b.address(), patient};
  ASSERT_TRUE(peek.remove(d.path(), -1));
  expect_refused(d, 10, "was deleted", 10);
  EXPECT_EQ(d.current(), 0U);
}

// As the Redis and SQL counters (segment_scenarios.hpp, a_counter_made_again_is_refused): a
// counter made again after its node was lost, and grown by a process started since past this
// distributor's last range, is refused, not counted on.
TEST_F(zookeeper_segment_test, a_counter_made_again_and_grown_past_is_refused) {
  auto store = b.store(unique_segment_ns("again"), patient);
  auto before = store.distributor("orders");
  auto other = store.distributor("orders");
  ASSERT_EQ(before.next_max_id(50), 50U);
  ASSERT_EQ(other.next_max_id(50), 100U);
  auto copied = before;  // remembers the counter `before` counted on
  flakeid::detail::zookeeper_session peek{b.address(), patient};
  ASSERT_TRUE(peek.remove(before.path(), -1));
  auto since = store.distributor("orders");
  EXPECT_EQ(since.next_max_id(50), 50U);
  EXPECT_EQ(since.next_max_id(50), 100U);
  expect_refused(before, 50, "was made again", 50);
  expect_refused(copied, 50, "was made again", 50);
  EXPECT_EQ(since.current(), 100U) << "the refusal took no range";
}

TEST_F(zookeeper_lease_test, an_id_records_its_instance_and_a_lease_without_one_clears_it) {
  const auto named = instance_options(unique_ns("instrec"), "pod-z:80");
  auto plain = named;
  plain.instance.clear();
  const std::string root = "/flakeid/" + named.name_space;
  flakeid::detail::zookeeper_session peek{b.address(), std::chrono::seconds{30}};
  const auto data = [&](const std::string& path) {
    const auto n = peek.get(root + path);
    return n ? n->first : std::string("<none>");
  };
  {
    auto l = b.make(named);
    EXPECT_EQ(l->acquire(1), 0U);
    EXPECT_EQ(data("/instance/0"), "pod-z:80");
    EXPECT_EQ(data("/instances/pod-z%3A80"), "0");
  }
  EXPECT_EQ(data("/held/0"), "<none>") << "released";
  EXPECT_EQ(data("/instance/0"), "pod-z:80") << "a released id keeps its instance";
  EXPECT_EQ(data("/instances/pod-z%3A80"), "0");
  // A lease without an instance takes the id (after safe_guard) and clears its instance.
  auto p = b.make(plain);
  EXPECT_EQ(p->acquire(1), 0U);
  EXPECT_EQ(data("/instance/0"), "");
  // The index still names id 0, which no longer records the instance: the instance's next lease
  // claims as usual (it is not refused as a twin of the lease without an instance) and moves it.
  auto again = b.make(named);
  EXPECT_EQ(again->acquire(2), 1U);
  EXPECT_FALSE(p->lost());
  EXPECT_EQ(data("/instance/0"), "");
  EXPECT_EQ(data("/instance/1"), "pod-z:80");
  EXPECT_EQ(data("/instances/pod-z%3A80"), "1");
}

TEST_F(zookeeper_lease_test, instances_claim_beside_nodes_of_the_previous_version) {
  const std::string ns = unique_ns("instold");
  const std::string root = "/flakeid/" + ns;
  flakeid::detail::zookeeper_session peek{b.address(), std::chrono::seconds{30}};
  // As the previous version left them: id 0 held (its deadline an hour ahead: its holder
  // lives), id 1 with an old deadline, no instance nodes at all.
  for (const std::string& p : {std::string("/flakeid"), root, root + "/held", root + "/last"})
    (void)peek.create(p, "", 0);
  const auto hour_ahead =
      std::chrono::duration_cast<std::chrono::milliseconds>(
          (std::chrono::system_clock::now() + std::chrono::hours{1}).time_since_epoch())
          .count();
  ASSERT_TRUE(peek.create(root + "/last/0", std::to_string(hour_ahead), 0));
  ASSERT_TRUE(peek.create(root + "/last/1", "1000", 0));
  ASSERT_TRUE(peek.create(root + "/held/0", "old-holder", ZOO_EPHEMERAL));
  const auto data = [&](const std::string& path) {
    const auto n = peek.get(root + path);
    return n ? n->first : std::string("<none>");
  };
  auto v = b.make(instance_options(ns, "pod-v"));
  EXPECT_EQ(v->acquire(8), 1U);
  EXPECT_EQ(data("/instance/1"), "pod-v");
  EXPECT_EQ(data("/instances/pod-v"), "1");
  EXPECT_EQ(data("/instance/0"), "<none>");
  // A lease without an instance writes no instance node.
  auto plain = b.make(instance_options(ns, ""));
  EXPECT_EQ(plain->acquire(8), 2U);
  EXPECT_EQ(data("/instance/2"), "<none>");
  // An index that is no id, and one naming an id recorded for another instance, are no record.
  ASSERT_TRUE(peek.create(root + "/instances/pod-x", "x", 0));
  ASSERT_TRUE(peek.create(root + "/instances/pod-w", "1", 0));
  auto x = b.make(instance_options(ns, "pod-x"));
  EXPECT_EQ(x->acquire(8), 3U);
  EXPECT_EQ(data("/instances/pod-x"), "3");
  auto w = b.make(instance_options(ns, "pod-w"));
  EXPECT_EQ(w->acquire(8), 4U);
  EXPECT_EQ(data("/instances/pod-w"), "4");
  EXPECT_EQ(data("/instance/1"), "pod-v");
  EXPECT_FALSE(v->lost());
}

TEST_F(zookeeper_segment_test, keys_are_one_node_each_and_count_from_zero) {
  auto store = b.store(unique_segment_ns("keys"), patient);
  auto d = store.distributor("inv/2026");
  EXPECT_EQ(d.path(), "/flakeid/" + store.options().name_space + "/segments/inv%2F2026");
  EXPECT_EQ(d.current(), 0U);
  EXPECT_EQ(d.next_max_id(100), 100U);
  EXPECT_EQ(d.with_key("..").next_max_id(5), 5U);
  EXPECT_EQ(store.current("inv/2026"), 100U);
}

TEST_F(zookeeper_lease_test, leaf_workers_take_the_sequence_of_their_address_beside_leaf) {
  flakeid::detail::zookeeper_session peer{b.address(), std::chrono::seconds{30}};
  const std::string where = "zookeeper " + b.server.hosts();
  std::int64_t first_report = 0;
  const std::int64_t before = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  {
    flakeid::zookeeper_leaf_worker a{b.address(), {.ip = "10.0.0.1", .port = "8080"}};
    const flakeid::worker_assignment x = a.assign(flakeid::layouts::twitter);
    EXPECT_EQ(x.node, (flakeid::node_id{0, 0}));
    EXPECT_EQ(a.node(), "/snowflake/leaf/forever/10.0.0.1:8080-0000000000");
    EXPECT_EQ(x.source, where + " " + a.node());
    const auto data = peer.get(a.node());
    ASSERT_TRUE(data.has_value());
    EXPECT_EQ(data->first.rfind("{\"ip\":\"10.0.0.1\",\"port\":\"8080\",\"timestamp\":", 0), 0U)
        << data->first;
    first_report = std::stoll(data->first.substr(data->first.rfind(':') + 1));
    // A report reaches two periods (3 s) ahead: the generator mints only below it.
    EXPECT_GE(first_report, before + 6'000);
    // A second flakeid process on the same address is refused while the first one runs.
    flakeid::zookeeper_leaf_worker twin{b.address(), {.ip = "10.0.0.1", .port = "8080"}};
    expect_error<flakeid::worker_id_error>(
        [&] { (void)twin.assign(flakeid::layouts::twitter); },
        "flakeid: " + where +
            ": another flakeid process serves 10.0.0.1:8080 in Leaf's /snowflake/leaf (its node "
            "flakeid-live/10.0.0.1:8080 is held)");
  }
  // A Leaf server on another address makes its node as Leaf does.
  std::string made(128, '\0');
  const std::string json = R"({"ip":"10.0.0.2","port":"8080","timestamp":1})";
  ASSERT_EQ(zoo_create(peer.handle(), "/snowflake/leaf/forever/10.0.0.2:8080-", json.data(),
                       static_cast<int>(json.size()), &ZOO_OPEN_ACL_UNSAFE,
                       ZOO_PERSISTENT_SEQUENTIAL, made.data(), static_cast<int>(made.size())),
            ZOK);
  flakeid::zookeeper_leaf_worker c{b.address(), {.ip = "10.0.0.3", .port = "8080"}};
  EXPECT_EQ(c.assign(flakeid::layouts::twitter).node, (flakeid::node_id{0, 2}));
  // The first address starts again: the same worker id, not before the last timestamp its
  // previous run recorded at its end (below the deadline it reported).
  {
    const auto data = peer.get("/snowflake/leaf/forever/10.0.0.1:8080-0000000000");
    ASSERT_TRUE(data.has_value());
    const std::int64_t recorded = std::stoll(data->first.substr(data->first.rfind(':') + 1));
    EXPECT_LT(recorded, first_report);
    flakeid::zookeeper_leaf_worker again{b.address(), {.ip = "10.0.0.1", .port = "8080"}};
    const flakeid::worker_assignment x = again.assign(flakeid::layouts::twitter);
    EXPECT_EQ(x.node, (flakeid::node_id{0, 0}));
    EXPECT_EQ(x.not_after_unix_ms, recorded);
  }
  // A clock behind the reported timestamp is refused, as Leaf's start-up check does.
  const std::string ahead = R"({"ip":"10.0.0.1","port":"8080","timestamp":)" +
                            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::system_clock::now().time_since_epoch() +
                                               std::chrono::hours{1})
                                               .count()) +
                            "}";
  ASSERT_EQ(zoo_set(peer.handle(), "/snowflake/leaf/forever/10.0.0.1:8080-0000000000", ahead.data(),
                    static_cast<int>(ahead.size()), -1),
            ZOK);
  flakeid::zookeeper_leaf_worker behind{b.address(), {.ip = "10.0.0.1", .port = "8080"}};
  try {
    (void)behind.assign(flakeid::layouts::twitter);
    ADD_FAILURE() << "started with a clock an hour behind its last report";
  } catch (const flakeid::clock_backwards_error& e) {
    EXPECT_GT(e.step(), std::chrono::minutes{59}) << e.what();
    EXPECT_LE(e.step(), std::chrono::hours{1}) << e.what();
  }
}

// A Leaf worker's generator mints between its reports. The node must cover every ID minted, or
// a restart on a clock behind the last ID (an NTP step, a container moved to a host whose clock
// is behind) passes Leaf's start-up check and mints them again: before the fix, a run exited
// cleanly and a second one started 2 s behind it repeated 526,365 of 1,650,200 IDs.
TEST_F(zookeeper_lease_test, a_leaf_worker_restarted_behind_its_last_id_is_refused) {
  // One report an hour: every ID below is minted after the only report, an hour ahead of it.
  const flakeid::leaf_worker_options address{
      .ip = "10.0.0.11", .port = "8080", .report_every = std::chrono::hours{1}};
  flakeid::manual_clock clk = clock_at_wall(std::chrono::hours{1});
  std::uint64_t first = 0;
  {
    flakeid::zookeeper_leaf_worker a{b.address(), address};
    manual_gen gen{a, clk};
    first = gen.next_id();
    for (int i = 0; i < 99; ++i) (void)gen.next_id();
  }
  // The same address starts again with the generator's clock where the last run's IDs are.
  flakeid::zookeeper_leaf_worker again{b.address(), address};
  try {
    manual_gen gen{again, clk};
    const std::uint64_t id = gen.next_id();
    ADD_FAILURE() << "started behind the last run's IDs and minted " << id
                  << (id == first ? ", the last run's first ID" : "");
  } catch (const flakeid::clock_backwards_error& e) {
    EXPECT_GT(e.step(), std::chrono::minutes{59}) << e.what();
    EXPECT_LE(e.step(), std::chrono::hours{1}) << e.what();
  }
}

// The live node of a worker goes with its session (a pause longer than the session timeout,
// here deleted by hand). A second worker on the address then finds the first one's reports
// ahead of its clock and is refused, instead of minting the first one's IDs beside it: before
// the fix, a worker stopped for 8 s (SIGSTOP) and a second started meanwhile repeated 962,705
// of 3,408,200 IDs.
TEST_F(zookeeper_lease_test, a_leaf_worker_whose_live_node_went_keeps_a_second_one_out) {
  flakeid::detail::zookeeper_session peer{b.address(), std::chrono::seconds{30}};
  const flakeid::leaf_worker_options address{
      .ip = "10.0.0.12", .port = "8080", .report_every = std::chrono::hours{1}};
  flakeid::manual_clock clk = clock_at_wall(std::chrono::minutes{1});
  flakeid::zookeeper_leaf_worker a{b.address(), address};
  manual_gen first{a, clk};
  const std::uint64_t id = first.next_id();
  ASSERT_TRUE(peer.remove("/snowflake/leaf/flakeid-live/10.0.0.12:8080", -1));
  flakeid::zookeeper_leaf_worker twin{b.address(), address};
  try {
    manual_gen second{twin, clk};
    const std::uint64_t again = second.next_id();
    ADD_FAILURE() << "a second worker started beside the first and minted " << again
                  << (again == id ? ", the first one's ID" : "");
  } catch (const flakeid::clock_backwards_error& e) {
    EXPECT_GT(e.step(), std::chrono::minutes{59}) << e.what();
    EXPECT_LE(e.step(), std::chrono::hours{2}) << e.what();
  }
  EXPECT_GT(first.next_id(), id);
}

// Cleaning up Leaf's nodes by deleting `forever` (or `/snowflake/<name>`) makes ZooKeeper
// number the nodes from 0 again, while the workers on the old nodes mint up to their
// deadlines. A start waits those out (flakeid's mark of `forever`'s creation): before the fix,
// a worker on a new address took sequence 0 beside the running one and repeated 1,571,244 of
// 4,383,200 IDs.
TEST_F(zookeeper_lease_test, a_leaf_forever_made_again_waits_out_the_old_workers) {
  flakeid::detail::zookeeper_session peer{b.address(), std::chrono::seconds{30}};
  const auto wall = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  flakeid::manual_clock clk = clock_at_wall(std::chrono::seconds{1});
  flakeid::zookeeper_leaf_worker a{b.address(),
                                   {.name = "remade",
                                    .ip = "10.0.0.13",
                                    .port = "8080",
                                    .report_every = std::chrono::seconds{1}}};
  manual_gen first{a, clk};
  const std::uint64_t id = first.next_id();
  for (const std::string& child : peer.children("/snowflake/remade/forever"))
    ASSERT_TRUE(peer.remove("/snowflake/remade/forever/" + child, -1));
  ASSERT_TRUE(peer.remove("/snowflake/remade/forever", -1));
  const std::int64_t before = wall();
  flakeid::zookeeper_leaf_worker c{b.address(),
                                   {.name = "remade",
                                    .ip = "10.0.0.14",
                                    .port = "8080",
                                    .report_every = std::chrono::seconds{1}}};
  const flakeid::worker_assignment x = c.assign(flakeid::layouts::twitter);
  EXPECT_EQ(x.node, (flakeid::node_id{0, 0}));  // the sequence of the running worker
  // Not before the running worker's reports could reach (two periods of 1 s).
  EXPECT_GE(x.not_after_unix_ms, before + 2'000);
  EXPECT_GT(wall(), x.not_after_unix_ms);
  try {
    manual_gen second{x, clk};
    const std::uint64_t again = second.next_id();
    ADD_FAILURE() << "minted " << again << (again == id ? ", the running worker's ID" : "")
                  << " on the sequence of a worker of the deleted forever";
  } catch (const flakeid::clock_backwards_error&) {
    // Its clock lies below the old workers' deadlines.
  }
}

// Leaf falls back to a worker id cached on local disk when ZooKeeper is down at start-up;
// flakeid refuses the start instead (docs/leases.md, "Leaf's snowflake mode"). A worker
// assigned before the outage keeps minting up to the deadline it last reported.
TEST_F(zookeeper_lease_test, a_leaf_worker_started_while_the_server_is_down_is_refused) {
  // The running worker connects on a loaded machine too; the one started later meets no server.
  const flakeid::leaf_worker_options address{
      .ip = "10.0.0.9", .port = "8080", .connect_timeout = std::chrono::milliseconds{30'000}};
  flakeid::zookeeper_leaf_worker running{b.address(), address};
  flakeid::classic_snowflake<> gen{running};
  EXPECT_EQ(gen.node(), (flakeid::node_id{0, 0}));
  b.stop();
  const std::uint64_t id = gen.next_id();
  EXPECT_EQ(flakeid::layouts::twitter.decompose(id).worker, 0U);
  EXPECT_GT(gen.next_id(), id);
  flakeid::zookeeper_leaf_worker starting{
      b.address(),
      {.ip = "10.0.0.10", .port = "8080", .connect_timeout = std::chrono::milliseconds{500}}};
  expect_error<flakeid::lease_store_error>(
      [&] { (void)starting.assign(flakeid::layouts::twitter); },
      "flakeid: cannot connect to zookeeper " + b.server.hosts() + " within 500 ms: timed out");
}

/// An ensemble of three (`zk`), started before each test.
class zookeeper_ensemble_lease_test : public ::testing::Test {
 protected:
  void SetUp() override {
    FLAKEID_REQUIRE_SERVER(zk.available(), zk.missing());
    zk.start();
  }
  /// The ensemble's address, with sessions of 6 s: they outlive an election.
  [[nodiscard]] flakeid::zookeeper_address ensemble_address() const {
    return {zk.hosts(), std::chrono::milliseconds{6'000}};
  }
  /// `f()`, tried again while the ensemble does not answer (60 s at most).
  template <class F>
  static auto retried(F f) {
    return flakeid::detail::zookeeper_retry(std::chrono::steady_clock::now() + 60s, f);
  }
  /// The nodes of `o`'s namespace, made through `peek` and then left to age ttl + safe_guard
  /// (the namespace's age makes no loss by itself); its root node.
  static std::string aged_namespace(flakeid::detail::zookeeper_session& peek,
                                    const flakeid::lease_options& o) {
    const std::string root = "/flakeid/" + o.name_space;
    retried([&] {
      for (const std::string& p : {std::string("/flakeid"), root, root + "/held", root + "/last"})
        (void)peek.create(p, "", 0);
    });
    std::this_thread::sleep_for(o.ttl + o.safe_guard);
    return root;
  }
  zookeeper_ensemble zk;
};

TEST_F(zookeeper_ensemble_lease_test, the_leader_killed_mid_run_no_duplicate_and_minting_resumes) {
  // Sessions of 6 s outlive an election; the lease's deadline (ttl 900 ms) does not, so the
  // generator may refuse while the ensemble has no leader.
  const flakeid::zookeeper_address address = ensemble_address();
  auto o = quick_options(unique_ns("ensemble"));
  o.max_ids = 1;
  o.max_wait = 30'000ms;
  const flakeid::zookeeper_store store{address, store_options_of(o)};
  std::vector<std::uint64_t> ids;
  std::atomic<std::size_t> minted{0};
  std::atomic<std::size_t> refused{0};
  std::atomic<bool> stop{false};
  std::thread minter([&] {
    auto lease = lease_from(store, o);
    auto gen = std::make_unique<wall_gen>(*lease);
    while (!stop.load()) {
      try {
        ids.push_back(gen->next_id());
        minted.fetch_add(1);
      } catch (const flakeid::lease_lost_error&) {
        refused.fetch_add(1);
        if (lease->lost()) {
          // The session expired after all: the id is another holder's to take; take it anew
          // (above the old deadline, as any holder would).
          gen.reset();
          lease.reset();
          lease = lease_from(store, o);
          gen = std::make_unique<wall_gen>(*lease);
        }
        std::this_thread::sleep_for(1ms);
      }
    }
  });
  ASSERT_TRUE(eventually([&] { return minted.load() > 1000; }));
  const int leader = zk.leader();
  ASSERT_GE(leader, 0);
  zk.kill(leader);
  const std::size_t at_kill = minted.load();
  ASSERT_TRUE(eventually([&] { return zk.leader() >= 0; }, 90s)) << "no new leader";
  EXPECT_TRUE(eventually([&] { return minted.load() > at_kill + 1000; }, 90s))
      << "minting did not resume (" << refused.load() << " refusals)";
  stop.store(true);
  minter.join();
  EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) == ids.end())
      << "an ID repeated or went back";
  zk.start(leader);
}

TEST_F(zookeeper_ensemble_lease_test, a_claim_after_an_election_reports_lost_memory) {
  // A new zxid epoch (an election; a restart, perhaps from an older data directory) may have
  // lost what the last one recorded: the first claim that notices it reports a loss from now.
  const flakeid::zookeeper_address address = ensemble_address();
  const auto o = quick_options(unique_ns("epoch"));
  flakeid::detail::zookeeper_session peek{address, 30s};
  const std::string root = aged_namespace(peek, o);
  flakeid::detail::zookeeper_lease_store first{address, o};
  auto q = claim_of_id_0("holder-a");
  q.count = 2;
  auto c = first.claim(q);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 0U);
  EXPECT_FALSE(c->lost_memory_at.has_value()) << "the first epoch recorded is no loss";
  const int leader = zk.leader();
  ASSERT_GE(leader, 0);
  zk.kill(leader);
  ASSERT_TRUE(eventually([&] { return zk.leader() >= 0; }, 90s)) << "no new leader";
  flakeid::detail::zookeeper_lease_store second{address, o};
  q.holder = "holder-b";
  c = retried([&] { return second.claim(q); });
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 1U);
  const auto mine = retried([&] { return peek.exists(root + "/held/1"); });
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(ms_or_min(c->lost_memory_at), mine->ctime) << "noticed at this claim";
  EXPECT_EQ(retried([&] { return peek.get(root); })->first,
            std::to_string(mine->czxid >> 32) + " " + std::to_string(mine->ctime));
  zk.start(leader);
}

TEST_F(zookeeper_ensemble_lease_test,
       an_ensemble_restored_from_an_older_data_dir_makes_the_claimer_wait) {
  // Holder b raised id 0's deadline after a backup; the ensemble is then restored from that
  // backup, which holds only the deadline before b's. The restored servers begin a new epoch,
  // which the next claimer finds unlike the one the (restored) namespace node records.
  const flakeid::zookeeper_address address = ensemble_address();
  const auto o = quick_options(unique_ns("restore"));
  const std::string root = [&] {
    flakeid::detail::zookeeper_session peek{address, 30s};
    return aged_namespace(peek, o);
  }();
  const flakeid::claim_request qa = claim_of_id_0("holder-a");
  {
    flakeid::detail::zookeeper_lease_store a{address, o};
    const auto c = retried([&] { return a.claim(qa); });
    ASSERT_TRUE(c.has_value());
    EXPECT_FALSE(c->lost_memory_at.has_value());
  }
  const std::string backup = make_temp_dir("flakeid-zk-backup");
  zk.save_data(backup);
  zk.start();
  {
    flakeid::detail::zookeeper_lease_store later{address, o};
    const auto c = retried([&] { return later.claim(claim_of_id_0("holder-b")); });
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->last, qa.deadline);
    EXPECT_EQ(retried([&] { return later.renew(0, "holder-b", qa.deadline + 10s); }),
              flakeid::renewal::held);
  }
  zk.restore_data(backup);
  std::filesystem::remove_all(backup);
  zk.start();
  flakeid::detail::zookeeper_lease_store next{address, o};
  const auto c = retried([&] { return next.claim(claim_of_id_0("holder-c")); });
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->last, qa.deadline) << "the restored record: holder b's deadline is lost";
  flakeid::detail::zookeeper_session peek{address, 30s};
  const auto mine = retried([&] { return peek.exists(root + "/held/0"); });
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(ms_or_min(c->lost_memory_at), mine->ctime)
      << "a new epoch, noticed at this claim: it waits ttl + safe_guard from now";
}

TEST(zookeeper_lease_unreachable, fails_with_a_clear_error_within_the_connect_timeout) {
  const int port = free_port();
  const std::string where = "zookeeper 127.0.0.1:" + std::to_string(port);
  auto o = quick_options("unreachable");
  o.connect_timeout = 500ms;
  flakeid::zookeeper_store store{"127.0.0.1:" + std::to_string(port), store_options_of(o)};
  flakeid::lease l = store.lease(o);
  expect_error<flakeid::lease_store_error>(
      [&] { (void)l.acquire(32); },
      "flakeid: cannot connect to " + where + " within 500 ms: timed out");
}

TEST(zookeeper_address_test, reads_each_host_of_the_list_as_a_server_address_host) {
  const flakeid::zookeeper_store ok{"zk1:2181,[::1]:2182,zk3/apps"};
  EXPECT_EQ(ok.distributor("k").store_name(),
            "zookeeper zk1:2181,[::1]:2182,zk3/apps namespace default");
  expect_error<flakeid::invalid_option_error>(
      [] { (void)flakeid::zookeeper_store{"zk1:2181,::1:2181"}.distributor("k"); },
      "flakeid: invalid ZooKeeper address 'zk1:2181,::1:2181': an IPv6 address must be written "
      "in brackets, as [::1]:2181");
  expect_error<flakeid::invalid_option_error>(
      [] { (void)flakeid::zookeeper_store{"zk1:2181,zk2:99999/apps"}.distributor("k"); },
      "flakeid: invalid ZooKeeper address 'zk1:2181,zk2:99999/apps': port '99999' is not a "
      "number 1..65535");
  expect_error<flakeid::invalid_option_error>(
      [] { (void)flakeid::zookeeper_store{"digest:S3cr3t@zk1"}.distributor("k"); },
      "flakeid: invalid ZooKeeper address 'digest:***@zk1': a host list has no user or password "
      "(no '@')");
}

}  // namespace
