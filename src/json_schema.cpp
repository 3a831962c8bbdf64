// groundplane::compiled: gp::JsonSchema's bodies (compiling a schema, validating a
// payload), compiled once (see detail/linkage.hpp).
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/detail/json/json_schema_check-inl.hpp"
#include "groundplane/json_schema-inl.hpp"
