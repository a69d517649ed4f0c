# Run as: cmake -DCXX=<compiler> -DSOURCE=<file.cpp> -DINCLUDE=<dir> -DEXPECT=<regex> -P compile_fail.cmake
# Passes when compiling SOURCE fails and the compiler's output matches EXPECT.
execute_process(
  COMMAND "${CXX}" -std=c++20 -fsyntax-only "-I${INCLUDE}" "${SOURCE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must not")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "${SOURCE} failed to compile, but without the expected message '${EXPECT}':\n${out}${err}")
endif()
message(STATUS "rejected as expected: ${EXPECT}")
