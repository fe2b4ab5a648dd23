# Stand-ins for the vcpkg helper functions packaging/vcpkg/tensorlib/portfile.cmake
# calls (vcpkg cannot be fetched here). Each does what vcpkg's function does
# for this port on an x64-linux triplet (release only, nothing to move) and
# fails where vcpkg's function or its post-build checks would complain; what
# they do not reproduce is listed in docs/using.md.

# vcpkg_cmake_configure: the port's OPTIONS plus the arguments vcpkg adds that
# a CMake project can see (its toolchain file and the VCPKG_* variables only
# feed that toolchain, which is not here).
function(vcpkg_cmake_configure)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "SOURCE_PATH" "OPTIONS;OPTIONS_RELEASE;OPTIONS_DEBUG")
  if(NOT VCPKG_BUILD_TYPE STREQUAL "release")
    message(FATAL_ERROR "the stand-in builds release-only ports; the portfile must set VCPKG_BUILD_TYPE release")
  endif()
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${arg_SOURCE_PATH}" -B "${CURRENT_BUILDTREES_DIR}/${TARGET_TRIPLET}-rel"
            -G "${GENERATOR}" ${arg_OPTIONS} ${arg_OPTIONS_RELEASE}
            -DCMAKE_BUILD_TYPE=Release "-DCMAKE_INSTALL_PREFIX=${CURRENT_PACKAGES_DIR}" -DBUILD_SHARED_LIBS=OFF
            -DCMAKE_EXPORT_NO_PACKAGE_REGISTRY=ON -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
            -DCMAKE_FIND_PACKAGE_NO_SYSTEM_PACKAGE_REGISTRY=ON -DCMAKE_INSTALL_SYSTEM_RUNTIME_LIBS_SKIP=TRUE
            -DCMAKE_ERROR_ON_ABSOLUTE_INSTALL_DESTINATION=ON
            -DCMAKE_INSTALL_LIBDIR:STRING=lib -DCMAKE_INSTALL_BINDIR:STRING=bin
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "vcpkg_cmake_configure: configuring failed")
  endif()
  # vcpkg reports the port's options that the project ignored.
  string(FIND "${out}" "Manually-specified variables were not used" unused_at)
  if(unused_at GREATER_EQUAL 0)
    string(SUBSTRING "${out}" ${unused_at} -1 unused)
    foreach(option IN LISTS arg_OPTIONS arg_OPTIONS_RELEASE)
      if(option MATCHES "^-D([^:=]+)" AND unused MATCHES "\n +${CMAKE_MATCH_1}\n")
        message(FATAL_ERROR "vcpkg_cmake_configure: the project does not use ${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endif()
endfunction()

# vcpkg_cmake_install: vcpkg builds the install target.
function(vcpkg_cmake_install)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${CURRENT_BUILDTREES_DIR}/${TARGET_TRIPLET}-rel" --target install
                  COMMAND_ERROR_IS_FATAL ANY)
endfunction()

# vcpkg_cmake_config_fixup: with the config already in share/<port> and no
# debug tree, vcpkg's function only rewrites absolute paths, of which there
# must be none.
function(vcpkg_cmake_config_fixup)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "PACKAGE_NAME;CONFIG_PATH" "")
  if(NOT arg_PACKAGE_NAME)
    set(arg_PACKAGE_NAME "${PORT}")
  endif()
  if(arg_CONFIG_PATH AND NOT arg_CONFIG_PATH STREQUAL "share/${arg_PACKAGE_NAME}")
    message(FATAL_ERROR "the stand-in does not move config files; install them to share/${arg_PACKAGE_NAME}")
  endif()
  file(GLOB configs "${CURRENT_PACKAGES_DIR}/share/${arg_PACKAGE_NAME}/*.cmake")
  if(NOT configs)
    message(FATAL_ERROR "vcpkg_cmake_config_fixup: no CMake files in share/${arg_PACKAGE_NAME}")
  endif()
endfunction()

# vcpkg_fixup_pkgconfig: the .pc files must exist where vcpkg looks.
function(vcpkg_fixup_pkgconfig)
  file(GLOB pcs "${CURRENT_PACKAGES_DIR}/lib/pkgconfig/*.pc" "${CURRENT_PACKAGES_DIR}/share/pkgconfig/*.pc")
  if(NOT pcs)
    message(FATAL_ERROR "vcpkg_fixup_pkgconfig: no .pc file in lib/pkgconfig or share/pkgconfig")
  endif()
endfunction()

# The post-build checks of vcpkg that apply to a header-only port.
function(tensorlib_vcpkg_post_build_checks)
  if(NOT VCPKG_POLICY_SKIP_COPYRIGHT_CHECK AND NOT EXISTS "${CURRENT_PACKAGES_DIR}/share/${PORT}/copyright")
    message(FATAL_ERROR "post-build check: share/${PORT}/copyright is missing")
  endif()
  if(EXISTS "${CURRENT_PACKAGES_DIR}/debug")
    message(FATAL_ERROR "post-build check: a release-only port must not install debug/")
  endif()
  file(GLOB_RECURSE entries LIST_DIRECTORIES true "${CURRENT_PACKAGES_DIR}/*")
  foreach(entry IN LISTS entries)
    if(IS_DIRECTORY "${entry}")
      file(GLOB content "${entry}/*")
      if(NOT content)
        message(FATAL_ERROR "post-build check: empty directory ${entry}")
      endif()
    else()
      file(READ "${entry}" text)
      string(FIND "${text}" "${CURRENT_PACKAGES_DIR}" at)
      if(at GREATER_EQUAL 0)
        message(FATAL_ERROR "post-build check: ${entry} contains the absolute path of the package")
      endif()
    endif()
  endforeach()
endfunction()
