# Lease and segment-store tests against real servers (redis-server; initdb + pg_ctl), one
# program per adapter and feature.
# Included (deferred) from cmake/flakeidAdapters.cmake once the core tests are set up. An adapter whose client
# library was not found gets a stand-in test that fails, unless FLAKEID_ALLOW_SKIP_SERVERS=1.
find_package(GTest QUIET)
if(TARGET GTest::gtest_main)
  set(flakeid_gtest_main GTest::gtest_main)
else()
  set(flakeid_gtest_main gtest_main)
endif()
include(GoogleTest)

# flakeid_label_discovered(<exe> <labels>): labels for the tests gtest_discover_tests found in
# <exe>, set after discovery from the list it made (gtest_discover_tests splits a list-valued
# property given to it into separate words, so "lease;server" given there is lost).
function(flakeid_label_discovered exe labels)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/${exe}_labels.cmake"
       "if(${exe}_TESTS)\n  set_tests_properties(\${${exe}_TESTS} PROPERTIES LABELS \"${labels}\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES
               "${CMAKE_CURRENT_BINARY_DIR}/${exe}_labels.cmake")
endfunction()

# flakeid_server_test(<name> <labels> <libraries>...): one test program against real servers,
# each test bounded by ${flakeid_server_test_timeout} seconds (120 unless set), a guard against
# a hang only.
function(flakeid_server_test name labels)
  if(NOT DEFINED flakeid_server_test_timeout)
    set(flakeid_server_test_timeout 120)
  endif()
  add_executable(${name} "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}.cpp")
  target_link_libraries(${name} PRIVATE ${ARGN} ${flakeid_gtest_main})
  target_include_directories(${name} PRIVATE "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
  flakeid_set_test_warnings(${name})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 120 TEST_LIST ${name}_TESTS
                       PROPERTIES TIMEOUT ${flakeid_server_test_timeout})
  flakeid_label_discovered(${name} "${labels}")
endfunction()

# flakeid_missing_client(<test> <what> <package>): a stand-in that fails (see above).
function(flakeid_missing_client test what package)
  add_test(NAME ${test}.client_library_found
           COMMAND "${CMAKE_COMMAND}" "-DWHAT=${what}" "-DPACKAGE=${package}"
                   -P "${PROJECT_SOURCE_DIR}/cmake/flakeidMissingAdapter.cmake")
  set_tests_properties(${test}.client_library_found PROPERTIES LABELS "sql;server")
endfunction()

# The SQL of <flakeid/sql.hpp> on PostgreSQL (libpq) and MariaDB (MariaDB Connector/C, a test
# dependency only: sql.hpp itself needs no library).
if(flakeid_libpq_client_FOUND)
  flakeid_server_test(postgres_sql_test "sql;server" flakeid::flakeid flakeid::libpq_client)
else()
  flakeid_missing_client(postgres_sql_test "the postgres client library" libpq-dev)
endif()
# The SQL example against a cluster the test starts (the example is built with the examples).
if(FLAKEID_BUILD_EXAMPLES AND FLAKEID_POSTGRES_FOUND)
  flakeid_server_test(postgres_sql_example_test "sql;server" flakeid::flakeid)
  target_compile_definitions(postgres_sql_example_test PRIVATE
                             "FLAKEID_SQL_EXAMPLE=\"$<TARGET_FILE:example_sql_partitions>\"")
  add_dependencies(postgres_sql_example_test example_sql_partitions)
endif()
if(flakeid_mariadb_client_FOUND)
  flakeid_server_test(mariadb_sql_test "sql;server" flakeid::flakeid flakeid::mariadb_client)
else()
  flakeid_missing_client(mariadb_sql_test "MariaDB Connector/C" libmariadb-dev)
endif()

# The Redis tests link flakeid::redis_tls when it is built (rediss:// then runs too; without
# it, redis_auth_test fails unless FLAKEID_ALLOW_SKIP_SERVERS=1).
foreach(adapter redis postgres)
  string(TOUPPER ${adapter} upper)
  set(link flakeid::${adapter})
  if(adapter STREQUAL "redis" AND FLAKEID_REDIS_TLS_FOUND)
    set(link flakeid::redis_tls)
  endif()
  if(FLAKEID_${upper}_FOUND)
    foreach(feature lease segment auth fork)
      set(labels "${feature};server")
      if(feature STREQUAL "auth")
        set(labels "lease;segment;server")
      endif()
      set(exe ${adapter}_${feature}_test)
      add_executable(${exe} "${CMAKE_CURRENT_LIST_DIR}/${exe}.cpp")
      target_link_libraries(${exe} PRIVATE ${link} ${flakeid_gtest_main})
      target_include_directories(${exe} PRIVATE "${CMAKE_CURRENT_LIST_DIR}")
      flakeid_set_test_warnings(${exe})
      gtest_discover_tests(${exe} DISCOVERY_TIMEOUT 120 TEST_LIST ${exe}_TESTS
                           PROPERTIES TIMEOUT 90)
      flakeid_label_discovered(${exe} "${labels}")
    endforeach()
  else()
    if(adapter STREQUAL "redis")
      set(pkg libhiredis-dev)
    else()
      set(pkg libpq-dev)
    endif()
    foreach(feature lease segment)
      add_test(NAME ${adapter}_${feature}_test.client_library_found
               COMMAND "${CMAKE_COMMAND}" "-DWHAT=the ${adapter} client library" "-DPACKAGE=${pkg}"
                       -P "${PROJECT_SOURCE_DIR}/cmake/flakeidMissingAdapter.cmake")
      set_tests_properties(${adapter}_${feature}_test.client_library_found
                           PROPERTIES LABELS "${feature};server")
    endforeach()
  endif()
endforeach()

# MySQL/MariaDB leases and segments (flakeid's tables, Leaf's and CosId's) against mariadbd.
if(FLAKEID_MYSQL_FOUND)
  flakeid_server_test(mysql_lease_test "lease;server" flakeid::mysql)
  flakeid_server_test(mysql_segment_test "segment;server" flakeid::mysql)
  flakeid_server_test(mysql_auth_test "lease;segment;server" flakeid::mysql)
  flakeid_server_test(mysql_fork_test "fork;server" flakeid::mysql)
  if(FLAKEID_BUILD_EXAMPLES)
    flakeid_server_test(mysql_example_test "server" flakeid::mysql)
    target_compile_definitions(mysql_example_test PRIVATE
                               "FLAKEID_MYSQL_EXAMPLE=\"$<TARGET_FILE:example_mysql_fleet>\"")
    add_dependencies(mysql_example_test example_mysql_fleet)
  endif()
else()
  flakeid_missing_client(mysql_lease_test "MariaDB Connector/C" libmariadb-dev)
  flakeid_missing_client(mysql_segment_test "MariaDB Connector/C" libmariadb-dev)
  flakeid_missing_client(mysql_auth_test "MariaDB Connector/C" libmariadb-dev)
  flakeid_missing_client(mysql_fork_test "MariaDB Connector/C" libmariadb-dev)
endif()

# ZooKeeper leases and segments against Debian's zookeeper server.
if(FLAKEID_ZOOKEEPER_FOUND)
  # 40 processes on one counter retry their compare-and-set often: under TSan on a busy
  # machine that takes a minute or more.
  set(flakeid_server_test_timeout 400)
  flakeid_server_test(zookeeper_test "lease;segment;server" flakeid::zookeeper)
  unset(flakeid_server_test_timeout)
  if(FLAKEID_BUILD_EXAMPLES)
    flakeid_server_test(zookeeper_example_test "server" flakeid::zookeeper)
    target_compile_definitions(zookeeper_example_test PRIVATE
                               "FLAKEID_ZOOKEEPER_EXAMPLE=\"$<TARGET_FILE:example_zookeeper_fleet>\"")
    add_dependencies(zookeeper_example_test example_zookeeper_fleet)
  endif()
else()
  flakeid_missing_client(zookeeper_test "the ZooKeeper C client" libzookeeper-mt-dev)
endif()
