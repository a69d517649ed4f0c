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
# -Wstringop-overflow and -Warray-bounds, which misfire at -O3 on `"text" + std::string` once
# enough is inlined (GCC bugs 105651, 105329), as the tests' precompiled header makes it. The
# CLI's command files use it too (tools/CMakeLists.txt); the examples keep the three warnings,
# so the library's headers are still held to them.
function(flakeid_set_test_warnings target)
  flakeid_set_warnings(${target})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict -Wno-stringop-overflow
                                             -Wno-array-bounds)
  endif()
endfunction()
