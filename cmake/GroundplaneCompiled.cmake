# groundplane::compiled — the same headers and API, with the heavy non-template bodies
# (the session, the check-spec reader, the exact JSON reader for nlohmann::json, ...)
# compiled once into a static library instead of in every translation unit that
# includes them (the layout spdlog and {fmt} offer). Linking it defines
# GROUNDPLANE_COMPILED_LIB for the consumer, which makes the headers declare those bodies
# instead of including their `-inl.hpp` parts.
#
# GROUNDPLANE_COMPILED=ON builds it; our own tests, examples and tools then link it
# instead of the header-only target, so the suite runs in that mode too.
option(GROUNDPLANE_COMPILED "Build groundplane::compiled, the static-library mode" OFF)

if(GROUNDPLANE_COMPILED)
  add_library(groundplane_compiled STATIC
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
  add_library(groundplane::compiled ALIAS groundplane_compiled)
  set_target_properties(groundplane_compiled PROPERTIES
    EXPORT_NAME compiled
    OUTPUT_NAME groundplane
    POSITION_INDEPENDENT_CODE ON)
  target_compile_definitions(groundplane_compiled PUBLIC GROUNDPLANE_COMPILED_LIB)
  target_link_libraries(groundplane_compiled PUBLIC groundplane)
  # What our own tests, examples and tools link: the mode this build tree tests.
  set(GROUNDPLANE_LINK_TARGET groundplane::compiled)
else()
  set(GROUNDPLANE_LINK_TARGET groundplane::groundplane)
endif()
