// A retried request is answered once (FireOptions::request_key), and a handler knows its
// fire (Session::current_fire: the idempotency key it hands the system it calls). In
// memory; the same across a restore, and fires left in doubt, are test_restarts.cpp's.
#include <atomic>
#include <chrono>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/agent_port.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

// An action that counts its runs and says which fire each was.
struct Charges {
  std::atomic<int> runs{0};
  std::vector<std::string> keys;  // each run's idempotency key, in order (one thread at a time here)
};

void declare_charge(gp::Session& s, Charges& c, gp::Concurrency concurrency = gp::Concurrency::parallel) {
  s.declare("card.charge", {.does = "Charge the card.",
                            .handler =
                                [&s, &c](const json&) {
                                  ++c.runs;
                                  c.keys.push_back(s.current_fire().idempotency_key);
                                  return gp::HandlerResult{};
                                },
                            .concurrency = concurrency});
}

std::size_t attempts(const gp::Session& s) { return s.view().attempts(); }

bool is_key(const std::string& k) {
  if (k.size() != 24) return false;
  for (const char c : k)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return k != std::string(24, '0');
}

}  // namespace

TEST_CASE("A retry with the same request key returns the first result, runs nothing and writes no row") {
  gp::Session s;
  Charges c;
  declare_charge(s, c);
  const auto first = s.fire("card.charge", {.payload = {{"cents", 1299}}, .request_key = "req-1"});
  REQUIRE(first.ok);
  CHECK_FALSE(first.replayed);
  const std::string block = s.ground_truth().text;
  const std::size_t rows = attempts(s);
  for (int i = 0; i < 3; ++i) {
    const auto again = s.fire("card.charge", {.payload = {{"cents", 1299}}, .request_key = "req-1"});
    CHECK(again.ok);
    CHECK(again.replayed);
    CHECK(again.transition_id == first.transition_id);
    CHECK(again.reason.empty());
  }
  CHECK(c.runs == 1);
  CHECK(attempts(s) == rows);
  CHECK(s.ground_truth().text == block);  // the ledger holds one transition, and the version did not move
  CHECK(s.transitions().at(0).request_key == "req-1");
  // Another key is another request.
  CHECK_FALSE(s.fire("card.charge", {.payload = {{"cents", 1299}}, .request_key = "req-2"}).replayed);
  CHECK(c.runs == 2);
}

TEST_CASE("The same request key with another action, principal, instance or payload is refused REQUEST_KEY_REUSED") {
  gp::Session s;
  Charges c;
  declare_charge(s, c);
  s.declare("mail.send", {.does = "Send the receipt.", .handler = [](const json&) { return gp::HandlerResult{}; }});
  s.declare("order.cancel", {.does = "Cancel an order.",
                             .handler = [](const json&) { return gp::HandlerResult{}; },
                             .instances =
                                 [](const json&) {
                                   return std::vector<std::string>{"57", "58"};
                                 }});
  REQUIRE(s.fire("order.cancel", {.instance = "57", .request_key = "k-item"}).ok);
  REQUIRE(s.fire("card.charge", {.payload = {{"cents", 5}}, .request_key = "k"}).ok);
  const std::size_t rows = attempts(s);
  const auto other_action = s.fire("mail.send", {.payload = {{"cents", 5}}, .request_key = "k"});
  const auto other_principal =
      s.fire("card.charge", {.source = gp::Principal::user, .payload = {{"cents", 5}}, .request_key = "k"});
  const auto other_payload = s.fire("card.charge", {.payload = {{"cents", 6}}, .request_key = "k"});
  const auto other_instance = s.fire("order.cancel", {.instance = "58", .request_key = "k-item"});
  for (const auto* r : {&other_action, &other_principal, &other_payload, &other_instance}) {
    CHECK_FALSE(r->ok);
    CHECK(r->reason == "REQUEST_KEY_REUSED");
    CHECK(r->transition_id.empty());
    CHECK_FALSE(r->replayed);
  }
  CHECK(c.runs == 1);
  CHECK(attempts(s) == rows + 4);  // each a gap row, like every refusal
  const auto gaps = s.gap_rows();
  CHECK(gaps.back().reason == gp::Refusal::request_key_reused);
  CHECK(gaps.back().request_key == "k-item");
  CHECK_THAT(s.ground_truth().text,
             Catch::Contains("did NOT happen — agent's fire of card.charge was refused: REQUEST_KEY_REUSED"));
  // Payloads compare structurally, as an approval's input does: member order is not a difference.
  REQUIRE(s.fire("card.charge", {.payload = json::parse(R"({"a": 1, "b": [1, 2]})"), .request_key = "k2"}).ok);
  CHECK(s.fire("card.charge", {.payload = json::parse(R"({"b": [1, 2], "a": 1})"), .request_key = "k2"}).replayed);
  CHECK(s.fire("card.charge", {.payload = json::parse(R"({"b": [2, 1], "a": 1})"), .request_key = "k2"}).reason ==
        "REQUEST_KEY_REUSED");
}

TEST_CASE("A bound request key is looked up before every refusal reason: a match replays whatever the gate says now") {
  gp::Session s({.require_human_approval = true});
  bool open = true;
  int ran = 0;
  s.declare("refund", {.does = "Refund the order.",
                       .handler =
                           [&](const json&) {
                             ++ran;
                             return gp::HandlerResult{};
                           },
                       .enabled_when = [&](const json&) { return open; },
                       .concurrency = gp::Concurrency::once});
  const auto first = s.fire("refund", {.request_key = "r"});
  REQUIRE(first.ok);
  open = false;  // would be TOOL_DISABLED now, and DUPLICATE_EXECUTION after it
  CHECK(s.fire("refund", {.request_key = "r"}).replayed);
  s.undeclare("refund");  // would be UNKNOWN_AFFORDANCE
  const auto gone = s.fire("refund", {.request_key = "r"});
  CHECK(gone.replayed);
  CHECK(gone.ok);
  CHECK(gone.transition_id == first.transition_id);
  CHECK(ran == 1);
  // A key that does not match, for an action not declared now: UNKNOWN_AFFORDANCE comes first.
  CHECK(s.fire("refund", {.payload = 1, .request_key = "r"}).reason == "UNKNOWN_AFFORDANCE");
  // Declared again and disabled: REQUEST_KEY_REUSED comes right after UNKNOWN_AFFORDANCE,
  // before TOOL_DISABLED.
  s.declare("refund", {.does = "Refund the order.",
                       .handler = [](const json&) { return gp::HandlerResult{}; },
                       .enabled_when = [](const json&) { return false; }});
  CHECK(s.fire("refund", {.payload = 1, .request_key = "r"}).reason == "REQUEST_KEY_REUSED");
  CHECK(s.fire("refund", {.payload = 1, .request_key = "other"}).reason == "TOOL_DISABLED");
}

TEST_CASE("A refused fire binds nothing: the retry after a person approved, with the ask's id, fires") {
  gp::Session s({.require_human_approval = true});
  int ran = 0;
  s.declare("refund", {.does = "Refund the order.",
                       .handler =
                           [&](const json&) {
                             ++ran;
                             return gp::HandlerResult{};
                           },
                       .high_effect = true});
  const json order{{"order", 57}};
  const auto refused = s.fire("refund", {.payload = order, .request_key = "req-57"});
  CHECK(refused.reason == "APPROVAL_REQUIRED");
  CHECK(s.fire("refund", {.payload = order, .request_key = "req-57"}).reason == "APPROVAL_REQUIRED");  // judged afresh
  const auto ask = s.confirm_ask("refund", order);
  REQUIRE(s.approve_ask(ask.id, "ana").ok);
  const auto fired = s.fire("refund", {.payload = order, .ask_id = ask.id, .request_key = "req-57"});
  CHECK(fired.ok);
  CHECK_FALSE(fired.replayed);
  // Now bound: the retry replays rather than being refused APPROVAL_SPENT.
  const auto again = s.fire("refund", {.payload = order, .ask_id = ask.id, .request_key = "req-57"});
  CHECK(again.replayed);
  CHECK(again.transition_id == fired.transition_id);
  CHECK(ran == 1);
}

TEST_CASE("A replay of a fire whose handler failed returns HANDLER_FAILED again and never rethrows") {
  gp::Session s;
  int ran = 0;
  s.declare("pay", {.does = "Pay.", .handler = [&](const json&) -> gp::HandlerResult {
                      ++ran;
                      throw std::runtime_error("the bank hung up");
                    }});
  CHECK_THROWS_AS(s.fire("pay", {.request_key = "p"}), std::runtime_error);
  const auto again = s.fire("pay", {.request_key = "p"});
  CHECK_FALSE(again.ok);
  CHECK(again.reason == "HANDLER_FAILED");
  CHECK(again.replayed);
  CHECK(again.transition_id == "t-1");
  s.declare("fail", {.does = "Fail.", .handler = [](const json&) { return gp::HandlerResult{false, "no"}; }});
  const auto failed = s.fire("fail", {.request_key = "f"});
  CHECK(failed.reason == "HANDLER_FAILED");
  const auto failed_again = s.fire("fail", {.request_key = "f"});
  CHECK(failed_again.reason == "HANDLER_FAILED");
  CHECK(failed_again.replayed);
  CHECK(failed_again.transition_id == failed.transition_id);
  CHECK(ran == 1);
}

TEST_CASE("A fire the app rejected frees its request key: the retry is judged afresh and fires") {
  gp::Session s;
  int ran = 0;
  s.declare("print", {.does = "Print the label.",
                      .writes = {"label"},
                      .handler =
                          [&](const json&) {
                            ++ran;
                            return gp::HandlerResult{};
                          },
                      .concurrency = gp::Concurrency::once});
  const auto first = s.fire("print", {.request_key = "label-1"});
  REQUIRE(first.ok);
  CHECK(s.fire("print", {.request_key = "label-1"}).replayed);
  REQUIRE(s.reject(first.transition_id, "PRINTER_JAMMED"));
  const auto retry = s.fire("print", {.request_key = "label-1"});
  CHECK_FALSE(retry.replayed);
  CHECK(retry.ok);
  CHECK(retry.transition_id != first.transition_id);
  CHECK(ran == 2);
  // A rejected fire's successor gets a key of its own: the system it called may have kept
  // the failure under the first key, and would answer the retry with it.
  const auto ts = s.transitions();
  CHECK(ts.at(0).idempotency_key != ts.at(1).idempotency_key);
  CHECK(s.fire("print", {.request_key = "label-1"}).replayed);  // bound to the new fire now
}

TEST_CASE("Thousands of request keys bound, freed by rejects and bound again each answer their own retries") {
  for (const std::size_t cap : {std::size_t{0}, std::size_t{64}}) {
    INFO("max_rows_in_memory " << cap);
    gp::Session s({.max_rows_in_memory = cap});
    int ran = 0;
    s.declare("print", {.does = "Print the label.", .writes = {"label"}, .handler = [&](const json&) {
                          ++ran;
                          return gp::HandlerResult{};
                        }});
    constexpr int n = 5000;
    const auto key = [](int i) { return "label-" + std::to_string(i); };
    std::vector<std::string> first(n);
    for (int i = 0; i < n; ++i) {
      const auto r = s.fire("print", {.payload = {{"label", i}}, .request_key = key(i)});
      REQUIRE(r.ok);
      first[static_cast<std::size_t>(i)] = r.transition_id;
    }
    // Every other one rejected (its key freed), then fired again: bound to the new fire.
    for (int i = 0; i < n; i += 2) REQUIRE(s.reject(first[static_cast<std::size_t>(i)], "PRINTER_JAMMED"));
    std::vector<std::string> second(n);
    for (int i = 0; i < n; i += 2) {
      const auto r = s.fire("print", {.payload = {{"label", i}}, .request_key = key(i)});
      REQUIRE_FALSE(r.replayed);
      second[static_cast<std::size_t>(i)] = r.transition_id;
    }
    CHECK(ran == n + n / 2);
    for (int i = 0; i < n; ++i) {
      const auto& expected = i % 2 == 0 ? second[static_cast<std::size_t>(i)] : first[static_cast<std::size_t>(i)];
      const auto again = s.fire("print", {.payload = {{"label", i}}, .request_key = key(i)});
      REQUIRE(again.replayed);
      REQUIRE(again.transition_id == expected);
      REQUIRE(s.fire("print", {.payload = {{"label", i + 1}}, .request_key = key(i)}).reason == "REQUEST_KEY_REUSED");
    }
    CHECK(ran == n + n / 2);
  }
}

TEST_CASE("The same request key from inside the fire's own handler is refused REQUEST_KEY_REUSED, not a deadlock") {
  gp::Session s;
  std::string inner;
  int ran = 0;
  s.declare("sync", {.does = "Sync the inbox.", .handler = [&](const json&) {
                       ++ran;
                       if (ran == 1) inner = s.fire("sync", {.request_key = "sync-1"}).reason;
                       return gp::HandlerResult{};
                     }});
  const auto outer = s.fire("sync", {.request_key = "sync-1"});
  CHECK(outer.ok);
  CHECK(inner == "REQUEST_KEY_REUSED");
  CHECK(ran == 1);
  CHECK(s.fire("sync", {.request_key = "sync-1"}).replayed);  // once the first call returned
}

TEST_CASE("The same request key from 8 threads at once runs the handler once and gives 8 equal results") {
  for (int round = 0; round < 20; ++round) {
    gp::Session s;
    std::atomic<int> runs{0};
    s.declare("card.charge", {.does = "Charge the card.", .handler = [&](const json&) {
                                ++runs;
                                std::this_thread::sleep_for(std::chrono::milliseconds(2));  // retries arrive meanwhile
                                return gp::HandlerResult{};
                              }});
    constexpr int threads = 8;
    std::latch start(threads);
    std::vector<gp::FireResult> results(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        start.arrive_and_wait();
        results[static_cast<std::size_t>(t)] =
            s.fire("card.charge", {.payload = {{"cents", 1299}}, .request_key = "order-57-charge"});
      });
    for (auto& th : pool) th.join();
    CHECK(runs == 1);
    int replayed = 0;
    for (const auto& r : results) {
      CHECK(r.ok);
      CHECK(r.transition_id == "t-1");
      CHECK(r.reason.empty());
      replayed += r.replayed ? 1 : 0;
    }
    CHECK(replayed == threads - 1);
    CHECK(s.view().attempts() == 1);
  }
}

TEST_CASE("A retry waits for a first call still inside fire without holding the session's lock") {
  gp::Session s;
  std::latch retry_waiting(1);
  std::atomic<bool> retried{false};
  std::thread retry;
  s.declare("slow", {.does = "Take a while.", .handler = [&](const json&) {
                       retry = std::thread([&] {
                         retry_waiting.count_down();
                         const auto r = s.fire("slow", {.request_key = "s"});
                         retried = r.replayed && r.transition_id == "t-1";
                       });
                       retry_waiting.wait();
                       std::this_thread::sleep_for(std::chrono::milliseconds(20));
                       // The retry is waiting now; the session is free for everyone else.
                       s.report_state({{"note", 1}});
                       CHECK(s.version() == 1);
                       CHECK_THAT(s.ground_truth().text, Catch::Contains("Attempts so far"));
                       return gp::HandlerResult{};
                     }});
  CHECK(s.fire("slow", {.request_key = "s"}).ok);
  retry.join();
  CHECK(retried);
}

TEST_CASE(
    "A request key holds at most 128 characters, counted as characters, and past it fire throws and writes nothing") {
  gp::Session s;
  Charges c;
  declare_charge(s, c);
  CHECK(s.fire("card.charge", {.request_key = std::string(128, 'k')}).ok);
  std::string accents;
  for (int i = 0; i < 128; ++i) accents += "\xc3\xa9";  // 128 characters, 256 bytes
  CHECK(s.fire("card.charge", {.request_key = accents}).ok);
  const std::size_t rows = attempts(s);
  CHECK_THROWS_AS(s.fire("card.charge", {.request_key = std::string(129, 'k')}), gp::ConfigurationError);
  CHECK_THROWS_AS(s.fire("card.charge", {.request_key = std::string(1280, 'k')}), gp::ConfigurationError);  // 10x
  CHECK_THROWS_AS(s.fire("card.charge", {.request_key = accents + "\xc3\xa9"}), gp::ConfigurationError);
  CHECK_THROWS_WITH(s.fire("card.charge", {.request_key = std::string(1280, '\x80')}),  // not UTF-8: a byte each
                    Catch::Contains("over 128 characters (1280 bytes)"));
  CHECK(attempts(s) == rows);
  CHECK(c.runs == 2);
}

TEST_CASE("Without a store, bound request keys are kept for the session's life whatever max_rows_in_memory says") {
  gp::Session s({.max_rows_in_memory = 8});
  Charges c;
  declare_charge(s, c);
  const auto first = s.fire("card.charge", {.payload = {{"order", 0}}, .request_key = "order-0"});
  for (int i = 1; i < 100; ++i)
    REQUIRE(s.fire("card.charge", {.payload = {{"order", i}}, .request_key = "order-" + std::to_string(i)}).ok);
  REQUIRE_FALSE(s.view().transition(first.transition_id).has_value());  // let go of
  const auto again = s.fire("card.charge", {.payload = {{"order", 0}}, .request_key = "order-0"});
  CHECK(again.replayed);
  CHECK(again.transition_id == first.transition_id);
  CHECK(s.fire("card.charge", {.payload = {{"order", 1}}, .request_key = "order-0"}).reason == "REQUEST_KEY_REUSED");
  CHECK(c.runs == 100);
}

TEST_CASE("For an action that takes no input, a retry's {} matches a first call's null") {
  gp::Session s;
  int ran = 0;
  s.declare("ping", {.does = "Ping.",
                     .handler =
                         [&](const json&) {
                           ++ran;
                           return gp::HandlerResult{};
                         },
                     .input = "none"});
  REQUIRE(s.fire("ping", {.payload = json::object(), .request_key = "p"}).ok);
  CHECK(s.fire("ping", {.request_key = "p"}).replayed);
  CHECK(s.fire("ping", {.payload = json::object(), .request_key = "p"}).replayed);
  CHECK(ran == 1);
}

TEST_CASE("current_fire tells a handler its transition id, idempotency key and item, and throws outside one") {
  gp::Session s;
  std::vector<gp::FireContext> seen;
  std::string nested_key;
  s.declare("order.cancel", {.does = "Cancel an order.",
                             .handler =
                                 [&](const json&) {
                                   seen.push_back(s.current_fire());
                                   if (seen.size() == 1) {
                                     nested_key = s.fire("order.cancel", {.instance = "58"}).transition_id;
                                     seen.push_back(s.current_fire());  // its own context again after the nested fire
                                   }
                                   return gp::HandlerResult{};
                                 },
                             .instances =
                                 [](const json&) {
                                   return std::vector<std::string>{"57", "58"};
                                 }});
  CHECK_THROWS_WITH(s.current_fire(), Catch::Contains("outside a handler"));
  const auto r = s.fire("order.cancel", {.payload = {{"why", "late"}}, .instance = "57"});
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].transition_id == r.transition_id);
  CHECK(seen[0].instance == "57");
  CHECK(seen[0].payload == nullptr);  // a handler has its payload already
  CHECK(is_key(seen[0].idempotency_key));
  CHECK(seen[1].transition_id == nested_key);
  CHECK(seen[1].instance == "58");
  CHECK(seen[1].idempotency_key != seen[0].idempotency_key);
  CHECK(seen[2].transition_id == r.transition_id);
  CHECK(seen[2].idempotency_key == seen[0].idempotency_key);
  // The row holds the key the handler was given.
  CHECK(s.view().transition(r.transition_id)->idempotency_key == seen[0].idempotency_key);
  CHECK_THROWS_AS(s.current_fire(), gp::ConfigurationError);
}

TEST_CASE(
    "Every recorded fire gets 96 fresh random bits as its key, none repeated, and refusals and inferences get none") {
  gp::Session s({.allow_unmaterialized_fires = true});
  Charges c;
  declare_charge(s, c);
  s.declare("tour", {.does = "Take the tour."});  // no handler: recorded, nothing runs
  s.declare("cart.add", {.does = "Add to the cart.", .writes = {"cart"}});
  std::set<std::string> keys;
  for (int i = 0; i < 5000; ++i) s.fire(i % 10 == 0 ? "tour" : "card.charge");
  s.fire("nope");
  s.report_state({{"cart", 1}});  // inferred: nobody fired it
  const auto ts = s.transitions();
  REQUIRE(ts.size() == 5001);
  for (std::size_t i = 0; i < 5000; ++i) {
    CHECK(is_key(ts[i].idempotency_key));
    keys.insert(ts[i].idempotency_key);
  }
  CHECK(keys.size() == 5000);
  CHECK(ts.back().outcome == gp::Outcome::inferred);
  CHECK(ts.back().idempotency_key.empty());
}

TEST_CASE("do_action takes a request_key: a retry is answered with the first fire, replayed, and lands no row") {
  gp::Session s;
  Charges c;
  declare_charge(s, c);
  gp::AgentPort port(s);
  const json call{{"action", "card.charge"}, {"input", {{"cents", 1299}}}, {"request_key", "req-1"}};
  const auto first = port.call("do_action", call);
  REQUIRE(first["ok"] == true);
  CHECK_FALSE(first.contains("replayed"));
  const std::size_t rows = attempts(s);
  const auto again = port.call("do_action", call);
  CHECK(again["ok"] == true);
  CHECK(again["replayed"] == true);
  CHECK(again["transition_id"] == first["transition_id"]);
  CHECK(again["settled"] == true);
  CHECK(again["did"] == "unknown");
  CHECK(again["line"] == "ran, but the effect was unobservable — agent fired card.charge (committed)");
  CHECK_THAT(again["message"].get<std::string>(), Catch::Contains("nothing ran again"));
  CHECK(again.dump().rfind("{\"facts\":", 0) == 0);
  CHECK(attempts(s) == rows);
  CHECK(c.runs == 1);
  // Unmounted since: still the same fire, not NOT_HERE.
  s.undeclare("card.charge");
  const auto gone = port.call("do_action", call);
  CHECK(gone["replayed"] == true);
  CHECK(gone["transition_id"] == first["transition_id"]);
  CHECK(port.call("do_action", {{"action", "card.charge"}, {"request_key", "req-9"}})["reason"] == "NOT_HERE");
  CHECK(attempts(s) == rows);
}

TEST_CASE("do_action refuses a request_key it cannot honour as INVALID_ARGUMENTS, firing nothing, at 10x its bound") {
  gp::Session s;
  Charges c;
  declare_charge(s, c);
  gp::AgentPort port(s);
  for (const json& key : {json(std::string(129, 'k')), json(std::string(1280, 'k')), json(57), json::array({"k"})}) {
    const auto r = port.call("do_action", {{"action", "card.charge"}, {"request_key", key}});
    CHECK(r["ok"] == false);
    CHECK(r["reason"] == "INVALID_ARGUMENTS");
    CHECK_THAT(r["message"].get<std::string>(), Catch::Contains("at most 128 characters"));
  }
  CHECK(attempts(s) == 0);
  CHECK(c.runs == 0);
  CHECK(port.call("do_action", {{"action", "card.charge"}, {"request_key", nullptr}})["ok"] == true);  // null: none
  CHECK(port.call("do_action", {{"action", "card.charge"}, {"request_key", std::string(128, 'k')}})["ok"] == true);
  const auto reused =
      port.call("do_action", {{"action", "card.charge"}, {"input", 1}, {"request_key", std::string(128, 'k')}});
  CHECK(reused["reason"] == "REQUEST_KEY_REUSED");
  CHECK_THAT(reused["message"].get<std::string>(), Catch::Contains("new request_key"));
}
