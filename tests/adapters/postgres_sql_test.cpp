// The SQL of <flakeid/sql.hpp> on a real PostgreSQL cluster (initdb + pg_ctl, see
// postgres_server.hpp), checked against the C++ codec: field expressions and functions, time
// partitions, and shard partitions routed by the gene.
#include <libpq-fe.h>

#include <memory>
#include <stdexcept>

#include "postgres_server.hpp"
#include "server_support.hpp"
#include "sql_scenarios.hpp"

namespace {

using namespace flakeid_test;

/// A libpq connection that throws on any failed statement.
class postgres_db {
 public:
  static constexpr sql::dialect dialect = sql::dialect::postgres;

  /// A connection to `server` that reports warnings only.
  explicit postgres_db(const postgres_cluster& server)
      : c_(PQconnectdb(server.conninfo().c_str()), PQfinish) {
    if (PQstatus(c_.get()) != CONNECTION_OK)
      throw std::runtime_error(std::string("connect: ") + PQerrorMessage(c_.get()));
    exec("SET client_min_messages = warning");
  }
  void exec(const std::string& sql) { (void)query(sql); }
  rows query(const std::string& sql) {
    const std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c_.get(), sql.c_str()), PQclear);
    const ExecStatusType st = PQresultStatus(r.get());
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
      throw std::runtime_error(std::string(PQresultErrorMessage(r.get())) +
                               "in: " + sql.substr(0, 400));
    rows out;
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      std::vector<std::string> row;
      for (int j = 0; j < PQnfields(r.get()); ++j)
        row.emplace_back(PQgetisnull(r.get(), i, j) != 0 ? "NULL" : PQgetvalue(r.get(), i, j));
      out.push_back(std::move(row));
    }
    return out;
  }
  static std::string time_probe(const std::string& expr) {
    return "(extract(epoch from " + expr + ") * 1000000)::bigint";
  }
  std::map<std::uint64_t, std::string> partition_of_rows(const std::string& table,
                                                         const std::vector<std::string>&,
                                                         bool /*shards*/ = false) {
    std::map<std::uint64_t, std::string> out;
    for (const auto& r : query("SELECT id, tableoid::regclass::text FROM " + table))
      out[std::stoull(r.at(0))] = r.at(1).substr(table.size() + 1);
    return out;
  }
  std::set<std::string> partitions_scanned(const std::string& select) {
    std::set<std::string> out;
    for (const auto& r : query("EXPLAIN (COSTS OFF) " + select)) {
      const std::string& line = r.at(0);
      const std::size_t on = line.find(" on ");
      if (on == std::string::npos) continue;
      std::string name = line.substr(on + 4);
      name = name.substr(0, name.find(' '));
      if (name.ends_with("_pkey")) continue;  // "Bitmap Index Scan on <partition>_pkey"
      const std::size_t us = name.rfind('_');
      out.insert(name.substr(us + 1));
    }
    return out;
  }

 private:
  std::unique_ptr<PGconn, decltype(&PQfinish)> c_;
};

using postgres_sql_test = sql_server_test<postgres_cluster, postgres_db>;

FLAKEID_SQL_SCENARIOS(postgres_sql_test)

TEST_F(postgres_sql_test, numeric_columns_decode_63_bit_layouts_too) {
  ASSERT_NO_FATAL_FAILURE(fields_match_decompose(*db, "twitter", sql::column_type::numeric));
}

TEST_F(postgres_sql_test, created_at_is_exact_to_the_millisecond_up_to_the_year_294276) {
  // Whole seconds of one-second ticks from 2024 run to the year 280,000 or so, where a count of
  // seconds times an interval (multiplied in double precision) is no longer exact.
  const flakeid::field fields[] = {flakeid::fields::timestamp(43), flakeid::fields::worker(8),
                                   flakeid::fields::sequence(12)};
  const flakeid::layout seconds{fields, 1704067200000, std::chrono::seconds{1}};
  ASSERT_GT(seconds.expires_at().time_since_epoch().count(), 8'000'000'000'000'000);
  ASSERT_NO_FATAL_FAILURE(
      fields_match_decompose(*db, seconds, "seconds", sql::column_type::bigint));
}

TEST_F(postgres_sql_test, shard_partitions_of_a_numeric_column_route_by_the_gene) {
  // A 64-bit gene layout: a numeric column, its shard key cast to bigint.
  constexpr flakeid::layout wide_gene{{flakeid::fields::timestamp(42), flakeid::fields::worker(5),
                                       flakeid::fields::sequence(12), flakeid::fields::gene(5)},
                                      0};
  const sql::writer w{wide_gene, sql::dialect::postgres, sql::column_type::numeric};
  const sql::writer::ddl ddl = w.shard_partitions("wide_orders", "id", 4);
  db->exec("DROP TABLE IF EXISTS wide_orders");
  db->exec("CREATE TABLE wide_orders (id " + w.id_type() + " NOT NULL) " + ddl.clause);
  for (const std::string& st : ddl.statements) db->exec(st);
  const std::uint64_t top = wide_gene.max_id();  // past 2^63: gene 31, shard 3
  db->exec("INSERT INTO wide_orders VALUES (" + std::to_string(top) + "), (" +
           std::to_string(top - 30) + ")");
  const auto where = db->partition_of_rows("wide_orders", {});
  EXPECT_EQ(where.at(top), "3");
  EXPECT_EQ(where.at(top - 30), "1");
}

}  // namespace
