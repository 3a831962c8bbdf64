// groundplane's app half: the session and the record it keeps (the ledger, ground truth),
// the agent port, action input schemas, `actions_performed` (the check over the ledger)
// and what joins the halves (`check_from_json`, which names every check). The claims
// half is claims.hpp; both, groundplane.hpp. The durable stores and MCP are opt-in:
// <groundplane/store/sqlite.hpp>, <groundplane/store/postgres.hpp>, <groundplane/mcp/...>.
#pragma once

// Compiled as C++17 or older, this include's #error is the one error: the parts below are
// skipped rather than each failing on its first C++20 construct.
#include "groundplane/detail/language_standard.hpp"
#if GROUNDPLANE_CPLUSPLUS >= 202002L

#include "groundplane/action.hpp"
#include "groundplane/action_data.hpp"
#include "groundplane/agent_port.hpp"
#include "groundplane/check_from_json.hpp"
#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/ground_truth.hpp"
#include "groundplane/json_schema.hpp"
#include "groundplane/ledger.hpp"
#include "groundplane/ledger_fact.hpp"
#include "groundplane/session.hpp"
#include "groundplane/session_options.hpp"

#endif
