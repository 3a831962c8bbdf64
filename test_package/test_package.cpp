// The package works: a wrong winner is caught as an UnsupportedClaim.
#include <iostream>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}},
                     {.key = "ctr", .tool = "warehouse.query", .args = {{"window", "7d"}}});
  try {
    gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    b.submit({{"winner", "north"}});
  } catch (const gp::UnsupportedClaim& e) {
    std::cout << "groundplane " << gp::version_string << "\nUnsupportedClaim: " << e.what() << "\n";
    return 0;
  }
  return 1;
}
