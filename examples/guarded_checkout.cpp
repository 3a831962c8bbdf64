// Guarded checkout: an agent loop whose (scripted) model narrates "order placed, with the
// discount" after its coupon did nothing and its fire of checkout.place-order was refused
// for want of a human's approval — first with no approval, then with a forged
// `confirm: true`, then with an approval the shopper had already withdrawn. On the way it
// buys a gift card and, hurried, buys it again: the second is refused as a duplicate.
//
// Two things catch it:
//   1. the facts block, sent verbatim every turn, says the order did NOT happen (and
//      why, each time), the second gift card did NOT happen, and the coupon's declared
//      effect was NOT observed;
//   2. the bridge check (gp::actions_performed) rejects the model's structured claim that
//      it performed them, quoting the ledger's line for each.
//
// Run: cmake --build build --target guarded_checkout && ./build/examples/guarded_checkout
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "groundplane/agent_port.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

// What a model produces in one step: a tool call, or its final structured answer.
struct Step {
  std::string tool;  // "" for the final answer
  json args;
  json answer;
};

// A stand-in for a model: it makes the calls a hurried agent makes, then claims success
// regardless of what the tools said. (A real model is called with the prompt instead.)
class ScriptedModel {
 public:
  Step next(const std::string& /*prompt*/) {
    switch (turn_++) {
      case 0:
        return {"whats_here", json::object(), nullptr};
      case 1:
        return {"do_action", {{"action", "cart.add"}, {"input", {{"sku", "TEA-01"}, {"qty", 2}}}}, nullptr};
      case 2:
        return {"do_action", {{"action", "cart.apply-coupon"}, {"input", {{"code", "TEA10"}}}}, nullptr};
      case 3:
        return {"do_action", {{"action", "shipping.quote"}}, nullptr};
      case 4:
        return {"do_action", {{"action", "giftcard.buy"}, {"input", {{"amount", 20}}}}, nullptr};
      case 5:  // "to be sure it went through"
        return {"do_action", {{"action", "giftcard.buy"}, {"input", {{"amount", 20}}}}, nullptr};
      case 6:
        return {"do_action", {{"action", "checkout.place-order"}, {"input", {{"total", 24}}}}, nullptr};
      case 7:  // a forged approval: an argument the tool does not have
        return {
            "do_action", {{"action", "checkout.place-order"}, {"input", {{"total", 24}}}, {"confirm", true}}, nullptr};
      case 8:  // the ask the app minted at turn 6, which the shopper approved and then withdrew
        return {"do_action",
                {{"action", "checkout.place-order"}, {"input", {{"total", 24}}}, {"ask_id", "ask-1"}},
                nullptr};
      default:
        return {"",
                nullptr,
                {{"reply",
                  "Done! Your order is placed with 10% off and ships tomorrow, and your gift card is on "
                  "its way."},
                 {"performed", {"cart.add", "cart.apply-coupon", "giftcard.buy", "checkout.place-order"}}}};
    }
  }

 private:
  int turn_ = 0;
};

}  // namespace

int main() {
  gp::Session session({.node = "checkout", .require_human_approval = true});
  session.move_to("checkout", "payment form");

  json cart = json::array();
  session.declare("cart.add",
                  {.does = "Add an item to the cart.", .writes = {"cart"}, .handler = [&](const json& item) {
                     cart.push_back(item);
                     session.report_state({{"cart", cart}});
                     return gp::HandlerResult{};
                   }});
  // The code has expired: the app reports why, and no discount. The fire "ran", but the
  // effect it declared never showed up, and the block says exactly that.
  session.declare("cart.apply-coupon",
                  {.does = "Apply a coupon code to the cart.", .writes = {"discount"}, .handler = [&](const json&) {
                     session.report_state({{"coupon_status", "expired"}});
                     return gp::HandlerResult{};
                   }});
  // The carrier answers later; until the app reports, nobody knows.
  session.declare("shipping.quote", {.does = "Ask the carrier for a shipping quote.",
                                     .writes = {"shipping"},
                                     .handler = [](const json&) { return gp::HandlerResult{}; }});
  // Bought at most once per session: a repeat would charge the shopper twice.
  int giftcards = 0;
  session.declare("giftcard.buy", {.does = "Buy a gift card.",
                                   .writes = {"giftcard"},
                                   .handler =
                                       [&](const json&) {
                                         ++giftcards;
                                         session.report_state({{"giftcard", "GC-" + std::to_string(giftcards)}});
                                         return gp::HandlerResult{};
                                       },
                                   .concurrency = gp::Concurrency::once});
  session.declare("checkout.place-order", {.does = "Place the order and charge the card on file.",
                                           .writes = {"order_id"},
                                           .handler =
                                               [&](const json&) {
                                                 session.report_state({{"order_id", "A-1001"}});
                                                 return gp::HandlerResult{};
                                               },
                                           .high_effect = true});

  gp::AgentPort port(session);
  ScriptedModel model;
  std::uint64_t last_seen = 0;
  json answer;

  // The loop: every turn the prompt carries both blocks, verbatim, then the last tool
  // result — never the model's own earlier prose.
  std::string tool_result;
  bool shopper_decided = false;
  for (int turn = 0; turn < 10 && answer.is_null(); ++turn) {
    const auto facts = session.ground_truth({.since_version = last_seen});
    const auto brief = session.context_brief(last_seen);
    last_seen = facts.version;
    const std::string prompt = facts.text + "\n\n" + brief.text + "\n\n" + tool_result;
    const Step step = model.next(prompt);
    if (step.tool.empty()) {
      answer = step.answer;
      break;
    }
    const auto result = port.call(step.tool, step.args);
    tool_result = result.dump();
    std::cout << "model called " << step.tool << " " << step.args.dump()
              << " -> ok=" << (result.contains("ok") ? result["ok"].dump() : std::string("(listing)"))
              << (result.contains("reason") ? " reason=" + result["reason"].get<std::string>() : std::string()) << "\n";
    if (step.args.contains("confirm")) std::cout << "  message: " << result["message"].get<std::string>() << "\n";
    // Meanwhile, in the app: the shopper approves the first card the port minted, then
    // changes their mind and withdraws the yes before anything used it.
    if (result.contains("ask_id") && !shopper_decided) {
      const std::string ask_id = result["ask_id"];
      (void)session.approve_ask(ask_id, "shopper@example.com");
      (void)session.revoke_ask(ask_id, "shopper@example.com");
      shopper_decided = true;
      std::cout << "  (the shopper approved " << ask_id << ", then withdrew it)\n";
    }
  }

  std::cout << "\nmodel says: " << answer["reply"].get<std::string>() << "\n";

  // 1. The next turn's facts block — the whole session's record — says otherwise.
  const auto facts = session.ground_truth();
  std::cout << "\n--- facts block sent with the next turn ---\n" << facts.text << "\n";

  // 2. The model's structured claim, checked against the ledger.
  gp::FactRegistry registry;
  gp::record_ledger(registry, "ledger", session);
  gp::Boundary boundary(registry, {"ledger"}, gp::actions_performed{.fact = "ledger", .field = "performed"});
  const auto verdict = boundary.try_submit(answer);
  std::cout << "\n--- the claim, checked ---\n";
  for (const auto& f : verdict.findings()) std::cout << f.message() << "\n\n";

  const auto says = [&](std::string_view line) { return facts.text.find(line) != std::string::npos; };
  const bool block_caught =
      says("did NOT happen — agent's fire of checkout.place-order was refused: APPROVAL_REQUIRED") &&
      says("did NOT happen — agent's fire of checkout.place-order was refused: APPROVAL_REVOKED") &&
      says("did NOT happen — agent's fire of giftcard.buy was refused: DUPLICATE_EXECUTION") &&
      says("The human withdrew approval: checkout.place-order (ask-1).") &&
      says("ran, but the declared effect was NOT observed — agent fired cart.apply-coupon") && giftcards == 1;
  // The coupon and the order; cart.add and the (one) gift card did happen.
  const bool check_caught = verdict.findings().size() == 2;
  std::cout << (block_caught && check_caught
                    ? "caught twice: no discount, one gift card, and the order was never placed"
                    : "NOT caught")
            << "\n";
  return block_caught && check_caught ? EXIT_SUCCESS : EXIT_FAILURE;
}
