// groundplane::compiled: what a Boundary does whatever checks it holds, and the findings and
// errors it reports, compiled once (see detail/linkage.hpp).
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/boundary-inl.hpp"
#include "groundplane/claim_stream-inl.hpp"
#include "groundplane/detail/checks/check_run-inl.hpp"
#include "groundplane/detail/checks/prose-inl.hpp"
#include "groundplane/detail/json/json_push_reader-inl.hpp"
#include "groundplane/errors-inl.hpp"
#include "groundplane/finding-inl.hpp"
#include "groundplane/verdict-inl.hpp"
