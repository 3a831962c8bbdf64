# Shared by the consumer projects: the program, built warning-free, expecting the
# version of the tree under test (so a stale install or the wrong tree is caught).
set(_groundplane_consumer_dir "${CMAKE_CURRENT_LIST_DIR}")
set(GROUNDPLANE_EXPECTED_VERSION "" CACHE STRING "the groundplane version the consumer must see")
function(groundplane_consumer name)  # [target]: groundplane::groundplane unless named
  set(target groundplane::groundplane)
  if(ARGC GREATER 1)
    set(target "${ARGV1}")
  endif()
  add_executable(${name} "${_groundplane_consumer_dir}/consumer.cpp")
  target_link_libraries(${name} PRIVATE ${target})
  target_compile_definitions(${name} PRIVATE GROUNDPLANE_CONSUMER_EXPECTED_VERSION="${GROUNDPLANE_EXPECTED_VERSION}")
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${name} PRIVATE -Wall -Wextra -Wpedantic -Werror)
  endif()
endfunction()
