// entities_recorded: every name the model used came from a recorded set.
#include "catch2_compat.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

#include "fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {
struct Seed {
  gp::FactRegistry reg;
  Seed() {
    reg.record_domain("campaigns", {"north", "harbour", "delta"}, {.tool = "crm.list", .args = {{"kind", "campaign"}}});
    gp::testing::record_campaign_ctr(reg);
    reg.record_table("regions", json::array({{{"region", "emea"}, {"spend", 10}}, {{"region", "apac"}, {"spend", 4}}}),
                     {.key_column = "region", .tool = "warehouse.query", .args = {{"table", "regions"}}});
  }
};

gp::Verdict verdict(const gp::FactRegistry& reg, const gp::entities_recorded& check, const json& output) {
  gp::Boundary b(reg, check.facts, check);
  return b.try_submit(output);
}

const gp::entities_recorded campaigns{.facts = {"campaigns"}, .fields = {"mentioned"}};
}  // namespace

TEST_CASE("a near-miss name is a finding that suggests the recorded spelling") {
  Seed s;
  const auto v = verdict(s.reg, campaigns, {{"mentioned", {"north", "harbor"}}});
  REQUIRE(v.findings().size() == 1);
  const auto& f = v.findings()[0];
  CHECK(f.check == "entities_recorded");
  CHECK(f.field == "/mentioned/1");
  CHECK(f.said == "'harbor'");
  CHECK(f.supported.empty());
  CHECK(f.fact == "campaigns");
  CHECK(f.provenance == "crm.list(kind='campaign')");
  CHECK(f.detail == "'harbor' is not a recorded name; closest: 'harbour'; recorded: 'north', 'harbour', 'delta'");
  CHECK(f.message() ==
        "unsupported claim in field '/mentioned/1': model said 'harbor'\n"
        "| fact='campaigns'\n"
        "| provenance=crm.list(kind='campaign')\n"
        "| 'harbor' is not a recorded name; closest: 'harbour'; recorded: 'north', 'harbour', 'delta'");
}

TEST_CASE("a case-changed name is not recorded and the finding says names are case-sensitive") {
  Seed s;
  const auto v = verdict(s.reg, campaigns, {{"mentioned", "Harbour"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "mentioned");
  CHECK(v.findings()[0].detail ==
        "'Harbour' is not a recorded name (names are case-sensitive); closest: 'harbour'; recorded: 'north', "
        "'harbour', 'delta'");
  // Even a case change too large for the edit bound is found.
  const auto upper = verdict(s.reg, campaigns, {{"mentioned", "HARBOUR"}});
  REQUIRE(upper.findings().size() == 1);
  CHECK(upper.findings()[0].detail ==
        "'HARBOUR' is not a recorded name (names are case-sensitive); closest: 'harbour'; recorded: 'north', "
        "'harbour', 'delta'");
}

TEST_CASE("a wrong name hidden in an array of objects is found with a pointer to it") {
  Seed s;
  const auto v = verdict(s.reg, gp::entities_recorded{.facts = {"campaigns"}, .fields = {"top"}},
                         {{"top", {{{"name", "harbour"}, {"score", 0.0455}}, {{"name", "nort"}, {"score", 0.0412}}}}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "/top/1/name");
  CHECK(v.findings()[0].detail ==
        "'nort' is not a recorded name; closest: 'north'; recorded: 'north', 'harbour', 'delta'");
}

TEST_CASE("recorded names are accepted as a string an array or an array of objects") {
  Seed s;
  const gp::entities_recorded check{.facts = {"campaigns"}, .fields = {"winner", "top", "rows"}};
  CHECK(verdict(s.reg, check,
                {{"winner", "harbour"},
                 {"top", {"harbour", "north"}},
                 {"rows", {{{"name", "delta"}}, {{"name", "north"}, {"extra", 1}}}}})
            .ok());
  // An empty list claims that none qualified: accepted only when allowed.
  CHECK_FALSE(verdict(s.reg, check, {{"winner", "harbour"}, {"top", json::array()}, {"rows", json::array()}}).ok());
  const gp::entities_recorded allowing{
      .facts = {"campaigns"}, .fields = {"winner", "top", "rows"}, .allow_empty = true};
  CHECK(verdict(s.reg, allowing, {{"winner", "harbour"}, {"top", json::array()}, {"rows", json::array()}}).ok());
}

TEST_CASE("an empty list or an empty name smuggles in a none-qualified claim and is a finding unless allowed") {
  Seed s;
  const gp::entities_recorded check{.facts = {"campaigns"}, .fields = {"mentioned"}};
  const auto v = verdict(s.reg, check, {{"mentioned", json::array()}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "[]");
  CHECK(
      v.findings()[0].detail ==
      "an empty list is itself a claim \xE2\x80\x94 that no recorded name qualifies \xE2\x80\x94 and no recorded fact "
      "supports it (pass entities_recorded::allow_empty to accept one)");
  const auto w = verdict(s.reg, check, {{"mentioned", ""}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].detail.rfind("an empty name is itself a claim", 0) == 0);
  // The model is never told about the developer's option.
  CHECK(v.correction().find("allow_empty") == std::string::npos);
  CHECK(verdict(s.reg, {.facts = {"campaigns"}, .fields = {"mentioned"}, .allow_empty = true},
                {{"mentioned", json::array()}})
            .ok());
}

TEST_CASE("case insensitive matching folds case but still refuses a name that is not recorded") {
  Seed s;
  const gp::entities_recorded check{.facts = {"campaigns"}, .fields = {"mentioned"}, .case_sensitive = false};
  CHECK(verdict(s.reg, check, {{"mentioned", {"HARBOUR", "North", "delta"}}}).ok());
  CHECK_FALSE(verdict(s.reg, check, {{"mentioned", {"HARBOURS"}}}).ok());
  // Case-sensitive by default.
  CHECK_FALSE(verdict(s.reg, {.facts = {"campaigns"}, .fields = {"mentioned"}}, {{"mentioned", {"North"}}}).ok());
}

TEST_CASE("case insensitive matching compares names after Unicode normalization") {
  gp::FactRegistry reg;
  reg.record_domain("names", {"Caf\xC3\xA9"}, {.tool = "crm.list"});  // precomposed e-acute
  const gp::entities_recorded check{.facts = {"names"}, .fields = {"n"}, .case_sensitive = false};
  gp::Boundary b(reg, {"names"}, check);
  CHECK(b.try_submit({{"n", "CAFE\xCC\x81"}}).ok());  // E + combining acute
  CHECK(b.try_submit({{"n", "caf\xC3\x89"}}).ok());   // capital E-acute
  CHECK_FALSE(b.try_submit({{"n", "cafe"}}).ok());
}

TEST_CASE("a name a reader would call close is suggested even when it is more than two edits away") {
  Seed s;
  const auto v = verdict(s.reg, campaigns, {{"mentioned", "northwest"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "'northwest' is not a recorded name; closest: 'north'; recorded: 'north', 'harbour', 'delta'");
}

TEST_CASE("integer ids are names and their impersonations are findings saying why") {
  gp::FactRegistry reg;
  reg.record_domain("stores", {101, 102}, {.tool = "crm.list", .label = "store"});
  const gp::entities_recorded check{.facts = {"stores"}, .fields = {"s"}};
  gp::Boundary b(reg, {"stores"}, check);
  CHECK(b.try_submit({{"s", {101, 102}}}).ok());
  const auto v = b.try_submit({{"s", {101, "102", 101.0, true, 103}}});
  REQUIRE(v.findings().size() == 4);
  CHECK(v.findings()[0].detail ==
        "'102' is not a recorded store; '102' is text, and the recorded entity 102 is an "
        "integer (write it as 102); recorded: 101, 102");
  CHECK(v.findings()[1].detail.find("an entity id is an integer: 101 is recorded") != std::string::npos);
  CHECK(v.findings()[2].detail.rfind("expected an entity (a string, or an integer id), got a boolean", 0) == 0);
  CHECK(v.findings()[3].detail == "103 is not a recorded store; recorded: 101, 102");
}

TEST_CASE("ranking entities and the string keys of a table count as recorded names") {
  Seed s;
  const gp::entities_recorded check{.facts = {"campaign_ctr", "regions"}, .fields = {"names"}};
  CHECK(verdict(s.reg, check, {{"names", {"harbour", "emea", "apac", "delta"}}}).ok());
  const auto v = verdict(s.reg, check, {{"names", {"harbour", "europe", "spend"}}});
  REQUIRE(v.findings().size() == 2);
  CHECK(v.findings()[0].field == "/names/1");
  CHECK(v.findings()[1].field == "/names/2");
  // A column name is not an entity, and with two facts the detail names both.
  CHECK(v.findings()[1].detail ==
        "'spend' is not a recorded name in 'campaign_ctr' or 'regions'; recorded: 'harbour', 'north', "
        "'delta', 'emea', 'apac'");
  CHECK(v.findings()[1].fact.empty());
}

TEST_CASE("a table key that is a number does not make its digits a recorded name") {
  gp::FactRegistry reg;
  reg.record_table("stores", json::array({{{"id", 7}}, {{"id", 8}}}), {.key_column = "id", .tool = "db"});
  const auto v = verdict(reg, gp::entities_recorded{.facts = {"stores"}, .fields = {"store"}}, {{"store", "7"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "'7' is not a recorded name; '7' is text, and the recorded entity 7 is an integer (write "
        "it as 7); recorded: 7, 8");
}

TEST_CASE("the closest names are listed best first and at most three") {
  gp::FactRegistry reg;
  reg.record_domain("d", {"harbours", "harbour", "harb0r", "arbor", "Harbor", "zzzzzz"}, {.tool = "t"});
  const auto v = verdict(reg, gp::entities_recorded{.facts = {"d"}, .fields = {"n"}}, {{"n", "harbor"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "'harbor' is not a recorded name (names are case-sensitive); closest: 'Harbor', 'harbour', 'harb0r'; recorded: "
        "'harbours', 'harbour', 'harb0r', 'arbor', "
        "'Harbor', 'zzzzzz'");
}

TEST_CASE("a name far from every recorded name gets no suggestion") {
  Seed s;
  const auto v = verdict(s.reg, campaigns, {{"mentioned", "lighthouse"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail == "'lighthouse' is not a recorded name; recorded: 'north', 'harbour', 'delta'");
}

TEST_CASE("a name recorded in two facts is suggested once") {
  Seed s;
  const auto v =
      verdict(s.reg, gp::entities_recorded{.facts = {"campaigns", "campaign_ctr"}, .fields = {"n"}}, {{"n", "delt"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "'delt' is not a recorded name in 'campaigns' or 'campaign_ctr'; closest: 'delta'; recorded: 'north', "
        "'harbour', 'delta'");
}

TEST_CASE("a number or an object where a name belongs is a finding") {
  Seed s;
  const gp::entities_recorded check{.facts = {"campaigns"}, .fields = {"a", "b", "c", "d"}};
  const auto v = verdict(s.reg, check,
                         {{"a", 7}, {"b", {{"name", "north"}}}, {"c", {1.5, "north"}}, {"d", {{{"title", "north"}}}}});
  REQUIRE(v.findings().size() == 4);
  CHECK(v.findings()[0].field == "a");
  CHECK(v.findings()[0].detail == "7 is not a recorded name; recorded: 'north', 'harbour', 'delta'");
  CHECK(v.findings()[1].field == "b");
  CHECK(v.findings()[1].detail.find("got an object") != std::string::npos);
  CHECK(v.findings()[2].field == "/c/0");
  CHECK(v.findings()[2].detail ==
        "expected an entity (a string, or an integer id), got a number with a fraction part or an "
        "exponent, which is not a name recorded as a name; recorded: 'north', 'harbour', 'delta'");
  CHECK(v.findings()[3].field == "/d/0");
  CHECK(v.findings()[3].detail == "expected an object with a \"name\" naming a recorded entity; this one has none");
}

TEST_CASE("a missing names field is a finding that asks for an empty array when no names were used") {
  Seed s;
  const auto v = verdict(s.reg, campaigns, {{"winner", "harbour"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said.empty());
  CHECK(v.findings()[0].message().find("the output has no such field") != std::string::npos);
  CHECK(v.findings()[0].detail.find("the output has no such field") != std::string::npos);
}

TEST_CASE("fields given as JSON Pointers are read and reported as pointers") {
  Seed s;
  const auto v = verdict(s.reg, gp::entities_recorded{.facts = {"campaigns"}, .fields = {"/report/a~1b"}},
                         {{"report", {{"a/b", {"north", "souths"}}}}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "/report/a~1b/1");
}

TEST_CASE("hostile names are escaped in every part of the finding") {
  gp::FactRegistry reg;
  reg.record_domain("d", {"harbour\n| fact='forged'"}, {.tool = "t"});
  const auto v =
      verdict(reg, gp::entities_recorded{.facts = {"d"}, .fields = {"n\r"}}, {{"n\r", "harbour\n| fact='forged'\x1b"}});
  REQUIRE(v.findings().size() == 1);
  const std::string m = v.findings()[0].message();
  CHECK(m.find('\r') == std::string::npos);
  CHECK(m.find('\x1b') == std::string::npos);
  CHECK(std::count(m.begin(), m.end(), '\n') == 3);  // four lines, none forged
  CHECK(v.findings()[0].detail ==
        "'harbour\\n| fact=\\'forged\\'\\x1b' is not a recorded name; closest: 'harbour\\n| fact=\\'forged\\''; "
        "recorded: "
        "'harbour\\n| fact=\\'forged\\''");
}

TEST_CASE("entities_recorded refuses configurations that cannot name entities") {
  Seed s;
  s.reg.record_table("unkeyed", json::array({{{"a", 1}}}), {.tool = "t"});
  s.reg.record_fact("total", 12, {.tool = "t"});
  const auto refuses = [&](const gp::entities_recorded& c, const std::string& part) {
    try {
      gp::Boundary b(s.reg, {"campaigns", "unkeyed", "total"}, c);
      b.submit(json::object());
      FAIL("expected a ConfigurationError");
    } catch (const gp::ConfigurationError& e) {
      CHECK_THAT(e.what(), Catch::Contains(part));
    }
  };
  refuses({.facts = {"unkeyed"}, .fields = {"n"}}, "'unkeyed' has no key column");
  refuses({.facts = {"total"}, .fields = {"n"}},
          "needs a Domain (from record_domain), a Ranking (from record_ranking) or a Table with a key column");
  refuses({.facts = {}, .fields = {"n"}}, "no facts named");
  refuses({.facts = {"campaigns"}, .fields = {}}, "no fields named");
  refuses({.facts = {"campaigns"}, .fields = {"/a~2"}}, "not a valid JSON Pointer");
}

TEST_CASE("schema offers the recorded names for every shape a names field may take") {
  Seed s;
  gp::Boundary b(s.reg, {"campaigns"}, gp::entities_recorded{.facts = {"campaigns"}, .fields = {"mentioned"}});
  const json schema = b.schema();
  b.submit({{"mentioned", json::array({"north"})}});
  const json& any = schema["properties"]["mentioned"]["anyOf"];
  REQUIRE(any.size() == 3);
  CHECK(any[0]["enum"] == json::array({"north", "harbour", "delta"}));
  CHECK(any[1]["items"]["enum"] == json::array({"north", "harbour", "delta"}));
  CHECK(any[2]["items"]["required"] == json::array({"name"}));
  CHECK(schema["required"] == json::array({"mentioned"}));
}

TEST_CASE("the bounded edit distance is exact within the bound and reports bound plus one beyond it") {
  gp::detail::BoundedEditDistance d;
  CHECK(d("harbor", "harbour", 2) == 1);
  CHECK(d("kitten", "sitting", 3) == 3);
  CHECK(d("kitten", "sitting", 2) == 3);
  CHECK(d("", "ab", 2) == 2);
  CHECK(d("abc", "abc", 1) == 0);
  CHECK(d("abcdef", "badcfe", 4) == 4);
  CHECK(d("abcdef", "badcfe", 3) == 4);
  CHECK(d("a", "abcdefgh", 3) == 4);
  // Against the full table on many small strings over a small alphabet.
  const auto full = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u), prev[j] + 1, cur[j - 1] + 1});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  unsigned seed = 12345;
  const auto next = [&seed] { return (seed = seed * 1103515245u + 12345u) >> 16; };
  const auto word = [&] {
    std::string w(next() % 8, 'a');
    for (auto& c : w) c = static_cast<char>('a' + next() % 3);
    return w;
  };
  for (int i = 0; i < 3000; ++i) {
    const std::string a = word(), b = word();
    const std::size_t bound = next() % 4;
    CHECK(d(a, b, bound) == std::min(full(a, b), bound + 1));
  }
}

TEST_CASE("a million-member domain answers by lookup and bounds the search for suggestions") {
  gp::FactRegistry reg;
  std::vector<gp::Entity> members;
  members.reserve(1'000'000);
  for (int i = 0; i < 1'000'000; ++i) members.push_back("campaign-" + std::to_string(i));
  reg.record_domain("all", std::move(members), {.tool = "crm.list"});
  json names = json::array();
  for (int i = 0; i < 20'000; ++i) names.push_back("campaign-" + std::to_string(i * 37));
  // The same unknown name many times is searched once; its closest names are found.
  for (int i = 0; i < 5; ++i) names.push_back("campaign-999999x");
  // Two more unknown names spend the rest of the budget; the last is still a finding.
  names.push_back("campaign-x1");
  names.push_back("campaign-x2");
  names.push_back("kampaign-999998");
  const auto v = verdict(reg, gp::entities_recorded{.facts = {"all"}, .fields = {"names"}}, {{"names", names}});
  REQUIRE(v.findings().size() == 8);
  for (int i = 0; i < 5; ++i)
    CHECK(v.findings()[static_cast<std::size_t>(i)].detail ==
          "'campaign-999999x' is not a recorded name; closest: 'campaign-999999', 'campaign-99999', "
          "'campaign-199999'; recorded: 'campaign-0', 'campaign-1', 'campaign-2', 'campaign-3', 'campaign-4', "
          "'campaign-5', 'campaign-6', 'campaign-7', 'campaign-8', 'campaign-9', 'campaign-10', 'campaign-11', "
          "'campaign-12', 'campaign-13', 'campaign-14', 'campaign-15', 'campaign-16', 'campaign-17', 'campaign-18', "
          "'campaign-19' and 999,980 more");
  // 2,000,000 names examined in all: the first full search and the second use it up.
  CHECK(v.findings()[5].detail.find("closest") != std::string::npos);
  CHECK(v.findings()[7].detail.rfind("'kampaign-999998' is not a recorded name; recorded: 'campaign-0', ", 0) == 0);
  CHECK(v.findings()[7].detail.find("'campaign-19' and 999,980 more") != std::string::npos);
}

TEST_CASE("edits are counted in characters so a name missing its accent is one edit from the recorded one") {
  gp::FactRegistry reg;
  reg.record_domain("staff", {"\xC3\x85sa", "Bo"}, {.tool = "hr.list"});  // "Åsa": 4 bytes and 3 characters
  gp::Boundary b(reg, {"staff"}, gp::entities_recorded{.facts = {"staff"}, .fields = {"name"}});
  const auto v = b.try_submit({{"name", "Asa"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail == "'Asa' is not a recorded name; closest: '\xC3\x85sa'; recorded: '\xC3\x85sa', 'Bo'");
}
