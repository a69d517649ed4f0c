// Redis leases in CosId's machine-id keys (redis_store.lease(o, redis_keys::cosid)) beside a peer
// that does what CosId's Redis distributor's scripts do, against a real redis-server started for
// each test (the scenarios: cosid_lease_scenarios.hpp).
#include <flakeid/adapters/redis.hpp>

#include <cstdint>
#include <string>

#include "cosid_lease_scenarios.hpp"
#include "redis_backend.hpp"

namespace flakeid_test {
namespace {

// Each test runs a scenario of cosid_lease_scenarios.hpp, which asserts as it goes; a fatal
// failure in it ends the test here.

/// A CosId service's Redis machine-id distributor (not stable, safe-guard duration `guard_ms`): one
/// script per call, with the steps, keys, data shapes and answers of CosId's scripts, on a
/// connection of its own; the time is what the caller says.
struct redis_cosid_peer {
  flakeid::detail::redis_connection conn;
  std::string ns;
  std::string instance;
  std::int64_t stamp = 0;          // written by the last distribute
  std::int64_t guard_ms = 60'000;  // the safe-guard duration

  /// distribute: its own entry (whatever its age), else the first released id, else the next
  /// of the counter below 2^bits, else the first entry whose stamp is `guard_ms` old. -1: none.
  std::int64_t distribute(std::int64_t now, int machine_bit) {
    static const std::string script = std::string(keys) + R"lua(
local me, max, now, at = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local function put(i, s) redis.call('hset', itc, me, tostring(i) .. '|' .. tostring(s)) end
local own = redis.call('hget', itc, me)
if own then
  local i, s = string.match(own, '^(%d+)|(%d+)$')
  i, s = tonumber(i), math.max(tonumber(s), now)
  put(i, s)
  return {i, s}
end
local rev = redis.call('hgetall', revert)
if #rev > 0 then
  local i, s = tonumber(rev[1]), math.max(tonumber(rev[2]), now)
  put(i, s)
  redis.call('hdel', revert, rev[1])
  return {i, s}
end
local last = redis.call('get', adder)
if not last then
  last = -1
  redis.call('set', adder, last)
end
if tonumber(last) < max then
  local i = redis.call('incr', adder)
  put(i, now)
  return {i, now}
end
local all = redis.call('hgetall', itc)
for k = 1, #all, 2 do
  local i, s = string.match(all[k + 1], '^(%d+)|(%d+)$')
  if tonumber(s) <= at then
    redis.call('hdel', itc, all[k])
    put(tonumber(i), now)
    return {tonumber(i), now}
  end
end
return {-1, -1}
)lua";
    const std::string max = std::to_string((std::int64_t{1} << machine_bit) - 1);
    auto r = conn.command({"EVAL", script, "0", ns, instance, max, std::to_string(now),
                           std::to_string(now - guard_ms)});
    stamp = r->element[1]->integer;
    return r->element[0]->integer;
  }
  /// guard: false when the instance has no entry (CosId's MachineIdLostException).
  bool guard(std::int64_t now, std::int64_t /*id*/) {
    static const std::string script = std::string(keys) + R"lua(
local own = redis.call('hget', itc, ARGV[2])
if not own then return 0 end
local i = string.match(own, '^(%d+)|')
redis.call('hset', itc, ARGV[2], i .. '|' .. ARGV[3])
return 1
)lua";
    return conn.command({"EVAL", script, "0", ns, instance, std::to_string(now)})->integer == 1;
  }
  /// revert, not stable: the entry moves to the released ids.
  void revert(std::int64_t now) {
    static const std::string script = std::string(keys) + R"lua(
local own = redis.call('hget', itc, ARGV[2])
if not own then return 0 end
redis.call('hdel', itc, ARGV[2])
redis.call('hset', revert, string.match(own, '^(%d+)|'), ARGV[3])
return 1
)lua";
    (void)conn.command({"EVAL", script, "0", ns, instance, std::to_string(now)});
  }

  static constexpr const char* keys = R"lua(
local itc = 'cosid:{' .. ARGV[1] .. '}:itc_idx'
local adder = 'cosid:{' .. ARGV[1] .. '}:adder'
local revert = 'cosid:{' .. ARGV[1] .. '}:revert'
)lua";
};

struct redis_cosid_backend : redis_backend {
  static constexpr auto cosid = flakeid::redis_keys::cosid;
};

class redis_cosid_lease_test : public server_test<redis_cosid_backend> {
 protected:
  /// CosId's keys of namespace `ns` deleted.
  void forget_cosid_records(const std::string& ns) const {
    flakeid::detail::redis_connection c{b.server.options(), 10s, 10s};
    (void)c.command({"DEL", "cosid:{" + ns + "}:itc_idx", "cosid:{" + ns + "}:adder",
                     "cosid:{" + ns + "}:revert"});
  }
  [[nodiscard]] auto peers() const {
    return [this](const std::string& ns, const std::string& instance) {
      return redis_cosid_peer{{b.server.options(), 10s, 10s}, ns, instance};
    };
  }
  /// HGET (`field` set) or GET of `key`; "<none>" when absent.
  std::string value(const std::string& key, const std::string& field = "") {
    flakeid::detail::redis_connection c{b.server.options(), 10s, 10s};
    auto r = field.empty() ? c.command({"GET", key}) : c.command({"HGET", key, field});
    return r->type == REDIS_REPLY_STRING ? std::string(r->str, r->len) : "<none>";
  }
};

FLAKEID_COSID_SCENARIOS(redis_cosid_lease_test)

TEST_F(redis_cosid_lease_test, claims_guards_and_reverts_in_cosids_keys) {
  flakeid::manual_clock clk = past_the_table();
  const std::string ns = unique_ns("cosrow");
  const std::string itc = "cosid:{" + ns + "}:itc_idx";
  auto l = b.make_in(cosid_options(ns, clk), flakeid::redis_keys::cosid);
  const std::int64_t t0 = ms(clk);
  ASSERT_EQ(l->acquire(4), 0U);
  EXPECT_EQ(value(itc, l->holder()), "0|" + std::to_string(t0));
  EXPECT_EQ(value("cosid:{" + ns + "}:adder"), "0") << "counted out from -1, as CosId does";
  clk.advance(5'000ms);
  l->renew_now();  // CosId's guard: the send time
  EXPECT_EQ(value(itc, l->holder()), "0|" + std::to_string(t0 + 5'000));
  manual_gen gen{held(*l), clk};
  const std::uint64_t id = gen.next_id();
  const std::string token = l->holder();
  l->release();  // CosId's revert: released, stamped just after the last timestamp used
  EXPECT_EQ(value(itc, token), "<none>");
  const std::string after = value("cosid:{" + ns + "}:revert", "0");
  ASSERT_NE(after, "<none>");
  EXPECT_GT(std::stoll(after), ts_of(id));
  EXPECT_LT(std::stoll(after), ts_of(id) + 10) << "the manual clock moved a few ms since";
  // A claim within safe_guard of the release takes the counter's next id rather than wait;
  // once the release has settled, the released id comes first (as CosId takes it).
  auto soon = b.make_in(cosid_options(ns, clk), flakeid::redis_keys::cosid);
  EXPECT_EQ(soon->acquire(4), 1U);
  clk.advance(2'010ms);  // safe_guard past the stamp
  auto next = b.make_in(cosid_options(ns, clk), flakeid::redis_keys::cosid);
  EXPECT_EQ(next->acquire(4), 0U);
  EXPECT_EQ(ms_or_min(next->previous_last()), std::stoll(after));
  EXPECT_EQ(value("cosid:{" + ns + "}:revert", "0"), "<none>");
}

}  // namespace
}  // namespace flakeid_test
