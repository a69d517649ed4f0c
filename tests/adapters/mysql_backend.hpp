// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The MySQL/MariaDB backend of the server tests, for the lease, segment and fork scenarios
// alike: a MariaDB server of the test's own (mariadb-install-db + mariadbd, commits durable
// unless a fixture says otherwise) and the stores, leases and distributors over it.

#include <flakeid/adapters/mysql.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "mariadb_server.hpp"
#include "store_backend.hpp"

namespace flakeid_test {

inline std::string address_of(const mariadb_server& s) { return s.uri(); }

/// Its server durable, or (false) with innodb_flush_log_at_trx_commit=0.
struct mysql_backend : store_backend<flakeid::mysql_store, mariadb_server> {
  /// The table of the segment stores.
  flakeid::mysql_table segment_table = flakeid::mysql_table::flakeid;
  /// A segment store in namespace `ns` whose connect and I/O timeouts are both `timeout`.
  [[nodiscard]] store_type store(const std::string& ns, std::chrono::milliseconds timeout) const {
    return store_type{server.uri(),
                      {.name_space = ns, .connect_timeout = timeout, .io_timeout = timeout},
                      segment_table};
  }
  /// A connection of the test's own, for the statements of a peer and for looking at tables.
  [[nodiscard]] flakeid::detail::mysql_connection raw() const {
    return {flakeid::mysql_address::parse(server.uri()), patient, patient};
  }
  /// What was committed so far is on disk even with innodb_flush_log_at_trx_commit=0 (one
  /// commit with the setting at 1 writes and flushes the log up to it); and the server has run
  /// 4 s (a bounded wait), so that its start and the next one lie further apart than the store
  /// can tell (Uptime counts seconds).
  void settle() const {
    for (int i = 0; i < 600 && std::stoll(value_of("SELECT VARIABLE_VALUE FROM "
                                                   "information_schema.GLOBAL_STATUS WHERE "
                                                   "VARIABLE_NAME = 'UPTIME'")) < 4;
         ++i)
      std::this_thread::sleep_for(100ms);
    (void)value_of(
        "SET @old = @@GLOBAL.innodb_flush_log_at_trx_commit; "
        "SET GLOBAL innodb_flush_log_at_trx_commit = 1; "
        "CREATE TABLE IF NOT EXISTS flakeid_settle (n INT) ENGINE=InnoDB; "
        "INSERT INTO flakeid_settle VALUES (1); "
        "SET GLOBAL innodb_flush_log_at_trx_commit = @old");
  }
  [[nodiscard]] static std::string table(const std::string& ns) {
    return "`flakeid_lease_" + ns + "`";
  }

  // For cosid_lease_scenarios.hpp.
  using cosid_sql = flakeid::detail::mysql_cosid_sql;
  static constexpr auto cosid = flakeid::mysql_table::cosid;
  [[nodiscard]] cosid_sql cosid_sql_of() const {
    return {flakeid::mysql_address::parse(server.uri()), quick_options("peer")};
  }

  // For the SQL scenarios of instance_scenarios.hpp and memory_loss_scenarios.hpp.
  std::unique_ptr<flakeid::lease_store> store(const flakeid::lease_options& o) const {
    return std::make_unique<flakeid::detail::mysql_lease_store>(
        flakeid::mysql_address::parse(server.uri()), o);
  }
  void make_older_table(const std::string& ns, std::chrono::milliseconds age) const {
    const std::string table = "`flakeid_lease_" + ns + "`";
    ASSERT_EQ(value_of("CREATE TABLE IF NOT EXISTS " + table +
                       " (id BIGINT NOT NULL PRIMARY KEY, holder VARCHAR(255) NULL, "
                       "last_unix_ms BIGINT NULL, expires_ms BIGINT NOT NULL) "
                       "ENGINE=InnoDB; INSERT IGNORE INTO " +
                       table + " (id, expires_ms) VALUES (-1, " + flakeid::detail::mysql_now_ms +
                       " - " + std::to_string(age.count()) + "); SELECT 'made'"),
              "made");
  }
  [[nodiscard]] std::string has_instance_column(const std::string& ns) const {
    return value_of(
        "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND "
        "TABLE_NAME = 'flakeid_lease_" +
        ns + "' AND COLUMN_NAME = 'instance'");
  }
  [[nodiscard]] std::string instances_of(const std::string& ns) const {
    return value_of(
        "SELECT GROUP_CONCAT(CONCAT(id, '=', COALESCE(instance, '-')) ORDER BY id SEPARATOR ',') "
        "FROM `flakeid_lease_" +
        ns + "`");
  }
  /// The first column of the first row `sql` answers ("" for none, "-" for NULL), on a
  /// connection of its own.
  [[nodiscard]] std::string value_of(const std::string& sql) const {
    const auto r = raw().exec(sql);
    if (r.rows.empty() || r.rows[0].empty()) return "";
    return r.rows[0][0].value_or("-");
  }
};

/// The MySQL/MariaDB fixture.
using mysql_test = server_test<mysql_backend>;

}  // namespace flakeid_test
