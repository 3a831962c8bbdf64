// groundplane's claims half: facts and their registry, the boundary that judges a model's
// reply, the seven checks over facts, verdicts and re-asks, prose with checked slots and
// the claim stream. It reaches nothing of the app's record (the session, its ledger, the
// stores, MCP, the JSON Schema validator): a test fails when it does
// (tests/headers/check_halves.cmake). The app's record is app.hpp; both, groundplane.hpp.
#pragma once

// Compiled as C++17 or older, this include's #error is the one error: the parts below are
// skipped rather than each failing on its first C++20 construct.
#include "groundplane/detail/language_standard.hpp"
#if GROUNDPLANE_CPLUSPLUS >= 202002L

#include "groundplane/any_check.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/check.hpp"
#include "groundplane/check_support.hpp"
#include "groundplane/checks/aggregate_reconciles.hpp"
#include "groundplane/checks/comparison.hpp"
#include "groundplane/checks/entities_recorded.hpp"
#include "groundplane/checks/field_matches_fact.hpp"
#include "groundplane/checks/ranking_prefix.hpp"
#include "groundplane/checks/row_integrity.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/claim_stream.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/entity.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/json_text.hpp"
#include "groundplane/reask.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/tolerance.hpp"
#include "groundplane/tool_args.hpp"
#include "groundplane/verdict.hpp"
#include "groundplane/version.hpp"

#endif
