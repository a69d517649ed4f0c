// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// A PostgreSQL cluster for the tests (initdb + pg_ctl), in a temporary directory on a free
// loopback port (see server_support.hpp).

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "server_support.hpp"

namespace flakeid_test {

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
  /// More server settings, as ` -c name=value` options.
  std::string settings{};
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

  /// Whether the next `start` runs durable (see the constructor): the fault soak runs a server
  /// non-durable for a while and kills it there.
  void set_durable(bool durable) { durable_ = durable; }

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
      initdb_args_ = args;
      make_data();
    }
    const int rc =
        run({pg_ctl_, "-D", dir_ + "/data", "-l", dir_ + "/server.log", "-w", "-t", "30", "-o",
             "-p " + std::to_string(port_) + " -k " + dir_ +
                 " -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
                 " -c synchronous_commit=" +
                 (durable_ ? "on" : "off") + ssl_options_ + config_.settings,
             "start"},
            dir_ + "/pg_ctl.log", uid_, gid_, dir_);
    if (rc != 0)
      throw std::runtime_error("pg_ctl start failed: " + read_file(dir_ + "/pg_ctl.log") +
                               read_file(dir_ + "/server.log"));
    running_ = true;
  }
  /// Stops the cluster and makes its data directory anew, empty (as a disk lost and the
  /// cluster set up again): the next `start` serves it on the same port.
  void wipe() {
    stop();
    std::filesystem::remove_all(dir_ + "/data");
    make_data();
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
    (void)::unlink(out.c_str());  // `run` appends to its log
    (void)run({psql, "-h", "127.0.0.1", "-p", std::to_string(port_), "-U", "flakeid", "-d",
               "postgres", "-tAc", sql},
              out, static_cast<uid_t>(-1), static_cast<gid_t>(-1), dir_);
    std::string r = read_file(out);
    while (!r.empty() && (r.back() == '\n' || r.back() == '\r')) r.pop_back();
    return r;
  }

 private:
  /// The data directory: a copy of an `initdb` made once per set of arguments.
  void make_data() {
    copy_data_template(
        template_key(initdb_, initdb_args_), dir_ + "/data", uid_, gid_,
        [&](const std::string& dir) {
          std::vector<std::string> argv{initdb_, "-D", dir + "/data"};
          argv.insert(argv.end(), initdb_args_.begin(), initdb_args_.end());
          if (!config_.password.empty()) {
            std::ofstream(dir + "/pwfile") << config_.password << "\n";
            if (uid_ != static_cast<uid_t>(-1) &&
                ::chown((dir + "/pwfile").c_str(), uid_, gid_) != 0)
              throw std::runtime_error("cannot chown the password file");
            argv.back() = "--pwfile=" + dir + "/pwfile";
          }
          const int rc = run(argv, dir + "/initdb.log", uid_, gid_, dir);
          std::filesystem::remove(dir + "/pwfile");
          if (rc != 0) throw std::runtime_error("initdb failed: " + read_file(dir + "/initdb.log"));
        });
  }
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
  std::vector<std::string> initdb_args_{};
  std::string pg_ctl_{};
  uid_t uid_ = static_cast<uid_t>(-1);
  gid_t gid_ = static_cast<gid_t>(-1);
  std::string dir_{};
  int port_ = 0;
  bool running_ = false;
};

}  // namespace flakeid_test
