// Compile-time probe (b): only the headers a file checking one kind of claim needs —
// the boundary and one check — and the same answer as the README's example.
#include <iostream>
#include <string>

#include <groundplane/boundary.hpp>
#include <groundplane/checks/superlative.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}},
                     {.key = "ctr", .tool = "warehouse.query"});
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const std::string reply = R"({"winner": "north"})";
  std::cout << (b.try_submit_json(reply).ok() ? "accepted" : "rejected") << "\n";
}
