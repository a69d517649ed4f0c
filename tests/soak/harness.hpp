#pragma once
// The harness side of the fault soak (docs/soak.md): the store's server as the nemesis sees it
// (servers.cpp), the fault schedule and its faults (nemesis.cpp), the run (soak_main.cpp).

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "soak.hpp"

namespace flakeid_soak {

/// A store's server as the nemesis works it: the test servers of tests/adapters/*_server.hpp
/// (the file store: a directory, on a small tmpfs when one can be mounted).
class soak_server {
 public:
  virtual ~soak_server() = default;
  /// What a minter is given to reach the store (`with_store`'s `where`).
  [[nodiscard]] virtual std::string where() const = 0;
  /// The TCP port the server listens on (0: the file store).
  [[nodiscard]] virtual int port() const = 0;
  virtual void start() = 0;
  /// SIGKILL (PostgreSQL: an immediate stop); `start` brings it back with its data.
  virtual void kill() = 0;
  /// Whether `wipe` and `forget` can be done to this store.
  [[nodiscard]] virtual bool can_wipe() const { return false; }
  [[nodiscard]] virtual bool can_forget() const { return true; }
  /// Stops it and removes its data: the next `start` serves an empty store. False: not done.
  virtual bool wipe() = 0;
  virtual void pause() = 0;
  virtual void resume() = 0;
  /// Deletes the lease records (rows, keys, lock files) while the server runs: what it deleted,
  /// for the fault log (one word; `directory`: the file store's whole directory, its segment
  /// counters too, which the checker counts as a wipe), or empty when nothing.
  virtual std::string forget() = 0;
  /// The file store's tmpfs, which `fill` fills; empty: none.
  [[nodiscard]] virtual std::string disk() const { return {}; }
  /// The fault kinds of this store's own (docs/soak.md): `evict` (Redis), `lossy_kill`
  /// (PostgreSQL, MariaDB), `foreign_lock` (the file store, as root).
  [[nodiscard]] virtual std::vector<std::string> own_kinds() const { return {}; }
  /// Begins fault `kind` of `own_kinds()`: what it did, for the fault log (one word), or empty
  /// when it could not begin.
  virtual std::string begin_own(const std::string& kind) {
    (void)kind;
    return {};
  }
  /// Ends fault `kind` begun by `begin_own`.
  virtual void end_own(const std::string& kind) { (void)kind; }
};

/// The server of store `kind` with its data under `dir`. Throws when this build or host has none.
std::unique_ptr<soak_server> make_server(const std::string& kind, const std::string& dir);

/// A minter process the harness started (a slot keeps its number across restarts).
struct minter_proc {
  int slot = 0;
  int generation = 0;
  pid_t pid = -1;
  bool paused = false;
};

/// The settings of one run.
struct soak_config {
  std::vector<std::string> stores{"file"};
  double minutes = 1;
  std::uint64_t seed = 1;
  std::string out = "/tmp/soak";
  int minters = 4;
  minter_config minter{};
  /// Seconds between fault starts (a uniform draw in [1, 2 * this]).
  double fault_every = 4;
  /// Fault kinds to leave out (comma list); empty: every kind the store has.
  std::vector<std::string> skip{};
  /// Every store at once, each in a process of its own (else one after the other).
  bool parallel = false;
  /// libfaketime's library (`--faketime`): the minters run with it preloaded, and a clock step
  /// moves the whole process's wall clock, the store clients' included; empty: the minters'
  /// clock adds an offset of the soak's own (`map_clock_offset`).
  std::string faketime{};
  std::string self;  ///< this program, started again as a minter
};

/// The minters of one store, one process per slot, each started again (a new generation, a
/// new log) after a kill or an exit.
class minter_pool {
 public:
  minter_pool(const soak_config& c, std::string store, std::string dir, std::string where);
  ~minter_pool();
  minter_pool(const minter_pool&) = delete;
  minter_pool& operator=(const minter_pool&) = delete;

  [[nodiscard]] int size() const { return static_cast<int>(procs_.size()); }
  void start(int slot);
  /// Sends `sig` to the slot's process (SIGSTOP/SIGCONT are remembered for the end).
  void signal(int slot, int sig);
  /// SIGKILL, reaped; `start` brings a new process.
  void kill(int slot);
  /// Starts again every minter that exited by itself; their count.
  int restart_exited();
  /// SIGTERM to all (after SIGCONT), then SIGKILL to what is left after `grace_ms`.
  void stop_all(int grace_ms);
  /// Moves the clock of slot `slot` by `by_ms` (the offset file, or libfaketime's file).
  void step_clock(int slot, std::int64_t by_ms);

 private:
  [[nodiscard]] std::string clock_file(int slot) const;
  [[nodiscard]] std::string faketime_file(int slot) const;

  const soak_config& c_;
  std::string store_, dir_, where_;
  std::vector<minter_proc> procs_;
};

/// The nemesis: a seeded schedule of faults of the kinds the store has, several at a time on
/// different targets; each fault written to `<dir>/faults.log` when it ends.
class nemesis {
 public:
  nemesis(const soak_config& c, soak_server& server, minter_pool& pool, std::string dir,
          std::uint64_t seed);
  ~nemesis();
  nemesis(const nemesis&) = delete;
  nemesis& operator=(const nemesis&) = delete;
  /// Ends the faults that are due and starts the next when its time has come.
  void tick();
  /// Ends every fault still running.
  void finish();
  /// The kinds this run draws from.
  [[nodiscard]] const std::vector<std::string>& kinds() const { return kinds_; }

 private:
  struct fault;
  void start_one();
  bool begin(fault& f);
  double step_clock(fault& f);
  void cut_minters_off();
  void cut_minter_off(int slot);
  void end(fault& f);
  [[nodiscard]] bool busy(const std::string& target) const;
  [[nodiscard]] int free_slot(const std::string& prefix);
  double uniform(double lo, double hi);

  const soak_config& c_;
  soak_server& server_;
  minter_pool& pool_;
  std::string dir_;
  std::mt19937_64 rng_;
  std::vector<std::string> kinds_;
  std::vector<fault*> active_;
  std::int64_t next_ms_ = 0;
  std::string nft_table_;
  std::string log_;
};

/// The contents of the file at `path` (empty when it cannot be read).
std::string read_text(const std::string& path);

/// Starts `argv` with output to `log` in a process group of its own, as user `uid` (-1: this
/// process's); its pid.
pid_t spawn_program(const std::vector<std::string>& argv, const std::string& log,
                    uid_t uid = static_cast<uid_t>(-1), gid_t gid = static_cast<gid_t>(-1));

/// The user the minters run as: `nobody` when the harness runs as root (so that a partition
/// drops the minters' packets and not the harness's own checks of a server it restarts),
/// else -1 (the harness's user).
std::pair<uid_t, gid_t> minter_user();

/// The first of the uids the minters of a server store run as, one per slot, when the harness
/// runs as root (no account is needed: they connect with the server's user, and their files
/// lie in directories anyone may write), so that a `minter_partition` cuts one minter off.
inline constexpr uid_t minter_uid_base = 61'000;

/// The user minter slot `slot` runs as: with `own` (a server store) and as root, a uid of its
/// own in `nobody`'s group; else `minter_user()` (the file store's minters share `nobody`: they
/// write each other's lock files).
std::pair<uid_t, gid_t> minter_user(int slot, bool own);

/// Set by SIGINT and SIGTERM: the run ends early, its servers and minters stopped as at its end.
extern volatile sig_atomic_t interrupted;

/// Runs the soak of one store: its server, the minters, the nemesis; logs under
/// `<out>/<store>/`. Returns 0, or 1 when the harness itself failed.
int run_store(const soak_config& c, const std::string& store);

/// Runs `argv` to completion with output to `log`; its exit status (-1: killed).
int run_program(const std::vector<std::string>& argv, const std::string& log);

}  // namespace flakeid_soak
