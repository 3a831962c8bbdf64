# cmake -DINCLUDE_DIR=<include> -P check_halves.cmake
# claims.hpp reaches no header of the app's half: a file that checks a model's claims
# never parses the session, its ledger, the stores, MCP or the JSON Schema validator.
#
# The app's headers are those app.hpp names, their -inl.hpp parts, and every header under
# groundplane/store/, groundplane/mcp/, groundplane/detail/session/,
# groundplane/detail/ledger/ and groundplane/detail/json/json_schema*. What claims.hpp
# reaches is read off the #include "groundplane/..." lines of every header it reaches,
# -inl.hpp parts included and inside any #if as well: the strictest reading, so an include
# that only some configuration takes still fails here. A failure prints the chain of
# includes that leads to the app's header.
cmake_minimum_required(VERSION 3.25)

# Sets ${out} to the groundplane headers `header` includes, on any line.
function(_gp_includes header out)
  set(found "")
  if(EXISTS "${INCLUDE_DIR}/${header}")
    file(STRINGS "${INCLUDE_DIR}/${header}" lines REGEX "^#[ \t]*include[ \t]*[<\"]groundplane/")
    foreach(line IN LISTS lines)
      if(line MATCHES "^#[ \t]*include[ \t]*[<\"](groundplane/[^>\"]+)[>\"]")
        list(APPEND found "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endif()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

_gp_includes(groundplane/app.hpp app_parts)
set(app_headers "groundplane/app.hpp")
foreach(part IN LISTS app_parts)
  string(REGEX REPLACE "\\.hpp$" "-inl.hpp" inl "${part}")
  list(APPEND app_headers "${part}" "${inl}")
endforeach()
list(REMOVE_ITEM app_headers groundplane/detail/language_standard.hpp)
set(app_folders "^groundplane/(store|mcp|detail/session|detail/ledger)/|^groundplane/detail/json/json_schema")

# Breadth first from claims.hpp, each header's first includer kept for the chain.
set(queue groundplane/claims.hpp)
set(seen groundplane/claims.hpp)
set(problems "")
while(queue)
  list(POP_FRONT queue header)
  _gp_includes(${header} included)
  foreach(next IN LISTS included)
    if(next IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${next}")
    set("_gp_from_${next}" "${header}")
    if(next IN_LIST app_headers OR next MATCHES "${app_folders}")
      set(chain "${next}")
      set(at "${next}")
      while(DEFINED "_gp_from_${at}")
        set(at "${_gp_from_${at}}")
        string(PREPEND chain "${at} -> ")
      endwhile()
      string(APPEND problems "  ${chain}\n")
    else()
      list(APPEND queue "${next}")
    endif()
  endforeach()
endwhile()

if(problems)
  message(FATAL_ERROR "claims.hpp reaches the app's half:\n${problems}")
endif()
list(LENGTH seen count)
message(STATUS "claims.hpp reaches ${count} headers, none of the app's half")
