# flakeid_find_client(<name> <pkg-config module> <header> <library> [<header path suffix>...]):
# the imported target flakeid::<name>_client for a client library that an adapter links, from
# pkg-config when it knows the module, else from find_path + find_library. Sets
# flakeid_<name>_client_FOUND. Used when flakeid is built and again by the installed package
# (flakeidConfig.cmake), so a consumer finds the client library the same way.
include_guard(GLOBAL)

function(flakeid_find_client name module header library)
  if(TARGET flakeid::${name}_client)
    set(flakeid_${name}_client_FOUND TRUE PARENT_SCOPE)
    return()
  endif()
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(flakeid_${name}_pc QUIET IMPORTED_TARGET GLOBAL ${module})
    if(flakeid_${name}_pc_FOUND)
      add_library(flakeid::${name}_client INTERFACE IMPORTED GLOBAL)
      target_link_libraries(flakeid::${name}_client INTERFACE PkgConfig::flakeid_${name}_pc)
      set(flakeid_${name}_client_FOUND TRUE PARENT_SCOPE)
      return()
    endif()
  endif()
  find_path(flakeid_${name}_INCLUDE_DIR ${header} PATH_SUFFIXES ${ARGN})
  find_library(flakeid_${name}_LIBRARY ${library})
  mark_as_advanced(flakeid_${name}_INCLUDE_DIR flakeid_${name}_LIBRARY)
  if(flakeid_${name}_INCLUDE_DIR AND flakeid_${name}_LIBRARY)
    add_library(flakeid::${name}_client INTERFACE IMPORTED GLOBAL)
    target_include_directories(flakeid::${name}_client INTERFACE "${flakeid_${name}_INCLUDE_DIR}")
    target_link_libraries(flakeid::${name}_client INTERFACE "${flakeid_${name}_LIBRARY}")
    set(flakeid_${name}_client_FOUND TRUE PARENT_SCOPE)
  else()
    set(flakeid_${name}_client_FOUND FALSE PARENT_SCOPE)
  endif()
endfunction()
