// A re-ask that keeps what was right: the rejected fields (read by a failed check, or
// named by a finding), Verdict::reask_schema() and accepted(), and gp::reask pinned.
#include "catch2_compat.hpp"

#include <optional>
#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {
// The campaign ranking, and an answer of six fields read by three checks.
struct Campaign {
  gp::FactRegistry reg;
  Campaign() {
    reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                       {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}}});
  }
};
const gp::superlative winner{.fact = "campaign_ctr"};
const gp::ranking_prefix top{.fact = "campaign_ctr", .k = 2};
const gp::comparison lead{.fact = "campaign_ctr",
                          .a_field = "a",
                          .b_field = "b",
                          .value_field = "by",
                          .convention = gp::Convention::percentage_points,
                          .rounding = gp::Rounding::as_stated};
const json right = {{"winner", "harbour"}, {"score", 0.0455}, {"top", {"harbour", "north"}},
                    {"a", "harbour"},      {"b", "north"},    {"by", 0.43}};

std::vector<std::string> keys(const json& object) {
  std::vector<std::string> out;
  for (auto it = object.begin(); it != object.end(); ++it) out.push_back(it.key());
  return out;
}
}  // namespace

TEST_CASE("a wrong winner rejects the fields its check reads, so its score is re-asked with it") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner, top, lead);
  json out = right;
  out["winner"] = "north";  // the score stays harbour's: right on its own, wrong beside north
  const gp::Verdict v = b.try_submit(out);
  REQUIRE_FALSE(v.ok());
  CHECK(keys(v.reask_schema()["properties"]) == std::vector<std::string>{"score", "winner"});
  CHECK(v.accepted() == json{{"top", {"harbour", "north"}}, {"a", "harbour"}, {"b", "north"}, {"by", 0.43}});
}

TEST_CASE("a finding inside a field rejects the whole top-level field") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner, top, lead);
  json out = right;
  out["top"] = {"harbour", "delta"};
  const gp::Verdict v = b.try_submit(out);
  REQUIRE_FALSE(v.ok());
  CHECK(keys(v.reask_schema()["properties"]) == std::vector<std::string>{"top"});
  CHECK(v.reask_schema()["required"] == json::array({"top"}));
  CHECK_FALSE(v.accepted().contains("top"));
  CHECK(v.accepted()["winner"] == "harbour");
}

TEST_CASE("an accepted verdict has no reask schema and accepts the whole output") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner, top, lead);
  const gp::Verdict v = b.try_submit(right);
  REQUIRE(v.ok());
  CHECK(v.reask_schema().is_null());
  CHECK(v.accepted() == right);
}

TEST_CASE("text that is not one JSON object rejects every field and accepts none") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner, top, lead);
  const gp::Verdict prose = b.try_submit_json("harbour won");
  REQUIRE_FALSE(prose.ok());
  CHECK(prose.accepted() == json::object());
  CHECK(prose.reask_schema()["properties"] == b.schema()["properties"]);
  const gp::Verdict array = b.try_submit(json::array({right}));
  CHECK(array.accepted() == json::object());
  CHECK(array.reask_schema()["properties"] == b.schema()["properties"]);
}

TEST_CASE("a pinned re-ask asks for the rejected fields only and returns them merged into the accepted") {
  Campaign c;
  std::vector<std::optional<gp::ReaskRequest>> asked;
  const auto generate = [&](const json&, const std::optional<gp::ReaskRequest>& request) -> json {
    asked.push_back(request);
    if (!request) {
      json first = right;
      first["by"] = 10.44;  // percent change where points were asked
      return first;
    }
    return {{"a", "harbour"}, {"b", "north"}, {"by", 0.43}};
  };
  const json answer =
      gp::reask(c.reg, {"campaign_ctr"}, generate, 3, winner, top, lead, gp::ReaskOptions{.pinned = true});
  CHECK(answer == right);
  REQUIRE(asked.size() == 2);
  REQUIRE(asked[1].has_value());
  CHECK(keys(asked[1]->schema["properties"]) == std::vector<std::string>{"a", "b", "by"});
  CHECK(asked[1]->correction.find("'by'") != std::string::npos);
  // The model is told the rest is kept, not to "answer again with the same JSON fields".
  CHECK(asked[1]->correction.starts_with(
      "Rejected by a check against the recorded facts (the rest is kept); answer only the fields the schema lists"));
}

TEST_CASE("a pinned re-ask refuses a reply that changes an accepted field and keeps the field as accepted") {
  Campaign c;
  int calls = 0;
  const auto generate = [&](const json&, const std::optional<gp::ReaskRequest>& request) -> json {
    ++calls;
    if (!request) {
      json first = right;
      first["by"] = 10.44;
      return first;
    }
    // The right margin, and a winner it was never asked for: a plausible answer, refused.
    return {{"winner", "north"}, {"a", "harbour"}, {"b", "north"}, {"by", 0.43}};
  };
  try {
    (void)gp::reask(c.reg, {"campaign_ctr"}, generate, 2, winner, top, lead, gp::ReaskOptions{.pinned = true});
    FAIL("a reply changing a pinned field was accepted");
  } catch (const gp::ReaskExhausted& e) {
    REQUIRE(e.attempts().size() == 2);
    const auto& findings = e.attempts()[1].findings;
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].check == "pinned");
    CHECK(findings[0].field == "winner");
    CHECK(findings[0].said == "'north'");
    CHECK(findings[0].supported == "'harbour'");
    CHECK(findings[0].detail == "'winner' was accepted and is pinned: answer only the fields asked for");
  }
  CHECK(calls == 2);
}

TEST_CASE("a pinned re-ask checks the merged object whole, so a check across fields still holds") {
  gp::FactRegistry reg;
  reg.record_table("campaign_daily", json::parse(R"([{"campaign": "north", "ctr": 0.0412, "spend": 1200},
                                                    {"campaign": "harbour", "ctr": 0.0455, "spend": 900}])"),
                   {.key_column = "campaign", .tool = "warehouse.query"});
  const gp::row_integrity row{
      .fact = "campaign_daily", .key_field = "campaign", .fields = {{"ctr", "ctr"}, {"spend", "spend"}}};
  std::vector<json> checked;
  const auto generate = [&](const json&, const std::optional<gp::ReaskRequest>& request) -> json {
    if (!request) return {{"campaign", "north"}, {"ctr", 0.0455}, {"spend", 1200}};
    // Asked again for the row's fields, the model swaps the key instead of the value.
    if (checked.empty()) {
      checked.push_back(request->schema);
      return {{"campaign", "harbour"}, {"ctr", 0.0455}, {"spend", 1200}};
    }
    return {{"campaign", "north"}, {"ctr", 0.0412}, {"spend", 1200}};
  };
  const json answer = gp::reask(reg, {"campaign_daily"}, generate, 3, row, gp::ReaskOptions{.pinned = true});
  CHECK(answer == json{{"campaign", "north"}, {"ctr", 0.0412}, {"spend", 1200}});
  REQUIRE(checked.size() == 1);
  // row_integrity reads every one of its fields: the key and both values are re-asked.
  CHECK(keys(checked[0]["properties"]) == std::vector<std::string>{"campaign", "ctr", "spend"});
}

TEST_CASE("without pinning the options still hand the whole schema and take the whole reply") {
  Campaign c;
  std::vector<std::optional<gp::ReaskRequest>> asked;
  const auto generate = [&](const json&, const std::optional<gp::ReaskRequest>& request) -> json {
    asked.push_back(request);
    if (!request) return {{"winner", "north"}};
    return {{"winner", "harbour"}};
  };
  const json answer = gp::reask(c.reg, {"campaign_ctr"}, generate, 3, winner, gp::ReaskOptions{});
  CHECK(answer == json{{"winner", "harbour"}});
  REQUIRE(asked.size() == 2);
  CHECK(asked[1]->schema == gp::Boundary(c.reg, {"campaign_ctr"}, {.require_output = false}, winner).schema());
}
