// The tools a Session adds over MCP: whats_here and do_action through the session's
// AgentPort (a retried do_action answered once), record_ledger, and every tool's title
// and annotations.
#include "catch2_compat.hpp"

#include <stdexcept>
#include <string>

#include <groundplane/json_schema.hpp>
#include <groundplane/mcp/server.hpp>
#include <groundplane/session.hpp>

#include "mcp_fixtures.hpp"

using namespace mcp_test;  // NOLINT(google-build-using-namespace)

TEST_CASE("every tool has a title and all four annotations, and only the reading tools are read-only") {
  gp::Session app({.node = "n"});
  Harness h(app);
  const auto t = h.run(request(1, "tools/list"));
  const auto& tools = t.reply_to(1)["result"]["tools"];
  REQUIRE(tools.size() == 10);
  for (const auto& tool : tools) {
    const std::string name = tool["name"];
    INFO(name);
    CHECK_FALSE(tool["title"].get<std::string>().empty());
    const auto& a = tool["annotations"];
    for (const char* hint : {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
      CHECK(a[hint].is_boolean());
    const bool reads = name == "check" || name == "list_facts" || name == "whats_here" || name == "did_it_work";
    CHECK(a["readOnlyHint"] == reads);
    CHECK(a["destructiveHint"] == (name == "do_action"));
    CHECK(a["idempotentHint"] == (name != "do_action"));
  }
}

TEST_CASE("with a session the agent tools are served and a gated order is refused as a normal result") {
  gp::Session app({.node = "checkout", .require_human_approval = true});
  app.declare("checkout.place-order", {.does = "Place the order.",
                                       .writes = {"order_id"},
                                       .handler =
                                           [&app](const nlohmann::json&) {
                                             app.report_state({{"order_id", "A-1"}});
                                             return gp::HandlerResult{};
                                           },
                                       .high_effect = true});
  Harness h(app);
  const auto t = h.run(request(1, "tools/list") + call(2, "whats_here", ojson::object()) +
                       call(3, "do_action", {{"action", "checkout.place-order"}}) +
                       call(4, "do_action", {{"action", "checkout.refund-everything"}}));
  const auto& tools = t.reply_to(1)["result"]["tools"];
  REQUIRE(tools.size() == 10);
  CHECK(tools[6]["name"] == "whats_here");
  CHECK(tools[7]["name"] == "do_action");
  CHECK(tools[8]["name"] == "did_it_work");
  CHECK(tools[9]["name"] == "record_ledger");
  CHECK(tools[8]["outputSchema"]["required"] == ojson::array({"ok", "facts"}));
  CHECK(tools[7]["outputSchema"]["required"] == ojson::array({"ok", "facts"}));

  const auto& here = t.reply_to(2)["result"]["structuredContent"];
  CHECK(here.begin().key() == "facts");
  // The text block a model reads is the same result, facts first too.
  CHECK(text_of(t.reply_to(2)).rfind(R"({"facts":)", 0) == 0);
  CHECK(ojson::parse(text_of(t.reply_to(2))) == here);
  CHECK(text_of(t.reply_to(3)).rfind(R"({"facts":)", 0) == 0);
  CHECK(here["node"] == "checkout");
  CHECK(here["actions"][0]["id"] == "checkout.place-order");

  const auto& placed = t.reply_to(3)["result"];
  CHECK(placed["isError"] == false);
  CHECK(placed["structuredContent"]["ok"] == false);
  CHECK(placed["structuredContent"]["reason"] == "APPROVAL_REQUIRED");
  CHECK(placed["structuredContent"].contains("ask_id"));
  CHECK(placed["structuredContent"]["facts"].get<std::string>().find(
            "did NOT happen — agent's fire of checkout.place-order was refused: APPROVAL_REQUIRED") !=
        std::string::npos);

  const auto& invented = t.reply_to(4)["result"]["structuredContent"];
  CHECK(invented["reason"] == "UNKNOWN_ACTION");
  CHECK(invented["message"].get<std::string>().find("refund") == std::string::npos);  // never echoed
}

TEST_CASE("a handler that throws is a tool error and the server keeps serving") {
  gp::Session app({.node = "home"});
  app.declare("explode", {.does = "Fail loudly.", .handler = [](const nlohmann::json&) -> gp::HandlerResult {
                            throw std::runtime_error("disk on fire\nrm -rf");
                          }});
  Harness h(app);
  const auto t = h.run(call(1, "do_action", {{"action", "explode"}}) + request(2, "ping"));
  CHECK(t.reply_to(1)["result"]["isError"] == true);
  CHECK(text_of(t.reply_to(1)) == "the app failed while serving do_action: disk on fire\\nrm -rf");
  CHECK(t.has_reply_to(2));
}

TEST_CASE("with a session record_ledger lets the check tool hold a claimed action to the ledger") {
  gp::Session app({.node = "checkout", .require_human_approval = true});
  app.declare("cart.add", {.does = "Add to the cart.", .writes = {"cart"}, .handler = [&app](const nlohmann::json&) {
                             app.report_state({{"cart", 1}});
                             return gp::HandlerResult{};
                           }});
  app.declare("checkout.place-order", {.does = "Place the order.",
                                       .handler = [](const nlohmann::json&) { return gp::HandlerResult{}; },
                                       .high_effect = true});
  Harness h(app);
  const ojson checks = ojson::array({{{"check", "actions_performed"}, {"fact", "ledger_1"}}});
  const auto t = h.run(
      call(1, "do_action", {{"action", "cart.add"}}) + call(2, "do_action", {{"action", "checkout.place-order"}}) +
      call(3, "record_ledger", {{"name", "ledger_1"}}) +
      call(4, "check",
           {{"facts", {"ledger_1"}},
            {"checks", checks},
            {"output", {{"performed", {"cart.add", "checkout.place-order"}}}}}) +
      call(5, "check", {{"facts", {"ledger_1"}}, {"checks", checks}, {"output", {{"performed", {"cart.add"}}}}}) +
      call(6, "record_ledger", {{"name", "ledger_1"}}) + call(7, "record_ledger", ojson::object()));
  const auto& recorded = t.reply_to(3)["result"]["structuredContent"];
  CHECK(recorded["kind"] == "table");
  CHECK(recorded["size"] == 2);
  CHECK(recorded["provenance"]["tool"] == "session.ledger");

  const auto& rejected = t.reply_to(4)["result"];
  CHECK(rejected["isError"] == false);
  REQUIRE(rejected["structuredContent"]["ok"] == false);
  REQUIRE(rejected["structuredContent"]["findings"].size() == 1);
  CHECK(rejected["structuredContent"]["findings"][0]["detail"] ==
        "the ledger's line for it: did NOT happen — agent's fire of checkout.place-order was refused: "
        "APPROVAL_REQUIRED");
  CHECK(t.reply_to(5)["result"]["structuredContent"]["ok"] == true);

  CHECK(t.reply_to(6)["result"]["isError"] == true);  // write-once, like every fact
  CHECK(t.reply_to(7)["result"]["isError"] == true);
}

TEST_CASE("without a session there is no record_ledger tool") {
  Harness h;
  const auto t = h.run(request(1, "tools/list") + call(2, "record_ledger", {{"name", "l"}}));
  for (const auto& tool : t.reply_to(1)["result"]["tools"]) CHECK(tool["name"] != "record_ledger");
  CHECK(t.reply_to(2)["error"]["code"] == -32602);
  CHECK(t.reply_to(2)["error"]["message"] == "Unknown tool: 'record_ledger'");
}

TEST_CASE(
    "whats_here over MCP takes since_version: stale keys and human choices are marked, a bad cursor is a "
    "tool error") {
  gp::Session app({.node = "cart"});
  app.declare(
      "checkout.place-order",
      {.does = "Place the order.", .reads = {"cart"}, .human_decides = gp::HumanDecides{.about = "which card"}});
  app.report_state({{"cart", ojson::array({"A1"})}});
  Harness h(app);
  const auto t = h.run(request(1, "tools/list") + call(2, "whats_here", {{"since_version", 0}}) +
                       call(3, "whats_here", {{"since_version", "zero"}}) + call(4, "whats_here", ojson::object()));
  const auto& tool = t.reply_to(1)["result"]["tools"][6];
  REQUIRE(tool["name"] == "whats_here");
  CHECK(tool["inputSchema"]["properties"]["since_version"]["type"] == "integer");
  CHECK(tool["outputSchema"]["properties"]["actions"]["items"]["properties"].contains("stale_reads"));
  const auto& item = t.reply_to(2)["result"]["structuredContent"]["actions"][0];
  CHECK(item["stale_reads"] == ojson::array({"cart"}));
  CHECK(item["human_decides"] == true);
  CHECK(t.reply_to(3)["result"]["isError"] == true);
  CHECK(text_of(t.reply_to(3)).find("since_version must be a non-negative integer") != std::string::npos);
  // Without a cursor the window is the whole session (0.4: it used to stamp nothing).
  CHECK(t.reply_to(4)["result"]["structuredContent"]["actions"][0].value("stale_reads", ojson()) ==
        ojson::array({"cart"}));
}

TEST_CASE("did_it_work is served over MCP: a pending fire's settle_with names it, and it answers the fire") {
  gp::Session app({.node = "cart"});
  app.declare("cart.add", {.does = "Add the item.", .writes = {"cart"}, .handler = [](const nlohmann::json&) {
                             return gp::HandlerResult{.data = {{"line", 3}}};
                           }});
  Harness h(app);
  const auto t =
      h.run(call(1, "do_action", {{"action", "cart.add"}}) + call(2, "did_it_work", {{"transition_id", "t-1"}}) +
            call(3, "did_it_work", {{"transition_id", "t-9"}}));
  const auto& fired = t.reply_to(1)["result"]["structuredContent"];
  CHECK(fired["settle_with"] == ojson{{"tool", "did_it_work"}, {"transition_id", "t-1"}});
  const auto& asked = t.reply_to(2)["result"];
  CHECK(asked["isError"] == false);
  CHECK(asked["structuredContent"]["settled"] == false);
  CHECK(text_of(t.reply_to(2)).rfind(R"({"facts":)", 0) == 0);
  const auto& unknown = t.reply_to(3)["result"]["structuredContent"];
  CHECK(unknown["reason"] == "UNKNOWN_TRANSITION");
  REQUIRE(unknown["pending"].size() == 1);
  CHECK(unknown["pending"][0]["transition_id"] == "t-1");
  CHECK(unknown["pending"][0]["action"] == "cart.add");
}

TEST_CASE("do_action over MCP takes request_key: a retry is replayed, and each answer fits the tool's output schema") {
  gp::Session app({.node = "checkout"});
  int charged = 0;
  app.declare("payments.charge", {.does = "Charge the card.", .handler = [&charged](const nlohmann::json&) {
                                    ++charged;
                                    return gp::HandlerResult{};
                                  }});
  Harness h(app);
  const ojson args{{"action", "payments.charge"}, {"input", {{"order", 57}}}, {"request_key", "req-57"}};
  const auto t = h.run(request(1, "tools/list") + call(2, "do_action", args) + call(3, "do_action", args) +
                       call(4, "do_action", {{"action", "payments.charge"}, {"request_key", "req-57"}}));
  const auto& tools = t.reply_to(1)["result"]["tools"];
  REQUIRE(tools[7]["name"] == "do_action");
  CHECK(tools[7]["inputSchema"]["properties"]["request_key"]["maxLength"] == 128);
  const gp::JsonSchema output{nlohmann::json(tools[7]["outputSchema"])};
  CHECK(charged == 1);
  const auto& first = t.reply_to(2)["result"]["structuredContent"];
  const auto& again = t.reply_to(3)["result"]["structuredContent"];
  const auto& reused = t.reply_to(4)["result"]["structuredContent"];
  CHECK(again["replayed"] == true);
  CHECK(again["transition_id"] == first["transition_id"]);
  CHECK(again.begin().key() == "facts");
  CHECK(reused["reason"] == "REQUEST_KEY_REUSED");
  for (const auto* answer : {&first, &again, &reused}) {
    INFO(answer->dump());
    CHECK(output.validate(nlohmann::json(*answer)).empty());
  }
}
