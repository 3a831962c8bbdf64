# cmake -DPROGRAM=<exe> -DEXPECTED=<file> -DWHERE=<page:line> -P run_snippet.cmake
# Runs a doc snippet: it must exit 0, and when the page shows its output (EXPECTED
# exists), print exactly that (trailing blank lines aside).
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${WHERE}: the snippet exited with ${rc}")
endif()
if(EXISTS "${EXPECTED}")
  file(READ "${EXPECTED}" expected)
  string(REGEX REPLACE "[ \t\r\n]+$" "" expected "${expected}")
  string(REGEX REPLACE "[ \t\r\n]+$" "" out "${out}")
  if(NOT out STREQUAL expected)
    file(WRITE "${EXPECTED}.actual" "${out}\n")
    message(FATAL_ERROR "${WHERE}: the page shows output the snippet no longer prints.\n"
      "Shown:   ${EXPECTED}\nPrinted: ${EXPECTED}.actual\n"
      "(diff them; update the page's `text output` block, or the code)")
  endif()
endif()
