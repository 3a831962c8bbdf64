# groundplane::compiled — the same headers and API, with the heavy non-template bodies
# (the session, the check-spec reader, the exact JSON reader for nlohmann::json, ...)
# compiled once into a static library instead of in every translation unit that
# includes them (the layout spdlog and {fmt} offer). Linking it defines
# GROUNDPLANE_COMPILED_LIB for the consumer, which makes the headers declare those bodies
# instead of including their `-inl.hpp` parts.
#
# GROUNDPLANE_COMPILED=ON builds it; our own examples and tools then link it instead of
# the header-only target, and so do the tests unless GROUNDPLANE_COMPILED_TESTS is OFF
# (the dev and asan presets: everything on the library; the tsan preset leaves
# GROUNDPLANE_COMPILED off, and its tests are header-only).
option(GROUNDPLANE_COMPILED "Build groundplane::compiled, the static-library mode" OFF)
option(GROUNDPLANE_COMPILED_TESTS "With GROUNDPLANE_COMPILED, the tests link groundplane::compiled too (OFF: header-only)" ON)

# The library's compiled bodies: the static library's sources, and the fuzz harnesses'
# instrumented copy (fuzz/CMakeLists.txt).
set(GROUNDPLANE_COMPILED_SOURCES
  "${PROJECT_SOURCE_DIR}/src/agent_port.cpp"
  "${PROJECT_SOURCE_DIR}/src/boundary.cpp"
  "${PROJECT_SOURCE_DIR}/src/check_from_json.cpp"
  "${PROJECT_SOURCE_DIR}/src/checks.cpp"
  "${PROJECT_SOURCE_DIR}/src/facts.cpp"
  "${PROJECT_SOURCE_DIR}/src/ground_truth.cpp"
  "${PROJECT_SOURCE_DIR}/src/json_schema.cpp"
  "${PROJECT_SOURCE_DIR}/src/json_text.cpp"
  "${PROJECT_SOURCE_DIR}/src/mcp.cpp"
  "${PROJECT_SOURCE_DIR}/src/render.cpp"
  "${PROJECT_SOURCE_DIR}/src/session.cpp")

# What our own programs (examples, tools, fuzz replays) and tests link.
set(GROUNDPLANE_LINK_TARGET groundplane::groundplane)
set(GROUNDPLANE_TEST_LINK_TARGET groundplane::groundplane)
if(GROUNDPLANE_COMPILED)
  add_library(groundplane_compiled STATIC ${GROUNDPLANE_COMPILED_SOURCES})
  add_library(groundplane::compiled ALIAS groundplane_compiled)
  set_target_properties(groundplane_compiled PROPERTIES
    EXPORT_NAME compiled
    OUTPUT_NAME groundplane
    POSITION_INDEPENDENT_CODE ON)
  target_compile_definitions(groundplane_compiled PUBLIC GROUNDPLANE_COMPILED_LIB)
  target_link_libraries(groundplane_compiled PUBLIC groundplane)
  set(GROUNDPLANE_LINK_TARGET groundplane::compiled)
  if(GROUNDPLANE_COMPILED_TESTS)
    set(GROUNDPLANE_TEST_LINK_TARGET groundplane::compiled)
  endif()
endif()
