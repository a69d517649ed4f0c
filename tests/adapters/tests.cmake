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

# The Redis tests link flakeid::redis_tls when it is built (rediss:// then runs too; without
# it, redis_auth_test fails unless FLAKEID_ALLOW_SKIP_SERVERS=1).
foreach(adapter redis postgres)
  string(TOUPPER ${adapter} upper)
  set(link flakeid::${adapter})
  if(adapter STREQUAL "redis" AND FLAKEID_REDIS_TLS_FOUND)
    set(link flakeid::redis_tls)
  endif()
  if(FLAKEID_${upper}_FOUND)
    foreach(feature lease segment auth)
      set(labels "${feature};server")
      if(feature STREQUAL "auth")
        set(labels "lease;segment;server")
      endif()
      set(exe ${adapter}_${feature}_test)
      add_executable(${exe} "${CMAKE_CURRENT_LIST_DIR}/${exe}.cpp")
      target_link_libraries(${exe} PRIVATE ${link} ${flakeid_gtest_main})
      target_include_directories(${exe} PRIVATE "${CMAKE_CURRENT_LIST_DIR}")
      flakeid_set_warnings(${exe})
      gtest_discover_tests(${exe} DISCOVERY_TIMEOUT 120 TEST_LIST ${exe}_TESTS
                           PROPERTIES TIMEOUT 90)
      # Labels are set after discovery, from the list it made: gtest_discover_tests splits a
      # list-valued property into separate words, so "lease;server" given there is lost.
      file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/${exe}_labels.cmake"
           "if(${exe}_TESTS)\n  set_tests_properties(\${${exe}_TESTS} PROPERTIES LABELS \"${labels}\")\nendif()\n")
      set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES
                   "${CMAKE_CURRENT_BINARY_DIR}/${exe}_labels.cmake")
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
