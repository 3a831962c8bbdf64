// The app's side against what a model or a client sends it: each input of docs/security.md's
// table ("Every input has a bound") at its limit and past it. A value nested a million deep
// is refused on a thread with a 256 KiB stack, never a crash; a refused fire's payload is
// kept within the session's budget, else as its size. The costs of each row at 1x, 10x and
// 100x its limit are the [timing] cases at the end.
#include "catch2_compat.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <groundplane/agent_port.hpp>
#include <groundplane/mcp/protocol.hpp>
#include <groundplane/mcp/stdio.hpp>
#include <groundplane/session.hpp>

#include "hostile_support.hpp"

namespace gp = groundplane;
using nlohmann::json;
using ojson = nlohmann::ordered_json;
using hostile::MiB;
using hostile::nested;
using hostile::on_small_stack;

namespace {

constexpr std::size_t million = 1'000'000;
// Deep enough that any recursion once per level overflows a 256 KiB stack many times
// over (a level takes 64 bytes of stack at the least), and quick to build: the cases
// after the first, which holds the bound at a million.
constexpr std::size_t deep = 100'000;

const json cart_item = json::parse(R"({
  "type": "object",
  "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
  "required": ["sku", "qty"],
  "additionalProperties": false
})");

// A checkout: cart.add takes any input, cart.put a typed one, place-order needs a person.
struct Shop {
  gp::Session s;
  int runs = 0;
  explicit Shop(gp::SessionOptions o = {.require_human_approval = true}) : s(std::move(o)) {
    const auto count = [this](const json&) {
      ++runs;
      return gp::HandlerResult{};
    };
    s.declare("cart.add", {.does = "Add an item to the cart.", .handler = count});
    s.declare("cart.put", {.does = "Put an item in the cart.", .handler = count, .input = cart_item});
    s.declare("checkout.place-order", {.does = "Place the order.", .handler = count, .high_effect = true});
  }
};
}  // namespace

// --- values nested past any stack ---------------------------------------------------------

TEST_CASE("a payload nested a million levels deep is refused on a 256 KiB stack and kept as its size") {
  Shop shop;
  // A million levels once; then the action with a schema and the gated one, each deeper
  // than any stack (a million takes seconds to build under a sanitizer's allocator).
  const std::pair<const char*, std::size_t> fires[] = {
      {"cart.add", million}, {"cart.put", deep}, {"checkout.place-order", deep}};
  for (const auto& fire : fires) {
    const char* action = fire.first;  // named: a lambda cannot capture a structured binding in clang 14
    const std::size_t depth = fire.second;
    INFO(action);
    std::optional<gp::FireResult> r;
    on_small_stack([&] { r = shop.s.fire(action, {.payload = nested(depth)}); });
    REQUIRE(r);
    CHECK_FALSE(r->ok);
    CHECK(r->reason == "PAYLOAD_INVALID");
    REQUIRE(r->issues.size() == 1);
    CHECK_THAT(r->issues[0], Catch::Contains("is nested more than 64 levels deep"));
    CHECK(r->payload_omitted == 2 * depth);  // its compact text: [ and ] at each level
  }
  CHECK(shop.runs == 0);
  const auto v = shop.s.view();
  REQUIRE(v.gap_rows().size() == 3);
  for (const auto& g : v.gap_rows()) CHECK(g.payload.is_null());
  CHECK(v.gap_rows()[0].payload_omitted == 2 * million);
}

TEST_CASE("a payload nested at the depth bound is taken and one level more is refused") {
  Shop shop(gp::SessionOptions{});
  const auto at_bound = shop.s.fire("cart.add", {.payload = nested(gp::max_payload_depth)});
  CHECK(at_bound.ok);
  const auto past = shop.s.fire("cart.add", {.payload = nested(gp::max_payload_depth + 1)});
  CHECK(past.reason == "PAYLOAD_INVALID");
  CHECK(past.payload_omitted == 2 * (gp::max_payload_depth + 1));
  CHECK(shop.runs == 1);
}

TEST_CASE("a deep payload fired at an action nobody declared is refused as unknown and kept as its size") {
  Shop shop;
  std::optional<gp::FireResult> r;
  on_small_stack([&] { r = shop.s.fire("no.such.action", {.payload = nested(deep, true)}); });
  CHECK(r->reason == "UNKNOWN_AFFORDANCE");
  CHECK(r->payload_omitted > 0);
  CHECK(shop.s.view().gap_rows()[0].payload.is_null());
}

TEST_CASE("a handler's data nested past any stack is kept as its size on a 256 KiB stack") {
  gp::Session s;
  s.declare("search", {.does = "Search the catalogue.",
                       .handler = [](const json&) { return gp::HandlerResult{.data = nested(deep)}; }});
  gp::AgentPort port(s);
  const json args{{"action", "search"}};
  std::string text;
  on_small_stack([&] { text = port.call("do_action", args).dump(); });
  const json answer = json::parse(text);
  CHECK(answer["ok"] == true);
  CHECK_FALSE(answer.contains("data"));
  CHECK(answer["data_omitted"] == json{{"bytes", 2 * deep}});
}

TEST_CASE("do_action with an input, ask_id or instance nested past any stack is answered on a 256 KiB stack") {
  Shop shop;
  gp::AgentPort port(shop.s);
  json deep_input{{"action", "checkout.place-order"}};
  deep_input["input"] = nested(deep);
  json deep_ask{{"action", "checkout.place-order"}};
  deep_ask["ask_id"] = nested(deep, true);
  json deep_instance{{"action", "cart.add"}};
  deep_instance["instance"] = nested(deep);
  std::string input_answer, ask_answer, instance_answer;
  on_small_stack([&] {
    input_answer = port.call("do_action", deep_input).dump();
    ask_answer = port.call("do_action", deep_ask).dump();
    instance_answer = port.call("do_action", deep_instance).dump();
  });
  const json in = json::parse(input_answer);
  CHECK(in["reason"] == "PAYLOAD_INVALID");
  CHECK(in["payload_omitted"] == json{{"bytes", 2 * deep}});
  CHECK_FALSE(in.contains("ask_id"));  // nothing is put before a person
  const json ask = json::parse(ask_answer);
  CHECK(ask["reason"] == "APPROVAL_REQUIRED");
  CHECK_THAT(ask["message"].get<std::string>(), Catch::Contains("\"ask_id\" was not a string"));
  const json instance = json::parse(instance_answer);
  CHECK(instance["ok"] == true);  // cart.add acts on no items: a non-string names none
  CHECK_THAT(instance["message"].get<std::string>(), Catch::Contains("\"instance\" was not a string"));
  CHECK(shop.s.view().gap_rows().size() == 2);
}

TEST_CASE("a confirm ask for an input nested past the bound is a configuration error and mints nothing") {
  Shop shop;
  json input = nested(deep);
  on_small_stack(
      [&] { CHECK_THROWS_AS(shop.s.confirm_ask("checkout.place-order", std::move(input)), gp::ConfigurationError); });
  CHECK(shop.s.asks().empty());
}

TEST_CASE("MCP: a do_action input nested within the message limit is refused by the session on a 256 KiB stack") {
  Shop shop;
  gp::mcp::Protocol p(shop.s, {.log = [](std::string_view) {}});
  // The message nests 4 levels around the input; the transport takes 256 in all.
  const std::size_t depth = gp::mcp::ServerOptions{}.max_depth - 4;
  const std::string line =
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"do_action","arguments":{"action":"cart.add","input":)" +
      hostile::nested_text(depth) + "}}}";
  std::optional<std::string> reply;
  on_small_stack([&] { reply = p.handle_line(line); });
  REQUIRE(reply);
  const ojson r = ojson::parse(*reply);
  INFO(reply->substr(0, 400));
  CHECK(r["result"]["structuredContent"]["reason"] == "PAYLOAD_INVALID");
  CHECK(shop.runs == 0);
}

TEST_CASE("MCP: a message nested far past the limit is refused before it is read, on a 256 KiB stack") {
  Shop shop;
  gp::mcp::Protocol p(shop.s, {.log = [](std::string_view) {}});
  const std::string line =
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"do_action","arguments":{"action":"cart.add","input":)" +
      hostile::nested_text(deep) + "}}}";
  std::optional<std::string> reply;
  on_small_stack([&] { reply = p.handle_line(line); });
  REQUIRE(reply);
  CHECK(ojson::parse(*reply)["error"]["code"] == -32600);
}

TEST_CASE("MCP: values handed in already parsed are held to the same depth limit, on a 256 KiB stack") {
  Shop shop;
  gp::mcp::Protocol p(shop.s, {.log = [](std::string_view) {}});
  ojson deep_call{{"action", "cart.add"}};
  deep_call["input"] = nested<ojson>(deep);
  ojson deep_record{{"name", "f"}, {"tool", "t"}};
  deep_record["value"] = nested<ojson>(deep);
  ojson message{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}};
  message["params"] = {{"name", "record_fact"}};
  message["params"]["arguments"] = nested<ojson>(deep, true);
  ojson called, recorded;
  std::optional<ojson> answered;
  on_small_stack([&] {
    called = p.call_tool("do_action", deep_call);
    recorded = p.call_tool("record_fact", deep_record);
    answered = p.handle(message);
  });
  CHECK(called["isError"] == true);
  CHECK_THAT(called["content"][0]["text"].get<std::string>(), Catch::Contains("nested deeper than 256 levels"));
  CHECK(recorded["isError"] == true);
  CHECK(p.registry().size() == 0);
  REQUIRE(answered);
  CHECK((*answered)["error"]["code"] == -32600);
  CHECK(shop.runs == 0);
}

// --- what a refused fire keeps -------------------------------------------------------------

TEST_CASE("refused payloads are kept until the session's budget is spent, then as their size") {
  Shop shop({.require_human_approval = true, .max_refused_payload_bytes = 1000});
  const json big{{"note", std::string(400, 'n')}};  // 411 bytes of compact JSON
  CHECK(shop.s.fire("cart.put", {.payload = big}).payload_omitted == 0);
  CHECK(shop.s.fire("cart.put", {.payload = big}).payload_omitted == 0);  // 822 of 1000
  const auto over = shop.s.fire("cart.put", {.payload = big});
  CHECK(over.reason == "PAYLOAD_INVALID");
  CHECK(over.payload_omitted == 411);
  CHECK(shop.s.fire("checkout.place-order").payload_omitted == 0);  // no payload costs nothing
  const auto v = shop.s.view();
  REQUIRE(v.gap_rows().size() == 4);
  CHECK(v.gap_rows()[1].payload == big);
  CHECK(v.gap_rows()[2].payload.is_null());
  CHECK(v.gap_rows()[2].payload_omitted == 411);
  CHECK(v.gap_rows()[3].payload_omitted == 0);
}

TEST_CASE("the agent port asks a person only about an input the budget can keep, and says so when it cannot") {
  Shop shop({.require_human_approval = true, .max_refused_payload_bytes = 1000});
  gp::AgentPort port(shop.s);
  const json big{{"note", std::string(400, 'n')}};  // 411 bytes
  const auto call = [&](const json& input) {
    return port.call("do_action", {{"action", "checkout.place-order"}, {"input", input}}).json();
  };
  const json first = call(big);  // the refusal keeps it (411), and so does the ask (822)
  CHECK(first["ask_id"] == "ask-1");
  CHECK_FALSE(first.contains("payload_omitted"));
  const json again = call(big);  // the refusal cannot keep it; the open ask is still found
  CHECK(again["ask_id"] == "ask-1");
  CHECK(again["payload_omitted"] == json{{"bytes", 411}});
  json other = big;
  other["note"] = std::string(400, 'o');
  const json refused = call(other);  // neither the refusal nor a new ask can keep it
  CHECK(refused["reason"] == "APPROVAL_REQUIRED");
  CHECK_FALSE(refused.contains("ask_id"));
  CHECK(refused["payload_omitted"] == json{{"bytes", 411}});
  CHECK_THAT(refused["message"].get<std::string>(), Catch::Contains("Nobody was asked"));
  CHECK(shop.s.asks().size() == 1);
  // The app's own door mints whatever the budget says: the app chose to ask.
  CHECK(shop.s.confirm_ask("checkout.place-order", other).id == "ask-2");
  CHECK(shop.runs == 0);
}

TEST_CASE("an ask_id or instance longer than the port's bound names nothing and is not kept") {
  Shop shop;
  gp::AgentPort port(shop.s);
  const std::string long_id(gp::AgentPort::max_id_bytes + 1, 'a');
  const json asked = port.call("do_action", {{"action", "checkout.place-order"}, {"ask_id", long_id}}).json();
  CHECK(asked["reason"] == "APPROVAL_REQUIRED");
  CHECK_THAT(asked["message"].get<std::string>(), Catch::Contains("\"ask_id\" was longer than 1024 bytes"));
  const json item = port.call("do_action", {{"action", "cart.add"}, {"instance", long_id}}).json();
  CHECK(item["ok"] == true);
  CHECK_THAT(item["message"].get<std::string>(), Catch::Contains("\"instance\" was longer than 1024 bytes"));
  const auto v = shop.s.view();
  REQUIRE(v.gap_rows().size() == 1);
  CHECK(v.gap_rows()[0].ask_id.size() < 64);
  CHECK(v.transitions()[0].instance.empty());
}

// [timing]: its memory bound means nothing under a sanitizer's allocator, as a time bound
// does not; what the session keeps of such inputs is held by the cases above.
TEST_CASE("forty refused 7 MiB do_action inputs leave the process under 256 MiB", "[timing]") {
  hostile::return_freed_memory();
  Shop shop;
  gp::mcp::Protocol p(shop.s, {.log = [](std::string_view) {}});
  ojson args{{"action", "checkout.place-order"}, {"input", {{"note", std::string(7 * MiB, 'x')}}}};
  std::string& note = args["input"]["note"].get_ref<std::string&>();
  const std::size_t before = hostile::current_rss();
  for (int i = 0; i < 40; ++i) {
    note[0] = static_cast<char>('a' + i % 26);  // each a new input: no ask is found twice
    note[1] = static_cast<char>('a' + i / 26);
    const ojson r = p.call_tool("do_action", args);
    REQUIRE(r["structuredContent"]["reason"] == "APPROVAL_REQUIRED");
  }
  hostile::return_freed_memory();
  const std::size_t after = hostile::current_rss();
  INFO("RSS before " << before / MiB << " MiB, after " << after / MiB << " MiB");
  if (hostile::rss_is_meaningful) {
    CHECK(after < 256 * MiB);
    // What the session keeps: a refusal's payload and an ask, within its 4 MiB budget.
    CHECK(after - std::min(after, before) < 32 * MiB);
  }
  CHECK(shop.s.view().gap_rows().size() == 40);
  CHECK(shop.s.asks().empty());  // 7 MiB never fits the 4 MiB budget: nobody was asked
}

// --- what one check call may carry -----------------------------------------------------------

namespace {

const ojson ranking{{"name", "campaign_ctr"},
                    {"scores", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}}},
                    {"key", "ctr"},
                    {"tool", "warehouse.query"}};

// A check call of `n` superlative checks, each over a field of its own: the fields a
// verdict names, re-asks and describes grow with the checks (the quadratic case). Written
// as text: an ordered_json object finds a key by a scan.
std::string check_line(std::size_t n) {
  std::string checks, output;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string field = "\"w" + std::to_string(i) + "\"";
    checks += (i ? "," : "") + std::string(R"({"check":"superlative","fact":"campaign_ctr","field":)") + field + "}";
    output += (i ? "," : "") + field + R"(:"north")";  // every claim wrong
  }
  return R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"check","arguments":{"facts":["campaign_ctr"],"checks":[)" +
         checks + R"(],"output":{)" + output + "}}}}";
}

ojson answer_to(gp::mcp::Protocol& p, const std::string& line) {
  const auto reply = p.handle_line(line);
  REQUIRE(reply);
  return ojson::parse(*reply)["result"];
}

}  // namespace

TEST_CASE("a check call past the per-call limit is a tool error naming the limit and --max-checks") {
  gp::mcp::Protocol p({.log = [](std::string_view) {}, .max_checks = 50});
  REQUIRE(p.call_tool("record_ranking", ranking)["isError"] == false);
  const ojson at = answer_to(p, check_line(50));
  CHECK(at["isError"] == false);
  CHECK(at["structuredContent"]["ok"] == false);
  CHECK(at["structuredContent"]["failed"].size() == 50);
  const ojson over = answer_to(p, check_line(51));
  CHECK(over["isError"] == true);
  const std::string text = over["content"][0]["text"];
  CHECK_THAT(text,
             Catch::Contains(
                 "holds 51 checks, over the limit of 50 (groundplane-mcp --max-checks, ServerOptions::max_checks)"));
  CHECK_THAT(text, Catch::Contains("nothing was checked"));
}

TEST_CASE("a check call's cost is linear in its checks when every check reads a field of its own", "[timing]") {
  gp::mcp::Protocol p({.log = [](std::string_view) {}, .max_checks = 1'000'000});
  REQUIRE(p.call_tool("record_ranking", ranking)["isError"] == false);
  const std::string small = check_line(300), large = check_line(3000);
  double t_small = 1e9, t_large = 1e9;
  std::optional<std::string> reply;
  for (int round = 0; round < 2; ++round) {  // the quicker of two: a busy machine only slows a run
    t_small = std::min(t_small, hostile::seconds_of([&] { reply = p.handle_line(small); }));
    CHECK(ojson::parse(*reply)["result"]["structuredContent"]["failed"].size() == 300);
    t_large = std::min(t_large, hostile::seconds_of([&] { reply = p.handle_line(large); }));
    CHECK(ojson::parse(*reply)["result"]["structuredContent"]["failed"].size() == 3000);
  }
  INFO("300 checks " << t_small << " s, 3,000 checks " << t_large << " s");
  CHECK(t_large <= 15 * t_small);
}

// --- the cost of each input at 1x, 10x and 100x its bound ------------------------------------
//
// docs/security.md's table, the app's and the MCP tools' rows: each input at its bound and
// at ten and a hundred times it, with the stated outcome, a time and memory budget, and
// ten times the input costing at most fifteen times the time (from 10x to 100x, where the
// input dominates). Each figure is the CPU time of the quickest of three runs, and a step
// under 20 ms counts as 20 ms: a busy machine only ever slows a run, and its noise is
// milliseconds.
// Budgets are for the Debug build CI runs; bench/run hostile has full-size attacks.

namespace {

constexpr std::size_t scales[] = {1, 10, 100};  // times the bound

struct Cost {
  double seconds = 1e9;
  std::size_t peak_growth = 0;  // peak RSS over what was resident before
};

// The quickest of three runs of `run`, each after `setup` (not timed).
Cost quickest(const std::function<void()>& setup, const std::function<void()>& run) {
  Cost best;
  for (int trial = 0; trial < 3; ++trial) {
    setup();
    hostile::return_freed_memory();
    const std::size_t before = hostile::current_rss();
    hostile::reset_peak_rss();
    const double started = hostile::cpu_seconds();  // CPU, not wall: other work on the machine
    run();                                          // slows a wall clock, not this process's CPU
    const double seconds = hostile::cpu_seconds() - started;
    const std::size_t peak = hostile::peak_rss();
    if (seconds < best.seconds) best = {seconds, peak > before ? peak - before : 0};
  }
  return best;
}

void check_linear(const std::vector<Cost>& costs) {
  REQUIRE(costs.size() == 3);
  INFO("1x: " << costs[0].seconds << " s; 10x: " << costs[1].seconds << " s, " << costs[1].peak_growth / 1024
              << " KiB; 100x: " << costs[2].seconds << " s, " << costs[2].peak_growth / 1024 << " KiB");
  CHECK(costs[2].seconds <= 15 * std::max(costs[1].seconds, 0.020));
}

}  // namespace

TEST_CASE("cost: a payload nested 1x, 10x and 100x the depth bound", "[timing]") {
  Shop shop(gp::SessionOptions{});
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    json payload;
    std::optional<gp::FireResult> r;
    costs.push_back(quickest([&] { payload = nested(gp::max_payload_depth * scale); },
                             [&] { r = shop.s.fire("cart.add", {.payload = std::move(payload)}); }));
    INFO(scale << "x");
    CHECK(r->ok == (scale == 1));
    if (scale > 1) CHECK(r->payload_omitted == 2 * gp::max_payload_depth * scale);
    CHECK(costs.back().seconds < 0.5);
    CHECK(costs.back().peak_growth < 16 * MiB);
  }
  check_linear(costs);
}

TEST_CASE("cost: refused payloads of 1x, 10x and 100x the session's budget", "[timing]") {
  constexpr std::size_t budget = 1024 * 1024;
  const json payload{{"note", std::string(16 * 1024 - 11, 'n')}};  // 16 KiB of compact JSON
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    const std::size_t fires = scale * budget / (16 * 1024);
    std::optional<Shop> shop;
    costs.push_back(quickest(
        [&] { shop.emplace(gp::SessionOptions{.require_human_approval = true, .max_refused_payload_bytes = budget}); },
        [&] {
          for (std::size_t i = 0; i < fires; ++i) (void)shop->s.fire("checkout.place-order", {.payload = payload});
        }));
    INFO(scale << "x");
    std::uint64_t kept = 0, omitted = 0;
    for (const auto& g : shop->s.view().gap_rows()) {
      if (!g.payload.is_null()) kept += g.payload.dump().size();
      omitted += g.payload_omitted;
    }
    CHECK(kept <= budget);
    CHECK(kept + omitted == fires * 16 * 1024);
    CHECK(costs.back().seconds < 5);
    CHECK(costs.back().peak_growth < 32 * MiB);
  }
  check_linear(costs);
}

TEST_CASE("cost: a handler's data of 1x, 10x and 100x max_data_bytes", "[timing]") {
  gp::Session s;
  std::size_t size = 0;
  s.declare("search", {.does = "Search.",
                       .handler = [&](const json&) { return gp::HandlerResult{.data = std::string(size - 2, 'd')}; }});
  const std::size_t limit = gp::SessionOptions{}.max_data_bytes;
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    size = limit * scale;
    std::string id;
    costs.push_back(quickest([] {}, [&] { id = s.fire("search").transition_id; }));
    INFO(scale << "x");
    const json answer = s.outcome(id);
    if (scale == 1) CHECK(answer["data"].get_ref<const std::string&>().size() == size - 2);
    else CHECK(answer["data_omitted"] == json{{"bytes", size}});
    CHECK(costs.back().seconds < 0.5);
  }
  check_linear(costs);
}

TEST_CASE("cost: a do_action ask_id of 1x, 10x and 100x the port's id bound", "[timing]") {
  Shop shop;
  gp::AgentPort port(shop.s);
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    const json args{{"action", "checkout.place-order"},
                    {"ask_id", std::string(gp::AgentPort::max_id_bytes * scale, 'a')}};
    json answer;
    costs.push_back(quickest([] {}, [&] { answer = port.call("do_action", args).json(); }));
    INFO(scale << "x");
    CHECK(answer["reason"] == "APPROVAL_REQUIRED");
    CHECK((answer["message"].get<std::string>().find("was longer than") != std::string::npos) == (scale > 1));
    CHECK(shop.s.view().gap_rows().back().ask_id.size() <= gp::AgentPort::max_id_bytes);
    CHECK(costs.back().seconds < 0.5);
  }
  check_linear(costs);
}

TEST_CASE("cost: a check call of 1x, 10x and 100x the checks one call may carry", "[timing]") {
  constexpr std::size_t limit = 200;  // the default (1000) at 100x is a 7.6 MB call: seconds to read in Debug
  gp::mcp::Protocol p({.log = [](std::string_view) {}, .max_checks = limit});
  REQUIRE(p.call_tool("record_ranking", ranking)["isError"] == false);
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    const std::string line = check_line(limit * scale);
    std::optional<std::string> reply;
    costs.push_back(quickest([] {}, [&] { reply = p.handle_line(line); }));
    INFO(scale << "x");
    const ojson r = ojson::parse(*reply)["result"];
    CHECK(r["isError"] == (scale > 1));
    // Answered within the bound; refused past it before any check is built (its reading
    // is what is left).
    CHECK(costs.back().seconds < (scale == 1 ? 0.5 : scale == 10 ? 0.2 : 2.0));
    CHECK(costs.back().peak_growth < 8 * line.size() + 64 * MiB);
  }
  check_linear(costs);
}

TEST_CASE("cost: a message nested 1x, 10x and 100x the transport's depth bound", "[timing]") {
  gp::mcp::Protocol p({.log = [](std::string_view) {}, .max_facts = 1'000'000});
  const std::size_t limit = gp::mcp::ServerOptions{}.max_depth;
  std::vector<Cost> costs;
  int n = 0;
  for (const std::size_t scale : scales) {
    std::string line;
    std::optional<std::string> reply;
    costs.push_back(quickest(
        [&] {  // record_fact's value sits 4 levels into the message; each call records a new name
          line =
              R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"record_fact","arguments":{"name":"f)" +
              std::to_string(++n) + R"(","tool":"t","value":)" + hostile::nested_text(limit * scale - 4) + "}}}";
        },
        [&] { on_small_stack([&] { reply = p.handle_line(line); }); }));
    INFO(scale << "x");
    const ojson r = ojson::parse(*reply);
    if (scale == 1) CHECK(r["result"]["isError"] == false);
    else CHECK(r["error"]["code"] == -32600);
    CHECK(costs.back().seconds < 0.5);
  }
  check_linear(costs);
}

TEST_CASE("cost: a stdio line of 1x, 10x and 100x the line limit", "[timing]") {
  constexpr std::size_t limit = 64 * 1024;
  const std::string head =
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"record_fact","arguments":{"name":"f","tool":"t","value":")";
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    std::optional<gp::mcp::Server> server;
    std::istringstream in;
    std::ostringstream out;
    costs.push_back(quickest(
        [&] {
          server.emplace(gp::mcp::ServerOptions{.max_line_bytes = limit, .log = [](std::string_view) {}});
          in.str(head + std::string(limit * scale - head.size() - 5, 'v') + "\"}}}\n" +
                 R"({"jsonrpc":"2.0","id":3,"method":"ping"})" + "\n");
          in.clear();
          out.str("");
        },
        [&] { server->serve(in, out); }));
    INFO(scale << "x");
    std::istringstream replies(out.str());
    std::string first, second;
    REQUIRE(std::getline(replies, first));
    REQUIRE(std::getline(replies, second));
    if (scale == 1) CHECK(ojson::parse(first)["result"]["isError"] == false);
    else CHECK(ojson::parse(first)["error"]["code"] == -32600);
    CHECK(ojson::parse(second)["id"] == 3);  // the line after it is served
    CHECK(costs.back().seconds < 1);
    CHECK(costs.back().peak_growth < 16 * MiB);  // a line past the limit is skipped, never held
  }
  check_linear(costs);
}

TEST_CASE("cost: record calls of 1x, 10x and 100x a session's fact bytes", "[timing]") {
  constexpr std::size_t limit = 16 * 1024;
  // One call's text, its fact's name numbered in place: the same bytes each call, so the
  // 100x run is not slowed by reading more memory than the 10x run.
  std::string line =
      ojson{{"jsonrpc", "2.0"},
            {"id", 2},
            {"method", "tools/call"},
            {"params",
             {{"name", "record_fact"},
              {"arguments", {{"name", "f000000"}, {"tool", "t"}, {"value", std::string(limit / 4 - 200, 'v')}}}}}}
          .dump();
  const std::size_t number_at = line.find("f000000") + 1;
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    const std::size_t calls = scale * 4;  // each about a quarter of the limit
    std::optional<gp::mcp::Protocol> p;
    std::size_t refused = 0;
    costs.push_back(quickest(
        [&] {
          p.emplace(gp::mcp::ServerOptions{.log = [](std::string_view) {}, .max_fact_bytes = limit});
          refused = 0;
        },
        [&] {
          for (std::size_t i = 0; i < calls; ++i) {
            const std::string n = std::to_string(1'000'000 + i);  // six digits, zero-padded
            line.replace(number_at, 6, n, 1, 6);
            refused += p->handle_line(line)->find("(--max-fact-bytes)") != std::string::npos;
          }
        }));
    INFO(scale << "x");
    CHECK(p->registry().size() + refused == calls);
    CHECK(p->registry().size() <= 4);
    CHECK(costs.back().seconds < 5);
    CHECK(costs.back().peak_growth < 32 * MiB);
  }
  check_linear(costs);
}
