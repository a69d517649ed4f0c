// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The ZooKeeper backend of the server tests: Debian's zookeeper server of the test's own and
// the stores, leases and distributors over it.

#include <flakeid/adapters/zookeeper.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "lease_support.hpp"
#include "zookeeper_server.hpp"

namespace flakeid_test {

struct zookeeper_backend {
  using store_type = flakeid::zookeeper_store;
  using distributor_type = flakeid::zookeeper_distributor;
  /// How a store's refusal in a forked child names its session (fork_scenarios.hpp).
  static constexpr const char* connection_words = "this session of";
  zookeeper_server server;
  /// Sessions of 1 s: a killed or stopped holder's ephemeral node goes within a second.
  std::chrono::milliseconds session_timeout{1'000};
  [[nodiscard]] flakeid::zookeeper_address address() const {
    return {server.hosts(), session_timeout};
  }
  std::unique_ptr<flakeid::lease> make(const flakeid::lease_options& o) {
    return lease_from(flakeid::zookeeper_store{address(), store_options_of(o)}, o);
  }
  /// Segment counters need no short session: 6 s, so that a server slow to answer under load
  /// (40 processes' compare-and-sets on a busy machine) is not taken for a lost connection.
  store_type store(const std::string& ns, std::chrono::milliseconds timeout) const {
    return store_type{flakeid::zookeeper_address{server.hosts(), std::chrono::milliseconds{6'000}},
                      {.name_space = ns, .connect_timeout = timeout, .io_timeout = timeout}};
  }
  void stop() { server.stop(); }
  void start() { server.start(); }
};

}  // namespace flakeid_test
