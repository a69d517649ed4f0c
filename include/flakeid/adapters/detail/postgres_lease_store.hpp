// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/postgres_lease_store.hpp
/// The lease store of `postgres_store` (adapters/postgres.hpp, whose file comment gives the
/// table and the statements).

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../detail/server_store.hpp"
#include "../../errors.hpp"
#include "../../lease.hpp"
#include "../../version.hpp"
#include "postgres_connection.hpp"
#include "server_backend.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {

class postgres_lease_store final : public lease_store {
 public:
  postgres_lease_store(std::string conninfo, const lease_options& o)
      : table_("\"flakeid_lease_" + o.name_space + "\""),
        state_(o),
        conn_(std::move(conninfo), o.connect_timeout, lease_io_timeout(o.io_timeout, o.ttl)) {}

  [[nodiscard]] std::string where() const override { return conn_.where(); }

  std::optional<lease_claim> do_claim(const claim_request& q) override {
    try {
      return claim_in_table(q);
    } catch (...) {
      state_.ready = false;  // look at the table again next time (it may have been dropped)
      throw;
    }
  }

  /// A table gone throws `missing_table_error`, which `lease_store::renew` answers `taken`.
  renewal do_renew(std::uint64_t id, const std::string& holder, lease_time deadline) override {
    const std::string i = std::to_string(id);
    const std::string d = unix_ms_text(deadline);
    const result r = exec("UPDATE " + table_ +
                              " SET expires_at = now() + $3::bigint * interval '1 millisecond', "
                              "last_unix_ms = GREATEST(last_unix_ms, $4::bigint) WHERE id = "
                              "$1::bigint AND holder = $2 RETURNING " +
                              std::string(started_ms),
                          {i.c_str(), holder.c_str(), state_.ttl_ms.c_str(), d.c_str()});
    // The row must still be there with this holder's token, on the server that confirmed it:
    // a server started since may have lost what it confirmed.
    if (PQntuples(r.get()) != 1 || number(r, 0) != state_.started_ms) return renewal::taken;
    return renewal::held;
  }

  void do_release(std::uint64_t id, const std::string& holder, lease_time last) override {
    const std::string i = std::to_string(id);
    const std::string l = unix_ms_text(last);
    (void)exec("UPDATE " + table_ +
                   " SET holder = NULL, expires_at = now(), last_unix_ms = $3::bigint "
                   "WHERE id = $1::bigint AND holder = $2",
               {i.c_str(), holder.c_str(), l.c_str()});
  }

  /// The server's clock (`clock_timestamp()`).
  std::optional<lease_time> do_clock() override {
    const result r = exec("SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint", {});
    return lease_time_of(number(r, 0));
  }

 private:
  using result = pg_result;

  /// The server's start in Unix ms, as SQL.
  static constexpr const char* started_ms =
      "(extract(epoch FROM pg_postmaster_start_time()) * 1000)::bigint";

  std::optional<lease_claim> claim_in_table(const claim_request& q) {
    ensure_table(!q.instance.empty());
    postgres_require_one_table(conn_, table_, "takes the ids that holders in this one hold");
    if (q.instance.empty()) return claim_free(q);
    // Claims of one instance take turns (a lock of the transaction, keyed by the table and the
    // instance), so that two of them cannot both miss its row and record it on two ids; claims
    // without an instance take no such lock.
    (void)exec("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(" +
                   std::to_string(instance_lock_key(q.instance)) + ")",
               {});
    try {
      std::optional<lease_claim> c = claim_own(q);
      if (!c) c = claim_free(q);
      (void)exec("COMMIT", {});
      return c;
    } catch (...) {
      conn_.reset();  // the server rolls the transaction back
      throw;
    }
  }

  /// Runs one statement (see `postgres_connection::exec`).
  result exec(const std::string& sql, const std::vector<const char*>& params) {
    return conn_.exec(sql, params);
  }

  /// Column `col` of the first row as an integer (INT64_MIN when NULL).
  std::int64_t number(const result& r, int col) const {
    if (PQgetisnull(r.get(), 0, col) != 0) return INT64_MIN;
    const char* v = PQgetvalue(r.get(), 0, col);
    const std::string_view text(v);
    const auto x = parse_decimal<std::int64_t>(text);
    if (!x)
      throw lease_store_error("flakeid: " + where() + ": '" + std::string(text) +
                              "' is not a 64-bit integer");
    return *x;
  }

  /// The table's creation, now and the server's start (Unix ms) as three more columns.
  [[nodiscard]] std::string born_and_now() const {
    return "(SELECT (extract(epoch FROM expires_at) * 1000)::bigint FROM " + table_ +
           " WHERE id = -1), (extract(epoch FROM now()) * 1000)::bigint, " + started_ms;
  }

  /// Sets `c.lost_memory_at` from columns `col`... of `r` (see `born_and_now`): the table's
  /// creation when it is younger than `ttl + safe_guard`; now when its own row is gone (rows
  /// were deleted; the row is made again); the server's start when it started less than
  /// `ttl + safe_guard` ago (it may have lost its last commits), the latest of them. Records
  /// the server's start for renewals.
  void note_age(lease_claim& c, const result& r, int col) {
    const std::int64_t created = number(r, col);
    const std::int64_t now = number(r, col + 1);
    state_.started_ms = number(r, col + 2);
    const bool gone = created == INT64_MIN;
    if (gone) (void)exec(own_row(), {});
    const auto lost =
        state_.lost_since(now, gone ? std::nullopt : std::optional<std::int64_t>(created), gone);
    if (lost) lost_at(c, *lost);
  }

  /// Sets `c.lost_memory_at` to `ms` unless it is later already.
  static void lost_at(lease_claim& c, std::int64_t ms) {
    if (!c.lost_memory_at || *c.lost_memory_at < lease_time_of(ms))
      c.lost_memory_at = lease_time_of(ms);
  }

  /// Adds the table's own row (id -1) when missing: `expires_at` its creation, `last_unix_ms`
  /// the count of ids ever created (so the ids there are now).
  [[nodiscard]] std::string own_row() const {
    return "INSERT INTO " + table_ +
           " (id, last_unix_ms, expires_at) SELECT -1, COALESCE(MAX(id), -1) + 1, now() FROM " +
           table_ + " WHERE id >= 0 ON CONFLICT (id) DO NOTHING";
  }

  /// The id recorded for `q.instance` (within the caller's transaction, under its lock): taken
  /// when free, whatever its deadline; reported as held when its holder's record runs; nothing
  /// when no id below the count records the instance.
  std::optional<lease_claim> claim_own(const claim_request& q) {
    const std::string n = std::to_string(q.count);
    const result r =
        exec("SELECT id, last_unix_ms, holder IS NOT NULL AND expires_at > now() FROM " + table_ +
                 " WHERE id >= 0 AND id < $1::bigint AND instance = $2 ORDER BY id LIMIT 1 "
                 "FOR UPDATE",
             {n.c_str(), q.instance.c_str()});
    if (PQntuples(r.get()) == 0) return std::nullopt;
    lease_claim c;
    c.id = static_cast<std::uint64_t>(number(r, 0));
    c.last = lease_time_or_none(number(r, 1));
    if (std::string_view(PQgetvalue(r.get(), 0, 2)) == "t") {
      c.held_by_instance = true;
      return c;
    }
    const std::string i = std::to_string(c.id);
    const std::string d = unix_ms_text(q.deadline);
    const result t = exec("UPDATE " + table_ +
                              " t SET holder = $1, expires_at = now() + $2::bigint * interval "
                              "'1 millisecond', last_unix_ms = GREATEST(t.last_unix_ms, "
                              "$3::bigint) WHERE id = $4::bigint RETURNING " +
                              born_and_now(),
                          {q.holder.c_str(), state_.ttl_ms.c_str(), d.c_str(), i.c_str()});
    if (PQntuples(t.get()) != 1)
      throw lease_store_error("flakeid: " + where() + ": id " + i + " of " + table_ +
                              " vanished while locked");
    note_age(c, t, 0);
    c.own_instance = true;
    return c;
  }

  /// Adds the next id (one above the largest), held by `q.holder` until `ttl` from now with
  /// deadline `d`, when it lies below `n`, and raises the count of ids ever created (the
  /// table's own row) past it; an id below the count was created before: its row was deleted.
  /// No row when every id below `n` exists or another session added the same id first.
  result insert_next(const claim_request& q, const std::string& n, const std::string& d,
                     const char* instance) {
    std::vector<const char*> params{q.holder.c_str(), state_.ttl_ms.c_str(), n.c_str(), d.c_str()};
    if (state_.instance_column) params.push_back(instance);
    return exec("WITH m AS (SELECT last_unix_ms AS made FROM " + table_ +
                    " WHERE id = -1 FOR UPDATE), ins AS (INSERT INTO " + table_ +
                    " (id, holder, last_unix_ms, expires_at" +
                    (state_.instance_column ? ", instance" : "") +
                    ") SELECT COALESCE(MAX(id), -1) + 1, "
                    "$1, $4::bigint, now() + $2::bigint * interval '1 millisecond'" +
                    (state_.instance_column ? ", $5" : "") + " FROM " + table_ +
                    " WHERE id >= 0 HAVING COALESCE(MAX(id), -1) + 1 < $3::bigint "
                    "ON CONFLICT (id) DO NOTHING RETURNING id), up AS (UPDATE " +
                    table_ +
                    " t SET last_unix_ms = GREATEST(t.last_unix_ms, ins.id + 1) FROM ins " +
                    "WHERE t.id = -1) SELECT ins.id, NULL::bigint, " + born_and_now() +
                    ", (SELECT made FROM m) FROM ins",
                params);
  }

  /// A free id as usual, recording `q.instance` on it (NULL without one) when the table has
  /// the column.
  std::optional<lease_claim> claim_free(const claim_request& q) {
    const std::string n = std::to_string(q.count);
    const std::string d = unix_ms_text(q.deadline);
    const std::string settled = unix_ms_text(q.settled);
    const std::string skip = unix_ms_text(q.skip_above);
    const char* instance = q.instance.empty() ? nullptr : q.instance.c_str();  // NULL: none
    const std::string kept = unix_ms_text(q.kept_after);
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::vector<const char*> params{
          q.holder.c_str(), state_.ttl_ms.c_str(), n.c_str(), state_.guard_ms.c_str(),
          settled.c_str(),  skip.c_str(),          d.c_str()};
      // Ids kept for another instance are passed by (`claim_request::kept_after`).
      const bool keeps = state_.instance_column && q.kept_after != lease_time::max();
      if (state_.instance_column) params.push_back(instance);
      if (keeps) params.push_back(kept.c_str());
      result r = exec(
          "WITH c AS (SELECT id, last_unix_ms FROM " + table_ +
              " WHERE id >= 0 AND id < $3::bigint AND "
              "expires_at + $4::bigint * interval '1 millisecond' <= now() AND "
              "(last_unix_ms IS NULL OR last_unix_ms <= $6::bigint) " +
              (keeps ? "AND (instance IS NULL OR instance = $8 OR last_unix_ms IS NULL OR "
                       "last_unix_ms <= $9::bigint) "
                     : "") +
              "ORDER BY (last_unix_ms IS NOT NULL AND last_unix_ms > $5::bigint), "
              "CASE WHEN last_unix_ms IS NULL OR last_unix_ms <= $5::bigint THEN 0 "
              "ELSE last_unix_ms END, id LIMIT 1 FOR UPDATE SKIP LOCKED) "
              "UPDATE " +
              table_ +
              " t SET holder = $1, expires_at = now() + $2::bigint * interval '1 millisecond', "
              "last_unix_ms = GREATEST(t.last_unix_ms, $7::bigint)" +
              (state_.instance_column ? ", instance = $8" : "") +
              " FROM c WHERE t.id = c.id RETURNING t.id, c.last_unix_ms, " + born_and_now(),
          params);
      if (PQntuples(r.get()) == 0) r = insert_next(q, n, d, instance);
      if (PQntuples(r.get()) == 1) {
        lease_claim c;
        c.id = static_cast<std::uint64_t>(number(r, 0));
        c.last = lease_time_or_none(number(r, 1));
        note_age(c, r, 2);
        if (PQnfields(r.get()) == 6) {
          const std::int64_t made = number(r, 5);
          if (made == INT64_MIN || made > static_cast<std::int64_t>(c.id)) lost_at(c, number(r, 3));
        }
        return c;
      }
      // Nothing free: either every id below the count exists, or another session added the
      // same new id first (then try again).
      result full =
          exec("SELECT COALESCE(MAX(id), -1) + 1 >= $1::bigint FROM " + table_ + " WHERE id >= 0",
               {n.c_str()});
      if (std::string_view(PQgetvalue(full.get(), 0, 0)) == "t") return std::nullopt;
    }
    return std::nullopt;
  }

  /// The key of the advisory lock that claims of `instance` in this table take: 64 bits of
  /// FNV-1a over both names (two instances that share a key only take turns).
  [[nodiscard]] std::int64_t instance_lock_key(const std::string& instance) const {
    std::uint64_t h = 14695981039346656037ULL;
    for (const char ch : table_ + '/' + instance) {
      h ^= static_cast<unsigned char>(ch);
      h *= 1099511628211ULL;
    }
    return static_cast<std::int64_t>(h);
  }

  /// Creates the table (with `instance`) on first use. A table made before instances lacks the
  /// column: a claim with an instance adds it (`ALTER TABLE` needs the table's owner, so it is
  /// run only then and only when missing); a claim without one looks again each time, since
  /// another lease may add it meanwhile, and records nothing until then.
  void ensure_table(bool need_instance) {
    const std::string has_column =
        "SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('" + table_ +
        "') AND attname = 'instance' AND NOT attisdropped";
    if (!state_.ready) {
      const result r = exec(
          "BEGIN; SELECT pg_advisory_xact_lock(7079434571962427438); "
          "CREATE TABLE IF NOT EXISTS " +
              table_ +
              " (id bigint PRIMARY KEY, holder text, "
              "last_unix_ms bigint, expires_at timestamptz NOT NULL DEFAULT '-infinity', "
              "instance text); " +
              own_row() + "; UPDATE " + table_ +
              " SET last_unix_ms = (SELECT COALESCE(MAX(id), -1) + 1 FROM " + table_ +
              " WHERE id >= 0) WHERE id = -1 AND last_unix_ms IS NULL; COMMIT; " + has_column,
          {});
      state_.instance_column = number(r, 0) > 0;
      state_.ready = true;
    } else if (!state_.instance_column) {
      state_.instance_column = number(exec(has_column, {}), 0) > 0;
    }
    if (state_.instance_column || !need_instance) return;
    (void)exec("ALTER TABLE " + table_ + " ADD COLUMN IF NOT EXISTS instance text", {});
    state_.instance_column = true;
  }

  std::string table_;
  sql_lease_state state_;
  postgres_connection conn_;
};

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
