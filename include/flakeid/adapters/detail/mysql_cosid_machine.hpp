// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/mysql_cosid_machine.hpp
/// MySQL/MariaDB's dialect of `cosid_machine_store` (adapters/detail/cosid_machine_store.hpp):
/// the lease store of `mysql_store::lease(options, mysql_table::cosid)`, over CosId's
/// `cosid_machine` table as CosId's JDBC distributor makes it.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../../lease_store.hpp"
#include "../../version.hpp"
#include "cosid_machine_store.hpp"
#include "mysql_connection.hpp"
#include "mysql_lease_store.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// CosId's `cosid_machine` table, as its JDBC distributor's initializer makes it.
inline constexpr const char* cosid_machine_schema =
    "CREATE TABLE IF NOT EXISTS cosid_machine (name VARCHAR(100) NOT NULL, "
    "namespace VARCHAR(100) NOT NULL, machine_id INTEGER UNSIGNED NOT NULL DEFAULT 0, "
    "last_timestamp BIGINT UNSIGNED NOT NULL DEFAULT 0, "
    "instance_id VARCHAR(100) NOT NULL DEFAULT '', "
    "distribute_time BIGINT UNSIGNED NOT NULL DEFAULT 0, "
    "revert_time BIGINT UNSIGNED NOT NULL DEFAULT 0, CONSTRAINT cosid_machine_pk PRIMARY KEY "
    "(name), KEY idx_namespace (namespace), KEY idx_instance_id (instance_id)) ENGINE=InnoDB";

/// The MySQL/MariaDB dialect (see cosid_machine_store.hpp).
class mysql_cosid_sql {
 public:
  mysql_cosid_sql(mysql_address a, const lease_options& o)
      : conn_(std::move(a), o.connect_timeout, lease_io_timeout(o.io_timeout, o.ttl)) {}
  [[nodiscard]] std::string where() const { return conn_.where(); }
  cosid_answer exec(const std::string& sql) {
    mysql_answer a = conn_.exec(sql);
    return {std::move(a.rows), a.affected};
  }
  static std::string literal(std::string_view s) { return mysql_literal(s); }
  void make_table() { (void)conn_.exec(cosid_machine_schema); }
  static std::string insert_or_skip(const std::string& columns, const std::string& values) {
    return "INSERT IGNORE INTO cosid_machine (" + columns + ") VALUES (" + values + ")";
  }
  std::int64_t clock_ms() { return mysql_clock_ms(conn_); }
  std::int64_t started_ms() { return mysql_server_clock(conn_).second; }

 private:
  mysql_connection conn_;
};

using mysql_cosid_machine_store = cosid_machine_store<mysql_cosid_sql>;

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
