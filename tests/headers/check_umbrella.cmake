# cmake -DINCLUDE_DIR=<include> -P check_umbrella.cmake
# groundplane.hpp is only the sum of its parts: besides comments, #pragma once and the
# guard that skips the parts below C++20 (#if GROUNDPLANE_CPLUSPLUS >= 202002L ... #endif)
# it holds #include "groundplane/..." lines naming existing public headers, and it names
# every public header except these, which are reached another way:
#   groundplane/detail/  internals, included by the parts that use them
#   groundplane/mcp/     the MCP adapter, opt-in: #include <groundplane/mcp/server.hpp>
#   *-inl.hpp            a header's bodies, included by that header (or compiled into
#                        groundplane::compiled)
#   groundplane/store/   the durable ledger stores, opt-in with their own targets:
#                        #include <groundplane/store/sqlite.hpp> (groundplane::sqlite),
#                        #include <groundplane/store/postgres.hpp> (groundplane::postgres)
cmake_minimum_required(VERSION 3.25)
set(umbrella "${INCLUDE_DIR}/groundplane/groundplane.hpp")
file(STRINGS "${umbrella}" lines ENCODING UTF-8)

set(problems "")
set(included "")
foreach(line IN LISTS lines)
  if(line MATCHES "^[ \t]*$" OR line MATCHES "^[ \t]*//" OR line MATCHES "^#pragma once[ \t]*$")
    continue()
  endif()
  if(line MATCHES "^#if GROUNDPLANE_CPLUSPLUS >= 202002L[ \t]*$" OR line MATCHES "^#endif[ \t]*$")
    list(APPEND guard_lines "${line}")
    continue()
  endif()
  if(line MATCHES "^#include \"(groundplane/[^\"]+\\.hpp)\"[ \t]*$")
    set(header "${CMAKE_MATCH_1}")
    if(NOT EXISTS "${INCLUDE_DIR}/${header}")
      string(APPEND problems "  includes ${header}, which does not exist\n")
    elseif(header IN_LIST included)
      string(APPEND problems "  includes ${header} twice\n")
    endif()
    list(APPEND included "${header}")
    continue()
  endif()
  string(APPEND problems "  adds something of its own: ${line}\n")
endforeach()

file(GLOB_RECURSE headers RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/groundplane/*.hpp")
list(SORT headers)
set(count 0)
foreach(header IN LISTS headers)
  if(header STREQUAL "groundplane/groundplane.hpp" OR header MATCHES "^groundplane/(detail|mcp|store)/"
     OR header MATCHES "-inl\\.hpp$")
    continue()
  endif()
  math(EXPR count "${count} + 1")
  if(NOT header IN_LIST included)
    string(APPEND problems "  does not include the public header ${header}\n")
  endif()
endforeach()

list(LENGTH guard_lines guard_count)
if(NOT guard_count EQUAL 2)
  string(APPEND problems "  has ${guard_count} guard lines, not the one #if GROUNDPLANE_CPLUSPLUS and its #endif\n")
endif()

if(problems)
  message(FATAL_ERROR "groundplane/groundplane.hpp:\n${problems}")
endif()
message(STATUS "groundplane.hpp includes all ${count} public headers and nothing else")
