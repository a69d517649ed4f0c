#pragma once
// The stores a minter of the fault soak can mint over, by name: the file store always, each
// server store when its adapter is built (FLAKEID_SOAK_HAVE_<STORE>, set by tests/soak's CMake).

#include <flakeid/flakeid.hpp>
#include <stdexcept>
#include <string>

#ifdef FLAKEID_SOAK_HAVE_REDIS
#include <flakeid/adapters/redis.hpp>
#endif
#ifdef FLAKEID_SOAK_HAVE_POSTGRES
#include <flakeid/adapters/postgres.hpp>
#endif
#ifdef FLAKEID_SOAK_HAVE_MYSQL
#include <flakeid/adapters/mysql.hpp>
#endif
#ifdef FLAKEID_SOAK_HAVE_ZOOKEEPER
#include <flakeid/adapters/zookeeper.hpp>
#endif

namespace flakeid_soak {

/// Calls `f(store)` with the store named `kind` ("file", "redis", "postgres", "mysql",
/// "zookeeper") at `where` (a directory, a Redis address, a libpq connection string, a
/// mysql:// URI, a ZooKeeper host list). Throws for a store this build does not have.
template <class F>
int with_store(const std::string& kind, const std::string& where, const flakeid::store_options& o,
               F&& f) {
  if (kind == "file") return f(flakeid::file_store{where, o});
#ifdef FLAKEID_SOAK_HAVE_REDIS
  if (kind == "redis") return f(flakeid::redis_store{where, o});
#endif
#ifdef FLAKEID_SOAK_HAVE_POSTGRES
  if (kind == "postgres") return f(flakeid::postgres_store{where, o});
#endif
#ifdef FLAKEID_SOAK_HAVE_MYSQL
  if (kind == "mysql") return f(flakeid::mysql_store{std::string_view(where), o});
#endif
#ifdef FLAKEID_SOAK_HAVE_ZOOKEEPER
  if (kind == "zookeeper") return f(flakeid::zookeeper_store{std::string_view(where), o});
#endif
  throw std::invalid_argument("this build has no store '" + kind + "'");
}

}  // namespace flakeid_soak
