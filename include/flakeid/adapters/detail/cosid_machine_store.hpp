// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/cosid_machine_store.hpp
/// Internal: the lease store over CosId's `cosid_machine` table, written once for the SQL
/// stores (`mysql_store::lease(o, mysql_table::cosid)`, `postgres_store::lease(o,
/// postgres_table::cosid)`; the rules: adapters/mysql.hpp's file comment). A dialect `Sql`
/// gives the connection and what the two servers say differently:
///
/// - `Sql(Address, const lease_options&)`; `where()`;
/// - `exec(sql)` -> `cosid_answer` (the rows of the last statement, the rows the last other
///   statement matched), throwing `store_connection_error`;
/// - `literal(text)`: a string literal no setting can misread;
/// - `make_table()`: CosId's table when missing;
/// - `insert_or_skip(columns, values)`: an INSERT that does nothing on a duplicate key;
/// - `clock_ms()`, `started_ms()`: the server's clock and its start, in Unix ms.

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../../detail/server_store.hpp"
#include "../../errors.hpp"
#include "../../lease_store.hpp"
#include "../../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// What a statement of a `cosid_machine_store` dialect answered.
struct cosid_answer {
  std::vector<std::vector<std::optional<std::string>>> rows;
  std::uint64_t affected = 0;
};

/// The key of machine id `id` in namespace `ns`, as CosId writes it: `<ns>.` and the id in
/// eight digits.
inline std::string cosid_machine_name(const std::string& ns, std::uint64_t id) {
  char digits[24];
  (void)std::snprintf(digits, sizeof digits, "%08llu", static_cast<unsigned long long>(id));
  return ns + "." + digits;
}

template <class Sql>
class cosid_machine_store final : public lease_store {
 public:
  template <class Address>
  cosid_machine_store(Address a, const lease_options& o)
      : ns_(o.name_space), t_(o), sql_(std::move(a), o) {
    if (o.instance.size() > 100)
      throw invalid_option_error("flakeid: lease instance '" + o.instance + "' has " +
                                 std::to_string(o.instance.size()) +
                                 " characters: CosId's instance_id holds 1 to 100");
  }

  [[nodiscard]] std::string where() const override { return sql_.where(); }

  std::optional<lease_claim> do_claim(const claim_request& q) override {
    if (!ready_) {
      sql_.make_table();
      ready_ = true;
    }
    // CosId's instance_id: the lease's instance, or its token (host:pid:random, as CosId's is
    // host:port or host:pid), cut to the column's 100 characters.
    instance_ = q.instance.empty()
                    ? q.holder.substr(q.holder.size() > 100 ? q.holder.size() - 100 : 0)
                    : q.instance;
    if (!q.instance.empty()) {
      if (auto own = claim_own(q)) return own;
    }
    for (int attempt = 0; attempt < 100; ++attempt) {
      bool found = false;
      if (auto c = claim_free(q, found)) return c;
      if (found) continue;  // taken meanwhile: read again
      const cosid_answer m = sql_.exec(
          "SELECT COALESCE(MAX(machine_id) + 1, 0) FROM cosid_machine WHERE namespace = " +
          lit(ns_));
      const std::int64_t next = number(m.rows.at(0).at(0));
      if (next >= static_cast<std::int64_t>(q.count)) return std::nullopt;
      const std::int64_t made_before = own_row().first;
      const std::string now = unix_ms_text(q.now);
      const cosid_answer ins =
          sql_.exec(insert(lit(cosid_machine_name(ns_, static_cast<std::uint64_t>(next))), lit(ns_),
                           std::to_string(next), now, lit(instance_)));
      if (ins.affected != 1) continue;
      (void)sql_.exec("UPDATE cosid_machine SET machine_id = " + std::to_string(next + 1) +
                      " WHERE name = " + lit(own_name()) + " AND machine_id < " +
                      std::to_string(next + 1));
      return answer(next, std::nullopt, next < made_before);
    }
    return std::nullopt;
  }

  /// CosId's guard: the row of this machine id and instance gets the renewal's send time; held
  /// only on the server that confirmed the claim (its start within 2 s).
  renewal do_renew(std::uint64_t id, const std::string& /*holder*/, lease_time deadline) override {
    const std::int64_t sent = std::max<std::int64_t>(unix_ms_of(deadline) - t_.hold_ms, 0);
    const cosid_answer r = sql_.exec(
        "UPDATE cosid_machine SET last_timestamp = " + after_revert(sent) + " WHERE " + mine(id));
    if (r.affected != 1) return renewal::taken;
    const std::int64_t start = sql_.started_ms();
    return start - started_ms_ <= 2000 && started_ms_ - start <= 2000 ? renewal::held
                                                                      : renewal::taken;
  }

  /// CosId's revert: the row's last timestamp and revert time the first millisecond after the
  /// last one used; the id free (`instance_id` ''), or, stable, still the instance's.
  void do_release(std::uint64_t id, const std::string& /*holder*/, lease_time last) override {
    const std::string after = std::to_string(std::max<std::int64_t>(unix_ms_of(last) + 1, 0));
    (void)sql_.exec(
        "UPDATE cosid_machine SET " + std::string(t_.stable ? "" : "instance_id = '', ") +
        "last_timestamp = " + after + ", revert_time = " + after + " WHERE " + mine(id));
  }

  std::optional<lease_time> do_clock() override { return lease_time_of(sql_.clock_ms()); }

 private:
  [[nodiscard]] std::string lit(const std::string& s) const { return Sql::literal(s); }
  [[nodiscard]] std::int64_t number(const std::optional<std::string>& v) const {
    if (!v) return 0;
    const auto x = parse_decimal<std::int64_t>(*v);
    if (!x) throw store_connection_error(where() + ": '" + *v + "' is not a 64-bit integer");
    return *x;
  }
  /// The row of machine id `id` while this lease's instance holds it.
  [[nodiscard]] std::string mine(std::uint64_t id) const {
    return "namespace = " + lit(ns_) + " AND instance_id = " + lit(instance_) +
           " AND machine_id = " + std::to_string(id);
  }

  /// `stamp`, or the millisecond after the row's `revert_time` when that lies later: a held
  /// row's `last_timestamp` stays above its revert time, so that a row whose revert time is at
  /// or above it was reverted stably, not guarded since.
  static std::string after_revert(std::int64_t stamp) {
    return "GREATEST(" + std::to_string(stamp) + ", revert_time + 1)";
  }

  /// The row of `q.instance` (the lowest id below the count): taken at once when it was reverted
  /// stably (`revert_time` at or above `last_timestamp`) or when its holder's lease has run out
  /// (`last_timestamp + ttl` passed), reported as held while it runs; nothing when the instance
  /// has no row.
  std::optional<lease_claim> claim_own(const claim_request& q) {
    const cosid_answer r = sql_.exec(
        "SELECT machine_id, last_timestamp, revert_time FROM cosid_machine WHERE namespace = " +
        lit(ns_) + " AND instance_id = " + lit(instance_) + " AND machine_id < " +
        std::to_string(q.count) + " ORDER BY machine_id LIMIT 1");
    if (r.rows.empty()) return std::nullopt;
    const std::int64_t id = number(r.rows[0].at(0));
    const std::int64_t last = number(r.rows[0].at(1));
    const std::int64_t reverted = number(r.rows[0].at(2));
    if (reverted > 0 && reverted >= last) {  // a stable revert: the instance's, free
      if (!take(q, id, last, instance_)) return std::nullopt;
      lease_claim c = answer(id, last);
      c.own_instance = true;
      return c;
    }
    if (last + t_.ttl_ms > unix_ms_of(q.now)) {
      lease_claim c;
      c.id = static_cast<std::uint64_t>(id);
      c.last = lease_time_of(last + t_.ttl_ms);
      c.held_by_instance = true;
      return c;
    }
    if (!take(q, id, last, instance_)) return std::nullopt;
    lease_claim c = answer(id, last + t_.ttl_ms);
    c.own_instance = true;
    return c;
  }

  /// A row CosId's distributor would take (released, `instance_id = ''`, or its holder's
  /// `last_timestamp` older than `ttl`), below the count and not recorded further ahead than
  /// `q.skip_above`: those settled first, then the earliest deadline. `found` says whether
  /// there was one (taken by another claimer meanwhile when nothing is returned).
  std::optional<lease_claim> claim_free(const claim_request& q, bool& found) {
    const std::string expired = std::to_string(unix_ms_of(q.now) - t_.ttl_ms);
    const std::string deadline = "(CASE WHEN instance_id = '' THEN last_timestamp ELSE " +
                                 std::string("last_timestamp + ") + std::to_string(t_.ttl_ms) +
                                 " END)";
    const std::string settled = unix_ms_text(q.settled);
    const cosid_answer c = sql_.exec(
        "SELECT machine_id, last_timestamp, instance_id FROM cosid_machine WHERE namespace = " +
        lit(ns_) + " AND machine_id < " + std::to_string(q.count) +
        " AND (instance_id = '' OR last_timestamp <= " + expired + ") AND " + deadline +
        " <= " + unix_ms_text(q.skip_above) + " ORDER BY (CASE WHEN " + deadline +
        " <= " + settled + " THEN 0 ELSE " + deadline + " END), machine_id LIMIT 8");
    for (const auto& row : c.rows) {
      found = true;
      const std::int64_t id = number(row.at(0));
      const std::int64_t last = number(row.at(1));
      const std::string was = row.at(2).value_or("");
      if (!take(q, id, last, was)) continue;
      return answer(id, was.empty() ? last : last + t_.ttl_ms);
    }
    return std::nullopt;
  }

  /// Takes row `id` for this lease if it is still as read (`last_timestamp` `last`,
  /// `instance_id` `was`): CosId's claim of a released or expired row, its state checked
  /// exactly.
  bool take(const claim_request& q, std::int64_t id, std::int64_t last, const std::string& was) {
    const std::string now = unix_ms_text(q.now);
    const cosid_answer u = sql_.exec(
        "UPDATE cosid_machine SET instance_id = " + lit(instance_) +
        ", last_timestamp = " + after_revert(unix_ms_of(q.now)) + ", distribute_time = " + now +
        " WHERE name = " + lit(cosid_machine_name(ns_, static_cast<std::uint64_t>(id))) +
        " AND instance_id = " + lit(was) + " AND last_timestamp = " + std::to_string(last));
    return u.affected == 1;
  }

  /// A row of CosId's shape (`revert_time` 0).
  static std::string insert(const std::string& name, const std::string& ns, const std::string& id,
                            const std::string& stamp, const std::string& instance) {
    return Sql::insert_or_skip(
        "name, namespace, machine_id, last_timestamp, instance_id, distribute_time, revert_time",
        name + ", " + ns + ", " + id + ", " + stamp + ", " + instance + ", " + stamp + ", 0");
  }

  /// The namespace's own row: name `flakeid:count:<ns>`, namespace '' (which no CosId query
  /// reads), `machine_id` the count of ids ever made in the namespace as flakeid saw them,
  /// `last_timestamp` when the row was made (the server's clock).
  [[nodiscard]] std::string own_name() const { return "flakeid:count:" + ns_; }

  /// The own row's count and making, made now (counting the namespace's rows) when missing:
  /// a table or namespace flakeid has not seen, or made again, or rows deleted with it.
  std::pair<std::int64_t, std::int64_t> own_row() {
    for (int attempt = 0; attempt < 3; ++attempt) {
      const cosid_answer r = sql_.exec(
          "SELECT machine_id, last_timestamp FROM cosid_machine WHERE name = " + lit(own_name()));
      if (!r.rows.empty()) return {number(r.rows[0].at(0)), number(r.rows[0].at(1))};
      const cosid_answer m = sql_.exec(
          "SELECT COALESCE(MAX(machine_id) + 1, 0) FROM cosid_machine WHERE namespace = " +
          lit(ns_));
      (void)sql_.exec(insert(lit(own_name()), "''", std::to_string(number(m.rows.at(0).at(0))),
                             std::to_string(sql_.clock_ms()), "'flakeid'"));
    }
    throw store_connection_error(where() + ": cannot make the row " + own_name());
  }

  /// The claim of `id` (previous deadline `last`), with the server's loss of memory: the
  /// namespace's own row or the server younger than `ttl + safe_guard`, or an id made again
  /// (`again`: its row was deleted). Records the server's start for renewals.
  lease_claim answer(std::int64_t id, std::optional<std::int64_t> last, bool again = false) {
    const std::int64_t made = own_row().second;
    const std::int64_t start = sql_.started_ms();
    const std::int64_t now = sql_.clock_ms();
    started_ms_ = start;
    lease_claim c;
    c.id = static_cast<std::uint64_t>(id);
    if (last) c.last = lease_time_of(*last);
    std::optional<std::int64_t> lost;
    if (again) lost = now;
    if (now - made < t_.lost_ms) lost = std::max(lost.value_or(INT64_MIN), made);
    if (now - start < t_.lost_ms) lost = std::max(lost.value_or(INT64_MIN), start);
    if (lost) c.lost_memory_at = lease_time_of(*lost);
    return c;
  }

  std::string ns_;
  cosid_lease_times t_;
  std::string instance_;  // the instance_id this lease records
  std::int64_t started_ms_ = INT64_MIN;
  bool ready_ = false;
  Sql sql_;
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
