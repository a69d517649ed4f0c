// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/zookeeper_lease_store.hpp
/// The lease store of `zookeeper_store` (see adapters/zookeeper.hpp, "Leases").

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../detail/server_store.hpp"
#include "../../lease.hpp"
#include "../../version.hpp"
#include "zookeeper_connection.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// The time the ensemble's leader stamps a write with: the `mtime` of `/flakeid/<ns>/clock`,
/// written for it (the write changes nothing else, so a caller may ask again when the answer
/// was lost).
inline lease_time zookeeper_clock(zookeeper_session& s, const std::string& ns) {
  const std::string p = "/flakeid/" + ns + "/clock";
  for (int attempt = 0; attempt < 2; ++attempt) {
    Stat written{};
    std::vector<zoo_op_t> ops(1);
    zoo_set_op_init(&ops[0], p.c_str(), "", 0, -1, &written);
    const int rc = s.multi(ops);
    if (rc == ZOK) return lease_time_of(written.mtime);
    if (rc != ZNONODE) break;
    zookeeper_ensure(s, ns, {"clock"});
  }
  throw store_connection_error(s.where() + ": cannot write " + p + " to read the server's clock");
}

class zookeeper_lease_store final : public lease_store {
 public:
  zookeeper_lease_store(zookeeper_address a, const lease_options& o)
      : ns_(o.name_space),
        root_("/flakeid/" + o.name_space),
        hold_ms_((o.ttl + o.safe_guard).count()),
        ttl_ms_(o.ttl.count()),
        guard_ms_(o.safe_guard.count()),
        retry_for_(io_timeout_or(o.io_timeout, segment_io_timeout)),
        s_(std::move(a), o.connect_timeout) {
    s_.replace_when_cut_for(zookeeper_patience);
  }

  [[nodiscard]] std::string where() const override { return s_.where(); }

  std::optional<lease_claim> do_claim(const claim_request& q) override {
    sent_.clear();
    return s_.retry(retry_for_, [&] { return claim_once(q); });
  }

  /// Answers `held` only when `held/<id>` is this session's and holds `holder`, and
  /// `last/<id>` is the node this lease's claim wrote (same creation zxid) and no older than
  /// its last write (the ensemble's history did not go back). A deadline node lost so is
  /// marked as a loss for the next claimers (see `answer`).
  renewal do_renew(std::uint64_t id, const std::string& holder, lease_time deadline) override {
    const std::string i = std::to_string(id);
    // `last/<id>` first, then `held/<id>`: a takeover (`stale_held`) makes `held/<id>` again
    // and writes `last/<id>` in one `multi`. Read before it, `last/<id>`'s version fails this
    // renewal's write; read after it, `held/<id>` is another session's. (Read the other way
    // round, a takeover between the two reads let both hold the id: the fault soak found it.)
    const std::string lp = root_ + "/last/" + i;
    const auto last = s_.get(lp);
    if (between_renewal_reads) between_renewal_reads();
    const std::string hp = root_ + "/held/" + i;
    const auto held = s_.get(hp);
    if (!held || held->first != holder) return renewal::taken;
    // `held/<id>` of another session with this lease's holder token: this store's session
    // before it gave it up (`zookeeper_patience`), which the server has not expired yet.
    const bool adopt = held->second.ephemeralOwner != s_.session_id();
    if (!last || !ours(last->second)) return adopt ? renewal::taken : lost_record();
    const auto prev = parse_decimal<std::int64_t>(last->first);
    const std::string rec =
        std::to_string(std::max(prev.value_or(INT64_MIN), unix_ms_of(deadline)));
    // `held/<id>` must still be there (one deleted since the read fails the `multi`), and
    // `last/<id>` as read: any claim since wrote it. An adopted `held/<id>` is made again in
    // this session, so that the old one's expiry does not take it.
    Stat written{};
    std::vector<zoo_op_t> ops(adopt ? 3 : 2);
    if (adopt) {
      zoo_delete_op_init(&ops[0], hp.c_str(), held->second.version);
      zoo_create_op_init(&ops[1], hp.c_str(), holder.data(), static_cast<int>(holder.size()),
                         &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, nullptr, 0);
    } else {
      zoo_check_op_init(&ops[0], hp.c_str(), held->second.version);
    }
    zoo_set_op_init(&ops.back(), lp.c_str(), rec.data(), static_cast<int>(rec.size()),
                    last->second.version, &written);
    if (s_.multi(ops) != ZOK) return renewal::taken;
    if (!ours(written)) return lost_record();
    written_zxid_ = written.mzxid;
    return renewal::held;
  }

  void do_release(std::uint64_t id, const std::string& holder, lease_time last) override {
    s_.retry(retry_for_, [&] { release_once(id, holder, last); });
  }

  /// The time the ensemble's leader stamps a write with: the `mtime` of `<root>/clock`,
  /// written for it (an answer lost on the way is asked again: the write changes nothing else).
  std::optional<lease_time> do_clock() override {
    return s_.retry(retry_for_, [&] { return zookeeper_clock(s_, ns_); });
  }

  void abandon_after_fork() noexcept override { s_.abandon(); }

  /// For the tests: called between a renewal's two reads (`last/<id>`, then `held/<id>`).
  std::function<void()> between_renewal_reads;

 private:
  using znode = std::pair<std::string, Stat>;

  /// A claim `multi` sent during the current `claim`: the id, the previous holder's record as
  /// read before it, and whether it took the instance's own id.
  struct sent {
    std::uint64_t id;
    std::optional<std::int64_t> last;
    bool own_instance;
  };

  /// One try of `release`: a try after one that was applied finds the id no longer held. The
  /// holder's node is known by its token, also in a session the store has given up (which
  /// the server may keep until it expires).
  void release_once(std::uint64_t id, const std::string& holder, lease_time last) {
    const std::string i = std::to_string(id);
    const std::string hp = root_ + "/held/" + i;
    const std::string lp = root_ + "/last/" + i;
    const auto held = s_.get(hp);
    if (!held || held->first != holder) return;
    const std::string rec = std::to_string(unix_ms_of(last));
    std::vector<zoo_op_t> ops(2);
    zoo_set_op_init(&ops[0], lp.c_str(), rec.data(), static_cast<int>(rec.size()), -1, nullptr);
    zoo_delete_op_init(&ops[1], hp.c_str(), held->second.version);
    (void)s_.multi(ops);
  }

  /// The instance's index node (in `index`), and the id it names when that id's record names
  /// the instance too (otherwise the index is stale: another lease took the id since).
  std::optional<std::pair<std::uint64_t, znode>> own_id(const claim_request& q,
                                                        const std::string& index_path,
                                                        std::optional<znode>& index) {
    index = s_.get(index_path);
    const auto id = index ? parse_decimal<std::uint64_t>(index->first) : std::nullopt;
    if (!id || *id >= q.count) return std::nullopt;
    auto rec = s_.get(instance_path(*id));
    if (!rec || rec->first != q.instance) return std::nullopt;
    return std::pair{*id, std::move(*rec)};
  }

  /// An id that nobody holds, with its record and the record's version.
  struct candidate {
    std::uint64_t id;
    std::optional<std::int64_t> last;
    int version;
    /// The version of a `held/<id>` whose holder's deadline has passed by `safe_guard`
    /// (`stale_held`); -1: no `held/<id>`.
    int held_version = -1;
  };

  /// The version of `held/<name>` when its holder's recorded deadline `last` is settled
  /// (`claim_request::settled`: it passed `safe_guard` ago, so the holder's fence is down and
  /// its clock cannot be behind by more): the holder died or lost the store, and its session,
  /// which would remove the node, has not expired yet. Such an id is taken as if free (the
  /// node deleted at that version and made again in one `multi`); the old holder's renewal
  /// then finds the node another session's and answers `taken`. Nothing when the node is this
  /// session's or gone, or the deadline has not settled.
  ///
  /// A holder records a deadline ahead of the time of its write (`written`, the leader's time
  /// of the node's last write), less any clock skew: a `last` more than `safe_guard` before it
  /// was written by hand, and counts as `written + ttl`, the latest deadline the holder could
  /// have had then (an operator setting an older deadline let a claim take over a live holder's
  /// id at once, and both minted: 1,001,926 of 2,005,000 IDs repeated).
  std::optional<int> stale_held(const std::string& name, std::optional<std::int64_t>& last,
                                std::int64_t written, const claim_request& q) {
    if (!last) return std::nullopt;
    const std::int64_t bound =
        *last < written - guard_ms_ ? std::max(*last, written + ttl_ms_) : *last;
    if (bound > unix_ms_of(q.settled)) return std::nullopt;
    const auto held = s_.exists(root_ + "/held/" + name);
    if (!held || held->ephemeralOwner == s_.session_id()) return std::nullopt;
    last = bound;
    return held->version;
  }

  /// The ids below `q.count` that nobody holds (or whose holder's deadline has settled:
  /// `stale_held`), whose record lies at most `q.skip_above` and that are not kept for another
  /// instance (`claim_request::kept_after`), in order of preference: settled ones first (by
  /// id), then by the earliest record. `next` becomes one above the largest id ever recorded.
  std::vector<candidate> free_ids(const claim_request& q, std::uint64_t& next) {
    const auto held = s_.children(root_ + "/held");
    std::vector<candidate> free;
    for (const std::string& name : s_.children(root_ + "/last")) {
      const auto id = parse_decimal<std::uint64_t>(name);
      if (!id) continue;
      next = std::max(next, *id + 1);
      if (*id >= q.count) continue;
      const auto node = s_.get(root_ + "/last/" + name);
      if (!node) continue;
      auto last = parse_decimal<std::int64_t>(node->first);
      int held_version = -1;
      if (std::find(held.begin(), held.end(), name) != held.end()) {
        const std::optional<int> stale = stale_held(name, last, node->second.mtime, q);
        if (!stale) continue;
        held_version = *stale;
      }
      if (last && *last > unix_ms_of(q.skip_above)) continue;
      if (last && *last > unix_ms_of(q.kept_after)) {  // kept for another instance?
        const auto inst = s_.get(instance_path(*id));
        if (inst && kept_for_another(inst->first, lease_time_or_none(*last), q)) continue;
      }
      free.push_back({*id, last, node->second.version, held_version});
    }
    const std::int64_t settled = unix_ms_of(q.settled);
    std::sort(free.begin(), free.end(), [&](const candidate& x, const candidate& y) {
      const auto key = [&](const candidate& c) {
        const bool waits = c.last && *c.last > settled;
        return std::pair{waits, waits ? *c.last : 0};
      };
      return std::pair{key(x), x.id} < std::pair{key(y), y.id};
    });
    return free;
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
      if (named) own = own_id(q, index_path, index);
      if (own) {
        const own_result r = claim_own(q, own->first, own->second, index_path, *index);
        if (r.claim) return r.claim;
        if (r.retry) continue;
        // Its deadline node is missing: claim as usual.
      }
      std::uint64_t next = 0;
      const std::vector<candidate> free = free_ids(q, next);
      const std::string d = std::to_string(unix_ms_of(q.deadline));
      bool lost_race = false;
      for (const candidate& c : free) {
        const std::string id = std::to_string(c.id);
        const std::string rec =
            std::to_string(std::max(c.last.value_or(INT64_MIN), unix_ms_of(q.deadline)));
        zookeeper_ops ops;
        if (c.held_version >= 0) ops.remove(root_ + "/held/" + id, c.held_version);
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
  /// names `id`), when no other session holds it (or its holder's deadline has settled:
  /// `stale_held`); else reports it held. Neither when its
  /// deadline node is missing.
  own_result claim_own(const claim_request& q, std::uint64_t id, const znode& rec,
                       const std::string& index_path, const znode& index) {
    const std::string i = std::to_string(id);
    const std::string hp = root_ + "/held/" + i;
    const std::string lp = root_ + "/last/" + i;
    const auto held = s_.exists(hp);
    const auto last_node = s_.get(lp);
    if (!last_node) return {};
    auto last = parse_decimal<std::int64_t>(last_node->first);
    // Held by a session whose holder's deadline has settled: taken as if free.
    const std::optional<int> stale =
        held ? stale_held(i, last, last_node->second.mtime, q) : std::nullopt;
    if (held && held->ephemeralOwner != s_.session_id() && !stale) {
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
    if (stale) {
      ops.remove(hp, *stale);
      ops.create(hp, q.holder, ZOO_EPHEMERAL);
    } else if (held) {
      ops.check(hp, held->version);  // this session's already: a claim whose answer was lost
    } else {
      ops.create(hp, q.holder, ZOO_EPHEMERAL);
    }
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

  /// Whether `st` is the deadline node this lease's claim wrote, as it left it or later.
  [[nodiscard]] bool ours(const Stat& st) const noexcept {
    return st.czxid == record_czxid_ && st.mzxid >= written_zxid_;
  }

  /// Marks a loss on `last` (its modification time: see `answer`) and answers `taken`.
  renewal lost_record() {
    const std::string dir = root_ + "/last";
    if (const auto d = s_.get(dir))
      (void)s_.check(zoo_set(s_.handle(), dir.c_str(), d->first.data(),
                             static_cast<int>(d->first.size()), d->second.version));
    return renewal::taken;
  }

  /// What the namespace node says of the ensemble's zxid epoch.
  struct epoch_seen {
    bool changed = false;                    ///< not the epoch it recorded: noticed now
    std::optional<std::int64_t> noticed_at;  ///< when a claim noticed the recorded epoch begin
  };

  /// Compares the zxid epoch of `mine` (the node just made) with the one the namespace node
  /// records, as "<epoch> <Unix ms when a claim noticed it begin, 0: at the first record>",
  /// and records a new one. Each election, and each restart of an ensemble (perhaps from an
  /// older data directory), begins an epoch; a standalone server keeps its epoch.
  epoch_seen note_epoch(const znode& ns, const Stat& mine) {
    const std::int64_t epoch = mine.czxid >> 32;
    const std::string_view data = ns.first;
    const auto sp = data.find(' ');
    const auto seen = parse_decimal<std::int64_t>(data.substr(0, sp));
    if (seen && *seen == epoch) {
      const auto at = sp == std::string_view::npos
                          ? std::nullopt
                          : parse_decimal<std::int64_t>(data.substr(sp + 1));
      return {false, at && *at > 0 ? at : std::nullopt};
    }
    const std::string rec = std::to_string(epoch) + " " + std::to_string(seen ? mine.ctime : 0);
    (void)s_.check(zoo_set(s_.handle(), root_.c_str(), rec.data(), static_cast<int>(rec.size()),
                           ns.second.version));
    return {seen.has_value(), std::nullopt};
  }

  /// The claim of `id`. It reports a loss (`lost_memory_at`) when, on the server's clock
  /// against the creation of the `held/<id>` just made, within `ttl + safe_guard`: the
  /// namespace was made (or made again); the ensemble's zxid epoch changed since a claim last
  /// looked, or a claim noticed it change (`note_epoch`); `last` was made, or a loss was
  /// marked on it (its modification time); or a deadline node was deleted since a claim last
  /// looked (`last`'s child changes against its children: the store never deletes them, so
  /// every deletion was a loss), which this claim then marks, recording the count in `last`.
  lease_claim answer(std::uint64_t id, std::optional<std::int64_t> last) {
    lease_claim c;
    c.id = id;
    if (last) c.last = lease_time_of(*last);
    const std::string i = std::to_string(id);
    if (const auto rec = s_.exists(root_ + "/last/" + i)) {
      record_czxid_ = rec->czxid;
      written_zxid_ = rec->mzxid;
    }
    const auto mine = s_.exists(root_ + "/held/" + i);
    if (!mine) return c;
    std::optional<std::int64_t> lost;
    const auto note = [&](std::int64_t at) {
      if (mine->ctime - at < hold_ms_) lost = std::max(lost.value_or(at), at);
    };
    if (const auto ns = s_.get(root_)) {
      note(ns->second.ctime);
      const epoch_seen e = note_epoch(*ns, *mine);
      if (e.changed) lost = mine->ctime;
      if (e.noticed_at) note(*e.noticed_at);
    }
    const std::string dir_path = root_ + "/last";
    if (const auto dir = s_.get(dir_path)) {
      const std::int64_t deleted = (dir->second.cversion - dir->second.numChildren) / 2;
      if (deleted > parse_decimal<std::int64_t>(dir->first).value_or(0)) {
        const std::string n = std::to_string(deleted);
        (void)s_.check(zoo_set(s_.handle(), dir_path.c_str(), n.data(), static_cast<int>(n.size()),
                               dir->second.version));
        lost = mine->ctime;
      } else {
        note(dir->second.mtime);
      }
    }
    if (lost) c.lost_memory_at = lease_time_of(*lost);
    return c;
  }

  std::string ns_;
  std::string root_;
  std::int64_t hold_ms_;
  std::int64_t ttl_ms_;
  std::int64_t guard_ms_;
  std::chrono::milliseconds retry_for_;  // lost answers of claims and releases: tried again
  std::vector<sent> sent_;
  std::int64_t record_czxid_ = 0;  // the creation of the held id's deadline node
  std::int64_t written_zxid_ = 0;  // the last write of it by this lease
  zookeeper_session s_;
};

}  // namespace detail

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
