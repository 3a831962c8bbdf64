// The library needs C++20 (concepts, designated initializers, std::span). Compiled as an
// older standard, one plain line says so, before the first C++20 construct would fail with
// an error far from the cause. MSVC keeps __cplusplus at 199711L unless /Zc:__cplusplus is
// given; _MSVC_LANG carries the standard it compiles.
#pragma once

#if defined(_MSVC_LANG)
#define GROUNDPLANE_CPLUSPLUS _MSVC_LANG
#else
#define GROUNDPLANE_CPLUSPLUS __cplusplus
#endif

#if GROUNDPLANE_CPLUSPLUS < 202002L
#error "groundplane needs C++20 (compile with -std=c++20 or later)"
#endif
