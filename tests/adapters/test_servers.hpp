#pragma once
// Real servers for the adapter and SQL tests: a redis-server, a PostgreSQL cluster (initdb +
// pg_ctl) and a MariaDB server (mariadb-install-db + mariadbd), each in a temporary directory,
// on a free loopback port, stopped and removed afterwards. Running as root (CI), PostgreSQL and
// MariaDB run as the unprivileged user 'nobody'.
// A missing server program fails the test, unless FLAKEID_ALLOW_SKIP_SERVERS=1.

#include <arpa/inet.h>
#include <fcntl.h>
#include <glob.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

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

/// A loopback port nothing listens on right now.
inline int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  (void)::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  (void)::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
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

/// A redis-server on a free loopback port; without persistence, or with `durable` every
/// acknowledged write in the append-only file (`appendfsync always`), so a restart after
/// SIGKILL keeps it.
class redis_server {
 public:
  explicit redis_server(bool durable = false)
      : exe_(find_program("redis-server", {"/usr/sbin", "/usr/local/bin"})), durable_(durable) {}
  ~redis_server() {
    stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  [[nodiscard]] bool available() const { return !exe_.empty(); }
  [[nodiscard]] std::string missing() const {
    return "redis-server was not found (Debian: apt-get install redis-server)";
  }

  /// Starts the server (on the same port as before after a stop).
  void start() {
    if (dir_.empty()) dir_ = make_temp_dir("flakeid-redis");
    if (port_ == 0) port_ = free_port();
    pid_ = spawn({exe_, "--port", std::to_string(port_), "--bind", "127.0.0.1", "--save", "",
                  "--appendonly", durable_ ? "yes" : "no", "--appendfsync", "always",
                  "--protected-mode", "no", "--dir", dir_},
                 dir_ + "/redis.log");
    wait_ready();
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    for (int i = 0; i < 200 && port_open(port_); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds{5});
  }
  [[nodiscard]] std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  void wait_ready() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
    while (!port_open(port_)) {
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("redis-server did not start: " + read_file(dir_ + "/redis.log"));
      std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
  }
  std::string exe_;
  bool durable_ = false;
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

/// A PostgreSQL cluster made with initdb in a temporary directory, run with pg_ctl on a free
/// loopback port; as 'nobody' when the tests run as root (initdb refuses root). Commits return
/// before their WAL is written unless `durable` (then a committed row survives an immediate
/// stop; fsync stays off, as the machine itself does not crash).
class postgres_cluster {
 public:
  explicit postgres_cluster(bool durable = false)
      : durable_(durable),
        initdb_(find_program("initdb", {"/usr/lib/postgresql/*/bin"})),
        pg_ctl_(initdb_.empty()
                    ? std::string()
                    : std::filesystem::path(initdb_).parent_path().string() + "/pg_ctl") {
    if (::geteuid() == 0) {
      const passwd* pw = ::getpwnam("nobody");
      if (pw != nullptr) {
        uid_ = pw->pw_uid;
        gid_ = pw->pw_gid;
      }
    }
  }
  ~postgres_cluster() {
    stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  [[nodiscard]] bool available() const {
    return !initdb_.empty() && ::access(pg_ctl_.c_str(), X_OK) == 0;
  }
  [[nodiscard]] std::string missing() const {
    return "initdb/pg_ctl were not found on PATH or in /usr/lib/postgresql/*/bin (Debian: apt-get "
           "install postgresql)";
  }

  /// Creates the cluster on first use, then starts it (on the same port as before).
  void start() {
    if (dir_.empty()) {
      dir_ = make_temp_dir("flakeid-pg");
      if (uid_ != static_cast<uid_t>(-1) && ::chown(dir_.c_str(), uid_, gid_) != 0)
        throw std::runtime_error("cannot chown " + dir_);
      port_ = free_port();
      const int rc = run({initdb_, "-D", dir_ + "/data", "-A", "trust", "-U", "flakeid", "-E",
                          "UTF8", "--no-sync", "--no-instructions"},
                         dir_ + "/initdb.log", uid_, gid_, dir_);
      if (rc != 0) throw std::runtime_error("initdb failed: " + read_file(dir_ + "/initdb.log"));
    }
    const int rc =
        run({pg_ctl_, "-D", dir_ + "/data", "-l", dir_ + "/server.log", "-w", "-t", "30", "-o",
             "-p " + std::to_string(port_) + " -k " + dir_ +
                 " -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
                 " -c synchronous_commit=" +
                 (durable_ ? "on" : "off"),
             "start"},
            dir_ + "/pg_ctl.log", uid_, gid_, dir_);
    if (rc != 0)
      throw std::runtime_error("pg_ctl start failed: " + read_file(dir_ + "/pg_ctl.log") +
                               read_file(dir_ + "/server.log"));
    running_ = true;
  }
  void stop() {
    if (!running_) return;
    (void)run({pg_ctl_, "-D", dir_ + "/data", "-m", "immediate", "-w", "stop"},
              dir_ + "/pg_ctl.log", uid_, gid_, dir_);
    running_ = false;
  }
  [[nodiscard]] std::string conninfo() const {
    return "host=127.0.0.1 port=" + std::to_string(port_) + " user=flakeid dbname=postgres";
  }
  [[nodiscard]] int port() const { return port_; }

 private:
  bool durable_ = false;
  std::string initdb_;
  std::string pg_ctl_;
  uid_t uid_ = static_cast<uid_t>(-1);
  gid_t gid_ = static_cast<gid_t>(-1);
  std::string dir_;
  int port_ = 0;
  bool running_ = false;
};

/// A MariaDB server: a data directory made with mariadb-install-db in a temporary directory,
/// then mariadbd on a free loopback port, as 'nobody' when the tests run as root. Its first
/// start creates the user 'flakeid'@'127.0.0.1' (no password; every privilege) and the
/// database 'flakeid' through --init-file; grants stay enforced.
class mariadb_server {
 public:
  mariadb_server()
      : install_db_(find_program("mariadb-install-db", {"/usr/bin", "/usr/local/mysql/bin"})),
        mariadbd_(find_program("mariadbd", {"/usr/sbin", "/usr/local/mysql/bin"})) {
    if (::geteuid() == 0) {
      const passwd* pw = ::getpwnam("nobody");
      if (pw != nullptr) {
        uid_ = pw->pw_uid;
        gid_ = pw->pw_gid;
      }
    }
  }
  ~mariadb_server() {
    stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  mariadb_server(const mariadb_server&) = delete;
  mariadb_server& operator=(const mariadb_server&) = delete;

  [[nodiscard]] bool available() const { return !install_db_.empty() && !mariadbd_.empty(); }
  [[nodiscard]] std::string missing() const {
    return "mariadb-install-db/mariadbd were not found (Debian: apt-get install mariadb-server)";
  }

  /// Creates the data directory on first use, then starts the server and waits until the user
  /// 'flakeid' can log in.
  void start() {
    if (dir_.empty()) {
      dir_ = make_temp_dir("flakeid-mariadb");
      if (uid_ != static_cast<uid_t>(-1) && ::chown(dir_.c_str(), uid_, gid_) != 0)
        throw std::runtime_error("cannot chown " + dir_);
      port_ = free_port();
      // A temporary directory of its own: servers sharing /tmp can collide on temp file names.
      std::filesystem::create_directory(dir_ + "/tmp");
      if (uid_ != static_cast<uid_t>(-1) && ::chown((dir_ + "/tmp").c_str(), uid_, gid_) != 0)
        throw std::runtime_error("cannot chown " + dir_ + "/tmp");
      const int rc = run(
          {install_db_, "--no-defaults", "--datadir=" + dir_ + "/data", "--tmpdir=" + dir_ + "/tmp",
           "--auth-root-authentication-method=normal", "--skip-test-db"},
          dir_ + "/install.log", uid_, gid_, dir_);
      if (rc != 0)
        throw std::runtime_error("mariadb-install-db failed: " + read_file(dir_ + "/install.log"));
      std::ofstream init(dir_ + "/init.sql");
      init << "CREATE USER IF NOT EXISTS 'flakeid'@'127.0.0.1';\n"
              "GRANT ALL ON *.* TO 'flakeid'@'127.0.0.1';\n"
              "CREATE DATABASE IF NOT EXISTS flakeid;\n";
    }
    pid_ = spawn({mariadbd_, "--no-defaults", "--datadir=" + dir_ + "/data",
                  "--port=" + std::to_string(port_), "--bind-address=127.0.0.1",
                  "--tmpdir=" + dir_ + "/tmp", "--socket=" + dir_ + "/mariadb.sock",
                  "--pid-file=" + dir_ + "/mariadb.pid", "--skip-name-resolve", "--skip-log-bin",
                  "--init-file=" + dir_ + "/init.sql", "--innodb-buffer-pool-size=32M",
                  "--innodb-flush-log-at-trx-commit=0", "--log-error=" + dir_ + "/server.log"},
                 dir_ + "/mariadbd.log", uid_, gid_, dir_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
    while (read_file(dir_ + "/server.log").find("ready for connections") == std::string::npos) {
      int st = 0;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("mariadbd exited: " + read_file(dir_ + "/server.log"));
      }
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("mariadbd did not start: " + read_file(dir_ + "/server.log"));
      std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] static std::string user() { return "flakeid"; }
  [[nodiscard]] static std::string database() { return "flakeid"; }

 private:
  std::string install_db_;
  std::string mariadbd_;
  uid_t uid_ = static_cast<uid_t>(-1);
  gid_t gid_ = static_cast<gid_t>(-1);
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace flakeid_test
