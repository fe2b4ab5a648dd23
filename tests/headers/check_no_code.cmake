# Fails when the object file OBJECT defines a symbol, listing them
# (tests/headers/umbrella_emits_no_code.cpp). Run with -DNM=... -DOBJECT=...
execute_process(COMMAND ${NM} --defined-only -C ${OBJECT} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${OBJECT}")
endif()
# Code and data: functions (T, t, W, w), vtables and other vague-linkage
# objects (V, u), variables (D, d, B, b). Read-only constants (r) are left
# out: g++ at -O0 keeps libstdc++'s unused `static const`s.
string(REGEX MATCHALL "[0-9a-f]+ [TtWwDdBbVu] [^\n]*" defined "${symbols}")
list(LENGTH defined count)
if(count GREATER 0)
  list(SUBLIST defined 0 20 shown)
  list(JOIN shown "\n  " shown)
  message(FATAL_ERROR "including the umbrella header defined ${count} symbols, among them:\n  ${shown}")
endif()
message(STATUS "${OBJECT}: no code")
