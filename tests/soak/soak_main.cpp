// flakeid_soak: the fault soak (docs/soak.md). One command runs it:
//
//   flakeid_soak --stores file,redis,postgres,mysql,zookeeper --minutes 3 --seed 42 --out /tmp/soak
//
// runs each store in turn (its server, its minters, the nemesis; with --parallel, every store
// at once, each in a process of its own), then the checker
// (check.py), which writes <out>/report.md and a timeline per store; the exit status is the
// checker's (1 when it found a duplicate, a segment number twice or an ID past its fence).
// The same program started with --minter is one minter (minter.cpp).

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"

#ifndef FLAKEID_SOAK_CHECKER
#define FLAKEID_SOAK_CHECKER "check.py"
#endif

namespace {

extern "C" void on_interrupt(int) { flakeid_soak::interrupted = 1; }

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

int usage() {
  std::fputs(
      "usage: flakeid_soak [--stores file,redis,postgres,mysql,zookeeper] [--minutes M]\n"
      "                    [--seed S] [--out DIR] [--minters N] [--max-ids K] [--ttl-ms T]\n"
      "                    [--guard-ms G] [--fault-every SECONDS] [--skip kind,...] [--parallel]\n"
      "                    [--no-check] [--faketime]\n",
      stderr);
  return 2;
}

/// Reads `--name value` pairs into `c` (and `minter`); false on an unknown one.
bool parse(int argc, char** argv, flakeid_soak::soak_config& c, bool& minter, bool& check) {
  flakeid_soak::minter_config& m = c.minter;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--minter") {
      minter = true;
      continue;
    }
    if (a == "--parallel") {
      c.parallel = true;
      continue;
    }
    if (a == "--no-check") {
      check = false;
      continue;
    }
    if (a == "--faketime") {
      c.faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";
      continue;
    }
    if (i + 1 >= argc) return false;
    const std::string v = argv[++i];
    if (a == "--stores")
      c.stores = split(v);
    else if (a == "--minutes")
      c.minutes = std::stod(v);
    else if (a == "--seed")
      c.seed = std::stoull(v);
    else if (a == "--out")
      c.out = v;
    else if (a == "--minters")
      c.minters = std::stoi(v);
    else if (a == "--fault-every")
      c.fault_every = std::stod(v);
    else if (a == "--skip")
      c.skip = split(v);
    else if (a == "--store")
      m.store = v;
    else if (a == "--where")
      m.where = v;
    else if (a == "--log")
      m.log = v;
    else if (a == "--clock")
      m.clock_file = v;
    else if (a == "--max-ids")
      m.max_ids = std::stoi(v);
    else if (a == "--ttl-ms")
      m.ttl_ms = std::stoi(v);
    else if (a == "--guard-ms")
      m.guard_ms = std::stoi(v);
    else if (a == "--burst")
      m.burst = std::stoi(v);
    else if (a == "--interval-ms")
      m.interval_ms = std::stoi(v);
    else
      return false;
  }
  return true;
}

/// When the minters run as another user (`nobody`, the harness being root), `c.out` must be
/// a place they can reach; they run a copy of this program made there (this one may lie where
/// they cannot, such as a build tree under /root). False, with a message, when they cannot.
bool reachable_by_minters(flakeid_soak::soak_config& c) {
  namespace fs = std::filesystem;
  if (flakeid_soak::minter_user().first == static_cast<uid_t>(-1)) return true;
  const fs::path out = fs::canonical(c.out);
  for (fs::path p = out;; p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || (st.st_mode & S_IXOTH) == 0) {
      std::fprintf(stderr,
                   "flakeid_soak: the minters run as nobody and cannot reach --out %s (%s is "
                   "closed to other users): choose a directory under /tmp\n",
                   out.c_str(), p.c_str());
      return false;
    }
    if (p == p.root_path()) break;
  }
  const fs::path copy = out / "flakeid_soak";
  fs::copy_file(c.self, copy, fs::copy_options::overwrite_existing);
  fs::permissions(copy, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  c.self = copy.string();
  return true;
}

int run_in_turn(const flakeid_soak::soak_config& c) {
  int rc = 0;
  for (const std::string& store : c.stores)
    if (flakeid_soak::interrupted == 0) rc |= flakeid_soak::run_store(c, store);
  return rc;
}

/// Every store at once, each run in a child process of its own (its own nft table, tmpfs and
/// servers); SIGINT or SIGTERM to this one ends them all. Nonzero when one of them failed.
int run_in_parallel(const flakeid_soak::soak_config& c) {
  std::vector<pid_t> runs;
  for (const std::string& store : c.stores) {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(flakeid_soak::run_store(c, store));
    if (pid < 0) return 1;
    runs.push_back(pid);
  }
  int rc = 0;
  bool passed_on = false;
  for (const pid_t pid : runs) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) return 1;
      if (flakeid_soak::interrupted != 0 && !passed_on) {
        for (const pid_t other : runs) ::kill(other, SIGTERM);
        passed_on = true;
      }
    }
    rc |= WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  flakeid_soak::soak_config c;
  bool minter = false;
  bool check = true;
  try {
    if (!parse(argc, argv, c, minter, check)) return usage();
  } catch (const std::exception&) {
    return usage();
  }
  if (minter) {
    try {
      return flakeid_soak::run_minter(c.minter);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "flakeid_soak minter: %s\n", e.what());
      return 1;
    }
  }
  if (c.minters < 2 || c.minter.max_ids < 1 || c.minter.max_ids >= c.minters) {
    std::fputs("flakeid_soak: --max-ids must lie below --minters (ids change hands)\n", stderr);
    return 2;
  }
  if (!c.faketime.empty() && ::access(c.faketime.c_str(), R_OK) != 0) {
    std::fprintf(stderr,
                 "flakeid_soak: --faketime needs libfaketime (Debian: faketime): %s not found\n",
                 c.faketime.c_str());
    return 2;
  }
  // Without SA_RESTART: a wait for the stores' runs returns to pass the signal on.
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  c.self = std::filesystem::canonical("/proc/self/exe").string();
  std::filesystem::create_directories(c.out);
  if (!reachable_by_minters(c)) return 2;
  const int rc = c.parallel ? run_in_parallel(c) : run_in_turn(c);
  if (rc != 0) return 3;
  if (!check) return 0;
  const std::string log = c.out + "/check.log";
  std::filesystem::remove(log);
  const int checked =
      flakeid_soak::run_program({"/usr/bin/env", "python3", FLAKEID_SOAK_CHECKER, c.out}, log);
  std::fputs(flakeid_soak::read_text(log).c_str(), stdout);
  return checked == 0 ? 0 : 1;
}
