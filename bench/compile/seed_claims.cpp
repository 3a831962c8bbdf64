// Compile-time probe: the README's first example through the claims half alone.
#include <iostream>
#include <string>

#include <groundplane/claims.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;  // write-once facts, each with the call that produced it
  reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});

  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const std::string reply = R"({"winner": "north"})";
  try {
    b.submit_json(reply);
    std::cout << "accepted\n";
  } catch (const gp::UnsupportedClaim& e) {
    std::cout << "UnsupportedClaim: " << e.what() << "\n";
  }
}
