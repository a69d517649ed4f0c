// <flakeid/sql.hpp> without a server: the slices and routers the DDL is built from, the exact
// text of a few expressions, and every refusal with its message. The SQL itself runs on real
// servers in tests/adapters/postgres_sql_test.cpp and mariadb_sql_test.cpp.
#include <gtest/gtest.h>
#include <flakeid/flakeid.hpp>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "adapters/expect_error.hpp"

namespace {

using namespace std::chrono;
using flakeid::field_kind;
namespace sql = flakeid::sql;
namespace layouts = flakeid::layouts;

// The message of the sql_error `f` throws ("" when it throws none).
const auto error_of = [](auto&& f) { return flakeid_test::message_of<flakeid::sql_error>(f); };

TEST(sql_test, slices_tile_the_ids_with_bounds_from_min_id_at) {
  const auto& l = layouts::twitter;
  const auto slices =
      sql::time_slices(l, sys_days{2026y / 1 / 15}, sys_days{2026y / 4 / 1}, sql::period::month);
  ASSERT_EQ(slices.size(), 3U);
  EXPECT_EQ(slices[0].suffix, "202601");
  EXPECT_EQ(slices[0].begin, sys_days{2026y / 1 / 1});
  EXPECT_EQ(slices[2].end, sys_days{2026y / 4 / 1});
  for (std::size_t i = 0; i < slices.size(); ++i) {
    EXPECT_EQ(slices[i].ids.lo, l.min_id_at(slices[i].begin));
    EXPECT_EQ(slices[i].ids.hi, l.min_id_at(slices[i].end));
    // With 1 ms ticks a slice is exactly id_range over its period.
    EXPECT_EQ(slices[i].ids, l.id_range(slices[i].begin, slices[i].end));
  }
  EXPECT_EQ(slices[0].ids.hi, slices[1].ids.lo);
}

TEST(sql_test, a_tick_across_midnight_is_the_day_it_starts_in) {
  // 7 ms ticks from epoch 0 do not divide a day: the tick holding 2024-03-01T00:00Z starts at
  // 23:59:59.999 the day before, which is the time decompose gives its IDs.
  const flakeid::layout l = flakeid::parse_layout("ts:41,worker:10,seq:12;epoch=0;tick=7ms");
  const sys_days march1{2024y / 3 / 1};
  const std::uint64_t across = l.min_id_at(march1);
  EXPECT_EQ(l.decompose(across).timestamp, march1 - milliseconds{1});
  const auto days2 =
      sql::time_slices(l, sys_days{2024y / 2 / 29}, sys_days{2024y / 3 / 2}, sql::period::day);
  ASSERT_EQ(days2.size(), 2U);
  EXPECT_LE(days2[0].ids.lo, across);
  EXPECT_LT(across, days2[0].ids.hi) << "in the day its tick starts in";
  EXPECT_EQ(days2[0].ids.hi, days2[1].ids.lo);
  EXPECT_EQ(days2[1].ids.lo,
            across + (std::uint64_t{1} << l.shift(flakeid::field_kind::timestamp)));
  const sql::time_router router{l, "orders", sql::period::day};
  for (const std::uint64_t id : {days2[0].ids.lo, across, days2[0].ids.hi - 1})
    EXPECT_EQ(router.table_for(id), "orders_" + days2[0].suffix) << id;
  EXPECT_EQ(router.table_for(days2[1].ids.lo), "orders_" + days2[1].suffix);
}

TEST(sql_test, a_period_that_holds_no_tick_has_no_slice) {
  // Sonyflake's epoch is 2014-09-01T00:00Z: August 31 ends at the epoch and holds no ID (a
  // partition FROM (0) TO (0) is refused by PostgreSQL); Twitter's epoch falls in November 2010,
  // so October holds none either.
  const auto sony = sql::time_slices(layouts::sonyflake, sys_days{2014y / 8 / 31},
                                     sys_days{2014y / 9 / 2}, sql::period::day);
  ASSERT_EQ(sony.size(), 1U);
  EXPECT_EQ(sony[0].suffix, "20140901");
  EXPECT_EQ(sony[0].ids.lo, 0U);
  const auto twitter = sql::time_slices(layouts::twitter, sys_days{2010y / 10 / 1},
                                        sys_days{2010y / 12 / 1}, sql::period::month);
  ASSERT_EQ(twitter.size(), 1U);
  EXPECT_EQ(twitter[0].suffix, "201011");
  EXPECT_EQ(twitter[0].ids.lo, 0U);
  const sql::writer w{layouts::sonyflake, sql::dialect::postgres};
  for (const std::string& st : w.time_partitions("ev", "id", sys_days{2014y / 8 / 31},
                                                 sys_days{2014y / 9 / 2}, sql::period::day)
                                   .statements)
    EXPECT_EQ(st.find("ev_20140831"), std::string::npos) << st;
}

TEST(sql_test, slices_of_days_and_years_and_the_edges_of_the_layout) {
  const auto& l = layouts::sonyflake;  // 10 ms ticks
  const auto days3 =
      sql::time_slices(l, sys_days{2026y / 2 / 27}, sys_days{2026y / 3 / 2}, sql::period::day);
  ASSERT_EQ(days3.size(), 3U);
  EXPECT_EQ(days3[1].suffix, "20260228");
  EXPECT_EQ(days3[2].suffix, "20260301");
  // The first year starts before the epoch (2014-09-01): its IDs start at 0.
  const auto years =
      sql::time_slices(l, sys_days{2014y / 9 / 1}, sys_days{2016y / 1 / 1}, sql::period::year);
  ASSERT_EQ(years.size(), 2U);
  EXPECT_EQ(years[0].suffix, "2014");
  EXPECT_EQ(years[0].ids.lo, 0U);
  // A slice past the layout's end runs to its last ID.
  const auto last_year = floor<days>(l.expires_at());
  const auto tail = sql::time_slices(l, last_year, last_year + days{1}, sql::period::year);
  EXPECT_EQ(tail.back().ids.hi, l.max_id() + 1);
  EXPECT_NE(error_of([&] {
              (void)sql::time_slices(l, sys_days{2026y / 1 / 1}, sys_days{2026y / 1 / 1},
                                     sql::period::day);
            }).find("time partitions need from < to"),
            std::string::npos);
}

// The period that holds a layout's last tick ends its partitions with MAXVALUE: a bound of
// 2^63 is out of range for a signed bigint (PostgreSQL "bigint out of range", MariaDB error
// 1493), and 2^64 - 1 as an exclusive bound would leave out the last ID of a 64-bit layout.
struct last_period {
  const char* name;
  flakeid::layout l;
  sql::column_type pg_type;
  sql::column_type my_type;
};

TEST(sql_test, the_partition_that_holds_the_last_tick_runs_to_maxvalue) {
  using ct = sql::column_type;
  std::vector<last_period> presets;
  // Up to 63 bits: bigint in both dialects.
  for (const char* name : {"twitter", "sonyflake", "sonyflake_v2", "cosid", "cosid_seconds",
                           "baidu", "seed_classic", "seed_gene", "newlife", "cosid_js"})
    presets.push_back({name, flakeid::layout_by_name(name), ct::bigint, ct::bigint});
  // 64 bits: numeric in PostgreSQL, BIGINT UNSIGNED in MySQL.
  for (const char* name : {"discord", "instagram", "mastodon"})
    presets.push_back({name, flakeid::layout_by_name(name), ct::numeric, ct::bigint_unsigned});
  for (const last_period& p : presets) {
    SCOPED_TRACE(p.name);
    const sys_days first_day = sys_days{year_month_day{floor<days>(p.l.expires_at())}.year() /
                                        year_month_day{floor<days>(p.l.expires_at())}.month() / 1};
    const sys_days next_month = sys_days{year_month_day{first_day} + months{1}};
    const std::string suffix =
        sql::time_slices(p.l, first_day, next_month, sql::period::month)[0].suffix;
    const std::string lo = std::to_string(p.l.min_id_at(first_day));
    const sql::writer pg{p.l, sql::dialect::postgres, p.pg_type};
    const auto d = pg.time_partitions("orders", "id", first_day, next_month, sql::period::month);
    ASSERT_EQ(d.statements.size(), 1U);
    EXPECT_EQ(d.statements[0], "CREATE TABLE \"orders_" + suffix +
                                   "\" PARTITION OF \"orders\" FOR VALUES FROM (" + lo +
                                   ") TO (MAXVALUE);");
    const sql::writer my{p.l, sql::dialect::mysql, p.my_type};
    EXPECT_EQ(
        my.time_partitions("orders", "id", first_day, next_month, sql::period::month).clause,
        "PARTITION BY RANGE (`id`) (\n  PARTITION `p" + suffix + "` VALUES LESS THAN MAXVALUE\n)");
    const auto slices = sql::time_slices(p.l, first_day - days{1}, next_month, sql::period::month);
    ASSERT_EQ(slices.size(), 2U);
    EXPECT_FALSE(slices[0].to_end);
    EXPECT_TRUE(slices[1].to_end);
  }
  // Baidu's IDs end in November 2024 (28 bits of seconds since 2016-05-19T16:00Z): two
  // months, the second to MAXVALUE, every number within a signed bigint.
  const auto two_months = [](sql::dialect d) {
    return sql::writer{layouts::baidu, d}
        .time_partitions("orders", "id", sys_days{2024y / 10 / 1}, sys_days{2024y / 12 / 1},
                         sql::period::month)
        .script;
  };
  EXPECT_EQ(two_months(sql::dialect::postgres),
            "CREATE TABLE \"orders\" (\"id\" bigint NOT NULL PRIMARY KEY)\n"
            "PARTITION BY RANGE (\"id\");\n"
            "CREATE TABLE \"orders_202410\" PARTITION OF \"orders\" FOR VALUES FROM "
            "(9073279903570329600) TO (9165309026815180800);\n"
            "CREATE TABLE \"orders_202411\" PARTITION OF \"orders\" FOR VALUES FROM "
            "(9165309026815180800) TO (MAXVALUE);\n");
  EXPECT_EQ(two_months(sql::dialect::mysql),
            "CREATE TABLE `orders` (`id` BIGINT NOT NULL PRIMARY KEY)\n"
            "PARTITION BY RANGE (`id`) (\n"
            "  PARTITION `p202410` VALUES LESS THAN (9165309026815180800),\n"
            "  PARTITION `p202411` VALUES LESS THAN MAXVALUE\n"
            ");\n");
}

TEST(sql_test, time_router_names_the_table_of_the_ids_creation_time) {
  const auto& l = layouts::twitter;
  const sql::time_router r{l, "orders", sql::period::month};
  const auto t = sys_days{2026y / 11 / 23} + hours{10};
  const std::uint64_t id = l.compose({.timestamp = time_point_cast<milliseconds>(t), .worker = 7});
  EXPECT_EQ(r.table_for(id), "orders_202611");
  EXPECT_EQ(r.table_for(l.min_id_at(sys_days{2026y / 12 / 1}) - 1), "orders_202611");
  EXPECT_EQ(r.table_for(l.min_id_at(sys_days{2026y / 12 / 1})), "orders_202612");
  EXPECT_EQ(r.tables_for(sys_days{2026y / 11 / 30}, sys_days{2027y / 1 / 2}),
            (std::vector<std::string>{"orders_202611", "orders_202612", "orders_202701"}));
  const sql::time_router daily{l, "events", sql::period::day};
  EXPECT_EQ(daily.table_for(id), "events_20261123");
  const sql::time_router yearly{l, "events", sql::period::year};
  EXPECT_EQ(yearly.table_for(id), "events_2026");
}

TEST(sql_test, shard_router_by_gene_agrees_with_shard_of_and_the_key) {
  const auto& l = layouts::seed_gene;
  const sql::shard_router r{l, "orders", 16};
  EXPECT_EQ(r.table(7), "orders_07");
  EXPECT_EQ(r.tables().size(), 16U);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t key = rng();
    const std::uint64_t id = l.compose({.ticks = rng() % l.max_ticks(), .gene = key % 32});
    EXPECT_EQ(r.shard_of(id), l.shard_of(id, 16));
    EXPECT_EQ(r.table_for(id), r.table_for_key(key));
  }
  EXPECT_EQ(error_of([&] { (void)sql::shard_router(l, "orders", 12); }),
            "flakeid: shard count 12 cannot be honoured by a 5-bit gene: it must be a power of "
            "two in [1, 32]");
  EXPECT_EQ(error_of([&] { (void)sql::shard_router(l, "orders", 64); }),
            "flakeid: shard count 64 cannot be honoured by a 5-bit gene: it must be a power of "
            "two in [1, 32]");
}

TEST(sql_test, shard_router_by_worker_or_hash_for_layouts_without_a_gene) {
  const auto& l = layouts::twitter;
  EXPECT_EQ(error_of([&] { (void)sql::shard_router(l, "orders", 4); }),
            "flakeid: shard by gene: the layout has no gene field; route by worker or hash");
  const sql::shard_router by_worker{l, "orders", 10, sql::shard_by::worker};
  const std::uint64_t id = l.compose({.ticks = 99, .datacenter = 3, .worker = 27});
  EXPECT_EQ(by_worker.shard_of(id), 7U);
  EXPECT_EQ(by_worker.table_for(id), "orders_7");
  EXPECT_EQ(error_of([&] { (void)sql::shard_router(l, "orders", 33, sql::shard_by::worker); }),
            "flakeid: shard count 33 is out of range [1, 32] for a 5-bit worker");
  const sql::shard_router by_hash{l, "orders", 100, sql::shard_by::hash};
  std::vector<int> counts(100);
  for (std::uint64_t seq = 0; seq < 4096; ++seq)
    ++counts[by_hash.shard_of(l.compose({.ticks = 5, .sequence = seq}))];
  for (const int c : counts) EXPECT_GT(c, 10);  // spread, where id % 100 would not be
  EXPECT_EQ(by_hash.table(3), "orders_03");
}

TEST(sql_test, expressions_for_high_and_low_fields) {
  const sql::writer pg{layouts::sonyflake, sql::dialect::postgres};
  EXPECT_EQ(pg.field(field_kind::timestamp, "id"), "(id >> 24)");
  EXPECT_EQ(pg.field(field_kind::sequence, "id"), "((id >> 16) & 255)");
  EXPECT_EQ(pg.field(field_kind::worker, "id"), "(id & 65535)");
  EXPECT_EQ(pg.field(field_kind::gene, "id"), "0");
  EXPECT_EQ(pg.unix_ms("id"), "(((id >> 24) * 10) + 1409529600000)");
  EXPECT_EQ(pg.shard("id", 16, sql::shard_by::worker), "(id % 16)");
  EXPECT_EQ(pg.shard("id", 10, sql::shard_by::worker), "((id & 65535) % 10)");
  EXPECT_EQ(pg.id_type(), "bigint");
  const sql::writer num{layouts::discord, sql::dialect::postgres, sql::column_type::numeric};
  EXPECT_EQ(num.field(field_kind::timestamp, "id"),
            "(mod(div(id, 4194304), 4398046511104))::bigint");
  EXPECT_EQ(num.id_type(), "numeric(20,0)");
  const sql::writer my{layouts::discord, sql::dialect::mysql, sql::column_type::bigint_unsigned};
  EXPECT_EQ(my.field(field_kind::timestamp, "id"), "((id >> 22) & 4398046511103)");
  EXPECT_EQ(my.id_type(), "BIGINT UNSIGNED");
  EXPECT_EQ(my.time_type(), "DATETIME(3)");
}

TEST(sql_test, a_postgres_list_key_cast_from_numeric_is_put_in_parentheses) {
  // A key that is not one parenthesized expression needs parentheses of its own: PostgreSQL
  // reads `LIST (((id % 4))::bigint)` as a syntax error.
  constexpr flakeid::layout wide_gene{{flakeid::fields::timestamp(42), flakeid::fields::worker(5),
                                       flakeid::fields::sequence(12), flakeid::fields::gene(5)},
                                      0};
  const sql::writer num{wide_gene, sql::dialect::postgres, sql::column_type::numeric};
  EXPECT_EQ(num.shard_partitions("t", "id", 4).clause,
            R"(PARTITION BY LIST (((("id" % 4))::bigint)))");
  const sql::writer big{layouts::seed_gene, sql::dialect::postgres};
  EXPECT_EQ(big.shard_partitions("t", "id", 4).clause, R"(PARTITION BY LIST (("id" % 4)))");
}

TEST(sql_test, mysql_hash_partitions_reduce_wide_ids_below_2_pow_63) {
  // HASH(id) reads an unsigned ID past 2^63 as negative; the shard is taken first.
  constexpr flakeid::layout wide_gene{
      {flakeid::fields::timestamp(43), flakeid::fields::sequence(16), flakeid::fields::gene(5)}, 0};
  const sql::writer wide{wide_gene, sql::dialect::mysql, sql::column_type::bigint_unsigned};
  EXPECT_EQ(wide.shard_partitions("t", "id", 8).clause,
            "PARTITION BY HASH ((`id` MOD 8)) PARTITIONS 8");
  const sql::writer narrow{layouts::twitter, sql::dialect::mysql};
  EXPECT_EQ(narrow.shard_partitions("t", "id", 8, sql::shard_by::worker).clause,
            "PARTITION BY HASH ((((`id` DIV 4096) MOD 32) MOD 8)) PARTITIONS 8");
}

TEST(sql_test, refusals_name_the_value_and_the_fix) {
  EXPECT_EQ(error_of([] { (void)sql::writer(layouts::discord, sql::dialect::postgres); }),
            "flakeid: the layout's IDs reach 18446744073709551615, past a signed BIGINT's "
            "9223372036854775807 (the layout uses bit 63); use the numeric column type "
            "(numeric(20,0))");
  EXPECT_EQ(error_of([] { (void)sql::writer(layouts::discord, sql::dialect::mysql); }),
            "flakeid: the layout's IDs reach 18446744073709551615, past a signed BIGINT's "
            "9223372036854775807 (the layout uses bit 63); use the BIGINT UNSIGNED column type");
  EXPECT_NE(error_of([] {
              (void)sql::writer(layouts::twitter, sql::dialect::postgres,
                                sql::column_type::bigint_unsigned);
            }).find("postgres has no unsigned bigint"),
            std::string::npos);
  const sql::writer my{layouts::mastodon, sql::dialect::mysql, sql::column_type::bigint_unsigned};
  EXPECT_FALSE(my.fits_time_type());
  EXPECT_EQ(error_of([&] { (void)my.created_at("id"); }),
            "flakeid: mysql: the layout's times run to 10889-08-02T05:31:50.655Z, past "
            "DATETIME(3)'s last, 9999-12-31T23:59:59.999Z; decode the time in the application, "
            "or use unix_ms");
  const sql::writer pg{layouts::twitter, sql::dialect::postgres};
  EXPECT_NE(error_of([&] { (void)pg.shard("id", 4, sql::shard_by::hash); }).find("no SQL form"),
            std::string::npos);
  const auto from = sys_days{2026y / 1 / 1};
  const auto to = sys_days{2026y / 2 / 1};
  EXPECT_EQ(error_of([&] {
              (void)pg.time_partitions("orders; DROP", "id", from, to, sql::period::month);
            }),
            "flakeid: table \"orders; DROP\" has ';' at index 6; allowed: [A-Za-z_][A-Za-z0-9_]*, "
            "one optional '.'");
  EXPECT_EQ(
      error_of([&] { (void)pg.time_partitions("a.b.c", "id", from, to, sql::period::month); }),
      "flakeid: table \"a.b.c\" has more than one '.'; give name or schema.name");
  EXPECT_EQ(
      error_of([&] { (void)pg.time_partitions("orders", "o.id", from, to, sql::period::month); }),
      "flakeid: column \"o.id\" has a '.'; give the column's own name, "
      "[A-Za-z_][A-Za-z0-9_]*");
  EXPECT_EQ(error_of([&] { (void)pg.functions("1x_"); }),
            "flakeid: function name \"1x_created_at\" has '1' at index 0; allowed: "
            "[A-Za-z_][A-Za-z0-9_]*, one optional '.'");
  EXPECT_EQ(
      error_of([&] { (void)pg.time_partitions("orders", "id", from, to, sql::period::month); }), "")
      << "a plain column name is taken";
}

TEST(sql_test, identifiers_are_quoted_and_schema_qualified) {
  const sql::writer pg{layouts::twitter, sql::dialect::postgres};
  const auto d = pg.time_partitions("app.Orders", "id", sys_days{2026y / 1 / 1},
                                    sys_days{2026y / 2 / 1}, sql::period::month);
  EXPECT_EQ(d.clause, "PARTITION BY RANGE (\"id\")");
  ASSERT_EQ(d.statements.size(), 1U);
  EXPECT_EQ(d.statements[0],
            "CREATE TABLE \"app\".\"Orders_202601\" PARTITION OF \"app\".\"Orders\" FOR VALUES "
            "FROM (2006515713438646272) TO (2017749737272246272);");
  const sql::writer my{layouts::seed_gene, sql::dialect::mysql};
  EXPECT_EQ(my.shard_partitions("app.orders", "id", 32).script,
            "CREATE TABLE `app`.`orders` (`id` BIGINT NOT NULL PRIMARY KEY)\n"
            "PARTITION BY HASH (`id`) PARTITIONS 32;\n");
}

}  // namespace
