// The bodies of mcp/agent_tools.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/mcp/agent_tools.hpp"

#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/detail/json/deep_json.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/mcp/checker_tools.hpp"
#include "groundplane/mcp/tool_arguments.hpp"
#include "groundplane/mcp/tool_result.hpp"

namespace groundplane::mcp::detail {

GROUNDPLANE_INLINE nlohmann::ordered_json call_agent_tool(AgentPort& port, std::string_view name,
                                                          const nlohmann::ordered_json& args, std::string& failure) {
  using groundplane::detail::escape;
  try {
    // Converted without recursion (so is the answer below): a do_action input may nest as
    // deep as the message may, and the session refuses what nests past its own bound.
    const AgentPort::Result out = port.call(name, groundplane::detail::copy_json<nlohmann::json>(args));
    // whats_here's answer has one shape (its output schema): arguments it cannot read are a
    // tool error, the message saying what to send.
    if (name == "whats_here" && out.contains("reason")) return tool_error(out["message"].get<std::string>());
    std::string text = out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    // structuredContent in the text's order: `facts` first
    const nlohmann::json& members = out.json();
    nlohmann::ordered_json structured = object_of(members.size());
    if (out.contains("facts")) structured["facts"] = out["facts"];
    for (auto it = members.begin(); it != members.end(); ++it)
      if (it.key() != "facts")
        structured[it.key()] = groundplane::detail::copy_json<nlohmann::ordered_json>(it.value());
    return tool_result(std::move(structured), std::move(text));
  } catch (const std::exception& e) {
    failure = "the app failed serving " + groundplane::detail::quote(name) + ": " + escape(e.what(), 300);
    return tool_error("the app failed while serving " + std::string(name) + ": " + escape(e.what(), 300));
  } catch (...) {  // the same, for a handler that threw something else (throw 42;)
    failure = "the app failed serving " + groundplane::detail::quote(name) + ": a non-standard exception";
    return tool_error("the app failed while serving " + std::string(name) + ": a non-standard exception");
  }
}

GROUNDPLANE_INLINE nlohmann::ordered_json record_session_ledger(const nlohmann::ordered_json& a, FactRegistry& registry,
                                                                const Session& session) {
  const Arguments args("record_ledger", a, {"name"});
  return recorded(record_ledger(registry, args.string("name"), session));
}

}  // namespace groundplane::mcp::detail
