// Boundary::schema(): well-formed JSON Schema (2020-12) for the subset groundplane emits,
// and answers the checks accept conform to it.
//
// The validator below covers exactly the keywords the checks emit ($schema, type,
// properties, required, enum, items, anyOf, minItems, maxItems, description); a keyword
// outside that set fails the well-formedness test, so a check that starts emitting one
// has to be taught here first.
#include "catch2_compat.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

#include "fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

const std::set<std::string> keywords = {"$schema", "type",  "properties", "required", "enum",
                                        "items",   "anyOf", "minItems",   "maxItems", "description"};
const std::set<std::string> types = {"null", "boolean", "object", "array", "number", "string", "integer"};

// Problems that make `s` not a well-formed schema in our subset; empty when it is one.
void well_formed(const json& s, const std::string& at, bool root, std::vector<std::string>& problems) {
  const auto bad = [&](const std::string& what) { problems.push_back(at + ": " + what); };
  if (!s.is_object()) return bad("a schema must be an object");
  for (auto it = s.begin(); it != s.end(); ++it)
    if (!keywords.count(it.key())) bad("unknown keyword " + it.key());
  if (s.contains("$schema") && (!root || s["$schema"] != "https://json-schema.org/draft/2020-12/schema"))
    bad("$schema must be the 2020-12 URI, at the root only");
  if (s.contains("type")) {
    const json& t = s["type"];
    const auto known = [&](const json& v) { return v.is_string() && types.count(v.get<std::string>()); };
    if (t.is_array() ? (t.empty() || !std::all_of(t.begin(), t.end(), known)) : !known(t)) bad("bad type");
  }
  if (s.contains("description") && !s["description"].is_string()) bad("description must be a string");
  if (s.contains("properties")) {
    if (!s["properties"].is_object()) bad("properties must be an object");
    else
      for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it)
        well_formed(it.value(), at + "/properties/" + it.key(), false, problems);
  }
  if (s.contains("required")) {
    const json& r = s["required"];
    if (!r.is_array()) bad("required must be an array");
    else {
      std::set<std::string> seen;
      for (const auto& name : r) {
        if (!name.is_string() || !seen.insert(name.get<std::string>()).second) bad("required must hold unique strings");
        else if (!s.contains("properties") || !s["properties"].contains(name.get<std::string>()))
          bad("required names " + name.get<std::string>() + ", which properties does not describe");
      }
    }
  }
  if (s.contains("enum")) {
    const json& e = s["enum"];
    if (!e.is_array() || e.empty()) bad("enum must be a non-empty array");
    else
      for (std::size_t i = 0; i < e.size(); ++i)
        for (std::size_t j = i + 1; j < e.size(); ++j)
          if (e[i] == e[j]) bad("enum values must be unique");
  }
  if (s.contains("items")) well_formed(s["items"], at + "/items", false, problems);
  if (s.contains("anyOf")) {
    if (!s["anyOf"].is_array() || s["anyOf"].empty()) bad("anyOf must be a non-empty array");
    else
      for (std::size_t i = 0; i < s["anyOf"].size(); ++i)
        well_formed(s["anyOf"][i], at + "/anyOf/" + std::to_string(i), false, problems);
  }
  for (const char* k : {"minItems", "maxItems"})
    if (s.contains(k) && !s[k].is_number_unsigned() && !(s[k].is_number_integer() && s[k].get<long long>() >= 0))
      bad(std::string(k) + " must be a non-negative integer");
}

bool has_type(const json& v, const std::string& t) {
  if (t == "null") return v.is_null();
  if (t == "boolean") return v.is_boolean();
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "number") return v.is_number();
  if (t == "integer")
    return v.is_number_integer() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
  return false;
}

// Where `v` does not conform to `s`; empty when it does.
void conforms(const json& s, const json& v, const std::string& at, std::vector<std::string>& problems) {
  const auto bad = [&](const std::string& what) { problems.push_back(at + ": " + what); };
  if (s.contains("type")) {
    const json& t = s["type"];
    bool ok = false;
    if (t.is_array()) {
      for (const auto& one : t) ok = ok || has_type(v, one.get<std::string>());
    } else {
      ok = has_type(v, t.get<std::string>());
    }
    if (!ok) return bad("not of type " + t.dump());
  }
  if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end())
    bad(v.dump() + " is not in the enum");
  if (v.is_object()) {
    if (s.contains("required"))
      for (const auto& name : s["required"])
        if (!v.contains(name.get<std::string>())) bad("missing required " + name.get<std::string>());
    if (s.contains("properties"))
      for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it)
        if (v.contains(it.key())) conforms(it.value(), v[it.key()], at + "/" + it.key(), problems);
  }
  if (v.is_array()) {
    if (s.contains("items"))
      for (std::size_t i = 0; i < v.size(); ++i) conforms(s["items"], v[i], at + "/" + std::to_string(i), problems);
    if (s.contains("minItems") && v.size() < s["minItems"].get<std::size_t>()) bad("too few items");
    if (s.contains("maxItems") && v.size() > s["maxItems"].get<std::size_t>()) bad("too many items");
  }
  if (s.contains("anyOf")) {
    bool any = false;
    for (const auto& branch : s["anyOf"]) {
      std::vector<std::string> mine;
      conforms(branch, v, at, mine);
      any = any || mine.empty();
    }
    if (!any) bad("matches no anyOf branch");
  }
}

std::vector<std::string> schema_problems(const json& s) {
  std::vector<std::string> p;
  well_formed(s, "#", true, p);
  return p;
}
std::vector<std::string> conformance_problems(const json& s, const json& v) {
  std::vector<std::string> p;
  conforms(s, v, "#", p);
  return p;
}

struct Seed {
  gp::FactRegistry reg;
  Seed() {
    gp::testing::record_campaign_ctr(reg);
    reg.record_table("campaign_daily",
                     json::array({{{"campaign", "north"}, {"ctr", 0.0412}, {"spend", 1200}},
                                  {{"campaign", "harbour"}, {"ctr", 0.0455}, {"spend", 980}},
                                  {{"campaign", "delta"}, {"ctr", 0.0301}, {"spend", 1500}}}),
                     {.key_column = "campaign", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}}});
  }
};

}  // namespace

TEST_CASE("the seed's schema is well-formed and the seed's correct answer conforms to it") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const json schema = b.schema();
  const json answer = {{"winner", "harbour"}, {"score", 0.0455}};
  b.submit(answer);
  CHECK(schema_problems(schema).empty());
  CHECK(conformance_problems(schema, answer).empty());
  CHECK(conformance_problems(schema, {{"winner", "harbour"}}).empty());
  // The seed's wrong answer has the right shape: the schema constrains shape, the checks truth.
  CHECK(conformance_problems(schema, {{"winner", "north"}}).empty());
  CHECK_FALSE(conformance_problems(schema, {{"winner", "Harbour"}}).empty());
  CHECK_FALSE(conformance_problems(schema, {{"score", 0.0455}}).empty());
}

TEST_CASE("a schema for six checks together is well-formed and an answer they all accept conforms") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr", "campaign_daily"}, gp::superlative{.fact = "campaign_ctr"},
                 gp::ranking_prefix{.fact = "campaign_ctr", .k = 2},
                 gp::aggregate_reconciles{
                     .fact = "campaign_daily", .field = "total_spend", .op = gp::Aggregate::sum, .column = "spend"},
                 gp::entities_recorded{.facts = {"campaign_ctr", "campaign_daily"}, .fields = {"mentioned"}},
                 gp::row_integrity{.fact = "campaign_daily",
                                   .key_field = "campaign",
                                   .fields = {{"ctr", "ctr"}, {"spend", "spend"}},
                                   .at = "/rows"},
                 gp::comparison{.fact = "campaign_ctr",
                                .a_field = "winner",
                                .b_field = "runner_up",
                                .value_field = "lead_pct",
                                .rounding = gp::Rounding::as_stated});
  const json schema = b.schema();
  INFO(schema.dump(1));
  const auto problems = schema_problems(schema);
  for (const auto& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());

  const json answer = {
      {"winner", "harbour"},
      {"score", 0.0455},
      {"runner_up", "north"},
      {"lead_pct", 10.44},
      {"top", {"harbour", "north"}},
      {"total_spend", 3680},
      {"mentioned", {"harbour", "north"}},
      {"rows", {{{"campaign", "harbour"}, {"ctr", 0.0455}}, {{"campaign", "north"}, {"spend", 1200}}}}};
  const auto v = b.try_submit(answer);
  for (const auto& f : v.findings()) UNSCOPED_INFO(f.message());
  REQUIRE(v.ok());
  const auto misfits = conformance_problems(schema, answer);
  for (const auto& p : misfits) UNSCOPED_INFO(p);
  CHECK(misfits.empty());

  // Each other shape the checks read conforms too.
  json objects = answer;
  objects["top"] = {{{"name", "harbour"}, {"score", 0.0455}}, {{"name", "north"}}};
  objects["mentioned"] = {{{"name", "delta"}}};
  objects["rows"] = {{"campaign", "delta"}, {"ctr", 0.0301}};
  CHECK(conformance_problems(schema, objects).empty());
  CHECK(b.try_submit(objects).ok());

  // And the validator is not vacuous: shapes the checks reject do not conform.
  for (const auto& [field, wrong] : std::vector<std::pair<std::string, json>>{{"top", {"harbour"}},
                                                                              {"top", "harbour"},
                                                                              {"total_spend", "3680"},
                                                                              {"mentioned", {"harbor"}},
                                                                              {"rows", {{{"ctr", 0.0455}}}},
                                                                              {"rows", {{{"campaign", "south"}}}},
                                                                              {"lead_pct", "10%"}}) {
    json broken = answer;
    broken[field] = wrong;
    INFO(field << " = " << wrong.dump());
    CHECK_FALSE(conformance_problems(schema, broken).empty());
    CHECK_FALSE(b.try_submit(broken).ok());
  }
}

TEST_CASE("a runtime CheckList describes the same well-formed schema as the checks written in C++") {
  Seed s;
  gp::CheckList checks;
  checks.push_back(gp::check_from_json({{"check", "superlative"}, {"fact", "campaign_ctr"}}));
  checks.push_back(gp::check_from_json({{"check", "row_integrity"},
                                        {"fact", "campaign_daily"},
                                        {"key_field", "winner"},
                                        {"fields", {{"score", "ctr"}}}}));
  gp::Boundary b(s.reg, {"campaign_ctr", "campaign_daily"}, checks);
  const json schema = b.schema();
  const json answer = {{"winner", "harbour"}, {"score", 0.0455}};
  b.submit(answer);
  CHECK(schema_problems(schema).empty());
  CHECK(conformance_problems(schema, answer).empty());
}

TEST_CASE("above the enum cap a names field keeps its shape and says why it lists no names") {
  gp::FactRegistry reg;
  std::vector<gp::Entity> names;
  for (std::size_t i = 0; i <= gp::SchemaBuilder::max_enum; ++i) names.push_back("store-" + std::to_string(i));
  reg.record_domain("stores", names, {.tool = "crm.stores"});
  gp::Boundary b(reg, {"stores"}, gp::entities_recorded{.facts = {"stores"}, .fields = {"stores"}});
  const json schema = b.schema();
  b.submit({{"stores", {"store-7"}}});
  CHECK(schema_problems(schema).empty());
  const json& name = schema["properties"]["stores"]["anyOf"][0];
  CHECK_FALSE(name.contains("enum"));
  CHECK(name["description"] == "one of the 201 recorded names in 'stores' (enum omitted above 200 names)");
  CHECK(conformance_problems(schema, {{"stores", {"store-7", "store-200"}}}).empty());
}

TEST_CASE("the validator rejects schemas outside the subset") {
  CHECK_FALSE(schema_problems({{"type", "object"}, {"required", {"x"}}}).empty());
  CHECK_FALSE(schema_problems({{"type", "obj"}}).empty());
  CHECK_FALSE(schema_problems({{"enum", json::array()}}).empty());
  CHECK_FALSE(schema_problems({{"oneOf", {json::object()}}}).empty());
  CHECK_FALSE(schema_problems({{"properties", {{"a", {{"$schema", "x"}}}}}}).empty());
  CHECK(schema_problems({{"type", {"string", "number"}}}).empty());
}
