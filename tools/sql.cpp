// flakeid sql: SQL that decodes IDs, partitions tables by ID and routes shards.
#include "core.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <flakeid/sql.hpp>

namespace flakeid_cli {
const std::string_view sql_help =
    "usage: flakeid sql fields     [--layout L] [--dialect D] [--type T] [--column C]\n"
    "                              [--shards N] [--by gene|worker]\n"
    "       flakeid sql functions  [--layout L] [--dialect D] [--type T] [--prefix P]\n"
    "                              [--shards N] [--by gene|worker]\n"
    "       flakeid sql partitions [--layout L] [--dialect D] [--type T] --table T [--column C]\n"
    "                              --from TIME --to TIME [--every day|month|year] [--columns SQL]\n"
    "       flakeid sql shards     [--layout L] [--dialect D] [--type T] --table T [--column C]\n"
    "                              --shards N [--by gene|worker] [--columns SQL]\n"
    "\n"
    "Writes SQL that knows the layout (default twitter):\n"
    "  fields      one expression per line, 'name expression', decoding the column (default\n"
    "              id): created_at, unix_ms, ticks, each field, and shard with --shards\n"
    "  functions   CREATE FUNCTION statements <prefix>created_at(id) ... (default prefix id_)\n"
    "  partitions  CREATE TABLE ... PARTITION BY RANGE (id), one partition per day, month\n"
    "              (default) or year from FROM up to TO (UTC; as for 'flakeid range')\n"
    "  shards      CREATE TABLE ... partitioned into N shards by the gene (or worker):\n"
    "              PostgreSQL LIST partitions on id % N, MySQL PARTITION BY HASH\n"
    "\n"
    "  --dialect   postgres (default) or mysql (MySQL and MariaDB)\n"
    "  --type      the ID column's type: bigint (default), numeric (PostgreSQL) or unsigned\n"
    "              (MySQL's BIGINT UNSIGNED); a layout that sets bit 63 needs one of the last two\n"
    "  --columns   the table's column list (default: the ID column as its primary key)\n"
    "Identifiers are [A-Za-z_][A-Za-z0-9_]* (a table may be schema.table); they are quoted.\n"
    "--column is such an identifier (or a.b, or a double-quoted name). TIME is read as for\n"
    "'flakeid range' (2026-01-01, now-30d, Unix milliseconds ...).\n";
namespace {

flakeid::sql::dialect read_dialect(std::string_view name) {
  if (name == "postgres" || name == "postgresql") return flakeid::sql::dialect::postgres;
  if (name == "mysql" || name == "mariadb") return flakeid::sql::dialect::mysql;
  fail("flakeid sql: --dialect " + quote(name) + " is unknown; use postgres or mysql");
}

flakeid::sql::column_type read_column_type(std::string_view name) {
  if (name == "bigint") return flakeid::sql::column_type::bigint;
  if (name == "numeric") return flakeid::sql::column_type::numeric;
  if (name == "unsigned") return flakeid::sql::column_type::bigint_unsigned;
  fail("flakeid sql: --type " + quote(name) + " is unknown; use bigint, numeric or unsigned");
}

flakeid::sql::shard_by read_shard_by(std::string_view name) {
  if (name == "gene") return flakeid::sql::shard_by::gene;
  if (name == "worker") return flakeid::sql::shard_by::worker;
  fail("flakeid sql: --by " + quote(name) + " is unknown; use gene or worker");
}

flakeid::sql::period read_period(std::string_view name) {
  if (name == "day") return flakeid::sql::period::day;
  if (name == "month") return flakeid::sql::period::month;
  if (name == "year") return flakeid::sql::period::year;
  fail("flakeid sql: --every " + quote(name) + " is unknown; use day, month or year");
}

/// The writer for --layout, --dialect and --type; a column type that cannot hold the layout's
/// IDs is bad input naming the --type that can.
flakeid::sql::writer make_writer(const arguments& a) {
  const flakeid::layout l = read_layout(a, "twitter");
  const flakeid::sql::dialect d = read_dialect(a.get("--dialect").value_or("postgres"));
  const auto type = a.get("--type");
  const bool postgres = d == flakeid::sql::dialect::postgres;
  if ((!type || *type == "bigint") && l.max_id() > static_cast<std::uint64_t>(INT64_MAX))
    fail("flakeid sql: layout " + layout_name(a, "twitter") + "'s IDs reach " +
         std::to_string(l.max_id()) +
         ", past a signed BIGINT's 9223372036854775807 (the layout uses bit 63); pass " +
         (postgres ? "--type numeric (numeric(20,0))" : "--type unsigned (BIGINT UNSIGNED)"));
  return {l, d, read_column_type(type.value_or("bigint"))};
}

std::string_view required(const arguments& a, std::string_view option, std::string_view what) {
  const auto v = a.get(option);
  if (!v)
    fail("flakeid sql " + std::string(what) + ": give " + std::string(option) +
         "; see 'flakeid sql --help'");
  return *v;
}

}  // namespace

int run_sql(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"--layout", true}, {"--dialect", true}, {"--type", true},  {"--column", true},
      {"--prefix", true}, {"--shards", true},  {"--by", true},    {"--table", true},
      {"--from", true},   {"--to", true},      {"--every", true}, {"--columns", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, sql_help);
  if (a.operands.size() != 1)
    fail(
        "flakeid sql: give one of fields, functions, partitions, shards; see 'flakeid sql --help'");
  const std::string_view what = a.operands[0];
  const flakeid::sql::writer w = make_writer(a);
  const std::string_view column = read_column(a);
  const std::uint64_t shards =
      a.get("--shards") ? read_number("sql", "--shards", *a.get("--shards")) : 0;
  const flakeid::sql::shard_by by = read_shard_by(a.get("--by").value_or("gene"));
  const std::string_view columns = a.get("--columns").value_or("");
  std::string out;
  if (what == "fields") {
    const auto line = [&](std::string_view name, const std::string& expr) {
      out += std::string(name) + std::string(12 - name.size(), ' ') + expr + "\n";
    };
    if (w.fits_time_type()) line("created_at", w.created_at(column));
    line("unix_ms", w.unix_ms(column));
    for (const flakeid::field f : w.id_layout().fields()) {
      if (f.kind == flakeid::field_kind::reserved) continue;
      line(f.kind == flakeid::field_kind::timestamp ? "ticks" : flakeid::to_string(f.kind),
           w.field(f.kind, column));
    }
    if (shards != 0) line("shard", w.shard(column, shards, by));
  } else if (what == "functions") {
    for (const std::string& s : w.functions(a.get("--prefix").value_or("id_"), shards, by))
      out += s + "\n";
  } else if (what == "partitions") {
    const std::string_view table = required(a, "--table", what);
    const read_time_result from = read_time(c, "--from", required(a, "--from", what));
    const read_time_result to = read_time(c, "--to", required(a, "--to", what));
    (void)checked_range(c, w.id_layout(), from, to);
    if (c.io.sandbox && to.time - from.time > std::chrono::days{3660})
      fail("flakeid sql partitions: this run writes at most ten years of partitions");
    out = w.time_partitions(table, column, from.time, to.time,
                            read_period(a.get("--every").value_or("month")), columns)
              .script;
  } else if (what == "shards") {
    const std::string_view table = required(a, "--table", what);
    if (shards == 0) fail("flakeid sql shards: give --shards N (N >= 1)");
    if (c.io.sandbox && shards > 4096) fail("flakeid sql shards: this run writes at most 4096");
    out = w.shard_partitions(table, column, shards, by, columns).script;
  } else {
    fail("flakeid sql: unknown SQL " + quote(what) +
         "; give fields, functions, partitions or shards");
  }
  emit(c, out);
  return exit_ok;
}

}  // namespace flakeid_cli
