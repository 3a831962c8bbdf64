// What came of a fire: data a handler hands back (HandlerResult::data), the answer to
// "did it work?" (Session::outcome, the did_it_work tool) for every kind of id, and the
// app saying a pending fire failed (Session::reject).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/action_data.hpp"
#include "groundplane/agent_port.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

gp::HandlerResult ok_handler(const json&) { return {}; }

// A quote action: settles within the call (no writes) and hands back its price.
gp::HandlerResult quote(const json& p) {
  return {.data = {{"sku", p.is_object() ? p.value("sku", "") : ""}, {"price", "12.50"}}};
}

// Declares the shapes every answer below comes from.
void declare_shop(gp::Session& s) {
  s.declare("cart.quote", {.does = "Quote an item.", .handler = quote});
  s.declare("cart.add", {.does = "Add an item to the cart.", .writes = {"cart"}, .handler = ok_handler});
  s.declare("cart.fail", {.does = "Always fails.", .handler = [](const json&) {
                            return gp::HandlerResult{.ok = false, .error = "out of stock", .data = {{"x", 1}}};
                          }});
  s.declare("order.place", {.does = "Place the order.",
                            .writes = {"order"},
                            .handler = ok_handler,
                            .high_effect = true,
                            .concurrency = gp::Concurrency::once});
}

}  // namespace

TEST_CASE("a settled fire answers did yes, no or unknown with the block's own line for it") {
  gp::Session s;
  declare_shop(s);
  s.declare("note", {.does = "Keep a note.", .handler = ok_handler});
  const auto added = s.fire("cart.add");
  s.report_state({{"cart", json::array({"A1"})}}, added.transition_id);
  const auto failed = s.fire("cart.fail");
  const auto noted = s.fire("note");

  const json yes = s.outcome(added.transition_id);
  CHECK(yes["ok"] == true);
  CHECK(yes["settled"] == true);
  CHECK(yes["did"] == "yes");
  const std::string block = s.ground_truth().text;
  CHECK(block.find(std::string(gp::attempt_bullet) + yes["line"].get<std::string>()) != std::string::npos);

  const json no = s.outcome(failed.transition_id);
  CHECK(no["did"] == "no");
  CHECK(no["line"].get<std::string>().rfind("did NOT happen", 0) == 0);
  CHECK_FALSE(no.contains("data"));  // data only from a handler that succeeded

  const json unknown = s.outcome(noted.transition_id);
  CHECK(unknown["did"] == "unknown");
  CHECK(unknown["line"].get<std::string>().rfind("ran, but", 0) == 0);
}

TEST_CASE("a pending fire answers settled false, its line, and a message not to fire again") {
  gp::Session s;
  declare_shop(s);
  const auto r = s.fire("cart.add");
  const json a = s.outcome(r.transition_id);
  CHECK(a["ok"] == true);
  CHECK(a["settled"] == false);
  CHECK(a["line"].get<std::string>().rfind("not yet known", 0) == 0);
  CHECK(a["message"].get<std::string>().find("Do not fire the action again") != std::string::npos);
  CHECK_FALSE(a.contains("did"));
}

TEST_CASE("an ask id answers its state, stale when its yes no longer fits, and the fire a spent one authorized") {
  gp::Session s({.require_human_approval = true, .approval_ttl = std::chrono::milliseconds(1000), .clock = [] {
                   return std::chrono::system_clock::time_point{};
                 }});
  declare_shop(s);
  const auto awaiting = s.confirm_ask("order.place", {{"n", 1}});
  CHECK(s.outcome(awaiting.id) == json{{"ok", true}, {"ask", "awaiting"}});
  const auto declined = s.confirm_ask("order.place", {{"n", 2}});
  REQUIRE(s.decline_ask(declined.id, "pat").ok);
  CHECK(s.outcome(declined.id)["ask"] == "declined");
  const auto revoked = s.confirm_ask("order.place", {{"n", 3}});
  REQUIRE(s.approve_ask(revoked.id, "pat").ok);
  CHECK(s.outcome(revoked.id)["ask"] == "approved");
  REQUIRE(s.revoke_ask(revoked.id, "pat").ok);
  CHECK(s.outcome(revoked.id)["ask"] == "revoked");
  REQUIRE(s.approve_ask(awaiting.id, "pat").ok);
  const auto fired = s.fire("order.place", {.payload = {{"n", 1}}, .ask_id = awaiting.id});
  REQUIRE(fired.ok);
  CHECK(s.outcome(awaiting.id) == json{{"ok", true}, {"ask", "spent"}, {"transition_id", fired.transition_id}});
}

TEST_CASE("an approved ask whose approval has aged past its ttl answers stale") {
  auto now = std::chrono::system_clock::time_point{};
  gp::Session s({.require_human_approval = true, .approval_ttl = std::chrono::milliseconds(1000), .clock = [&now] {
                   return now;
                 }});
  declare_shop(s);
  const auto ask = s.confirm_ask("order.place");
  REQUIRE(s.approve_ask(ask.id, "pat").ok);
  CHECK(s.outcome(ask.id)["ask"] == "approved");
  now += std::chrono::milliseconds(1001);
  CHECK(s.outcome(ask.id)["ask"] == "stale");
}

TEST_CASE("an id the session never issued answers UNKNOWN_TRANSITION with what is pending and awaiting a person") {
  gp::Session s({.require_human_approval = true});
  declare_shop(s);
  const auto pending = s.fire("cart.add");
  const auto ask = s.confirm_ask("order.place");
  for (const std::string id : {"t-99", "t-0", "t-01", "ask-7", "", "T-1", "t-1x", "transition 1"}) {
    CAPTURE(id);
    const json a = s.outcome(id);
    CHECK(a["ok"] == false);
    CHECK(a["reason"] == "UNKNOWN_TRANSITION");
    CHECK(a["pending"] == json::array({{{"transition_id", pending.transition_id}, {"action", "cart.add"}}}));
    CHECK(a["awaiting_human"] == json::array({{{"ask_id", ask.id}, {"action", "order.place"}}}));
  }
}

TEST_CASE("a row let go of under max_rows_in_memory answers NO_LONGER_HELD without a store, never UNKNOWN") {
  gp::Session s({.max_rows_in_memory = 4});
  s.declare("note", {.does = "Keep a note.", .handler = quote});
  const auto first = s.fire("note");
  for (int i = 0; i < 20; ++i) s.fire("note");
  {
    const auto v = s.view();
    REQUIRE_FALSE(v.transition(first.transition_id).has_value());
  }
  const json a = s.outcome(first.transition_id);
  CHECK(a["ok"] == false);
  CHECK(a["reason"] == "NO_LONGER_HELD");
  CHECK(a["message"].is_string());
}

TEST_CASE("data a handler hands back is served by do_action when the fire settles in the call, never in the block") {
  gp::Session s;
  declare_shop(s);
  gp::AgentPort port(s);
  const auto r = port.call("do_action", {{"action", "cart.quote"}, {"input", {{"sku", "A1"}}}});
  CHECK(r["ok"] == true);
  CHECK(r["data"] == json{{"sku", "A1"}, {"price", "12.50"}});
  CHECK_FALSE(r.contains("settle_with"));
  CHECK(s.outcome(r["transition_id"].get<std::string>())["data"] == json{{"sku", "A1"}, {"price", "12.50"}});
  CHECK(s.ground_truth().text.find("12.50") == std::string::npos);
  CHECK(r["facts"].get<std::string>().find("12.50") == std::string::npos);

  const auto failed = port.call("do_action", {{"action", "cart.fail"}});
  CHECK(failed["ok"] == false);
  CHECK_FALSE(failed.contains("data"));
}

TEST_CASE("a pending do_action result says to settle with did_it_work, which answers it once it settles") {
  gp::Session s;
  declare_shop(s);
  gp::AgentPort port(s);
  const auto r = port.call("do_action", {{"action", "cart.add"}});
  const std::string id = r["transition_id"];
  CHECK(r["settle_with"] == json{{"tool", "did_it_work"}, {"transition_id", id}});
  const auto before = port.call("did_it_work", {{"transition_id", id}});
  CHECK(before["settled"] == false);
  CHECK(before.json().contains("facts"));
  s.report_state({{"cart", json::array({"A1"})}}, id);
  const auto after = port.call("did_it_work", {{"transition_id", id}});
  CHECK(after["settled"] == true);
  CHECK(after["did"] == "yes");
  CHECK(after.dump().rfind("{\"facts\":", 0) == 0);
}

TEST_CASE("did_it_work refuses arguments that name no id without an exception") {
  gp::Session s;
  gp::AgentPort port(s);
  for (const json& args :
       {json(nullptr), json::array(), json::object(), json{{"transition_id", 7}}, json{{"transition_id", ""}}}) {
    CAPTURE(args.dump());
    const auto r = port.call("did_it_work", args);
    CHECK(r["ok"] == false);
    CHECK(r["reason"] == "INVALID_ARGUMENTS");
  }
}

TEST_CASE("data over max_data_bytes is not served: the answer gives its size instead") {
  gp::Session s({.max_data_bytes = 16});
  s.declare("search", {.does = "Search.", .handler = [](const json&) {
                         return gp::HandlerResult{.data = json::array({"a long result string"})};
                       }});
  s.declare("small",
            {.does = "Small.", .handler = [](const json&) { return gp::HandlerResult{.data = "0123456789abcd"}; }});
  gp::AgentPort port(s);
  const auto big = port.call("do_action", {{"action", "search"}});
  CHECK_FALSE(big.contains("data"));
  CHECK(big["data_omitted"] == json{{"bytes", json::array({"a long result string"}).dump().size()}});
  const auto fits = port.call("do_action", {{"action", "small"}});  // "0123456789abcd" is exactly 16 bytes
  CHECK(fits["data"] == "0123456789abcd");
}

TEST_CASE("record_action_data records the data as a fact whose provenance is the fire") {
  gp::Session s;
  declare_shop(s);
  gp::FactRegistry registry;
  const auto r = s.fire("cart.quote", {.payload = {{"sku", "A1"}}});
  const gp::Fact& f = gp::record_action_data(registry, "quote", s, r.transition_id);
  CHECK(f.value() == json{{"sku", "A1"}, {"price", "12.50"}});
  CHECK(f.provenance().render() == "cart.quote(transition='" + r.transition_id + "')");

  const auto failed = s.fire("cart.fail");
  CHECK_THROWS_AS(gp::record_action_data(registry, "f", s, failed.transition_id), gp::ConfigurationError);
  CHECK_THROWS_AS(gp::record_action_data(registry, "u", s, "t-99"), gp::ConfigurationError);
  const auto pending = s.fire("cart.add");
  CHECK_THROWS_AS(gp::record_action_data(registry, "p", s, pending.transition_id), gp::ConfigurationError);
}

TEST_CASE("reject settles a pending fire as did NOT happen and keeps its code off the block") {
  gp::Session s;
  declare_shop(s);
  const auto r = s.fire("cart.add");
  REQUIRE(s.pending_fires().size() == 1);
  CHECK(s.reject(r.transition_id, "card_declined_7731"));
  CHECK(s.pending_fires().empty());
  const auto t = s.view().transition(r.transition_id);
  REQUIRE(t.has_value());
  CHECK(t->outcome == gp::Outcome::rejected);
  CHECK(t->error == "card_declined_7731");
  const std::string block = s.ground_truth().text;
  CHECK(block.find("did NOT happen — agent fired cart.add (the app reported it failed)") != std::string::npos);
  CHECK(block.find("card_declined_7731") == std::string::npos);
  CHECK(s.outcome(r.transition_id)["did"] == "no");
  // A report for it afterwards changes the state, never the history.
  s.report_state({{"cart", json::array({"A1"})}}, r.transition_id);
  CHECK(s.view().transition(r.transition_id)->outcome == gp::Outcome::rejected);
}

TEST_CASE("reject returns false and changes nothing for a settled or unknown fire") {
  gp::Session s;
  declare_shop(s);
  const auto quoted = s.fire("cart.quote");
  const auto failed = s.fire("cart.fail");
  const std::string before = s.ground_truth().text;
  CHECK_FALSE(s.reject(quoted.transition_id));
  CHECK_FALSE(s.reject(failed.transition_id));
  CHECK_FALSE(s.reject("t-99"));
  CHECK_FALSE(s.reject("ask-1"));
  CHECK_FALSE(s.reject(""));
  CHECK(s.ground_truth().text == before);
  const auto added = s.fire("cart.add");
  REQUIRE(s.reject(added.transition_id));
  CHECK_FALSE(s.reject(added.transition_id));  // the second time it is settled
}

TEST_CASE("rejecting a once action's fire withdraws its receipt: the agent may fire it again") {
  gp::Session s;
  declare_shop(s);
  s.declare("pay", {.does = "Pay.", .writes = {"paid"}, .handler = ok_handler, .concurrency = gp::Concurrency::once});
  const auto first = s.fire("pay");
  REQUIRE(first.ok);
  CHECK(s.fire("pay").reason == "PRIOR_FIRE_PENDING");
  REQUIRE(s.reject(first.transition_id));
  const auto second = s.fire("pay");
  CHECK(second.ok);
  s.report_state({{"paid", true}}, second.transition_id);
  CHECK(s.fire("pay").reason == "DUPLICATE_EXECUTION");  // the one that happened holds it
}

TEST_CASE("a fire rejected while its handler runs is not graded again when the handler returns") {
  gp::Session s;
  s.declare("self_reject", {.does = "Rejects itself.", .handler = [&](const json&) {
                              const std::size_t fired = s.view().attempts();  // this fire is the only one
                              const bool done = s.reject("t-" + std::to_string(fired));
                              return gp::HandlerResult{.ok = done};
                            }});
  const auto r = s.fire("self_reject");
  CHECK_FALSE(r.ok);
  CHECK(r.reason == "REJECTED");
  CHECK(s.view().transition(r.transition_id)->outcome == gp::Outcome::rejected);
  CHECK(s.outcome(r.transition_id)["did"] == "no");
}

TEST_CASE("a fire whose handler is still running is pending in UNKNOWN_TRANSITION, with or without declared writes") {
  gp::Session s;
  declare_shop(s);
  json inside_quote, inside_add;
  s.declare("slow.quote", {.does = "Quote slowly.", .handler = [&](const json&) {
                             inside_quote = s.outcome("t-99");  // its own fire is running: not settled
                             return gp::HandlerResult{};
                           }});
  s.declare("slow.add", {.does = "Add slowly.", .writes = {"cart"}, .handler = [&](const json&) {
                           inside_add = s.outcome("t-99");
                           return gp::HandlerResult{};
                         }});
  const auto waiting = s.fire("cart.add");  // handler returned, awaiting the app's report
  const auto quoted = s.fire("slow.quote");
  REQUIRE(quoted.ok);
  CHECK(inside_quote["reason"] == "UNKNOWN_TRANSITION");
  // The running fire declares no writes: before 0.4 the list left it out.
  CHECK(inside_quote["pending"] == json::array({{{"transition_id", waiting.transition_id}, {"action", "cart.add"}},
                                                {{"transition_id", quoted.transition_id}, {"action", "slow.quote"}}}));
  const auto added = s.fire("slow.add");
  CHECK(inside_add["pending"] == json::array({{{"transition_id", waiting.transition_id}, {"action", "cart.add"}},
                                              {{"transition_id", added.transition_id}, {"action", "slow.add"}}}));
  // Settled, it leaves the list: slow.quote when its handler returned, the others by report.
  CHECK(s.outcome("t-99")["pending"] ==
        json::array({{{"transition_id", waiting.transition_id}, {"action", "cart.add"}},
                     {{"transition_id", added.transition_id}, {"action", "slow.add"}}}));
  s.report_state({{"cart", json::array({"A1"})}}, waiting.transition_id);
  s.report_state({{"cart", json::array({"A1", "B2"})}}, added.transition_id);
  CHECK(s.outcome("t-99")["pending"] == json::array());
}

TEST_CASE("a fire reported on while its handler still runs stays pending until the handler returns") {
  gp::Session s;
  json inside;
  s.declare("cart.add", {.does = "Add.", .writes = {"cart"}, .handler = [&](const json&) {
                           s.report_state({{"cart", 1}});  // settles its own fire's report, not its grade
                           inside = s.outcome("t-99");
                           return gp::HandlerResult{};
                         }});
  const auto r = s.fire("cart.add");
  CHECK(inside["pending"] == json::array({{{"transition_id", r.transition_id}, {"action", "cart.add"}}}));
  CHECK(s.outcome(r.transition_id)["settled"] == true);
  CHECK(s.outcome("t-99")["pending"] == json::array());
}
