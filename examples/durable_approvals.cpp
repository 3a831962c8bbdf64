// An app whose approvals outlive it: two processes on one keyed ledger file.
//
//   durable_approvals              runs both processes below, on a new temporary directory
//   durable_approvals DIR write    the first: the agent asks for a refund, a person approves,
//                                  it runs once; the head is kept where the ledger is not
//   durable_approvals DIR restore  the second: the session restored from the file, the
//                                  spent approval refused, the file verified with the key
//
// The first process ends as an app does; the second is a new one reading the file. The key
// is the app's secret (read from its secret store in earnest; here, a file beside the
// ledger), and the second process gives the same policy as the first: given another, the
// restore is refused rather than run under it.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include <groundplane/groundplane.hpp>
#include <groundplane/store/sqlite.hpp>

namespace gp = groundplane;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// What both processes construct: the same policy, the same keyed store, the same actions.
gp::Session open_app(const fs::path& dir, int& refunds, const std::string& kept_head = "") {
  gp::Session app({.node = "orders",
                   .require_human_approval = true,
                   .store = gp::open_sqlite_store(
                       dir / "app.ledger",
                       {.session = "cust-42", .expected_head = kept_head, .key = read_file(dir / "ledger.key")})});
  app.declare("billing.refund", {.does = "Refund the order to the card it was paid with.",
                                 .handler =
                                     [&refunds](const nlohmann::json& order) {
                                       ++refunds;
                                       std::cout << "  (the refund of order " << order.at("order") << " runs)\n";
                                       return gp::HandlerResult{};
                                     },
                                 .high_effect = true,
                                 .concurrency = gp::Concurrency::single_flight});
  return app;
}

int first_process(const fs::path& dir) {
  int refunds = 0;
  gp::Session app = open_app(dir, refunds);
  const nlohmann::json order = {{"order", 57}};
  const auto refused = app.fire("billing.refund", {.payload = order});
  std::cout << "agent fires billing.refund: " << refused.reason << "\n";
  const auto ask = app.confirm_ask("billing.refund", order);
  app.approve_ask(ask.id, "dana");  // in the app, by a person: never through the agent
  std::cout << "dana approves " << ask.id << "\n";
  const auto done = app.fire("billing.refund", {.payload = order, .ask_id = ask.id});
  std::cout << "agent fires it with " << ask.id << ": " << (done.ok ? "ok, " + done.transition_id : done.reason)
            << "\n";
  // Kept where the ledger's writer cannot rewrite it (a log shipped elsewhere, say).
  write_file(dir / "kept.head", app.head());
  return refunds == 1 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int second_process(const fs::path& dir) {
  int refunds = 0;
  const std::string kept_head = read_file(dir / "kept.head");
  gp::Session app = open_app(dir, refunds, kept_head);
  const auto again = app.fire("billing.refund", {.payload = {{"order", 57}}, .ask_id = "ask-1"});
  std::cout << "restored; agent fires billing.refund with ask-1 again: " << again.reason << "\n";
  std::cout << app.ground_truth().text << "\n";
  const auto v = gp::verify_sqlite_ledger(dir / "app.ledger", "cust-42", kept_head, read_file(dir / "ledger.key"));
  std::cout << "verified with the key: " << (v.ok ? "intact" : "NOT INTACT: " + v.problem) << ", " << v.rows
            << " rows, key id " << v.key_id << "\n";
  return refunds == 0 && again.reason == "APPROVAL_SPENT" && v.ok && v.keyed ? EXIT_SUCCESS : EXIT_FAILURE;
}

// Both processes, one after the other, on a new directory.
int both(const char* self) {
  const fs::path dir = fs::temp_directory_path() / ("durable_approvals-" + std::to_string(std::rand()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file(dir / "ledger.key", "an example key, 32 bytes long..");  // at least 16 bytes
  const auto run = [&](const char* step) {
    std::ostringstream command;
    command << '"' << self << "\" \"" << dir.string() << "\" " << step;
    std::cout << "== process: " << step << "\n" << std::flush;
    return std::system(command.str().c_str());
  };
  const bool ok = run("write") == 0 && run("restore") == 0;
  fs::remove_all(dir);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 1) return both(argv[0]);
    const std::string step = argc == 3 ? argv[2] : "";
    if (step == "write") return first_process(argv[1]);
    if (step == "restore") return second_process(argv[1]);
    std::cerr << "usage: durable_approvals [DIR write|restore]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "durable_approvals: " << e.what() << "\n";
    return EXIT_FAILURE;
  }
}
