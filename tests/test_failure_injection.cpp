// Failure injection: what happens when the code around the library fails. A handler
// that throws, a custom check that throws, and memory running out in the middle of a
// record_* call (this executable replaces the global operator new so that the Nth
// allocation fails, and sweeps N over every allocation a call makes).
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/agent_port.hpp"
#include "groundplane/any_check.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/mcp/record.hpp"
#include "groundplane/reask.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;
using ojson = nlohmann::ordered_json;

// ---- an allocator that fails on demand ---------------------------------------------------

namespace {
// Per thread, so nothing another thread allocates can trip (or be tripped by) the count.
thread_local long allocations_until_failure = 0;  // 0: never fail; n: the nth allocation from now fails
// How the armed failure was delivered: not yet, as std::bad_alloc from a throwing
// operator new, or as nullptr from a nothrow one (std::stable_sort asks for its buffer
// that way and falls back to sorting in place, which is correct and not a failure).
enum class Delivered { not_yet, thrown, quietly };
thread_local Delivered delivered = Delivered::not_yet;

bool fail_now() { return allocations_until_failure > 0 && --allocations_until_failure == 0; }

void* allocate(std::size_t n) {
  if (fail_now()) {
    delivered = Delivered::thrown;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

void* allocate_nothrow(std::size_t n) noexcept {
  if (fail_now()) {
    delivered = Delivered::quietly;
    return nullptr;
  }
  return std::malloc(n == 0 ? 1 : n);
}

// Arms the allocator for one scope: the nth allocation inside it fails.
class FailNth {
 public:
  explicit FailNth(long n) {
    allocations_until_failure = n;
    delivered = Delivered::not_yet;
  }
  ~FailNth() { allocations_until_failure = 0; }
  FailNth(const FailNth&) = delete;
  FailNth& operator=(const FailNth&) = delete;
};
}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate_nothrow(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate_nothrow(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

// Everything a registry holds, as text: names in record order and each fact's full view.
std::string snapshot(const gp::FactRegistry& reg) {
  ojson all = ojson::array();
  for (const auto& name : reg.names()) {
    ojson view = reg.visit(name, [](const auto& f) {
      ojson v = ojson(gp::detail::fact_view(f));
      v["provenance"]["args"] = f.provenance().args;
      return v;
    });
    all.push_back({{"name", name}, {"view", std::move(view)}});
  }
  return all.dump();
}

void seed(gp::FactRegistry& reg) {
  reg.record_fact("existing", 7, {.tool = "seed.tool", .args = {{"k", "v"}}});
  reg.record_domain("regions", {"north", "harbour"}, {.tool = "crm.list"});
}

// Calls `record(reg, args)` on a fresh seeded registry with the 1st, 2nd, 3rd ...
// allocation failing, until a call makes fewer allocations than the one armed. A call
// that fails must throw std::bad_alloc and leave the registry exactly as seeded; a call
// that succeeds (the failure reached none of its allocations, or only a nothrow one it
// may fall back from) must leave exactly what a call without any failure leaves.
//
// The arguments are built before the allocator is armed and destroyed after it is
// disarmed, so every injected failure lands inside the library. That matters beyond
// tidiness: nlohmann::json's destructor allocates (it flattens nested arrays and objects
// into a heap stack), so a failure injected there would terminate the program in any code
// that uses nlohmann::json (nlohmann/json#4653). For the same reason the sweeps below are
// of calls that destroy no JSON array or object of their own.
template <class Make, class Record>
long check_strong_guarantee(const std::string& name, Make make, Record record) {
  std::string seeded, expected;
  {
    gp::FactRegistry reg;
    seed(reg);
    seeded = snapshot(reg);
    auto args = make();
    record(reg, args);
    expected = snapshot(reg);
  }
  for (long n = 1; n < 100'000; ++n) {
    gp::FactRegistry reg;
    seed(reg);
    auto args = make();
    bool failed = false;
    Delivered how = Delivered::not_yet;
    {
      FailNth arm(n);
      try {
        record(reg, args);
      } catch (const std::bad_alloc&) {
        failed = true;
      }
      how = delivered;
    }
    INFO("allocation " << n << " of a call recording " << name);
    if (failed) {
      REQUIRE(how == Delivered::thrown);
      REQUIRE_FALSE(reg.contains(name));
      REQUIRE(snapshot(reg) == seeded);
      continue;
    }
    REQUIRE(how != Delivered::thrown);  // a std::bad_alloc swallowed inside the library
    REQUIRE(snapshot(reg) == expected);
    if (how == Delivered::not_yet) return n - 1;  // every allocation of the call was tried
  }
  FAIL("the sweep did not finish");
  return 0;
}

}  // namespace

// ---- a handler that throws -------------------------------------------------------------------

namespace {
struct GatewayDown : std::runtime_error {
  using std::runtime_error::runtime_error;
};

gp::HandlerResult gateway_down(const json&) { throw GatewayDown("payment gateway timed out\nretry later"); }
gp::HandlerResult ok_handler(const json&) { return {}; }

std::string block(const gp::Session& s) { return s.ground_truth().text; }
}  // namespace

TEST_CASE("a handler that throws is graded as a handler failure and its exception reaches the caller of fire") {
  gp::Session s({.node = "checkout"});
  s.declare("checkout.pay", {.does = "Charge the card.", .writes = {"paid"}, .handler = gateway_down});
  REQUIRE_THROWS_AS(s.fire("checkout.pay", {.payload = {{"card", "4242"}}}), GatewayDown);

  const auto v = s.view();
  REQUIRE(v.transitions().size() == 1);
  CHECK(v.gap_rows().empty());
  CHECK(v.version() == 1);
  const gp::Transition& t = v.transitions()[0];
  CHECK(t.outcome == gp::Outcome::handler_failed);
  CHECK(t.error == "payment gateway timed out\nretry later");  // kept for the developer
  CHECK(v.pending_fires().empty());                            // nothing left awaiting a report
}

TEST_CASE("the block grades a throwing handler as did NOT happen and never shows the exception text") {
  gp::Session s({.node = "checkout"});
  s.declare("checkout.pay", {.does = "Charge the card.", .writes = {"paid"}, .handler = gateway_down});
  CHECK_THROWS_AS(s.fire("checkout.pay"), GatewayDown);
  const std::string text = block(s);
  CHECK(text.find("  • did NOT happen — agent fired checkout.pay (the app's handler failed)") != std::string::npos);
  CHECK(text.find("gateway") == std::string::npos);
  CHECK(text.find("Awaiting the app's report") == std::string::npos);
}

TEST_CASE("after a handler throws the session is unlocked and later calls from any thread proceed") {
  gp::Session s;
  s.declare("checkout.pay", {.does = "Charge the card.", .handler = gateway_down});
  s.declare("cart.clear", {.does = "Empty the cart.", .handler = ok_handler});
  CHECK_THROWS_AS(s.fire("checkout.pay"), GatewayDown);
  CHECK(s.fire("cart.clear").ok);
  std::optional<gp::FireResult> from_thread;
  std::thread([&] { from_thread = s.fire("cart.clear"); }).join();
  REQUIRE(from_thread);
  CHECK(from_thread->ok);
  CHECK(s.version() == 3);
  CHECK(s.view().transitions()[1].outcome == gp::Outcome::unobservable);
}

TEST_CASE("a report after a throwing handler is not attributed to the failed fire") {
  gp::Session s;
  s.declare("checkout.pay", {.does = "Charge the card.", .writes = {"paid"}, .handler = gateway_down});
  s.declare("cart.add", {.does = "Add to cart.", .writes = {"cart"}, .handler = ok_handler});
  CHECK_THROWS_AS(s.fire("checkout.pay"), GatewayDown);
  REQUIRE(s.fire("cart.add").ok);
  s.report_state({{"cart", {"A1"}}});  // settles the pending cart.add, not the failed pay
  const auto v = s.view();
  CHECK(v.transitions()[0].outcome == gp::Outcome::handler_failed);
  CHECK(v.transitions()[1].outcome == gp::Outcome::observed);
}

TEST_CASE("a handler that throws spends the approval it was fired with") {
  gp::Session s({.require_human_approval = true});
  s.declare("checkout.place-order",
            {.does = "Place the order.", .writes = {"order_id"}, .handler = gateway_down, .high_effect = true});
  const gp::Ask ask = s.confirm_ask("checkout.place-order", {{"sku", "A1"}});
  REQUIRE(s.approve_ask(ask.id, "dana").ok);
  CHECK_THROWS_AS(s.fire("checkout.place-order", {.payload = {{"sku", "A1"}}, .ask_id = ask.id}), GatewayDown);
  CHECK(s.view().ask(ask.id)->state == gp::AskState::spent);
  const auto retry = s.fire("checkout.place-order", {.payload = {{"sku", "A1"}}, .ask_id = ask.id});
  CHECK(retry.reason == "APPROVAL_SPENT");
  CHECK(block(s).find("Approved by the human, not yet done") == std::string::npos);
}

TEST_CASE("a handler that throws a non-standard exception is recorded and rethrown as itself") {
  gp::Session s;
  s.declare("legacy.call",
            {.does = "Call the legacy system.", .handler = [](const json&) -> gp::HandlerResult { throw 42; }});
  REQUIRE_THROWS_AS(s.fire("legacy.call"), int);
  const auto v = s.view();
  REQUIRE(v.transitions().size() == 1);
  CHECK(v.transitions()[0].outcome == gp::Outcome::handler_failed);
  CHECK(v.transitions()[0].error == "a non-standard exception");
}

TEST_CASE("the agent port lets a throwing handler's exception propagate after the ledger recorded it") {
  gp::Session s;
  s.declare("checkout.pay", {.does = "Charge the card.", .handler = gateway_down});
  gp::AgentPort port(s);
  CHECK_THROWS_AS(port.call("do_action", {{"action", "checkout.pay"}}), GatewayDown);
  REQUIRE(s.view().transitions().size() == 1);
  CHECK(s.view().transitions()[0].outcome == gp::Outcome::handler_failed);
  // The next call still answers, and its facts say what happened.
  const auto next = port.call("whats_here");
  CHECK(next["facts"].get<std::string>().find("checkout.pay (the app's handler failed)") != std::string::npos);
}

// ---- a custom check that throws --------------------------------------------------------------

namespace {
struct LookupDown : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A custom check whose verify fails for reasons of its own (a service it calls is down).
template <class E>
struct throwing_check {
  std::string fact;
  std::vector<std::string> leans_on() const { return {fact}; }
  void validate(const gp::FactRegistry&) const {}
  void verify(const gp::FactRegistry&, const json&, std::vector<gp::Finding>&) const { throw E("lookup service down"); }
};

struct Seeded {
  gp::FactRegistry reg;
  Seeded() {
    reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                       {.key = "ctr", .tool = "warehouse.query"});
  }
};

const json wrong_winner = {{"winner", "north"}};
}  // namespace

TEST_CASE("a custom check that throws propagates as itself through Boundary submit") {
  Seeded s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, throwing_check<LookupDown>{"campaign_ctr"});
  CHECK_THROWS_AS(b.submit(wrong_winner), LookupDown);
  CHECK(b.submitted());  // leaving the scope now does not add a NothingSubmitted
}

TEST_CASE("a custom check that throws propagates as itself through Boundary try_submit") {
  Seeded s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, throwing_check<LookupDown>{"campaign_ctr"});
  CHECK_THROWS_AS(b.try_submit(wrong_winner), LookupDown);
}

TEST_CASE("a throwing check after one that found a problem still propagates and is not swallowed into a verdict") {
  Seeded s;
  gp::Boundary b(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"},
                 throwing_check<LookupDown>{"campaign_ctr"});
  CHECK_THROWS_AS(b.submit(wrong_winner), LookupDown);
  CHECK_THROWS_AS(b.try_submit(wrong_winner), LookupDown);
}

TEST_CASE("a custom check that throws propagates as itself through AnyCheck and CheckList") {
  Seeded s;
  gp::CheckList checks;
  checks.push_back(gp::superlative{.fact = "campaign_ctr"});
  checks.push_back(throwing_check<LookupDown>{"campaign_ctr"});
  gp::Boundary b(s.reg, {"campaign_ctr"}, checks);
  CHECK_THROWS_AS(b.submit(wrong_winner), LookupDown);
}

TEST_CASE("a custom check that throws propagates through reask after asking the model once and is never re-asked") {
  Seeded s;
  int asked = 0;
  const auto model = [&](const json&, const std::optional<std::string>&) {
    ++asked;
    return wrong_winner;
  };
  CHECK_THROWS_AS(gp::reask(s.reg, {"campaign_ctr"}, model, 5, throwing_check<LookupDown>{"campaign_ctr"}), LookupDown);
  CHECK(asked == 1);
}

TEST_CASE("a ConfigurationError thrown from a check's verify propagates through reask and is never re-asked") {
  Seeded s;
  int asked = 0;
  const auto model = [&](const json&, const std::optional<std::string>&) {
    ++asked;
    return wrong_winner;
  };
  try {
    gp::reask(s.reg, {"campaign_ctr"}, model, 5, throwing_check<gp::ConfigurationError>{"campaign_ctr"});
    FAIL("reask returned");
  } catch (const gp::ReaskExhausted&) {
    FAIL("a configuration error was turned into a re-ask");
  } catch (const gp::ConfigurationError& e) {
    CHECK(std::string(e.what()) == "lookup service down");
  }
  CHECK(asked == 1);
}

TEST_CASE("an UnsupportedClaim thrown by a custom check is not mistaken by reask for a verdict to re-ask about") {
  Seeded s;
  struct claims_by_throwing {
    std::string fact;
    std::vector<std::string> leans_on() const { return {fact}; }
    void validate(const gp::FactRegistry&) const {}
    void verify(const gp::FactRegistry&, const json&, std::vector<gp::Finding>&) const {
      gp::Finding f;
      f.check = "custom";
      f.detail = "thrown, not reported";
      throw gp::UnsupportedClaim({f});
    }
  };
  int asked = 0;
  const auto model = [&](const json&, const std::optional<std::string>&) {
    ++asked;
    return wrong_winner;
  };
  try {
    gp::reask(s.reg, {"campaign_ctr"}, model, 5, claims_by_throwing{"campaign_ctr"});
    FAIL("reask returned");
  } catch (const gp::ReaskExhausted&) {
    FAIL("the thrown claim was re-asked");
  } catch (const gp::UnsupportedClaim& e) {
    CHECK(e.findings().at(0).detail == "thrown, not reported");
  }
  CHECK(asked == 1);
}

// ---- running out of memory inside record_* ------------------------------------------------------

TEST_CASE("the allocator used by these tests fails exactly the allocation it is armed for") {
  bool thrown = false;
  std::vector<int>* first = nullptr;
  {
    FailNth arm(2);
    first = new std::vector<int>();  // allocation 1
    try {
      first->push_back(1);  // allocation 2
    } catch (const std::bad_alloc&) {
      thrown = true;
    }
  }
  delete first;
  CHECK(thrown);
  CHECK(delivered == Delivered::thrown);
  {
    FailNth arm(1);
    CHECK(::operator new(8, std::nothrow) == nullptr);  // delivered quietly to a nothrow caller
  }
  CHECK(delivered == Delivered::quietly);
}

TEST_CASE("record_fact running out of memory at any allocation records nothing") {
  CHECK(check_strong_guarantee(
            "budget",
            [] {
              return std::pair<json, gp::FactOptions>{
                  json("1250.50 in a string long enough to be allocated on the heap"),
                  {.tool = "finance.get", .args = {{"quarter", "Q3"}, {"unit", "EUR"}}}};
            },
            [](gp::FactRegistry& r, auto& args) {
              r.record_fact("budget", std::move(args.first), std::move(args.second));
            }) > 0);
}

TEST_CASE("record_ranking running out of memory at any allocation records nothing") {
  CHECK(check_strong_guarantee(
            "campaign_ctr",
            [] {
              return std::pair<gp::Scores, gp::RankingOptions>{
                  {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}, {"a campaign with a long name", 0.0455}},
                  {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}}};
            },
            [](gp::FactRegistry& r, auto& args) {
              r.record_ranking("campaign_ctr", std::move(args.first), std::move(args.second));
            }) > 0);
}

TEST_CASE("record_table running out of memory at any allocation records nothing") {
  CHECK(check_strong_guarantee(
            "orders",
            [] {
              return std::pair<json, gp::TableOptions>{
                  json::array({{{"region", "north"}, {"amount", 120.5}, {"status", "paid"}},
                               {{"region", "harbour"}, {"amount", 80}, {"note", "a note long enough to allocate"}}}),
                  {.key_column = "region", .total_rows = 2, .tool = "warehouse.query", .args = {{"limit", 2}}}};
            },
            [](gp::FactRegistry& r, auto& args) { r.record_table("orders", args.first, std::move(args.second)); }) > 0);
}

TEST_CASE("record_table from ordered rows running out of memory at any allocation records nothing") {
  CHECK(check_strong_guarantee(
            "orders",
            [] {
              return std::pair<ojson, gp::TableOptions>{
                  ojson::array({{{"region", "north"}, {"amount", 120.5}}, {{"region", "harbour"}, {"amount", 80}}}),
                  {.key_column = "region", .tool = "warehouse.query"}};
            },
            [](gp::FactRegistry& r, auto& args) { r.record_table("orders", args.first, std::move(args.second)); }) > 0);
}

TEST_CASE("record_domain running out of memory at any allocation records nothing") {
  CHECK(check_strong_guarantee(
            "campaigns",
            [] {
              return std::pair<std::vector<gp::Entity>, gp::DomainOptions>{
                  {"north", "harbour", "delta", "a campaign with a name long enough to allocate"},
                  {.tool = "crm.list", .args = {{"kind", "campaign"}}}};
            },
            [](gp::FactRegistry& r, auto& args) {
              r.record_domain("campaigns", std::move(args.first), std::move(args.second));
            }) > 0);
}

TEST_CASE("an mcp record_fact running out of memory at any allocation records nothing") {
  // A scalar payload: the call then destroys no JSON array or object of its own (see
  // check_strong_guarantee for why that matters).
  CHECK(check_strong_guarantee(
            "budget",
            [] {
              return std::pair<gp::mcp::ToolCall, ojson>{
                  gp::mcp::ToolCall{.name = "finance.get", .arguments = {{"quarter", "Q3"}, {"unit", "EUR"}}},
                  ojson{{"structuredContent", "1250.50 in a string long enough to be allocated on the heap"}}};
            },
            [](gp::FactRegistry& r, auto& args) { gp::mcp::record_fact(r, "budget", args.first, args.second); }) > 0);
}

TEST_CASE("a second record under a taken name running out of memory changes nothing either") {
  gp::FactRegistry reg;
  seed(reg);
  const std::string before = snapshot(reg);
  bool refused = false;
  for (long n = 1; !refused && n < 10'000; ++n) {
    json value = "a replacement value long enough to allocate";
    // No arguments: the refused fact is destroyed inside the call, and destroying a JSON
    // object allocates (see check_strong_guarantee).
    gp::FactOptions opts{.tool = "other.tool with a name long enough to allocate"};
    {
      FailNth arm(n);
      try {
        reg.record_fact("existing", std::move(value), std::move(opts));
      } catch (const gp::FactAlreadyRecorded&) {
        refused = true;
      } catch (const std::bad_alloc&) {
      }
    }
    INFO("allocation " << n);
    REQUIRE(snapshot(reg) == before);
  }
  CHECK(refused);
}

// ---- running out of memory inside Session::fire ----------------------------------------------------

namespace {
// What must hold of a session whatever failed: the version counts the transitions, every
// transition can be found by its id, versions are ordered, and a spent approval names
// the fire that spent it.
void check_consistent(const gp::Session& s) {
  const auto v = s.view();
  REQUIRE(v.version() == v.transitions().size());
  for (std::size_t i = 0; i < v.transitions().size(); ++i) {
    const auto found = v.transition(v.transitions()[i].id);
    REQUIRE(found.has_value());
    REQUIRE(found->version == v.transitions()[i].version);
    if (i > 0) REQUIRE(v.transitions()[i - 1].version < v.transitions()[i].version);
  }
  for (const auto& a : v.asks())
    if (a.state == gp::AskState::spent) REQUIRE(v.transition(a.spent_by).has_value());
}
}  // namespace

TEST_CASE("a fire running out of memory at any allocation records the whole fire or nothing") {
  for (const bool gated : {false, true}) {
    for (long n = 1; n < 10'000; ++n) {
      gp::Session s({.require_human_approval = gated});
      s.declare("checkout.place-order",
                {.does = "Place the order.", .writes = {"order_id"}, .handler = ok_handler, .high_effect = true});
      // A string payload: the fire then destroys no JSON array or object of its own.
      const gp::Ask ask = s.confirm_ask("checkout.place-order", "sku A1, a string long enough to allocate");
      REQUIRE(s.approve_ask(ask.id, "dana").ok);
      gp::FireOptions opts{.payload = "sku A1, a string long enough to allocate", .ask_id = ask.id};
      bool failed = false;
      Delivered how = Delivered::not_yet;
      {
        FailNth arm(n);
        try {
          s.fire("checkout.place-order", std::move(opts));
        } catch (const std::bad_alloc&) {
          failed = true;
        }
        how = delivered;
      }
      INFO("gated: " << gated << "; allocation " << n << (failed ? " failed the fire" : " did not fail it"));
      check_consistent(s);
      const auto v = s.view();
      if (failed) {
        // Nothing half-recorded: no row, no version, and the approval still unused.
        CHECK(v.transitions().empty());
        CHECK(v.gap_rows().empty());
        CHECK(v.ask(ask.id)->state == gp::AskState::approved);
        CHECK(v.pending_fires().empty());
        continue;
      }
      REQUIRE(how != Delivered::thrown);
      REQUIRE(v.transitions().size() == 1);
      CHECK(v.pending_fires().size() == 1);
      if (how == Delivered::not_yet) break;
    }
  }
}

TEST_CASE("a refused fire running out of memory at any allocation writes its gap row whole or not at all") {
  for (long n = 1; n < 10'000; ++n) {
    gp::Session s({.require_human_approval = true});
    s.declare("checkout.place-order", {.does = "Place the order.", .handler = ok_handler, .high_effect = true});
    gp::FireOptions opts{.payload = "sku A1, a string long enough to allocate"};
    bool failed = false;
    Delivered how = Delivered::not_yet;
    std::optional<gp::FireResult> r;
    {
      FailNth arm(n);
      try {
        r = s.fire("checkout.place-order", std::move(opts));
      } catch (const std::bad_alloc&) {
        failed = true;
      }
      how = delivered;
    }
    INFO("allocation " << n << (failed ? " failed the fire" : " did not fail it"));
    const auto v = s.view();
    CHECK(v.transitions().empty());
    if (failed) {
      CHECK(v.gap_rows().empty());  // the caller saw the failure, so the ledger holds no row for it
      continue;
    }
    REQUIRE(how != Delivered::thrown);
    REQUIRE(v.gap_rows().size() == 1);
    CHECK(r->reason == "APPROVAL_REQUIRED");
    if (how == Delivered::not_yet) break;
  }
}
