// The process the crash tests kill: a session on a ledger file, firing in a loop until
// SIGKILL arrives.
//
//   store_crash_child FILE
//
// (test_session_store) Each start restores the session and first presents every
// approval it already spent again (each must be refused), then loops: an approved
// high-effect fire, a `once` fire, a fire it reports on and one it never reports on.
// Every fire is printed ("fired t-N") only after fire() returned, and every execution
// of a `once` handler is appended to FILE.exec before the handler returns, so the
// parent can hold the ledger to both.
//
//   store_crash_child FILE in-doubt probe|no-probe
//
// (test_restarts) Handlers that take a while, so that kills land inside them: each
// performs its effect by appending one line, "KEY t-N ACTION", to FILE.effects with one
// write (the child's own record of what it did, as a payment provider keeps one per
// idempotency key), sleeping a random moment before and after. `pay-0` .. `pay-3` are
// `once`; `ship` declares writes the child reports after it returns (a kill in between
// leaves it in doubt only about its effect); `refund` carries a request key and is retried
// at once with it. With `probe`, every action's probe answers whether FILE.effects holds
// the fire's key (the process that could write it is dead, so "no" is final), printing
// "probe t-N KEY yes|no"; with `no-probe` none is declared. Each start first retries the
// last refunds' request keys, printing "retry-bad ..." when one is not answered as the
// ledger says it must be.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include <groundplane/session.hpp>
#include <groundplane/store/sqlite.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

void say(const std::string& line) {
  const std::string out = line + "\n";
  if (::write(1, out.data(), out.size()) < 0) std::_Exit(3);
}

// Whether FILE.effects holds an effect made under `key`.
bool effect_recorded(const std::string& effects, const std::string& key) {
  std::ifstream in(effects);
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, key.size() + 1, key + " ") == 0) return true;
  return false;
}

int in_doubt_mode(const std::string& file, bool with_probe) {
  const std::string effects = file + ".effects";
  const int log = ::open(effects.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (log < 0) return 2;
  std::mt19937 rng(static_cast<unsigned>(::getpid()));
  gp::Session s({.store = gp::open_sqlite_store(file, {.session = "in-doubt", .synchronous_commit = false})});
  const auto nap = [&rng] { std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000)); };
  const auto act = [&](const std::string& action) {
    return [&, action](const json&) {
      nap();
      const gp::FireContext& f = s.current_fire();
      const std::string line = f.idempotency_key + " " + f.transition_id + " " + action + "\n";
      if (::write(log, line.data(), line.size()) < 0) std::_Exit(3);  // the effect: one write
      nap();
      return gp::HandlerResult{};
    };
  };
  const auto probe = [&](const gp::FireContext& f) -> std::optional<bool> {
    const bool did = effect_recorded(effects, f.idempotency_key);
    say("probe " + f.transition_id + " " + f.idempotency_key + (did ? " yes" : " no"));
    return did;
  };
  const auto probe_if = [&]() -> std::function<std::optional<bool>(const gp::FireContext&)> {
    if (with_probe) return probe;
    return nullptr;
  };
  for (int k = 0; k < 4; ++k) {
    const std::string id = "pay-" + std::to_string(k);
    s.declare(id, {.does = "Charge the card once.",
                   .handler = act(id),
                   .concurrency = gp::Concurrency::once,
                   .probe = probe_if()});
  }
  s.declare("ship", {.does = "Ship the order.", .writes = {"shipped"}, .handler = act("ship"), .probe = probe_if()});
  s.declare("refund", {.does = "Refund the order.", .handler = act("refund"), .probe = probe_if()});

  // Retries of the last refunds: each bound key replays its fire; a key freed by a "did
  // not happen" fires anew, taking the freed fire's idempotency key.
  {
    std::vector<gp::Transition> refunds;  // the latest fire of each of the last request keys
    const auto all = s.transitions();
    for (auto t = all.rbegin(); t != all.rend() && refunds.size() < 4; ++t) {
      const bool seen = std::any_of(refunds.begin(), refunds.end(),
                                    [&](const gp::Transition& r) { return r.request_key == t->request_key; });
      if (t->cause.action == "refund" && !seen) refunds.push_back(*t);
    }
    for (const gp::Transition& t : refunds) {
      const auto r = s.fire("refund", {.payload = t.cause.payload, .request_key = t.request_key});
      const bool freed = t.outcome == gp::Outcome::confirmed_not_run;
      const auto now = s.view().transition(r.transition_id);
      if (freed ? (r.replayed || !now || now->idempotency_key != t.idempotency_key)
                : (!r.replayed || r.transition_id != t.id))
        say("retry-bad " + t.id + " " + t.request_key + " " + r.transition_id + (r.replayed ? " replayed" : ""));
      else if (!r.transition_id.empty()) say("fired " + r.transition_id);
    }
  }
  say("ready");
  for (std::uint64_t i = s.version();; ++i) {
    const auto paid = s.fire("pay-" + std::to_string(i % 4));
    if (!paid.transition_id.empty()) say("fired " + paid.transition_id);
    const auto shipped = s.fire("ship", {.payload = {{"order", i}}});
    say("fired " + shipped.transition_id);
    s.report_state({{"shipped", i}}, shipped.transition_id);
    const json refund{{"order", i}};
    const std::string key = "refund-" + std::to_string(::getpid()) + "-" + std::to_string(i);
    const auto refunded = s.fire("refund", {.payload = refund, .request_key = key});
    say("fired " + refunded.transition_id);
    const auto retried = s.fire("refund", {.payload = refund, .request_key = key});
    if (!retried.replayed || retried.transition_id != refunded.transition_id)
      say("retry-bad " + refunded.transition_id + " " + key + " " + retried.transition_id);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[2]) == "in-doubt") return in_doubt_mode(argv[1], std::string(argv[3]) == "probe");
  if (argc != 2) return 2;
  const std::string file = argv[1];
  const int exec_log = ::open((file + ".exec").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (exec_log < 0) return 2;

  gp::Session s({.require_human_approval = true,
                 .store = gp::open_sqlite_store(file, {.session = "crash", .synchronous_commit = false})});
  const auto ok = [](const json&) { return gp::HandlerResult{}; };
  s.declare("ship", {.does = "Ship the order.", .handler = ok, .high_effect = true});
  for (int k = 0; k < 8; ++k) {
    const std::string id = "pay-" + std::to_string(k);
    s.declare(id, {.does = "Charge the card once.",
                   .handler =
                       [exec_log, id](const json&) {
                         const std::string line = id + "\n";
                         if (::write(exec_log, line.data(), line.size()) < 0) std::_Exit(3);
                         return gp::HandlerResult{};
                       },
                   .concurrency = gp::Concurrency::once});
  }
  s.declare("note", {.does = "Save a note.", .writes = {"note"}, .handler = ok});
  s.declare("sync", {.does = "Sync the inbox.", .writes = {"synced"}, .handler = ok});

  // Approvals already spent stay spent across the restart.
  for (const auto& a : s.asks()) {
    if (a.state != gp::AskState::spent) continue;
    const auto r = s.fire("ship", {.payload = a.input, .ask_id = a.id});
    say("respent " + a.id + " " + r.reason);
  }
  say("ready");
  for (std::uint64_t i = s.version();; ++i) {
    const json order{{"order", i}};
    const auto ask = s.confirm_ask("ship", order);
    s.approve_ask(ask.id, "tester");
    const auto shipped = s.fire("ship", {.payload = order, .ask_id = ask.id});
    if (!shipped.transition_id.empty()) say("fired " + shipped.transition_id);
    const auto paid = s.fire("pay-" + std::to_string(i % 8));
    if (!paid.transition_id.empty()) say("fired " + paid.transition_id);
    const auto noted = s.fire("note", {.payload = {{"text", "n" + std::to_string(i)}}});
    say("fired " + noted.transition_id);
    s.report_state({{"note", i}}, noted.transition_id);
    if (i % 3 == 0) {
      const auto synced = s.fire("sync");  // never reported: pending when the kill comes
      say("fired " + synced.transition_id);
    }
  }
}
