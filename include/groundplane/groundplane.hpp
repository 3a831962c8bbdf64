// groundplane — declared facts, checked claims, and the app's record that outranks the
// conversation. The umbrella header: every part also has its own header.
#pragma once

// Compiled as C++17 or older, this include's #error is the one error: the parts below are
// skipped rather than each failing on its first C++20 construct.
#include "groundplane/detail/language_standard.hpp"
#if GROUNDPLANE_CPLUSPLUS >= 202002L

#include "groundplane/action.hpp"
#include "groundplane/action_data.hpp"
#include "groundplane/agent_port.hpp"
#include "groundplane/any_check.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/check.hpp"
#include "groundplane/check_from_json.hpp"
#include "groundplane/check_support.hpp"
#include "groundplane/checks/actions_performed.hpp"
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
#include "groundplane/ground_truth.hpp"
#include "groundplane/json_schema.hpp"
#include "groundplane/json_text.hpp"
#include "groundplane/ledger.hpp"
#include "groundplane/reask.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/session.hpp"
#include "groundplane/session_options.hpp"
#include "groundplane/tolerance.hpp"
#include "groundplane/tool_args.hpp"
#include "groundplane/verdict.hpp"
#include "groundplane/version.hpp"

#endif
