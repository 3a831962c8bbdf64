// The process test_session_store kills: a session on a ledger file, firing in a loop
// until SIGKILL arrives. Each start restores the session and first presents every
// approval it already spent again (each must be refused), then loops: an approved
// high-effect fire, a `once` fire, a fire it reports on and one it never reports on.
// Every fire is printed ("fired t-N") only after fire() returned, and every execution
// of a `once` handler is appended to FILE.exec before the handler returns, so the
// parent can hold the ledger to both.
//
//   store_crash_child FILE
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <groundplane/session.hpp>
#include <groundplane/store/sqlite.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

void say(const std::string& line) {
  const std::string out = line + "\n";
  if (::write(1, out.data(), out.size()) < 0) std::_Exit(3);
}

}  // namespace

int main(int argc, char** argv) {
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
