// The registry: generators by name from JSON, from the environment and from code; every
// configuration error, with its exact message.
#include <gtest/gtest.h>
#include <flakeid/registry.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/expect_error.hpp"
#include "temp_dir.hpp"

namespace {

using flakeid_test::expect_error;
using flakeid_test::temp_dir;
flakeid::registry make(const std::string& text) { return flakeid::registry::from_text(text); }

void expect_config_error(const std::string& text, std::string_view what) {
  expect_error<flakeid::registry_error>([&] { (void)make(text); }, what);
}

TEST(registry_test, builds_named_generators_from_json) {
  const flakeid::registry ids = make(R"({"generators": {
      "orders": {"kind": "snowflake", "layout": "twitter", "worker": 7, "datacenter": 1},
      "users": {"kind": "cosid", "worker": 12},
      "invoices": {"kind": "chain", "store": "memory:", "key": "invoice", "step": 100,
                   "text": {"form": "decimal", "pad": true, "width": 7, "prefix": "INV-"}}}})");
  EXPECT_EQ(ids.names(), (std::vector<std::string>{"invoices", "orders", "users"}));

  // The generator itself, by its type: the same object the handle mints from.
  auto& orders = ids.get<flakeid::classic_snowflake<flakeid::layouts::twitter>>("orders");
  const std::uint64_t a = orders.next_id();
  const std::uint64_t b = ids.source("orders").next_id();
  EXPECT_LT(a, b);
  const flakeid::id_parts p = flakeid::layouts::twitter.decompose(b);
  EXPECT_EQ(p.worker, 7U);
  EXPECT_EQ(p.datacenter, 1U);
  EXPECT_EQ(ids.source("orders").kind(), "snowflake");
  EXPECT_TRUE(ids.source("orders").is_snowflake());

  // CosId's layout by default for kind cosid.
  const std::uint64_t u = ids.source("users").next_id();
  EXPECT_EQ(flakeid::layouts::cosid.decompose(u).worker, 12U);
  EXPECT_EQ(ids.source("users").kind(), "cosid");

  // A chain on the memory store: 1, 2, 3 ..., as text through the entry's converter.
  flakeid::id_source& inv = ids.source("invoices");
  EXPECT_EQ(inv.kind(), "chain");
  EXPECT_FALSE(inv.is_snowflake());
  EXPECT_EQ(inv.next_id(), 1U);
  EXPECT_EQ(inv.next_text(), "INV-0000002");
  EXPECT_EQ(inv.from_text("INV-0000002"), 2U);
  std::vector<std::uint64_t> batch(3);
  inv.next_ids(batch);
  EXPECT_EQ(batch, (std::vector<std::uint64_t>{3, 4, 5}));
  EXPECT_EQ(
      ids.get<flakeid::segment_chain_generator<flakeid::memory_distributor>>("invoices").next_id(),
      6U);
  EXPECT_TRUE(inv.health().ready);
}

TEST(registry_test, describes_an_id_by_its_layout) {
  const flakeid::registry ids = make(R"({"generators": {
      "orders": {"kind": "snowflake", "worker": 7, "datacenter": 1},
      "plain": {"kind": "segment", "store": "memory:", "key": "k"}}})");
  // 2024-01-01T00:00:00Z on the Twitter epoch, datacenter 1, worker 7, sequence 5.
  const std::uint64_t id = flakeid::layouts::twitter.compose(
      {.timestamp = flakeid::id_parts{}.timestamp + std::chrono::milliseconds{1704067200000},
       .datacenter = 1,
       .worker = 7,
       .sequence = 5});
  EXPECT_EQ(ids.source("orders").describe(id),
            "{\"id\":\"" + std::to_string(id) +
                "\",\"unix_ms\":1704067200000,\"datacenter\":1,\"worker\":7,\"sequence\":5}");
  EXPECT_EQ(ids.source("plain").describe(42), "{\"id\":\"42\"}");
  EXPECT_EQ(ids.source("plain").kind(), "segment");
  EXPECT_EQ(ids.source("plain").to_text(42), "42");
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)ids.source("plain").from_text("4x2"); },
      "flakeid: text \"4x2\" has 'x' in its number at index 1; allowed: 0-9");
}

TEST(registry_test, leases_worker_ids_and_releases_them_with_the_registry) {
  const flakeid::registry_kinds kinds = flakeid::registry_kinds::standard();
  const std::string config = R"({"generators": {
      "a": {"kind": "snowflake", "lease": {"store": "memory:", "namespace": "shop",
            "safe_guard_ms": 0, "max_ids": 2, "wait_for_id_ms": 60000}},
      "b": {"kind": "tick", "lease": {"store": "memory:", "namespace": "shop",
            "safe_guard_ms": 0, "max_ids": 2, "wait_for_id_ms": 60000}}}})";
  std::set<double> workers;
  {
    const flakeid::registry ids = flakeid::registry::from_text(config, kinds);
    for (const char* name : {"a", "b"}) {
      const auto g = ids.source(name).gauges();
      ASSERT_EQ(g.size(), 3U) << name;
      EXPECT_EQ(g[0].first, "worker_id");
      workers.insert(g[0].second);
      EXPECT_EQ(g[1], (std::pair<std::string, double>{"lease_valid", 1.0}));
      EXPECT_EQ(g[2], (std::pair<std::string, double>{"lease_lost", 0.0}));
      EXPECT_TRUE(ids.source(name).health().ready) << ids.source(name).health().reason;
    }
    EXPECT_EQ(workers, (std::set<double>{0.0, 1.0}));
    EXPECT_EQ(flakeid::layouts::twitter.decompose(ids.source("a").next_id()).worker,
              static_cast<std::uint64_t>(ids.source("a").gauges()[0].second));
  }
  // Released with the registry: a new registry on the same kinds (so the same memory store),
  // whose namespace has room for two ids, takes 0 and 1 again (waiting, if it must, for the
  // tick of the release to pass; without the release it would fail after a minute).
  const flakeid::registry again = flakeid::registry::from_text(config, kinds);
  std::set<double> again_workers;
  for (const char* name : {"a", "b"}) again_workers.insert(again.source(name).gauges()[0].second);
  EXPECT_EQ(again_workers, (std::set<double>{0.0, 1.0}));
}

TEST(registry_test, a_file_store_chain_goes_on_above_an_earlier_registry) {
  const temp_dir dir("registry");
  const std::string config = R"({"generators": {"ids": {"kind": "chain", "store": "file://)" +
                             dir.path.string() + R"(", "key": "orders", "step": 10}}})";
  std::uint64_t last = 0;
  {
    const flakeid::registry ids = make(config);
    std::vector<std::uint64_t> v(25);
    ids.source("ids").next_ids(v);
    EXPECT_EQ(v.front(), 1U);
    EXPECT_EQ(v.back(), 25U);
    last = v.back();
  }
  const flakeid::registry ids = make(config);
  EXPECT_GT(ids.source("ids").next_id(), last);
}

TEST(registry_test, a_relative_file_store_is_refused) {
  // A relative directory is another one in each working directory (a service started by
  // systemd runs in /): two processes with this configuration counted from 1 each, and took
  // worker id 0 each (before: 2 processes x 100,000 numbers, all 100,000 repeated; 1,000,000
  // twitter IDs each, 397,186 repeated). `file://var/lib/ids` is the same mistake.
  const std::string name = "flakeid-registry-relative-probe";
  for (const std::string& uri : {"file:" + name, "file://" + name + "/ids", std::string("file:")}) {
    const std::string dir = uri.substr(uri.starts_with("file://") ? 7 : 5);
    const std::string why = "file store '" + uri + "' names the relative directory '" + dir +
                            "', another directory in each working directory, where counters "
                            "and worker ids start again: give an absolute one "
                            "(file:///var/lib/ids)";
    expect_error<flakeid::registry_error>(
        [&] {
          (void)make(R"({"generators": {"inv": {"kind": "chain", "store": ")" + uri +
                     R"(", "key": "invoice"}}})");
        },
        "flakeid: registry entry 'inv': " + why);
    expect_error<flakeid::registry_error>(
        [&] {
          (void)make(R"({"generators": {"sf": {"kind": "snowflake", "lease": {"store": ")" + uri +
                     R"("}}}})");
        },
        "flakeid: registry entry 'sf': " + why);
  }
  EXPECT_FALSE(std::filesystem::exists(name));
  std::filesystem::remove_all(name);
}

/// The numbers of `n` calls of `s.next_id()`, and the message of the call that threw, if any.
std::pair<std::vector<std::uint64_t>, std::string> draw(flakeid::id_source& s, int n) {
  std::vector<std::uint64_t> got;
  try {
    for (int i = 0; i < n; ++i) got.push_back(s.next_id());
  } catch (const flakeid::segment_store_error& e) {
    return {got, e.what()};
  }
  return {got, ""};
}

TEST(registry_test,
     a_segment_entry_is_unready_from_its_first_failed_store_call_to_its_next_good_one) {
  const temp_dir dir("registry_health");
  const std::string store = "file://" + (dir.path / "ids").string();
  std::filesystem::create_directory(dir.path / "ids");
  const flakeid::registry ids = make(R"({"generators": {
      "plain": {"kind": "segment", "store": ")" +
                                     store + R"(", "key": "p", "step": 3},
      "chain": {"kind": "chain", "store": ")" +
                                     store + R"(", "key": "c", "step": 3,
                "min_ahead": 1, "max_ahead": 1}}})");
  flakeid::id_source& plain = ids.source("plain");
  flakeid::id_source& chain = ids.source("chain");
  EXPECT_EQ(draw(plain, 2).first, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(draw(chain, 2).first, (std::vector<std::uint64_t>{1, 2}));
  // The store goes away: each entry serves what it holds (the plain one the rest of its
  // segment; the chain that, and the segment its worker prefetched if it got to it first), then
  // its store call fails.
  std::filesystem::rename(dir.path / "ids", dir.path / "away");
  const auto [plain_got, plain_error] = draw(plain, 10);
  const auto [chain_got, chain_error] = draw(chain, 10);
  EXPECT_EQ(plain_got, (std::vector<std::uint64_t>{3}));
  ASSERT_TRUE(chain_got == std::vector<std::uint64_t>{3} ||
              chain_got == (std::vector<std::uint64_t>{3, 4, 5, 6}));
  ASSERT_NE(plain_error, "");
  ASSERT_NE(chain_error, "");
  // Unready from the first probe on, as often as asked, each saying why (the chain's worker
  // may have failed since, asking for another span: its reason names the latest failure).
  const std::string chain_why =
      "the segment store fails and nothing is prefetched: flakeid: segment store ";
  for (int probe = 0; probe < 3; ++probe) {
    const flakeid::source_health p = plain.health();
    const flakeid::source_health c = chain.health();
    EXPECT_FALSE(p.ready);
    EXPECT_EQ(p.reason, "the latest segment store call failed: " + plain_error);
    EXPECT_FALSE(c.ready);
    EXPECT_EQ(c.reason.substr(0, chain_why.size()), chain_why) << c.reason;
    EXPECT_NE(c.reason.find(", key 'c': "), std::string::npos) << c.reason;
  }
  // The store is back: the next call of each succeeds, the numbers go on above those handed
  // out, and the entry is ready again.
  std::filesystem::rename(dir.path / "away", dir.path / "ids");
  EXPECT_EQ(draw(plain, 1).first, (std::vector<std::uint64_t>{4}));
  EXPECT_EQ(draw(chain, 1).first, (std::vector<std::uint64_t>{chain_got.back() + 1}));
  EXPECT_TRUE(plain.health().ready) << plain.health().reason;
  EXPECT_TRUE(chain.health().ready) << chain.health().reason;
}

TEST(registry_test, reads_a_file_and_the_environment) {
  const temp_dir dir("registry_file");
  const auto file = dir.path / "ids.json";
  std::ofstream(file) << R"({"generators": {"x": {"kind": "snowflake", "worker": 3}}})";
  EXPECT_EQ(flakeid::registry::from_file(file).names(), std::vector<std::string>{"x"});

  ASSERT_EQ(
      ::setenv("FLAKEID_TEST_GENERATORS",
               R"({"generators": {"y": {"kind": "segment", "store": "memory:", "key": "k"}}})", 1),
      0);
  EXPECT_EQ(
      flakeid::registry::from_env(flakeid::registry_kinds::standard(), "FLAKEID_TEST_GENERATORS")
          .names(),
      std::vector<std::string>{"y"});
  ::unsetenv("FLAKEID_TEST_GENERATORS");
  expect_error<flakeid::registry_error>(
      [] {
        (void)flakeid::registry::from_env(flakeid::registry_kinds::standard(),
                                          "FLAKEID_TEST_GENERATORS");
      },
      "flakeid: registry: FLAKEID_TEST_GENERATORS is not set");
  expect_error<flakeid::registry_error>(
      [&] { (void)flakeid::registry::from_file(dir.path / "none.json"); },
      "flakeid: registry: cannot read " + (dir.path / "none.json").string() +
          " (No such file or directory)");
  std::ofstream(dir.path / "bad.json") << R"({"generators": {"x": )";
  expect_error<flakeid::registry_error>(
      [&] { (void)flakeid::registry::from_file(dir.path / "bad.json"); },
      "flakeid: registry: " + (dir.path / "bad.json").string() +
          " is not JSON (at byte 22: the text ends where a value should be)");
}

TEST(registry_test, code_entries_sit_beside_configured_ones) {
  flakeid::registry ids = make(R"({"generators": {"a": {"kind": "snowflake", "worker": 1}}})");
  auto& genes = ids.emplace<flakeid::gene_snowflake<flakeid::layouts::seed_gene>>(
      "genes", flakeid::worker_id{3});
  EXPECT_EQ(&ids.get<flakeid::gene_snowflake<flakeid::layouts::seed_gene>>("genes"), &genes);
  EXPECT_EQ(flakeid::layouts::seed_gene.shard_of(genes.next_id(std::uint64_t{21}), 16), 21U % 16);
  EXPECT_EQ(ids.names(), (std::vector<std::string>{"a", "genes"}));
  expect_error<flakeid::registry_error>(
      [&] { (void)ids.emplace<flakeid::classic_snowflake<>>("a", flakeid::worker_id{2}); },
      "flakeid: registry entry 'a': the name is taken");
  expect_error<flakeid::registry_error>(
      [&] { (void)ids.emplace<flakeid::classic_snowflake<>>("a/b", flakeid::worker_id{2}); },
      "flakeid: registry entry 'a/b': not a name (1 to 64 letters, digits, '_', '.' or '-')");
  expect_error<flakeid::registry_error>(
      [&] { (void)ids.source("nope"); },
      "flakeid: registry entry 'nope': no such generator (have: a, genes)");
  EXPECT_EQ(ids.find("nope"), nullptr);
  expect_error<flakeid::registry_error>(
      [&] { (void)ids.get<flakeid::cosid_snowflake<>>("a"); },
      "flakeid: registry entry 'a': is a snowflake generator of another type than the one asked "
      "for");
}

TEST(registry_test, lookups_run_beside_an_emplace) {
  flakeid::registry ids = make(R"({"generators": {"a": {"kind": "snowflake", "worker": 1}}})");
  std::thread t([&] {
    for (int i = 0; i < 50; ++i)
      (void)ids.emplace<flakeid::classic_snowflake<>>("g" + std::to_string(i),
                                                      flakeid::worker_id{2});
  });
  std::uint64_t last = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t id = ids.source("a").next_id();
    EXPECT_GT(id, last);
    last = id;
  }
  t.join();
  EXPECT_EQ(ids.names().size(), 51U);
}

TEST(registry_test, every_configuration_error_names_the_entry_and_the_field) {
  expect_config_error("[]",
                      "flakeid: registry, field 'generators': the configuration must be a JSON "
                      "object with a \"generators\" object");
  expect_config_error(R"({"generators": {}, "extra": 1})",
                      "flakeid: registry, field 'extra': unknown top-level field (allowed: "
                      "generators)");
  expect_config_error(R"({"generators": []})",
                      "flakeid: registry, field 'generators': must be a JSON object of named "
                      "entries, not array");
  expect_config_error(R"({"generators": {"a": 1}})",
                      "flakeid: registry entry 'a': must be a JSON object, not number");
  expect_config_error(R"({"generators": {"a": {}}})",
                      "flakeid: registry entry 'a', field 'kind': is required (a non-empty "
                      "string)");
  expect_config_error(R"({"generators": {"a": {"kind": "uuid"}}})",
                      "flakeid: registry entry 'a', field 'kind': 'uuid' is not a kind "
                      "(snowflake, cosid, tick, segment, chain)");
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake", "worker": 1, "stpe": 2}}})",
                      "flakeid: registry entry 'a', field 'stpe': unknown field (allowed: kind, "
                      "text, layout, worker, datacenter, lease)");
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake"}}})",
                      "flakeid: registry entry 'a', field 'worker': give either \"worker\" (a "
                      "fixed id) or \"lease\" (an id leased from a store), not both nor neither");
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake", "worker": -1}}})",
                      "flakeid: registry entry 'a', field 'worker': must be a whole number in "
                      "[0, 4194304], not -1");
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake", "worker": "7"}}})",
                      "flakeid: registry entry 'a', field 'worker': must be a whole number in "
                      "[0, 4194304], not \"7\"");
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake", "worker": 32}}})",
                      "flakeid: registry entry 'a', field 'worker': worker 32 is out of range [0, "
                      "31] for a 5-bit field");
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake", "layout": "uuid7",
                                               "worker": 1}}})",
                      "flakeid: registry entry 'a', field 'layout': 'uuid7' is not a layout of "
                      "this registry (cosid, cosid_js, discord, instagram, seed_classic, "
                      "sonyflake, twitter; add others with registry_kinds::layout)");
  expect_config_error(R"({"generators": {"a": {"kind": "chain", "store": "memory:", "key": "k",
                                               "step": 0}}})",
                      "flakeid: registry entry 'a', field 'step': 0 is out of range [1, "
                      "2147483648]");
  expect_config_error(R"({"generators": {"a": {"kind": "segment", "store": "memory:", "key": "k",
                                               "min_ahead": 2}}})",
                      "flakeid: registry entry 'a', field 'min_ahead': unknown field (allowed: "
                      "kind, text, store, key, namespace, step, start, stride, remainder, "
                      "ttl_ms)");
  expect_config_error(R"({"generators": {"a": {"kind": "chain", "store": "memory:"}}})",
                      "flakeid: registry entry 'a', field 'key': is required (a non-empty "
                      "string)");
  expect_config_error(R"({"generators": {"a": {"kind": "chain", "store": "memory:", "key": "k",
                                               "leaf_dynamic_step": 1}}})",
                      "flakeid: registry entry 'a', field 'leaf_dynamic_step': must be true or "
                      "false, not 1");
  expect_config_error(R"({"generators": {"a": {"kind": "chain", "store": "memory:", "key": "k",
                                               "text": {"form": "base64"}}}})",
                      "flakeid: registry entry 'a', field 'text.form': 'base64' is not a form "
                      "(radix62, radix36, decimal, base32, friendly)");
  expect_config_error(R"({"generators": {"a": {"kind": "chain", "store": "memory:", "key": "k",
                                               "text": {"form": "radix62", "width": 12}}}})",
                      "flakeid: registry entry 'a', field 'text': text converter width 12 is out "
                      "of range [1, 11] for radix62");
  expect_config_error(R"({"generators": {"a/b": {"kind": "snowflake", "worker": 1}}})",
                      "flakeid: registry entry 'a/b': not a name (1 to 64 letters, digits, '_', "
                      "'.' or '-')");
}

TEST(registry_test, a_store_it_does_not_know_is_named_without_its_password) {
  const std::string config = R"({"generators": {"a": {"kind": "snowflake",
      "lease": {"store": "redis://app:s3cret@10.0.0.5:6379", "namespace": "shop"}}}})";
  try {
    (void)make(config);
    ADD_FAILURE() << "no error";
  } catch (const flakeid::registry_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "flakeid: registry entry 'a', field 'lease.store': the scheme 'redis' is not a "
              "store of this registry (file, memory; add others with registry_kinds::store)");
    EXPECT_EQ(e.entry(), "a");
    EXPECT_EQ(e.field(), "lease.store");
    EXPECT_EQ(std::string(e.what()).find("s3cret"), std::string::npos);
  }
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake",
      "lease": {"store": "memory:", "namespace": "no space"}}}})",
                      "flakeid: registry entry 'a', field 'lease.namespace': 'no space' is not a "
                      "namespace (1 to 40 letters, digits, '_' or '-')");
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake",
      "lease": {"store": "memory:", "ttl_ms": 0}}}})",
                      "flakeid: registry entry 'a', field 'lease.ttl_ms': 0 is out of range [1, "
                      "9223372036854]");
}

TEST(registry_test, text_forms_of_an_entry) {
  const flakeid::registry ids = make(R"({"generators": {
      "users": {"kind": "cosid", "worker": 5,
                "text": {"form": "friendly", "prefix": "U", "utc_offset_minutes": 480}},
      "tickets": {"kind": "chain", "store": "memory:", "key": "t",
                  "text": {"form": "base32", "suffix": "-T"}}}})");
  // The friendly form takes the entry's layout (CosId's): its documented ID at UTC+8.
  EXPECT_EQ(ids.source("users").to_text(295913926632165376), "U20220320133617924-5-0");
  EXPECT_EQ(ids.source("users").from_text("U20220320133617924-5-0"), 295913926632165376U);
  const std::string text = ids.source("users").next_text();
  EXPECT_EQ(flakeid::layouts::cosid.decompose(ids.source("users").from_text(text)).worker, 5U);
  EXPECT_EQ(ids.source("tickets").next_text(), "0000000000001-T");
  expect_config_error(R"({"generators": {"a": {"kind": "chain", "store": "memory:", "key": "k",
                                               "text": {"form": "friendly"}}}})",
                      "flakeid: registry entry 'a', field 'text.form': the friendly form writes "
                      "a snowflake's time and fields; a counter's numbers have none");
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake", "worker": 1,
                                               "text": {"form": "base32", "width": 4}}}})",
                      "flakeid: registry entry 'a', field 'text': the base32 text form has a "
                      "width of its own: give no width or pad");
  expect_config_error(R"({"generators": {"a": {"kind": "snowflake", "worker": 1,
                                               "text": {"utc_offset_minutes": 2000}}}})",
                      "flakeid: registry entry 'a', field 'text.utc_offset_minutes': must be a "
                      "whole number in [-1080, 1080], not 2000");
}

TEST(registry_test, builds_one_entry_when_asked) {
  // Entry "b" could not be built (its layout is unknown), but only "a" is asked for.
  const std::string config = R"({"generators": {
      "b": {"kind": "snowflake", "layout": "none", "worker": 1},
      "a": {"kind": "snowflake", "worker": 1}}})";
  const auto one = flakeid::registry::from_text(config, flakeid::registry_kinds::standard(), "a");
  EXPECT_EQ(one.names(), std::vector<std::string>{"a"});
  expect_error<flakeid::registry_error>(
      [&] { (void)flakeid::registry::from_text(config, flakeid::registry_kinds::standard(), "c"); },
      "flakeid: registry entry 'c': no such generator (have: a, b)");
}

TEST(registry_test, an_error_of_the_store_is_nested_in_the_registry_error) {
  // Two leases on a namespace with room for one id: the second entry's store error, nested.
  const std::string config = R"({"generators": {
      "a": {"kind": "snowflake", "lease": {"store": "memory:", "max_ids": 1}},
      "b": {"kind": "snowflake", "lease": {"store": "memory:", "max_ids": 1}}}})";
  try {
    (void)make(config);
    ADD_FAILURE() << "no error";
  } catch (const flakeid::registry_error& e) {
    EXPECT_EQ(e.entry(), "b");
    EXPECT_EQ(std::string(e.what()),
              "flakeid: registry entry 'b': worker id 0 in namespace default is held by another "
              "process, or was let go less than safe_guard (2000 ms) ago (memory store)");
    bool nested = false;
    try {
      std::rethrow_if_nested(e);
    } catch (const flakeid::worker_id_error&) {
      nested = true;
    }
    EXPECT_TRUE(nested) << e.what();
  }
}

TEST(registry_test, the_registry_reports_text_that_is_not_json_without_quoting_it) {
  // A store URI with a password, cut short: the message says where, never what.
  const std::string config =
      R"({"generators": {"a": {"kind": "snowflake", "lease": {"store": "redis://:hunter2@db)";
  expect_error<flakeid::registry_error>(
      [&] { (void)flakeid::registry::from_text(config); },
      "flakeid: registry: the configuration is not JSON (at byte 83: the text ends inside a "
      "string)");
  expect_error<flakeid::registry_error>(
      [] {
        (void)flakeid::registry::from_text(R"({"generators": {
            "a": {"kind": "snowflake", "worker": 1},
            "a": {"kind": "snowflake", "worker": 2}}})");
      },
      "flakeid: registry: the configuration is not JSON (at byte 85: a key given twice in one "
      "object)");
}

// A JSON value of another library: all the registry asks of it is `dump()`.
struct other_json {
  std::string text;
  [[nodiscard]] std::string dump() const { return text; }
};

TEST(registry_test, takes_a_json_value_of_another_library_by_its_text) {
  const flakeid::registry ids(other_json{R"({"generators": {"b": {"kind": "snowflake", "worker": 2},
                                     "a": {"kind": "cosid", "worker": 5}}})"});
  EXPECT_EQ(ids.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(flakeid::layouts::twitter.decompose(ids.source("b").next_id()).worker, 2U);
  EXPECT_EQ(ids.source("a").kind(), "cosid");
  expect_error<flakeid::registry_error>(
      [] { (void)flakeid::registry(other_json{"[]"}); },
      "flakeid: registry, field 'generators': the configuration must be a JSON object with a "
      "\"generators\" object");
}

TEST(registry_test, builds_entries_in_the_order_written) {
  // Each lease takes the lowest free worker id, so the ids show which entry was built first.
  const auto ids = flakeid::registry::from_text(R"({"generators": {
      "b": {"kind": "snowflake", "lease": {"store": "memory:", "namespace": "written"}},
      "a": {"kind": "snowflake", "lease": {"store": "memory:", "namespace": "written"}}}})");
  EXPECT_EQ(ids.source("b").gauges().at(0), (std::pair<std::string, double>{"worker_id", 0.0}));
  EXPECT_EQ(ids.source("a").gauges().at(0), (std::pair<std::string, double>{"worker_id", 1.0}));
  EXPECT_EQ(ids.names(), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
