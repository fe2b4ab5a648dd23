# cmake -P script for one packaging test: configures the consumer project
# SOURCE afresh in BINARY with CONFIGURE_ARGS and the tensorlib COMPONENTS its
# 'components' program links, builds it and runs its programs, whose output is
# what ctest matches. With EXPECT_FAILURE the configure step must fail instead
# (ctest matches its message).
cmake_minimum_required(VERSION 3.21)
foreach(var SOURCE BINARY GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer.cmake: ${var} not set")
  endif()
endforeach()

file(REMOVE_RECURSE "${BINARY}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${BINARY}" -G "${GENERATOR}" ${CONFIGURE_ARGS}
                        "-DCONSUMER_COMPONENTS=${COMPONENTS}"
                RESULT_VARIABLE rc)
if(EXPECT_FAILURE)
  if(rc EQUAL 0)
    message(FATAL_ERROR "the consumer configured, but it must fail")
  endif()
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY}" COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${BINARY}/app" COMMAND_ERROR_IS_FATAL ANY)
if(COMPONENTS)
  execute_process(COMMAND "${BINARY}/components" COMMAND_ERROR_IS_FATAL ANY)
endif()
