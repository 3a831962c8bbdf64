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
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/agent_port.hpp"
#include "groundplane/any_check.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/check.hpp"
#include "groundplane/check_from_json.hpp"
#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/json_text.hpp"
#include "groundplane/mcp/message_reader.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/session.hpp"
#include "groundplane/verdict.hpp"
#include "groundplane/version.hpp"

namespace groundplane::mcp {

// The MCP revisions served, newest first.
inline constexpr std::array<std::string_view, 4> protocol_versions{"2025-11-25", "2025-06-18", "2025-03-26",
                                                                   "2024-11-05"};

// JSON-RPC 2.0 error codes.
namespace error_code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
}  // namespace error_code

// Member order is API (designated initializers): identity, then limits, then logging.
struct ServerOptions {
  std::string name = "groundplane-mcp";                       // serverInfo.name
  std::string version = version_string;                       // serverInfo.version
  std::size_t max_line_bytes = std::size_t{8} * 1024 * 1024;  // a longer line is answered -32600 and skipped
  std::size_t max_depth = 256;                                // deeper JSON nesting is answered -32600
  std::size_t page_size = 100;                                // list_facts: facts per page (nextCursor for more)
  std::function<void(std::string_view)> log = nullptr;        // one line per event; nullptr: std::cerr
  // false: only problems are logged (an internal error, an app's handler failing, the
  // output closing); true: routine events too (notifications ignored, a revision
  // fallback, input ended). A host shows a stdio server's stderr to its user.
  bool verbose = false;
};

namespace detail {

using groundplane::detail::escape;
using groundplane::detail::quote;
using groundplane::detail::type_name;

// A tool's arguments were not the shape its inputSchema documents.
class BadArguments : public ConfigurationError {
 public:
  using ConfigurationError::ConfigurationError;
};

// Reading a tool's arguments with messages that say which argument and what it should be.
class Arguments {
 public:
  // `inline_name`: the arguments are an inline fact definition (check's `facts`, --facts
  // FILE), whose name is its key and whose "kind" member chose the tool.
  Arguments(std::string_view tool, const nlohmann::ordered_json& args, std::initializer_list<std::string_view> known,
            std::optional<std::string_view> inline_name = std::nullopt)
      : tool_(tool), args_(args), inline_name_(inline_name) {
    for (auto it = args_.begin(); it != args_.end(); ++it) {
      if (inline_name_ && it.key() == "kind") continue;
      bool ok = false;
      for (auto k : known) ok = ok || it.key() == k;
      if (!ok) {
        std::string list;
        for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(std::string(tool_) + " has no argument " + quote(it.key()) + "; its arguments are " +
             (list.empty() ? std::string("none") : list));
      }
    }
  }

  const nlohmann::ordered_json* find(std::string_view key) const {
    const auto it = args_.find(key);
    return it == args_.end() || it->is_null() ? nullptr : &*it;
  }
  const nlohmann::ordered_json& required(std::string_view key, std::string_view what) const {
    const auto* v = find(key);
    if (!v) fail(std::string(tool_) + " needs " + quote(key) + " (" + std::string(what) + ")");
    return *v;
  }
  std::string string(std::string_view key) const {
    if (inline_name_ && key == "name") return std::string(*inline_name_);
    const auto& v = required(key, "a string");
    if (!v.is_string()) wrong(key, "a string", v);
    return v.get<std::string>();
  }
  std::optional<std::string> optional_string(std::string_view key) const {
    const auto* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) wrong(key, "a string", *v);
    return v->get<std::string>();
  }
  // The call's own arguments (`args`): an object, {} when absent.
  nlohmann::ordered_json call_args() const {
    const auto* v = find("args");
    if (!v) return nlohmann::ordered_json::object();
    if (!v->is_object()) wrong("args", "an object of the producing call's arguments", *v);
    return *v;
  }

  [[noreturn]] void wrong(std::string_view key, std::string_view expected, const nlohmann::ordered_json& got) const {
    fail(std::string(tool_) + ": " + quote(key) + " must be " + std::string(expected) + ", got " +
         std::string(type_name(got)));
  }
  [[noreturn]] static void fail(const std::string& message) { throw BadArguments("invalid arguments: " + message); }

 private:
  std::string_view tool_;
  const nlohmann::ordered_json& args_;
  std::optional<std::string_view> inline_name_;
};

inline nlohmann::ordered_json text_block(std::string text) { return {{"type", "text"}, {"text", std::move(text)}}; }

inline std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// An object with room for `members` members: ordered_json's members have const keys, so
// growing one copies the members already in it, deeply (a result's findings, say).
inline nlohmann::ordered_json object_of(std::size_t members) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  o.get_ref<nlohmann::ordered_json::object_t&>().reserve(members);
  return o;
}

// A CallToolResult carrying structured data and one text block.
inline nlohmann::ordered_json tool_result(nlohmann::ordered_json structured, std::string text) {
  nlohmann::ordered_json r = object_of(3);
  r["content"] = nlohmann::ordered_json::array({text_block(std::move(text))});
  r["structuredContent"] = std::move(structured);
  r["isError"] = false;
  return r;
}

// A CallToolResult for a developer's error: the message, and no structured data (the
// tool's outputSchema describes success; clients skip it for errors).
inline nlohmann::ordered_json tool_error(std::string message) {
  nlohmann::ordered_json r;
  r["content"] = nlohmann::ordered_json::array({text_block(std::move(message))});
  r["isError"] = true;
  return r;
}

// What a caller of the protocol takes a response as: the text of a line (handle_line),
// or the JSON value (handle, call_tool), each made as it is taken, never one through
// the other.
enum class Form { text, json };

// A response or a tools/call result: a JSON value, or its text already written. check's
// result, on the path every checked answer takes, is written straight to text: nothing
// is built only to be dumped, and its correction, which it carries twice, is escaped once.
class Written {
 public:
  Written(nlohmann::ordered_json value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  static Written text(std::string text) {
    Written w(nullptr);
    w.text_ = std::move(text);
    w.is_text_ = true;
    return w;
  }
  bool is_text() const noexcept { return is_text_; }
  // The value, when it was built as one.
  const nlohmann::ordered_json* json() const noexcept { return is_text_ ? nullptr : &value_; }
  std::string take_text() && { return is_text_ ? std::move(text_) : dump(value_); }
  // The value; a result written as text (only ever asked for as text) is read back.
  nlohmann::ordered_json take_json() && { return is_text_ ? nlohmann::ordered_json::parse(text_) : std::move(value_); }

 private:
  nlohmann::ordered_json value_;
  std::string text_;
  bool is_text_ = false;
};

// `s` as a JSON string, appended, byte for byte as nlohmann's serializer writes it. A
// string of printable ASCII and line breaks (a finding's message, a correction, when the
// names in them are ASCII) is copied a run at a time with its three escapes ('"', '\\',
// '\n') written as the serializer writes them; a string holding anything else (another
// control character, UTF-8 to validate) is written by the serializer.
inline void append_json(std::string& out, std::string_view s) {
  // One table lookup per byte: 0 copied as it is, 1 one of the three escapes, 2 anything
  // the serializer must write (a control character, a byte of UTF-8).
  static constexpr auto kind = [] {
    std::array<std::uint8_t, 256> k{};
    for (std::size_t c = 0; c < k.size(); ++c) k[c] = c >= ' ' && c <= '~' ? 0 : 2;
    k['"'] = k['\\'] = k['\n'] = 1;
    return k;
  }();
  const std::size_t start = out.size();
  out += '"';
  std::size_t run = 0;  // where the run not yet copied begins
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::uint8_t k = kind[static_cast<unsigned char>(s[i])];
    if (k == 0) continue;
    if (k == 2) {
      out.resize(start);
      out += dump(nlohmann::ordered_json(s));
      return;
    }
    out.append(s.data() + run, i - run);
    out += s[i] == '\n' ? std::string_view("\\n") : s[i] == '"' ? std::string_view("\\\"") : std::string_view("\\\\");
    run = i + 1;
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

// check's CallToolResult as JSON, for a caller that takes the value (call_tool, handle):
// the verdict's strings as they are, however they are encoded.
inline nlohmann::ordered_json check_result_json(const Verdict& verdict) {
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const auto& f : verdict.findings()) {
    nlohmann::ordered_json item = object_of(8);
    item["check"] = f.check;
    item["field"] = f.field;
    item["said"] = f.said;
    item["supported"] = f.supported;
    item["fact"] = f.fact;
    item["provenance"] = f.provenance;
    item["detail"] = f.detail;
    item["message"] = f.message();
    findings.push_back(std::move(item));
  }
  std::string correction = verdict.correction();
  std::string text = verdict.ok() ? std::string("accepted") : correction;
  nlohmann::ordered_json out = object_of(6);
  out["ok"] = verdict.ok();
  out["findings"] = std::move(findings);
  out["correction"] = std::move(correction);
  out["passed"] = verdict.passed();
  out["failed"] = verdict.failed();
  out["warnings"] = verdict.warnings();
  return tool_result(std::move(out), std::move(text));
}

// check's CallToolResult as text, member for member what check_result_json builds:
// {content: [{type: "text", text}], structuredContent: {ok, findings, correction, passed, failed,
// warnings}, isError: false}.
inline std::string check_result_text(const Verdict& verdict) {
  std::string correction;
  append_json(correction, verdict.correction());
  std::string out;
  out.reserve(160 + 2 * correction.size() + 600 * verdict.findings().size());
  out += R"({"content":[{"type":"text","text":)";
  out += verdict.ok() ? std::string_view(R"("accepted")") : std::string_view(correction);
  out += R"(}],"structuredContent":{"ok":)";
  out += verdict.ok() ? "true" : "false";
  out += R"(,"findings":[)";
  bool first = true;
  for (const auto& f : verdict.findings()) {
    const std::string message = f.message();
    const std::array<std::pair<std::string_view, std::string_view>, 8> members{{{R"({"check":)", f.check},
                                                                                {R"(,"field":)", f.field},
                                                                                {R"(,"said":)", f.said},
                                                                                {R"(,"supported":)", f.supported},
                                                                                {R"(,"fact":)", f.fact},
                                                                                {R"(,"provenance":)", f.provenance},
                                                                                {R"(,"detail":)", f.detail},
                                                                                {R"(,"message":)", message}}};
    if (!first) out += ',';
    first = false;
    for (const auto& [key, value] : members) {
      out += key;
      append_json(out, value);
    }
    out += '}';
  }
  out += R"(],"correction":)";
  out += correction;
  const auto names = [&](std::string_view key, const std::vector<std::string>& list) {
    out += key;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i > 0) out += ',';
      append_json(out, list[i]);
    }
    out += ']';
  };
  names(R"(,"passed":[)", verdict.passed());
  names(R"(,"failed":[)", verdict.failed());
  names(R"(,"warnings":[)", verdict.warnings());
  out += R"(},"isError":false})";
  return out;
}

// The facts() view of one fact, with its provenance args in the call's key order.
template <class FactT>
nlohmann::ordered_json ordered_view(const FactT& fact) {
  nlohmann::ordered_json view = groundplane::detail::fact_view(fact);
  view["provenance"]["args"] = fact.provenance().args;
  return view;
}

// A table's rows with their cells in column order (the base view's rows are unordered).
inline nlohmann::ordered_json ordered_view(const Table& table) {
  nlohmann::ordered_json view = groundplane::detail::fact_view(table);
  view["provenance"]["args"] = table.provenance().args;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t r = 0; r < table.row_count(); ++r) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < table.columns().size(); ++c)
      if (!table.cell(r, c).is_null()) row[table.columns()[c]] = table.cell(r, c);
    rows.push_back(std::move(row));
  }
  view["rows"] = std::move(rows);
  return view;
}

// How many things a fact holds: entities, rows, members; 1 for a scalar.
inline std::size_t size_of(const Fact&) { return 1; }
inline std::size_t size_of(const Ranking& r) { return r.size(); }
inline std::size_t size_of(const Table& t) { return t.row_count(); }
inline std::size_t size_of(const Domain& d) { return d.members().size(); }

}  // namespace detail

class Protocol {
 public:
  explicit Protocol(ServerOptions options = {}) : options_(std::move(options)) { build_tools(); }
  // Also serves the session's agent tools (whats_here, do_action) through a gp::AgentPort.
  // And record_ledger, which records the session's attempts as a Table fact for an
  // actions_performed check.
  explicit Protocol(Session& session, ServerOptions options = {}) : options_(std::move(options)), session_(&session) {
    port_.emplace(session);
    build_tools();
  }
  Protocol(const Protocol&) = delete;  // one registry, one conversation
  Protocol& operator=(const Protocol&) = delete;

  // One message's text (a stdio line, an HTTP body); the response text, or nullopt when
  // nothing is to be answered (a notification, a client's response, blank text).
  // `unterminated`: the input ended before this line's newline, so text that does not
  // parse was cut off mid-message.
  std::optional<std::string> handle_line(std::string_view line, bool unterminated = false) {
    if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::nullopt;
    try {
      auto reply = read_and_handle(line, unterminated);
      if (!reply) return std::nullopt;
      return std::move(*reply).take_text();
    } catch (const std::bad_alloc&) {
      log("out of memory reading a " + std::to_string(line.size()) + "-byte message");
      return detail::dump(error_response(nullptr, error_code::internal_error, "Internal error: out of memory"));
    } catch (const nlohmann::ordered_json::exception& e) {  // not reachable by design; never escapes
      log("internal error reading a message: " + detail::escape(e.what(), 300));
      return detail::dump(
          error_response(nullptr, error_code::internal_error, "Internal error: " + detail::escape(e.what(), 300)));
    }
  }

  // One parsed JSON-RPC message; the response, or nullopt when none is due.
  std::optional<nlohmann::ordered_json> handle(const nlohmann::ordered_json& message) {
    auto reply = respond(message, detail::Form::json);
    if (!reply) return std::nullopt;
    return std::move(*reply).take_json();
  }

  // The tools/list entries: {name, title, description, inputSchema, outputSchema}.
  const nlohmann::ordered_json& tools() const noexcept { return tools_; }
  bool has_tool(std::string_view name) const {
    for (const auto& t : tool_names_)
      if (t == name) return true;
    return false;
  }

  // Runs one tool; a CallToolResult. Never throws for anything a client sent: wrong
  // arguments, an invalid record or a misconfigured check is isError: true.
  nlohmann::ordered_json call_tool(std::string_view name, const nlohmann::ordered_json& arguments) {
    return run_tool(name, arguments, detail::Form::json).take_json();
  }

  // Records fact definitions {name: {kind: "fact"|"ranking"|"table"|"domain", ...the
  // matching record_* arguments but name}} into this session's registry (--facts FILE).
  // A bad definition is a ConfigurationError naming the fact; the ones before it stay.
  void record_facts(const nlohmann::ordered_json& definitions) {
    record_definitions(definitions, registry_, "fact definition ");
  }

  // The same into any registry; `where` starts every error message.
  static void record_definitions(const nlohmann::ordered_json& definitions, FactRegistry& into,
                                 const std::string& where) {
    if (!definitions.is_object())
      detail::Arguments::fail("fact definitions must be an object {name: {kind, ...}}, got " +
                              std::string(detail::type_name(definitions)));
    for (auto it = definitions.begin(); it != definitions.end(); ++it) {
      const auto label = [&] { return where + detail::quote(it.key()); };
      const auto& def = it.value();
      if (!def.is_object())
        detail::Arguments::fail(label() + " must be an object {kind, ...}, got " + std::string(detail::type_name(def)));
      const auto kind = def.find("kind");
      if (kind == def.end() || !kind->is_string())
        detail::Arguments::fail(label() + " needs \"kind\": \"fact\", \"ranking\", \"table\" or \"domain\"");
      if (def.contains("name"))
        detail::Arguments::fail(label() + ": its name is its key; \"name\" is not one of its members");
      // Read as the matching record_* tool's arguments, named by the key; only the fact
      // is kept (the tool's result, which nobody reads here, is not built).
      const std::string& name = it.key();
      const std::string& k = kind->get_ref<const std::string&>();
      try {
        if (k == "fact") record_fact(def, into, name);
        else if (k == "ranking") record_ranking(def, into, name);
        else if (k == "table") record_table(def, into, name);
        else if (k == "domain") record_domain(def, into, name);
        else
          detail::Arguments::fail(label() + ": \"kind\" must be \"fact\", \"ranking\", \"table\" or \"domain\", got " +
                                  detail::quote(k));
      } catch (const detail::BadArguments& e) {
        if (std::string_view(e.what()).find(label()) != std::string_view::npos) throw;
        throw detail::BadArguments(label() + ": " + e.what());
      } catch (const Error& e) {
        throw detail::BadArguments(label() + ": " + e.what());
      }
    }
  }

  FactRegistry& registry() noexcept { return registry_; }
  const FactRegistry& registry() const noexcept { return registry_; }
  // The negotiated protocol revision; "" before initialize.
  const std::string& protocol_version() const noexcept { return protocol_version_; }
  bool initialized() const noexcept { return initialized_; }

  // A transport's events go to the same log: problems always, routine events (note)
  // only when verbose.
  // Routine events: logged only when verbose.
  void note(const std::string& line) const {
    if (options_.verbose) log(line);
  }

  void log(const std::string& line) const {
    const std::string text = "groundplane-mcp: " + line;
    if (options_.log) {
      options_.log(text);
    } else {
      std::cerr << text << '\n';
      std::cerr.flush();
    }
  }
  const ServerOptions& options() const noexcept { return options_; }

  // JSON-RPC response objects, for a transport that answers before a message is handled.
  static nlohmann::ordered_json success(const nlohmann::ordered_json& id, nlohmann::ordered_json result) {
    nlohmann::ordered_json r;
    r["jsonrpc"] = "2.0";
    r["id"] = id;
    r["result"] = std::move(result);
    return r;
  }

  static nlohmann::ordered_json error_response(const nlohmann::ordered_json& id, int code, std::string message) {
    nlohmann::ordered_json r;
    r["jsonrpc"] = "2.0";
    r["id"] = id;
    r["error"] = {{"code", code}, {"message", std::move(message)}};
    return r;
  }

 private:
  // success(id, result) as text, around a result already written as text.
  static std::string success_text(const nlohmann::ordered_json& id, std::string_view result) {
    std::string out;
    out.reserve(32 + result.size());
    out += R"({"jsonrpc":"2.0","id":)";
    out += detail::dump(id);
    out += R"(,"result":)";
    out += result;
    out += '}';
    return out;
  }

  // handle(), with the response as it was made: JSON, or text already written.
  std::optional<detail::Written> respond(const nlohmann::ordered_json& message, detail::Form form) {
    if (message.is_array())
      return error_response(nullptr, error_code::invalid_request,
                            "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); "
                            "send one message per line");
    if (!message.is_object())
      return error_response(
          nullptr, error_code::invalid_request,
          "Invalid Request: a JSON-RPC message is an object, got " + std::string(detail::type_name(message)));

    const auto id_it = message.find("id");
    const bool has_id = id_it != message.end();
    const bool id_ok = has_id && (id_it->is_string() || id_it->is_number_integer());
    const nlohmann::ordered_json id = id_ok ? *id_it : nlohmann::ordered_json(nullptr);

    const auto version = message.find("jsonrpc");
    if (version == message.end() || !version->is_string() || *version != "2.0")
      return error_response(id, error_code::invalid_request, "Invalid Request: \"jsonrpc\" must be \"2.0\"");

    const auto method_it = message.find("method");
    if (method_it == message.end()) {
      if (message.contains("result") || message.contains("error")) {
        note("ignored a response to a request this server never sent");
        return std::nullopt;
      }
      return error_response(id, error_code::invalid_request, "Invalid Request: no \"method\"");
    }
    if (!method_it->is_string())
      return error_response(
          id, error_code::invalid_request,
          "Invalid Request: \"method\" must be a string, got " + std::string(detail::type_name(*method_it)));
    if (has_id && !id_ok)
      return error_response(
          nullptr, error_code::invalid_request,
          "Invalid Request: \"id\" must be a string or an integer, got " + std::string(detail::type_name(*id_it)));
    const std::string& method = method_it->get_ref<const std::string&>();
    const bool notification_method = method.rfind("notifications/", 0) == 0;

    if (!has_id) {
      if (method == "notifications/initialized") {
        initialized_ = true;
      } else if (notification_method) {
        note("ignored notification " + detail::quote(method));
      } else {
        note("ignored " + detail::quote(method) +
             " sent without an id: a notification is never answered, so it "
             "was not run");
      }
      return std::nullopt;
    }
    if (notification_method)
      return error_response(
          id, error_code::invalid_request,
          "Invalid Request: " + detail::quote(method) + " is a notification and must not carry an id");

    const auto params_it = message.find("params");
    static const nlohmann::ordered_json no_params = nlohmann::ordered_json::object();
    const bool has_params = params_it != message.end() && !params_it->is_null();
    if (has_params && !params_it->is_object())
      return error_response(
          id, error_code::invalid_params,
          "Invalid params: params must be an object, got " + std::string(detail::type_name(*params_it)));
    const nlohmann::ordered_json& params = has_params ? *params_it : no_params;

    try {
      if (method == "initialize") return initialize(id, params, has_params);
      if (method == "ping") return success(id, nlohmann::ordered_json::object());
      if (method == "tools/list") return list_tools(id, params);
      if (method == "tools/call") return call(id, params, has_params, form);
    } catch (const std::bad_alloc&) {
      log("out of memory serving " + detail::quote(method));
      return error_response(id, error_code::internal_error, "Internal error: out of memory");
    } catch (const std::exception& e) {
      log("internal error serving " + detail::quote(method) + ": " + detail::escape(e.what(), 400));
      return error_response(id, error_code::internal_error, "Internal error: " + detail::escape(e.what(), 400));
    }
    note("method not found: " + detail::quote(method));
    return error_response(id, error_code::method_not_found, "Method not found: " + detail::quote(method));
  }

  // The id of a message read as plain JSON, for answering one that cannot be handled: a
  // string or an integer, else null.
  static nlohmann::ordered_json id_of(const nlohmann::json& message) {
    if (!message.is_object()) return nullptr;
    const auto it = message.find("id");
    if (it == message.end() || !(it->is_string() || it->is_number_integer())) return nullptr;
    return nlohmann::ordered_json(*it);
  }

  // Inside a tools/call's arguments (a fact value, a score, a claim) a number is data: what
  // the call cannot take is that tool's error, as any argument of the wrong shape is.
  // Anywhere else — the id, params, a count such as total_rows — it is invalid params.
  static bool data_position(const nlohmann::json& message, std::string_view pointer) {
    constexpr std::string_view arguments = "/params/arguments";
    return message.is_object() && message.contains("id") && message.value("method", std::string()) == "tools/call" &&
           pointer.substr(0, arguments.size()) == arguments &&
           (pointer.size() == arguments.size() || pointer[arguments.size()] == '/') &&
           pointer != "/params/arguments/total_rows";  // a count, not data
  }

  // Where a `check` call's output stands: the model's answer, whose numbers are data
  // however wide (1e400 is exact, 1e999999 a finding), judged by the check. "" when the
  // message is not a check call.
  static std::string_view check_output_at(const nlohmann::json& message) {
    if (!message.is_object()) return {};
    const auto params = message.find("params");
    if (params == message.end() || !params->is_object()) return {};
    const auto name = params->find("name");
    const auto args = params->find("arguments");
    if (message.value("method", std::string()) != "tools/call" || name == params->end() || *name != "check" ||
        args == params->end() || !args->is_object())
      return {};
    const auto output = args->find("output");
    if (output == args->end() || !(output->is_object() || output->is_array())) return {};
    return "/params/arguments/output";
  }

  std::optional<detail::Written> read_and_handle(std::string_view line, bool unterminated) {
    // One pass for a line within bounds; the prescan runs only for a line the builder stopped
    // on (not JSON, too deep, a repeated key, a wide number).
    const JsonTextOptions reading{.max_depth = options_.max_depth};
    detail::MessageBuilder builder(line, reading);
    if (builder.read(line)) return handle_read(builder);
    return read_again(line, unterminated, groundplane::detail::json_prescan(line, reading));
  }

  std::optional<detail::Written> handle_read(detail::MessageBuilder& builder) {
    const nlohmann::ordered_json message = builder.take();
    // While the message is handled, `check` reads its output from the bytes the request
    // wrote, with the digits they were written with.
    output_text_ = builder.output_text().value_or(std::string_view());
    struct Reset {
      std::string_view& slot;
      ~Reset() { slot = {}; }
    } const reset{output_text_};
    return respond(message, detail::Form::text);
  }

  // A line the one pass could not take, read by gp::JsonText for what is wrong with it:
  // not JSON, too deep, a repeated key, or a number no double holds.
  std::optional<detail::Written> read_again(std::string_view line, bool unterminated,
                                            const groundplane::detail::JsonPrescan& scan) {
    const JsonText doc = JsonText::read(line, {.max_depth = options_.max_depth});
    if (!doc.ok()) {
      const auto& e = *doc.error();
      const std::string where = " (byte " + std::to_string(e.offset) + ")";
      if (e.reason.rfind("nesting deeper than", 0) == 0) {
        note("refused a message nested deeper than " + std::to_string(options_.max_depth) + " levels");
        return error_response(
            nullptr, error_code::invalid_request,
            "Invalid Request: JSON nested deeper than " + std::to_string(options_.max_depth) + " levels" + where);
      }
      if (unterminated) {
        note("input ended in the middle of a message (" + std::to_string(line.size()) + " bytes)");
        return error_response(nullptr, error_code::parse_error,
                              "Parse error: the input ended in the middle of a message" + where);
      }
      note("parse error" + where);
      return error_response(nullptr, error_code::parse_error, "Parse error: the line is not valid JSON" + where);
    }
    const nlohmann::json& plain = doc.value();
    if (!doc.duplicate_keys().empty()) {
      // Never last-wins: which of the two values was meant cannot be known.
      const auto& d = doc.duplicate_keys().front();
      const std::string what = "the key " + detail::quote(d.key, 80) + " appears twice in the object at " +
                               detail::quote(d.pointer.empty() ? std::string("/") : d.pointer, 120);
      if (data_position(plain, d.pointer))
        return success(id_of(plain), detail::tool_error("invalid arguments: " + what + "; send it once"));
      return error_response(id_of(plain), error_code::invalid_request, "Invalid Request: " + what);
    }
    // A number no double holds is refused, except in a check's output, where the check
    // judges it as written.
    if (const auto wide = detail::find_wide_number(doc, check_output_at(plain))) {
      const std::string& pointer = wide->pointer;
      const std::string what =
          "the number " + detail::quote(wide->text, 60) + " at " +
          detail::quote(pointer.empty() ? std::string("/") : pointer, 120) +
          (wide->out_of_range ? " is out of range (more than 100 significant digits, or past 10^1000 or 10^-1000)"
                              : " is past a double's range");
      if (data_position(plain, pointer))
        return success(id_of(plain), detail::tool_error("invalid arguments: " + what +
                                                        "; a recorded value must fit a double or a 64-bit integer"));
      return error_response(id_of(plain), error_code::invalid_params, "Invalid params: " + what);
    }
    // Every wide number is in a check's output: the message is built from the line with
    // them blanked out (same length, so the output's bytes stand where they stood), and
    // the check reads them from the line itself.
    const std::string blanked = groundplane::detail::blank_substitutes(line, scan);
    detail::MessageBuilder builder(line, {.max_depth = options_.max_depth});
    if (!builder.read(blanked))  // JsonText read it: not reachable by design
      return error_response(id_of(plain), error_code::parse_error, "Parse error: the line is not valid JSON");
    return handle_read(builder);
  }

  static const nlohmann::ordered_json& empty_object() {
    static const nlohmann::ordered_json e = nlohmann::ordered_json::object();
    return e;
  }

  nlohmann::ordered_json initialize(const nlohmann::ordered_json& id, const nlohmann::ordered_json& params,
                                    bool has_params) {
    if (!has_params)
      return error_response(id, error_code::invalid_params,
                            "Invalid params: initialize needs {protocolVersion, capabilities, clientInfo}");
    const auto v = params.find("protocolVersion");
    if (v == params.end() || !v->is_string())
      return error_response(id, error_code::invalid_params,
                            "Invalid params: initialize needs \"protocolVersion\" as a string");
    std::string chosen(protocol_versions.front());
    for (auto supported : protocol_versions)
      if (*v == supported) chosen = std::string(supported);
    // Answering with another revision is the negotiation working, not a problem: the
    // client decides whether it can speak it.
    if (chosen != v->get_ref<const std::string&>())
      note("client asked for revision " + detail::quote(v->get_ref<const std::string&>(), 80) + "; answering with " +
           chosen);
    protocol_version_ = chosen;

    nlohmann::ordered_json result;
    result["protocolVersion"] = chosen;
    result["capabilities"] = {{"tools", {{"listChanged", false}}}};
    result["serverInfo"] = {{"name", options_.name}, {"title", "groundplane"}, {"version", options_.version}};
    result["instructions"] =
        "groundplane checks a model's structured claims against facts recorded from tool results. Record each "
        "tool result with record_fact, record_ranking, record_table or record_domain (the call that produced it "
        "is its provenance; facts are write-once). Give the model list_facts to phrase, never to recompute. Pass "
        "its structured answer to check: ok false carries a correction to send back to the model; a tool error "
        "(isError) is a misconfiguration to fix, not something to re-ask the model about.";
    return success(id, std::move(result));
  }

  nlohmann::ordered_json list_tools(const nlohmann::ordered_json& id, const nlohmann::ordered_json& params) {
    if (const auto c = params.find("cursor"); c != params.end() && !c->is_null())
      return error_response(id, error_code::invalid_params,
                            c->is_string() ? "Invalid params: unknown cursor; tools/list has one page"
                                           : "Invalid params: \"cursor\" must be a string");
    return success(id, {{"tools", tools_}});
  }

  detail::Written call(const nlohmann::ordered_json& id, const nlohmann::ordered_json& params, bool has_params,
                       detail::Form form) {
    if (!has_params)
      return error_response(id, error_code::invalid_params, "Invalid params: tools/call needs {name, arguments}");
    const auto name = params.find("name");
    if (name == params.end() || !name->is_string())
      return error_response(id, error_code::invalid_params,
                            "Invalid params: tools/call needs the tool's \"name\" as a string");
    const std::string& tool = name->get_ref<const std::string&>();
    if (!has_tool(tool)) return error_response(id, error_code::invalid_params, "Unknown tool: " + detail::quote(tool));
    const auto args = params.find("arguments");
    if (args != params.end() && !args->is_null() && !args->is_object())
      return error_response(
          id, error_code::invalid_params,
          "Invalid params: tools/call \"arguments\" must be an object, got " + std::string(detail::type_name(*args)));
    detail::Written result = run_tool(tool, args == params.end() ? empty_object() : *args, form);
    if (result.is_text()) return detail::Written::text(success_text(id, std::move(result).take_text()));
    if (result.json()->value("isError", false))
      note("tool " + detail::quote(tool) +
           " returned an error: " + detail::escape((*result.json())["content"][0]["text"].get<std::string>(), 300));
    return success(id, std::move(result).take_json());
  }

  // call_tool(), with the result as it was made: JSON, or text already written.
  detail::Written run_tool(std::string_view name, const nlohmann::ordered_json& arguments, detail::Form form) {
    const nlohmann::ordered_json& args = arguments.is_null() ? empty_object() : arguments;
    try {
      if (!args.is_object())
        detail::Arguments::fail("the arguments of " + std::string(name) + " must be an object, got " +
                                std::string(detail::type_name(args)));
      if (name == "record_fact") return record_fact(args);
      if (name == "record_ranking") return record_ranking(args);
      if (name == "record_table") return record_table(args);
      if (name == "record_domain") return record_domain(args);
      if (name == "list_facts") return list_facts(args);
      if (name == "check") return check(args, form);
      if (port_ && (name == "whats_here" || name == "do_action")) return agent_call(name, args);
      if (session_ && name == "record_ledger") return record_session_ledger(args);
      return detail::tool_error("Unknown tool: " + detail::quote(name));
    } catch (const ConfigurationError& e) {
      return detail::tool_error(e.what());
    } catch (const Error& e) {
      return detail::tool_error(e.what());
    }
  }

  // --- the checker tools --------------------------------------------------------------

  template <class FactT>
  static nlohmann::ordered_json recorded(const FactT& fact) {
    nlohmann::ordered_json out;
    out["recorded"] = fact.name();
    out["kind"] = std::string(to_string(fact_kind_of<FactT>));
    out["provenance"] = {{"tool", fact.provenance().tool}, {"args", fact.provenance().args}};
    out["size"] = detail::size_of(fact);
    std::string text = detail::dump(out);
    return detail::tool_result(std::move(out), std::move(text));
  }

  nlohmann::ordered_json record_fact(const nlohmann::ordered_json& a) { return recorded(record_fact(a, registry_)); }
  static const Fact& record_fact(const nlohmann::ordered_json& a, FactRegistry& into,
                                 std::optional<std::string_view> inline_name = std::nullopt) {
    const detail::Arguments args("record_fact", a, {"name", "value", "tool", "args"}, inline_name);
    auto name = args.string("name");
    const auto& value = args.required("value", "any JSON value");
    auto tool = args.string("tool");
    return into.record_fact(std::move(name), nlohmann::json(value),
                            {.tool = std::move(tool), .args = args.call_args()});
  }

  nlohmann::ordered_json record_ranking(const nlohmann::ordered_json& a) {
    return recorded(record_ranking(a, registry_));
  }
  static const Ranking& record_ranking(const nlohmann::ordered_json& a, FactRegistry& into,
                                       std::optional<std::string_view> inline_name = std::nullopt) {
    const detail::Arguments args("record_ranking", a, {"name", "scores", "key", "direction", "tool", "args"},
                                 inline_name);
    auto name = args.string("name");
    const auto& scores_in = args.required("scores", "an object {entity: number}");
    if (!scores_in.is_object()) args.wrong("scores", "an object {entity: number}", scores_in);
    Scores scores;
    scores.reserve(scores_in.size());
    for (auto it = scores_in.begin(); it != scores_in.end(); ++it) {
      const auto score = Decimal::from_json(it.value());
      if (!score)
        detail::Arguments::fail("record_ranking: the score of " + detail::quote(it.key()) + " must be a number, got " +
                                std::string(detail::type_name(it.value())));
      scores.emplace_back(it.key(), *score);
    }
    auto key = args.string("key");
    Direction direction = Direction::higher_is_better;
    if (const auto d = args.optional_string("direction")) {
      if (*d == "lower_is_better") direction = Direction::lower_is_better;
      else if (*d != "higher_is_better")
        detail::Arguments::fail(
            "record_ranking: \"direction\" must be \"higher_is_better\" or \"lower_is_better\", got " +
            detail::quote(*d));
    }
    auto tool = args.string("tool");
    return into.record_ranking(
        std::move(name), std::move(scores),
        {.key = std::move(key), .direction = direction, .tool = std::move(tool), .args = args.call_args()});
  }

  nlohmann::ordered_json record_table(const nlohmann::ordered_json& a) { return recorded(record_table(a, registry_)); }
  static const Table& record_table(const nlohmann::ordered_json& a, FactRegistry& into,
                                   std::optional<std::string_view> inline_name = std::nullopt) {
    const detail::Arguments args("record_table", a, {"name", "rows", "key_column", "total_rows", "tool", "args"},
                                 inline_name);
    auto name = args.string("name");
    const auto& rows = args.required("rows", "an array of row objects");
    if (!rows.is_array()) args.wrong("rows", "an array of row objects", rows);
    std::optional<std::size_t> total;
    if (const auto* t = args.find("total_rows")) {
      if (!t->is_number_unsigned() && !(t->is_number_integer() && t->get<long long>() >= 0))
        args.wrong("total_rows", "a non-negative integer", *t);
      total = static_cast<std::size_t>(t->get<unsigned long long>());
    }
    auto key_column = args.optional_string("key_column");
    auto tool = args.string("tool");
    // rows stay ordered_json: the table's columns come in the caller's order
    return into.record_table(
        std::move(name), rows,
        {.key_column = std::move(key_column), .total_rows = total, .tool = std::move(tool), .args = args.call_args()});
  }

  nlohmann::ordered_json record_domain(const nlohmann::ordered_json& a) {
    return recorded(record_domain(a, registry_));
  }
  static const Domain& record_domain(const nlohmann::ordered_json& a, FactRegistry& into,
                                     std::optional<std::string_view> inline_name = std::nullopt) {
    const detail::Arguments args("record_domain", a, {"name", "members", "tool", "args"}, inline_name);
    auto name = args.string("name");
    const auto& list = args.required("members", "an array of names");
    if (!list.is_array()) args.wrong("members", "an array of names", list);
    std::vector<Entity> members;
    members.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto member = Entity::from_json(list[i]);
      if (!member)
        detail::Arguments::fail("record_domain: member " + std::to_string(i) + " must be a string or an integer, got " +
                                std::string(detail::type_name(list[i])));
      members.push_back(std::move(*member));
    }
    auto tool = args.string("tool");
    return into.record_domain(std::move(name), std::move(members), {.tool = std::move(tool), .args = args.call_args()});
  }

  nlohmann::ordered_json record_session_ledger(const nlohmann::ordered_json& a) {
    const detail::Arguments args("record_ledger", a, {"name"});
    return recorded(record_ledger(registry_, args.string("name"), *session_));
  }

  // One page of facts in record order. The cursor is the count of facts already listed:
  // facts are write-once and only ever added, so a position names the same place later.
  nlohmann::ordered_json list_facts(const nlohmann::ordered_json& a) const {
    const detail::Arguments args("list_facts", a, {"cursor"});
    const auto names = registry_.names();
    std::size_t start = 0;
    if (const auto cursor = args.optional_string("cursor")) {
      const auto position = parse_cursor(*cursor);
      if (!position || *position > names.size())
        detail::Arguments::fail("list_facts: " + detail::quote(*cursor, 40) +
                                " is not a cursor this server gave (pass a nextCursor back unchanged)");
      start = *position;
    }
    const std::size_t page = options_.page_size == 0 ? names.size() : options_.page_size;
    const std::size_t end = names.size() - start > page ? start + page : names.size();
    nlohmann::ordered_json facts = nlohmann::ordered_json::object();
    for (std::size_t i = start; i < end; ++i)
      facts[names[i]] = registry_.visit(names[i], [](const auto& fact) { return detail::ordered_view(fact); });
    nlohmann::ordered_json out;
    out["facts"] = std::move(facts);
    if (end < names.size()) out["nextCursor"] = "facts:" + std::to_string(end);
    std::string text = detail::dump(out);
    return detail::tool_result(std::move(out), std::move(text));
  }

  static std::optional<std::size_t> parse_cursor(std::string_view cursor) {
    constexpr std::string_view prefix = "facts:";
    if (cursor.substr(0, prefix.size()) != prefix || cursor.size() == prefix.size() ||
        cursor.size() > prefix.size() + 18)
      return std::nullopt;
    std::size_t n = 0;
    for (const char c : cursor.substr(prefix.size())) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    return n;
  }

  detail::Written check(const nlohmann::ordered_json& a, detail::Form form) const {
    const detail::Arguments args("check", a, {"facts", "checks", "output"});
    constexpr std::string_view facts_shape = "an array of recorded fact names or an object of inline definitions";
    const auto& facts_in = args.required("facts", facts_shape);
    if (!facts_in.is_array() && !facts_in.is_object()) args.wrong("facts", facts_shape, facts_in);
    // Inline definitions are recorded into a registry of this call's own, so one call
    // carries everything and nothing outlives it.
    std::optional<FactRegistry> inline_registry;
    std::vector<std::string> facts;
    if (facts_in.is_object()) {
      inline_registry.emplace();
      record_definitions(facts_in, *inline_registry, "check: inline fact ");
      for (auto it = facts_in.begin(); it != facts_in.end(); ++it) facts.push_back(it.key());
    }
    for (const auto& f : facts_in.is_array() ? facts_in : nlohmann::ordered_json::array()) {
      if (!f.is_string())
        detail::Arguments::fail("check: every name in \"facts\" must be a string, got " +
                                std::string(detail::type_name(f)));
      facts.push_back(f.get<std::string>());
    }
    const auto& specs = args.required("checks", "an array of check specs");
    if (!specs.is_array()) args.wrong("checks", "an array of check specs", specs);
    if (specs.empty())
      detail::Arguments::fail("check: \"checks\" is empty; a check that checks nothing would accept anything");
    const auto* output_in = args.find("output");
    if (!output_in && !a.contains("output"))
      detail::Arguments::fail("check needs \"output\" (the model's answer: a JSON object of named fields)");

    CheckList checks;
    for (const auto& spec : specs) checks.push_back(check_from_json(nlohmann::json(spec)));
    Boundary boundary(inline_registry ? *inline_registry : registry_, std::move(facts), std::move(checks));
    // The output as the request wrote it (A7: read exactly, "0.50" judged at two
    // decimals, 1e400 exact, 1e999999 a finding), when this call came as a line of text;
    // else the value handed in.
    const Verdict verdict =
        output_text_.empty()
            ? boundary.try_submit(output_in ? nlohmann::json(*output_in) : nlohmann::json(nullptr))
            : boundary.try_submit_json(JsonText::read(output_text_, {.max_depth = options_.max_depth}), output_text_);

    if (form == detail::Form::text) return detail::Written::text(detail::check_result_text(verdict));
    return detail::check_result_json(verdict);
  }

  nlohmann::ordered_json agent_call(std::string_view name, const nlohmann::ordered_json& args) {
    try {
      const AgentPort::Result out = port_->call(name, nlohmann::json(args));
      std::string text = out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      // structuredContent in the text's order: `facts` first
      const nlohmann::json& members = out.json();
      nlohmann::ordered_json structured = detail::object_of(members.size());
      if (out.contains("facts")) structured["facts"] = out["facts"];
      for (auto it = members.begin(); it != members.end(); ++it)
        if (it.key() != "facts") structured[it.key()] = it.value();
      return detail::tool_result(std::move(structured), std::move(text));
    } catch (const std::exception& e) {
      // An action's handler threw: the app's bug, already on the ledger. The model
      // cannot fix it, so it is an error result, not a crash.
      log("the app failed serving " + detail::quote(name) + ": " + detail::escape(e.what(), 300));
      return detail::tool_error("the app failed while serving " + std::string(name) + ": " +
                                detail::escape(e.what(), 300));
    } catch (...) {  // the same, for a handler that threw something else (throw 42;)
      log("the app failed serving " + detail::quote(name) + ": a non-standard exception");
      return detail::tool_error("the app failed while serving " + std::string(name) + ": a non-standard exception");
    }
  }

  // --- tool definitions -------------------------------------------------------------

  void build_tools() {
    tools_ = checker_tools();
    if (port_) {
      for (const auto& def : AgentPort::tools()) {  // written name first, as the checker tools are
        const std::string name = def["name"].get<std::string>();
        nlohmann::ordered_json tool = detail::object_of(6);
        tool["name"] = name;
        tool["title"] = name == "whats_here" ? "See the app's state" : "Do an action in the app";
        tool["description"] = def["description"];
        tool["inputSchema"] = def["inputSchema"];
        tool["outputSchema"] = agent_output_schema(name);
        tool["annotations"] = agent_annotations(name);
        tools_.push_back(std::move(tool));
      }
      auto ledger = nlohmann::ordered_json::parse(R"JSON({
  "name": "record_ledger",
  "title": "Record the session's ledger",
  "description": "Record every attempt this session has seen so far (fires, refusals included, each with its graded line) as a write-once table fact, so that an actions_performed check can hold a claim to have done something to what DID happen. The ledger grows: record each turn's under a new name.",
  "inputSchema": {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "The fact's name; write-once."}},
    "required": ["name"],
    "additionalProperties": false
  }
})JSON");
      ledger["outputSchema"] = recorded_output_schema();
      ledger["annotations"] = record_annotations();
      tools_.push_back(std::move(ledger));
    }
    for (const auto& tool : tools_) tool_names_.push_back(tool["name"].get<std::string>());
  }

  // The record_* tools (and record_ledger) add a fact: not read-only, but write-once, so
  // a repeat of the same call changes nothing (it is refused) and destroys nothing. Every
  // tool works on this server's own registry or app: none reaches an open world.
  static nlohmann::ordered_json record_annotations() {
    return {{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}};
  }

  // whats_here reads the app's state; do_action runs one of the app's actions, which may
  // change or delete what the app holds (placing an order, say) and is not safe to repeat.
  static nlohmann::ordered_json agent_annotations(const std::string& name) {
    if (name == "whats_here")
      return {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}};
    return {{"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", false}, {"openWorldHint", false}};
  }

  // What every record_* tool returns.
  static const nlohmann::ordered_json& recorded_output_schema() {
    static const nlohmann::ordered_json schema = nlohmann::ordered_json::parse(R"({
      "type": "object",
      "properties": {
        "recorded": {"type": "string", "description": "The fact's name."},
        "kind": {"type": "string", "enum": ["fact", "ranking", "table", "domain"]},
        "provenance": {"type": "object", "properties": {"tool": {"type": "string"}, "args": {"type": "object"}},
                       "required": ["tool", "args"]},
        "size": {"type": "integer", "description": "Entities, rows or members recorded; 1 for a fact."}
      },
      "required": ["recorded", "kind", "provenance", "size"]
    })");
    return schema;
  }

  static nlohmann::ordered_json agent_output_schema(const std::string& name) {
    if (name == "whats_here")
      return nlohmann::ordered_json::parse(R"({
        "type": "object",
        "properties": {
          "facts": {"type": "string", "description": "the app's own record; it outranks the conversation"},
          "node": {"type": "string"},
          "version": {"type": "integer"},
          "actions": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "does": {"type": "string"}, "enabled": {"type": "boolean"}},
            "required": ["id", "does"]}}
        },
        "required": ["facts", "node", "version", "actions"]
      })");
    return nlohmann::ordered_json::parse(R"({
      "type": "object",
      "properties": {
        "ok": {"type": "boolean"},
        "reason": {"type": "string"},
        "message": {"type": "string"},
        "transition_id": {"type": "string"},
        "ask_id": {"type": "string"},
        "facts": {"type": "string", "description": "the app's own record; it outranks the conversation"}
      },
      "required": ["ok", "facts"]
    })");
  }

  // check's "facts" takes two shapes and so declares no type: agent frameworks that turn
  // an inputSchema into a validator (LangChain's, through @langchain/mcp-adapters)
  // reject every call when it is written as anyOf.
  static const nlohmann::ordered_json& checker_tools() {
    // The record_* tools' shared inputs (name, tool, args) and output are added below.
    static const nlohmann::ordered_json defs = nlohmann::ordered_json::parse(R"JSON([
{
  "name": "record_fact",
  "title": "Record a fact",
  "description": "Record one value a tool returned (any JSON: a number, string, bool, object or array) as a write-once fact, with the tool call that produced it as its provenance. A changed value is a new fact under a new name.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "value": {"description": "The value the tool returned (any JSON value)."}
    },
    "required": ["value"],
    "additionalProperties": false
  }
},
{
  "name": "record_ranking",
  "title": "Record a ranking",
  "description": "Record the scores a tool returned per entity (e.g. click-through rate per campaign) as a write-once ranking. The order is computed here, never by the model; list_facts shows it best first.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "scores": {"type": "object", "additionalProperties": {"type": "number"}, "description": "Entity to score, in the order the tool listed them (that order breaks ties)."},
      "key": {"type": "string", "description": "The measured quantity, e.g. ctr."},
      "direction": {"type": "string", "enum": ["higher_is_better", "lower_is_better"], "description": "Default higher_is_better."}
    },
    "required": ["scores", "key"],
    "additionalProperties": false
  }
},
{
  "name": "record_table",
  "title": "Record a table",
  "description": "Record the rows a tool returned as a write-once table. Set total_rows when the tool returned only part of the source's rows: an aggregate over an incomplete table is refused, never computed from the part.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "rows": {"type": "array", "items": {"type": "object"}, "description": "The rows, each an object of named columns."},
      "key_column": {"type": "string", "description": "The column that names each row (unique per row)."},
      "total_rows": {"type": "integer", "minimum": 0, "description": "How many rows the source had."}
    },
    "required": ["rows"],
    "additionalProperties": false
  }
},
{
  "name": "record_domain",
  "title": "Record a set of names",
  "description": "Record a set of entity names a tool returned (e.g. every campaign that exists) as a write-once domain, so that a check can tell a recorded name from an invented one.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "members": {"type": "array", "items": {"type": "string"}, "description": "The names, without duplicates."}
    },
    "required": ["members"],
    "additionalProperties": false
  }
},
{
  "name": "list_facts",
  "title": "List the recorded facts",
  "description": "Every recorded fact with its provenance and values, in record order, one page at a time (pass nextCursor back as cursor for the next page); a ranking comes as its order computed in code, best first. Phrase these; do not recompute or reorder them.",
  "inputSchema": {"type": "object", "properties": {"cursor": {"type": "string", "description": "The nextCursor of the previous page; absent for the first."}}, "additionalProperties": false},
  "outputSchema": {
    "type": "object",
    "properties": {
      "facts": {"type": "object", "additionalProperties": {"type": "object", "properties": {
        "kind": {"type": "string", "enum": ["fact", "ranking", "table", "domain"]},
        "provenance": {"type": "object"}}, "required": ["kind", "provenance"]}},
      "nextCursor": {"type": "string", "description": "Present when more facts follow: pass it as cursor."}
    },
    "required": ["facts"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
},
{
  "name": "check",
  "title": "Check a structured answer against the facts",
  "description": "Check a model's structured answer against recorded facts. facts: the fact names the answer may lean on, or an object of inline definitions {name: {kind: fact|ranking|table|domain, ...the matching record_* arguments}} recorded for this call only (one call carries everything). checks: check specs, e.g. {\"check\": \"superlative\", \"fact\": \"campaign_ctr\"} (superlative, ranking_prefix, aggregate_reconciles, entities_recorded, row_integrity, comparison, actions_performed). output: the answer, a JSON object of named fields. A rejected claim is ok: false with findings and a correction to send back to the model; a misconfigured check is a tool error, to be fixed rather than re-asked.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "facts": {"description": "Either an array of the names of recorded facts the answer may lean on, or an object of inline definitions {name: {kind: fact|ranking|table|domain, ...the matching record_* arguments}} recorded for this call only."},
      "checks": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
        "check": {"type": "string", "enum": ["superlative", "ranking_prefix", "aggregate_reconciles", "entities_recorded", "row_integrity", "comparison", "actions_performed"]}},
        "required": ["check"]}, "description": "The checks to run, each {check, ...its members}."},
      "output": {"type": "object", "description": "The model's answer: structured fields, never prose."}
    },
    "required": ["facts", "checks", "output"],
    "additionalProperties": false
  },
  "outputSchema": {
    "type": "object",
    "properties": {
      "ok": {"type": "boolean"},
      "findings": {"type": "array", "items": {"type": "object", "properties": {
        "check": {"type": "string"}, "field": {"type": "string"}, "said": {"type": "string"},
        "supported": {"type": "string"}, "fact": {"type": "string"}, "provenance": {"type": "string"},
        "detail": {"type": "string"}, "message": {"type": "string"}},
        "required": ["check", "field", "said", "supported", "fact", "provenance", "detail", "message"]}},
      "correction": {"type": "string", "description": "For the model: what was rejected and what the facts support; empty when ok."}
    },
    "required": ["ok", "findings", "correction"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
}
])JSON");
    static const nlohmann::ordered_json with_schemas = [] {
      nlohmann::ordered_json out = defs;
      // Every record_* tool takes the fact's name first and its provenance last.
      const auto name = nlohmann::ordered_json::parse(
          R"({"name": {"type": "string", "description": "The fact's name; write-once."}})");
      const auto provenance = nlohmann::ordered_json::parse(R"({
        "tool": {"type": "string", "description": "The tool whose call returned the value, e.g. warehouse.query."},
        "args": {"type": "object", "description": "That call's arguments."}
      })");
      for (auto& tool : out) {
        if (tool["name"].get_ref<const std::string&>().rfind("record_", 0) != 0) continue;
        auto& input = tool["inputSchema"];
        nlohmann::ordered_json properties = name;
        properties.update(input["properties"]);
        properties.update(provenance);
        input["properties"] = std::move(properties);
        auto required = nlohmann::ordered_json::array({"name"});
        for (const auto& r : input["required"]) required.push_back(r);
        required.push_back("tool");
        input["required"] = std::move(required);
        tool["outputSchema"] = recorded_output_schema();
        tool["annotations"] = record_annotations();
      }
      return out;
    }();
    return with_schemas;
  }

  ServerOptions options_;
  FactRegistry registry_;
  Session* session_ = nullptr;
  std::optional<AgentPort> port_;
  nlohmann::ordered_json tools_ = nlohmann::ordered_json::array();
  std::vector<std::string> tool_names_;  // tools_' names, for has_tool on every call
  std::string protocol_version_;
  bool initialized_ = false;
  std::string_view output_text_;  // a check call's output as the line being handled wrote it
};

}  // namespace groundplane::mcp
