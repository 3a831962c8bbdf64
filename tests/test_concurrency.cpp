// Concurrency stress: one FactRegistry recorded into, read and checked from eight threads,
// and one Session driven from several threads at once. Bounded (a fixed number of
// operations per thread, well under a second normally and a few seconds under
// ThreadSanitizer) and deterministic in what it asserts: the assertions are the ones that
// hold for every interleaving. Every case lives in this executable so a TSan build can run
// exactly these: ctest -R '^test_concurrency: '.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <latch>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/agent_port.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/checks/aggregate_reconciles.hpp"
#include "groundplane/checks/field_matches_fact.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

constexpr int threads = 8;
constexpr int rounds = 120;

// A small deterministic generator per thread, so each thread's choices are fixed.
struct Lcg {
  std::uint64_t s;
  std::uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(s >> 33);
  }
};

void seed_registry(gp::FactRegistry& reg) {
  reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                     {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}}});
  reg.record_table("orders",
                   json::array({{{"region", "north"}, {"amount", 120.5}}, {{"region", "harbour"}, {"amount", 80}}}),
                   {.key_column = "region", .tool = "warehouse.query"});
}

std::string own_fact(int t, int i) { return "t" + std::to_string(t) + ".fact." + std::to_string(i); }
std::string own_ranking(int t, int i) { return "t" + std::to_string(t) + ".ranking." + std::to_string(i); }
std::string shared_fact(int i) { return "shared." + std::to_string(i); }

// Scores for a ranking whose winner is known: entity "e<winner>" has the top score.
gp::Scores scores_with_winner(int entities, int winner) {
  gp::Scores s;
  for (int e = 0; e < entities; ++e) s.emplace_back("e" + std::to_string(e), e == winner ? 1000 : e);
  return s;
}

}  // namespace

TEST_CASE("eight threads recording reading and running boundaries on one registry agree on every fact") {
  gp::FactRegistry reg;
  seed_registry(reg);
  const gp::Ranking* seeded = &reg.get<gp::Ranking>("campaign_ctr");
  std::string expected_message;
  {
    gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    expected_message = b.try_submit({{"winner", "north"}}).findings().at(0).message();
  }

  std::array<std::atomic<int>, rounds> shared_wins{};
  std::array<std::atomic<int>, threads> failures{};
  std::latch start(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const auto fail = [&] { failures[static_cast<std::size_t>(t)].fetch_add(1); };
      start.arrive_and_wait();
      for (int i = 0; i < rounds; ++i) {
        // Write: one fact of its own, and a race with every other thread for a shared name.
        reg.record_fact(own_fact(t, i), i, {.tool = "worker", .args = {{"thread", t}}});
        try {
          reg.record_fact(shared_fact(i), t, {.tool = "worker", .args = {{"thread", t}}});
          shared_wins[static_cast<std::size_t>(i)].fetch_add(1);
        } catch (const gp::FactAlreadyRecorded&) {
        }
        if (i % 4 == 0)
          reg.record_ranking(own_ranking(t, i), scores_with_winner(20, i % 20), {.key = "k", .tool = "worker"});

        // Read: its own facts, the seeded ones, and any other thread's fact it can see whole.
        if (reg.get<gp::Fact>(own_fact(t, i)).value() != i) fail();
        if (!reg.contains(shared_fact(i)) || reg.kind_of("campaign_ctr") != gp::FactKind::ranking) fail();
        if (&reg.get<gp::Ranking>("campaign_ctr") != seeded) fail();  // references stay valid
        const auto names = reg.names();
        for (std::size_t k = names.size(); k-- > names.size() - std::min<std::size_t>(names.size(), 8);) {
          if (names[k].find(".ranking.") == std::string::npos) continue;
          reg.visit(names[k], [&](const auto& f) {
            if constexpr (std::is_same_v<std::decay_t<decltype(f)>, gp::Ranking>) {
              if (f.size() != 20 || f.order().size() != 20) fail();  // never half-recorded
            } else {
              fail();
            }
          });
        }

        // Check: a boundary over a seeded fact and one over a fact this thread just recorded.
        gp::Boundary b(
            reg, {"campaign_ctr", "orders"}, gp::superlative{.fact = "campaign_ctr"},
            gp::aggregate_reconciles{.fact = "orders", .field = "total", .op = gp::Aggregate::sum, .column = "amount"});
        const gp::Verdict wrong = b.try_submit({{"winner", "north"}, {"total", 200.5}});
        if (wrong.findings().size() != 1 || wrong.findings()[0].message() != expected_message) fail();
        if (!b.try_submit({{"winner", "harbour"}, {"total", 200.5}}).ok()) fail();
        if (i % 4 == 0) {
          gp::Boundary own(reg, {own_ranking(t, i)}, gp::superlative{.fact = own_ranking(t, i)});
          if (!own.try_submit({{"winner", "e" + std::to_string(i % 20)}}).ok()) fail();
        }
      }
    });
  }
  for (auto& th : pool) th.join();

  for (int t = 0; t < threads; ++t) CHECK(failures[static_cast<std::size_t>(t)].load() == 0);
  for (int i = 0; i < rounds; ++i) {
    INFO("shared name " << i);
    CHECK(shared_wins[static_cast<std::size_t>(i)].load() == 1);  // write-once under a race
  }
  const std::size_t rankings = static_cast<std::size_t>(threads) * ((rounds + 3) / 4);
  CHECK(reg.size() == 2 + static_cast<std::size_t>(threads * rounds) + rounds + rankings);

  // names() is record order: each thread's own facts appear in the order it recorded them.
  const auto names = reg.names();
  std::map<std::string, std::size_t> position;
  for (std::size_t k = 0; k < names.size(); ++k) position[names[k]] = k;
  for (int t = 0; t < threads; ++t)
    for (int i = 1; i < rounds; ++i) CHECK(position.at(own_fact(t, i - 1)) < position.at(own_fact(t, i)));
  // The winner of each shared name is the thread its value names.
  for (int i = 0; i < rounds; ++i) {
    const auto& f = reg.get<gp::Fact>(shared_fact(i));
    CHECK(f.provenance().args.find("thread")->get<int>() == f.value().get<int>());
  }
}

TEST_CASE("eight threads building boundaries over a fresh table's columns at once derive each summary once and agree") {
  // The first readers of a column race to derive what the checks read from it (its sum,
  // extremes, median, key index, a ranking): one of them derives each, the others wait and
  // read the same. Every thread's verdicts equal those over an identical table read alone.
  json rows = json::array();
  Lcg rng{41};
  for (int i = 0; i < 4000; ++i) {
    json row = {{"id", i}, {"ref", "r-" + std::to_string(i)}, {"units", 1 + rng.next() % 9}};
    if (i % 97 != 3) row["spend"] = static_cast<double>(rng.next() % 100000) / 100.0;
    rows.push_back(std::move(row));
  }
  using A = gp::aggregate_reconciles;
  const auto on = [](gp::Aggregate op, const char* field) {
    return A{.fact = "orders", .field = field, .op = op, .column = "spend", .on_missing = gp::OnMissing::skip};
  };
  const json output = {{"sum", 1}, {"mean", 1}, {"median", 1}, {"max", 1}, {"winner", 0}, {"ref", "r-7"}, {"units", 0}};
  const auto verdict = [&](const gp::FactRegistry& reg, int which) {
    const auto ri =
        gp::row_integrity{.fact = "orders", .key_field = "ref", .fields = {{"units", "units"}}, .key_column = "ref"};
    const auto top = gp::superlative{.fact = "orders", .column = "spend", .on_missing = gp::OnMissing::skip};
    // Threads build different boundaries, so the first to reach a column varies.
    if (which % 2 == 0) {
      gp::Boundary b(reg, {"orders"}, on(gp::Aggregate::sum, "sum"), on(gp::Aggregate::median, "median"), ri, top);
      return b.try_submit(output).to_json();
    }
    gp::Boundary b(reg, {"orders"}, top, ri, on(gp::Aggregate::mean, "mean"), on(gp::Aggregate::max, "max"),
                   on(gp::Aggregate::median, "median"));
    return b.try_submit(output).to_json();
  };
  json expected[2];
  {
    gp::FactRegistry alone;
    alone.record_table("orders", rows, {.key_column = "id", .tool = "warehouse.query"});
    expected[0] = verdict(alone, 0);
    expected[1] = verdict(alone, 1);
  }
  for (int round = 0; round < 4; ++round) {
    gp::FactRegistry reg;
    const gp::Table& table = reg.record_table("orders", rows, {.key_column = "id", .tool = "warehouse.query"});
    std::atomic<int> disagreements{0};
    std::latch start(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        start.arrive_and_wait();
        for (int i = 0; i < 5; ++i)
          if (verdict(reg, t + i) != expected[(t + i) % 2]) disagreements.fetch_add(1);
      });
    for (auto& th : pool) th.join();
    CHECK(disagreements.load() == 0);
    // spend's numbers and median, ref's keys: each once, whoever got there first.
    CHECK(table.column_passes() == 3);
  }
}

TEST_CASE("one session driven from several threads writes one row per fire and keeps versions consistent") {
  gp::Session s({.node = "checkout", .require_human_approval = true});
  const auto ok = [](const json&) { return gp::HandlerResult{}; };
  s.declare("cart.add", {.does = "Add to cart.", .writes = {"cart"}, .handler = ok});
  s.declare("cart.clear", {.does = "Empty the cart.", .handler = ok});
  s.declare("checkout.place-order",
            {.does = "Place the order.", .writes = {"order_id"}, .handler = ok, .high_effect = true});
  s.declare("tour.next", {.does = "Next tour step."});  // no handler: NOT_MATERIALIZED
  // A handler that reports from inside the fire (handlers run with the session unlocked).
  s.declare("profile.set-name", {.does = "Set the name.", .writes = {"name"}, .handler = [&s](const json& p) {
                                   s.report_state({{"name", p}});
                                   return gp::HandlerResult{};
                                 }});
  // single_flight: never two runs at once. It reports its own effect from inside, so it
  // settles when its handler returns.
  std::atomic<int> syncing{0};
  std::atomic<int> sync_overlaps{0};
  s.declare("sync.push", {.does = "Push to the server.",
                          .writes = {"pushed"},
                          .handler =
                              [&](const json&) {
                                if (syncing.fetch_add(1) != 0) sync_overlaps.fetch_add(1);
                                std::this_thread::yield();
                                s.report_state({{"pushed", true}});
                                syncing.fetch_sub(1);
                                return gp::HandlerResult{};
                              },
                          .concurrency = gp::Concurrency::single_flight});
  // once: each of these may run at most once in the whole session.
  constexpr int once_actions = 4;
  std::array<std::atomic<int>, once_actions> once_runs{};
  for (int k = 0; k < once_actions; ++k)
    s.declare("order.once-" + std::to_string(k),
              {.does = "Place a one-off order.",
               .writes = k % 2 == 0 ? std::vector<std::string>{"order_id"} : std::vector<std::string>{},
               .handler =
                   [&, k](const json&) {
                     once_runs[static_cast<std::size_t>(k)].fetch_add(1);
                     std::this_thread::yield();
                     return gp::HandlerResult{};
                   },
               .concurrency = gp::Concurrency::once});
  gp::AgentPort port(s);

  constexpr int agents = 4;
  constexpr int fires_each = 400;
  std::atomic<int> fires{0};          // every call that reached Session::fire
  std::atomic<int> orders_placed{0};  // recorded gated fires
  std::atomic<int> failures{0};
  std::atomic<bool> agents_done{false};
  std::vector<std::vector<std::string>> tids(agents);
  std::latch start(agents + 2);

  std::vector<std::thread> pool;
  for (int a = 0; a < agents; ++a) {
    pool.emplace_back([&, a] {
      Lcg rng{static_cast<std::uint64_t>(a) + 1};
      start.arrive_and_wait();
      for (int i = 0; i < fires_each; ++i) {
        const std::uint32_t r = rng.next() % 10;
        gp::FireResult res{};
        if (r == 0) {
          res = s.fire("cart.add", {.payload = {{"sku", i}}});
        } else if (r == 1) {
          res = s.fire("cart.clear", {.source = gp::Principal::user});
        } else if (r == 2) {
          res = s.fire("tour.next");
        } else if (r == 3) {
          res = s.fire("made.up");
        } else if (r == 4) {
          res = s.fire("profile.set-name", {.payload = "agent " + std::to_string(a)});
        } else if (r == 5) {
          // Ask, and fire with whatever ask id the person has approved by then (maybe none).
          const gp::Ask ask = s.confirm_ask("checkout.place-order", {{"sku", a}});
          res = s.fire("checkout.place-order", {.payload = {{"sku", a}}, .ask_id = ask.id});
          if (res.ok) orders_placed.fetch_add(1);
        } else if (r == 8) {
          res = s.fire("sync.push", {.source = a % 2 == 0 ? gp::Principal::agent : gp::Principal::system});
          if (!res.ok && res.reason != "PRIOR_FIRE_PENDING") failures.fetch_add(1);
        } else if (r == 9) {
          const std::string id = "order.once-" + std::to_string(rng.next() % once_actions);
          res = i % 2 == 0 ? s.fire(id, {.source = gp::Principal::system}) : [&] {
            const auto out = port.call("do_action", {{"action", id}});
            return gp::FireResult{out["ok"].get<bool>(), out.json().value("reason", ""),
                                  out.json().value("transition_id", ""), out.json().value("prior_transition_id", "")};
          }();
          if (!res.ok && res.reason != "PRIOR_FIRE_PENDING" && res.reason != "DUPLICATE_EXECUTION")
            failures.fetch_add(1);
          if (!res.ok && res.prior_transition_id.empty()) failures.fetch_add(1);
        } else if (r == 6) {
          const auto out = port.call("do_action", {{"action", "cart.add"}, {"input", {{"sku", "port"}}}});
          res = {out["ok"].get<bool>(), out.json().value("reason", ""), out.json().value("transition_id", "")};
        } else {
          res = s.fire("checkout.place-order", {.payload = {{"sku", a}}});  // no approval: refused
          if (res.ok) failures.fetch_add(1);
        }
        fires.fetch_add(1);
        if (!res.transition_id.empty()) tids[static_cast<std::size_t>(a)].push_back(res.transition_id);
        if (rng.next() % 3 == 0 && !res.transition_id.empty()) {
          try {
            s.report_state({{"cart", {i}}, {"order_id", i}}, res.transition_id);
          } catch (const gp::ConfigurationError&) {
            failures.fetch_add(1);  // a recorded transition id is always known
          }
        }
      }
    });
  }
  // The person: approves whatever awaits, until the agents are done.
  pool.emplace_back([&] {
    start.arrive_and_wait();
    while (!agents_done.load()) {
      for (const auto& ask : s.asks())
        if (ask.state == gp::AskState::awaiting) (void)s.approve_ask(ask.id, "dana");
      std::this_thread::yield();
    }
  });
  // A reader: renders the block, the brief and the port's view throughout.
  pool.emplace_back([&] {
    start.arrive_and_wait();
    std::uint64_t last = 0;
    while (!agents_done.load()) {
      const gp::GroundTruth gt = s.ground_truth({.since_version = last, .max_attempts = 5});
      if (gt.version < last) failures.fetch_add(1);  // versions never go back
      last = gt.version;
      if (gt.text.rfind(gp::ground_truth_header, 0) != 0) failures.fetch_add(1);
      (void)s.context_brief(last);
      (void)port.call("whats_here");
    }
  });
  for (int a = 0; a < agents; ++a) pool[static_cast<std::size_t>(a)].join();
  agents_done.store(true);
  for (std::size_t k = agents; k < pool.size(); ++k) pool[k].join();

  CHECK(failures.load() == 0);
  CHECK(sync_overlaps.load() == 0);  // single_flight: never two runs at once
  const auto v = s.view();
  // No once action ever ran twice, and every one that was fired ran exactly once.
  for (int k = 0; k < once_actions; ++k) {
    const std::string id = "order.once-" + std::to_string(k);
    INFO(id);
    CHECK(once_runs[static_cast<std::size_t>(k)].load() <= 1);
    std::size_t recorded = 0, attempts = 0;
    for (const auto& t : v.transitions()) recorded += t.cause.action == id;
    for (const auto& g : v.gap_rows()) attempts += g.action == id;
    attempts += recorded;
    CHECK(recorded == static_cast<std::size_t>(once_runs[static_cast<std::size_t>(k)].load()));
    if (attempts > 0) CHECK(recorded == 1);
  }
  // One row per fire, whoever fired and whatever else ran at the same time: a report
  // without an id from inside a handler settles that handler's own fire, so nothing is
  // ever attributed by inference here.
  for (const auto& t : v.transitions()) CHECK(t.outcome != gp::Outcome::inferred);
  CHECK(v.transitions().size() + v.gap_rows().size() == static_cast<std::size_t>(fires.load()));
  // Every fire whose handler reported on itself is graded observed or still running.
  for (const auto& t : v.transitions())
    if (t.cause.action == "profile.set-name" || t.cause.action == "sync.push")
      CHECK(t.outcome == gp::Outcome::observed);
  CHECK(fires.load() == agents * fires_each);
  // Only transitions bump the version, once each, and rows are ordered by it.
  CHECK(v.version() == v.transitions().size());
  for (std::size_t i = 1; i < v.transitions().size(); ++i)
    CHECK(v.transitions()[i - 1].version < v.transitions()[i].version);
  for (std::size_t i = 1; i < v.gap_rows().size(); ++i) CHECK(v.gap_rows()[i - 1].version <= v.gap_rows()[i].version);
  // Every transition id a fire returned is a distinct recorded transition.
  std::set<std::string> seen;
  for (const auto& list : tids)
    for (const auto& id : list) {
      CHECK(seen.insert(id).second);
      CHECK(v.transition(id).has_value());
    }
  // One yes, one fire: every recorded order spent exactly one approval, and no approval
  // was spent twice.
  std::size_t spent = 0;
  std::set<std::string> spenders;
  for (const auto& ask : v.asks())
    if (ask.state == gp::AskState::spent) {
      ++spent;
      CHECK(spenders.insert(ask.spent_by).second);
      const std::optional<gp::Transition> t = v.transition(ask.spent_by);
      REQUIRE(t.has_value());
      CHECK(t->cause.ask_id == ask.id);
    }
  CHECK(spent == static_cast<std::size_t>(orders_placed.load()));
  std::size_t gated_recorded = 0;
  for (const auto& t : v.transitions())
    gated_recorded += t.cause.action == "checkout.place-order" && t.cause.principal == gp::Principal::agent;
  CHECK(gated_recorded == spent);
}

TEST_CASE("eight handlers reporting without an id from eight threads each settle their own fire") {
  gp::Session s;
  const auto ok = [](const json&) { return gp::HandlerResult{}; };
  // Pending before any worker starts: the oldest-pending rule would hand it every report.
  s.declare("carrier.quote", {.does = "Ask the carrier.", .writes = {"quote"}, .handler = ok});
  const auto stuck = s.fire("carrier.quote");
  constexpr int rounds_each = 150;
  std::latch start(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const std::string key = "v" + std::to_string(t);
    s.declare("worker." + std::to_string(t), {.does = "Work.", .writes = {key}, .handler = [&s, key](const json& p) {
                                                std::this_thread::yield();  // let the other threads' fires pend
                                                s.report_state({{key, p}});
                                                return gp::HandlerResult{};
                                              }});
  }
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < rounds_each; ++i) (void)s.fire("worker." + std::to_string(t), {.payload = i});
    });
  for (auto& th : pool) th.join();
  const auto v = s.view();
  CHECK(v.transitions().size() == 1 + static_cast<std::size_t>(threads * rounds_each));
  CHECK(v.gap_rows().empty());
  CHECK(v.transition(stuck.transition_id)->outcome == gp::Outcome::pending);
  std::size_t observed = 0;
  for (const auto& t : v.transitions()) observed += t.outcome == gp::Outcome::observed;
  CHECK(observed == static_cast<std::size_t>(threads * rounds_each));
  CHECK(v.pending_fires().size() == 1);
}

TEST_CASE("handles undeclaring and re-declaring from other threads never lose a fire's row") {
  gp::Session s;
  const auto ok = [](const json&) { return gp::HandlerResult{}; };
  constexpr int churners = 3;
  constexpr int firers = 3;
  constexpr int rounds_each = 500;
  std::atomic<int> fires{0};
  std::atomic<int> unexpected{0};  // Catch2 assertions are not made from worker threads
  std::latch start(churners + firers);
  std::vector<std::thread> pool;
  for (int c = 0; c < churners; ++c)
    pool.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < rounds_each; ++i) {
        auto h = s.declare("pane.send", {.does = "Send the message.", .handler = ok});
        if (i % 2 == 0) h.undeclare();
        else s.undeclare("pane.send");
      }
    });
  for (int f = 0; f < firers; ++f)
    pool.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < rounds_each; ++i) {
        const auto r = s.fire("pane.send");
        if (!r.ok && r.reason != "UNKNOWN_AFFORDANCE") unexpected.fetch_add(1);
        fires.fetch_add(1);
      }
    });
  for (auto& th : pool) th.join();
  CHECK(unexpected.load() == 0);
  const auto v = s.view();
  CHECK(v.transitions().size() + v.gap_rows().size() == static_cast<std::size_t>(fires.load()));
  CHECK(v.version() == v.transitions().size());
  // Every recorded fire kept the sentence it was declared with, mounted or not now.
  for (const auto& t : v.transitions()) CHECK(t.cause.does == std::optional<std::string>("Send the message."));
  for (const auto& g : v.gap_rows()) CHECK_FALSE(g.does.has_value());
}

TEST_CASE("typed and checked fires, rejects, reports and did_it_work from several threads settle each fire once") {
  gp::FactRegistry facts;
  facts.record_fact("limit", 1, {.tool = "cart.limits"});
  gp::Session s({.node = "cart", .facts = &facts});
  s.declare("cart.add",
            {.does = "Add to cart.",
             .writes = {"cart"},
             .handler = [](const json&) { return gp::HandlerResult{}; },
             .input = {{"type", "object"}, {"required", {"qty"}}, {"properties", {{"qty", {{"type", "integer"}}}}}},
             .argument_checks = {gp::field_matches_fact{.fact = "limit", .field = "qty"}}});
  s.declare("cart.quote", {.does = "Quote.", .handler = [](const json&) { return gp::HandlerResult{.data = 7}; }});
  gp::AgentPort port(s);

  constexpr int agents = 3;
  constexpr int fires_each = 300;
  std::atomic<int> fires{0}, failures{0}, rejected{0};
  std::atomic<bool> agents_done{false};
  std::latch start(agents + 3);
  std::vector<std::thread> pool;
  for (int a = 0; a < agents; ++a)
    pool.emplace_back([&, a] {
      Lcg rng{static_cast<std::uint64_t>(a) + 11};
      start.arrive_and_wait();
      for (int i = 0; i < fires_each; ++i) {
        const std::uint32_t r = rng.next() % 4;
        gp::FireResult res{};
        if (r == 0) {
          res = s.fire("cart.add", {.payload = {{"qty", "one"}}});
          if (res.reason != "PAYLOAD_INVALID") failures.fetch_add(1);
        } else if (r == 1) {
          res = s.fire("cart.add", {.payload = {{"qty", 2}}});
          if (res.reason != "UNSUPPORTED_ARGUMENT") failures.fetch_add(1);
        } else if (r == 2) {
          res = s.fire("cart.add", {.payload = {{"qty", 1}}});
          if (!res.ok && res.reason != "REJECTED") failures.fetch_add(1);  // rejected while its handler ran
        } else {
          const auto out = port.call("do_action", {{"action", "cart.quote"}});
          if (out["data"] != 7) failures.fetch_add(1);
        }
        fires.fetch_add(1);
      }
    });
  // The app: rejects some pending fires and reports others, each by its id.
  pool.emplace_back([&] {
    start.arrive_and_wait();
    Lcg rng{99};
    while (!agents_done.load())
      for (const auto& p : s.pending_fires()) {
        if (rng.next() % 2 == 0) {
          if (s.reject(p.transition_id, "declined")) rejected.fetch_add(1);
        } else {
          s.report_state({{"cart", 1}}, p.transition_id);
        }
      }
  });
  // The model: asks how fires turned out, by ids it has seen or not.
  pool.emplace_back([&] {
    start.arrive_and_wait();
    Lcg rng{7};
    while (!agents_done.load()) {
      const std::string id = "t-" + std::to_string(1 + rng.next() % 400);
      const auto out = port.call("did_it_work", {{"transition_id", id}});
      if (!out.json().contains("facts")) failures.fetch_add(1);
      if (out["ok"] == true && out["settled"] == true && !out["did"].is_string()) failures.fetch_add(1);
    }
  });
  // A second rejecter racing the first on the same ids: each fire is rejected once at most.
  pool.emplace_back([&] {
    start.arrive_and_wait();
    while (!agents_done.load())
      for (const auto& p : s.pending_fires())
        if (s.reject(p.transition_id)) rejected.fetch_add(1);
  });
  for (int a = 0; a < agents; ++a) pool[static_cast<std::size_t>(a)].join();
  agents_done.store(true);
  for (std::size_t k = agents; k < pool.size(); ++k) pool[k].join();

  CHECK(failures.load() == 0);
  const auto v = s.view();
  CHECK(v.transitions().size() + v.gap_rows().size() == static_cast<std::size_t>(fires.load()));
  std::size_t graded_rejected = 0;
  for (const auto& t : v.transitions()) graded_rejected += t.outcome == gp::Outcome::rejected;
  CHECK(graded_rejected == static_cast<std::size_t>(rejected.load()));
  for (const auto& g : v.gap_rows())
    CHECK((g.reason == gp::Refusal::payload_invalid || g.reason == gp::Refusal::unsupported_argument));
}

TEST_CASE("did_it_work asked from another thread while a handler is blocked lists that running fire as pending") {
  gp::Session s;
  gp::AgentPort port(s);
  // One fire of `action` whose handler blocks until released; what did_it_work answers
  // from this thread meanwhile, for an id never issued and for the fire itself.
  const auto while_running = [&](const std::string& action, std::vector<std::string> writes, const std::string& id) {
    std::latch entered(1), release(1);
    s.declare(action, {.does = "Blocks until released.", .writes = std::move(writes), .handler = [&](const json&) {
                         entered.count_down();
                         release.wait();
                         return gp::HandlerResult{};
                       }});
    std::thread firing([&] { port.call("do_action", {{"action", action}}); });
    entered.wait();
    std::pair<json, json> out{port.call("did_it_work", {{"transition_id", "t-99"}}).json(),
                              port.call("did_it_work", {{"transition_id", id}}).json()};
    release.count_down();
    firing.join();
    return out;
  };

  // Without declared writes: settled when its handler returns, pending until then.
  const auto [unknown, own] = while_running("cart.quote", {}, "t-1");
  CHECK(unknown["ok"] == false);
  CHECK(unknown["reason"] == "UNKNOWN_TRANSITION");
  CHECK(unknown["pending"] == json::array({{{"transition_id", "t-1"}, {"action", "cart.quote"}}}));
  CHECK(own["settled"] == false);  // the fire's own answer agrees
  CHECK(port.call("did_it_work", {{"transition_id", "t-99"}})["pending"] == json::array());

  // With declared writes: pending while it runs, and after it returns until reported.
  const auto [unknown2, own2] = while_running("cart.add", {"cart"}, "t-2");
  CHECK(unknown2["pending"] == json::array({{{"transition_id", "t-2"}, {"action", "cart.add"}}}));
  CHECK(own2["settled"] == false);
  CHECK(port.call("did_it_work", {{"transition_id", "t-99"}})["pending"] ==
        json::array({{{"transition_id", "t-2"}, {"action", "cart.add"}}}));
  s.report_state({{"cart", 1}}, "t-2");
  CHECK(port.call("did_it_work", {{"transition_id", "t-99"}})["pending"] == json::array());
}

TEST_CASE("once per item holds under racing fires, a moving item list and looks with a cursor from other threads") {
  gp::Session s({.state = {{"orders", {"1", "2", "3", "4"}}}});
  s.declare("order.cancel", {.does = "Cancel an order.",
                             .handler = [](const json&) { return gp::HandlerResult{}; },
                             .concurrency = gp::Concurrency::once,
                             .reads = {"orders"},
                             .instances =
                                 [](const json& st) {
                                   std::vector<std::string> ids;
                                   for (const auto& o : st.value("orders", json::array()))
                                     ids.push_back(o.get<std::string>());
                                   return ids;
                                 },
                             .human_decides = gp::HumanDecides{.about = "which order"}});
  gp::AgentPort port(s);
  constexpr int agents = 4;
  std::atomic<int> failures{0};
  std::atomic<bool> agents_done{false};
  std::latch start(agents + 2);
  std::vector<std::thread> pool;
  for (int a = 0; a < agents; ++a)
    pool.emplace_back([&, a] {
      Lcg rng{static_cast<std::uint64_t>(a) + 31};
      start.arrive_and_wait();
      for (int i = 0; i < 300; ++i) {
        const std::string item = std::to_string(1 + rng.next() % 6);  // 5 and 6 never listed
        const auto r = s.fire("order.cancel", {.instance = item});
        // Another thread's fire of the same item may still be running (PRIOR_FIRE_PENDING).
        if (!r.ok && r.reason != "DUPLICATE_EXECUTION" && r.reason != "PRIOR_FIRE_PENDING" &&
            r.reason != "INSTANCE_UNKNOWN")
          failures.fetch_add(1);
      }
    });
  // The app moves the list; the agent looks with a cursor and acknowledges.
  pool.emplace_back([&] {
    start.arrive_and_wait();
    Lcg rng{5};
    while (!agents_done.load()) {
      json orders = json::array();
      for (int k = 1; k <= 4; ++k)
        if (rng.next() % 3 != 0) orders.push_back(std::to_string(k));
      s.report_state({{"orders", orders}});
    }
  });
  pool.emplace_back([&] {
    start.arrive_and_wait();
    while (!agents_done.load()) {
      const auto out = port.call("whats_here", {{"since_version", 0}});
      if (out["actions"][0]["human_decides"] != true) failures.fetch_add(1);
      s.acknowledge_stale("order.cancel");
      (void)s.keys_changed_since(0);
    }
  });
  for (int a = 0; a < agents; ++a) pool[static_cast<std::size_t>(a)].join();
  agents_done.store(true);
  for (std::size_t k = agents; k < pool.size(); ++k) pool[k].join();

  CHECK(failures.load() == 0);
  // Each item was cancelled at most once: its receipt is per item.
  std::map<std::string, int> done;
  for (const auto& t : s.transitions()) ++done[t.instance];
  CHECK(done.size() <= 4);
  for (const auto& [item, n] : done) {
    INFO(item);
    CHECK(n == 1);
    CHECK((item >= "1" && item <= "4"));
  }
}
