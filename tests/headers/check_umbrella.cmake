# cmake -DINCLUDE_DIR=<include> -P check_umbrella.cmake
# The three umbrellas are only the sum of their parts. groundplane.hpp includes the two
# halves, claims.hpp and app.hpp, and nothing else; each half holds, besides comments,
# #pragma once and the guard that skips the parts below C++20 (#if GROUNDPLANE_CPLUSPLUS
# >= 202002L ... #endif), only #include "groundplane/..." lines naming existing public
# headers. Between them the halves name every public header once, except these, which
# are reached another way:
#   groundplane/detail/  internals, included by the parts that use them
#   groundplane/mcp/     the MCP adapter, opt-in: #include <groundplane/mcp/server.hpp>
#   *-inl.hpp            a header's bodies, included by that header (or compiled into
#                        groundplane::compiled)
#   groundplane/store/   the durable ledger stores, opt-in with their own targets:
#                        #include <groundplane/store/sqlite.hpp> (groundplane::sqlite),
#                        #include <groundplane/store/postgres.hpp> (groundplane::postgres)
# Which half a header belongs to, and that claims.hpp reaches nothing of the app's, is
# check_halves.cmake's.
cmake_minimum_required(VERSION 3.25)

set(umbrellas groundplane/groundplane.hpp groundplane/claims.hpp groundplane/app.hpp)
set(problems "")
set(named_by_halves "")

# Sets ${out} to the headers `umbrella` includes, appending what is wrong with it to
# `problems` in the caller.
function(_gp_umbrella_parts umbrella out)
  file(STRINGS "${INCLUDE_DIR}/${umbrella}" lines ENCODING UTF-8)
  set(parts "")
  set(guard_lines 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*$" OR line MATCHES "^[ \t]*//" OR line MATCHES "^#pragma once[ \t]*$")
      continue()
    endif()
    if(line MATCHES "^#if GROUNDPLANE_CPLUSPLUS >= 202002L[ \t]*$" OR line MATCHES "^#endif[ \t]*$")
      math(EXPR guard_lines "${guard_lines} + 1")
      continue()
    endif()
    if(line MATCHES "^#include \"(groundplane/[^\"]+\\.hpp)\"[ \t]*$")
      set(header "${CMAKE_MATCH_1}")
      if(header STREQUAL "groundplane/detail/language_standard.hpp")
        continue()  # the guard's own include, before the #if
      elseif(NOT EXISTS "${INCLUDE_DIR}/${header}")
        string(APPEND problems "  ${umbrella} includes ${header}, which does not exist\n")
      elseif(header IN_LIST parts)
        string(APPEND problems "  ${umbrella} includes ${header} twice\n")
      endif()
      list(APPEND parts "${header}")
      continue()
    endif()
    string(APPEND problems "  ${umbrella} adds something of its own: ${line}\n")
  endforeach()
  if(NOT guard_lines EQUAL 2)
    string(APPEND problems "  ${umbrella} has ${guard_lines} guard lines, not the one #if GROUNDPLANE_CPLUSPLUS and its #endif\n")
  endif()
  set(problems "${problems}" PARENT_SCOPE)
  set(${out} "${parts}" PARENT_SCOPE)
endfunction()

_gp_umbrella_parts(groundplane/groundplane.hpp whole)
if(NOT whole STREQUAL "groundplane/app.hpp;groundplane/claims.hpp")
  string(APPEND problems "  groundplane/groundplane.hpp includes ${whole}, not the two halves app.hpp and claims.hpp\n")
endif()
foreach(half IN ITEMS groundplane/claims.hpp groundplane/app.hpp)
  _gp_umbrella_parts(${half} parts)
  foreach(part IN LISTS parts)
    if(part IN_LIST named_by_halves)
      string(APPEND problems "  ${part} is in both halves\n")
    elseif(part IN_LIST umbrellas)
      string(APPEND problems "  ${half} includes the umbrella ${part}\n")
    endif()
    list(APPEND named_by_halves "${part}")
  endforeach()
endforeach()

file(GLOB_RECURSE headers RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/groundplane/*.hpp")
list(SORT headers)
set(count 0)
foreach(header IN LISTS headers)
  if(header IN_LIST umbrellas OR header MATCHES "^groundplane/(detail|mcp|store)/" OR header MATCHES "-inl\\.hpp$")
    continue()
  endif()
  math(EXPR count "${count} + 1")
  if(NOT header IN_LIST named_by_halves)
    string(APPEND problems "  neither claims.hpp nor app.hpp includes the public header ${header}\n")
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "groundplane's umbrella headers:\n${problems}")
endif()
message(STATUS "claims.hpp and app.hpp include all ${count} public headers once between them, "
               "groundplane.hpp the two, and nothing else")
