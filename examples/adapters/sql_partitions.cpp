// Sets up an `orders` table on PostgreSQL from the DDL flakeid writes: decoding functions, one
// partition per month of 2026 on the ID, then inserts orders and reads back, for each, the
// partition PostgreSQL chose, the table flakeid::sql::time_router names, and the creation time
// the database decodes from the ID.
//
//   FLAKEID_POSTGRES_CONNINFO='host=127.0.0.1 port=5432 user=me dbname=shop' ./example_sql_partitions
//   ./example_sql_partitions          (no server: prints the DDL it would run)
#include <libpq-fe.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <flakeid/flakeid.hpp>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace std::chrono;
constexpr const flakeid::layout& orders_layout = flakeid::layouts::twitter;

/// The statements that set up the schema, every one written by flakeid::sql.
std::vector<std::string> schema() {
  const flakeid::sql::writer w{orders_layout, flakeid::sql::dialect::postgres};
  std::vector<std::string> out = {"DROP TABLE IF EXISTS orders"};
  for (const std::string& s : w.functions("orders_")) out.push_back(s);
  const auto ddl = w.time_partitions("orders", "id", sys_days{2026y / 1 / 1},
                                     sys_days{2027y / 1 / 1}, flakeid::sql::period::month,
                                     "id bigint NOT NULL PRIMARY KEY, customer text NOT NULL");
  out.push_back("CREATE TABLE orders (id bigint NOT NULL PRIMARY KEY, customer text NOT NULL) " +
                ddl.clause);
  for (const std::string& s : ddl.statements) out.push_back(s);
  return out;
}

bool exec(PGconn* c, const std::string& sql) {
  const std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c, sql.c_str()), PQclear);
  const ExecStatusType st = PQresultStatus(r.get());
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return true;
  std::fprintf(stderr, "%s\nin: %s\n", PQresultErrorMessage(r.get()), sql.c_str());
  return false;
}

}  // namespace

int main() {
  const char* conninfo = std::getenv("FLAKEID_POSTGRES_CONNINFO");
  if (conninfo == nullptr || *conninfo == '\0') {
    for (const std::string& s : schema()) std::printf("%s;\n", s.c_str());
    std::printf("-- set FLAKEID_POSTGRES_CONNINFO to run this on a server\n");
    return 0;
  }
  const std::unique_ptr<PGconn, decltype(&PQfinish)> c(PQconnectdb(conninfo), PQfinish);
  if (PQstatus(c.get()) != CONNECTION_OK) {
    std::fprintf(stderr, "cannot connect: %s", PQerrorMessage(c.get()));
    return 1;
  }
  (void)exec(c.get(), "SET client_min_messages = warning");
  for (const std::string& s : schema())
    if (!exec(c.get(), s)) return 1;

  // Orders minted on three days of 2026 (a manual clock stands in for the wall clock).
  flakeid::manual_clock clock;
  flakeid::classic_snowflake<orders_layout, flakeid::manual_clock> ids{
      flakeid::datacenter_id{1}, flakeid::worker_id{7}, clock};
  const flakeid::sql::time_router router{orders_layout, "orders", flakeid::sql::period::month};
  std::string insert = "INSERT INTO orders VALUES ";
  int n = 0;
  for (const auto day :
       {sys_days{2026y / 1 / 31}, sys_days{2026y / 2 / 1}, sys_days{2026y / 11 / 23}}) {
    clock.set(day + hours{23} + minutes{59} + seconds{59});
    insert += std::string(n++ == 0 ? "" : ",") + "(" + std::to_string(ids.next_id()) + ", 'ada')";
  }
  if (!exec(c.get(), insert)) return 1;

  const std::unique_ptr<PGresult, decltype(&PQclear)> r(
      PQexec(c.get(),
             "SELECT id, tableoid::regclass::text, "
             "to_char(orders_created_at(id) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') "
             "FROM orders ORDER BY id"),
      PQclear);
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    std::fprintf(stderr, "%s", PQresultErrorMessage(r.get()));
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    const std::uint64_t id = std::stoull(PQgetvalue(r.get(), i, 0));
    const std::string partition = PQgetvalue(r.get(), i, 1);
    std::printf("%llu  partition %s  router %s  created %s UTC\n",
                static_cast<unsigned long long>(id), partition.c_str(),
                router.table_for(id).c_str(), PQgetvalue(r.get(), i, 2));
    if (partition != router.table_for(id)) ++wrong;
  }
  return wrong == 0 && PQntuples(r.get()) == 3 ? 0 : 1;
}
