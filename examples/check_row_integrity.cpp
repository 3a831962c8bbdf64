// row_integrity: a model reports one campaign's numbers from a table and copies the
// neighbouring row's ctr. Every value it wrote is real — just not north's. The check
// resolves the row by its key first and reads every other field off that row.
#include <iostream>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

int main() {
  gp::FactRegistry reg;
  reg.record_table(
      "campaign_daily",
      json::array({{{"campaign", "north"}, {"ctr", 0.0412}, {"spend", 1200}},
                   {{"campaign", "harbour"}, {"ctr", 0.0455}, {"spend", 980}},
                   {{"campaign", "delta"}, {"ctr", 0.0301}, {"spend", 1500}}}),
      {.key_column = "campaign", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});

  gp::Boundary b(reg, {"campaign_daily"},
                 gp::row_integrity{.fact = "campaign_daily",
                                   .key_field = "campaign",
                                   .fields = {{"ctr", "ctr"}, {"spend", "spend"}},
                                   .at = "/rows"});

  // Row 1 carries delta's ctr under north's name.
  try {
    b.submit({{"rows",
               {{{"campaign", "harbour"}, {"ctr", 0.0455}, {"spend", 980}},
                {{"campaign", "north"}, {"ctr", 0.0301}, {"spend", 1200}}}}});
  } catch (const gp::UnsupportedClaim& e) {
    std::cout << "UnsupportedClaim: " << e.what() << "\n\n";
  }

  b.submit({{"rows",
             {{{"campaign", "harbour"}, {"ctr", 0.0455}, {"spend", 980}},
              {{"campaign", "north"}, {"ctr", 0.0412}, {"spend", 1200}}}}});
  std::cout << "accepted: each row's values read off its own row\n";
  return 0;
}
