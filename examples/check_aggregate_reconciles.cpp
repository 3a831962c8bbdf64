// aggregate_reconciles: a model reports one region's revenue from an orders table, and
// a mean from a table that was only partly fetched. One north order has no amount yet:
// OnMissing::skip sums the rows that have one (the verdict says so in its warnings).
#include <iostream>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_table(
      "orders", nlohmann::json::parse(R"([
      {"order": "A-1001", "region": "north", "amount": 1249.90},
      {"order": "A-1002", "region": "south", "amount": 310.00},
      {"order": "A-1003", "region": "north", "amount": 89.95},
      {"order": "A-1004", "region": "north", "amount": null},
      {"order": "A-1005", "region": "west",  "amount": 455.10}
    ])"),
      {.key_column = "order", .tool = "warehouse.query", .args = {{"table", "orders"}, {"day", "2024-06-01"}}});

  const gp::aggregate_reconciles north_revenue{.fact = "orders",
                                               .field = "north_revenue",
                                               .op = gp::Aggregate::sum,
                                               .column = "amount",
                                               .where = {{"region", "north"}},
                                               .on_missing = gp::OnMissing::skip};
  {
    gp::Boundary b(reg, {"orders"}, north_revenue);
    // The model adds up every amount in the table, not just the north's.
    try {
      b.submit({{"north_revenue", 2104.95}});
    } catch (const gp::UnsupportedClaim& e) {
      std::cout << "UnsupportedClaim: " << e.what() << "\n\n";
    }
    b.submit({{"north_revenue", 1339.85}});
    std::cout << "accepted: {\"north_revenue\": 1339.85}\n\n";
  }

  // A query that stopped at 2 of 2,000 rows: no mean over it is checked, and none is printed.
  reg.record_table("sessions", nlohmann::json::parse(R"([{"seconds": 42.5}, {"seconds": 310}])"),
                   {.total_rows = 2000, .tool = "analytics.query", .args = {{"table", "sessions"}, {"limit", 2}}});
  gp::Boundary b(reg, {"sessions"},
                 gp::aggregate_reconciles{
                     .fact = "sessions", .field = "mean_seconds", .op = gp::Aggregate::mean, .column = "seconds"});
  const gp::Verdict v = b.try_submit({{"mean_seconds", 176.25}});
  std::cout << "refused: " << v.findings().at(0).message() << "\n";
  return v.ok() ? 1 : 0;
}
