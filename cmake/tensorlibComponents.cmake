# tensorlib's optional components: interface targets that add a dependency's
# link line (and a switch macro) on top of tensorlib::tensorlib, which itself
# never gets them. What they link is found on the consumer's machine, at the
# consumer's configure time, so this file is installed with the package config
# and used from four places: the installed config, the build tree's config,
# the top-level CMakeLists.txt (add_subdirectory / FetchContent users, through
# TENSORLIB_COMPONENTS) and the Conan build module.
#
#   tensorlib::cuda    CUDA runtime, cuBLAS, cuBLASLt, and cuDNN when it is found;
#                      defines TENSORLIB_CUDA
#   tensorlib::openmp  OpenMP::OpenMP_CXX
#   tensorlib::blas    BLAS::BLAS; defines TENSORLIB_USE_BLAS
include_guard(GLOBAL)

# tensorlib_add_component(<name> <IMPORTED|BUILD> <reason-var>)
# Defines tensorlib::<name> unless it already exists in this directory: an
# IMPORTED target for package configs, a normal target with an ALIAS for
# subprojects (so its link items resolve in tensorlib's own directory).
# Sets <reason-var> to "" on success, otherwise to a sentence saying what is
# missing and how to point CMake at it.
function(tensorlib_add_component name kind reason_var)
  set(${reason_var} "" PARENT_SCOPE)
  if(TARGET tensorlib::${name})
    return()
  endif()
  set(libs "")
  set(defs "")
  set(includes "")
  if(name STREQUAL "cuda")
    find_package(CUDAToolkit QUIET)
    if(NOT CUDAToolkit_FOUND)
      set(${reason_var}
          "tensorlib component 'cuda' needs the CUDA toolkit, and find_package(CUDAToolkit) did not find it: install it, or set CUDAToolkit_ROOT to its directory (or put its nvcc on PATH)"
          PARENT_SCOPE)
      return()
    endif()
    set(libs CUDA::cudart CUDA::cublas CUDA::cublasLt CUDA::cufft)
    set(defs TENSORLIB_CUDA)
    # cuDNN ships apart from the toolkit and has no CMake package of its own:
    # look beside the toolkit first, then on the system paths.
    find_library(TENSORLIB_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
    find_path(TENSORLIB_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    if(TENSORLIB_CUDNN_LIBRARY AND TENSORLIB_CUDNN_INCLUDE_DIR)
      list(APPEND libs ${TENSORLIB_CUDNN_LIBRARY})
      list(APPEND includes ${TENSORLIB_CUDNN_INCLUDE_DIR})
    endif()
  elseif(name STREQUAL "openmp")
    find_package(OpenMP QUIET COMPONENTS CXX)
    if(NOT OpenMP_CXX_FOUND)
      set(${reason_var}
          "tensorlib component 'openmp' needs OpenMP for C++, and find_package(OpenMP) did not find it for ${CMAKE_CXX_COMPILER_ID} (clang needs libomp)"
          PARENT_SCOPE)
      return()
    endif()
    set(libs OpenMP::OpenMP_CXX)
  elseif(name STREQUAL "blas")
    find_package(BLAS QUIET)
    if(NOT BLAS_FOUND)
      set(${reason_var}
          "tensorlib component 'blas' needs a BLAS library, and find_package(BLAS) did not find one: install one (e.g. OpenBLAS), or set BLA_VENDOR / CMAKE_PREFIX_PATH"
          PARENT_SCOPE)
      return()
    endif()
    set(libs BLAS::BLAS)
    set(defs TENSORLIB_USE_BLAS)
  else()
    set(${reason_var} "tensorlib has no component '${name}'; its components are cuda, openmp and blas"
        PARENT_SCOPE)
    return()
  endif()

  if(kind STREQUAL "IMPORTED")
    add_library(tensorlib::${name} INTERFACE IMPORTED)
    set(target tensorlib::${name})
  else()
    add_library(tensorlib_${name} INTERFACE)
    add_library(tensorlib::${name} ALIAS tensorlib_${name})
    set(target tensorlib_${name})
  endif()
  target_link_libraries(${target} INTERFACE tensorlib::tensorlib ${libs})
  target_compile_definitions(${target} INTERFACE ${defs})
  if(name STREQUAL "cuda")
    # Kernels call constexpr standard functions (std::min, std::apply, ...).
    # C++20 is given as a flag: CMake 3.25 does not know nvcc 13's features.
    target_compile_options(${target} INTERFACE
      $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20 --expt-relaxed-constexpr>)
  endif()
  target_include_directories(${target} INTERFACE ${includes})
endfunction()

# tensorlib_find_components([<always-required>...])
# For package configs: defines each component named in
# find_package(tensorlib COMPONENTS ...) (required) or OPTIONAL_COMPONENTS, plus
# the ones passed here (required), and reports the way find_package expects:
# tensorlib_<name>_FOUND per component; tensorlib_FOUND false with
# tensorlib_NOT_FOUND_MESSAGE when a required one is missing. A macro, because
# those variables belong to the scope of the config file.
macro(tensorlib_find_components)
  set(_tensorlib_always ${ARGN})
  foreach(_tensorlib_name IN LISTS tensorlib_FIND_COMPONENTS _tensorlib_always)
    tensorlib_add_component(${_tensorlib_name} IMPORTED _tensorlib_reason)
    if(_tensorlib_reason STREQUAL "")
      set(tensorlib_${_tensorlib_name}_FOUND TRUE)
    else()
      set(tensorlib_${_tensorlib_name}_FOUND FALSE)
      if(tensorlib_FIND_REQUIRED_${_tensorlib_name} OR _tensorlib_name IN_LIST _tensorlib_always)
        set(tensorlib_FOUND FALSE)
        string(APPEND tensorlib_NOT_FOUND_MESSAGE "${_tensorlib_reason}. ")
      elseif(NOT tensorlib_FIND_QUIETLY)
        message(STATUS "${_tensorlib_reason}")
      endif()
    endif()
  endforeach()
endmacro()
