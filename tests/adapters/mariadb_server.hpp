// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// A MariaDB server for the tests (mariadb-install-db + mariadbd), in a temporary directory on a
// free loopback port (see server_support.hpp).

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "server_support.hpp"

namespace flakeid_test {

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

  /// Whether the next `start` runs durable (see the constructor): the fault soak runs a server
  /// non-durable for a while and kills it there.
  void set_durable(bool durable) { durable_ = durable; }

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
      make_data();
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
  /// Stops the server and makes its data directory anew, empty (as a disk lost and the server
  /// set up again): the next `start` serves it on the same port, with its user and database.
  void wipe() {
    stop();
    std::filesystem::remove_all(dir_ + "/data");
    make_data();
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
  /// The data directory: a copy of a `mariadb-install-db` made once.
  void make_data() {
    const std::vector<std::string> args{"--auth-root-authentication-method=normal",
                                        "--skip-test-db"};
    copy_data_template(
        template_key(install_db_, args), dir_ + "/data", uid_, gid_, [&](const std::string& dir) {
          std::vector<std::string> argv{install_db_, "--no-defaults", "--datadir=" + dir + "/data",
                                        "--tmpdir=" + dir_ + "/tmp"};
          argv.insert(argv.end(), args.begin(), args.end());
          if (run(argv, dir + "/install.log", uid_, gid_, dir) != 0)
            throw std::runtime_error("mariadb-install-db failed: " +
                                     read_file(dir + "/install.log"));
        });
  }
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

}  // namespace flakeid_test
