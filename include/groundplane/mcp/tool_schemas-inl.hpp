// The bodies of mcp/tool_schemas.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
//
// Each schema is written by Schema's calls in the order its members appear on the wire,
// so the code reads as the JSON a client receives. Enumerated names (a fact's kind, a
// ranking's direction) come from the library's own to_string, never a second list.
#pragma once

#include "groundplane/mcp/tool_schemas.hpp"

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/agent_port.hpp"
#include "groundplane/check_from_json.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/mcp/tool_result.hpp"

namespace groundplane::mcp::detail {

// A JSON Schema, member by member in the order the calls are made.
class Schema {
 public:
  Schema() : j_(nlohmann::ordered_json::object()) {}  // no "type": any value
  explicit Schema(std::string_view type) : Schema() { j_["type"] = std::string(type); }
  explicit Schema(std::initializer_list<std::string_view> types) : Schema() { j_["type"] = strings(types); }
  static Schema of(nlohmann::ordered_json schema) {
    Schema s;
    s.j_ = std::move(schema);
    return s;
  }

  Schema& property(std::string_view name, const Schema& schema) {
    j_["properties"][std::string(name)] = schema.j_;
    return *this;
  }
  // An object schema with no properties written yet ("properties": {}).
  Schema& no_properties() {
    j_["properties"] = nlohmann::ordered_json::object();
    return *this;
  }
  Schema& required(std::initializer_list<std::string_view> names) {
    j_["required"] = strings(names);
    return *this;
  }
  Schema& required(const std::vector<std::string_view>& names) {
    j_["required"] = strings(names);
    return *this;
  }
  Schema& closed() {  // no property but the listed ones
    j_["additionalProperties"] = false;
    return *this;
  }
  Schema& values(const Schema& schema) {  // every property's schema
    j_["additionalProperties"] = schema.j_;
    return *this;
  }
  Schema& items(const Schema& schema) {
    j_["items"] = schema.j_;
    return *this;
  }
  Schema& min_items(int n) {
    j_["minItems"] = n;
    return *this;
  }
  Schema& minimum(int n) {
    j_["minimum"] = n;
    return *this;
  }
  Schema& one_of(std::initializer_list<std::string_view> names) {
    j_["enum"] = strings(names);
    return *this;
  }
  Schema& describe(std::string_view text) {
    j_["description"] = std::string(text);
    return *this;
  }
  const nlohmann::ordered_json& json() const noexcept { return j_; }

 private:
  template <class Names>
  static nlohmann::ordered_json strings(const Names& names) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto n : names) list.push_back(std::string(n));
    return list;
  }
  nlohmann::ordered_json j_;
};

// The four MCP hints. No tool reaches beyond this server's own registry or app, so none
// is open-world.
struct Hints {
  bool read_only = false;
  bool destructive = false;
  bool idempotent = false;
};
// check, list_facts, whats_here read.
inline constexpr Hints reads{.read_only = true, .destructive = false, .idempotent = true};
// The record_* tools (and record_ledger) add a fact: not read-only, but write-once, so a
// repeat of the same call changes nothing (it is refused) and destroys nothing.
inline constexpr Hints records{.read_only = false, .destructive = false, .idempotent = true};
// do_action runs one of the app's actions, which may change or delete what the app holds
// (placing an order, say) and is not safe to repeat.
inline constexpr Hints acts{.read_only = false, .destructive = true, .idempotent = false};

// One tools/list entry.
struct ToolDefinition {
  std::string_view name;
  std::string_view title;
  std::string_view description;
  Schema input;
  Schema output;
  Hints hints;
};

GROUNDPLANE_INLINE nlohmann::ordered_json definition(const ToolDefinition& t) {
  nlohmann::ordered_json annotations = object_of(4);
  annotations["readOnlyHint"] = t.hints.read_only;
  annotations["destructiveHint"] = t.hints.destructive;
  annotations["idempotentHint"] = t.hints.idempotent;
  annotations["openWorldHint"] = false;
  nlohmann::ordered_json tool = object_of(6);
  tool["name"] = std::string(t.name);
  tool["title"] = std::string(t.title);
  tool["description"] = std::string(t.description);
  tool["inputSchema"] = t.input.json();
  tool["outputSchema"] = t.output.json();
  tool["annotations"] = std::move(annotations);
  return tool;
}

// --- the record_* tools ---------------------------------------------------------------

// A record_* tool's inputSchema: the fact's name, the tool's own properties (`own`), then
// the call that produced the data; `own_required` between "name" and "tool".
GROUNDPLANE_INLINE Schema record_input(std::initializer_list<std::pair<std::string_view, Schema>> own,
                                       std::initializer_list<std::string_view> own_required) {
  Schema input("object");
  input.property("name", Schema("string").describe("The fact's name; write-once."));
  for (const auto& [name, schema] : own) input.property(name, schema);
  input.property("tool", Schema("string").describe("The tool whose call returned the value, e.g. warehouse.query."));
  input.property("args", Schema("object").describe("That call's arguments."));
  std::vector<std::string_view> required{"name"};
  required.insert(required.end(), own_required.begin(), own_required.end());
  required.emplace_back("tool");
  return input.required(required).closed();
}

// What every record_* tool (and record_ledger) returns.
GROUNDPLANE_INLINE Schema recorded_output() {
  return Schema("object")
      .property("recorded", Schema("string").describe("The fact's name."))
      .property("kind", Schema("string").one_of({to_string(FactKind::fact), to_string(FactKind::ranking),
                                                 to_string(FactKind::table), to_string(FactKind::domain)}))
      .property("provenance", Schema("object")
                                  .property("tool", Schema("string"))
                                  .property("args", Schema("object"))
                                  .required({"tool", "args"}))
      .property("size", Schema("integer").describe("Entities, rows or members recorded; 1 for a fact."))
      .required({"recorded", "kind", "provenance", "size"});
}

GROUNDPLANE_INLINE nlohmann::ordered_json record_tool(std::string_view name, std::string_view title,
                                                      std::string_view description, Schema input) {
  return definition({.name = name,
                     .title = title,
                     .description = description,
                     .input = std::move(input),
                     .output = recorded_output(),
                     .hints = records});
}

GROUNDPLANE_INLINE nlohmann::ordered_json record_fact_tool() {
  return record_tool(
      "record_fact", "Record a fact",
      "Record one value a tool returned (any JSON: a number, string, bool, object or array) as a write-once fact, "
      "with the tool call that produced it as its provenance. A changed value is a new fact under a new name.",
      record_input({{"value", Schema().describe("The value the tool returned (any JSON value).")}}, {"value"}));
}

GROUNDPLANE_INLINE nlohmann::ordered_json record_ranking_tool() {
  const Schema scores = Schema("object")
                            .values(Schema("number"))
                            .describe("Entity to score, in the order the tool listed them (that order breaks ties).");
  const Schema direction = Schema("string")
                               .one_of({to_string(Direction::higher_is_better), to_string(Direction::lower_is_better)})
                               .describe("Default " + std::string(to_string(Direction::higher_is_better)) + ".");
  return record_tool(
      "record_ranking", "Record a ranking",
      "Record the scores a tool returned per entity (e.g. click-through rate per campaign) as a write-once ranking. "
      "The order is computed here, never by the model; list_facts shows it best first.",
      record_input({{"scores", scores},
                    {"key", Schema("string").describe("The measured quantity, e.g. ctr.")},
                    {"direction", direction}},
                   {"scores", "key"}));
}

GROUNDPLANE_INLINE nlohmann::ordered_json record_table_tool() {
  return record_tool(
      "record_table", "Record a table",
      "Record the rows a tool returned as a write-once table. Set total_rows when the tool returned only part of the "
      "source's rows: an aggregate over an incomplete table is refused, never computed from the part.",
      record_input(
          {{"rows", Schema("array").items(Schema("object")).describe("The rows, each an object of named columns.")},
           {"key_column", Schema("string").describe("The column that names each row (unique per row).")},
           {"total_rows", Schema("integer").minimum(0).describe("How many rows the source had.")}},
          {"rows"}));
}

GROUNDPLANE_INLINE nlohmann::ordered_json record_domain_tool() {
  return record_tool(
      "record_domain", "Record a set of names",
      "Record a set of entity names a tool returned (e.g. every campaign that exists) as a write-once domain, so "
      "that a check can tell a recorded name from an invented one.",
      record_input({{"members", Schema("array")
                                    .items(Schema({"string", "integer"}))
                                    .describe("The names or integer ids, without duplicates.")}},
                   {"members"}));
}

// --- list_facts and check -------------------------------------------------------------

GROUNDPLANE_INLINE nlohmann::ordered_json list_facts_tool() {
  const Schema fact =
      Schema("object")
          .property("kind", Schema("string").one_of({to_string(FactKind::fact), to_string(FactKind::ranking),
                                                     to_string(FactKind::table), to_string(FactKind::domain)}))
          .property("provenance", Schema("object"))
          .required({"kind", "provenance"});
  return definition(
      {.name = "list_facts",
       .title = "List the recorded facts",
       .description = "Every recorded fact with its provenance and values, in record order, one page at a time (pass "
                      "nextCursor back as cursor for the next page); a ranking comes as its order computed in code, "
                      "best first. Phrase these; do not recompute or reorder them.",
       .input = Schema("object")
                    .property("cursor",
                              Schema("string").describe("The nextCursor of the previous page; absent for the first."))
                    .closed(),
       .output =
           Schema("object")
               .property("facts", Schema("object").values(fact))
               .property("nextCursor", Schema("string").describe("Present when more facts follow: pass it as cursor."))
               .required({"facts"}),
       .hints = reads});
}

// check's "facts" takes two shapes and so declares no type: agent frameworks that turn
// an inputSchema into a validator (LangChain's, through @langchain/mcp-adapters)
// reject every call when it is written as anyOf.
GROUNDPLANE_INLINE Schema check_input() {
  const Schema spec = Schema::of(groundplane::detail::check_spec_schema());
  return Schema("object")
      .property("facts", Schema().describe(
                             "Either an array of the names of recorded facts the answer may lean on, or an object of "
                             "inline definitions {name: {kind: fact|ranking|table|domain, ...the matching record_* "
                             "arguments}} recorded for this call only."))
      .property("checks",
                Schema("array").min_items(1).items(spec).describe("The checks to run, each {check, ...its members}."))
      .property("output", Schema("object").describe(
                              "The model's answer: structured fields (prose only in the prose_field, as a template)."))
      .property("prose_field",
                Schema("string").describe(
                    "Optional: the output's string field holding the answer as prose, a template whose every number "
                    "and recorded name is a slot {field} bound to a checked field; the result's prose renders it."))
      .property("free_fields",
                Schema("array")
                    .items(Schema("string"))
                    .describe("Optional, with prose_field: fields a prose slot may insert though no check reads them."))
      .required({"facts", "checks", "output"})
      .closed();
}

GROUNDPLANE_INLINE Schema check_output() {
  Schema finding("object");
  for (const std::string_view member :
       {"check", "field", "said", "supported", "fact", "provenance", "detail", "message"})
    finding.property(member, Schema("string"));
  finding.required({"check", "field", "said", "supported", "fact", "provenance", "detail", "message"});
  return Schema("object")
      .property("ok", Schema("boolean"))
      .property("findings", Schema("array").items(finding))
      .property("correction", Schema("string").describe(
                                  "For the model: what was rejected and what the facts support; empty when ok."))
      .property("passed", Schema("array").items(Schema("string")).describe("The checks that passed, by name."))
      .property("failed", Schema("array").items(Schema("string")).describe("The checks that failed, by name."))
      .property("warnings",
                Schema("array").items(Schema("string")).describe("What was checked less than fully, and why."))
      .property("prose",
                Schema("string").describe("With prose_field: the accepted prose, each slot filled; empty otherwise."))
      .required({"ok", "findings", "correction", "passed", "failed", "warnings", "prose"});
}

GROUNDPLANE_INLINE nlohmann::ordered_json check_tool() {
  return definition(
      {.name = "check",
       .title = "Check a structured answer against the facts",
       .description =
           "Check a model's structured answer against recorded facts. facts: the fact names the answer may lean on, "
           "or an object of inline definitions {name: {kind: fact|ranking|table|domain, ...the matching record_* "
           "arguments}} recorded for this call only (one call carries everything). checks: check specs, e.g. "
           "{\"check\": \"superlative\", \"fact\": \"campaign_ctr\"}; the inputSchema lists each check and "
           "the members it reads. output: the answer, a JSON object of named fields. A rejected claim is ok: false "
           "with findings and a correction to "
           "send back to the model; a misconfigured check is a tool error, to be fixed rather than re-asked.",
       .input = check_input(),
       .output = check_output(),
       .hints = reads});
}

GROUNDPLANE_INLINE const nlohmann::ordered_json& checker_tool_definitions() {
  static const nlohmann::ordered_json tools =
      nlohmann::ordered_json::array({record_fact_tool(), record_ranking_tool(), record_table_tool(),
                                     record_domain_tool(), list_facts_tool(), check_tool()});
  return tools;
}

// --- the tools a Session adds ---------------------------------------------------------

GROUNDPLANE_INLINE Schema whats_here_output() {
  const Schema action =
      Schema("object")
          .property("id", Schema("string"))
          .property("does", Schema("string"))
          .property("enabled", Schema("boolean"))
          .property("already_performed", Schema("boolean"))
          .property("expects",
                    Schema::of(nlohmann::json::object()).describe("the input it takes: a JSON Schema, or \"none\""))
          .property("human_decides",
                    Schema("boolean").describe("its choice is the person's: present the options, do not choose"))
          .property("stale_reads",
                    Schema("array")
                        .items(Schema("string"))
                        .describe("state keys it reads that someone else changed since since_version, or this session"))
          .property(
              "stale_writes",
              Schema("array")
                  .items(Schema("string"))
                  .describe("state keys it writes that someone else changed since since_version, or this session"))
          .property("instances", Schema("array")
                                     .items(Schema("string"))
                                     .describe("the items it acts on (the first 50): name one in do_action's instance"))
          .property("instances_total", Schema("integer"))
          .property("instances_unavailable", Schema("boolean").describe("the app could not list its items"))
          .required({"id", "does"});
  const Schema doubt = Schema("object")
                           .property("transition_id", Schema("string"))
                           .property("action", Schema("string"))
                           .property("idempotency_key", Schema("string"))
                           .property("instance", Schema("string"))
                           .required({"transition_id", "action", "idempotency_key"});
  return Schema("object")
      .property("facts", Schema("string").describe("the app's own record; it outranks the conversation"))
      .property("node", Schema("string"))
      .property("version", Schema("integer"))
      .property("actions", Schema("array").items(action))
      .property("in_doubt", Schema("array").items(doubt).describe(
                                "fires the app stopped in: whether they happened is not known yet (the first 50)"))
      .property("in_doubt_total", Schema("integer"))
      .required({"facts", "node", "version", "actions"});
}

GROUNDPLANE_INLINE Schema do_action_output() {
  return Schema("object")
      .property("ok", Schema("boolean"))
      .property("reason", Schema("string"))
      .property("message", Schema("string"))
      .property("transition_id", Schema("string"))
      .property("ask_id", Schema("string"))
      .property("prior_transition_id", Schema("string"))
      .property("issues", Schema("array").items(Schema("string")))
      .property("expects", Schema::of(nlohmann::json::object()))
      .property("data", Schema::of(nlohmann::json::object()).describe("what the action handed back"))
      .property("data_omitted", Schema("object").property("bytes", Schema("integer")))
      .property("settle_with",
                Schema("object").property("tool", Schema("string")).property("transition_id", Schema("string")))
      .property("verdict", Schema("string").describe("INSTANCE_UNKNOWN: never-existed, or unsupported"))
      .property("instances", Schema("array").items(Schema("string")))
      .property("instances_total", Schema("integer"))
      .property("instances_unavailable", Schema("boolean"))
      .property("replayed", Schema("boolean").describe(
                                "a retry of a request_key already used: the fire it made, nothing run again"))
      .property("settled", Schema("boolean"))
      .property("did", Schema("string").describe("yes, no or unknown"))
      .property("line", Schema("string"))
      .property("in_doubt", Schema("boolean"))
      .property("idempotency_key", Schema("string"))
      .property("facts", Schema("string").describe("the app's own record; it outranks the conversation"))
      .required({"ok", "facts"});
}

GROUNDPLANE_INLINE Schema did_it_work_output() {
  const Schema pending =
      Schema("object").property("transition_id", Schema("string")).property("action", Schema("string"));
  const Schema awaiting = Schema("object").property("ask_id", Schema("string")).property("action", Schema("string"));
  return Schema("object")
      .property("ok", Schema("boolean"))
      .property("settled", Schema("boolean"))
      .property("did", Schema("string").describe("yes, no or unknown"))
      .property("line", Schema("string"))
      .property("data", Schema::of(nlohmann::json::object()))
      .property("data_omitted", Schema("object").property("bytes", Schema("integer")))
      .property("message", Schema("string"))
      .property("ask", Schema("string"))
      .property("instance", Schema("string").describe("the item the fire or the ask was about"))
      .property("in_doubt", Schema("boolean").describe("the app stopped while it was under way: not known yet"))
      .property("idempotency_key", Schema("string").describe("what the system the app called knows the fire by"))
      .property("transition_id", Schema("string"))
      .property("reason", Schema("string"))
      .property("pending", Schema("array").items(pending).describe(
                               "every fire not settled yet: its handler still running, or awaiting the app's report"))
      .property("awaiting_human", Schema("array").items(awaiting))
      .property("facts", Schema("string").describe("the app's own record; it outranks the conversation"))
      .required({"ok", "facts"});
}

// whats_here, do_action or did_it_work as AgentPort defines it, with this server's
// title, output schema and hints (only do_action acts; the others read).
GROUNDPLANE_INLINE nlohmann::ordered_json agent_tool(const nlohmann::json& port_definition) {
  const std::string name = port_definition["name"].get<std::string>();
  const std::string description = port_definition["description"].get<std::string>();
  const bool acting = name == "do_action";
  const bool asking = name == "did_it_work";
  return definition({.name = name,
                     .title = acting   ? "Do an action in the app"
                              : asking ? "Ask how a fire turned out"
                                       : "See the app's state",
                     .description = description,
                     .input = Schema::of(port_definition["inputSchema"]),
                     .output = acting   ? do_action_output()
                               : asking ? did_it_work_output()
                                        : whats_here_output(),
                     .hints = acting ? acts : reads});
}

GROUNDPLANE_INLINE nlohmann::ordered_json record_ledger_tool() {
  return record_tool(
      "record_ledger", "Record the session's ledger",
      "Record every attempt this session has seen so far (fires, refusals included, each with its graded line) as a "
      "write-once table fact, so that an actions_performed check can hold a claim to have done something to what DID "
      "happen. The ledger grows: record each turn's under a new name.",
      Schema("object")
          .property("name", Schema("string").describe("The fact's name; write-once."))
          .required({"name"})
          .closed());
}

GROUNDPLANE_INLINE const nlohmann::ordered_json& session_tool_definitions() {
  static const nlohmann::ordered_json tools = [] {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& def : AgentPort::tools()) out.push_back(agent_tool(def));
    out.push_back(record_ledger_tool());
    return out;
  }();
  return tools;
}

}  // namespace groundplane::mcp::detail
