// What every consumer project builds: record a fact, let a model's wrong claim reach a
// boundary, and catch the UnsupportedClaim. Exits 0 only when the finding is the one
// the facts imply, so a consumer that links but behaves differently still fails.
#include <cstring>
#include <iostream>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});
  try {
    gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    b.submit({{"winner", "north"}});
  } catch (const gp::UnsupportedClaim& e) {
    const bool expected = e.findings().size() == 1 && e.findings().front().supported == "'harbour'";
    std::cout << "groundplane " << gp::version_string << "\nUnsupportedClaim: " << e.what() << "\n";
    if (std::strcmp(gp::version_string, GROUNDPLANE_CONSUMER_EXPECTED_VERSION) != 0) {
      std::cerr << "expected groundplane " << GROUNDPLANE_CONSUMER_EXPECTED_VERSION << "\n";
      return 1;
    }
    return expected ? 0 : 1;
  }
  std::cerr << "the wrong winner was accepted\n";
  return 1;
}
