# The fault soak (docs/soak.md), built with FLAKEID_BUILD_SOAK: flakeid_soak, a harness that
# starts each store's server (tests/adapters/*_server.hpp, hence GoogleTest's headers), its
# minters (the same program in minter mode) and the nemesis, then runs check.py over the logs.
# Included (deferred) from cmake/flakeidAdapters.cmake, after the server tests.
if(NOT FLAKEID_BUILD_TESTS)
  message(FATAL_ERROR "flakeid: FLAKEID_BUILD_SOAK needs FLAKEID_BUILD_TESTS (GoogleTest, the "
                      "test servers)")
endif()
find_package(Python3 3.8 REQUIRED COMPONENTS Interpreter)
set(flakeid_soak_dir "${CMAKE_CURRENT_LIST_DIR}")
add_executable(flakeid_soak "${flakeid_soak_dir}/soak_main.cpp" "${flakeid_soak_dir}/run.cpp"
               "${flakeid_soak_dir}/nemesis.cpp" "${flakeid_soak_dir}/servers.cpp"
               "${flakeid_soak_dir}/minter.cpp")
target_link_libraries(flakeid_soak PRIVATE flakeid::flakeid)
flakeid_link_server_stores(flakeid_soak FLAKEID_SOAK_HAVE)
if(TARGET GTest::gtest)
  target_link_libraries(flakeid_soak PRIVATE GTest::gtest)
else()
  target_link_libraries(flakeid_soak PRIVATE gtest)
endif()
target_include_directories(flakeid_soak PRIVATE "${PROJECT_SOURCE_DIR}/tests/adapters")
target_compile_definitions(flakeid_soak
                           PRIVATE FLAKEID_SOAK_CHECKER="${flakeid_soak_dir}/check.py")
flakeid_set_test_warnings(flakeid_soak)

# The checker's own test: logs with a duplicate, a segment number twice and an ID past its
# fence, which it must flag; then a 20-second soak of the file store, whose checker must pass.
add_test(NAME soak.checker COMMAND Python3::Interpreter "${flakeid_soak_dir}/check_test.py")
# Its logs go under /tmp, where the minters reach them also when they run as nobody and the
# build tree lies where nobody may go; one place per build tree.
string(MD5 flakeid_soak_tree "${CMAKE_CURRENT_BINARY_DIR}")
string(SUBSTRING "${flakeid_soak_tree}" 0 12 flakeid_soak_tree)
add_test(NAME soak.file_smoke
         COMMAND flakeid_soak --stores file --minutes 0.33 --seed 7 --fault-every 2
                 --out "/tmp/flakeid-soak-smoke-${flakeid_soak_tree}")
set_tests_properties(soak.checker soak.file_smoke PROPERTIES LABELS soak)
set_tests_properties(soak.file_smoke PROPERTIES TIMEOUT 120)
