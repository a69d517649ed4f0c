// program_registry_kinds (registry_stores.hpp): the standard kinds and each server store whose
// adapter was built (FLAKEID_HAS_REDIS, FLAKEID_HAS_POSTGRES, FLAKEID_HAS_MYSQL,
// FLAKEID_HAS_ZOOKEEPER). Empty where the registry is not built (FLAKEID_HAS_REGISTRY): the
// libFuzzer build compiles every file of tools/.
#if defined(FLAKEID_HAS_REGISTRY)
#include "registry_stores.hpp"

#include <string>
#include <string_view>

#if defined(FLAKEID_HAS_REDIS)
#include <flakeid/adapters/redis.hpp>
#endif
#if defined(FLAKEID_HAS_POSTGRES)
#include <flakeid/adapters/postgres.hpp>
#endif
#if defined(FLAKEID_HAS_MYSQL)
#include <flakeid/adapters/mysql.hpp>
#endif
#if defined(FLAKEID_HAS_ZOOKEEPER)
#include <flakeid/adapters/zookeeper.hpp>
#endif

namespace flakeid_tools {

flakeid::registry_kinds program_registry_kinds() {
  flakeid::registry_kinds k = flakeid::registry_kinds::standard();
#if defined(FLAKEID_HAS_REDIS)
  k.store<flakeid::redis_store>("redis").store<flakeid::redis_store>("unix");
#if defined(FLAKEID_REDIS_TLS)
  k.store<flakeid::redis_store>("rediss");
#endif
#endif
#if defined(FLAKEID_HAS_POSTGRES)
  k.store<flakeid::postgres_store>("postgresql").store<flakeid::postgres_store>("postgres");
#endif
#if defined(FLAKEID_HAS_MYSQL)
  k.store<flakeid::mysql_store>("mysql");
#endif
#if defined(FLAKEID_HAS_ZOOKEEPER)
  k.store<flakeid::zookeeper_store>("zookeeper", [](std::string_view uri) {
    return std::string(uri.substr(uri.find("//") + 2));  // the host list
  });
#endif
  return k;
}

}  // namespace flakeid_tools
#endif
