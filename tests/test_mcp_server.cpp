// gp::mcp::Server driven over string streams: the protocol, the checker tools, and the
// bad input a stdio server meets in the wild.
#include "catch2_compat.hpp"

#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <sstream>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include <groundplane/any_check.hpp>
#include <groundplane/boundary.hpp>
#include <groundplane/check_from_json.hpp>
#include <groundplane/mcp/server.hpp>
#include <groundplane/session.hpp>
#include <groundplane/verdict.hpp>

namespace gp = groundplane;
using ojson = nlohmann::ordered_json;

namespace {

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

std::string request(int id, const std::string& method, const ojson& params = nullptr) {
  ojson r{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) r["params"] = params;
  return r.dump() + "\n";
}

std::string call(int id, const std::string& tool, const ojson& arguments) {
  return request(id, "tools/call", {{"name", tool}, {"arguments", arguments}});
}

const ojson seed_ranking = ojson::parse(R"({
  "name": "campaign_ctr",
  "scores": {"north": 0.0412, "harbour": 0.0455, "delta": 0.0301},
  "key": "ctr",
  "tool": "warehouse.query",
  "args": {"table": "campaign_daily", "window": "7d"}
})");

const ojson seed_check = ojson::parse(R"({"check": "superlative", "fact": "campaign_ctr"})");

ojson check_args(const ojson& output, ojson checks = ojson::array({seed_check})) {
  return {{"facts", {"campaign_ctr"}}, {"checks", std::move(checks)}, {"output", output}};
}

const std::string seed_message =
    "unsupported claim in field 'winner': model said 'north', registered facts support 'harbour'\n"
    "| fact='campaign_ctr'\n"
    "| provenance=warehouse.query(table='campaign_daily', window='7d')\n"
    "| computed argmax on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412";

const std::string& text_of(const ojson& reply) {
  return reply["result"]["content"][0]["text"].get_ref<const std::string&>();
}

// A stream buffer that yields `size` bytes of 'x' and then "\n" + tail, without holding them.
class Flood : public std::streambuf {
 public:
  Flood(std::size_t size, std::string tail) : left_(size), tail_(std::move(tail)) { chunk_.assign(64 * 1024, 'x'); }

 protected:
  int_type underflow() override {
    if (left_ > 0) {
      const std::size_t n = left_ < chunk_.size() ? left_ : chunk_.size();
      left_ -= n;
      setg(chunk_.data(), chunk_.data(), chunk_.data() + n);
      return traits_type::to_int_type(chunk_[0]);
    }
    if (!tail_done_) {
      tail_done_ = true;
      tail_ = "\n" + tail_;
      setg(tail_.data(), tail_.data(), tail_.data() + tail_.size());
      return traits_type::to_int_type(tail_[0]);
    }
    return traits_type::eof();
  }

 private:
  std::size_t left_;
  std::string tail_;
  std::string chunk_;
  bool tail_done_ = false;
};

// Input that arrives one chunk per read, as from a client that sends its next request
// only after it has its answer; notes how much output had been flushed at each read.
class Chunked : public std::streambuf {
 public:
  Chunked(std::vector<std::string> chunks, const std::function<std::size_t()>& flushed)
      : chunks_(std::move(chunks)), flushed_(flushed) {}
  std::vector<std::size_t> flushed_at_read;

 protected:
  int_type underflow() override {
    flushed_at_read.push_back(flushed_());
    if (next_ == chunks_.size()) return traits_type::eof();
    std::string& c = chunks_[next_++];
    setg(c.data(), c.data(), c.data() + c.size());
    return traits_type::to_int_type(c[0]);
  }

 private:
  std::vector<std::string> chunks_;
  std::size_t next_ = 0;
  std::function<std::size_t()> flushed_;
};

// Output that remembers how many bytes it held at each flush.
class Flushes : public std::stringbuf {
 public:
  std::vector<std::size_t> at;
  std::size_t flushed() const { return at.empty() ? 0 : at.back(); }

 protected:
  int sync() override {
    at.push_back(str().size());
    return 0;
  }
};

// A stream buffer that keeps no bytes of its own, as std::cin does while synchronized
// with C stdio: every character is a call.
class Unbuffered : public std::streambuf {
 public:
  explicit Unbuffered(std::string text) : text_(std::move(text)) {}

 protected:
  int_type underflow() override {
    return at_ < text_.size() ? traits_type::to_int_type(text_[at_]) : traits_type::eof();
  }
  int_type uflow() override { return at_ < text_.size() ? traits_type::to_int_type(text_[at_++]) : traits_type::eof(); }

 private:
  std::string text_;
  std::size_t at_ = 0;
};

// One that can hand out a character but not show the next one first (only uflow).
class NoPeek : public std::streambuf {
 public:
  explicit NoPeek(std::string text) : text_(std::move(text)) {}

 protected:
  int_type uflow() override { return at_ < text_.size() ? traits_type::to_int_type(text_[at_++]) : traits_type::eof(); }

 private:
  std::string text_;
  std::size_t at_ = 0;
};

// The two line readers: stdio::read_line, which takes nothing past the newline, and
// stdio::LineReader (what Server::serve uses), which takes blocks and keeps the rest for
// its next call. Every framing test runs on both: they must read the same lines.
enum class Reader { byte_at_a_time, block };
const char* name_of(Reader r) { return r == Reader::block ? "LineReader" : "read_line"; }

struct Lines {
  Reader kind;
  gp::mcp::stdio::LineReader block{};
  template <class BeforeWait = gp::mcp::stdio::NoWait>
  gp::mcp::stdio::LineRead operator()(std::streambuf& in, std::string& line, std::size_t max,
                                      BeforeWait&& before_wait = {}) {
    return kind == Reader::block ? block.next(in, line, max, before_wait)
                                 : gp::mcp::stdio::read_line(in, line, max, before_wait);
  }
};
constexpr Reader both_readers[] = {Reader::byte_at_a_time, Reader::block};

}  // namespace

TEST_CASE("initialize answers the client's protocol version when it is supported") {
  Harness h;
  for (const char* v : {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}) {
    const auto t = h.run(request(1, "initialize",
                                 {{"protocolVersion", v},
                                  {"capabilities", ojson::object()},
                                  {"clientInfo", {{"name", "test"}, {"version", "1"}}}}));
    REQUIRE(t.replies.size() == 1);
    const auto& r = t.replies[0]["result"];
    CHECK(r["protocolVersion"] == v);
    CHECK(r["capabilities"]["tools"].is_object());
    CHECK(r["serverInfo"]["name"] == "groundplane-mcp");
    CHECK(r["serverInfo"]["version"] == gp::version_string);
    CHECK(h.server.protocol_version() == v);
  }
}

TEST_CASE("initialize offers the newest supported version when the client's is unknown") {
  Harness h;
  const auto t =
      h.run(request(7, "initialize", {{"protocolVersion", "2099-01-01"}, {"capabilities", ojson::object()}}));
  CHECK(t.reply_to(7)["result"]["protocolVersion"] == "2025-11-25");
  CHECK(t.logged("answering with 2025-11-25"));
}

TEST_CASE("revision 2025-11-25 is the newest served and comes first in the negotiation") {
  CHECK(gp::mcp::protocol_versions.front() == "2025-11-25");
  Harness h;
  const auto t =
      h.run(request(1, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", ojson::object()}}));
  CHECK(t.reply_to(1)["result"]["protocolVersion"] == "2025-11-25");
  CHECK_FALSE(t.logged("revision"));
}

TEST_CASE("without verbose a revision fallback and other routine events log nothing but problems still do") {
  std::vector<std::string> logs;
  gp::mcp::Server quiet({.log = [&logs](std::string_view l) { logs.emplace_back(l); }});
  CHECK(quiet.handle_line(request(1, "initialize", {{"protocolVersion", "2024-01-01"}})));
  CHECK_FALSE(quiet.handle_line(R"({"jsonrpc":"2.0","method":"notifications/whatever"})"));
  CHECK(quiet.handle_line("not json"));
  CHECK(quiet.handle_line(request(2, "resources/list")));
  CHECK(logs.empty());

  gp::Session app({.node = "n"});
  app.declare("boom", {.does = "fails", .handler = [](const nlohmann::json&) -> gp::HandlerResult {
                         throw std::runtime_error("disk full");
                       }});
  gp::mcp::Server with_app(app, {.log = [&logs](std::string_view l) { logs.emplace_back(l); }});
  const auto r = with_app.handle_line(call(3, "do_action", {{"action", "boom"}}));
  REQUIRE(r);
  REQUIRE(logs.size() == 1);
  CHECK(logs[0].find("disk full") != std::string::npos);
}

TEST_CASE("every tool has a title and all four annotations, and only the reading tools are read-only") {
  gp::Session app({.node = "n"});
  Harness h(app);
  const auto t = h.run(request(1, "tools/list"));
  const auto& tools = t.reply_to(1)["result"]["tools"];
  REQUIRE(tools.size() == 9);
  for (const auto& tool : tools) {
    const std::string name = tool["name"];
    INFO(name);
    CHECK_FALSE(tool["title"].get<std::string>().empty());
    const auto& a = tool["annotations"];
    for (const char* hint : {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
      CHECK(a[hint].is_boolean());
    const bool reads = name == "check" || name == "list_facts" || name == "whats_here";
    CHECK(a["readOnlyHint"] == reads);
    CHECK(a["destructiveHint"] == (name == "do_action"));
    CHECK(a["idempotentHint"] == (name != "do_action"));
  }
}

TEST_CASE("initialize without a string protocolVersion is invalid params") {
  Harness h;
  const auto t = h.run(request(1, "initialize", {{"protocolVersion", 20250618}}) + request(2, "initialize"));
  CHECK(t.reply_to(1)["error"]["code"] == -32602);
  CHECK(t.reply_to(2)["error"]["code"] == -32602);
  CHECK(h.server.protocol_version().empty());
}

TEST_CASE("the initialized notification and other notifications are never answered") {
  Harness h;
  const auto t = h.run(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                       "\n"
                       R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})"
                       "\n" +
                       request(9, "ping"));
  REQUIRE(t.replies.size() == 1);
  CHECK(t.replies[0]["id"] == 9);
  CHECK(t.replies[0]["result"] == ojson::object());
  CHECK(h.server.initialized());
}

TEST_CASE("tools/list gives every checker tool with an input schema and an output schema") {
  Harness h;
  const auto t = h.run(request(1, "tools/list"));
  const auto& tools = t.reply_to(1)["result"]["tools"];
  std::vector<std::string> names;
  for (const auto& tool : tools) {
    names.push_back(tool["name"]);
    CHECK(tool["inputSchema"]["type"] == "object");
    CHECK(tool["outputSchema"]["type"] == "object");
    CHECK_FALSE(tool["description"].get<std::string>().empty());
  }
  CHECK(names == std::vector<std::string>{"record_fact", "record_ranking", "record_table", "record_domain",
                                          "list_facts", "check"});
}

TEST_CASE("the seed's wrong winner comes back as a normal result with the four-line message and a correction") {
  Harness h;
  const auto t = h.run(call(1, "record_ranking", seed_ranking) + call(2, "check", check_args({{"winner", "north"}})));
  const auto& recorded = t.reply_to(1)["result"];
  CHECK(recorded["isError"] == false);
  CHECK(recorded["structuredContent"] == ojson::parse(R"({"recorded": "campaign_ctr", "kind": "ranking",
                         "provenance": {"tool": "warehouse.query", "args": {"table": "campaign_daily", "window": "7d"}},
                         "size": 3})"));

  const auto& checked = t.reply_to(2)["result"];
  CHECK(checked["isError"] == false);
  const auto& sc = checked["structuredContent"];
  CHECK(sc["ok"] == false);
  REQUIRE(sc["findings"].size() == 1);
  const auto& f = sc["findings"][0];
  CHECK(f["message"] == seed_message);
  CHECK(f["check"] == "superlative");
  CHECK(f["field"] == "winner");
  CHECK(f["said"] == "'north'");
  CHECK(f["supported"] == "'harbour'");
  CHECK(f["fact"] == "campaign_ctr");
  CHECK(f["provenance"] == "warehouse.query(table='campaign_daily', window='7d')");
  CHECK(f["detail"] == "computed argmax on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412");
  CHECK(sc["correction"].get<std::string>().find("you said 'north'; the facts support 'harbour'") != std::string::npos);
  CHECK(text_of(t.reply_to(2)) == sc["correction"]);
}

TEST_CASE("the right winner is accepted and the text block says so") {
  Harness h;
  const auto t = h.run(call(1, "record_ranking", seed_ranking) +
                       call(2, "check", check_args({{"winner", "harbour"}, {"score", 0.0455}})));
  const auto& r = t.reply_to(2)["result"];
  CHECK(r["structuredContent"]["ok"] == true);
  CHECK(r["structuredContent"]["findings"].empty());
  CHECK(r["structuredContent"]["correction"] == "");
  CHECK(text_of(t.reply_to(2)) == "accepted");
}

TEST_CASE("prose handed to check is an unsupported claim and not an error") {
  Harness h;
  const auto t = h.run(call(1, "record_ranking", seed_ranking) + call(2, "check", check_args("north won")));
  const auto& r = t.reply_to(2)["result"];
  CHECK(r["isError"] == false);
  CHECK(r["structuredContent"]["ok"] == false);
  CHECK(r["structuredContent"]["findings"][0]["check"] == "structured_output");
}

TEST_CASE("a misconfigured check is a tool error carrying the configuration error's message") {
  Harness h;
  const auto t =
      h.run(call(1, "record_ranking", seed_ranking) +
            call(2, "record_fact", {{"name", "rows"}, {"value", 3}, {"tool", "warehouse.count"}}) +
            // a superlative over a scalar fact: a developer's bug, not the model's
            call(3, "check",
                 {{"facts", {"rows"}},
                  {"checks", {{{"check", "superlative"}, {"fact", "rows"}}}},
                  {"output", {{"winner", "north"}}}}) +
            // a check leaning on a fact the call did not name
            call(4, "check", {{"facts", ojson::array()}, {"checks", {seed_check}}, {"output", {{"winner", "north"}}}}));
  for (int id : {3, 4}) {
    const auto& r = t.reply_to(id)["result"];
    CHECK(r["isError"] == true);
    CHECK_FALSE(r.contains("structuredContent"));
  }
  CHECK(text_of(t.reply_to(3)) ==
        "superlative: fact 'rows' is a single value (a Fact); this check needs a Ranking (from record_ranking), or a "
        "Table (from record_table) with .column set to the column to rank it by");
  CHECK(text_of(t.reply_to(4)).find("which this boundary does not name") != std::string::npos);
  CHECK(t.logged("tool 'check' returned an error"));
}

TEST_CASE("checks built from JSON specs run together and report every finding") {
  Harness h;
  const auto t = h.run(call(1, "record_ranking", seed_ranking) +
                       call(2, "record_domain",
                            {{"name", "campaigns"}, {"members", {"north", "harbour", "delta"}}, {"tool", "crm.list"}}) +
                       call(3, "check",
                            {{"facts", {"campaign_ctr", "campaigns"}},
                             {"checks", ojson::parse(R"([{"check": "superlative", "fact": "campaign_ctr"},
                                        {"check": "ranking_prefix", "fact": "campaign_ctr", "k": 2},
                                        {"check": "entities_recorded", "facts": ["campaigns"], "fields": ["winner", "top"]}])")},
                             {"output", {{"winner", "harbour"}, {"top", {"harbour", "nort"}}}}}));
  const auto& sc = t.reply_to(3)["result"]["structuredContent"];
  CHECK(t.reply_to(3)["result"]["isError"] == false);
  CHECK(sc["ok"] == false);
  std::vector<std::string> checks;
  for (const auto& f : sc["findings"]) checks.push_back(f["check"]);
  // 'nort' is both out of the computed order and a name nobody recorded.
  CHECK(checks == std::vector<std::string>{"ranking_prefix", "entities_recorded"});
  CHECK(sc["findings"][1]["message"].get<std::string>().find("'north'") != std::string::npos);  // the closest name
}

TEST_CASE("a check spec that describes no check is a tool error with the builder's message") {
  Harness h;
  const auto t = h.run(
      call(1, "record_ranking", seed_ranking) +
      call(2, "check",
           check_args({{"winner", "north"}}, ojson::parse(R"([{"check": "superlativ", "fact": "campaign_ctr"}])"))) +
      call(3, "check",
           check_args({{"winner", "north"}},
                      ojson::parse(R"([{"check": "superlative", "fact": "campaign_ctr", "pick": "biggest"}])"))));
  for (int id : {2, 3}) {
    INFO("id " << id);
    CHECK(t.reply_to(id)["result"]["isError"] == true);
    CHECK(text_of(t.reply_to(id)).rfind("check_from_json: ", 0) == 0);
  }
  CHECK(text_of(t.reply_to(2)).find("unknown check 'superlativ'") != std::string::npos);
}

TEST_CASE("a check naming a fact nobody recorded is a tool error and the recorded facts are untouched") {
  Harness h;
  const auto t = h.run(call(1, "record_ranking", seed_ranking) +
                       call(2, "check",
                            {{"facts", {"campaign_cvr"}},
                             {"checks", {{{"check", "superlative"}, {"fact", "campaign_cvr"}}}},
                             {"output", {{"winner", "north"}}}}) +
                       call(3, "list_facts", ojson::object()));
  CHECK(t.reply_to(2)["result"]["isError"] == true);
  CHECK(text_of(t.reply_to(2)) ==
        "the boundary names a fact that is not recorded: no fact named 'campaign_cvr' is "
        "recorded; recorded: 'campaign_ctr'");
  const auto& facts = t.reply_to(3)["result"]["structuredContent"]["facts"];
  REQUIRE(facts.size() == 1);
  CHECK(facts["campaign_ctr"]["order"][0]["entity"] == "harbour");
}

TEST_CASE("a second record under the same name is a tool error naming the first one's provenance") {
  Harness h;
  ojson again = seed_ranking;
  again["scores"] = {{"north", 0.9}};
  again["tool"] = "other.query";
  const auto t = h.run(call(1, "record_ranking", seed_ranking) + call(2, "record_ranking", again) +
                       call(3, "check", check_args({{"winner", "harbour"}})));
  CHECK(t.reply_to(2)["result"]["isError"] == true);
  CHECK(text_of(t.reply_to(2)) ==
        "fact 'campaign_ctr' is already recorded (from warehouse.query(table='campaign_daily', window='7d')); facts "
        "are write-once: record a changed value under a new name");
  CHECK(t.reply_to(3)["result"]["structuredContent"]["ok"] == true);
}

TEST_CASE("the call's argument order is kept in the provenance a finding shows") {
  Harness h;
  ojson ranking = seed_ranking;
  ranking["args"] = ojson::parse(R"({"window": "7d", "table": "campaign_daily"})");
  const auto t = h.run(call(1, "record_ranking", ranking) + call(2, "check", check_args({{"winner", "north"}})) +
                       call(3, "list_facts", ojson::object()));
  CHECK(t.reply_to(2)["result"]["structuredContent"]["findings"][0]["provenance"] ==
        "warehouse.query(window='7d', table='campaign_daily')");
  const auto& args = t.reply_to(3)["result"]["structuredContent"]["facts"]["campaign_ctr"]["provenance"]["args"];
  CHECK(args.begin().key() == "window");
}

TEST_CASE("each record tool records its kind and list_facts shows all of them in record order") {
  Harness h;
  const auto t = h.run(
      call(1, "record_fact", {{"name", "n"}, {"value", 12}, {"tool", "t"}}) + call(2, "record_ranking", seed_ranking) +
      call(3, "record_table",
           {{"name", "daily"},
            {"rows", ojson::parse(R"([{"campaign": "north", "ctr": 0.0412}, {"campaign": "delta", "ctr": 0.0301}])")},
            {"key_column", "campaign"},
            {"total_rows", 40},
            {"tool", "warehouse.query"},
            {"args", {{"limit", 2}}}}) +
      call(4, "record_domain",
           {{"name", "campaigns"}, {"members", {"north", "harbour", "delta"}}, {"tool", "crm.list"}}) +
      call(5, "record_ranking",
           {{"name", "cpa"},
            {"scores", {{"a", 3}, {"b", 2}}},
            {"key", "cpa"},
            {"direction", "lower_is_better"},
            {"tool", "t"}}) +
      call(6, "list_facts", ojson::object()));
  for (int id = 1; id <= 5; ++id) CHECK(t.reply_to(id)["result"]["isError"] == false);
  CHECK(t.reply_to(3)["result"]["structuredContent"]["size"] == 2);
  const auto& facts = t.reply_to(6)["result"]["structuredContent"]["facts"];
  std::vector<std::string> names;
  for (auto it = facts.begin(); it != facts.end(); ++it) names.push_back(it.key());
  CHECK(names == std::vector<std::string>{"n", "campaign_ctr", "daily", "campaigns", "cpa"});
  CHECK(facts["n"]["value"] == 12);
  CHECK(facts["daily"]["complete"] == false);
  CHECK(facts["daily"]["total_rows"] == 40);
  CHECK(facts["campaigns"]["members"].size() == 3);
  CHECK(facts["cpa"]["order"][0]["entity"] == "b");
  CHECK(ojson::parse(text_of(t.reply_to(6))) == t.reply_to(6)["result"]["structuredContent"]);
}

TEST_CASE("a recorded table keeps the caller's column order in list_facts") {
  Harness h;
  const auto t = h.run(call(1, "record_table",
                            {{"name", "daily"},
                             {"rows", ojson::parse(R"([{"ctr": 0.0412, "campaign": "north"}])")},
                             {"tool", "warehouse.query"}}) +
                       call(2, "list_facts", ojson::object()));
  const auto& daily = t.reply_to(2)["result"]["structuredContent"]["facts"]["daily"];
  CHECK(daily["columns"] == ojson::array({"ctr", "campaign"}));
  CHECK(daily["rows"][0].begin().key() == "ctr");
  CHECK(h.server.registry().get<gp::Table>("daily").columns() == std::vector<std::string>{"ctr", "campaign"});
}

TEST_CASE("tool arguments of the wrong shape are tool errors that say which argument") {
  Harness h;
  ojson scores_array = seed_ranking;
  scores_array["scores"] = {0.1, 0.2};
  ojson bad_score = seed_ranking;
  bad_score["scores"]["north"] = "4.12%";
  ojson typo = seed_ranking;
  typo["directon"] = "lower_is_better";
  ojson bad_direction = seed_ranking;
  bad_direction["direction"] = "lower";
  const auto t =
      h.run(call(1, "record_ranking", scores_array) + call(2, "record_ranking", bad_score) +
            call(3, "record_ranking", typo) + call(4, "record_ranking", bad_direction) +
            call(5, "record_table", {{"name", "t"}, {"rows", ojson::array()}, {"total_rows", -3}, {"tool", "x"}}) +
            call(6, "record_fact", {{"name", "f"}, {"value", {{"a", 1}}}, {"tool", ""}}) +
            call(7, "check", {{"facts", {"x"}}, {"checks", ojson::array()}, {"output", ojson::object()}}) +
            call(8, "record_fact", {{"name", "f"}, {"tool", "x"}}));
  const std::vector<std::string> expected = {
      "invalid arguments: record_ranking: 'scores' must be an object {entity: number}, got an array",
      "invalid arguments: record_ranking: the score of 'north' must be a number, got a string",
      "invalid arguments: record_ranking has no argument 'directon'; its arguments are name, scores, key, direction, "
      "tool, args",
      "invalid arguments: record_ranking: \"direction\" must be \"higher_is_better\" or \"lower_is_better\", got "
      "'lower'",
      "invalid arguments: record_table: 'total_rows' must be a non-negative integer, got a number",
      "cannot record fact 'f': provenance needs the tool that produced it; tool is empty",
      "invalid arguments: check: \"checks\" is empty; a check that checks nothing would accept anything",
      "invalid arguments: record_fact needs 'value' (any JSON value)"};
  for (int id = 1; id <= 8; ++id) {
    INFO("id " << id);
    CHECK(t.reply_to(id)["result"]["isError"] == true);
    CHECK(text_of(t.reply_to(id)) == expected[static_cast<std::size_t>(id - 1)]);
  }
  CHECK(h.server.registry().size() == 0);
}

TEST_CASE("a malformed JSON line is a parse error with a null id and the next line is served") {
  Harness h;
  const auto t = h.run("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"\n" + request(2, "ping"));
  REQUIRE(t.replies.size() == 2);
  CHECK(t.replies[0]["id"].is_null());
  CHECK(t.replies[0]["error"]["code"] == -32700);
  CHECK(t.reply_to(2)["result"] == ojson::object());
}

TEST_CASE("a request without an id is a notification: never answered and never run") {
  Harness h;
  const auto t = h.run(
      R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"record_fact","arguments":{"name":"f","value":1,"tool":"t"}}})"
      "\n" +
      request(2, "ping"));
  REQUIRE(t.replies.size() == 1);
  CHECK(t.replies[0]["id"] == 2);
  CHECK(t.logged("'tools/call' sent without an id"));
  CHECK_FALSE(h.server.registry().contains("f"));
}

TEST_CASE("an unknown method is method not found with the request's id") {
  Harness h;
  const auto t = h.run(request(5, "resources/list") + R"({"jsonrpc":"2.0","id":"s-1","method":"tools/destroy"})"
                                                      "\n");
  CHECK(t.reply_to(5)["error"]["code"] == -32601);
  CHECK(t.reply_to("s-1")["error"]["code"] == -32601);
  CHECK(t.reply_to("s-1")["error"]["message"] == "Method not found: 'tools/destroy'");
}

TEST_CASE("params of the wrong type are invalid params") {
  Harness h;
  const auto t = h.run(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":["check"]})"
                       "\n"
                       R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":42}})"
                       "\n"
                       R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"check","arguments":"all"}})"
                       "\n"
                       R"({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":7}})"
                       "\n"
                       R"({"jsonrpc":"2.0","id":5,"method":"tools/call"})"
                       "\n");
  for (int id = 1; id <= 5; ++id) {
    INFO("id " << id);
    CHECK(t.reply_to(id)["error"]["code"] == -32602);
  }
}

TEST_CASE("tools/call for an unknown tool is invalid params naming the tool") {
  Harness h;
  const auto t = h.run(call(1, "rm_rf", ojson::object()) + call(2, "whats_here", ojson::object()));
  CHECK(t.reply_to(1)["error"]["code"] == -32602);
  CHECK(t.reply_to(1)["error"]["message"] == "Unknown tool: 'rm_rf'");
  // Without a session the agent tools do not exist.
  CHECK(t.reply_to(2)["error"]["code"] == -32602);
}

TEST_CASE("a notification method sent with an id is an invalid request") {
  Harness h;
  const auto t = h.run(R"({"jsonrpc":"2.0","id":3,"method":"notifications/initialized"})"
                       "\n");
  CHECK(t.reply_to(3)["error"]["code"] == -32600);
  CHECK_FALSE(h.server.initialized());
}

TEST_CASE("messages that are not JSON-RPC 2.0 requests are invalid requests") {
  Harness h;
  const auto t = h.run(R"({"id":1,"method":"ping"})"
                       "\n"  // no jsonrpc
                       R"({"jsonrpc":"1.0","id":2,"method":"ping"})"
                       "\n"  // wrong version
                       R"({"jsonrpc":"2.0","id":3})"
                       "\n"  // no method
                       R"({"jsonrpc":"2.0","id":4,"method":7})"
                       "\n"  // method not a string
                       R"({"jsonrpc":"2.0","id":null,"method":"ping"})"
                       "\n"  // null id
                       R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})"
                       "\n"  // fractional id
                       R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})"
                       "\n"  // structured id
                       R"([{"jsonrpc":"2.0","id":8,"method":"ping"}])"
                       "\n"  // a batch
                       "42\n"
                       R"({"jsonrpc":"2.0","id":10,"result":{}})"
                       "\n");  // a response: ignored
  REQUIRE(t.replies.size() == 9);
  for (const auto& r : t.replies) CHECK(r["error"]["code"] == -32600);
  CHECK(t.reply_to(2)["error"]["code"] == -32600);
  CHECK(t.reply_to(4)["error"]["code"] == -32600);
  CHECK(t.logged("ignored a response"));
}

TEST_CASE("binary garbage gets parse errors and never anything but JSON-RPC on stdout") {
  Harness h;
  std::string garbage;
  std::uint32_t x = 12345;
  for (int i = 0; i < 4096; ++i) {
    x = x * 1103515245u + 12345u;
    garbage.push_back(static_cast<char>((x >> 16) & 0xFF));
  }
  garbage += "\n\xFF\xFE\x00\x01{\"jsonrpc\":\"2.0\"\n";
  garbage += "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xC3\x28\"}\n";  // invalid UTF-8 in a string
  const auto t = h.run(call(100, "record_ranking", seed_ranking) + garbage +
                       call(101, "check", check_args({{"winner", "north"}})));
  REQUIRE(t.replies.size() >= 4);
  std::size_t parse_errors = 0;
  for (const auto& r : t.replies)
    if (r.contains("error") && r["error"]["code"] == -32700) ++parse_errors;
  CHECK(parse_errors > 0);
  std::size_t errors = 0;
  for (const auto& r : t.replies) errors += r.contains("error") ? 1u : 0u;
  CHECK(errors + 2 == t.replies.size());
  CHECK(t.reply_to(101)["result"]["structuredContent"]["findings"][0]["message"] == seed_message);
}

TEST_CASE("a 10 MB line is answered with an error and skipped and the server carries on") {
  Harness h;
  std::string big =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_fact","arguments":{"name":"big","tool":"t","value":")";
  big.append(10 * 1024 * 1024, 'a');
  big += "\"}}}\n";
  const auto t =
      h.run(call(0, "record_ranking", seed_ranking) + big + call(2, "check", check_args({{"winner", "harbour"}})));
  REQUIRE(t.replies.size() == 3);
  CHECK(t.replies[1]["id"].is_null());
  CHECK(t.replies[1]["error"]["code"] == -32600);
  CHECK(t.replies[1]["error"]["message"].get<std::string>().find("over this server's limit of 8388608") !=
        std::string::npos);
  CHECK(t.logged("skipped a " + std::to_string(big.size() - 1) + "-byte line"));
  CHECK_FALSE(h.server.registry().contains("big"));
  CHECK(t.reply_to(2)["result"]["structuredContent"]["ok"] == true);
}

TEST_CASE("an overlong line is consumed without being held in memory") {
  for (const Reader kind : both_readers) {
    INFO(name_of(kind));
    Flood flood(64 * 1024 * 1024, "after");
    Lines read{kind};
    std::string line;
    const auto r = read(flood, line, 1024);
    CHECK(r.too_long);
    CHECK(r.bytes == 64u * 1024 * 1024);
    CHECK(line.capacity() <= 2048);
    const auto next = read(flood, line, 1024);
    CHECK(line == "after");
    CHECK(next.end == gp::mcp::stdio::LineEnd::eof_after_text);
  }
}

TEST_CASE(
    "a line reads the same whatever the input buffer holds at a time: all of it, a byte, a split CRLF, nothing, no "
    "peeking") {
  const std::string long_line(3000, 'x');
  const std::string input = "abc\r\n\n" + long_line + "\n{\"a\":1}\r\ntail";
  struct Line {
    std::string text;
    gp::mcp::stdio::LineEnd end;
    std::size_t bytes;
    bool too_long;
    bool operator==(const Line&) const = default;
  };
  const auto read_all = [](std::streambuf& in, std::size_t max, Reader kind = Reader::byte_at_a_time) {
    std::vector<Line> lines;
    std::string line;
    Lines read{kind};
    for (;;) {
      const auto r = read(in, line, max);
      lines.push_back({line, r.end, r.bytes, r.too_long});
      if (r.end != gp::mcp::stdio::LineEnd::newline) return lines;
    }
  };
  const auto none = [] { return std::size_t{0}; };
  std::vector<std::string> bytes,
      split_crlf{"abc\r", "\n\n" + long_line.substr(0, 10), long_line.substr(10) + "\n{\"a\":1}\r", "\ntail"};
  for (const char c : input) bytes.emplace_back(1, c);
  for (const std::size_t max : {std::size_t{3000}, std::size_t{2999}}) {
    INFO("max " << max);
    std::stringbuf whole(input);
    const auto expected = read_all(whole, max);
    REQUIRE(expected.size() == 5);
    CHECK(expected[0] == Line{"abc", gp::mcp::stdio::LineEnd::newline, 4, false});
    CHECK(expected[1] == Line{"", gp::mcp::stdio::LineEnd::newline, 0, false});
    CHECK(expected[2] == (max == 3000 ? Line{long_line, gp::mcp::stdio::LineEnd::newline, 3000, false}
                                      : Line{"", gp::mcp::stdio::LineEnd::newline, 3000, true}));
    CHECK(expected[3] == Line{"{\"a\":1}", gp::mcp::stdio::LineEnd::newline, 8, false});
    CHECK(expected[4] == Line{"tail", gp::mcp::stdio::LineEnd::eof_after_text, 4, false});
    for (const Reader kind : both_readers) {
      INFO(name_of(kind));
      std::stringbuf again(input);
      Chunked one_byte(bytes, none), split(split_crlf, none);
      Unbuffered unbuffered(input);
      NoPeek no_peek(input);
      CHECK(read_all(again, max, kind) == expected);
      CHECK(read_all(one_byte, max, kind) == expected);
      CHECK(read_all(split, max, kind) == expected);
      CHECK(read_all(unbuffered, max, kind) == expected);
      CHECK(read_all(no_peek, max, kind) == expected);
    }
  }
}

TEST_CASE("input closed in the middle of a message is a parse error and a clean return") {
  Harness h;
  const auto t = h.run(call(1, "record_ranking", seed_ranking) + R"({"jsonrpc":"2.0","id":2,"method":"tools/ca)");
  REQUIRE(t.replies.size() == 2);
  CHECK(t.replies[1]["error"]["code"] == -32700);
  CHECK(t.replies[1]["error"]["message"].get<std::string>().find("ended in the middle of a message") !=
        std::string::npos);
  CHECK(t.logged("input ended"));
  CHECK(h.server.registry().contains("campaign_ctr"));
}

TEST_CASE("a complete last message without its newline is still served") {
  Harness h;
  const auto t = h.run(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  REQUIRE(t.replies.size() == 1);
  CHECK(t.replies[0]["result"] == ojson::object());
}

TEST_CASE("blank lines and CRLF line endings are tolerated") {
  Harness h;
  const auto t = h.run("\n   \n" + std::string(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") + "\r\n");
  REQUIRE(t.replies.size() == 1);
  CHECK(t.replies[0]["id"] == 1);
}

TEST_CASE("JSON nested deeper than the limit is refused before anything reads it") {
  Harness h;
  std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check","arguments":{"output":)";
  deep += std::string(100000, '[') + std::string(100000, ']') + "}}}\n";
  const auto t = h.run(deep + request(2, "ping"));
  REQUIRE(t.replies.size() == 2);
  CHECK(t.replies[0]["error"]["code"] == -32600);
  CHECK(t.reply_to(2)["result"] == ojson::object());
}

TEST_CASE("recorded facts survive every bad request in one session") {
  Harness h;
  std::string input = call(1, "record_ranking", seed_ranking);
  input += "not json at all\n";
  input +=
      R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"record_fact","arguments":{"name":"campaign_ctr","value":1,"tool":"t"}}})"
      "\n";
  input += request(2, "no/such/method");
  input += R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":{"x":1}}})"
           "\n";
  input += std::string(9 * 1024 * 1024, '{') + "\n";
  input += "\x01\x02\xFF\xFE\n";
  input += R"({"jsonrpc":"2.0","id":4,"method":"notifications/initialized"})"
           "\n";
  input += call(5, "no_such_tool", ojson::object());
  input += call(
      6, "check",
      {{"facts", {"nope"}}, {"checks", {{{"check", "superlative"}, {"fact", "nope"}}}}, {"output", ojson::object()}});
  input += call(7, "record_ranking", seed_ranking);  // write-once: refused
  input += call(8, "check", check_args({{"winner", "north"}}));
  const auto t = h.run(input);
  CHECK(t.reply_to(8)["result"]["structuredContent"]["findings"][0]["message"] == seed_message);
  CHECK(h.server.registry().names() == std::vector<std::string>{"campaign_ctr"});
  CHECK(h.server.registry().get<gp::Ranking>("campaign_ctr").order().front() == "harbour");
}

TEST_CASE("thousands of mutated requests never crash the server or corrupt a recorded fact") {
  Harness h;
  const std::vector<std::string> valid = {
      call(0, "check", check_args({{"winner", "north"}, {"score", 0.0412}})),
      call(0, "record_table",
           {{"name", "t"},
            {"rows", ojson::parse(R"([{"a": 1, "b": "x"}])")},
            {"key_column", "a"},
            {"total_rows", 4},
            {"tool", "q"},
            {"args", {{"k", "v"}}}}),
      call(0, "record_ranking", seed_ranking),
      request(0, "initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", ojson::object()}}),
      call(0, "list_facts", ojson::object()),
  };
  std::string input = call(1, "record_ranking", seed_ranking);
  std::uint32_t x = 2463534242u;
  const auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
  };
  for (int i = 0; i < 3000; ++i) {
    std::string line = valid[next() % valid.size()];
    line.pop_back();  // the newline
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits && !line.empty(); ++e) {
      const std::size_t at = next() % line.size();
      switch (next() % 3) {
        case 0:
          line[at] = static_cast<char>(next() & 0xFF);
          break;
        case 1:
          line.erase(at, 1 + next() % 8);
          break;
        default:
          line.insert(at, 1, "{}[]\":,0\\"[next() % 10]);
          break;
      }
    }
    input += line + "\n";
  }
  input += call(2, "check", check_args({{"winner", "north"}}));
  const auto t = h.run(input);  // every stdout line is checked to be JSON-RPC
  CHECK(t.replies.size() > 1000);
  CHECK(t.reply_to(2)["result"]["structuredContent"]["findings"][0]["message"] == seed_message);
  CHECK(h.server.registry().get<gp::Ranking>("campaign_ctr").order() ==
        std::vector<gp::Entity>{"harbour", "north", "delta"});
}

TEST_CASE("an exception escaping the handling of one line is answered as an internal error and serving goes on") {
  int calls = 0;
  gp::mcp::Server server({.log =
                              [&calls](std::string_view) {
                                if (++calls == 1)
                                  throw std::runtime_error("log sink unavailable");  // thrown from the parse-error path
                              },
                          .verbose = true});
  std::istringstream in("not json\n" + request(2, "ping"));
  std::ostringstream out;
  server.serve(in, out);
  std::istringstream lines(out.str());
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  const auto a = ojson::parse(first);
  CHECK(a["error"]["code"] == -32603);
  CHECK(a["error"]["message"] == "Internal error: log sink unavailable");
  CHECK(ojson::parse(second)["id"] == 2);
}

TEST_CASE("with a session the agent tools are served and a gated order is refused as a normal result") {
  gp::Session app({.node = "checkout", .require_human_approval = true});
  app.declare("checkout.place-order", {.does = "Place the order.",
                                       .writes = {"order_id"},
                                       .handler =
                                           [&app](const nlohmann::json&) {
                                             app.report_state({{"order_id", "A-1"}});
                                             return gp::HandlerResult{};
                                           },
                                       .high_effect = true});
  Harness h(app);
  const auto t = h.run(request(1, "tools/list") + call(2, "whats_here", ojson::object()) +
                       call(3, "do_action", {{"action", "checkout.place-order"}}) +
                       call(4, "do_action", {{"action", "checkout.refund-everything"}}));
  const auto& tools = t.reply_to(1)["result"]["tools"];
  REQUIRE(tools.size() == 9);
  CHECK(tools[6]["name"] == "whats_here");
  CHECK(tools[7]["name"] == "do_action");
  CHECK(tools[8]["name"] == "record_ledger");
  CHECK(tools[7]["outputSchema"]["required"] == ojson::array({"ok", "facts"}));

  const auto& here = t.reply_to(2)["result"]["structuredContent"];
  CHECK(here.begin().key() == "facts");
  // The text block a model reads is the same result, facts first too.
  CHECK(text_of(t.reply_to(2)).rfind(R"({"facts":)", 0) == 0);
  CHECK(ojson::parse(text_of(t.reply_to(2))) == here);
  CHECK(text_of(t.reply_to(3)).rfind(R"({"facts":)", 0) == 0);
  CHECK(here["node"] == "checkout");
  CHECK(here["actions"][0]["id"] == "checkout.place-order");

  const auto& placed = t.reply_to(3)["result"];
  CHECK(placed["isError"] == false);
  CHECK(placed["structuredContent"]["ok"] == false);
  CHECK(placed["structuredContent"]["reason"] == "APPROVAL_REQUIRED");
  CHECK(placed["structuredContent"].contains("ask_id"));
  CHECK(placed["structuredContent"]["facts"].get<std::string>().find(
            "did NOT happen — agent's fire of checkout.place-order was refused: APPROVAL_REQUIRED") !=
        std::string::npos);

  const auto& invented = t.reply_to(4)["result"]["structuredContent"];
  CHECK(invented["reason"] == "UNKNOWN_ACTION");
  CHECK(invented["message"].get<std::string>().find("refund") == std::string::npos);  // never echoed
}

TEST_CASE("a handler that throws is a tool error and the server keeps serving") {
  gp::Session app({.node = "home"});
  app.declare("explode", {.does = "Fail loudly.", .handler = [](const nlohmann::json&) -> gp::HandlerResult {
                            throw std::runtime_error("disk on fire\nrm -rf");
                          }});
  Harness h(app);
  const auto t = h.run(call(1, "do_action", {{"action", "explode"}}) + request(2, "ping"));
  CHECK(t.reply_to(1)["result"]["isError"] == true);
  CHECK(text_of(t.reply_to(1)) == "the app failed while serving do_action: disk on fire\\nrm -rf");
  CHECK(t.has_reply_to(2));
}

TEST_CASE("with a session record_ledger lets the check tool hold a claimed action to the ledger") {
  gp::Session app({.node = "checkout", .require_human_approval = true});
  app.declare("cart.add", {.does = "Add to the cart.", .writes = {"cart"}, .handler = [&app](const nlohmann::json&) {
                             app.report_state({{"cart", 1}});
                             return gp::HandlerResult{};
                           }});
  app.declare("checkout.place-order", {.does = "Place the order.",
                                       .handler = [](const nlohmann::json&) { return gp::HandlerResult{}; },
                                       .high_effect = true});
  Harness h(app);
  const ojson checks = ojson::array({{{"check", "actions_performed"}, {"fact", "ledger_1"}}});
  const auto t = h.run(
      call(1, "do_action", {{"action", "cart.add"}}) + call(2, "do_action", {{"action", "checkout.place-order"}}) +
      call(3, "record_ledger", {{"name", "ledger_1"}}) +
      call(4, "check",
           {{"facts", {"ledger_1"}},
            {"checks", checks},
            {"output", {{"performed", {"cart.add", "checkout.place-order"}}}}}) +
      call(5, "check", {{"facts", {"ledger_1"}}, {"checks", checks}, {"output", {{"performed", {"cart.add"}}}}}) +
      call(6, "record_ledger", {{"name", "ledger_1"}}) + call(7, "record_ledger", ojson::object()));
  const auto& recorded = t.reply_to(3)["result"]["structuredContent"];
  CHECK(recorded["kind"] == "table");
  CHECK(recorded["size"] == 2);
  CHECK(recorded["provenance"]["tool"] == "session.ledger");

  const auto& rejected = t.reply_to(4)["result"];
  CHECK(rejected["isError"] == false);
  REQUIRE(rejected["structuredContent"]["ok"] == false);
  REQUIRE(rejected["structuredContent"]["findings"].size() == 1);
  CHECK(rejected["structuredContent"]["findings"][0]["detail"] ==
        "the ledger's line for it: did NOT happen — agent's fire of checkout.place-order was refused: "
        "APPROVAL_REQUIRED");
  CHECK(t.reply_to(5)["result"]["structuredContent"]["ok"] == true);

  CHECK(t.reply_to(6)["result"]["isError"] == true);  // write-once, like every fact
  CHECK(t.reply_to(7)["result"]["isError"] == true);
}

TEST_CASE("without a session there is no record_ledger tool") {
  Harness h;
  const auto t = h.run(request(1, "tools/list") + call(2, "record_ledger", {{"name", "l"}}));
  for (const auto& tool : t.reply_to(1)["result"]["tools"]) CHECK(tool["name"] != "record_ledger");
  CHECK(t.reply_to(2)["error"]["code"] == -32602);
  CHECK(t.reply_to(2)["error"]["message"] == "Unknown tool: 'record_ledger'");
}

TEST_CASE("the stdio loop writes exactly what the transport-free protocol answers, line for line") {
  const std::string input = request(1, "initialize", {{"protocolVersion", "2025-11-25"}}) +
                            call(2, "record_ranking", seed_ranking) +
                            call(3, "check", check_args({{"winner", "north"}})) + "not json\n" + request(4, "ping");
  Harness h;
  std::istringstream in(input);
  std::ostringstream out;
  h.server.serve(in, out);

  gp::mcp::Protocol bare({.log = [](std::string_view) {}});
  std::istringstream lines(input);
  std::string line, expected;
  while (std::getline(lines, line))
    if (auto r = bare.handle_line(line)) expected += *r + "\n";
  CHECK(out.str() == expected);
  CHECK(bare.registry().contains("campaign_ctr"));
}

TEST_CASE(
    "an answer is flushed before the server waits for more input, and answers to waiting requests go out at once") {
  Harness h;
  SECTION("a client that waits for each answer has it before the server reads on") {
    Flushes out_buf;
    Chunked in_buf({request(1, "ping"), request(2, "ping"), request(3, "ping")}, [&] { return out_buf.flushed(); });
    std::istream in(&in_buf);
    std::ostream out(&out_buf);
    h.server.serve(in, out);
    const std::string one = *h.server.handle_line(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") + "\n";
    REQUIRE(in_buf.flushed_at_read.size() == 4);  // three chunks, then the end of input
    CHECK(in_buf.flushed_at_read[0] == 0);
    CHECK(in_buf.flushed_at_read[1] == one.size());
    CHECK(in_buf.flushed_at_read[2] == 2 * one.size());
    CHECK(in_buf.flushed_at_read[3] == 3 * one.size());
    CHECK(out_buf.str().size() == 3 * one.size());
  }
  SECTION("an answer is out before the server waits, even when lines that get no answer follow it") {
    const std::string one = *h.server.handle_line(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") + "\n";
    const std::string notification = R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                                     "\n";
    const std::string second = request(2, "ping");
    for (const std::string& after : {notification, std::string("\n"), std::string("\r\n"), second.substr(0, 10)}) {
      INFO("after the request, in the same read: " << after);
      Flushes out_buf;
      const bool partial = after == second.substr(0, 10);
      Chunked in_buf({request(1, "ping") + after, partial ? second.substr(10) : second},
                     [&] { return out_buf.flushed(); });
      std::istream in(&in_buf);
      std::ostream out(&out_buf);
      h.server.serve(in, out);
      REQUIRE(in_buf.flushed_at_read.size() == 3);
      CHECK(in_buf.flushed_at_read[1] == one.size());  // answer 1 out before the second read
      CHECK(out_buf.str().size() == 2 * one.size());
    }
  }
  SECTION("requests that came in one read are answered in one flush, after the last of them") {
    Flushes out_buf;
    Chunked in_buf({request(1, "ping") + request(2, "ping") + request(3, "ping")}, [&] { return out_buf.flushed(); });
    std::istream in(&in_buf);
    std::ostream out(&out_buf);
    h.server.serve(in, out);
    REQUIRE_FALSE(out_buf.at.empty());
    CHECK(out_buf.at.front() == out_buf.str().size());  // the first flush already held all three
    CHECK(Harness().run(request(1, "ping") + request(2, "ping") + request(3, "ping")).replies.size() == 3);
  }
}

namespace {
ojson inline_seed() {
  ojson def = seed_ranking;
  def.erase("name");
  ojson out = ojson::object();
  out["campaign_ctr"] = ojson{{"kind", "ranking"}};
  out["campaign_ctr"].update(def);
  return out;
}
}  // namespace

TEST_CASE("check with inline fact definitions judges in one call and records nothing that outlives it") {
  Harness h;
  const auto t = h.run(
      call(1, "check", {{"facts", inline_seed()}, {"checks", {seed_check}}, {"output", {{"winner", "north"}}}}) +
      call(2, "check", {{"facts", inline_seed()}, {"checks", {seed_check}}, {"output", {{"winner", "harbour"}}}}) +
      call(3, "list_facts", ojson::object()) + call(4, "record_ranking", seed_ranking));
  const auto& rejected = t.reply_to(1)["result"];
  CHECK(rejected["isError"] == false);
  CHECK(rejected["structuredContent"]["ok"] == false);
  CHECK(rejected["structuredContent"]["findings"][0]["message"] == seed_message);
  CHECK(t.reply_to(2)["result"]["structuredContent"]["ok"] == true);
  CHECK(t.reply_to(3)["result"]["structuredContent"]["facts"] == ojson::object());
  // the inline name was never recorded in the session, so recording it now succeeds
  CHECK(t.reply_to(4)["result"]["isError"] == false);
  CHECK(h.server.registry().names().size() == 1);
}

TEST_CASE("inline facts are the call's only facts: a recorded fact is not visible beside them") {
  Harness h;
  ojson other = seed_ranking;
  other["name"] = "recorded_ctr";
  ojson checks = ojson::array({seed_check, {{"check", "superlative"}, {"fact", "recorded_ctr"}, {"field", "w2"}}});
  const auto t = h.run(
      call(1, "record_ranking", other) +
      call(2, "check",
           {{"facts", inline_seed()}, {"checks", checks}, {"output", {{"winner", "harbour"}, {"w2", "harbour"}}}}));
  const auto& r = t.reply_to(2)["result"];
  CHECK(r["isError"] == true);
  CHECK(text_of(t.reply_to(2)).find("recorded_ctr") != std::string::npos);
}

TEST_CASE("a bad inline definition is a tool error naming the fact and what is wrong") {
  Harness h;
  ojson no_kind = inline_seed();
  no_kind["campaign_ctr"].erase("kind");
  ojson bad_kind = inline_seed();
  bad_kind["campaign_ctr"]["kind"] = "rankin";
  ojson no_tool = inline_seed();
  no_tool["campaign_ctr"].erase("tool");
  ojson bad_score = inline_seed();
  bad_score["campaign_ctr"]["scores"]["north"] = "high";
  ojson named = inline_seed();
  named["campaign_ctr"]["name"] = "other";
  const std::vector<std::pair<ojson, std::string>> cases{{no_kind, "needs \"kind\""},
                                                         {bad_kind, "'rankin'"},
                                                         {no_tool, "needs 'tool'"},
                                                         {bad_score, "score of 'north'"},
                                                         {named, "its name is its key"},
                                                         {ojson::array({1}), "must be a string"},
                                                         {ojson{{"x", 1}}, "must be an object {kind"}};
  int id = 0;
  for (const auto& [facts, expected] : cases) {
    const auto t =
        h.run(call(++id, "check", {{"facts", facts}, {"checks", {seed_check}}, {"output", {{"winner", "harbour"}}}}));
    INFO(facts.dump());
    CHECK(t.reply_to(id)["result"]["isError"] == true);
    CHECK(text_of(t.reply_to(id)).find(expected) != std::string::npos);
  }
  CHECK(h.server.registry().names().empty());
}

TEST_CASE("record_facts records definitions at start, as --facts FILE does, and refuses a bad one by name") {
  gp::mcp::Protocol p({.log = [](std::string_view) {}});
  ojson defs = inline_seed();
  defs["total"] = {{"kind", "fact"}, {"value", 12}, {"tool", "warehouse.sum"}};
  p.record_facts(defs);
  CHECK(p.registry().names() == std::vector<std::string>{"campaign_ctr", "total"});
  const auto r = ojson::parse(*p.handle_line(call(1, "check", check_args({{"winner", "north"}}))));
  CHECK(r["result"]["structuredContent"]["findings"][0]["message"] == seed_message);
  try {
    p.record_facts(ojson{{"x", {{"kind", "fact"}, {"tool", "t"}}}});
    FAIL("a definition without its value was recorded");
  } catch (const gp::ConfigurationError& e) {
    const std::string m = e.what();
    CHECK(m.find("'x'") != std::string::npos);
    CHECK(m.find("needs 'value'") != std::string::npos);
  }
}

TEST_CASE("list_facts pages by the page size with nextCursor until every fact is listed once, in record order") {
  Harness h({.page_size = 2});
  std::string input;
  for (int i = 0; i < 5; ++i)
    input += call(i + 1, "record_fact", {{"name", "f" + std::to_string(i)}, {"value", i}, {"tool", "t"}});
  h.run(input);
  std::vector<std::string> seen;
  ojson args = ojson::object();
  int pages = 0;
  for (;;) {
    const auto t = h.run(call(100 + pages, "list_facts", args));
    const auto& out = t.reply_to(100 + pages)["result"]["structuredContent"];
    REQUIRE(out["facts"].size() <= 2);
    for (auto it = out["facts"].begin(); it != out["facts"].end(); ++it) seen.push_back(it.key());
    ++pages;
    if (!out.contains("nextCursor")) break;
    REQUIRE(pages < 10);
    args = {{"cursor", out["nextCursor"]}};
  }
  CHECK(pages == 3);
  CHECK(seen == std::vector<std::string>{"f0", "f1", "f2", "f3", "f4"});
}

TEST_CASE("a cursor the server never gave is a tool error, cut to a bounded length") {
  Harness h({.page_size = 2});
  const std::string forged(100000, 'c');
  const auto t = h.run(call(1, "list_facts", {{"cursor", "facts:99"}}) + call(2, "list_facts", {{"cursor", forged}}) +
                       call(3, "list_facts", {{"cursor", 7}}));
  CHECK(t.reply_to(1)["result"]["isError"] == true);
  CHECK(t.reply_to(2)["result"]["isError"] == true);
  CHECK(text_of(t.reply_to(2)).size() < 300);
  CHECK(t.reply_to(3)["result"]["isError"] == true);
}

TEST_CASE("a huge method, tool, argument or fact name echoed in an error is cut, so the answer stays small") {
  Harness h;
  const std::string huge(200000, 'm');
  const auto t = h.run(request(1, huge) + call(2, huge, ojson::object()) + call(3, "list_facts", {{huge, 1}}) +
                       call(4, "check", {{"facts", {huge}}, {"checks", {seed_check}}, {"output", {{"winner", "x"}}}}) +
                       request(5, "notifications/" + huge));
  for (int id = 1; id <= 5; ++id) {
    INFO(id);
    CHECK(t.reply_to(id).dump().size() < 2000);
  }
}

namespace {
// The sub-second targets hold for an optimized build. An unoptimized build runs the same
// linear code several times slower, so there the bound only separates linear from the
// quadratic reading of 0.1 (12.5 s for the 320k-object line, minutes for 8 MiB).
#ifdef NDEBUG
constexpr double line_seconds = 1.0;
#else
constexpr double line_seconds = 30.0;
#endif

// CPU time of this process (the server runs in it): what the reading costs, whatever
// else the machine is running. A CI machine shared by concurrent builds stretches
// wall-clock time several-fold without the server doing any more work.
double seconds_for(const std::function<void()>& f) {
  const std::clock_t c0 = std::clock();
  f();
  return static_cast<double>(std::clock() - c0) / static_cast<double>(CLOCKS_PER_SEC);
}
}  // namespace

TEST_CASE("a line of 320k empty objects is answered in under a second and a ping right behind it too", "[timing]") {
  std::string line = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":[)";
  for (int i = 0; i < 320000; ++i) line += i ? ",{}" : "{}";
  line += "]}}\n";
  Harness h;
  Transcript t;
  const double s = seconds_for([&] { t = h.run(line + request(2, "ping")); });
  CHECK(s < line_seconds);
  CHECK(t.reply_to(1)["result"] == ojson::object());
  CHECK(t.reply_to(2)["result"] == ojson::object());
}

static std::string eight_mib_line() {
  std::string line = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":[)";
  while (line.size() < std::size_t{8} * 1024 * 1024 - 64) line += R"({"k":1},)";
  line += R"({"k":1}]}})";
  return line;
}

TEST_CASE("an 8 MiB line of small objects is answered and a ping right behind it too") {
  const std::string line = eight_mib_line();
  REQUIRE(line.size() < std::size_t{8} * 1024 * 1024);
  Harness h;
  const Transcript t = h.run(line + "\n" + request(2, "ping"));
  REQUIRE(t.replies.size() == 2);
  CHECK(t.reply_to(1)["result"] == ojson::object());
  CHECK(t.reply_to(2)["result"] == ojson::object());
}

// The same line against the clock; a sanitizer build skips the [timing] cases.
TEST_CASE("an 8 MiB line of small objects is answered in under a second and a ping right behind it too", "[timing]") {
  const std::string line = eight_mib_line();
  Harness h;
  Transcript t;
  const double s = seconds_for([&] { t = h.run(line + "\n" + request(2, "ping")); });
  CHECK(s < line_seconds);
  CHECK(t.reply_to(1)["result"] == ojson::object());
  CHECK(t.reply_to(2)["result"] == ojson::object());
}

TEST_CASE("record_table of 200k rows over stdio is recorded in under a second", "[timing]") {
  ojson rows = ojson::array();
  for (int i = 0; i < 200000; ++i) rows.push_back({{"id", "r" + std::to_string(i)}, {"v", i}});
  const std::string input =
      call(1, "record_table", {{"name", "big"}, {"rows", rows}, {"key_column", "id"}, {"tool", "t"}}) +
      request(2, "ping");
  Harness h;
  Transcript t;
  const double s = seconds_for([&] { t = h.run(input); });
  CHECK(s < line_seconds);
  CHECK(t.reply_to(1)["result"]["structuredContent"]["size"] == 200000);
  CHECK(t.reply_to(2)["result"] == ojson::object());
}

TEST_CASE("a duplicate key in the envelope is an invalid request naming it, never last-wins") {
  Harness h;
  const auto t = h.run(R"({"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"})"
                       "\n"
                       R"({"jsonrpc":"2.0","id":2,"id":3,"method":"ping"})"
                       "\n"
                       R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_facts","name":"check"}})"
                       "\n");
  REQUIRE(t.replies.size() == 3);
  CHECK(t.reply_to(1)["error"]["code"] == -32600);
  CHECK(t.reply_to(1)["error"]["message"].get<std::string>().find("'method' appears twice") != std::string::npos);
  CHECK(t.replies[1]["error"]["code"] == -32600);
  CHECK(t.replies[1]["error"]["message"].get<std::string>().find("'id'") != std::string::npos);
  CHECK(t.reply_to(4)["error"]["code"] == -32600);
  CHECK(t.reply_to(4)["error"]["message"].get<std::string>().find("/params") != std::string::npos);
}

TEST_CASE("a duplicate key in tool arguments is a tool error naming it and nothing is recorded") {
  Harness h;
  const auto t = h.run(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_ranking","arguments":{"name":"r","scores":{"north":0.1,"north":0.9},"key":"ctr","tool":"t"}}})"
      "\n");
  const auto& r = t.reply_to(1)["result"];
  CHECK(r["isError"] == true);
  CHECK(text_of(t.reply_to(1)).find("'north' appears twice") != std::string::npos);
  CHECK(text_of(t.reply_to(1)).find("/params/arguments/scores") != std::string::npos);
  CHECK(h.server.registry().names().empty());
}

TEST_CASE("1e999999 is a tool error where it is data and invalid params where it is not, never an internal error") {
  Harness h;
  const std::string big = "1e999999";
  const std::vector<std::pair<std::string, bool>> cases{
      // where, and whether it is data (a tool error) or not (-32602)
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_fact","arguments":{"name":"f","value":1e999999,"tool":"t"}}})",
       true},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_ranking","arguments":{"name":"r","scores":{"a":1e999999},"key":"k","tool":"t"}}})",
       true},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_table","arguments":{"name":"t","rows":[{"v":1e999999}],"tool":"t"}}})",
       true},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check","arguments":{"facts":{"f":{"kind":"fact","value":1e999999,"tool":"t"}},"checks":[{"check":"superlative","fact":"f"}],"output":{"winner":"x"}}}})",
       true},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_fact","arguments":{"name":"f","value":1,"tool":"t","args":{"n":1e999999}}}})",
       true},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_table","arguments":{"name":"t","rows":[],"total_rows":1e999999,"tool":"t"}}})",
       false},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":1e999999}})", false},
      {R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1e999999}})", false},
      {R"({"jsonrpc":"2.0","id":1e999999,"method":"ping"})", false},
      {R"({"jsonrpc":"2.0","id":1,"method":"ping","extra":1e400})", false},
  };
  for (const auto& [line, data] : cases) {
    INFO(line);
    const auto t = h.run(line + "\n");
    REQUIRE(t.replies.size() == 1);
    const auto& r = t.replies[0];
    if (data) {
      REQUIRE(r.contains("result"));
      CHECK(r["id"] == 1);
      CHECK(r["result"]["isError"] == true);
      CHECK(text_of(r).find("out of range") != std::string::npos);
    } else {
      REQUIRE(r.contains("error"));
      CHECK(r["error"]["code"] == -32602);
      CHECK(r["error"]["message"].get<std::string>().find("the number '1e") != std::string::npos);
    }
  }
  CHECK(h.server.registry().names().empty());
}

TEST_CASE("a number a double holds but the bound does not (1.5e308, 1e-1001, 101 digits) is refused as 1e999999 is") {
  // nlohmann reads each of these as a finite double; only the bound (JsonTextOptions) tells
  // them apart, so a reader that skipped it would serve them.
  Harness h;
  const std::vector<std::string> numbers{"1.5e308", "-1.5e308", "1e-1001", "1" + std::string(100, '0'),
                                         "0." + std::string(101, '1')};
  for (const auto& n : numbers) {
    INFO(n);
    const auto t = h.run(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":)" + n + "}}\n" +
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"record_fact","arguments":{"name":"f","value":)" +
        n + R"(,"tool":"t"}}})" + "\n");
    REQUIRE(t.replies.size() == 2);
    CHECK(t.reply_to(1)["error"]["code"] == -32602);
    CHECK(t.reply_to(1)["error"]["message"].get<std::string>().find("the number '" + n.substr(0, 10)) !=
          std::string::npos);
    CHECK(t.reply_to(2)["result"]["isError"] == true);
  }
  CHECK(h.server.registry().names().empty());
  // Just inside: 1e307, and a number of 17 characters without an exponent (measured, and
  // well inside the bound).
  const auto t = h.run(
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"record_fact","arguments":{"name":"g","value":1e307,"tool":"t","args":{"n":0.000000000000001}}}})"
      "\n");
  CHECK(t.reply_to(3)["result"]["isError"] == false);
}

TEST_CASE("the message builder measures a number as written whatever decimal point the C locale lends nlohmann") {
  // nlohmann's token holds the C locale's decimal point in place of '.': "1,5e308" under
  // de_DE. Measured as it comes, that is no JSON number at all, and so not a wide one.
  const gp::JsonTextOptions bounds;
  gp::mcp::detail::MessageBuilder past_double("", bounds);
  CHECK_FALSE(past_double.number_float(1.5e308, "1,5e308"));
  gp::mcp::detail::MessageBuilder past_digits("", bounds);
  CHECK_FALSE(past_digits.number_float(0.1, "0," + std::string(101, '1')));
  gp::mcp::detail::MessageBuilder past_exponent("", bounds);
  CHECK_FALSE(past_exponent.number_float(0.0, "1,0e-1001"));
  gp::mcp::detail::MessageBuilder inside("", bounds);
  CHECK(inside.number_float(0.5, "0,50000000000000000000"));
  CHECK(inside.take() == 0.5);
}

TEST_CASE("nesting one level inside the depth limit is served and one level past it is refused") {
  Harness h({.max_depth = 4});
  // The message object is level 1, params 2, arguments 3, args 4.
  const auto at = [](int id, const std::string& args) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
           R"(,"method":"tools/call","params":{"name":"record_fact","arguments":{"name":"f)" + std::to_string(id) +
           R"(","value":1,"tool":"t","args":)" + args + "}}}\n";
  };
  const auto t = h.run(at(1, R"({"k":1})") + at(2, R"({"k":[1]})"));
  REQUIRE(t.replies.size() == 2);
  CHECK(t.reply_to(1)["result"]["isError"] == false);
  CHECK(t.replies[1]["error"]["code"] == -32600);  // refused before its id is read: id null
  CHECK(t.replies[1]["id"] == nullptr);
  CHECK(h.server.registry().names() == std::vector<std::string>{"f1"});
}

TEST_CASE("handle_line answers every byte string without letting an exception escape") {
  gp::mcp::Protocol p({.log = [](std::string_view) {}});
  const std::vector<std::string> lines{"\xff\xfe",
                                       R"({"a":"\ud800"})",
                                       "[1,2",
                                       "1e999999",
                                       "-",
                                       "{\"x\":1}}",
                                       std::string(300, '['),
                                       R"({"jsonrpc":"2.0","id":1,"method":"ping"} x)"};
  for (const auto& line : lines) {
    INFO(line.substr(0, 40));
    std::optional<std::string> r;
    REQUIRE_NOTHROW(r = p.handle_line(line));
    REQUIRE(r);
    const auto j = ojson::parse(*r);
    CHECK(j["error"]["code"] != -32603);
  }
}

TEST_CASE("check reads the output's numbers as the request wrote them: 0.50 is judged at two decimals") {
  Harness h;
  const std::string facts =
      R"({"share": {"kind": "ranking", "scores": {"north": 0.54, "south": 0.31}, "key": "share", "tool": "t"}})";
  const std::string spec = R"([{"check": "superlative", "fact": "share", "rounding": "as_stated"}])";
  const auto line = [&](int id, const std::string& score) {
    return R"({"jsonrpc": "2.0", "id": )" + std::to_string(id) +
           R"(, "method": "tools/call", "params": {"name": "check", "arguments": {"facts": )" + facts +
           R"(, "checks": )" + spec + R"(, "output": {"winner": "north", "score": )" + score + "}}}}\n";
  };
  const auto t = h.run(line(1, "0.50") + line(2, "0.5") + line(3, "0.540"));
  // 0.54 rounded to the two decimals written is 0.54, not 0.50; to one decimal it is 0.5.
  const auto& two = t.reply_to(1)["result"]["structuredContent"];
  CHECK(two["ok"] == false);
  CHECK(two["findings"][0]["said"] == "0.50");
  CHECK(t.reply_to(2)["result"]["structuredContent"]["ok"] == true);
  CHECK(t.reply_to(3)["result"]["structuredContent"]["ok"] == true);
}

TEST_CASE("check judges a number past a double in its output as written: 1e400 is a claim refused, not a tool error") {
  Harness h;
  const std::string facts =
      R"({"share": {"kind": "ranking", "scores": {"north": 0.54, "south": 0.31}, "key": "share", "tool": "t"}})";
  const std::string spec = R"([{"check": "superlative", "fact": "share", "rounding": "as_stated"}])";
  const auto line = [&](int id, const std::string& output) {
    return R"({"jsonrpc": "2.0", "id": )" + std::to_string(id) +
           R"(, "method": "tools/call", "params": {"name": "check", "arguments": {"facts": )" + facts +
           R"(, "checks": )" + spec + R"(, "output": )" + output + "}}}\n";
  };
  const auto t =
      h.run(line(1, R"({"winner": "north", "score": 1e400})") + line(2, R"({"winner": "north", "score": -1.5e400})") +
            line(3, R"({"winner": "north", "score": 0.54, "aside": [1e400, "}"]})") +
            line(4, R"({"winner": "north", "score": 1e999999})"));
  REQUIRE(t.replies.size() == 4);
  for (int id : {1, 2, 4}) {
    INFO(id);
    const auto& r = t.reply_to(id)["result"];
    CHECK_FALSE(r.value("isError", false));
    CHECK(r["structuredContent"]["ok"] == false);
  }
  // said exactly (the written digits and power of ten), never "inf", null or a rounded double
  const auto said = [&](int id) { return t.reply_to(id)["result"]["structuredContent"]["findings"][0]["said"]; };
  CHECK((said(1) == "1e400" || said(1) == "1e+400"));
  CHECK((said(2) == "-1.5e400" || said(2) == "-1.5e+400"));
  // a wide number the check does not look at costs the answer nothing
  CHECK_FALSE(t.reply_to(3)["result"].value("isError", false));
  CHECK(t.reply_to(3)["result"]["structuredContent"]["ok"] == true);
  // past the reader's bound: the model is told so, by a finding naming the number
  CHECK(t.reply_to(4)["result"]["structuredContent"]["correction"].get<std::string>().find("out of range") !=
        std::string::npos);
}

TEST_CASE("a repeated key late in a large object is found in one pass and named, never last-wins") {
  Harness h;
  ojson pad = ojson::object();
  for (int i = 0; i < 40; ++i) pad["k" + std::to_string(i)] = i;
  std::string line = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":)" + pad.dump();
  line.insert(line.size() - 1, R"(,"k7":99)");
  const auto t = h.run(line + "}\n" + request(2, "ping"));
  REQUIRE(t.replies.size() == 2);
  CHECK(t.reply_to(1)["error"]["code"] == -32600);
  CHECK(t.reply_to(1)["error"]["message"].get<std::string>().find("'k7' appears twice") != std::string::npos);
  CHECK(t.reply_to(2)["result"] == ojson::object());
}

TEST_CASE("an object keeps every member, in order and whole, however many members follow a large one") {
  // The reader grows an object's members itself (moving the values): a member placed
  // before the growth must come out as it went in, nested values included.
  ojson args = ojson::object();
  for (int i = 0; i < 40; ++i)
    args["m" + std::to_string(39 - i)] = ojson{{"rows", ojson::array({i, std::to_string(i), ojson{{"deep", i}}})}};
  // args first, so name, value and tool are placed after it (an object grows at 1, 2, 4, ...).
  ojson arguments = ojson::object();
  arguments["args"] = args;
  arguments["name"] = "spend";
  arguments["value"] = 4200;
  arguments["tool"] = "warehouse.query";
  gp::mcp::Protocol p({.log = [](std::string_view) {}});
  const auto reply = p.handle_line(call(1, "record_fact", arguments));
  REQUIRE(reply);
  const ojson r = ojson::parse(*reply);
  REQUIRE(r["result"]["isError"] == false);
  const ojson& echoed = r["result"]["structuredContent"]["provenance"]["args"];
  CHECK(echoed.dump() == args.dump());  // the same members, values and order
  REQUIRE(echoed.size() == 40);
  CHECK(echoed.begin().key() == "m39");
  CHECK(echoed["m0"]["rows"][2]["deep"] == 39);
}

namespace {
// check's reply as the response objects make it: {jsonrpc, id, result: {content: [{type,
// text}], structuredContent: {ok, findings: [{check, field, said, supported, fact,
// provenance, detail, message}], correction}, isError: false}}, dumped as every other
// response is. The verdict comes from a Boundary over the same definitions, not from the
// tool.
ojson expected_check_reply(int id, const ojson& definitions, const ojson& specs, const ojson& output) {
  gp::mcp::Protocol p({.log = [](std::string_view) {}});
  p.record_facts(definitions);
  std::vector<std::string> names;
  for (auto it = definitions.begin(); it != definitions.end(); ++it) names.push_back(it.key());
  gp::CheckList checks;
  for (const auto& spec : specs) checks.push_back(gp::check_from_json(nlohmann::json(spec)));
  gp::Boundary boundary(p.registry(), std::move(names), std::move(checks));
  const gp::Verdict verdict = boundary.try_submit(nlohmann::json(output));
  ojson findings = ojson::array();
  for (const auto& f : verdict.findings())
    findings.push_back({{"check", f.check},
                        {"field", f.field},
                        {"said", f.said},
                        {"supported", f.supported},
                        {"fact", f.fact},
                        {"provenance", f.provenance},
                        {"detail", f.detail},
                        {"message", f.message()}});
  ojson result;
  result["content"] = ojson::array({{{"type", "text"}, {"text", verdict.ok() ? "accepted" : verdict.correction()}}});
  result["structuredContent"] = {
      {"ok", verdict.ok()},         {"findings", findings},       {"correction", verdict.correction()},
      {"passed", verdict.passed()}, {"failed", verdict.failed()}, {"warnings", verdict.warnings()}};
  result["isError"] = false;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", result}};
}
}  // namespace

TEST_CASE("check's reply is byte for byte the response its verdict makes, whatever the names and values hold") {
  // Names that need escaping in JSON: quotes, backslashes, control characters, a line
  // break, non-ASCII text, and one long enough to be cut mid-character when rendered.
  const std::string long_name = [] {
    std::string s;
    for (int i = 0; i < 400; ++i) s += "\xc3\xa9";  // é
    return s;
  }();
  const std::vector<std::string> odd{
      "say \"hi\"", "back\\slash", "tab\there\nnewline", std::string("nul\x01") + "x", "\xe6\x97\xa5\xe6\x9c\xac",
      long_name};
  ojson scores = ojson::object();
  double s = 0.5;
  for (const auto& n : odd) scores[n] = (s += 0.125);
  ojson definitions = {{"ctr \"odd\"",
                        {{"kind", "ranking"},
                         {"scores", scores},
                         {"key", "c\\t\"r"},
                         {"tool", "warehouse.query"},
                         {"args", {{"table", "t\"\n"}, {"w", "\xc3\xa9"}}}}}};
  const ojson superlative = {{"check", "superlative"}, {"fact", "ctr \"odd\""}};
  const ojson prefix = {{"check", "ranking_prefix"}, {"fact", "ctr \"odd\""}, {"field", "top"}};
  const std::vector<std::pair<ojson, ojson>> cases{
      {ojson::array({superlative}), {{"winner", odd[0]}}},                                     // wrong: one finding
      {ojson::array({superlative}), {{"winner", long_name}}},                                  // right: accepted
      {ojson::array({superlative}), {{"winner", "tab\there\nnewline\x7f"}}},                   // a name nobody recorded
      {ojson::array({superlative}), ojson::object()},                                          // the field is missing
      {ojson::array({superlative, prefix}), {{"winner", odd[1]}, {"top", {odd[2], odd[3]}}}},  // two checks fail
  };
  Harness h;
  int id = 0;
  for (const auto& [specs, output] : cases) {
    ++id;
    INFO("case " << id << ": " << output.dump().substr(0, 200));
    const ojson args = {{"facts", definitions}, {"checks", specs}, {"output", output}};
    const std::string line = call(id, "check", args);
    const auto reply = h.server.handle_line(line.substr(0, line.size() - 1));
    REQUIRE(reply);
    const ojson expected = expected_check_reply(id, definitions, specs, output);
    CHECK(*reply == expected.dump(-1, ' ', false, ojson::error_handler_t::replace));
    // The same result through call_tool, which hands back JSON.
    CHECK(h.server.call_tool("check", args) == expected["result"]);
  }
  // Every case judged what it was meant to: rejected, accepted, rejected, rejected, both checks failing.
  const auto findings = [&](int n, const ojson& specs, const ojson& output) {
    return expected_check_reply(n, definitions, specs, output)["result"]["structuredContent"]["findings"].size();
  };
  CHECK(findings(1, cases[0].first, cases[0].second) == 1);
  CHECK(findings(2, cases[1].first, cases[1].second) == 0);
  CHECK(findings(3, cases[2].first, cases[2].second) == 1);
  CHECK(findings(4, cases[3].first, cases[3].second) == 1);
  CHECK(findings(5, cases[4].first, cases[4].second) >= 2);
}

TEST_CASE("an inline definition is read as its record tool's arguments: kind chooses, the key names, others refused") {
  Harness h;
  ojson extra = inline_seed();
  extra["campaign_ctr"]["colour"] = "red";
  const auto t =
      h.run(call(1, "check", {{"facts", extra}, {"checks", {seed_check}}, {"output", {{"winner", "north"}}}}));
  CHECK(t.reply_to(1)["result"]["isError"] == true);
  CHECK(text_of(t.reply_to(1)) ==
        "check: inline fact 'campaign_ctr': invalid arguments: record_ranking has no argument 'colour'; its arguments "
        "are name, scores, key, direction, tool, args");
  // An empty key is a name like any other: the inline fact is named "", and refused as
  // record_ranking refuses "name": "" — not read as a definition that gives no name.
  ojson unnamed = ojson::object();
  unnamed[""] = inline_seed()["campaign_ctr"];
  ojson spec = seed_check;
  spec["fact"] = "";
  ojson recorded = seed_ranking;
  recorded["name"] = "";
  const auto inline_reply =
      h.run(call(2, "check", {{"facts", unnamed}, {"checks", {spec}}, {"output", {{"winner", "north"}}}}));
  const auto record_reply = h.run(call(3, "record_ranking", recorded));
  REQUIRE(record_reply.reply_to(3)["result"]["isError"] == true);
  CHECK(inline_reply.reply_to(2)["result"]["isError"] == true);
  CHECK(text_of(inline_reply.reply_to(2)) == "check: inline fact '': " + text_of(record_reply.reply_to(3)));
  CHECK(h.server.registry().names().empty());
}

TEST_CASE("a line is stored whole or refused whole at every length around the reader's chunk size") {
  for (const Reader kind : both_readers)
    for (const std::size_t length : {255u, 256u, 257u, 511u, 512u, 513u, 1000u, 65535u, 65536u, 65537u}) {
      const std::string text(length, 'y');
      for (const std::size_t max : {length, length - 1, std::size_t{256}}) {
        INFO(name_of(kind) << ", length " << length << ", max " << max);
        const bool fits = length <= max;
        std::vector<std::string> one_byte;
        for (const char c : text + "\nnext\n") one_byte.emplace_back(1, c);
        std::vector<std::string> hundreds;  // 100 bytes a read: runs that end inside the chunk and on it
        const std::string all = text + "\nnext\n";
        for (std::size_t at = 0; at < all.size(); at += 100) hundreds.push_back(all.substr(at, 100));
        std::size_t waits = 0;
        const auto before_wait = [&] { ++waits; };
        const std::function<std::size_t()> waits_so_far = [&] { return waits; };
        Chunked bytes(one_byte, waits_so_far);
        Chunked runs(hundreds, waits_so_far);
        std::stringbuf whole(all);
        for (std::streambuf* in : {static_cast<std::streambuf*>(&whole), static_cast<std::streambuf*>(&bytes),
                                   static_cast<std::streambuf*>(&runs)}) {
          Lines read{kind};
          std::string line = "left over";
          const auto r = read(*in, line, max, before_wait);
          CHECK(r.end == gp::mcp::stdio::LineEnd::newline);
          CHECK(r.bytes == length);
          CHECK(r.too_long == !fits);
          CHECK(line == (fits ? text : std::string()));
          const auto next = read(*in, line, max, before_wait);
          CHECK(line == "next");
          CHECK(next.too_long == false);
        }
        // before_wait ran before every read that could wait: each chunk's read saw one more.
        for (const Chunked* c : {&bytes, &runs}) {
          REQUIRE(c->flushed_at_read.size() >= 2);
          CHECK(c->flushed_at_read.front() >= 1);
          for (std::size_t i = 1; i < c->flushed_at_read.size(); ++i)
            CHECK(c->flushed_at_read[i] > c->flushed_at_read[i - 1]);
        }
      }
    }
}

TEST_CASE("the block reader hands back the lines it read ahead, in order, and waits only when it holds none") {
  std::size_t waits = 0;
  const std::function<std::size_t()> waits_so_far = [&] { return waits; };
  Chunked in({"one\ntwo\r\nthr", "ee\n\nfour"}, waits_so_far);
  gp::mcp::stdio::LineReader reader;
  std::string line;
  const auto before_wait = [&] { ++waits; };
  const auto next = [&] { return reader.next(in, line, 100, before_wait); };
  CHECK(next().end == gp::mcp::stdio::LineEnd::newline);
  CHECK(line == "one");
  CHECK(waits == 1);
  CHECK(next().bytes == 4);  // "two\r": the CR is counted, and dropped from the line
  CHECK(line == "two");
  CHECK(waits == 1);  // held since the first read: no wait, so no flush before it is answered
  CHECK(next().end == gp::mcp::stdio::LineEnd::newline);
  CHECK(line == "three");  // begun in one read, ended in the next
  CHECK(waits == 2);
  CHECK(next().bytes == 0);
  CHECK(line.empty());
  const auto last = next();
  CHECK(last.end == gp::mcp::stdio::LineEnd::eof_after_text);
  CHECK(line == "four");
  CHECK(next().end == gp::mcp::stdio::LineEnd::eof);
  CHECK(in.flushed_at_read == std::vector<std::size_t>{1, 2, 3, 4});  // a wait before every read
}

TEST_CASE("a string in check's reply is written as nlohmann writes it, for every byte and around every escape") {
  const auto written = [](std::string_view s) {
    std::string out;
    gp::mcp::detail::append_json(out, s);
    return out;
  };
  const auto nlohmann_writes = [](std::string_view s) {
    return ojson(s).dump(-1, ' ', false, ojson::error_handler_t::replace);
  };
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    INFO("byte " << b);
    CHECK(written(one) == nlohmann_writes(one));
    CHECK(written("ab" + one + "cd") == nlohmann_writes("ab" + one + "cd"));
  }
  for (const std::string s : {"", "plain text, (with) 'quotes' ~ and / slashes", "caf\xc3\xa9", "\xe6\x97\xa5",
                              "cut \xc3", "line\nbreak", "q\"", "b\\", "\n", "\"\"", "\\\\\n", "a\"b\\c\nd\te"})
    CHECK(written(s) == nlohmann_writes(s));
  // Strings drawn from the bytes each way treats apart: plain ones, the three escapes,
  // a tab, DEL, and the halves of a two-byte character.
  const std::string alphabet = "ab \"\\\n\t\x7f\xc3\xa9";
  std::uint32_t state = 12345;
  for (int n = 0; n < 3000; ++n) {
    std::string s;
    const std::size_t length = (state = state * 1664525u + 1013904223u) >> 28;
    for (std::size_t i = 0; i < length; ++i)
      s += alphabet[((state = state * 1664525u + 1013904223u) >> 24) % alphabet.size()];
    INFO("string " << n << ": " << ojson(s).dump(-1, ' ', true, ojson::error_handler_t::replace));
    CHECK(written(s) == nlohmann_writes(s));
  }
}

TEST_CASE("a caller that takes check's result as JSON gets the verdict's strings as they are, whatever their bytes") {
  // Text on the wire is UTF-8 (invalid bytes become U+FFFD there); a value handed over in
  // the process is the verdict's own.
  const std::string odd = "camp\xff";
  ojson facts = inline_seed();
  facts[odd] = facts["campaign_ctr"];
  facts.erase("campaign_ctr");
  facts[odd]["scores"] = {{odd, 0.9}, {"harbour", 0.1}};
  ojson spec = seed_check;
  spec["fact"] = odd;
  const ojson args = {{"facts", facts}, {"checks", {spec}}, {"output", {{"winner", "harbour"}}}};
  gp::mcp::Protocol p({.log = [](std::string_view) {}});
  const ojson result = p.call_tool("check", args);
  REQUIRE(result["structuredContent"]["findings"].size() == 1);
  const auto& finding = result["structuredContent"]["findings"][0];
  CHECK(finding["fact"].get<std::string>() == odd);
  CHECK(finding["message"].get<std::string>().find("fact='camp\\xff'") != std::string::npos);
  // handle() likewise, and the request's id comes back as it was given.
  const ojson message = {{"jsonrpc", "2.0"},
                         {"id", "id\xfe"},
                         {"method", "tools/call"},
                         {"params", {{"name", "check"}, {"arguments", args}}}};
  const auto reply = p.handle(message);
  REQUIRE(reply);
  CHECK((*reply)["id"].get<std::string>() == "id\xfe");
  CHECK((*reply)["result"] == result);
  const auto numbered = p.handle({{"jsonrpc", "2.0"}, {"id", 7}, {"method", "ping"}});
  REQUIRE(numbered);
  CHECK((*numbered)["id"].is_number_integer());
}
