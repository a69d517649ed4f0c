// ZooKeeper leases in CosId's machine-id nodes (zookeeper_store.lease(o, zookeeper_nodes::cosid))
// beside a peer that does what CosId's ZooKeeper distributor does, against a real zookeeper
// server started for each test (the scenarios: cosid_lease_scenarios.hpp).
#include <flakeid/adapters/zookeeper.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cosid_lease_scenarios.hpp"
#include "server_support.hpp"
#include "zookeeper_backend.hpp"

namespace flakeid_test {
namespace {

// Each test runs a scenario of cosid_lease_scenarios.hpp, which asserts as it goes; a fatal
// failure in it ends the test here.

/// A CosId service's ZooKeeper machine-id distributor (not stable, safe-guard duration `guard_ms`):
/// its nodes, data shapes and steps, on a session of its own; the time is what the caller says.
struct zookeeper_cosid_peer {
  std::unique_ptr<flakeid::detail::zookeeper_session> session;
  std::string ns;
  std::string instance;
  std::int64_t id = -1;            // the id this peer took last
  std::int64_t stamp = 0;          // the stamp it wrote with it (a released id's: as it was)
  std::int64_t guard_ms = 60'000;  // the safe-guard duration

  [[nodiscard]] std::string root() const { return "/cosid/" + ns; }
  [[nodiscard]] std::string mine() const { return root() + "/__itc_idx/" + instance; }
  static std::optional<std::int64_t> id_in(const std::string& state) {
    const auto bar = state.find('|');
    if (bar == std::string::npos) return std::nullopt;
    return std::stoll(state.substr(0, bar));
  }
  /// Holds the id of `state`, with its stamp.
  std::int64_t take(const std::string& state) {
    stamp = std::stoll(state.substr(state.find('|') + 1));
    return id = *id_in(state);
  }
  /// Writes the instance's node (made or replaced).
  void put(const std::string& data) {
    if (!session->create(mine(), data, 0)) {
      flakeid::detail::zookeeper_ops ops;
      ops.set(mine(), data, -1);
      (void)ops.run(*session);
    }
  }

  /// distribute: its own node as stored, else the first released id (deleted, then its state
  /// written as the instance's), else the counter's next (a versioned increment: id = new
  /// value - 1) while it is at most 2^bits - 1, else the first instance whose stamp is
  /// `guard_ms` old. -1: none.
  std::int64_t distribute(std::int64_t now, int machine_bit) {
    for (const std::string& p :
         {std::string("/cosid"), root(), root() + "/__itc_idx", root() + "/__revert"})
      (void)session->create(p, "", 0);
    if (const auto own = session->get(mine())) return take(own->first);
    for (const std::string& name : session->children(root() + "/__revert")) {
      const auto node = session->get(root() + "/__revert/" + name);
      if (!node || !session->remove(root() + "/__revert/" + name, -1)) continue;
      put(node->first);
      return take(node->first);
    }
    for (;;) {
      const std::string cp = root() + "/__counter";
      const auto counter = session->get(cp);
      std::uint32_t n = 0;
      if (counter && counter->first.size() == 4)
        for (const char ch : counter->first) n = (n << 8) | static_cast<unsigned char>(ch);
      const std::uint32_t next = n + 1;
      const std::string bytes{static_cast<char>(next >> 24), static_cast<char>((next >> 16) & 255),
                              static_cast<char>((next >> 8) & 255), static_cast<char>(next & 255)};
      flakeid::detail::zookeeper_ops ops;
      if (counter) {
        ops.set(cp, bytes, counter->second.version);
      } else {
        ops.create(cp, bytes, 0);
      }
      if (ops.run(*session) != ZOK) continue;  // another increment came first
      if (static_cast<std::int64_t>(n) > (std::int64_t{1} << machine_bit) - 1) break;
      put(std::to_string(n) + "|" + std::to_string(now));
      return take(std::to_string(n) + "|" + std::to_string(now));
    }
    for (const std::string& name : session->children(root() + "/__itc_idx")) {
      const std::string p = root() + "/__itc_idx/" + name;
      const auto node = session->get(p);
      if (!node) continue;
      const auto bar = node->first.find('|');
      if (std::stoll(node->first.substr(bar + 1)) > now - guard_ms || !session->remove(p, -1))
        continue;
      const std::int64_t taken = *id_in(node->first);
      put(std::to_string(taken) + "|" + std::to_string(now));
      return take(std::to_string(taken) + "|" + std::to_string(now));
    }
    return -1;
  }
  /// guard: writes "<its id>|now" into its node; false when the node is gone.
  bool guard(std::int64_t now, std::int64_t held) {
    flakeid::detail::zookeeper_ops ops;
    ops.set(mine(), std::to_string(held) + "|" + std::to_string(now), -1);
    return ops.run(*session) == ZOK;
  }
  /// revert, not stable: its node goes, then `__revert/<id>` holds "<id>|now".
  void revert(std::int64_t now) {
    if (!session->remove(mine(), -1)) return;  // gone: CosId's delete throws, nothing more
    const std::string p = root() + "/__revert/" + std::to_string(id);
    const std::string data = std::to_string(id) + "|" + std::to_string(now);
    if (!session->create(p, data, 0)) {
      flakeid::detail::zookeeper_ops ops;
      ops.set(p, data, -1);
      (void)ops.run(*session);
    }
  }
};

struct zookeeper_cosid_backend : zookeeper_backend {
  static constexpr auto cosid = flakeid::zookeeper_nodes::cosid;
  template <class Which>
  std::unique_ptr<flakeid::lease> make_in(const flakeid::lease_options& o, Which which) const {
    return std::unique_ptr<flakeid::lease>(new flakeid::lease(
        flakeid::zookeeper_store{address(), store_options_of(o)}.lease(o, which)));
  }
};

class zookeeper_cosid_lease_test : public server_test<zookeeper_cosid_backend> {
 protected:
  /// CosId's nodes of namespace `ns` deleted.
  void forget_cosid_records(const std::string& ns) const {
    flakeid::detail::zookeeper_session z{b.address(), 10s};
    const std::string root = "/cosid/" + ns;
    for (const char* dir : {"/__itc_idx", "/__revert"})
      for (const auto& name : z.children(root + dir)) (void)z.remove(root + dir + "/" + name, -1);
    (void)z.remove(root + "/__counter", -1);
  }
  [[nodiscard]] auto peers() const {
    return [this](const std::string& ns, const std::string& instance) {
      return zookeeper_cosid_peer{
          std::make_unique<flakeid::detail::zookeeper_session>(b.address(), 10s), ns, instance};
    };
  }
  std::string data(const std::string& path) {
    flakeid::detail::zookeeper_session s{b.address(), 10s};
    const auto n = s.get(path);
    return n ? n->first : "<none>";
  }
};

FLAKEID_COSID_SCENARIOS(zookeeper_cosid_lease_test)

TEST_F(zookeeper_cosid_lease_test, claims_guards_and_reverts_in_cosids_nodes) {
  flakeid::manual_clock clk = past_the_table();
  const std::string ns = unique_ns("cosrow");
  const std::string root = "/cosid/" + ns;
  auto l = b.make_in(cosid_options(ns, clk), flakeid::zookeeper_nodes::cosid);
  const std::int64_t t0 = ms(clk);
  ASSERT_EQ(l->acquire(4), 0U);
  EXPECT_EQ(data(root + "/__itc_idx/" + l->holder()), "0|" + std::to_string(t0));
  EXPECT_EQ(data(root + "/__counter"), std::string("\0\0\0\1", 4)) << "Curator's integer";
  clk.advance(5'000ms);
  l->renew_now();  // CosId's guard: the send time
  EXPECT_EQ(data(root + "/__itc_idx/" + l->holder()), "0|" + std::to_string(t0 + 5'000));
  manual_gen gen{held(*l), clk};
  const std::uint64_t id = gen.next_id();
  const std::string token = l->holder();
  l->release();  // CosId's revert: released, stamped just after the last timestamp used
  EXPECT_EQ(data(root + "/__itc_idx/" + token), "<none>");
  const std::string released = data(root + "/__revert/0");
  ASSERT_EQ(released.rfind("0|", 0), 0U) << released;
  const std::int64_t after = std::stoll(released.substr(2));
  EXPECT_GT(after, ts_of(id));
  EXPECT_LT(after, ts_of(id) + 10) << "the manual clock moved a few ms since";
  clk.advance(2'010ms);  // safe_guard past the stamp: the released id comes first
  auto next = b.make_in(cosid_options(ns, clk), flakeid::zookeeper_nodes::cosid);
  EXPECT_EQ(next->acquire(4), 0U);
  EXPECT_EQ(ms_or_min(next->previous_last()), after);
  EXPECT_EQ(data(root + "/__revert/0"), "<none>");
}

// CosId's ZooKeeper distributor hands out a released id with the stamp of its release, and
// guards it only a minute later: by its own rule the id looks free meanwhile. A claim also
// counts the node's write time (`mtime`) as a sign of life, and leaves the id alone.
TEST_F(zookeeper_cosid_lease_test, an_id_cosid_took_back_with_its_old_stamp_is_left_alone) {
  const std::string ns = unique_ns("cosold");
  const std::string root = "/cosid/" + ns;
  const std::int64_t wall = ms(clock_at_wall());
  const std::int64_t released = wall - 1'200'000;  // 20 minutes ago
  {
    flakeid::detail::zookeeper_session z{b.address(), 10s};
    for (const std::string& p :
         {std::string("/cosid"), root, root + "/__itc_idx", root + "/__revert"})
      (void)z.create(p, "", 0);
    ASSERT_TRUE(z.create(root + "/__counter", std::string("\0\0\0\1", 4), 0));
    ASSERT_TRUE(z.create(root + "/__revert/0", "0|" + std::to_string(released), 0));
  }
  auto peer = peers()(ns, "10.0.0.5:8080");
  ASSERT_EQ(peer.distribute(wall, 0), 0);
  EXPECT_EQ(peer.stamp, released) << "the stamp of the release, as CosId writes it";
  // A ttl of 10 minutes: the peer's write lies within it however slow the machine.
  flakeid::manual_clock clk = clock_at_wall(30'000ms);
  auto o = cosid_options(ns, clk);
  o.ttl = 600'000ms;
  auto early = b.make_in(o, flakeid::zookeeper_nodes::cosid);
  EXPECT_THROW((void)early->acquire(1), flakeid::worker_id_error);
  clk.advance(600'000ms);  // the write, too, is older than ttl now
  auto late = b.make_in(o, flakeid::zookeeper_nodes::cosid);
  EXPECT_EQ(late->acquire(1), 0U);
  EXPECT_GT(ms_or_min(late->previous_last()), released + 600'000) << "its write time + ttl";
}

}  // namespace
}  // namespace flakeid_test
