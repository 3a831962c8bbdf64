// groundplane::compiled: decimals from floating point, the facts, the registry, the schema
// builder and tolerances, compiled once (see detail/linkage.hpp).
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/decimal-inl.hpp"
#include "groundplane/detail/facts/column-inl.hpp"
#include "groundplane/detail/facts/column_summary-inl.hpp"
#include "groundplane/detail/text/unicode-inl.hpp"
#include "groundplane/entity-inl.hpp"
#include "groundplane/facts-inl.hpp"
#include "groundplane/registry-inl.hpp"
#include "groundplane/schema-inl.hpp"
#include "groundplane/tolerance-inl.hpp"
#include "groundplane/tool_args-inl.hpp"
