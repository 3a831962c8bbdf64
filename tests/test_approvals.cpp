// An approval's lifecycle: withdrawn (revoke_ask), outlived (approval_ttl), overtaken by
// the state it was given for (ActionSpec::reads), standing grants, and the decider every
// human door requires.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/agent_port.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

bool has_line(const std::string& text, const std::string& line) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (text.compare(start, end - start, line) == 0 && end - start == line.size()) return true;
    start = end + 1;
  }
  return false;
}

const std::string order = "checkout.place-order";

struct Shop {
  gp::Session s;
  int placed = 0;
  explicit Shop(gp::SessionOptions o = {.require_human_approval = true}) : s(std::move(o)) {
    s.declare(order, {.does = "Place the order and charge the card.",
                      .handler =
                          [this](const json&) {
                            ++placed;
                            return gp::HandlerResult{};
                          },
                      .high_effect = true,
                      .reads = {"cart", "/shipping/address"}});
  }
  gp::Ask approved(const json& input = nullptr) {
    const auto ask = s.confirm_ask(order, input);
    REQUIRE(s.approve_ask(ask.id, "dana"));
    return ask;
  }
};

}  // namespace

TEST_CASE("a revoked approval is refused APPROVAL_REVOKED and a replay stays refused") {
  Shop shop;
  const auto ask = shop.approved();
  const auto revoked = shop.s.revoke_ask(ask.id, "dana");
  CHECK(revoked.ok);
  CHECK(revoked.reason.empty());
  CHECK(shop.s.view().ask(ask.id)->state == gp::AskState::revoked);
  CHECK(shop.s.view().ask(ask.id)->revoked_by == "dana");
  for (int replay = 0; replay < 3; ++replay) CHECK(shop.s.fire(order, {.ask_id = ask.id}).reason == "APPROVAL_REVOKED");
  CHECK(shop.placed == 0);
  const std::string text = shop.s.ground_truth().text;
  CHECK(has_line(text, "The human withdrew approval: checkout.place-order (ask-1)."));
  CHECK(text.find("Approved by the human") == std::string::npos);
  CHECK(text.find("dana") == std::string::npos);
  // Revoked is terminal: it cannot be approved again, and asking again mints a new card.
  CHECK(shop.s.approve_ask(ask.id, "dana").reason == "ALREADY_REVOKED");
  CHECK(shop.s.decline_ask(ask.id, "dana").reason == "ALREADY_REVOKED");
  CHECK(shop.s.confirm_ask(order).id == "ask-2");
}

TEST_CASE("revoking answers for every state an ask can be in") {
  Shop shop;
  const auto awaiting = shop.s.confirm_ask(order, {{"n", 1}});
  CHECK(shop.s.revoke_ask(awaiting.id, "dana").reason == "NOT_APPROVED");
  CHECK(shop.s.view().ask(awaiting.id)->state == gp::AskState::awaiting);
  const auto spent = shop.approved({{"n", 2}});
  REQUIRE(shop.s.fire(order, {.payload = {{"n", 2}}, .ask_id = spent.id}).ok);
  CHECK(shop.s.revoke_ask(spent.id, "dana").reason == "ALREADY_SPENT");
  const auto declined = shop.s.confirm_ask(order, {{"n", 3}});
  REQUIRE(shop.s.decline_ask(declined.id, "dana"));
  CHECK(shop.s.revoke_ask(declined.id, "dana").reason == "ALREADY_DECLINED");
  const auto twice = shop.approved({{"n", 4}});
  REQUIRE(shop.s.revoke_ask(twice.id, "dana"));
  CHECK(shop.s.revoke_ask(twice.id, "dana").reason == "ALREADY_REVOKED");
  CHECK(shop.s.revoke_ask("ask-99", "dana").reason == "UNKNOWN_ASK");
  CHECK_FALSE(shop.s.revoke_ask("ask-99", "dana"));
}

namespace {
// A wall clock the test moves itself (SessionOptions::clock): no sleeping.
struct TestClock {
  std::shared_ptr<std::chrono::system_clock::time_point> now =
      std::make_shared<std::chrono::system_clock::time_point>(std::chrono::sys_days{std::chrono::year{2026} / 3 / 1});
  std::function<std::chrono::system_clock::time_point()> fn() const {
    return [now = now] { return *now; };
  }
  void advance(std::chrono::milliseconds d) const { *now += d; }
};
}  // namespace

TEST_CASE("an approval older than approval_ttl is refused APPROVAL_STALE and the block says it is stale") {
  const TestClock clock;
  Shop shop({.require_human_approval = true, .approval_ttl = std::chrono::milliseconds(40), .clock = clock.fn()});
  const auto old = shop.approved({{"n", 1}});
  clock.advance(std::chrono::milliseconds(40));  // exactly the ttl: still fresh
  CHECK(has_line(shop.s.ground_truth().text, "Approved by the human, not yet done: checkout.place-order (ask-1)."));
  clock.advance(std::chrono::milliseconds(1));  // a millisecond past it
  CHECK(has_line(shop.s.ground_truth().text, "Approved by the human, but stale now: checkout.place-order (ask-1)."));
  CHECK(shop.s.fire(order, {.payload = {{"n", 1}}, .ask_id = old.id}).reason == "APPROVAL_STALE");
  CHECK(shop.s.view().ask(old.id)->state == gp::AskState::approved);  // refused, not spent
  // Asking again for the same input mints a fresh card instead of handing back the stale yes.
  const auto fresh = shop.s.confirm_ask(order, {{"n", 1}});
  CHECK(fresh.id != old.id);
  REQUIRE(shop.s.approve_ask(fresh.id, "dana"));
  clock.advance(std::chrono::milliseconds(39));
  CHECK(shop.s.fire(order, {.payload = {{"n", 1}}, .ask_id = fresh.id}).ok);  // inside the ttl
  CHECK(shop.placed == 1);
}

TEST_CASE("without approval_ttl an approval does not expire, however far the clock moves") {
  const TestClock clock;
  Shop shop({.require_human_approval = true, .clock = clock.fn()});
  const auto ask = shop.approved();
  clock.advance(std::chrono::hours(24 * 365));
  CHECK(has_line(shop.s.ground_truth().text, "Approved by the human, not yet done: checkout.place-order (ask-1)."));
  CHECK(shop.s.fire(order, {.ask_id = ask.id}).ok);
  CHECK_THROWS_AS(gp::Session({.approval_ttl = std::chrono::milliseconds(-1)}), gp::ConfigurationError);
}

TEST_CASE("an approval is stamped with the injected clock's time, not the system's") {
  const TestClock clock;
  Shop shop({.require_human_approval = true, .approval_ttl = std::chrono::minutes(5), .clock = clock.fn()});
  const auto ask = shop.approved();
  CHECK(shop.s.view().ask(ask.id)->approved_at == *clock.now);
}

TEST_CASE("an approval whose cart changed since the yes is refused APPROVAL_STALE") {
  Shop shop({.state = {{"cart", {"TEA-01"}}, {"shipping", {{"address", "Elm St"}}}}, .require_human_approval = true});
  const auto ask = shop.approved({{"total", 12}});
  shop.s.report_state({{"coupon", "none"}});  // a key the approval does not read: still fresh
  CHECK(has_line(shop.s.ground_truth().text, "Approved by the human, not yet done: checkout.place-order (ask-1)."));
  shop.s.report_state({{"cart", {"TEA-01", "CAKE-07"}}});  // the cart the person said yes to is gone
  CHECK(has_line(shop.s.ground_truth().text, "Approved by the human, but stale now: checkout.place-order (ask-1)."));
  CHECK(shop.s.fire(order, {.payload = {{"total", 12}}, .ask_id = ask.id}).reason == "APPROVAL_STALE");
  CHECK(shop.placed == 0);
  // The port asks the person afresh for the cart as it is now.
  gp::AgentPort port(shop.s);
  const auto r = port.call("do_action", {{"action", order}, {"input", {{"total", 12}}}, {"ask_id", ask.id}});
  CHECK(r["reason"] == "APPROVAL_STALE");
  CHECK(r["ask_id"] == "ask-2");
  REQUIRE(shop.s.approve_ask("ask-2", "dana"));
  CHECK(shop.s.fire(order, {.payload = {{"total", 12}}, .ask_id = "ask-2"}).ok);
}

TEST_CASE("a change inside a JSON Pointer read or a read key appearing makes an approval stale") {
  Shop shop({.state = {{"shipping", {{"address", "Elm St"}, {"eta", 2}}}}, .require_human_approval = true});
  const auto ask = shop.approved();
  shop.s.report_state({{"shipping", {{"eta", 3}}}});  // merge patch: the address is unchanged
  CHECK(shop.s.fire(order, {.ask_id = ask.id}).ok);
  const auto second = shop.approved({{"n", 2}});
  shop.s.report_state({{"shipping", {{"address", "Oak Ave"}}}});
  CHECK(shop.s.fire(order, {.payload = {{"n", 2}}, .ask_id = second.id}).reason == "APPROVAL_STALE");
  const auto third = shop.approved({{"n", 3}});  // approved while there is no cart at all
  shop.s.report_state({{"cart", json::array()}});
  CHECK(shop.s.fire(order, {.payload = {{"n", 3}}, .ask_id = third.id}).reason == "APPROVAL_STALE");
}

TEST_CASE("a standing grant lets agent fires pass the gate until it is revoked mid-loop") {
  Shop shop;
  REQUIRE(shop.s.grant_standing(order, "dana"));
  CHECK(has_line(shop.s.ground_truth().text, "The human allows checkout.place-order without asking, this session."));
  std::vector<std::string> reasons;
  for (int turn = 0; turn < 6; ++turn) {
    if (turn == 3) REQUIRE(shop.s.revoke_standing(order, "dana"));
    reasons.push_back(shop.s.fire(order, {.payload = {{"turn", turn}}}).reason);
  }
  CHECK(reasons == std::vector<std::string>{"", "", "", "APPROVAL_REQUIRED", "APPROVAL_REQUIRED", "APPROVAL_REQUIRED"});
  CHECK(shop.placed == 3);
  const auto v = shop.s.view();
  REQUIRE(v.transitions().size() == 3);
  for (const auto& t : v.transitions()) CHECK(t.cause.standing_grant);  // each records it ran under the grant
  REQUIRE(v.standing_grants().size() == 1);
  CHECK(v.standing_grants()[0].by == "dana");
  CHECK(v.standing_grants()[0].revoked_by == "dana");
}

TEST_CASE("a revoked standing grant reads as withdrawn and the gate is back") {
  Shop shop;
  REQUIRE(shop.s.grant_standing(order, "dana"));
  REQUIRE(shop.s.revoke_standing(order, "dana"));
  const std::string text = shop.s.ground_truth().text;
  CHECK(has_line(text, "The human withdrew standing approval: checkout.place-order."));
  CHECK(text.find("without asking") == std::string::npos);
  CHECK(shop.s.fire(order).reason == "APPROVAL_REQUIRED");
  // An ask still works as before, and does not need the grant.
  const auto ask = shop.approved();
  const auto r = shop.s.fire(order, {.ask_id = ask.id});
  CHECK(r.ok);
  CHECK_FALSE(shop.s.view().transition(r.transition_id)->cause.standing_grant);
}

TEST_CASE("standing grants answer ALREADY_GRANTED and NOT_GRANTED and name a declared action") {
  Shop shop;
  CHECK(shop.s.revoke_standing(order, "dana").reason == "NOT_GRANTED");
  REQUIRE(shop.s.grant_standing(order, "dana"));
  CHECK(shop.s.grant_standing(order, "sam").reason == "ALREADY_GRANTED");
  REQUIRE(shop.s.revoke_standing(order, "dana"));
  CHECK(shop.s.revoke_standing(order, "dana").reason == "NOT_GRANTED");
  CHECK(shop.s.grant_standing(order, "sam").ok);  // granted again
  CHECK_THROWS_AS(shop.s.grant_standing("checkout.place-ordr", "dana"), gp::ConfigurationError);
  // User and system fires were never gated; the grant changes nothing for them.
  CHECK(shop.s.fire(order, {.source = gp::Principal::user}).ok);
}

TEST_CASE("every human door refuses an empty or blank decider") {
  Shop shop;
  const auto ask = shop.s.confirm_ask(order);
  using Door = std::function<gp::ApprovalResult(const std::string&)>;
  const std::vector<std::pair<std::string, Door>> doors = {
      {"approve_ask", [&](const std::string& by) { return shop.s.approve_ask(ask.id, by); }},
      {"decline_ask", [&](const std::string& by) { return shop.s.decline_ask(ask.id, by); }},
      {"revoke_ask", [&](const std::string& by) { return shop.s.revoke_ask(ask.id, by); }},
      {"grant_standing", [&](const std::string& by) { return shop.s.grant_standing(order, by); }},
      {"revoke_standing", [&](const std::string& by) { return shop.s.revoke_standing(order, by); }}};
  const std::vector<std::string> blanks = {"",
                                           " ",
                                           "\t\n\r\v\f",
                                           "\xC2\xA0",
                                           "\xE2\x80\x8B",
                                           "\xE3\x80\x80",
                                           "\xEF\xBB\xBF",
                                           " \xE2\x80\xAF ",
                                           "\xE2\x81\xA0"};
  for (const auto& [name, door] : doors)
    for (const auto& by : blanks) {
      INFO(name << " by " << json(by).dump());
      CHECK_THROWS_AS(door(by), gp::ConfigurationError);
    }
  // Nothing changed: the ask still awaits, and no grant exists.
  CHECK(shop.s.view().ask(ask.id)->state == gp::AskState::awaiting);
  CHECK(shop.s.view().standing_grants().empty());
  // A real name, even with spaces around or inside it, is a decider.
  CHECK(shop.s.approve_ask(ask.id, " dana smith ").ok);
  CHECK(shop.s.revoke_ask(ask.id, "x").ok);
}

TEST_CASE("an approval for an input that is not UTF-8 is spent by those bytes alone, never by bytes that differ") {
  // The approval is bound to the input by a canonical form of it; a form that replaced
  // stray bytes (with U+FFFD, say) would let "\xff" and "\xfe" pass for each other.
  Shop shop;
  const json input = {{"note", "\xff"}, {"k\xe9", 1}};
  gp::Ask ask;
  REQUIRE_NOTHROW(ask = shop.approved(input));
  CHECK(shop.s.fire(order, {.payload = {{"note", "\xfe"}, {"k\xe9", 1}}, .ask_id = ask.id}).reason ==
        "APPROVAL_MISMATCH");
  CHECK(shop.s.fire(order, {.payload = {{"note", "\xff"}, {"k\xe8", 1}}, .ask_id = ask.id}).reason ==
        "APPROVAL_MISMATCH");
  const std::string marker = "\xF4\x8F\xBF\xBF";  // U+10FFFF: how a stored form marks a stray byte
  CHECK(shop.s.fire(order, {.payload = {{"note", marker + "ff"}, {"k\xe9", 1}}, .ask_id = ask.id}).reason ==
        "APPROVAL_MISMATCH");
  CHECK(shop.placed == 0);
  CHECK(shop.s.fire(order, {.payload = input, .ask_id = ask.id}).ok);
  CHECK(shop.placed == 1);
}
