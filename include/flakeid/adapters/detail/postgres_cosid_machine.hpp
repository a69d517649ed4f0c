// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/postgres_cosid_machine.hpp
/// PostgreSQL's dialect of `cosid_machine_store` (adapters/detail/cosid_machine_store.hpp): the
/// lease store of `postgres_store::lease(options, postgres_table::cosid)`, over CosId's
/// `cosid_machine` table with CosId's columns in PostgreSQL's types.

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../../detail/server_store.hpp"
#include "../../detail/text_util.hpp"
#include "../../lease_store.hpp"
#include "../../version.hpp"
#include "cosid_machine_store.hpp"
#include "postgres_connection.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// CosId's `cosid_machine` table in PostgreSQL's types (CosId gives MySQL's only).
inline constexpr const char* postgres_cosid_machine_schema =
    "CREATE TABLE IF NOT EXISTS cosid_machine (name varchar(100) NOT NULL PRIMARY KEY, "
    "namespace varchar(100) NOT NULL, machine_id integer NOT NULL DEFAULT 0, "
    "last_timestamp bigint NOT NULL DEFAULT 0, instance_id varchar(100) NOT NULL DEFAULT '', "
    "distribute_time bigint NOT NULL DEFAULT 0, revert_time bigint NOT NULL DEFAULT 0); "
    "CREATE INDEX IF NOT EXISTS cosid_machine_namespace_idx ON cosid_machine (namespace); "
    "CREATE INDEX IF NOT EXISTS cosid_machine_instance_id_idx ON cosid_machine (instance_id)";

/// The PostgreSQL dialect (see cosid_machine_store.hpp).
class postgres_cosid_sql {
 public:
  postgres_cosid_sql(std::string conninfo, const lease_options& o)
      : conn_(std::move(conninfo), o.connect_timeout, lease_io_timeout(o.io_timeout, o.ttl)) {}
  [[nodiscard]] std::string where() const { return conn_.where(); }
  cosid_answer exec(const std::string& sql) {
    const pg_result r = conn_.exec(sql, {});
    cosid_answer a;
    const int rows = PQntuples(r.get());
    const int cols = PQnfields(r.get());
    for (int i = 0; i < rows; ++i) {
      auto& row = a.rows.emplace_back();
      for (int j = 0; j < cols; ++j) {
        if (PQgetisnull(r.get(), i, j) != 0) {
          row.emplace_back();
        } else {
          row.emplace_back(std::string(PQgetvalue(r.get(), i, j)));
        }
      }
    }
    a.affected = parse_decimal<std::uint64_t>(PQcmdTuples(r.get())).value_or(0);
    return a;
  }
  /// `s` as UTF-8 from hex digits: no `standard_conforming_strings` can misread it.
  static std::string literal(std::string_view s) {
    std::string out = "convert_from(decode('";
    append_hex(out, s);
    return out + "', 'hex'), 'UTF8')";
  }
  /// The table, its indexes and its own row; two sessions that make it at once may collide
  /// in the catalog: the table there is all that counts. A table in two schemas of the
  /// session's `search_path` is refused (`postgres_require_one_table`).
  void make_table() {
    try {
      (void)conn_.exec(postgres_cosid_machine_schema, {});
    } catch (const store_connection_error&) {
      if (scalar("SELECT to_regclass('cosid_machine') IS NOT NULL") != "t") throw;
    }
    postgres_require_one_table(conn_, "\"cosid_machine\"",
                               "takes the ids that holders in this one hold");
  }
  static std::string insert_or_skip(const std::string& columns, const std::string& values) {
    return "INSERT INTO cosid_machine (" + columns + ") VALUES (" + values +
           ") ON CONFLICT DO NOTHING";
  }
  std::int64_t clock_ms() {
    return number(scalar("SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint"));
  }
  std::int64_t started_ms() {
    return number(scalar("SELECT (extract(epoch FROM pg_postmaster_start_time()) * 1000)::bigint"));
  }

 private:
  std::string scalar(const std::string& sql) {
    const pg_result r = conn_.exec(sql, {});
    if (PQntuples(r.get()) != 1 || PQnfields(r.get()) < 1 || PQgetisnull(r.get(), 0, 0) != 0)
      throw store_connection_error(where() + ": no answer to " + sql);
    return PQgetvalue(r.get(), 0, 0);
  }
  std::int64_t number(const std::string& v) const {
    const auto x = parse_decimal<std::int64_t>(v);
    if (!x) throw store_connection_error(where() + ": '" + v + "' is not a 64-bit integer");
    return *x;
  }

  postgres_connection conn_;
};

using postgres_cosid_machine_store = cosid_machine_store<postgres_cosid_sql>;

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
