// groundplane::compiled: the ground-truth block and value rendering, compiled once (see detail/linkage.hpp).
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/ground_truth-inl.hpp"
#include "groundplane/render-inl.hpp"
