// gp::mcp::HttpServer: Streamable HTTP over the same Protocol the stdio loop feeds —
// sessions, refusals with the right status, and hostile clients over real sockets.
#include "catch2_compat.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <groundplane/mcp/http.hpp>
#include <groundplane/session.hpp>

#include "http_fixtures.hpp"

namespace gp = groundplane;
using ojson = nlohmann::ordered_json;
using http_test::RawConnection;
using http_test::Running;

namespace {

const ojson seed_ranking = ojson::parse(R"({
  "name": "campaign_ctr",
  "scores": {"north": 0.0412, "harbour": 0.0455, "delta": 0.0301},
  "key": "ctr",
  "tool": "warehouse.query",
  "args": {"table": "campaign_daily", "window": "7d"}
})");

std::string rpc(int id, const std::string& method, const ojson& params = nullptr) {
  ojson r{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) r["params"] = params;
  return r.dump();
}
std::string initialize(int id = 1) {
  return rpc(id, "initialize",
             {{"protocolVersion", "2025-11-25"},
              {"capabilities", ojson::object()},
              {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
}
std::string tool(int id, const std::string& name, const ojson& args) {
  return rpc(id, "tools/call", {{"name", name}, {"arguments", args}});
}

gp::mcp::ServerOptions quiet() {
  return {.log = [](std::string_view) {}};
}

gp::mcp::HttpRequest post(std::string body, std::vector<std::pair<std::string, std::string>> headers = {}) {
  headers.emplace_back("Content-Type", "application/json");
  return {"POST", "/mcp", std::move(headers), std::move(body)};
}

std::string header(const gp::mcp::HttpResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers)
    if (gp::mcp::HttpRequest::equal_ignoring_case(k, name)) return v;
  return {};
}

ojson body(const gp::mcp::HttpResponse& r) { return ojson::parse(r.body); }

// Opens a session through handle(); its id.
std::string open(gp::mcp::HttpServer& s, std::vector<std::pair<std::string, std::string>> extra = {}) {
  const auto r = s.handle(post(initialize(), std::move(extra)));
  REQUIRE(r.status == 200);
  const std::string id = header(r, "Mcp-Session-Id");
  REQUIRE(id.size() == 32);
  return id;
}

gp::mcp::HttpResponse in_session(gp::mcp::HttpServer& s, const std::string& id, std::string message) {
  return s.handle(post(std::move(message), {{"Mcp-Session-Id", id}}));
}

}  // namespace

TEST_CASE("initialize opens a session whose id every later request carries, and each session has its own facts") {
  gp::mcp::HttpServer s({}, quiet());
  const auto a = open(s);
  const auto b = open(s);
  CHECK(a != b);
  CHECK(s.session_count() == 2);
  CHECK(body(in_session(s, a, tool(2, "record_ranking", seed_ranking)))["result"]["isError"] == false);
  const auto in_a = body(in_session(s, a, tool(3, "list_facts", ojson::object())));
  const auto in_b = body(in_session(s, b, tool(3, "list_facts", ojson::object())));
  CHECK(in_a["result"]["structuredContent"]["facts"].contains("campaign_ctr"));
  CHECK(in_b["result"]["structuredContent"]["facts"] == ojson::object());
  // the same name is free in the other session
  CHECK(body(in_session(s, b, tool(4, "record_ranking", seed_ranking)))["result"]["isError"] == false);
}

TEST_CASE("a notification is answered 202 with no body and a request 200 with JSON") {
  gp::mcp::HttpServer s({}, quiet());
  const auto id = open(s);
  const auto n = in_session(s, id, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  CHECK(n.status == 202);
  CHECK(n.body.empty());
  const auto p = in_session(s, id, rpc(5, "ping"));
  CHECK(p.status == 200);
  CHECK(body(p)["id"] == 5);
}

TEST_CASE("DELETE ends a session and its id is then unknown: 404, never another session's state") {
  gp::mcp::HttpServer s({}, quiet());
  const auto id = open(s);
  CHECK(s.handle({"DELETE", "/mcp", {{"Mcp-Session-Id", id}}, ""}).status == 200);
  CHECK(s.session_count() == 0);
  const auto after = in_session(s, id, rpc(2, "ping"));
  CHECK(after.status == 404);
  CHECK(body(after)["error"]["code"] == -32600);
  CHECK(s.handle({"DELETE", "/mcp", {{"Mcp-Session-Id", id}}, ""}).status == 404);
  CHECK(s.handle({"DELETE", "/mcp", {}, ""}).status == 400);
  CHECK(in_session(s, "made-up", rpc(2, "ping")).status == 404);
}

TEST_CASE("a request other than initialize without a session id is 400 and runs nothing") {
  gp::mcp::HttpServer s({}, quiet());
  const auto r = s.handle(post(tool(3, "record_ranking", seed_ranking)));
  CHECK(r.status == 400);
  CHECK(body(r)["id"] == 3);
  CHECK(s.session_count() == 0);
  CHECK(s.handle(post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")).status == 202);
}

TEST_CASE("a foreign Origin is refused 403 and the server's own host in any loopback spelling is accepted") {
  gp::mcp::HttpServer s(gp::mcp::HttpOptions{.port = 8765, .allowed_origins = {"https://app.example"}}, quiet());
  for (const char* foreign : {"http://evil.example", "http://127.0.0.1.evil.example:8765", "null", "file://"}) {
    INFO(foreign);
    const auto r = s.handle(post(initialize(), {{"Origin", foreign}}));
    CHECK(r.status == 403);
    CHECK(body(r)["error"]["message"].get<std::string>().find("Forbidden") == 0);
  }
  CHECK(s.session_count() == 0);
  for (const char* own :
       {"http://localhost:8765", "http://127.0.0.1:8765", "http://[::1]:8765", "https://app.example"}) {
    INFO(own);
    CHECK(s.handle(post(initialize(), {{"Origin", own}})).status == 200);
  }
  CHECK(s.handle(post(initialize())).status == 200);  // no Origin: not a browser
}

TEST_CASE("with a token every request needs Authorization Bearer with it: 401 otherwise, Origin checked first") {
  gp::mcp::HttpServer s(gp::mcp::HttpOptions{.token = "s3cret-token"}, quiet());
  const auto none = s.handle(post(initialize()));
  CHECK(none.status == 401);
  CHECK(header(none, "WWW-Authenticate") == "Bearer");
  for (const char* wrong :
       {"Bearer s3cret-tokeN", "Bearer s3cret-token2", "Bearer ", "Basic s3cret-token", "s3cret-token"})
    CHECK(s.handle(post(initialize(), {{"Authorization", wrong}})).status == 401);
  CHECK(s.handle(post(initialize(), {{"Authorization", "Bearer s3cret-token"}, {"Origin", "http://evil.example"}}))
            .status == 403);
  CHECK(s.session_count() == 0);
  const auto id = open(s, {{"Authorization", "Bearer s3cret-token"}});
  CHECK(in_session(s, id, rpc(2, "ping")).status == 401);  // the session id is not a credential
}

TEST_CASE("a host that is not loopback must be asked for explicitly") {
  CHECK_THROWS_AS(gp::mcp::HttpServer(gp::mcp::HttpOptions{.host = "0.0.0.0"}, quiet()), gp::ConfigurationError);
  CHECK_THROWS_AS(gp::mcp::HttpServer(gp::mcp::HttpOptions{.host = "192.168.1.10"}, quiet()), gp::ConfigurationError);
  CHECK_NOTHROW(gp::mcp::HttpServer(gp::mcp::HttpOptions{.host = "0.0.0.0", .allow_non_loopback = true}, quiet()));
  CHECK_NOTHROW(gp::mcp::HttpServer(gp::mcp::HttpOptions{.host = "::1"}, quiet()));
}

TEST_CASE(
    "malformed JSON, a batch, a wrong content type and an unknown revision header are each refused with their status") {
  gp::mcp::HttpServer s({}, quiet());
  const auto id = open(s);
  const auto bad = in_session(s, id, "{\"jsonrpc\": \"2.0\", ");
  CHECK(bad.status == 400);
  CHECK(body(bad)["error"]["code"] == -32700);
  const auto batch = in_session(s, id, "[" + rpc(1, "ping") + "," + rpc(2, "ping") + "]");
  CHECK(batch.status == 400);
  CHECK(body(batch)["error"]["code"] == -32600);
  CHECK(s.handle(post("not json")).status == 400);
  CHECK(s.handle({"POST", "/mcp", {{"Content-Type", "text/plain"}}, initialize()}).status == 415);
  CHECK(s.handle(post(rpc(2, "ping"), {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "1999-01-01"}})).status == 400);
  CHECK(s.handle(post(rpc(2, "ping"), {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "2025-11-25"}})).status == 200);
}

TEST_CASE("GET has no event stream to open: 405 with Allow, and other paths are 404") {
  gp::mcp::HttpServer s({}, quiet());
  const auto get = s.handle({"GET", "/mcp", {}, ""});
  CHECK(get.status == 405);
  CHECK(header(get, "Allow") == "POST, DELETE");
  CHECK(s.handle({"PUT", "/mcp", {}, ""}).status == 405);
  CHECK(s.handle({"POST", "/other", {}, initialize()}).status == 404);
}

TEST_CASE("a body over the limit is 413 and the session stays usable") {
  gp::mcp::HttpServer s(gp::mcp::HttpOptions{.max_body_bytes = 1024}, quiet());
  const auto id = open(s);
  const auto r = in_session(s, id, std::string(2000, ' ') + rpc(2, "ping"));
  CHECK(r.status == 413);
  CHECK(body(r)["error"]["message"].get<std::string>().find("over this server's limit of 1024") != std::string::npos);
  CHECK(in_session(s, id, rpc(3, "ping")).status == 200);
}

// A server of `max_sessions` whose sessions age, idle for 60 s at most, by a clock the
// test moves itself: nothing sleeps.
struct ClockedServer {
  std::shared_ptr<std::chrono::steady_clock::time_point> now =
      std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  gp::mcp::HttpServer server;
  explicit ClockedServer(std::size_t max_sessions)
      : server(gp::mcp::HttpOptions{.max_sessions = max_sessions,
                                    .idle_timeout = std::chrono::seconds(60),
                                    .clock = [now = now] { return *now; }},
               quiet()) {}
  void advance(std::chrono::milliseconds by) { *now += by; }
};

TEST_CASE("the session limit is answered 503 with Retry-After, and idle sessions end so new ones can open") {
  ClockedServer c(3);
  auto& s = c.server;
  for (int i = 0; i < 3; ++i) open(s);
  const auto full = s.handle(post(initialize(7)));
  CHECK(full.status == 503);
  CHECK(body(full)["id"] == 7);
  CHECK(header(full, "Retry-After") == "6");  // a tenth of the idle timeout
  // Exactly the idle timeout is not past it: still full.
  c.advance(std::chrono::seconds(60));
  CHECK(s.handle(post(initialize(8))).status == 503);
  CHECK(s.session_count() == 3);
  // A moment later all three have been idle too long; the new one opens.
  c.advance(std::chrono::milliseconds(1));
  open(s);
  CHECK(s.session_count() == 1);
}

TEST_CASE("a session in use stays open while the idle ones around it end") {
  ClockedServer c(2);
  auto& s = c.server;
  const auto used = open(s);
  const auto idle = open(s);
  c.advance(std::chrono::seconds(40));
  CHECK(in_session(s, used, rpc(2, "ping")).status == 200);  // used at 40 s: idle from here
  c.advance(std::chrono::seconds(40));                       // 80 s for `idle`, 40 s for `used`
  open(s);                                                   // full: the sweep ends `idle` alone
  CHECK(s.session_count() == 2);
  CHECK(in_session(s, used, rpc(3, "ping")).status == 200);
  CHECK(in_session(s, idle, rpc(3, "ping")).status == 404);
}

TEST_CASE("an app serves its own Session over HTTP in-process: every agent drives the same app") {
  gp::Session app({.node = "checkout"});
  int added = 0;
  app.declare("cart.add", {.does = "Add an item.", .writes = {"cart"}, .handler = [&](const nlohmann::json&) {
                             ++added;
                             app.report_state({{"cart", added}});
                             return gp::HandlerResult{};
                           }});
  gp::mcp::HttpServer s(app, {}, quiet());
  const auto a = open(s);
  const auto b = open(s);
  CHECK(body(in_session(s, a, tool(2, "do_action", {{"action", "cart.add"}})))["result"]["structuredContent"]["ok"] ==
        true);
  CHECK(body(in_session(s, b, tool(2, "do_action", {{"action", "cart.add"}})))["result"]["structuredContent"]["ok"] ==
        true);
  CHECK(added == 2);
  const auto here = body(in_session(s, a, tool(3, "whats_here", ojson::object())));
  CHECK(here["result"]["structuredContent"]["facts"].get<std::string>().find("cart") != std::string::npos);
  // facts recorded by one agent stay that agent's
  CHECK(body(in_session(s, a, tool(4, "record_ranking", seed_ranking)))["result"]["isError"] == false);
  CHECK(body(in_session(s, b, tool(4, "list_facts", ojson::object())))["result"]["structuredContent"]["facts"] ==
        ojson::object());
}

TEST_CASE("over sockets: a 20 MiB body is answered 413 and the server still serves") {
  Running r({.read_timeout = std::chrono::seconds(2)});
  auto c = r.client();
  const auto res = c.Post("/mcp", std::string(20u * 1024 * 1024, 'x'), "application/json");
  REQUIRE(res);
  CHECK(res->status == 413);
  CHECK(ojson::parse(res->body)["error"]["code"] == -32600);
  CHECK(r.still_serving());
}

TEST_CASE("over sockets: a slow-loris client is cut off by the read timeout while others are served") {
  Running r({.read_timeout = std::chrono::seconds(1), .threads = 4});
  const RawConnection slow(r.port, 10);
  slow.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  CHECK(r.still_serving());  // while the slow client holds its connection
  // then it goes quiet: within the deadline the server answers (an HTTP error) and closes
  const auto t0 = std::chrono::steady_clock::now();
  const std::string answer = slow.receive(true);
  const auto waited = std::chrono::steady_clock::now() - t0;
  CHECK(waited < std::chrono::seconds(4));
  INFO(answer);
  CHECK((answer.empty() || answer.rfind("HTTP/1.1 4", 0) == 0));
  CHECK(r.still_serving());
}

TEST_CASE(
    "over sockets: 1,000 sessions opened and abandoned fill the limit, the next is 503, and the server still serves") {
  Running r({.max_sessions = 1000, .max_sessions_per_client = 1000});
  auto c = r.client();
  int opened = 0;
  std::string first;
  for (int i = 0; i < 1000; ++i) {
    const auto res = c.Post("/mcp", initialize(), "application/json");
    REQUIRE(res);
    if (res->status == 200) ++opened;
    if (i == 0) first = res->get_header_value("Mcp-Session-Id");
  }
  CHECK(opened == 1000);
  CHECK(r.server.session_count() == 1000);
  const auto over = c.Post("/mcp", initialize(), "application/json");
  REQUIRE(over);
  CHECK(over->status == 503);
  CHECK(ojson::parse(over->body)["error"]["message"].get<std::string>().find("1000 sessions") != std::string::npos);
  // an open session is still served, and ending one makes room for a new one
  const auto ping = c.Post("/mcp", {{"Mcp-Session-Id", first}}, rpc(2, "ping"), "application/json");
  REQUIRE(ping);
  CHECK(ping->status == 200);
  const auto del = c.Delete("/mcp", {{"Mcp-Session-Id", first}});
  REQUIRE(del);
  CHECK(del->status == 200);
  CHECK(r.still_serving());
}

TEST_CASE("over sockets: wrong token and foreign Origin are answered, malformed JSON too, and stop() ends serve") {
  auto r = std::make_unique<Running>(gp::mcp::HttpOptions{.token = "t0ken"});
  auto c = r->client();
  const auto no = c.Post("/mcp", initialize(), "application/json");
  REQUIRE(no);
  CHECK(no->status == 401);
  const auto origin = c.Post("/mcp", {{"Origin", "http://evil.example"}, {"Authorization", "Bearer t0ken"}},
                             initialize(), "application/json");
  REQUIRE(origin);
  CHECK(origin->status == 403);
  const auto junk = c.Post("/mcp", {{"Authorization", "Bearer t0ken"}}, "{{{", "application/json");
  REQUIRE(junk);
  CHECK(junk->status == 400);
  const auto t0 = std::chrono::steady_clock::now();
  r.reset();  // stop() and join: serve() returned
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
}

TEST_CASE("over sockets: 30 clients connecting in the same instant are each answered, none reset") {
  // A listen queue of 5 (cpp-httplib's default, compiled into Debian's library) lets a
  // burst of connections overflow it: the kernel then resets some of them. Thirty clients
  // from one address: its connection limit is raised to let them all in.
  Running r({.max_connections_per_client = 30});
  constexpr int clients = 30;
  for (int round = 0; round < 4; ++round) {
    INFO("round " << round);
    std::vector<int> status(clients, 0);
    std::vector<std::string> errors(clients);
    std::latch start(clients);
    std::vector<std::thread> threads;
    for (int k = 0; k < clients; ++k)
      threads.emplace_back([&, k] {
        httplib::Client c("127.0.0.1", r.port);
        c.set_read_timeout(20, 0);
        start.arrive_and_wait();
        const auto res = c.Post("/mcp", initialize(), "application/json");
        if (res) status[static_cast<std::size_t>(k)] = res->status;
        else errors[static_cast<std::size_t>(k)] = httplib::to_string(res.error());
      });
    for (auto& t : threads) t.join();
    int answered = 0;
    for (int k = 0; k < clients; ++k) {
      INFO("client " << k << ": " << errors[static_cast<std::size_t>(k)]);
      CHECK(status[static_cast<std::size_t>(k)] == 200);
      answered += status[static_cast<std::size_t>(k)] == 200 ? 1 : 0;
    }
    CHECK(answered == clients);
  }
  CHECK(r.still_serving());
}

TEST_CASE("over sockets: a chunked body is refused 413 as soon as it passes the limit, not once it is all read") {
  Running r({.max_body_bytes = 1024, .read_timeout = std::chrono::seconds(3)});
  RawConnection c(r.port, 2);
  c.send(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n");
  const std::string chunk(1000, ' ');
  for (int i = 0; i < 4; ++i) c.send("3e8\r\n" + chunk + "\r\n");  // 4,000 bytes, and the body goes on
  const auto t0 = std::chrono::steady_clock::now();
  const std::string answer = c.receive();
  INFO(answer.substr(0, 300));
  CHECK(answer.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(answer.find("over this server's limit of 1024") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1500));
  CHECK(r.still_serving());
}

TEST_CASE("over sockets: a POST with neither Content-Length nor chunked encoding is 411 at once, not read to the end") {
  Running r({.read_timeout = std::chrono::seconds(3)});
  RawConnection c(r.port, 2);
  c.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n" + initialize());
  const auto t0 = std::chrono::steady_clock::now();
  const std::string answer = c.receive();
  INFO(answer.substr(0, 300));
  CHECK(answer.rfind("HTTP/1.1 411", 0) == 0);
  CHECK(answer.find("Content-Length") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1500));
  CHECK(r.server.session_count() == 0);  // nothing was opened for it
  CHECK(r.still_serving());
}

TEST_CASE("a message without a session id is read in time and memory linear in its length, however deep it nests") {
  gp::mcp::HttpServer s(gp::mcp::HttpOptions{.max_body_bytes = 16u * 1024 * 1024}, quiet());
  const std::string deep(8'000'000, '[');
  // Against the same body inside a session, which the Protocol reads with its bounded
  // reader: a ratio, so a sanitizer's slowdown moves both sides. A tree of 8M nested
  // arrays took 37 times as long (3.3 s against 0.09 s, Release) and 600 MB.
  const auto id = open(s);
  auto t0 = std::chrono::steady_clock::now();
  CHECK(in_session(s, id, deep).status == 400);
  const auto bounded = std::chrono::steady_clock::now() - t0;
  t0 = std::chrono::steady_clock::now();
  const auto r = s.handle(post(deep));
  const auto without = std::chrono::steady_clock::now() - t0;
  CHECK(r.status == 400);
  INFO("in a session " << std::chrono::duration<double>(bounded).count() << " s, without one "
                       << std::chrono::duration<double>(without).count() << " s");
  CHECK(without < 4 * bounded + std::chrono::milliseconds(200));
  CHECK(s.session_count() == 1);  // none opened for it
}

TEST_CASE("Content-Type is application/json in any case, with parameters, and other media types are 415") {
  gp::mcp::HttpServer s({}, quiet());
  for (const std::string type : {"Application/JSON", "application/json; charset=utf-8", " application/json "}) {
    INFO(type);
    const auto r = s.handle({"POST", "/mcp", {{"Content-Type", type}}, initialize()});
    CHECK(r.status == 200);
  }
  for (const std::string type : {"text/x-application/jsonish", "application/json-seq", "text/plain", ""}) {
    INFO(type);
    const auto r = s.handle({"POST", "/mcp", {{"Content-Type", type}}, initialize()});
    CHECK(r.status == 415);
  }
}

TEST_CASE("two initializes racing for the last session slot: the one refused is 503 with Retry-After and its id") {
  gp::mcp::HttpServer s(
      [] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // both pass the first count
        return std::make_shared<gp::mcp::Protocol>(quiet());
      },
      gp::mcp::HttpOptions{.max_sessions = 1});
  std::vector<gp::mcp::HttpResponse> out(2);
  std::latch start(2);
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      start.arrive_and_wait();
      out[static_cast<std::size_t>(k)] = s.handle(post(initialize(10 + k)));
    });
  for (auto& t : threads) t.join();
  const int refused = out[0].status == 503 ? 0 : 1;
  REQUIRE(out[static_cast<std::size_t>(refused)].status == 503);
  CHECK(out[static_cast<std::size_t>(1 - refused)].status == 200);
  CHECK_FALSE(header(out[static_cast<std::size_t>(refused)], "Retry-After").empty());
  CHECK(body(out[static_cast<std::size_t>(refused)])["id"] == 10 + refused);
  CHECK(s.session_count() == 1);
}

TEST_CASE("stop() called before serve() is running still makes serve() return") {
  for (int attempt = 0; attempt < 20; ++attempt) {
    gp::mcp::HttpServer s({}, quiet());
    s.bind();
    std::promise<void> returned;
    auto done = returned.get_future();
    std::thread t([&] {
      s.serve();
      returned.set_value();
    });
    s.stop();  // most likely before httplib's loop has started
    const bool ended = done.wait_for(std::chrono::seconds(3)) == std::future_status::ready;
    CHECK(ended);
    if (!ended) s.stop();  // let the thread go either way
    t.join();
    if (!ended) break;
  }
}

TEST_CASE("an unknown MCP-Protocol-Version is 400 on DELETE as on POST") {
  gp::mcp::HttpServer s({}, quiet());
  const auto id = open(s);
  const auto bad = s.handle({"DELETE", "/mcp", {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "bogus"}}, ""});
  CHECK(bad.status == 400);
  CHECK(s.session_count() == 1);  // the session was not ended
  CHECK(s.handle({"DELETE", "/mcp", {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "2025-11-25"}}, ""}).status ==
        200);
}

TEST_CASE("an Origin whose bracketed host is followed by more than a port is not a loopback host") {
  gp::mcp::HttpServer s({}, quiet());
  CHECK(s.handle(post(initialize(), {{"Origin", "http://[::1].evil.example"}})).status == 403);
  CHECK(s.handle(post(initialize(), {{"Origin", "http://[::1]:8080"}})).status == 200);
}
