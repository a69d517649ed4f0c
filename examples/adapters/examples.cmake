# The lease example: Redis when flakeid::redis is built and FLAKEID_REDIS_URL or
# FLAKEID_REDIS_ADDRESS is set at run time (rediss:// with flakeid::redis_tls), else the
# host-local file lease. Built and run by CTest (label "demo").
add_executable(example_lease_worker "${CMAKE_CURRENT_LIST_DIR}/lease_worker.cpp")
if(TARGET flakeid::redis_tls)
  target_link_libraries(example_lease_worker PRIVATE flakeid::redis_tls)
  target_compile_definitions(example_lease_worker PRIVATE FLAKEID_EXAMPLE_HAVE_REDIS=1)
elseif(TARGET flakeid::redis)
  target_link_libraries(example_lease_worker PRIVATE flakeid::redis)
  target_compile_definitions(example_lease_worker PRIVATE FLAKEID_EXAMPLE_HAVE_REDIS=1)
else()
  target_link_libraries(example_lease_worker PRIVATE flakeid::flakeid)
endif()
flakeid_set_warnings(example_lease_worker)
add_test(NAME example.lease_worker COMMAND example_lease_worker)
set_tests_properties(example.lease_worker PROPERTIES LABELS "demo")

# The SQL example: PostgreSQL tables set up from the DDL flakeid::sql writes (needs libpq). Run
# alone it prints that DDL; tests/adapters/postgres_sql_example_test.cpp runs it against a
# PostgreSQL cluster it starts (label "server").
if(TARGET flakeid::postgres)
  add_executable(example_sql_partitions "${CMAKE_CURRENT_LIST_DIR}/sql_partitions.cpp")
  target_link_libraries(example_sql_partitions PRIVATE flakeid::postgres)
  flakeid_set_warnings(example_sql_partitions)
  add_test(NAME example.sql_partitions COMMAND example_sql_partitions)
  set_tests_properties(example.sql_partitions PROPERTIES LABELS "demo")
endif()

# The MySQL/MariaDB example: a worker id and segments (Leaf's table and flakeid's) from
# FLAKEID_MYSQL_URL. Run alone it prints how to use it; tests/adapters/mysql_example_test.cpp
# runs it against a MariaDB server it starts (label "server").
if(TARGET flakeid::mysql)
  add_executable(example_mysql_fleet "${CMAKE_CURRENT_LIST_DIR}/mysql_fleet.cpp")
  target_link_libraries(example_mysql_fleet PRIVATE flakeid::mysql)
  flakeid_set_warnings(example_mysql_fleet)
  add_test(NAME example.mysql_fleet COMMAND example_mysql_fleet)
  set_tests_properties(example.mysql_fleet PROPERTIES LABELS "demo")
endif()

# The ZooKeeper example: a worker id from Leaf's snowflake nodes and a segment counter, from
# FLAKEID_ZOOKEEPER_HOSTS. Run alone it prints how to use it; zookeeper_example_test runs it
# against a ZooKeeper server it starts (label "server").
if(TARGET flakeid::zookeeper)
  add_executable(example_zookeeper_fleet "${CMAKE_CURRENT_LIST_DIR}/zookeeper_fleet.cpp")
  target_link_libraries(example_zookeeper_fleet PRIVATE flakeid::zookeeper)
  flakeid_set_warnings(example_zookeeper_fleet)
  add_test(NAME example.zookeeper_fleet COMMAND example_zookeeper_fleet)
  set_tests_properties(example.zookeeper_fleet PROPERTIES LABELS "demo")
endif()
