// The run of one store in the fault soak: its server, its minters (one process per slot, this
// program started again in minter mode), the nemesis, and the minters' stop at the end.

#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "harness.hpp"

namespace flakeid_soak {

volatile sig_atomic_t interrupted = 0;

namespace {

/// Writes `text` to `path` whole: a reader sees the old text or the new one.
void write_text(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  if (std::FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fputs(text.c_str(), f);
    std::fclose(f);
    ::chmod(tmp.c_str(), 0644);
    std::rename(tmp.c_str(), path.c_str());
  }
}

}  // namespace

minter_pool::minter_pool(const soak_config& c, std::string store, std::string dir,
                         std::string where)
    : c_(c), store_(std::move(store)), dir_(std::move(dir)), where_(std::move(where)) {
  ::chmod(dir_.c_str(), 01777);  // the minters' logs
  procs_.resize(static_cast<std::size_t>(c_.minters));
  for (int s = 0; s < c_.minters; ++s) {
    procs_[static_cast<std::size_t>(s)].slot = s;
    set_clock_offset(clock_file(s), 0);
    if (!c_.faketime.empty()) write_text(faketime_file(s), "+0\n");
  }
  if (!c_.faketime.empty()) set_clock_offset(dir_ + "/clock-none", 0);
}

minter_pool::~minter_pool() { stop_all(0); }

std::string minter_pool::clock_file(int slot) const {
  return dir_ + "/clock-" + std::to_string(slot);
}

std::string minter_pool::faketime_file(int slot) const { return clock_file(slot) + ".faketime"; }

void minter_pool::step_clock(int slot, std::int64_t by_ms) {
  const std::string file = clock_file(slot);
  const std::int64_t offset = clock_offset(file) + by_ms;
  set_clock_offset(file, offset);  // the nemesis's record (and, without libfaketime, the clock)
  if (c_.faketime.empty()) return;
  char spec[32];
  std::snprintf(spec, sizeof spec, "%+.3f\n", static_cast<double>(offset) / 1000.0);
  write_text(faketime_file(slot), spec);
}

void minter_pool::start(int slot) {
  minter_proc& p = procs_[static_cast<std::size_t>(slot)];
  if (p.pid > 0) return;
  ++p.generation;
  const std::string name = dir_ + "/m" + std::to_string(slot) + "-" + std::to_string(p.generation);
  const minter_config& m = c_.minter;
  const auto user = minter_user(slot, store_ != "file");
  std::vector<std::string> argv;
  if (!c_.faketime.empty()) {
    // libfaketime reads the slot's offset from its file at most once a second; the monotonic
    // clock stays the kernel's. The soak's own offset stays 0 (clock-none).
    argv = {"/usr/bin/env", "LD_PRELOAD=" + c_.faketime,
            "FAKETIME_TIMESTAMP_FILE=" + faketime_file(slot), "FAKETIME_CACHE_DURATION=1",
            "FAKETIME_DONT_FAKE_MONOTONIC=1"};
  }
  const std::vector<std::string> minter{
      c_.self,         "--minter",
      "--store",       store_,
      "--where",       where_,
      "--log",         name + ".log",
      "--clock",       c_.faketime.empty() ? clock_file(slot) : dir_ + "/clock-none",
      "--max-ids",     std::to_string(m.max_ids),
      "--ttl-ms",      std::to_string(m.ttl_ms),
      "--guard-ms",    std::to_string(m.guard_ms),
      "--burst",       std::to_string(m.burst),
      "--interval-ms", std::to_string(m.interval_ms)};
  argv.insert(argv.end(), minter.begin(), minter.end());
  p.pid = spawn_program(argv, name + ".out", user.first, user.second);
  p.paused = false;
}

void minter_pool::signal(int slot, int sig) {
  minter_proc& p = procs_[static_cast<std::size_t>(slot)];
  if (p.pid <= 0) return;
  ::kill(p.pid, sig);
  if (sig == SIGSTOP) p.paused = true;
  if (sig == SIGCONT) p.paused = false;
}

void minter_pool::kill(int slot) {
  minter_proc& p = procs_[static_cast<std::size_t>(slot)];
  if (p.pid <= 0) return;
  ::kill(p.pid, SIGKILL);
  ::waitpid(p.pid, nullptr, 0);
  p.pid = -1;
}

int minter_pool::restart_exited() {
  int n = 0;
  for (minter_proc& p : procs_) {
    int st = 0;
    if (p.pid > 0 && ::waitpid(p.pid, &st, WNOHANG) == p.pid) {
      std::ofstream(dir_ + "/exits.log", std::ios::app)
          << wall_ms() << " slot " << p.slot << " generation " << p.generation << " status " << st
          << '\n';
      p.pid = -1;
      start(p.slot);
      ++n;
    }
  }
  return n;
}

void minter_pool::stop_all(int grace_ms) {
  for (minter_proc& p : procs_) {
    if (p.pid <= 0) continue;
    ::kill(p.pid, SIGCONT);
    ::kill(p.pid, SIGTERM);
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds{grace_ms};
  for (minter_proc& p : procs_) {
    while (p.pid > 0) {
      if (::waitpid(p.pid, nullptr, WNOHANG) == p.pid) {
        p.pid = -1;
      } else if (std::chrono::steady_clock::now() >= until) {
        kill(p.slot);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
      }
    }
  }
}

int run_store(const soak_config& c, const std::string& store) {
  const std::string dir = c.out + "/" + store;
  try {
    // The file store's tmpfs of a run that was killed may still be mounted there.
    (void)::umount2((dir + "/store").c_str(), MNT_DETACH);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    auto server = make_server(store, dir);
    server->start();
    const std::int64_t begin = wall_ms();
    {
      minter_pool pool(c, store, dir, server->where());
      for (int s = 0; s < pool.size(); ++s) pool.start(s);
      // The store's own seed: each store of one run draws its own schedule.
      nemesis n(c, *server, pool, dir, c.seed ^ std::hash<std::string>{}(store));
      std::string kinds;
      for (const auto& k : n.kinds()) kinds += (kinds.empty() ? "" : ",") + k;
      std::fprintf(stderr, "flakeid_soak: %s: %d minters, %.1f min, seed %llu, faults %s\n",
                   store.c_str(), c.minters, c.minutes, static_cast<unsigned long long>(c.seed),
                   kinds.c_str());
      const auto until = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds{static_cast<long>(c.minutes * 60'000)};
      while (std::chrono::steady_clock::now() < until && interrupted == 0) {
        n.tick();
        (void)pool.restart_exited();
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
      }
      n.finish();
      pool.stop_all(5'000);
      std::ofstream(dir + "/run.txt")
          << "store " << store << "\nseed " << c.seed << "\nminters " << c.minters << "\nbegin "
          << begin << "\nend " << wall_ms() << "\nkinds " << kinds << "\nmax_ids "
          << c.minter.max_ids << "\nttl_ms " << c.minter.ttl_ms << "\nguard_ms "
          << c.minter.guard_ms << "\n";
    }
    server->kill();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flakeid_soak: %s: %s\n", store.c_str(), e.what());
    return 1;
  }
  return 0;
}

}  // namespace flakeid_soak
