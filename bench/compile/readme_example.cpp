// Compile-time probe: the README's first example through the umbrella header, or, with
// BENCH_THROUGH_CLAIMS defined, through the claims half alone (bench/compile/run times
// both, and the compiled mode).
#include <iostream>
#include <string>

#ifdef BENCH_THROUGH_CLAIMS
#include <groundplane/claims.hpp>
#else
#include <groundplane/groundplane.hpp>
#endif

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;  // write-once facts, each with the call that produced it
  reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});

  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  // The model is given b.facts() (the ranking, computed in code) and b.schema()
  // (the fields to fill); this is the JSON text it wrote back:
  const std::string reply = R"({"winner": "north"})";
  try {
    b.submit_json(reply);
    std::cout << "accepted\n";
  } catch (const gp::UnsupportedClaim& e) {
    std::cout << "UnsupportedClaim: " << e.what() << "\n";
  }
}
