// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file errors.hpp
/// The exceptions flakeid throws. Every message is stable and names what failed, the value
/// and the allowed range, e.g.
/// `flakeid: worker id 40 is out of range [0, 31] for a 5-bit field`.
///
///   invalid_layout_error    (std::invalid_argument)  a layout that cannot work
///   invalid_id_error        (std::invalid_argument)  an ID or ID text this layout cannot have produced
///   invalid_option_error    (std::invalid_argument)  an option a generator, lease or store cannot
///                                                    work with (a namespace, a timeout, an address)
///   field_range_error       (std::out_of_range)      a value that does not fit its field
///   timestamp_overflow_error(std::overflow_error)    a time before the epoch or past expires_at()
///   clock_backwards_error   (std::runtime_error)     the clock moved back; carries the step
///   worker_id_error         (std::runtime_error)     no worker id could be determined
///     lease_store_error     (worker_id_error)        a lease store could not be reached or failed
///     clock_skew_error      (worker_id_error)        this clock is further from the store's than
///                                                    max_skew; carries the difference
///   lease_lost_error        (std::runtime_error)     the worker-id lease could not be confirmed
///     forked_process_error(lease_lost_error)       an object of the parent used in a forked child
///   segment_store_error     (std::runtime_error)     a segment store failed; names the store and key
///   backfill_error          (std::runtime_error)     a back-filled tick is used up or forgotten
///   segment_closed_error    (std::logic_error)       a segment generator used after close()
///   sql_error               (std::invalid_argument)  SQL a dialect cannot express for a layout,
///                                                    or an identifier it cannot take

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// A layout whose fields, epoch or tick cannot describe IDs (thrown at run time; a constant
/// layout fails to compile instead).
class invalid_layout_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An ID, or the text of one, that the layout cannot have produced (a reserved bit set, a
/// character outside an alphabet, a value past 64 bits).
class invalid_id_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An option that a generator, a lease or a store cannot work with: a namespace with other
/// characters than letters, digits, '_' and '-', a timeout below its least value, a server
/// address that does not parse (quoted without its password), an empty segment key.
class invalid_option_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A value that does not fit its field: a worker id, datacenter id, sequence or gene too large
/// for the layout.
class field_range_error : public std::out_of_range {
 public:
  using std::out_of_range::out_of_range;
};

/// A time before the layout's epoch or past its `expires_at()`. flakeid never wraps the
/// timestamp field and never hands out a negative ID.
class timestamp_overflow_error : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

/// The clock moved back further than the generator's policy tolerates. `step()` is how far
/// back it went, measured against the last tick the generator used.
class clock_backwards_error : public std::runtime_error {
 public:
  clock_backwards_error(const std::string& what, std::chrono::milliseconds step)
      : std::runtime_error(what), step_(step) {}
  [[nodiscard]] std::chrono::milliseconds step() const noexcept { return step_; }

 private:
  std::chrono::milliseconds step_;
};

/// No worker id could be determined (a missing variable, a host name without an ordinal, no
/// free id in a lease store).
class worker_id_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A lease store could not be reached or answered with an error (connection refused, a
/// timeout, an unwritable lock directory). The message names the store and its address,
/// e.g. `flakeid: cannot connect to redis 127.0.0.1:6390 within 1000 ms: Connection
/// refused`.
class lease_store_error : public worker_id_error {
 public:
  using worker_id_error::worker_id_error;
};

/// A lease compared its clock with its store's (Redis's `TIME`, the SQL server's clock, the
/// time ZooKeeper stamps a write with, the host's clock for the file store) and found them
/// further apart than `lease_options::max_skew`, or could not tell because the store answered
/// too slowly: the lease takes no id (`acquire` throws this) and confirms no renewal. `skew()`
/// is this clock minus the store's, measured at the midpoint of the two readings of this clock
/// around the store's, e.g. `flakeid: this clock is 3600000 ms ahead of the clock of redis
/// 127.0.0.1:6379 (Unix ms 1795854312632 there); a lease accepts at most 250 ms either way
/// (max_skew, by default safe_guard / 2): set this host's clock right (NTP) or raise safe_guard`.
class clock_skew_error : public worker_id_error {
 public:
  clock_skew_error(const std::string& what, std::chrono::milliseconds skew)
      : worker_id_error(what), skew_(skew) {}
  [[nodiscard]] std::chrono::milliseconds skew() const noexcept { return skew_; }

 private:
  std::chrono::milliseconds skew_;
};

/// A lease named an instance (`lease_options::instance`) whose worker id another live process
/// holds: two processes may not share an instance name. The message names the instance, the
/// id, the namespace and the store, e.g. `flakeid: instance 'orders-7' already holds worker id 3
/// in namespace orders through another lease that is still renewing it (redis 127.0.0.1:6379)`.
class instance_in_use_error : public worker_id_error {
 public:
  using worker_id_error::worker_id_error;
};

/// The worker-id lease behind a generator expired or could not be renewed in time, so the
/// generator refuses to mint rather than risk sharing its worker id.
class lease_lost_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A segment store (memory, file, Redis, PostgreSQL ...) could not advance a counter, or
/// answered with a range the generator cannot stand behind (below the previous one, or past
/// 2^64 - 1). `store()` and `key()` name the store and the counter, e.g.
/// `flakeid: segment store file:/var/lib/ids, key 'orders': cannot open ...: Permission denied`.
class segment_store_error : public std::runtime_error {
 public:
  segment_store_error(std::string store, std::string key, const std::string& detail)
      : std::runtime_error("flakeid: segment store " + store + ", key '" + key + "': " + detail),
        store_(std::move(store)),
        key_(std::move(key)) {}
  /// The store, as its distributor names it (`memory`, `file:/var/lib/ids`, ...).
  [[nodiscard]] const std::string& store() const noexcept { return store_; }
  /// The counter's key in that store.
  [[nodiscard]] const std::string& key() const noexcept { return key_; }

 private:
  std::string store_;
  std::string key_;
};

/// A back-filled ID cannot be minted (`backfill_minter`): its tick has used every sequence
/// number, or the minter has already forgotten that tick. The message names the tick's time
/// and the bound.
class backfill_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A segment generator was asked for an ID after `close()`: it hands out nothing more.
class segment_closed_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// An object made before `fork()` (a generator, a segment generator or chain, a lease, a store
/// connection) was used in the forked child: its state, locks and sockets are the parent's, so
/// it hands out nothing there. The message names the object and says to rebuild it in the
/// child. Derives from `lease_lost_error`, which a forked child's generator threw before.
class forked_process_error : public lease_lost_error {
 public:
  using lease_lost_error::lease_lost_error;
};

/// SQL that `flakeid::sql` will not write: a layout whose IDs or times the chosen column or
/// timestamp type cannot hold, a shard count the routing field cannot honour, or an identifier
/// outside `[A-Za-z_][A-Za-z0-9_]*`. The message names the value and what is allowed.
class sql_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
