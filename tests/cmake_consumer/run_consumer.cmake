# Configures, builds and runs one consumer project in a fresh directory.
# Run as: cmake -DKIND=<add_subdirectory|fetchcontent|find_package> -DSOURCE_DIR=<flakeid source>
#               -DBINARY_DIR=<flakeid build> -DWORK_DIR=<scratch> -DGENERATOR=<generator>
#               -DCXX=<compiler> [-DMAKE_PROGRAM=<path>] -P run_consumer.cmake
# For find_package it first installs BINARY_DIR to WORK_DIR/prefix, checks the installed CLI and
# flakeid.pc, and also checks that asking for version 99 fails.
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

if(KIND STREQUAL "find_package")
  set(prefix "${WORK_DIR}/prefix")
  step("cmake --install" "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --prefix "${prefix}")
  list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${prefix}")

  # Asking for a version that does not exist must fail.
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${here}/find_package" -B "${WORK_DIR}/build99"
                          ${configure_args} -DFLAKEID_WANTED_VERSION=99
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "flakeid.*99")
    message(FATAL_ERROR "find_package(flakeid 99 REQUIRED) did not fail as it must:\n${out}\n${err}")
  endif()

  if(EXISTS "${prefix}/bin/flakeid")
    step("installed CLI" "${prefix}/bin/flakeid" parse --layout discord 175928847299117063)
    if(NOT out STREQUAL "id=175928847299117063 time=2016-04-30T11:18:25.796Z ticks=41944705796 worker=1 datacenter=0 sequence=7\n")
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
  endif()
  set(project_dir "${here}/find_package")
else()
  set(project_dir "${here}/${KIND}")
endif()

set(build "${WORK_DIR}/build")
step("configure" "${CMAKE_COMMAND}" -S "${project_dir}" -B "${build}" ${configure_args})
if(KIND STREQUAL "find_package")
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
