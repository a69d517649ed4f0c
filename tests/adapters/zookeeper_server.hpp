// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// ZooKeeper for the tests (Debian's `zookeeper` package): a standalone server or an ensemble of
// three, in temporary directories on free loopback ports (see server_support.hpp).

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "server_support.hpp"

namespace flakeid_test {

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

/// What a ZooKeeper server and an ensemble share: the JVM that runs them and their temporary
/// directory, removed once the servers are stopped.
class zookeeper_home {
 public:
  zookeeper_home(const zookeeper_home&) = delete;
  zookeeper_home& operator=(const zookeeper_home&) = delete;
  [[nodiscard]] bool available() const { return jvm_.available(); }
  [[nodiscard]] static std::string missing() { return zookeeper_jvm::missing(); }

 protected:
  zookeeper_home() = default;
  ~zookeeper_home() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  zookeeper_jvm jvm_;
  std::string dir_;
};

/// What every test server's zoo.cfg says: ticks of 100 ms, its data directory `data`, its client
/// port `port` on `ip`, no admin server, no limit on clients, sessions of 200 ms to 6 s, and the
/// `srvr` command allowed.
inline std::string zoo_cfg(const std::string& data, const std::string& ip, int port) {
  return "tickTime=100\ndataDir=" + data + "\nclientPort=" + std::to_string(port) +
         "\nclientPortAddress=" + ip +
         "\nadmin.enableServer=false\nmaxClientCnxns=0\nminSessionTimeout=200\n"
         "maxSessionTimeout=6000\n4lw.commands.whitelist=srvr\n";
}

/// A standalone ZooKeeper server (Debian's `zookeeper` package: the server class run with the
/// JVM) with a data directory in a temporary directory, on a free loopback port; kept data
/// across a stop and a start. Ticks of 100 ms, so sessions may time out after 200 ms to 4 s.
class zookeeper_server : public zookeeper_home {
 public:
  zookeeper_server() = default;
  ~zookeeper_server() { stop(); }
  zookeeper_server(const zookeeper_server&) = delete;
  zookeeper_server& operator=(const zookeeper_server&) = delete;

  /// Starts the server (on the same port and data after a stop) and waits until it serves.
  void start() {
    if (dir_.empty()) {
      dir_ = make_temp_dir("flakeid-zookeeper");
      port_ = free_port();
      std::filesystem::create_directory(dir_ + "/data");
      std::ofstream(dir_ + "/zoo.cfg") << zoo_cfg(dir_ + "/data", "127.0.0.1", port_);
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
  int port_ = 0;
  pid_t pid_ = -1;
};

/// A ZooKeeper ensemble of three servers on 127.0.0.1, 127.0.0.2 and 127.0.0.3 (one data
/// directory each in a temporary directory), any of which can be killed and started again.
class zookeeper_ensemble : public zookeeper_home {
 public:
  zookeeper_ensemble() = default;
  ~zookeeper_ensemble() {
    for (int i = 0; i < 3; ++i) kill(i);
  }
  zookeeper_ensemble(const zookeeper_ensemble&) = delete;
  zookeeper_ensemble& operator=(const zookeeper_ensemble&) = delete;

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
        cfg << zoo_cfg(d + "/data", ip(i), ports_[i][0]) << "initLimit=50\nsyncLimit=20\n";
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

  int ports_[3][3] = {};  // client, peer, election
  pid_t pids_[3] = {-1, -1, -1};
};

}  // namespace flakeid_test
