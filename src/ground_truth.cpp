// groundplane::compiled: the ground-truth block, compiled once (see detail/linkage.hpp).
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/ground_truth-inl.hpp"
