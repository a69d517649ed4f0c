// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/server_backend.hpp
/// Internal: the shell every server backend shares, so that a backend writes its connection
/// and its statements and nothing else.
///
/// - `server_distributor<D, Address, Conn, Memo>`: a segment distributor's key, `store_name()`,
///   `with_key`, `expire_after`, its checks (the key, the namespace, the timeouts), copy
///   semantics (a copy opens a connection of its own) and `call`, which runs one public call
///   under the fork check and the lock and maps a failed connection to
///   `segment_store_error` once.
/// - `server_store<Address, D, LeaseStore>`: a store's address and options, checked once (by
///   making a distributor, so that an address its connection refuses fails here), and the
///   `lease()`, `distributor()` and `current()` factories; cheap to copy.
///
/// - `sql_lease_state`: what the SQL lease stores (PostgreSQL, MySQL/MariaDB) keep of their
///   options and of their server, and the rule by which a claim learns since when the server
///   may have lost what it confirmed.
///
/// `Conn` is the backend's connection, made from `(Address, connect_timeout, io_timeout)` (or
/// `(Address, connect_timeout)` when it bounds its requests otherwise), with `where()` and
/// `check_fork()`; `Memo` what a distributor remembers between calls (a default-made
/// aggregate). `LeaseStore` is the backend's `lease_store`, made from `(Address,
/// lease_options)`.

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "../../detail/server_store.hpp"
#include "../../lease.hpp"
#include "../../lease_store.hpp"
#include "../../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// What a SQL distributor has made sure of on its server, once per distributor, and the birth
/// of the counter's row it counted on.
struct table_memo {
  bool table_ready = false;   // the table exists
  bool expiry_ready = false;  // the table has its expiry column, and its expired rows were deleted
  bool born_ready = false;    // the table has its `born` column
  std::string born{};         // the row's birth at this distributor's last range; empty: none
  std::chrono::steady_clock::time_point last_range{};  // when that range was taken
  std::uint64_t reached = 0;  // the end of that range (or of `resume_above`); 0: none
};

/// A new birth token for a counter's row: 64 random bits in hex. Two rows made apart never
/// share one.
inline std::string new_birth_token() {
  static constexpr char hex[] = "0123456789abcdef";
  std::uint64_t bits = holder_token_bits();
  std::string t(16, '0');
  for (char& c : t) {
    c = hex[bits & 0xf];
    bits >>= 4;
  }
  return t;
}

/// Why a distributor refuses a counter made again since its last range: born `seen` then,
/// `now` (empty: no counter) at this call; `how` says how the store lost it.
inline std::string made_again_text(const std::string& seen, const std::string& now,
                                   const std::string& how) {
  return "the counter was made again since this distributor's last range (born " + seen + ", now " +
         (now.empty() ? std::string("none") : now) + "): " + how +
         ", and a process started since counted anew from 0: it may have lost ranges it handed "
         "out; find the highest number in use and call resume_above(it)";
}

/// A distributor's connection, the lock its calls take turns on, and what it remembers.
template <class Conn, class Memo>
struct server_state {
  template <class Address>
  server_state(const Address& a, const store_options& o) : conn(open(a, o)) {}
  std::mutex mutex;  // one request at a time on the connection
  Conn conn;
  Memo memo{};

 private:
  template <class Address>
  static Conn open(const Address& a, const store_options& o) {
    if constexpr (std::is_constructible_v<Conn, const Address&, std::chrono::milliseconds,
                                          std::chrono::milliseconds>)
      return Conn(a, o.connect_timeout, io_timeout_or(o.io_timeout, segment_io_timeout));
    else
      return Conn(a, o.connect_timeout);
  }
};

/// The part of a server backend's segment distributor that is the same for every backend (see
/// the file comment). `D` is the distributor, made from `(Address, std::string key,
/// store_options)`.
template <class D, class Address, class Conn, class Memo>
class server_distributor {
 public:
  /// `<server> namespace <ns>` (the connection's `where()`: no password).
  [[nodiscard]] std::string_view store_name() const noexcept { return name_; }
  /// The counter's key (without the namespace).
  [[nodiscard]] std::string_view key() const noexcept { return key_; }
  /// A distributor for counter `key` of the same server and namespace, on a connection of its
  /// own.
  [[nodiscard]] D with_key(const std::string& key) const { return D(address_, key, options_); }

  /// From now on every `next_max_id` also lets the counter expire once it has been idle for
  /// `idle` (each backend's file comment says how). Not to be called while another thread uses
  /// this distributor. Throws `invalid_option_error` below 1 ms.
  void expire_after(std::chrono::milliseconds idle) {
    check_timeout("segment counter", "expire_after", idle, std::chrono::milliseconds{1});
    idle_ms_ = idle.count();
  }

 protected:
  /// Counter `key` at `address`. Does not connect. Throws `invalid_option_error` for an empty
  /// key, a bad namespace or timeout (or what `Conn` refuses of the address).
  server_distributor(Address address, std::string key, store_options options)
      : address_(std::move(address)), options_(std::move(options)), key_(std::move(key)) {
    check_segment_key(key_);
    check_store_options(options_, "segment store");
    s_ = std::make_unique<server_state<Conn, Memo>>(address_, options_);
    name_ = s_->conn.where() + " namespace " + options_.name_space;
  }
  /// A copy opens a connection of its own (on its first call) to the same counter, and
  /// remembers what the original did (the birth of the counter it counted on: a counter made
  /// again since is refused by the copy too).
  server_distributor(const server_distributor& o)
      : address_(o.address_),
        options_(o.options_),
        key_(o.key_),
        name_(o.name_),
        idle_ms_(o.idle_ms_),
        s_(std::make_unique<server_state<Conn, Memo>>(address_, options_)) {
    if (!o.s_) return;  // moved from
    std::lock_guard lk(o.s_->mutex);
    s_->memo = o.s_->memo;
  }
  server_distributor(server_distributor&&) noexcept = default;
  server_distributor& operator=(const server_distributor& o) {
    if (this != &o) *this = server_distributor(o);
    return *this;
  }
  server_distributor& operator=(server_distributor&&) noexcept = default;
  ~server_distributor() = default;

  /// Runs `f()` as the public call `what` ("next_max_id(100)"): refuses in a forked child
  /// (before the lock, which a thread of the parent may have held), takes the lock, and turns
  /// a failed connection into one `segment_store_error` naming the store, the key and `what`.
  template <class F>
  decltype(auto) call(const std::string& what, F&& f) {
    s_->conn.check_fork();
    std::lock_guard lk(s_->mutex);
    return segment_call(name_, key_, what, std::forward<F>(f));
  }

  /// For a SQL distributor (`table_memo`): whether the counter's row is the one this
  /// distributor last counted on, where the row's birth is `now` (empty: no row). Any row will
  /// do before its first range, and after `resume_above`; and a row may have been deleted for
  /// being idle (`expire_after`) once this distributor's last range is that old. Otherwise
  /// throws `segment_store_error` (nothing was counted).
  void check_birth(const std::string& now) const {
    const table_memo& m = s_->memo;
    if (m.born.empty() || now == m.born) return;
    if (idle_ms_ > 0 &&
        std::chrono::steady_clock::now() - m.last_range >= std::chrono::milliseconds{idle_ms_})
      return;
    throw segment_store_error(
        name_, key_, made_again_text(m.born, now, "its row was deleted or the server lost it"));
  }
  /// ` AND <column> >= reached` for an UPDATE that counts, once this distributor took a range
  /// (`Memo::reached`): a counter below it went back, and is left as it is (`reach` refuses it).
  [[nodiscard]] std::string not_below(const char* column) const {
    const std::uint64_t r = s_->memo.reached;
    if (r == 0) return {};
    return std::string(" AND ") + column + " >= " + std::to_string(r);
  }
  /// `v` (the end of the range a call took, or the counter now), recorded as `Memo::reached`;
  /// throws `segment_store_error` (`gone_back_text`) when it lies below the end of this
  /// distributor's last range: the counter went back since (the server lost commits, was
  /// restored from an older backup or replaced by a replica that lagged, or the counter was
  /// edited, or deleted and made again), and the numbers above `v` may have been handed out.
  std::uint64_t reach(std::uint64_t v) {
    const std::uint64_t r = s_->memo.reached;
    if (v < r)
      throw segment_store_error(name_, key_,
                                gone_back_text(std::to_string(r), std::to_string(v), server_loss));
    s_->memo.reached = v;
    return v;
  }
  /// Records a range taken from the row born `born`.
  void took_range(std::string born) {
    s_->memo.born = std::move(born);
    s_->memo.last_range = std::chrono::steady_clock::now();
  }

  Address address_;
  store_options options_;
  std::string key_;
  std::string name_;
  std::int64_t idle_ms_ = 0;  // 0: the counter never expires
  std::unique_ptr<server_state<Conn, Memo>> s_;
};

/// The part of a server store that is the same for every backend (see the file comment).
template <class Address, class D, class LeaseStore>
class server_store {
 public:
  /// A lease on a worker id of this store's namespace, with its own connection. Throws as
  /// `lease`'s constructor.
  [[nodiscard]] flakeid::lease lease(lease_options options = {}) const {
    options = lease_options_for_store(std::move(options), options_);
    return {std::make_unique<LeaseStore>(address_, options), options};
  }
  /// A distributor for counter `key` (created on first use), with its own connection. Throws
  /// `invalid_option_error` for an empty key.
  [[nodiscard]] D distributor(const std::string& key) const { return D(address_, key, options_); }
  /// The counter's value: the largest number handed out so far (0 when unused). Opens a
  /// connection for the call. Throws `segment_store_error`.
  [[nodiscard]] std::uint64_t current(const std::string& key) const {
    return distributor(key).current();
  }
  /// The options.
  [[nodiscard]] const store_options& options() const noexcept { return options_; }

 protected:
  /// The server at `address` under `options`. Does not connect. Throws `invalid_option_error`
  /// for a bad namespace or timeout (the message names the store: `kind`, "redis store"), or an
  /// address the backend's connection refuses.
  server_store(Address address, store_options options, std::string_view kind)
      : address_(std::move(address)), options_(std::move(options)) {
    check_store_options(options_, kind);
    (void)D(address_, "check", options_);
  }

  Address address_;
  store_options options_;
};

/// What an SQL lease store keeps of its options and of its server: `ttl` and `safe_guard` in
/// milliseconds as SQL literals, `ttl + safe_guard`, the server's start as the last claim saw
/// it (in the server's Unix ms), and whether its table was checked and has the `instance`
/// column.
struct sql_lease_state {
  explicit sql_lease_state(const lease_options& o)
      : ttl_ms(std::to_string(o.ttl.count())),
        guard_ms(std::to_string(o.safe_guard.count())),
        hold_ms((o.ttl + o.safe_guard).count()) {}

  /// Since when the server may have lost what it confirmed to a claim made at `now`, the latest
  /// of: now, when the claim's own record was gone or had to be made again (`gone`); the
  /// table's creation (`created`), when it is younger than `ttl + safe_guard`; the server's
  /// start, when it started less than that ago (it may have lost its last commits). Null when
  /// none holds.
  [[nodiscard]] std::optional<std::int64_t> lost_since(std::int64_t now,
                                                       std::optional<std::int64_t> created,
                                                       bool gone) const {
    std::optional<std::int64_t> lost;
    const auto since = [&](std::int64_t t) { lost = std::max(lost.value_or(INT64_MIN), t); };
    if (gone) since(now);
    if (created && now - *created < hold_ms) since(*created);
    if (now - started_ms < hold_ms) since(started_ms);
    return lost;
  }

  std::string ttl_ms;
  std::string guard_ms;
  std::int64_t hold_ms;
  std::int64_t started_ms = INT64_MIN;  ///< the server's start, as the last claim saw it
  bool ready = false;                   ///< the table was checked
  bool instance_column = false;         ///< the table has `instance`
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
