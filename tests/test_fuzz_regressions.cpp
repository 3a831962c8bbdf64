// Regressions for bugs the fuzz harnesses (fuzz/) found. Each case names the behaviour
// that failed; the input that found it is also kept in that harness's corpus as
// fuzz/corpus/<harness>/regress_*.
#include <sstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/decimal.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/mcp/record.hpp"
#include "groundplane/mcp/server.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;

// Found by fuzz/decimal_parse.cpp: "123456789012340000123400000e6144" parsed, but
// to_string() drops the trailing zeros and printed "1.234567890123400001234e+6170",
// whose last digit lies at 10^6149 — text parse refused.
TEST_CASE("every number parse accepts prints back as text parse accepts") {
  for (const char* text : {"12e6144", "1e6144", "9.9e6144", "-1e-6144", "1000e-6144", "0e6144", "0.000e-6141"}) {
    INFO(text);
    const gp::Decimal d = gp::Decimal::parse(text);
    CHECK(gp::Decimal::parse(d.to_string()) == d);
  }
}

TEST_CASE("a number whose trailing zeros carry its last nonzero digit past the exponent limit is refused") {
  CHECK_THROWS_AS(gp::Decimal::parse("123456789012340000123400000e6144"), gp::InvalidNumber);
  CHECK_THROWS_AS(gp::Decimal::parse("1200e6144"), gp::InvalidNumber);
  CHECK_THROWS_AS(gp::Decimal::parse("10e6144"), gp::InvalidNumber);
  CHECK_THROWS_WITH(gp::Decimal::parse("10e6144"), Catch::Contains("last nonzero digit"));
  CHECK_NOTHROW(gp::Decimal::parse("1e6144"));
  CHECK_NOTHROW(gp::Decimal::parse("0.10e6145"));  // written at 10^6143, last nonzero digit at 10^6144
}

// Found by fuzz/mcp_record.cpp: {"content": [{"type": 5, ...}]} made payload_of call
// basic_json::value("type", ""), which throws nlohmann's type_error for a non-string type,
// so a hostile tool result escaped as a JSON library exception instead of InvalidFact.
TEST_CASE("a content block whose type is not a string is refused as InvalidFact and never a JSON type error") {
  const gp::mcp::ToolCall call{.name = "warehouse.query"};
  for (const char* text : {R"({"content": [{"type": 5, "text": "1"}]})",
                           R"({"isError": true, "content": [{"type": {"t": 1}, "text": "x"}]})"}) {
    INFO(text);
    const auto result = nlohmann::ordered_json::parse(text);
    gp::FactRegistry reg;
    CHECK_THROWS_AS(gp::mcp::payload(result), gp::InvalidFact);
    CHECK_THROWS_AS(gp::mcp::record_fact(reg, "x", call, result), gp::InvalidFact);
    CHECK(reg.size() == 0);
  }
  // A well-typed text block beside a malformed one is still the data.
  const auto mixed = nlohmann::ordered_json::parse(R"({"content": [{"type": 7}, {"type": "text", "text": "42"}]})");
  CHECK(gp::mcp::payload(mixed) == 42);
}

// Found while extending fuzz/mcp_server.cpp (its app now has a handler that does this): a
// handler that threw something other than a std::exception (throw 42;) escaped the
// server's agent_call, which caught only std::exception, and terminated the server
// mid-conversation.
TEST_CASE("a handler throwing a non-standard exception is a tool error and the MCP server keeps serving") {
  gp::Session app;
  app.declare("legacy.call", {.does = "Call the legacy system.",
                              .handler = [](const nlohmann::json&) -> gp::HandlerResult { throw 42; }});
  gp::mcp::Server server(app, {.log = [](std::string_view) {}});
  std::istringstream in(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"do_action","arguments":{"action":"legacy.call"}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
      "\n");
  std::ostringstream out;
  server.serve(in, out);
  std::istringstream lines(out.str());
  std::string first, second;
  REQUIRE(std::getline(lines, first));
  REQUIRE(std::getline(lines, second));
  const auto call = nlohmann::json::parse(first);
  CHECK(call["id"] == 1);
  CHECK(call["result"]["isError"] == true);
  CHECK(call["result"]["content"][0]["text"] == "the app failed while serving do_action: a non-standard exception");
  CHECK(nlohmann::json::parse(second) ==
        nlohmann::json{{"jsonrpc", "2.0"}, {"id", 2}, {"result", nlohmann::json::object()}});
  const auto v = app.view();
  REQUIRE(v.transitions().size() == 1);
  CHECK(v.transitions()[0].outcome == gp::Outcome::handler_failed);
}
