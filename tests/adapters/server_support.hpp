// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// What the real servers of the adapter and SQL tests share: temporary directories, free
// loopback ports, programs found and started, data directories copied from a template, TLS
// certificates made at test time, and the fixture of the server tests. Each server is in a
// header of its own: redis_server.hpp, postgres_server.hpp, mariadb_server.hpp,
// zookeeper_server.hpp. Running as root (CI), PostgreSQL and MariaDB run as the unprivileged
// user 'nobody'.
// A missing server program fails the test, unless FLAKEID_ALLOW_SKIP_SERVERS=1.

#include <arpa/inet.h>
#include <fcntl.h>
#include <glob.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace flakeid_test {

inline bool allow_skip() {
  const char* v = std::getenv("FLAKEID_ALLOW_SKIP_SERVERS");
  return v != nullptr && std::string(v) == "1";
}

// Fails (or skips, when allowed) the current test when `ok` is false.
#define FLAKEID_REQUIRE_SERVER(ok, why)                                                \
  do {                                                                                 \
    if (!(ok)) {                                                                       \
      if (::flakeid_test::allow_skip()) GTEST_SKIP() << (why);                         \
      FAIL() << (why) << " (install it, or set FLAKEID_ALLOW_SKIP_SERVERS=1 to skip)"; \
    }                                                                                  \
  } while (0)

/// A test of the fixture `suite` (whose `b` is the backend, as in server_test below) that runs
/// `scenario(b)`, a function of flakeid_test.
#define FLAKEID_SCENARIO_TEST(suite, name, scenario) \
  TEST_F(suite, name) { ::flakeid_test::scenario(b); }

/// Binds a TCP socket to 127.0.0.1:`port` (0: any) and returns the port bound, or 0.
inline int bind_loopback(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return 0;
  const int on = 1;
  (void)::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  int bound = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    socklen_t len = sizeof a;
    if (::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0) bound = ntohs(a.sin_port);
  }
  ::close(s);
  return bound;
}

/// A loopback port nothing listens on, reserved for this process until it exits: no other test
/// of this project, in this process or another, is given it, even while the server on it is
/// stopped for a restart. (A port the kernel hands out and takes back can be handed to another
/// test's server in the meantime, which then answers in place of the one a test restarts.)
/// Ports come from below the kernel's ephemeral range, so no outgoing connection takes one
/// either. The reservation is an flock on `<temp>/flakeid-test-ports-<uid>/<port>`, which the
/// kernel drops when the process ends.
inline int free_port() {
  namespace fs = std::filesystem;
  static std::mutex m;
  static std::vector<int> held;  // the lock files' descriptors, open until the process exits
  const std::lock_guard lk(m);
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  const int first = 10'000;
  const int last = std::min(ephemeral_low, 65536) - 1;
  const fs::path dir =
      fs::temp_directory_path() / ("flakeid-test-ports-" + std::to_string(::geteuid()));
  std::error_code ec;
  fs::create_directory(dir, ec);
  std::mt19937 rng(std::random_device{}() ^ static_cast<unsigned>(::getpid()));
  for (int attempt = 0; last > first && attempt < 1000; ++attempt) {
    const int port = first + static_cast<int>(rng() % static_cast<unsigned>(last - first + 1));
    const int fd = ::open((dir / std::to_string(port)).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || bind_loopback(port) != port) {
      ::close(fd);  // another test holds it, or something else listens there
      continue;
    }
    held.push_back(fd);
    return port;
  }
  return bind_loopback(0);  // no reservation to be had: any port the kernel gives
}

inline bool port_open(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

/// Whether something accepts connections on the Unix socket `path`.
inline bool unix_socket_open(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) return false;
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  std::copy(path.begin(), path.end(), a.sun_path);
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

/// `name` on PATH or in one of `dirs` (glob patterns); empty when not found.
inline std::string find_program(const std::string& name,
                                const std::vector<std::string>& dirs = {}) {
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');) candidates.push_back(d + "/" + name);
  }
  for (const auto& pattern : dirs) {
    glob_t g{};
    if (::glob((pattern + "/" + name).c_str(), 0, nullptr, &g) == 0)
      for (std::size_t i = 0; i < g.gl_pathc; ++i) candidates.emplace_back(g.gl_pathv[i]);
    ::globfree(&g);
  }
  for (const auto& c : candidates)
    if (::access(c.c_str(), X_OK) == 0) return c;
  return {};
}

/// Starts `argv` with output to `log`, as user `uid`/`gid` when not -1. Returns the pid.
inline pid_t spawn(const std::vector<std::string>& argv, const std::string& log,
                   uid_t uid = static_cast<uid_t>(-1), gid_t gid = static_cast<gid_t>(-1),
                   const std::string& cwd = {}) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::setpgid(0, 0);
    if (gid != static_cast<gid_t>(-1) && ::setgid(gid) != 0) ::_exit(126);
    if (uid != static_cast<uid_t>(-1) && ::setuid(uid) != 0) ::_exit(126);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

/// Runs `argv` to completion; returns its exit status.
inline int run(const std::vector<std::string>& argv, const std::string& log,
               uid_t uid = static_cast<uid_t>(-1), gid_t gid = static_cast<gid_t>(-1),
               const std::string& cwd = {}) {
  const pid_t pid = spawn(argv, log, uid, gid, cwd);
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string make_temp_dir(const std::string& stem) {
  std::string t = (std::filesystem::temp_directory_path() / (stem + "-XXXXXX")).string();
  if (::mkdtemp(t.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return t;
}

/// What a program run to completion said: its exit status and its output (stdout and stderr).
struct program_output {
  int status = -1;
  std::string text;
};

/// Runs `argv` to completion, its output to a file in a temporary directory of its own (gone
/// afterwards); returns its status and what it wrote.
inline program_output run_for_output(const std::vector<std::string>& argv) {
  const std::string dir = make_temp_dir("flakeid-run");
  const std::string log = dir + "/output.log";
  program_output r;
  r.status = run(argv, log);
  r.text = read_file(log);
  std::filesystem::remove_all(dir);
  return r;
}

/// Makes `dest` a copy of a data directory that `make(dir)` creates in `dir`/data, made once
/// per `key` and user and kept in the temporary directory for the next test (initdb and
/// mariadb-install-db take seconds of CPU; a copy takes milliseconds). `key` names the program
/// and every argument that shapes the data. Made in a directory of its own and renamed into
/// place, so that tests running side by side never see half a template. `uid`/`gid` own the
/// directory `make` works in; `cp -a` keeps them.
inline void copy_data_template(const std::string& key, const std::string& dest, uid_t uid,
                               gid_t gid, const std::function<void(const std::string&)>& make) {
  namespace fs = std::filesystem;
  // `make` run in a fresh directory under `stem`, owned by uid/gid; removed when `make` throws.
  const auto made_in = [&](const std::string& stem) {
    const std::string dir = make_temp_dir(stem);
    try {
      if (uid != static_cast<uid_t>(-1) && ::chown(dir.c_str(), uid, gid) != 0)
        throw std::runtime_error("cannot chown " + dir);
      make(dir);
    } catch (...) {
      fs::remove_all(dir);
      throw;
    }
    return dir;
  };
  const fs::path root =
      fs::temp_directory_path() / ("flakeid-test-templates-" + std::to_string(::geteuid()));
  std::error_code ec;
  fs::create_directory(root, ec);
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
    // Not ours (or not a directory): make the data where it is needed, every time.
    const std::string dir = made_in("flakeid-data");
    fs::rename(dir + "/data", dest);
    fs::remove_all(dir);
    return;
  }
  ::chmod(root.c_str(), 0755);
  const fs::path ready = root / std::to_string(std::hash<std::string>{}(key));
  if (!fs::exists(ready / "data")) {
    const std::string dir = made_in((root / "new").string());
    // Another test may have been first: its template serves as well.
    if (::rename(dir.c_str(), ready.c_str()) != 0) fs::remove_all(dir);
  }
  const std::string log = dest + ".copy.log";
  if (run({find_program("cp", {"/usr/bin", "/bin"}), "-a", (ready / "data").string(), dest}, log) !=
      0)
    throw std::runtime_error("cannot copy the data template: " + read_file(log));
  fs::remove(log);
}

/// The key of `copy_data_template` for `program` run with `args`: its path, size and time.
inline std::string template_key(const std::string& program, const std::vector<std::string>& args) {
  std::string key = program;
  struct stat st {};
  if (::stat(program.c_str(), &st) == 0)
    key += "@" + std::to_string(st.st_size) + "@" + std::to_string(st.st_mtime);
  for (const std::string& a : args) key += "\n" + a;
  return key;
}

/// A test CA and certificates signed by it, made with `openssl` in `dir`: `server` for
/// localhost and 127.0.0.1, `other` for other.example only, `client` for mutual TLS. Each
/// `<name>.crt` with its `<name>.key`; the CA is `ca.crt`.
struct test_certs {
  std::string dir{};
  [[nodiscard]] std::string ca() const { return dir + "/ca.crt"; }
  [[nodiscard]] std::string crt(const std::string& name) const { return dir + "/" + name + ".crt"; }
  [[nodiscard]] std::string key(const std::string& name) const { return dir + "/" + name + ".key"; }
};

inline std::string openssl_program() { return find_program("openssl", {"/usr/bin"}); }

/// Makes the CA and the certificates of `test_certs` in `dir` (which exists). Throws when
/// openssl fails.
inline test_certs make_test_certs(const std::string& dir) {
  const std::string openssl = openssl_program();
  if (openssl.empty()) throw std::runtime_error("openssl was not found (apt-get install openssl)");
  const std::string cnf = dir + "/certs.cnf";
  {
    std::ofstream f(cnf);
    f << "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = flakeid test\n"
         "[ca]\nbasicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\n"
         "subjectKeyIdentifier = hash\n"
         "[server]\nsubjectAltName = DNS:localhost,IP:127.0.0.1\nextendedKeyUsage = serverAuth\n"
         "[other]\nsubjectAltName = DNS:other.example\nextendedKeyUsage = serverAuth\n"
         "[client]\nextendedKeyUsage = clientAuth\n";
  }
  const std::string log = dir + "/openssl.log";
  auto must = [&](const std::vector<std::string>& argv) {
    if (run(argv, log) != 0) throw std::runtime_error("openssl failed: " + read_file(log));
  };
  const std::vector<std::string> ec{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                    "-nodes"};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  must(with({openssl, "req", "-x509", "-config", cnf, "-extensions", "ca", "-days", "3"},
            with(ec, {"-keyout", dir + "/ca.key", "-out", dir + "/ca.crt", "-subj",
                      "/CN=flakeid test CA"})));
  int serial = 1;
  for (const std::string name : {"server", "other", "client"}) {
    const std::string cn = name == "server"  ? "localhost"
                           : name == "other" ? "other.example"
                                             : "flakeid client";
    must(with({openssl, "req", "-new", "-config", cnf},
              with(ec, {"-keyout", dir + "/" + name + ".key", "-out", dir + "/" + name + ".csr",
                        "-subj", "/CN=" + cn})));
    must({openssl, "x509", "-req", "-in", dir + "/" + name + ".csr", "-CA", dir + "/ca.crt",
          "-CAkey", dir + "/ca.key", "-set_serial", std::to_string(serial++), "-days", "3",
          "-extfile", cnf, "-extensions", name, "-out", dir + "/" + name + ".crt"});
  }
  return test_certs{dir};
}

/// Waits until `ready()` for a server `name` just started as `pid` (60 s at most, a bound on a
/// broken start only); throws with its log when it exits or never gets ready.
inline void wait_until_up(pid_t& pid, const std::string& name, const std::string& log,
                          const std::function<bool()>& ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
  while (!ready()) {
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) == pid) {
      pid = -1;
      throw std::runtime_error(name + " exited: " + read_file(log));
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error(name + " did not start: " + read_file(log));
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
}

/// Kills `pid` (SIGKILL) and reaps it; -1 afterwards.
inline void kill_and_reap(pid_t& pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  pid = -1;
}

/// The fixture of the server tests: `b`, a backend over a server of its own (its member
/// `server`, and `start()`), whose server starts before each test (FLAKEID_REQUIRE_SERVER: a
/// missing server program fails the test, or skips it). A fixture that needs another server
/// derives from it and passes the server's argument (a bool `durable`, or the server's config)
/// and the backend's other members, in order.
template <class Backend>
class server_test : public ::testing::Test {
 protected:
  server_test() = default;
  template <class Config, class... More>
  explicit server_test(Config config, More... more)
      : b{decltype(Backend::server){std::move(config)}, more...} {}
  void SetUp() override {
    FLAKEID_REQUIRE_SERVER(b.server.available(), b.server.missing());
    b.start();
  }
  Backend b;
};

}  // namespace flakeid_test
