// Behaviours of the Python reference (ong6/groundplane, tests/*.py) that no other C++ test
// asserted (issue 34's count): ranking_prefix and superlative over a table column with a
// direction, Table::to_ranking, integer entities, weights, exact arithmetic past a double,
// comparison diagnoses, named checks, and the MCP payload. Each case names the reference
// test it answers. Built with test_reference_behaviours.cpp as one unity translation unit,
// so its helpers live in a namespace of their own (rc).
#include "catch2_compat.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <groundplane/groundplane.hpp>
#include <groundplane/mcp/record.hpp>

#include "fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {
namespace rc {

using ojson = nlohmann::ordered_json;

const gp::RankingOptions ctr_options{
    .key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}};

// Four campaigns ranked on ctr: harbour 0.0455, north 0.0412, vega 0.033, delta 0.0301.
void record_four_campaigns(gp::FactRegistry& reg) {
  reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}, {"vega", 0.0330}},
                     ctr_options);
}

// The same four campaigns as table rows keyed by name.
void record_campaign_rows(gp::FactRegistry& reg) {
  reg.record_table("campaign_rows", json::parse(R"([
        {"campaign": "north", "ctr": 0.0412},
        {"campaign": "harbour", "ctr": 0.0455},
        {"campaign": "delta", "ctr": 0.0301},
        {"campaign": "vega", "ctr": 0.0330}
      ])"),
                   {.key_column = "campaign", .tool = "warehouse.query"});
}

// Three campaigns keyed by integer id: 101 leads, then 102, then 103.
void record_id_rows(gp::FactRegistry& reg) {
  reg.record_table("campaign_rows", json::parse(R"([
        {"id": 101, "ctr": 0.0455},
        {"id": 102, "ctr": 0.0412},
        {"id": 103, "ctr": 0.0301}
      ])"),
                   {.key_column = "id", .tool = "warehouse.query"});
}

// harbour has no ctr at all.
void record_holed_rows(gp::FactRegistry& reg) {
  reg.record_table("campaign_rows", json::parse(R"([
        {"campaign": "north", "ctr": 0.04},
        {"campaign": "harbour"},
        {"campaign": "delta", "ctr": 0.03}
      ])"),
                   {.key_column = "campaign", .tool = "warehouse.query"});
}

// p99 latency per region, lower is better: us 88, eu 120, apac 210.
void record_latency_rows(gp::FactRegistry& reg) {
  reg.record_table("latency", json::parse(R"([
        {"region": "eu", "p99_ms": 120.0},
        {"region": "us", "p99_ms": 88.0},
        {"region": "apac", "p99_ms": 210.0}
      ])"),
                   {.key_column = "region", .tool = "metrics.p99"});
}

void record_latency_ranking(gp::FactRegistry& reg) {
  reg.record_ranking("latency", {{"eu", 120.0}, {"us", 88.0}, {"apac", 210.0}},
                     {.key = "p99_ms", .direction = gp::Direction::lower_is_better, .tool = "metrics.p99"});
}

// One check over one fact, one output: the verdict (the boundary counts as submitted).
template <gp::Check C>
gp::Verdict verdict_of(const gp::FactRegistry& reg, const std::string& fact, C check, const json& output) {
  gp::Boundary b(reg, {fact}, std::move(check));
  return b.try_submit(output);
}

// The ConfigurationError a boundary over one check throws when it is built; "" if none.
template <gp::Check C>
std::string build_error(const gp::FactRegistry& reg, const std::string& fact, C check) {
  try {
    gp::Boundary b(reg, {fact}, std::move(check));
    (void)b.try_submit(json::object());
  } catch (const gp::ConfigurationError& e) {
    return e.what();
  }
  return "";
}

// The last as many characters of `s` as `suffix` has (all of `s` when shorter), so that
// CHECK(ends(s, x) == x) prints both sides when it fails.
std::string ends(const std::string& s, std::string_view suffix) {
  return s.size() <= suffix.size() ? s : s.substr(s.size() - suffix.size());
}

json pair_claim(const json& a, const json& b, const json& by) { return {{"a", a}, {"b", b}, {"by", by}}; }

// Every number anywhere in `j` is finite.
bool all_numbers_finite(const json& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_structured()) {
    for (const auto& v : j)
      if (!all_numbers_finite(v)) return false;
  }
  return true;
}

// A CallToolResult with one text block whose "text" member is `text`.
ojson one_text_block(ojson text) {
  return {{"content", ojson::array({{{"type", "text"}, {"text", std::move(text)}}})}};
}

}  // namespace rc
}  // namespace

// ------------------------------------------------------------------------------------------
// ranking_prefix over a Table column, and direction (test_ordering.py)
// ------------------------------------------------------------------------------------------

// reference: test_ordering.py::test_table_backed_ranking_agrees
TEST_CASE("a top-k over a table column names the entity at the wrong place with its real rank") {
  gp::FactRegistry reg;
  rc::record_campaign_rows(reg);
  const auto v =
      rc::verdict_of(reg, "campaign_rows", gp::ranking_prefix{.fact = "campaign_rows", .k = 3, .column = "ctr"},
                     {{"top", {"harbour", "north", "delta"}}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "top");
  CHECK(v.findings()[0].said == "'delta'");
  CHECK(v.findings()[0].supported == "'vega'");
  CHECK(v.findings()[0].detail ==
        "place 3 of the computed top 3 on 'ctr' is 'vega' (0.033); 'delta' ranked #4 at 0.0301");
  CHECK(rc::verdict_of(reg, "campaign_rows", gp::ranking_prefix{.fact = "campaign_rows", .k = 2, .column = "ctr"},
                       {{"top", {"harbour", "north"}}})
            .ok());
}

// reference: test_ordering.py::test_k1_agrees_with_superlative
TEST_CASE("a top-1 list and a superlative reject the same wrong winner with the same explanation") {
  gp::FactRegistry reg;
  rc::record_four_campaigns(reg);
  const json output = {{"top", {"north"}}, {"winner", "north"}};
  const auto prefix = rc::verdict_of(reg, "campaign_ctr", gp::ranking_prefix{.fact = "campaign_ctr", .k = 1}, output);
  const auto best = rc::verdict_of(reg, "campaign_ctr", gp::superlative{.fact = "campaign_ctr"}, output);
  for (const gp::Verdict* v : {&prefix, &best}) {
    REQUIRE(v->findings().size() == 1);
    CHECK(v->findings()[0].said == "'north'");
    CHECK(v->findings()[0].supported == "'harbour'");
  }
  gp::Boundary both(reg, {"campaign_ctr"}, gp::ranking_prefix{.fact = "campaign_ctr", .k = 1},
                    gp::superlative{.fact = "campaign_ctr"});
  const gp::Verdict v = both.try_submit(output);
  REQUIRE(v.findings().size() == 2);
  for (const gp::Finding& f : v.findings())
    CHECK(rc::ends(f.detail, "'north' ranked #2 at 0.0412") == "'north' ranked #2 at 0.0412");
}

// reference: test_ordering.py::test_column_on_a_ranking_fact_is_a_config_error
TEST_CASE("a ranking_prefix given a column over a fact that is already a ranking is a configuration error") {
  gp::FactRegistry reg;
  rc::record_four_campaigns(reg);
  CHECK(rc::build_error(reg, "campaign_ctr", gp::ranking_prefix{.fact = "campaign_ctr", .column = "ctr"}) ==
        "ranking_prefix: fact 'campaign_ctr' is already a Ranking (of 'ctr'); column 'ctr' applies only to a Table "
        "fact; leave column empty");
  CHECK_THROWS_AS(gp::Boundary(reg, {"campaign_ctr"}, gp::ranking_prefix{.fact = "campaign_ctr", .column = "ctr"}),
                  gp::ConfigurationError);
}

// reference: test_ordering.py::test_int_row_keys_are_not_stringified
TEST_CASE("a top-k over a table keyed by integers refuses the ids written as text") {
  gp::FactRegistry reg;
  rc::record_id_rows(reg);
  const gp::ranking_prefix top2{.fact = "campaign_rows", .k = 2, .column = "ctr"};
  const auto v = rc::verdict_of(reg, "campaign_rows", top2, {{"top", {"101", "102"}}});
  REQUIRE(v.findings().size() == 2);
  CHECK(v.findings()[0].supported == "101");
  for (const gp::Finding& f : v.findings()) {
    CHECK_THAT(f.detail, Catch::Contains("was never ranked"));
  }
  CHECK_THAT(v.findings()[0].detail,
             Catch::Contains("'101' is text, and the recorded entity 101 is an integer (write it as 101)"));
  CHECK_THAT(v.findings()[1].detail,
             Catch::Contains("'102' is text, and the recorded entity 102 is an integer (write it as 102)"));
  CHECK(rc::verdict_of(reg, "campaign_rows", top2, {{"top", {101, 102}}}).ok());
}

// reference: test_ordering.py::test_lower_is_better_over_a_table
TEST_CASE("a top-k over a table column ranks lowest first when told lower is better") {
  gp::FactRegistry reg;
  rc::record_latency_rows(reg);
  const gp::ranking_prefix fastest{
      .fact = "latency", .k = 2, .column = "p99_ms", .direction = gp::Direction::lower_is_better};
  const auto slowest_first = rc::verdict_of(reg, "latency", fastest, {{"top", {"apac", "eu"}}});
  REQUIRE(slowest_first.findings().size() == 1);
  CHECK(slowest_first.findings()[0].detail ==
        "place 1 of the computed top 2 on 'p99_ms' (lower is better) is 'us' (88); 'apac' ranked #3 at 210");
  // Without a direction a table column ranks highest first, so the fastest two are wrong.
  CHECK_FALSE(rc::verdict_of(reg, "latency", gp::ranking_prefix{.fact = "latency", .k = 2, .column = "p99_ms"},
                             {{"top", {"us", "eu"}}})
                  .ok());
  CHECK(rc::verdict_of(reg, "latency", fastest, {{"top", {"us", "eu"}}}).ok());
  // The same check built from a JSON spec.
  const gp::AnyCheck spec = gp::check_from_json({{"check", "ranking_prefix"},
                                                 {"fact", "latency"},
                                                 {"k", 2},
                                                 {"column", "p99_ms"},
                                                 {"direction", "lower_is_better"}});
  CHECK_FALSE(rc::verdict_of(reg, "latency", spec, {{"top", {"apac", "eu"}}}).ok());
  CHECK(rc::verdict_of(reg, "latency", spec, {{"top", {"us", "eu"}}}).ok());
}

// reference: test_ordering.py::test_higher_is_better_contradicting_a_ranking_is_a_config_error
TEST_CASE(
    "a ranking_prefix asking for higher is better over a ranking recorded lower is better is a configuration error") {
  gp::FactRegistry reg;
  rc::record_latency_ranking(reg);
  CHECK(rc::build_error(reg, "latency",
                        gp::ranking_prefix{.fact = "latency", .direction = gp::Direction::higher_is_better}) ==
        "ranking_prefix: fact 'latency' was recorded lower_is_better, and the check asks for higher_is_better, "
        "which would disagree with the recorded order; leave direction unset or record the ranking the other way");
  CHECK_FALSE(rc::verdict_of(reg, "latency",
                             gp::ranking_prefix{.fact = "latency", .direction = gp::Direction::lower_is_better},
                             {{"top", {"apac"}}})
                  .ok());
  CHECK(rc::verdict_of(reg, "latency",
                       gp::ranking_prefix{.fact = "latency", .direction = gp::Direction::lower_is_better},
                       {{"top", {"us"}}})
            .ok());
  CHECK(rc::verdict_of(reg, "latency", gp::ranking_prefix{.fact = "latency"}, {{"top", {"us"}}}).ok());
}

// reference: test_ordering.py::test_sparse_column_in_table_backed_prefix
TEST_CASE("a top-k over a table column with a hole is refused unless told to skip, and a skip warns") {
  gp::FactRegistry reg;
  rc::record_holed_rows(reg);
  CHECK_THAT(rc::build_error(reg, "campaign_rows", gp::ranking_prefix{.fact = "campaign_rows", .column = "ctr"}),
             Catch::StartsWith("fact 'campaign_rows': column 'ctr' has no value (missing or null) in 1 of 3 rows: "
                               "'harbour'; "));
  const gp::ranking_prefix skipping{.fact = "campaign_rows", .column = "ctr", .on_missing = gp::OnMissing::skip};
  const std::vector<std::string> warned = {
      "ranking_prefix(fact='campaign_rows', column='ctr', field='top'): fact 'campaign_rows' has no value in column "
      "'ctr' for 1 row, ranked without them (OnMissing::skip): 'harbour'"};
  // The skipped row was never ranked, so it cannot lead.
  const auto skipped = rc::verdict_of(reg, "campaign_rows", skipping, {{"top", {"harbour"}}});
  REQUIRE(skipped.findings().size() == 1);
  CHECK_THAT(skipped.findings()[0].detail, Catch::Contains("'harbour' was never ranked"));
  CHECK(skipped.warnings() == warned);
  const auto v = rc::verdict_of(reg, "campaign_rows", skipping, {{"top", {"north"}}});
  CHECK(v.ok());
  CHECK(v.warnings() == warned);
}

// ------------------------------------------------------------------------------------------
// superlative over a Table column, and direction (test_superlative_adversarial.py)
// ------------------------------------------------------------------------------------------

// reference: test_superlative_adversarial.py::test_lower_is_better_over_a_table_fact
TEST_CASE("a superlative over a table column picks the lowest when told lower is better") {
  gp::FactRegistry reg;
  rc::record_latency_rows(reg);
  const gp::superlative fastest{.fact = "latency", .column = "p99_ms", .direction = gp::Direction::lower_is_better};
  const auto v = rc::verdict_of(reg, "latency", fastest, {{"winner", "apac"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].supported == "'us'");
  CHECK(v.findings()[0].detail == "computed argmin on 'p99_ms' is 'us' (88); 'apac' ranked #3 at 210");
  CHECK(rc::verdict_of(reg, "latency", fastest, {{"winner", "us"}}).ok());
}

// reference: test_superlative_adversarial.py::test_higher_is_better_contradicting_a_ranking_raises
TEST_CASE(
    "a superlative asking for higher is better over a ranking recorded lower is better is a configuration error") {
  gp::FactRegistry reg;
  reg.record_ranking("latency", {{"eu", 120.0}, {"us", 88.0}},
                     {.key = "p99_ms", .direction = gp::Direction::lower_is_better, .tool = "metrics.p99"});
  CHECK(rc::build_error(reg, "latency",
                        gp::superlative{.fact = "latency", .direction = gp::Direction::higher_is_better}) ==
        "superlative: fact 'latency' was recorded lower_is_better, and the check asks for higher_is_better, which "
        "would disagree with the recorded order; leave direction unset or record the ranking the other way");
}

// reference: test_boundary.py::test_config_errors_propagate_from_report
TEST_CASE("a superlative given a column over a ranking is a configuration error when the boundary is built") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  CHECK(rc::build_error(reg, "campaign_ctr", gp::superlative{.fact = "campaign_ctr", .column = "ctr"}) ==
        "superlative: fact 'campaign_ctr' is already a Ranking (of 'ctr'); column 'ctr' applies only to a Table "
        "fact; leave column empty");
  // Never a claim to re-ask about, under stop_at_first too.
  CHECK_THROWS_AS(gp::Boundary(reg, {"campaign_ctr"}, gp::BoundaryOptions{.stop_at_first = true},
                               gp::superlative{.fact = "campaign_ctr", .column = "ctr"}),
                  gp::ConfigurationError);
}

// reference: test_adapters.py::test_guarded_node_does_not_swallow_config_errors
TEST_CASE("a superlative given a column over a ranking stops reask before the model is called") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  std::size_t calls = 0;
  const auto model = [&](const json&, const std::optional<std::string>&) {
    ++calls;
    return json{{"winner", "harbour"}};
  };
  CHECK_THROWS_WITH(
      gp::reask(reg, {"campaign_ctr"}, model, 3, gp::superlative{.fact = "campaign_ctr", .column = "ctr"}),
      Catch::Contains("is already a Ranking"));
  CHECK_THROWS_AS(gp::reask(reg, {"campaign_ctr"}, model, 3, gp::superlative{.fact = "campaign_ctr", .column = "ctr"}),
                  gp::ConfigurationError);
  CHECK(calls == 0);
}

// ------------------------------------------------------------------------------------------
// Table::to_ranking and integer entities (test_registry.py)
// ------------------------------------------------------------------------------------------

// reference: test_registry.py::test_to_ranking_preserves_key_type
TEST_CASE("a ranking derived from a table keyed by integers keeps its entities integers") {
  gp::FactRegistry reg;
  rc::record_id_rows(reg);
  const gp::Table& t = reg.get<gp::Table>("campaign_rows");
  const gp::Ranking r = t.to_ranking("ctr");
  // The digits as text name nothing.
  CHECK_FALSE(r.score_of("101").has_value());
  CHECK(r.rank_of("101") == 0);
  CHECK(r.order() == std::vector<gp::Entity>{101, 102, 103});
  REQUIRE_FALSE(r.order().empty());
  CHECK(r.order()[0].is_integer());
  CHECK(r.order()[0] == gp::Entity(101));
  CHECK(r.order()[0] != gp::Entity("101"));
  CHECK(r.score_of(101) == gp::Decimal::parse("0.0455"));
  CHECK(r.name() == "campaign_rows");
  CHECK(r.key() == "ctr");
  CHECK(r.provenance() == t.provenance());
  const gp::Ranking low = t.to_ranking("ctr", gp::Direction::lower_is_better);
  CHECK(low.order() == std::vector<gp::Entity>{103, 102, 101});
  CHECK(low.direction() == gp::Direction::lower_is_better);
}

// reference: test_registry.py::test_to_ranking_refuses_a_sparse_column_by_default
TEST_CASE("to_ranking refuses a column with a hole by default, naming the row") {
  gp::FactRegistry reg;
  rc::record_holed_rows(reg);
  const gp::Table& t = reg.get<gp::Table>("campaign_rows");
  CHECK_THROWS_AS(t.to_ranking("ctr"), gp::ConfigurationError);
  CHECK_THROWS_WITH(t.to_ranking("ctr"), Catch::Contains("column 'ctr' has no value (missing or null) in 1 of 3 rows: "
                                                         "'harbour'"));
}

// reference: test_registry.py::test_to_ranking_skip_warns_with_the_dropped_keys
TEST_CASE("to_ranking told to skip ranks only the rows that have a value") {
  gp::FactRegistry reg;
  rc::record_holed_rows(reg);
  const gp::Ranking r =
      reg.get<gp::Table>("campaign_rows").to_ranking("ctr", gp::Direction::higher_is_better, gp::OnMissing::skip);
  CHECK(r.order() == std::vector<gp::Entity>{"north", "delta"});
  CHECK(r.rank_of("harbour") == 0);
}

// reference: test_registry.py::test_record_ranking_round_trips_int_names
TEST_CASE("a ranking recorded with integer names answers for the integers and not their digits") {
  gp::FactRegistry reg;
  const gp::Ranking& r =
      reg.record_ranking("campaign_ctr", {{101, 0.0455}, {102, 0.0412}, {103, 0.0301}}, {.key = "ctr", .tool = "w"});
  CHECK(r.rank_of("102") == 0);
  CHECK_FALSE(r.score_of("103").has_value());
  CHECK(r.order() == std::vector<gp::Entity>{101, 102, 103});
  for (const gp::Entity& e : r.order()) CHECK(e.is_integer());
  CHECK(r.rank_of(102) == 2);
  CHECK(r.score_of(103) == gp::Decimal::parse("0.0301"));
}

// reference: test_registry.py::test_to_ranking_rejects_bad_cells_by_name
TEST_CASE("to_ranking over a column holding a boolean names the fact, the column and the row") {
  gp::FactRegistry reg;
  reg.record_table("c", json::parse(R"([{"campaign": "north", "ctr": true}, {"campaign": "harbour", "ctr": 0.05}])"),
                   {.key_column = "campaign", .tool = "warehouse.query"});
  CHECK_THROWS_AS(reg.get<gp::Table>("c").to_ranking("ctr"), gp::ConfigurationError);
  CHECK_THROWS_WITH(reg.get<gp::Table>("c").to_ranking("ctr"),
                    "fact 'c': column 'ctr' row 'north' holds true (a boolean), not a number; the rows cannot be "
                    "ranked by it");
}

// reference: test_registry.py::test_record_ranking_rejects_non_finite_scores
TEST_CASE("a ranking with a minus infinity score is refused naming the fact and the entity") {
  gp::FactRegistry reg;
  CHECK_THROWS_AS(
      reg.record_ranking("campaign_ctr", {{"north", 0.04}, {"harbour", -std::numeric_limits<double>::infinity()}},
                         {.key = "ctr", .tool = "warehouse.query"}),
      gp::InvalidFact);
  CHECK_THROWS_WITH(
      reg.record_ranking("campaign_ctr", {{"north", 0.04}, {"harbour", -std::numeric_limits<double>::infinity()}},
                         {.key = "ctr", .tool = "warehouse.query"}),
      Catch::Contains("'campaign_ctr'") && Catch::Contains("'harbour'"));
  CHECK(reg.size() == 0);
}

// reference: test_registry.py::test_record_table_rejects_key_outside_columns
TEST_CASE("listing a table's columns orders them and never hides the key column") {
  gp::FactRegistry reg;
  // Kept on purpose (API.md Part E): columns order, they do not restrict.
  const gp::Table& t = reg.record_table("campaign_rows", json::parse(R"([{"campaign": "north", "ctr": 0.04}])"),
                                        {.key_column = "campaign", .tool = "warehouse.query", .columns = {"ctr"}});
  CHECK(t.columns() == std::vector<std::string>{"ctr", "campaign"});
  CHECK(t.key_column() == std::optional<std::string>("campaign"));
  // A key column that no row has is refused whatever is listed.
  CHECK_THROWS_AS(
      reg.record_table("other", json::parse(R"([{"campaign": "north", "ctr": 0.04}])"),
                       {.key_column = "campaign_id", .tool = "warehouse.query", .columns = {"campaign_id"}}),
      gp::InvalidFact);
  CHECK(reg.size() == 1);
}

// ------------------------------------------------------------------------------------------
// entities_recorded (test_entities.py)
// ------------------------------------------------------------------------------------------

// reference: test_entities.py::test_int_names_in_a_ranking_fact
TEST_CASE("the integer names of a ranking are recorded names and their digits as text are not") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{101, 0.0455}, {102, 0.0412}}, {.key = "ctr", .tool = "w"});
  const gp::entities_recorded check{.facts = {"r"}, .fields = {"winner"}};
  const auto v = rc::verdict_of(reg, "r", check, {{"winner", "101"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "'101' is not a recorded name; '101' is text, and the recorded entity 101 is an integer (write it as 101); "
        "recorded: 101, 102");
  CHECK_FALSE(rc::verdict_of(reg, "r", check, {{"winner", 101.0}}).ok());
  CHECK_FALSE(rc::verdict_of(reg, "r", check, {{"winner", true}}).ok());
  CHECK(rc::verdict_of(reg, "r", check, {{"winner", 101}}).ok());
}

// reference: test_entities.py::test_case_insensitive_lookup_with_int_names
TEST_CASE("case-insensitive matching leaves integer names alone and still refuses their digits as text") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"id": 7, "name": "North"}, {"id": 8, "name": "Harbour"}])"),
                   {.key_column = "id", .tool = "w"});
  const gp::entities_recorded check{.facts = {"t"}, .fields = {"winner"}, .case_sensitive = false};
  const auto v = rc::verdict_of(reg, "t", check, {{"winner", "7"}});
  REQUIRE(v.findings().size() == 1);
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("'7' is text, and the recorded entity 7 is an integer"));
  CHECK_FALSE(rc::verdict_of(reg, "t", check, {{"winner", "North"}}).ok());
  CHECK(rc::verdict_of(reg, "t", check, {{"winner", 7}}).ok());
  CHECK(rc::verdict_of(reg, "t", check, {{"winner", {8, 7}}}).ok());
}

// reference: test_entities.py::test_missing_nested_path_raises_unsupported_claim
TEST_CASE("a names field under a parent the output lacks is a finding on the full pointer") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  const auto v = rc::verdict_of(reg, "campaign_ctr",
                                gp::entities_recorded{.facts = {"campaign_ctr"}, .fields = {"/summary/winner"}},
                                {{"winner", "harbour"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "/summary/winner");
  CHECK(rc::ends(v.findings()[0].detail, "the output has no such field") == "the output has no such field");
}

// ------------------------------------------------------------------------------------------
// aggregate_reconciles (test_aggregates.py, test_hardening.py)
// ------------------------------------------------------------------------------------------

// reference: test_aggregates.py::test_count_claimed_as_bool_raises
TEST_CASE("a count stated as true is a finding even where the count is one") {
  gp::FactRegistry reg;
  reg.record_table("regions", json::parse(R"([
        {"region": "apac", "status": "active", "revenue": 1200},
        {"region": "emea", "status": "active", "revenue": 900},
        {"region": "amer", "status": "paused", "revenue": 4400},
        {"region": "latam", "status": "active", "revenue": 300},
        {"region": "meta", "status": "paused", "revenue": 2500}
      ])"),
                   {.key_column = "region", .tool = "warehouse.query"});
  const gp::aggregate_reconciles paused_amer{
      .fact = "regions", .field = "n", .op = gp::Aggregate::count, .where = {{"status", "paused"}, {"region", "amer"}}};
  const auto v = rc::verdict_of(reg, "regions", paused_amer, {{"n", true}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "true");
  CHECK(v.findings()[0].supported == "1");
  CHECK_THAT(v.findings()[0].detail, Catch::StartsWith("expected a number, got a boolean"));
  CHECK_FALSE(rc::verdict_of(reg, "regions", paused_amer, {{"n", "1"}}).ok());
  CHECK(rc::verdict_of(reg, "regions", paused_amer, {{"n", 1}}).ok());
}

// reference: test_aggregates.py::test_non_numeric_weight_cell_names_the_row
TEST_CASE("a weight cell that is null, missing or not a number is a configuration error naming the row") {
  const auto weighted_mean = gp::aggregate_reconciles{
      .fact = "campaign", .field = "ctr", .op = gp::Aggregate::mean, .column = "ctr", .weight_column = "conversions"};
  const auto error_for = [&](const char* north_weight) {
    gp::FactRegistry reg;
    json rows =
        json::parse(R"([{"campaign": "north", "ctr": 0.04}, {"campaign": "harbour", "ctr": 0.05, "conversions": 10}])");
    if (north_weight != nullptr) rows[0]["conversions"] = json::parse(north_weight);
    reg.record_table("campaign", rows, {.key_column = "campaign", .tool = "warehouse.query"});
    return rc::build_error(reg, "campaign", weighted_mean);
  };
  CHECK(error_for("null") ==
        "aggregate_reconciles: fact 'campaign' column 'conversions' row 'north' holds no value "
        "(missing or null), not a number to weight by");
  CHECK(error_for(R"("10")") ==
        "aggregate_reconciles: fact 'campaign' column 'conversions' row 'north' holds '10', not a number to weight by");
  CHECK(error_for("true") ==
        "aggregate_reconciles: fact 'campaign' column 'conversions' row 'north' holds true, not a number to weight by");
  // A row without the weight column at all: refused the same way, naming the row.
  CHECK(error_for(nullptr) == error_for("null"));
}

// reference: test_aggregates.py::test_non_numeric_weight_cell_names_the_row
TEST_CASE("a negative weight for a mean is a configuration error naming the row") {
  gp::FactRegistry reg;
  reg.record_table("campaign", json::parse(R"([{"campaign": "north", "ctr": 0.04, "conversions": -1},
                                   {"campaign": "harbour", "ctr": 0.05, "conversions": 10}])"),
                   {.key_column = "campaign", .tool = "warehouse.query"});
  CHECK(rc::build_error(reg, "campaign",
                        gp::aggregate_reconciles{.fact = "campaign",
                                                 .field = "ctr",
                                                 .op = gp::Aggregate::mean,
                                                 .column = "ctr",
                                                 .weight_column = "conversions"}) ==
        "aggregate_reconciles: fact 'campaign' column 'conversions' row 'north' holds the negative weight -1; a "
        "weighted mean needs weights of 0 or more");
}

// reference: test_aggregates.py::test_non_numeric_cell_names_fact_column_and_row
TEST_CASE("an aggregate over a column holding a boolean names the fact, the column and that row") {
  gp::FactRegistry reg;
  reg.record_table("c", json::parse(R"([{"campaign": "north", "ctr": true}, {"campaign": "harbour", "ctr": 0.05}])"),
                   {.key_column = "campaign", .tool = "warehouse.query"});
  CHECK_THAT(
      rc::build_error(reg, "c",
                      gp::aggregate_reconciles{.fact = "c", .field = "m", .op = gp::Aggregate::max, .column = "ctr"}),
      Catch::Contains("column 'ctr' row 'north' holds true (a boolean), not a number; "));
}

// reference: test_hardening.py::test_overflow_cannot_support_an_infinite_aggregate
TEST_CASE("an aggregate of values near the double limit is exact and infinity never matches it") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"id": "a", "n": 1e308}, {"id": "b", "n": 1e308}])"),
                   {.key_column = "id", .tool = "q"});
  const gp::aggregate_reconciles median{.fact = "t", .field = "n", .op = gp::Aggregate::median, .column = "n"};
  const auto inf = rc::verdict_of(reg, "t", median, {{"n", std::numeric_limits<double>::infinity()}});
  REQUIRE(inf.findings().size() == 1);
  CHECK_THAT(inf.findings()[0].detail, Catch::StartsWith("expected a number, got a non-finite number; "));
  CHECK_FALSE(rc::verdict_of(reg, "t", median, {{"n", -std::numeric_limits<double>::infinity()}}).ok());
  CHECK(rc::verdict_of(reg, "t", median, {{"n", 1e308}}).ok());

  gp::FactRegistry weighted;
  weighted.record_table("t", json::parse(R"([{"id": "a", "n": 1e308, "w": 2}])"), {.key_column = "id", .tool = "q"});
  const gp::aggregate_reconciles mean{
      .fact = "t", .field = "n", .op = gp::Aggregate::mean, .column = "n", .weight_column = "w"};
  CHECK_FALSE(rc::verdict_of(weighted, "t", mean, {{"n", std::numeric_limits<double>::infinity()}}).ok());
  CHECK(rc::verdict_of(weighted, "t", mean, {{"n", 1e308}}).ok());
}

// reference: test_hardening.py::test_bad_numeric_claims_are_reportable_in_strict_json
TEST_CASE("a verdict on an infinite, NaN or out-of-range stated number is strict JSON") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"id": "a", "n": 1}])"), {.key_column = "id", .tool = "q"});
  gp::Boundary b(reg, {"t"},
                 gp::aggregate_reconciles{.fact = "t", .field = "n", .op = gp::Aggregate::sum, .column = "n"});
  const std::vector<std::pair<gp::Verdict, std::string>> cases = {
      {b.try_submit({{"n", std::numeric_limits<double>::infinity()}}), "inf"},
      {b.try_submit({{"n", std::numeric_limits<double>::quiet_NaN()}}), "nan"},
      {b.try_submit_json(R"({"n": 1e1000})"), "1e+1000"},
  };
  for (const auto& [v, said] : cases) {
    CHECK_FALSE(v.ok());
    const json j = v.to_json();
    CHECK(rc::all_numbers_finite(j));
    CHECK_NOTHROW(j.dump());
    REQUIRE(j["findings"].size() == 1);
    CHECK(j["findings"][0]["said"] == said);
    // Strict JSON reads back what was written.
    CHECK(json::parse(j.dump()) == j);
  }
}

// reference: test_hardening.py::test_weight_product_underflow_cannot_turn_a_nonzero_mean_into_zero
TEST_CASE("a weighted mean of tiny values stays nonzero where the double products would underflow") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"id": 1, "n": 1e-308, "w": 1e-308}])"), {.key_column = "id", .tool = "q"});
  const gp::aggregate_reconciles mean{
      .fact = "t", .field = "n", .op = gp::Aggregate::mean, .column = "n", .weight_column = "w"};
  const auto zero = rc::verdict_of(reg, "t", mean, {{"n", 0}});
  REQUIRE(zero.findings().size() == 1);
  CHECK(zero.findings()[0].supported == "1e-308");
  CHECK(rc::verdict_of(reg, "t", mean, {{"n", 1e-308}}).ok());
}

// reference: test_hardening.py::test_unrepresentable_unweighted_diagnostic_does_not_veto_a_valid_weighted_mean
TEST_CASE("an unweighted mean past double precision is exact and a zero weight does not spoil the weighted one") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"id": 1, "n": 9007199254740992, "w": 0},
                                        {"id": 2, "n": 9007199254740993, "w": 1}])"),
                   {.key_column = "id", .tool = "q"});
  const auto unweighted = rc::verdict_of(
      reg, "t", gp::aggregate_reconciles{.fact = "t", .field = "n", .op = gp::Aggregate::mean, .column = "n"},
      json::parse(R"({"n": 9007199254740992})"));
  REQUIRE(unweighted.findings().size() == 1);
  CHECK(unweighted.findings()[0].supported == "9007199254740992.5");
  CHECK(unweighted.findings()[0].detail ==
        "computed mean of 'n' over 2 rows is 9007199254740992.5 (= 18014398509481985 / 2); off by -0.5");
  // The exact mean, written as the model's JSON text, is accepted.
  gp::Boundary b(reg, {"t"},
                 gp::aggregate_reconciles{.fact = "t", .field = "n", .op = gp::Aggregate::mean, .column = "n"});
  CHECK(b.try_submit_json(R"({"n": 9007199254740992.5})").ok());
  CHECK(rc::verdict_of(reg, "t",
                       gp::aggregate_reconciles{
                           .fact = "t", .field = "n", .op = gp::Aggregate::mean, .column = "n", .weight_column = "w"},
                       json::parse(R"({"n": 9007199254740993})"))
            .ok());
}

// reference: test_hardening.py::test_aggregate_intermediates_do_not_round_away_an_integer_unit
TEST_CASE("a median, a weighted mean and a sum with a float zero keep the last unit past 2 to the 53") {
  gp::FactRegistry reg;
  reg.record_table("twice", json::parse(R"([{"id": 0, "n": 9007199254740993}, {"id": 1, "n": 9007199254740993}])"),
                   {.key_column = "id", .tool = "q"});
  reg.record_table("once", json::parse(R"([{"id": 0, "n": 9007199254740993, "w": 1}])"),
                   {.key_column = "id", .tool = "q"});
  reg.record_table("float_zero", json::parse(R"([{"id": 0, "n": 9007199254740993}, {"id": 1, "n": 0.0}])"),
                   {.key_column = "id", .tool = "q"});
  const json exact = json::parse(R"({"n": 9007199254740993})");
  const json rounded = json::parse(R"({"n": 9007199254740992})");
  const gp::aggregate_reconciles median{.fact = "twice", .field = "n", .op = gp::Aggregate::median, .column = "n"};
  const gp::aggregate_reconciles mean{
      .fact = "once", .field = "n", .op = gp::Aggregate::mean, .column = "n", .weight_column = "w"};
  const gp::aggregate_reconciles sum{.fact = "float_zero", .field = "n", .op = gp::Aggregate::sum, .column = "n"};
  CHECK_FALSE(rc::verdict_of(reg, "twice", median, rounded).ok());
  CHECK_FALSE(rc::verdict_of(reg, "once", mean, rounded).ok());
  CHECK_FALSE(rc::verdict_of(reg, "float_zero", sum, rounded).ok());
  CHECK(rc::verdict_of(reg, "twice", median, exact).ok());
  CHECK(rc::verdict_of(reg, "once", mean, exact).ok());
  CHECK(rc::verdict_of(reg, "float_zero", sum, exact).ok());
}

// ------------------------------------------------------------------------------------------
// comparison (test_comparison.py, test_hardening.py)
// ------------------------------------------------------------------------------------------

// reference: test_comparison.py::test_wrong_sign_diagnosed_as_reversed_direction
TEST_CASE("a difference with the wrong sign is diagnosed as the other order") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  const auto v = rc::verdict_of(reg, "campaign_ctr",
                                gp::comparison{.fact = "campaign_ctr", .convention = gp::Convention::difference},
                                rc::pair_claim("harbour", "north", -0.0043));
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "by");
  CHECK(v.findings()[0].provenance == "warehouse.query(table='campaign_daily', window='7d')");
  CHECK(v.findings()[0].detail ==
        "'harbour' vs 'north' on 'ctr' as the difference is 0.0043 = 0.0455 - 0.0412; off by -0.0086; -0.0043 "
        "matches the difference in the other order ('north' vs 'harbour') (pass ComparisonOrder::b_minus_a to read it "
        "in that order), not the "
        "difference in the order configured (a_minus_b)");
}

// reference: test_comparison.py::test_reversed_direction_diagnosed_for_pct
TEST_CASE("a percent change with the wrong sign is diagnosed as the other order") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  const auto v = rc::verdict_of(reg, "campaign_ctr", gp::comparison{.fact = "campaign_ctr"},
                                rc::pair_claim("harbour", "north", -9.45));
  REQUIRE(v.findings().size() == 1);
  const std::string diagnosis =
      "-9.45 matches percent change in the other order ('north' vs 'harbour') (pass ComparisonOrder::b_minus_a to read "
      "it in that order), not "
      "percent change in the order configured (a_minus_b)";
  CHECK(rc::ends(v.findings()[0].detail, diagnosis) == diagnosis);
}

// reference: test_comparison.py::test_percent_reported_as_percentage_points_diagnosed
TEST_CASE("a percent change passed off as percentage points is named as percent change") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  const auto v = rc::verdict_of(reg, "campaign_ctr",
                                gp::comparison{.fact = "campaign_ctr", .convention = gp::Convention::percentage_points},
                                rc::pair_claim("harbour", "north", 10.44));
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].supported == "0.43");
  CHECK(v.findings()[0].detail ==
        "'harbour' vs 'north' on 'ctr' as percentage points is 0.43 = (0.0455 - 0.0412) * 100; off by +10.01; 10.44 "
        "matches percent change, not percentage points in the order configured (a_minus_b)");
}

// reference: test_comparison.py::test_b_minus_a_direction_passes_with_swapped_sign
TEST_CASE("a ratio configured b over a is accepted for the swapped pair") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  const gp::comparison b_over_a{.fact = "campaign_ctr",
                                .convention = gp::Convention::ratio,
                                .rounding = gp::Rounding::as_stated,
                                .order = gp::ComparisonOrder::b_minus_a};
  // a over b (1.1044) is the other order.
  CHECK_FALSE(rc::verdict_of(reg, "campaign_ctr", b_over_a, rc::pair_claim("harbour", "north", 1.1044)).ok());
  CHECK(rc::verdict_of(reg, "campaign_ctr", b_over_a, rc::pair_claim("harbour", "north", 0.9055)).ok());
}

// reference: test_comparison.py::test_non_numeric_claim_raises
TEST_CASE("a stated delta of null or true is a finding that says what it got") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  const auto null_by = rc::verdict_of(reg, "campaign_ctr", gp::comparison{.fact = "campaign_ctr"},
                                      rc::pair_claim("harbour", "north", nullptr));
  REQUIRE(null_by.findings().size() == 1);
  CHECK(null_by.findings()[0].field == "by");
  CHECK_THAT(null_by.findings()[0].detail,
             Catch::StartsWith("expected a number (the claimed delta is not a number), got null; "));
  const auto true_by = rc::verdict_of(reg, "campaign_ctr", gp::comparison{.fact = "campaign_ctr"},
                                      rc::pair_claim("harbour", "north", true));
  REQUIRE(true_by.findings().size() == 1);
  CHECK_THAT(true_by.findings()[0].detail,
             Catch::StartsWith("expected a number (the claimed delta is not a number), got a boolean; "));
}

// reference: test_hardening.py::test_huge_comparison_mismatch_is_reported_without_diagnostic_overflow
TEST_CASE("a comparison against a score of 1e1000 reports the mismatch without overflowing") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"a", gp::Decimal::parse("1e1000")}, {"b", 1}}, {.key = "n", .tool = "q"});
  std::optional<gp::Verdict> v;
  REQUIRE_NOTHROW(v = rc::verdict_of(reg, "r", gp::comparison{.fact = "r"}, rc::pair_claim("a", "b", 2)));
  REQUIRE(v->findings().size() == 1);
  CHECK(v->findings()[0].field == "by");
}

// reference: test_hardening.py::test_unrepresentable_nonzero_ratio_does_not_validate_zero
TEST_CASE("a ratio too small for a double is exact and zero does not match it") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"a", 1e-308}, {"b", 1e308}},
                     {.key = "n", .direction = gp::Direction::lower_is_better, .tool = "q"});
  const auto v = rc::verdict_of(reg, "r", gp::comparison{.fact = "r", .convention = gp::Convention::ratio},
                                rc::pair_claim("a", "b", 0));
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].supported == "1e-616");
  CHECK(v.findings()[0].detail ==
        "'a' vs 'b' on 'n' (lower is better) as the ratio is 1e-616 = 1e-308 / 1e+308; off by -1e-616; matches "
        "1e-616 rounded to the 0 decimals stated; pass Rounding::as_stated to accept stated precision");
}

// reference: test_hardening.py::test_mixed_float_and_integer_comparison_preserves_the_integer
TEST_CASE("percentage points from a big integer and a float zero keep the integer's last unit") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"a", gp::Decimal::parse("9007199254740993")}, {"b", 0.0}}, {.key = "n", .tool = "q"});
  const gp::comparison pp{.fact = "r", .value_field = "d", .convention = gp::Convention::percentage_points};
  CHECK_FALSE(rc::verdict_of(reg, "r", pp, json::parse(R"({"a": "a", "b": "b", "d": 900719925474099200})")).ok());
  CHECK(rc::verdict_of(reg, "r", pp, json::parse(R"({"a": "a", "b": "b", "d": 900719925474099300})")).ok());
}

// reference: test_hardening.py::test_adjacent_large_integer_scores_remain_distinguishable
TEST_CASE("table scores one apart past 2 to the 53 stay apart for a superlative and a comparison") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"id": "a", "n": 9007199254740992}, {"id": "b", "n": 9007199254740993}])"),
                   {.key_column = "id", .tool = "q"});
  const gp::Ranking r = reg.get<gp::Table>("t").to_ranking("n");
  CHECK(r.order() == std::vector<gp::Entity>{"b", "a"});
  CHECK(r.rank_of("a") == 2);
  const gp::superlative best{.fact = "t", .column = "n"};
  const auto runner_up_score =
      rc::verdict_of(reg, "t", best, json::parse(R"({"winner": "b", "score": 9007199254740992})"));
  REQUIRE(runner_up_score.findings().size() == 1);
  CHECK_THAT(runner_up_score.findings()[0].detail, Catch::Contains("9007199254740992 is 'a''s"));
  CHECK(rc::verdict_of(reg, "t", best, json::parse(R"({"winner": "b", "score": 9007199254740993})")).ok());
  const gp::comparison lead{.fact = "t", .column = "n", .value_field = "d", .convention = gp::Convention::difference};
  CHECK_FALSE(rc::verdict_of(reg, "t", lead, {{"a", "b"}, {"b", "a"}, {"d", 0}}).ok());
  CHECK(rc::verdict_of(reg, "t", lead, {{"a", "b"}, {"b", "a"}, {"d", 1}}).ok());
}

// ------------------------------------------------------------------------------------------
// superlative rank, typed entities, structural equality (test_hardening.py)
// ------------------------------------------------------------------------------------------

// reference: test_hardening.py::test_first_place_requires_an_integer_rank
TEST_CASE("a stated rank of true or of the text 1 is a finding, not first place") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"a", 10}}, {.key = "n", .tool = "q"});
  const gp::superlative ranked{.fact = "r", .rank_field = "rank"};
  const auto as_bool = rc::verdict_of(reg, "r", ranked, {{"winner", "a"}, {"rank", true}});
  REQUIRE(as_bool.findings().size() == 1);
  CHECK(as_bool.findings()[0].field == "rank");
  CHECK(as_bool.findings()[0].detail ==
        "expected a rank (a number), got a boolean; 'a' is the top entity on 'n', so the winner's rank must be 1");
  const auto as_text = rc::verdict_of(reg, "r", ranked, {{"winner", "a"}, {"rank", "1"}});
  REQUIRE(as_text.findings().size() == 1);
  CHECK(as_text.findings()[0].detail ==
        "expected a rank (a number), got a string; 'a' is the top entity on 'n', so the winner's rank must be 1");
  CHECK_FALSE(rc::verdict_of(reg, "r", ranked, {{"winner", "a"}, {"rank", {1}}}).ok());
  CHECK_FALSE(rc::verdict_of(reg, "r", ranked, {{"winner", "a"}, {"rank", 1.5}}).ok());
  CHECK(rc::verdict_of(reg, "r", ranked, {{"winner", "a"}, {"rank", 1}}).ok());
}

// reference: test_hardening.py::test_boolean_float_or_container_cannot_impersonate_an_integer_entity
TEST_CASE("a boolean, a float or a container never names an integer entity in any check") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{1, 10}, {2, 9}}, {.key = "n", .tool = "q"});
  reg.record_table("t", json::parse(R"([{"id": 1, "n": 10}, {"id": 2, "n": 9}])"), {.key_column = "id", .tool = "q"});
  // superlative: an object holding the id
  CHECK_FALSE(rc::verdict_of(reg, "r", gp::superlative{.fact = "r"}, {{"winner", {{"id", 1}}}}).ok());
  // ranking_prefix: true, 1.0, [1] and a name object holding true in the list
  for (const json& bad : {json(true), json(1.0), json::array({1}), json{{"name", true}}}) {
    CAPTURE(bad);
    CHECK_FALSE(rc::verdict_of(reg, "r", gp::ranking_prefix{.fact = "r"}, {{"top", json::array({bad})}}).ok());
  }
  // row_integrity: true and an object as the key
  const gp::row_integrity row{.fact = "t", .key_field = "id", .fields = {{"n", "n"}}};
  const auto true_key = rc::verdict_of(reg, "t", row, {{"id", true}, {"n", 10}});
  REQUIRE(true_key.findings().size() == 1);
  CHECK_THAT(true_key.findings()[0].detail, Catch::StartsWith("true names no row of 't'"));
  const auto object_key = rc::verdict_of(reg, "t", row, {{"id", {{"id", 1}}}, {"n", 10}});
  REQUIRE(object_key.findings().size() == 1);
  CHECK_THAT(object_key.findings()[0].detail, Catch::StartsWith("expected a 'id' of a row of 't', got an object"));
  // comparison: an array and an object as entity a
  const gp::comparison cmp{.fact = "r", .value_field = "d"};
  for (const json& bad : {json::array({1}), json{{"id", 1}}, json(true), json(1.0)}) {
    CAPTURE(bad);
    CHECK_FALSE(rc::verdict_of(reg, "r", cmp, {{"a", bad}, {"b", 2}, {"d", 1}}).ok());
  }
  // The integer itself is the entity everywhere.
  CHECK(rc::verdict_of(reg, "r", gp::superlative{.fact = "r"}, {{"winner", 1}}).ok());
  CHECK(rc::verdict_of(reg, "r", gp::ranking_prefix{.fact = "r", .k = 1}, {{"top", {1}}}).ok());
  CHECK(rc::verdict_of(reg, "t", row, {{"id", 1}, {"n", 10}}).ok());
}

// reference: test_hardening.py::test_structural_fact_equality_does_not_turn_boolean_values_into_numbers
TEST_CASE("a fact holding 1 is not matched by true, at the top or deep inside") {
  gp::FactRegistry reg;
  reg.record_fact("one", 1, {.tool = "q"});
  reg.record_fact("nested", json::parse(R"({"n": [1]})"), {.tool = "q"});
  const auto top =
      rc::verdict_of(reg, "one", gp::field_matches_fact{.fact = "one", .field = "value"}, {{"value", true}});
  REQUIRE(top.findings().size() == 1);
  CHECK(top.findings()[0].detail ==
        "fact 'one' holds 1; the stated value differs: it is a boolean, and the fact holds a number");
  const auto deep = rc::verdict_of(reg, "nested", gp::field_matches_fact{.fact = "nested", .field = "value"},
                                   {{"value", {{"n", {true}}}}});
  REQUIRE(deep.findings().size() == 1);
  CHECK(rc::ends(deep.findings()[0].detail, "differs at '/n/0'") == "differs at '/n/0'");
  CHECK(rc::verdict_of(reg, "nested", gp::field_matches_fact{.fact = "nested", .field = "value"},
                       {{"value", {{"n", {1.0}}}}})
            .ok());
}

// reference: test_superlative_adversarial.py::test_field_matches_fact_guards_plain_values
TEST_CASE("field_matches_fact with no path compares the whole recorded value") {
  gp::FactRegistry reg;
  reg.record_fact("row_count", 1042, {.tool = "warehouse.query", .args = {{"table", "orders"}}});
  const gp::field_matches_fact rows{.fact = "row_count", .field = "rows"};
  const auto v = rc::verdict_of(reg, "row_count", rows, {{"rows", 1000}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].supported == "1042");
  CHECK(v.findings()[0].detail == "fact 'row_count' holds 1042; the stated value differs (off by -42)");
  CHECK(rc::verdict_of(reg, "row_count", rows, {{"rows", 1042}}).ok());
}

// ------------------------------------------------------------------------------------------
// row_integrity (test_rows.py)
// ------------------------------------------------------------------------------------------

// reference: test_rows.py::test_bool_masquerading_as_number_raises
TEST_CASE("a row value stated as true where the row holds 1 is a finding") {
  gp::FactRegistry reg;
  reg.record_table("flags", json::parse(R"([{"campaign": "harbour", "conversions": 1}])"),
                   {.key_column = "campaign", .tool = "q"});
  const gp::row_integrity row{.fact = "flags", .key_field = "winner", .fields = {{"conversions", "conversions"}}};
  const auto v = rc::verdict_of(reg, "flags", row, {{"winner", "harbour"}, {"conversions", true}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "conversions");
  CHECK(v.findings()[0].detail == "expected a number, got a boolean; 'harbour''s 'conversions' is 1");
  CHECK(rc::verdict_of(reg, "flags", row, {{"winner", "harbour"}, {"conversions", 1}}).ok());
}

// ------------------------------------------------------------------------------------------
// Boundary and verdicts (test_boundary.py)
// ------------------------------------------------------------------------------------------

// reference: test_boundary.py::test_builders_return_named_checks
TEST_CASE("ranking_prefix, aggregate_reconciles, row_integrity and comparison name themselves by fact and fields") {
  // Names are escaped like every message.
  CHECK(gp::ranking_prefix{.fact = "x'\n"}.name() == "ranking_prefix(fact='x\\'\\n', field='top')");
  CHECK(gp::ranking_prefix{.fact = "campaign_ctr"}.name() == "ranking_prefix(fact='campaign_ctr', field='top')");
  CHECK(gp::aggregate_reconciles{.fact = "t", .field = "total", .op = gp::Aggregate::sum, .column = "v"}.name() ==
        "aggregate_reconciles(fact='t', field='total')");
  CHECK(gp::row_integrity{.fact = "t", .key_field = "id", .fields = {{"v", "v"}}}.name() ==
        "row_integrity(fact='t', key_field='id')");
  CHECK(gp::comparison{.fact = "r", .value_field = "d"}.name() ==
        "comparison(fact='r', a_field='a', b_field='b', value_field='d')");
}

// reference: test_boundary.py::test_submit_mode_all_raises_claims_unsupported_listing_every_violation
TEST_CASE("a verdict with two findings renders as two lines of text") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  const auto v = rc::verdict_of(reg, "campaign_ctr", gp::superlative{.fact = "campaign_ctr"},
                                {{"winner", "north"}, {"score", 0.0301}});
  REQUIRE(v.findings().size() == 2);
  CHECK(v.to_text() ==
        "superlative: field 'winner': model said 'north', registered facts support 'harbour' \xE2\x80\x94 computed "
        "argmax on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412\n"
        "superlative: field 'score': model said 0.0301, registered facts support 0.0412 \xE2\x80\x94 'north''s "
        "recorded 'ctr' is 0.0412 and the stated score does not match it; 0.0301 is 'delta''s");
}

// reference: test_boundary.py::test_report_counts_as_submitted_even_when_failing
TEST_CASE("a failing try_submit counts as the submit the boundary requires") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  bool rejected = false;
  CHECK_NOTHROW([&] {
    gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    rejected = !b.try_submit({{"winner", "north"}}).ok();
  }());
  CHECK(rejected);
  // Without it, leaving the scope is the developer's mistake.
  CHECK_THROWS_AS([&] { gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"}); }(),
                  gp::NothingSubmitted);
}

// ------------------------------------------------------------------------------------------
// check_from_json and MCP (test_hardening.py, test_adapters.py)
// ------------------------------------------------------------------------------------------

// reference: test_hardening.py::test_imperative_and_builder_top_k_reject_invalid_config
TEST_CASE("a ranking_prefix spec whose k is a boolean is a configuration error") {
  CHECK_THROWS_AS(gp::check_from_json({{"check", "ranking_prefix"}, {"fact", "r"}, {"k", true}}),
                  gp::ConfigurationError);
  CHECK_THROWS_WITH(gp::check_from_json({{"check", "ranking_prefix"}, {"fact", "r"}, {"k", true}}),
                    "check_from_json: ranking_prefix.k must be a non-negative integer, got a boolean");
}

// reference: test_adapters.py::test_mcp_malformed_text_block_is_a_data_error
TEST_CASE("an MCP text block whose text is not a string is refused and records nothing") {
  const gp::mcp::ToolCall call{.name = "q"};
  for (const rc::ojson& text : {rc::ojson(nullptr), rc::ojson(42), rc::ojson::array({"{}"})}) {
    CAPTURE(text);
    const rc::ojson result = rc::one_text_block(text);
    CHECK_THROWS_AS(gp::mcp::payload(result), gp::InvalidFact);
    CHECK_THROWS_WITH(gp::mcp::payload(result), "no usable payload: the only text block has no text string");
    gp::FactRegistry reg;
    CHECK_THROWS_WITH(gp::mcp::record_fact(reg, "bad", call, result),
                      "cannot record fact 'bad' from q(): no usable payload: the only text block has no text string");
    CHECK_THROWS_AS(
        gp::mcp::call_and_record([&](std::string_view, const json&) { return json(result); }, reg, "bad", "q"),
        gp::InvalidFact);
    CHECK(reg.size() == 0);
  }
}
