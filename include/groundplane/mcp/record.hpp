// gp::mcp::record_* — an MCP tool result becomes a fact, with the call as its provenance.
//
//   const gp::mcp::ToolCall call{.name = "warehouse.query",
//                                .arguments = {{"table", "campaign_daily"}, {"window", "7d"}}};
//   gp::mcp::record_ranking(reg, "campaign_ctr", call, result,
//                           {.key = "ctr", .rows = "/rows", .entity = "campaign"});
//
// Which part of a CallToolResult is the data:
//   * `structuredContent` wins whenever it is present: it is the tool's own data.
//   * Otherwise a single text block is used, and only if its text parses as JSON. Text is
//     a rendering of the data; reading prose back into numbers would be parsing again,
//     which is the failure this library exists to remove.
//   * `isError: true`, several text blocks (which one is the data?), a text block that is
//     not JSON, or no usable payload at all is gp::InvalidFact saying which. So is
//     anything the record itself refuses (see registry.hpp).
//
// gp::mcp::call_and_record (at the end) makes the call too, through a client the app
// already has, and records the result as a Fact: it takes text that is not JSON as a
// string, where record_* refuse it.
//
// The provenance is the call exactly as made: tool = the call's name, args = its
// arguments with their key order kept (nlohmann::ordered_json). A refused record changes
// nothing in the registry.
//
// The option structs are written with designated initializers, so their member order is
// part of the API: first what the registry's own options say (a ranking's key and
// direction, a table's key_column and total_rows, mirroring RankingOptions and
// TableOptions), then where in the payload the data is.
//
// Where the option structs name a place in the payload (`at`, `rows`, `members`,
// `total_rows_at`), "" is the payload itself, a name without a leading '/' is a
// top-level key, and a name starting with '/' is a JSON Pointer (RFC 6901) — the same
// rule the checks use for output fields.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/registry.hpp"

namespace groundplane::mcp {

// The tools/call request that produced a result: {name, arguments}.
struct ToolCall {
  std::string name;                                                     // the tool called
  nlohmann::ordered_json arguments = nlohmann::ordered_json::object();  // as sent, key order kept

  // From tools/call params {"name": .., "arguments": {..}}; InvalidFact when the shape is
  // wrong (no string name, arguments that are not an object).
  static ToolCall from_params(const nlohmann::ordered_json& params) {
    if (!params.is_object())
      throw InvalidFact("a tool call must be an object {name, arguments}, got " +
                        std::string(groundplane::detail::type_name(params)));
    const auto name = params.find("name");
    if (name == params.end() || !name->is_string())
      throw InvalidFact("a tool call needs its tool's name as a string in \"name\"");
    ToolCall call{.name = name->get<std::string>()};
    if (const auto args = params.find("arguments"); args != params.end() && !args->is_null()) {
      if (!args->is_object())
        throw InvalidFact("the arguments of a call to " + groundplane::detail::quote(call.name) +
                          " must be an object, got " + std::string(groundplane::detail::type_name(*args)));
      call.arguments = *args;
    }
    return call;
  }

  // tool = name; args = arguments (a call made without arguments has {}).
  Provenance provenance() const { return {name, arguments.is_null() ? ToolArgs() : ToolArgs(arguments)}; }
};

// record_fact: one JSON value (a number, string, bool, object or array).
struct FactResultOptions {
  std::string at = "";  // where the value is in the payload; "" = the payload itself
};

// record_ranking: entity -> score, from rows ([{entity column, score column}, ..]) or from
// an object {entity: score} (recorded order = the payload's order, which breaks ties).
struct RankingResultOptions {
  std::string key;  // the measured quantity, e.g. "ctr"
  Direction direction = Direction::higher_is_better;
  std::string rows = "";    // the rows array or the {entity: score} object; "" = the payload
  std::string entity = "";  // rows only: the column naming each row's entity (required for rows)
  std::string score = "";   // rows only: the column holding the score; "" = `key`
};

// record_table: rows of named columns.
struct TableResultOptions {
  std::optional<std::string> key_column = std::nullopt;
  std::optional<std::size_t> total_rows = std::nullopt;  // how many rows the source had
  std::string rows = "";                                 // the rows array; "" = the payload
  std::string total_rows_at = "";                        // or read total_rows from the payload (a count the tool
                                                         // reported, e.g. "total"); "" = not from the payload
};

// record_domain: a set of entity names.
struct DomainResultOptions {
  std::string members = "";  // the array of names (or of rows); "" = the payload
  std::string column = "";   // when the array holds rows: the column naming each member
};

namespace detail {
// "cannot record fact 'campaign_ctr' from warehouse.query(table='campaign_daily'): <why>"
[[noreturn]] void refuse(std::string_view fact, const ToolCall& call, std::string_view why);
// What call_and_record records from a result: the payload by the rules above, or else
// (no structuredContent, and no single JSON text block) its text blocks joined by "\n",
// as the JSON they spell or as a string. An error result is still refused.
nlohmann::json called_value(std::string_view fact, const ToolCall& call, const nlohmann::ordered_json& result);
}  // namespace detail

// The data in a CallToolResult by the rules above; InvalidFact saying why there is none.
nlohmann::ordered_json payload(const nlohmann::ordered_json& result);

const Fact& record_fact(FactRegistry& registry, std::string name, const ToolCall& call,
                        const nlohmann::ordered_json& result, const FactResultOptions& options = {});
const Ranking& record_ranking(FactRegistry& registry, std::string name, const ToolCall& call,
                              const nlohmann::ordered_json& result, RankingResultOptions options);
const Table& record_table(FactRegistry& registry, std::string name, const ToolCall& call,
                          const nlohmann::ordered_json& result, TableResultOptions options = {});
const Domain& record_domain(FactRegistry& registry, std::string name, const ToolCall& call,
                            const nlohmann::ordered_json& result, const DomainResultOptions& options = {});

// Calls a tool through a client the app already has and records what it returned as a
// Fact named `name`, the tool and the arguments sent as its provenance:
//
//   gp::mcp::call_and_record([&](std::string_view tool, const nlohmann::json& args) {
//                              return client.call_tool(tool, args);  // a CallToolResult
//                            },
//                            registry, "order_57", "orders.get", {{"id", 57}});
//   // Fact 'order_57', provenance orders.get(id=57)
//
// `call` is any callable taking (tool, arguments) and returning the CallToolResult as
// JSON. The value is structuredContent when the result has it; else its text blocks,
// joined by "\n", recorded as the JSON they spell or, when they are not JSON, as a string.
// An error result (isError: true), a null value, text that is JSON holding a number no
// double holds (1e400), or a result with neither is InvalidFact, and nothing is recorded;
// what `call` throws propagates.
template <class Call>
requires std::is_invocable_r_v<nlohmann::json, Call&, std::string_view, const nlohmann::json&>
const Fact& call_and_record(Call&& call, FactRegistry& registry, std::string name, std::string tool,
                            nlohmann::json arguments = nlohmann::json::object()) {
  const nlohmann::json result = call(std::string_view(tool), std::as_const(arguments));
  const ToolCall made{
      .name = std::move(tool),
      .arguments = arguments.is_null() ? nlohmann::ordered_json::object() : nlohmann::ordered_json(arguments)};
  nlohmann::json value = detail::called_value(name, made, nlohmann::ordered_json(result));
  if (value.is_null()) detail::refuse(name, made, "the result's value is null: a fact holds a value");
  auto p = made.provenance();
  return registry.record_fact(std::move(name), std::move(value),
                              {.tool = std::move(p.tool), .args = std::move(p.args)});
}

}  // namespace groundplane::mcp

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/mcp/record-inl.hpp"
#endif
