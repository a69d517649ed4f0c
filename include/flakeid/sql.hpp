// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file sql.hpp
/// SQL text that teaches a database a layout: expressions and functions that decode an ID
/// column, `PARTITION BY RANGE (id)` DDL with one partition per day, month or year, DDL that
/// routes rows to shards by their gene, and the same routing for DAO code that shards by table
/// name. No database library is needed: everything here only writes text.
///
///     flakeid::sql::writer w{flakeid::layouts::twitter, flakeid::sql::dialect::postgres};
///     w.created_at("id")   // timestamptz of the tick the ID was minted in, exact to the ms
///     w.field(flakeid::field_kind::worker, "id")             // ((id >> 12) & 31)
///     w.functions("orders_")   // CREATE FUNCTION orders_created_at(bigint) ... immutable
///     w.time_partitions("orders", "id", from, to, flakeid::sql::period::month)
///
/// Dialects:
///
///   postgres  PostgreSQL 11 or later. An ID column is `bigint` when the layout never sets bit
///             63, else `numeric(20,0)` (column_type::numeric): a signed `bigint` cannot hold
///             it. Times are `timestamptz`. Shard partitions are LIST partitions on
///             `(id % n)`: PostgreSQL's HASH partitioning hashes the key, it is no modulo.
///   mysql     MySQL 8 and MariaDB 10.5 or later. An ID column is `BIGINT`, or `BIGINT UNSIGNED`
///             (column_type::bigint_unsigned) for a layout that sets bit 63. Times are
///             `DATETIME(3)` in UTC, so a layout that outlasts 9999-12-31 has no time
///             expression there. `PARTITION BY HASH (id)` is `MOD(id, n)`, the same as
///             `layout::shard_of`.
///
/// Partition bounds are the first ID whose tick starts in each period: the partition of a row
/// is the period holding the start of its tick, which is the time `layout::decompose` reports
/// (with a tick that does not divide a day, the tick that runs across midnight belongs to the
/// day it starts in). Identifiers are checked (`[A-Za-z_][A-Za-z0-9_]*`, optionally
/// schema-qualified with one `.`, within the dialect's length limit) and always quoted.
/// Everything throws `flakeid::sql_error` for SQL it will not write. All functions are
/// thread-safe (no shared state).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "errors.hpp"
#include "layout.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace sql {

/// The SQL dialect to write.
enum class dialect : std::uint8_t { postgres, mysql };

/// The SQL type of the ID column.
///   bigint           signed 64-bit (`bigint`, `BIGINT`): layouts that never set bit 63
///   bigint_unsigned  MySQL's `BIGINT UNSIGNED`: every layout
///   numeric          PostgreSQL's `numeric(20,0)`: every layout, slower than bigint
enum class column_type : std::uint8_t { bigint, bigint_unsigned, numeric };

/// The length of one time partition or time-sliced table.
enum class period : std::uint8_t { day, month, year };

/// What a shard is computed from.
///   gene    the gene field: `gene % n`, which is `id % n` and `layout::shard_of(id, n)`; `n`
///           must be a power of two no larger than `2^gene_bits`
///   worker  the worker field: `worker % n`, for layouts without a gene (rows of one worker
///           stay together); `n` in `[1, 2^worker_bits]`
///   hash    SplitMix64's finalizer of the whole ID, then `% n`: spreads any layout evenly, but
///           has no SQL form (C++ table routing only)
enum class shard_by : std::uint8_t { gene, worker, hash };

/// The name of a dialect: "postgres" or "mysql".
constexpr std::string_view to_string(dialect d) noexcept {
  return d == dialect::postgres ? "postgres" : "mysql";
}

/// The name of a period: "day", "month" or "year".
constexpr std::string_view to_string(period p) noexcept {
  switch (p) {
    case period::day: return "day";
    case period::month: return "month";
    case period::year: return "year";
  }
  return "unknown";
}

/// The name of a shard key: "gene", "worker" or "hash".
constexpr std::string_view to_string(shard_by s) noexcept {
  switch (s) {
    case shard_by::gene: return "gene";
    case shard_by::worker: return "worker";
    case shard_by::hash: return "hash";
  }
  return "unknown";
}

namespace detail {

[[noreturn]] inline void sql_fail(const std::string& msg) { throw sql_error("flakeid: " + msg); }

inline std::size_t max_identifier_length(dialect d) noexcept {
  return d == dialect::postgres ? 63 : 64;  // NAMEDATALEN - 1; MySQL's limit
}

/// Checks one identifier (one part of a qualified name).
inline void check_identifier_part(std::string_view what, std::string_view full,
                                  std::string_view part, dialect d) {
  const auto bad = [&](const std::string& why) {
    sql_fail(std::string(what) + " \"" + std::string(full) + "\" " + why);
  };
  if (part.empty()) bad("has an empty name; allowed: [A-Za-z_][A-Za-z0-9_]*, one optional '.'");
  if (part.size() > max_identifier_length(d))
    bad("is " + std::to_string(part.size()) + " characters long; " + std::string(to_string(d)) +
        " allows at most " + std::to_string(max_identifier_length(d)));
  for (std::size_t i = 0; i < part.size(); ++i) {
    const char c = part[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0))
      bad("has '" + std::string(1, c) + "' at index " + std::to_string(i) +
          "; allowed: [A-Za-z_][A-Za-z0-9_]*, one optional '.'");
  }
}

inline std::string quote_part(std::string_view part, dialect d) {
  const char q = d == dialect::postgres ? '"' : '`';
  return q + std::string(part) + q;
}

/// Splits an optionally qualified name at its one '.'.
struct qualified_name {
  std::string schema;  // empty when unqualified
  std::string name;
};

inline qualified_name split_name(std::string_view what, std::string_view text, dialect d) {
  const std::size_t dot = text.find('.');
  qualified_name q;
  if (dot == std::string_view::npos) {
    q.name = std::string(text);
  } else {
    q.schema = std::string(text.substr(0, dot));
    q.name = std::string(text.substr(dot + 1));
    if (q.name.find('.') != std::string::npos)
      sql_fail(std::string(what) + " \"" + std::string(text) +
               "\" has more than one '.'; give name or schema.name");
    check_identifier_part(what, text, q.schema, d);
  }
  check_identifier_part(what, text, q.name, d);
  return q;
}

inline std::string quoted(const qualified_name& q, dialect d) {
  return q.schema.empty() ? quote_part(q.name, d)
                          : quote_part(q.schema, d) + "." + quote_part(q.name, d);
}

/// `name` + `suffix` in the schema of `base`, checked again (the suffix may push it past the
/// length limit).
inline qualified_name with_suffix(std::string_view what, const qualified_name& base,
                                  std::string_view suffix, dialect d) {
  qualified_name q{base.schema, base.name + std::string(suffix)};
  check_identifier_part(what, q.name, q.name, d);
  return q;
}

inline std::string u64(std::uint64_t v) { return std::to_string(v); }

/// SplitMix64's finalizer (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", 2014).
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// `yyyymmdd`, `yyyymm` or `yyyy` for the period starting at `t`.
inline std::string period_suffix(std::chrono::sys_days t, period p) {
  const std::chrono::year_month_day ymd{t};
  const auto two = [](unsigned v) {
    return std::string(1, static_cast<char>('0' + v / 10)) + static_cast<char>('0' + v % 10);
  };
  std::string s = std::to_string(static_cast<int>(ymd.year()));
  if (p != period::year) s += two(static_cast<unsigned>(ymd.month()));
  if (p == period::day) s += two(static_cast<unsigned>(ymd.day()));
  return s;
}

/// The first day of the period holding `day`.
inline std::chrono::sys_days period_start(std::chrono::sys_days day, period p) {
  using namespace std::chrono;
  const year_month_day ymd{day};
  switch (p) {
    case period::day: return day;
    case period::month: return sys_days{ymd.year() / ymd.month() / 1};
    case period::year: return sys_days{ymd.year() / January / 1};
  }
  return day;
}

inline std::chrono::sys_days next_period(std::chrono::sys_days start, period p) {
  using namespace std::chrono;
  const year_month_day ymd{start};
  switch (p) {
    case period::day: return start + days{1};
    case period::month: return sys_days{(ymd.year() / ymd.month() + months{1}) / 1};
    case period::year: return sys_days{(ymd.year() + years{1}) / January / 1};
  }
  return start;
}

/// The first ID of `l` whose tick starts at or after `day`: an ID's time is its tick's start,
/// so this is the first ID `decompose` places at `day` or later. 0 up to the epoch; empty when
/// no tick starts at `day` or later.
inline std::optional<std::uint64_t> first_id_from(const layout& l, std::chrono::sys_days day) {
  const std::int64_t ms =
      std::chrono::time_point_cast<std::chrono::milliseconds>(day).time_since_epoch().count();
  if (ms <= l.epoch_ms) return 0;
  const auto tick =
      static_cast<std::uint64_t>(ms - l.epoch_ms - 1) / static_cast<std::uint64_t>(l.tick_ms) + 1;
  if (tick > l.max_ticks()) return std::nullopt;
  return tick << l.shift(field_kind::timestamp);
}

}  // namespace detail

/// One period of a time-sliced table: its name suffix, its time span `[begin, end)` in UTC and
/// the IDs `[ids.lo, ids.hi)` minted in it.
struct time_slice {
  std::string suffix;  ///< `20261123`, `202611` or `2026`
  std::chrono::sys_days begin;
  std::chrono::sys_days end;
  id_bounds ids;
  /// The period holds the layout's last tick: the slice holds every ID from `ids.lo` on, and
  /// its partition's upper bound is `MAXVALUE`. Its `ids.hi` (2^63 for a layout that never sets
  /// bit 63) is past a signed BIGINT: query it with `id >= lo` alone.
  bool to_end = false;
};

/// The periods (UTC days, months or years) that hold the times `[from, to)`, each with its ID
/// bounds: `ids.lo` is the first ID whose tick starts in the period (at its beginning, or later
/// when a tick runs across it), `ids.hi` the next period's `lo`, so the slices tile the IDs
/// without overlap and an ID's slice is the one holding `l.decompose(id).timestamp`. A period in
/// which no tick starts (one that ends at or before the epoch, or lies within one tick) holds no
/// ID and has no slice. Throws `sql_error` when the layout is not time ordered or `from >= to`,
/// and `timestamp_overflow_error` when a period starts past the layout's range.
inline std::vector<time_slice> time_slices(const layout& l, layout::time_point from,
                                           layout::time_point to, period p) {
  using namespace std::chrono;
  if (!l.time_ordered())
    detail::sql_fail("time partitions need the timestamp to be the most significant field");
  if (from >= to)
    detail::sql_fail("time partitions need from < to (got from " +
                     flakeid::detail::format_utc(from) + ", to " + flakeid::detail::format_utc(to) +
                     ")");
  std::vector<time_slice> out;
  for (sys_days begin = detail::period_start(floor<days>(from), p); begin < to;) {
    const sys_days end = detail::next_period(begin, p);
    const std::optional<std::uint64_t> lo = detail::first_id_from(l, begin);
    if (!lo) {  // no tick starts here: past the range (throws), or within the last tick
      (void)l.min_id_at(time_point_cast<milliseconds>(begin));
      begin = end;
      continue;
    }
    time_slice s{detail::period_suffix(begin, p), begin, end, {*lo, 0}};
    // A period may start before the epoch (its IDs then start at the first one) or hold the
    // last tick's start (they run to the last ID: `to_end`; as a number, `ids.hi` leaves
    // 2^64 - 1 itself out).
    if (const std::optional<std::uint64_t> hi = detail::first_id_from(l, end)) {
      s.ids.hi = *hi;
    } else {
      const std::uint64_t last = l.max_id_at(l.expires_at());
      s.ids.hi = last == ~std::uint64_t{0} ? last : last + 1;
      s.to_end = true;
    }
    if (s.ids.lo < s.ids.hi || s.to_end) out.push_back(std::move(s));
    begin = end;
  }
  return out;
}

/// Writes SQL for one layout, dialect and ID column type.
///
/// Throws `sql_error` from the constructor when the column type cannot hold every ID of the
/// layout, or the dialect has no such type. Expressions take the column (or any SQL operand)
/// as text and use it unquoted; the DDL functions take identifiers, check them and quote them.
class writer {
 public:
  writer(const layout& l, dialect d, column_type type = column_type::bigint)
      : layout_(l), dialect_(d), type_(type) {
    const bool signed_ok = l.max_id() <= static_cast<std::uint64_t>(INT64_MAX);
    if (d == dialect::postgres && type == column_type::bigint_unsigned)
      detail::sql_fail(
          "postgres has no unsigned bigint; use the bigint column type (layouts that never set "
          "bit 63) or numeric (every layout)");
    if (d == dialect::mysql && type == column_type::numeric)
      detail::sql_fail(
          "mysql: use the BIGINT UNSIGNED column type for a layout that sets bit 63, not numeric");
    if (type == column_type::bigint && !signed_ok)
      detail::sql_fail("the layout's IDs reach " + detail::u64(l.max_id()) +
                       ", past a signed BIGINT's 9223372036854775807 (the layout uses bit 63); " +
                       (d == dialect::postgres ? "use the numeric column type (numeric(20,0))"
                                               : "use the BIGINT UNSIGNED column type"));
  }

  [[nodiscard]] const layout& id_layout() const noexcept { return layout_; }
  [[nodiscard]] dialect sql_dialect() const noexcept { return dialect_; }
  [[nodiscard]] column_type id_column_type() const noexcept { return type_; }

  /// The SQL type of the ID column: `bigint`, `numeric(20,0)`, `BIGINT` or `BIGINT UNSIGNED`.
  [[nodiscard]] std::string id_type() const {
    switch (type_) {
      case column_type::bigint: return dialect_ == dialect::postgres ? "bigint" : "BIGINT";
      case column_type::bigint_unsigned: return "BIGINT UNSIGNED";
      case column_type::numeric: return "numeric(20,0)";
    }
    return "bigint";
  }

  /// The SQL type of `created_at`: `timestamptz` or `DATETIME(3)`.
  [[nodiscard]] std::string time_type() const {
    return dialect_ == dialect::postgres ? "timestamptz" : "DATETIME(3)";
  }

  /// The raw value of field `k` of the ID in `column`, as a 64-bit integer expression
  /// (`bigint` on PostgreSQL; 0 when the layout has no such field).
  [[nodiscard]] std::string field(field_kind k, std::string_view column) const {
    if (!layout_.has(k)) return "0";
    const std::string c(column);
    const std::uint64_t mask = layout_.max_value(k);
    const unsigned s = layout_.shift(k);
    if (type_ == column_type::numeric) {  // no bit operators on numeric: divide, then take mod
      const std::string shifted =
          s == 0 ? c : "div(" + c + ", " + detail::u64(std::uint64_t{1} << s) + ")";
      return "(mod(" + shifted + ", " + detail::u64(mask + 1) + "))::bigint";
    }
    std::string shifted = s == 0 ? c : "(" + c + " >> " + std::to_string(s) + ")";
    // The top field of a 63-bit layout needs no mask: the sign bit is 0.
    if (s + layout_.bits(k) == 63 && layout_.max_id() <= static_cast<std::uint64_t>(INT64_MAX) &&
        type_ == column_type::bigint)
      return shifted;
    return "(" + shifted + " & " + detail::u64(mask) + ")";
  }

  /// Unix milliseconds of the start of the tick the ID in `column` was minted in.
  [[nodiscard]] std::string unix_ms(std::string_view column) const {
    std::string t = field(field_kind::timestamp, column);
    if (layout_.tick_ms != 1) t = "(" + t + " * " + std::to_string(layout_.tick_ms) + ")";
    if (layout_.epoch_ms != 0) t = "(" + t + " + " + std::to_string(layout_.epoch_ms) + ")";
    return t;
  }

  /// The time the ID in `column` was minted, as `time_type()`: the start of its tick, exact to
  /// the millisecond, equal to `layout::decompose(id).timestamp`.
  /// Throws `sql_error` when the layout outlasts the dialect's timestamp type (MySQL's DATETIME
  /// ends with 9999).
  [[nodiscard]] std::string created_at(std::string_view column) const {
    const std::int64_t last = layout_.expires_at().time_since_epoch().count();
    const std::int64_t limit = dialect_ == dialect::postgres ? 9224318015999999  // 294276-12-31
                                                             : 253402300799999;  // 9999-12-31
    if (last > limit)
      detail::sql_fail(std::string(to_string(dialect_)) + ": the layout's times run to " +
                       flakeid::detail::format_utc(last) + ", past " + time_type() + "'s last, " +
                       flakeid::detail::format_utc(limit) +
                       "; decode the time in the application, or use unix_ms");
    const std::string ms = unix_ms(column);
    // PostgreSQL multiplies an interval by a count in double precision, so each product must
    // stay exact: millions of seconds (at most 9.3 million, times 10^12 microseconds), seconds
    // (below 10^6) and milliseconds apart. Only the time part of an interval: days would be
    // added in the session's time zone.
    if (dialect_ == dialect::postgres)
      return "(timestamptz '1970-01-01 00:00:00+00' + (" + ms +
             " / 1000000000) * interval '1000000 seconds' + (" + ms +
             " / 1000 % 1000000) * interval '1 second' + (" + ms +
             " % 1000) * interval '1 millisecond')";
    return "CAST(TIMESTAMP'1970-01-01 00:00:00' + INTERVAL (" + ms +
           " DIV 1000) SECOND + INTERVAL ((" + ms +
           " MOD 1000) * 1000) MICROSECOND AS DATETIME(3))";
  }

  /// The shard of the ID in `column` among `n` shards, equal to `shard_router::shard_of`:
  /// `id % n` when the field is the lowest and `n` divides its range, else `field % n`.
  /// Throws `sql_error` for `shard_by::hash` (no SQL form) or a shard count the field cannot
  /// honour.
  [[nodiscard]] std::string shard(std::string_view column, std::uint64_t n,
                                  shard_by by = shard_by::gene) const {
    check_shards(layout_, n, by);
    if (by == shard_by::hash)
      detail::sql_fail(
          "hash shard routing has no SQL form; route by gene or worker, or compute the shard in "
          "the application");
    const field_kind k = by == shard_by::gene ? field_kind::gene : field_kind::worker;
    const bool lowest = layout_.shift(k) == 0 && (n & (n - 1)) == 0;
    const std::string operand = lowest ? std::string(column) : field(k, column);
    const std::string expr = "(" + operand + " % " + detail::u64(n) + ")";
    return type_ == column_type::numeric && lowest ? "(" + expr + ")::bigint" : expr;
  }

  /// `CREATE FUNCTION` statements, one per line group, for `<prefix>created_at`,
  /// `<prefix>unix_ms` and one `<prefix><field>` per field of the layout (`ticks` for the
  /// timestamp), plus `<prefix>shard` when `shards` is not 0. PostgreSQL functions are
  /// `IMMUTABLE STRICT PARALLEL SAFE`; MySQL ones `DETERMINISTIC NO SQL`, each preceded by a
  /// `DROP FUNCTION IF EXISTS`. `created_at` is left out when the layout outlasts the timestamp
  /// type. Throws `sql_error` for a bad prefix or shard count.
  [[nodiscard]] std::vector<std::string> functions(std::string_view prefix,
                                                   std::uint64_t shards = 0,
                                                   shard_by by = shard_by::gene) const {
    const std::string param = dialect_ == dialect::postgres ? "$1" : "id";
    std::vector<std::string> out;
    const auto add = [&](std::string_view name, const std::string& returns,
                         const std::string& body) {
      const detail::qualified_name q =
          detail::split_name("function name", std::string(prefix) + std::string(name), dialect_);
      const std::string fn = detail::quoted(q, dialect_);
      if (dialect_ == dialect::postgres) {
        out.push_back("CREATE OR REPLACE FUNCTION " + fn + "(id " + id_type() + ") RETURNS " +
                      returns + "\n  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE\n  AS $$SELECT " +
                      body + "$$;");
      } else {
        out.push_back("DROP FUNCTION IF EXISTS " + fn + ";");
        out.push_back("CREATE FUNCTION " + fn + "(id " + id_type() + ") RETURNS " + returns +
                      "\n  DETERMINISTIC NO SQL\n  RETURN " + body + ";");
      }
    };
    const std::string int_type = dialect_ == dialect::postgres ? "bigint" : "BIGINT UNSIGNED";
    if (fits_time_type()) add("created_at", time_type(), created_at(param));
    add("unix_ms", int_type, unix_ms(param));
    for (const flakeid::field f : layout_.fields()) {
      if (f.kind == field_kind::reserved) continue;
      add(f.kind == field_kind::timestamp ? "ticks" : to_string(f.kind), int_type,
          field(f.kind, param));
    }
    if (shards != 0) add("shard", int_type, shard(param, shards, by));
    return out;
  }

  /// Whether `created_at` can be written: the layout's last time fits `time_type()`.
  [[nodiscard]] bool fits_time_type() const noexcept {
    const std::int64_t last = layout_.expires_at().time_since_epoch().count();
    return last <= (dialect_ == dialect::postgres ? 9224318015999999 : 253402300799999);
  }

  /// DDL for a table partitioned by ID range: `clause` goes after the column list of
  /// `CREATE TABLE`, `statements` run after it (PostgreSQL: one `CREATE TABLE ... PARTITION
  /// OF` per slice; MySQL: none, the partitions are in the clause).
  struct ddl {
    std::string clause;
    std::vector<std::string> statements;
    /// The whole script: `CREATE TABLE <table> (<columns>) <clause>;` then the statements.
    std::string script;
  };

  /// One partition per period of `[from, to)` on `column` of `table`, bounds from
  /// `time_slices`: PostgreSQL partitions `<table>_<suffix>`, MySQL partitions `p<suffix>`.
  /// The period that holds the layout's last tick runs to `MAXVALUE` (no bound reaches 2^63).
  /// `columns` is the column list of the table; by default the ID column alone, as its
  /// primary key. Throws `sql_error` for a bad identifier or range.
  [[nodiscard]] ddl time_partitions(std::string_view table, std::string_view column,
                                    layout::time_point from, layout::time_point to, period p,
                                    std::string_view columns = {}) const {
    const detail::qualified_name t = detail::split_name("table", table, dialect_);
    const std::string col = column_name(column);
    ddl out;
    const std::vector<time_slice> slices = time_slices(layout_, from, to, p);
    if (dialect_ == dialect::postgres) {
      out.clause = "PARTITION BY RANGE (" + col + ")";
      for (const time_slice& s : slices)
        out.statements.push_back(
            "CREATE TABLE " +
            detail::quoted(detail::with_suffix("partition", t, "_" + s.suffix, dialect_),
                           dialect_) +
            " PARTITION OF " + detail::quoted(t, dialect_) + " FOR VALUES FROM (" +
            detail::u64(s.ids.lo) + ") TO (" + (s.to_end ? "MAXVALUE" : detail::u64(s.ids.hi)) +
            ");");
    } else {
      out.clause = "PARTITION BY RANGE (" + col + ") (";
      for (std::size_t i = 0; i < slices.size(); ++i) {
        const detail::qualified_name part{"", "p" + slices[i].suffix};
        // Appended piece by piece: GCC 12 at -O3 misreads `"(" + std::string&&` as an
        // overlapping copy (-Wrestrict) in callers that inline this.
        out.clause += i == 0 ? "\n" : ",\n";
        out.clause += "  PARTITION ";
        out.clause += detail::quoted(part, dialect_);
        out.clause += " VALUES LESS THAN ";
        if (slices[i].to_end) {
          out.clause += "MAXVALUE";
        } else {
          out.clause += '(';
          out.clause += detail::u64(slices[i].ids.hi);
          out.clause += ')';
        }
      }
      out.clause += "\n)";
    }
    finish(out, t, col, columns, true);
    return out;
  }

  /// `n` shard partitions of `table`, routed by `by` on `column`: MySQL `PARTITION BY HASH`
  /// (a modulo: partition `p<k>` holds shard k), PostgreSQL `PARTITION BY LIST` on the shard
  /// expression with partitions `<table>_<k>` (k zero-padded to the width of n - 1).
  /// Throws `sql_error` as `shard` does, or for a bad identifier.
  [[nodiscard]] ddl shard_partitions(std::string_view table, std::string_view column,
                                     std::uint64_t n, shard_by by = shard_by::gene,
                                     std::string_view columns = {}) const {
    const detail::qualified_name t = detail::split_name("table", table, dialect_);
    const std::string col = column_name(column);
    const std::string expr = shard(col, n, by);
    ddl out;
    if (dialect_ == dialect::postgres) {
      // A key that is not one parenthesized expression (`(...)::bigint` on a numeric column)
      // must be put in parentheses of its own.
      const bool bracketed = expr.front() == '(' && expr.back() == ')';
      out.clause = "PARTITION BY LIST (" + (bracketed ? expr : "(" + expr + ")") + ")";
      for (std::uint64_t k = 0; k < n; ++k) {
        std::string suffix = "_";  // not `"_" + std::string&&`: GCC 12 misreads it at -O3
        suffix += shard_suffix(k, n);
        out.statements.push_back(
            "CREATE TABLE " +
            detail::quoted(detail::with_suffix("partition", t, suffix, dialect_), dialect_) +
            " PARTITION OF " + detail::quoted(t, dialect_) + " FOR VALUES IN (" + detail::u64(k) +
            ");");
      }
    } else {
      out.clause =
          "PARTITION BY HASH (" + mysql_hash_operand(col, n, by) + ") PARTITIONS " + detail::u64(n);
    }
    // PostgreSQL cannot have a primary key on a table partitioned by an expression.
    finish(out, t, col, columns, dialect_ == dialect::mysql);
    return out;
  }

  /// Checks a shard count for `by`; see `shard_by`. Throws `sql_error`.
  static void check_shards(const layout& l, std::uint64_t n, shard_by by) {
    if (by == shard_by::hash) {
      if (n == 0) detail::sql_fail("shard count 0 is out of range [1, 18446744073709551615]");
      return;
    }
    const field_kind k = by == shard_by::gene ? field_kind::gene : field_kind::worker;
    const unsigned bits = l.bits(k);
    if (bits == 0)
      detail::sql_fail("shard by " + std::string(to_string(by)) + ": the layout has no " +
                       std::string(to_string(k)) + " field; route by " +
                       (by == shard_by::gene ? "worker or hash" : "gene or hash"));
    const std::uint64_t range = l.max_value(k) + 1;  // bits <= 62, so no overflow
    const bool pow2 = n != 0 && (n & (n - 1)) == 0;
    if (by == shard_by::gene && (!pow2 || n > range))
      detail::sql_fail("shard count " + detail::u64(n) + " cannot be honoured by a " +
                       std::to_string(bits) + "-bit gene: it must be a power of two in [1, " +
                       detail::u64(range) + "]");
    if (by == shard_by::worker && (n == 0 || n > range))
      detail::sql_fail("shard count " + detail::u64(n) + " is out of range [1, " +
                       detail::u64(range) + "] for a " + std::to_string(bits) + "-bit worker");
  }

  /// `k` zero-padded to the number of digits of `n - 1`: shard 7 of 16 is "07".
  static std::string shard_suffix(std::uint64_t k, std::uint64_t n) {
    const std::string last = detail::u64(n == 0 ? 0 : n - 1);
    std::string s = detail::u64(k);
    if (s.size() < last.size()) s.insert(0, last.size() - s.size(), '0');
    return s;
  }

 private:
  // HASH(e) puts a row in partition MOD(e, n) for e below 2^63 (larger unsigned values are
  // read as negative), and partition functions allow no bit operators: the ID itself when
  // that is the shard, else the field by DIV and MOD, already reduced below n.
  [[nodiscard]] std::string mysql_hash_operand(const std::string& col, std::uint64_t n,
                                               shard_by by) const {
    const field_kind k = by == shard_by::gene ? field_kind::gene : field_kind::worker;
    const bool lowest = layout_.shift(k) == 0 && (n & (n - 1)) == 0;
    if (lowest)
      return type_ == column_type::bigint ? col : "(" + col + " MOD " + detail::u64(n) + ")";
    const std::string shifted =
        layout_.shift(k) == 0
            ? col
            : "(" + col + " DIV " + detail::u64(std::uint64_t{1} << layout_.shift(k)) + ")";
    return "((" + shifted + " MOD " + detail::u64(layout_.max_value(k) + 1) + ") MOD " +
           detail::u64(n) + ")";
  }

  [[nodiscard]] std::string column_name(std::string_view column) const {
    if (column.find('.') != std::string_view::npos)
      detail::sql_fail("column \"" + std::string(column) +
                       "\" has a '.'; give the column's own name, [A-Za-z_][A-Za-z0-9_]*");
    return detail::quoted(detail::split_name("column", column, dialect_), dialect_);
  }

  void finish(ddl& out, const detail::qualified_name& t, const std::string& col,
              std::string_view columns, bool primary_key) const {
    const std::string cols =
        columns.empty() ? col + " " + id_type() + " NOT NULL" + (primary_key ? " PRIMARY KEY" : "")
                        : std::string(columns);
    out.script =
        "CREATE TABLE " + detail::quoted(t, dialect_) + " (" + cols + ")\n" + out.clause + ";\n";
    for (const std::string& s : out.statements) out.script += s + "\n";
  }

  layout layout_;
  dialect dialect_;
  column_type type_;
};

/// Routes IDs to tables sliced by time, `<table>_<yyyymmdd|yyyymm|yyyy>`, for DAO code that
/// shards by table name; the names and bounds are those of `writer::time_partitions`.
///
///     flakeid::sql::time_router r{flakeid::layouts::twitter, "orders", period::month};
///     r.table_for(id)                  // "orders_202611"
///     r.tables_for(from, to)           // every table [from, to) touches, oldest first
class time_router {
 public:
  /// Throws `sql_error` when the layout is not time ordered.
  time_router(const layout& l, std::string table, period p)
      : layout_(l), table_(std::move(table)), period_(p) {
    if (!l.time_ordered())
      detail::sql_fail("time routing needs the timestamp to be the most significant field");
  }
  /// The table holding `id`: the period of `layout::decompose(id).timestamp`.
  /// Throws `invalid_id_error` when `id` sets a reserved bit.
  [[nodiscard]] std::string table_for(std::uint64_t id) const {
    return table_at(layout_.decompose(id).timestamp);
  }
  /// The table for IDs minted at `t`.
  [[nodiscard]] std::string table_at(layout::time_point t) const {
    return table_ + "_" +
           detail::period_suffix(
               detail::period_start(std::chrono::floor<std::chrono::days>(t), period_), period_);
  }
  /// The tables holding IDs minted in `[from, to)`, oldest first, with their ID bounds.
  [[nodiscard]] std::vector<time_slice> slices(layout::time_point from,
                                               layout::time_point to) const {
    return time_slices(layout_, from, to, period_);
  }
  /// The names of `slices(from, to)`.
  [[nodiscard]] std::vector<std::string> tables_for(layout::time_point from,
                                                    layout::time_point to) const {
    std::vector<std::string> out;
    for (const time_slice& s : slices(from, to)) out.push_back(table_ + "_" + s.suffix);
    return out;
  }

 private:
  layout layout_;
  std::string table_;
  period period_;
};

/// Routes IDs to `n` tables by their gene, worker or hash, `<table>_<k>` with k zero-padded
/// (`orders_07` for shard 7 of 16), the names and shards of `writer::shard_partitions`.
///
///     flakeid::sql::shard_router r{flakeid::layouts::seed_gene, "orders", 16};
///     r.table_for(gen.next_id(user_id))   // the table of user_id % 16
///     r.table_for_key(user_id)            // the same table, from the key
class shard_router {
 public:
  /// Throws `sql_error` for a shard count `by` cannot honour (see `shard_by`).
  shard_router(const layout& l, std::string table, std::uint64_t n, shard_by by = shard_by::gene)
      : layout_(l), table_(std::move(table)), n_(n), by_(by) {
    writer::check_shards(l, n, by);
  }
  /// The shard of `id`: `gene % n`, `worker % n` or `splitmix64(id) % n`.
  [[nodiscard]] std::uint64_t shard_of(std::uint64_t id) const noexcept {
    switch (by_) {
      case shard_by::gene: return layout_.extract(id, field_kind::gene) % n_;
      case shard_by::worker: return layout_.extract(id, field_kind::worker) % n_;
      case shard_by::hash: return detail::splitmix64_mix(id) % n_;
    }
    return 0;
  }
  /// The table of shard `k`.
  [[nodiscard]] std::string table(std::uint64_t k) const {
    return table_ + "_" + writer::shard_suffix(k, n_);
  }
  /// The table holding `id`.
  [[nodiscard]] std::string table_for(std::uint64_t id) const { return table(shard_of(id)); }
  /// The table of the rows whose gene came from `key` (gene routing): `key % n`.
  [[nodiscard]] std::string table_for_key(std::uint64_t key) const { return table(key % n_); }
  /// Every table, shard 0 first.
  [[nodiscard]] std::vector<std::string> tables() const {
    std::vector<std::string> out;
    for (std::uint64_t k = 0; k < n_; ++k) out.push_back(table(k));
    return out;
  }
  [[nodiscard]] std::uint64_t shard_count() const noexcept { return n_; }

 private:
  layout layout_;
  std::string table_;
  std::uint64_t n_;
  shard_by by_;
};

}  // namespace sql
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
