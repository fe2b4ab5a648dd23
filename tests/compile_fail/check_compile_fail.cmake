# Compiles SOURCE twice: without TENSORLIB_COMPILE_FAIL it must compile (the
# control), with it it must fail with a message matching EXPECT. PCH (g++
# only): a header to -include whose precompiled form lies beside it.
# With PCH_HEADER set instead, precompiles PCH_HEADER into PCH_HEADER.gch with
# the same flags (tests/CMakeLists.txt builds it once for every check).
foreach(var COMPILER INCLUDE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_compile_fail.cmake: ${var} not set")
  endif()
endforeach()
set(flags -std=c++20 -Wall -Wextra -Wpedantic -Wshadow -Werror -I${INCLUDE})

if(DEFINED PCH_HEADER)
  execute_process(COMMAND ${COMPILER} ${flags} -x c++-header ${PCH_HEADER} -o ${PCH_HEADER}.gch -MD -MF
                          ${PCH_HEADER}.gch.d RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "precompiling ${PCH_HEADER} failed:\n${err}")
  endif()
  return()
endif()

foreach(var SOURCE EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_compile_fail.cmake: ${var} not set")
  endif()
endforeach()
list(APPEND flags -fsyntax-only)
if(PCH)
  # -Winvalid-pch (an error under -Werror): a .gch built with other flags
  # fails the check instead of being skipped silently (its DEPFILE rebuilds it
  # when a header changes).
  list(APPEND flags -include ${PCH} -Winvalid-pch)
endif()
execute_process(COMMAND ${COMPILER} ${flags} ${SOURCE} RESULT_VARIABLE ok_rc ERROR_VARIABLE ok_err)
if(NOT ok_rc EQUAL 0)
  message(FATAL_ERROR "control compile of ${SOURCE} failed:\n${ok_err}")
endif()
execute_process(COMMAND ${COMPILER} ${flags} -DTENSORLIB_COMPILE_FAIL ${SOURCE} RESULT_VARIABLE bad_rc
                ERROR_VARIABLE bad_err)
if(bad_rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled with TENSORLIB_COMPILE_FAIL; it must not")
endif()
if(NOT bad_err MATCHES "${EXPECT}")
  message(FATAL_ERROR "${SOURCE} failed, but without the expected message '${EXPECT}':\n${bad_err}")
endif()
message(STATUS "${SOURCE}: rejected with the expected message")
