# FLAKEID_SANITIZE: sanitizers for everything built in this tree (tests, examples, fuzzers), as
# the list given to -fsanitize=, e.g. "address;undefined" or "thread". Empty: none.
# A sanitizer finding stops the program (-fno-sanitize-recover=all), so CTest sees a failure.
set(FLAKEID_SANITIZE "" CACHE STRING "Sanitizers for tests and examples: address;undefined, thread or empty")
if(FLAKEID_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "FLAKEID_SANITIZE needs GCC or Clang")
  endif()
  list(JOIN FLAKEID_SANITIZE "," flakeid_sanitizers)
  add_compile_options(-fsanitize=${flakeid_sanitizers} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${flakeid_sanitizers})
endif()
