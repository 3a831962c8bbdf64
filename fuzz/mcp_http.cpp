// Fuzz gp::mcp::HttpServer's request path: arbitrary headers and body into handle(), the
// very handler the sockets feed (no socket is opened). The input is
//   <flags byte> <method byte> header lines ("Name: value\n") "\n" body
// and a run replays up to four requests against one server, so a session opened by one
// can be used, deleted or abused by the next. Beyond "no crash":
//   * every status is one the server documents;
//   * every body is empty (202, DELETE) or one JSON-RPC object: "jsonrpc": "2.0", an id,
//     exactly one of result / error;
//   * a refusal before the protocol (403, 401, 413, 415, 404, 405, 503) never opens a
//     session, and the open sessions never exceed max_sessions.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "groundplane/mcp/http.hpp"

namespace gp = groundplane;

namespace {

void require(bool ok, const char* what, const std::string& detail) { FUZZ_CHECK(ok, what, detail); }

gp::mcp::HttpRequest request_from(std::string_view in, const std::string& last_session) {
  static constexpr const char* methods[] = {"POST", "POST", "POST", "DELETE", "GET", "PUT"};
  gp::mcp::HttpRequest r;
  const auto flags = in.empty() ? 0u : static_cast<unsigned char>(in[0]);
  const auto m = in.size() < 2 ? 0u : static_cast<unsigned char>(in[1]);
  r.method = methods[m % 6];
  r.path = (flags & 8u) ? "/other" : "/mcp";
  in.remove_prefix(in.size() < 2 ? in.size() : 2);
  if (flags & 1u) r.headers.emplace_back("Content-Type", "application/json");
  if (flags & 2u) r.headers.emplace_back("Authorization", "Bearer fuzz-token");
  if ((flags & 4u) && !last_session.empty()) r.headers.emplace_back("Mcp-Session-Id", last_session);
  for (;;) {
    const auto nl = in.find('\n');
    if (nl == std::string_view::npos || nl == 0) {
      if (nl == 0) in.remove_prefix(1);
      break;
    }
    const std::string_view line = in.substr(0, nl);
    in.remove_prefix(nl + 1);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    r.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  }
  r.body = std::string(in);
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static constexpr std::size_t max_sessions = 3;
  gp::mcp::HttpServer server(
      gp::mcp::HttpOptions{.token = (size % 2) ? std::optional<std::string>("fuzz-token") : std::nullopt,
                           .max_body_bytes = 4096,
                           .max_sessions = max_sessions},
      {.log = [](std::string_view) {}});
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  std::string session;
  // up to four requests, separated by a NUL byte
  std::size_t start = 0;
  for (int n = 0; n < 4 && start <= all.size(); ++n) {
    const auto end = all.find('\0', start);
    const std::string_view one =
        all.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    const std::size_t before = server.session_count();
    const auto response = server.handle(request_from(one, session));
    switch (response.status) {
      case 200:
      case 202:
      case 400:
      case 401:
      case 403:
      case 404:
      case 405:
      case 413:
      case 415:
      case 429:
      case 503:
        break;
      default:
        require(false, "a status the server does not document", std::to_string(response.status));
    }
    if (!response.body.empty()) {
      const auto j = nlohmann::json::parse(response.body, nullptr, false);
      require(j.is_object() && j.value("jsonrpc", "") == "2.0" && j.contains("id"), "a body that is not JSON-RPC",
              response.body);
      require(j.contains("result") != j.contains("error"), "a body with both or neither of result and error",
              response.body);
    } else {
      require(response.status == 202 || response.status == 200, "an empty body on a refusal",
              std::to_string(response.status));
    }
    if (response.status != 200)
      require(server.session_count() <= before, "a refused request opened a session", std::to_string(response.status));
    require(server.session_count() <= max_sessions, "more sessions than max_sessions",
            std::to_string(server.session_count()));
    for (const auto& [k, v] : response.headers)
      if (k == "Mcp-Session-Id") session = v;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return 0;
}
