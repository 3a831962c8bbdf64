// groundplane::compiled: value rendering (quoting and escaping values for a message),
// compiled once (see detail/linkage.hpp).
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/render-inl.hpp"
