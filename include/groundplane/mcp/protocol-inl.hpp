// The bodies of mcp/protocol.hpp: included by it in the header-only build, compiled once
// into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/mcp/protocol.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json/deep_json.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/json_text.hpp"
#include "groundplane/render.hpp"

namespace groundplane::mcp {

namespace detail {

// The id of a message read as plain JSON, for answering one that cannot be handled: a
// string or an integer, else null.
GROUNDPLANE_INLINE nlohmann::ordered_json id_of(const nlohmann::json& message) {
  if (!message.is_object()) return nullptr;
  const auto it = message.find("id");
  if (it == message.end() || !(it->is_string() || it->is_number_integer())) return nullptr;
  return nlohmann::ordered_json(*it);
}

// Inside a tools/call's arguments (a fact value, a score, a claim) a number is data: what
// the call cannot take is that tool's error, as any argument of the wrong shape is.
// Anywhere else — the id, params, a count such as total_rows — it is invalid params.
GROUNDPLANE_INLINE bool data_position(const nlohmann::json& message, std::string_view pointer) {
  constexpr std::string_view arguments = "/params/arguments";
  return message.is_object() && message.contains("id") && message.value("method", std::string()) == "tools/call" &&
         pointer.substr(0, arguments.size()) == arguments &&
         (pointer.size() == arguments.size() || pointer[arguments.size()] == '/') &&
         pointer != "/params/arguments/total_rows";  // a count, not data
}

// Where a `check` call's output stands: the model's answer, whose numbers are data
// however wide (1e400 is exact, 1e999999 a finding) and whose repeated keys are findings,
// judged by the check. "" when the message is not a check call.
template <class Json>
std::string_view check_output_at(const Json& message) {
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

// Whether `pointer` is at or under `at` ("" is nowhere).
GROUNDPLANE_INLINE bool inside(std::string_view pointer, std::string_view at) {
  return !at.empty() && pointer.substr(0, at.size()) == at &&
         (pointer.size() == at.size() || pointer[at.size()] == '/');
}

}  // namespace detail

GROUNDPLANE_INLINE Protocol::Protocol(ServerOptions options) : options_(std::move(options)) { build_tools(); }

GROUNDPLANE_INLINE Protocol::~Protocol() {
  if (options_.pool) {
    options_.pool->facts -= recorded_facts_;
    options_.pool->bytes -= recorded_bytes_;
  }
}

GROUNDPLANE_INLINE Protocol::Protocol(Session& session, ServerOptions options)
    : options_(std::move(options)), session_(&session) {
  port_.emplace(session);
  build_tools();
}

GROUNDPLANE_INLINE void Protocol::build_tools() {
  tools_ = detail::checker_tool_definitions();
  if (port_)
    for (const auto& tool : detail::session_tool_definitions()) tools_.push_back(tool);
  for (const auto& tool : tools_) tool_names_.push_back(tool["name"].get<std::string>());
}

GROUNDPLANE_INLINE bool Protocol::has_tool(std::string_view name) const {
  for (const auto& t : tool_names_)
    if (t == name) return true;
  return false;
}

GROUNDPLANE_INLINE void Protocol::log(const std::string& line) const {
  const std::string text = "groundplane-mcp: " + line;
  if (options_.log) {
    options_.log(text);
  } else {
    std::cerr << text << '\n';
    std::cerr.flush();
  }
}

GROUNDPLANE_INLINE void Protocol::record_facts(const nlohmann::ordered_json& definitions) {
  detail::record_definitions(definitions, registry_, "fact definition ");
}

GROUNDPLANE_INLINE std::optional<std::string> Protocol::handle_line(std::string_view line, bool unterminated) {
  if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::nullopt;
  try {
    auto reply = read_and_handle(line, unterminated);
    if (!reply) return std::nullopt;
    return std::move(*reply).take_text();
  } catch (const std::bad_alloc&) {
    log("out of memory reading a " + std::to_string(line.size()) + "-byte message");
    return detail::dump(error_response(nullptr, error_code::internal_error, "Internal error: out of memory"));
  } catch (const nlohmann::ordered_json::exception& e) {  // not reachable by design; never escapes
    log("internal error reading a message: " + groundplane::detail::escape(e.what(), 300));
    return detail::dump(error_response(nullptr, error_code::internal_error,
                                       "Internal error: " + groundplane::detail::escape(e.what(), 300)));
  }
}

GROUNDPLANE_INLINE std::optional<nlohmann::ordered_json> Protocol::handle(const nlohmann::ordered_json& message) {
  // Held to max_depth as a line is: what runs below may copy it recursively.
  if (!groundplane::detail::json_extent(message, options_.max_depth).too_deep.empty()) {
    note("refused a message nested deeper than " + std::to_string(options_.max_depth) + " levels");
    const auto id = message.is_object() ? message.find("id") : message.end();
    return error_response(id != message.end() && (id->is_string() || id->is_number_integer()) ? *id : nullptr,
                          error_code::invalid_request,
                          "Invalid Request: JSON nested deeper than " + std::to_string(options_.max_depth) + " levels");
  }
  auto reply = respond(message, detail::Form::json);
  if (!reply) return std::nullopt;
  return std::move(*reply).take_json();
}

GROUNDPLANE_INLINE nlohmann::ordered_json Protocol::call_tool(std::string_view name,
                                                              const nlohmann::ordered_json& arguments) {
  // Held to max_depth as a message's are: what runs below may copy them recursively.
  const groundplane::detail::JsonExtent extent = groundplane::detail::json_extent(arguments, options_.max_depth);
  if (!extent.too_deep.empty())
    return detail::tool_error("invalid arguments: " + std::string(name) + "'s arguments are nested deeper than " +
                              std::to_string(options_.max_depth) + " levels (" + extent.too_deep +
                              "); nothing was run");
  return run_tool(name, arguments, detail::Form::json).take_json();
}

// --- JSON-RPC dispatch ----------------------------------------------------------------

GROUNDPLANE_INLINE std::optional<detail::Written> Protocol::respond(const nlohmann::ordered_json& message,
                                                                    detail::Form form) {
  const detail::Incoming in = detail::read_incoming(message);
  switch (in.kind) {
    case detail::Incoming::Kind::invalid:
      return in.error;
    case detail::Incoming::Kind::response:
      note("ignored a response to a request this server never sent");
      return std::nullopt;
    case detail::Incoming::Kind::notification:
      notified(in.method);
      return std::nullopt;
    case detail::Incoming::Kind::request:
      break;
  }
  return serve(in, form);
}

GROUNDPLANE_INLINE void Protocol::notified(std::string_view method) {
  using groundplane::detail::quote;
  if (method == "notifications/initialized") {
    initialized_ = true;
  } else if (method.rfind("notifications/", 0) == 0) {
    note("ignored notification " + quote(method));
  } else {
    // A problem, not a routine event: the caller meant a request and will never see its outcome.
    log("ignored " + quote(method) + " sent without an id: a notification is never answered, so it was not run");
  }
}

GROUNDPLANE_INLINE detail::Written Protocol::serve(const detail::Incoming& request, detail::Form form) {
  using groundplane::detail::escape;
  using groundplane::detail::quote;
  const std::string_view method = request.method;
  try {
    if (method == "initialize") return initialize(request.id, *request.params, request.has_params);
    if (method == "ping") return success(request.id, nlohmann::ordered_json::object());
    if (method == "tools/list") return list_tools(request.id, *request.params);
    if (method == "tools/call") return call(request.id, *request.params, request.has_params, form);
  } catch (const std::bad_alloc&) {
    log("out of memory serving " + quote(method));
    return error_response(request.id, error_code::internal_error, "Internal error: out of memory");
  } catch (const std::exception& e) {
    log("internal error serving " + quote(method) + ": " + escape(e.what(), 400));
    return error_response(request.id, error_code::internal_error, "Internal error: " + escape(e.what(), 400));
  }
  note("method not found: " + quote(method));
  return error_response(request.id, error_code::method_not_found, "Method not found: " + quote(method));
}

// --- reading a line -------------------------------------------------------------------

GROUNDPLANE_INLINE std::optional<detail::Written> Protocol::read_and_handle(std::string_view line, bool unterminated) {
  // JSON text never holds a NUL byte, and nlohmann's reader takes one as the end of its
  // input: `{...}\0garbage` would be read as the message before it.
  if (const auto nul = line.find('\0'); nul != std::string_view::npos) {
    note("parse error: a NUL byte at byte " + std::to_string(nul));
    return error_response(
        nullptr, error_code::parse_error,
        "Parse error: a NUL byte at byte " + std::to_string(nul) + "; a message is JSON text, which never holds one");
  }
  // The bytes a record_* call in this line counts against the limits.
  message_bytes_ = line.size();
  struct Forget {
    std::size_t& bytes;
    ~Forget() { bytes = 0; }
  } const forget{message_bytes_};
  // One pass for a line within bounds; the prescan runs only for a line the builder stopped
  // on (not JSON, too deep, a repeated key, a wide number).
  const JsonTextOptions reading{.max_depth = options_.max_depth};
  detail::MessageBuilder builder(line, reading);
  // A key repeated in the output is the check's to judge; in a message that is not a
  // check call it is refused as any other repeated key is, by reading the line again.
  if (builder.read(line) && (!builder.output_repeats_key() || !detail::check_output_at(builder.peek()).empty()))
    return handle_read(builder);
  return read_again(line, unterminated, groundplane::detail::json_prescan(line, reading));
}

GROUNDPLANE_INLINE std::optional<detail::Written> Protocol::handle_read(detail::MessageBuilder& builder) {
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
GROUNDPLANE_INLINE std::optional<detail::Written> Protocol::read_again(std::string_view line, bool unterminated,
                                                                       const groundplane::detail::JsonPrescan& scan) {
  using groundplane::detail::quote;
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
  const std::string_view output_at = detail::check_output_at(plain);
  const auto& repeats = doc.duplicate_keys();
  const auto repeat = std::find_if(repeats.begin(), repeats.end(),
                                   [&](const auto& d) { return !detail::inside(d.pointer, output_at); });
  if (repeat != repeats.end()) {
    // Never last-wins: which of the two values was meant cannot be known.
    const auto& d = *repeat;
    const std::string what = "the key " + quote(d.key, 80) + " appears twice in the object at " +
                             quote(d.pointer.empty() ? std::string("/") : d.pointer, 120);
    if (detail::data_position(plain, d.pointer))
      return success(detail::id_of(plain), detail::tool_error("invalid arguments: " + what + "; send it once"));
    return error_response(detail::id_of(plain), error_code::invalid_request, "Invalid Request: " + what);
  }
  // A number no double holds is refused, except in a check's output, where the check
  // judges it as written.
  if (const auto wide = detail::find_wide_number(doc, output_at)) {
    const std::string& pointer = wide->pointer;
    const std::string what =
        "the number " + quote(wide->text, 60) + " at " + quote(pointer.empty() ? std::string("/") : pointer, 120) +
        (wide->out_of_range ? " is out of range (more than 100 significant digits, or past 10^1000 or 10^-1000)"
                            : " is past a double's range");
    if (detail::data_position(plain, pointer))
      return success(detail::id_of(plain),
                     detail::tool_error("invalid arguments: " + what +
                                        "; a recorded value must fit a double or a 64-bit integer"));
    return error_response(detail::id_of(plain), error_code::invalid_params, "Invalid params: " + what);
  }
  // Every wide number and repeated key is in a check's output: the message is built from
  // the line with the numbers blanked out (same length, so the output's bytes stand where
  // they stood), and the check reads the output from the line itself.
  const std::string blanked = groundplane::detail::blank_substitutes(line, scan);
  detail::MessageBuilder builder(line, {.max_depth = options_.max_depth});
  if (!builder.read(blanked))  // a repeated key past the ones JsonText lists, outside the output
    return error_response(detail::id_of(plain), error_code::invalid_request,
                          "Invalid Request: a key appears twice in one object; send each key once");
  return handle_read(builder);
}

// --- the MCP methods ------------------------------------------------------------------

GROUNDPLANE_INLINE nlohmann::ordered_json Protocol::initialize(const nlohmann::ordered_json& id,
                                                               const nlohmann::ordered_json& params, bool has_params) {
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
    note("client asked for revision " + groundplane::detail::quote(v->get_ref<const std::string&>(), 80) +
         "; answering with " + chosen);
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

GROUNDPLANE_INLINE nlohmann::ordered_json Protocol::list_tools(const nlohmann::ordered_json& id,
                                                               const nlohmann::ordered_json& params) const {
  if (const auto c = params.find("cursor"); c != params.end() && !c->is_null())
    return error_response(id, error_code::invalid_params,
                          c->is_string() ? "Invalid params: unknown cursor; tools/list has one page"
                                         : "Invalid params: \"cursor\" must be a string");
  return success(id, {{"tools", tools_}});
}

GROUNDPLANE_INLINE detail::Written Protocol::call(const nlohmann::ordered_json& id,
                                                  const nlohmann::ordered_json& params, bool has_params,
                                                  detail::Form form) {
  using groundplane::detail::quote;
  if (!has_params)
    return error_response(id, error_code::invalid_params, "Invalid params: tools/call needs {name, arguments}");
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string())
    return error_response(id, error_code::invalid_params,
                          "Invalid params: tools/call needs the tool's \"name\" as a string");
  const std::string& tool = name->get_ref<const std::string&>();
  if (!has_tool(tool)) return error_response(id, error_code::invalid_params, "Unknown tool: " + quote(tool));
  const auto args = params.find("arguments");
  if (args != params.end() && !args->is_null() && !args->is_object())
    return error_response(id, error_code::invalid_params,
                          "Invalid params: tools/call \"arguments\" must be an object, got " +
                              std::string(groundplane::detail::type_name(*args)));
  detail::Written result = run_tool(tool, args == params.end() ? detail::empty_object() : *args, form);
  if (result.is_text()) return detail::Written::text(detail::success_text(id, std::move(result).take_text()));
  if (result.json()->value("isError", false))
    note("tool " + quote(tool) + " returned an error: " +
         groundplane::detail::escape((*result.json())["content"][0]["text"].get<std::string>(), 300));
  return success(id, std::move(result).take_json());
}

// --- the tools ------------------------------------------------------------------------

GROUNDPLANE_INLINE detail::Written Protocol::run_tool(std::string_view name, const nlohmann::ordered_json& arguments,
                                                      detail::Form form) {
  const nlohmann::ordered_json& args = arguments.is_null() ? detail::empty_object() : arguments;
  try {
    if (!args.is_object())
      detail::Arguments::fail("the arguments of " + std::string(name) + " must be an object, got " +
                              std::string(groundplane::detail::type_name(args)));
    return run_checked_tool(name, args, form);
  } catch (const ConfigurationError& e) {
    return detail::tool_error(e.what());
  } catch (const Error& e) {
    return detail::tool_error(e.what());
  }
}

// run_tool() once the arguments are an object; a developer's error is thrown.
GROUNDPLANE_INLINE detail::Written Protocol::run_checked_tool(std::string_view name, const nlohmann::ordered_json& args,
                                                              detail::Form form) {
  if (name == "record_fact" || name == "record_ranking" || name == "record_table" || name == "record_domain" ||
      (session_ && name == "record_ledger"))
    return record_within_limits(name, args);
  if (name == "list_facts") return detail::list_facts(args, registry_, options_.page_size);
  if (name == "check")
    return detail::check(args, registry_, output_text_,
                         {.max_depth = options_.max_depth, .max_checks = options_.max_checks}, form);
  if (port_ && detail::is_agent_tool(name)) {
    std::string failure;
    auto result = detail::call_agent_tool(*port_, name, args, failure);
    if (!failure.empty()) log(failure);
    return result;
  }
  return detail::tool_error("Unknown tool: " + groundplane::detail::quote(name));
}

GROUNDPLANE_INLINE detail::Written Protocol::record_within_limits(std::string_view name,
                                                                  const nlohmann::ordered_json& args) {
  const std::size_t bytes = message_bytes_ > 0 ? message_bytes_ : detail::dump(args).size();
  const auto refuse = [&](const std::string& what, std::size_t limit, const char* flag) {
    log(std::string(name) + " refused: " + what);
    return detail::tool_error(std::string(name) + " refused: " + what + ", over the limit of " + std::to_string(limit) +
                              " (" + flag +
                              "); nothing was recorded. Check against the facts already recorded, or start a new "
                              "session.");
  };
  if (recorded_facts_ + 1 > options_.max_facts)
    return refuse("this session holds " + std::to_string(recorded_facts_) + " recorded facts", options_.max_facts,
                  "--max-facts");
  if (recorded_bytes_ + bytes > options_.max_fact_bytes)
    return refuse("this session's record calls would come to " + std::to_string(recorded_bytes_ + bytes) + " bytes",
                  options_.max_fact_bytes, "--max-fact-bytes");
  FactPool* pool = options_.pool.get();
  if (pool) {
    if (pool->facts.fetch_add(1) + 1 > pool->max_facts) {
      pool->facts -= 1;
      return refuse("every session together holds " + std::to_string(pool->max_facts) + " recorded facts",
                    pool->max_facts, "--max-total-facts");
    }
    if (pool->bytes.fetch_add(bytes) + bytes > pool->max_bytes) {
      pool->facts -= 1;
      pool->bytes -= bytes;
      return refuse("every session's record calls together would pass " + std::to_string(pool->max_bytes) + " bytes",
                    pool->max_bytes, "--max-total-fact-bytes");
    }
  }
  try {
    detail::Written result = name == "record_fact"      ? detail::recorded(detail::record_fact(args, registry_))
                             : name == "record_ranking" ? detail::recorded(detail::record_ranking(args, registry_))
                             : name == "record_table"   ? detail::recorded(detail::record_table(args, registry_))
                             : name == "record_domain"  ? detail::recorded(detail::record_domain(args, registry_))
                                                        : detail::record_session_ledger(args, registry_, *session_);
    recorded_facts_ += 1;
    recorded_bytes_ += bytes;
    return result;
  } catch (...) {  // refused: nothing recorded, nothing counted
    if (pool) {
      pool->facts -= 1;
      pool->bytes -= bytes;
    }
    throw;
  }
}

}  // namespace groundplane::mcp
