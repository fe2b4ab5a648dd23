# Build module of the Conan package, included by the tensorlib-config.cmake that
# CMakeDeps generates: defines the components named in find_package(tensorlib
# COMPONENTS ...), plus those the package's options ask for, with the same code
# and the same failure messages as tensorlib's own package config.
include("${CMAKE_CURRENT_LIST_DIR}/tensorlibComponents.cmake")
tensorlib_find_components(${TENSORLIB_CONAN_COMPONENTS})
