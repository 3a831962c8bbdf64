// ActionSpec::input: a declared input schema, compiled at declare, served as `expects`,
// and checked at every fire before the repeat and approval reasons (PAYLOAD_INVALID),
// with issues that never quote the payload.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/agent_port.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

const json cart_item = json::parse(R"({
  "type": "object",
  "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
  "required": ["sku", "qty"],
  "additionalProperties": false
})");

struct Counted {
  int runs = 0;
  json last = "never run";
  gp::HandlerResult operator()(const json& p) {
    ++runs;
    last = p;
    return {};
  }
};

// A handler that records into `into` (a Counted outliving the session's fires).
auto counting(Counted& into) {
  return [&into](const json& p) { return into(p); };
}

}  // namespace

TEST_CASE("a payload of the wrong type is refused PAYLOAD_INVALID with an issue naming the key and both types") {
  gp::Session s;
  Counted add;
  s.declare("cart.add", {.does = "Add an item to the cart.", .handler = counting(add), .input = cart_item});
  const auto r = s.fire("cart.add", {.payload = {{"sku", "A1"}, {"qty", "two"}}});
  CHECK_FALSE(r.ok);
  CHECK(r.reason == "PAYLOAD_INVALID");
  CHECK(r.transition_id.empty());
  CHECK(r.issues == std::vector<std::string>{"'qty' should be integer, not string"});
  CHECK(add.runs == 0);
  {
    const auto v = s.view();
    CHECK(v.transitions().empty());
    REQUIRE(v.gap_rows().size() == 1);
    CHECK(v.gap_rows()[0].reason == gp::Refusal::payload_invalid);
  }
  CHECK(s.ground_truth().text.find("was refused: PAYLOAD_INVALID") != std::string::npos);
}

TEST_CASE("a payload that fits the declared input reaches the handler unchanged") {
  gp::Session s;
  Counted add;
  s.declare("cart.add", {.does = "Add an item to the cart.", .handler = counting(add), .input = cart_item});
  const json payload = {{"sku", "A1"}, {"qty", 2}};
  const auto r = s.fire("cart.add", {.payload = payload});
  CHECK(r.ok);
  CHECK(r.issues.empty());
  CHECK(add.runs == 1);
  CHECK(add.last == payload);
}

TEST_CASE("every issue is listed: missing, unexpected and out-of-bounds keys together") {
  gp::Session s;
  s.declare("cart.add", {.does = "Add an item to the cart.", .handler = Counted{}, .input = cart_item});
  const auto r = s.fire("cart.add", {.payload = {{"qty", 0}, {"confirm", true}}});
  CHECK(r.reason == "PAYLOAD_INVALID");
  CHECK(r.issues.size() == 3);
  const auto has = [&](const std::string& issue) {
    return std::find(r.issues.begin(), r.issues.end(), issue) != r.issues.end();
  };
  CHECK(has("missing required 'sku'"));
  CHECK(has("unexpected key 'confirm'"));
  CHECK(has("'qty' is below the minimum 1"));
}

TEST_CASE("an action that takes no input accepts null and an empty object, and its handler sees null") {
  gp::Session s;
  Counted clear;
  s.declare("cart.clear", {.does = "Empty the cart.", .handler = counting(clear), .input = "none"});
  CHECK(s.fire("cart.clear").ok);
  CHECK(clear.last.is_null());
  CHECK(s.fire("cart.clear", {.payload = json::object()}).ok);
  CHECK(clear.last.is_null());
  CHECK(clear.runs == 2);
  const auto r = s.fire("cart.clear", {.payload = {{"all", true}}});
  CHECK(r.reason == "PAYLOAD_INVALID");
  CHECK(r.issues == std::vector<std::string>{"this action takes no input"});
  for (const json& not_nothing : {json::array(), json(0), json(""), json(false)})
    CHECK(s.fire("cart.clear", {.payload = not_nothing}).reason == "PAYLOAD_INVALID");
  CHECK(clear.runs == 2);
}

TEST_CASE("an action with no declared input takes any payload, as before") {
  gp::Session s;
  Counted any;
  s.declare("note", {.does = "Keep a note.", .handler = counting(any)});
  for (const json& p : {json(nullptr), json("x"), json::array({1, 2}), json{{"qty", "two"}}})
    CHECK(s.fire("note", {.payload = p}).ok);
  CHECK(any.runs == 4);
}

TEST_CASE("a schema the validator cannot honour is a ConfigurationError at declare naming the action and keyword") {
  gp::Session s;
  const auto declare = [&](const json& input) {
    s.declare("cart.add", {.does = "Add an item to the cart.", .handler = Counted{}, .input = input});
  };
  CHECK_THROWS_WITH(
      declare(json{{"type", "object"}, {"properties", {{"sku", {{"pattern", "^[A-Z]+$"}}}}}}),
      Catch::Contains("'cart.add'") && Catch::Contains("'pattern'") && Catch::Contains("/properties/sku"));
  CHECK_THROWS_AS(declare(json{{"$ref", "https://example.com/other.json"}}), gp::ConfigurationError);
  CHECK_THROWS_AS(declare(json{{"type", 7}}), gp::ConfigurationError);
  CHECK_THROWS_AS(declare(json("some")), gp::ConfigurationError);
  CHECK_THROWS_AS(declare(json(42)), gp::ConfigurationError);
  CHECK(s.actions().empty());  // nothing was mounted by a declaration that threw
}

TEST_CASE("actions() and whats_here serve the declared input as expects, and nothing when none is declared") {
  gp::Session s;
  s.declare("cart.add", {.does = "Add an item to the cart.", .handler = Counted{}, .input = cart_item});
  s.declare("cart.clear", {.does = "Empty the cart.", .handler = Counted{}, .input = "none"});
  s.declare("note", {.does = "Keep a note.", .handler = Counted{}});
  const auto actions = s.actions();
  REQUIRE(actions.size() == 3);
  CHECK(actions[0].expects == cart_item);
  CHECK(actions[1].expects == "none");
  CHECK(actions[2].expects.is_null());

  gp::AgentPort port(s);
  const auto here = port.whats_here();
  const json& items = here["actions"];
  REQUIRE(items.size() == 3);
  CHECK(items[0]["expects"] == cart_item);
  CHECK(items[1]["expects"] == "none");
  CHECK_FALSE(items[2].contains("expects"));
}

TEST_CASE("do_action answers PAYLOAD_INVALID with the issues, what the action expects, and a message to fix it") {
  gp::Session s;
  Counted add;
  s.declare("cart.add", {.does = "Add an item to the cart.", .handler = counting(add), .input = cart_item});
  s.declare("cart.clear", {.does = "Empty the cart.", .handler = Counted{}, .input = "none"});
  gp::AgentPort port(s);
  const auto r = port.call("do_action", {{"action", "cart.add"}, {"input", {{"sku", "A1"}, {"qty", "two"}}}});
  CHECK(r["ok"] == false);
  CHECK(r["reason"] == "PAYLOAD_INVALID");
  CHECK(r["issues"] == json::array({"'qty' should be integer, not string"}));
  CHECK(r["expects"] == cart_item);
  CHECK(r["message"].get<std::string>().find("nothing ran") != std::string::npos);
  CHECK_FALSE(r.contains("transition_id"));
  CHECK(add.runs == 0);

  const auto none = port.call("do_action", {{"action", "cart.clear"}, {"input", {{"everything", true}}}});
  CHECK(none["expects"] == "none");
  CHECK(none["issues"] == json::array({"this action takes no input"}));

  const auto fixed = port.call("do_action", {{"action", "cart.add"}, {"input", {{"sku", "A1"}, {"qty", 2}}}});
  CHECK(fixed["ok"] == true);
  CHECK_FALSE(fixed.contains("issues"));
  CHECK_FALSE(fixed.contains("expects"));
  CHECK(add.runs == 1);
}

TEST_CASE("issues stop at ten and then say how many more there were") {
  json props = json::object();
  json payload = json::object();
  for (int i = 0; i < 25; ++i) {
    props["k" + std::to_string(i)] = {{"type", "integer"}};
    payload["k" + std::to_string(i)] = "text";
  }
  gp::Session s;
  s.declare("wide",
            {.does = "Take many keys.", .handler = Counted{}, .input = {{"type", "object"}, {"properties", props}}});
  const auto r = s.fire("wide", {.payload = payload});
  REQUIRE(r.issues.size() == 11);
  CHECK(r.issues.back() == "and 15 more");
}

// The order of the reasons: GUARD_FAILED (and everything before it) first, then
// PAYLOAD_INVALID, then the repeat and approval reasons.
TEST_CASE("PAYLOAD_INVALID comes after TOOL_DISABLED and GUARD_FAILED, for every principal") {
  for (const gp::Principal who : {gp::Principal::agent, gp::Principal::user, gp::Principal::system}) {
    CAPTURE(gp::to_string(who));
    gp::Session s;
    s.report_state({{"open", false}, {"guarded", false}});
    s.declare("disabled", {.does = "Is disabled.",
                           .handler = Counted{},
                           .enabled_when = [](const json& st) { return st.value("open", true); },
                           .input = cart_item});
    s.declare("guarded", {.does = "Is guarded.",
                          .handler = Counted{},
                          .guard = [](const json& st) { return st.value("guarded", true); },
                          .input = cart_item});
    const json bad = {{"qty", "two"}};
    CHECK(s.fire("disabled", {.source = who, .payload = bad}).reason == "TOOL_DISABLED");
    CHECK(s.fire("guarded", {.source = who, .payload = bad}).reason == "GUARD_FAILED");
    s.report_state({{"open", true}, {"guarded", true}});
    CHECK(s.fire("disabled", {.source = who, .payload = bad}).reason == "PAYLOAD_INVALID");
    CHECK(s.fire("guarded", {.source = who, .payload = bad}).reason == "PAYLOAD_INVALID");
  }
}

TEST_CASE("PAYLOAD_INVALID comes before the repeat reasons, for every principal") {
  for (const gp::Principal who : {gp::Principal::agent, gp::Principal::user, gp::Principal::system}) {
    CAPTURE(gp::to_string(who));
    gp::Session s;
    s.declare("pay", {.does = "Take a payment.",
                      .writes = {"paid"},  // awaits a report: stays in flight
                      .handler = Counted{},
                      .concurrency = gp::Concurrency::once,
                      .input = cart_item});
    REQUIRE(s.fire("pay", {.source = gp::Principal::agent, .payload = {{"sku", "A"}, {"qty", 1}}}).ok);
    const auto in_flight = s.fire("pay", {.source = who, .payload = {{"sku", "A"}}});
    CHECK(in_flight.reason == "PAYLOAD_INVALID");
    CHECK(in_flight.prior_transition_id.empty());
    s.report_state({{"paid", true}});  // settles: once has happened
    CHECK(s.fire("pay", {.source = who, .payload = json::object()}).reason == "PAYLOAD_INVALID");
    const auto valid = s.fire("pay", {.source = who, .payload = {{"sku", "A"}, {"qty", 1}}});
    if (who == gp::Principal::user) {
      CHECK(valid.ok);  // a person's repeat is recorded
    } else {
      CHECK(valid.reason == "DUPLICATE_EXECUTION");
    }
  }
}

TEST_CASE("PAYLOAD_INVALID comes before every approval reason, and the port mints no ask for it") {
  gp::Session s({.require_human_approval = true});
  Counted refund;
  s.declare("refund",
            {.does = "Refund an order.", .handler = counting(refund), .high_effect = true, .input = cart_item});
  const json good = {{"sku", "A"}, {"qty", 1}};
  const json bad = {{"sku", "A"}, {"qty", 1.5}};
  CHECK(s.fire("refund", {.payload = bad}).reason == "PAYLOAD_INVALID");  // not APPROVAL_REQUIRED
  const auto ask = s.confirm_ask("refund", good);
  CHECK(s.fire("refund", {.payload = bad, .ask_id = ask.id}).reason == "PAYLOAD_INVALID");  // not _MISMATCH
  REQUIRE(s.approve_ask(ask.id, "pat").ok);
  CHECK(s.fire("refund", {.payload = bad, .ask_id = ask.id}).reason == "PAYLOAD_INVALID");
  CHECK(s.fire("refund", {.payload = good, .ask_id = ask.id}).ok);
  CHECK(s.fire("refund", {.payload = bad, .ask_id = ask.id}).reason == "PAYLOAD_INVALID");  // not _SPENT
  CHECK(refund.runs == 1);
  CHECK(s.fire("refund", {.source = gp::Principal::user, .payload = bad}).reason == "PAYLOAD_INVALID");

  gp::AgentPort port(s);
  const std::size_t asks = s.view().asks().size();
  const auto r = port.call("do_action", {{"action", "refund"}, {"input", bad}});
  CHECK(r["reason"] == "PAYLOAD_INVALID");
  CHECK_FALSE(r.contains("ask_id"));
  CHECK(s.view().asks().size() == asks);
}

TEST_CASE("no issue, message or block ever quotes a value from the payload, wherever it is planted") {
  const std::string secret = "s3cr3t-7f2a";
  const json schema = json::parse(R"({
    "type": "object",
    "properties": {
      "name": {"type": "string", "maxLength": 3, "enum": ["a", "b"]},
      "qty": {"type": "integer"},
      "tags": {"type": "array", "items": {"type": "integer"}, "uniqueItems": true, "maxItems": 1},
      "nested": {"type": "object", "properties": {"deep": {"const": "x"}}, "additionalProperties": false},
      "choice": {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
      "not_this": {"not": {"type": "string"}}
    },
    "additionalProperties": false
  })");
  // The secret as every value the schema can refuse: a string, an array member, a nested
  // value, an extra key's value, a duplicate, and the whole payload.
  const std::vector<json> payloads = {
      {{"name", secret}},
      {{"qty", secret}},
      {{"tags", {secret, secret}}},
      {{"nested", {{"deep", secret}}}},
      {{"nested", {{"other", secret}}}},
      {{"choice", secret}},
      {{"not_this", secret}},
      {{"extra", secret}},
      json(secret),
      json::array({secret}),
  };
  gp::Session s;
  s.declare("act", {.does = "Act.", .handler = Counted{}, .input = schema});
  gp::AgentPort port(s);
  for (const json& p : payloads) {
    CAPTURE(p.dump());
    const auto r = s.fire("act", {.payload = p});
    REQUIRE(r.reason == "PAYLOAD_INVALID");
    REQUIRE_FALSE(r.issues.empty());
    for (const auto& issue : r.issues) CHECK(issue.find(secret) == std::string::npos);
    const auto answered = port.call("do_action", {{"action", "act"}, {"input", p}});
    CHECK(answered["reason"] == "PAYLOAD_INVALID");
    CHECK(answered.dump().find(secret) == std::string::npos);
  }
  CHECK(s.ground_truth().text.find(secret) == std::string::npos);
}
