// The SQL of <flakeid/sql.hpp> on a real MariaDB server (mariadb-install-db + mariadbd, see
// mariadb_server.hpp) through MariaDB Connector/C, checked against the C++ codec: field
// expressions and functions, RANGE partitions by time, and HASH partitions routed by the gene.
#include <mysql.h>

#include <memory>
#include <stdexcept>

#include "mariadb_server.hpp"
#include "server_support.hpp"
#include "sql_scenarios.hpp"

namespace {

using namespace flakeid_test;

/// A Connector/C connection that throws on any failed statement.
class mariadb_db {
 public:
  static constexpr sql::dialect dialect = sql::dialect::mysql;

  explicit mariadb_db(const mariadb_server& s) : c_(mysql_init(nullptr), mysql_close) {
    if (c_ == nullptr) throw std::runtime_error("mysql_init failed");
    if (mysql_real_connect(c_.get(), "127.0.0.1", mariadb_server::user().c_str(), nullptr,
                           mariadb_server::database().c_str(), static_cast<unsigned>(s.port()),
                           nullptr, 0) == nullptr)
      throw std::runtime_error(std::string("connect: ") + mysql_error(c_.get()));
    exec("SET time_zone = '+00:00'");
  }
  void exec(const std::string& sql) { (void)query(sql); }
  rows query(const std::string& sql) {
    if (mysql_real_query(c_.get(), sql.data(), sql.size()) != 0)
      throw std::runtime_error(std::string(mysql_error(c_.get())) + " in: " + sql.substr(0, 400));
    rows out;
    const std::unique_ptr<MYSQL_RES, decltype(&mysql_free_result)> r(mysql_store_result(c_.get()),
                                                                     mysql_free_result);
    if (r == nullptr) {
      if (mysql_field_count(c_.get()) != 0)
        throw std::runtime_error(std::string(mysql_error(c_.get())) + " in: " + sql.substr(0, 400));
      return out;
    }
    const unsigned n = mysql_num_fields(r.get());
    while (MYSQL_ROW row = mysql_fetch_row(r.get())) {
      const unsigned long* len = mysql_fetch_lengths(r.get());
      std::vector<std::string> values;
      for (unsigned j = 0; j < n; ++j)
        values.emplace_back(row[j] == nullptr ? std::string("NULL") : std::string(row[j], len[j]));
      out.push_back(std::move(values));
    }
    return out;
  }
  static std::string time_probe(const std::string& expr) {
    return "TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', " + expr + ")";
  }
  /// Time partitions are `p<suffix>`; the shard partitions of `PARTITIONS n` are `p0` ... and
  /// are reported by their padded suffix.
  std::map<std::uint64_t, std::string> partition_of_rows(const std::string& table,
                                                         const std::vector<std::string>& suffixes,
                                                         bool shards = false) {
    std::map<std::uint64_t, std::string> out;
    for (std::size_t k = 0; k < suffixes.size(); ++k) {
      const std::string part = shards ? "p" + std::to_string(k) : "p" + suffixes[k];
      for (const auto& r : query("SELECT id FROM " + table + " PARTITION (" + part + ")"))
        out[std::stoull(r.at(0))] = suffixes[k];
    }
    return out;
  }
  std::set<std::string> partitions_scanned(const std::string& select) {
    std::set<std::string> out;
    const std::string q = "EXPLAIN PARTITIONS " + select;
    if (mysql_real_query(c_.get(), q.data(), q.size()) != 0)
      throw std::runtime_error(mysql_error(c_.get()));
    const std::unique_ptr<MYSQL_RES, decltype(&mysql_free_result)> r(mysql_store_result(c_.get()),
                                                                     mysql_free_result);
    unsigned column = 0;
    const unsigned n = mysql_num_fields(r.get());
    const MYSQL_FIELD* fields = mysql_fetch_fields(r.get());
    for (unsigned j = 0; j < n; ++j)
      if (std::string(fields[j].name) == "partitions") column = j;
    while (MYSQL_ROW row = mysql_fetch_row(r.get())) {
      std::string list = row[column] == nullptr ? "" : row[column];
      for (std::size_t pos = 0; pos < list.size();) {
        const std::size_t comma = std::min(list.find(',', pos), list.size());
        out.insert(list.substr(pos + 1, comma - pos - 1));  // drop the 'p'
        pos = comma + 1;
      }
    }
    return out;
  }

 private:
  std::unique_ptr<MYSQL, decltype(&mysql_close)> c_;
};

using mariadb_sql_test = sql_server_test<mariadb_server, mariadb_db>;

FLAKEID_SQL_SCENARIOS(mariadb_sql_test)

TEST_F(mariadb_sql_test, unsigned_columns_decode_63_bit_layouts_too) {
  ASSERT_NO_FATAL_FAILURE(
      fields_match_decompose(*db, "sonyflake", sql::column_type::bigint_unsigned));
}

}  // namespace
