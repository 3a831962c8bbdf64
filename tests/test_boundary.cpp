// Boundary: the RAII scope that names facts, runs checks on submit, and refuses to be
// left unsubmitted (API.md A7).
#include "catch2_compat.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <groundplane/groundplane.hpp>

#include "fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {
struct Seed {
  gp::FactRegistry reg;
  Seed() {
    gp::testing::record_campaign_ctr(reg);
    reg.record_ranking("campaign_cpc", {{"north", 1.2}, {"harbour", 0.9}},
                       {.key = "cpc", .direction = gp::Direction::lower_is_better, .tool = "warehouse.query"});
    reg.record_table(
        "spend", json::parse(R"([{"campaign":"north","usd":120.5},{"campaign":"harbour","usd":99}])"),
        {.key_column = "campaign", .total_rows = 2, .tool = "billing.export", .args = {{"month", "2026-10"}}});
    reg.record_domain("regions", {"emea", "apac"}, {.tool = "crm.regions"});
    reg.record_fact("currency", "USD", {.tool = "billing.meta"});
  }
};
}  // namespace

TEST_CASE("a boundary deduces its check types from the constructor") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  STATIC_REQUIRE(std::is_same_v<decltype(b), gp::Boundary<gp::superlative>>);
  b.submit({{"winner", "harbour"}});
  CHECK(b.submitted());
}

TEST_CASE("the check concept accepts checks and rejects other types") {
  STATIC_REQUIRE(gp::Check<gp::superlative>);
  STATIC_REQUIRE_FALSE(gp::Check<int>);
  STATIC_REQUIRE_FALSE(gp::Check<std::string>);
}

TEST_CASE("facts hands the model the computed order with provenance") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr", "spend", "regions", "currency"}, gp::superlative{.fact = "campaign_ctr"});
  const json f = b.facts();
  b.submit({{"winner", "harbour"}});
  CHECK(f.size() == 4);
  const json& r = f["campaign_ctr"];
  CHECK(r["kind"] == "ranking");
  CHECK(r["key"] == "ctr");
  CHECK(r["direction"] == "higher_is_better");
  CHECK(r["provenance"] ==
        json::parse(R"({"tool":"warehouse.query","args":{"table":"campaign_daily","window":"7d"}})"));
  CHECK(r["order"] == json::parse(R"([{"rank":1,"entity":"harbour","score":0.0455},
                                      {"rank":2,"entity":"north","score":0.0412},
                                      {"rank":3,"entity":"delta","score":0.0301}])"));
  const json& t = f["spend"];
  CHECK(t["kind"] == "table");
  CHECK(t["columns"] == json::array({"campaign", "usd"}));
  CHECK(t["rows"] == json::parse(R"([{"campaign":"north","usd":120.5},{"campaign":"harbour","usd":99}])"));
  CHECK(t["key_column"] == "campaign");
  CHECK(t["complete"] == true);
  CHECK(t["total_rows"] == 2);
  CHECK(f["regions"]["members"] == json::array({"emea", "apac"}));
  CHECK(f["currency"]["value"] == "USD");
  CHECK(f["currency"]["kind"] == "fact");
}

TEST_CASE("facts lists only the facts the boundary names") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  CHECK(b.facts().size() == 1);
  b.submit({{"winner", "harbour"}});
}

TEST_CASE("a boundary naming an unrecorded fact is UnregisteredFact listing the recorded names") {
  Seed s;
  CHECK_THROWS_AS(gp::Boundary(s.reg, {"campaign_ctr", "nope"}, gp::superlative{.fact = "campaign_ctr"}),
                  gp::UnregisteredFact);
  CHECK_THROWS_WITH(gp::Boundary(s.reg, {"campaign_ctr", "nope"}, gp::superlative{.fact = "campaign_ctr"}),
                    "the boundary names a fact that is not recorded: no fact named 'nope' is recorded; recorded: "
                    "'campaign_ctr', 'campaign_cpc', 'spend', 'regions', 'currency'");
}

TEST_CASE("a check leaning on a fact the boundary did not name is a ConfigurationError") {
  Seed s;
  CHECK_THROWS_AS(gp::Boundary(s.reg, {"campaign_cpc"}, gp::superlative{.fact = "campaign_ctr"}),
                  gp::ConfigurationError);
}

TEST_CASE("a check on a fact of the wrong kind is a ConfigurationError naming the check") {
  Seed s;
  CHECK_THROWS_WITH(gp::Boundary(s.reg, {"spend"}, gp::superlative{.fact = "spend"}),
                    "superlative: fact 'spend' is a Table; set .column to the column whose values rank its rows");
}

TEST_CASE("a configuration error is never an unsupported claim") {
  Seed s;
  try {
    gp::Boundary b(s.reg, {"spend"}, gp::superlative{.fact = "spend"});
    FAIL("expected ConfigurationError");
  } catch (const gp::UnsupportedClaim&) {
    FAIL("a developer's bug was reported as the model's");
  } catch (const gp::ConfigurationError&) {
    SUCCEED();
  }
}

TEST_CASE("output that is not an object is an unsupported claim about structured output") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  for (const json& output : {json("harbour won"), json::array({"harbour"}), json(42), json(nullptr), json(true)}) {
    const auto v = b.try_submit(output);
    REQUIRE(v.findings().size() == 1);
    CHECK(v.findings()[0].check == "structured_output");
    CHECK(v.findings()[0].field.empty());
  }
  const auto v = b.try_submit(json("harbour won"));
  CHECK(v.findings()[0].message() ==
        "unsupported claim in the output: model said 'harbour won'\n"
        "| expected a JSON object of named fields, got a string; prose is not a claim that can be checked");
}

TEST_CASE("several failing checks in one submit are all reported") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr", "campaign_cpc"}, gp::superlative{.fact = "campaign_ctr"},
                 gp::superlative{.fact = "campaign_cpc", .field = "cheapest", .score_field = "cpc"});
  try {
    b.submit({{"winner", "north"}, {"cheapest", "north"}, {"cpc", 0.9}});
    FAIL("expected UnsupportedClaim");
  } catch (const gp::UnsupportedClaim& e) {
    REQUIRE(e.findings().size() == 3);
    CHECK(e.findings()[0].field == "winner");
    CHECK(e.findings()[1].field == "cheapest");
    CHECK(e.findings()[1].detail == "computed argmin on 'cpc' is 'harbour' (0.9); 'north' ranked #2 at 1.2");
    CHECK(e.findings()[2].field == "cpc");
    const std::string what = e.what();
    CHECK(what == e.findings()[0].message() + "\n\n" + e.findings()[1].message() + "\n\n" + e.findings()[2].message());
  }
}

TEST_CASE("try_submit reports without throwing and submit may be called again after a rejection") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const gp::Verdict rejected = b.try_submit({{"winner", "north"}});
  CHECK_FALSE(rejected.ok());
  CHECK_FALSE(static_cast<bool>(rejected));
  CHECK_THROWS_AS(b.submit({{"winner", "north"}}), gp::UnsupportedClaim);
  CHECK_NOTHROW(b.submit({{"winner", "harbour"}}));
  const gp::Verdict accepted = b.try_submit({{"winner", "harbour"}});
  CHECK(accepted.ok());
  CHECK(accepted.correction().empty());
}

TEST_CASE("output held as ordered_json is checked like any other") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  CHECK_THROWS_AS(b.submit(nlohmann::ordered_json{{"winner", "north"}}), gp::UnsupportedClaim);
  CHECK(b.try_submit(nlohmann::ordered_json{{"winner", "harbour"}}).ok());
}

TEST_CASE("leaving the scope without submitting throws NothingSubmitted naming the facts and the remedy") {
  Seed s;
  try {
    gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    (void)b.facts();
  } catch (const gp::NothingSubmitted& e) {
    CHECK(std::string(e.what()) ==
          "the boundary over 'campaign_ctr' was left without submit(): its 1 check(s) never ran, and a check that "
          "silently never ran is worse than none; submit the model's output on every path, or pass "
          "BoundaryOptions{.require_output = false} for a block that makes no claim");
    return;
  }
  FAIL("expected NothingSubmitted");
}

TEST_CASE("NothingSubmitted is a configuration error, never an unsupported claim a re-ask would retry") {
  Seed s;
  CHECK_THROWS_AS([&] { gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"}); }(),
                  gp::ConfigurationError);
  bool caught_as_claim = false;
  try {
    try {
      gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    } catch (const gp::UnsupportedClaim&) {
      caught_as_claim = true;
    }
  } catch (const gp::NothingSubmitted&) {
  }
  CHECK_FALSE(caught_as_claim);
  CHECK_FALSE(std::is_base_of_v<gp::UnsupportedClaim, gp::NothingSubmitted>);
}

TEST_CASE("a boundary that does not require output may be left without a submit") {
  Seed s;
  CHECK_NOTHROW([&] {
    gp::Boundary b(s.reg, {"campaign_ctr"}, {.require_output = false}, gp::superlative{.fact = "campaign_ctr"});
    CHECK(b.options().require_output == false);
  }());
}

TEST_CASE("a boundary that does not require output still rejects a wrong claim it is given") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, {.require_output = false}, gp::superlative{.fact = "campaign_ctr"});
  CHECK_THROWS_AS(b.submit({{"winner", "north"}}), gp::UnsupportedClaim);
}

TEST_CASE("stop at first runs the checks in order and reports only the first failing check") {
  Seed s;
  s.reg.record_domain("names", {"north", "harbour", "delta"}, {.tool = "crm.list"});
  gp::Boundary b(s.reg, {"campaign_ctr", "names"}, {.stop_at_first = true},
                 gp::entities_recorded{.facts = {"names"}, .fields = {"winner"}},
                 gp::superlative{.fact = "campaign_ctr"},
                 gp::entities_recorded{.facts = {"names"}, .fields = {"runner_up"}});
  const gp::Verdict v = b.try_submit({{"winner", "north"}, {"runner_up", "nowhere"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].check == "superlative");
  CHECK(v.passed() == std::vector<std::string>{"entities_recorded(facts=['names'], fields=['winner'])"});
  CHECK(v.failed() == std::vector<std::string>{"superlative(fact='campaign_ctr', field='winner')"});
}

TEST_CASE("without stop at first every check runs and each is named passed or failed in boundary order") {
  Seed s;
  s.reg.record_domain("names", {"north", "harbour", "delta"}, {.tool = "crm.list"});
  gp::Boundary b(s.reg, {"campaign_ctr", "names"}, gp::entities_recorded{.facts = {"names"}, .fields = {"winner"}},
                 gp::superlative{.fact = "campaign_ctr"},
                 gp::entities_recorded{.facts = {"names"}, .fields = {"runner_up"}});
  const gp::Verdict v = b.try_submit({{"winner", "north"}, {"runner_up", "nowhere"}});
  CHECK(v.findings().size() == 2);
  CHECK(v.passed() == std::vector<std::string>{"entities_recorded(facts=['names'], fields=['winner'])"});
  CHECK(v.failed() == std::vector<std::string>{"superlative(fact='campaign_ctr', field='winner')",
                                               "entities_recorded(facts=['names'], fields=['runner_up'])"});
}

TEST_CASE("a rejected submit still counts as submitted when the scope is left") {
  Seed s;
  try {
    gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    b.submit({{"winner", "north"}});
  } catch (const gp::NothingSubmitted&) {
    FAIL("the rejection was replaced by NothingSubmitted");
  } catch (const gp::UnsupportedClaim& e) {
    CHECK(e.findings()[0].field == "winner");
  }
}

TEST_CASE("an exception already unwinding is neither replaced nor turned into terminate") {
  Seed s;
  try {
    gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    throw std::runtime_error("the model call timed out");
  } catch (const gp::NothingSubmitted&) {
    FAIL("NothingSubmitted replaced the exception in flight");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "the model call timed out");
  }
}

namespace {
struct ScopeInDestructor {
  const gp::FactRegistry* reg;
  bool* threw;
  ~ScopeInDestructor() {
    // A boundary opened and abandoned while another exception unwinds: its own scope
    // is complete, so it must still report — and it is caught here.
    try {
      gp::Boundary b(*reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    } catch (const gp::NothingSubmitted&) {
      *threw = true;
    }
  }
};
}  // namespace

TEST_CASE("a boundary created during unwinding still reports being left unsubmitted") {
  Seed s;
  bool threw = false;
  try {
    ScopeInDestructor guard{&s.reg, &threw};
    throw std::runtime_error("outer");
  } catch (const std::runtime_error&) {
  }
  CHECK(threw);
}

TEST_CASE("the correction tells the model what was rejected and what the facts support") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const std::string c = b.try_submit({{"winner", "north"}}).correction();
  CHECK(c.find("field 'winner': you said 'north'; the facts support 'harbour'") != std::string::npos);
  CHECK(c.find("provenance") == std::string::npos);
  CHECK(c.size() <= gp::Verdict::max_correction);
}

TEST_CASE("the correction stays bounded however many claims fail") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{std::string(500, 'w'), 2}, {"x", 1}}, {.key = "k", .tool = "t"});
  std::vector<gp::Finding> many(50, gp::Finding{"superlative", std::string(300, 'f'), std::string(300, 's'),
                                                std::string(300, 'u'), "r", "t()", std::string(3000, 'd')});
  const gp::Verdict v(many);
  CHECK(v.correction().size() <= gp::Verdict::max_correction);
  CHECK(v.correction().find("more rejected claim(s)") != std::string::npos);
}

TEST_CASE("schema describes the winner as one of the ranked names and the score as a number") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const json schema = b.schema();
  b.submit({{"winner", "harbour"}});
  CHECK(schema["type"] == "object");
  CHECK(schema["properties"]["winner"]["enum"] == json::array({"harbour", "north", "delta"}));
  CHECK(schema["properties"]["score"]["type"] == "number");
  CHECK(schema["required"] == json::array({"winner"}));
}

namespace {
// An array `depth` levels deep, built without recursion ({"winner": [[[...]]]}).
json nested_output(std::size_t depth) {
  json out = {{"winner", json::array()}};
  json* at = &out["winner"];
  for (std::size_t i = 1; i < depth; ++i) at = &at->emplace_back(json::array());
  return out;
}
}  // namespace

TEST_CASE("an output nested deeper than max_depth is one finding, as a value, as ordered_json or as text") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::BoundaryOptions{.max_depth = 40},
                 gp::superlative{.fact = "campaign_ctr"});
  const json deep = nested_output(40);  // 41 with the object around it
  const gp::Verdict as_value = b.try_submit(deep);
  REQUIRE(as_value.findings().size() == 1);
  const gp::Finding& f = as_value.findings()[0];
  CHECK(f.check == "structured_output");
  CHECK(f.field.empty());
  CHECK_THAT(f.said, Catch::StartsWith("{\"winner\":[[[["));
  CHECK(f.detail == "the output is nested deeper than 40 arrays/objects; send one JSON object of named fields");
  CHECK(as_value.accepted() == json::object());
  CHECK(as_value.passed().empty());
  CHECK(as_value.failed().empty());
  const gp::Verdict as_ordered = b.try_submit(nlohmann::ordered_json(deep));
  CHECK(as_ordered.findings() == as_value.findings());
  const gp::Verdict as_text = b.try_submit_json(deep.dump());
  REQUIRE(as_text.findings().size() == 1);
  CHECK_THAT(as_text.findings()[0].detail, Catch::Contains("nesting deeper than 40 arrays/objects"));
  CHECK_THROWS_AS(b.submit(deep), gp::UnsupportedClaim);
  CHECK_THROWS_AS(b.submit(nlohmann::ordered_json(deep)), gp::UnsupportedClaim);
  // One level less is read, and judged.
  const gp::Verdict within = b.try_submit(nested_output(39));
  REQUIRE(within.findings().size() == 1);
  CHECK(within.findings()[0].check == "superlative");
}

TEST_CASE("text longer than max_text_bytes is one finding quoting its start, and is not read") {
  Seed s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::BoundaryOptions{.max_text_bytes = 64},
                 gp::superlative{.fact = "campaign_ctr"});
  const std::string fits = R"({"winner": "harbour", "score": 0.0455})" + std::string(64 - 38, ' ');
  REQUIRE(fits.size() == 64);
  CHECK(b.try_submit_json(fits).ok());
  const std::string over = fits + " ";
  const gp::Verdict v = b.try_submit_json(over);
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].check == "structured_output");
  CHECK(v.findings()[0].said == gp::detail::quote(std::string_view(over).substr(0, 60)));
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("longer than the 64 bytes this boundary reads"));
  // The developer is told which option reads more; the model is not.
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("BoundaryOptions::max_text_bytes"));
  CHECK(v.correction().find("max_text_bytes") == std::string::npos);
  CHECK(v.accepted() == json::object());
  CHECK_THROWS_AS(b.submit_json(over), gp::UnsupportedClaim);
  // A value handed over already parsed has no text to measure.
  CHECK(b.try_submit(json::parse(over)).ok());
}

TEST_CASE("bounds of zero are a ConfigurationError when the boundary is built") {
  Seed s;
  CHECK_THROWS_WITH(gp::Boundary(s.reg, {"campaign_ctr"}, gp::BoundaryOptions{.max_text_bytes = 0},
                                 gp::superlative{.fact = "campaign_ctr"}),
                    Catch::Contains("max_text_bytes is 0"));
  CHECK_THROWS_AS(gp::Boundary(s.reg, {"campaign_ctr"}, gp::BoundaryOptions{.max_depth = 0},
                               gp::superlative{.fact = "campaign_ctr"}),
                  gp::ConfigurationError);
}
