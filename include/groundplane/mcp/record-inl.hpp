// The bodies of mcp/record.hpp: included by it in the header-only build, compiled once
// into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/mcp/record.hpp"  // first: the part follows its header

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"

namespace groundplane::mcp {

namespace detail {

using groundplane::detail::quote;
using groundplane::detail::render;
using groundplane::detail::type_name;

[[noreturn]] GROUNDPLANE_INLINE void refuse(std::string_view fact, const ToolCall& call, std::string_view why) {
  throw InvalidFact("cannot record fact " + quote(fact) + " from " + call.provenance().render() + ": " +
                    std::string(why));
}

// The data in a CallToolResult, or why there is none. structuredContent is borrowed
// from the result rather than copied: besides the copy, destroying a JSON object
// allocates (nlohmann/json#4653), which a recording should not do when it need not.
struct Payload {
  const nlohmann::ordered_json* borrowed = nullptr;  // into the result
  std::optional<nlohmann::ordered_json> parsed;      // a text block's JSON
  std::string problem;                               // "" when there is data

  static Payload refused(std::string why) { return {nullptr, std::nullopt, std::move(why)}; }
  const nlohmann::ordered_json& get() const { return parsed ? *parsed : *borrowed; }
};

// A content block of type "text". A "type" that is not a string names no block kind we
// know (basic_json::value would throw for it).
GROUNDPLANE_INLINE bool is_text_block(const nlohmann::ordered_json& block) {
  if (!block.is_object()) return false;
  const auto type = block.find("type");
  return type != block.end() && type->is_string() && type->get_ref<const std::string&>() == "text";
}

// Text read as JSON: its value, or discarded when the text is not JSON. A number the JSON
// grammar allows but no double holds (1e400) makes neither: out_of_range says so, and the
// text is refused rather than kept as a string that merely looks like the data.
struct TextAsJson {
  nlohmann::ordered_json value;
  bool out_of_range = false;
};
GROUNDPLANE_INLINE TextAsJson read_json_text(const std::string& text) {
  try {
    return {nlohmann::ordered_json::parse(text), false};
  } catch (const nlohmann::ordered_json::out_of_range&) {
    return {nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded), true};
  } catch (const nlohmann::ordered_json::parse_error&) {
    return {nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded), false};
  }
}
inline constexpr std::string_view out_of_range_words =
    "is JSON holding a number outside the range of a double, which no fact can hold exactly (";

GROUNDPLANE_INLINE Payload payload_of(const nlohmann::ordered_json& result) {
  if (!result.is_object())
    return Payload::refused("the result is " + std::string(type_name(result)) + ", not a CallToolResult object");
  if (const auto err = result.find("isError"); err != result.end() && !err->is_null()) {
    if (!err->is_boolean())
      return Payload::refused("the result's isError is " + std::string(type_name(*err)) + ", not a boolean");
    if (err->get<bool>()) {
      std::string why = "the tool reported an error (isError: true)";
      if (const auto c = result.find("content"); c != result.end() && c->is_array())
        for (const auto& block : *c)
          if (is_text_block(block) && block.contains("text") && block["text"].is_string()) {
            why += ": " + quote(block["text"].get_ref<const std::string&>());
            break;
          }
      return Payload::refused(why + "; an error result is not a fact");
    }
  }
  if (const auto sc = result.find("structuredContent"); sc != result.end() && !sc->is_null())
    return {&*sc, std::nullopt, ""};

  const auto content = result.find("content");
  if (content == result.end() || !content->is_array())
    return Payload::refused("no usable payload: the result has no structuredContent and no content array");
  std::vector<const nlohmann::ordered_json*> texts;
  for (const auto& block : *content)
    if (is_text_block(block)) texts.push_back(&block);
  if (texts.empty())
    return Payload::refused("no usable payload: no structuredContent and no text block (" +
                            std::to_string(content->size()) + " content block(s) of other types)");
  if (texts.size() > 1)
    return Payload::refused("no structuredContent and " + std::to_string(texts.size()) +
                            " text blocks: which one is the data is ambiguous; have the tool return structuredContent");
  const auto text = texts.front()->find("text");
  if (text == texts.front()->end() || !text->is_string())
    return Payload::refused("no usable payload: the only text block has no text string");
  auto [parsed, out_of_range] = read_json_text(text->get_ref<const std::string&>());
  if (out_of_range)
    return Payload::refused("no structuredContent, and the only text block " + std::string(out_of_range_words) +
                            quote(text->get_ref<const std::string&>()) + ")");
  if (parsed.is_discarded())
    return Payload::refused("no structuredContent, and the only text block is not JSON (" +
                            quote(text->get_ref<const std::string&>()) +
                            "); text is a rendering of the data and reading it would be parsing prose: have the tool "
                            "return structuredContent");
  return {nullptr, std::move(parsed), ""};
}

// The value at `where` in the payload ("" = the payload), or a refusal naming what the
// payload has instead.
GROUNDPLANE_INLINE const nlohmann::ordered_json& select(const nlohmann::ordered_json& payload, std::string_view where,
                                                        std::string_view member, std::string_view fact,
                                                        const ToolCall& call) {
  if (where.empty()) return payload;
  if (where[0] == '/' && !groundplane::detail::pointer_tokens(where))
    refuse(
        fact, call,
        std::string(member) + " " + quote(where) + " is not a valid JSON Pointer (a '~' must be followed by 0 or 1)");
  if (const auto* found = groundplane::detail::find_field(payload, where)) return *found;
  std::string why = "the payload has nothing at " + quote(where) + " (named by " + std::string(member) + ")";
  if (payload.is_object()) {
    why += "; its top-level keys are ";
    std::size_t n = 0;
    for (auto it = payload.begin(); it != payload.end() && n < 8; ++it, ++n) why += (n ? ", " : "") + quote(it.key());
    if (payload.empty()) why += "none";
    if (payload.size() > 8) why += ", …";
  } else {
    why += "; the payload is " + std::string(type_name(payload));
  }
  refuse(fact, call, why);
}

GROUNDPLANE_INLINE Payload payload_for(std::string_view fact, const ToolCall& call,
                                       const nlohmann::ordered_json& result) {
  Payload p = payload_of(result);
  if (!p.problem.empty()) refuse(fact, call, p.problem);
  return p;
}

}  // namespace detail

GROUNDPLANE_INLINE nlohmann::ordered_json payload(const nlohmann::ordered_json& result) {
  detail::Payload p = detail::payload_of(result);
  if (!p.problem.empty()) throw InvalidFact(p.problem);
  return p.get();
}

GROUNDPLANE_INLINE const Fact& record_fact(FactRegistry& registry, std::string name, const ToolCall& call,
                                           const nlohmann::ordered_json& result, const FactResultOptions& options) {
  const detail::Payload payload = detail::payload_for(name, call, result);
  const nlohmann::ordered_json& data = payload.get();
  const auto& value = detail::select(data, options.at, "at", name, call);
  if (value.is_null())
    detail::refuse(name, call,
                   "the " + std::string(options.at.empty() ? "payload" : "value at " + detail::quote(options.at)) +
                       " is null: a fact holds a value");
  auto p = call.provenance();
  return registry.record_fact(std::move(name), nlohmann::json(value),
                              {.tool = std::move(p.tool), .args = std::move(p.args)});
}

GROUNDPLANE_INLINE const Ranking& record_ranking(FactRegistry& registry, std::string name, const ToolCall& call,
                                                 const nlohmann::ordered_json& result, RankingResultOptions options) {
  const detail::Payload payload = detail::payload_for(name, call, result);
  const nlohmann::ordered_json& data = payload.get();
  const auto& source = detail::select(data, options.rows, "rows", name, call);
  Scores scores;
  if (source.is_object()) {
    if (!options.entity.empty() || !options.score.empty())
      detail::refuse(name, call,
                     "the ranking's source is an object {entity: score}, so .entity and .score (row columns) do "
                     "not apply; leave them empty or point .rows at an array of rows");
    scores.reserve(source.size());
    for (auto it = source.begin(); it != source.end(); ++it) {
      const auto score = Decimal::from_json(it.value());
      if (!score)
        detail::refuse(name, call,
                       "the score of " + detail::quote(it.key()) + " is " + std::string(detail::type_name(it.value())) +
                           ", not a finite number");
      scores.emplace_back(it.key(), *score);
    }
  } else if (source.is_array()) {
    if (options.entity.empty())
      detail::refuse(name, call,
                     "the ranking's source is an array of rows; set .entity to the column naming each row's entity");
    const std::string& score_column = options.score.empty() ? options.key : options.score;
    if (score_column.empty())
      detail::refuse(name, call, "a ranking needs the measured quantity as its key; key is empty");
    scores.reserve(source.size());
    for (std::size_t r = 0; r < source.size(); ++r) {
      const auto& row = source[r];
      const std::string where = "row " + std::to_string(r);
      if (!row.is_object())
        detail::refuse(name, call, where + " is " + std::string(detail::type_name(row)) + ", not an object");
      const auto e = row.find(options.entity);
      if (e == row.end()) detail::refuse(name, call, where + " has no entity column " + detail::quote(options.entity));
      if (!e->is_string())
        detail::refuse(name, call,
                       where + "'s " + detail::quote(options.entity) + " is " + std::string(detail::type_name(*e)) +
                           ", not an entity name (a string)");
      const auto s = row.find(score_column);
      if (s == row.end()) detail::refuse(name, call, where + " has no score column " + detail::quote(score_column));
      const auto score = Decimal::from_json(*s);
      if (!score)
        detail::refuse(name, call,
                       where + "'s " + detail::quote(score_column) + " is " + std::string(detail::type_name(*s)) +
                           ", not a finite number");
      scores.emplace_back(e->get<std::string>(), *score);
    }
  } else {
    detail::refuse(name, call,
                   "a ranking is read from an array of rows or an object {entity: score}, and the " +
                       std::string(options.rows.empty() ? "payload" : "value at " + detail::quote(options.rows)) +
                       " is " + std::string(detail::type_name(source)));
  }
  auto p = call.provenance();
  return registry.record_ranking(std::move(name), std::move(scores),
                                 {.key = std::move(options.key),
                                  .direction = options.direction,
                                  .tool = std::move(p.tool),
                                  .args = std::move(p.args)});
}

GROUNDPLANE_INLINE const Table& record_table(FactRegistry& registry, std::string name, const ToolCall& call,
                                             const nlohmann::ordered_json& result, TableResultOptions options) {
  const detail::Payload payload = detail::payload_for(name, call, result);
  const nlohmann::ordered_json& data = payload.get();
  const auto& rows = detail::select(data, options.rows, "rows", name, call);
  if (!rows.is_array())
    detail::refuse(name, call,
                   "a table is read from an array of rows, and the " +
                       std::string(options.rows.empty() ? "payload" : "value at " + detail::quote(options.rows)) +
                       " is " + std::string(detail::type_name(rows)) +
                       (options.rows.empty() && rows.is_object() ? "; set .rows to where the rows are" : ""));
  std::optional<std::size_t> total = options.total_rows;
  if (!options.total_rows_at.empty()) {
    if (total) detail::refuse(name, call, "set .total_rows or .total_rows_at, not both: which count is the source's?");
    const auto& t = detail::select(data, options.total_rows_at, "total_rows_at", name, call);
    if (!t.is_number_unsigned() && !(t.is_number_integer() && t.get<long long>() >= 0))
      detail::refuse(name, call,
                     "the row count at " + detail::quote(options.total_rows_at) + " is " +
                         (t.is_number() ? detail::render(t) : std::string(detail::type_name(t))) +
                         ", not a non-negative integer");
    total = static_cast<std::size_t>(t.get<unsigned long long>());
  }
  auto p = call.provenance();
  // rows stay ordered_json: the table's columns come in the tool's order
  return registry.record_table(std::move(name), rows,
                               {.key_column = std::move(options.key_column),
                                .total_rows = total,
                                .tool = std::move(p.tool),
                                .args = std::move(p.args)});
}

GROUNDPLANE_INLINE const Domain& record_domain(FactRegistry& registry, std::string name, const ToolCall& call,
                                               const nlohmann::ordered_json& result,
                                               const DomainResultOptions& options) {
  const detail::Payload payload = detail::payload_for(name, call, result);
  const nlohmann::ordered_json& data = payload.get();
  const auto& list = detail::select(data, options.members, "members", name, call);
  if (!list.is_array())
    detail::refuse(name, call,
                   "a domain is read from an array of names, and the " +
                       std::string(options.members.empty() ? "payload" : "value at " + detail::quote(options.members)) +
                       " is " + std::string(detail::type_name(list)) +
                       (options.members.empty() && list.is_object() ? "; set .members to where the names are" : ""));
  std::vector<Entity> members;
  members.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& item = list[i];
    const nlohmann::ordered_json* v = &item;
    if (!options.column.empty()) {
      if (!item.is_object())
        detail::refuse(name, call,
                       "item " + std::to_string(i) + " is " + std::string(detail::type_name(item)) +
                           ", not a row with column " + detail::quote(options.column));
      const auto it = item.find(options.column);
      if (it == item.end())
        detail::refuse(name, call, "item " + std::to_string(i) + " has no column " + detail::quote(options.column));
      v = &*it;
    }
    if (!v->is_string())
      detail::refuse(
          name, call,
          "item " + std::to_string(i) + " is " + std::string(detail::type_name(*v)) + ", not a name (a string)" +
              (options.column.empty() && v->is_object() ? "; set .column to the column naming each member" : ""));
    members.emplace_back(v->get<std::string>());
  }
  auto p = call.provenance();
  return registry.record_domain(std::move(name), std::move(members),
                                {.tool = std::move(p.tool), .args = std::move(p.args)});
}

namespace detail {
GROUNDPLANE_INLINE nlohmann::json called_value(std::string_view fact, const ToolCall& call,
                                               const nlohmann::ordered_json& result) {
  const Payload p = payload_of(result);
  if (p.problem.empty()) return nlohmann::json(p.get());
  const auto err = result.is_object() ? result.find("isError") : result.end();
  const bool error_free = !result.is_object() ? false : err == result.end() || *err == false || err->is_null();
  const auto content = error_free ? result.find("content") : result.end();
  if (error_free && content != result.end() && content->is_array()) {
    std::string joined;
    std::size_t texts = 0;
    for (const auto& block : *content)
      if (is_text_block(block) && block.contains("text") && block["text"].is_string())
        joined += (texts++ == 0 ? "" : "\n") + block["text"].get<std::string>();
    if (texts > 0) {
      auto [parsed, out_of_range] = read_json_text(joined);
      if (out_of_range) refuse(fact, call, "the text " + std::string(out_of_range_words) + quote(joined) + ")");
      return parsed.is_discarded() ? nlohmann::json(std::move(joined)) : nlohmann::json(parsed);
    }
  }
  refuse(fact, call, p.problem);
}
}  // namespace detail

}  // namespace groundplane::mcp
