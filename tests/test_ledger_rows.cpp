// The rows a Session holds and the rows it hands out: a held row is compact (its id follows
// from its place, the texts many rows repeat are shared, what few rows carry is boxed),
// and every row read through a View or copied out is the whole Transition or GapRow.
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {
gp::HandlerResult ok(const json&) { return {}; }
}  // namespace

TEST_CASE("Every field a fire or a refusal carried reads back from the view and from the copies", "[ledger]") {
  gp::Session s({.node = "cart"});
  s.declare("cart.add", {.does = "Add the item to the cart.", .handler = ok});
  s.declare("cart.pay", {.does = "Pay.", .handler = [](const json&) {
                           return gp::HandlerResult{false, "card declined"};
                         }});
  s.declare(
      "cart.hold",
      {.does = "Hold the cart.", .writes = {"held"}, .handler = ok, .concurrency = gp::Concurrency::single_flight});
  const auto added = s.fire("cart.add", {.payload = {{"sku", "A-1"}}, .ask_id = "ask-from-nowhere"});
  s.move_to("payment", "card");
  const auto paid = s.fire("cart.pay");
  const auto held = s.fire("cart.hold");
  const auto again = s.fire("cart.hold", {.payload = {{"why", "twice"}}});
  const auto invented = s.fire("cart.teleport", {.source = gp::Principal::system});
  REQUIRE(added.ok);
  REQUIRE_FALSE(paid.ok);
  REQUIRE(held.ok);
  REQUIRE(again.reason == "PRIOR_FIRE_PENDING");
  REQUIRE(invented.reason == "UNKNOWN_AFFORDANCE");

  const std::vector<gp::Transition> copies = s.transitions();
  const std::vector<gp::GapRow> gap_copies = s.gap_rows();
  const auto v = s.view();
  REQUIRE(v.transitions().size() == 3);
  REQUIRE(v.gap_rows().size() == 2);
  for (const std::vector<gp::Transition>& ts :
       {copies, std::vector<gp::Transition>(v.transitions().begin(), v.transitions().end())}) {
    REQUIRE(ts.size() == 3);
    CHECK(ts[0].id == added.transition_id);
    CHECK(ts[0].version == 0);
    CHECK(ts[0].cause.action == "cart.add");
    CHECK(ts[0].cause.does == std::optional<std::string>("Add the item to the cart."));
    CHECK(ts[0].cause.payload == json{{"sku", "A-1"}});
    CHECK(ts[0].cause.ask_id == "ask-from-nowhere");
    CHECK(ts[0].node == "cart");
    CHECK(ts[0].outcome == gp::Outcome::unobservable);
    CHECK(ts[0].error.empty());
    CHECK(ts[1].id == paid.transition_id);
    CHECK(ts[1].node == "payment");  // where the cursor was when it was minted
    CHECK(ts[1].outcome == gp::Outcome::handler_failed);
    CHECK(ts[1].error == "card declined");
    CHECK(ts[1].cause.payload.is_null());
    CHECK(ts[1].cause.ask_id.empty());
    CHECK(ts[2].id == "t-3");
    CHECK(ts[2].version == 2);
    CHECK(ts[2].outcome == gp::Outcome::pending);
  }
  for (const std::vector<gp::GapRow>& gs :
       {gap_copies, std::vector<gp::GapRow>(v.gap_rows().begin(), v.gap_rows().end())}) {
    REQUIRE(gs.size() == 2);
    CHECK(gs[0].action == "cart.hold");
    CHECK(gs[0].does == std::optional<std::string>("Hold the cart."));
    CHECK(gs[0].reason == gp::Refusal::prior_fire_pending);
    CHECK(gs[0].prior_transition_id == held.transition_id);
    CHECK(gs[0].payload == json{{"why", "twice"}});
    CHECK(gs[0].node == "payment");
    CHECK(gs[0].version == 3);
    CHECK(gs[1].action == "cart.teleport");
    CHECK_FALSE(gs[1].does.has_value());
    CHECK(gs[1].principal == gp::Principal::system);
    CHECK(gs[1].prior_transition_id.empty());
    CHECK(gs[1].payload.is_null());
  }
  const std::optional<gp::Transition> t = v.transition(paid.transition_id);
  REQUIRE(t.has_value());
  CHECK(t->error == "card declined");
  CHECK_FALSE(v.transition("t-4").has_value());
  CHECK_FALSE(v.transition("t-03").has_value());  // "t-3" is the row, written once
  CHECK_FALSE(v.transition("t-0").has_value());
}

TEST_CASE("A view's rows are a random-access range whose iterators outlive the range object", "[ledger]") {
  gp::Session s;
  s.declare("step", {.does = "Take a step.", .handler = ok});
  for (int i = 0; i < 5; ++i) s.fire("step");
  const auto v = s.view();
  const auto first = v.transitions().begin();  // the range object it came from is gone
  const auto last = v.transitions().end();
  CHECK(last - first == 5);
  CHECK((*first).id == "t-1");
  CHECK(first[4].id == "t-5");
  CHECK((*std::prev(last)).id == "t-5");
  CHECK((first + 2)->version == 2);
  const auto found = std::find_if(first, last, [](const gp::Transition& t) { return t.version == 3; });
  REQUIRE(found != last);
  CHECK(found - first == 3);
  CHECK(std::ranges::distance(v.transitions()) == 5);
  CHECK(v.transitions().front().id == "t-1");
  CHECK(v.transitions().back().id == "t-5");
  std::vector<std::string> ids;
  for (const gp::Transition& t : v.transitions()) ids.push_back(t.id);
  CHECK(ids == std::vector<std::string>{"t-1", "t-2", "t-3", "t-4", "t-5"});
}

TEST_CASE("Rows held under max_rows_in_memory keep the ids and versions they had", "[ledger]") {
  // The plausible slip: numbering held rows from 1 once the oldest are dropped.
  gp::Session s({.max_rows_in_memory = 8});
  s.declare("step", {.does = "Take a step.", .handler = ok});
  for (int i = 0; i < 30; ++i) s.fire("step");
  const auto v = s.view();
  REQUIRE(v.attempts() == 30);
  REQUIRE(v.transitions().size() < 30);
  const std::size_t first = 30 - v.transitions().size();
  for (std::size_t i = 0; i < v.transitions().size(); ++i) {
    CAPTURE(i);
    CHECK(v.transitions()[i].id == "t-" + std::to_string(first + i + 1));
    CHECK(v.transitions()[i].version == first + i);
  }
  CHECK(v.transition("t-30").has_value());
  CHECK_FALSE(v.transition("t-1").has_value());  // a row of this session, no longer held
}

TEST_CASE("A held ledger row is at most 64 bytes, and rows share the texts they repeat", "[ledger]") {
  // What keeps a million-fire ledger at a fraction of its 0.1 size (about 245 bytes a row):
  // the id is the row's place, strings many rows repeat are one shared copy, and the
  // payload, ask id and error text only a few rows carry are boxed apart.
  STATIC_REQUIRE(sizeof(gp::detail::TransitionRecord) <= 64);
  STATIC_REQUIRE(sizeof(gp::detail::GapRecord) <= 64);

  const gp::detail::SharedText does("Add the item to the cart.");
  const gp::detail::SharedText copy = does;  // NOLINT(performance-unnecessary-copy-initialization)
  CHECK(copy.same_as(does));
  CHECK(copy.str() == "Add the item to the cart.");
  const gp::detail::SharedText equal("Add the item to the cart.");
  CHECK(equal == does);
  CHECK_FALSE(equal.same_as(does));
  const gp::detail::SharedText none;
  CHECK_FALSE(none);
  CHECK(none.str().empty());
  CHECK_FALSE(none.optional().has_value());
  CHECK_FALSE(none == gp::detail::SharedText(""));  // absent is not the empty text

  // Refusals of one invented id in a row share it; a different one gets its own.
  gp::detail::SharedText last;
  const auto a = gp::detail::share("made.up", last);
  const auto b = gp::detail::share("made.up", last);
  const auto c = gp::detail::share("made.up.too", last);
  CHECK(a.same_as(b));
  CHECK_FALSE(c.same_as(a));
  CHECK(c.str() == "made.up.too");
  CHECK(a.str() == "made.up");  // kept by the rows that hold it
}
