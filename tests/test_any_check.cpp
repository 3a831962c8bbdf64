// AnyCheck and CheckList: checks composed at run time, themselves checks.
#include "catch2_compat.hpp"

#include <optional>
#include <stdexcept>
#include <string>
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
    reg.record_domain("campaigns", {"north", "harbour", "delta"}, {.tool = "crm.list"});
    reg.record_fact("budget_total", 5000, {.tool = "finance.budget"});
  }
};

// A check written by a user, with no describe() and no check_name.
struct total_within_budget {
  std::string fact;  // a Fact holding a number
  std::string field = "total";

  std::vector<std::string> leans_on() const { return {fact}; }
  void validate(const gp::FactRegistry& reg) const {
    if (!gp::Decimal::from_json(reg.get<gp::Fact>(fact).value()))
      throw gp::ConfigurationError("total_within_budget: fact " + gp::quote(fact) + " is not a number");
  }
  void verify(const gp::FactRegistry& reg, const json& output, std::vector<gp::Finding>& findings) const {
    const auto& budget = reg.get<gp::Fact>(fact);
    const json* said = gp::find_field(output, field);
    const auto total = said ? gp::Decimal::from_json(*said) : std::nullopt;
    if (total && *total <= *gp::Decimal::from_json(budget.value())) return;
    gp::Finding f = gp::finding_about("total_within_budget", field, budget);
    f.said = said ? gp::render(*said) : "";
    f.detail = "a total must be a number within the budget of " + gp::render(budget.value());
    findings.push_back(std::move(f));
  }
};

// A user's check that fails for its own reasons, not the model's.
struct throws_on_verify {
  std::vector<std::string> leans_on() const { return {}; }
  void validate(const gp::FactRegistry&) const {}
  void verify(const gp::FactRegistry&, const json&, std::vector<gp::Finding>&) const {
    throw std::logic_error("the custom check's own bug");
  }
};

const gp::superlative winner{.fact = "campaign_ctr"};
}  // namespace

TEST_CASE("AnyCheck and CheckList satisfy the Check concept") {
  STATIC_REQUIRE(gp::Check<gp::AnyCheck>);
  STATIC_REQUIRE(gp::Check<gp::CheckList>);
  STATIC_REQUIRE(gp::Check<total_within_budget>);
  STATIC_REQUIRE_FALSE(gp::DescribesSchema<total_within_budget>);
}

TEST_CASE("an AnyCheck finds exactly what the check it holds finds") {
  Seed s;
  const json output = {{"winner", "north"}, {"score", 0.0301}};
  gp::Boundary direct(s.reg, {"campaign_ctr"}, winner);
  gp::Boundary erased(s.reg, {"campaign_ctr"}, gp::AnyCheck(winner));
  const auto a = direct.try_submit(output);
  const auto b = erased.try_submit(output);
  REQUIRE(a.findings().size() == 2);
  CHECK(a.findings() == b.findings());
}

TEST_CASE("an AnyCheck copies cheaply and reports what it holds") {
  const gp::AnyCheck a = winner;
  const gp::AnyCheck b = a;
  CHECK(b.kind() == "superlative");
  CHECK(b.name() == "superlative(fact='campaign_ctr', field='winner')");
  REQUIRE(b.target<gp::superlative>() != nullptr);
  CHECK(b.target<gp::superlative>() == a.target<gp::superlative>());  // one shared immutable copy
  CHECK(b.target<gp::superlative>()->fact == "campaign_ctr");
  CHECK(b.target<gp::row_integrity>() == nullptr);
  const gp::AnyCheck custom = total_within_budget{.fact = "budget_total"};
  CHECK(custom.name() == "custom check");
  CHECK(custom.leans_on() == std::vector<std::string>{"budget_total"});
}

TEST_CASE("a CheckList runs every check it holds and reports every finding") {
  Seed s;
  gp::CheckList checks;
  checks.push_back(winner);
  checks.push_back(gp::entities_recorded{.facts = {"campaigns"}, .fields = {"mentioned"}});
  checks.push_back(total_within_budget{.fact = "budget_total"});
  CHECK(checks.size() == 3);
  std::vector<std::string> names;
  for (const gp::AnyCheck& c : checks) names.emplace_back(c.name());
  CHECK(names == std::vector<std::string>{"superlative(fact='campaign_ctr', field='winner')",
                                          "entities_recorded(facts=['campaigns'], fields=['mentioned'])",
                                          "custom check"});

  gp::Boundary b(s.reg, {"campaign_ctr", "campaigns", "budget_total"}, checks);
  const auto v = b.try_submit({{"winner", "north"}, {"mentioned", {"harbor"}}, {"total", 7200}});
  REQUIRE(v.findings().size() == 3);
  CHECK(v.findings()[0].check == "superlative");
  CHECK(v.findings()[1].check == "entities_recorded");
  CHECK(v.findings()[1].detail ==
        "'harbor' is not a recorded name; closest: 'harbour'; recorded: 'north', 'harbour', 'delta'");
  // Each check of the list is named on its own, in order.
  CHECK(v.failed().size() == 3);
  CHECK(v.passed().empty());
  CHECK(v.findings()[2].check == "total_within_budget");
  CHECK(v.findings()[2].detail == "a total must be a number within the budget of 5000");
  CHECK(b.try_submit({{"winner", "harbour"}, {"mentioned", {"harbour", "north"}}, {"total", 4999.5}}).ok());
}

TEST_CASE("a CheckList leans on the union of its checks' facts each named once") {
  gp::CheckList checks{winner, gp::entities_recorded{.facts = {"campaigns", "campaign_ctr"}, .fields = {"m"}},
                       total_within_budget{.fact = "budget_total"}};
  CHECK(checks.leans_on() == std::vector<std::string>{"campaign_ctr", "campaigns", "budget_total"});
}

TEST_CASE("a CheckList leaning on a fact its boundary did not name is a ConfigurationError") {
  Seed s;
  gp::CheckList checks{winner, total_within_budget{.fact = "budget_total"}};
  CHECK_THROWS_WITH((gp::Boundary(s.reg, {"campaign_ctr"}, checks)),
                    Catch::Contains("'budget_total', which this boundary does not name"));
}

TEST_CASE("a CheckList validates every check it holds") {
  Seed s;
  s.reg.record_fact("label", "q3", {.tool = "t"});
  gp::CheckList checks{winner, total_within_budget{.fact = "label"}};
  CHECK_THROWS_AS((gp::Boundary(s.reg, {"campaign_ctr", "label"}, checks)), gp::ConfigurationError);
  gp::CheckList wrong_kind{gp::superlative{.fact = "campaigns"}};
  CHECK_THROWS_WITH((gp::Boundary(s.reg, {"campaigns"}, wrong_kind)), Catch::Contains("needs a Ranking"));
}

TEST_CASE("an empty CheckList is a ConfigurationError because it would accept anything") {
  Seed s;
  CHECK_THROWS_WITH((gp::Boundary(s.reg, {"campaign_ctr"}, gp::CheckList{})),
                    Catch::Contains("checks nothing accepts anything"));
}

TEST_CASE("a custom check's own exception passes through AnyCheck and CheckList as itself") {
  Seed s;
  gp::CheckList checks{winner, throws_on_verify{}};
  gp::Boundary b(s.reg, {"campaign_ctr"}, checks);
  CHECK_THROWS_AS(b.try_submit({{"winner", "harbour"}}), std::logic_error);
  CHECK_THROWS_WITH(b.submit({{"winner", "harbour"}}), "the custom check's own bug");
}

TEST_CASE("CheckLists nest and mix with concrete checks in one boundary") {
  Seed s;
  gp::CheckList inner{gp::entities_recorded{.facts = {"campaigns"}, .fields = {"mentioned"}}};
  gp::CheckList outer;
  outer.push_back(inner);
  gp::Boundary b(s.reg, {"campaign_ctr", "campaigns"}, winner, outer);
  const auto v = b.try_submit({{"winner", "delta"}, {"mentioned", "Delta"}});
  REQUIRE(v.findings().size() == 2);
  CHECK(v.findings()[0].check == "superlative");
  CHECK(v.findings()[1].check == "entities_recorded");
}

TEST_CASE("a CheckList describes the same schema as the checks it holds") {
  Seed s;
  const gp::entities_recorded names{.facts = {"campaigns"}, .fields = {"mentioned"}};
  gp::Boundary direct(s.reg, {"campaign_ctr", "campaigns", "budget_total"}, winner, names,
                      total_within_budget{.fact = "budget_total"});
  gp::Boundary listed(s.reg, {"campaign_ctr", "campaigns", "budget_total"},
                      gp::CheckList{winner, names, total_within_budget{.fact = "budget_total"}});
  CHECK(direct.schema() == listed.schema());
  CHECK(listed.schema()["properties"].contains("winner"));
  CHECK(listed.schema()["properties"].contains("mentioned"));
  direct.submit({{"winner", "harbour"}, {"mentioned", {"north"}}, {"total", 1}});
  listed.submit({{"winner", "harbour"}, {"mentioned", {"north"}}, {"total", 1}});
}
