#pragma once
// The registry over a server store, as two services would build it from one configuration:
// their leased worker ids differ and their chains hand out disjoint numbers.

#include <gtest/gtest.h>

#include <flakeid/registry.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace flakeid_test {

/// The configuration of the scenario: a leased snowflake and a chain, both on `uri`.
inline std::string registry_config(const std::string& uri, const std::string& ns) {
  return R"({"generators": {
      "orders": {"kind": "snowflake",
                 "lease": {"store": ")" +
         uri + R"(", "namespace": ")" + ns + R"(", "ttl_ms": 3000}},
      "invoices": {"kind": "chain", "store": ")" +
         uri + R"(", "namespace": ")" + ns + R"(", "key": "invoice", "step": 50}}})";
}

/// What two registries on one store did: the worker ids their snowflakes leased (and what the
/// first one's gauge says), how many of 300 chain numbers each both handed out, the first
/// number of the first chain, and whether both entries of the first were ready (why not).
struct registry_share {
  std::uint64_t worker_a = 0;
  std::uint64_t worker_b = 0;
  double gauge_a = -1;
  std::size_t repeated = 0;
  std::uint64_t first_number = 0;
  bool ready = false;
  std::string why;
};

/// Builds two registries of `registry_config(uri, ns)` side by side and mints from both; the
/// test asserts on what it returns.
inline registry_share two_registries_share_a_store(const std::string& uri,
                                                   const flakeid::registry_kinds& kinds,
                                                   const std::string& ns = "registry") {
  const auto a = flakeid::registry::from_text(registry_config(uri, ns), kinds);
  const auto b = flakeid::registry::from_text(registry_config(uri, ns), kinds);
  const auto worker = [](const flakeid::registry& r) {
    return flakeid::layouts::twitter.decompose(r.source("orders").next_id()).worker;
  };
  registry_share r;
  r.worker_a = worker(a);
  r.worker_b = worker(b);
  r.gauge_a = a.source("orders").gauges().at(0).second;
  std::vector<std::uint64_t> x(300);
  std::vector<std::uint64_t> y(300);
  a.source("invoices").next_ids(x);
  b.source("invoices").next_ids(y);
  r.first_number = x.front();
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  std::vector<std::uint64_t> both;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
  r.repeated = both.size();
  const flakeid::source_health orders = a.source("orders").health();
  const flakeid::source_health invoices = a.source("invoices").health();
  r.ready = orders.ready && invoices.ready;
  r.why = orders.reason + invoices.reason;
  return r;
}

/// Kinds with the one layout of the scenario's configuration (its default, twitter): a store
/// joins them. (`standard()` would build every generator kind of seven layouts, the costly part
/// to compile, and the memory and file stores, which registry_test.cpp covers.)
inline flakeid::registry_kinds twitter_kinds() {
  return flakeid::registry_kinds{}.layout<flakeid::layouts::twitter>("twitter");
}

/// Two registries of one configuration on `uri`: different worker ids (the gauge says the
/// first's), no chain number handed out by both, the chain starting at a segment's first number,
/// both entries ready. A failure names every check that failed.
inline ::testing::AssertionResult registries_share(const std::string& uri,
                                                   const flakeid::registry_kinds& kinds) {
  const registry_share r = two_registries_share_a_store(uri, kinds);
  std::string why;
  if (r.worker_a == r.worker_b) why += "both leased worker id " + std::to_string(r.worker_a) + "; ";
  if (r.gauge_a != static_cast<double>(r.worker_a))
    why += "the gauge says " + std::to_string(r.gauge_a) + ", the lease " +
           std::to_string(r.worker_a) + "; ";
  if (r.repeated != 0) why += std::to_string(r.repeated) + " numbers handed out by both; ";
  if (r.first_number % 50 != 1)
    why += "the chain starts at " + std::to_string(r.first_number) + ", not a segment's first; ";
  if (!r.ready) why += "not ready: " + r.why;
  if (why.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << why;
}

}  // namespace flakeid_test
