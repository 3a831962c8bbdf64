// groundplane::compiled: the eight checks' bodies, compiled once (see detail/linkage.hpp).
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/checks/actions_performed-inl.hpp"
#include "groundplane/checks/aggregate_reconciles-inl.hpp"
#include "groundplane/checks/comparison-inl.hpp"
#include "groundplane/checks/entities_recorded-inl.hpp"
#include "groundplane/checks/field_matches_fact-inl.hpp"
#include "groundplane/checks/ranking_prefix-inl.hpp"
#include "groundplane/checks/row_integrity-inl.hpp"
#include "groundplane/checks/superlative-inl.hpp"
#include "groundplane/detail/checks/ranked-inl.hpp"
