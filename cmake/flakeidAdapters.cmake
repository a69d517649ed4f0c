# Adapters that need a client library, each its own INTERFACE target, built when the library is
# found (pkg-config first, then find_library):
#   flakeid::redis     include/flakeid/adapters/redis_lease.hpp, redis_segment.hpp,
#                      redis_options.hpp; hiredis (libhiredis-dev)
#   flakeid::redis_tls flakeid::redis plus rediss:// (TLS over OpenSSL, libssl-dev), for hiredis
#                      versions without TLS; defines FLAKEID_REDIS_TLS. Option FLAKEID_REDIS_TLS
#                      (ON when OpenSSL is found). Link it everywhere in a program that uses
#                      Redis, or nowhere.
#   flakeid::postgres  include/flakeid/adapters/postgres_lease.hpp, postgres_segment.hpp
#                      libpq (libpq-dev)
# Their shared connection code is in include/flakeid/adapters/detail/.
# FLAKEID_REDIS_FOUND / FLAKEID_REDIS_TLS_FOUND / FLAKEID_POSTGRES_FOUND tell whether each
# target exists. FLAKEID_MARIADB_FOUND tells whether MariaDB Connector/C was found for the SQL
# tests.

find_package(PkgConfig QUIET)

# flakeid_find_client(<prefix> <pkg-config module> <header> <library>): defines the imported
# target flakeid_client_<prefix> and sets <prefix>_FOUND.
function(flakeid_find_client prefix module header library)
  set(found FALSE)
  if(PkgConfig_FOUND)
    pkg_check_modules(${prefix}_PC QUIET IMPORTED_TARGET GLOBAL ${module})
    if(${prefix}_PC_FOUND)
      add_library(flakeid_client_${prefix} INTERFACE IMPORTED GLOBAL)
      target_link_libraries(flakeid_client_${prefix} INTERFACE PkgConfig::${prefix}_PC)
      set(found TRUE)
    endif()
  endif()
  if(NOT found)
    find_path(${prefix}_INCLUDE_DIR ${header} PATH_SUFFIXES postgresql mariadb)
    find_library(${prefix}_LIBRARY ${library})
    if(${prefix}_INCLUDE_DIR AND ${prefix}_LIBRARY)
      add_library(flakeid_client_${prefix} INTERFACE IMPORTED GLOBAL)
      target_include_directories(flakeid_client_${prefix} INTERFACE "${${prefix}_INCLUDE_DIR}")
      target_link_libraries(flakeid_client_${prefix} INTERFACE "${${prefix}_LIBRARY}")
      set(found TRUE)
    endif()
  endif()
  set(${prefix}_FOUND ${found} PARENT_SCOPE)
endfunction()

flakeid_find_client(FLAKEID_HIREDIS hiredis hiredis/hiredis.h hiredis)
flakeid_find_client(FLAKEID_LIBPQ libpq libpq-fe.h pq)
# MariaDB Connector/C (libmariadb-dev): only the SQL tests use it, to run what
# <flakeid/sql.hpp> writes on a real server.
if(FLAKEID_BUILD_TESTS)
  flakeid_find_client(FLAKEID_MARIADB libmariadb mysql.h mariadb)
endif()

set(FLAKEID_REDIS_FOUND ${FLAKEID_HIREDIS_FOUND})
set(FLAKEID_POSTGRES_FOUND ${FLAKEID_LIBPQ_FOUND})

if(FLAKEID_REDIS_FOUND)
  add_library(flakeid_redis INTERFACE)
  add_library(flakeid::redis ALIAS flakeid_redis)
  set_target_properties(flakeid_redis PROPERTIES EXPORT_NAME redis)
  target_link_libraries(flakeid_redis INTERFACE flakeid::flakeid flakeid_client_FLAKEID_HIREDIS)
  target_sources(flakeid_redis INTERFACE FILE_SET HEADERS BASE_DIRS include FILES
                 "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/redis_lease.hpp"
                 "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/redis_segment.hpp"
                 "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/redis_options.hpp"
                 "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/detail/redis_connection.hpp"
                 "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/detail/store_connection_error.hpp")
  message(STATUS "flakeid: Redis adapter (flakeid::redis) enabled")
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
    add_library(flakeid_redis_tls INTERFACE)
    add_library(flakeid::redis_tls ALIAS flakeid_redis_tls)
    set_target_properties(flakeid_redis_tls PROPERTIES EXPORT_NAME redis_tls)
    target_link_libraries(flakeid_redis_tls INTERFACE flakeid_redis OpenSSL::SSL)
    target_compile_definitions(flakeid_redis_tls INTERFACE FLAKEID_REDIS_TLS=1)
    target_sources(flakeid_redis_tls INTERFACE FILE_SET HEADERS BASE_DIRS include FILES
                   "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/detail/redis_tls.hpp")
    list(APPEND FLAKEID_ADAPTER_TARGETS flakeid_redis_tls)
    set(FLAKEID_REDIS_TLS_FOUND TRUE)
    message(STATUS "flakeid: Redis over TLS (flakeid::redis_tls) enabled")
  else()
    message(STATUS "flakeid: OpenSSL not found or FLAKEID_REDIS_TLS off; flakeid::redis_tls is "
                   "not built")
  endif()
endif()

if(FLAKEID_POSTGRES_FOUND)
  add_library(flakeid_postgres INTERFACE)
  add_library(flakeid::postgres ALIAS flakeid_postgres)
  set_target_properties(flakeid_postgres PROPERTIES EXPORT_NAME postgres)
  target_link_libraries(flakeid_postgres INTERFACE flakeid::flakeid flakeid_client_FLAKEID_LIBPQ)
  target_sources(flakeid_postgres INTERFACE FILE_SET HEADERS BASE_DIRS include FILES
                 "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/postgres_lease.hpp"
                 "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/postgres_segment.hpp"
                 "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/detail/postgres_connection.hpp"
                 "${PROJECT_SOURCE_DIR}/include/flakeid/adapters/detail/store_connection_error.hpp")
  message(STATUS "flakeid: PostgreSQL adapter (flakeid::postgres) enabled")
else()
  message(STATUS "flakeid: libpq not found; flakeid::postgres is not built")
endif()

# The adapter tests and the lease example need the client libraries. They are read at the end
# of the top-level CMakeLists.txt, once the core tests (and GoogleTest) are set up.
if(FLAKEID_BUILD_TESTS)
  cmake_language(DEFER CALL include "${PROJECT_SOURCE_DIR}/tests/adapters/tests.cmake")
endif()
if(FLAKEID_BUILD_EXAMPLES)
  cmake_language(DEFER CALL include "${PROJECT_SOURCE_DIR}/examples/adapters/examples.cmake")
endif()

# An installed flakeid::redis / flakeid::postgres links the client library through the same
# imported target names; the package config recreates them before it loads the targets.
set(FLAKEID_ADAPTER_CONFIG_CODE "")
foreach(client IN ITEMS "FLAKEID_HIREDIS;hiredis/hiredis.h;hiredis" "FLAKEID_LIBPQ;libpq-fe.h;pq")
  list(GET client 0 prefix)
  list(GET client 1 header)
  list(GET client 2 library)
  if(${prefix}_FOUND)
    string(APPEND FLAKEID_ADAPTER_CONFIG_CODE "
if(NOT TARGET flakeid_client_${prefix})
  find_path(flakeid_${prefix}_INCLUDE_DIR ${header} PATH_SUFFIXES postgresql)
  find_library(flakeid_${prefix}_LIBRARY ${library})
  if(flakeid_${prefix}_INCLUDE_DIR AND flakeid_${prefix}_LIBRARY)
    add_library(flakeid_client_${prefix} INTERFACE IMPORTED)
    target_include_directories(flakeid_client_${prefix} INTERFACE \"\${flakeid_${prefix}_INCLUDE_DIR}\")
    target_link_libraries(flakeid_client_${prefix} INTERFACE \"\${flakeid_${prefix}_LIBRARY}\")
  endif()
endif()")
  endif()
endforeach()
if(FLAKEID_REDIS_TLS_FOUND)
  string(APPEND FLAKEID_ADAPTER_CONFIG_CODE "
find_dependency(OpenSSL COMPONENTS SSL)")
endif()
