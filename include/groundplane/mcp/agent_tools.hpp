// The tools gp::mcp::Protocol serves over an app's Session: whats_here, do_action and did_it_work,
// the bridge to the session's gp::AgentPort (the port decides every answer; this layer
// only makes it a CallToolResult), and record_ledger, which records the session's
// attempts as a table fact for an actions_performed check.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "groundplane/agent_port.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/session.hpp"

namespace groundplane::mcp::detail {

// whats_here, do_action or did_it_work: the names AgentPort serves.
inline bool is_agent_tool(std::string_view name) {
  return name == "whats_here" || name == "do_action" || name == "did_it_work";
}

// The port's answer as a CallToolResult: its text (facts first) and structuredContent in
// the text's order. An action's handler that throws is the app's bug, already on the
// ledger, which the model cannot fix: an error result, and `failure` says what to log
// (empty when the app did not fail).
nlohmann::ordered_json call_agent_tool(AgentPort& port, std::string_view name, const nlohmann::ordered_json& args,
                                       std::string& failure);

// record_ledger {name}: every attempt the session has seen so far as a write-once table
// fact (gp::record_ledger), answered as the record_* tools are.
nlohmann::ordered_json record_session_ledger(const nlohmann::ordered_json& args, FactRegistry& registry,
                                             const Session& session);

}  // namespace groundplane::mcp::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/mcp/agent_tools-inl.hpp"
#endif
