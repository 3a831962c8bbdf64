// The processes test_postgres_store runs against one PostgreSQL database. Every line it
// prints about a fire is printed only after fire() returned.
//
//   postgres_child crash URI SESSION LEASE_MS EXECLOG
//       restores the session, presents every approval it already spent again (each must
//       be refused), then fires in a loop until SIGKILL: an approved high-effect fire, a
//       `once` fire (each run appended to EXECLOG before its handler returns), a fire it
//       reports on and one it never reports on.
//   postgres_child replica URI SESSION LEASE_MS NAME [FIRES]
//       opens the session (waiting for its lease), prints "owner NAME", then fires
//       `note` with {"by": NAME, "n": i} — "try N" before each call, "fired N t-K" after
//       it returned — FIRES times (forever when absent), 5 ms apart. A SessionMoved ends
//       it with "moved N <message>" and exit status 10.
//   postgres_child many URI PREFIX SESSIONS ROUNDS FIRES
//       for each round, opens each of SESSIONS sessions PREFIX0.. in turn (restoring
//       it), fires FIRES times, and closes it; prints "done".
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <groundplane/session.hpp>
#include <groundplane/store/postgres.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

void say(const std::string& line) {
  const std::string out = line + "\n";
  if (::write(1, out.data(), out.size()) < 0) std::_Exit(3);
}

std::chrono::milliseconds lease_arg(const char* text) { return std::chrono::milliseconds(std::atoi(text)); }

int crash(const std::string& uri, const std::string& session, std::chrono::milliseconds lease,
          const std::string& exec_path) {
  const int exec_log = ::open(exec_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (exec_log < 0) return 2;
  gp::Session s(
      {.require_human_approval = true, .store = gp::open_postgres_store(uri, {.session = session, .lease = lease})});
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
  for (const auto& a : s.asks()) {
    if (a.state != gp::AskState::spent) continue;
    const auto r = s.fire("ship", {.payload = a.input, .ask_id = a.id});
    say("respent " + a.id + " " + r.reason);
  }
  say("ready pid " + std::to_string(::getpid()));
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

int replica(const std::string& uri, const std::string& session, std::chrono::milliseconds lease,
            const std::string& name, long fires) {
  gp::Session s({.store = gp::open_postgres_store(uri, {.session = session, .lease = lease})});
  s.declare("note", {.does = "Save a note.", .handler = [](const json&) { return gp::HandlerResult{}; }});
  say("owner " + name);
  for (long i = 0; fires < 0 || i < fires; ++i) {
    say("try " + std::to_string(i));
    try {
      const auto r = s.fire("note", {.payload = {{"by", name}, {"n", i}}});
      say("fired " + std::to_string(i) + " " + r.transition_id);
    } catch (const gp::SessionMoved& e) {
      say("moved " + std::to_string(i) + " " + e.what());
      return 10;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  say("done " + name);
  return 0;
}

int many(const std::string& uri, const std::string& prefix, int sessions, int rounds, int fires) {
  for (int round = 0; round < rounds; ++round) {
    for (int k = 0; k < sessions; ++k) {
      gp::Session s({.store = gp::open_postgres_store(uri, {.session = prefix + std::to_string(k)})});
      s.declare("note", {.does = "Save a note.", .handler = [](const json&) { return gp::HandlerResult{}; }});
      for (int i = 0; i < fires; ++i) s.fire("note", {.payload = {{"round", round}, {"n", i}}});
    }
  }
  say("done");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "crash" && argc == 6) return crash(argv[2], argv[3], lease_arg(argv[4]), argv[5]);
    if (mode == "replica" && (argc == 6 || argc == 7))
      return replica(argv[2], argv[3], lease_arg(argv[4]), argv[5], argc == 7 ? std::atol(argv[6]) : -1);
    if (mode == "many" && argc == 7)
      return many(argv[2], argv[3], std::atoi(argv[4]), std::atoi(argv[5]), std::atoi(argv[6]));
  } catch (const std::exception& e) {
    say(std::string("error ") + e.what());
    return 4;
  }
  std::fputs("usage: see the comment at the top of tests/postgres_child.cpp\n", stderr);
  return 2;
}
