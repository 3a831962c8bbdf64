// How the library's heavy bodies are linked. By default the library is header-only: each
// header that has an `-inl.hpp` part includes it, and GROUNDPLANE_INLINE is `inline`.
// Define GROUNDPLANE_COMPILED_LIB (the groundplane::compiled CMake target does) and the
// headers only declare those bodies; the target's static library compiles them once, so
// a translation unit that includes a header no longer parses, instantiates and emits
// them.
#pragma once

#if defined(GROUNDPLANE_COMPILED_LIB)
#undef GROUNDPLANE_HEADER_ONLY
#define GROUNDPLANE_INLINE
#else
#define GROUNDPLANE_HEADER_ONLY
#define GROUNDPLANE_INLINE inline
#endif
