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
#include <flakeid/adapters/redis_options.hpp>

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

/// How a `redis_server` is set up beyond the defaults.
struct redis_config {
  /// Every acknowledged write in the append-only file (`appendfsync always`).
  bool durable = false;
  /// `requirepass` (the default user's password).
  std::string requirepass{};
  /// An ACL user `acl_user on >acl_password ~flakeid:* +@all`; the default user is then off.
  std::string acl_user{};
  std::string acl_password{};
  /// TLS only (`--tls-port`, `--port 0`), with a certificate for localhost and 127.0.0.1, or
  /// for other.example only when `other_host_cert`.
  bool tls = false;
  bool other_host_cert = false;
  /// The server asks for a client certificate signed by the test CA.
  bool tls_client_cert = false;
  /// Also listen on a Unix socket (`redis.sock` in the server's directory).
  bool unix_socket = false;
};

/// A redis-server on a free loopback port; without persistence, or with `durable` every
/// acknowledged write in the append-only file (`appendfsync always`), so a restart after
/// SIGKILL keeps it.
class redis_server {
 public:
  explicit redis_server(bool durable = false) : redis_server(redis_config{.durable = durable}) {}
  explicit redis_server(redis_config config)
      : exe_(find_program("redis-server", {"/usr/sbin", "/usr/local/bin"})),
        durable_(config.durable),
        config_(std::move(config)) {}
  ~redis_server() {
    stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  [[nodiscard]] bool available() const {
    return !exe_.empty() && (!config_.tls || !openssl_program().empty());
  }
  [[nodiscard]] std::string missing() const {
    return exe_.empty() ? "redis-server was not found (Debian: apt-get install redis-server)"
                        : "openssl was not found (Debian: apt-get install openssl)";
  }

  /// Starts the server (on the same port as before after a stop).
  void start() {
    if (dir_.empty()) {
      dir_ = make_temp_dir("flakeid-redis");
      if (config_.tls) certs_ = make_test_certs(dir_);
    }
    if (port_ == 0) port_ = free_port();
    std::vector<std::string> argv{exe_,
                                  "--bind",
                                  "127.0.0.1",
                                  "--save",
                                  "",
                                  "--appendonly",
                                  durable_ ? "yes" : "no",
                                  "--appendfsync",
                                  "always",
                                  "--protected-mode",
                                  "no",
                                  "--dir",
                                  dir_};
    if (config_.tls) {
      const std::string cert = config_.other_host_cert ? "other" : "server";
      argv.insert(argv.end(),
                  {"--port", "0", "--tls-port", std::to_string(port_), "--tls-cert-file",
                   certs_.crt(cert), "--tls-key-file", certs_.key(cert), "--tls-ca-cert-file",
                   certs_.ca(), "--tls-auth-clients", config_.tls_client_cert ? "yes" : "no"});
    } else {
      argv.insert(argv.end(), {"--port", std::to_string(port_)});
    }
    if (!config_.requirepass.empty())
      argv.insert(argv.end(), {"--requirepass", config_.requirepass});
    if (!config_.acl_user.empty())
      argv.insert(argv.end(), {"--user", config_.acl_user, "on", ">" + config_.acl_password,
                               "~flakeid:*", "+@all", "--user", "default", "off"});
    if (config_.unix_socket)
      argv.insert(argv.end(), {"--unixsocket", socket_path(), "--unixsocketperm", "700"});
    pid_ = spawn(argv, dir_ + "/redis.log");
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
  /// Freezes the server (SIGSTOP): its connections stay open, and it answers nothing.
  void pause() const {
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
  }
  /// Lets a paused server run on (SIGCONT).
  void resume() const {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
  }
  /// Stops the server and removes its append-only file: the next `start` serves an empty
  /// store, as a durable server whose disk was lost.
  void wipe() {
    stop();
    std::filesystem::remove_all(dir_ + "/appendonlydir");
    std::filesystem::remove(dir_ + "/appendonly.aof");
    std::filesystem::remove(dir_ + "/dump.rdb");
  }
  [[nodiscard]] std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] int port() const { return port_; }
  /// The Unix socket (with `redis_config::unix_socket`).
  [[nodiscard]] std::string socket_path() const { return dir_ + "/redis.sock"; }
  /// The test CA and certificates (with `redis_config::tls`, once started).
  [[nodiscard]] const test_certs& certs() const { return certs_; }
  /// Options for a client of this server: TLS with the test CA when the server speaks TLS (no
  /// login, db 0).
  [[nodiscard]] flakeid::redis_options options() const {
    return {.address = {.port = port_,
                        .tls = config_.tls,
                        .tls_ca_file = config_.tls ? certs_.ca() : std::string()}};
  }

 private:
  void wait_ready() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
    // Ready once it accepts connections on every listener asked for (the Unix socket may come
    // up after the TCP port); the limit only ends a broken start.
    while (!port_open(port_) || (config_.unix_socket && !unix_socket_open(socket_path()))) {
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("redis-server did not start: " + read_file(dir_ + "/redis.log"));
      std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
  }
  std::string exe_{};
  bool durable_ = false;
  redis_config config_;
  test_certs certs_;
  std::string dir_{};
  int port_ = 0;
  pid_t pid_ = -1;
};

/// A PostgreSQL cluster made with initdb in a temporary directory, run with pg_ctl on a free
/// loopback port; as 'nobody' when the tests run as root (initdb refuses root). Commits return
/// before their WAL is written unless `durable` (then a committed row survives an immediate
/// stop; fsync stays off, as the machine itself does not crash).
/// How a `postgres_cluster` is set up beyond the defaults.
struct postgres_config {
  /// Commits wait for their WAL.
  bool durable = false;
  /// The superuser's password; TCP logins then need it (`scram-sha-256` in pg_hba.conf).
  std::string password{};
  /// `ssl=on` with a certificate for localhost and 127.0.0.1 signed by a test CA.
  bool ssl = false;
};

class postgres_cluster {
 public:
  explicit postgres_cluster(bool durable = false)
      : postgres_cluster(postgres_config{.durable = durable}) {}
  explicit postgres_cluster(postgres_config config)
      : durable_(config.durable),
        config_(std::move(config)),
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
    return !initdb_.empty() && ::access(pg_ctl_.c_str(), X_OK) == 0 &&
           (!config_.ssl || !openssl_program().empty());
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
      std::vector<std::string> args{"-U",   "flakeid",   "-E",
                                    "UTF8", "--no-sync", "--no-instructions"};
      if (config_.password.empty()) {
        args.insert(args.end(), {"-A", "trust"});
      } else {
        args.insert(args.end(), {"--auth-local=trust", "--auth-host=scram-sha-256",
                                 "password " + config_.password});
      }
      if (config_.ssl) {
        certs_ = make_test_certs(dir_);
        for (const std::string& f : {certs_.crt("server"), certs_.key("server"), certs_.ca()}) {
          if (uid_ != static_cast<uid_t>(-1) && ::chown(f.c_str(), uid_, gid_) != 0)
            throw std::runtime_error("cannot chown " + f);
        }
        ::chmod(certs_.key("server").c_str(), 0600);
        ssl_options_ = " -c ssl=on -c ssl_cert_file=" + certs_.crt("server") +
                       " -c ssl_key_file=" + certs_.key("server");
      }
      copy_data_template(
          template_key(initdb_, args), dir_ + "/data", uid_, gid_, [&](const std::string& dir) {
            std::vector<std::string> argv{initdb_, "-D", dir + "/data"};
            argv.insert(argv.end(), args.begin(), args.end());
            if (!config_.password.empty()) {
              std::ofstream(dir + "/pwfile") << config_.password << "\n";
              if (uid_ != static_cast<uid_t>(-1) &&
                  ::chown((dir + "/pwfile").c_str(), uid_, gid_) != 0)
                throw std::runtime_error("cannot chown the password file");
              argv.back() = "--pwfile=" + dir + "/pwfile";
            }
            const int rc = run(argv, dir + "/initdb.log", uid_, gid_, dir);
            std::filesystem::remove(dir + "/pwfile");
            if (rc != 0)
              throw std::runtime_error("initdb failed: " + read_file(dir + "/initdb.log"));
          });
    }
    const int rc =
        run({pg_ctl_, "-D", dir_ + "/data", "-l", dir_ + "/server.log", "-w", "-t", "30", "-o",
             "-p " + std::to_string(port_) + " -k " + dir_ +
                 " -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
                 " -c synchronous_commit=" +
                 (durable_ ? "on" : "off") + ssl_options_,
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
  /// Freezes the postmaster and every backend (SIGSTOP to its process group; pg_ctl starts it
  /// in a session of its own): connections stay open, and nothing answers.
  void pause() const { signal_group(SIGSTOP); }
  /// Lets a paused cluster run on (SIGCONT).
  void resume() const { signal_group(SIGCONT); }
  /// A libpq connection string with the password and, with ssl, `sslmode=verify-full`.
  [[nodiscard]] std::string conninfo() const {
    std::string c =
        "host=127.0.0.1 port=" + std::to_string(port_) + " user=flakeid dbname=postgres";
    if (!config_.password.empty()) c += " password=" + config_.password;
    if (config_.ssl) c += " sslmode=verify-full sslrootcert=" + certs_.ca();
    return c;
  }
  /// The same as a `postgresql://` URI (the password percent-encoded by the caller's choice:
  /// tests use passwords without reserved characters).
  [[nodiscard]] std::string uri() const {
    std::string u = "postgresql://flakeid";
    if (!config_.password.empty()) u += ":" + config_.password;
    u += "@127.0.0.1:" + std::to_string(port_) + "/postgres";
    if (config_.ssl) u += "?sslmode=verify-full&sslrootcert=" + certs_.ca();
    return u;
  }
  /// The test CA and certificates (with `postgres_config::ssl`, once started).
  [[nodiscard]] const test_certs& certs() const { return certs_; }
  [[nodiscard]] int port() const { return port_; }
  /// The first column of the first row `sql` returns, through psql (empty on an error).
  [[nodiscard]] std::string query(const std::string& sql) const {
    const std::string psql = find_program("psql", {"/usr/lib/postgresql/*/bin"});
    const std::string out = dir_ + "/query.out";
    (void)run({psql, "-h", "127.0.0.1", "-p", std::to_string(port_), "-U", "flakeid", "-d",
               "postgres", "-tAc", sql},
              out, static_cast<uid_t>(-1), static_cast<gid_t>(-1), dir_);
    std::string r = read_file(out);
    while (!r.empty() && (r.back() == '\n' || r.back() == '\r')) r.pop_back();
    return r;
  }

 private:
  void signal_group(int sig) const {
    if (!running_) return;
    const pid_t pid =
        static_cast<pid_t>(std::atol(read_file(dir_ + "/data/postmaster.pid").c_str()));
    if (pid > 0) ::kill(-pid, sig);
  }
  bool durable_ = false;
  postgres_config config_;
  test_certs certs_;
  std::string ssl_options_{};
  std::string initdb_{};
  std::string pg_ctl_{};
  uid_t uid_ = static_cast<uid_t>(-1);
  gid_t gid_ = static_cast<gid_t>(-1);
  std::string dir_{};
  int port_ = 0;
  bool running_ = false;
};

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

/// The JVM and jar of Debian's `zookeeper` package, which run its servers.
struct zookeeper_jvm {
  std::string java = find_program("java", {"/usr/bin", "/usr/lib/jvm/default-java/bin"});
  std::string jar = std::filesystem::exists("/usr/share/java/zookeeper.jar")
                        ? std::string("/usr/share/java/zookeeper.jar")
                        : std::string();
  [[nodiscard]] bool available() const { return !java.empty() && !jar.empty(); }
  [[nodiscard]] static std::string missing() {
    return "java or /usr/share/java/zookeeper.jar was not found (Debian: apt-get install "
           "zookeeper)";
  }
  /// Runs `main_class` with configuration `cfg`, logging to `dir`/server.log.
  [[nodiscard]] pid_t spawn_server(const std::string& main_class, const std::string& cfg,
                                   const std::string& dir) const {
    return spawn({java, "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                  "-Dzookeeper.log.dir=" + dir, "-cp", jar, main_class, cfg},
                 dir + "/server.log");
  }
};

/// How a `mariadb_server` is set up beyond the defaults.
struct mariadb_config {
  /// Every commit is written to the operating system before it is answered.
  bool durable = false;
  /// The password of the user 'flakeid' (none when empty).
  std::string password{};
  /// TLS with a certificate for localhost and 127.0.0.1 signed by a test CA, and a second user
  /// 'flakeid_tls' (same password) whose logins must use TLS (`REQUIRE SSL`).
  bool tls = false;
  /// The certificate the server presents (`test_certs`: "server", or "other" for a host name
  /// that is not the one the client dials).
  std::string tls_cert = "server";
};

/// A MariaDB server: a data directory made with mariadb-install-db in a temporary directory,
/// then mariadbd on a free loopback port, as 'nobody' when the tests run as root. Its first
/// start creates the user 'flakeid'@'127.0.0.1' (every privilege; the password of the
/// config, else none) and the database 'flakeid' through --init-file; grants stay enforced.
/// `durable`: every commit is written to the operating system before it is answered, so a
/// server killed with SIGKILL keeps it (else up to a second of commits may be lost, which the
/// SQL tests do not mind).
class mariadb_server {
 public:
  explicit mariadb_server(bool durable = false)
      : mariadb_server(mariadb_config{.durable = durable}) {}
  explicit mariadb_server(mariadb_config config)
      : durable_(config.durable),
        config_(std::move(config)),
        install_db_(find_program("mariadb-install-db", {"/usr/bin", "/usr/local/mysql/bin"})),
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

  [[nodiscard]] bool available() const {
    return !install_db_.empty() && !mariadbd_.empty() &&
           (!config_.tls || !openssl_program().empty());
  }
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
      const std::vector<std::string> args{"--auth-root-authentication-method=normal",
                                          "--skip-test-db"};
      copy_data_template(template_key(install_db_, args), dir_ + "/data", uid_, gid_,
                         [&](const std::string& dir) {
                           std::vector<std::string> argv{install_db_, "--no-defaults",
                                                         "--datadir=" + dir + "/data",
                                                         "--tmpdir=" + dir_ + "/tmp"};
                           argv.insert(argv.end(), args.begin(), args.end());
                           if (run(argv, dir + "/install.log", uid_, gid_, dir) != 0)
                             throw std::runtime_error("mariadb-install-db failed: " +
                                                      read_file(dir + "/install.log"));
                         });
      const std::string identified =
          config_.password.empty() ? "" : " IDENTIFIED BY '" + config_.password + "'";
      std::ofstream init(dir_ + "/init.sql");
      init << "CREATE USER IF NOT EXISTS 'flakeid'@'127.0.0.1'" << identified << ";\n"
           << "GRANT ALL ON *.* TO 'flakeid'@'127.0.0.1';\n"
              "CREATE DATABASE IF NOT EXISTS flakeid;\n";
      if (config_.tls) {
        init << "CREATE USER IF NOT EXISTS 'flakeid_tls'@'127.0.0.1'" << identified
             << " REQUIRE SSL;\nGRANT ALL ON *.* TO 'flakeid_tls'@'127.0.0.1';\n";
        std::filesystem::create_directory(dir_ + "/certs");
        certs_ = make_test_certs(dir_ + "/certs");
        const std::string& cert = config_.tls_cert;
        for (const std::string& f : {certs_.crt(cert), certs_.key(cert), certs_.ca()})
          if (uid_ != static_cast<uid_t>(-1) && ::chown(f.c_str(), uid_, gid_) != 0)
            throw std::runtime_error("cannot chown " + f);
        tls_args_ = {"--ssl-cert=" + certs_.crt(cert), "--ssl-key=" + certs_.key(cert),
                     "--ssl-ca=" + certs_.ca()};
      }
    }
    // A fresh log: readiness is read from it, and a restart must not see the last start's line.
    std::filesystem::remove(dir_ + "/server.log");
    std::vector<std::string> argv{
        mariadbd_,
        "--no-defaults",
        "--datadir=" + dir_ + "/data",
        "--port=" + std::to_string(port_),
        "--bind-address=127.0.0.1",
        "--tmpdir=" + dir_ + "/tmp",
        "--socket=" + dir_ + "/mariadb.sock",
        "--pid-file=" + dir_ + "/mariadb.pid",
        "--skip-name-resolve",
        "--skip-log-bin",
        "--init-file=" + dir_ + "/init.sql",
        "--innodb-buffer-pool-size=32M",
        std::string("--innodb-flush-log-at-trx-commit=") + (durable_ ? "2" : "0"),
        "--max-connections=500",
        "--log-error=" + dir_ + "/server.log"};
    argv.insert(argv.end(), tls_args_.begin(), tls_args_.end());
    pid_ = spawn(argv, dir_ + "/mariadbd.log", uid_, gid_, dir_);
    wait_until_up(pid_, "mariadbd", dir_ + "/server.log", [&] {
      return read_file(dir_ + "/server.log").find("ready for connections") != std::string::npos;
    });
  }
  void stop() { kill_and_reap(pid_); }
  /// Freezes the server (SIGSTOP): its connections stay open, and it answers nothing.
  void pause() const {
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
  }
  /// Lets a paused server run on (SIGCONT).
  void resume() const {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
  }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] static std::string user() { return "flakeid"; }
  [[nodiscard]] static std::string database() { return "flakeid"; }
  /// `mysql://flakeid[:password]@127.0.0.1:<port>/flakeid` (the password as it is: tests use
  /// passwords without reserved characters).
  [[nodiscard]] std::string uri() const {
    return "mysql://flakeid" + (config_.password.empty() ? "" : ":" + config_.password) +
           "@127.0.0.1:" + std::to_string(port_) + "/flakeid";
  }
  /// The test CA and certificates (with `mariadb_config::tls`, once started).
  [[nodiscard]] const test_certs& certs() const { return certs_; }

 private:
  bool durable_;
  mariadb_config config_;
  test_certs certs_;
  std::vector<std::string> tls_args_;
  std::string install_db_;
  std::string mariadbd_;
  uid_t uid_ = static_cast<uid_t>(-1);
  gid_t gid_ = static_cast<gid_t>(-1);
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

/// The mode a ZooKeeper server at `ip`:`port` reports to `srvr` ("standalone", "leader",
/// "follower"), or "" when it does not serve yet (or the command is not whitelisted).
inline std::string zookeeper_mode(const std::string& ip, int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return "";
  timeval tv{1, 0};
  (void)::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  (void)::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  std::string out;
  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::write(s, "srvr", 4) == 4) {
    char buf[512];
    for (ssize_t n; (n = ::read(s, buf, sizeof buf)) > 0;)
      out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(s);
  const auto m = out.find("Mode: ");
  if (m == std::string::npos) return "";
  return out.substr(m + 6, out.find('\n', m) - m - 6);
}

/// A standalone ZooKeeper server (Debian's `zookeeper` package: the server class run with the
/// JVM) with a data directory in a temporary directory, on a free loopback port; kept data
/// across a stop and a start. Ticks of 100 ms, so sessions may time out after 200 ms to 4 s.
class zookeeper_server {
 public:
  zookeeper_server() = default;
  ~zookeeper_server() {
    stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  zookeeper_server(const zookeeper_server&) = delete;
  zookeeper_server& operator=(const zookeeper_server&) = delete;

  [[nodiscard]] bool available() const { return jvm_.available(); }
  [[nodiscard]] static std::string missing() { return zookeeper_jvm::missing(); }

  /// Starts the server (on the same port and data after a stop) and waits until it serves.
  void start() {
    if (dir_.empty()) {
      dir_ = make_temp_dir("flakeid-zookeeper");
      port_ = free_port();
      std::filesystem::create_directory(dir_ + "/data");
      std::ofstream cfg(dir_ + "/zoo.cfg");
      cfg << "tickTime=100\ndataDir=" << dir_ << "/data\nclientPort=" << port_
          << "\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\nmaxClientCnxns=0\n"
             "minSessionTimeout=200\nmaxSessionTimeout=6000\n4lw.commands.whitelist=srvr\n";
    }
    pid_ = jvm_.spawn_server("org.apache.zookeeper.server.ZooKeeperServerMain", dir_ + "/zoo.cfg",
                             dir_);
    // Serving, not just listening: a client that connects before the server has loaded its
    // data waits two thirds of its session timeout before it tries again.
    wait_until_up(pid_, "zookeeper", dir_ + "/server.log",
                  [&] { return zookeeper_mode("127.0.0.1", port_) == "standalone"; });
  }
  void stop() { kill_and_reap(pid_); }
  /// Stops the server and empties its data directory: the next `start` serves an empty tree,
  /// as a server whose disk was lost.
  void wipe() {
    stop();
    std::filesystem::remove_all(dir_ + "/data");
    std::filesystem::create_directory(dir_ + "/data");
  }
  /// Freezes the server (SIGSTOP): its connections stay open, and it answers nothing.
  void pause() const {
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
  }
  /// Lets a paused server run on (SIGCONT).
  void resume() const {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
  }
  [[nodiscard]] int port() const { return port_; }
  /// `127.0.0.1:<port>`.
  [[nodiscard]] std::string hosts() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  zookeeper_jvm jvm_;
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

/// A ZooKeeper ensemble of three servers on 127.0.0.1, 127.0.0.2 and 127.0.0.3 (one data
/// directory each in a temporary directory), any of which can be killed and started again.
class zookeeper_ensemble {
 public:
  zookeeper_ensemble() = default;
  ~zookeeper_ensemble() {
    for (int i = 0; i < 3; ++i) kill(i);
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  zookeeper_ensemble(const zookeeper_ensemble&) = delete;
  zookeeper_ensemble& operator=(const zookeeper_ensemble&) = delete;

  [[nodiscard]] bool available() const { return jvm_.available(); }
  [[nodiscard]] static std::string missing() { return zookeeper_jvm::missing(); }

  /// Starts the three servers and waits until one of them leads.
  void start() {
    if (dir_.empty()) {
      dir_ = make_temp_dir("flakeid-zk-ensemble");
      for (int i = 0; i < 3; ++i)
        for (int& p : ports_[i]) p = free_port();
      for (int i = 0; i < 3; ++i) {
        const std::string d = dir_ + "/n" + std::to_string(i + 1);
        std::filesystem::create_directories(d + "/data");
        std::ofstream(d + "/data/myid") << (i + 1) << "\n";
        std::ofstream cfg(d + "/zoo.cfg");
        cfg << "tickTime=100\ninitLimit=50\nsyncLimit=20\ndataDir=" << d
            << "/data\nclientPort=" << ports_[i][0] << "\nclientPortAddress=" << ip(i)
            << "\nadmin.enableServer=false\nmaxClientCnxns=0\nminSessionTimeout=200\n"
               "maxSessionTimeout=6000\n4lw.commands.whitelist=srvr\n";
        for (int k = 0; k < 3; ++k)
          cfg << "server." << (k + 1) << "=" << ip(k) << ":" << ports_[k][1] << ":" << ports_[k][2]
              << "\n";
      }
    }
    for (int i = 0; i < 3; ++i) start(i);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{90};
    while (leader() < 0) {
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("the ensemble elected no leader: " +
                                 read_file(dir_ + "/n1/server.log"));
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
  }
  void start(int i) {
    if (pids_[i] > 0) return;
    const std::string d = dir_ + "/n" + std::to_string(i + 1);
    pids_[i] =
        jvm_.spawn_server("org.apache.zookeeper.server.quorum.QuorumPeerMain", d + "/zoo.cfg", d);
  }
  void kill(int i) { kill_and_reap(pids_[i]); }
  /// Kills the three servers and copies their data directories to `to` (a backup).
  void save_data(const std::string& to) {
    for (int i = 0; i < 3; ++i) kill(i);
    for (int i = 0; i < 3; ++i)
      std::filesystem::copy(dir_ + "/n" + std::to_string(i + 1) + "/data",
                            to + "/n" + std::to_string(i + 1),
                            std::filesystem::copy_options::recursive);
  }
  /// Kills the three servers and puts back the data directories saved in `from`.
  void restore_data(const std::string& from) {
    for (int i = 0; i < 3; ++i) kill(i);
    for (int i = 0; i < 3; ++i) {
      const std::string d = dir_ + "/n" + std::to_string(i + 1) + "/data";
      std::filesystem::remove_all(d);
      std::filesystem::copy(from + "/n" + std::to_string(i + 1), d,
                            std::filesystem::copy_options::recursive);
    }
  }
  /// The index of the server that leads now, or -1.
  [[nodiscard]] int leader() const {
    for (int i = 0; i < 3; ++i)
      if (pids_[i] > 0 && mode(i) == "leader") return i;
    return -1;
  }
  /// `127.0.0.1:<port>,127.0.0.2:<port>,127.0.0.3:<port>`.
  [[nodiscard]] std::string hosts() const {
    std::string h;
    for (int i = 0; i < 3; ++i) h += (i ? "," : "") + ip(i) + ":" + std::to_string(ports_[i][0]);
    return h;
  }

 private:
  static std::string ip(int i) { return "127.0.0." + std::to_string(i + 1); }

  /// The server's answer to `srvr`: "leader", "follower", or "" when it does not serve.
  [[nodiscard]] std::string mode(int i) const { return zookeeper_mode(ip(i), ports_[i][0]); }

  zookeeper_jvm jvm_;
  std::string dir_;
  int ports_[3][3] = {};  // client, peer, election
  pid_t pids_[3] = {-1, -1, -1};
};

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
