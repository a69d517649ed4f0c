# flakeid_set_warnings(<target>): the project's warning flags for tests, examples and tools.
function(flakeid_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                             -Wsign-conversion)
    if(FLAKEID_WARNINGS_AS_ERRORS)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()

# flakeid_set_test_warnings(<target>): the same for test programs, less GCC 12's -Wrestrict,
# which misfires at -O3 on `"text" + std::string` in the tests' own code (GCC bug 105651).
# The CLI's command files use it too (tools/CMakeLists.txt); the examples keep -Wrestrict, so
# the library's headers are still held to it.
function(flakeid_set_test_warnings target)
  flakeid_set_warnings(${target})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()
