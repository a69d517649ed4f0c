// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/mysql_cosid_machine.hpp
/// The lease store of `mysql_store::lease(options, mysql_table::cosid)`: worker ids in CosId's
/// `cosid_machine` table, shared with the services whose CosId JDBC machine-id distributor
/// uses the same table and namespace (adapters/mysql.hpp's file comment gives the rules).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "../../errors.hpp"
#include "../../lease_store.hpp"
#include "../../version.hpp"
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

/// The key of machine id `id` in namespace `ns`, as CosId writes it: `<ns>.` and the id in
/// eight digits.
inline std::string cosid_machine_name(const std::string& ns, std::uint64_t id) {
  char digits[24];
  (void)std::snprintf(digits, sizeof digits, "%08llu", static_cast<unsigned long long>(id));
  return ns + "." + digits;
}

class mysql_cosid_machine_store final : public lease_store {
 public:
  mysql_cosid_machine_store(mysql_address a, const lease_options& o)
      : ns_(o.name_space),
        ttl_ms_(o.ttl.count()),
        hold_ms_(o.ttl.count() - (o.margin.count() > 0 ? o.margin : o.ttl / 5).count()),
        lost_ms_((o.ttl + o.safe_guard).count()),
        conn_(std::move(a), o.connect_timeout, lease_io_timeout(o.io_timeout, o.ttl)) {}

  [[nodiscard]] std::string where() const override { return conn_.where(); }

  std::optional<lease_claim> do_claim(const claim_request& q) override {
    ensure_table();
    // CosId's instance_id: the lease's instance, or its token (host:pid:random, CosId's
    // host:port of a process that has none), cut to the column's 100 characters.
    instance_ = q.instance.empty()
                    ? q.holder.substr(q.holder.size() > 100 ? q.holder.size() - 100 : 0)
                    : q.instance;
    if (!q.instance.empty()) {
      if (auto own = claim_own(q)) return own;
    }
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (auto c = claim_free(q)) return c;
      if (found_free_) continue;  // taken meanwhile: read again
      const mysql_answer m = conn_.exec(
          "SELECT COALESCE(MAX(machine_id) + 1, 0) FROM cosid_machine WHERE namespace = " +
          mysql_literal(ns_));
      const auto next = mysql_number(m.rows.at(0).at(0), where()).value_or(0);
      if (next >= static_cast<std::int64_t>(q.count)) return std::nullopt;
      const std::string now = unix_ms_text(q.now);
      const mysql_answer ins = conn_.exec(
          "INSERT IGNORE INTO cosid_machine (name, namespace, machine_id, last_timestamp, "
          "instance_id, distribute_time, revert_time) VALUES (" +
          mysql_literal(cosid_machine_name(ns_, static_cast<std::uint64_t>(next))) + ", " +
          mysql_literal(ns_) + ", " + std::to_string(next) + ", " + now + ", " +
          mysql_literal(instance_) + ", " + now + ", 0)");
      if (ins.affected == 1) return answer(next, std::nullopt);
    }
    return std::nullopt;
  }

  /// CosId's guard: the row of this machine id and instance gets the renewal's send time.
  renewal do_renew(std::uint64_t id, const std::string& /*holder*/, lease_time deadline) override {
    const std::int64_t sent = unix_ms_of(deadline) - hold_ms_;
    const mysql_answer r = conn_.exec("UPDATE cosid_machine SET last_timestamp = " +
                                      std::to_string(std::max<std::int64_t>(sent, 0)) +
                                      " WHERE namespace = " + mysql_literal(ns_) +
                                      " AND instance_id = " + mysql_literal(instance_) +
                                      " AND machine_id = " + std::to_string(id));
    if (r.affected != 1) return renewal::taken;
    const std::int64_t start = mysql_server_clock(conn_).second;
    return start - started_ms_ <= 2000 && started_ms_ - start <= 2000 ? renewal::held
                                                                      : renewal::taken;
  }

  /// CosId's revert of an instance that is not stable: the id is free, its last timestamp the
  /// first millisecond after the last one used.
  void do_release(std::uint64_t id, const std::string& /*holder*/, lease_time last) override {
    const std::string after = std::to_string(std::max<std::int64_t>(unix_ms_of(last) + 1, 0));
    (void)conn_.exec("UPDATE cosid_machine SET instance_id = '', last_timestamp = " + after +
                     ", revert_time = " + after + " WHERE namespace = " + mysql_literal(ns_) +
                     " AND instance_id = " + mysql_literal(instance_) +
                     " AND machine_id = " + std::to_string(id));
  }

  std::optional<lease_time> do_clock() override { return lease_time_of(mysql_clock_ms(conn_)); }

 private:
  /// The row of `q.instance` (the lowest id below the count): taken when its holder's lease has
  /// run out (`last_timestamp + ttl` passed), reported as held while it runs; nothing when the
  /// instance has no row.
  std::optional<lease_claim> claim_own(const claim_request& q) {
    const mysql_answer r =
        conn_.exec("SELECT machine_id, last_timestamp FROM cosid_machine WHERE namespace = " +
                   mysql_literal(ns_) + " AND instance_id = " + mysql_literal(instance_) +
                   " AND machine_id < " + std::to_string(q.count) + " ORDER BY machine_id LIMIT 1");
    if (r.rows.empty()) return std::nullopt;
    const std::int64_t id = mysql_number(r.rows[0].at(0), where()).value_or(0);
    const std::int64_t last = mysql_number(r.rows[0].at(1), where()).value_or(0);
    if (last + ttl_ms_ > unix_ms_of(q.now)) {
      lease_claim c;
      c.id = static_cast<std::uint64_t>(id);
      c.last = lease_time_of(last + ttl_ms_);
      c.held_by_instance = true;
      return c;
    }
    if (!take(q, id, last, instance_)) return std::nullopt;
    lease_claim c = answer(id, last + ttl_ms_);
    c.own_instance = true;
    return c;
  }

  /// A row CosId's distributor would take (released, `instance_id = ''`, or its holder's
  /// `last_timestamp` older than `ttl`), below the count and not recorded further ahead than
  /// `q.skip_above`: those settled first, then the earliest deadline. `found_free_` says
  /// whether there was one (taken by another claimer meanwhile when nothing is returned).
  std::optional<lease_claim> claim_free(const claim_request& q) {
    found_free_ = false;
    const std::string expired = std::to_string(unix_ms_of(q.now) - ttl_ms_);
    const std::string deadline =
        "IF(instance_id = '', last_timestamp, last_timestamp + " + std::to_string(ttl_ms_) + ")";
    const mysql_answer c = conn_.exec(
        "SELECT machine_id, last_timestamp, instance_id FROM cosid_machine WHERE namespace = " +
        mysql_literal(ns_) + " AND machine_id < " + std::to_string(q.count) +
        " AND (instance_id = '' OR last_timestamp <= " + expired + ") AND " + deadline +
        " <= " + unix_ms_text(q.skip_above) + " ORDER BY " + deadline + " > " +
        unix_ms_text(q.settled) + ", IF(" + deadline + " <= " + unix_ms_text(q.settled) + ", 0, " +
        deadline + "), machine_id LIMIT 8");
    for (const auto& row : c.rows) {
      found_free_ = true;
      const std::int64_t id = mysql_number(row.at(0), where()).value_or(0);
      const std::int64_t last = mysql_number(row.at(1), where()).value_or(0);
      const std::string was = row.at(2).value_or("");
      if (!take(q, id, last, was)) continue;
      return answer(id, was.empty() ? last : last + ttl_ms_);
    }
    return std::nullopt;
  }

  /// Takes row `id` for this lease if it is still as read (`last_timestamp` `last`,
  /// `instance_id` `was`): CosId's claim of a released or expired row, with the row's state
  /// checked exactly.
  bool take(const claim_request& q, std::int64_t id, std::int64_t last, const std::string& was) {
    const std::string now = unix_ms_text(q.now);
    const mysql_answer u =
        conn_.exec("UPDATE cosid_machine SET instance_id = " + mysql_literal(instance_) +
                   ", last_timestamp = " + now + ", distribute_time = " + now + " WHERE name = " +
                   mysql_literal(cosid_machine_name(ns_, static_cast<std::uint64_t>(id))) +
                   " AND instance_id = " + mysql_literal(was) +
                   " AND last_timestamp = " + std::to_string(last));
    return u.affected == 1;
  }

  /// The claim of `id` (previous deadline `last`), with the server's loss of memory: a table
  /// or a server younger than `ttl + safe_guard`. Records the server's start for renewals.
  lease_claim answer(std::int64_t id, std::optional<std::int64_t> last) {
    const auto [now, start] = mysql_server_clock(conn_);
    started_ms_ = start;
    lease_claim c;
    c.id = static_cast<std::uint64_t>(id);
    if (last) c.last = lease_time_of(*last);
    const mysql_answer t = conn_.exec(
        "SELECT CAST(UNIX_TIMESTAMP(CREATE_TIME) * 1000 AS SIGNED) FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'cosid_machine'");
    std::optional<std::int64_t> lost;
    if (const auto created = t.rows.empty() ? std::nullopt : mysql_number(t.rows[0].at(0), where()))
      if (now - *created < lost_ms_ + 1000) lost = *created + 1000;  // CREATE_TIME: whole seconds
    if (now - start < lost_ms_) lost = std::max(lost.value_or(INT64_MIN), start);
    if (lost) c.lost_memory_at = lease_time_of(*lost);
    return c;
  }

  void ensure_table() {
    if (ready_) return;
    (void)conn_.exec(cosid_machine_schema);
    ready_ = true;
  }

  std::string ns_;
  std::int64_t ttl_ms_;
  std::int64_t hold_ms_;  // ttl - margin: a deadline lies this long after its renewal's send
  std::int64_t lost_ms_;  // ttl + safe_guard
  std::string instance_;  // the instance_id this lease records
  std::int64_t started_ms_ = INT64_MIN;
  bool ready_ = false;
  bool found_free_ = false;
  mysql_connection conn_;
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
