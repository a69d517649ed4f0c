// The servers of the fault soak: each store's test server (tests/adapters/*_server.hpp)
// behind `soak_server`, and how each is made to forget its leases.

#include <pwd.h>
#include <sys/mount.h>
#include <sys/stat.h>

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

/// The file store: a directory, on a tmpfs of 4 MiB when one can be mounted (then the nemesis
/// can fill it).
class file_server final : public soak_server {
 public:
  explicit file_server(const std::string& dir) : dir_(dir + "/store") {
    fs::create_directories(dir_);
    ::chmod(dir_.c_str(), 01777);  // the minters may run as another user
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=4m,mode=1777") == 0;
  }
  ~file_server() override {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  [[nodiscard]] std::string where() const override { return dir_; }
  [[nodiscard]] int port() const override { return 0; }
  void start() override {}
  void kill() override {}
  bool wipe() override { return false; }
  void pause() override {}
  void resume() override {}
  bool forget() override {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec))
      if (e.path().extension() == ".lease") fs::remove(e.path(), ec);
    return true;
  }
  [[nodiscard]] std::string disk() const override { return mounted_ ? dir_ : std::string(); }

 private:
  std::string dir_;
  bool mounted_ = false;
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
  bool forget() override {
    // The lease keys of the namespace, in turn: every one; the holders' records (`worker`,
    // `last`, `inst`), the epoch and the count of ids kept; those and the count. The segment
    // counters stay.
    static constexpr const char* kinds[] = {
        "'*:worker:*', '*:last:*', '*:epoch', '*:ids', '*:inst*'",
        "'*:worker:*', '*:last:*', '*:inst*'", "'*:worker:*', '*:last:*', '*:ids', '*:inst*'"};
    const std::string lua = std::string("local n = 0 for _, p in ipairs({") +
                            kinds[forgets_++ % 3] +
                            "}) do for _, k in ipairs(redis.call('KEYS', 'flakeid:*soak*' .. p)) "
                            "do redis.call('DEL', k) n = n + 1 end end return n";
    return run_program({find_program("redis-cli", {"/usr/bin"}), "-p", std::to_string(s_.port()),
                        "EVAL", lua, "0"},
                       log_) == 0;
  }

 private:
  unsigned forgets_ = 0;
};

class postgres_server final : public wipeable_server_of<flakeid_test::postgres_cluster> {
 public:
  explicit postgres_server(const std::string& dir) : wipeable_server_of(dir, true) {}
  [[nodiscard]] std::string where() const override { return s_.conninfo(); }
  bool forget() override {
    (void)s_.query("DELETE FROM flakeid_lease_soak WHERE id >= 0");
    return true;
  }
};

class mysql_server final : public wipeable_server_of<flakeid_test::mariadb_server> {
 public:
  explicit mysql_server(const std::string& dir) : wipeable_server_of(dir, true) {}
  [[nodiscard]] std::string where() const override { return s_.uri(); }
  bool forget() override {
    return run_program({find_program("mariadb", {"/usr/bin"}), "-h", "127.0.0.1", "-P",
                        std::to_string(s_.port()), "-u", "flakeid", "flakeid", "-e",
                        "DELETE FROM flakeid_lease_soak WHERE id >= 0"},
                       log_) == 0;
  }
};

class zookeeper_server final : public wipeable_server_of<flakeid_test::zookeeper_server> {
 public:
  explicit zookeeper_server(const std::string& dir) : wipeable_server_of(dir) {}
  [[nodiscard]] std::string where() const override { return s_.hosts(); }
  // Ephemeral nodes: a wipe is the way to make it forget.
  [[nodiscard]] bool can_forget() const override { return false; }
  bool forget() override { return false; }
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
