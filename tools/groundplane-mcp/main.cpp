// groundplane-mcp — groundplane's checker served to any MCP host, over stdio or
// Streamable HTTP.
//
//   groundplane-mcp                  the checker tools over stdio: record_fact,
//                                    record_ranking, record_table, record_domain,
//                                    list_facts, check
//   groundplane-mcp --http 8765      the same at http://127.0.0.1:8765/mcp
//   groundplane-mcp --session        plus a small demo app's whats_here / do_action / did_it_work
//
// Over stdio, stdout carries JSON-RPC only; everything else goes to stderr.
#include <pthread.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/mcp/server.hpp"
#include "groundplane/session.hpp"
#ifdef GROUNDPLANE_MCP_HTTP
#include "groundplane/mcp/http.hpp"
#endif

#include "../command_line.hpp"

namespace gp = groundplane;

namespace {

constexpr std::string_view usage =
    "usage: groundplane-mcp [--http [HOST:]PORT [HTTP OPTIONS]] [--session] [--facts FILE]\n"
    "                       [--page-size N] [--verbose] [--help] [--version]\n"
    "\n"
    "An MCP server that checks a model's structured claims against facts recorded from\n"
    "tool results. Tools: record_fact, record_ranking, record_table, record_domain,\n"
    "list_facts, check. Over stdio (the default) it speaks newline-delimited JSON-RPC 2.0.\n"
    "\n"
    "  --session       also serve a demo checkout app through whats_here, do_action and\n"
    "                  did_it_work: a cart (typed input; it hands back its line count), and\n"
    "                  a high-effect checkout.place-order that needs a person's\n"
    "                  approval (the model is refused with APPROVAL_REQUIRED and an ask id);\n"
    "                  and record_ledger, which records its attempts for an actions_performed\n"
    "                  check. Over HTTP each MCP session has its own demo app.\n"
    "  --facts FILE    record the facts defined in FILE at start (every session's, over\n"
    "                  HTTP): one JSON object {name: {kind: fact|ranking|table|domain,\n"
    "                  ...the record_* arguments}}\n"
    "  --page-size N   list_facts returns at most N facts per page (default 100)\n"
    "  --max-facts N   facts one session may record with the record_* tools (default\n"
    "                  10000); a record past it is a tool error and nothing is recorded\n"
    "  --max-fact-bytes BYTES  bytes of the record_* calls one session may make (default\n"
    "                  33554432); a tool error beyond\n"
    "  --max-checks N  checks one check call may carry (default 1000); a tool error\n"
    "                  beyond, before any is built\n"
    "  --max-refused-payload-bytes BYTES  with --session: bytes of refused do_action\n"
    "                  inputs and asked inputs the demo app keeps (default 4194304); past\n"
    "                  it a refusal keeps an input's size only, and nobody is asked\n"
    "  --verbose       log routine events to stderr too (by default only problems)\n"
    "  --help          print this and exit\n"
    "  --version       print the version and exit\n"
    "Options go in any order, each once (--allow-origin may repeat); a value follows its\n"
    "option as the next argument or after '=' (--page-size 10, --page-size=10); -- ends\n"
    "the options.\n"
    "\n"
    "Streamable HTTP (POST and DELETE at /mcp; each MCP session has its own facts):\n"
    "  --http [HOST:]PORT      serve HTTP instead of stdio; HOST defaults to 127.0.0.1\n"
    "  --allow-non-loopback    required for a HOST that is not loopback (use a token)\n"
    "  --token-file FILE       require 'Authorization: Bearer <the file's first line>'\n"
    "  --allow-origin ORIGIN   accept this Origin too (repeatable); other foreign\n"
    "                          Origins are refused 403\n"
    "  --max-body BYTES        largest request body (default 8388608); 413 beyond, and the\n"
    "                          connection is closed\n"
    "  --max-header-bytes BYTES  request line and headers (default 65536); 431 beyond\n"
    "  --max-headers N         header lines in a request (default 100); 431 beyond\n"
    "  --max-sessions N        sessions open at once (default 1024); 503 beyond\n"
    "  --max-sessions-per-client N  sessions one client address may hold open (default\n"
    "                          256); 429 beyond\n"
    "  --max-total-facts N     facts every session together may record (default 1000000)\n"
    "  --max-total-fact-bytes BYTES  bytes of record_* calls every session together may\n"
    "                          make (default 134217728)\n"
    "  --idle-timeout SECONDS  a session unused this long ends (default 1800)\n"
    "  --read-timeout SECONDS  a connection silent this long is closed (default 10)\n"
    "  --request-timeout SECONDS  a request's headers and body must arrive within this\n"
    "                          (default 30); 408 and closed beyond\n"
    "  --threads N             connections served at once, one thread each (default 32)\n"
    "  --max-connections-per-client N  connections one client address may hold at once\n"
    "                          (default 16); past it a connection is answered 429 and\n"
    "                          closed, so one address cannot hold every thread\n"
    "SIGTERM or SIGINT stops it cleanly: the requests in flight are answered first.\n"
    "\n"
    "Add it to an MCP host's config as a stdio server, e.g.\n"
    "  {\"mcpServers\": {\"groundplane\": {\"command\": \"groundplane-mcp\"}}}\n"
    "or as a Streamable HTTP server at http://127.0.0.1:PORT/mcp.\n";

// The demo's payment provider: the orders it charged, by the idempotency key each fire of
// checkout.place-order handed it, as a real provider keeps them (and answers a lookup by
// key). In memory, like the demo app.
class DemoProvider {
 public:
  void charge(const std::string& key) {
    const std::lock_guard<std::mutex> lock(m_);
    charged_.insert(key);
  }
  bool charged(const std::string& key) const {
    const std::lock_guard<std::mutex> lock(m_);
    return charged_.contains(key);
  }

 private:
  mutable std::mutex m_;
  std::set<std::string> charged_;
};

// The demo app behind --session: a checkout whose order placement is gated on a human
// (and hands the provider its idempotency key, which its probe asks the provider about
// when a restarted app finds a placement in doubt), a cart that takes typed input and
// hands back how many lines it holds, and a delivery slot that is the shopper's to
// choose, one of the slots on offer.
void declare_demo_app(gp::Session& app) {
  static DemoProvider provider;
  app.declare(
      "cart.add",
      {.does = "Add an item to the cart.",
       .writes = {"cart"},
       .handler =
           [&app](const nlohmann::json& item) {
             app.report_state({{"cart", nlohmann::json::array({item})}});
             return gp::HandlerResult{.data = {{"lines", 1}}};
           },
       .input = {{"type", "object"},
                 {"properties", {{"sku", {{"type", "string"}}}, {"qty", {{"type", "integer"}, {"minimum", 1}}}}},
                 {"required", {"sku"}},
                 {"additionalProperties", false}}});
  app.declare("checkout.place-order", {.does = "Place the order and charge the card on file.",
                                       .writes = {"order_id"},
                                       .handler =
                                           [&app](const nlohmann::json&) {
                                             provider.charge(app.current_fire().idempotency_key);
                                             app.report_state({{"order_id", "A-1001"}});
                                             return gp::HandlerResult{};
                                           },
                                       .high_effect = true,
                                       // A charge the provider has under the fire's key happened; one it has
                                       // not will never happen (it honours each key once, and the process that
                                       // held this one is gone).
                                       .probe = [](const gp::FireContext& fire) -> std::optional<bool> {
                                         return provider.charged(fire.idempotency_key);
                                       }});
  app.declare("delivery.choose-slot",
              {.does = "Book the delivery slot the shopper chose.",
               .handler =
                   [&app](const nlohmann::json&) {
                     app.report_state({{"slot", app.current_instance()}});
                     return gp::HandlerResult{};
                   },
               .instances =
                   [](const nlohmann::json&) {
                     return std::vector<std::string>{"tue-09", "wed-14"};
                   },
               .human_decides = gp::HumanDecides{.about = "which delivery slot",
                                                 .done_when = [](const nlohmann::json& state) -> std::optional<bool> {
                                                   return state.contains("slot");
                                                 }}});
}

// --max-refused-payload-bytes: what the demo app keeps of refused inputs (the library's
// default without it).
gp::SessionOptions demo_app_options(std::optional<unsigned long long> max_refused_payload_bytes) {
  gp::SessionOptions o{.node = "checkout", .require_human_approval = true};
  if (max_refused_payload_bytes) o.max_refused_payload_bytes = static_cast<std::size_t>(*max_refused_payload_bytes);
  return o;
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  out = text.str();
  return true;
}

// The --facts file: one JSON object of definitions, as check's inline "facts" take.
bool read_definitions(const std::string& path, nlohmann::ordered_json& out, std::string& error) {
  std::string text;
  if (!read_file(path, text)) {
    error = "cannot be read";
    return false;
  }
  out = nlohmann::ordered_json::parse(text, nullptr, false);
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

int fail(const std::string& message) {
  std::cerr << "groundplane-mcp: " << message << "\n";
  return 2;
}

// What the command line asks for.
struct Options {
  bool session_mode = false;
  bool verbose = false;
  std::string facts_file;
  std::size_t page_size = gp::mcp::ServerOptions{}.page_size;
  std::optional<std::string> http_address;
  bool allow_non_loopback = false;
  std::string token_file;
  std::vector<std::string> allowed_origins;
  std::optional<unsigned long long> max_facts, max_fact_bytes, max_sessions_per_client, max_total_facts,
      max_total_fact_bytes, max_checks, max_refused_payload_bytes;
  std::optional<unsigned long long> max_body, max_header_bytes, max_headers, max_sessions, idle_timeout, read_timeout,
      request_timeout, threads, max_connections_per_client;
};

// Every option: what it takes, and where it goes.
using gp::tools::Flag;
using gp::tools::Takes;
constexpr std::array<Flag, 27> flags{{{"--help", Takes::nothing},
                                      {"-h", Takes::nothing},
                                      {"--version", Takes::nothing},
                                      {"--session", Takes::nothing},
                                      {"--verbose", Takes::nothing},
                                      {"--facts", Takes::text},
                                      {"--page-size", Takes::count},
                                      {"--max-facts", Takes::count},
                                      {"--max-fact-bytes", Takes::count},
                                      {"--max-checks", Takes::count},
                                      {"--max-refused-payload-bytes", Takes::count},
                                      {"--max-sessions-per-client", Takes::count},
                                      {"--max-total-facts", Takes::count},
                                      {"--max-total-fact-bytes", Takes::count},
                                      {"--http", Takes::text},
                                      {"--allow-non-loopback", Takes::nothing},
                                      {"--token-file", Takes::text},
                                      {"--allow-origin", Takes::text, true},
                                      {"--max-body", Takes::count},
                                      {"--max-header-bytes", Takes::count},
                                      {"--max-headers", Takes::count},
                                      {"--request-timeout", Takes::count},
                                      {"--max-sessions", Takes::count},
                                      {"--idle-timeout", Takes::count},
                                      {"--read-timeout", Takes::count},
                                      {"--threads", Takes::count},
                                      {"--max-connections-per-client", Takes::count}}};

void apply(std::string_view flag, const std::string& value, Options& o) {
  const auto n = gp::tools::count(value).value_or(0);
  if (flag == "--session") o.session_mode = true;
  else if (flag == "--verbose") o.verbose = true;
  else if (flag == "--allow-non-loopback") o.allow_non_loopback = true;
  else if (flag == "--facts") o.facts_file = value;
  else if (flag == "--page-size") o.page_size = static_cast<std::size_t>(n);
  else if (flag == "--http") o.http_address = value;
  else if (flag == "--token-file") o.token_file = value;
  else if (flag == "--allow-origin") o.allowed_origins.push_back(value);
  else if (flag == "--max-body") o.max_body = n;
  else if (flag == "--max-facts") o.max_facts = n;
  else if (flag == "--max-fact-bytes") o.max_fact_bytes = n;
  else if (flag == "--max-checks") o.max_checks = n;
  else if (flag == "--max-refused-payload-bytes") o.max_refused_payload_bytes = n;
  else if (flag == "--max-sessions-per-client") o.max_sessions_per_client = n;
  else if (flag == "--max-total-facts") o.max_total_facts = n;
  else if (flag == "--max-total-fact-bytes") o.max_total_fact_bytes = n;
  else if (flag == "--max-header-bytes") o.max_header_bytes = n;
  else if (flag == "--max-headers") o.max_headers = n;
  else if (flag == "--request-timeout") o.request_timeout = n;
  else if (flag == "--max-sessions") o.max_sessions = n;
  else if (flag == "--idle-timeout") o.idle_timeout = n;
  else if (flag == "--read-timeout") o.read_timeout = n;
  else if (flag == "--threads") o.threads = n;
  else if (flag == "--max-connections-per-client") o.max_connections_per_client = n;
}

// The command line read (tools/command_line.hpp); an exit code instead when it is to
// stop here (--help, --version, a mistake).
std::variant<Options, int> parse_arguments(int argc, char** argv) {
  Options o;
  const auto stop = gp::tools::read_command_line(
      "groundplane-mcp", usage, flags, argc, argv,
      [&](std::string_view flag, const std::string& value) { apply(flag, value, o); },
      [](std::string_view arg) {
        return "unexpected argument '" + gp::detail::escape(arg) + "': groundplane-mcp takes options only";
      });
  if (stop) return *stop;
  return o;
}

// The --facts file's definitions, checked once here so that a bad file stops the start
// and not a session; an exit code when it cannot be used.
std::variant<nlohmann::ordered_json, int> load_definitions(const std::string& facts_file) {
  nlohmann::ordered_json definitions = nlohmann::ordered_json::object();
  if (facts_file.empty()) return definitions;
  std::string error;
  if (!read_definitions(facts_file, definitions, error))
    return fail("--facts " + gp::detail::escape(facts_file) + ": " + error);
  try {
    gp::mcp::Protocol probe({.log = [](std::string_view) {}});
    probe.record_facts(definitions);
  } catch (const gp::Error& e) {
    return fail("--facts " + gp::detail::escape(facts_file) + ": " + e.what());
  }
  return definitions;
}

#ifdef GROUNDPLANE_MCP_HTTP
// --token-file's token: the file's first line without the blanks an editor leaves around
// it (HTTP drops them from a header value, so no client could ever send them).
std::variant<std::string, int> read_token(const std::string& token_file) {
  std::string token;
  if (!read_file(token_file, token)) return fail("--token-file " + gp::detail::escape(token_file) + ": cannot be read");
  token = token.substr(0, token.find_first_of("\r\n"));
  const auto blank = token.find_first_not_of(" \t");
  token = blank == std::string::npos ? std::string() : token.substr(blank, token.find_last_not_of(" \t") - blank + 1);
  if (token.empty()) return fail("--token-file " + gp::detail::escape(token_file) + ": the first line is empty");
  for (const char c : token)
    if (c < '!' || c > '~')
      return fail("--token-file " + gp::detail::escape(token_file) +
                  ": a bearer token cannot hold a space, a control character or non-ASCII bytes");
  return token;
}

// The HttpOptions the command line asks for; an exit code when they cannot be used.
std::variant<gp::mcp::HttpOptions, int> http_options(const Options& o) {
  gp::mcp::HttpOptions http;
  std::string_view address = *o.http_address;
  const auto colon = address.rfind(':');
  if (colon != std::string_view::npos && !(address.front() == '[' && address.back() == ']')) {
    std::string host(address.substr(0, colon));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (!host.empty()) http.host = host;
    address = address.substr(colon + 1);
  }
  const auto port = gp::tools::count(address);
  if (!port || *port > 65535)
    return gp::tools::usage_error("groundplane-mcp",
                                  "--http needs [HOST:]PORT, got '" + gp::detail::escape(*o.http_address) + "'");
  http.port = static_cast<int>(*port);
  http.allow_non_loopback = o.allow_non_loopback;
  http.allowed_origins = o.allowed_origins;
  if (!o.token_file.empty()) {
    auto token = read_token(o.token_file);
    if (const int* code = std::get_if<int>(&token)) return *code;
    http.token = std::get<std::string>(std::move(token));
  }
  if (o.max_body) http.max_body_bytes = static_cast<std::size_t>(*o.max_body);
  if (o.max_header_bytes) http.max_header_bytes = static_cast<std::size_t>(*o.max_header_bytes);
  if (o.max_headers) http.max_header_count = static_cast<std::size_t>(*o.max_headers);
  if (o.request_timeout) http.request_timeout = std::chrono::seconds(static_cast<long long>(*o.request_timeout));
  if (o.max_sessions) http.max_sessions = static_cast<std::size_t>(*o.max_sessions);
  if (o.max_sessions_per_client) http.max_sessions_per_client = static_cast<std::size_t>(*o.max_sessions_per_client);
  if (o.idle_timeout) http.idle_timeout = std::chrono::seconds(static_cast<long long>(*o.idle_timeout));
  if (o.read_timeout) http.read_timeout = std::chrono::seconds(static_cast<long long>(*o.read_timeout));
  if (o.threads) http.threads = static_cast<std::size_t>(*o.threads);
  if (o.max_connections_per_client)
    http.max_connections_per_client = static_cast<std::size_t>(*o.max_connections_per_client);
  return http;
}

// Serves Streamable HTTP until SIGTERM or SIGINT.
int serve_http(const Options& o, const gp::mcp::ServerOptions& server_options,
               const nlohmann::ordered_json& definitions) {
  auto parsed = http_options(o);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  const gp::mcp::HttpOptions http = std::get<gp::mcp::HttpOptions>(std::move(parsed));
  // Every session's record_* calls count into one pool, and its totals.
  gp::mcp::ServerOptions session_options = server_options;
  session_options.pool = std::make_shared<gp::mcp::FactPool>();
  if (o.max_total_facts) session_options.pool->max_facts = static_cast<std::size_t>(*o.max_total_facts);
  if (o.max_total_fact_bytes) session_options.pool->max_bytes = static_cast<std::size_t>(*o.max_total_fact_bytes);

  // Each MCP session's protocol: its own registry with the --facts facts, and with
  // --session its own demo app, kept alive by the shared_ptr's owner.
  struct WithApp {
    gp::Session app;
    gp::mcp::Protocol protocol;
    WithApp(gp::SessionOptions app_options, const gp::mcp::ServerOptions& options)
        : app(std::move(app_options)), protocol((declare_demo_app(app), app), options) {}
  };
  const gp::mcp::HttpServer::Factory factory = [&]() -> std::shared_ptr<gp::mcp::Protocol> {
    std::shared_ptr<gp::mcp::Protocol> p;
    if (o.session_mode) {
      auto owner = std::make_shared<WithApp>(demo_app_options(o.max_refused_payload_bytes), session_options);
      p = std::shared_ptr<gp::mcp::Protocol>(owner, &owner->protocol);
    } else {
      p = std::make_shared<gp::mcp::Protocol>(session_options);
    }
    p->record_facts(definitions);
    return p;
  };

  // SIGTERM and SIGINT are taken by one thread with sigwait (a signal handler may not
  // call stop()); every other thread, httplib's included, inherits the blocked mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::unique_ptr<gp::mcp::HttpServer> server;
  try {
    server = std::make_unique<gp::mcp::HttpServer>(factory, http);
  } catch (const gp::Error& e) {
    return fail(e.what());
  }
  try {
    server->bind();
  } catch (const gp::Error& e) {
    // Not a mistake in the command line but the machine's state (a port in use): exit 1.
    std::cerr << "groundplane-mcp: " << e.what() << "\n";
    return EXIT_FAILURE;
  }
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (o.verbose) std::cerr << "groundplane-mcp: signal " << sig << "; stopping\n";
    server->stop();
  });
  std::cerr << "groundplane-mcp: serving MCP at http://"
            << (http.host.find(':') != std::string::npos ? "[" + http.host + "]" : http.host) << ":" << server->port()
            << http.path << "\n";
  const bool ok = server->serve();
  pthread_kill(stopper.native_handle(), SIGTERM);  // wakes the stopper if serve() ended on its own
  stopper.join();
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
#endif

// Serves stdio until the input ends.
int serve_stdio(const Options& o, const gp::mcp::ServerOptions& server_options,
                const nlohmann::ordered_json& definitions) {
  // Buffered stdin (one read per chunk, not per byte); every reply is flushed explicitly.
  std::ios::sync_with_stdio(false);
  std::optional<gp::Session> app;
  if (o.session_mode) {
    app.emplace(demo_app_options(o.max_refused_payload_bytes));
    declare_demo_app(*app);
  }
  std::optional<gp::mcp::Server> server;
  if (app) server.emplace(*app, server_options);
  else server.emplace(server_options);
  server->protocol().record_facts(definitions);
  server->run();
  return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = parse_arguments(argc, argv);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  const Options o = std::get<Options>(std::move(parsed));
  auto loaded = load_definitions(o.facts_file);
  if (const int* code = std::get_if<int>(&loaded)) return *code;
  const nlohmann::ordered_json definitions = std::get<nlohmann::ordered_json>(std::move(loaded));
  gp::mcp::ServerOptions server_options{.page_size = o.page_size, .verbose = o.verbose};
  if (o.max_facts) server_options.max_facts = static_cast<std::size_t>(*o.max_facts);
  if (o.max_fact_bytes) server_options.max_fact_bytes = static_cast<std::size_t>(*o.max_fact_bytes);
  if (o.max_checks) server_options.max_checks = static_cast<std::size_t>(*o.max_checks);

#if defined(__GLIBC__)
  // Request bodies of up to --max-body bytes are read on up to --threads threads. glibc
  // raises its mmap threshold to the largest block freed so far, after which such bodies
  // come from per-thread heaps that keep what they freed: under a fact flood the peak RSS
  // was 477 MiB with 256 MiB of facts recorded, and 352 MiB with the threshold fixed at
  // 1 MiB, where a block that large is mapped and given back when freed.
  mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
#endif
#ifdef SIGPIPE
  // A client that goes away closes our output: let the write fail, not the process.
  std::signal(SIGPIPE, SIG_IGN);
#endif

  if (o.http_address) {
#ifdef GROUNDPLANE_MCP_HTTP
    return serve_http(o, server_options, definitions);
#else
    return fail("this groundplane-mcp was built without HTTP (cpp-httplib was not found)");
#endif
  }
  return serve_stdio(o, server_options, definitions);
}
