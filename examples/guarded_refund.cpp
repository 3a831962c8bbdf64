// A refund the facts must support. The model fires refund {order_id, amount}: that is two
// claims — this order was returned by a tool, and this amount is its total. The action's
// argument checks hold both to what the order tool recorded, before any approval is
// asked for: an invented order is refused, another order's total is refused naming whose
// it is, and the right refund reaches a person with what supports each argument shown.
#include <iostream>
#include <string>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

void show(const char* what, const gp::AgentPort::Result& r) {
  std::cout << "== " << what << "\n";
  std::cout << "ok: " << r["ok"].dump();
  if (r.contains("reason")) std::cout << ", reason: " << r["reason"].get<std::string>();
  if (r.contains("ask_id")) std::cout << ", ask_id: " << r["ask_id"].get<std::string>();
  if (r.contains("transition_id")) std::cout << ", transition_id: " << r["transition_id"].get<std::string>();
  std::cout << "\n";
  if (r.contains("issues"))
    for (const auto& issue : r["issues"]) std::cout << "issue:\n  " << issue.get<std::string>() << "\n";
}

}  // namespace

int main() {
  // What the order tool returned this turn: the customer's two orders.
  gp::FactRegistry facts;
  facts.record_table("orders", json::parse(R"([{"id": 57, "total": 129.00}, {"id": 58, "total": 74.50}])"),
                     {.key_column = "id", .tool = "orders.list", .args = {{"customer", "c-9"}}});

  gp::Session session({.node = "orders", .require_human_approval = true, .facts = &facts});
  int refunds = 0;
  session.declare("orders.refund", {.does = "Refund an order in full.",
                                    .handler =
                                        [&](const json&) {
                                          ++refunds;
                                          return gp::HandlerResult{};
                                        },
                                    .high_effect = true,
                                    .input = json::parse(R"({"type": "object",
                                            "properties": {"order_id": {"type": "integer"},
                                                           "amount": {"type": "number", "exclusiveMinimum": 0}},
                                            "required": ["order_id", "amount"],
                                            "additionalProperties": false})"),
                                    .argument_checks = {gp::row_integrity{
                                        .fact = "orders", .key_field = "order_id", .fields = {{"amount", "total"}}}}});
  gp::AgentPort port(session);

  show("the model refunds an order no tool returned",
       port.call("do_action", {{"action", "orders.refund"}, {"input", {{"order_id", 61}, {"amount", 129.00}}}}));
  show("the model refunds order 57 with order 58's total",
       port.call("do_action", {{"action", "orders.refund"}, {"input", {{"order_id", 57}, {"amount", 74.50}}}}));
  const auto asked =
      port.call("do_action", {{"action", "orders.refund"}, {"input", {{"order_id", 57}, {"amount", 129.00}}}});
  show("the model refunds order 57 with its own total", asked);

  // The app shows the person the card, with what supports each argument.
  const gp::Ask card = session.confirm_ask("orders.refund", {{"order_id", 57}, {"amount", 129.00}});
  std::cout << "== the approval card for " << card.id << "\n";
  for (const auto& s : card.support)
    std::cout << "  " << s.field << " — " << s.fact << ", from " << s.provenance << "\n";
  session.approve_ask(card.id, "support-agent-ana");

  show("the model presents the approval", port.call("do_action", {{"action", "orders.refund"},
                                                                  {"input", {{"order_id", 57}, {"amount", 129.00}}},
                                                                  {"ask_id", asked["ask_id"]}}));
  std::cout << "refunds run: " << refunds << "\n\n" << session.ground_truth().text << "\n";
  return refunds == 1 ? 0 : 1;
}
