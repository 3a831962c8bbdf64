// Restarts change nothing: a fire the app stopped in is left in doubt, and the action's
// probe (asked inside declare) or a person (Session::resolve) resolves it, each answer a
// row; a fire's idempotency key is stored with it before its handler runs and is stable
// across restores; a retried request is answered once across a restore too. The crash
// tests kill tests/store_crash_child inside its handlers at random moments.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "crash_child.hpp"
#include "groundplane/agent_port.hpp"
#include "groundplane/session.hpp"
#include "groundplane/store/sqlite.hpp"
#include "store_fixtures.hpp"

namespace gp = groundplane;
using gp_test::TempLedger;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

using Probe = std::function<std::optional<bool>(const gp::FireContext&)>;

std::shared_ptr<gp::LedgerStore> store_at(const fs::path& file) {
  return gp::open_sqlite_store(file, {.synchronous_commit = false});
}

std::uint64_t rows_in(const fs::path& file) { return gp::verify_sqlite_ledger(file).rows; }

// A copy of a ledger file (with its WAL) beside it, removed with it: the file as an app
// killed at the moment of the copy leaves it.
class FileCopy {
 public:
  FileCopy(const fs::path& from, const std::string& suffix) : path_(from.string() + suffix) {
    fs::copy_file(from, path_, fs::copy_options::overwrite_existing);
    if (fs::exists(from.string() + "-wal"))
      fs::copy_file(from.string() + "-wal", path_.string() + "-wal", fs::copy_options::overwrite_existing);
  }
  FileCopy(const FileCopy&) = delete;
  FileCopy& operator=(const FileCopy&) = delete;
  ~FileCopy() {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path_.string() + suffix);
  }
  const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

// The shop the restores declare: `card.charge` (once), `ship` (declares writes), `refund`
// (over items), each with the probe given (or none).
void declare_shop(gp::Session& s, const Probe& probe, const std::function<gp::HandlerResult(const json&)>& handler) {
  s.declare("card.charge",
            {.does = "Charge the card.", .handler = handler, .concurrency = gp::Concurrency::once, .probe = probe});
  s.declare("ship", {.does = "Ship the order.", .writes = {"shipped"}, .handler = handler, .probe = probe});
  s.declare("refund", {.does = "Refund the order.",
                       .handler = handler,
                       .instances =
                           [](const json&) {
                             return std::vector<std::string>{"57", "58"};
                           },
                       .probe = probe});
}

gp::HandlerResult done(const json&) { return {}; }

struct Fire {
  std::string action;
  gp::FireOptions options = {};
};

// An app that stops inside its handlers: `before` runs first (fires that settle, or that
// return and wait for a report), then each of `held` is fired on a thread of its own, in
// order, and the file is copied while all of their handlers are running, as a kill at that
// moment leaves it. The copy, and the idempotency key each held handler was given.
struct Stopped {
  std::unique_ptr<FileCopy> copy;
  std::vector<std::string> keys;
};
Stopped stop_inside(const TempLedger& f, const std::vector<Fire>& held,
                    const std::function<void(gp::Session&)>& before = nullptr) {
  gp::Session s({.store = store_at(f.path())});
  std::atomic<bool> holding{false};
  std::latch entered(static_cast<std::ptrdiff_t>(held.size()));
  std::latch released(1);
  std::mutex m;
  std::vector<std::string> keys;  // in the order the handlers started
  declare_shop(s, nullptr, [&](const json&) {
    if (!holding) return gp::HandlerResult{};
    {
      const std::lock_guard<std::mutex> lock(m);
      keys.push_back(s.current_fire().idempotency_key);
    }
    entered.count_down();
    released.wait();
    return gp::HandlerResult{};
  });
  if (before) before(s);
  holding = true;
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < held.size(); ++i) {
    threads.emplace_back([&, i] { s.fire(held[i].action, held[i].options); });
    for (;;) {  // one at a time, so the fires are recorded in the order given
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      const std::lock_guard<std::mutex> lock(m);
      if (keys.size() == i + 1) break;
    }
  }
  entered.wait();
  Stopped out;
  out.copy = std::make_unique<FileCopy>(f.path(), ".killed");
  released.count_down();
  for (auto& t : threads) t.join();
  out.keys = keys;
  return out;
}

// A probe that answers from a table of transition ids, counting what it is asked.
struct Answers {
  std::map<std::string, std::optional<bool>> by_id;
  std::vector<gp::FireContext> asked;
  std::vector<json> payloads;
  Probe probe() {
    return [this](const gp::FireContext& f) -> std::optional<bool> {
      asked.push_back(f);
      payloads.push_back(f.payload ? *f.payload : json("(no payload)"));
      const auto it = by_id.find(f.transition_id);
      if (it == by_id.end()) throw std::runtime_error("the provider is down");
      return it->second;
    };
  }
};

std::string line_of(const gp::Session& s, const std::string& tid) {
  return gp::attempt_line(*s.view().transition(tid));
}

}  // namespace

TEST_CASE(
    "A fire whose handler was running when the app stopped is in doubt: its line, in_doubt_fires, did_it_work "
    "and whats_here say so, and pending does not list it") {
  TempLedger f;
  const auto stopped = stop_inside(f, {{"card.charge", {.payload = {{"cents", 1299}}}}});
  gp::Session r({.store = store_at(stopped.copy->path())});
  declare_shop(r, nullptr, done);
  CHECK(line_of(r, "t-1") == "not yet known — agent fired card.charge (the app stopped before reporting back)");
  const auto doubt = r.in_doubt_fires();
  REQUIRE(doubt.size() == 1);
  CHECK(doubt[0].transition_id == "t-1");
  CHECK(doubt[0].action == "card.charge");
  CHECK(doubt[0].idempotency_key == stopped.keys[0]);
  CHECK_FALSE(doubt[0].handler_returned);
  gp::AgentPort port(r);
  const auto asked = port.call("did_it_work", {{"transition_id", "t-1"}});
  CHECK(asked["in_doubt"] == true);
  CHECK(asked["idempotency_key"] == stopped.keys[0]);
  CHECK(asked["did"] == "unknown");
  CHECK_THAT(asked["message"].get<std::string>(), Catch::Contains("Do not fire the action again"));
  const auto here = port.call("whats_here", json::object());
  CHECK(here["in_doubt"] ==
        json::array({{{"transition_id", "t-1"}, {"action", "card.charge"}, {"idempotency_key", stopped.keys[0]}}}));
  CHECK_FALSE(here.contains("in_doubt_total"));
  // Nothing will report on it, so it is never pending: an unknown id's answer lists none.
  const auto unknown = port.call("did_it_work", {{"transition_id", "t-99"}});
  CHECK(unknown["reason"] == "UNKNOWN_TRANSITION");
  CHECK(unknown["pending"] == json::array());
  CHECK(r.pending_fires().empty());
  CHECK(r.ground_truth().text.find("Awaiting the app's report") == std::string::npos);
  // A once action in doubt counts as performed until it is resolved.
  CHECK(r.fire("card.charge").reason == "DUPLICATE_EXECUTION");
  CHECK_FALSE(gp::AgentPort(r).call("whats_here", json::object())["actions"][0].value("enabled", true));
}

TEST_CASE(
    "An action's probe resolves its fires in doubt inside declare: true is DID happen, false did NOT happen, "
    "each answer a row, and a second restart reads them and asks nothing") {
  TempLedger f;
  const auto stopped = stop_inside(f, {{"refund", {.payload = {{"order", 57}}, .instance = "57"}},
                                       {"refund", {.payload = {{"order", 58}}, .instance = "58"}}});
  const fs::path& file = stopped.copy->path();
  std::string before, after;
  {
    gp::Session r({.store = store_at(file)});
    before = r.ground_truth().text;
    const std::uint64_t rows = rows_in(file);
    Answers a;
    a.by_id = {{"t-1", true}, {"t-2", false}};
    declare_shop(r, a.probe(), done);
    REQUIRE(a.asked.size() == 2);  // once each, before declare returned
    after = r.ground_truth().text;
    CHECK(rows_in(file) == rows + 2);  // one row per answer
    CHECK(r.in_doubt_fires().empty());
    CHECK(line_of(r, "t-1") == "DID happen — agent fired refund (confirmed after a restart)");
    CHECK(line_of(r, "t-2") ==
          "did NOT happen — agent fired refund (it did not run before the app stopped; confirmed after a restart)");
    CHECK(r.view().transition("t-1")->outcome == gp::Outcome::confirmed);
    CHECK(r.view().transition("t-2")->outcome == gp::Outcome::confirmed_not_run);
    CHECK(gp::did_happen(gp::Outcome::confirmed));
    gp::AgentPort port(r);
    const auto t1 = port.call("did_it_work", {{"transition_id", "t-1"}});
    CHECK(t1["did"] == "yes");
    CHECK_FALSE(t1.contains("in_doubt"));
    CHECK(port.call("did_it_work", {{"transition_id", "t-2"}})["did"] == "no");
    CHECK_FALSE(port.call("whats_here", json::object()).contains("in_doubt"));
  }
  CHECK_THAT(before, Catch::Contains("  • not yet known — agent fired refund (the app stopped before reporting back)\n"
                                     "  • not yet known — agent fired refund (the app stopped before reporting back)"));
  CHECK_THAT(after,
             Catch::Contains("  • DID happen — agent fired refund (confirmed after a restart)\n  • did NOT happen "
                             "— agent fired refund (it did not run before the app stopped; confirmed after a "
                             "restart)"));
  const std::uint64_t rows = rows_in(file);
  gp::Session again({.store = store_at(file)});
  Answers b;
  declare_shop(again, b.probe(), done);
  CHECK(b.asked.empty());
  CHECK(again.ground_truth().text == after);
  CHECK(rows_in(file) == rows);  // nothing in doubt: not even a restart row
  CHECK(gp::verify_sqlite_ledger(file).ok);
}

TEST_CASE(
    "A probe that cannot tell, or throws, leaves the fire in doubt and unrecorded, and is asked once per restart") {
  TempLedger f;
  const auto stopped = stop_inside(f, {{"card.charge", {}}, {"ship", {}}});
  const fs::path& file = stopped.copy->path();
  for (int restart = 0; restart < 2; ++restart) {
    gp::Session r({.store = store_at(file)});
    const std::uint64_t rows = rows_in(file);
    Answers a;
    a.by_id = {{"t-1", std::nullopt}};  // t-2 throws
    declare_shop(r, a.probe(), done);
    CHECK(a.asked.size() == 2);
    declare_shop(r, a.probe(), done);  // declared again in the same process: not asked again
    CHECK(a.asked.size() == 2);
    CHECK(rows_in(file) == rows);
    CHECK(r.in_doubt_fires().size() == 2);
    CHECK(line_of(r, "t-1") == "not yet known — agent fired card.charge (the app stopped before reporting back)");
    CHECK(line_of(r, "t-2") == "not yet known — agent fired ship (the app stopped before reporting back)");
  }
  // An action declared without a probe is asked nothing, and a read-only restore asks nothing.
  gp::Session ro({.store = gp::open_sqlite_store(file, {.read_only = true})});
  Answers a;
  a.by_id = {{"t-1", true}, {"t-2", true}};
  declare_shop(ro, a.probe(), done);
  CHECK(a.asked.empty());
  CHECK(ro.in_doubt_fires().size() == 2);
}

TEST_CASE(
    "A fire whose handler returned before the stop is in doubt only about its effect: false reads ran, but the "
    "effect was NOT observed, and keeps its once receipt") {
  TempLedger f;
  {
    gp::Session s({.store = store_at(f.path())});
    s.declare("label.print",
              {.does = "Print the label.", .writes = {"label"}, .handler = done, .concurrency = gp::Concurrency::once});
    s.declare("ship", {.does = "Ship the order.", .writes = {"shipped"}, .handler = done});
    REQUIRE(s.fire("label.print").ok);  // returned; the app stops before its report
    REQUIRE(s.fire("ship").ok);
  }
  Answers a;
  a.by_id = {{"t-1", false}, {"t-2", true}};
  gp::Session r({.store = store_at(f.path())});
  const auto doubt = r.in_doubt_fires();
  REQUIRE(doubt.size() == 2);
  CHECK(doubt[0].handler_returned);
  r.declare("label.print", {.does = "Print the label.",
                            .writes = {"label"},
                            .handler = done,
                            .concurrency = gp::Concurrency::once,
                            .probe = a.probe()});
  r.declare("ship", {.does = "Ship the order.", .writes = {"shipped"}, .handler = done, .probe = a.probe()});
  CHECK(line_of(r, "t-1") ==
        "ran, but the declared effect was NOT observed — agent fired label.print (confirmed after a restart)");
  CHECK(line_of(r, "t-2") == "DID happen — agent fired ship (confirmed after a restart)");
  CHECK(r.view().transition("t-1")->outcome == gp::Outcome::confirmed_not_observed);
  // It ran: the once receipt stays.
  const auto again = r.fire("label.print");
  CHECK(again.reason == "DUPLICATE_EXECUTION");
  CHECK(again.prior_transition_id == "t-1");
  CHECK(gp::AgentPort(r).call("did_it_work", {{"transition_id", "t-1"}})["did"] == "unknown");
}

TEST_CASE(
    "A once fire resolved did NOT happen reopens its action, and the fire that takes its place reuses its "
    "idempotency key, and the one after gets its own") {
  TempLedger f;
  const auto stopped = stop_inside(f, {{"card.charge", {.payload = {{"cents", 1299}}}}});
  const fs::path& file = stopped.copy->path();
  std::vector<std::string> keys;
  {
    gp::Session r({.store = store_at(file)});
    Answers a;
    a.by_id = {{"t-1", false}};
    declare_shop(r, a.probe(), [&](const json&) {
      keys.push_back(r.current_fire().idempotency_key);
      return gp::HandlerResult{};
    });
    const auto retry = r.fire("card.charge", {.payload = {{"cents", 1299}}});
    REQUIRE(retry.ok);                                         // reopened
    CHECK(keys == std::vector<std::string>{stopped.keys[0]});  // the system it calls drops a late original
    CHECK(r.view().transition(retry.transition_id)->idempotency_key == stopped.keys[0]);
    CHECK(r.fire("card.charge").reason == "DUPLICATE_EXECUTION");
    // Another action's fire is not its successor.
    r.fire("ship");
    CHECK(r.view().transition("t-3")->idempotency_key != stopped.keys[0]);
  }
  // The same after a restore: the successor's row carries the key, and nothing else takes it.
  gp::Session again({.store = store_at(file)});
  declare_shop(again, nullptr, done);
  const auto ts = again.transitions();
  REQUIRE(ts.size() == 3);
  CHECK(ts[0].idempotency_key == ts[1].idempotency_key);
  CHECK(ts[2].idempotency_key != ts[0].idempotency_key);
}

TEST_CASE(
    "The fire that takes the place of one resolved did NOT happen with a request key reuses its idempotency key") {
  TempLedger f;
  const auto stopped = stop_inside(f, {{"ship", {.payload = {{"order", 7}}, .request_key = "ship-7"}},
                                       {"ship", {.payload = {{"order", 8}}, .request_key = "ship-8"}}});
  const fs::path& file = stopped.copy->path();
  gp::Session r({.store = store_at(file)});
  declare_shop(r, nullptr, done);
  // In doubt, a retry replays the fire: nothing runs, whatever became of it.
  const auto waiting = r.fire("ship", {.payload = {{"order", 7}}, .request_key = "ship-7"});
  CHECK(waiting.replayed);
  CHECK(waiting.transition_id == "t-1");
  REQUIRE(r.resolve("t-1", false, "ana"));  // a person checked: it never reached the carrier
  REQUIRE(r.resolve("t-2", true, "ana"));
  const auto retry = r.fire("ship", {.payload = {{"order", 7}}, .request_key = "ship-7"});
  CHECK_FALSE(retry.replayed);
  REQUIRE(retry.ok);
  CHECK(r.view().transition(retry.transition_id)->idempotency_key == stopped.keys[0]);
  CHECK(r.fire("ship", {.payload = {{"order", 8}}, .request_key = "ship-8"}).transition_id == "t-2");  // happened
  const auto next = r.fire("ship", {.payload = {{"order", 9}}, .request_key = "ship-9"});
  CHECK(r.view().transition(next.transition_id)->idempotency_key != stopped.keys[0]);
}

TEST_CASE(
    "A person resolves a fire in doubt with Session::resolve: the line says a person confirmed it, `by` is "
    "stored and never rendered, and only a fire in doubt can be resolved") {
  TempLedger f;
  const auto stopped = stop_inside(f, {{"card.charge", {}}, {"ship", {}}},
                                   [](gp::Session& s) { REQUIRE(s.fire("refund", {.instance = "57"}).ok); });
  const fs::path& file = stopped.copy->path();
  {
    gp::Session r({.store = store_at(file)});
    declare_shop(r, nullptr, done);
    CHECK_THROWS_AS(r.resolve("t-2", true, " "), gp::ConfigurationError);
    CHECK_FALSE(r.resolve("t-1", true, "ana"));  // settled before the stop
    CHECK_FALSE(r.resolve("t-9", true, "ana"));  // never issued
    CHECK_FALSE(r.resolve("ask-1", true, "ana"));
    const std::uint64_t rows = rows_in(file);
    CHECK(r.resolve("t-2", false, "ana.lopez@shop"));
    CHECK(r.resolve("t-3", true, "ana.lopez@shop"));
    CHECK_FALSE(r.resolve("t-2", true, "bob"));  // resolved already
    CHECK(rows_in(file) == rows + 2);
    CHECK(line_of(r, "t-2") ==
          "did NOT happen — agent fired card.charge (it did not run before the app stopped; "
          "confirmed by a person after a restart)");
    CHECK(line_of(r, "t-3") == "DID happen — agent fired ship (confirmed by a person after a restart)");
    CHECK(r.view().transition("t-2")->resolved_by == "ana.lopez@shop");
    CHECK(r.ground_truth().text.find("ana.lopez") == std::string::npos);
    CHECK(r.fire("card.charge").ok);  // reopened
  }
  gp::Session again({.store = store_at(file)});
  declare_shop(again, nullptr, done);
  CHECK(again.view().transition("t-2")->outcome == gp::Outcome::confirmed_not_run_by_person);
  CHECK(again.view().transition("t-3")->outcome == gp::Outcome::confirmed_by_person);
  CHECK(again.view().transition("t-3")->resolved_by == "ana.lopez@shop");
  CHECK(again.fire("card.charge").reason == "DUPLICATE_EXECUTION");  // the successor happened
}

TEST_CASE(
    "The probe is handed the fire's context: its transition id, the key its handler had, its item and payload, "
    "under max_rows_in_memory too") {
  TempLedger f;
  const auto stopped =
      stop_inside(f, {{"refund", {.payload = {{"order", 57}, {"why", "late"}}, .instance = "57"}}}, [](gp::Session& s) {
        for (int i = 0; i < 40; ++i) REQUIRE(s.fire("refund", {.instance = "58"}).ok);
      });
  for (const std::size_t cap : {std::size_t{0}, std::size_t{4}}) {
    CAPTURE(cap);
    const FileCopy file(stopped.copy->path(), ".restored");  // the killed file afresh: a restore writes to it
    gp::Session r({.store = store_at(file.path()), .max_rows_in_memory = cap});
    Answers a;
    a.by_id = {{"t-41", true}};
    declare_shop(r, a.probe(), done);
    REQUIRE(a.asked.size() == 1);
    CHECK(a.asked[0].transition_id == "t-41");
    CHECK(a.asked[0].idempotency_key == stopped.keys[0]);
    CHECK(a.asked[0].instance == "57");
    CHECK(a.payloads[0] == json{{"order", 57}, {"why", "late"}});
    CHECK(line_of(r, "t-41") == "DID happen — agent fired refund (confirmed after a restart)");
  }
}

TEST_CASE("A restore refuses a resolution of a fire that is not in doubt, naming the row") {
  const auto refused = [](const std::vector<gp::LedgerRow>& rows) {
    TempLedger f;
    gp::open_sqlite_store(f.path())->append(rows);
    REQUIRE(gp::verify_sqlite_ledger(f.path()).ok);
    std::string what;
    try {
      const gp::Session s({.store = gp::open_sqlite_store(f.path(), {.read_only = true})});
    } catch (const gp::LedgerStoreError& e) {
      what = e.what();
    }
    return what;
  };
  const gp::LedgerRow start{0, "init", json{{"n", ""}, {"st", json::object()}}};
  const gp::LedgerRow fire{0, "t", json{{"a", "pay"}, {"d", "Pay."}, {"ik", "0123456789abcdef01234567"}}};
  const gp::LedgerRow stop{1, "rs", json{{"t", {0}}, {"w", json::array()}}};
  const gp::LedgerRow yes{1, "rv", json{{"t", 0}, {"h", 1}}};
  // A resolution of a fire that never stopped: it was pending, not in doubt.
  CHECK_THAT(refused({start, fire, yes}), Catch::Contains("row 3 (rv) resolves a fire that is not in doubt"));
  // One resolved twice.
  CHECK_THAT(refused({start, fire, stop, yes, yes}),
             Catch::Contains("row 5 (rv) resolves a fire that is not in doubt"));
  // One of a fire the ledger does not hold.
  CHECK_THAT(refused({start, fire, stop, {1, "rv", json{{"t", 5}, {"h", 0}}}}),
             Catch::Contains("row 4 (rv) resolves a fire that is not in doubt"));
  // Missing members, and a key this release never writes.
  CHECK_THAT(refused({start, fire, stop, {1, "rv", json{{"t", 0}}}}),
             Catch::Contains("row 4 (rv) is malformed: member \"h\" is missing"));
  CHECK_THAT(refused({start, {0, "t", json{{"a", "pay"}, {"ik", "ZZ"}}}}),
             Catch::Contains("row 2 (t) is malformed: member \"ik\" is not an idempotency key"));
  CHECK(refused({start, fire, stop, yes}).empty());  // in doubt: resolved
}

TEST_CASE(
    "A request key is bound across a restore: the retry replays, another request with it is REQUEST_KEY_REUSED, "
    "and a key whose fire is no longer held is read from the store") {
  TempLedger f;
  int ran = 0;
  const auto handler = [&](const json&) {
    ++ran;
    return gp::HandlerResult{};
  };
  {
    gp::Session s({.store = store_at(f.path())});
    declare_shop(s, nullptr, handler);
    REQUIRE(s.fire("refund", {.payload = {{"order", 57}}, .instance = "57", .request_key = "refund-57"}).ok);
    REQUIRE(s.fire("card.charge", {.payload = {{"cents", 5}}, .request_key = "charge-1"}).ok);
    s.declare("fail", {.does = "Fail.", .handler = [](const json&) { return gp::HandlerResult{false, "no"}; }});
    REQUIRE(s.fire("fail", {.request_key = "fail-1"}).reason == "HANDLER_FAILED");
    for (int i = 0; i < 60; ++i)
      REQUIRE(s.fire("refund", {.instance = "58", .request_key = "r-" + std::to_string(i)}).ok);
  }
  REQUIRE(ran == 62);
  for (const std::size_t cap : {std::size_t{0}, std::size_t{8}}) {
    CAPTURE(cap);
    gp::Session r({.store = store_at(f.path()), .max_rows_in_memory = cap});
    declare_shop(r, nullptr, handler);
    r.declare("fail", {.does = "Fail.", .handler = [](const json&) { return gp::HandlerResult{false, "no"}; }});
    if (cap > 0) REQUIRE_FALSE(r.view().transition("t-1").has_value());  // only the store holds it
    const std::uint64_t rows = rows_in(f.path());
    const auto again = r.fire("refund", {.payload = {{"order", 57}}, .instance = "57", .request_key = "refund-57"});
    CHECK(again.replayed);
    CHECK(again.ok);
    CHECK(again.transition_id == "t-1");
    const auto failed = r.fire("fail", {.request_key = "fail-1"});
    CHECK(failed.replayed);
    CHECK(failed.reason == "HANDLER_FAILED");
    CHECK(failed.transition_id == "t-3");
    CHECK(r.fire("card.charge", {.payload = {{"cents", 5}}, .request_key = "charge-1"}).transition_id == "t-2");
    CHECK(r.fire("refund", {.instance = "58", .request_key = "r-59"}).transition_id == "t-63");
    CHECK(rows_in(f.path()) == rows);  // replays write nothing
    const auto other = r.fire("refund", {.payload = {{"order", 58}}, .instance = "57", .request_key = "refund-57"});
    CHECK(other.reason == "REQUEST_KEY_REUSED");
    CHECK(ran == 62);
    // The port answers a replay of a fire only the store holds as did_it_work would.
    const auto port = gp::AgentPort(r).call(
        "do_action", {{"action", "card.charge"}, {"input", {{"cents", 5}}}, {"request_key", "charge-1"}});
    CHECK(port["replayed"] == true);
    CHECK(port["did"] == "unknown");
    CHECK(port["line"] == "ran, but the effect was unobservable — agent fired card.charge (committed)");
  }
}

TEST_CASE("Without a probe, a fire in doubt stays in doubt across restarts, and a once action in doubt stays done") {
  TempLedger f;
  const auto stopped = stop_inside(f, {{"card.charge", {}}});
  const fs::path& file = stopped.copy->path();
  for (int restart = 0; restart < 3; ++restart) {
    gp::Session r({.store = store_at(file)});
    declare_shop(r, nullptr, done);
    CHECK(r.in_doubt_fires().size() == 1);
    CHECK(r.view().transition("t-1")->outcome == gp::Outcome::stopped);
    CHECK(r.fire("card.charge").reason == "DUPLICATE_EXECUTION");
  }
}

TEST_CASE("whats_here lists at most 50 fires in doubt, oldest first, and says how many there are") {
  TempLedger f;
  {
    gp::Session s({.store = store_at(f.path())});
    s.declare("ship", {.does = "Ship the order.", .writes = {"shipped"}, .handler = done});
    for (int i = 0; i < 120; ++i) REQUIRE(s.fire("ship").ok);  // none reported: in doubt about their effect
  }
  gp::Session r({.store = store_at(f.path())});
  const auto here = gp::AgentPort(r).call("whats_here", json::object());
  REQUIRE(here["in_doubt"].size() == 50);
  CHECK(here["in_doubt"][0]["transition_id"] == "t-1");
  CHECK(here["in_doubt"][49]["transition_id"] == "t-50");
  CHECK(here["in_doubt_total"] == 120);
}

TEST_CASE("A fire's idempotency key is committed with its row before its handler runs, and is stable across restores") {
  TempLedger f;
  const auto stopped = stop_inside(f, {{"card.charge", {}}});
  // The killed file holds the row with the key the running handler had.
  gp::Session ro({.store = gp::open_sqlite_store(stopped.copy->path(), {.read_only = true})});
  CHECK(ro.view().transition("t-1")->idempotency_key == stopped.keys[0]);
  std::string key;
  {
    gp::Session s({.store = store_at(f.path())});
    s.declare("pay", {.does = "Pay.", .handler = [&](const json&) {
                        key = s.current_fire().idempotency_key;
                        return gp::HandlerResult{};
                      }});
    REQUIRE(s.fire("pay").ok);
  }
  for (int i = 0; i < 2; ++i) {
    const gp::Session r({.store = gp::open_sqlite_store(f.path(), {.read_only = true})});
    CHECK(r.transitions().back().idempotency_key == key);
  }
}

TEST_CASE(
    "A fire recorded before 0.4 has no idempotency key, and the 0.3 file's fire in doubt is resolved by a probe") {
  TempLedger copy{"fixture"};
  fs::copy_file(fs::path(GROUNDPLANE_LEDGER_FIXTURES) / "0.3-sqlite.ledger", copy.path());
  gp::Session s({.store = gp::open_sqlite_store(copy.path(), {.session = "shop"})});
  const auto doubt = s.in_doubt_fires();
  REQUIRE(doubt.size() == 1);  // the sync fire the first run stopped in, awaiting its report
  CHECK(doubt[0].action == "sync");
  CHECK(doubt[0].idempotency_key.empty());
  CHECK(doubt[0].handler_returned);
  for (const auto& t : s.transitions()) CHECK(t.idempotency_key.empty());
  Answers a;
  a.by_id = {{doubt[0].transition_id, false}};
  s.declare("sync", {.does = "Sync the inbox.",
                     .writes = {"synced"},
                     .handler = done,
                     .concurrency = gp::Concurrency::single_flight,
                     .probe = a.probe()});
  REQUIRE(a.asked.size() == 1);
  CHECK(a.asked[0].idempotency_key.empty());
  CHECK(gp::attempt_line(*s.view().transition(doubt[0].transition_id)) ==
        "ran, but the declared effect was NOT observed — agent fired sync (confirmed after a restart)");
  const auto fired = s.fire("sync");
  CHECK(s.view().transition(fired.transition_id)->idempotency_key.size() == 24);  // fires from now on have one
  CHECK(gp::verify_sqlite_ledger(copy.path(), "shop").ok);
}

#ifdef GROUNDPLANE_LEDGER_TOOL
TEST_CASE("groundplane-ledger audit shows each fire's idempotency key, its request key, and how doubt was resolved") {
  TempLedger f;
  const auto stopped = stop_inside(f, {{"card.charge", {.request_key = "charge-57"}}, {"ship", {}}});
  {
    gp::Session r({.store = store_at(stopped.copy->path())});
    Answers a;
    a.by_id = {{"t-1", false}};
    declare_shop(r, a.probe(), done);
    REQUIRE(r.resolve("t-2", true, "ana"));
  }
  const std::string cmd =
      std::string("'") + GROUNDPLANE_LEDGER_TOOL + "' audit '" + stopped.copy->path().string() + "'";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  CHECK(WEXITSTATUS(::pclose(p)) == 0);
  CHECK_THAT(out, Catch::Contains("t-1: the agent fired card.charge ('Charge the card.'), request key 'charge-57', "
                                  "recorded; idempotency key " +
                                  stopped.keys[0]));
  CHECK_THAT(out, Catch::Contains("; idempotency key " + stopped.keys[1]));
  CHECK_THAT(out, Catch::Contains("the app restarted; the fires it had stopped in are in doubt (whether they happened "
                                  "is not known): t-1 (card.charge), t-2 (ship)"));
  CHECK_THAT(out, Catch::Contains("t-1 (card.charge), in doubt since a restart: the action's probe said it did not "
                                  "happen"));
  CHECK_THAT(out, Catch::Contains("t-2 (ship), in doubt since a restart: the user 'ana' said it happened"));
}
#endif

#ifdef GROUNDPLANE_CRASH_CHILD
namespace {

// Every fire's idempotency key, and the fires that share one: each must take the place of
// the one before it, resolved "did NOT happen" — the next fire of its `once` action, or with
// its request key. Returns how many fires took another's key.
std::size_t check_keys(const std::vector<gp::Transition>& ts) {
  std::map<std::string, std::vector<const gp::Transition*>> by_key;
  for (const auto& t : ts) {
    INFO(t.id);
    REQUIRE(t.idempotency_key.size() == 24);
    by_key[t.idempotency_key].push_back(&t);
  }
  std::size_t reused = 0;
  for (const auto& [key, fires] : by_key)
    for (std::size_t i = 1; i < fires.size(); ++i) {
      const gp::Transition& was = *fires[i - 1];
      const gp::Transition& now = *fires[i];
      INFO(key << ": " << was.id << " then " << now.id);
      CHECK(was.outcome == gp::Outcome::confirmed_not_run);
      const bool same_once = was.cause.action == now.cause.action && was.cause.action.rfind("pay-", 0) == 0;
      const bool same_request = !was.request_key.empty() && was.request_key == now.request_key;
      CHECK((same_once || same_request));
      ++reused;
    }
  return reused;
}

// The child's own record of what it did: key -> the fires that did it.
std::map<std::string, std::vector<std::string>> effects_of(const std::string& file) {
  std::map<std::string, std::vector<std::string>> out;
  std::ifstream in(file + ".effects");
  for (std::string key, tid, action; in >> key >> tid >> action;) out[key].push_back(tid);
  return out;
}

struct CrashRun {
  int kills = 0;
  std::size_t fires = 0;
  std::size_t probed = 0;
};

CrashRun kill_until(const TempLedger& f, const char* mode, int min_kills, std::size_t min_fires) {
  std::mt19937 rng(20261207);
  CrashRun run;
  std::set<std::string> fired;
  while (run.kills < min_kills || fired.size() < min_fires) {
    REQUIRE(run.kills < 20 * min_kills);  // it does fire between the kills
    const auto child = gp_test::run_and_kill(f.str(), 10 + static_cast<int>(rng() % 110), {"in-doubt", mode});
    INFO("kill " << run.kills);
    REQUIRE(child.signal == SIGKILL);
    ++run.kills;
    for (const auto& l : child.lines) {
      CHECK(l.rfind("retry-bad", 0) != 0);
      if (l.rfind("fired ", 0) == 0) fired.insert(l.substr(6));
      if (l.rfind("probe ", 0) == 0) ++run.probed;
    }
    REQUIRE(gp::verify_sqlite_ledger(f.path(), "in-doubt").ok);
  }
  run.fires = fired.size();
  return run;
}

}  // namespace

TEST_CASE(
    "Crash: killed inside its handlers 50 times, restored with a probe reading its own record, every fire is "
    "resolved as it happened, no once handler runs twice, and no two fires share a key but a successor",
    "[crash]") {
  TempLedger f{"in-doubt"};
  constexpr int kills = 50;
  const CrashRun run = kill_until(f, "probe", kills, 1000);
  // The last kill's fires, resolved the way a restart resolves them.
  const auto effects = effects_of(f.str());
  gp::Session r({.store = gp::open_sqlite_store(f.path(), {.session = "in-doubt"})});
  const Probe probe = [&](const gp::FireContext& c) -> std::optional<bool> {
    return effects.contains(c.idempotency_key);
  };
  for (int k = 0; k < 4; ++k)
    r.declare("pay-" + std::to_string(k),
              {.does = "Charge the card once.", .handler = done, .concurrency = gp::Concurrency::once, .probe = probe});
  r.declare("ship", {.does = "Ship the order.", .writes = {"shipped"}, .handler = done, .probe = probe});
  r.declare("refund", {.does = "Refund the order.", .handler = done, .probe = probe});
  CHECK(r.in_doubt_fires().empty());
  const auto ts = r.transitions();
  std::map<gp::Outcome, std::size_t> resolved;
  std::map<std::string, int> once_effects;
  for (const auto& t : ts) {
    INFO(t.id << " " << t.cause.action << " " << gp::to_string(t.outcome));
    const auto e = effects.find(t.idempotency_key);
    const bool did = e != effects.end() && std::find(e->second.begin(), e->second.end(), t.id) != e->second.end();
    switch (t.outcome) {
      case gp::Outcome::confirmed:
      case gp::Outcome::confirmed_not_observed:  // its handler returned: the effect was made
        CHECK(did);
        ++resolved[t.outcome];
        break;
      case gp::Outcome::confirmed_not_run:
        CHECK_FALSE(did);
        ++resolved[t.outcome];
        break;
      case gp::Outcome::stopped:
        FAIL("left in doubt");
        break;
      default:  // graded while the app ran
        CHECK(did);
    }
    if (did && t.cause.action.rfind("pay-", 0) == 0) ++once_effects[t.cause.action];
  }
  for (const auto& [action, n] : once_effects) {
    INFO(action);
    CHECK(n == 1);
  }
  const std::size_t reused = check_keys(ts);
  CHECK(run.kills >= kills);
  CHECK(ts.size() >= 1000);
  CHECK(resolved[gp::Outcome::confirmed] + resolved[gp::Outcome::confirmed_not_run] > 0);
  WARN("in-doubt crash test: " << run.kills << " kills, " << ts.size() << " fires, " << run.probed
                               << " probes asked, resolved: " << resolved[gp::Outcome::confirmed] << " happened, "
                               << resolved[gp::Outcome::confirmed_not_run] << " did not run, "
                               << resolved[gp::Outcome::confirmed_not_observed] << " ran without their effect seen; "
                               << reused << " successors took a freed key");
  fs::remove(f.str() + ".effects");
}

TEST_CASE("Crash: killed inside its handlers with no probe declared, every fire in doubt stays in doubt", "[crash]") {
  TempLedger f{"no-probe"};
  constexpr int kills = 50;
  const CrashRun run = kill_until(f, "no-probe", kills, 1000);
  CHECK(run.probed == 0);
  gp::Session r({.store = gp::open_sqlite_store(f.path(), {.session = "in-doubt", .read_only = true})});
  std::size_t in_doubt = 0;
  for (const auto& t : r.transitions()) {
    INFO(t.id << " " << gp::to_string(t.outcome));
    CHECK(t.outcome != gp::Outcome::confirmed);
    CHECK(t.outcome != gp::Outcome::confirmed_not_run);
    CHECK(t.outcome != gp::Outcome::confirmed_not_observed);
    in_doubt += t.outcome == gp::Outcome::stopped;
  }
  CHECK(r.in_doubt_fires().size() == in_doubt);
  CHECK(in_doubt > 0);
  // In doubt, a once action counts as performed: none of them ran twice.
  std::map<std::string, int> per_action;
  std::ifstream in(f.str() + ".effects");
  for (std::string key, tid, action; in >> key >> tid >> action;)
    if (action.rfind("pay-", 0) == 0) ++per_action[action];
  for (const auto& [action, n] : per_action) {
    INFO(action);
    CHECK(n == 1);
  }
  check_keys(r.transitions());  // no reuse without a resolution: every key its own
  WARN("no-probe crash test: " << run.kills << " kills, " << r.transitions().size() << " fires, " << in_doubt
                               << " left in doubt");
  fs::remove(f.str() + ".effects");
}
#endif
