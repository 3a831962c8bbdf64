// What a tools/call answers (an MCP CallToolResult), as every tool of gp::mcp::Protocol
// writes it: structured content and one text block, or a tool error carrying a
// developer's mistake.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"

namespace groundplane::mcp::detail {

// {type: "text", text}.
nlohmann::ordered_json text_block(std::string text);

// An object with room for `members` members: ordered_json's members have const keys, so
// growing one copies the members already in it, deeply (a result's findings, say).
nlohmann::ordered_json object_of(std::size_t members);

// A CallToolResult carrying structured data and one text block.
nlohmann::ordered_json tool_result(nlohmann::ordered_json structured, std::string text);

// A CallToolResult for a developer's error: the message, and no structured data (the
// tool's outputSchema describes success; clients skip it for errors).
nlohmann::ordered_json tool_error(std::string message);

}  // namespace groundplane::mcp::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/mcp/tool_result-inl.hpp"
#endif
