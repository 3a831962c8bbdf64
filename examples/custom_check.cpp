// A check of your own: a value type with leans_on(), validate() and verify() (and,
// optionally, describe() for the schema). It works wherever a built-in check does —
// in a Boundary directly, and in a CheckList assembled at run time. What it needs to
// find a field, read a number, render values and build a finding comes from
// <groundplane/check_support.hpp>, the same functions the built-in checks use.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <groundplane/check_support.hpp>
#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

// "The quoted total stays within the recorded budget."
struct total_within_budget {
  std::string fact;  // a Fact holding a number
  std::string field = "total";

  std::vector<std::string> leans_on() const { return {fact}; }

  // A developer's mistake is a ConfigurationError, raised when the boundary is built.
  // fact_for and validate_field throw the built-in checks' messages for an unrecorded
  // fact, a fact of the wrong kind and a malformed field.
  void validate(const gp::FactRegistry& reg) const {
    gp::validate_field(field, "total_within_budget", "field");
    if (!gp::Decimal::from_json(gp::fact_for<gp::Fact>(reg, fact, "total_within_budget").value()))
      throw gp::ConfigurationError("total_within_budget: fact " + gp::quote(fact) + " is not a number");
  }

  // A model's mistake is a Finding; nothing the model wrote makes this throw.
  void verify(const gp::FactRegistry& reg, const json& output, std::vector<gp::Finding>& findings) const {
    const gp::Fact& budget = reg.get<gp::Fact>(fact);
    const json* said = gp::find_field(output, field);                   // nullptr: absent
    const auto total = said ? gp::stated_number(*said) : std::nullopt;  // nullopt: not a number
    const gp::Decimal limit = *gp::Decimal::from_json(budget.value());
    if (total && *total <= limit) return;
    gp::Finding f = gp::finding_about("total_within_budget", field, budget);
    f.said = said ? gp::render(*said) : "";
    f.supported = "at most " + gp::render(limit);
    f.detail = total  ? "the total exceeds the recorded budget by " + gp::render(*total - limit)
               : said ? "expected a number within the recorded budget, got " + std::string(gp::type_name(*said))
                      : "expected a number within the recorded budget; the field is missing";
    findings.push_back(std::move(f));
  }

  // Optional: the field it reads, for Boundary::schema().
  void describe(const gp::FactRegistry&, gp::SchemaBuilder& schema) const {
    schema.add(field, {{"type", "number"}, {"description", "the quoted total, within the budget"}}, true);
  }
};
static_assert(gp::Check<total_within_budget>);

int main() {
  gp::FactRegistry reg;
  reg.record_fact("q3_budget", 5000, {.tool = "finance.budget", .args = {{"quarter", "2024-Q3"}}});
  reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});

  const json answer = {{"winner", "harbour"}, {"total", 5240}};

  // Compile-time composition: the custom check beside a built-in one.
  {
    gp::Boundary b(reg, {"q3_budget", "campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"},
                   total_within_budget{.fact = "q3_budget"});
    try {
      b.submit(answer);
    } catch (const gp::UnsupportedClaim& e) {
      std::cout << "UnsupportedClaim: " << e.what() << "\n\n";
    }
  }

  // Run-time composition: the same checks chosen while the program runs.
  gp::CheckList checks;
  checks.push_back(gp::superlative{.fact = "campaign_ctr"});
  checks.push_back(total_within_budget{.fact = "q3_budget"});
  gp::Boundary b(reg, {"q3_budget", "campaign_ctr"}, checks);
  std::cout << "schema: " << b.schema().dump() << "\n\n";
  const gp::Verdict rejected = b.try_submit(answer);
  std::cout << "correction for the model:\n" << rejected.correction() << "\n\n";
  const gp::Verdict accepted = b.try_submit({{"winner", "harbour"}, {"total", 4980}});
  std::cout << (accepted ? "accepted: {\"winner\": \"harbour\", \"total\": 4980}" : "unexpectedly rejected") << "\n";
  return rejected.ok() || !accepted.ok() ? 1 : 0;
}
