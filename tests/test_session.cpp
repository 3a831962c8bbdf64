// gp::Session: refusal order, versions, settlement, inference, approvals, frozen `does`,
// handles and thread safety. The exact lines of the block are in test_ground_truth.cpp.
#include <atomic>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

gp::HandlerResult ok_handler(const json&) { return {}; }

// The block's attempt lines, bullet stripped.
std::vector<std::string> attempts(const gp::Session& s, gp::GroundTruthOptions o = {}) {
  std::vector<std::string> out;
  const std::string text = s.ground_truth(o).text;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    if (line.rfind("  • ", 0) == 0) out.push_back(line.substr(std::string("  • ").size()));
    start = end + 1;
  }
  return out;
}

gp::Outcome outcome_of(const gp::Session& s, const std::string& tid) { return s.view().transition(tid)->outcome; }

}  // namespace

// ---------------------------------------------------------------- refusals

TEST_CASE("a fire of an undeclared id is refused as UNKNOWN_AFFORDANCE and keeps no does") {
  gp::Session s;
  const auto r = s.fire("made.up");
  CHECK_FALSE(r.ok);
  CHECK(r.reason == "UNKNOWN_AFFORDANCE");
  CHECK(r.transition_id.empty());
  const auto v = s.view();
  REQUIRE(v.gap_rows().size() == 1);
  CHECK(v.gap_rows()[0].action == "made.up");
  CHECK_FALSE(v.gap_rows()[0].does.has_value());
  CHECK(v.transitions().empty());
}

TEST_CASE("an action declared without a handler is refused as NOT_MATERIALIZED") {
  gp::Session s;
  s.declare("tour.next", {.does = "Go to the next step."});
  const auto r = s.fire("tour.next");
  CHECK(r.reason == "NOT_MATERIALIZED");
  const auto v = s.view();
  REQUIRE(v.gap_rows().size() == 1);
  CHECK(v.gap_rows()[0].does == std::optional<std::string>("Go to the next step."));
}

TEST_CASE("refusal reasons are checked in the documented order") {
  gp::Session s({.require_human_approval = true});
  bool enabled = false, guard = false;
  const auto when = [&](const json&) { return enabled; };
  const auto grd = [&](const json&) { return guard; };
  s.declare("a.no-handler", {.does = "A.", .enabled_when = when, .guard = grd, .high_effect = true});
  s.declare("a.real", {.does = "A.", .handler = ok_handler, .enabled_when = when, .guard = grd, .high_effect = true});
  CHECK(s.fire("a.no-handler").reason == "NOT_MATERIALIZED");  // before TOOL_DISABLED
  CHECK(s.fire("a.real").reason == "TOOL_DISABLED");           // before GUARD_FAILED
  enabled = true;
  CHECK(s.fire("a.real").reason == "GUARD_FAILED");  // before APPROVAL_REQUIRED
  guard = true;
  CHECK(s.fire("a.real").reason == "APPROVAL_REQUIRED");
  const auto ask = s.confirm_ask("a.real", json{{"n", 1}});
  REQUIRE(s.decline_ask(ask.id, "pat"));
  // declined wins over a mismatched payload: APPROVAL_DECLINED is checked first
  CHECK(s.fire("a.real", {.payload = json{{"n", 2}}, .ask_id = ask.id}).reason == "APPROVAL_DECLINED");
  const auto ask2 = s.confirm_ask("a.real", json{{"n", 3}});
  REQUIRE(s.approve_ask(ask2.id, "pat"));
  REQUIRE(s.fire("a.real", {.payload = json{{"n", 3}}, .ask_id = ask2.id}).ok);
  // spent wins over a mismatched payload
  CHECK(s.fire("a.real", {.payload = json{{"n", 4}}, .ask_id = ask2.id}).reason == "APPROVAL_SPENT");
}

TEST_CASE("a disabled action is refused as TOOL_DISABLED") {
  gp::Session s;
  s.declare("cart.checkout", {.does = "Check out.", .handler = ok_handler, .enabled_when = [](const json& st) {
                                return st.value("items", 0) > 0;
                              }});
  CHECK(s.fire("cart.checkout").reason == "TOOL_DISABLED");
  s.report_state({{"items", 2}});
  CHECK(s.fire("cart.checkout").ok);
}

TEST_CASE("a failing guard is refused as GUARD_FAILED") {
  gp::Session s({.state = {{"paid", false}}});
  s.declare("order.ship", {.does = "Ship it.", .handler = ok_handler, .guard = [](const json& st) {
                             return st.at("paid").get<bool>();
                           }});
  CHECK(s.fire("order.ship").reason == "GUARD_FAILED");
  CHECK(s.view().gap_rows()[0].reason == gp::Refusal::guard_failed);
}

// ---------------------------------------------------------------- versions

TEST_CASE("a refusal never bumps the version") {
  gp::Session s;
  s.declare("x.off", {.does = "X.", .handler = ok_handler, .enabled_when = [](const json&) { return false; }});
  CHECK(s.version() == 0);
  s.fire("nope");
  s.fire("x.off");
  CHECK(s.version() == 0);
  const auto v = s.view();
  CHECK(v.gap_rows()[0].version == 0);
  CHECK(v.gap_rows()[1].version == 0);
}

TEST_CASE("a recorded fire takes its row's version and then bumps") {
  gp::Session s;
  s.declare("x.go", {.does = "X.", .handler = ok_handler});
  const auto a = s.fire("x.go");
  s.fire("nope");
  const auto b = s.fire("x.go");
  CHECK(s.version() == 2);
  const auto v = s.view();
  CHECK(v.transition(a.transition_id)->version == 0);
  CHECK(v.gap_rows()[0].version == 1);  // inside the window the second fire closes
  CHECK(v.transition(b.transition_id)->version == 1);
}

TEST_CASE("every fire writes exactly one row") {
  gp::Session s;
  s.declare("x.go", {.does = "X.", .handler = ok_handler});
  s.declare("x.bare", {.does = "Bare."});
  s.fire("x.go");
  s.fire("x.bare");
  s.fire("nope");
  s.fire("x.go");
  const auto v = s.view();
  CHECK(v.transitions().size() + v.gap_rows().size() == 4);
}

// ---------------------------------------------------------------- settlement and grading

TEST_CASE("an action with writes settles at the next report_state") {
  gp::Session s;
  s.declare("setup.set-name", {.does = "Set the name.", .writes = {"name"}, .handler = ok_handler});
  const auto r = s.fire("setup.set-name", {.payload = {{"name", "Ada"}}});
  CHECK(r.ok);
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::pending);
  REQUIRE(s.view().pending_fires().size() == 1);
  s.report_state({{"name", "Ada"}});
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::observed);
  CHECK(s.view().pending_fires().empty());
}

TEST_CASE("a report lacking the declared writes grades the fire not observed") {
  gp::Session s;
  s.declare("setup.set-name", {.does = "Set the name.", .writes = {"name"}, .handler = ok_handler});
  const auto r = s.fire("setup.set-name");
  s.report_state({{"other", 1}});
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::not_observed);
}

TEST_CASE("an action without writes settles when its handler returns") {
  gp::Session s;
  s.declare("help.open", {.does = "Open help.", .handler = ok_handler});
  const auto r = s.fire("help.open");
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::unobservable);
  CHECK(s.view().pending_fires().empty());
}

TEST_CASE("a report without a transition id settles the oldest pending fire") {
  gp::Session s;
  s.declare("a.set", {.does = "A.", .writes = {"a"}, .handler = ok_handler});
  s.declare("b.set", {.does = "B.", .writes = {"b"}, .handler = ok_handler});
  const auto a = s.fire("a.set");
  const auto b = s.fire("b.set");
  s.report_state({{"b", 1}});  // goes to the oldest pending fire, a.set, which it does not carry
  CHECK(outcome_of(s, a.transition_id) == gp::Outcome::not_observed);
  CHECK(outcome_of(s, b.transition_id) == gp::Outcome::pending);
  s.report_state({{"b", 2}});
  CHECK(outcome_of(s, b.transition_id) == gp::Outcome::observed);
}

TEST_CASE("a report naming a transition settles that fire") {
  gp::Session s;
  s.declare("a.set", {.does = "A.", .writes = {"a"}, .handler = ok_handler});
  s.declare("b.set", {.does = "B.", .writes = {"b"}, .handler = ok_handler});
  const auto a = s.fire("a.set");
  const auto b = s.fire("b.set");
  s.report_state({{"b", 1}}, b.transition_id);
  CHECK(outcome_of(s, a.transition_id) == gp::Outcome::pending);
  CHECK(outcome_of(s, b.transition_id) == gp::Outcome::observed);
}

TEST_CASE("a report naming an unknown transition is a configuration error and changes nothing") {
  gp::Session s({.state = {{"k", 1}}});
  CHECK_THROWS_AS(s.report_state({{"k", 2}}, "t-99"), gp::ConfigurationError);
  CHECK(s.state() == json{{"k", 1}});
}

TEST_CASE("a report for an already settled fire changes state but never history") {
  gp::Session s;
  s.declare("a.set", {.does = "A.", .writes = {"a"}, .handler = ok_handler});
  const auto a = s.fire("a.set");
  s.report_state({{"zzz", 1}}, a.transition_id);
  REQUIRE(outcome_of(s, a.transition_id) == gp::Outcome::not_observed);
  s.report_state({{"a", 1}}, a.transition_id);
  CHECK(outcome_of(s, a.transition_id) == gp::Outcome::not_observed);
  CHECK(s.state().at("a") == 1);
  CHECK(s.version() == 1);
}

TEST_CASE("report_state merges the delta as an RFC 7386 merge patch") {
  gp::Session s({.state = {{"cart", {{"items", 2}, {"coupon", "X"}}}, {"name", "Ada"}}});
  s.report_state({{"cart", {{"coupon", nullptr}, {"total", 10}}}, {"name", "Grace"}});
  CHECK(s.state() == json{{"cart", {{"items", 2}, {"total", 10}}}, {"name", "Grace"}});
}

TEST_CASE("a delta that is not an object or a state that is not an object is a configuration error") {
  gp::Session s;
  CHECK_THROWS_AS(s.report_state(json::array()), gp::ConfigurationError);
  CHECK_THROWS_AS(gp::Session({.state = 3}), gp::ConfigurationError);
}

TEST_CASE("verify false at settlement grades the fire did not happen even when the writes landed") {
  gp::Session s;
  s.declare("a.set", {.does = "A.", .writes = {"a"}, .handler = ok_handler, .verify = [](const json& st) {
                        return st.value("a", 0) == 42;
                      }});
  const auto r = s.fire("a.set");
  s.report_state({{"a", 1}});
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::verify_failed);
  const auto r2 = s.fire("a.set");
  s.report_state({{"a", 42}});
  CHECK(outcome_of(s, r2.transition_id) == gp::Outcome::observed);
}

TEST_CASE("verify false when a handler without writes returns grades the fire did not happen") {
  gp::Session s;
  s.declare("a.ping", {.does = "Ping.", .handler = ok_handler, .verify = [](const json&) { return false; }});
  const auto r = s.fire("a.ping");
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::verify_failed);
}

TEST_CASE("a handler returning ok false is graded as a handler failure") {
  gp::Session s;
  s.declare("a.set", {.does = "A.", .writes = {"a"}, .handler = [](const json&) {
                        return gp::HandlerResult{false, "db down"};
                      }});
  const auto r = s.fire("a.set");
  CHECK_FALSE(r.ok);
  CHECK(r.reason == "HANDLER_FAILED");
  REQUIRE_FALSE(r.transition_id.empty());
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::handler_failed);
  CHECK(s.view().transition(r.transition_id)->error == "db down");
  CHECK(s.view().pending_fires().empty());  // a failed fire awaits no report
}

TEST_CASE("a throwing handler is recorded as a failure before the exception reaches the caller") {
  gp::Session s({.require_human_approval = true});
  s.declare("a.set", {.does = "A.",
                      .writes = {"a"},
                      .handler = [](const json&) -> gp::HandlerResult { throw std::runtime_error("boom"); },
                      .high_effect = true});
  s.declare("b.go", {.does = "B.", .handler = ok_handler});
  const auto ask = s.confirm_ask("a.set");
  REQUIRE(s.approve_ask(ask.id, "pat"));
  CHECK_THROWS_WITH(s.fire("a.set", {.ask_id = ask.id}), "boom");
  {
    const auto v = s.view();
    REQUIRE(v.transitions().size() == 1);
    CHECK(v.transitions()[0].outcome == gp::Outcome::handler_failed);
    CHECK(v.transitions()[0].error == "boom");
    CHECK(v.pending_fires().empty());
    CHECK(v.ask(ask.id)->state == gp::AskState::spent);  // the approval was used by a real fire
  }
  CHECK(s.version() == 1);
  // the session is consistent and still usable: the lock was released, nothing is pending
  CHECK(s.fire("b.go").ok);
  s.report_state({{"a", 1}});
  CHECK(s.version() == 3);  // the delta was inferred as a user fire, not settled onto the failure
  CHECK(s.view().transitions()[0].outcome == gp::Outcome::handler_failed);
}

TEST_CASE("a handler may report its own effect while it runs") {
  gp::Session s;
  s.declare("a.set", {.does = "A.", .writes = {"a"}, .handler = [&](const json&) {
                        s.report_state({{"a", 1}});  // no id: its own fire is the oldest pending
                        return gp::HandlerResult{};
                      }});
  const auto r = s.fire("a.set");
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::observed);
}

TEST_CASE("a handler that reports its effect and then fails is graded a handler failure") {
  gp::Session s;
  s.declare("a.set", {.does = "A.", .writes = {"a"}, .handler = [&](const json&) {
                        s.report_state({{"a", 1}});
                        return gp::HandlerResult{false, "rolled back"};
                      }});
  const auto r = s.fire("a.set");
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::handler_failed);
}

TEST_CASE("a reported delta nobody fired is attributed by inference when exactly one action writes it") {
  gp::Session s;
  s.declare("setup.set-name", {.does = "Set the name.", .writes = {"name"}, .handler = ok_handler});
  s.declare("setup.pick-recipe", {.does = "Pick a recipe.", .writes = {"recipe"}, .handler = ok_handler});
  s.report_state({{"name", "Ada"}});
  const auto v = s.view();
  REQUIRE(v.transitions().size() == 1);
  const auto& t = v.transitions()[0];
  CHECK(t.outcome == gp::Outcome::inferred);
  CHECK(t.cause.action == "setup.set-name");
  CHECK(t.cause.principal == gp::Principal::user);
  CHECK(t.cause.does == std::optional<std::string>("Set the name."));
  CHECK(v.version() == 1);
}

TEST_CASE("a delta matching several actions or none is not attributed to anyone") {
  gp::Session s;
  s.declare("a.one", {.does = "One.", .writes = {"x"}, .handler = ok_handler});
  s.declare("a.two", {.does = "Two.", .writes = {"x"}, .handler = ok_handler});
  s.report_state({{"x", 1}});
  s.report_state({{"y", 1}});
  s.report_state(json::object());
  CHECK(s.view().transitions().empty());
  CHECK(s.version() == 0);
}

TEST_CASE("writes given as JSON Pointers are matched inside the delta") {
  gp::Session s;
  s.declare("cart.add", {.does = "Add.", .writes = {"/cart/items"}, .handler = ok_handler});
  const auto r = s.fire("cart.add");
  s.report_state({{"cart", {{"items", json::array({1})}}}});
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::observed);
  CHECK_THROWS_AS(s.declare("bad", {.does = "Bad.", .writes = {"/a~2"}}), gp::ConfigurationError);
}

TEST_CASE("a fire with no handler is recorded as nothing ran when unmaterialized fires are allowed") {
  gp::Session s({.allow_unmaterialized_fires = true});
  s.declare("tour.next", {.does = "Next step.", .writes = {"step"}});
  const auto r = s.fire("tour.next");
  CHECK(r.ok);
  CHECK(outcome_of(s, r.transition_id) == gp::Outcome::not_materialized);
  CHECK(s.view().pending_fires().empty());
  CHECK(s.version() == 1);
}

// ---------------------------------------------------------------- approvals

namespace {
struct Shop {
  gp::Session s{{.require_human_approval = true}};
  int placed = 0;
  Shop() {
    s.declare("checkout.place-order", {.does = "Place the order.",
                                       .handler =
                                           [this](const json&) {
                                             ++placed;
                                             return gp::HandlerResult{};
                                           },
                                       .high_effect = true});
    s.declare("cart.clear", {.does = "Empty the cart.", .handler = ok_handler, .high_effect = true});
  }
};
const std::string refused_line = "did NOT happen — agent's fire of checkout.place-order was refused: ";
}  // namespace

TEST_CASE("a high-effect agent fire with no ask is refused as APPROVAL_REQUIRED and lands in the block") {
  Shop shop;
  CHECK(shop.s.fire("checkout.place-order").reason == "APPROVAL_REQUIRED");
  CHECK(shop.placed == 0);
  CHECK(attempts(shop.s) == std::vector<std::string>{refused_line + "APPROVAL_REQUIRED"});
}

TEST_CASE("an invented ask id is refused as APPROVAL_REQUIRED") {
  Shop shop;
  CHECK(shop.s.fire("checkout.place-order", {.ask_id = "ask-1"}).reason == "APPROVAL_REQUIRED");
  CHECK(attempts(shop.s) == std::vector<std::string>{refused_line + "APPROVAL_REQUIRED"});
}

TEST_CASE("an ask still awaiting the human is refused as APPROVAL_REQUIRED") {
  Shop shop;
  const auto ask = shop.s.confirm_ask("checkout.place-order");
  CHECK(shop.s.fire("checkout.place-order", {.ask_id = ask.id}).reason == "APPROVAL_REQUIRED");
  CHECK(shop.placed == 0);
}

TEST_CASE("an approved ask allows exactly one fire and a replay is refused as APPROVAL_SPENT") {
  Shop shop;
  const json input = {{"sku", "A1"}, {"qty", 2}};
  const auto ask = shop.s.confirm_ask("checkout.place-order", input);
  CHECK(ask.action == "checkout.place-order");
  REQUIRE(shop.s.approve_ask(ask.id, "pat"));
  const auto first = shop.s.fire("checkout.place-order", {.payload = input, .ask_id = ask.id});
  CHECK(first.ok);
  const auto replay = shop.s.fire("checkout.place-order", {.payload = input, .ask_id = ask.id});
  CHECK(replay.reason == "APPROVAL_SPENT");
  CHECK(shop.placed == 1);
  CHECK(shop.s.view().ask(ask.id)->spent_by == first.transition_id);
  CHECK(shop.s.view().transition(first.transition_id)->cause.ask_id == ask.id);
  CHECK(attempts(shop.s).back() == refused_line + "APPROVAL_SPENT");
}

TEST_CASE("an approval for another action is refused as APPROVAL_MISMATCH") {
  Shop shop;
  const auto ask = shop.s.confirm_ask("cart.clear");
  REQUIRE(shop.s.approve_ask(ask.id, "pat"));
  CHECK(shop.s.fire("checkout.place-order", {.ask_id = ask.id}).reason == "APPROVAL_MISMATCH");
  CHECK(shop.placed == 0);
  CHECK(attempts(shop.s) == std::vector<std::string>{refused_line + "APPROVAL_MISMATCH"});
  // the approval is untouched and still usable for what was asked
  CHECK(shop.s.fire("cart.clear", {.ask_id = ask.id}).ok);
}

TEST_CASE("a payload that differs from the approved input is refused as APPROVAL_MISMATCH") {
  Shop shop;
  const auto ask = shop.s.confirm_ask("checkout.place-order", {{"total", 10}});
  REQUIRE(shop.s.approve_ask(ask.id, "pat"));
  CHECK(shop.s.fire("checkout.place-order", {.payload = {{"total", 10000}}, .ask_id = ask.id}).reason ==
        "APPROVAL_MISMATCH");
  CHECK(shop.s.fire("checkout.place-order", {.ask_id = ask.id}).reason == "APPROVAL_MISMATCH");
  CHECK(shop.placed == 0);
  CHECK(attempts(shop.s) ==
        std::vector<std::string>{refused_line + "APPROVAL_MISMATCH", refused_line + "APPROVAL_MISMATCH"});
}

TEST_CASE("mutating the asked input after approval does not move the approval") {
  Shop shop;
  json input = {{"total", 10}};
  const auto ask = shop.s.confirm_ask("checkout.place-order", input);
  REQUIRE(shop.s.approve_ask(ask.id, "pat"));
  input["total"] = 10000;  // the caller's object, changed after the human said yes
  CHECK(shop.s.fire("checkout.place-order", {.payload = input, .ask_id = ask.id}).reason == "APPROVAL_MISMATCH");
  CHECK(shop.s.view().ask(ask.id)->input == json{{"total", 10}});
  CHECK(shop.placed == 0);
  CHECK(attempts(shop.s) == std::vector<std::string>{refused_line + "APPROVAL_MISMATCH"});
  CHECK(shop.s.fire("checkout.place-order", {.payload = {{"total", 10}}, .ask_id = ask.id}).ok);
}

TEST_CASE("approval compares payloads structurally regardless of key order") {
  Shop shop;
  const auto ask = shop.s.confirm_ask("checkout.place-order", json::parse(R"({"a":1,"b":{"c":[1,2],"d":"x"}})"));
  REQUIRE(shop.s.approve_ask(ask.id, "pat"));
  CHECK(shop.s
            .fire("checkout.place-order",
                  {.payload = json::parse(R"({"b":{"d":"x","c":[1,2]},"a":1})"), .ask_id = ask.id})
            .ok);
}

TEST_CASE("a declined ask is refused as APPROVAL_DECLINED and the decline is terminal") {
  Shop shop;
  const auto ask = shop.s.confirm_ask("checkout.place-order");
  REQUIRE(shop.s.decline_ask(ask.id, "pat"));
  CHECK(shop.s.fire("checkout.place-order", {.ask_id = ask.id}).reason == "APPROVAL_DECLINED");
  const auto again = shop.s.approve_ask(ask.id, "pat");
  CHECK_FALSE(again.ok);
  CHECK(again.reason == "ALREADY_DECLINED");
  CHECK(shop.s.fire("checkout.place-order", {.ask_id = ask.id}).reason == "APPROVAL_DECLINED");
  CHECK(shop.placed == 0);
  CHECK(attempts(shop.s).back() == refused_line + "APPROVAL_DECLINED");
}

TEST_CASE("each ask is answered once and unknown asks are reported as such") {
  Shop shop;
  const auto ask = shop.s.confirm_ask("checkout.place-order");
  CHECK(shop.s.approve_ask(ask.id, "pat").ok);
  CHECK(shop.s.approve_ask(ask.id, "pat").reason == "ALREADY_APPROVED");
  CHECK(shop.s.approve_ask("ask-404", "pat").reason == "UNKNOWN_ASK");
  CHECK(shop.s.decline_ask("ask-404", "pat").reason == "UNKNOWN_ASK");
  REQUIRE(shop.s.fire("checkout.place-order", {.ask_id = ask.id}).ok);
  CHECK(shop.s.decline_ask(ask.id, "pat").reason == "ALREADY_SPENT");
  CHECK(shop.s.approve_ask(ask.id, "pat").reason == "ALREADY_SPENT");
}

TEST_CASE("an approval nothing has used yet can be withdrawn by a decline") {
  Shop shop;
  const auto ask = shop.s.confirm_ask("checkout.place-order");
  REQUIRE(shop.s.approve_ask(ask.id, "pat"));
  REQUIRE(shop.s.decline_ask(ask.id, "pat"));
  CHECK(shop.s.fire("checkout.place-order", {.ask_id = ask.id}).reason == "APPROVAL_DECLINED");
}

TEST_CASE("asking again for the same action and input returns the open ask") {
  Shop shop;
  const auto a = shop.s.confirm_ask("checkout.place-order", {{"n", 1}});
  const auto b = shop.s.confirm_ask("checkout.place-order", {{"n", 1}});
  const auto c = shop.s.confirm_ask("checkout.place-order", {{"n", 2}});
  CHECK(a.id == b.id);
  CHECK(a.id != c.id);
  REQUIRE(shop.s.decline_ask(a.id, "pat"));
  CHECK(shop.s.confirm_ask("checkout.place-order", {{"n", 1}}).id != a.id);  // a new card after a no
  CHECK(shop.s.view().asks().size() == 3);
}

TEST_CASE("asking about an action that is not declared is a configuration error") {
  gp::Session s;
  CHECK_THROWS_AS(s.confirm_ask("nope"), gp::ConfigurationError);
}

TEST_CASE("user and system fires of a high-effect action are not gated") {
  Shop shop;
  CHECK(shop.s.fire("checkout.place-order", {.source = gp::Principal::user}).ok);
  CHECK(shop.s.fire("checkout.place-order", {.source = gp::Principal::system}).ok);
  CHECK(shop.placed == 2);
}

TEST_CASE("high-effect fires are not gated unless the session requires human approval") {
  gp::Session s;
  s.declare("checkout.place-order", {.does = "Place.", .handler = ok_handler, .high_effect = true});
  CHECK(s.fire("checkout.place-order").ok);
}

TEST_CASE("approval is enforced under concurrent fires so one yes allows one fire") {
  Shop shop;
  const auto ask = shop.s.confirm_ask("checkout.place-order");
  REQUIRE(shop.s.approve_ask(ask.id, "pat"));
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      if (shop.s.fire("checkout.place-order", {.ask_id = ask.id}).ok) ++ok;
    });
  for (auto& t : threads) t.join();
  CHECK(ok == 1);
  CHECK(shop.placed == 1);
  CHECK(shop.s.view().gap_rows().size() == 7);
}

// ---------------------------------------------------------------- does, frozen at minting

TEST_CASE("an unmounted action keeps its name and does in history") {
  gp::Session s;
  auto send = s.declare("inbox.compose.send", {.does = "Send the message", .handler = ok_handler});
  s.fire("inbox.compose.send");
  send.undeclare();  // the compose pane closes
  CHECK_FALSE(send.mounted());
  CHECK(s.view().transitions()[0].cause.does == std::optional<std::string>("Send the message"));
  CHECK(attempts(s) ==
        std::vector<std::string>{"ran, but the effect was unobservable — agent fired inbox.compose.send (committed)"});
  CHECK(s.availability("inbox.compose.send") == gp::Availability::not_mounted);
  CHECK(s.fire("inbox.compose.send").reason == "UNKNOWN_AFFORDANCE");
}

TEST_CASE("re-declaring an id with new wording does not rewrite history") {
  gp::Session s({.require_human_approval = true});
  s.declare("a.go", {.does = "Old wording.",
                     .writes = {"k"},
                     .handler = ok_handler,
                     .enabled_when = [](const json& st) { return !st.contains("off"); },
                     .high_effect = true});
  const auto ask = s.confirm_ask("a.go");
  const auto pending = s.fire("a.go", {.source = gp::Principal::user});
  auto work = s.begin_work("label", pending.transition_id);
  s.report_state({{"off", true}}, pending.transition_id);
  s.fire("a.go");  // TOOL_DISABLED
  s.declare("a.go", {.does = "New wording.", .handler = ok_handler});
  const auto v = s.view();
  CHECK(v.transitions()[0].cause.does == std::optional<std::string>("Old wording."));
  CHECK(v.gap_rows()[0].does == std::optional<std::string>("Old wording."));
  CHECK(v.ask(ask.id)->does == std::optional<std::string>("Old wording."));
  CHECK(v.work()[0].does == std::optional<std::string>("Old wording."));
}

TEST_CASE("pending info carries the does captured when the fire was recorded") {
  gp::Session s;
  s.declare("a.set", {.does = "Set A.", .writes = {"a"}, .handler = ok_handler});
  s.fire("a.set");
  s.undeclare("a.set");
  const auto v = s.view();
  const auto pending = v.pending_fires();
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].action == "a.set");
  CHECK(pending[0].does == std::optional<std::string>("Set A."));
  CHECK(pending[0].transition_id == "t-1");
  CHECK(pending[0].version == 0);
}

TEST_CASE("a row is not backfilled when its action mounts later") {
  gp::Session s;
  s.fire("late.action");
  s.declare("late.action", {.does = "Arrived late.", .handler = ok_handler});
  CHECK_FALSE(s.view().gap_rows()[0].does.has_value());
  CHECK(attempts(s) ==
        std::vector<std::string>{"did NOT happen — agent's fire of (an action this app does not have) was refused: "
                                 "UNKNOWN_AFFORDANCE"});
}

// ---------------------------------------------------------------- handles

TEST_CASE("dropping an action handle does not unmount the action") {
  gp::Session s;
  { (void)s.declare("a.go", {.does = "Go.", .handler = ok_handler}); }
  CHECK(s.fire("a.go").ok);
}

TEST_CASE("an action handle unmounts only its own declaration") {
  gp::Session s;
  auto first = s.declare("a.go", {.does = "First.", .handler = ok_handler});
  auto second = s.declare("a.go", {.does = "Second.", .handler = ok_handler});
  first.undeclare();
  CHECK(second.mounted());
  CHECK(s.fire("a.go").ok);
  second.undeclare();
  CHECK(s.fire("a.go").reason == "UNKNOWN_AFFORDANCE");
}

TEST_CASE("handles outliving their session are harmless") {
  gp::ActionHandle action;
  std::optional<gp::WorkHandle> work;
  {
    gp::Session s;
    action = s.declare("a.go", {.does = "Go.", .handler = ok_handler});
    work.emplace(s.begin_work("w"));
  }
  CHECK_FALSE(action.mounted());
  action.undeclare();
  work->done();
  work.reset();
}

TEST_CASE("a work handle closes its work when done or destroyed and done is idempotent") {
  gp::Session s;
  s.declare("a.go", {.does = "Go.", .handler = ok_handler});
  const auto r = s.fire("a.go");
  {
    auto bound = s.begin_work("syncing", r.transition_id);
    auto unbound = s.begin_work();
    CHECK(s.view().work().size() == 2);
    CHECK(s.view().work()[0].action == "a.go");
    unbound.done();
    unbound.done();
    CHECK_FALSE(s.view().work()[1].open);
    CHECK(s.view().work()[0].open);
  }
  CHECK_FALSE(s.view().work()[0].open);
}

TEST_CASE("work bound to a transition that was never recorded is a configuration error") {
  gp::Session s;
  CHECK_THROWS_AS((void)s.begin_work("x", "t-1"), gp::ConfigurationError);
}

TEST_CASE("an empty or malformed JSON Pointer in reads is a configuration error") {
  gp::Session s;
  CHECK_THROWS_AS(s.declare("a.go", {.does = "Go.", .handler = ok_handler, .reads = {""}}), gp::ConfigurationError);
  CHECK_THROWS_AS(s.declare("a.go", {.does = "Go.", .handler = ok_handler, .reads = {"/cart/~2"}}),
                  gp::ConfigurationError);
  CHECK_NOTHROW(s.declare("a.go", {.does = "Go.", .handler = ok_handler, .reads = {"cart", "/shipping/address"}}));
}

TEST_CASE("a handler's report without an id never settles another fire nor infers one") {
  gp::Session s;
  s.declare("a.sync", {.does = "Sync.", .writes = {"a"}, .handler = ok_handler});
  s.declare("b.sync", {.does = "Sync.", .writes = {"b"}, .handler = ok_handler});
  const auto waiting = s.fire("a.sync");  // the oldest fire awaiting a report
  // A handler without writes reports b's key: it is about its own fire, which has
  // nothing to settle, so it neither settles a.sync nor is read as a user's b.sync.
  s.declare("c.run", {.does = "Run.", .handler = [&s](const json&) {
                        s.report_state({{"a", 1}, {"b", 1}});
                        return gp::HandlerResult{};
                      }});
  REQUIRE(s.fire("c.run").ok);
  CHECK(outcome_of(s, waiting.transition_id) == gp::Outcome::pending);
  CHECK(s.view().transitions().size() == 2);
  CHECK(s.state() == json{{"a", 1}, {"b", 1}});
  s.report_state({{"a", 2}});  // outside any handler: the oldest pending, as before
  CHECK(outcome_of(s, waiting.transition_id) == gp::Outcome::observed);
}

TEST_CASE("declaring an empty id or an action without its does sentence is a configuration error") {
  gp::Session s;
  CHECK_THROWS_AS(s.declare("", {.does = "X."}), gp::ConfigurationError);
  CHECK_THROWS_AS(s.declare("a.go", {.does = ""}), gp::ConfigurationError);
  CHECK_THROWS_AS(s.declare("a.go", {.does = "X.", .writes = {""}}), gp::ConfigurationError);
}

TEST_CASE("availability tells served from disabled from unmounted from unknown") {
  gp::Session s;
  s.declare("a.on", {.does = "On.", .handler = ok_handler});
  s.declare("a.off", {.does = "Off.", .handler = ok_handler, .enabled_when = [](const json&) { return false; }});
  auto gone = s.declare("a.gone", {.does = "Gone."});
  gone.undeclare();
  CHECK(s.availability("a.on") == gp::Availability::available);
  CHECK(s.availability("a.off") == gp::Availability::disabled);
  CHECK(s.availability("a.gone") == gp::Availability::not_mounted);
  CHECK(s.availability("a.never") == gp::Availability::unknown);
  const auto list = s.actions();
  REQUIRE(list.size() == 2);
  CHECK(list[0].id == "a.on");
  CHECK(list[1].id == "a.off");
  CHECK_FALSE(list[1].enabled);
}

// ---------------------------------------------------------------- thread safety

TEST_CASE("a predicate calling back into the session throws a configuration error instead of deadlocking") {
  gp::Session s;
  s.declare("a.go", {.does = "Go.", .handler = ok_handler, .guard = [&](const json&) { return s.version() == 0; }});
  CHECK_THROWS_AS(s.fire("a.go"), gp::ConfigurationError);
  CHECK(s.version() == 0);  // and the session is still usable
}

TEST_CASE("calling the session while a view is alive on the same thread throws a configuration error") {
  gp::Session s;
  const auto v = s.view();
  CHECK_THROWS_AS(s.fire("x"), gp::ConfigurationError);
}

TEST_CASE("concurrent fires and reports keep one row per attempt and distinct versions") {
  gp::Session s;
  s.declare("a.set", {.does = "A.", .writes = {"a"}, .handler = ok_handler});
  s.declare("b.off", {.does = "B.", .handler = ok_handler, .enabled_when = [](const json&) { return false; }});
  constexpr int per_thread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        if (t % 2 == 0) s.fire("a.set");
        else s.fire("b.off");
        if (i % 10 == 0) (void)s.ground_truth();
      }
    });
  for (auto& th : threads) th.join();
  const auto v = s.view();
  CHECK(v.transitions().size() == 2 * per_thread);
  CHECK(v.gap_rows().size() == 2 * per_thread);
  std::set<std::uint64_t> versions;
  for (const auto& t : v.transitions()) versions.insert(t.version);
  CHECK(versions.size() == v.transitions().size());
  CHECK(v.version() == 2 * per_thread);
}

// ---------------------------------------------------------------- read access by copy

TEST_CASE("the session hands out copies of every row type for the seed's read access") {
  gp::Session s({.require_human_approval = true});
  auto pane = s.declare("inbox.compose.send",
                        {.does = "Send the message", .writes = {"sent"}, .handler = ok_handler, .high_effect = true});
  s.fire("inbox.compose.send");  // APPROVAL_REQUIRED
  const auto ask = s.confirm_ask("inbox.compose.send", {{"to", "ada"}});
  const auto r = s.fire("inbox.compose.send", {.source = gp::Principal::user});
  auto work = s.begin_work("sending", r.transition_id);
  pane.undeclare();  // the compose pane closes
  CHECK(s.transitions()[0].cause.does == std::optional<std::string>("Send the message"));
  CHECK(s.gap_rows()[0].does == std::optional<std::string>("Send the message"));
  CHECK(s.asks()[0].does == std::optional<std::string>("Send the message"));
  CHECK(s.asks()[0].id == ask.id);
  CHECK(s.pending_fires()[0].does == std::optional<std::string>("Send the message"));
  CHECK(s.work()[0].does == std::optional<std::string>("Send the message"));
  // copies: no lock is held afterwards, so the session stays callable while they live
  const auto ts = s.transitions();
  CHECK(s.fire("x").reason == "UNKNOWN_AFFORDANCE");
  CHECK(ts.size() == 1);
  CHECK_FALSE(s.gap_rows()[1].does.has_value());
}
