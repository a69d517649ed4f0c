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
inline nlohmann::json registry_config(const std::string& uri, const std::string& ns) {
  nlohmann::json c;
  c["generators"]["orders"] = {{"kind", "snowflake"},
                               {"lease", {{"store", uri}, {"namespace", ns}, {"ttl_ms", 3000}}}};
  c["generators"]["invoices"] = {
      {"kind", "chain"}, {"store", uri}, {"namespace", ns}, {"key", "invoice"}, {"step", 50}};
  return c;
}

inline void two_registries_share_a_store(const std::string& uri,
                                         const flakeid::registry_kinds& kinds,
                                         const std::string& ns = "registry") {
  const flakeid::registry a(registry_config(uri, ns), kinds);
  const flakeid::registry b(registry_config(uri, ns), kinds);
  const auto worker = [](const flakeid::registry& r) {
    return flakeid::layouts::twitter.decompose(r.source("orders").next_id()).worker;
  };
  EXPECT_NE(worker(a), worker(b));
  EXPECT_EQ(a.source("orders").gauges().at(0).second, static_cast<double>(worker(a)));
  EXPECT_TRUE(a.source("orders").health().ready) << a.source("orders").health().reason;

  std::vector<std::uint64_t> x(300);
  std::vector<std::uint64_t> y(300);
  a.source("invoices").next_ids(x);
  b.source("invoices").next_ids(y);
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  std::vector<std::uint64_t> both;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
  EXPECT_TRUE(both.empty()) << both.size() << " numbers handed out twice, the first "
                            << both.front();
  EXPECT_EQ(x.front() % 50, 1U) << "a chain starts at the first number of a segment";
  EXPECT_TRUE(a.source("invoices").health().ready);
}

}  // namespace flakeid_test
