# flakeid's install rules: the headers, the exported targets (flakeid::flakeid and any adapter
# that was built), flakeidConfig.cmake with its version file, flakeid.pc and the CLI.
#
#   cmake --install build --prefix /opt/flakeid
#   find_package(flakeid 0.1 REQUIRED)                       # then link flakeid::flakeid
#   pkg-config --cflags flakeid
#
# Adapters: every target named in FLAKEID_ADAPTER_TARGETS (set by cmake/flakeidAdapters.cmake),
# plus flakeid_redis and flakeid_postgres when they exist, is installed and exported with the
# core. A target called flakeid_<name> is exported as flakeid::<name> unless it sets its own
# EXPORT_NAME; its headers are installed when they are in a FILE_SET HEADERS. Code that a
# consumer needs to find an adapter's own dependencies (a find_dependency call, a
# pkg_check_modules with IMPORTED_TARGET) goes in FLAKEID_ADAPTER_CONFIG_CODE and is copied
# into flakeidConfig.cmake before the targets file is included.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Header-only: the package files are architecture independent, so they live under share/.
set(FLAKEID_INSTALL_CMAKEDIR "${CMAKE_INSTALL_DATADIR}/cmake/flakeid"
    CACHE STRING "Where flakeidConfig.cmake is installed, relative to the prefix")
set(FLAKEID_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_DATADIR}/pkgconfig"
    CACHE STRING "Where flakeid.pc is installed, relative to the prefix")
mark_as_advanced(FLAKEID_INSTALL_CMAKEDIR FLAKEID_INSTALL_PKGCONFIGDIR)

set(flakeid_install_targets flakeid)
foreach(adapter IN LISTS FLAKEID_ADAPTER_TARGETS ITEMS flakeid_redis flakeid_postgres)
  if(NOT TARGET ${adapter})
    continue()
  endif()
  get_target_property(real ${adapter} ALIASED_TARGET)
  if(real)
    set(adapter ${real})
  endif()
  get_target_property(export_name ${adapter} EXPORT_NAME)
  if(NOT export_name AND adapter MATCHES "^flakeid_(.+)$")
    set_target_properties(${adapter} PROPERTIES EXPORT_NAME ${CMAKE_MATCH_1})
  endif()
  list(APPEND flakeid_install_targets ${adapter})
endforeach()
list(REMOVE_DUPLICATES flakeid_install_targets)

install(TARGETS ${flakeid_install_targets}
        EXPORT flakeidTargets
        FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT flakeidTargets
        NAMESPACE flakeid::
        DESTINATION "${FLAKEID_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/flakeidConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/flakeidConfig.cmake"
  INSTALL_DESTINATION "${FLAKEID_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/flakeidConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion
  ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/flakeidConfig.cmake"
              "${PROJECT_BINARY_DIR}/flakeidConfigVersion.cmake"
        DESTINATION "${FLAKEID_INSTALL_CMAKEDIR}")

# flakeid.pc finds the prefix from its own place, so the installed tree can be moved.
file(RELATIVE_PATH FLAKEID_PC_TO_PREFIX
     "/prefix/${FLAKEID_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" FLAKEID_PC_TO_PREFIX "${FLAKEID_PC_TO_PREFIX}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/flakeid.pc.in" "${PROJECT_BINARY_DIR}/flakeid.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/flakeid.pc" DESTINATION "${FLAKEID_INSTALL_PKGCONFIGDIR}")

if(TARGET flakeid_cli)
  install(TARGETS flakeid_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()
