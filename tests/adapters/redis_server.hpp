// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// A redis-server for the tests, in a temporary directory on a free loopback port (see
// server_support.hpp).

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <flakeid/adapters/redis_options.hpp>

#include "server_support.hpp"

namespace flakeid_test {

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

}  // namespace flakeid_test
