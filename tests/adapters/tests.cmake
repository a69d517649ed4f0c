# Lease, segment-store and SQL tests against real servers (redis-server; initdb + pg_ctl;
# mariadbd; zookeeper), one program per backend.
# Included (deferred) from cmake/flakeidAdapters.cmake once the core tests are set up. An adapter whose client
# library was not found gets a stand-in test that fails, unless FLAKEID_ALLOW_SKIP_SERVERS=1.
find_package(GTest QUIET)
if(TARGET GTest::gtest_main)
  set(flakeid_gtest_main GTest::gtest_main)
else()
  set(flakeid_gtest_main gtest_main)
endif()
include(GoogleTest)

# The server tests are one test program per backend (redis_tests, postgres_tests, mysql_tests,
# zookeeper_tests), each built from several of the files in this directory. A file's tests keep
# the labels and the timeout it had as a program of its own: they are set by GoogleTest suite,
# after discovery, from the suites found in the file's TEST/TEST_F lines (a suite's name belongs
# to one file). A line FLAKEID_<what>_SCENARIOS(<suite>) (the scenario lists of
# lease_scenarios.hpp, instance_scenarios.hpp and segment_scenarios.hpp) names a suite too.

# flakeid_server_sources(<exe> <name> <labels> <timeout>): adds tests/adapters/<name>.cpp to the
# backend program <exe>; its tests get <labels> and a timeout of <timeout> seconds (a guard
# against a hang only).
function(flakeid_server_sources exe name labels timeout)
  set(src "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}.cpp")
  set_property(GLOBAL APPEND PROPERTY FLAKEID_SERVER_SOURCES_${exe} "${src}")
  file(STRINGS "${src}" lines REGEX "^(TEST|TEST_F|TEST_P|TYPED_TEST|FLAKEID_[A-Z]+_SCENARIOS)\\(")
  set(suites "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[A-Z_]+\\( *([A-Za-z0-9_]+)")
      list(APPEND suites "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES suites)
  if(NOT suites)
    message(FATAL_ERROR "tests/adapters/${name}.cpp: no TEST or TEST_F line found")
  endif()
  get_property(known GLOBAL PROPERTY FLAKEID_SERVER_SUITES_${exe})
  foreach(suite IN LISTS suites)
    if(suite IN_LIST known)
      message(FATAL_ERROR "tests/adapters/${name}.cpp: the suite ${suite} is in another file of "
                          "${exe} too; give each file suites of its own")
    endif()
    set_property(GLOBAL APPEND PROPERTY FLAKEID_SERVER_SUITES_${exe} "${suite}")
    set_property(GLOBAL APPEND_STRING PROPERTY FLAKEID_SERVER_LABELS_${exe}
                 "set(flakeid_labels_${suite} \"${labels}\")\nset(flakeid_timeout_${suite} ${timeout})\n")
  endforeach()
endfunction()

# flakeid_server_program(<exe> <pch-headers> LINK <libraries>...): the backend program of the
# files given to flakeid_server_sources, with a precompiled header of its own (GoogleTest, the
# servers' common helper server_support.hpp and the backend's headers), and its tests' labels
# and timeouts.
function(flakeid_server_program exe)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "PCH;LINK")
  get_property(sources GLOBAL PROPERTY FLAKEID_SERVER_SOURCES_${exe})
  add_executable(${exe} ${sources})
  # The SQL scenarios (postgres_sql_test, mariadb_sql_test) and zookeeper_test are compiled
  # without the backend's precompiled header: after it GCC 12 at -O3 inlines their string joins
  # differently and misfires (-Wstringop-overflow, -Warray-bounds: GCC bug 105651, as
  # -Wrestrict in cmake/flakeidWarnings.cmake).
  foreach(src IN LISTS sources)
    if(src MATCHES "(_sql_test|/zookeeper_test)\\.cpp$")
      set_source_files_properties("${src}" PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
  target_link_libraries(${exe} PRIVATE ${arg_LINK} ${flakeid_gtest_main})
  target_include_directories(${exe} PRIVATE "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
  flakeid_set_test_warnings(${exe})
  if(FLAKEID_TEST_PCH)
    target_precompile_headers(${exe} PRIVATE <gtest/gtest.h>
                              "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/server_support.hpp" ${arg_PCH})
  endif()
  gtest_discover_tests(${exe} DISCOVERY_TIMEOUT 120 TEST_LIST ${exe}_TESTS)
  if(TARGET thread_tests)
    add_dependencies(thread_tests ${exe})
  endif()
  # Labels and timeouts are set after discovery, from the list it made (gtest_discover_tests
  # splits a list-valued property given to it into separate words, so "lease;server" given there
  # is lost).
  get_property(by_suite GLOBAL PROPERTY FLAKEID_SERVER_LABELS_${exe})
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/${exe}_labels.cmake"
       "${by_suite}foreach(test IN LISTS ${exe}_TESTS)\n"
       "  string(REGEX REPLACE \"^([^./]*/)?([^./]+)\\\\..*\" \"\\\\2\" suite \"\${test}\")\n"
       "  if(NOT DEFINED flakeid_labels_\${suite})\n"
       "    message(FATAL_ERROR \"${exe}: the test \${test} is of no known suite\")\n"
       "  endif()\n"
       "  set_tests_properties(\"\${test}\" PROPERTIES LABELS \"\${flakeid_labels_\${suite}}\"\n"
       "                      TIMEOUT \${flakeid_timeout_\${suite}})\n"
       "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES
               "${CMAKE_CURRENT_BINARY_DIR}/${exe}_labels.cmake")
endfunction()

# flakeid_backend_program(<backend> <timeout> SERVER <header> LINK <libraries>...
#                         [EXAMPLE <target> <define>]):
# the program <backend>_tests of the files given to flakeid_server_sources, after its store's
# three, <backend>_lease_test, _segment_test (with a distributor in a forked child) and _auth_test
# (timeout <timeout>);
# its precompiled header has <flakeid/adapters/<backend>.hpp>, its server's <header> (of this
# directory) and lease_scenarios.hpp. With the examples, the test of the example program
# <target> finds it in the definition <define>.
function(flakeid_backend_program backend timeout)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "SERVER" "LINK;EXAMPLE")
  set(exe ${backend}_tests)
  flakeid_server_sources(${exe} ${backend}_lease_test "lease;server" ${timeout})
  flakeid_server_sources(${exe} ${backend}_segment_test "segment;server" ${timeout})
  flakeid_server_sources(${exe} ${backend}_auth_test "lease;segment;server" ${timeout})
  flakeid_scenario_program(${exe} LINK ${arg_LINK} PCH <flakeid/adapters/${backend}.hpp>
                          SERVER ${arg_SERVER} EXAMPLE ${arg_EXAMPLE})
endfunction()

# flakeid_scenario_program(<exe> LINK <libraries>... PCH <header> SERVER <server-header>
#                          [EXAMPLE <target> <define>]):
# flakeid_server_program with the server's header of this directory and lease_scenarios.hpp in
# the precompiled header too; with the examples, the example program <target> is built first
# and the definition <define> names it.
function(flakeid_scenario_program exe)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PCH;SERVER" "LINK;EXAMPLE")
  flakeid_server_program(${exe} LINK ${arg_LINK}
                         PCH ${arg_PCH} "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${arg_SERVER}"
                             "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/lease_scenarios.hpp")
  if(FLAKEID_BUILD_EXAMPLES AND arg_EXAMPLE)
    list(GET arg_EXAMPLE 0 target)
    list(GET arg_EXAMPLE 1 define)
    target_compile_definitions(${exe} PRIVATE "${define}=\"$<TARGET_FILE:${target}>\"")
    add_dependencies(${exe} ${target})
  endif()
endfunction()

# flakeid_example_sources(<exe> <name> <labels> <timeout>): flakeid_server_sources for the test of
# an example program, when the examples are built (it runs the example).
function(flakeid_example_sources exe name labels timeout)
  if(FLAKEID_BUILD_EXAMPLES)
    flakeid_server_sources(${exe} ${name} "${labels}" ${timeout})
  endif()
endfunction()

# flakeid_missing_client(<test> <what> <package> [<labels>]): a stand-in that fails (see above),
# labelled <labels> ("sql;server" unless given).
function(flakeid_missing_client test what package)
  set(labels "sql;server")
  if(ARGC GREATER 3)
    set(labels "${ARGV3}")
  endif()
  add_test(NAME ${test}.client_library_found
           COMMAND "${CMAKE_COMMAND}" "-DWHAT=${what}" "-DPACKAGE=${package}"
                   -P "${PROJECT_SOURCE_DIR}/cmake/flakeidMissingAdapter.cmake")
  set_tests_properties(${test}.client_library_found PROPERTIES LABELS "${labels}")
endfunction()

# flakeid_missing_stores(<backend> <what> <package>): the stand-ins <backend>_lease_test and
# <backend>_segment_test, labelled as their tests are (lease;server, segment;server).
function(flakeid_missing_stores backend what package)
  foreach(feature lease segment)
    flakeid_missing_client(${backend}_${feature}_test "${what}" ${package} "${feature};server")
  endforeach()
endfunction()

# Redis: leases, segments, passwords and TLS, a distributor in a forked child. The Redis tests
# link flakeid::redis_tls when it is built (rediss:// then runs too; without it, the
# redis_auth_test tests fail unless FLAKEID_ALLOW_SKIP_SERVERS=1).
# The registry over each server store, when flakeid::registry is built.
set(flakeid_registry_link "")
if(TARGET flakeid::registry)
  set(flakeid_registry_link flakeid::registry)
endif()
function(flakeid_registry_sources exe backend)
  if(TARGET flakeid::registry)
    flakeid_server_sources(${exe} ${backend}_registry_test "registry;server" 120)
  endif()
endfunction()

if(FLAKEID_REDIS_FOUND)
  set(link flakeid::redis ${flakeid_registry_link})
  if(FLAKEID_REDIS_TLS_FOUND)
    set(link flakeid::redis_tls ${flakeid_registry_link})
  endif()
  flakeid_registry_sources(redis_tests redis)
  # flakeid-serve, called from outside its process, over the Redis store.
  if(TARGET flakeid_serve)
    flakeid_server_sources(redis_tests serve_test "serve;server" 240)
  endif()
  flakeid_server_sources(redis_tests redis_cosid_lease_test "lease;server" 90)
  flakeid_backend_program(redis 90 SERVER redis_server.hpp LINK ${link})
  if(TARGET flakeid_serve)
    target_compile_definitions(redis_tests PRIVATE
                               FLAKEID_SERVE_PROGRAM="$<TARGET_FILE:flakeid_serve>")
    add_dependencies(redis_tests flakeid_serve)
  endif()
else()
  flakeid_missing_stores(redis "the redis client library" libhiredis-dev)
  flakeid_missing_client(redis_cosid_lease_test "the redis client library" libhiredis-dev
                         "lease;server")
endif()

# PostgreSQL: leases, segments, passwords and TLS, a forked child, and the SQL of
# <flakeid/sql.hpp> (sql.hpp itself needs no library; the test speaks libpq).
if(FLAKEID_POSTGRES_FOUND)
  flakeid_server_sources(postgres_tests postgres_address_test "lease;segment;server" 90)
  flakeid_server_sources(postgres_tests postgres_sql_test "sql;server" 120)
  # The SQL example against a cluster the test starts.
  flakeid_example_sources(postgres_tests postgres_sql_example_test "sql;server" 120)
  flakeid_registry_sources(postgres_tests postgres)
  flakeid_backend_program(postgres 90 SERVER postgres_server.hpp
                          LINK flakeid::postgres ${flakeid_registry_link}
                          EXAMPLE example_sql_partitions FLAKEID_SQL_EXAMPLE)
else()
  flakeid_missing_client(postgres_sql_test "the postgres client library" libpq-dev)
  flakeid_missing_stores(postgres "the postgres client library" libpq-dev)
endif()

# MySQL/MariaDB leases and segments (flakeid's tables, Leaf's and CosId's) against mariadbd, and
# the SQL of <flakeid/sql.hpp> on MariaDB (MariaDB Connector/C).
if(FLAKEID_MYSQL_FOUND)
  flakeid_server_sources(mysql_tests mariadb_sql_test "sql;server" 120)
  flakeid_example_sources(mysql_tests mysql_example_test "server" 120)
  flakeid_registry_sources(mysql_tests mysql)
  flakeid_backend_program(mysql 120 SERVER mariadb_server.hpp
                          LINK flakeid::mysql ${flakeid_registry_link}
                          EXAMPLE example_mysql_fleet FLAKEID_MYSQL_EXAMPLE)
else()
  foreach(test mariadb_sql mysql_lease mysql_segment mysql_auth)
    flakeid_missing_client(${test}_test "MariaDB Connector/C" libmariadb-dev)
  endforeach()
endif()

# ZooKeeper leases and segments against Debian's zookeeper server. 40 processes on one counter
# retry their compare-and-set often: under TSan on a busy machine that takes a minute or more.
if(FLAKEID_ZOOKEEPER_FOUND)
  flakeid_server_sources(zookeeper_tests zookeeper_test "lease;segment;server" 400)
  flakeid_server_sources(zookeeper_tests zookeeper_cosid_lease_test "lease;server" 120)
  flakeid_example_sources(zookeeper_tests zookeeper_example_test "server" 120)
  flakeid_registry_sources(zookeeper_tests zookeeper)
  flakeid_scenario_program(zookeeper_tests LINK flakeid::zookeeper ${flakeid_registry_link}
                          PCH <flakeid/adapters/zookeeper.hpp> SERVER zookeeper_server.hpp
                          EXAMPLE example_zookeeper_fleet FLAKEID_ZOOKEEPER_EXAMPLE)
else()
  flakeid_missing_client(zookeeper_test "the ZooKeeper C client" libzookeeper-mt-dev)
  flakeid_missing_client(zookeeper_cosid_lease_test "the ZooKeeper C client"
                         libzookeeper-mt-dev "lease;server")
endif()

# A stand-in allowed to skip (FLAKEID_ALLOW_SKIP_SERVERS=1) is reported as skipped, never as
# passed.
get_property(flakeid_adapter_tests DIRECTORY PROPERTY TESTS)
foreach(test IN LISTS flakeid_adapter_tests)
  if(test MATCHES "\\.client_library_found$")
    set_tests_properties(${test} PROPERTIES SKIP_REGULAR_EXPRESSION "skipped: ")
  endif()
endforeach()
