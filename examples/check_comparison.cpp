// comparison: "harbour beat north by N" — the model reports the gap in click-through
// rate as a percent change, but the number it writes is the percentage-point gap.
#include <iostream>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});

  // Percent change, accepted at the digits the model writes (10.44 for 10.4368…).
  gp::Boundary b(
      reg, {"campaign_ctr"},
      gp::comparison{
          .fact = "campaign_ctr", .convention = gp::Convention::percent_change, .rounding = gp::Rounding::as_stated});

  // 4.55% - 4.12% = 0.43 percentage points, written where a percent change belongs.
  try {
    b.submit({{"a", "harbour"}, {"b", "north"}, {"by", 0.43}});
  } catch (const gp::UnsupportedClaim& e) {
    std::cout << "UnsupportedClaim: " << e.what() << "\n\n";
  }

  b.submit({{"a", "harbour"}, {"b", "north"}, {"by", 10.44}});
  std::cout << "accepted: {\"a\": \"harbour\", \"b\": \"north\", \"by\": 10.44}\n";
  return 0;
}
