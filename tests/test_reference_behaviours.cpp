// Behaviours the Python groundplane's suite relies on: rankings read from a table column,
// typed ids, rank_field, weighted aggregates, null filters, field_matches_fact, named
// checks in the verdict, and record_state.
#include "catch2_compat.hpp"

#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {
// Store sales by integer id; store 103 has no sales recorded.
struct Stores {
  gp::FactRegistry reg;
  Stores() {
    reg.record_table("q", json::parse(R"([
        {"store": 101, "sales": 250, "units": 2, "price": 0.25},
        {"store": 102, "sales": 300, "units": 1, "price": 0.1},
        {"store": 103, "sales": null, "units": 4, "price": 0.1},
        {"store": 104, "sales": 120, "units": 1, "price": 0.2}
      ])"),
                     {.key_column = "store", .tool = "db"});
  }
};
}  // namespace

TEST_CASE("a superlative over a table column with a hole is refused at construction naming the rows") {
  Stores s;
  CHECK_THROWS_WITH(gp::Boundary(s.reg, {"q"}, gp::superlative{.fact = "q", .column = "sales"}),
                    "fact 'q': column 'sales' has no value (missing or null) in 1 of 4 rows: 103; a ranking of the "
                    "rest is not the ranking of the table (pass OnMissing::skip to rank the rows that have one, with "
                    "a warning)");
}

TEST_CASE("a superlative over a table column that skips holes ranks the rest and warns even when it accepts") {
  Stores s;
  gp::Boundary b(s.reg, {"q"}, gp::superlative{.fact = "q", .column = "sales", .on_missing = gp::OnMissing::skip});
  const gp::Verdict v = b.try_submit({{"winner", 102}});
  CHECK(v.ok());
  CHECK(v.warnings() == std::vector<std::string>{
                            "superlative(fact='q', column='sales', field='winner'): fact 'q' has no value in column "
                            "'sales' for 1 row, ranked without them (OnMissing::skip): 103"});
  CHECK(v.passed() == std::vector<std::string>{"superlative(fact='q', column='sales', field='winner')"});
  const gp::Verdict wrong = b.try_submit({{"winner", 101}});
  REQUIRE(wrong.findings().size() == 1);
  CHECK(wrong.findings()[0].detail == "computed argmax on 'sales' is 102 (300); 101 ranked #2 at 250");
}

TEST_CASE("an integer id is named only by the integer: its text, float and bool forms are refused") {
  Stores s;
  gp::Boundary b(s.reg, {"q"}, gp::superlative{.fact = "q", .column = "sales", .on_missing = gp::OnMissing::skip});
  const gp::Verdict text = b.try_submit({{"winner", "102"}});
  REQUIRE(text.findings().size() == 1);
  CHECK(text.findings()[0].supported == "102");
  CHECK(text.findings()[0].detail ==
        "'102' was never ranked: it is not one of the 3 entities ranked on 'sales'; '102' is text, and the recorded "
        "entity 102 is an integer (write it as 102); computed argmax on 'sales' is 102 (300)");
  CHECK_FALSE(b.try_submit({{"winner", 102.0}}).ok());
  CHECK_FALSE(b.try_submit({{"winner", true}}).ok());
}

TEST_CASE("a string id that reads as a number is not the integer entity") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"101", 5}, {102, 3}}, {.key = "pts", .tool = "t"});
  gp::Boundary b(reg, {"r"}, gp::superlative{.fact = "r"});
  CHECK(b.try_submit({{"winner", "101"}}).ok());
  CHECK_FALSE(b.try_submit({{"winner", 101}}).ok());
}

TEST_CASE("a stated rank must be the winner's competition rank counted from the top") {
  Stores s;
  gp::Boundary best(
      s.reg, {"q"},
      gp::superlative{.fact = "q", .column = "sales", .on_missing = gp::OnMissing::skip, .rank_field = "rank"});
  CHECK(best.try_submit({{"winner", 102}, {"rank", 1}}).ok());
  CHECK(best.try_submit({{"winner", 102}, {"rank", 1.0}}).ok());
  const gp::Verdict v = best.try_submit({{"winner", 102}, {"rank", 2}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "rank");
  CHECK(v.findings()[0].detail == "102 is the top entity on 'sales', so the winner's rank must be 1");
  gp::Boundary worst(s.reg, {"q"},
                     gp::superlative{.fact = "q",
                                     .pick = gp::Pick::worst,
                                     .column = "sales",
                                     .on_missing = gp::OnMissing::skip,
                                     .rank_field = "rank"});
  CHECK(worst.try_submit({{"winner", 104}, {"rank", 3}}).ok());
  // The plausible wrong answer counts the skipped row.
  const gp::Verdict w = worst.try_submit({{"winner", 104}, {"rank", 4}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].detail == "104 ranks last on 'sales', at #3 of 3 counted from the top");
}

TEST_CASE("a weighted sum is the exact sum of products and names the unweighted sum when that is what was said") {
  Stores s;
  gp::Boundary b(
      s.reg, {"q"},
      gp::aggregate_reconciles{
          .fact = "q", .field = "rev", .op = gp::Aggregate::sum, .column = "price", .weight_column = "units"});
  CHECK(b.try_submit({{"rev", 1.2}}).ok());
  const gp::Verdict v = b.try_submit({{"rev", 0.65}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "computed sum of 'price' over 4 rows is 1.2 (the sum of 'price' \xC3\x97 'units' over each row); off by -0.55; "
        "the stated number is the unweighted sum, 0.65, not weighted by 'units'");
}

TEST_CASE("a weighted mean is exact and names the unweighted mean when that is what was said") {
  Stores s;
  gp::Boundary b(
      s.reg, {"q"},
      gp::aggregate_reconciles{
          .fact = "q", .field = "m", .op = gp::Aggregate::mean, .column = "price", .weight_column = "units"});
  CHECK(b.try_submit({{"m", 0.15}}).ok());
  const gp::Verdict v = b.try_submit({{"m", 0.1625}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "computed mean of 'price' over 4 rows is 0.15 (weighted by 'units': 1.2 / 8); off by +0.0125; the stated "
        "number is the unweighted mean, 0.1625, not weighted by 'units'");
}

TEST_CASE("a weight column with an aggregate other than sum or mean is a configuration error") {
  Stores s;
  CHECK_THROWS_WITH(
      gp::Boundary(
          s.reg, {"q"},
          gp::aggregate_reconciles{
              .fact = "q", .field = "m", .op = gp::Aggregate::max, .column = "price", .weight_column = "units"}),
      "aggregate_reconciles: weight_column applies to a mean or a sum (a weighted mean, or a sum of "
      "products), not to a max");
}

TEST_CASE("a where on null matches the cells holding null and not the rows without the column") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"x": null}, {"y": 1}, {"x": 2}])"), {.tool = "t"});
  gp::Boundary b(
      reg, {"t"},
      gp::aggregate_reconciles{.fact = "t", .field = "n", .op = gp::Aggregate::count, .where = {{"x", nullptr}}});
  CHECK(b.try_submit({{"n", 1}}).ok());
  CHECK_FALSE(b.try_submit({{"n", 2}}).ok());
}

TEST_CASE("field_matches_fact compares structure exactly: order matters and true is not 1") {
  gp::FactRegistry reg;
  reg.record_fact("cfg", json::parse(R"({"mode": "fast", "limits": [1, 2.50], "on": true})"), {.tool = "cfg"});
  gp::Boundary b(reg, {"cfg"}, gp::field_matches_fact{.fact = "cfg", .field = "/settings/limits", .path = "/limits"},
                 gp::field_matches_fact{.fact = "cfg", .field = "on", .path = "/on"});
  CHECK(b.try_submit({{"settings", {{"limits", {1, 2.5}}}}, {"on", true}}).ok());
  const gp::Verdict v = b.try_submit({{"settings", {{"limits", {2.5, 1}}}}, {"on", 1}});
  REQUIRE(v.findings().size() == 2);
  CHECK(v.findings()[0].detail == "fact 'cfg' at '/limits' holds [1,2.5]; the stated value differs at '/0'");
  CHECK(v.findings()[1].detail ==
        "fact 'cfg' at '/on' holds true; the stated value differs: it is a number, and the fact holds a boolean");
}

TEST_CASE("a verdict renders one line per finding as text and everything as JSON") {
  gp::FactRegistry reg;
  reg.record_fact("cfg", json::parse(R"({"on": true})"), {.tool = "cfg"});
  gp::Boundary b(reg, {"cfg"}, gp::field_matches_fact{.fact = "cfg", .field = "on", .path = "/on"});
  CHECK(b.try_submit({{"on", true}}).to_text().empty());
  const gp::Verdict v = b.try_submit({{"on", 1}});
  CHECK(v.to_text() ==
        "field_matches_fact: field 'on': model said 1, registered facts support true \xE2\x80\x94 fact 'cfg' at '/on' "
        "holds true; the stated value differs: it is a number, and the fact holds a boolean");
  const json j = v.to_json();
  CHECK(j["ok"] == false);
  CHECK(j["failed"] == json{"field_matches_fact(fact='cfg', field='on')"});
  CHECK(j["passed"] == json::array());
  CHECK(j["warnings"] == json::array());
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["supported"] == "true");
}

TEST_CASE("record_state records each named key as a fact and refuses a missing key recording nothing") {
  gp::FactRegistry reg;
  gp::record_state(reg, {{"a", 1}, {"b", {1, 2}}, {"c", "unused"}}, {"a", "b"}, {.tool = "graph.state"});
  CHECK(reg.names() == std::vector<std::string>{"a", "b"});
  CHECK(reg.get<gp::Fact>("b").value() == json({1, 2}));
  CHECK_THROWS_WITH(gp::record_state(reg, {{"c", 1}}, {"c", "d"}, {.tool = "graph.state"}),
                    "record_state: the state has no key 'd' to record; its keys: 'c'");
  CHECK_THROWS_AS(gp::record_state(reg, {{"c", 1}}, {"c", "d"}, {.tool = "graph.state"}), gp::InvalidFact);
  CHECK(reg.size() == 2);
}
