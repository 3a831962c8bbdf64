// Concurrency::single_flight and Concurrency::once: the same order placed twice, refused
// while the first is unsettled and after it happened; receipts minted only by fires that
// ran; a person's own repeat recorded and reopening the action; repeats checked before
// any approval reason.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/agent_port.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

std::vector<std::string> attempts(const gp::Session& s) {
  std::vector<std::string> out;
  const std::string text = s.ground_truth().text;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    if (line.rfind("  • ", 0) == 0) out.push_back(line.substr(std::string("  • ").size()));
    start = end + 1;
  }
  return out;
}

// An order that charges a card: it reports its own effect from inside the handler.
struct Orders {
  gp::Session s;
  int placed = 0;
  bool fail_next = false;
  explicit Orders(gp::Concurrency c, gp::SessionOptions o = {}) : s(std::move(o)) {
    s.declare("checkout.place-order", {.does = "Place the order.",
                                       .writes = {"order_id"},
                                       .handler =
                                           [this](const json&) {
                                             if (fail_next) {
                                               fail_next = false;
                                               return gp::HandlerResult{false, "card declined"};
                                             }
                                             ++placed;
                                             s.report_state({{"order_id", placed}});
                                             return gp::HandlerResult{};
                                           },
                                       .concurrency = c});
  }
};

const std::string order = "checkout.place-order";

}  // namespace

TEST_CASE("a single_flight action fired again while its first fire is unsettled is refused PRIOR_FIRE_PENDING") {
  gp::Session s;
  int runs = 0;
  s.declare("sync.push", {.does = "Push to the server.",
                          .writes = {"pushed"},
                          .handler =
                              [&](const json&) {
                                ++runs;
                                return gp::HandlerResult{};
                              },
                          .concurrency = gp::Concurrency::single_flight});
  const auto first = s.fire("sync.push");
  REQUIRE(first.ok);
  const auto second = s.fire("sync.push");
  CHECK_FALSE(second.ok);
  CHECK(second.reason == "PRIOR_FIRE_PENDING");
  CHECK(second.prior_transition_id == first.transition_id);
  REQUIRE(s.view().gap_rows().size() == 1);
  CHECK(s.view().gap_rows()[0].prior_transition_id == first.transition_id);
  CHECK(runs == 1);
  s.report_state({{"pushed", true}}, first.transition_id);  // settled: the next one may run
  const auto third = s.fire("sync.push");
  CHECK(third.ok);
  CHECK(runs == 2);
  CHECK(attempts(s) ==
        std::vector<std::string>{"DID happen — agent fired sync.push (committed; declared effect observed)",
                                 "did NOT happen — agent's fire of sync.push was refused: PRIOR_FIRE_PENDING",
                                 "not yet known — agent fired sync.push (the app has not reported back yet)"});
}

TEST_CASE("a single_flight handler that fires its own action from inside is refused PRIOR_FIRE_PENDING") {
  gp::Session s;
  gp::FireResult inner{};
  s.declare("sync.push", {.does = "Push to the server.",
                          .handler =
                              [&](const json&) {
                                if (inner.reason.empty()) inner = s.fire("sync.push");
                                return gp::HandlerResult{};
                              },
                          .concurrency = gp::Concurrency::single_flight});
  const auto outer = s.fire("sync.push");  // no writes: unsettled only while the handler runs
  CHECK(outer.ok);
  CHECK(inner.reason == "PRIOR_FIRE_PENDING");
  CHECK(inner.prior_transition_id == outer.transition_id);
  CHECK(s.fire("sync.push").ok);  // returned: settled
}

TEST_CASE("the same order placed twice is refused DUPLICATE_EXECUTION once the first settled") {
  Orders o(gp::Concurrency::once);
  const auto first = o.s.fire(order, {.payload = {{"total", 24}}});
  REQUIRE(first.ok);
  const auto second = o.s.fire(order, {.payload = {{"total", 24}}});
  CHECK(second.reason == "DUPLICATE_EXECUTION");
  CHECK(second.prior_transition_id == first.transition_id);
  const auto other_input = o.s.fire(order, {.payload = {{"total", 99}}});  // a different order is still a repeat
  CHECK(other_input.reason == "DUPLICATE_EXECUTION");
  CHECK(o.placed == 1);
  CHECK(attempts(o.s).back() ==
        "did NOT happen — agent's fire of checkout.place-order was refused: DUPLICATE_EXECUTION");
}

TEST_CASE("while a once action's first fire is unsettled a second is refused PRIOR_FIRE_PENDING") {
  gp::Session s;
  s.declare(order, {.does = "Place the order.",
                    .writes = {"order_id"},
                    .handler = [](const json&) { return gp::HandlerResult{}; },
                    .concurrency = gp::Concurrency::once});
  const auto first = s.fire(order);
  const auto second = s.fire(order);
  CHECK(second.reason == "PRIOR_FIRE_PENDING");  // not DUPLICATE_EXECUTION: it may not have happened yet
  CHECK(second.prior_transition_id == first.transition_id);
  s.report_state({{"order_id", "A-1"}}, first.transition_id);
  CHECK(s.fire(order).reason == "DUPLICATE_EXECUTION");
}

TEST_CASE("a refused first attempt mints no once receipt") {
  Orders o(gp::Concurrency::once, {.require_human_approval = true});
  o.s.declare("checkout.place-order-gated", {.does = "Place it, gated.",
                                             .handler = [](const json&) { return gp::HandlerResult{}; },
                                             .high_effect = true,
                                             .concurrency = gp::Concurrency::once});
  CHECK(o.s.fire("checkout.place-order-gated").reason == "APPROVAL_REQUIRED");
  const auto ask = o.s.confirm_ask("checkout.place-order-gated");
  REQUIRE(o.s.approve_ask(ask.id, "dana"));
  CHECK(o.s.fire("checkout.place-order-gated", {.ask_id = ask.id}).ok);  // the refusal held no receipt
  CHECK(o.s.fire("checkout.place-order-gated").reason == "DUPLICATE_EXECUTION");

  o.fail_next = true;
  CHECK(o.s.fire(order).reason == "HANDLER_FAILED");  // the handler failed: nothing happened
  CHECK(o.s.fire(order).ok);
  CHECK(o.s.fire(order).reason == "DUPLICATE_EXECUTION");
  CHECK(o.placed == 1);
}

TEST_CASE("a once fire that ran holds its receipt whether its effect was observed or not") {
  gp::Session s({.allow_unmaterialized_fires = true});
  const auto ok = [](const json&) { return gp::HandlerResult{}; };
  s.declare("a.unobservable", {.does = "No writes.", .handler = ok, .concurrency = gp::Concurrency::once});
  s.declare("a.not-observed",
            {.does = "Writes x.", .writes = {"x"}, .handler = ok, .concurrency = gp::Concurrency::once});
  s.declare("a.verify-failed", {.does = "Verify never holds.",
                                .handler = ok,
                                .verify = [](const json&) { return false; },
                                .concurrency = gp::Concurrency::once});
  s.declare("a.tour", {.does = "Nothing wired.", .concurrency = gp::Concurrency::once});
  REQUIRE(s.fire("a.unobservable").ok);
  const auto t = s.fire("a.not-observed");
  s.report_state({{"y", 1}}, t.transition_id);
  REQUIRE(s.view().transition(t.transition_id)->outcome == gp::Outcome::not_observed);
  REQUIRE(s.fire("a.verify-failed").ok);
  REQUIRE(s.view().transitions().back().outcome == gp::Outcome::verify_failed);
  for (const char* id : {"a.unobservable", "a.not-observed", "a.verify-failed"}) {
    INFO(id);
    CHECK(s.fire(id).reason == "DUPLICATE_EXECUTION");  // unprovable non-execution is not non-execution
  }
  // Nothing was wired to run: provably nothing happened, so no receipt.
  REQUIRE(s.fire("a.tour").ok);
  CHECK(s.fire("a.tour").ok);
}

TEST_CASE("a user's repeat of a once action is recorded as a repeat and reopens it for one agent fire") {
  Orders o(gp::Concurrency::once);
  REQUIRE(o.s.fire(order).ok);  // t-1 holds the receipt
  const auto by_hand = o.s.fire(order, {.source = gp::Principal::user});
  CHECK(by_hand.ok);  // a person acting on the screen is never refused as a repeat
  CHECK(o.s.view().transition(by_hand.transition_id)->cause.repeat);
  const auto agent = o.s.fire(order);  // reopened: proceeds, marked a repeat, mints the new receipt
  CHECK(agent.ok);
  CHECK(o.s.view().transition(agent.transition_id)->cause.repeat);
  const auto again = o.s.fire(order);
  CHECK(again.reason == "DUPLICATE_EXECUTION");
  CHECK(again.prior_transition_id == agent.transition_id);
  CHECK(o.placed == 3);
  CHECK(attempts(o.s) ==
        std::vector<std::string>{
            "DID happen — agent fired checkout.place-order (committed; declared effect observed)",
            "DID happen — user fired checkout.place-order again (committed; declared effect observed)",
            "DID happen — agent fired checkout.place-order again (committed; declared effect observed)",
            "did NOT happen — agent's fire of checkout.place-order was refused: DUPLICATE_EXECUTION"});
}

TEST_CASE("a user transition attributed by inference reopens a once action") {
  gp::Session s;
  s.declare(order, {.does = "Place the order.",
                    .writes = {"order_id"},
                    .handler = [](const json&) { return gp::HandlerResult{}; },
                    .concurrency = gp::Concurrency::once});
  const auto first = s.fire(order);
  s.report_state({{"order_id", 1}}, first.transition_id);
  REQUIRE(s.fire(order).reason == "DUPLICATE_EXECUTION");
  s.report_state({{"order_id", 2}});  // nobody fired: the person placed one on the screen
  REQUIRE(s.view().transitions().back().outcome == gp::Outcome::inferred);
  CHECK(s.view().transitions().back().cause.repeat);
  CHECK(attempts(s).back() ==
        "DID happen — user fired checkout.place-order again (attributed by inference, not observed)");
  CHECK(s.fire(order).ok);
}

TEST_CASE("repeats are refused before any approval reason so nobody is asked to approve a doomed fire") {
  gp::Session s({.require_human_approval = true});
  int placed = 0;
  s.declare(order, {.does = "Place the order.",
                    .handler =
                        [&](const json&) {
                          ++placed;
                          return gp::HandlerResult{};
                        },
                    .guard = [](const json& st) { return !st.value("frozen", false); },
                    .high_effect = true,
                    .concurrency = gp::Concurrency::once});
  const auto yes = s.confirm_ask(order);
  REQUIRE(s.approve_ask(yes.id, "dana"));
  REQUIRE(s.fire(order, {.ask_id = yes.id}).ok);
  CHECK(s.fire(order).reason == "DUPLICATE_EXECUTION");                      // not APPROVAL_REQUIRED
  CHECK(s.fire(order, {.ask_id = yes.id}).reason == "DUPLICATE_EXECUTION");  // not APPROVAL_SPENT
  const auto second_yes = s.confirm_ask(order, {{"again", true}});
  REQUIRE(s.approve_ask(second_yes.id, "dana"));
  CHECK(s.fire(order, {.ask_id = second_yes.id}).reason == "DUPLICATE_EXECUTION");  // not APPROVAL_MISMATCH
  CHECK(s.view().ask(second_yes.id)->state == gp::AskState::approved);              // and the yes is not spent
  // GUARD_FAILED still comes first.
  s.report_state({{"frozen", true}});
  CHECK(s.fire(order).reason == "GUARD_FAILED");
  CHECK(placed == 1);
  // Through the port, the refusal mints no ask for a person to answer.
  s.report_state({{"frozen", false}});
  gp::AgentPort port(s);
  const auto r = port.call("do_action", {{"action", order}});
  CHECK(r["reason"] == "DUPLICATE_EXECUTION");
  CHECK_FALSE(r.contains("ask_id"));
  CHECK(s.view().asks().size() == 2);
}

TEST_CASE("system fires are refused repeats like agent fires") {
  Orders o(gp::Concurrency::once);
  REQUIRE(o.s.fire(order, {.source = gp::Principal::system}).ok);
  CHECK(o.s.fire(order, {.source = gp::Principal::system}).reason == "DUPLICATE_EXECUTION");
  CHECK(o.s.fire(order).reason == "DUPLICATE_EXECUTION");
  CHECK(o.placed == 1);
}

TEST_CASE("a user's fire of a single_flight action in flight is recorded and marked a repeat") {
  gp::Session s;
  s.declare("sync.push", {.does = "Push.",
                          .writes = {"pushed"},
                          .handler = [](const json&) { return gp::HandlerResult{}; },
                          .concurrency = gp::Concurrency::single_flight});
  const auto first = s.fire("sync.push");
  const auto by_hand = s.fire("sync.push", {.source = gp::Principal::user});
  CHECK(by_hand.ok);
  CHECK(s.view().transition(by_hand.transition_id)->cause.repeat);
  CHECK_FALSE(s.view().transition(first.transition_id)->cause.repeat);
  CHECK(s.fire("sync.push").prior_transition_id == by_hand.transition_id);  // the latest unsettled one
}

TEST_CASE("parallel actions are never refused or marked as repeats") {
  gp::Session s;
  s.declare("cart.add",
            {.does = "Add.", .writes = {"cart"}, .handler = [](const json&) { return gp::HandlerResult{}; }});
  for (int i = 0; i < 3; ++i) CHECK(s.fire("cart.add").ok);
  for (const auto& t : s.view().transitions()) CHECK_FALSE(t.cause.repeat);
}

TEST_CASE("a once receipt belongs to the action id and survives unmounting and re-declaring") {
  gp::Session s;
  const auto spec = gp::ActionSpec{.does = "Send the invoice.",
                                   .handler = [](const json&) { return gp::HandlerResult{}; },
                                   .concurrency = gp::Concurrency::once};
  auto pane = s.declare("invoice.send", spec);
  REQUIRE(s.fire("invoice.send").ok);
  pane.undeclare();
  s.declare("invoice.send", spec);  // the pane opens again
  CHECK(s.fire("invoice.send").reason == "DUPLICATE_EXECUTION");
}
