// What the MCP server's tests share (test_mcp_*.cpp, one executable): a stdio server
// whose log lines are kept, the transcript of one serve(), requests, and the seed's
// ranking and check.
#pragma once

#include "catch2_compat.hpp"

#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <groundplane/mcp/server.hpp>
#include <groundplane/session.hpp>

namespace gp = groundplane;
using ojson = nlohmann::ordered_json;

namespace mcp_test {

// What one serve() wrote: every stdout line parsed, and every log line.
struct Transcript {
  std::vector<ojson> replies;
  std::vector<std::string> logs;

  const ojson& reply_to(const ojson& id) const {
    for (const auto& r : replies)
      if (r.contains("id") && r["id"] == id) return r;
    FAIL("no reply with id " << id.dump());
    return replies.front();
  }
  bool has_reply_to(const ojson& id) const {
    for (const auto& r : replies)
      if (r.contains("id") && r["id"] == id) return true;
    return false;
  }
  bool logged(const std::string& part) const {
    for (const auto& l : logs)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
};

// A server whose log lines are kept for the test instead of going to stderr.
struct Harness {
  std::shared_ptr<std::vector<std::string>> logs = std::make_shared<std::vector<std::string>>();
  gp::mcp::Server server;

  explicit Harness(gp::mcp::ServerOptions options = {}) : server(with_log(std::move(options), logs)) {}
  Harness(gp::Session& session, gp::mcp::ServerOptions options = {})
      : server(session, with_log(std::move(options), logs)) {}

  static gp::mcp::ServerOptions with_log(gp::mcp::ServerOptions o, std::shared_ptr<std::vector<std::string>> logs) {
    o.log = [logs](std::string_view line) { logs->emplace_back(line); };
    o.verbose = true;  // the tests read the routine events too
    return o;
  }

  // Feeds `input` to serve(); every line written to the output must be one JSON-RPC 2.0
  // response object, or the test fails.
  Transcript run(const std::string& input) {
    std::istringstream in(input);
    std::ostringstream out;
    logs->clear();
    server.serve(in, out);
    Transcript t;
    t.logs = *logs;
    std::istringstream lines(out.str());
    std::string line;
    while (std::getline(lines, line)) {
      const auto j = ojson::parse(line, nullptr, false);
      INFO("stdout line: " << line.substr(0, 200));
      REQUIRE_FALSE(j.is_discarded());
      REQUIRE(j.is_object());
      REQUIRE(j["jsonrpc"] == "2.0");
      REQUIRE(j.contains("id"));
      REQUIRE((j.contains("result") != j.contains("error")));
      t.replies.push_back(j);
    }
    CHECK((out.str().empty() || out.str().back() == '\n'));
    return t;
  }
};

inline std::string request(int id, const std::string& method, const ojson& params = nullptr) {
  ojson r{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) r["params"] = params;
  return r.dump() + "\n";
}

inline std::string call(int id, const std::string& tool, const ojson& arguments) {
  return request(id, "tools/call", {{"name", tool}, {"arguments", arguments}});
}

inline const ojson seed_ranking = ojson::parse(R"({
  "name": "campaign_ctr",
  "scores": {"north": 0.0412, "harbour": 0.0455, "delta": 0.0301},
  "key": "ctr",
  "tool": "warehouse.query",
  "args": {"table": "campaign_daily", "window": "7d"}
})");

inline const ojson seed_check = ojson::parse(R"({"check": "superlative", "fact": "campaign_ctr"})");

inline ojson check_args(const ojson& output, ojson checks = ojson::array({seed_check})) {
  return {{"facts", {"campaign_ctr"}}, {"checks", std::move(checks)}, {"output", output}};
}

inline const std::string seed_message =
    "unsupported claim in field 'winner': model said 'north', registered facts support 'harbour'\n"
    "| fact='campaign_ctr'\n"
    "| provenance=warehouse.query(table='campaign_daily', window='7d')\n"
    "| computed argmax on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412";

inline const std::string& text_of(const ojson& reply) {
  return reply["result"]["content"][0]["text"].get_ref<const std::string&>();
}

}  // namespace mcp_test
