// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// What the backends of the server tests (redis_backend.hpp, postgres_backend.hpp,
// mysql_backend.hpp) have in common: a server of the test's own and the stores over it, for
// the lease, segment and fork scenarios alike.

#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "lease_support.hpp"
#include "segment_scenarios.hpp"
#include "server_support.hpp"

namespace flakeid_test {

/// A backend over a `Server` (durable unless a fixture says otherwise) and the `Store`s reached
/// at `address_of(server)`, a function each backend's header gives for its server.
template <class Store, class Server>
struct store_backend {
  using store_type = Store;
  using distributor_type = decltype(std::declval<const Store&>().distributor(std::string{}));
  static_assert(flakeid::keyed_segment_distributor<distributor_type>);
  static_assert(flakeid::expiring_segment_distributor<distributor_type>);
  /// How a store's refusal in a forked child names its connection (fork_scenarios.hpp).
  static constexpr const char* connection_words = "this connection to";
  Server server{true};  // a store must keep what it confirmed
  /// Connect timeout for 40 clients connecting at once with TLS (and a password), on a
  /// machine that may be busy: generous, as it bounds the wait only, not the result.
  std::chrono::milliseconds connect_timeout{0};
  /// A lease through the store, as a user holding leases and segments on one server would.
  std::unique_ptr<flakeid::lease> make(flakeid::lease_options o) {
    if (connect_timeout.count() > 0) o.connect_timeout = connect_timeout;
    return lease_from(Store{address_of(server), store_options_of(o)}, o);
  }
  /// A lease through the store over the machine ids `which` names (`mysql_table::cosid`,
  /// `postgres_table::cosid`, `redis_keys::cosid`).
  template <class Which>
  std::unique_ptr<flakeid::lease> make_in(const flakeid::lease_options& o, Which which) const {
    return std::unique_ptr<flakeid::lease>(
        new flakeid::lease(Store{address_of(server), store_options_of(o)}.lease(o, which)));
  }
  /// A segment store in namespace `ns` whose connect and I/O timeouts are both `timeout`.
  [[nodiscard]] Store store(const std::string& ns, std::chrono::milliseconds timeout) const {
    return Store{address_of(server),
                 {.name_space = ns, .connect_timeout = timeout, .io_timeout = timeout}};
  }
  void stop() { server.stop(); }
  void start() { server.start(); }
  /// The server killed (SIGKILL; pg_ctl stop -m immediate: no shutdown checkpoint), then
  /// started on the same data.
  void restart() {
    server.stop();
    server.start();
  }
};

}  // namespace flakeid_test
