// ActionSpec::argument_checks: the claims a payload makes (this order exists; this amount
// is its total) checked against recorded facts at every fire, after the input schema
// and before repeats and approvals (UNSUPPORTED_ARGUMENT), and shown on the asks they pass.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/agent_port.hpp"
#include "groundplane/checks/row_integrity.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

// Two orders, as the app's order tool returned them.
gp::FactRegistry& orders_registry() {
  static gp::FactRegistry reg;
  static const bool recorded =
      (reg.record_table("orders", json::parse(R"([{"id": 57, "total": 129.00}, {"id": 58, "total": 74.50}])"),
                        {.key_column = "id", .tool = "orders.list", .args = {{"customer", "c-9"}}}),
       true);
  (void)recorded;
  return reg;
}

const gp::row_integrity order_total{.fact = "orders", .key_field = "order_id", .fields = {{"amount", "total"}}};

const json refund_input = json::parse(R"({
  "type": "object",
  "properties": {"order_id": {"type": "integer"}, "amount": {"type": "number"}},
  "required": ["order_id", "amount"]
})");

struct Refunds {
  int ran = 0;
  gp::HandlerResult operator()(const json&) {
    ++ran;
    return {};
  }
};

// The refund action, counting its runs in `ran`.
void declare_refund(gp::Session& s, int& ran, bool high_effect = true, gp::CheckList checks = {order_total},
                    json input = refund_input) {
  s.declare("refund", {.does = "Refund an order.",
                       .handler =
                           [&ran](const json&) {
                             ++ran;
                             return gp::HandlerResult{};
                           },
                       .high_effect = high_effect,
                       .input = std::move(input),
                       .argument_checks = std::move(checks)});
}

// A check of the app's own, reading what it is told.
struct app_check {
  const bool* holds;
  static constexpr const char* check_name = "still_supported";
  std::vector<std::string> leans_on() const { return {"orders"}; }
  void validate(const gp::FactRegistry&) const {}
  void verify(const gp::FactRegistry&, const json&, std::vector<gp::Finding>& findings) const {
    if (!*holds) findings.push_back(gp::Finding{check_name, "amount", "", "", "", "", "withdrawn"});
  }
};

bool mentions(const std::vector<std::string>& issues, const std::string& text) {
  for (const auto& i : issues)
    if (i.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("an order id the model invented is refused UNSUPPORTED_ARGUMENT and nothing runs") {
  gp::Session s({.facts = &orders_registry()});
  int ran = 0;
  declare_refund(s, ran, false);
  const auto r = s.fire("refund", {.payload = {{"order_id", 61}, {"amount", 129.00}}});
  CHECK(r.reason == "UNSUPPORTED_ARGUMENT");
  REQUIRE_FALSE(r.issues.empty());
  CHECK(mentions(r.issues, "order_id"));
  CHECK(mentions(r.issues, "61"));  // the model's own claim, quoted back to it
  CHECK(ran == 0);
  const auto v = s.view();
  REQUIRE(v.gap_rows().size() == 1);
  CHECK(v.gap_rows()[0].reason == gp::Refusal::unsupported_argument);
  CHECK(v.gap_rows()[0].failed_checks == std::vector<std::string>{order_total.name()});
}

TEST_CASE("an amount that is another order's total is refused naming whose total it is") {
  gp::Session s({.facts = &orders_registry()});
  int ran = 0;
  declare_refund(s, ran, false);
  const auto r = s.fire("refund", {.payload = {{"order_id", 57}, {"amount", 74.50}}});
  CHECK(r.reason == "UNSUPPORTED_ARGUMENT");
  CHECK(mentions(r.issues, "row 58"));
  CHECK(mentions(r.issues, "129"));
  CHECK(ran == 0);
}

TEST_CASE("the right order and amount pass, and the ask a person sees shows what supports each argument") {
  gp::Session s({.require_human_approval = true, .facts = &orders_registry()});
  int ran = 0;
  declare_refund(s, ran);
  const json right = {{"order_id", 57}, {"amount", 129.00}};
  CHECK(s.fire("refund", {.payload = right}).reason == "APPROVAL_REQUIRED");
  const gp::Ask ask = s.confirm_ask("refund", right);
  const std::string provenance = "orders.list(customer='c-9')";
  CHECK(ask.support ==
        std::vector<gp::ArgumentSupport>{{"order_id", "orders", provenance}, {"amount", "orders", provenance}});
  REQUIRE(s.approve_ask(ask.id, "pat").ok);
  CHECK(s.fire("refund", {.payload = right, .ask_id = ask.id}).ok);
  CHECK(ran == 1);
}

TEST_CASE("the port mints no ask for a fire whose arguments the facts do not support") {
  gp::Session s({.require_human_approval = true, .facts = &orders_registry()});
  int ran = 0;
  declare_refund(s, ran);
  gp::AgentPort port(s);
  const auto invented = port.call("do_action", {{"action", "refund"}, {"input", {{"order_id", 61}, {"amount", 5}}}});
  CHECK(invented["reason"] == "UNSUPPORTED_ARGUMENT");
  CHECK(invented["issues"].size() >= 1);
  CHECK_FALSE(invented.contains("ask_id"));
  CHECK(s.view().asks().empty());
  const auto right = port.call("do_action", {{"action", "refund"}, {"input", {{"order_id", 57}, {"amount", 129}}}});
  CHECK(right["reason"] == "APPROVAL_REQUIRED");
  CHECK(right.contains("ask_id"));
}

TEST_CASE("UNSUPPORTED_ARGUMENT comes after PAYLOAD_INVALID and before repeats and approvals, for every principal") {
  for (const gp::Principal who : {gp::Principal::agent, gp::Principal::user, gp::Principal::system}) {
    CAPTURE(gp::to_string(who));
    gp::Session s({.require_human_approval = true, .facts = &orders_registry()});
    s.declare("refund", {.does = "Refund an order.",
                         .writes = {"refunded"},  // stays in flight until reported
                         .handler = Refunds{},
                         .high_effect = true,
                         .concurrency = gp::Concurrency::once,
                         .input = refund_input,
                         .argument_checks = {order_total}});
    // A wrong type is the schema's to refuse: the checks never see it.
    CHECK(s.fire("refund", {.source = who, .payload = {{"order_id", "57"}, {"amount", 1}}}).reason ==
          "PAYLOAD_INVALID");
    // Unsupported, with no approval: not APPROVAL_REQUIRED.
    CHECK(s.fire("refund", {.source = who, .payload = {{"order_id", 61}, {"amount", 1}}}).reason ==
          "UNSUPPORTED_ARGUMENT");
    s.grant_standing("refund", "pat");
    REQUIRE(s.fire("refund", {.source = gp::Principal::agent, .payload = {{"order_id", 57}, {"amount", 129}}}).ok);
    // In flight: not PRIOR_FIRE_PENDING.
    CHECK(s.fire("refund", {.source = who, .payload = {{"order_id", 58}, {"amount", 1}}}).reason ==
          "UNSUPPORTED_ARGUMENT");
  }
}

TEST_CASE("the checks run again when an approved fire is presented") {
  bool still_supported = true;
  gp::Session s({.require_human_approval = true, .facts = &orders_registry()});
  int ran = 0;
  declare_refund(s, ran, true, {app_check{&still_supported}}, nullptr);
  const json input = {{"amount", 129}};
  const auto ask = s.confirm_ask("refund", input);
  CHECK(ask.support.empty());  // a check of the app's own says nothing of its fields
  REQUIRE(s.approve_ask(ask.id, "pat").ok);
  still_supported = false;
  const auto r = s.fire("refund", {.payload = input, .ask_id = ask.id});
  CHECK(r.reason == "UNSUPPORTED_ARGUMENT");
  CHECK(s.view().ask(ask.id)->state == gp::AskState::approved);  // not spent by a refused fire
  still_supported = true;
  CHECK(s.fire("refund", {.payload = input, .ask_id = ask.id}).ok);
  CHECK(ran == 1);
}

TEST_CASE("argument checks without a registry, or leaning on a fact it lacks, are a ConfigurationError at declare") {
  int ran = 0;
  {
    gp::Session s;
    CHECK_THROWS_WITH(declare_refund(s, ran), Catch::Contains("SessionOptions::facts") && Catch::Contains("'refund'"));
    CHECK(s.actions().empty());
  }
  gp::FactRegistry empty;
  {
    gp::Session s({.facts = &empty});
    CHECK_THROWS_WITH(declare_refund(s, ran), Catch::Contains("'orders'"));
  }
  {
    gp::Session s({.facts = &orders_registry()});
    const gp::row_integrity wrong_column{.fact = "orders", .key_field = "order_id", .fields = {{"amount", "price"}}};
    CHECK_THROWS_AS(s.declare("refund", {.does = "Refund.", .handler = Refunds{}, .argument_checks = {wrong_column}}),
                    gp::ConfigurationError);
  }
}

TEST_CASE("corrections stop at ten and then say how many more there were") {
  gp::Session s({.facts = &orders_registry()});
  gp::CheckList checks;
  for (int i = 0; i < 12; ++i)
    checks.push_back(
        gp::row_integrity{.fact = "orders", .key_field = "k" + std::to_string(i), .fields = {{"amount", "total"}}});
  s.declare("bulk", {.does = "Bulk.", .handler = Refunds{}, .argument_checks = checks});
  json payload = json::object();
  for (int i = 0; i < 12; ++i) payload["k" + std::to_string(i)] = 1000 + i;
  const auto r = s.fire("bulk", {.payload = payload});
  CHECK(r.reason == "UNSUPPORTED_ARGUMENT");
  REQUIRE(r.issues.size() == 11);
  CHECK(r.issues.back() == "and 2 more");
  CHECK(s.view().gap_rows()[0].failed_checks.size() == 12);
}
