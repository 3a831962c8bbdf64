// The MCP server as 0.1 included it: gp::mcp::Server over stdio (stdio.hpp) and the
// transport-free gp::mcp::Protocol it feeds (protocol.hpp). Streamable HTTP is
// groundplane/mcp/http.hpp, included on its own (it needs cpp-httplib).
#pragma once

#include "groundplane/mcp/protocol.hpp"  // IWYU pragma: export
#include "groundplane/mcp/stdio.hpp"     // IWYU pragma: export
