# Warning flags for groundplane's own tests and examples (never imposed on consumers).
add_library(groundplane_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  # -Wconversion and -Wsign-conversion because many users build with them: the headers must
  # stay clean under them.
  target_compile_options(groundplane_warnings INTERFACE -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion
    $<$<BOOL:${GROUNDPLANE_WARNINGS_AS_ERRORS}>:-Werror>)
elseif(MSVC)
  target_compile_options(groundplane_warnings INTERFACE /W4 /permissive-
    $<$<BOOL:${GROUNDPLANE_WARNINGS_AS_ERRORS}>:/WX>)
endif()
