// The servers of the fault soak: each store's test server (tests/adapters/*_server.hpp)
// behind `soak_server`, and how each is made to forget its leases.

#include <fcntl.h>
#include <pwd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <mariadb_server.hpp>
#include <postgres_server.hpp>
#include <redis_server.hpp>
#include <server_support.hpp>
#include <string>
#include <zookeeper_server.hpp>

#include "harness.hpp"

namespace flakeid_soak {

int run_program(const std::vector<std::string>& argv, const std::string& log) {
  return flakeid_test::run(argv, log);
}

std::string read_text(const std::string& path) { return flakeid_test::read_file(path); }

pid_t spawn_program(const std::vector<std::string>& argv, const std::string& log, uid_t uid,
                    gid_t gid) {
  return flakeid_test::spawn(argv, log, uid, gid);
}

std::pair<uid_t, gid_t> minter_user() {
  if (::geteuid() == 0) {
    if (const passwd* pw = ::getpwnam("nobody")) return {pw->pw_uid, pw->pw_gid};
  }
  return {static_cast<uid_t>(-1), static_cast<gid_t>(-1)};
}

std::pair<uid_t, gid_t> minter_user(int slot, bool own) {
  const auto shared = minter_user();
  if (!own || shared.first == static_cast<uid_t>(-1)) return shared;
  return {minter_uid_base + static_cast<uid_t>(slot), shared.second};
}

namespace {

namespace fs = std::filesystem;
using flakeid_test::find_program;

/// The file store: a directory `leases` on a tmpfs of 4 MiB when one can be mounted (then the
/// nemesis can fill it).
class file_server final : public soak_server {
 public:
  explicit file_server(const std::string& dir) : disk_(dir + "/store"), dir_(disk_ + "/leases") {
    fs::create_directories(disk_);
    mounted_ = ::mount("tmpfs", disk_.c_str(), "tmpfs", 0, "size=4m,mode=1777") == 0;
    ::chmod(disk_.c_str(), 01777);  // the minters may run as another user
    fs::create_directories(dir_);
    ::chmod(dir_.c_str(), 01777);
  }
  ~file_server() override {
    if (mounted_) ::umount2(disk_.c_str(), MNT_DETACH);
  }
  [[nodiscard]] std::string where() const override { return dir_; }
  [[nodiscard]] int port() const override { return 0; }
  void start() override {}
  void kill() override {}
  bool wipe() override { return false; }
  void pause() override {}
  void resume() override {}
  /// In turn: every lock file deleted; the whole directory removed (a claim makes it again).
  std::string forget() override {
    std::error_code ec;
    if (forgets_++ % 2 == 1) {
      fs::remove_all(dir_, ec);
      return ec ? "" : "directory";
    }
    for (const auto& e : fs::directory_iterator(dir_, ec))
      if (e.path().extension() == ".lease") fs::remove(e.path(), ec);
    return "lock_files";
  }
  [[nodiscard]] std::string disk() const override { return mounted_ ? disk_ : std::string(); }
  [[nodiscard]] std::vector<std::string> own_kinds() const override {
    if (::geteuid() != 0) return {};  // another user's file needs root to make
    return {"foreign_lock"};
  }
  /// A lock file, in turn each of the ones there, deleted and made again by another local user
  /// (uid `foreign_uid`): the minters may neither take nor delete it. Its end deletes it.
  std::string begin_own(const std::string&) override {
    std::vector<fs::path> locks;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec))
      if (e.path().extension() == ".lease") locks.push_back(e.path());
    if (locks.empty()) return {};
    std::sort(locks.begin(), locks.end());
    foreign_ = locks[foreigns_++ % locks.size()].string();
    const std::string name = fs::path(foreign_).filename().string();
    fs::remove(foreign_, ec);
    // Left empty (a write may find the disk full: a file made but never owned by the other user
    // would block its id past the fault's end). Once the holder's file is deleted the fault has
    // begun, also when no file of the other user takes its place.
    const int fd =
        ::open(foreign_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return name + "_deleted";  // a minter made it again first
    const bool made = ::fchown(fd, foreign_uid, foreign_uid) == 0;
    ::close(fd);
    if (made) return name;
    ::unlink(foreign_.c_str());
    return name + "_deleted";
  }
  void end_own(const std::string&) override {
    struct stat st {};
    if (::lstat(foreign_.c_str(), &st) == 0 && st.st_uid == foreign_uid) ::unlink(foreign_.c_str());
  }

 private:
  static constexpr uid_t foreign_uid = 62'000;
  std::string disk_, dir_, foreign_;
  bool mounted_ = false;
  unsigned forgets_ = 0, foreigns_ = 0;
};

/// A server store: `Server` is one of the test servers; `where` gives a minter's address.
template <class Server>
class server_of : public soak_server {
 public:
  template <class... A>
  explicit server_of(const std::string& dir, A&&... a) : log_(dir + "/forget.log"), s_(a...) {
    if (!s_.available()) throw std::runtime_error(s_.missing());
  }
  ~server_of() override { s_.resume(); }
  [[nodiscard]] int port() const override { return s_.port(); }
  void start() override { s_.start(); }
  void kill() override {
    s_.resume();
    s_.stop();
  }
  void pause() override { s_.pause(); }
  void resume() override { s_.resume(); }
  /// Not wiped unless `wipeable_server_of` says otherwise (can_wipe).
  bool wipe() override { return false; }

 protected:
  std::string log_;
  Server s_;
};

/// A server store whose server can be wiped (its data emptied while it is stopped).
template <class Server>
class wipeable_server_of : public server_of<Server> {
 public:
  using server_of<Server>::server_of;
  [[nodiscard]] bool can_wipe() const override { return true; }
  bool wipe() override {
    this->s_.resume();
    this->s_.wipe();
    return true;
  }
};

class redis_server final : public wipeable_server_of<flakeid_test::redis_server> {
 public:
  explicit redis_server(const std::string& dir) : wipeable_server_of(dir, true) {}
  [[nodiscard]] std::string where() const override { return s_.address(); }
  std::string forget() override {
    // The lease keys of the namespace, in turn: every one; the holders' records (`worker`,
    // `last`, `inst`), the epoch and the count of ids kept; those and the count. The segment
    // counters stay.
    static constexpr const char* names[] = {"lease_keys", "holders", "holders_and_count"};
    static constexpr const char* kinds[] = {
        "'*:worker:*', '*:last:*', '*:epoch', '*:ids', '*:inst*'",
        "'*:worker:*', '*:last:*', '*:inst*'", "'*:worker:*', '*:last:*', '*:ids', '*:inst*'"};
    const unsigned k = forgets_++ % 3;
    const std::string lua = std::string("local n = 0 for _, p in ipairs({") + kinds[k] +
                            "}) do for _, k in ipairs(redis.call('KEYS', 'flakeid:*soak*' .. p)) "
                            "do redis.call('DEL', k) n = n + 1 end end return n";
    return cli({"EVAL", lua, "0"}) ? names[k] : "";
  }

 private:
  [[nodiscard]] std::vector<std::string> own_kinds() const override { return {"evict"}; }
  /// Memory full: the eviction policy `volatile-lru`, 2 MiB of keys without a TTL, and a limit
  /// of 1 MiB, so the server evicts every key with a TTL (the holders' tokens) and refuses
  /// writes. Its end deletes those keys and lifts the limit.
  std::string begin_own(const std::string&) override {
    const bool ok =
        cli({"CONFIG", "SET", "maxmemory-policy", "volatile-lru"}) &&
        cli({"EVAL",
             "for i = 1, 256 do redis.call('SET', 'soak-fill:' .. i, string.rep('x', 8192)) end",
             "0"}) &&
        cli({"CONFIG", "SET", "maxmemory", "1mb"});
    return ok ? "volatile-lru" : "";
  }
  void end_own(const std::string&) override {
    (void)cli({"CONFIG", "SET", "maxmemory", "0"});
    (void)cli({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
    (void)cli({"EVAL",
               "for _, k in ipairs(redis.call('KEYS', 'soak-fill:*')) do redis.call('DEL', k) end",
               "0"});
  }

  bool cli(std::vector<std::string> args) {
    args.insert(args.begin(),
                {find_program("redis-cli", {"/usr/bin"}), "-p", std::to_string(s_.port())});
    return run_program(args, log_) == 0;
  }
  unsigned forgets_ = 0;
};

/// A SQL server store: besides the shared kinds, `lossy_kill`: the server started again with
/// commits that are answered before they are written (MariaDB
/// `innodb_flush_log_at_trx_commit=0`, PostgreSQL `synchronous_commit=off`), killed seconds
/// later (losing its last commits), and started again durable.
template <class Server>
class sql_server_of : public wipeable_server_of<Server> {
 public:
  using wipeable_server_of<Server>::wipeable_server_of;
  [[nodiscard]] std::vector<std::string> own_kinds() const override { return {"lossy_kill"}; }
  std::string begin_own(const std::string&) override {
    restart(false);
    return "lossy";
  }
  void end_own(const std::string&) override { restart(true); }

 private:
  void restart(bool durable) {
    this->s_.resume();
    this->s_.stop();
    this->s_.set_durable(durable);
    this->s_.start();
  }
};

class postgres_server final : public sql_server_of<flakeid_test::postgres_cluster> {
 public:
  explicit postgres_server(const std::string& dir) : sql_server_of(dir, true) {}
  [[nodiscard]] std::string where() const override { return s_.conninfo(); }
  std::string forget() override {
    (void)s_.query("DELETE FROM flakeid_lease_soak WHERE id >= 0");
    return "rows";
  }
};

class mysql_server final : public sql_server_of<flakeid_test::mariadb_server> {
 public:
  explicit mysql_server(const std::string& dir) : sql_server_of(dir, true) {}
  [[nodiscard]] std::string where() const override { return s_.uri(); }
  std::string forget() override {
    return run_program({find_program("mariadb", {"/usr/bin"}), "-h", "127.0.0.1", "-P",
                        std::to_string(s_.port()), "-u", "flakeid", "flakeid", "-e",
                        "DELETE FROM flakeid_lease_soak WHERE id >= 0"},
                       log_) == 0
               ? "rows"
               : "";
  }
};

class zookeeper_server final : public wipeable_server_of<flakeid_test::zookeeper_server> {
 public:
  explicit zookeeper_server(const std::string& dir) : wipeable_server_of(dir) {}
  [[nodiscard]] std::string where() const override { return s_.hosts(); }
  // Ephemeral nodes: a wipe is the way to make it forget.
  [[nodiscard]] bool can_forget() const override { return false; }
  std::string forget() override { return {}; }
};

}  // namespace

std::unique_ptr<soak_server> make_server(const std::string& kind, const std::string& dir) {
  if (kind == "file") return std::make_unique<file_server>(dir);
  if (kind == "redis") return std::make_unique<redis_server>(dir);
  if (kind == "postgres") return std::make_unique<postgres_server>(dir);
  if (kind == "mysql") return std::make_unique<mysql_server>(dir);
  if (kind == "zookeeper") return std::make_unique<zookeeper_server>(dir);
  throw std::invalid_argument("no store '" + kind + "'");
}

}  // namespace flakeid_soak
