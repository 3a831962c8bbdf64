// A model's answer as a sentence a person reads, checked as exactly as its fields: the
// summary is a template whose every number and campaign name is a slot, {field}, bound
// to a field a check reads. A number written bare is refused; the accepted summary is
// rendered with the values as the model wrote them.
#include <iostream>
#include <string>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

int main() {
  gp::FactRegistry reg;
  reg.record_table("campaigns", json::parse(R"([
      {"campaign": "north",   "ctr": 0.0412, "spend": 1200.00},
      {"campaign": "harbour", "ctr": 0.0455, "spend": 950.50},
      {"campaign": "delta",   "ctr": 0.0301, "spend": 400.00}
    ])"),
                   {.key_column = "campaign", .tool = "warehouse.query", .args = {{"table", "campaign_weekly"}}});

  gp::Boundary b(reg, {"campaigns"}, {.prose_field = "summary"},
                 gp::superlative{.fact = "campaigns", .column = "ctr"},  // reads winner and score
                 gp::aggregate_reconciles{.fact = "campaigns",
                                          .field = "total_spend",
                                          .op = gp::Aggregate::sum,
                                          .column = "spend",
                                          .rounding = gp::Rounding::as_stated});

  // What the model is told about the summary field (from b.schema()):
  std::cout << "schema says: " << b.schema()["properties"]["summary"]["description"].get<std::string>() << "\n\n";

  // A summary with a number and a name outside their slots: refused, each one named.
  const gp::Verdict bare = b.try_submit_json(R"({
    "winner": "harbour", "score": 0.0455, "total_spend": 2550.50,
    "summary": "{winner} led with a CTR of 4.55%, ahead of North; the campaigns spent {total_spend}."
  })");
  std::cout << "refused:\n" << bare.to_text() << "\n\n";
  std::cout << "the model is told:\n" << bare.correction() << "\n\n";

  // Every number and name in a slot: accepted, and rendered with the digits as written.
  const gp::Verdict slotted = b.try_submit_json(R"({
    "winner": "harbour", "score": 0.0455, "total_spend": 2550.50,
    "summary": "{winner} led with a CTR of {score}; together the campaigns spent {total_spend}."
  })");
  if (!slotted.ok()) {
    std::cout << "unexpected: " << slotted.to_text() << "\n";
    return 1;
  }
  std::cout << "accepted: " << slotted.prose() << "\n";
  return bare.ok() ? 1 : 0;
}
