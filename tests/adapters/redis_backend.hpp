// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The Redis backend of the server tests, for the lease, segment and fork scenarios alike: a
// redis-server of the test's own (append-only, fsync always, unless a fixture says otherwise)
// and the stores, leases and distributors over it.

#include <flakeid/adapters/redis.hpp>

#include "redis_server.hpp"
#include "store_backend.hpp"

namespace flakeid_test {

inline flakeid::redis_options address_of(const redis_server& s) { return s.options(); }
using redis_backend = store_backend<flakeid::redis_store, redis_server>;

/// The Redis fixture; `redis_tls_test`: the same over TLS (CA and certificate made at test time).
using redis_test = server_test<redis_backend>;
class redis_tls_test : public redis_test {
 protected:
  redis_tls_test() : redis_test(redis_config{.durable = true, .tls = true}, 10s) {}
};

}  // namespace flakeid_test
