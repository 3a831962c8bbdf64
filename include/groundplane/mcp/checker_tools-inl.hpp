// The bodies of mcp/checker_tools.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/mcp/checker_tools.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/any_check.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/check_from_json.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/json/deep_json.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/json_text.hpp"
#include "groundplane/mcp/tool_arguments.hpp"
#include "groundplane/mcp/tool_result.hpp"
#include "groundplane/render.hpp"

namespace groundplane::mcp::detail {

// --- the record_* tools ---------------------------------------------------------------

GROUNDPLANE_INLINE const Fact& record_fact(const nlohmann::ordered_json& a, FactRegistry& into,
                                           std::optional<std::string_view> inline_name) {
  const Arguments args("record_fact", a, {"name", "value", "tool", "args"}, inline_name);
  auto name = args.string("name");
  const auto& value = args.required("value", "any JSON value");
  auto tool = args.string("tool");
  // Converted without recursion: a value may nest as deep as the message may (max_depth).
  return into.record_fact(std::move(name), groundplane::detail::copy_json<nlohmann::json>(value),
                          {.tool = std::move(tool), .args = args.call_args()});
}

// record_ranking's "direction", by the names Direction's table gives (detail/text/enum_names.hpp).
GROUNDPLANE_INLINE Direction direction_of(const Arguments& args) {
  const auto d = args.optional_string("direction");
  if (!d) return Direction::higher_is_better;
  if (const auto direction = groundplane::detail::from_name<Direction>(*d)) return *direction;
  Arguments::fail("record_ranking: \"direction\" must be one of " + groundplane::detail::name_list_of<Direction>() +
                  ", got " + groundplane::detail::quote(*d));
}

GROUNDPLANE_INLINE const Ranking& record_ranking(const nlohmann::ordered_json& a, FactRegistry& into,
                                                 std::optional<std::string_view> inline_name) {
  const Arguments args("record_ranking", a, {"name", "scores", "key", "direction", "tool", "args"}, inline_name);
  auto name = args.string("name");
  const auto& scores_in = args.required("scores", "an object {entity: number}");
  if (!scores_in.is_object()) args.wrong("scores", "an object {entity: number}", scores_in);
  Scores scores;
  scores.reserve(scores_in.size());
  for (auto it = scores_in.begin(); it != scores_in.end(); ++it) {
    const auto score = Decimal::from_json(it.value());
    if (!score)
      Arguments::fail("record_ranking: the score of " + groundplane::detail::quote(it.key()) +
                      " must be a number, got " + std::string(groundplane::detail::type_name(it.value())));
    scores.emplace_back(it.key(), *score);
  }
  auto key = args.string("key");
  const Direction direction = direction_of(args);
  auto tool = args.string("tool");
  return into.record_ranking(
      std::move(name), std::move(scores),
      {.key = std::move(key), .direction = direction, .tool = std::move(tool), .args = args.call_args()});
}

GROUNDPLANE_INLINE const Table& record_table(const nlohmann::ordered_json& a, FactRegistry& into,
                                             std::optional<std::string_view> inline_name) {
  const Arguments args("record_table", a, {"name", "rows", "key_column", "total_rows", "tool", "args"}, inline_name);
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

GROUNDPLANE_INLINE const Domain& record_domain(const nlohmann::ordered_json& a, FactRegistry& into,
                                               std::optional<std::string_view> inline_name) {
  const Arguments args("record_domain", a, {"name", "members", "tool", "args"}, inline_name);
  auto name = args.string("name");
  const auto& list = args.required("members", "an array of names");
  if (!list.is_array()) args.wrong("members", "an array of names", list);
  std::vector<Entity> members;
  members.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto member = Entity::from_json(list[i]);
    if (!member)
      Arguments::fail("record_domain: member " + std::to_string(i) + " must be a string or an integer, got " +
                      std::string(groundplane::detail::type_name(list[i])));
    members.push_back(std::move(*member));
  }
  auto tool = args.string("tool");
  return into.record_domain(std::move(name), std::move(members), {.tool = std::move(tool), .args = args.call_args()});
}

// One definition, read as the record_* tool its kind names. Only the fact is kept (the
// tool's result, which nobody reads here, is not built).
GROUNDPLANE_INLINE void record_definition(const std::string& name, const nlohmann::ordered_json& def,
                                          FactRegistry& into, const std::string& label) {
  if (!def.is_object())
    Arguments::fail(label + " must be an object {kind, ...}, got " + std::string(groundplane::detail::type_name(def)));
  const auto kind = def.find("kind");
  if (kind == def.end() || !kind->is_string())
    Arguments::fail(label + " needs \"kind\": \"fact\", \"ranking\", \"table\" or \"domain\"");
  if (def.contains("name")) Arguments::fail(label + ": its name is its key; \"name\" is not one of its members");
  const std::string& k = kind->get_ref<const std::string&>();
  if (k == to_string(FactKind::fact)) record_fact(def, into, name);
  else if (k == to_string(FactKind::ranking)) record_ranking(def, into, name);
  else if (k == to_string(FactKind::table)) record_table(def, into, name);
  else if (k == to_string(FactKind::domain)) record_domain(def, into, name);
  else
    Arguments::fail(label + ": \"kind\" must be \"fact\", \"ranking\", \"table\" or \"domain\", got " +
                    groundplane::detail::quote(k));
}

GROUNDPLANE_INLINE void record_definitions(const nlohmann::ordered_json& definitions, FactRegistry& into,
                                           const std::string& where) {
  if (!definitions.is_object())
    Arguments::fail("fact definitions must be an object {name: {kind, ...}}, got " +
                    std::string(groundplane::detail::type_name(definitions)));
  for (auto it = definitions.begin(); it != definitions.end(); ++it) {
    const std::string label = where + groundplane::detail::quote(it.key());
    try {
      record_definition(it.key(), it.value(), into, label);
    } catch (const BadArguments& e) {
      if (std::string_view(e.what()).find(label) != std::string_view::npos) throw;
      throw BadArguments(label + ": " + e.what());
    } catch (const Error& e) {
      throw BadArguments(label + ": " + e.what());
    }
  }
}

GROUNDPLANE_INLINE nlohmann::ordered_json recorded(const std::string& name, FactKind kind, const Provenance& provenance,
                                                   std::size_t size) {
  nlohmann::ordered_json from = object_of(2);
  from["tool"] = provenance.tool;
  from["args"] = provenance.args;
  nlohmann::ordered_json out = object_of(4);
  out["recorded"] = name;
  out["kind"] = std::string(to_string(kind));
  out["provenance"] = std::move(from);
  out["size"] = size;
  std::string text = dump(out);
  return tool_result(std::move(out), std::move(text));
}

// --- list_facts -----------------------------------------------------------------------

// The facts() view of one fact, with its provenance args in the call's key order.
template <class FactT>
nlohmann::ordered_json ordered_view(const FactT& fact) {
  nlohmann::ordered_json view = groundplane::detail::fact_view(fact);
  view["provenance"]["args"] = fact.provenance().args;
  return view;
}

// A table's rows with their cells in column order (the base view's rows are unordered).
GROUNDPLANE_INLINE nlohmann::ordered_json ordered_view(const Table& table) {
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

// A cursor is "facts:" and the count of facts already listed: facts are write-once and
// only ever added, so a position names the same place later.
GROUNDPLANE_INLINE std::optional<std::size_t> parse_cursor(std::string_view cursor) {
  constexpr std::string_view prefix = "facts:";
  if (cursor.substr(0, prefix.size()) != prefix || cursor.size() == prefix.size() || cursor.size() > prefix.size() + 18)
    return std::nullopt;
  std::size_t n = 0;
  for (const char c : cursor.substr(prefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  return n;
}

GROUNDPLANE_INLINE nlohmann::ordered_json list_facts(const nlohmann::ordered_json& a, const FactRegistry& registry,
                                                     std::size_t page_size) {
  const Arguments args("list_facts", a, {"cursor"});
  const auto names = registry.names();
  std::size_t start = 0;
  if (const auto cursor = args.optional_string("cursor")) {
    const auto position = parse_cursor(*cursor);
    if (!position || *position > names.size())
      Arguments::fail("list_facts: " + groundplane::detail::quote(*cursor, 40) +
                      " is not a cursor this server gave (pass a nextCursor back unchanged)");
    start = *position;
  }
  const std::size_t page = page_size == 0 ? names.size() : page_size;
  const std::size_t end = names.size() - start > page ? start + page : names.size();
  nlohmann::ordered_json facts = nlohmann::ordered_json::object();
  for (std::size_t i = start; i < end; ++i)
    facts[names[i]] = registry.visit(names[i], [](const auto& fact) { return ordered_view(fact); });
  nlohmann::ordered_json out;
  out["facts"] = std::move(facts);
  if (end < names.size()) out["nextCursor"] = "facts:" + std::to_string(end);
  std::string text = dump(out);
  return tool_result(std::move(out), std::move(text));
}

// --- check ----------------------------------------------------------------------------

// check's "facts": the names of recorded facts, or inline definitions recorded into
// `inline_registry` (a registry of this call's own, so one call carries everything and
// nothing outlives it). The names the boundary leans on.
GROUNDPLANE_INLINE std::vector<std::string> check_facts(const Arguments& args,
                                                        std::optional<FactRegistry>& inline_registry) {
  constexpr std::string_view shape = "an array of recorded fact names or an object of inline definitions";
  const auto& facts_in = args.required("facts", shape);
  if (!facts_in.is_array() && !facts_in.is_object()) args.wrong("facts", shape, facts_in);
  std::vector<std::string> facts;
  if (facts_in.is_object()) {
    inline_registry.emplace();
    record_definitions(facts_in, *inline_registry, "check: inline fact ");
    for (auto it = facts_in.begin(); it != facts_in.end(); ++it) facts.push_back(it.key());
    return facts;
  }
  for (const auto& f : facts_in) {
    if (!f.is_string())
      Arguments::fail("check: every name in \"facts\" must be a string, got " +
                      std::string(groundplane::detail::type_name(f)));
    facts.push_back(f.get<std::string>());
  }
  return facts;
}

// check's "checks", whose shape is judged before "output" is looked for.
GROUNDPLANE_INLINE const nlohmann::ordered_json& check_specs(const Arguments& args) {
  const auto& specs = args.required("checks", "an array of check specs");
  if (!specs.is_array()) args.wrong("checks", "an array of check specs", specs);
  if (specs.empty()) Arguments::fail("check: \"checks\" is empty; a check that checks nothing would accept anything");
  return specs;
}

GROUNDPLANE_INLINE Written check(const nlohmann::ordered_json& a, const FactRegistry& registry,
                                 std::string_view output_text, CheckLimits limits, Form form) {
  const Arguments args("check", a, {"facts", "checks", "output", "prose_field", "free_fields"});
  // Counted before anything is built from the call, its inline facts included.
  if (const auto* specs = args.find("checks"); specs && specs->is_array() && specs->size() > limits.max_checks)
    Arguments::fail("check: \"checks\" holds " + std::to_string(specs->size()) + " checks, over the limit of " +
                    std::to_string(limits.max_checks) +
                    " (groundplane-mcp --max-checks, ServerOptions::max_checks); nothing was checked. Check the "
                    "answer in calls of at most " +
                    std::to_string(limits.max_checks) + " checks.");
  std::optional<FactRegistry> inline_registry;
  std::vector<std::string> facts = check_facts(args, inline_registry);
  const auto& specs = check_specs(args);
  const auto* output_in = args.find("output");
  if (!output_in && !a.contains("output"))
    Arguments::fail("check needs \"output\" (the model's answer: a JSON object of named fields)");

  BoundaryOptions options;
  options.max_depth = limits.max_depth;
  options.prose_field = args.optional_string("prose_field").value_or("");
  if (const auto* free = args.find("free_fields")) {
    if (!free->is_array()) args.wrong("free_fields", "an array of field names", *free);
    for (const auto& f : *free) {
      if (!f.is_string()) args.wrong("free_fields", "an array of field names", *free);
      options.free_fields.push_back(f.get<std::string>());
    }
  }
  CheckList checks;
  for (const auto& spec : specs) checks.push_back(check_from_json(nlohmann::json(spec)));
  Boundary boundary(inline_registry ? *inline_registry : registry, std::move(facts), std::move(options),
                    std::move(checks));
  // The output as the request wrote it (read exactly: "0.50" judged at two decimals,
  // 1e400 exact, 1e999999 a finding, text past BoundaryOptions::max_text_bytes a finding
  // and not read), when this call came as a line of text; else the value handed in.
  // A value is measured before it is converted (nested past max_depth: a finding).
  const Verdict verdict = !output_text.empty() ? boundary.try_submit_json(output_text)
                          : output_in          ? boundary.try_submit(*output_in)
                                               : boundary.try_submit(nlohmann::json(nullptr));

  if (form == Form::text) return Written::text(check_result_text(verdict));
  return check_result_json(verdict);
}

GROUNDPLANE_INLINE nlohmann::ordered_json check_result_json(const Verdict& verdict) {
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
  nlohmann::ordered_json out = object_of(7);
  out["ok"] = verdict.ok();
  out["findings"] = std::move(findings);
  out["correction"] = std::move(correction);
  out["passed"] = verdict.passed();
  out["failed"] = verdict.failed();
  out["warnings"] = verdict.warnings();
  out["prose"] = verdict.prose();
  return tool_result(std::move(out), std::move(text));
}

// One finding as check_result_json writes it, appended as text.
GROUNDPLANE_INLINE void append_finding(std::string& out, const Finding& f) {
  const std::string message = f.message();
  const std::array<std::pair<std::string_view, std::string_view>, 8> members{{{R"({"check":)", f.check},
                                                                              {R"(,"field":)", f.field},
                                                                              {R"(,"said":)", f.said},
                                                                              {R"(,"supported":)", f.supported},
                                                                              {R"(,"fact":)", f.fact},
                                                                              {R"(,"provenance":)", f.provenance},
                                                                              {R"(,"detail":)", f.detail},
                                                                              {R"(,"message":)", message}}};
  for (const auto& [key, value] : members) {
    out += key;
    append_json(out, value);
  }
  out += '}';
}

GROUNDPLANE_INLINE std::string check_result_text(const Verdict& verdict) {
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
    if (!first) out += ',';
    first = false;
    append_finding(out, f);
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
  out += R"(,"prose":)";
  append_json(out, verdict.prose());
  out += R"(},"isError":false})";
  return out;
}

}  // namespace groundplane::mcp::detail
