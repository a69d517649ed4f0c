# Configures, builds and runs one consumer project in a fresh directory.
# Run as: cmake -DKIND=<add_subdirectory|fetchcontent|find_package|install_only>
#               -DSOURCE_DIR=<flakeid source> -DBINARY_DIR=<flakeid build> -DWORK_DIR=<scratch>
#               -DGENERATOR=<generator> -DCXX=<compiler> [-DMAKE_PROGRAM=<path>]
#               [-DCOMPONENTS=<adapter>|<adapter>...] -P run_consumer.cmake
# For find_package it first installs BINARY_DIR to WORK_DIR/prefix, checks the installed CLI,
# licence and .pc files, and checks that asking for version 99, for a component that does not
# exist, or for an adapter whose client library cannot be found, fails with a message.
# install_only configures flakeid for installing (no tests, examples or CLI, CMake 3.22's
# include directories) and installs at once, without a build.
cmake_policy(VERSION 3.22)
set(here "${CMAKE_CURRENT_LIST_DIR}")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${KIND}: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

set(configure_args -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}" "-DFLAKEID_SOURCE_DIR=${SOURCE_DIR}"
                   -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(MAKE_PROGRAM)
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()

string(REPLACE "|" ";" COMPONENTS "${COMPONENTS}")

if(KIND STREQUAL "install_only")
  step("configure for install" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/flakeid"
       -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}" -DFLAKEID_BUILD_TESTS=OFF
       -DFLAKEID_BUILD_EXAMPLES=OFF -DFLAKEID_BUILD_CLI=OFF -DFLAKEID_INSTALL=ON
       -DFLAKEID_USE_FILE_SETS=OFF)
  step("cmake --install without a build" "${CMAKE_COMMAND}" --install "${WORK_DIR}/flakeid"
       --prefix "${WORK_DIR}/prefix")
  foreach(f IN ITEMS include/flakeid/flakeid.hpp include/flakeid/adapters/redis.hpp
                     share/cmake/flakeid/flakeidConfig.cmake share/doc/flakeid/LICENSE
                     share/pkgconfig/flakeid.pc)
    if(NOT EXISTS "${WORK_DIR}/prefix/${f}")
      message(FATAL_ERROR "install_only: ${f} was not installed")
    endif()
  endforeach()
  # Every installed header names its licence and copyright in its first lines.
  file(GLOB_RECURSE headers "${WORK_DIR}/prefix/include/*.hpp")
  foreach(h IN LISTS headers)
    file(STRINGS "${h}" first LIMIT_COUNT 2)
    if(NOT first MATCHES "^// SPDX-License-Identifier: MIT;// Copyright \\(c\\) [0-9]+ The flakeid authors$")
      message(FATAL_ERROR "install_only: ${h} does not start with its SPDX and copyright lines")
    endif()
  endforeach()
  file(GLOB built "${WORK_DIR}/flakeid/*_test" "${WORK_DIR}/flakeid/tests")
  if(built OR EXISTS "${WORK_DIR}/prefix/bin")
    message(FATAL_ERROR "install_only: tests or the CLI came with a configure for install: ${built}")
  endif()
  # The installed package, without file sets, serves a consumer.
  set(BINARY_DIR "")
endif()

if(KIND MATCHES "^(find_package|install_only)$")
  set(prefix "${WORK_DIR}/prefix")
  if(BINARY_DIR)
    step("cmake --install" "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --prefix "${prefix}")
  endif()
  list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${prefix}")

  # expect_failure(<what> <regex> <configure args>...): the find_package consumer must fail to
  # configure with a message matching <regex>.
  function(expect_failure what regex)
    execute_process(COMMAND "${CMAKE_COMMAND}" -S "${here}/find_package" -B "${WORK_DIR}/bad"
                            ${configure_args} ${ARGN}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    file(REMOVE_RECURSE "${WORK_DIR}/bad")
    if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "${regex}")
      message(FATAL_ERROR "${what} did not fail as it must:\n${out}\n${err}")
    endif()
  endfunction()
  expect_failure("find_package(flakeid 99 REQUIRED)" "flakeid.*99" -DFLAKEID_WANTED_VERSION=99)
  expect_failure("find_package(flakeid REQUIRED COMPONENTS nosuch)"
                 "flakeid has no component 'nosuch'" -DFLAKEID_WANTED_COMPONENTS=nosuch)
  if("redis" IN_LIST COMPONENTS)
    # hiredis hidden from the consumer: no pkg-config, no system path to search.
    expect_failure("find_package(flakeid REQUIRED COMPONENTS redis) without hiredis"
                   "component redis needs hiredis \\(Debian: libhiredis-dev\\)"
                   -DFLAKEID_WANTED_COMPONENTS=redis -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
                   -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF
                   -DCMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH=OFF)
  endif()
  if(NOT EXISTS "${prefix}/share/doc/flakeid/LICENSE")
    message(FATAL_ERROR "the licence was not installed")
  endif()
  if(KIND STREQUAL "find_package")
    list(APPEND configure_args "-DFLAKEID_WANTED_COMPONENTS=${COMPONENTS}")
  endif()

  if(EXISTS "${prefix}/bin/flakeid")
    step("installed CLI" "${prefix}/bin/flakeid" parse --layout discord 175928847299117063)
    if(NOT out STREQUAL "id=175928847299117063 time=2016-04-30T11:18:25.796Z ticks=41944705796 worker=1 datacenter=0 sequence=7 layout=discord\n")
      message(FATAL_ERROR "the installed CLI printed: ${out}")
    endif()
  endif()

  find_program(PKG_CONFIG pkg-config)
  if(PKG_CONFIG)
    set(ENV{PKG_CONFIG_PATH} "${prefix}/share/pkgconfig")
    step("pkg-config" "${PKG_CONFIG}" --cflags flakeid)
    string(STRIP "${out}" cflags)
    separate_arguments(cflags UNIX_COMMAND "${cflags}")
    step("compile with pkg-config's flags" "${CXX}" -std=c++20 -fsyntax-only ${cflags} "${here}/main.cpp")
    # Each adapter's .pc brings its client library (and, for TLS, its definition).
    set(expected_redis "-lhiredis")
    set(expected_redis_tls "-DFLAKEID_REDIS_TLS=1.*-lssl")
    set(expected_postgres "-lpq")
    foreach(component IN LISTS COMPONENTS)
      step("pkg-config flakeid-${component}" "${PKG_CONFIG}" --cflags --libs flakeid-${component})
      if(NOT out MATCHES "-I" OR NOT out MATCHES "${expected_${component}}")
        message(FATAL_ERROR "pkg-config flakeid-${component} gave: ${out}")
      endif()
    endforeach()
  endif()
  set(project_dir "${here}/find_package")
elseif(KIND STREQUAL "add_subdirectory")
  # The path CMake 3.22 takes: include directories instead of file sets.
  list(APPEND configure_args -DFLAKEID_USE_FILE_SETS=OFF)
  set(project_dir "${here}/${KIND}")
else()
  set(project_dir "${here}/${KIND}")
endif()

set(build "${WORK_DIR}/build")
step("configure" "${CMAKE_COMMAND}" -S "${project_dir}" -B "${build}" ${configure_args})
if(KIND MATCHES "^(find_package|install_only)$")
  file(REAL_PATH "${prefix}" real_prefix)
  if(NOT out MATCHES "flakeid [0-9.]+ from ${real_prefix}/|flakeid [0-9.]+ from ${prefix}/")
    message(FATAL_ERROR "find_package found another flakeid:\n${out}")
  endif()
endif()
step("build" "${CMAKE_COMMAND}" --build "${build}")
step("run" "${build}/consumer")
message(STATUS "${KIND}: ${out}")

# None of flakeid's tests, examples or tools were configured in the consumer.
foreach(dir IN ITEMS flakeid _deps/flakeid-build)
  foreach(sub IN ITEMS tests examples tools bench)
    if(EXISTS "${build}/${dir}/${sub}")
      message(FATAL_ERROR "the consumer's build has flakeid's ${sub} (${build}/${dir}/${sub})")
    endif()
  endforeach()
endforeach()
step("ctest -N" "${CMAKE_CTEST_COMMAND}" -N --test-dir "${build}")
if(NOT out MATCHES "Total Tests: 0")
  message(FATAL_ERROR "the consumer has flakeid's tests:\n${out}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
