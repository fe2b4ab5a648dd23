# cmake -P script: installs the tensorlib build tree BUILD into a fresh PREFIX
# and checks the layout docs/using.md promises. MAJOR: the major version.
cmake_minimum_required(VERSION 3.21)
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${PREFIX}" COMMAND_ERROR_IS_FATAL ANY)

set(cmakedir "${PREFIX}/share/cmake/tensorlib")
foreach(file include/tensorlib/tensorlib.hpp include/tensorlib/core/config.hpp
             share/cmake/tensorlib/tensorlibConfig.cmake share/cmake/tensorlib/tensorlibConfigVersion.cmake
             share/cmake/tensorlib/tensorlibTargets.cmake share/cmake/tensorlib/tensorlibComponents.cmake
             share/pkgconfig/tensorlib.pc)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "the install tree lacks ${file}")
  endif()
endforeach()
# A header-only package is the same on every architecture: nothing under lib/.
if(EXISTS "${PREFIX}/lib")
  message(FATAL_ERROR "the install tree has a lib/ directory; a header-only package must not")
endif()

# The version file, asked the way find_package asks it: any pointer size,
# same major version only.
function(version_check wanted pointer_size out)
  string(REGEX MATCH "^([0-9]+)" _ "${wanted}")
  set(PACKAGE_FIND_VERSION "${wanted}")
  set(PACKAGE_FIND_VERSION_MAJOR "${CMAKE_MATCH_1}")
  set(CMAKE_SIZEOF_VOID_P ${pointer_size})
  include("${cmakedir}/tensorlibConfigVersion.cmake")
  if(PACKAGE_VERSION_COMPATIBLE AND NOT PACKAGE_VERSION_UNSUITABLE)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()
version_check("${MAJOR}.0" 4 same_major_32bit)
math(EXPR next_major "${MAJOR} + 1")
version_check("${next_major}.0" 8 accepts_next_major)
if(NOT same_major_32bit OR accepts_next_major)
  message(FATAL_ERROR "tensorlibConfigVersion.cmake must accept ${MAJOR}.0 on any architecture and refuse ${next_major}.0")
endif()

file(GLOB_RECURSE files "${PREFIX}/*")
list(LENGTH files count)
message("installed tensorlib: ${count} files in ${PREFIX}")
