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
/// `safe_guard`, however long the server takes to expire the session. Keep `ttl` at or below
/// the session timeout so that the id comes back soon after a holder dies.
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
/// Renewal and release leave both nodes as they are. A dead holder's `held/<id>` goes when
/// the server expires its session: the lease watches a held id for `2 * (ttl + safe_guard)`
/// before it calls the holder alive, so keep the session timeout (as the server grants it)
/// well below that; with the defaults (6 s against 24 s) it is.
///
/// ## Segments
///
/// `/flakeid/<namespace>/segments/<key>` holds the counter in decimal. A call reads it and
/// writes the sum back with a version check (compare-and-set), retrying when another client
/// wrote first; a missing node counts from 0. Keys are percent-encoded into one node name. A
/// counter that may expire (`expire_after`) holds the ms it may stay idle on a second line;
/// a distributor's first such call deletes, each with a version check, the counters whose
/// last write is older than that.
///
/// Every request waits for its answer or for the client to declare the connection lost (two
/// thirds of the session timeout); connecting is bounded by `connect_timeout`. A segment call,
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

// The synchronous calls of the multi-threaded client (libzookeeper_mt).
#ifndef THREADED
#define THREADED 1
#endif
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
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

namespace flakeid::inline FLAKEID_ABI_NAMESPACE {

/// Where a ZooKeeper ensemble is: `host:port[,host:port...][/chroot]`, as the ZooKeeper
/// clients write it, and the session timeout to ask for.
struct zookeeper_address {
  /// The ensemble and an optional chroot: `zk1:2181,zk2:2181/apps`.
  std::string hosts = "127.0.0.1:2181";
  /// The session timeout asked of the server (which clamps it to its own bounds).
  std::chrono::milliseconds session_timeout{6'000};

  /// `zookeeper <hosts>`.
  [[nodiscard]] std::string where() const { return "zookeeper " + hosts; }
};

namespace detail {

/// A request whose answer did not come: the client declared the connection lost, or the
/// session expired. The request may or may not have been applied.
class zookeeper_answer_lost : public store_connection_error {
 public:
  using store_connection_error::store_connection_error;
};

/// Runs `f` until it answers; a request whose answer was lost is tried again (after 20 ms,
/// doubling up to 500 ms) until `bound` has passed since the call began, then the loss is
/// thrown. `f` must be safe to repeat.
template <class F>
decltype(auto) zookeeper_retry(std::chrono::milliseconds bound, F&& f) {
  using clock = std::chrono::steady_clock;
  constexpr std::chrono::milliseconds max_pause{500};
  const auto until = clock::now() + bound;
  for (std::chrono::milliseconds pause{20};; pause = std::min(pause * 2, max_pause)) {
    try {
      return f();
    } catch (const zookeeper_answer_lost&) {
      if (clock::now() + pause >= until) throw;
    }
    std::this_thread::sleep_for(pause);
  }
}

/// One ZooKeeper session (opened on first use within `connect_timeout`; a new one after the
/// server expired it). Calls are synchronous. Not thread-safe: one caller at a time.
class zookeeper_session {
 public:
  zookeeper_session(zookeeper_address a, std::chrono::milliseconds connect_timeout)
      : a_(std::move(a)), connect_timeout_(connect_timeout), where_(a_.where()) {
    if (a_.hosts.empty() || a_.session_timeout.count() < 1)
      throw invalid_option_error("flakeid: invalid ZooKeeper address '" + a_.hosts +
                                 "' or session timeout of " +
                                 std::to_string(a_.session_timeout.count()) + " ms");
  }
  zookeeper_session(const zookeeper_session&) = delete;
  zookeeper_session& operator=(const zookeeper_session&) = delete;
  ~zookeeper_session() { close(); }

  [[nodiscard]] const std::string& where() const noexcept { return where_; }

  /// The handle of a connected session. Throws `store_connection_error`.
  zhandle_t* handle() {
    if (zh_ != nullptr && state_->expired()) close();
    if (zh_ != nullptr) return zh_;
    silence();
    state_ = std::make_shared<watch_state>();
    // The watcher context is a raw pointer to a shared state that this object keeps alive for
    // as long as the handle exists.
    zh_ = zookeeper_init(a_.hosts.c_str(), &on_event, static_cast<int>(a_.session_timeout.count()),
                         nullptr, state_.get(), 0);
    if (zh_ == nullptr)
      throw store_connection_error("cannot connect to " + where_ +
                                   ": the client refused the "
                                   "address (want host:port[,host:port...][/chroot])");
    if (!state_->wait_connected(connect_timeout_)) {
      close();
      throw store_connection_error("cannot connect to " + where_ + " within " +
                                   std::to_string(connect_timeout_.count()) + " ms: timed out");
    }
    return zh_;
  }

  /// This session's id (0 when none is open).
  [[nodiscard]] std::int64_t session_id() const noexcept {
    const clientid_t* c = zh_ != nullptr ? zoo_client_id(zh_) : nullptr;
    return c != nullptr ? c->client_id : 0;
  }

  /// Throws `zookeeper_answer_lost` for a code that says the request's fate is unknown or the
  /// session is gone (the next request opens a new one), `store_connection_error` for the
  /// other failures; returns the answers (ZOK, ZNONODE, ZNODEEXISTS, ZBADVERSION, ...).
  int check(int rc) {
    if (rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZSESSIONEXPIRED ||
        rc == ZINVALIDSTATE) {
      if (rc == ZSESSIONEXPIRED || rc == ZINVALIDSTATE) close();
      throw zookeeper_answer_lost(where_ + ": " + zerror(rc));
    }
    if (rc == ZCLOSING || rc == ZMARSHALLINGERROR || rc == ZSYSTEMERROR ||
        rc == ZRUNTIMEINCONSISTENCY || rc == ZAUTHFAILED || rc == ZNOAUTH)
      throw store_connection_error(where_ + ": " + zerror(rc));
    return rc;
  }

  /// Creates `path` (and nothing above it); true when it was created, false when it existed.
  bool create(const std::string& path, std::string_view data, int mode) {
    const int rc =
        check(zoo_create(handle(), path.c_str(), data.data(), static_cast<int>(data.size()),
                         &ZOO_OPEN_ACL_UNSAFE, mode, nullptr, 0));
    if (rc == ZOK) return true;
    if (rc == ZNODEEXISTS) return false;
    throw store_connection_error(where_ + ": create " + path + ": " + zerror(rc));
  }

  /// The data and stat of `path`, or nothing when it does not exist.
  std::optional<std::pair<std::string, Stat>> get(const std::string& path) {
    std::string buf(256, '\0');
    int len = static_cast<int>(buf.size());
    Stat st{};
    const int rc = check(zoo_get(handle(), path.c_str(), 0, buf.data(), &len, &st));
    if (rc == ZNONODE) return std::nullopt;
    if (rc != ZOK) throw store_connection_error(where_ + ": get " + path + ": " + zerror(rc));
    buf.resize(static_cast<std::size_t>(std::max(len, 0)));
    return std::pair{std::move(buf), st};
  }

  /// The stat of `path`, or nothing when it does not exist.
  std::optional<Stat> exists(const std::string& path) {
    Stat st{};
    const int rc = check(zoo_exists(handle(), path.c_str(), 0, &st));
    if (rc == ZNONODE) return std::nullopt;
    if (rc != ZOK) throw store_connection_error(where_ + ": exists " + path + ": " + zerror(rc));
    return st;
  }

  /// The names of the children of `path` (none when it does not exist).
  std::vector<std::string> children(const std::string& path) {
    String_vector v{};
    const int rc = check(zoo_get_children(handle(), path.c_str(), 0, &v));
    std::vector<std::string> out;
    if (rc == ZNONODE) return out;
    if (rc != ZOK) throw store_connection_error(where_ + ": children " + path + ": " + zerror(rc));
    for (int i = 0; i < v.count; ++i) out.emplace_back(v.data[i]);
    deallocate_String_vector(&v);
    return out;
  }

  /// Deletes `path` if it is still at `version`; false when it was not (changed or gone).
  bool remove(const std::string& path, int version) {
    const int rc = check(zoo_delete(handle(), path.c_str(), version));
    if (rc == ZOK) return true;
    if (rc == ZNONODE || rc == ZBADVERSION || rc == ZNOTEMPTY) return false;
    throw store_connection_error(where_ + ": delete " + path + ": " + zerror(rc));
  }

  /// Runs `ops` atomically; returns ZOK or the code of the first op that failed.
  int multi(std::vector<zoo_op_t>& ops) {
    std::vector<zoo_op_result_t> results(ops.size());
    return check(zoo_multi(handle(), static_cast<int>(ops.size()), ops.data(), results.data()));
  }

  /// Ends the session (its ephemeral nodes go at once).
  void close() noexcept {
    if (zh_ != nullptr) zookeeper_close(zh_);
    zh_ = nullptr;
  }

  /// In a forked child: forget the parent's handle without closing its session.
  void abandon() noexcept { zh_ = nullptr; }

 private:
  struct watch_state {
    std::mutex m;
    std::condition_variable cv;
    int state = 0;
    bool wait_connected(std::chrono::milliseconds t) {
      std::unique_lock lk(m);
      return cv.wait_for(lk, t, [&] { return state == ZOO_CONNECTED_STATE; });
    }
    bool expired() {
      std::lock_guard lk(m);
      return state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE;
    }
  };

  static void on_event(zhandle_t*, int type, int state, const char*, void* ctx) {
    if (type != ZOO_SESSION_EVENT || ctx == nullptr) return;
    auto* s = static_cast<watch_state*>(ctx);
    {
      std::lock_guard lk(s->m);
      s->state = state;
    }
    s->cv.notify_all();
  }

  /// The client logs to stderr by default: only errors, and those go through the exceptions.
  static void silence() {
    static const bool once = [] {
      zoo_set_debug_level(static_cast<ZooLogLevel>(0));
      return true;
    }();
    (void)once;
  }

  zookeeper_address a_;
  std::chrono::milliseconds connect_timeout_;
  std::string where_;
  std::shared_ptr<watch_state> state_ = std::make_shared<watch_state>();
  zhandle_t* zh_ = nullptr;
};

/// `key` as one node name: bytes other than letters, digits, '-', '_' and '.' as %XX (and a
/// key of "." or ".." escaped whole).
inline std::string zookeeper_node_name(std::string_view key) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || (c == '.' && key != "." && key != "..");
    if (plain) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

/// Creates `/flakeid`, `/flakeid/<ns>` and the children named in `parts` when missing.
inline void zookeeper_ensure(zookeeper_session& s, const std::string& ns,
                             std::initializer_list<const char*> parts) {
  (void)s.create("/flakeid", "", 0);
  (void)s.create("/flakeid/" + ns, "", 0);
  for (const char* p : parts) (void)s.create("/flakeid/" + ns + "/" + p, "", 0);
}

/// The operations of one `multi`, with the paths and data they point to.
class zookeeper_ops {
 public:
  /// Creates `path` holding `data` (fails when it exists).
  void create(std::string path, std::string data, int mode) {
    const std::string& p = keep(std::move(path));
    const std::string& d = keep(std::move(data));
    zoo_op_t op{};
    zoo_create_op_init(&op, p.c_str(), d.data(), static_cast<int>(d.size()), &ZOO_OPEN_ACL_UNSAFE,
                       mode, nullptr, 0);
    ops_.push_back(op);
  }
  /// Writes `data` into `path` if it is still at `version`.
  void set(std::string path, std::string data, int version) {
    const std::string& p = keep(std::move(path));
    const std::string& d = keep(std::move(data));
    zoo_op_t op{};
    zoo_set_op_init(&op, p.c_str(), d.data(), static_cast<int>(d.size()), version, nullptr);
    ops_.push_back(op);
  }
  /// Fails unless `path` is still at `version`.
  void check(std::string path, int version) {
    const std::string& p = keep(std::move(path));
    zoo_op_t op{};
    zoo_check_op_init(&op, p.c_str(), version);
    ops_.push_back(op);
  }
  /// Runs them all or none; ZOK or the code of the first that failed.
  int run(zookeeper_session& s) { return s.multi(ops_); }

 private:
  const std::string& keep(std::string text) {
    text_.push_back(std::move(text));
    return text_.back();
  }
  std::deque<std::string> text_;  // a deque: the strings stay where the ops point
  std::vector<zoo_op_t> ops_;
};

class zookeeper_lease_store final : public lease_store {
 public:
  zookeeper_lease_store(zookeeper_address a, const lease_options& o)
      : ns_(o.name_space),
        root_("/flakeid/" + o.name_space),
        hold_ms_((o.ttl + o.safe_guard).count()),
        retry_for_(io_timeout_or(o.io_timeout, segment_io_timeout)),
        s_(std::move(a), o.connect_timeout) {}

  [[nodiscard]] std::string where() const override { return s_.where(); }

  std::optional<lease_claim> claim(const claim_request& q) override {
    sent_.clear();
    return lease_call([&] { return zookeeper_retry(retry_for_, [&] { return claim_once(q); }); });
  }

  renewal renew(std::uint64_t id, const std::string&, lease_time deadline) override {
    return lease_call([&] {
      const std::string i = std::to_string(id);
      const auto held = s_.exists(root_ + "/held/" + i);
      if (!held || held->ephemeralOwner != s_.session_id()) return renewal::taken;
      const auto last = s_.get(root_ + "/last/" + i);
      if (!last) return renewal::taken;
      const auto prev = parse_decimal<std::int64_t>(last->first);
      const std::string rec =
          std::to_string(std::max(prev.value_or(INT64_MIN), unix_ms_of(deadline)));
      const std::string lp = root_ + "/last/" + i;
      std::vector<zoo_op_t> ops(1);
      zoo_set_op_init(&ops[0], lp.c_str(), rec.data(), static_cast<int>(rec.size()),
                      last->second.version, nullptr);
      return s_.multi(ops) == ZOK ? renewal::held : renewal::taken;
    });
  }

  void release(std::uint64_t id, const std::string&, lease_time last) override {
    lease_call([&] { zookeeper_retry(retry_for_, [&] { release_once(id, last); }); });
  }

  void abandon_after_fork() noexcept override { s_.abandon(); }

 private:
  using znode = std::pair<std::string, Stat>;

  /// A claim `multi` sent during the current `claim`: the id, the previous holder's record as
  /// read before it, and whether it took the instance's own id.
  struct sent {
    std::uint64_t id;
    std::optional<std::int64_t> last;
    bool own_instance;
  };

  /// One try of `release`: a try after one that was applied finds the id no longer held.
  void release_once(std::uint64_t id, lease_time last) {
    const std::string i = std::to_string(id);
    const std::string hp = root_ + "/held/" + i;
    const std::string lp = root_ + "/last/" + i;
    const auto held = s_.exists(hp);
    if (!held || held->ephemeralOwner != s_.session_id()) return;
    const std::string rec = std::to_string(unix_ms_of(last));
    std::vector<zoo_op_t> ops(2);
    zoo_set_op_init(&ops[0], lp.c_str(), rec.data(), static_cast<int>(rec.size()), -1, nullptr);
    zoo_delete_op_init(&ops[1], hp.c_str(), held->version);
    (void)s_.multi(ops);
  }

  /// One try of `claim` (see `claim_request`); a lost answer throws `zookeeper_answer_lost`.
  std::optional<lease_claim> claim_once(const claim_request& q) {
    // A claim of this call whose answer was lost may have been applied: then this session
    // holds its id, and the claim is the one sent.
    if (auto c = sent_claim()) return c;
    const bool named = !q.instance.empty();
    if (named)
      zookeeper_ensure(s_, ns_, {"held", "last", "instance", "instances"});
    else
      zookeeper_ensure(s_, ns_, {"held", "last"});
    const std::string index_path =
        named ? root_ + "/instances/" + zookeeper_node_name(q.instance) : std::string();
    for (int attempt = 0; attempt < 100; ++attempt) {
      // The instance's index, and the id it names when that id's record names the instance
      // too (otherwise the index is stale: another lease took the id since).
      std::optional<znode> index;
      std::optional<std::pair<std::uint64_t, znode>> own;
      if (named) {
        index = s_.get(index_path);
        const auto id = index ? parse_decimal<std::uint64_t>(index->first) : std::nullopt;
        if (id && *id < q.count) {
          auto rec = s_.get(instance_path(*id));
          if (rec && rec->first == q.instance) own.emplace(*id, std::move(*rec));
        }
      }
      if (own) {
        const own_result r = claim_own(q, own->first, own->second, index_path, *index);
        if (r.claim) return r.claim;
        if (r.retry) continue;
        // Its deadline node is missing: claim as usual.
      }
      const auto held = s_.children(root_ + "/held");
      struct candidate {
        std::uint64_t id;
        std::optional<std::int64_t> last;
        int version;
      };
      std::vector<candidate> free;
      std::uint64_t next = 0;
      for (const std::string& name : s_.children(root_ + "/last")) {
        const auto id = parse_decimal<std::uint64_t>(name);
        if (!id) continue;
        next = std::max(next, *id + 1);
        if (*id >= q.count || std::find(held.begin(), held.end(), name) != held.end()) continue;
        const auto node = s_.get(root_ + "/last/" + name);
        if (!node) continue;
        const auto last = parse_decimal<std::int64_t>(node->first);
        if (last && *last > unix_ms_of(q.skip_above)) continue;
        free.push_back({*id, last, node->second.version});
      }
      const std::int64_t settled = unix_ms_of(q.settled);
      std::sort(free.begin(), free.end(), [&](const candidate& x, const candidate& y) {
        const auto key = [&](const candidate& c) {
          const bool waits = c.last && *c.last > settled;
          return std::pair{waits, waits ? *c.last : 0};
        };
        return std::pair{key(x), x.id} < std::pair{key(y), y.id};
      });
      const std::string d = std::to_string(unix_ms_of(q.deadline));
      bool lost_race = false;
      for (const candidate& c : free) {
        const std::string id = std::to_string(c.id);
        const std::string rec =
            std::to_string(std::max(c.last.value_or(INT64_MIN), unix_ms_of(q.deadline)));
        zookeeper_ops ops;
        ops.create(root_ + "/held/" + id, q.holder, ZOO_EPHEMERAL);
        ops.set(root_ + "/last/" + id, rec, c.version);
        record_instance(ops, c.id, q.instance, index_path, index);
        sent_.push_back({c.id, c.last, false});
        if (ops.run(s_) == ZOK) return answer(c.id, c.last);
        // A claim of the instance lost to another one: read its record again.
        if (named) {
          lost_race = true;
          break;
        }
      }
      if (lost_race || !free.empty()) continue;  // all taken meanwhile: read again
      if (next >= q.count) return std::nullopt;
      const std::string id = std::to_string(next);
      zookeeper_ops ops;
      ops.create(root_ + "/held/" + id, q.holder, ZOO_EPHEMERAL);
      ops.create(root_ + "/last/" + id, d, 0);
      record_instance(ops, next, q.instance, index_path, index);
      sent_.push_back({next, std::nullopt, false});
      if (ops.run(s_) == ZOK) return answer(next, std::nullopt);
      // Another client added the same id first: read again.
    }
    return std::nullopt;
  }

  /// A claim this call sent whose `held/<id>` this session holds (its answer was lost), else
  /// nothing. A session's requests are applied in order: a claim that a later request of the
  /// same session finds not applied was not.
  std::optional<lease_claim> sent_claim() {
    for (const sent& c : sent_) {
      const auto held = s_.exists(root_ + "/held/" + std::to_string(c.id));
      if (!held || held->ephemeralOwner != s_.session_id()) continue;
      lease_claim got = answer(c.id, c.last);
      got.own_instance = c.own_instance;
      return got;
    }
    return std::nullopt;
  }

  /// What `claim_own` did.
  struct own_result {
    std::optional<lease_claim> claim;  ///< the id taken, or reported held by another holder
    bool retry = false;                ///< the records changed meanwhile: read them again
  };

  /// The node that records the instance of id `id`'s last claimer.
  [[nodiscard]] std::string instance_path(std::uint64_t id) const {
    return root_ + "/instance/" + std::to_string(id);
  }

  /// Takes id `id`, whose record `rec` names `q.instance` (and the instance's index `index`
  /// names `id`), when no other session holds it; else reports it held. Neither when its
  /// deadline node is missing.
  own_result claim_own(const claim_request& q, std::uint64_t id, const znode& rec,
                       const std::string& index_path, const znode& index) {
    const std::string i = std::to_string(id);
    const std::string hp = root_ + "/held/" + i;
    const std::string lp = root_ + "/last/" + i;
    const auto held = s_.exists(hp);
    const auto last_node = s_.get(lp);
    if (!last_node) return {};
    const auto last = parse_decimal<std::int64_t>(last_node->first);
    if (held && held->ephemeralOwner != s_.session_id()) {
      // Its holder claimed it for this instance unless the record changed since it was read
      // (a claim for another instance, or for none, rewrites it).
      const auto now = s_.exists(instance_path(id));
      if (!now || now->version != rec.second.version) return {std::nullopt, true};
      lease_claim c;
      c.id = id;
      if (last) c.last = lease_time_of(*last);
      c.held_by_instance = true;
      return {c, false};
    }
    const std::string d =
        std::to_string(std::max(last.value_or(INT64_MIN), unix_ms_of(q.deadline)));
    zookeeper_ops ops;
    if (held)
      ops.check(hp, held->version);  // this session's already: a claim whose answer was lost
    else
      ops.create(hp, q.holder, ZOO_EPHEMERAL);
    ops.set(lp, d, last_node->second.version);
    ops.check(instance_path(id), rec.second.version);
    ops.check(index_path, index.second.version);
    sent_.push_back({id, last, true});
    if (ops.run(s_) != ZOK) return {std::nullopt, true};
    lease_claim c = answer(id, last);
    c.own_instance = true;
    return {c, false};
  }

  /// Adds to `ops` what records `instance` (empty: none) with id `id`: its record set, created
  /// or checked at the version it has now, and for an instance, its index (read as `index`)
  /// set to `id` or created at that version. The record is read after the id's deadline node:
  /// every write of a record goes with a write of that node, so a claim whose deadline node is
  /// still at the version it read also saw the record as it is.
  void record_instance(zookeeper_ops& ops, std::uint64_t id, const std::string& instance,
                       const std::string& index_path, const std::optional<znode>& index) {
    const std::string path = instance_path(id);
    const auto rec = s_.get(path);
    if (rec && rec->first != instance)
      ops.set(path, instance, rec->second.version);
    else if (rec)
      ops.check(path, rec->second.version);
    else if (!instance.empty())
      ops.create(path, instance, 0);
    if (instance.empty()) return;
    if (index)
      ops.set(index_path, std::to_string(id), index->second.version);
    else
      ops.create(index_path, std::to_string(id), 0);
  }

  /// The claim of `id`, with the namespace's age checked against the server's clock (the
  /// creation time of the node just made).
  lease_claim answer(std::uint64_t id, std::optional<std::int64_t> last) {
    lease_claim c;
    c.id = id;
    if (last) c.last = lease_time_of(*last);
    const auto ns = s_.exists(root_);
    const auto mine = s_.exists(root_ + "/held/" + std::to_string(id));
    if (ns && mine && mine->ctime - ns->ctime < hold_ms_)
      c.lost_memory_at = lease_time_of(ns->ctime);
    return c;
  }

  std::string ns_;
  std::string root_;
  std::int64_t hold_ms_;
  std::chrono::milliseconds retry_for_;  // lost answers of claims and releases: tried again
  std::vector<sent> sent_;
  zookeeper_session s_;
};

}  // namespace detail

/// A counter of a `zookeeper_store`, with its own session (opened on the first call). A copy
/// opens a session of its own. Throws `segment_store_error` when the ensemble cannot be
/// reached or the counter would pass 2^64 - 1. Thread-safety: every member may be called
/// concurrently (calls take turns on the session).
class zookeeper_distributor {
 public:
  zookeeper_distributor(zookeeper_address address, std::string key, store_options options = {})
      : address_(std::move(address)), options_(std::move(options)), key_(std::move(key)) {
    detail::check_segment_key(key_);
    detail::check_store_options(options_, "segment store");
    s_ = std::make_unique<state>(address_, options_);
    name_ = address_.where() + " namespace " + options_.name_space;
    path_ = "/flakeid/" + options_.name_space + "/segments/" + detail::zookeeper_node_name(key_);
  }
  zookeeper_distributor(const zookeeper_distributor& o)
      : zookeeper_distributor(o.address_, o.key_, o.options_) {
    idle_ms_ = o.idle_ms_;
  }
  zookeeper_distributor(zookeeper_distributor&&) noexcept = default;
  zookeeper_distributor& operator=(const zookeeper_distributor& o) {
    if (this != &o) *this = zookeeper_distributor(o);
    return *this;
  }
  zookeeper_distributor& operator=(zookeeper_distributor&&) noexcept = default;
  ~zookeeper_distributor() = default;

  /// Adds `step` to the counter (compare-and-set on the node's version) and returns its new
  /// value.
  std::uint64_t next_max_id(std::uint64_t step) {
    const std::string what = "next_max_id(" + std::to_string(step) + ")";
    std::lock_guard lk(s_->mutex);
    return call(what, [&]() -> std::uint64_t {
      if (idle_ms_ > 0 && !s_->swept) {
        sweep();
        s_->swept = true;
      }
      // The counter, and the ms it may stay idle on a second line when it may expire.
      const auto text = [&](std::uint64_t n) {
        return std::to_string(n) + (idle_ms_ > 0 ? "\n" + std::to_string(idle_ms_) : "");
      };
      for (;;) {
        const auto node = s_->session.get(path_);
        if (!node) {
          detail::zookeeper_ensure(s_->session, options_.name_space, {"segments"});
          if (s_->session.create(path_, text(step), 0)) return step;
          continue;
        }
        const auto cur = value_of(node->first, what);
        if (cur > UINT64_MAX - step) detail::throw_store_overflow(name_, key_, cur, step);
        const std::string v = text(cur + step);
        std::vector<zoo_op_t> ops(1);
        zoo_set_op_init(&ops[0], path_.c_str(), v.data(), static_cast<int>(v.size()),
                        node->second.version, nullptr);
        if (s_->session.multi(ops) == ZOK) return cur + step;
      }
    });
  }

  /// From now on every `next_max_id` also marks the counter as one that may be deleted once
  /// it has not been written for `idle` (the node's modification time, on the server's clock,
  /// against this host's); the first such call deletes the marked counters of the namespace
  /// that have been idle longer than they may be, each with a version check, so a counter
  /// written meanwhile stays. Not to be called while another thread uses this distributor.
  /// Throws `invalid_option_error` below 1 ms.
  void expire_after(std::chrono::milliseconds idle) {
    detail::check_timeout("segment counter", "expire_after", idle, std::chrono::milliseconds{1});
    idle_ms_ = idle.count();
  }

  /// The counter's value (0 when its node does not exist yet).
  [[nodiscard]] std::uint64_t current() {
    std::lock_guard lk(s_->mutex);
    return call("current()", [&]() -> std::uint64_t {
      const auto node = s_->session.get(path_);
      return node ? value_of(node->first, "current()") : 0;
    });
  }

  /// `zookeeper <hosts> namespace <ns>`.
  [[nodiscard]] std::string_view store_name() const noexcept { return name_; }
  /// The counter's key.
  [[nodiscard]] std::string_view key() const noexcept { return key_; }
  /// The counter's node.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// A distributor for counter `key` of the same ensemble and namespace, on a session of its
  /// own.
  [[nodiscard]] zookeeper_distributor with_key(const std::string& key) const {
    return {address_, key, options_};
  }

 private:
  struct state {
    state(const zookeeper_address& a, const store_options& o) : session(a, o.connect_timeout) {}
    std::mutex mutex;
    detail::zookeeper_session session;
    bool swept = false;  // the expired counters were deleted once
  };

  /// Deletes the counters of the namespace that may expire and have been idle too long.
  void sweep() {
    const std::string dir = "/flakeid/" + options_.name_space + "/segments";
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    for (const std::string& name : s_->session.children(dir)) {
      const std::string path = dir + "/" + name;
      const auto node = s_->session.get(path);
      if (!node) continue;
      const auto nl = node->first.find('\n');
      if (nl == std::string::npos) continue;
      const auto idle =
          detail::parse_decimal<std::int64_t>(std::string_view(node->first).substr(nl + 1));
      if (idle && node->second.mtime + *idle < now)
        (void)s_->session.remove(path, node->second.version);
    }
  }

  /// Runs `f` until it answers; a lost answer is tried again (after 20 ms, doubling up to
  /// 500 ms) until `io_timeout` has passed since the call began. `f` must be safe to repeat:
  /// every write is a compare-and-set against what it read.
  template <class F>
  std::uint64_t call(const std::string& what, F&& f) {
    return detail::segment_call(name_, key_, what, [&] {
      return detail::zookeeper_retry(
          detail::io_timeout_or(options_.io_timeout, detail::segment_io_timeout), f);
    });
  }

  std::uint64_t value_of(const std::string& text, const std::string& what) const {
    if (const auto v =
            detail::parse_decimal<std::uint64_t>(std::string_view(text).substr(0, text.find('\n'))))
      return *v;
    throw segment_store_error(name_, key_,
                              what + ": node " + path_ + " holds '" + text + "', not a counter");
  }

  zookeeper_address address_;
  store_options options_;
  std::string key_;
  std::string name_;
  std::string path_;
  std::int64_t idle_ms_ = 0;  // 0: the counter never expires
  std::unique_ptr<state> s_;
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
/// whose data, `{"ip":...,"port":...,"timestamp":<Unix ms>}`, is this clock's last report. As in
/// Leaf, a start whose clock is behind the reported timestamp is refused
/// (`clock_backwards_error`, with the step), and the timestamp is reported again every
/// `report_every` while the object lives; the generator also mints only after it. A Leaf
/// server and a flakeid process therefore never share a worker id unless they share an
/// address. Two flakeid processes with one address are refused: the one running holds the
/// ephemeral node `/snowflake/<name>/flakeid-live/<ip>:<port>`. A sequence past the layout's
/// node bits (Leaf's layout: 1023) is a `worker_id_error`. Other failures throw
/// `lease_store_error`.
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
    {
      std::lock_guard lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (reporter_.joinable()) reporter_.join();
  }

  /// Finds or makes this address's node and returns its sequence as the node of layout `l`.
  /// Call once.
  [[nodiscard]] worker_assignment assign(const layout& l) {
    std::lock_guard lk(m_);
    if (!node_.empty())
      detail::reject_worker("this Leaf worker was assigned already (" + node_ + ")");
    const std::string address = o_.ip + ":" + o_.port;
    const std::string forever = "/snowflake/" + o_.name + "/forever";
    const auto now_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
    std::int64_t reported = INT64_MIN;
    std::uint64_t seq = 0;
    detail::lease_call([&] {
      (void)s_.create("/snowflake", "", 0);
      (void)s_.create("/snowflake/" + o_.name, "", 0);
      (void)s_.create(forever, "", 0);
      (void)s_.create("/snowflake/" + o_.name + "/flakeid-live", "", 0);
      if (!s_.create("/snowflake/" + o_.name + "/flakeid-live/" + address, "", ZOO_EPHEMERAL))
        detail::reject_worker(s_.where() + ": another flakeid process serves " + address +
                              " in Leaf's /snowflake/" + o_.name + " (its node flakeid-live/" +
                              address + " is held)");
      for (const std::string& child : s_.children(forever)) {
        const auto dash = child.rfind('-');
        if (dash == std::string::npos || child.substr(0, dash) != address) continue;
        const auto n = detail::parse_decimal<std::uint64_t>(child.substr(dash + 1));
        if (!n) continue;
        node_ = forever + "/" + child;
        seq = *n;
        const auto data = s_.get(node_);
        if (data) reported = timestamp_of(data->first);
        break;
      }
      if (node_.empty()) {
        const std::string prefix = forever + "/" + address + "-";
        const std::string json = data_json(now_ms());
        std::string made(prefix.size() + 32, '\0');
        const int rc = s_.check(zoo_create(s_.handle(), prefix.c_str(), json.data(),
                                           static_cast<int>(json.size()), &ZOO_OPEN_ACL_UNSAFE,
                                           ZOO_PERSISTENT_SEQUENTIAL, made.data(),
                                           static_cast<int>(made.size())));
        if (rc != ZOK)
          throw detail::store_connection_error(s_.where() + ": create " + prefix + ": " +
                                               zerror(rc));
        made.resize(made.find('\0'));
        node_ = made;
        const auto n = detail::parse_decimal<std::uint64_t>(made.substr(made.rfind('-') + 1));
        if (!n)
          throw detail::store_connection_error(s_.where() + ": node " + made + " has no sequence");
        seq = *n;
      }
    });
    const std::int64_t now = now_ms();
    if (reported != INT64_MIN && reported > now)
      throw clock_backwards_error(
          "flakeid: " + s_.where() + " " + node_ + " holds a timestamp " +
              std::to_string(reported - now) +
              " ms ahead of this clock (Leaf's start-up check): wait until the clock passes it",
          std::chrono::milliseconds{reported - now});
    const std::uint64_t last = detail::last_node(l);
    if (seq > last)
      detail::reject_worker(s_.where() + " " + node_ + ": sequence " + std::to_string(seq) +
                            " is past the layout's " + std::to_string(detail::node_bits(l)) +
                            " datacenter and worker bits (0.." + std::to_string(last) + ")");
    worker_assignment a;
    a.node = detail::node_of(l, seq);
    a.not_after_unix_ms = reported;
    a.source = s_.where() + " " + node_;
    report(now);
    reporter_ = std::thread([this] { run(); });
    return a;
  }

  /// The node of this address (empty before `assign`).
  [[nodiscard]] std::string node() const {
    std::lock_guard lk(m_);
    return node_;
  }

 private:
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

  /// Writes `now` into the node unless the clock went back below the last report (as Leaf).
  void report(std::int64_t now) {
    if (now < last_report_) return;
    try {
      const std::string json = data_json(now);
      (void)s_.check(
          zoo_set(s_.handle(), node_.c_str(), json.data(), static_cast<int>(json.size()), -1));
      last_report_ = now;
    } catch (const std::exception&) {
      // The next report tries again; the start-up check only needs a timestamp that is not
      // ahead of the clock.
    }
  }

  void run() {
    std::unique_lock lk(m_);
    while (!cv_.wait_for(lk, o_.report_every, [&] { return stop_; }))
      report(std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count());
  }

  leaf_worker_options o_;
  detail::zookeeper_session s_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string node_;
  std::int64_t last_report_ = INT64_MIN;
  std::thread reporter_;
};

/// Worker-id leases and segment counters in one ZooKeeper namespace (see the file comment).
/// Cheap to copy; holds no session itself: each lease and each distributor has its own.
class zookeeper_store {
 public:
  explicit zookeeper_store(zookeeper_address address, store_options options = {})
      : address_(std::move(address)), options_(std::move(options)) {
    detail::check_store_options(options_, "segment store");
  }
  /// The same, from `host:port[,host:port...][/chroot]`.
  explicit zookeeper_store(std::string_view hosts, store_options options = {})
      : zookeeper_store(zookeeper_address{std::string(hosts)}, std::move(options)) {}

  /// A lease on a worker id of this store's namespace, with its own session.
  [[nodiscard]] flakeid::lease lease(lease_options options = {}) const {
    options = detail::lease_options_for_store(std::move(options), options_);
    return {std::make_unique<detail::zookeeper_lease_store>(address_, options), options};
  }
  /// A distributor for counter `key`, with its own session.
  [[nodiscard]] zookeeper_distributor distributor(const std::string& key) const {
    return {address_, key, options_};
  }
  /// The counter's value (0 when unused). Opens a session for the call.
  [[nodiscard]] std::uint64_t current(const std::string& key) const {
    return distributor(key).current();
  }
  [[nodiscard]] const zookeeper_address& address() const noexcept { return address_; }
  [[nodiscard]] const store_options& options() const noexcept { return options_; }

 private:
  zookeeper_address address_;
  store_options options_;
};

}  // namespace flakeid::inline FLAKEID_ABI_NAMESPACE
