// The checker tools over MCP: record_fact, record_ranking, record_table, record_domain,
// list_facts and check — results, tool errors, inline facts, paging, and check's reply
// written byte for byte as its verdict makes it.
#include "catch2_compat.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <groundplane/any_check.hpp>
#include <groundplane/boundary.hpp>
#include <groundplane/check_from_json.hpp>
#include <groundplane/mcp/server.hpp>
#include <groundplane/verdict.hpp>

#include "mcp_fixtures.hpp"

using namespace mcp_test;  // NOLINT(google-build-using-namespace)

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

TEST_CASE("the check tool's inputSchema types every member of every check spec and names the checks that read it") {
  Harness h;
  const auto t = h.run(request(1, "tools/list"));
  const auto& tools = t.reply_to(1)["result"]["tools"];
  const auto check = std::find_if(tools.begin(), tools.end(), [](const auto& tool) { return tool["name"] == "check"; });
  REQUIRE(check != tools.end());
  const auto& spec = (*check)["inputSchema"]["properties"]["checks"]["items"];
  CHECK(spec == gp::detail::check_spec_schema());
  CHECK(spec["properties"]["check"]["enum"].size() == 8);
  CHECK(spec["properties"]["on_missing"]["enum"] == ojson::array({"refuse", "skip"}));
  CHECK(spec["properties"]["column"]["description"] ==
        "Read by superlative, ranking_prefix, aggregate_reconciles, comparison.");
  CHECK(spec["required"] == ojson::array({"check"}));
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

TEST_CASE("check reads the answer's prose through prose_field and returns it rendered") {
  Harness h;
  ojson args = check_args({{"winner", "harbour"}, {"score", 0.0455}, {"summary", "{winner} led at {score}"}});
  args["prose_field"] = "summary";
  ojson bare = check_args({{"winner", "harbour"}, {"score", 0.0455}, {"summary", "{winner} led at 4.55%"}});
  bare["prose_field"] = "summary";
  ojson free = check_args({{"winner", "harbour"}, {"label", "EMEA"}, {"summary", "{winner} in {label}"}});
  free["prose_field"] = "summary";
  free["free_fields"] = {"label"};
  ojson wrong = args;
  wrong["free_fields"] = "label";
  const auto t = h.run(call(1, "record_ranking", seed_ranking) + call(2, "check", args) + call(3, "check", bare) +
                       call(4, "check", free) + call(5, "check", wrong));
  const auto& ok = t.reply_to(2)["result"]["structuredContent"];
  CHECK(ok["ok"] == true);
  CHECK(ok["prose"] == "harbour led at 0.0455");
  const auto& refused = t.reply_to(3)["result"]["structuredContent"];
  CHECK(refused["ok"] == false);
  CHECK(refused["prose"] == "");
  REQUIRE(refused["findings"].size() == 2);  // '4' and '55'
  CHECK(refused["findings"][0]["check"] == "prose");
  CHECK(refused["findings"][0]["said"] == "'4'");
  CHECK(t.reply_to(4)["result"]["structuredContent"]["prose"] == "harbour in EMEA");
  CHECK(t.reply_to(5)["result"]["isError"] == true);
  CHECK(text_of(t.reply_to(5)).find("free_fields") != std::string::npos);
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
      "invalid arguments: record_ranking: \"direction\" must be one of 'higher_is_better', 'lower_is_better', got "
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

TEST_CASE("a NUL or trailing text after the answer is refused alike by try_submit_json, a stream and the check tool") {
  using namespace std::string_literals;
  gp::FactRegistry reg;
  reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});
  const std::vector<std::string> texts = {"{\"winner\":\"harbour\"}\0{\"winner\":\"north\"}"s,
                                          "{\"winner\":\"harbour\"}\0"s,
                                          "{\"winner\":\"harbour\"} \n\0 north"s,
                                          "{\"winner\":\"harbour\"}{\"winner\":\"north\"}"s,
                                          "{\"winner\":\"harbour\"} and north"s,
                                          "\0{\"winner\":\"harbour\"}"s,
                                          "{\"winner\":\0\"harbour\"}"s};
  std::mt19937 rng(48);
  for (const std::string& text : texts) {
    INFO(ojson(text).dump());
    gp::Boundary b(reg, {"campaign_ctr"}, gp::CheckList{gp::superlative{.fact = "campaign_ctr"}});
    const gp::Verdict whole = b.try_submit_json(text);
    REQUIRE_FALSE(whole.ok());
    REQUIRE(whole.findings().size() == 1);
    CHECK(whole.findings()[0].check == "structured_output");
    // A stream, whole and cut at random places.
    for (int round = 0; round < 40; ++round) {
      gp::ClaimStream s = b.stream();
      std::size_t from = 0;
      while (from < text.size()) {
        const std::size_t n = round == 0 ? text.size() : 1 + rng() % 4;
        (void)s.feed(std::string_view(text).substr(from, n));
        from += n;
      }
      const gp::Verdict streamed = s.finish();
      CHECK(streamed.findings() == whole.findings());
    }
    // The check tool reading the same bytes as its output's text.
    const ojson args = check_args(ojson::object());
    const ojson result =
        gp::mcp::detail::check(args, reg, text, {.max_depth = 256}, gp::mcp::detail::Form::json).take_json();
    const auto& verdict = result["structuredContent"];
    CHECK(verdict["ok"] == false);
    REQUIRE(verdict["findings"].size() == 1);
    CHECK(verdict["findings"][0]["message"] == whole.findings()[0].message());
    // Over the wire, the same bytes in a request are never an accepted answer: the line is
    // not JSON (a parse error), or its output is refused.
    Harness h;
    const std::string line =
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"check","arguments":{"facts":["campaign_ctr"],)"
        R"("checks":[{"check":"superlative","fact":"campaign_ctr"}],"output":)" +
        text + "}}}\n";
    const auto t = h.run(call(1, "record_ranking", seed_ranking) + line);
    REQUIRE(t.replies.size() >= 2);  // a newline in the text ends the line there: two lines
    for (std::size_t i = 1; i < t.replies.size(); ++i) {
      const ojson& reply = t.replies[i];
      if (reply.contains("error")) CHECK(reply["error"]["code"] == -32700);
      else CHECK(reply["result"]["structuredContent"]["ok"] == false);
    }
  }
}

TEST_CASE("check's output past the 1 MiB a boundary reads is a finding, refused unread, never a tool error") {
  Harness h;
  const std::string line = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"check","arguments":)"
                           R"({"facts":["campaign_ctr"],"checks":[{"check":"superlative","fact":"campaign_ctr"}],)"
                           R"("output":{"winner":"harbour","note":")" +
                           std::string(gp::BoundaryOptions{}.max_text_bytes, 'x') + "\"}}}}\n";
  const auto t = h.run(call(1, "record_ranking", seed_ranking) + line);
  const auto& r = t.reply_to(2)["result"];
  REQUIRE(r["isError"] == false);
  CHECK(r["structuredContent"]["ok"] == false);
  REQUIRE(r["structuredContent"]["findings"].size() == 1);
  CHECK_THAT(r["structuredContent"]["findings"][0]["detail"].get<std::string>(),
             Catch::Contains("longer than the 1,048,576 bytes"));
}

TEST_CASE("a key written twice in check's output is a finding, as submit_json makes it, never a tool error") {
  Harness h;
  REQUIRE_FALSE(h.run(call(1, "record_ranking", seed_ranking)).reply_to(1)["result"]["isError"].get<bool>());
  const auto line = [](int id, const std::string& checks, const std::string& output) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
           R"(,"method":"tools/call","params":{"name":"check","arguments":{"facts":["campaign_ctr"],"checks":)" +
           checks + R"(,"output":)" + output + "}}}\n";
  };
  const std::string checks = R"([{"check":"superlative","fact":"campaign_ctr"}])";
  // at the output's top, nested in it, and beside a number past a double (read again)
  const std::vector<std::string> outputs{R"({"winner":"harbour","winner":"north"})",
                                         R"({"winner":"harbour","detail":{"k":1,"k":2}})",
                                         R"({"winner":"harbour","winner":"north","score":1e400})"};
  std::string input;
  for (std::size_t i = 0; i < outputs.size(); ++i) input += line(static_cast<int>(i) + 2, checks, outputs[i]);
  // a key written twice beside the output, in the checks, is still the call's error
  input += line(9, R"([{"check":"superlative","fact":"campaign_ctr","fact":"campaign_ctr"}])", outputs[0]);
  // and so is one in an "output" of a tool other than check, and of a method other than tools/call
  input +=
      R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"list_facts","arguments":{"output":{"k":1,"k":2}}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":11,"method":"ping","params":{"arguments":{"output":{"k":1,"k":2}}}})"
      "\n";
  const auto t = h.run(input);

  for (std::size_t i = 0; i < outputs.size(); ++i) {
    INFO(outputs[i]);
    const auto& r = t.reply_to(static_cast<int>(i) + 2)["result"];
    REQUIRE(r["isError"] == false);
    CHECK(r["structuredContent"]["ok"] == false);
    // the same findings submit_json makes of the same text
    gp::FactRegistry reg;
    reg.record_ranking(
        "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
        {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});
    gp::Boundary b(reg, {"campaign_ctr"}, gp::check_from_json(nlohmann::json::parse(R"({"check":"superlative",
                                                                                         "fact":"campaign_ctr"})")));
    const gp::Verdict v = b.try_submit_json(outputs[i]);
    const auto& findings = r["structuredContent"]["findings"];
    REQUIRE(findings.size() == v.findings().size());
    bool repeated = false;
    for (std::size_t k = 0; k < findings.size(); ++k) {
      CHECK(findings[k]["check"] == v.findings()[k].check);
      CHECK(findings[k]["field"] == v.findings()[k].field);
      CHECK(findings[k]["said"] == v.findings()[k].said);
      CHECK(findings[k]["detail"] == v.findings()[k].detail);
      repeated =
          repeated || (findings[k]["check"] == "structured_output" &&
                       findings[k]["detail"].get<std::string>().find("appears more than once") != std::string::npos);
    }
    CHECK(repeated);
  }
  CHECK(t.reply_to(2)["result"]["structuredContent"]["findings"][0]["field"] == "");
  CHECK(t.reply_to(3)["result"]["structuredContent"]["findings"][0]["field"] == "/detail");
  const auto& refused = t.reply_to(9)["result"];
  CHECK(refused["isError"] == true);
  CHECK(refused["content"][0]["text"].get<std::string>().find("'fact' appears twice") != std::string::npos);
  CHECK(t.reply_to(10)["result"]["isError"] == true);
  CHECK(t.reply_to(10)["result"]["content"][0]["text"].get<std::string>().find("'k' appears twice") !=
        std::string::npos);
  CHECK(t.reply_to(11)["error"]["code"] == -32600);
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
      {"passed", verdict.passed()}, {"failed", verdict.failed()}, {"warnings", verdict.warnings()},
      {"prose", verdict.prose()}};
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
