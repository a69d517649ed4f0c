// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/zookeeper_connection.hpp
/// The ZooKeeper C client's session for `zookeeper_store` (see adapters/zookeeper.hpp): the
/// address, one synchronous session, the retry of a request whose answer was lost, node names
/// and the operations of one `multi`.

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
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "../../detail/fork_guard.hpp"
#include "../../detail/server_store.hpp"
#include "../../errors.hpp"
#include "../../version.hpp"
#include "../server_address.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// Where a ZooKeeper ensemble is: `host:port[,host:port...][/chroot]`, as the ZooKeeper
/// clients write it (each host read as a `server_address`'s is: an IPv6 address in brackets),
/// and the session timeout to ask for.
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
/// doubling up to 500 ms) until `until`, then the loss is thrown. `f` must be safe to repeat.
template <class F>
decltype(auto) zookeeper_retry(std::chrono::steady_clock::time_point until, F&& f) {
  using clock = std::chrono::steady_clock;
  constexpr std::chrono::milliseconds max_pause{500};
  for (std::chrono::milliseconds pause{20};; pause = std::min(pause * 2, max_pause)) {
    try {
      return f();
    } catch (const zookeeper_answer_lost&) {
      if (clock::now() + pause >= until) throw;
    }
    std::this_thread::sleep_for(pause);
  }
}

/// How long a lease's or a distributor's session may be cut off from every server before it
/// is given up for a new one (`zookeeper_session::replace_when_cut_for`): both make their nodes
/// again in a new session, so a session change loses nothing.
inline constexpr std::chrono::milliseconds zookeeper_patience{1'000};

/// One ZooKeeper session (opened on first use within `connect_timeout`; a new one after the
/// server expired it, or once the client has been cut off from every server for longer than
/// the session timeout the server granted, or the patience set by `replace_when_cut_for` when
/// shorter: a server restarted from an empty or older data directory refuses the old session
/// without saying so, as a client that saw a newer zxid than the server's is refused). Calls
/// are synchronous. Not thread-safe: one caller at a time.
class zookeeper_session {
 public:
  zookeeper_session(zookeeper_address a, std::chrono::milliseconds connect_timeout)
      : a_(std::move(a)), connect_timeout_(connect_timeout), where_(a_.where()) {
    if (a_.hosts.empty() || a_.session_timeout.count() < 1)
      throw invalid_option_error("flakeid: invalid ZooKeeper address '" + a_.hosts +
                                 "' or session timeout of " +
                                 std::to_string(a_.session_timeout.count()) + " ms");
    check_host_list(a_.hosts, "[::1]:2181",
                    [&](const std::string& why) { bad_server_uri("ZooKeeper", a_.hosts, why); });
  }
  zookeeper_session(const zookeeper_session&) = delete;
  zookeeper_session& operator=(const zookeeper_session&) = delete;
  ~zookeeper_session() { close(); }

  [[nodiscard]] const std::string& where() const noexcept { return where_; }

  /// Whether this process is a fork of the one the session was made in.
  [[nodiscard]] bool forked() const noexcept { return born_.forked(); }
  /// Throws `forked_process_error` in a child forked after the session was made: its owner
  /// calls it before taking a lock a parent's thread may have held.
  void check_fork() const {
    if (born_.forked()) throw_forked("this session of " + where_);
  }

  /// The handle of a connected session. A request made while the session is cut off waits
  /// here for the connection to come back (the client would hold it for two thirds of the
  /// session timeout), until the session has been cut off for its patience (then a new one is
  /// opened) or the deadline of the call (`retry`) has come: then
  /// `zookeeper_answer_lost`, as the client's "connection loss". Throws
  /// `store_connection_error` when no new session connects within `connect_timeout`.
  zhandle_t* handle() {
    check_fork();
    if (zh_ != nullptr) {
      const auto patience =
          replace_after_.count() > 0 ? std::min(granted_, replace_after_) : granted_;
      const link l = state_->await(patience, deadline_);
      if (l == link::up) return zh_;
      if (l == link::cut) throw zookeeper_answer_lost(where_ + ": " + zerror(ZCONNECTIONLOSS));
      close();
    }
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
    auto wait = connect_timeout_;
    if (deadline_)
      wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(
                                std::max(*deadline_ - std::chrono::steady_clock::now(),
                                         std::chrono::steady_clock::duration::zero())));
    if (!state_->wait_connected(wait)) {
      close();
      if (wait < connect_timeout_)  // the call's deadline came first: it may be tried again
        throw zookeeper_answer_lost(where_ + ": " + zerror(ZCONNECTIONLOSS));
      throw store_connection_error("cannot connect to " + where_ + " within " +
                                   std::to_string(connect_timeout_.count()) + " ms: timed out");
    }
    granted_ = std::chrono::milliseconds{zoo_recv_timeout(zh_)};
    return zh_;
  }

  /// Runs `f` (requests on this session) as `zookeeper_retry` does until `bound` has passed,
  /// which also bounds how long a request waits in `handle()` for a connection.
  template <class F>
  decltype(auto) retry(std::chrono::milliseconds bound, F&& f) {
    const auto before = deadline_;
    const auto until = std::chrono::steady_clock::now() + bound;
    deadline_ = before ? std::min(*before, until) : until;
    struct restore {
      zookeeper_session& s;
      std::optional<std::chrono::steady_clock::time_point> before;
      ~restore() { s.deadline_ = before; }
    } r{*this, before};
    return zookeeper_retry(until, std::forward<F>(f));
  }

  /// Gives the session up once it has been cut off from every server for longer than `after`
  /// (0, the default: the granted timeout), when that is shorter than the granted timeout: a
  /// request made while it is cut off waits for the connection to come back until then, and
  /// then opens a new session (waiting up to `connect_timeout` for it). A server restarted from
  /// an empty data directory never answers the old session, so a holder would otherwise wait
  /// out the whole timeout. The lease store, whose renewal makes its node again in the new
  /// session, and the segment distributor set it (`zookeeper_patience`); the Leaf worker,
  /// whose ephemeral node is its identity, does not.
  void replace_when_cut_for(std::chrono::milliseconds after) noexcept { replace_after_ = after; }

  /// Whether the session is open and connected to a server now.
  [[nodiscard]] bool connected() const { return zh_ != nullptr && state_->connected(); }

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
    if (born_.forked()) zh_ = nullptr;  // the client's threads are the parent's: no goodbye
    if (zh_ != nullptr) zookeeper_close(zh_);
    zh_ = nullptr;
  }

  /// In a forked child: forget the parent's handle without closing its session.
  void abandon() noexcept { zh_ = nullptr; }

 private:
  /// What a session's connection is to a request: connected, given up, or cut off still.
  enum class link { up, gone, cut };

  struct watch_state {
    std::mutex m;
    std::condition_variable cv;
    int state = 0;
    std::optional<std::chrono::steady_clock::time_point> cut_since;  // none while connected
    bool wait_connected(std::chrono::milliseconds t) {
      std::unique_lock lk(m);
      return cv.wait_for(lk, t, [&] { return state == ZOO_CONNECTED_STATE; });
    }
    bool connected() {
      std::lock_guard lk(m);
      return state == ZOO_CONNECTED_STATE;
    }
    /// Connected now, or again before it has been cut off for `limit` (waits for that, but not
    /// past `deadline`): `up`; `gone` once it has been, or when the session expired or was
    /// refused; `cut` when the deadline came first.
    link await(std::chrono::milliseconds limit,
               std::optional<std::chrono::steady_clock::time_point> deadline) {
      std::unique_lock lk(m);
      const auto settled = [&] {
        return state == ZOO_CONNECTED_STATE || state == ZOO_EXPIRED_SESSION_STATE ||
               state == ZOO_AUTH_FAILED_STATE;
      };
      if (settled() || !cut_since) return state == ZOO_CONNECTED_STATE ? link::up : link::gone;
      const auto given_up = *cut_since + limit;
      if (!cv.wait_until(lk, deadline ? std::min(given_up, *deadline) : given_up, settled))
        return std::chrono::steady_clock::now() < given_up ? link::cut : link::gone;
      return state == ZOO_CONNECTED_STATE ? link::up : link::gone;
    }
  };

  static void on_event(zhandle_t*, int type, int state, const char*, void* ctx) {
    if (type != ZOO_SESSION_EVENT || ctx == nullptr) return;
    auto* s = static_cast<watch_state*>(ctx);
    {
      std::lock_guard lk(s->m);
      s->state = state;
      if (state == ZOO_CONNECTED_STATE)
        s->cut_since.reset();
      else if (!s->cut_since)
        s->cut_since = std::chrono::steady_clock::now();
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
  std::chrono::milliseconds granted_{0};        // the session timeout the server granted
  std::chrono::milliseconds replace_after_{0};  // 0: the granted timeout
  std::optional<std::chrono::steady_clock::time_point> deadline_;  // of the running `retry`
  std::string where_;
  std::shared_ptr<watch_state> state_ = std::make_shared<watch_state>();
  zhandle_t* zh_ = nullptr;
  fork_stamp born_;
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
  /// Deletes `path` if it is still at `version`.
  void remove(std::string path, int version) {
    const std::string& p = keep(std::move(path));
    zoo_op_t op{};
    zoo_delete_op_init(&op, p.c_str(), version);
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

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
