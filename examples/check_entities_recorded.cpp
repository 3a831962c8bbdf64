// entities_recorded: a model writes up the week's campaigns and names one that does not
// exist — a near-miss spelling of a real one. Every name it uses must come from the
// recorded set, exactly; the finding suggests the closest recorded names.
#include <iostream>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_domain("campaigns", {"north", "harbour", "delta", "harbour-retarget"},
                    {.tool = "crm.list", .args = {{"kind", "campaign"}, {"status", "active"}}});

  gp::Boundary b(reg, {"campaigns"}, gp::entities_recorded{.facts = {"campaigns"}, .fields = {"mentioned"}});

  // The model spells 'harbour' the American way.
  try {
    b.submit({{"mentioned", {"north", "harbor"}}});
  } catch (const gp::UnsupportedClaim& e) {
    std::cout << "UnsupportedClaim: " << e.what() << "\n\n";
  }

  b.submit({{"mentioned", {"north", "harbour"}}});
  std::cout << "accepted: {\"mentioned\": [\"north\", \"harbour\"]}\n";
  return 0;
}
