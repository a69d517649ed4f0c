# Drives the flakeid command-line tool and checks its exact output: the shared helpers, then
# one part of the checks, tests/cli/<PART>.cmake. Run as:
#   cmake -DCLI=<path to flakeid> -DPART=<ids|gen|gen_worker|sql|bench|usage> -P cli_test.cmake
if(NOT EXISTS "${CLI}")
  message(FATAL_ERROR "CLI=${CLI} does not exist")
endif()

set(failures 0)

# run(<args>...): runs the tool; sets rc, out, err in the caller.
macro(run)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID "${CLI}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endmacro()

# run_in(<stdin file> <args>...): as run, with standard input read from the file.
macro(run_in input)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID "${CLI}" ${ARGN}
                  INPUT_FILE "${input}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endmacro()

# A scratch directory for this run's input files.
string(RANDOM LENGTH 10 scratch_tag)
set(scratch "${CMAKE_CURRENT_BINARY_DIR}/cli-scratch-${scratch_tag}")
file(MAKE_DIRECTORY "${scratch}")

function(failed name what)
  message(SEND_ERROR "[${name}] ${what}")
  math(EXPR n "${failures} + 1")
  set(failures ${n} PARENT_SCOPE)
endfunction()

# check_stdout(<name> <STREQUAL|MATCHES> <expected> <what> <args>...): after a run of
# `flakeid <args>`: exit 0, stdout compared with <expected> by the operator, stderr empty; a
# failure shows <what> after stdout.
function(check_stdout name op expected what)
  if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR NOT out ${op} "${expected}")
    failed(${name} "flakeid ${ARGN}\n  exit ${rc}\n  stdout:\n${out}  ${what}  stderr: ${err}")
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()

# check_out(<name> <expected stdout> <args>...): after a run of `flakeid <args>`: exit 0, stdout
# exactly as given, stderr empty.
function(check_out name expected)
  check_stdout(${name} STREQUAL "${expected}" "expected:\n${expected}" ${ARGN})
  set(failures ${failures} PARENT_SCOPE)
endfunction()

# expect_out(<name> <expected stdout> <args>...): runs the tool and checks as check_out.
function(expect_out name expected)
  run(${ARGN})
  check_out(${name} "${expected}" ${ARGN})
  set(failures ${failures} PARENT_SCOPE)
endfunction()

# expect_match(<name> <stdout regex> <args>...): exit 0, stdout matching, stderr empty.
function(expect_match name regex)
  run(${ARGN})
  check_stdout(${name} MATCHES "${regex}" "expected to match:\n${regex}\n" ${ARGN})
  set(failures ${failures} PARENT_SCOPE)
endfunction()

# expect_bad(<name> <stderr regex> <args>...): exit 2, no stdout, one line on stderr matching.
function(expect_bad name regex)
  run(${ARGN})
  string(REGEX MATCHALL "\n" lines "${err}")
  list(LENGTH lines line_count)
  if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR NOT line_count EQUAL 1 OR NOT err MATCHES "^flakeid[^\n]*${regex}")
    failed(${name} "flakeid ${ARGN}\n  exit ${rc} (expected 2)\n  stdout: ${out}\n  stderr: ${err}  expected to match: ${regex}")
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()

if(NOT EXISTS "${CMAKE_CURRENT_LIST_DIR}/${PART}.cmake")
  message(FATAL_ERROR "PART=${PART}: no such part of the CLI checks")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/${PART}.cmake")

file(REMOVE_RECURSE "${scratch}")
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} CLI check(s) failed")
endif()
message(STATUS "every CLI check passed")
