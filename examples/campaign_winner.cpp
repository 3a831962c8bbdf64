// The headline case: a model names the wrong winner from a table of numbers, the
// boundary rejects it with a message a person can act on, and the corrected answer is
// accepted.
#include <iostream>

#include <groundplane/claims.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});

  // What the model is shown: the ranking computed in code, for it to phrase.
  {
    gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    std::cout << "facts handed to the model:\n" << b.facts().dump(2) << "\n\n";

    // The model's answer, handed over as the JSON text it sent (read exactly as
    // written), names the wrong winner.
    try {
      b.submit_json(R"({"winner": "north", "score": 0.0412})");
    } catch (const gp::UnsupportedClaim& e) {
      std::cout << "UnsupportedClaim: " << e.what() << "\n\n";
    }

    // Asked again with the correction, it names the computed winner.
    b.submit_json(R"({"winner": "harbour", "score": 0.0455})");
    std::cout << "accepted: {\"winner\": \"harbour\", \"score\": 0.0455}\n";
  }
  return 0;
}
