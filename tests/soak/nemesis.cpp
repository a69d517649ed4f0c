// The nemesis of the fault soak: faults drawn from a seeded generator, several at once on
// different targets (a minter slot, its clock, the server, the network, the disk). What each
// kind does is in docs/soak.md.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness.hpp"

namespace flakeid_soak {

struct nemesis::fault {
  std::string kind;
  std::string target;  // "slot<n>", "clock<n>", "server", "net", "disk"
  int slot = -1;
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;  // planned
  std::int64_t offset_ms = 0;
  std::string detail = "-";
};

namespace {

const std::vector<std::string> all_kinds{
    "minter_pause", "minter_kill", "server_kill", "server_wipe", "server_pause",    "clock_step",
    "forget",       "partition",   "fork",        "disk_full",   "minter_partition"};

bool nft_available() { return ::access("/usr/sbin/nft", X_OK) == 0; }

int nft(const std::string& rule, const std::string& log) {
  return run_program({"/usr/sbin/nft", rule}, log);
}

}  // namespace

nemesis::nemesis(const soak_config& c, soak_server& server, minter_pool& pool, std::string dir,
                 std::uint64_t seed)
    : c_(c), server_(server), pool_(pool), dir_(std::move(dir)), rng_(seed) {
  log_ = dir_ + "/faults.log";
  const bool file = server_.port() == 0;
  nft_table_ = "flakeid_soak_" + std::to_string(::getpid());
  for (const std::string& k : all_kinds) {
    if (std::find(c_.skip.begin(), c_.skip.end(), k) != c_.skip.end()) continue;
    if (file && (k.rfind("server_", 0) == 0 || k == "partition")) continue;
    if (k == "disk_full" && server_.disk().empty()) continue;
    if ((k == "partition" || k == "minter_partition") && (file || !nft_available())) continue;
    // One minter's packets are told from the others' by its own uid (the harness as root).
    if (k == "minter_partition" && minter_user(0, true).first == minter_user().first) continue;
    if ((k == "server_wipe" && !server_.can_wipe()) || (k == "forget" && !server_.can_forget()))
      continue;
    kinds_.push_back(k);
  }
  for (const std::string& k : server_.own_kinds())
    if (std::find(c_.skip.begin(), c_.skip.end(), k) == c_.skip.end()) kinds_.push_back(k);
  const auto drop = [this](const char* k) {
    const auto it = std::find(kinds_.begin(), kinds_.end(), k);
    if (it != kinds_.end()) kinds_.erase(it);
  };
  const auto has = [this](const char* k) {
    return std::find(kinds_.begin(), kinds_.end(), k) != kinds_.end();
  };
  if (has("partition") || has("minter_partition")) {
    const std::string l = dir_ + "/nft.log";
    if (nft("add table inet " + nft_table_, l) != 0 ||
        nft("add chain inet " + nft_table_ + " out { type filter hook output priority 0 ; }", l) !=
            0) {
      drop("partition");
      drop("minter_partition");
    }
  }
  next_ms_ = wall_ms() + 2'000;  // the minters' first leases first
}

nemesis::~nemesis() {
  finish();
  (void)nft("delete table inet " + nft_table_, dir_ + "/nft.log");
}

double nemesis::uniform(double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng_);
}

bool nemesis::busy(const std::string& target) const {
  return std::any_of(active_.begin(), active_.end(),
                     [&](const fault* f) { return f->target == target; });
}

int nemesis::free_slot(const std::string& prefix) {
  std::vector<int> free;
  for (int s = 0; s < pool_.size(); ++s)
    if (!busy(prefix + std::to_string(s))) free.push_back(s);
  if (free.empty()) return -1;
  return free[std::uniform_int_distribution<std::size_t>(0, free.size() - 1)(rng_)];
}

void nemesis::tick() {
  const std::int64_t now = wall_ms();
  for (auto it = active_.begin(); it != active_.end();) {
    if ((*it)->end_ms <= now) {
      try {
        end(**it);
      } catch (const std::exception& e) {  // a server that did not come back: the run goes on
        std::fprintf(stderr, "flakeid_soak: ending %s: %s\n", (*it)->kind.c_str(), e.what());
      }
      delete *it;
      it = active_.erase(it);
    } else {
      ++it;
    }
  }
  if (now >= next_ms_ && !kinds_.empty()) {
    start_one();
    next_ms_ = now + static_cast<std::int64_t>(uniform(1'000, 2'000 * c_.fault_every - 1'000));
  }
}

void nemesis::finish() {
  for (fault* f : active_) {
    end(*f);
    delete f;
  }
  active_.clear();
}

void nemesis::start_one() {
  auto* f = new fault;
  f->kind = kinds_[std::uniform_int_distribution<std::size_t>(0, kinds_.size() - 1)(rng_)];
  f->start_ms = wall_ms();
  if (begin(*f)) {
    active_.push_back(f);
  } else {
    delete f;  // its target was busy: the next draw comes at the next start
  }
}

/// Drops the minters' packets to the server (their requests, their handshakes' and replies'
/// acknowledgements); the harness's own, which checks a server it restarts, pass.
void nemesis::cut_minters_off() {
  const uid_t first = minter_user(0, true).first;
  const uid_t last = minter_user(pool_.size() - 1, true).first;
  std::string who;
  if (first != static_cast<uid_t>(-1))
    who = "meta skuid " + std::to_string(first) +
          (last != first ? "-" + std::to_string(last) : std::string()) + " ";
  (void)nft("add rule inet " + nft_table_ + " out " + who + "tcp dport " +
                std::to_string(server_.port()) + " drop",
            dir_ + "/nft.log");
}

/// Drops the packets of minter `slot` alone to the server, in a chain of the slot's own
/// (`s<slot>`), which the fault's end deletes.
void nemesis::cut_minter_off(int slot) {
  const std::string chain = "inet " + nft_table_ + " s" + std::to_string(slot);
  const std::string l = dir_ + "/nft.log";
  (void)nft("add chain " + chain + " { type filter hook output priority 0 ; }", l);
  (void)nft("add rule " + chain + " meta skuid " + std::to_string(minter_user(slot, true).first) +
                " tcp dport " + std::to_string(server_.port()) + " drop",
            l);
}

/// Steps the clock of `f.slot`: forward by seconds to an hour for 1 to 20 s, or back by seconds
/// to a minute for 1 to 6 s, then to where it was again (as a time daemon sets a clock right).
/// The seconds until the fault ends.
double nemesis::step_clock(fault& f) {
  static const std::int64_t forward[] = {1'000, 5'000, 30'000, 600'000, 3'600'000};
  static const std::int64_t back[] = {-500, -2'000, -10'000, -60'000};
  const bool ahead = uniform(0, 1) < 0.4;
  f.offset_ms = ahead ? forward[std::uniform_int_distribution<int>(0, 4)(rng_)]
                      : back[std::uniform_int_distribution<int>(0, 3)(rng_)];
  pool_.step_clock(f.slot, f.offset_ms);
  f.detail = std::to_string(f.offset_ms);
  return ahead ? uniform(1, 20) : uniform(1, 6);
}

bool nemesis::begin(fault& f) {
  const double guard_s = (c_.minter.ttl_ms + c_.minter.guard_ms) / 1000.0;
  const auto for_s = [&](double s) { f.end_ms = f.start_ms + static_cast<std::int64_t>(s * 1000); };
  const auto on = [&](const std::string& target) {
    if (busy(target)) return false;
    f.target = target;
    return true;
  };
  const auto on_slot = [&](const std::string& prefix) {
    f.slot = free_slot(prefix);
    return f.slot >= 0 && on(prefix + std::to_string(f.slot));
  };
  if (f.kind == "minter_pause") {
    if (!on_slot("slot")) return false;
    pool_.signal(f.slot, SIGSTOP);
    for_s(guard_s + uniform(0.2, 3));  // always past ttl + safe_guard
  } else if (f.kind == "minter_kill") {
    if (!on_slot("slot")) return false;
    pool_.kill(f.slot);
    for_s(uniform(0, 1.5));  // then a new process
  } else if (f.kind == "fork") {
    if (!on_slot("slot")) return false;
    pool_.signal(f.slot, SIGUSR1);
    for_s(2.5);  // the child mints (or is refused) for two seconds
  } else if (f.kind == "clock_step") {
    if (!on_slot("clock")) return false;
    for_s(step_clock(f));
  } else if (f.kind.rfind("server_", 0) == 0) {
    if (!on("server")) return false;
    if (f.kind == "server_kill") {
      server_.kill();
      for_s(uniform(0.2, 3));
    } else if (f.kind == "server_wipe") {
      (void)server_.wipe();
      for_s(uniform(0.2, 2));
    } else {
      server_.pause();
      for_s(uniform(0.5, 2 * guard_s));
    }
  } else if (f.kind == "forget") {
    if (!on("server")) return false;
    f.detail = server_.forget();
    if (f.detail.empty()) return false;
    for_s(0);
  } else if (f.kind == "partition") {
    if (!on("net")) return false;
    cut_minters_off();
    for_s(uniform(0.5, 3 * guard_s));
  } else if (f.kind == "minter_partition") {
    if (!on_slot("slot")) return false;
    cut_minter_off(f.slot);
    for_s(uniform(0.5, 3 * guard_s));
  } else if (f.kind == "evict" || f.kind == "lossy_kill" || f.kind == "foreign_lock") {
    if (!on("server")) return false;
    f.detail = server_.begin_own(f.kind);
    if (f.detail.empty()) return false;
    // Memory full, commits not durable, a lock file not the minters': for a while.
    for_s(f.kind == "lossy_kill" ? uniform(3, 8) : uniform(0.5, 2 * guard_s));
  } else if (f.kind == "disk_full") {
    if (!on("disk")) return false;
    // Fills the tmpfs to the last byte (a file of zeros); the lease files stay.
    (void)run_program({"/bin/dd", "if=/dev/zero", "of=" + server_.disk() + "/fill", "bs=4k"},
                      dir_ + "/fill.log");
    for_s(uniform(1, 5));
  }
  return true;
}

void nemesis::end(fault& f) {
  if (f.kind == "minter_pause") {
    pool_.signal(f.slot, SIGCONT);
  } else if (f.kind == "minter_kill") {
    pool_.start(f.slot);
  } else if (f.kind == "clock_step") {
    pool_.step_clock(f.slot, -f.offset_ms);
  } else if (f.kind == "server_kill" || f.kind == "server_wipe") {
    server_.start();
  } else if (f.kind == "server_pause") {
    server_.resume();
  } else if (f.kind == "partition") {
    (void)nft("flush chain inet " + nft_table_ + " out", dir_ + "/nft.log");
  } else if (f.kind == "minter_partition") {
    const std::string chain = "inet " + nft_table_ + " s" + std::to_string(f.slot);
    (void)nft("flush chain " + chain + "; delete chain " + chain, dir_ + "/nft.log");
  } else if (f.kind == "evict" || f.kind == "lossy_kill" || f.kind == "foreign_lock") {
    server_.end_own(f.kind);
  } else if (f.kind == "disk_full") {
    std::error_code ec;
    std::filesystem::remove(server_.disk() + "/fill", ec);
  }
  const std::int64_t ended = wall_ms();
  std::ofstream(log_, std::ios::app)
      << f.kind << ' ' << f.target << ' ' << f.start_ms << ' ' << ended << ' ' << f.detail << '\n';
}

}  // namespace flakeid_soak
