#pragma once
// The SQL of <flakeid/sql.hpp>, run on a real server and checked against the C++ codec. One
// scenario per behaviour, written once for every dialect. A backend provides:
//   static constexpr flakeid::sql::dialect dialect
//   void exec(const std::string& sql)                      (one statement)
//   rows query(const std::string& sql)                     (every value as text)
//   std::string time_probe(const std::string& expr)        (SQL: µs since 1970 of a time)
//   std::map<std::uint64_t, std::string> partition_of_rows(table, slice suffixes)
//   std::set<std::string> partitions_scanned(select)       (partition suffixes a query reads)

#include <gtest/gtest.h>
#include <flakeid/flakeid.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "server_support.hpp"

namespace flakeid_test {

using rows = std::vector<std::vector<std::string>>;
using namespace std::chrono;
namespace sql = flakeid::sql;

/// 10,000 IDs of `l` from a fixed seed, then the layout's edges: the first and last tick, every
/// field all ones, each field alone at its maximum.
inline std::vector<std::uint64_t> sample_ids(const flakeid::layout& l) {
  std::mt19937_64 rng(20261123);
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 10'000; ++i) ids.push_back(rng() & l.max_id());
  ids.push_back(0);
  ids.push_back(l.max_id());
  ids.push_back(l.mask(flakeid::field_kind::timestamp));
  ids.push_back(l.max_id() & ~l.mask(flakeid::field_kind::timestamp));
  for (const flakeid::field f : l.fields())
    if (f.kind != flakeid::field_kind::reserved) ids.push_back(l.mask(f.kind));
  return ids;
}

/// `INSERT INTO <table> VALUES (a),(b),...` for `ids`.
inline std::string insert_ids(const std::string& table, const std::vector<std::uint64_t>& ids) {
  std::string s = "INSERT INTO " + table + " VALUES ";
  for (std::size_t i = 0; i < ids.size(); ++i)
    s += (i == 0 ? "(" : ",(") + std::to_string(ids[i]) + ")";
  return s;
}

/// The column type a layout needs in the backend's dialect.
inline sql::column_type column_type_for(const flakeid::layout& l, sql::dialect d) {
  if (l.max_id() <= static_cast<std::uint64_t>(INT64_MAX)) return sql::column_type::bigint;
  return d == sql::dialect::postgres ? sql::column_type::numeric
                                     : sql::column_type::bigint_unsigned;
}

/// Every expression and every function of the writer returns what `decompose` returns, for
/// `sample_ids(l)`.
template <class Db>
void fields_match_decompose(Db& db, const flakeid::layout& l, std::string_view preset,
                            sql::column_type type) {
  const sql::writer w{l, Db::dialect, type};
  const std::string table = "ids_" + std::string(preset);
  const std::string prefix = "f_" + std::string(preset) + "_";
  db.exec("DROP TABLE IF EXISTS " + table);
  db.exec("CREATE TABLE " + table + " (id " + w.id_type() + " NOT NULL)");
  const std::vector<std::uint64_t> ids = sample_ids(l);
  db.exec(insert_ids(table, ids));
  for (const std::string& statement : w.functions(prefix)) db.exec(statement);

  using flakeid::field_kind;
  const std::vector<field_kind> kinds = {field_kind::timestamp, field_kind::datacenter,
                                         field_kind::worker, field_kind::sequence,
                                         field_kind::gene};
  std::string select = "SELECT id, " + w.unix_ms("id") + ", " + prefix + "unix_ms(id)";
  for (const field_kind k : kinds) {
    select += ", " + w.field(k, "id");
    if (l.has(k))
      select += ", " + prefix +
                (k == field_kind::timestamp ? std::string("ticks") : std::string(to_string(k))) +
                "(id)";
    else
      select += ", 0";
  }
  const bool timed = w.fits_time_type();
  if (timed)
    select +=
        ", " + db.time_probe(w.created_at("id")) + ", " + db.time_probe(prefix + "created_at(id)");
  else
    EXPECT_THROW((void)w.created_at("id"), flakeid::sql_error);
  const rows result = db.query(select + " FROM " + table);
  ASSERT_EQ(result.size(), ids.size());
  for (const auto& row : result) {
    const std::uint64_t id = std::stoull(row.at(0));
    const flakeid::id_parts p = l.decompose(id);
    const std::string ms = std::to_string(p.timestamp.time_since_epoch().count());
    const std::uint64_t values[] = {p.ticks, p.datacenter, p.worker, p.sequence, p.gene};
    std::vector<std::string> expected = {row.at(0), ms, ms};
    for (const std::uint64_t v : values) {
      expected.push_back(std::to_string(v));
      expected.push_back(std::to_string(v));
    }
    if (timed) {
      const std::string us = std::to_string(p.timestamp.time_since_epoch().count() * 1000);
      expected.push_back(us);
      expected.push_back(us);
    }
    ASSERT_EQ(row, expected) << preset << " id " << id;
  }
}

/// `fields_match_decompose` for the preset named `preset`.
template <class Db>
void fields_match_decompose(Db& db, std::string_view preset, sql::column_type type) {
  fields_match_decompose(db, flakeid::layout_by_name(preset), preset, type);
}

/// Rows inserted into a table partitioned by `p` land in the partition of their creation time,
/// and a query for one day's ID range reads one partition.
template <class Db>
void time_partitions_hold_their_rows(Db& db, std::string_view preset, sql::period p, sys_days from,
                                     sys_days to) {
  const flakeid::layout& l = flakeid::layout_by_name(preset);
  const sql::writer w{l, Db::dialect, column_type_for(l, Db::dialect)};
  const std::string table = "orders_by_" + std::string(to_string(p)) + "_" + std::string(preset);
  db.exec("DROP TABLE IF EXISTS " + table);
  const sql::writer::ddl ddl = w.time_partitions(table, "id", from, to, p);
  db.exec("CREATE TABLE " + table + " (id " + w.id_type() + " NOT NULL PRIMARY KEY) " + ddl.clause);
  for (const std::string& s : ddl.statements) db.exec(s);

  const sql::time_router router{l, table, p};
  const std::vector<sql::time_slice> slices = router.slices(from, to);
  std::vector<std::string> suffixes;
  for (const auto& s : slices) suffixes.push_back(s.suffix);
  // Each slice's first and last ID, then random times with random fields.
  std::set<std::uint64_t> ids;
  for (const auto& s : slices) {
    ids.insert(s.ids.lo);
    ids.insert(s.ids.hi - 1);
  }
  std::mt19937_64 rng(7);
  const auto span = (to - from) / milliseconds{1};
  for (int i = 0; i < 2000; ++i) {
    const auto t =
        time_point_cast<milliseconds>(from) +
        milliseconds{static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span))};
    const std::uint64_t below = (std::uint64_t{1} << l.shift(flakeid::field_kind::timestamp)) - 1;
    ids.insert(l.min_id_at(t) | (rng() & below & l.max_id()));
  }
  db.exec(insert_ids(table, {ids.begin(), ids.end()}));
  const std::map<std::uint64_t, std::string> placed = db.partition_of_rows(table, suffixes);
  ASSERT_EQ(placed.size(), ids.size());
  for (const auto& row : placed) {
    const std::uint64_t id = row.first;
    const std::string& suffix = row.second;
    ASSERT_EQ(table + "_" + suffix, router.table_for(id)) << "id " << id;
    const auto created = floor<days>(l.decompose(id).timestamp);
    const auto slice = std::find_if(slices.begin(), slices.end(),
                                    [&suffix](const auto& s) { return s.suffix == suffix; });
    ASSERT_NE(slice, slices.end()) << "id " << id << " in partition " << suffix;
    ASSERT_TRUE(slice->begin <= created && created < slice->end) << "id " << id;
  }
  // One day's range touches exactly its own partition.
  const sys_days day = from + days{3};
  const flakeid::id_bounds b = l.id_range(day, day + days{1});
  const std::set<std::string> scanned =
      db.partitions_scanned("SELECT id FROM " + table + " WHERE id >= " + std::to_string(b.lo) +
                            " AND id < " + std::to_string(b.hi));
  const std::string own = router.table_at(day);
  EXPECT_EQ(scanned, std::set<std::string>{own.substr(table.size() + 1)});
}

/// Orders minted with a user's id as their gene land in the shard partition of that user's row.
template <class Db>
void gene_routing_keeps_orders_with_their_user(Db& db, std::uint64_t n) {
  const flakeid::layout& l = flakeid::layouts::seed_gene;
  const sql::writer w{l, Db::dialect};
  const std::string users = "users_" + std::to_string(n);
  const std::string orders = "orders_" + std::to_string(n);
  for (const auto& t : {orders, users}) db.exec("DROP TABLE IF EXISTS " + t);
  // The users' own ids are plain keys: `id % n` is their shard, the same expression.
  for (const auto& t : {users, orders}) {
    const sql::writer::ddl ddl = w.shard_partitions(t, "id", n);
    db.exec("CREATE TABLE " + t + " (id " + w.id_type() + " NOT NULL, user_id " + w.id_type() +
            ") " + ddl.clause);
    for (const std::string& s : ddl.statements) db.exec(s);
  }
  flakeid::manual_clock clock;
  clock.set(l.epoch() + days{800});
  flakeid::gene_snowflake<flakeid::layouts::seed_gene, flakeid::manual_clock> gen{
      flakeid::datacenter_id{1}, flakeid::worker_id{3}, clock};
  const sql::shard_router router{l, orders, n};
  std::mt19937_64 rng(42);
  std::vector<std::string> user_rows;
  std::vector<std::string> order_rows;
  for (int u = 0; u < 200; ++u) {
    const std::uint64_t user = rng() >> 20;
    user_rows.push_back("(" + std::to_string(user) + ", NULL)");
    for (int k = 0; k < 5; ++k) {
      const std::uint64_t id = gen.next_id(user);
      ASSERT_EQ(router.table_for(id), router.table_for_key(user));
      order_rows.push_back("(" + std::to_string(id) + ", " + std::to_string(user) + ")");
    }
    clock.advance(milliseconds{1});
  }
  const auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& r : v) s += (s.empty() ? "" : ",") + r;
    return s;
  };
  db.exec("INSERT INTO " + users + " VALUES " + join(user_rows));
  db.exec("INSERT INTO " + orders + " VALUES " + join(order_rows));
  std::vector<std::string> shards;
  for (std::uint64_t k = 0; k < n; ++k) shards.push_back(sql::writer::shard_suffix(k, n));
  const auto user_shard = db.partition_of_rows(users, shards, true);
  const auto order_shard = db.partition_of_rows(orders, shards, true);
  ASSERT_EQ(user_shard.size(), 200U);
  ASSERT_EQ(order_shard.size(), 1000U);
  const rows pairs = db.query("SELECT id, user_id FROM " + orders);
  std::set<std::string> used;
  for (const auto& r : pairs) {
    const std::uint64_t id = std::stoull(r.at(0));
    const std::uint64_t user = std::stoull(r.at(1));
    ASSERT_EQ(order_shard.at(id), user_shard.at(user)) << "order " << id << " user " << user;
    ASSERT_EQ(orders + "_" + order_shard.at(id), router.table_for(id));
    used.insert(order_shard.at(id));
  }
  EXPECT_EQ(used.size(), n);  // 200 random users reach every shard
}

/// Every preset's fields and functions against `decompose`, in the column type that `Db`'s
/// dialect gives the preset.
template <class Db>
void every_preset_matches_decompose(Db& db) {
  for (const std::string_view preset : flakeid::preset_names()) {
    const flakeid::layout& l = flakeid::layout_by_name(preset);
    ASSERT_NO_FATAL_FAILURE(fields_match_decompose(db, preset, column_type_for(l, Db::dialect)))
        << preset;
  }
}

/// The time partitions of a scenario: `preset`'s rows from `from` up to `to`, by `period`.
struct partition_span {
  std::string_view preset;
  sql::period period;
  sys_days from;
  sys_days to;
};

/// `time_partitions_hold_their_rows` over `span`.
template <class Db>
void partitions_hold_their_rows(Db& db, const partition_span& span) {
  ASSERT_NO_FATAL_FAILURE(
      time_partitions_hold_their_rows(db, span.preset, span.period, span.from, span.to));
}

inline constexpr partition_span monthly_twitter{"twitter", sql::period::month,
                                                sys_days{2026y / 1 / 1}, sys_days{2027y / 1 / 1}};
/// 10 ms ticks.
inline constexpr partition_span daily_sonyflake{
    "sonyflake", sql::period::day, sys_days{2026y / 11 / 1}, sys_days{2026y / 11 / 15}};
/// A full 64-bit layout.
inline constexpr partition_span yearly_discord{"discord", sql::period::year,
                                               sys_days{2024y / 1 / 1}, sys_days{2028y / 1 / 1}};
/// Baidu's IDs end in November 2024: that month's partition runs to MAXVALUE, and the layout's
/// last ID (2^63 - 1) lands in it.
inline constexpr partition_span baidu_to_its_end{
    "baidu", sql::period::month, sys_days{2024y / 10 / 1}, sys_days{2024y / 11 / 20}};

/// The fixture of a dialect's SQL tests: a `Server` of the test's own, started before each
/// test, and `db`, a `Db` connected to it.
template <class Server, class Db>
class sql_server_test : public ::testing::Test {
 protected:
  void SetUp() override {
    FLAKEID_REQUIRE_SERVER(server.available(), server.missing());
    server.start();
    db = std::make_unique<Db>(server);
  }
  Server server;
  std::unique_ptr<Db> db;
};

}  // namespace flakeid_test

/// A test of the `sql_server_test` fixture `suite` that runs `scenario(*db, args...)`.
#define FLAKEID_SQL_SCENARIO_TEST(suite, name, scenario, ...) \
  TEST_F(suite, name) { ASSERT_NO_FATAL_FAILURE(::flakeid_test::scenario(*db, __VA_ARGS__)); }

/// The SQL scenarios every dialect passes alike, as tests of `suite`.
#define FLAKEID_SQL_SCENARIOS(suite)                                                              \
  TEST_F(suite, fields_and_functions_equal_decompose_for_every_preset) {                          \
    ::flakeid_test::every_preset_matches_decompose(*db);                                          \
  }                                                                                               \
  FLAKEID_SQL_SCENARIO_TEST(suite, monthly_partitions_hold_the_rows_of_their_month,               \
                            partitions_hold_their_rows, ::flakeid_test::monthly_twitter)          \
  FLAKEID_SQL_SCENARIO_TEST(suite, daily_partitions_with_10_ms_ticks, partitions_hold_their_rows, \
                            ::flakeid_test::daily_sonyflake)                                      \
  FLAKEID_SQL_SCENARIO_TEST(suite, yearly_partitions_of_a_full_64_bit_layout,                     \
                            partitions_hold_their_rows, ::flakeid_test::yearly_discord)           \
  FLAKEID_SQL_SCENARIO_TEST(suite, gene_routing_keeps_orders_with_their_user_in_16_shards,        \
                            gene_routing_keeps_orders_with_their_user, 16)                        \
  FLAKEID_SQL_SCENARIO_TEST(suite, gene_routing_keeps_orders_with_their_user_in_32_shards,        \
                            gene_routing_keeps_orders_with_their_user, 32)                        \
  FLAKEID_SQL_SCENARIO_TEST(suite, the_partition_of_the_layouts_last_tick_runs_to_maxvalue,       \
                            partitions_hold_their_rows, ::flakeid_test::baidu_to_its_end)
