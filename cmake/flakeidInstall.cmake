# flakeid's install rules: the headers, the core target, one package component per adapter that
# was built, flakeidConfig.cmake with its version file, a .pc file per target, the licence and
# the CLI when it was built.
#
#   cmake --install build --prefix /opt/flakeid               # works right after configure
#   find_package(flakeid 0.1 REQUIRED COMPONENTS postgres)     # then link flakeid::postgres
#   pkg-config --cflags flakeid        (flakeid-redis, flakeid-redis_tls, flakeid-postgres)
#
# Components: every adapter made by flakeid_adapter() (cmake/flakeidAdapters.cmake) is exported
# in a targets file of its own, flakeid-<component>-targets.cmake, loaded by
# flakeid-<component>.cmake only when what the adapter links (hiredis, libpq, OpenSSL) is found
# on the consumer's machine; a component that was asked for and cannot be had makes
# find_package fail with a message that names what is missing.

include(CMakePackageConfigHelpers)

# Header-only: the package files are architecture independent, so they live under share/.
set(FLAKEID_INSTALL_CMAKEDIR "${CMAKE_INSTALL_DATADIR}/cmake/flakeid"
    CACHE STRING "Where flakeidConfig.cmake is installed, relative to the prefix")
set(FLAKEID_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_DATADIR}/pkgconfig"
    CACHE STRING "Where flakeid.pc is installed, relative to the prefix")
mark_as_advanced(FLAKEID_INSTALL_CMAKEDIR FLAKEID_INSTALL_PKGCONFIGDIR)

# flakeid_install_target(<target> <export set>): the target, its headers and its export set.
function(flakeid_install_target target export)
  if(FLAKEID_USE_FILE_SETS)
    install(TARGETS ${target} EXPORT ${export}
            FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
  else()
    install(TARGETS ${target} EXPORT ${export})
  endif()
  install(EXPORT ${export} NAMESPACE flakeid:: DESTINATION "${FLAKEID_INSTALL_CMAKEDIR}")
endfunction()

flakeid_install_target(flakeid flakeidTargets)
if(NOT FLAKEID_USE_FILE_SETS)
  # Without file sets the headers are copied as a tree; the adapters' headers go with them.
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/flakeid"
          DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" FILES_MATCHING PATTERN "*.hpp")
endif()

# flakeid.pc and the adapters' .pc files find the prefix from their own place, so the installed
# tree can be moved.
file(RELATIVE_PATH FLAKEID_PC_TO_PREFIX "/prefix/${FLAKEID_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" FLAKEID_PC_TO_PREFIX "${FLAKEID_PC_TO_PREFIX}")
# flakeid_install_pc(<name> <description> <requires> <cflags> <libs>)
function(flakeid_install_pc name description requires cflags libs)
  set(FLAKEID_PC_NAME "${name}")
  set(FLAKEID_PC_DESCRIPTION "${description}")
  set(FLAKEID_PC_REQUIRES "${requires}")
  set(FLAKEID_PC_CFLAGS "${cflags}")
  set(FLAKEID_PC_LIBS "${libs}")
  configure_file("${CMAKE_CURRENT_FUNCTION_LIST_DIR}/flakeid.pc.in"
                 "${PROJECT_BINARY_DIR}/${name}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/${name}.pc" DESTINATION "${FLAKEID_INSTALL_PKGCONFIGDIR}")
endfunction()
flakeid_install_pc(flakeid "${PROJECT_DESCRIPTION}" "" "-I\${includedir}" "-pthread")

get_property(FLAKEID_COMPONENTS GLOBAL PROPERTY FLAKEID_COMPONENTS)
foreach(component IN LISTS FLAKEID_COMPONENTS)
  foreach(key IN ITEMS NEEDS FIND READY PC_REQUIRES PC_LIBS)
    get_property(FLAKEID_COMPONENT_${key} GLOBAL PROPERTY FLAKEID_COMPONENT_${component}_${key})
  endforeach()
  set(FLAKEID_COMPONENT "${component}")
  flakeid_install_target(flakeid_${component} flakeid-${component}-targets)
  configure_file("${CMAKE_CURRENT_LIST_DIR}/flakeidComponent.cmake.in"
                 "${PROJECT_BINARY_DIR}/flakeid-${component}.cmake" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/flakeid-${component}.cmake"
          DESTINATION "${FLAKEID_INSTALL_CMAKEDIR}")
  get_target_property(definitions flakeid_${component} INTERFACE_COMPILE_DEFINITIONS)
  set(cflags "")
  if(definitions)
    list(TRANSFORM definitions PREPEND "-D")
    list(JOIN definitions " " cflags)
  endif()
  list(JOIN FLAKEID_COMPONENT_PC_REQUIRES " " requires)
  list(JOIN FLAKEID_COMPONENT_PC_LIBS " " libs)
  flakeid_install_pc(flakeid-${component} "flakeid's ${component} adapter" "flakeid ${requires}"
                     "${cflags}" "${libs}")
endforeach()

list(JOIN FLAKEID_COMPONENTS ", " FLAKEID_COMPONENTS_TEXT)
if(NOT FLAKEID_COMPONENTS_TEXT)
  set(FLAKEID_COMPONENTS_TEXT "none")
endif()
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
              "${CMAKE_CURRENT_LIST_DIR}/flakeidFindClient.cmake"
        DESTINATION "${FLAKEID_INSTALL_CMAKEDIR}")

install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/flakeid")

# The CLI is installed when it was built: `cmake --install` right after a configure installs
# the headers and the package files and skips it.
if(TARGET flakeid_cli)
  install(TARGETS flakeid_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" OPTIONAL)
endif()
