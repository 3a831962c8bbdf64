// Compile-time probe: a newcomer's one-file app using each public part once — a table
// check, prose with slots, a claim stream, a pinned re-ask, a session with a typed input
// and an approval, kept in the SQLite store. bench/compile/run times it in both modes, at
// -O0 and in Release, beside the same file built against an earlier release: it uses no
// name that release lacks.
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include <groundplane/groundplane.hpp>
#include <groundplane/store/sqlite.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

void record_facts(gp::FactRegistry& reg) {
  reg.record_table("campaigns", json::parse(R"([{"campaign": "north", "ctr": 0.0412, "spend": 1200.00},
                                   {"campaign": "harbour", "ctr": 0.0455, "spend": 950.50}])"),
                   {.key_column = "campaign", .tool = "warehouse.query", .args = {{"table", "campaign_weekly"}}});
  reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}},
                     {.key = "ctr", .tool = "warehouse.query"});
}

bool claims(const gp::FactRegistry& reg) {
  // A table check and prose with slots.
  gp::Boundary table(reg, {"campaigns"}, {.prose_field = "summary"},
                     gp::superlative{.fact = "campaigns", .column = "ctr"},
                     gp::aggregate_reconciles{.fact = "campaigns",
                                              .field = "total_spend",
                                              .op = gp::Aggregate::sum,
                                              .column = "spend",
                                              .rounding = gp::Rounding::as_stated});
  const gp::Verdict summary = table.try_submit_json(
      R"({"winner": "harbour", "score": 0.0455, "total_spend": 2150.50, "summary": "{winner} led at {score}."})");

  // A claim stream, stopped at its first wrong claim.
  gp::Boundary ranked(reg, {"campaign_ctr"}, gp::ranking_prefix{.fact = "campaign_ctr", .k = 2});
  gp::ClaimStream stream = ranked.stream();
  for (const char* token : {R"({"top": [)", R"("north", )", R"("harbour"]})"})
    if (stream.feed(token) == gp::StreamState::rejected) break;
  const gp::Verdict streamed = stream.stop();

  // A pinned re-ask: the second answer only for what was wrong.
  const auto generate = [](const json&, const std::optional<gp::ReaskRequest>& request) -> json {
    if (!request) return {{"winner", "north"}, {"a", "harbour"}, {"b", "north"}, {"by", 0.43}};
    return {{"winner", "harbour"}};
  };
  const json answer = gp::reask(
      reg, {"campaign_ctr"}, generate, 3, gp::superlative{.fact = "campaign_ctr"},
      gp::comparison{
          .fact = "campaign_ctr", .convention = gp::Convention::percentage_points, .rounding = gp::Rounding::as_stated},
      gp::ReaskOptions{.pinned = true});
  std::cout << summary.prose() << "\n" << streamed.to_text() << "\n" << answer.dump() << "\n";
  return summary.ok() && !streamed.ok();
}

bool app(const std::filesystem::path& file) {
  // A session with a typed input and an approval, kept in the SQLite store.
  gp::Session session({.require_human_approval = true, .store = gp::open_sqlite_store(file, {.session = "cust-42"})});
  int refunds = 0;
  session.declare("billing.refund",
                  {.does = "Refund the order to the card it was paid with.",
                   .handler =
                       [&refunds](const json&) {
                         ++refunds;
                         return gp::HandlerResult{};
                       },
                   .high_effect = true,
                   .input = json::parse(R"({"type": "object", "properties": {"order": {"type": "integer"}},
                                            "required": ["order"], "additionalProperties": false})")});
  const json order = {{"order", 57}};
  const auto refused = session.fire("billing.refund", {.payload = order});
  const auto ask = session.confirm_ask("billing.refund", order);
  session.approve_ask(ask.id, "dana");
  const auto done = session.fire("billing.refund", {.payload = order, .ask_id = ask.id});
  std::cout << refused.reason << "\n" << session.ground_truth().text << "\n";
  return !refused.ok && done.ok && refunds == 1;
}

}  // namespace

int main(int argc, char** argv) {
  gp::FactRegistry reg;
  record_facts(reg);
  const std::filesystem::path file = argc > 1 ? argv[1] : "every_feature.ledger";
  return claims(reg) && app(file) ? 0 : 1;
}
