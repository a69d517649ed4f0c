// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/zookeeper_cosid_machine.hpp
/// The lease store of `zookeeper_store::lease(options, zookeeper_nodes::cosid)`: worker ids in
/// the nodes of CosId's ZooKeeper machine-id distributor, shared with the CosId services of the
/// same namespace (adapters/zookeeper.hpp's file comment gives the rules).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../../detail/server_store.hpp"
#include "../../lease_store.hpp"
#include "../../version.hpp"
#include "zookeeper_connection.hpp"
#include "zookeeper_lease_store.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

class zookeeper_cosid_machine_store final : public lease_store {
 public:
  zookeeper_cosid_machine_store(zookeeper_address a, const lease_options& o)
      : ns_(o.name_space),
        root_("/cosid/" + o.name_space),
        t_(o),
        retry_for_(io_timeout_or(o.io_timeout, segment_io_timeout)),
        s_(std::move(a), o.connect_timeout) {}

  [[nodiscard]] std::string where() const override { return s_.where(); }

  std::optional<lease_claim> do_claim(const claim_request& q) override {
    // CosId's instance node: the lease's instance, or its token (host:pid:random).
    field_ = q.instance.empty() ? q.holder : q.instance;
    me_ = root_ + "/__itc_idx/" + field_;
    pending_.reset();
    return s_.retry(retry_for_, [&] { return claim_once(q); });
  }

  /// CosId's guard: the instance's node gets the renewal's send time, while it names this id.
  renewal do_renew(std::uint64_t id, const std::string& /*holder*/, lease_time deadline) override {
    const std::string data =
        std::to_string(id) + "|" + std::to_string(unix_ms_of(deadline) - t_.hold_ms);
    return s_.retry(retry_for_, [&] {
      const auto node = s_.get(me_);
      if (!node) return renewal::taken;
      if (node->first == data) return renewal::held;  // an answer lost on the way
      const auto st = state_of(node->first);
      if (!st || st->first != static_cast<std::int64_t>(id)) return renewal::taken;
      zookeeper_ops ops;
      ops.set(me_, data, node->second.version);
      return ops.run(s_) == ZOK ? renewal::held : renewal::taken;
    });
  }

  /// CosId's revert, with the millisecond after the last one used: not stable, the instance's
  /// node goes and `__revert/<id>` holds the id; stable, the instance's node keeps it, and
  /// flakeid's `/flakeid/<ns>/cosid-stable/<instance>` the version that write gives the node: the
  /// instance's next claim that finds the same node at that version (not guarded since) takes
  /// the id at once.
  void do_release(std::uint64_t id, const std::string& /*holder*/, lease_time last) override {
    const std::string i = std::to_string(id);
    const std::string data = i + "|" + std::to_string(unix_ms_of(last) + 1);
    if (t_.stable) zookeeper_ensure(s_, ns_, {"cosid-stable"});
    s_.retry(retry_for_, [&] {
      const auto node = s_.get(me_);
      if (!node) return;
      const auto st = state_of(node->first);
      if (!st || st->first != static_cast<std::int64_t>(id)) return;
      if (t_.stable) {
        zookeeper_ops ops;
        ops.set(me_, data, node->second.version);
        const std::string version = mark_of(node->second.czxid, node->second.version + 1);
        if (const auto mark = s_.exists(stable_mark())) {
          ops.set(stable_mark(), version, mark->version);
        } else {
          ops.create(stable_mark(), version, 0);
        }
        (void)ops.run(s_);
        return;
      }
      const std::string rp = root_ + "/__revert/" + i;
      const auto rev = s_.exists(rp);
      zookeeper_ops ops;
      ops.remove(me_, node->second.version);
      if (rev) {
        ops.set(rp, data, -1);
      } else {
        ops.create(rp, data, 0);
      }
      (void)ops.run(s_);
    });
  }

  std::optional<lease_time> do_clock() override {
    return s_.retry(retry_for_, [&] { return zookeeper_clock(s_, ns_); });
  }

  void abandon_after_fork() noexcept override { s_.abandon(); }

 private:
  /// CosId's state "<machine id>|<stamp>", or nothing.
  static std::optional<std::pair<std::int64_t, std::int64_t>> state_of(const std::string& v) {
    const auto bar = v.find('|');
    if (bar == std::string::npos) return std::nullopt;
    const auto i = parse_decimal<std::int64_t>(std::string_view(v).substr(0, bar));
    const auto s = parse_decimal<std::int64_t>(std::string_view(v).substr(bar + 1));
    if (!i || !s || *i < 0) return std::nullopt;
    return std::pair{*i, *s};
  }

  /// A node another holder gave up, as a candidate: its path, version, id and deadline.
  struct candidate {
    std::string path;
    int version = -1;
    std::int64_t id = -1;
    std::int64_t deadline = 0;
  };

  /// The best candidate (earliest deadline) among the children of `dir` below the count and
  /// not recorded past `skip_above`: released ids (`held` false: the stamp is the deadline) or
  /// instances whose stamp is older than ttl (the deadline: stamp + ttl).
  std::optional<candidate> best_in(const std::string& dir, bool held, const claim_request& q) {
    std::optional<candidate> best;
    for (const std::string& name : s_.children(dir)) {
      const std::string path = dir + "/" + name;
      if (held && path == me_) continue;
      const auto node = s_.get(path);
      if (!node) continue;
      const auto st = state_of(node->first);
      if (!st || st->first >= static_cast<std::int64_t>(q.count)) continue;
      // A holder is alive at its stamp and at its node's last write: CosId's distributor
      // hands out a released id with its old stamp, guarded only a minute later.
      const std::int64_t alive = std::max<std::int64_t>(st->second, node->second.mtime);
      if (held && alive > unix_ms_of(q.now) - t_.ttl_ms) continue;
      const std::int64_t d = held ? alive + t_.ttl_ms : st->second;
      if (d > unix_ms_of(q.skip_above)) continue;
      if (!best || d < best->deadline) best = candidate{path, node->second.version, st->first, d};
    }
    return best;
  }

  /// What a step of a claim decided: the answer is `out` (`done`), another claimer changed a
  /// node first (`raced`: try again), or the next step decides (`passed`).
  enum class step { done, raced, passed };

  std::optional<lease_claim> claim_once(const claim_request& q) {
    if (pending_) {  // a take whose answer was lost: the node holds what it wrote
      const auto node = s_.get(me_);
      if (node && node->first == pending_->second) return answer(pending_->first);
    }
    for (const std::string& p :
         {std::string("/cosid"), root_, root_ + "/__itc_idx", root_ + "/__revert"})
      (void)s_.create(p, "", 0);  // persistent, as CosId makes them
    const std::string now = unix_ms_text(q.now);
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::optional<lease_claim> out;
      if (claim_step(q, now, out) == step::done) return out;
    }
    return std::nullopt;
  }

  /// One try: the instance's own node; else, unless a released id has settled, the counter's
  /// next id; else the node another holder gave up with the earliest deadline (`out` stays
  /// empty when there is none).
  step claim_step(const claim_request& q, const std::string& now, std::optional<lease_claim>& out) {
    if (!q.instance.empty()) {
      const step s = claim_own_node(q, now, out);
      if (s != step::passed) return s;
    }
    const auto rev = best_in(root_ + "/__revert", false, q);
    const bool settled = rev && rev->deadline <= unix_ms_of(q.settled);
    auto take = rev;
    if (!settled) {
      const step s = claim_from_counter(q, now, out);
      if (s != step::passed) return s;
      const auto old = best_in(root_ + "/__itc_idx", true, q);
      if (old && (!take || old->deadline < take->deadline)) take = old;
    }
    if (!take) return step::done;
    return take_over(*take, now, out);
  }

  /// The instance's own node, when it has one: its id while the instance keeps it (a stable
  /// release not guarded since: free to take; a stamp younger than ttl: held by the instance),
  /// else taken again with a new stamp. `passed` when the instance has no node.
  step claim_own_node(const claim_request& q, const std::string& now,
                      std::optional<lease_claim>& out) {
    const auto own = s_.get(me_);
    if (!own) return step::passed;
    const auto st = state_of(own->first);
    if (!st || st->first >= static_cast<std::int64_t>(q.count)) return step::done;
    lease_claim c;
    c.id = static_cast<std::uint64_t>(st->first);
    c.last = lease_time_of(st->second + t_.ttl_ms);
    std::string data = std::to_string(st->first) + "|" + now;
    zookeeper_ops ops;
    const auto mark = s_.get(stable_mark());
    if (mark && mark->first == mark_of(own->second.czxid, own->second.version)) {
      // Reverted stably, not guarded since: the instance's, free.
      c.last = lease_time_of(st->second);
      data = std::to_string(st->first) + "|" +
             std::to_string(std::max(unix_ms_of(q.now), st->second + 1));
      ops.set(me_, data, own->second.version);
      ops.remove(stable_mark(), mark->second.version);
    } else if (st->second + t_.ttl_ms > unix_ms_of(q.now)) {
      c.held_by_instance = true;
      out = c;
      return step::done;
    } else {
      ops.set(me_, data, own->second.version);
    }
    if (!send(ops, c, data)) return step::raced;
    out = answer(c);
    out->own_instance = true;
    return step::done;
  }

  /// The counter (4 bytes, big-endian, absent: 0) hands out its value and counts on, while it
  /// is below the count (else `passed`).
  step claim_from_counter(const claim_request& q, const std::string& now,
                          std::optional<lease_claim>& out) {
    const std::string cp = root_ + "/__counter";
    const auto counter = s_.get(cp);
    const std::int64_t n = counter ? counter_value(counter->first) : 0;
    if (n >= static_cast<std::int64_t>(q.count)) return step::passed;
    zookeeper_ops ops;
    if (counter) {
      ops.set(cp, counter_bytes(n + 1), counter->second.version);
    } else {
      ops.create(cp, counter_bytes(n + 1), 0);
    }
    lease_claim c;
    c.id = static_cast<std::uint64_t>(n);
    ops.create(me_, std::to_string(n) + "|" + now, 0);
    const auto seen = count_seen(n);
    if (!send(ops, c, std::to_string(n) + "|" + now)) return step::raced;
    // The count of ids the counter handed out, as flakeid saw it: a counter below it was made
    // again (CosId's nodes deleted).
    if (n < seen.first) c.lost_memory_at = lease_time_of(unix_ms_of(zookeeper_clock(s_, ns_)));
    if (n + 1 > seen.first) {
      zookeeper_ops raise;
      raise.set(count_path(), std::to_string(n + 1), seen.second);
      (void)raise.run(s_);
    }
    out = answer(c);
    return step::done;
  }

  /// Takes the id of `take`, a node another holder gave up, in place of it.
  step take_over(const candidate& take, const std::string& now, std::optional<lease_claim>& out) {
    const std::string data = std::to_string(take.id) + "|" + now;
    zookeeper_ops ops;
    ops.remove(take.path, take.version);
    ops.create(me_, data, 0);
    lease_claim c;
    c.id = static_cast<std::uint64_t>(take.id);
    c.last = lease_time_of(take.deadline);
    if (!send(ops, c, data)) return step::raced;
    out = answer(c);
    return step::done;
  }

  /// Runs `ops`, remembering the claim `c` it makes (so that a retry after a lost answer finds
  /// it); false when another claimer changed a node first.
  bool send(zookeeper_ops& ops, const lease_claim& c, const std::string& data) {
    pending_ = std::pair{c, data};
    const int rc = ops.run(s_);
    if (rc == ZOK) return true;
    pending_.reset();
    return false;
  }

  /// The mark of this lease's instance's stable release (`/flakeid/<ns>/cosid-stable/<name>`).
  [[nodiscard]] std::string stable_mark() const {
    return "/flakeid/" + ns_ + "/cosid-stable/" + zookeeper_node_name(field_);
  }

  /// What the mark holds: the instance node's creation and its version after the release (a
  /// node deleted and made again is another node, whatever its version).
  static std::string mark_of(std::int64_t czxid, std::int64_t version) {
    return std::to_string(czxid) + " " + std::to_string(version);
  }

  /// flakeid's count of the ids CosId's counter handed out (`/flakeid/<ns>/cosid-count`).
  [[nodiscard]] std::string count_path() const { return "/flakeid/" + ns_ + "/cosid-count"; }

  /// The count and its node's version; made (at `counter`) when missing.
  std::pair<std::int64_t, int> count_seen(std::int64_t counter) {
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (const auto node = s_.get(count_path()))
        return {parse_decimal<std::int64_t>(node->first).value_or(0), node->second.version};
      zookeeper_ensure(s_, ns_, {});
      (void)s_.create(count_path(), std::to_string(counter), 0);
    }
    throw store_connection_error(where() + ": cannot make " + count_path());
  }

  /// `c` with the loss of memory: CosId's namespace node or flakeid's count younger than
  /// `ttl + safe_guard` on the ensemble's clock (made anew, or deleted and made again).
  lease_claim answer(lease_claim c) {
    pending_.reset();
    const std::int64_t now = unix_ms_of(zookeeper_clock(s_, ns_));
    (void)count_seen(0);
    for (const std::string& p : {root_, count_path()}) {
      const auto made = s_.exists(p);
      if (made && now - made->ctime < t_.lost_ms &&
          (!c.lost_memory_at || unix_ms_of(*c.lost_memory_at) < made->ctime))
        c.lost_memory_at = lease_time_of(made->ctime);
    }
    return c;
  }

  static std::int64_t counter_value(const std::string& b) {
    if (b.size() != 4) return 0;
    std::uint32_t v = 0;
    for (const char ch : b) v = (v << 8) | static_cast<unsigned char>(ch);
    return static_cast<std::int32_t>(v);
  }
  static std::string counter_bytes(std::int64_t n) {
    const auto v = static_cast<std::uint32_t>(n);
    return {static_cast<char>(v >> 24), static_cast<char>((v >> 16) & 0xff),
            static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)};
  }

  std::string ns_;
  std::string root_;
  cosid_lease_times t_;
  std::chrono::milliseconds retry_for_;
  std::string field_;                                           // the instance node's name
  std::string me_;                                              // its path
  std::optional<std::pair<lease_claim, std::string>> pending_;  // a take sent, its node's data
  zookeeper_session s_;
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
