# Overlay port built from the checkout it lives in:
#   vcpkg install tensorlib --overlay-ports=<checkout>/packaging/vcpkg
# A registry port would fetch a release with vcpkg_from_github instead.
# tests/packaging/vcpkg/run_port.cmake runs this file with stand-ins for the
# vcpkg functions it calls.

set(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../../..")
# Header-only: one configuration is the whole package.
set(VCPKG_BUILD_TYPE release)
# The checkout has no license file yet; when it has one, install it with
# vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE") and drop this.
set(VCPKG_POLICY_SKIP_COPYRIGHT_CHECK enabled)

# The cuda feature changes no file: it brings in vcpkg's cuda port, and the
# consumer asks for the component with find_package(... COMPONENTS cuda).
vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    -DTENSORLIB_BUILD_TESTS=OFF
    -DTENSORLIB_BUILD_BENCHMARKS=OFF
    -DTENSORLIB_BUILD_EXAMPLES=OFF
    "-DTENSORLIB_INSTALL_CMAKEDIR=share/${PORT}"
)
vcpkg_cmake_install()
vcpkg_cmake_config_fixup()
vcpkg_fixup_pkgconfig()

file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
