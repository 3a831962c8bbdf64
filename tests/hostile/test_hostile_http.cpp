// The MCP server against a hostile client: each attack a client can make with nothing but
// a socket (and no token), and that a normal client is still served while it is made.
#include "catch2_compat.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <groundplane/mcp/http.hpp>
#include <groundplane/mcp/server.hpp>

#include "http_fixtures.hpp"

namespace gp = groundplane;
using http_test::initialize;
using http_test::quiet;
using http_test::RawConnection;
using http_test::rpc;
using http_test::Running;
using ojson = nlohmann::ordered_json;

namespace {

// How many HTTP responses `text` holds (each starts with a status line).
int responses_in(const std::string& text) {
  int n = 0;
  for (auto at = text.find("HTTP/1.1 "); at != std::string::npos; at = text.find("HTTP/1.1 ", at + 1)) ++n;
  return n;
}

// A POST on a raw connection, with its Content-Length.
std::string raw_post(const std::string& body, const std::string& extra_headers = "") {
  return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + extra_headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// What a shell command printed (stdout and stderr) and its exit code.
std::pair<std::string, int> run(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1; echo \"exit=$?\"").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  const auto at = out.rfind("exit=");
  REQUIRE(at != std::string::npos);
  return {out.substr(0, at), std::stoi(out.substr(at + 5))};
}

}  // namespace

// --- a port is one server's -------------------------------------------------------------

TEST_CASE("a second server on a busy port is refused with an error naming the port, never given a share of it") {
  Running first({});
  gp::mcp::HttpServer second(gp::mcp::HttpOptions{.port = first.port}, quiet());
  std::string error;
  try {
    second.bind();
  } catch (const gp::ConfigurationError& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(error.find("port " + std::to_string(first.port)) != std::string::npos);
  CHECK(first.still_serving());
}

#ifdef GROUNDPLANE_MCP_BINARY
TEST_CASE("groundplane-mcp on a busy port exits 1 and names the port") {
  Running first({});
  // `timeout` stops a server that shares the port and serves instead (it exits 124 then).
  const auto [out, code] = run("timeout 5 " GROUNDPLANE_MCP_BINARY " --http 127.0.0.1:" + std::to_string(first.port));
  INFO(out);
  CHECK(code == 1);
  CHECK(out.find("port " + std::to_string(first.port)) != std::string::npos);
  CHECK(out.find("serving") == std::string::npos);
}
#endif

// --- a NUL byte is not the end of a message ---------------------------------------------

TEST_CASE("a NUL byte inside a stdio line is a parse error, never the end of the message") {
  gp::mcp::Server server(quiet());
  std::istringstream in(initialize(1) + "\n" + rpc(2, "ping") + std::string("\0garbage", 8) + "\n" + rpc(3, "ping") +
                        "\n");
  std::ostringstream out;
  server.serve(in, out);
  std::istringstream lines(out.str());
  std::string line;
  std::vector<ojson> replies;
  while (std::getline(lines, line)) replies.push_back(ojson::parse(line));
  REQUIRE(replies.size() == 3);
  INFO(replies[1].dump());
  CHECK(replies[1]["id"] == nullptr);
  CHECK(replies[1]["error"]["code"] == -32700);
  CHECK(replies[1]["error"]["message"].get<std::string>().find("NUL") != std::string::npos);
  CHECK(replies[2]["id"] == 3);  // the line after it is served as usual
  CHECK(replies[2]["result"] == ojson::object());
}

TEST_CASE("a NUL byte in an HTTP body is a 400 parse error, in a session and before one") {
  Running r({});
  auto c = r.client();
  const auto before = c.Post("/mcp", initialize() + std::string("\0garbage", 8), "application/json");
  REQUIRE(before);
  CHECK(before->status == 400);
  CHECK(ojson::parse(before->body)["error"]["code"] == -32700);
  CHECK(r.server.session_count() == 0);
  const auto init = c.Post("/mcp", initialize(), "application/json");
  REQUIRE(init);
  const auto id = init->get_header_value("Mcp-Session-Id");
  const auto in = c.Post("/mcp", {{"Mcp-Session-Id", id}}, rpc(2, "ping") + std::string("\0", 1), "application/json");
  REQUIRE(in);
  INFO(in->body);
  CHECK(in->status == 400);
  CHECK(ojson::parse(in->body)["error"]["code"] == -32700);
}

// --- a body over the limit ends the connection ------------------------------------------

TEST_CASE("a chunked body over the limit is 413 and closes the connection: what follows it is never a request",
          "[timing]") {
  Running r({.max_body_bytes = 1024, .read_timeout = std::chrono::seconds(3)});
  const std::string chunk(1000, ' ');
  // The request after the body starts where the server stops reading (the chunk that
  // passes the limit), or after the body's last chunk: neither may be served.
  for (const std::string& after : {std::string(), std::string("\r\n0\r\n\r\n")}) {
    INFO("between: " << (after.empty() ? "nothing" : "the last chunk"));
    RawConnection c(r.port, 3);
    c.send(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n3e8\r\n" +
        chunk + "\r\n3e8\r\n" + chunk + after + raw_post(initialize(7)));
    const auto t0 = std::chrono::steady_clock::now();
    const std::string answer = c.receive(true);
    const auto waited = std::chrono::steady_clock::now() - t0;
    INFO(answer.substr(0, 600));
    // closed at once, not when a read timeout (3 s) has passed
    CHECK(waited < std::chrono::milliseconds(1500));
    CHECK(answer.rfind("HTTP/1.1 413", 0) == 0);
    CHECK(responses_in(answer) == 1);
    CHECK(r.server.session_count() == 0);
  }
  CHECK(r.still_serving());
}

TEST_CASE("a body with a Content-Length over the limit is 413 and closes the connection at once", "[timing]") {
  Running r({.max_body_bytes = 1024, .read_timeout = std::chrono::seconds(3)});
  RawConnection c(r.port, 3);
  // 1 MiB announced, 2,000 bytes sent, then a request: the server must not wait for the
  // rest, nor read what follows as a request.
  c.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n" +
         std::string(2000, ' ') + raw_post(initialize(7)));
  const auto t0 = std::chrono::steady_clock::now();
  const std::string answer = c.receive(true);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1500));
  INFO(answer.substr(0, 600));
  CHECK(answer.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(responses_in(answer) == 1);
  CHECK(r.server.session_count() == 0);
}

// --- a request is framed one way --------------------------------------------------------

TEST_CASE("a request framed by both Content-Length and Transfer-Encoding is 400 and closes its connection") {
  Running r({});
  // A proxy that honours the length reads the body as "0\r\n\r\n" plus a second request
  // (the one it thinks it forwards next); one that honours the chunks ends the body at
  // "0\r\n\r\n". Either way the server must not serve the bytes after it.
  const std::string smuggled = raw_post(initialize(8));
  const std::string body = "0\r\n\r\n" + smuggled;
  for (const char* method : {"POST", "GET", "DELETE"}) {
    INFO(method);
    RawConnection c(r.port, 3);
    c.send(std::string(method) +
           " /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Content-Length: " +
           std::to_string(body.size()) + "\r\nTransfer-Encoding: chunked\r\n\r\n" + body + raw_post(initialize(9)));
    const std::string answer = c.receive(true);
    INFO(answer.substr(0, 600));
    CHECK(answer.rfind("HTTP/1.1 400", 0) == 0);
    CHECK(answer.find("Transfer-Encoding") != std::string::npos);
    CHECK(responses_in(answer) == 1);
  }
  CHECK(r.server.session_count() == 0);
  CHECK(r.still_serving());
}

TEST_CASE("a request with its length or its coding stated twice is 400 and closes the connection") {
  Running r({});
  for (const std::string& twice : {std::string("Content-Length: 2\r\nContent-Length: 40\r\n"),
                                   std::string("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n")}) {
    INFO(twice);
    RawConnection c(r.port, 3);
    c.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + twice + "\r\n{}" +
           raw_post(initialize(9)));
    const std::string answer = c.receive(true);
    INFO(answer.substr(0, 600));
    CHECK(answer.rfind("HTTP/1.1 400", 0) == 0);
    CHECK(responses_in(answer) == 1);
  }
  CHECK(r.server.session_count() == 0);
}

TEST_CASE("a NUL byte in a header value is 400, over a socket and handed in") {
  Running r({});
  RawConnection c(r.port, 3);
  c.send(raw_post(initialize(1), std::string("X-Note: a") + '\0' + "b\r\n"));
  const std::string answer = c.receive(true);
  INFO(answer.substr(0, 600));
  CHECK(answer.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(answer.find("NUL") != std::string::npos);
  CHECK(responses_in(answer) == 1);
  CHECK(r.server.session_count() == 0);
  gp::mcp::HttpServer s(gp::mcp::HttpOptions{}, quiet());
  const auto handed = s.handle(
      {"POST", "/mcp", {{"Content-Type", "application/json"}, {"X-Note", std::string("a\0b", 3)}}, initialize()});
  CHECK(handed.status == 400);
  CHECK(s.session_count() == 0);
}

TEST_CASE("an Origin that is not a serialized origin scheme://host[:port] is 403, whatever host it names") {
  gp::mcp::HttpServer s(gp::mcp::HttpOptions{.port = 8765}, quiet());
  const auto with_origin = [&](const std::string& origin) {
    return s.handle({"POST", "/mcp", {{"Content-Type", "application/json"}, {"Origin", origin}}, initialize()});
  };
  for (const char* malformed :
       {"http://127.0.0.1:8765/", "http://127.0.0.1:8765/mcp", "http://127.0.0.1:8765?x=1", "http://127.0.0.1:8765#f",
        "http://user@127.0.0.1:8765", "http://127.0.0.1:port", "http://127.0.0.1:", "http://127.0.0.1:123456",
        "http://127.0.0.1 :8765", "127.0.0.1:8765", "//127.0.0.1:8765", "http:/127.0.0.1", "http://", "http://[::1",
        "http://[::1]x", "ht tp://localhost", "http://local\thost"}) {
    INFO(malformed);
    const auto r = with_origin(malformed);
    CHECK(r.status == 403);
    CHECK_THAT(r.body, Catch::Contains("Forbidden"));
  }
  CHECK(s.session_count() == 0);
  for (const char* own : {"http://127.0.0.1:8765", "http://localhost", "https://localhost:8765", "http://[::1]:8765"}) {
    INFO(own);
    CHECK(with_origin(own).status == 200);
  }
}

// --- headers are bounded while they are read, before any token is checked ---------------

TEST_CASE("more header lines than the limit are refused 431 before the token is checked, and the connection closed") {
  Running r({.token = "t0ken"});
  RawConnection c(r.port, 3);
  std::string flood = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 0; i < 200; ++i) flood += "X-Flood-" + std::to_string(i) + ": x\r\n";
  c.send(flood + "Content-Length: 0\r\n\r\n");
  const std::string answer = c.receive(true);
  INFO(answer.substr(0, 600));
  CHECK(answer.rfind("HTTP/1.1 431", 0) == 0);
  CHECK(answer.find("header") != std::string::npos);
  CHECK(responses_in(answer) == 1);
  CHECK(r.still_serving_with("t0ken"));
}

TEST_CASE("headers over the byte limit are refused 431 however few lines they take") {
  Running r({});
  RawConnection c(r.port, 3);
  std::string big = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 0; i < 40; ++i) big += "X-Big-" + std::to_string(i) + ": " + std::string(2000, 'y') + "\r\n";
  c.send(big + "Content-Length: 0\r\n\r\n");
  const std::string answer = c.receive(true);
  INFO(answer.substr(0, 600));
  CHECK(answer.rfind("HTTP/1.1 431", 0) == 0);
  CHECK(r.still_serving());
}

TEST_CASE("a header flood is cut off once it passes the limit: the server reads no further") {
  Running r({.token = "t0ken"});
  RawConnection c(r.port, 3);
  std::string piece;
  for (int i = 0; i < 1000; ++i) piece += "X-Flood: " + std::to_string(i) + "\r\n";  // ~15 kB
  c.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  // Up to 8 MB of headers; a server reading them all holds ~100 MB for them.
  std::size_t sent = 0;
  bool refused = false;
  const auto t0 = std::chrono::steady_clock::now();
  while (sent < 8u * 1024 * 1024 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10)) {
    pollfd p{c.fd, POLLOUT, 0};
    if (::poll(&p, 1, 2000) <= 0) continue;
    if ((p.revents & (POLLERR | POLLHUP)) != 0) {
      refused = true;
      break;
    }
    const auto n = ::send(c.fd, piece.data(), piece.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      refused = true;
      break;
    }
    if (n > 0) sent += static_cast<std::size_t>(n);
  }
  INFO("sent " << sent << " bytes of headers");
  CHECK(refused);
  CHECK(r.still_serving_with("t0ken"));
}

// --- one connection, several requests ---------------------------------------------------

TEST_CASE("two requests pipelined in one write are both answered, in order") {
  Running r({});
  RawConnection c(r.port, 3);
  c.send(raw_post(initialize(1)) + raw_post(initialize(2)));
  std::string answer;
  char buf[4096];
  while (responses_in(answer) < 2 || answer.find("\"id\":2") == std::string::npos) {
    const auto n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    answer.append(buf, static_cast<std::size_t>(n));
  }
  INFO(answer.substr(0, 1200));
  CHECK(responses_in(answer) == 2);
  const auto first = answer.find("\"id\":1");
  const auto second = answer.find("\"id\":2");
  CHECK(first != std::string::npos);
  CHECK(second != std::string::npos);
  CHECK(first < second);
}

// --- what one client may hold ----------------------------------------------------------

namespace {

std::string record_fact(int id, const std::string& name, std::size_t value_bytes = 1) {
  return rpc(id, "tools/call",
             {{"name", "record_fact"},
              {"arguments", {{"name", name}, {"value", std::string(value_bytes, 'v')}, {"tool", "t"}}}});
}

// A tools/call's result: isError and its first text.
std::pair<bool, std::string> tool_result(const std::string& reply) {
  const auto r = ojson::parse(reply);
  return {r["result"]["isError"].get<bool>(), r["result"]["content"][0]["text"].get<std::string>()};
}

}  // namespace

TEST_CASE("a record past the session's fact limit is a tool error naming the limit and its flag, and nothing is lost") {
  gp::mcp::Protocol p({.log = [](std::string_view) {}, .max_facts = 3});
  REQUIRE(p.handle_line(initialize()));
  for (int i = 0; i < 3; ++i)
    CHECK_FALSE(tool_result(*p.handle_line(record_fact(2 + i, "f" + std::to_string(i)))).first);
  const auto [refused, text] = tool_result(*p.handle_line(record_fact(9, "f3")));
  INFO(text);
  CHECK(refused);
  CHECK(text.find("limit of 3 (--max-facts)") != std::string::npos);
  CHECK(p.registry().size() == 3);
}

TEST_CASE("a record past the session's byte limit is a tool error naming --max-fact-bytes") {
  gp::mcp::Protocol p({.log = [](std::string_view) {}, .max_fact_bytes = 4096});
  REQUIRE(p.handle_line(initialize()));
  CHECK_FALSE(tool_result(*p.handle_line(record_fact(2, "a", 3000))).first);
  const auto [refused, text] = tool_result(*p.handle_line(record_fact(3, "b", 3000)));
  INFO(text);
  CHECK(refused);
  CHECK(text.find("limit of 4096 (--max-fact-bytes)") != std::string::npos);
  CHECK(p.registry().size() == 1);
  CHECK_FALSE(tool_result(*p.handle_line(record_fact(4, "c", 10))).first);  // a small one still fits
}

TEST_CASE("every session's records count into one total, and a session's end gives its share back") {
  auto pool = std::make_shared<gp::mcp::FactPool>();
  pool->max_facts = 2;
  gp::mcp::HttpServer s(gp::mcp::HttpOptions{}, {.log = [](std::string_view) {}, .pool = pool});
  const auto open = [&] {
    return s.handle({"POST", "/mcp", {{"Content-Type", "application/json"}}, initialize()}).headers.at(0).second;
  };
  const auto in = [&](const std::string& id, std::string message) {
    return s
        .handle({"POST", "/mcp", {{"Content-Type", "application/json"}, {"Mcp-Session-Id", id}}, std::move(message)})
        .body;
  };
  const std::string a = open(), b = open();
  CHECK_FALSE(tool_result(in(a, record_fact(2, "x"))).first);
  CHECK_FALSE(tool_result(in(b, record_fact(2, "x"))).first);
  const auto [refused, text] = tool_result(in(a, record_fact(3, "y")));
  INFO(text);
  CHECK(refused);
  CHECK(text.find("(--max-total-facts)") != std::string::npos);
  CHECK(pool->facts == 2);
  CHECK(s.handle({"DELETE", "/mcp", {{"Mcp-Session-Id", a}}, ""}).status == 200);
  CHECK(pool->facts == 1);
  CHECK_FALSE(tool_result(in(b, record_fact(3, "y"))).first);
}

TEST_CASE("one client address cannot take every session slot: past its own limit it is 429, others still open") {
  gp::mcp::HttpServer s(gp::mcp::HttpOptions{.max_sessions = 10, .max_sessions_per_client = 2}, quiet());
  const auto init = [&](const std::string& client) {
    return s.handle({"POST", "/mcp", {{"Content-Type", "application/json"}}, initialize(), client});
  };
  const auto first = init("192.0.2.1");
  REQUIRE(first.status == 200);
  CHECK(init("192.0.2.1").status == 200);
  const auto third = init("192.0.2.1");
  INFO(third.body);
  CHECK(third.status == 429);
  CHECK(third.body.find("--max-sessions-per-client") != std::string::npos);
  CHECK(init("192.0.2.2").status == 200);
  // ending one of its sessions gives the client its slot back
  CHECK(s.handle({"DELETE", "/mcp", {{"Mcp-Session-Id", first.headers.at(0).second}}, ""}).status == 200);
  CHECK(init("192.0.2.1").status == 200);
}

TEST_CASE("over sockets: the per-client session limit counts the connection's own address") {
  Running r({.max_sessions_per_client = 2});
  auto c = r.client();
  for (int i = 0; i < 2; ++i) {
    const auto ok = c.Post("/mcp", initialize(), "application/json");
    REQUIRE(ok);
    CHECK(ok->status == 200);
  }
  const auto over = c.Post("/mcp", initialize(), "application/json");
  REQUIRE(over);
  CHECK(over->status == 429);
  CHECK(r.server.session_count() == 2);
}

TEST_CASE("a request trickled a byte at a time is cut off at the request deadline, not kept alive by each byte",
          "[timing]") {
  Running r({.read_timeout = std::chrono::seconds(3), .request_timeout = std::chrono::seconds(1)});
  RawConnection c(r.port, 1);
  c.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  const auto t0 = std::chrono::steady_clock::now();
  std::string answer;
  bool closed = false;  // the server ended the connection (a close, or a reset once it was closed)
  // A byte every 200 ms: each read is far within the read timeout.
  while (!closed && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(6)) {
    if (::send(c.fd, "a", 1, MSG_NOSIGNAL) != 1) {
      closed = true;
      break;
    }
    pollfd p{c.fd, POLLIN, 0};
    if (::poll(&p, 1, 200) > 0) {
      char buf[4096];
      const auto n = ::recv(c.fd, buf, sizeof buf, 0);
      if (n <= 0) closed = true;
      else answer.append(buf, static_cast<std::size_t>(n));
    }
  }
  const auto waited = std::chrono::steady_clock::now() - t0;
  INFO(answer.substr(0, 400));
  CHECK(closed);
  CHECK(waited < std::chrono::milliseconds(2500));
  // The 408 is sent; a client still writing after the close may have it reset away.
  CHECK((answer.empty() || answer.rfind("HTTP/1.1 408", 0) == 0));
  CHECK(r.still_serving());
}

// --- what one client address may hold of the workers ------------------------------------

namespace {

// Opens `count` connections from `from`, each sending the start of a request and then
// nothing: a slow-loris client, holding a worker per connection it is given.
std::vector<std::unique_ptr<RawConnection>> slow_connections(int port, const char* from, int count) {
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < count; ++i) {
    held.push_back(std::make_unique<RawConnection>(port, 2, from));
    held.back()->send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  }
  return held;
}

}  // namespace

TEST_CASE("one address's slow connections hold no more workers than its limit: another address is answered at once") {
  // Four workers; before the limit, the first four slow connections held all of them for
  // the whole read timeout and every other client waited behind them.
  Running r({.read_timeout = std::chrono::seconds(6),
             .request_timeout = std::chrono::seconds(6),
             .threads = 4,
             .max_connections_per_client = 2});
  const auto slow = slow_connections(r.port, "127.0.0.2", 12);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(r.still_serving());  // from 127.0.0.1
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1500));
  // Past its limit, each of its connections is answered 429 at once and closed. Which two
  // hold the address's slots is the workers' race, not the order they connected in; those
  // two are answered nothing until the read timeout, long after this wait.
  std::vector<pollfd> waiting;
  for (const auto& c : slow) waiting.push_back({c->fd, POLLIN, 0});
  int refused = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (refused < 10 && std::chrono::steady_clock::now() < until) {
    ::poll(waiting.data(), waiting.size(), 100);
    for (std::size_t i = 0; i < waiting.size(); ++i) {
      if (waiting[i].fd < 0 || (waiting[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      waiting[i].fd = -1;  // poll skips it from now on
      const std::string answer = slow[i]->receive(true);
      INFO(answer.substr(0, 600));
      CHECK(answer.rfind("HTTP/1.1 429", 0) == 0);
      CHECK(answer.find("Retry-After: ") != std::string::npos);
      CHECK(answer.find("--max-connections-per-client") != std::string::npos);
      ++refused;
    }
  }
  CHECK(refused == 10);
}

TEST_CASE("a connection's slot is its address's again once it closes") {
  Running r({.max_connections_per_client = 1});
  {
    RawConnection first(r.port, 2, "127.0.0.3");
    first.send(raw_post(initialize(1)));
    CHECK(first.receive().rfind("HTTP/1.1 200", 0) == 0);
    RawConnection second(r.port, 2, "127.0.0.3");
    second.send(raw_post(initialize(2)));
    CHECK(second.receive(true).rfind("HTTP/1.1 429", 0) == 0);
  }  // both closed
  // The server notices the first one's close when it next reads it; then the slot is free.
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    RawConnection again(r.port, 2, "127.0.0.3");
    again.send(raw_post(initialize(3)));
    served = again.receive().rfind("HTTP/1.1 200", 0) == 0;
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(served);
}

TEST_CASE("the connection limit per client address must be positive") {
  CHECK_THROWS_AS(gp::mcp::HttpServer(gp::mcp::HttpOptions{.max_connections_per_client = 0}), gp::ConfigurationError);
}

// --- the cost of each HTTP input at 1x, 10x and 100x its bound --------------------------
//
// docs/security.md's table, the HTTP rows: the stated answer, a time budget, and ten times
// the input costing at most fifteen times the time from 10x to 100x (a step under 5 ms
// counts as 5 ms). Past a bound the server stops reading, so the cost stays flat.

namespace {

constexpr std::size_t scales[] = {1, 10, 100};  // times the bound

struct Cost {
  double seconds = 0;
  std::string answer;
};

// One request's bytes on a fresh connection, and the server's answer: up to its close
// when `closes` (a refusal), else the one response.
Cost send_and_time(int port, const std::string& request, bool closes) {
  RawConnection c(port, 5);
  const auto t0 = std::chrono::steady_clock::now();
  // Sent from a thread: a server that stops reading leaves the rest in the socket.
  std::thread writer([&] {
    std::size_t sent = 0;
    while (sent < request.size()) {
      const auto n = ::send(c.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
  });
  Cost cost;
  cost.answer = c.receive(closes);
  cost.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::shutdown(c.fd, SHUT_RDWR);
  writer.join();
  return cost;
}

void check_linear(const Cost& at10, const Cost& at100) {
  INFO("10x: " << at10.seconds << " s; 100x: " << at100.seconds << " s");
  // A step under 20 ms counts as 20 ms (as in test_hostile_limits.cpp): a busy machine only
  // slows a run, and its noise is milliseconds.
  CHECK(at100.seconds <= 15 * std::max(at10.seconds, 0.020));
}

}  // namespace

TEST_CASE("cost: request headers of 1x, 10x and 100x the header byte limit", "[timing]") {
  constexpr std::size_t limit = 4096;
  Running r({.max_header_bytes = limit, .max_header_count = 100000});
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    std::string head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
    const std::string body = initialize(1);
    const std::string tail = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    const std::size_t want = limit * scale - (scale == 1 ? 64 : 0);  // 1x: just within
    for (int i = 0; head.size() + tail.size() < want; ++i) head += "X-Pad-" + std::to_string(i) + ": p\r\n";
    costs.push_back(send_and_time(r.port, head + tail + body, scale > 1));
    INFO(scale << "x: " << costs.back().answer.substr(0, 200));
    CHECK(costs.back().answer.rfind(scale == 1 ? "HTTP/1.1 200" : "HTTP/1.1 431", 0) == 0);
    CHECK(costs.back().seconds < 2);
  }
  check_linear(costs[1], costs[2]);
  CHECK(r.still_serving());
}

TEST_CASE("cost: header lines of 1x, 10x and 100x the header count limit", "[timing]") {
  constexpr std::size_t limit = 20;
  Running r({.max_header_bytes = std::size_t{1} << 30, .max_header_count = limit});
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    std::string head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
    for (std::size_t i = 3; i < limit * scale; ++i) head += "X-Pad-" + std::to_string(i) + ": p\r\n";
    const std::string body = initialize(1);
    costs.push_back(
        send_and_time(r.port, head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body, scale > 1));
    INFO(scale << "x: " << costs.back().answer.substr(0, 200));
    CHECK(costs.back().answer.rfind(scale == 1 ? "HTTP/1.1 200" : "HTTP/1.1 431", 0) == 0);
    CHECK(costs.back().seconds < 2);
  }
  check_linear(costs[1], costs[2]);
}

TEST_CASE("cost: request bodies of 1x, 10x and 100x the body limit", "[timing]") {
  constexpr std::size_t limit = 64 * 1024;
  Running r({.max_body_bytes = limit});
  std::vector<Cost> costs;
  for (const std::size_t scale : scales) {
    for (const bool chunked : {false, true}) {
      std::string body = initialize(1);
      body += std::string(limit * scale - body.size(), ' ');  // JSON may end in blanks
      std::string request = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                            (chunked ? "Transfer-Encoding: chunked\r\n\r\n"
                                     : "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n");
      if (chunked) {
        for (std::size_t at = 0; at < body.size(); at += 4096) {
          const std::string piece = body.substr(at, 4096);
          std::ostringstream size;
          size << std::hex << piece.size();
          request += size.str() + "\r\n" + piece + "\r\n";
        }
        request += "0\r\n\r\n";
      } else {
        request += body;
      }
      const Cost cost = send_and_time(r.port, request, scale > 1);
      INFO(scale << "x, " << (chunked ? "chunked" : "with a length") << ": " << cost.answer.substr(0, 200));
      CHECK(cost.answer.rfind(scale == 1 ? "HTTP/1.1 200" : "HTTP/1.1 413", 0) == 0);
      CHECK(cost.seconds < 2);
      if (chunked) costs.push_back(cost);
    }
  }
  check_linear(costs[1], costs[2]);
}

TEST_CASE("cost: initializes from one address at 1x, 10x and 100x its session limit", "[timing]") {
  constexpr std::size_t limit = 4;
  gp::mcp::HttpServer s(gp::mcp::HttpOptions{.max_sessions = 100000, .max_sessions_per_client = limit}, quiet());
  std::vector<double> seconds;
  for (const std::size_t scale : scales) {
    const std::string client = "192.0.2." + std::to_string(scale);
    std::size_t refused = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < limit * scale; ++i)
      refused += s.handle({"POST", "/mcp", {{"Content-Type", "application/json"}}, initialize(), client}).status == 429;
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    INFO(scale << "x");
    CHECK(refused == limit * scale - limit);
  }
  CHECK(s.session_count() == 3 * limit);
  CHECK(seconds[2] <= 15 * std::max(seconds[1], 0.020));  // as check_linear
}
