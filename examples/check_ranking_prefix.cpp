// ranking_prefix: a model lists the top three sales reps of the quarter. Two reps tie
// for third, so either may close the list, but the order above them is fixed.
#include <iostream>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_ranking(
      "closed_revenue",
      {{"okafor", 182400}, {"lindqvist", 207150}, {"marsh", 164900}, {"tanaka", 164900}, {"reyes", 98300}},
      {.key = "closed_usd", .tool = "crm.report", .args = {{"report", "closed_won"}, {"quarter", "2024-Q2"}}});

  gp::Boundary b(reg, {"closed_revenue"},
                 gp::ranking_prefix{.fact = "closed_revenue", .k = 3, .ties = gp::Ties::accept_any});

  // The model swaps second and third place.
  try {
    b.submit({{"top", {"lindqvist", "marsh", "okafor"}}});
  } catch (const gp::UnsupportedClaim& e) {
    std::cout << "UnsupportedClaim: " << e.what() << "\n\n";
  }

  // The computed order; 'tanaka' ties 'marsh' for third, so either may close the list.
  b.submit({{"top", {"lindqvist", "okafor", "tanaka"}}});
  std::cout << "accepted: {\"top\": [\"lindqvist\", \"okafor\", \"tanaka\"]}\n";
  return 0;
}
