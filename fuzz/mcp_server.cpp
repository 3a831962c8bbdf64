// Fuzz gp::mcp::Server with arbitrary byte streams on its input, serving the checker
// tools and a small app's agent tools (two actions' handlers throw, one of them something
// that is not a std::exception; one needs a person's approval). Beyond "no crash":
//   * stdout is always valid JSON-RPC: every line parses, is an object with
//     "jsonrpc": "2.0", and carries an id (string, integer or null) with exactly one of
//     result / error — or is a notification (the server sends none, so any is a bug);
//   * an error has an integer code from JSON-RPC's set and a string message;
//   * every stdout line is valid UTF-8 with no raw control bytes;
//   * there is at most one reply per input line;
//   * every log line is one line, with no raw control bytes.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "groundplane/mcp/server.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using ojson = nlohmann::ordered_json;

namespace {

void declare_app(gp::Session& s) {
  const auto ok = [](const nlohmann::json&) { return gp::HandlerResult{}; };
  s.declare("cart.add", {.does = "Add an item to the cart.", .writes = {"cart"}, .handler = ok});
  s.declare("cart.clear", {.does = "Empty the cart.", .handler = ok});
  s.declare("checkout.place-order",
            {.does = "Place the order.", .writes = {"order_id"}, .handler = ok, .high_effect = true});
  s.declare("app.crash",
            {.does = "An action whose handler throws.", .handler = [](const nlohmann::json&) -> gp::HandlerResult {
               throw std::runtime_error("handler exploded\n\x1b[31mwith hostile text");
             }});
  s.declare("app.crash-odd", {.does = "An action whose handler throws something that is not a std::exception.",
                              .handler = [](const nlohmann::json&) -> gp::HandlerResult { throw 42; }});
  s.declare("tour.next", {.does = "A step nothing performs."});
  s.declare("gated.off", {.does = "Disabled here.", .handler = ok, .enabled_when = [](const nlohmann::json& st) {
                            return st.contains("never");
                          }});
}

bool known_error_code(const ojson& code) {
  if (!code.is_number_integer()) return false;
  const auto c = code.get<long long>();
  return c == -32700 || c == -32600 || c == -32601 || c == -32602 || c == -32603;
}

// The texts inside a reply that are messages — read by a person or handed to a model —
// must be as clean as any message; the rest is data, carried verbatim as JSON.
void check_messages_in(const ojson& msg, const std::string& line) {
  if (msg.contains("error")) {
    fuzz::check_text(msg["error"]["message"].get<std::string>(), false, "a JSON-RPC error message");
    return;
  }
  const ojson& result = msg["result"];
  if (result.value("isError", false)) {
    for (const auto& block : result["content"])
      fuzz::check_text(block["text"].get<std::string>(), true, "a tool error's text");
    return;
  }
  const auto sc = result.find("structuredContent");
  if (sc == result.end() || !sc->is_object()) return;
  if (const auto f = sc->find("findings"); f != sc->end())
    for (const auto& finding : *f) fuzz::check_text(finding["message"].get<std::string>(), true, "a finding's message");
  for (const char* key : {"correction", "facts", "message"})
    if (const auto t = sc->find(key); t != sc->end() && t->is_string())
      fuzz::check_text(t->get<std::string>(), true, std::string("the result's ") + key);
  (void)line;
}

void check_reply_line(const std::string& line) {
  fuzz::check_text(line, false, "a stdout line", false);
  const ojson msg = fuzz::parse_json<ojson>(line);
  FUZZ_CHECK(!msg.is_discarded(), "every stdout line parses as JSON", line);
  FUZZ_CHECK(msg.is_object(), "every stdout line is a JSON-RPC object", line);
  FUZZ_CHECK(msg.contains("jsonrpc") && msg["jsonrpc"] == "2.0", "every stdout line has \"jsonrpc\": \"2.0\"", line);
  if (!msg.contains("id")) {
    const auto m = msg.find("method");
    FUZZ_CHECK(m != msg.end() && m->is_string() && m->get<std::string>().rfind("notifications/", 0) == 0,
               "a stdout line without an id is a notification", line);
    return;
  }
  const ojson& id = msg["id"];
  FUZZ_CHECK(id.is_string() || id.is_number_integer() || id.is_null(), "an id is a string, an integer or null", line);
  const bool has_result = msg.contains("result");
  const bool has_error = msg.contains("error");
  FUZZ_CHECK(has_result != has_error, "a response has exactly one of result and error", line);
  if (has_result) {
    FUZZ_CHECK(msg["result"].is_object(), "a result is an object", line);
  } else {
    const ojson& e = msg["error"];
    FUZZ_CHECK(e.is_object() && e.contains("code") && known_error_code(e["code"]),
               "an error carries a JSON-RPC error code", line);
    FUZZ_CHECK(e.contains("message") && e["message"].is_string(), "an error carries a string message", line);
    FUZZ_CHECK(id.is_null() || e["code"] != -32700, "a parse error cannot name the request's id", line);
  }
  check_messages_in(msg, line);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  gp::Session session({.node = "checkout", .require_human_approval = true});
  declare_app(session);
  std::vector<std::string> logs;
  gp::mcp::Server server(session, {.max_line_bytes = 2048, .max_depth = 64, .log = [&](std::string_view line) {
                                     logs.emplace_back(line);
                                   }});
  std::istringstream in(input);
  std::ostringstream out;
  server.serve(in, out);

  const std::string written = out.str();
  FUZZ_CHECK(written.empty() || written.back() == '\n', "every reply ends with a newline", written);
  std::size_t replies = 0;
  for (std::size_t start = 0; start < written.size();) {
    const std::size_t end = written.find('\n', start);
    check_reply_line(written.substr(start, end - start));
    ++replies;
    start = end + 1;
  }
  std::size_t lines = input.empty() ? 0 : 1;
  for (const char c : input) lines += c == '\n';
  FUZZ_CHECK(replies <= lines, "at most one reply per input line", written);
  for (const auto& l : logs) fuzz::check_text(l, false, "a log line");
  return 0;
}
