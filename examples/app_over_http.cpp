// An app serving its own gp::Session over Streamable HTTP, in-process: an agent in any
// other process (any MCP client) drives the app through whats_here and do_action, and
// checks its claims with the checker tools; every agent session has its own facts.
//
//   ./app_over_http 8765        serve http://127.0.0.1:8765/mcp until Ctrl-C / SIGTERM
//   ./app_over_http             (no port) serve on a free port, drive itself once as an
//                               agent would, print the exchange and exit (CTest runs this)
//
// With a port, point a host at it, e.g. the MCP Inspector's CLI:
//   mcp-inspector-cli http://127.0.0.1:8765/mcp --transport http --method tools/call
//     --tool-name do_action --tool-arg action=cart.add
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include <groundplane/mcp/http.hpp>
#include <groundplane/session.hpp>

namespace gp = groundplane;

namespace {
gp::mcp::HttpServer* running = nullptr;
}

int main(int argc, char** argv) {
  // The app: its own record of what happened, its own actions.
  gp::Session app({.node = "shop"});
  int items = 0;
  app.declare("cart.add",
              {.does = "Add one item to the cart.", .writes = {"cart"}, .handler = [&](const nlohmann::json&) {
                 app.report_state({{"cart", ++items}});
                 return gp::HandlerResult{};
               }});

  const int port = argc > 1 ? std::atoi(argv[1]) : 0;
  gp::mcp::HttpServer server(app, {.port = port}, {.log = [](std::string_view) {}});
  const int bound = server.bind();
  const std::string url = "http://127.0.0.1:" + std::to_string(bound) + "/mcp";

  if (argc > 1) {
    std::cout << "serving the app at " << url << " (Ctrl-C stops)\n";
    running = &server;
    // A signal handler may not call stop(): a thread waits for the signal instead.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    std::thread([stop] {
      int sig = 0;
      sigwait(&stop, &sig);
      running->stop();
    }).detach();
    return server.serve() ? EXIT_SUCCESS : EXIT_FAILURE;
  }

  // No port: serve on a thread and be the agent, over real HTTP.
  std::thread serving([&] { server.serve(); });
  httplib::Client agent("127.0.0.1", bound);
  const auto post = [&](const std::string& session, const nlohmann::json& message) {
    httplib::Headers headers;
    if (!session.empty()) headers.emplace("Mcp-Session-Id", session);
    auto r = agent.Post("/mcp", headers, message.dump(), "application/json");
    if (!r) {
      std::cerr << "no answer from " << url << "\n";
      std::exit(EXIT_FAILURE);
    }
    std::cout << "-> " << message["method"].get<std::string>() << "\n<- " << r->status << " " << r->body.substr(0, 160)
              << (r->body.size() > 160 ? "..." : "") << "\n";
    return r;
  };
  const auto init =
      post("", {{"jsonrpc", "2.0"},
                {"id", 1},
                {"method", "initialize"},
                {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", nlohmann::json::object()}}}});
  const std::string session = init->get_header_value("Mcp-Session-Id");
  post(session, {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  const auto call = [&](int id, const std::string& tool, const nlohmann::json& args) {
    return nlohmann::json::parse(post(session, {{"jsonrpc", "2.0"},
                                                {"id", id},
                                                {"method", "tools/call"},
                                                {"params", {{"name", tool}, {"arguments", args}}}})
                                     ->body);
  };
  const auto done = call(2, "do_action", {{"action", "cart.add"}});
  call(3, "whats_here", nlohmann::json::object());
  server.stop();
  serving.join();
  const bool ok = done["result"]["structuredContent"]["ok"] == true && items == 1;
  std::cout << (ok ? "the agent added one item; the app's own state says so\n" : "unexpected answer\n");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
