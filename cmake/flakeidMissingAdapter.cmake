# A CTest stand-in for adapter tests that could not be built: fails unless the developer allows
# skipping with FLAKEID_ALLOW_SKIP_SERVERS=1 (CI must run them).
if("$ENV{FLAKEID_ALLOW_SKIP_SERVERS}" STREQUAL "1")
  message(STATUS "skipped: ${WHAT} was not found at configure time (FLAKEID_ALLOW_SKIP_SERVERS=1)")
else()
  message(FATAL_ERROR "${WHAT} was not found at configure time, so its server tests were not built: "
                      "install ${PACKAGE} (or set FLAKEID_ALLOW_SKIP_SERVERS=1 to skip)")
endif()
