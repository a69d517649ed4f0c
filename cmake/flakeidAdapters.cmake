# Adapters that need a client library, each its own INTERFACE target and its own package
# component (`find_package(flakeid REQUIRED COMPONENTS redis postgres)`), built when the client
# library is found (pkg-config first, then find_library):
#   flakeid::redis     include/flakeid/adapters/redis.hpp (redis_store: leases and segments),
#                      redis_options.hpp; hiredis (libhiredis-dev)
#   flakeid::redis_tls flakeid::redis plus rediss:// (TLS over OpenSSL, libssl-dev), for hiredis
#                      versions without TLS; defines FLAKEID_REDIS_TLS. Option FLAKEID_REDIS_TLS
#                      (ON when OpenSSL is found). Link it everywhere in a program that uses
#                      Redis, or nowhere.
#   flakeid::postgres  include/flakeid/adapters/postgres.hpp (postgres_store: leases and
#                      segments); libpq (libpq-dev)
#   flakeid::mysql     include/flakeid/adapters/mysql.hpp (mysql_store: leases and segments,
#                      Leaf's and CosId's tables too); MariaDB Connector/C (libmariadb-dev),
#                      for MySQL and MariaDB servers alike
#   flakeid::zookeeper include/flakeid/adapters/zookeeper.hpp (zookeeper_store: leases on
#                      ephemeral znodes, segments); the ZooKeeper C client
#                      (libzookeeper-mt-dev)
# Their shared connection code is in include/flakeid/adapters/detail/; the headers two adapters
# share (server_address.hpp, detail/server_backend.hpp) are in the file set of each that uses them.
# FLAKEID_REDIS_FOUND / FLAKEID_REDIS_TLS_FOUND / FLAKEID_POSTGRES_FOUND / FLAKEID_MYSQL_FOUND
# tell whether each target exists.
include(flakeidFindClient)

# flakeid_adapter(<component> NEEDS <what it needs, for messages> FIND <CMake code> READY
#                 <condition> PC_REQUIRES <pkg-config modules> [PC_LIBS <flags>] LINK <targets>
#                 [TOP] HEADERS <files>):
# the INTERFACE target flakeid_<component> (alias and export name flakeid::<component>) and what
# the install rules need to make it a package component: FIND runs in the consumer's
# flakeidConfig.cmake to find what the adapter links, READY is true when it did; PC_LIBS are
# linker flags for its .pc file, for a client library without a pkg-config module of its own.
# HEADERS are under include/flakeid/adapters/, or with TOP under include/flakeid/.
function(flakeid_adapter component)
  cmake_parse_arguments(PARSE_ARGV 1 arg "TOP" "NEEDS;FIND;READY" "PC_REQUIRES;PC_LIBS;LINK;HEADERS")
  set(base "adapters/")
  if(arg_TOP)
    set(base "")
  endif()
  add_library(flakeid_${component} INTERFACE)
  add_library(flakeid::${component} ALIAS flakeid_${component})
  set_target_properties(flakeid_${component} PROPERTIES EXPORT_NAME ${component})
  target_link_libraries(flakeid_${component} INTERFACE ${arg_LINK})
  list(TRANSFORM arg_HEADERS PREPEND "${PROJECT_SOURCE_DIR}/include/flakeid/${base}")
  flakeid_add_headers(flakeid_${component} ${arg_HEADERS})
  set_property(GLOBAL APPEND PROPERTY FLAKEID_COMPONENTS ${component})
  foreach(key IN ITEMS NEEDS FIND READY PC_REQUIRES PC_LIBS)
    set_property(GLOBAL PROPERTY FLAKEID_COMPONENT_${component}_${key} "${arg_${key}}")
  endforeach()
  message(STATUS "flakeid: adapter flakeid::${component} enabled")
endfunction()

set(flakeid_find_hiredis "flakeid_find_client(hiredis hiredis hiredis/hiredis.h hiredis)")
set(flakeid_find_libpq "flakeid_find_client(libpq libpq libpq-fe.h pq postgresql)")
cmake_language(EVAL CODE "${flakeid_find_hiredis}")
cmake_language(EVAL CODE "${flakeid_find_libpq}")
set(flakeid_find_mariadb "flakeid_find_client(mariadb libmariadb mysql.h mariadb mariadb)")
cmake_language(EVAL CODE "${flakeid_find_mariadb}")
set(flakeid_find_zookeeper
    "flakeid_find_client(zookeeper zookeeper_mt zookeeper/zookeeper.h zookeeper_mt)")
cmake_language(EVAL CODE "${flakeid_find_zookeeper}")

set(FLAKEID_REDIS_FOUND ${flakeid_hiredis_client_FOUND})
set(FLAKEID_POSTGRES_FOUND ${flakeid_libpq_client_FOUND})
set(FLAKEID_MYSQL_FOUND ${flakeid_mariadb_client_FOUND})
set(FLAKEID_ZOOKEEPER_FOUND ${flakeid_zookeeper_client_FOUND})

if(FLAKEID_REDIS_FOUND)
  flakeid_adapter(redis
    NEEDS "hiredis (Debian: libhiredis-dev)"
    FIND "${flakeid_find_hiredis}"
    READY "TARGET flakeid::hiredis_client"
    PC_REQUIRES hiredis
    LINK flakeid::flakeid flakeid::hiredis_client
    HEADERS redis.hpp redis_options.hpp server_address.hpp detail/redis_connection.hpp
            detail/redis_lease_store.hpp detail/redis_cosid_machine.hpp
            detail/server_backend.hpp)
else()
  message(STATUS "flakeid: hiredis not found; flakeid::redis is not built")
endif()

set(FLAKEID_REDIS_TLS_FOUND FALSE)
if(FLAKEID_REDIS_FOUND)
  find_package(OpenSSL 1.1.1 QUIET COMPONENTS SSL)
  option(FLAKEID_REDIS_TLS "Build flakeid::redis_tls (rediss:// over OpenSSL)" ${OpenSSL_FOUND})
  if(FLAKEID_REDIS_TLS AND NOT OpenSSL_FOUND)
    message(FATAL_ERROR "flakeid: FLAKEID_REDIS_TLS needs OpenSSL (Debian: libssl-dev)")
  endif()
  if(FLAKEID_REDIS_TLS)
    flakeid_adapter(redis_tls
      NEEDS "flakeid::redis and OpenSSL (Debian: libssl-dev)"
      FIND "if(TARGET flakeid::redis)\n  find_package(OpenSSL 1.1.1 QUIET COMPONENTS SSL)\nendif()"
      READY "TARGET flakeid::redis AND TARGET OpenSSL::SSL"
      PC_REQUIRES flakeid-redis openssl
      LINK flakeid_redis OpenSSL::SSL
      HEADERS detail/redis_tls.hpp)
    target_compile_definitions(flakeid_redis_tls INTERFACE FLAKEID_REDIS_TLS=1)
    set(FLAKEID_REDIS_TLS_FOUND TRUE)
  else()
    message(STATUS "flakeid: OpenSSL not found or FLAKEID_REDIS_TLS off; flakeid::redis_tls is "
                   "not built")
  endif()
endif()

if(FLAKEID_POSTGRES_FOUND)
  flakeid_adapter(postgres
    NEEDS "libpq (Debian: libpq-dev)"
    FIND "${flakeid_find_libpq}"
    READY "TARGET flakeid::libpq_client"
    PC_REQUIRES libpq
    LINK flakeid::flakeid flakeid::libpq_client
    HEADERS postgres.hpp server_address.hpp detail/postgres_connection.hpp
            detail/postgres_lease_store.hpp detail/postgres_cosid_machine.hpp
            detail/cosid_machine_store.hpp detail/server_backend.hpp)
else()
  message(STATUS "flakeid: libpq not found; flakeid::postgres is not built")
endif()

if(FLAKEID_MYSQL_FOUND)
  flakeid_adapter(mysql
    NEEDS "MariaDB Connector/C (Debian: libmariadb-dev)"
    FIND "${flakeid_find_mariadb}"
    READY "TARGET flakeid::mariadb_client"
    PC_REQUIRES libmariadb
    LINK flakeid::flakeid flakeid::mariadb_client
    HEADERS mysql.hpp server_address.hpp detail/mysql_connection.hpp
            detail/mysql_lease_store.hpp detail/mysql_cosid_machine.hpp
            detail/cosid_machine_store.hpp detail/server_backend.hpp)
else()
  message(STATUS "flakeid: MariaDB Connector/C not found; flakeid::mysql is not built")
endif()

if(FLAKEID_ZOOKEEPER_FOUND)
  flakeid_adapter(zookeeper
    NEEDS "the ZooKeeper C client (Debian: libzookeeper-mt-dev)"
    FIND "${flakeid_find_zookeeper}"
    READY "TARGET flakeid::zookeeper_client"
    PC_LIBS -lzookeeper_mt
    LINK flakeid::flakeid flakeid::zookeeper_client
    HEADERS zookeeper.hpp server_address.hpp detail/zookeeper_connection.hpp
            detail/zookeeper_lease_store.hpp detail/zookeeper_cosid_machine.hpp
            detail/server_backend.hpp)
else()
  message(STATUS "flakeid: the ZooKeeper C client not found; flakeid::zookeeper is not built")
endif()

# The registry (<flakeid/registry.hpp>: generators by name from JSON configuration, read by its
# own parser) links no client library; it knows the memory and file stores, and each server store
# a program adds (linking that adapter too). Its leases and file store need POSIX.
if(NOT WIN32)
  flakeid_adapter(registry
    NEEDS "a POSIX system"
    FIND ""
    READY "TRUE"
    LINK flakeid::flakeid
    TOP
    HEADERS registry.hpp registry/config.hpp registry/json.hpp registry/source.hpp)
else()
  message(STATUS "flakeid: flakeid::registry needs POSIX; not built on Windows")
endif()

# flakeid_link_server_stores(<target> <prefix>): links <target> to each server store built here
# (flakeid::redis, flakeid::postgres, flakeid::mysql, flakeid::zookeeper) and defines
# <prefix>_<STORE>=1 for each, for a program that offers the stores it was built with.
function(flakeid_link_server_stores target prefix)
  foreach(store IN ITEMS redis postgres mysql zookeeper)
    string(TOUPPER ${store} upper)
    if(TARGET flakeid::${store})
      target_link_libraries(${target} PRIVATE flakeid::${store})
      target_compile_definitions(${target} PRIVATE ${prefix}_${upper}=1)
    endif()
  endforeach()
endfunction()

# The adapter tests and the lease example need the client libraries. They are read at the end
# of the top-level CMakeLists.txt, once the core tests (and GoogleTest) are set up.
if(FLAKEID_BUILD_TESTS AND FLAKEID_BUILD_SERVER_TESTS)
  cmake_language(DEFER CALL include "${PROJECT_SOURCE_DIR}/tests/adapters/tests.cmake")
endif()
if(FLAKEID_BUILD_SOAK)
  cmake_language(DEFER CALL include "${PROJECT_SOURCE_DIR}/tests/soak/soak.cmake")
endif()
# (Leases need POSIX: no lease example on Windows.)
if(FLAKEID_BUILD_EXAMPLES AND NOT WIN32)
  cmake_language(DEFER CALL include "${PROJECT_SOURCE_DIR}/examples/adapters/examples.cmake")
endif()
