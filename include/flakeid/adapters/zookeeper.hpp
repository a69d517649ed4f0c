// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/zookeeper.hpp
/// `zookeeper_store`: worker-id leases and segment counters in ZooKeeper (the ZooKeeper C
/// client, `libzookeeper-mt`; CMake target `flakeid::zookeeper`).
///
///     flakeid::zookeeper_store store{"zk1:2181,zk2:2181,zk3:2181/apps", {.name_space = "shop"}};
///     auto lease = store.lease();                                   // worker ids
///     flakeid::classic_snowflake<> gen{lease};
///     flakeid::segment_chain_generator ids{store.distributor("orders")};
///
/// ## Leases
///
/// Under `/flakeid/<namespace>`: `held/<id>`, an **ephemeral** node that names the holder (the
/// session is the lease: it goes when the session ends), and `last/<id>`, a persistent node that
/// keeps the holder's deadline, so that the next holder mints only above it. A claim creates
/// both in one `multi` (the deadline set with a version check), so two sessions never hold one
/// id; renewal checks that `held/<id>` still belongs to this session and raises `last/<id>`;
/// release records the exact last timestamp and deletes `held/<id>`. The generator never mints
/// past the deadline it recorded, whether or not the session is still alive: a client cut off
/// from the ensemble stops at its deadline, and the next holder waits for that deadline plus
/// `safe_guard`, however long the server takes to expire the session: a claim takes an id whose
/// `held/<id>` is another session's once that holder's recorded deadline has passed by
/// `safe_guard` (a deadline more than `safe_guard` before the node's last write, which no
/// holder records, counts as that write's time plus `ttl`: an older value set by hand) (the
/// node deleted at the version read and made again in the claim's `multi`),
/// so a dead holder's id comes back after `ttl + safe_guard` whatever the session timeout. The
/// old session's renewal then answers `taken`: it finds `held/<id>` another session's, or, had
/// it read before the takeover, its write of `last/<id>` (at the version it read) fails.
///
/// Stable instances (`lease_options::instance`) add two kinds of persistent nodes:
/// `instance/<id>`, the instance of the id's last claimer (empty data: none; no node: none,
/// as the previous version wrote), and `instances/<instance>` (the name percent-encoded as a
/// segment key), the id recorded for that instance in decimal. The index counts only while
/// `instance/<id>` still names the instance: a claim without an instance, or for another one,
/// rewrites `instance/<id>` and so voids the index it leaves behind. Every claim writes or
/// checks, in its `multi`, the `instance/<id>` it read (at the version read); a claim for an
/// instance also writes or checks the instance's index at the version read (create when
/// missing), so of two claims for one instance that read the same index only the first
/// commits, and the other reads again and finds the id held. A claim for an instance whose
/// id is below `count` and not held takes it whatever its deadline; held by another session,
/// it takes nothing and reports the recorded deadline, which the holder's renewals raise.
/// Renewal and release leave both nodes as they are. A dead holder's `held/<id>` is taken over
/// once its deadline has passed by `safe_guard`, as above, so an instance's own id comes back
/// after `ttl + safe_guard` too.
///
/// Every renewal proves what the claim recorded: `held/<id>` is this session's and holds the
/// holder's token, and `last/<id>` is the node the claim wrote (its creation zxid) and no older
/// than the lease's last write (its modification zxid); else it answers `taken`, and a lost
/// deadline node is marked on `last` (its modification time). A claim reports lost memory
/// (`lost_memory_at`, see `detail::zookeeper_lease_store::answer`) after a namespace or `last`
/// made again, a deadline node deleted (`last`'s child version against its children; `last`
/// holds the deletions counted), or a zxid epoch other than the one the namespace node records
/// ("<epoch> <Unix ms a claim noticed it>"). A standalone server restored from an older data
/// directory keeps its epoch: delete the namespace after such a restore.
///
/// ## Leases in CosId's machine ids (`store.lease(options, zookeeper_nodes::cosid)`)
///
/// The persistent nodes of CosId's ZooKeeper machine-id distributor, in their shapes:
/// `/cosid/<ns>/__itc_idx/<instance>` ("<machine id>|<stamp>"), `/cosid/<ns>/__revert/<id>`
/// (a released id: "<id>|<stamp of its release>"), `/cosid/<ns>/__counter` (the ids counted
/// out: 4 bytes, big-endian, as Curator's atomic integer keeps it). The lease's instance is its
/// `lease_options::instance`, else its token. A claim takes, in CosId's order, a released id
/// (one released `safe_guard` ago first), the counter's next id while it is below the count, or
/// the id of an instance whose stamp is older than `ttl` (CosId's safe-guard duration, which
/// `ttl` must equal), each in one `multi` that checks the nodes it changes are as read; a
/// renewal is CosId's guard (the stamp: the renewal's send time, only while the node names this
/// id); a release is CosId's revert (the node goes, `__revert/<id>` gets the millisecond after
/// the last one used). The previous holder's deadline is a released id's stamp, or a holder's
/// stamp plus `ttl`. A claim waits as for lost memory when the namespace node or flakeid's
/// count of the ids counted out (`/flakeid/<ns>/cosid-count`) is younger than `ttl +
/// safe_guard` (their `ctime`, on the ensemble's clock), or when the counter lies below that
/// count (CosId's nodes deleted).
///
/// ## Segments
///
/// `/flakeid/<namespace>/segments/<key>` holds the counter in decimal. A call reads it and
/// writes the sum back with a version check (compare-and-set), retrying when another client
/// wrote first; a missing node counts from 0. Keys are percent-encoded into one node name. A
/// counter that may expire (`expire_after`) holds the ms it may stay idle on a second line;
/// a distributor's first such call deletes, each with a version check, the counters whose
/// last write is older than that on the ensemble's clock. A distributor refuses (`segment_store_error`) a counter
/// whose node was deleted, made again or went back below what it reached since its last call
/// (unless it may expire); a process that starts after such a loss cannot tell.
///
/// Every request waits for its answer or for the client to declare the connection lost (two
/// thirds of the session timeout); connecting is bounded by `connect_timeout`. A request made
/// while the session is cut off from every server waits for the connection to come back, for
/// a second at most (then a new session; the Leaf worker's: the session timeout) and never
/// past its call's `io_timeout`. A segment call,
/// a lease's claim or its release whose answer was lost (the connection, or the session, went
/// before it came) is tried again, on a new session when the old one expired, until
/// `io_timeout` (2 s by default) has passed since the call began: a server that stalls for a
/// moment, or an ensemble electing a leader, delays the call instead of failing it. A repeat is
/// safe: a segment's compare-and-set that was applied after all leaves its range unused, never
/// handed out twice; a claim first looks for the `held/<id>` nodes it sent, and takes one that
/// its session holds with the previous deadline read before it was sent; a release that was
/// applied finds the id no longer held. Renewals are not repeated: they have a schedule of
/// their own. Failures throw `lease_store_error` / `segment_store_error` naming
/// `zookeeper <hosts>`.

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "../detail/server_store.hpp"
#include "../errors.hpp"
#include "../lease.hpp"
#include "../segment.hpp"
#include "../version.hpp"
#include "../worker_id.hpp"
#include "detail/server_backend.hpp"
#include "detail/zookeeper_connection.hpp"
#include "detail/zookeeper_cosid_machine.hpp"
#include "detail/zookeeper_lease_store.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {
/// What a ZooKeeper distributor remembers between calls.
struct zookeeper_counter_memo {
  bool swept = false;         // the expired counters were deleted once
  std::uint64_t reached = 0;  // the counter after this distributor's last call (0: none)
  std::int64_t czxid = 0;     // the creation of the counter's node as that call found it
};
}  // namespace detail

/// A counter of a `zookeeper_store`, with its own session (opened on the first call). A copy
/// opens a session of its own. Throws `segment_store_error` when the ensemble cannot be
/// reached or the counter would pass 2^64 - 1. Thread-safety: every member may be called
/// concurrently (calls take turns on the session). `expire_after(idle)`: every `next_max_id`
/// also marks the counter as one that may be deleted once it has not been written for `idle`
/// (the node's modification time against the ensemble's clock, read by a write); the first such
/// call deletes the marked counters of the namespace that have been idle longer than they may
/// be, each with a version check, so a counter written meanwhile stays.
class zookeeper_distributor
    : public detail::server_distributor<zookeeper_distributor, zookeeper_address,
                                        detail::zookeeper_session, detail::zookeeper_counter_memo> {
 public:
  zookeeper_distributor(zookeeper_address address, std::string key, store_options options = {})
      : server_distributor(std::move(address), std::move(key), std::move(options)),
        path_("/flakeid/" + options_.name_space + "/segments/" +
              detail::zookeeper_node_name(key_)) {}

  /// Adds `step` to the counter (compare-and-set on the node's version) and returns its new
  /// value.
  std::uint64_t next_max_id(std::uint64_t step) {
    const std::string what = "next_max_id(" + std::to_string(step) + ")";
    return retried(what, [&]() -> std::uint64_t {
      if (idle_ms_ > 0 && !s_->memo.swept) {
        sweep();
        s_->memo.swept = true;
      }
      // The counter, and the ms it may stay idle on a second line when it may expire.
      const auto text = [&](std::uint64_t n) {
        std::string t = std::to_string(n);
        if (idle_ms_ > 0) (t += '\n') += std::to_string(idle_ms_);
        return t;
      };
      for (;;) {
        const auto node = s_->conn.get(path_);
        if (!node) {
          if (s_->memo.reached > 0 && idle_ms_ == 0) refuse(what, "was deleted");
          detail::zookeeper_ensure(s_->conn, options_.name_space, {"segments"});
          if (!s_->conn.create(path_, text(step), 0)) continue;
          const auto made = s_->conn.exists(path_);
          return reached(made ? made->czxid : 0, step);
        }
        const auto cur = value_of(node->first, what);
        if (idle_ms_ == 0 && s_->memo.reached > 0) {
          if (node->second.czxid != s_->memo.czxid) refuse(what, "was made again");
          if (cur < s_->memo.reached) refuse(what, "went back to " + std::to_string(cur));
        }
        if (cur > UINT64_MAX - step) detail::throw_store_overflow(name_, key_, cur, step);
        const std::string v = text(cur + step);
        Stat written{};
        std::vector<zoo_op_t> ops(1);
        zoo_set_op_init(&ops[0], path_.c_str(), v.data(), static_cast<int>(v.size()),
                        node->second.version, &written);
        if (s_->conn.multi(ops) == ZOK) return reached(written.czxid, cur + step);
      }
    });
  }

  /// The counter's value (0 when its node does not exist yet).
  [[nodiscard]] std::uint64_t current() {
    return retried("current()", [&]() -> std::uint64_t {
      const auto node = s_->conn.get(path_);
      return node ? value_of(node->first, "current()") : 0;
    });
  }

  /// The counter's node.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  /// Deletes the counters of the namespace that may expire and have been idle too long.
  void sweep() {
    const std::string dir = "/flakeid/" + options_.name_space + "/segments";
    // The nodes' modification times are the ensemble's: so is the time they are held against
    // (this host's clock an hour ahead deleted counters written a moment ago, in use).
    const auto now = detail::unix_ms_of(detail::zookeeper_clock(s_->conn, options_.name_space));
    for (const std::string& name : s_->conn.children(dir)) {
      const std::string path = dir + "/" + name;
      const auto node = s_->conn.get(path);
      if (!node) continue;
      const auto nl = node->first.find('\n');
      if (nl == std::string::npos) continue;
      const auto idle =
          detail::parse_decimal<std::int64_t>(std::string_view(node->first).substr(nl + 1));
      if (idle && node->second.mtime + *idle < now)
        (void)s_->conn.remove(path, node->second.version);
    }
  }

  /// Runs `f` as the call `what` until it answers; a lost answer is tried again (after 20 ms,
  /// doubling up to 500 ms) until `io_timeout` has passed since the call began. `f` must be
  /// safe to repeat: every write is a compare-and-set against what it read.
  template <class F>
  std::uint64_t retried(const std::string& what, F&& f) {
    return call(what, [&] {
      s_->conn.replace_when_cut_for(detail::zookeeper_patience);
      return s_->conn.retry(detail::io_timeout_or(options_.io_timeout, detail::segment_io_timeout),
                            f);
    });
  }

  /// Records that the counter, in the node made at `czxid`, reached `n`; returns `n`.
  std::uint64_t reached(std::int64_t czxid, std::uint64_t n) {
    s_->memo.czxid = czxid;
    s_->memo.reached = n;
    return n;
  }

  /// Throws `segment_store_error`: the counter's node `how` ("was deleted") since this
  /// distributor's last call, so the counter may hand out again what it handed out before.
  [[noreturn]] void refuse(const std::string& what, const std::string& how) const {
    const std::string r = std::to_string(s_->memo.reached);
    throw segment_store_error(name_, key_,
                              what + ": node " + path_ + " " + how + " after it reached " + r +
                                  ": a counter that lost its value would hand out numbers again "
                                  "(restore it above " +
                                  r + ", or use another key)");
  }

  std::uint64_t value_of(const std::string& text, const std::string& what) const {
    if (const auto v =
            detail::parse_decimal<std::uint64_t>(std::string_view(text).substr(0, text.find('\n'))))
      return *v;
    throw segment_store_error(name_, key_,
                              what + ": node " + path_ + " holds '" + text + "', not a counter");
  }

  std::string path_;
};

/// Who this process is in Leaf's snowflake tree (see `zookeeper_leaf_worker`).
struct leaf_worker_options {
  /// Leaf's `leaf.name`: the nodes live under `/snowflake/<name>/forever`.
  std::string name = "leaf";
  /// The address this service listens on, as Leaf names its nodes (`<ip>:<port>`).
  std::string ip{};
  /// The port of that address.
  std::string port{};
  /// How often the node's timestamp is brought up to this clock (Leaf: 3 s).
  std::chrono::milliseconds report_every{3'000};
  /// Bound on connecting to the ensemble.
  std::chrono::milliseconds connect_timeout{2'000};
};

/// A worker id from Leaf's snowflake mode: the persistent sequential node
/// `/snowflake/<name>/forever/<ip>:<port>-<sequence>` of this service's address (made on its
/// first start, found again on every later one), whose sequence number is the worker id, and
/// whose data, `{"ip":...,"port":...,"timestamp":<Unix ms>}`, is this worker's last report. As
/// in Leaf, a start whose clock is behind the reported timestamp is refused
/// (`clock_backwards_error`, with the step), and the generator mints only after it. Unlike
/// Leaf, the timestamp reported is a deadline: the clock plus two `report_every`, written every
/// `report_every` while the object lives, and the generator mints only below the last one
/// written (its fence; past it, `lease_lost_error` until a report is written again), so no ID
/// lies at or after the timestamp in the node. The destructor writes the exact last timestamp
/// used, so a restart need not wait for the deadline; after a crash a restart is refused
/// until the clock passes it. A Leaf server and a flakeid process therefore never share a
/// worker id unless they share an address. Two flakeid processes with one address are
/// refused: the one running holds the ephemeral node `/snowflake/<name>/flakeid-live/<ip>:<port>`,
/// made in the `multi` of the start's first report, which writes the node at the version read;
/// each report writes at the version of this worker's last write, so once another start wrote
/// the node (this worker's session, and its live node, went while it was paused) this worker
/// reports no more and its generator stops at its deadline. ZooKeeper numbers the nodes of a
/// `forever` made again (deleted by hand) from 0 again, while workers on the old nodes mint up
/// to their deadlines: `/flakeid-leaf/<name>` keeps `forever`'s creation and the longest reach
/// of a report, and a start that finds `forever` made again, or any start in the next
/// such reach, waits it out (`not_after_unix_ms` is its end). A sequence past the layout's node
/// bits (Leaf's layout: 1023) is a `worker_id_error`. Other failures throw `lease_store_error`.
///
///     flakeid::zookeeper_leaf_worker leaf{{"zk1:2181,zk2:2181"}, {.ip = "10.0.0.7", .port = "8080"}};
///     flakeid::classic_snowflake<> gen{leaf};
class zookeeper_leaf_worker {
 public:
  zookeeper_leaf_worker(zookeeper_address address, leaf_worker_options options)
      : o_(std::move(options)), s_(std::move(address), o_.connect_timeout) {
    if (o_.ip.empty() || o_.port.empty() || o_.name.empty() ||
        (o_.ip + o_.port + o_.name).find_first_of("/-") != std::string::npos)
      throw invalid_option_error(
          "flakeid: Leaf worker needs a name, an ip and a port without '/' "
          "or '-' (got name '" +
          o_.name + "', ip '" + o_.ip + "', port '" + o_.port + "')");
    if (o_.report_every.count() < 1)
      throw invalid_option_error("flakeid: Leaf worker report_every of " +
                                 std::to_string(o_.report_every.count()) +
                                 " ms is too short: use at least 1 ms");
  }
  zookeeper_leaf_worker(const zookeeper_leaf_worker&) = delete;
  zookeeper_leaf_worker& operator=(const zookeeper_leaf_worker&) = delete;
  ~zookeeper_leaf_worker() {
    if (s_.forked()) {  // the reporter is the parent's thread, and may wait on cv_
      detail::forget_after_fork(reporter_);
      detail::forget_after_fork(cv_);
      return;
    }
    fence_->deadline_unix_ms.store(INT64_MIN, std::memory_order_seq_cst);
    {
      std::lock_guard lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (reporter_.joinable()) reporter_.join();
    record_last();
  }

  /// Finds or makes this address's node and returns its sequence as the node of layout `l`.
  /// Call once.
  [[nodiscard]] worker_assignment assign(const layout& l) {
    s_.check_fork();
    std::lock_guard lk(m_);
    if (!node_.empty())
      detail::reject_worker("this Leaf worker was assigned already (" + node_ + ")");
    const std::string address = o_.ip + ":" + o_.port;
    const std::string forever = "/snowflake/" + o_.name + "/forever";
    std::int64_t reported = INT64_MIN;
    std::uint64_t seq = 0;
    std::int64_t until = 0;
    std::int64_t settled = INT64_MIN;
    detail::lease_call([&] {
      (void)s_.create("/snowflake", "", 0);
      (void)s_.create("/snowflake/" + o_.name, "", 0);
      (void)s_.create(forever, "", 0);
      (void)s_.create("/snowflake/" + o_.name + "/flakeid-live", "", 0);
      // A `forever` made again numbers its nodes from 0 again, while workers on the old nodes
      // mint up to their deadlines: every start waits those out.
      settled = forever_settled(forever);
      for (std::int64_t now = wall_ms(); now <= settled; now = wall_ms())
        std::this_thread::sleep_for(
            std::chrono::milliseconds{std::min<std::int64_t>(settled - now + 1, 100)});
      for (int attempt = 0; !try_start(forever, address, seq, reported, until, attempt >= 20);)
        ++attempt;
    });
    const std::uint64_t last = detail::last_node(l);
    if (seq > last)
      detail::reject_worker(s_.where() + " " + node_ + ": sequence " + std::to_string(seq) +
                            " is past the layout's " + std::to_string(detail::node_bits(l)) +
                            " datacenter and worker bits (0.." + std::to_string(last) + ")");
    confirmed_ = until;
    fence_->deadline_unix_ms.store(until, std::memory_order_seq_cst);
    worker_assignment a;
    a.node = detail::node_of(l, seq);
    a.not_after_unix_ms = std::max(reported, settled);
    a.fence = fence_;
    a.source = s_.where() + " " + node_;
    reporter_ = std::thread([this] { run(); });
    return a;
  }

  /// The fence of the generators on this worker: they mint only below the timestamp last
  /// written to the node.
  [[nodiscard]] const fence_ptr& fence() const noexcept { return fence_; }

  /// The node of this address (empty before `assign`).
  [[nodiscard]] std::string node() const {
    std::lock_guard lk(m_);
    return node_;
  }

 private:
  /// `/snowflake/<name>/flakeid-live/<ip>:<port>`: held (ephemeral) by the process serving
  /// this address.
  [[nodiscard]] std::string live_path() const {
    return "/snowflake/" + o_.name + "/flakeid-live/" + o_.ip + ":" + o_.port;
  }

  /// One try at a start: reads this address's node (Leaf's start-up check against the clock),
  /// then makes the live node and writes the first report (or makes the node) in one `multi`,
  /// the report at the version read, so that a holder whose live node went (its session
  /// expired) finds its next report refused. Sets `seq`, `reported` (the node's timestamp
  /// before) and `until` (the one written); false when the node changed meanwhile (try again,
  /// unless `last_try`: then it throws).
  bool try_start(const std::string& forever, const std::string& address, std::uint64_t& seq,
                 std::int64_t& reported, std::int64_t& until, bool last_try) {
    const std::string live = live_path();
    node_.clear();
    reported = INT64_MIN;
    int read_version = -1;
    const bool found = find_node(forever, address, seq, reported, read_version);
    if (s_.exists(live)) reject_held(address);
    const std::int64_t now = wall_ms();
    if (found && reported != INT64_MIN && reported > now)
      throw clock_backwards_error(
          "flakeid: " + s_.where() + " " + node_ + " holds a timestamp " +
              std::to_string(reported - now) +
              " ms ahead of this clock (Leaf's start-up check): wait until the clock passes it",
          std::chrono::milliseconds{reported - now});
    until = now + ahead_ms();
    const std::string json = data_json(until);
    const std::string prefix = forever + "/" + address + "-";
    std::string made(prefix.size() + 32, '\0');
    Stat written{};
    std::vector<zoo_op_t> ops(2);
    zoo_create_op_init(&ops[0], live.c_str(), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, nullptr,
                       0);
    if (found)
      zoo_set_op_init(&ops[1], node_.c_str(), json.data(), static_cast<int>(json.size()),
                      read_version, &written);
    else
      zoo_create_op_init(&ops[1], prefix.c_str(), json.data(), static_cast<int>(json.size()),
                         &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_SEQUENTIAL, made.data(),
                         static_cast<int>(made.size()));
    const int rc = s_.multi(ops);
    if (rc == ZOK) {
      if (!found) seq = made_node(made);
      version_ = found ? written.version : 0;
      live_session_ = s_.session_id();
      return true;
    }
    if (rc == ZNODEEXISTS && s_.exists(live)) reject_held(address);
    if ((rc != ZBADVERSION && rc != ZNONODE && rc != ZNODEEXISTS) || last_try)
      throw detail::store_connection_error(s_.where() + ": start on " + prefix + ": " + zerror(rc));
    return false;
  }

  /// Finds this address's node among Leaf's `forever` nodes: sets `node_`, its sequence `seq`,
  /// the timestamp it `reported` and its `node_version`; false when there is none.
  bool find_node(const std::string& forever, const std::string& address, std::uint64_t& seq,
                 std::int64_t& reported, int& node_version) {
    for (const std::string& child : s_.children(forever)) {
      const auto dash = child.rfind('-');
      if (dash == std::string::npos || child.substr(0, dash) != address) continue;
      const auto n = detail::parse_decimal<std::uint64_t>(child.substr(dash + 1));
      if (!n) continue;
      const auto data = s_.get(forever + "/" + child);
      if (!data) continue;
      node_ = forever + "/" + child;
      seq = *n;
      reported = timestamp_of(data->first);
      node_version = data->second.version;
      return true;
    }
    return false;
  }

  /// Reads and updates flakeid's mark of `forever` (`/flakeid-leaf/<name>`: "<its creation
  /// zxid> <Unix ms> <ms>", the ms until which a node's sequence may still be in use by a
  /// worker of a `forever` since deleted, and the longest reach of a report seen); returns that
  /// Unix ms. A `forever` of another creation than the mark's sets it to the clock plus the
  /// longest reach.
  std::int64_t forever_settled(const std::string& forever) {
    const std::string mark = "/flakeid-leaf/" + o_.name;
    (void)s_.create("/flakeid-leaf", "", 0);
    for (int attempt = 0; attempt < 20; ++attempt) {
      const auto f = s_.exists(forever);
      if (!f) throw detail::store_connection_error(s_.where() + ": " + forever + " went");
      const auto m = s_.get(mark);
      std::int64_t czxid = f->czxid, until = INT64_MIN, reach = ahead_ms();
      if (m) {
        std::int64_t c = 0, u = 0, r = 0;
        if (std::sscanf(m->first.c_str(), "%" SCNd64 " %" SCNd64 " %" SCNd64, &c, &u, &r) == 3) {
          until = u;
          reach = std::max(reach, r);
          if (c != f->czxid) until = std::max(until, wall_ms() + reach);
        } else {
          until = wall_ms() + reach;  // unreadable: as a `forever` made again
        }
      }
      const std::string text =
          std::to_string(czxid) + " " + std::to_string(until) + " " + std::to_string(reach);
      if (m && m->first == text) return until;
      std::vector<zoo_op_t> ops(1);
      if (m)
        zoo_set_op_init(&ops[0], mark.c_str(), text.data(), static_cast<int>(text.size()),
                        m->second.version, nullptr);
      else
        zoo_create_op_init(&ops[0], mark.c_str(), text.data(), static_cast<int>(text.size()),
                           &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
      if (s_.multi(ops) == ZOK) return until;
    }
    throw detail::store_connection_error(s_.where() + ": cannot update " + mark);
  }

  [[noreturn]] void reject_held(const std::string& address) {
    detail::reject_worker(s_.where() + ": another flakeid process serves " + address +
                          " in Leaf's /snowflake/" + o_.name + " (its node flakeid-live/" +
                          address + " is held)");
  }

  /// Sets `node_` to the sequential node `made` (its buffer) and returns its sequence.
  std::uint64_t made_node(std::string made) {
    made.resize(made.find('\0'));
    node_ = made;
    const auto n = detail::parse_decimal<std::uint64_t>(made.substr(made.rfind('-') + 1));
    if (!n)
      throw detail::store_connection_error(s_.where() + ": node " + made + " has no sequence");
    return *n;
  }

  static std::int64_t wall_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  /// How far ahead of the clock a report reaches: two periods, so that the next report raises
  /// the fence before the generator gets there.
  [[nodiscard]] std::int64_t ahead_ms() const {
    const std::int64_t r = o_.report_every.count();
    return r > INT64_MAX / 8 ? INT64_MAX / 4 : 2 * r;
  }

  [[nodiscard]] std::string data_json(std::int64_t ms) const {
    return "{\"ip\":\"" + o_.ip + "\",\"port\":\"" + o_.port +
           "\",\"timestamp\":" + std::to_string(ms) + "}";
  }

  static std::int64_t timestamp_of(const std::string& json) {
    const auto k = json.find("\"timestamp\"");
    if (k == std::string::npos) return INT64_MIN;
    auto i = json.find(':', k);
    if (i == std::string::npos) return INT64_MIN;
    ++i;
    while (i < json.size() && json[i] == ' ') ++i;
    std::size_t j = i;
    while (j < json.size() && json[j] >= '0' && json[j] <= '9') ++j;
    return detail::parse_decimal<std::int64_t>(std::string_view(json).substr(i, j - i))
        .value_or(INT64_MIN);
  }

  /// Writes `now + ahead_ms()` into the node, at the version this worker wrote last, and then
  /// raises the fence to it; nothing when that would not raise it (the clock went back). A
  /// write refused because the node changed is this worker's own lost write only while its
  /// live node is its session's; else another process took the address, and this worker
  /// reports no more (its generators stop at the fence).
  void report(std::int64_t now) {
    if (lost_) return;
    const std::int64_t until = now + ahead_ms();
    if (until <= confirmed_) return;
    try {
      const std::string json = data_json(until);
      Stat st{};
      const int rc = s_.check(zoo_set2(s_.handle(), node_.c_str(), json.data(),
                                       static_cast<int>(json.size()), version_, &st));
      if (rc == ZOK) {
        version_ = st.version;
        confirmed_ = until;
        fence_->deadline_unix_ms.store(until, std::memory_order_seq_cst);
        return;
      }
      if (rc != ZBADVERSION && rc != ZNONODE) return;
      const auto mine = s_.exists(live_path());
      const auto node = s_.get(node_);
      if (mine && node && mine->ephemeralOwner == s_.session_id() &&
          live_session_ == s_.session_id())
        version_ = node->second.version;  // an answer lost earlier: the write was applied
      else
        lost_ = true;
    } catch (const std::exception&) {
      // The next report tries again; the fence holds the generator meanwhile.
    }
  }

  /// Records the exact last timestamp for the next start (after the fence went down): at most
  /// the deadline, at least the newest tick minted and the clock plus the generators' lead.
  void record_last() noexcept {
    if (lost_ || confirmed_ == INT64_MIN || !s_.connected()) return;
    const std::int64_t last = std::min(
        confirmed_ - 1, std::max(fence_->last_unix_ms.load(std::memory_order_acquire),
                                 wall_ms() + fence_->lead_ms.load(std::memory_order_acquire)));
    try {
      const std::string json = data_json(last);
      (void)s_.check(zoo_set(s_.handle(), node_.c_str(), json.data(), static_cast<int>(json.size()),
                             version_));
    } catch (const std::exception&) {
      // The node keeps the deadline: a restart waits for it.
    }
  }

  void run() {
    std::unique_lock lk(m_);
    while (!cv_.wait_for(lk, o_.report_every, [&] { return stop_; })) report(wall_ms());
  }

  leaf_worker_options o_;
  detail::zookeeper_session s_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string node_;
  fence_ptr fence_ = fence_ptr::make();
  std::int64_t confirmed_ = INT64_MIN;  // the timestamp last written to the node: the fence
  int version_ = -1;                    // the node's version after this worker's last write
  std::int64_t live_session_ = 0;       // the session that made the live node
  bool lost_ = false;                   // another process took the address
  std::thread reporter_;
};

/// Worker-id leases and segment counters in one ZooKeeper namespace (see the file comment).
/// Cheap to copy; holds no session itself: each lease and each distributor has its own.
/// The machine ids a `zookeeper_store` lease takes (`lease(options, nodes)`).
enum class zookeeper_nodes {
  flakeid,  ///< `/flakeid/<namespace>/...` (`lease(options)`)
  cosid,    ///< CosId's `/cosid/<namespace>/...`, beside CosId's ZooKeeper machine-id distributor
};

class zookeeper_store : public detail::server_store<zookeeper_address, zookeeper_distributor,
                                                    detail::zookeeper_lease_store> {
 public:
  /// The ensemble at `address` under `options.name_space`. Does not connect. Throws
  /// `invalid_option_error` for a bad namespace or timeout, or a host list that does not read.
  explicit zookeeper_store(zookeeper_address address, store_options options = {})
      : server_store(std::move(address), std::move(options), "zookeeper store") {}
  /// The same, from `host:port[,host:port...][/chroot]`.
  explicit zookeeper_store(std::string_view hosts, store_options options = {})
      : zookeeper_store(zookeeper_address{std::string(hosts)}, std::move(options)) {}

  using server_store::lease;
  /// A lease on a worker id in `nodes`' machine ids: `zookeeper_nodes::flakeid`, as
  /// `lease(o)`; `zookeeper_nodes::cosid`, CosId's nodes of the store's namespace, beside the
  /// CosId services that distribute them (see the file comment: `ttl` must be their safe-guard
  /// duration). Throws as `lease`'s constructor.
  [[nodiscard]] flakeid::lease lease(lease_options o, zookeeper_nodes nodes) const {
    if (nodes == zookeeper_nodes::flakeid) return lease(std::move(o));
    o = detail::lease_options_for_store(std::move(o), options_);
    return {std::make_unique<detail::zookeeper_cosid_machine_store>(address_, o), o};
  }

  /// Where the ensemble is.
  [[nodiscard]] const zookeeper_address& address() const noexcept { return address_; }
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
