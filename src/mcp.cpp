// groundplane::compiled: the MCP server's bodies (groundplane/mcp/: the protocol, its tools
// and schemas, the stdio transport), compiled once (see detail/linkage.hpp). The HTTP
// transport (mcp/http.hpp) needs cpp-httplib and is compiled where it is included.
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/mcp/agent_tools-inl.hpp"
#include "groundplane/mcp/checker_tools-inl.hpp"
#include "groundplane/mcp/jsonrpc-inl.hpp"
#include "groundplane/mcp/protocol-inl.hpp"
#include "groundplane/mcp/record-inl.hpp"
#include "groundplane/mcp/stdio-inl.hpp"
#include "groundplane/mcp/tool_arguments-inl.hpp"
#include "groundplane/mcp/tool_result-inl.hpp"
#include "groundplane/mcp/tool_schemas-inl.hpp"
