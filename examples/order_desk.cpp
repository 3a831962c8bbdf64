// An order desk an agent works through its port. Three things a demo never meets:
//   1. One action over many orders: the person approves cancelling order 57, and the
//      model tries to spend that yes on order 58. Refused: an approval is for one item.
//   2. A world that moves: the model looked at the cart, then the shopper changed it.
//      The model's next look (with its cursor) flags checkout's read of the cart as stale,
//      until the app shows it the new cart and acknowledges.
//   3. A choice that is the person's: which delivery slot. The block says the agent
//      presents the options and does not choose, until the shopper has chosen.
//
// Run: cmake --build build --target order_desk && ./build/examples/order_desk
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

void show(const char* what, const gp::AgentPort::Result& r) {
  std::cout << "== " << what << "\n";
  std::cout << "ok: " << r["ok"].dump();
  for (const char* key : {"reason", "verdict", "ask_id", "transition_id"})
    if (r.contains(key)) std::cout << ", " << key << ": " << r[key].get<std::string>();
  std::cout << "\n";
}

std::vector<std::string> open_orders(const json& state) { return state["orders"].get<std::vector<std::string>>(); }

}  // namespace

int main() {
  gp::Session session({.node = "orders",
                       .state = {{"orders", {"57", "58", "61"}}, {"cart", {{"items", {"A1"}}}}, {"slot", nullptr}},
                       .require_human_approval = true});
  std::vector<std::string> cancelled;
  session.declare("order.cancel", {.does = "Cancel an order.",
                                   .handler =
                                       [&](const json&) {
                                         const std::string order = session.current_instance();
                                         cancelled.push_back(order);
                                         auto orders = session.state()["orders"].get<std::vector<std::string>>();
                                         std::erase(orders, order);
                                         session.report_state({{"orders", orders}});
                                         return gp::HandlerResult{};
                                       },
                                   .high_effect = true,
                                   .concurrency = gp::Concurrency::once,
                                   .instances = open_orders});
  session.declare("checkout.place-order",
                  {.does = "Place the order for what is in the cart.",
                   .handler = [](const json&) { return gp::HandlerResult{}; },
                   .reads = {"/cart/items", "slot"},
                   .human_decides = gp::HumanDecides{.about = "which delivery slot",
                                                     .done_when = [](const json& state) -> std::optional<bool> {
                                                       return !state["slot"].is_null();
                                                     }}});
  gp::AgentPort port(session);

  // 1. The person approves cancelling order 57; the model tries the yes on order 58.
  const auto asked = port.call("do_action", {{"action", "order.cancel"}, {"instance", "57"}});
  show("the model cancels order 57", asked);
  session.approve_ask(asked["ask_id"].get<std::string>(), "shopper");
  show("the model presents that approval for order 58",
       port.call("do_action", {{"action", "order.cancel"}, {"instance", "58"}, {"ask_id", asked["ask_id"]}}));
  show("the model cancels an order that does not exist",
       port.call("do_action", {{"action", "order.cancel"}, {"instance", "99"}}));
  show("the model presents the approval for order 57",
       port.call("do_action", {{"action", "order.cancel"}, {"instance", "57"}, {"ask_id", asked["ask_id"]}}));

  // 2. The model looks; the shopper adds an item in another tab.
  const auto look = port.call("whats_here");
  const std::uint64_t looked = look["version"].get<std::uint64_t>();
  session.report_state({{"cart", {{"items", {"A1", "B7"}}}}});
  const auto again = port.call("whats_here", {{"since_version", looked}});
  std::cout << "== the model looks again, since version " << looked << "\n";
  for (const auto& a : again["actions"]) std::cout << a.dump() << "\n";
  std::cout << "\n" << again["facts"].get<std::string>() << "\n";

  // The shopper picks a slot; the app shows the model the new cart and slot, and says so.
  session.report_state({{"slot", "Tue 9-11"}});
  session.acknowledge_stale("checkout.place-order");
  const auto settled = port.call("whats_here", {{"since_version", looked}});
  std::cout << "\n== after the shopper chose a slot and the app showed the model the cart\n"
            << settled["actions"][1].dump() << "\n\n"
            << session.ground_truth().text << "\n";

  // What this example promises, checked.
  const bool one_cancel = cancelled == std::vector<std::string>{"57"};
  const bool flagged = again["actions"][1].contains("stale_reads") && again["actions"][1]["human_decides"] == true;
  const bool cleared = !settled["actions"][1].contains("stale_reads") &&
                       session.ground_truth().text.find("A decision is with the human") == std::string::npos;
  return one_cancel && flagged && cleared ? 0 : 1;
}
