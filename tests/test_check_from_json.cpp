// check_from_json: every check built from a JSON spec, and every bad spec refused with a
// message naming the problem.
#include "catch2_compat.hpp"

#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {
// Every member of every check set away from its default.
const std::vector<json>& full_specs() {
  static const std::vector<json> specs = {
      {{"check", "superlative"},
       {"fact", "campaign_ctr"},
       {"field", "/best/name"},
       {"score_field", ""},
       {"pick", "worst"},
       {"ties", "accept_any"},
       {"tolerance", {{"absolute", 0.001}, {"relative", 0.5}}},
       {"rounding", "as_stated"},
       {"column", "ctr"},
       {"direction", "lower_is_better"},
       {"on_missing", "skip"},
       {"rank_field", "rank"}},
      {{"check", "ranking_prefix"},
       {"fact", "campaign_ctr"},
       {"field", "podium"},
       {"k", 3},
       {"tolerance", {{"absolute", 0}, {"relative", 0.01}}},
       {"rounding", "as_stated"},
       {"column", "ctr"},
       {"direction", "higher_is_better"},
       {"on_missing", "skip"},
       {"ties", "accept_any"},
       {"ordered", false}},
      {{"check", "aggregate_reconciles"},
       {"fact", "orders"},
       {"field", "total"},
       {"op", "median"},
       {"column", "amount"},
       {"where", {{"region", "emea"}, {"paid", true}}},
       {"tolerance", {{"absolute", 5}, {"relative", 0}}},
       {"rounding", "as_stated"},
       {"weight_column", "units"},
       {"on_missing", "skip"}},
      {{"check", "entities_recorded"},
       {"facts", {"campaigns", "campaign_ctr"}},
       {"fields", {"winner", "/top"}},
       {"allow_empty", true},
       {"case_sensitive", false}},
      {{"check", "row_integrity"},
       {"fact", "campaign_daily"},
       {"key_field", "campaign"},
       {"fields", {{"ctr", "ctr"}, {"spend_usd", "spend"}}},
       {"key_column", "name"},
       {"at", "/rows"},
       {"tolerance", {{"absolute", 0.0001}, {"relative", 0}}}},
      {{"check", "comparison"},
       {"fact", "campaign_daily"},
       {"column", "ctr"},
       {"a_field", "winner"},
       {"b_field", "runner_up"},
       {"value_field", "lead"},
       {"convention", "percentage_points"},
       {"tolerance", {{"absolute", 0.05}, {"relative", 0}}},
       {"rounding", "as_stated"},
       {"order", "b_minus_a"},
       {"direction", "lower_is_better"},
       {"on_missing", "skip"}},
      {{"check", "actions_performed"}, {"fact", "ledger"}, {"field", "did"}},
      {{"check", "field_matches_fact"}, {"fact", "config"}, {"field", "/settings/mode"}, {"path", "/mode"}},
  };
  return specs;
}

std::string error_of(const json& spec) {
  try {
    (void)gp::check_from_json(spec);
  } catch (const gp::ConfigurationError& e) {
    return e.what();
  }
  FAIL("expected a ConfigurationError for " << spec.dump());
  return "";
}
}  // namespace

TEST_CASE("check_from_json round-trips every one of the eight checks with every member set") {
  for (const json& spec : full_specs()) {
    INFO(spec.dump());
    const gp::AnyCheck check = gp::check_from_json(spec);
    CHECK(check.kind() == spec["check"].get<std::string>());
    CHECK(check.name().rfind(spec["check"].get<std::string>() + "(", 0) == 0);
    CHECK(gp::check_to_json(check) == spec);
    CHECK(gp::check_to_json(gp::check_from_json(gp::check_to_json(check))) == spec);
  }
}

TEST_CASE("check_from_json sets exactly the members the C++ names say") {
  const auto s = gp::check_from_json(full_specs()[0]);
  REQUIRE(s.target<gp::superlative>() != nullptr);
  const gp::superlative& sup = *s.target<gp::superlative>();
  CHECK(sup.fact == "campaign_ctr");
  CHECK(sup.field == "/best/name");
  CHECK(sup.score_field.empty());
  CHECK(sup.pick == gp::Pick::worst);
  CHECK(sup.ties == gp::Ties::accept_any);
  CHECK(sup.tolerance.absolute == gp::Decimal::parse("0.001"));
  CHECK(sup.tolerance.relative == gp::Decimal::parse("0.5"));
  CHECK(sup.rounding == gp::Rounding::as_stated);

  const auto a = gp::check_from_json(full_specs()[2]);
  const gp::aggregate_reconciles& agg = *a.target<gp::aggregate_reconciles>();
  CHECK(agg.op == gp::Aggregate::median);
  CHECK(agg.where == json{{"region", "emea"}, {"paid", true}});

  const auto r = gp::check_from_json(full_specs()[4]);
  const gp::row_integrity& row = *r.target<gp::row_integrity>();
  CHECK(row.fields == std::vector<std::pair<std::string, std::string>>{{"ctr", "ctr"}, {"spend_usd", "spend"}});
  CHECK(row.at == "/rows");

  const auto c = gp::check_from_json(full_specs()[5]);
  CHECK(c.target<gp::comparison>()->convention == gp::Convention::percentage_points);
  CHECK(gp::check_from_json(full_specs()[1]).target<gp::ranking_prefix>()->k == 3);
}

TEST_CASE("a spec leaving members out gets the C++ defaults") {
  const auto s = gp::check_from_json({{"check", "superlative"}, {"fact", "campaign_ctr"}});
  const gp::superlative expected{.fact = "campaign_ctr"};
  CHECK(gp::check_to_json(s) == gp::check_to_json(expected));
  const auto k = gp::check_from_json({{"check", "ranking_prefix"}, {"fact", "r"}, {"k", 2.0}});
  CHECK(k.target<gp::ranking_prefix>()->k == 2);
}

TEST_CASE("a check built from JSON finds exactly what the same check written in C++ finds") {
  gp::FactRegistry reg;
  reg.record_table("campaign_daily",
                   json::array({{{"campaign", "north"}, {"ctr", 0.0412}}, {{"campaign", "delta"}, {"ctr", 0.0301}}}),
                   {.key_column = "campaign", .tool = "warehouse.query"});
  const json output = {{"campaign", "north"}, {"ctr", 0.0301}};
  gp::Boundary from_json(reg, {"campaign_daily"},
                         gp::check_from_json({{"check", "row_integrity"},
                                              {"fact", "campaign_daily"},
                                              {"key_field", "campaign"},
                                              {"fields", {{"ctr", "ctr"}}}}));
  gp::Boundary in_cpp(reg, {"campaign_daily"},
                      gp::row_integrity{.fact = "campaign_daily", .key_field = "campaign", .fields = {{"ctr", "ctr"}}});
  const auto a = from_json.try_submit(output);
  const auto b = in_cpp.try_submit(output);
  REQUIRE(a.findings().size() == 1);
  CHECK(a.findings() == b.findings());
}

TEST_CASE("facts named by a spec are checked when the boundary is built not when the spec is read") {
  gp::FactRegistry reg;
  const auto check = gp::check_from_json({{"check", "superlative"}, {"fact", "nowhere"}});
  CHECK_THROWS_AS((gp::Boundary(reg, {}, check)), gp::ConfigurationError);
}

TEST_CASE("a spec that is not an object or names no check is refused") {
  CHECK(error_of(json::array({"superlative"})) ==
        "check_from_json: a check spec must be a JSON object such as {\"check\": \"superlative\", \"fact\": "
        "\"...\"}, got an array");
  CHECK(error_of({{"fact", "campaign_ctr"}}) ==
        "check_from_json: the spec has no \"check\" member naming the check to build; known checks: superlative, "
        "ranking_prefix, aggregate_reconciles, entities_recorded, row_integrity, comparison, actions_performed, "
        "field_matches_fact");
  CHECK_THAT(error_of({{"check", 3}}), Catch::StartsWith("check_from_json: \"check\" must be a string naming the "
                                                         "check, got a number; known checks: superlative"));
}

TEST_CASE("an unknown check is refused with the known ones listed") {
  CHECK(error_of({{"check", "superlatve"}, {"fact", "r"}}) ==
        "check_from_json: unknown check 'superlatve' (did you mean 'superlative'?); known checks: superlative, "
        "ranking_prefix, aggregate_reconciles, entities_recorded, row_integrity, comparison, actions_performed, "
        "field_matches_fact");
  CHECK_THAT(error_of({{"check", "argmax"}}), Catch::StartsWith("check_from_json: unknown check 'argmax'; known"));
}

TEST_CASE("an unknown member is refused by name with the check's members listed") {
  CHECK(error_of({{"check", "superlative"}, {"fact", "r"}, {"feild", "winner"}}) ==
        "check_from_json: superlative has no member 'feild' (did you mean 'field'?); its members: fact, field, "
        "score_field, pick, ties, tolerance, rounding, column, direction, on_missing, rank_field");
  CHECK(error_of({{"check", "row_integrity"},
                  {"fact", "t"},
                  {"key_field", "k"},
                  {"fields", json::object()},
                  {"direction", "lower_is_better"}}) ==
        "check_from_json: row_integrity has no member 'direction'; its members: fact, key_field, fields, key_column, "
        "at, tolerance");
}

TEST_CASE("a member of the wrong type is refused saying what was expected and what was given") {
  CHECK(error_of({{"check", "superlative"}, {"fact", 7}}) ==
        "check_from_json: superlative.fact must be a string, got a number");
  CHECK(error_of({{"check", "entities_recorded"}, {"facts", "campaigns"}, {"fields", {"w"}}}) ==
        "check_from_json: entities_recorded.facts must be an array of strings, got a string");
  CHECK(error_of({{"check", "entities_recorded"}, {"facts", {"campaigns", 2}}, {"fields", {"w"}}}) ==
        "check_from_json: entities_recorded.facts must be an array of strings, but element 1 is a number");
  CHECK(error_of({{"check", "ranking_prefix"}, {"fact", "r"}, {"k", -1}}) ==
        "check_from_json: ranking_prefix.k must be a non-negative integer, got -1");
  CHECK(error_of({{"check", "ranking_prefix"}, {"fact", "r"}, {"k", 2.5}}) ==
        "check_from_json: ranking_prefix.k must be a non-negative integer, got 2.5");
  CHECK(error_of({{"check", "ranking_prefix"}, {"fact", "r"}, {"k", "3"}}) ==
        "check_from_json: ranking_prefix.k must be a non-negative integer, got a string");
  CHECK(error_of({{"check", "aggregate_reconciles"}, {"fact", "t"}, {"field", "f"}, {"op", "sum"}, {"where", "x"}}) ==
        "check_from_json: aggregate_reconciles.where must be an object {column: value}, got a string");
  CHECK(error_of({{"check", "row_integrity"}, {"fact", "t"}, {"key_field", "k"}, {"fields", {{"ctr", 1}}}}) ==
        "check_from_json: row_integrity.fields maps 'ctr' to a number; each output field maps to a column name (a "
        "string)");
  CHECK(error_of({{"check", "row_integrity"}, {"fact", "t"}, {"key_field", "k"}, {"fields", {"ctr", "ctr"}}}) ==
        "check_from_json: row_integrity.fields must be an object {output_field: column}, got an array");
}

TEST_CASE("a malformed tolerance is refused naming the part that is wrong") {
  CHECK(error_of({{"check", "superlative"}, {"fact", "r"}, {"tolerance", 0.01}}) ==
        "check_from_json: superlative.tolerance must be an object {\"absolute\": n, \"relative\": n}, got a number");
  CHECK(error_of({{"check", "superlative"}, {"fact", "r"}, {"tolerance", {{"abs", 0.01}}}}) ==
        "check_from_json: superlative.tolerance has no member 'abs'; its members: absolute, relative");
  CHECK(error_of({{"check", "superlative"}, {"fact", "r"}, {"tolerance", {{"relativ", 0.01}}}}) ==
        "check_from_json: superlative.tolerance has no member 'relativ' (did you mean 'relative'?); its members: "
        "absolute, relative");
  CHECK(error_of({{"check", "superlative"}, {"fact", "r"}, {"tolerance", {{"absolute", "0.01"}}}}) ==
        "check_from_json: superlative.tolerance.absolute must be a number, got a string");
}

TEST_CASE("a bad enum name is refused with the valid names listed") {
  CHECK(error_of({{"check", "superlative"}, {"fact", "r"}, {"pick", "top"}}) ==
        "check_from_json: superlative.pick must be one of 'best', 'worst'; got 'top'");
  CHECK(error_of({{"check", "aggregate_reconciles"}, {"fact", "t"}, {"field", "f"}, {"op", "average"}}) ==
        "check_from_json: aggregate_reconciles.op must be one of 'sum', 'mean', 'count', 'min', 'max', 'median'; "
        "got 'average'");
  CHECK(error_of({{"check", "comparison"}, {"fact", "t"}, {"convention", "Percent_Change"}}) ==
        "check_from_json: comparison.convention must be one of 'percent_change', 'percentage_points', 'ratio', "
        "'difference'; got 'Percent_Change'");
  CHECK(error_of({{"check", "superlative"}, {"fact", "r"}, {"rounding", 1}}) ==
        "check_from_json: superlative.rounding must be one of 'exact', 'as_stated', got a number");
  CHECK(error_of({{"check", "superlative"}, {"fact", "r"}, {"ties", "Ties::accept_any"}}) ==
        "check_from_json: superlative.ties must be one of 'reject', 'accept_any'; got 'Ties::accept_any'");
}

TEST_CASE("a member without a default is required") {
  CHECK(error_of({{"check", "aggregate_reconciles"}, {"fact", "t"}, {"field", "total"}}) ==
        "check_from_json: aggregate_reconciles needs member 'op'; it has no default");
  CHECK(error_of({{"check", "superlative"}}) == "check_from_json: superlative needs member 'fact'; it has no default");
  CHECK(error_of({{"check", "entities_recorded"}, {"facts", {"d"}}}) ==
        "check_from_json: entities_recorded needs member 'fields'; it has no default");
}

TEST_CASE("hostile names in a bad spec are escaped in the error") {
  const std::string e = error_of({{"check", "superlative\n| fact='x'"}});
  CHECK(e.find('\n') == std::string::npos);
  CHECK_THAT(e, Catch::Contains("unknown check 'superlative\\n| fact=\\'x\\''"));
  const std::string m = error_of({{"check", "superlative"}, {"fact", "r"}, {"\x1b[2Jpick", "best"}});
  CHECK(m.find('\x1b') == std::string::npos);
  CHECK_THAT(m, Catch::Contains("no member '\\x1b[2Jpick'"));
}

TEST_CASE("check_to_json refuses a custom check because it has no spec") {
  struct mine {
    std::vector<std::string> leans_on() const { return {}; }
    void validate(const gp::FactRegistry&) const {}
    void verify(const gp::FactRegistry&, const json&, std::vector<gp::Finding>&) const {}
  };
  CHECK_THROWS_AS(gp::check_to_json(gp::AnyCheck(mine{})), gp::ConfigurationError);
}

TEST_CASE("check_from_json and check_to_json work as function pointers in either mode, given the pointer's type") {
  // Header-only they are templates in form only (detail/linkage.hpp): a target type picks
  // the one instantiation, as the documented way to name them as values.
  const auto from = static_cast<gp::AnyCheck (*)(const json&)>(&gp::check_from_json);
  const auto to = static_cast<json (*)(const gp::AnyCheck&)>(&gp::check_to_json);
  const json spec = {{"check", "superlative"}, {"fact", "campaign_ctr"}};
  const json round_trip = to(from(spec));
  CHECK(round_trip["check"] == "superlative");
  CHECK(round_trip["fact"] == "campaign_ctr");
  CHECK(to(from(round_trip)) == round_trip);
}

TEST_CASE("an optional direction set to null reads as unset and a wrong enum name lists the valid ones") {
  const gp::AnyCheck check =
      gp::check_from_json({{"check", "superlative"}, {"fact", "t"}, {"column", "x"}, {"direction", nullptr}});
  CHECK(gp::check_to_json(check)["direction"].is_null());
  CHECK(error_of({{"check", "superlative"}, {"fact", "t"}, {"on_missing", "ignore"}}) ==
        "check_from_json: superlative.on_missing must be one of 'refuse', 'skip'; got 'ignore'");
  CHECK(error_of({{"check", "comparison"}, {"fact", "t"}, {"order", "a-b"}}) ==
        "check_from_json: comparison.order must be one of 'a_minus_b', 'b_minus_a'; got 'a-b'");
  CHECK(error_of({{"check", "entities_recorded"}, {"facts", {"d"}}, {"fields", {"w"}}, {"allow_empty", 1}}) ==
        "check_from_json: entities_recorded.allow_empty must be true or false, got a number");
}

TEST_CASE("the spec schema accepts every spec check_to_json writes, with members set or left at their defaults") {
  const gp::JsonSchema schema(gp::detail::check_spec_schema());
  for (const json& spec : full_specs()) {
    INFO(spec.dump());
    CHECK(schema.validate(spec).empty());
    const json defaults = gp::check_to_json(gp::check_from_json(spec));
    CHECK(schema.validate(defaults).empty());
  }
  // An unset direction is written as null, and null is one of the values the schema allows.
  const json unset = gp::check_to_json(gp::check_from_json({{"check", "superlative"}, {"fact", "t"}}));
  REQUIRE(unset["direction"].is_null());
  CHECK(schema.validate(unset).empty());
}

TEST_CASE("the spec schema refuses what check_from_json refuses for a member's shape") {
  const gp::JsonSchema schema(gp::detail::check_spec_schema());
  const std::vector<json> wrong = {
      {{"check", "ranking_prefix"}, {"fact", "r"}, {"k", "3"}},
      {{"check", "ranking_prefix"}, {"fact", "r"}, {"k", -1}},
      {{"check", "ranking_prefix"}, {"fact", "r"}, {"ordered", "false"}},
      {{"check", "superlative"}, {"fact", "r"}, {"ties", "any"}},
      {{"check", "superlative"}, {"fact", "r"}, {"tolerance", {{"abs", 1}}}},
      {{"check", "aggregate_reconciles"}, {"fact", "t"}, {"field", "f"}, {"op", "total"}},
      {{"check", "entities_recorded"}, {"facts", "d"}, {"fields", {"w"}}},
      {{"check", "median"}, {"fact", "t"}},
  };
  for (const json& spec : wrong) {
    INFO(spec.dump());
    CHECK_FALSE(schema.validate(spec).empty());
    CHECK_THROWS_AS(gp::check_from_json(spec), gp::ConfigurationError);
  }
}

TEST_CASE("the spec schema lists every member of every check with the checks that read it") {
  const nlohmann::ordered_json schema = gp::detail::check_spec_schema();
  const auto& properties = schema["properties"];
  CHECK(properties["check"]["enum"] ==
        nlohmann::ordered_json::array({"superlative", "ranking_prefix", "aggregate_reconciles", "entities_recorded",
                                       "row_integrity", "comparison", "actions_performed", "field_matches_fact"}));
  for (const json& spec : full_specs())
    for (const auto& [member, value] : spec.items()) {
      if (member == "check") continue;
      INFO(spec["check"] << "." << member);
      REQUIRE(properties.contains(member));
      CHECK(properties[member]["description"].get<std::string>().find(spec["check"].get<std::string>()) !=
            std::string::npos);
    }
  CHECK(properties["weight_column"]["description"] == "Read by aggregate_reconciles.");
  CHECK(properties["ordered"]["type"] == "boolean");
  CHECK(properties["ties"]["enum"] == nlohmann::ordered_json::array({"reject", "accept_any"}));
  CHECK(properties["op"]["description"] == "Read by aggregate_reconciles (required).");
  // Two checks read `fields` in two shapes: it declares no type and says both.
  CHECK_FALSE(properties["fields"].contains("type"));
  CHECK(properties["fields"]["description"] ==
        "Its shape depends on the check: entities_recorded (required): an array of strings; row_integrity "
        "(required): an object {output_field: column}.");
}

TEST_CASE("a spec nested past 256 levels is a ConfigurationError before any member is copied") {
  json spec = {{"check", "aggregate_reconciles"},
               {"fact", "orders"},
               {"field", "total"},
               {"op", "sum"},
               {"column", "amount"},
               {"where", {{"region", json::array()}}}};
  json* at = &spec["where"]["region"];
  for (int i = 0; i < 300; ++i) at = &at->emplace_back(json::array());
  CHECK_THROWS_WITH(gp::check_from_json(spec), Catch::Contains("nested deeper than 256 arrays/objects"));
}
