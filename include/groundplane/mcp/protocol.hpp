// gp::mcp::Protocol — the MCP server with no transport: JSON-RPC 2.0 messages in, the
// responses out, the MCP methods and the checker tools. Every transport (stdio.hpp,
// http.hpp) hands it the messages it reads and writes back what it answers, so no line of
// protocol handling is written twice.
//
//   gp::mcp::Protocol p;                // checker tools over its own FactRegistry
//   p.handle_line(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");   // the response text
//
//   gp::Session app(...);
//   gp::mcp::Protocol with_app(app);    // the checker tools plus whats_here / do_action
//
// Protocol (MCP revisions 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05):
//   initialize                 answers the client's protocolVersion when it is one of
//                              those, else the newest of them (2025-11-25)
//   notifications/initialized  accepted, never answered (no notification ever is)
//   ping                       {}
//   tools/list                 every tool with inputSchema and outputSchema, one page
//   tools/call                 structuredContent plus one text block
//
// Errors, and why each is the one it is:
//   -32700 parse error       the line is not JSON (also: input that ends mid-message)
//   -32600 invalid request   not a JSON-RPC 2.0 request object; a batch (MCP 2025-06-18
//                            removed batching); an id that is null, fractional or
//                            structured; a notification method sent with an id; a
//                            message over max_line_bytes (the transport refuses it
//                            unread); nesting deeper than max_depth
//   -32601 method not found  an unknown method sent with an id
//   -32602 invalid params    params of the wrong shape for initialize / tools/list /
//                            tools/call, and tools/call naming no tool this server has
//   A request without an id is a notification: it is never answered, and a request
//   method sent that way (tools/call, say) is logged and not run — a record the caller
//   cannot see the outcome of is not made.
//
// Inside tools/call the split is the library's: a claim the facts do not support is a
// normal result (`check` returns ok: false and the correction); a developer's error —
// arguments of the wrong shape, an invalid record, a misconfigured check — is a result
// with isError: true carrying the error's message, which an agent loop must surface
// rather than re-ask the model about.
//
// Every log line goes to ServerOptions::log (stderr by default). One Protocol is one MCP
// session's state (its registry, its negotiated revision) and is not to be driven from
// two threads at once; a transport serving many sessions holds one per session and
// serializes each. Requests that arrive before initialize are served anyway: nothing a
// request does depends on it. Facts recorded stay recorded whatever a later request does.
//
// Its parts, one job each: jsonrpc.hpp (the envelope, the responses), message_reader.hpp
// (a line read once into the message), tool_arguments.hpp and tool_result.hpp (a tool's
// arguments in, its CallToolResult out), checker_tools.hpp, agent_tools.hpp (the tools a
// Session adds) and tool_schemas.hpp (every tool's tools/list entry).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/agent_port.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/json_text.hpp"
#include "groundplane/mcp/agent_tools.hpp"
#include "groundplane/mcp/checker_tools.hpp"
#include "groundplane/mcp/jsonrpc.hpp"
#include "groundplane/mcp/message_reader.hpp"
#include "groundplane/mcp/tool_arguments.hpp"
#include "groundplane/mcp/tool_result.hpp"
#include "groundplane/mcp/tool_schemas.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/session.hpp"
#include "groundplane/version.hpp"

namespace groundplane::mcp {

// The MCP revisions served, newest first.
inline constexpr std::array<std::string_view, 4> protocol_versions{"2025-11-25", "2025-06-18", "2025-03-26",
                                                                   "2024-11-05"};

// Member order is API (designated initializers): identity, then limits, then logging.
// What the sessions of one server may record together: every Protocol given the same pool
// counts its record_* calls into it, and gives them back when it ends. A call past
// either total is refused as a tool error. The bytes are what clients can make a server
// hold for as long as their sessions live, so their default leaves room under 512 MiB for
// the requests in flight: with 256 MiB held, every attack of bench/run hostile at once
// peaked at 547 MiB.
struct FactPool {
  std::size_t max_facts = 1'000'000;                       // facts (--max-total-facts)
  std::size_t max_bytes = std::size_t{128} * 1024 * 1024;  // bytes of record_* calls (--max-total-fact-bytes)
  std::atomic<std::size_t> facts{0}, bytes{0};
};

struct ServerOptions {
  std::string name = "groundplane-mcp";                       // serverInfo.name
  std::string version = version_string;                       // serverInfo.version
  std::size_t max_line_bytes = std::size_t{8} * 1024 * 1024;  // a longer line is answered -32600 and skipped
  std::size_t max_depth = 256;                                // deeper JSON nesting is answered -32600
  std::size_t page_size = 100;                                // list_facts: facts per page (nextCursor for more)
  std::function<void(std::string_view)> log = nullptr;        // one line per event; nullptr: std::cerr
  // false: only problems are logged (an internal error, an app's handler failing, a
  // request sent without an id and so not run, the output closing); true: routine events
  // too (notifications ignored, a revision fallback, input ended). A host shows a stdio
  // server's stderr to its user.
  bool verbose = false;
  // What one session (a stdio server, an HTTP session) may record through the record_*
  // tools: facts, and the bytes of the calls that recorded them. A call past either is
  // refused as a tool error naming the limit; what was recorded stays.
  std::size_t max_facts = 10'000;
  std::size_t max_fact_bytes = std::size_t{32} * 1024 * 1024;
  std::shared_ptr<FactPool> pool = nullptr;  // a total shared with other sessions; nullptr: none
  // The most checks one `check` call may carry: a call with more is refused as a tool
  // error naming the limit (--max-checks) before any of them is built.
  std::size_t max_checks = 1000;
};

class Protocol {
 public:
  explicit Protocol(ServerOptions options = {});
  // Also serves the session's agent tools (whats_here, do_action) through a gp::AgentPort.
  // And record_ledger, which records the session's attempts as a Table fact for an
  // actions_performed check.
  explicit Protocol(Session& session, ServerOptions options = {});
  Protocol(const Protocol&) = delete;  // one registry, one conversation
  Protocol& operator=(const Protocol&) = delete;
  ~Protocol();  // gives what it recorded back to the pool

  // One message's text (a stdio line, an HTTP body); the response text, or nullopt when
  // nothing is to be answered (a notification, a client's response, blank text).
  // `unterminated`: the input ended before this line's newline, so text that does not
  // parse was cut off mid-message.
  std::optional<std::string> handle_line(std::string_view line, bool unterminated = false);

  // One parsed JSON-RPC message; the response, or nullopt when none is due. A message
  // nested deeper than max_depth is answered -32600, as its text would be.
  std::optional<nlohmann::ordered_json> handle(const nlohmann::ordered_json& message);

  // The tools/list entries: {name, title, description, inputSchema, outputSchema, annotations}.
  const nlohmann::ordered_json& tools() const noexcept { return tools_; }
  bool has_tool(std::string_view name) const;

  // Runs one tool; a CallToolResult. Never throws for anything a client sent: wrong
  // arguments (nested deeper than max_depth, too), an invalid record or a misconfigured
  // check is isError: true.
  nlohmann::ordered_json call_tool(std::string_view name, const nlohmann::ordered_json& arguments);

  // Records fact definitions {name: {kind: "fact"|"ranking"|"table"|"domain", ...the
  // matching record_* arguments but name}} into this session's registry (--facts FILE).
  // A bad definition is a ConfigurationError naming the fact; the ones before it stay.
  void record_facts(const nlohmann::ordered_json& definitions);

  // The same into any registry; `where` starts every error message.
  static void record_definitions(const nlohmann::ordered_json& definitions, FactRegistry& into,
                                 const std::string& where) {
    detail::record_definitions(definitions, into, where);
  }

  FactRegistry& registry() noexcept { return registry_; }
  const FactRegistry& registry() const noexcept { return registry_; }
  // The negotiated protocol revision; "" before initialize.
  const std::string& protocol_version() const noexcept { return protocol_version_; }
  bool initialized() const noexcept { return initialized_; }

  // A transport's events go to the same log: problems always (log), routine events
  // (note) only when verbose.
  void note(const std::string& line) const {
    if (options_.verbose) log(line);
  }
  void log(const std::string& line) const;
  const ServerOptions& options() const noexcept { return options_; }

  // JSON-RPC response objects, for a transport that answers before a message is handled.
  static nlohmann::ordered_json success(const nlohmann::ordered_json& id, nlohmann::ordered_json result) {
    return detail::success(id, std::move(result));
  }
  static nlohmann::ordered_json error_response(const nlohmann::ordered_json& id, int code, std::string message) {
    return detail::error_response(id, code, std::move(message));
  }

 private:
  // handle(), with the response as it was made: JSON, or text already written.
  std::optional<detail::Written> respond(const nlohmann::ordered_json& message, detail::Form form);
  // A message sent without an id: never answered; a request method sent that way is not run.
  void notified(std::string_view method);
  // A request whose envelope is valid, dispatched to its method.
  detail::Written serve(const detail::Incoming& request, detail::Form form);

  // A line read once into the message; read again only when that pass stops on it.
  std::optional<detail::Written> read_and_handle(std::string_view line, bool unterminated);
  std::optional<detail::Written> handle_read(detail::MessageBuilder& builder);
  std::optional<detail::Written> read_again(std::string_view line, bool unterminated,
                                            const groundplane::detail::JsonPrescan& scan);

  nlohmann::ordered_json initialize(const nlohmann::ordered_json& id, const nlohmann::ordered_json& params,
                                    bool has_params);
  nlohmann::ordered_json list_tools(const nlohmann::ordered_json& id, const nlohmann::ordered_json& params) const;
  detail::Written call(const nlohmann::ordered_json& id, const nlohmann::ordered_json& params, bool has_params,
                       detail::Form form);
  // call_tool(), with the result as it was made: JSON, or text already written.
  detail::Written run_tool(std::string_view name, const nlohmann::ordered_json& arguments, detail::Form form);
  detail::Written run_checked_tool(std::string_view name, const nlohmann::ordered_json& args, detail::Form form);

  void build_tools();
  // A record_* tool, run only within this session's and the pool's limits.
  detail::Written record_within_limits(std::string_view name, const nlohmann::ordered_json& args);

  ServerOptions options_;
  FactRegistry registry_;
  Session* session_ = nullptr;
  std::optional<AgentPort> port_;
  nlohmann::ordered_json tools_ = nlohmann::ordered_json::array();
  std::vector<std::string> tool_names_;  // tools_' names, for has_tool on every call
  std::string protocol_version_;
  bool initialized_ = false;
  std::string_view output_text_;                         // a check call's output as the line being handled wrote it
  std::size_t message_bytes_ = 0;                        // the length of the line being handled; 0 outside handle_line
  std::size_t recorded_facts_ = 0, recorded_bytes_ = 0;  // counted against the limits
};

}  // namespace groundplane::mcp

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/mcp/protocol-inl.hpp"
#endif
