// groundplane — declared facts, checked claims, and the app's record that outranks the
// conversation. The umbrella header: both halves, claims.hpp and app.hpp; every part
// also has its own header.
#pragma once

// Compiled as C++17 or older, this include's #error is the one error: the parts below are
// skipped rather than each failing on its first C++20 construct.
#include "groundplane/detail/language_standard.hpp"
#if GROUNDPLANE_CPLUSPLUS >= 202002L

#include "groundplane/app.hpp"
#include "groundplane/claims.hpp"

#endif
