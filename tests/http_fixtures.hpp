// What the Streamable HTTP tests share (test_mcp_http.cpp, tests/hostile): a server on a
// free loopback port served on a thread, and a raw socket for requests httplib's client
// would not send.
#pragma once

#include "catch2_compat.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>

#include <groundplane/mcp/http.hpp>

namespace http_test {

namespace gp = groundplane;
using ojson = nlohmann::ordered_json;

inline std::string rpc(int id, const std::string& method, const ojson& params = nullptr) {
  ojson r{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) r["params"] = params;
  return r.dump();
}
inline std::string initialize(int id = 1) {
  return rpc(id, "initialize",
             {{"protocolVersion", "2025-11-25"},
              {"capabilities", ojson::object()},
              {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
}
inline gp::mcp::ServerOptions quiet() {
  return {.log = [](std::string_view) {}};
}

// A server listening on a free loopback port, served on a thread until the test ends.
struct Running {
  gp::mcp::HttpServer server;
  int port;
  std::thread thread;
  explicit Running(gp::mcp::HttpOptions o) : server(std::move(o), quiet()), port(server.bind()) {
    thread = std::thread([this] { server.serve(); });
    for (int i = 0; i < 200; ++i) {  // until it accepts
      httplib::Client c("127.0.0.1", port);
      if (c.Get("/mcp")) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~Running() {
    server.stop();
    thread.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(10, 0);
    return c;
  }
  // A ping on a fresh session over a fresh connection: the server still serves.
  bool still_serving() const { return still_serving_with(""); }
  // The same, with a bearer token ("" for none).
  bool still_serving_with(const std::string& token) const {
    auto c = client();
    httplib::Headers auth;
    if (!token.empty()) auth.emplace("Authorization", "Bearer " + token);
    const auto init = c.Post("/mcp", auth, initialize(), "application/json");
    if (!init || init->status != 200) return false;
    auth.emplace("Mcp-Session-Id", init->get_header_value("Mcp-Session-Id"));
    const auto ping = c.Post("/mcp", auth, rpc(2, "ping"), "application/json");
    return ping && ping->status == 200 && ojson::parse(ping->body)["result"] == ojson::object();
  }
};

// A raw connection to the server, for requests httplib's client would not send. `from`
// is the loopback address it comes from (all of 127.0.0.0/8 is this machine's), so a
// test can be two clients with two addresses.
struct RawConnection {
  int fd = -1;
  explicit RawConnection(int port, int receive_timeout_seconds = 4, const char* from = nullptr) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    timeval tv{receive_timeout_seconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (from != nullptr) {
      sockaddr_in source{};
      source.sin_family = AF_INET;
      REQUIRE(::inet_pton(AF_INET, from, &source.sin_addr) == 1);
      REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) == 0);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  ~RawConnection() { ::close(fd); }
  void send(const std::string& s) const {
    REQUIRE(::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()));
  }
  // What the server wrote until it closed or the receive timeout passed, or (unless
  // until_closed) until it had written a response with a JSON body.
  std::string receive(bool until_closed = false) const {
    std::string answer;
    char buf[4096];
    for (;;) {
      const auto n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      answer.append(buf, static_cast<std::size_t>(n));
      if (!until_closed && answer.find("\r\n\r\n") != std::string::npos &&
          answer.find("\"jsonrpc\"") != std::string::npos && answer.back() == '}')
        break;
    }
    return answer;
  }
};

}  // namespace http_test
