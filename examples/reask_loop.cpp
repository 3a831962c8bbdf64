// Runtime composition and re-ask: the checks come from configuration (JSON), and
// gp::reask asks the model again with the correction until an answer is accepted.
// The "model" here is scripted: it names the wrong winner first, then fixes it.
#include <iostream>
#include <optional>
#include <string>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

int main() {
  gp::FactRegistry reg;
  reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});

  // Checks chosen at run time, e.g. read from a config file.
  const json config = json::parse(R"([
    {"check": "superlative", "fact": "campaign_ctr"},
    {"check": "entities_recorded", "facts": ["campaign_ctr"], "fields": ["mentioned"]}
  ])");
  gp::CheckList checks;
  for (const json& spec : config) checks.push_back(gp::check_from_json(spec));

  int calls = 0;
  const auto model = [&calls](const json& facts, const std::optional<std::string>& correction) -> json {
    ++calls;
    std::cout << "model call " << calls << (correction ? ", with the correction:\n" + *correction : ", no correction")
              << "\n\n";
    (void)facts;  // a real model gets these: the ranking computed in code, with provenance
    if (!correction) return {{"winner", "north"}, {"mentioned", {"north", "harbor"}}};
    return {{"winner", "harbour"}, {"mentioned", {"harbour", "north"}}};
  };

  const json answer = gp::reask(reg, {"campaign_ctr"}, model, 3, checks);
  std::cout << "accepted after " << calls << " calls: " << answer.dump() << "\n";

  // Out of attempts, every attempt is kept for the developer.
  try {
    gp::reask(
        reg, {"campaign_ctr"},
        [](const json&, const std::optional<std::string>&) {
          return json{{"winner", "delta"}, {"mentioned", json::array()}};
        },
        2, checks);
  } catch (const gp::ReaskExhausted& e) {
    std::cout << "\nReaskExhausted after " << e.attempts().size() << " attempts; last output " << e.last_output().dump()
              << ":\n"
              << e.what() << "\n";
  }
  return calls == 2 ? 0 : 1;
}
