// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The PostgreSQL backend of the server tests, for the lease, segment and fork scenarios alike: a
// cluster of the test's own (initdb + pg_ctl, commits durable unless a fixture says otherwise)
// and the stores, leases and distributors over it.

#include <flakeid/adapters/postgres.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "postgres_server.hpp"
#include "store_backend.hpp"

namespace flakeid_test {

inline std::string address_of(const postgres_cluster& s) { return s.conninfo(); }

struct postgres_backend : store_backend<flakeid::postgres_store, postgres_cluster> {
  using store_backend::store;
  /// Commits wait for their WAL already; waits (bounded) until the server has run 4 s, longer
  /// than the quick options' ttl + safe_guard, so that its start alone makes no claim wait.
  void settle() const {
    for (int i = 0; i < 600 && value_of("SELECT now() - pg_postmaster_start_time() >= interval "
                                        "'4 seconds'") != "t";
         ++i)
      std::this_thread::sleep_for(100ms);
  }
  [[nodiscard]] static std::string table(const std::string& ns) {
    return "\"flakeid_lease_" + ns + "\"";
  }

  // For cosid_lease_scenarios.hpp.
  using cosid_sql = flakeid::detail::postgres_cosid_sql;
  static constexpr auto cosid = flakeid::postgres_table::cosid;
  [[nodiscard]] cosid_sql cosid_sql_of() const {
    return {server.conninfo(), quick_options("peer")};
  }

  // For the SQL scenarios of instance_scenarios.hpp and memory_loss_scenarios.hpp.
  std::unique_ptr<flakeid::lease_store> store(const flakeid::lease_options& o) const {
    return std::make_unique<flakeid::detail::postgres_lease_store>(server.conninfo(), o);
  }
  void make_older_table(const std::string& ns, std::chrono::milliseconds age) const {
    const std::string table = "\"flakeid_lease_" + ns + "\"";
    ASSERT_EQ(value_of("CREATE TABLE " + table +
                       " (id bigint PRIMARY KEY, holder text, last_unix_ms bigint, "
                       "expires_at timestamptz NOT NULL DEFAULT '-infinity'); INSERT INTO " +
                       table + " (id, expires_at) VALUES (-1, now() - " +
                       std::to_string(age.count()) + " * interval '1 millisecond'); SELECT 'made'"),
              "made");
  }
  [[nodiscard]] std::string has_instance_column(const std::string& ns) const {
    return value_of(
        "SELECT count(*) FROM pg_attribute WHERE attrelid = "
        "to_regclass('\"flakeid_lease_" +
        ns + "\"') AND attname = 'instance' AND NOT attisdropped");
  }
  [[nodiscard]] std::string instances_of(const std::string& ns) const {
    return value_of(
        "SELECT string_agg(id || '=' || coalesce(instance, '-'), ',' ORDER BY id) FROM "
        "\"flakeid_lease_" +
        ns + "\"");
  }
  /// The first column of the first row `sql` answers ("" for none, "-" for NULL), on a
  /// connection of its own (the cluster's `query` keeps the output of earlier queries).
  [[nodiscard]] std::string value_of(const std::string& sql) const {
    flakeid::detail::postgres_connection raw{server.conninfo(), 30s, 30s};
    const flakeid::detail::pg_result r = raw.exec(sql, {});
    if (PQntuples(r.get()) == 0 || PQnfields(r.get()) == 0) return "";
    return PQgetisnull(r.get(), 0, 0) != 0 ? "-" : PQgetvalue(r.get(), 0, 0);
  }
};

/// The PostgreSQL fixture; `postgres_ssl_test`: the same with a password and SSL
/// (sslmode=verify-full, CA made at test time).
using postgres_test = server_test<postgres_backend>;
class postgres_ssl_test : public postgres_test {
 protected:
  postgres_ssl_test()
      : postgres_test(postgres_config{.durable = true, .password = "S3cr3tPw", .ssl = true}, 10s) {}
};

}  // namespace flakeid_test
