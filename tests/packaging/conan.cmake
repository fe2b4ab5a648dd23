# cmake -P script for the Conan test. Conan's home lives under WORK, so nothing
# depends on (or changes) the machine's Conan setup, and it has no remote, so
# nothing can be downloaded. Installs conan with pip (from PyPI) when it is
# missing.
# Prints each step's output, which ctest matches.
cmake_minimum_required(VERSION 3.21)
foreach(var SOURCE WORK PYTHON VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "conan.cmake: ${var} not set")
  endif()
endforeach()

# Runs a command and prints what it printed, both streams in order (so the
# steps below reach ctest in order), failing when the command fails.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed with ${rc}: ${ARGN}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK}")
set(ENV{CONAN_HOME} "${WORK}/home")

# A missing conan is installed into a virtual environment beside WORK, which
# works whether python3 is the system's (PEP 668 forbids pip there) or not.
find_program(CONAN conan)
if(NOT CONAN)
  set(venv "${WORK}-venv")
  if(NOT EXISTS "${venv}/bin/conan")
    run("${PYTHON}" -m venv "${venv}")
    run("${venv}/bin/python" -m pip install --quiet conan)
  endif()
  set(CONAN "${venv}/bin/conan")
endif()

run("${CONAN}" profile detect)
run("${CONAN}" remote remove "*")

# The detected profile has the compiler's default standard (gnu17 for g++ 12);
# tensorlib needs C++20. test_package builds outside the source tree.
set(cppstd -s compiler.cppstd=20)
set(test_folder tools.cmake.cmake_layout:test_folder)

# 1. conan create: export, package, build and run test_package.
run("${CONAN}" create "${SOURCE}" ${cppstd} -c ${test_folder}=${WORK}/test_package)

# 2. The same package (one package id for every configuration) with the cuda
#    option: test_package then links tensorlib::cuda.
if(CUDA)
  message("test_package with cuda=True:")
  run("${CONAN}" test "${SOURCE}/test_package" tensorlib/${VERSION} -o tensorlib/*:cuda=True --build=never
      ${cppstd} -c ${test_folder}=${WORK}/test_package_cuda)
endif()

# 3. validate() rejects a standard older than C++20, naming the requirement.
execute_process(COMMAND "${CONAN}" install --requires=tensorlib/${VERSION} -s compiler.cppstd=17
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "conan install with compiler.cppstd=17 succeeded; validate() must reject it")
endif()
message("cppstd 17 rejected: ${out}")
