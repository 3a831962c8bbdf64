// How the library's heavy bodies are linked. By default the library is header-only: each
// header that has an `-inl.hpp` part includes it, and GROUNDPLANE_INLINE is `inline`.
// Define GROUNDPLANE_COMPILED_LIB (the groundplane::compiled CMake target does) and the
// headers only declare those bodies; the target's static library compiles them once, so
// a translation unit that includes a header no longer parses, instantiates and emits
// them.
//
// GROUNDPLANE_ON_CALL / GROUNDPLANE_ON_CALL_DEF mark a header-only body that a file should
// pay for only when it calls it. Declared as a function template whose one parameter is
// never named (a template in form only), its body and everything the body instantiates
// are compiled in the files that call it, not in every file that includes the header: an
// ordinary inline function's body is instantiated wherever it is seen. Calls read the
// same either way; in the compiled mode the macros are empty and the function is plain.
// Only naming one as a value differs: header-only, `&gp::check_from_json` or passing the
// bare name where a callable is taken needs a target type (a function pointer type, or a
// lambda that calls it).
#pragma once

// Every header reaches this one, so the language-standard check runs before any of them.
#include "groundplane/detail/language_standard.hpp"

#if defined(GROUNDPLANE_COMPILED_LIB)
#undef GROUNDPLANE_HEADER_ONLY
#define GROUNDPLANE_INLINE
#define GROUNDPLANE_ON_CALL
#define GROUNDPLANE_ON_CALL_DEF
#else
#define GROUNDPLANE_HEADER_ONLY
#define GROUNDPLANE_INLINE inline
#define GROUNDPLANE_ON_CALL template <class = void>
#define GROUNDPLANE_ON_CALL_DEF template <class>
#endif
