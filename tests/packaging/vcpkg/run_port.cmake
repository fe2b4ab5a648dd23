# cmake -P script for "packaging: vcpkg port": checks vcpkg.json's version,
# runs packaging/vcpkg/tensorlib/portfile.cmake with vcpkg_stand_ins.cmake,
# copies the package where vcpkg installs it (a different directory, so it
# must be relocatable) and builds the consumer against that.
cmake_minimum_required(VERSION 3.21)
foreach(var CHECKOUT WORK GENERATOR CONSUMER VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_port.cmake: ${var} not set")
  endif()
endforeach()

set(port_dir "${CHECKOUT}/packaging/vcpkg/tensorlib")
file(READ "${port_dir}/vcpkg.json" manifest)
string(JSON port_version GET "${manifest}" version)
if(NOT port_version STREQUAL VERSION)
  message(FATAL_ERROR "vcpkg.json has version ${port_version}, core/config.hpp has ${VERSION}")
endif()
message("vcpkg.json version ${port_version} matches core/config.hpp")

# What vcpkg sets before it runs a portfile.
set(PORT tensorlib)
set(TARGET_TRIPLET x64-linux)
set(VCPKG_LIBRARY_LINKAGE static)
set(CURRENT_BUILDTREES_DIR "${WORK}/buildtrees/${PORT}")
set(CURRENT_PACKAGES_DIR "${WORK}/packages/${PORT}_${TARGET_TRIPLET}")
file(REMOVE_RECURSE "${WORK}")

include("${CMAKE_CURRENT_LIST_DIR}/vcpkg_stand_ins.cmake")
include("${port_dir}/portfile.cmake")
tensorlib_vcpkg_post_build_checks()

set(installed "${WORK}/installed/${TARGET_TRIPLET}")
file(COPY "${CURRENT_PACKAGES_DIR}/" DESTINATION "${installed}")
file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}")

# The usage file's promise, through vcpkg's toolchain's CMAKE_PREFIX_PATH.
set(SOURCE "${CONSUMER}")
set(BINARY "${WORK}/consumer")
set(CONFIGURE_ARGS "-DCMAKE_PREFIX_PATH=${installed}")
if(CUDA)
  set(COMPONENTS cuda)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/../run_consumer.cmake")
