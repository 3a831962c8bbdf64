// The tools/list entries of gp::mcp::Protocol's tools: each tool's name, title,
// description, inputSchema, outputSchema and annotations, built in code member by member
// in the order a client reads them (tool_schemas-inl.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"

namespace groundplane::mcp::detail {

// The checker tools, in the order tools/list gives them: record_fact, record_ranking,
// record_table, record_domain, list_facts, check. Built once.
const nlohmann::ordered_json& checker_tool_definitions();

// The tools a Session adds after them: whats_here and do_action (the names, descriptions
// and input schemas are gp::AgentPort's own), then record_ledger. Built once.
const nlohmann::ordered_json& session_tool_definitions();

}  // namespace groundplane::mcp::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/mcp/tool_schemas-inl.hpp"
#endif
