// groundplane-mcp — groundplane's checker served to any MCP host over stdio.
//
//   groundplane-mcp             the checker tools: record_fact, record_ranking,
//                               record_table, record_domain, list_facts, check
//   groundplane-mcp --session   the same, plus a small demo app's whats_here / do_action
//
// stdout carries JSON-RPC only; everything else goes to stderr.
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "groundplane/mcp/server.hpp"
#include "groundplane/session.hpp"
#include "groundplane/version.hpp"

namespace gp = groundplane;

namespace {

constexpr std::string_view usage =
    "usage: groundplane-mcp [--session] [--facts FILE] [--verbose] [--help] [--version]\n"
    "\n"
    "An MCP server (stdio, newline-delimited JSON-RPC 2.0) that checks a model's structured\n"
    "claims against facts recorded from tool results.\n"
    "\n"
    "Tools: record_fact, record_ranking, record_table, record_domain, list_facts, check.\n"
    "\n"
    "  --session   also serve a demo checkout app through whats_here and do_action: a cart,\n"
    "              and a high-effect checkout.place-order that needs a person's approval\n"
    "              (the model is refused with APPROVAL_REQUIRED and an ask id); and\n"
    "              record_ledger, which records its attempts for an actions_performed check\n"
    "  --facts FILE  record the facts defined in FILE at start: one JSON object\n"
    "              {name: {kind: fact|ranking|table|domain, ...the record_* arguments}}\n"
    "  --verbose   log routine events to stderr too (by default only problems are logged)\n"
    "  --help      print this and exit\n"
    "  --version   print the version and exit\n"
    "\n"
    "Add it to an MCP host's config as a stdio server, e.g.\n"
    "  {\"mcpServers\": {\"groundplane\": {\"command\": \"groundplane-mcp\"}}}\n";

// The demo app behind --session: a checkout whose order placement is gated on a human.
void declare_demo_app(gp::Session& app) {
  app.declare("cart.add",
              {.does = "Add an item to the cart.", .writes = {"cart"}, .handler = [&app](const nlohmann::json& item) {
                 app.report_state({{"cart", nlohmann::json::array({item})}});
                 return gp::HandlerResult{};
               }});
  app.declare("checkout.place-order", {.does = "Place the order and charge the card on file.",
                                       .writes = {"order_id"},
                                       .handler =
                                           [&app](const nlohmann::json&) {
                                             app.report_state({{"order_id", "A-1001"}});
                                             return gp::HandlerResult{};
                                           },
                                       .high_effect = true});
}

// The --facts file: one JSON object of definitions, as check's inline "facts" take.
bool read_definitions(const std::string& path, nlohmann::ordered_json& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot be read";
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  out = nlohmann::ordered_json::parse(text.str(), nullptr, false);
  if (out.is_discarded()) {
    error = "is not JSON";
    return false;
  }
  if (!out.is_object()) {
    error = "must hold one JSON object {name: {kind, ...}}";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool session_mode = false;
  bool verbose = false;
  std::string facts_file;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return EXIT_SUCCESS;
    }
    if (arg == "--version") {
      std::cout << "groundplane-mcp " << gp::version_string << "\n";
      return EXIT_SUCCESS;
    }
    if (arg == "--session") {
      session_mode = true;
      continue;
    }
    if (arg == "--facts") {
      if (i + 1 >= argc) {
        std::cerr << "groundplane-mcp: --facts needs a FILE\n\n" << usage;
        return 2;
      }
      facts_file = argv[++i];
      continue;
    }
    if (arg == "--verbose") {
      verbose = true;
      continue;
    }
    std::cerr << "groundplane-mcp: unknown option '" << gp::detail::escape(arg) << "'\n\n" << usage;
    return 2;
  }

  // Buffered stdin (one read per chunk, not per byte); every reply is flushed explicitly.
  std::ios::sync_with_stdio(false);
#ifdef SIGPIPE
  // A host that goes away closes our stdout: let the write fail and the loop end cleanly.
  std::signal(SIGPIPE, SIG_IGN);
#endif

  nlohmann::ordered_json definitions = nlohmann::ordered_json::object();
  if (!facts_file.empty()) {
    std::string error;
    if (!read_definitions(facts_file, definitions, error)) {
      std::cerr << "groundplane-mcp: --facts " << gp::detail::escape(facts_file) << ": " << error << "\n";
      return 2;
    }
  }

  const auto serve = [&](gp::mcp::Server& server) {
    try {
      server.protocol().record_facts(definitions);
    } catch (const gp::Error& e) {
      std::cerr << "groundplane-mcp: --facts " << gp::detail::escape(facts_file) << ": " << e.what() << "\n";
      return 2;
    }
    server.run();
    return EXIT_SUCCESS;
  };
  if (session_mode) {
    gp::Session app({.node = "checkout", .require_human_approval = true});
    declare_demo_app(app);
    gp::mcp::Server server(app, {.verbose = verbose});
    return serve(server);
  }
  gp::mcp::Server server({.verbose = verbose});
  return serve(server);
}
