// Prose with checked slots (BoundaryOptions::prose_field): every number and recorded name
// in the model's sentence is a slot bound to a field a check reads, or a finding.
#include "catch2_compat.hpp"

#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {
struct Campaigns {
  gp::FactRegistry reg;
  Campaigns() {
    reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                       {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}}});
    reg.record_domain("regions", {"North Sea", "Caf\xC3\xA9 Row"}, {.tool = "crm.list"});
    reg.record_table("stores", json::array({{{"store", "Harbourside"}, {"sales", 10}}, {{"store", 7}, {"sales", 4}}}),
                     {.key_column = "store", .tool = "db"});
  }
};

const gp::superlative winner{.fact = "campaign_ctr"};  // reads winner, score

// The findings' `said`, in order.
std::vector<std::string> said(const gp::Verdict& v) {
  std::vector<std::string> out;
  for (const auto& f : v.findings()) out.push_back(f.said);
  return out;
}

// A verdict on {"winner": "harbour", "score": 0.0455, "summary": text} as JSON text.
gp::Verdict on_summary(const std::string& text, gp::BoundaryOptions options = {.prose_field = "summary"}) {
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr", "regions", "stores"}, std::move(options), winner);
  const json output = {{"winner", "harbour"}, {"score", 0.0455}, {"summary", text}};
  return b.try_submit_json(output.dump());
}
}  // namespace

TEST_CASE("a template whose numbers and names are all slots over checked fields is accepted and rendered") {
  const gp::Verdict v = on_summary("{winner} led the week with a CTR of {score}.");
  REQUIRE(v.ok());
  CHECK(v.prose() == "harbour led the week with a CTR of 0.0455.");
  CHECK(v.passed().back() == "prose(field='summary')");
}

TEST_CASE("a digit is a finding in every position: inside a word, a year, a bare percentage") {
  const gp::Verdict v = on_summary("{winner} led Q3 of 2026 by 12% at {score}");
  REQUIRE_FALSE(v.ok());
  CHECK(said(v) == std::vector<std::string>{"'3'", "'2026'", "'12'"});
  for (const auto& f : v.findings()) {
    CHECK(f.check == "prose");
    CHECK(f.field == "summary");
  }
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("at byte 14"));
  CHECK_THAT(v.findings()[1].detail, Catch::Contains("at byte 19"));
  CHECK(v.prose().empty());
  CHECK(v.failed().back() == "prose(field='summary')");
}

TEST_CASE("decimal digits of other scripts are numbers too, one finding per run") {
  // U+0663 ARABIC-INDIC DIGIT THREE twice, then U+FF11 FULLWIDTH DIGIT ONE.
  const gp::Verdict v = on_summary("{winner}: \xD9\xA3\xD9\xA3 and \xEF\xBC\x91");
  CHECK(said(v) == std::vector<std::string>{"'\xD9\xA3\xD9\xA3'", "'\xEF\xBC\x91'"});
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("at byte 10"));
}

TEST_CASE("a recorded name written outside a slot is a finding, in any case and any normal form") {
  SECTION("another case") {
    const gp::Verdict v = on_summary("HARBOUR led at {score}, ahead of North");
    CHECK(said(v) == std::vector<std::string>{"'HARBOUR'", "'North'"});
    CHECK(v.findings()[0].fact == "campaign_ctr");
    CHECK_THAT(v.findings()[0].provenance, Catch::Contains("warehouse.query"));
  }
  SECTION("decomposed accents against a precomposed recorded name, and a name of two words") {
    // "CAFE" + U+0301 COMBINING ACUTE ACCENT, then "row": the Domain's "Café Row".
    const gp::Verdict v = on_summary("{winner} won; CAFE\xCC\x81   row lagged; the north  sea too");
    CHECK(said(v) == std::vector<std::string>{"'CAFE\xCC\x81   row'", "'north  sea'"});
    CHECK(v.findings()[0].fact == "regions");
  }
  SECTION("a Table's key column values are recorded names") {
    CHECK(said(on_summary("{winner} beat harbourside")) == std::vector<std::string>{"'harbourside'"});
  }
}

TEST_CASE("a recorded name inside a longer word is not that name") {
  const gp::Verdict v = on_summary("{winner} led the northern and harbour_side markets; cafe row; northsea");
  CHECK(v.ok());
  // "cafe" without its accent is another word, and "harbour_side" one word, not "harbour".
}

TEST_CASE("one word of a recorded name of several is not the name") {
  CHECK(on_summary("{winner} led in the sea, by the row").ok());
}

TEST_CASE("slots at the very start and end of the template render in place") {
  const gp::Verdict v = on_summary("{winner}{score}");
  REQUIRE(v.ok());
  CHECK(v.prose() == "harbour0.0455");
}

TEST_CASE("doubled braces are literal, and a name between them is prose") {
  const gp::Verdict v = on_summary("{{winner}} is {winner} {{");
  REQUIRE(v.ok());
  CHECK(v.prose() == "{winner} is harbour {");
  CHECK(said(on_summary("{{harbour}}")) == std::vector<std::string>{"'harbour'"});
}

TEST_CASE("a brace that opens or closes no slot, an empty slot and a spaced slot are findings") {
  const gp::Verdict v = on_summary("{winner} } { winner} {} {winner {/bad~2}");
  REQUIRE_FALSE(v.ok());
  const auto s = said(v);
  CHECK(s == std::vector<std::string>{"'}'", "'{ winner}'", "'{}'", "'{'", "'{/bad~2}'", "'2'"});
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("closes no slot"));
  CHECK_THAT(v.findings()[1].detail, Catch::Contains("holds no whitespace"));
  CHECK_THAT(v.findings()[3].detail, Catch::Contains("no '}' closes"));
  CHECK_THAT(v.findings()[4].detail, Catch::Contains("not a valid JSON Pointer"));
}

TEST_CASE("a slot to a field the output lacks, to null, to an object or an array is a finding") {
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary", .free_fields = {"note", "list", "nothing"}},
                 winner);
  const json out = {{"winner", "harbour"}, {"score", 0.0455},
                    {"note", {{"a", 1}}},  {"list", {"x"}},
                    {"nothing", nullptr},  {"summary", "{missing} {note} {list} {nothing} {/list/0}"}};
  const gp::Verdict v = b.try_submit(out);
  REQUIRE(v.findings().size() == 4);
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("does not have"));
  CHECK_THAT(v.findings()[1].detail, Catch::Contains("names an object"));
  CHECK_THAT(v.findings()[2].detail, Catch::Contains("names an array"));
  CHECK_THAT(v.findings()[3].detail, Catch::Contains("holds null"));
}

TEST_CASE("a slot over a field no check reads is an unchecked slot, unless free_fields names it") {
  Campaigns c;
  const json out = {{"winner", "harbour"}, {"score", 0.0455}, {"region", "EMEA"}, {"summary", "{winner} in {region}"}};
  {
    gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary"}, winner);
    const gp::Verdict v = b.try_submit(out);
    REQUIRE(v.findings().size() == 1);
    CHECK_THAT(v.findings()[0].detail, Catch::Contains("unchecked slot"));
    // The advice to the developer stays out of the model's correction.
    CHECK_THAT(v.findings()[0].detail, Catch::Contains("free_fields"));
    CHECK_THAT(v.correction(), !Catch::Contains("free_fields"));
  }
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary", .free_fields = {"region"}}, winner);
  const gp::Verdict v = b.try_submit(out);
  REQUIRE(v.ok());
  CHECK(v.prose() == "harbour in EMEA");
}

TEST_CASE("a pointer slot under a field a check reads counts as checked") {
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary"},
                 gp::ranking_prefix{.fact = "campaign_ctr", .k = 2});
  const gp::Verdict v = b.try_submit({{"top", {"harbour", "north"}}, {"summary", "{/top/0}, then {/top/1}"}});
  REQUIRE(v.ok());
  CHECK(v.prose() == "harbour, then north");
}

namespace {
// A check that states nothing about what it reads.
struct silent_check {
  std::vector<std::string> leans_on() const { return {}; }
  void validate(const gp::FactRegistry&) const {}
  void verify(const gp::FactRegistry&, const json&, std::vector<gp::Finding>&) const {}
};
}  // namespace

TEST_CASE("a check that states no fields makes none of its slots checked") {
  Campaigns c;
  gp::Boundary b(c.reg, {}, {.prose_field = "summary"}, silent_check{});
  const gp::Verdict v = b.try_submit({{"winner", "harbour"}, {"summary", "{winner}"}});
  REQUIRE(v.findings().size() == 1);
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("unchecked slot"));
  // Held in a CheckList, through AnyCheck, it states nothing either.
  gp::Boundary listed(c.reg, {"campaign_ctr"}, {.prose_field = "summary"}, gp::CheckList{silent_check{}, winner});
  const gp::Verdict w = listed.try_submit({{"winner", "harbour"}, {"extra", 1}, {"summary", "{winner} {extra}"}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].said == "'{extra}'");
}

TEST_CASE("an empty template, a missing prose field and one that is not a string are findings") {
  CHECK_THAT(on_summary("").findings().at(0).detail, Catch::Contains("is empty"));
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary"}, winner);
  const gp::Verdict missing = b.try_submit({{"winner", "harbour"}});
  REQUIRE(missing.findings().size() == 1);
  CHECK_THAT(missing.findings()[0].detail, Catch::Contains("'summary' is missing"));
  const gp::Verdict number = b.try_submit({{"winner", "harbour"}, {"summary", 3}});
  CHECK_THAT(number.findings().at(0).detail, Catch::Contains("is a number, not a string"));
}

TEST_CASE("rendering keeps the digits the model wrote") {
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary"},
                 gp::superlative{.fact = "campaign_ctr", .rounding = gp::Rounding::as_stated});
  const gp::Verdict v = b.try_submit_json(R"({"winner": "harbour", "score": 0.04550, "summary": "{winner}: {score}"})");
  REQUIRE(v.ok());
  CHECK(v.prose() == "harbour: 0.04550");
  CHECK(v.to_json()["prose"] == "harbour: 0.04550");
}

TEST_CASE("a verdict whose checks failed renders no prose, and its re-ask schema keeps the prose field") {
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary"}, winner);
  const gp::Verdict v = b.try_submit({{"winner", "north"}, {"summary", "{winner} won"}});
  REQUIRE_FALSE(v.ok());
  CHECK(v.prose().empty());
  CHECK(v.failed().front() == "superlative(fact='campaign_ctr', field='winner')");
  CHECK(v.passed().back() == "prose(field='summary')");
  // The prose field is accepted as written: its slot will show the corrected winner.
  CHECK(v.accepted().contains("summary"));
  const gp::Verdict p = b.try_submit({{"winner", "harbour"}, {"summary", "north won"}});
  CHECK(p.reask_schema()["properties"].contains("summary"));
  CHECK_FALSE(p.accepted().contains("summary"));
}

TEST_CASE("under stop_at_first the prose is not read once a check has failed") {
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.stop_at_first = true, .prose_field = "summary"}, winner);
  const gp::Verdict v = b.try_submit({{"winner", "north"}, {"summary", "12"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].check == "superlative");
}

TEST_CASE("a control character in the prose is escaped when rendered, and a newline stays a newline") {
  const gp::Verdict v = on_summary("{winner}\nwon\x07");
  REQUIRE(v.ok());
  CHECK(v.prose() == "harbour\nwon\\x07");
}

TEST_CASE("at most eight prose findings are listed, then one counts the rest") {
  std::string many = "{winner}";
  for (int i = 0; i < 20; ++i) many += " 1";
  const gp::Verdict v = on_summary(many);
  REQUIRE(v.findings().size() == 9);
  CHECK_THAT(v.findings().back().detail, Catch::Contains("12 more"));
}

TEST_CASE("schema() describes the prose field as a required string naming the slots") {
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"},
                 {.require_output = false, .prose_field = "summary", .free_fields = {"region"}}, winner);
  const json s = b.schema();
  REQUIRE(s["properties"].contains("summary"));
  CHECK(s["properties"]["summary"]["type"] == "string");
  CHECK_THAT(s["properties"]["summary"]["description"].get<std::string>(),
             Catch::Contains("{winner}, {score}, {region}"));
  const auto& required = s["required"];
  CHECK(std::find(required.begin(), required.end(), "summary") != required.end());
}

TEST_CASE("prose options that cannot work are a ConfigurationError when the boundary is built") {
  Campaigns c;
  CHECK_THROWS_AS(gp::Boundary(c.reg, {"campaign_ctr"}, {.free_fields = {"region"}}, winner), gp::ConfigurationError);
  CHECK_THROWS_AS(gp::Boundary(c.reg, {"campaign_ctr"}, {.prose_field = "/a~9"}, winner), gp::ConfigurationError);
  CHECK_THROWS_AS(gp::Boundary(c.reg, {"campaign_ctr"}, {.prose_field = "s", .free_fields = {""}}, winner),
                  gp::ConfigurationError);
}

TEST_CASE("the prose field may be a JSON Pointer") {
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "/report/text"}, winner);
  const gp::Verdict v = b.try_submit({{"winner", "harbour"}, {"report", {{"text", "{winner} won"}}}});
  REQUIRE(v.ok());
  CHECK(v.prose() == "harbour won");
}

TEST_CASE("checks state the fields they read") {
  CHECK(gp::superlative{.fact = "f", .rank_field = "rank"}.reads() ==
        std::vector<std::string>{"winner", "score", "rank"});
  CHECK(gp::comparison{.fact = "f", .value_field = ""}.reads() == std::vector<std::string>{"a", "b"});
  CHECK(gp::row_integrity{.fact = "t", .key_field = "k", .fields = {{"ctr", "ctr"}}}.reads() ==
        std::vector<std::string>{"k", "ctr"});
  CHECK(gp::row_integrity{.fact = "t", .key_field = "k", .fields = {}, .at = "/rows"}.reads() ==
        std::vector<std::string>{"/rows"});
  CHECK(gp::entities_recorded{.facts = {"d"}, .fields = {"a", "/b/0"}}.reads() ==
        std::vector<std::string>{"a", "/b/0"});
  CHECK(gp::AnyCheck(silent_check{}).reads() == std::nullopt);
  CHECK(gp::AnyCheck(gp::ranking_prefix{.fact = "f"}).reads() == std::vector<std::string>{"top"});
}

TEST_CASE("a recorded name in look-alike letters is the name: fullwidth, mathematical, Cyrillic, invisible joins") {
  const std::vector<std::string> disguised = {
      "\xEF\xBD\x8E\xEF\xBD\x8F\xEF\xBD\x92\xEF\xBD\x94\xEF\xBD\x88",  // fullwidth 'ｎｏｒｔｈ'
      "\xF0\x9D\x90\xA7\xF0\x9D\x90\xA8\xF0\x9D\x90\xAB\xF0\x9D\x90\xAD\xF0\x9D\x90\xA1",  // mathematical bold
      "n\xD0\xBErth",                                                                      // Cyrillic small o
      "N\xD0\x9ERTH",       // Cyrillic capital O, in capitals
      "\xD0\x9D\x41RBOUR",  // Cyrillic capital EN for H: its lower case looks like no Latin letter
      "nor\xE2\x80\x8Bth",  // a zero-width space inside
      "har\xC2\xAD"
      "bour",                                                          // a soft hyphen inside
      "\xE2\x93\x9D\xE2\x93\x9E\xE2\x93\xA1\xE2\x93\xA3\xE2\x93\x97",  // circled letters
      "rnorth",  // not a name: an 'r' and an 'n' read as 'm', and "morth" is none either
  };
  for (std::size_t i = 0; i + 1 < disguised.size(); ++i) {
    INFO(disguised[i]);
    const gp::Verdict v = on_summary("{winner} led, ahead of " + disguised[i] + " at {score}");
    REQUIRE(v.findings().size() == 1);
    CHECK(v.findings()[0].said == gp::detail::quote(disguised[i]));
    CHECK(v.findings()[0].fact == "campaign_ctr");
    CHECK_THAT(v.findings()[0].detail, Catch::Contains("which reads as '"));
    CHECK_THAT(v.findings()[0].detail, Catch::Contains("at byte 23"));
  }
  CHECK(on_summary("{winner} led, ahead of " + disguised.back() + " at {score}").ok());
  // Written plainly, in another case, it needs no "reads as".
  const gp::Verdict plain = on_summary("{winner} led, ahead of North at {score}");
  REQUIRE(plain.findings().size() == 1);
  CHECK_THAT(plain.findings()[0].detail, !Catch::Contains("reads as"));
}

TEST_CASE("a look-alike that is another word, or part of one, is not the name") {
  // A Cyrillic letter inside a longer word, a Greek word, and a name's letters in a symbol.
  CHECK(on_summary("{winner} led the n\xD0\xBErthern markets at {score}").ok());
  CHECK(on_summary("{winner} led \xCE\xBD\xCE\xBF\xCF\x81\xCF\x84 at {score}").ok());  // Greek 'νορτ'
  CHECK(on_summary("{winner} led harbour_north at {score}").ok());
}

TEST_CASE("a sign, digit or decimal point written against a numeric slot is a finding") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-{score}", "'-{score}'"},
      {"+{score}", "'+{score}'"},
      {"\xE2\x88\x92{score}", "'\xE2\x88\x92{score}'"},  // U+2212 MINUS SIGN
      {"\xE2\x80\x93{score}", "'\xE2\x80\x93{score}'"},  // an en dash
      {".{score}", "'.{score}'"},
      {"1{score}", "'1{score}'"},
      {"l{score}", "'l{score}'"},  // a letter shaped like a digit
      {"{score}.5", "'{score}.5'"},
      {"{score}l", "'{score}l'"},
      {"-\xE2\x80\x8B{score}", "'-{score}'"},  // an invisible character between does not part them
  };
  for (const auto& [text, shown] : cases) {
    INFO(text);
    const gp::Verdict v = on_summary("{winner} led at " + text + " today");
    REQUIRE_FALSE(v.ok());
    bool against = false;
    for (const auto& f : v.findings())
      if (f.said == shown) {
        against = true;
        CHECK_THAT(f.detail, Catch::Contains("against the slot '{score}'"));
      }
    CHECK(against);
  }
  // Next to another slot that ends in a digit, too.
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary", .free_fields = {"code"}}, winner);
  const gp::Verdict v = b.try_submit(
      {{"winner", "harbour"}, {"score", 0.0455}, {"code", "B2"}, {"summary", "{winner} scored {code}{score}"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "'2{score}'");
}

TEST_CASE("what stands next to a numeric slot and reads as punctuation or a word is not a finding") {
  for (const std::string text :
       {"{winner} led at {score}.", "{winner} led at {score}, then", "({score})",
        "{winner} led at {score}% and x{score}", "{winner}-led at {score}!", "{winner}: {score}; {score}?"}) {
    INFO(text);
    CHECK(on_summary(text).ok());
  }
}

TEST_CASE("numbers of every kind outside a slot are findings: superscripts, circled digits, fractions") {
  // U+00B2 SUPERSCRIPT TWO, U+2460 CIRCLED DIGIT ONE, U+00BD VULGAR FRACTION ONE HALF; a
  // Roman numeral reads as letters (like "XII"), and is no number.
  const gp::Verdict v = on_summary("{winner} led in m\xC2\xB2, \xE2\x91\xA0 and \xC2\xBD; \xE2\x85\xAB at {score}");
  CHECK(said(v) == std::vector<std::string>{"'\xC2\xB2'", "'\xE2\x91\xA0'", "'\xC2\xBD'"});
  // An invisible character inside a run of digits leaves it one run.
  CHECK(said(on_summary("{winner} led 1\xE2\x80\x8B"
                        "2 at {score}")) == std::vector<std::string>{"'1\\u{200b}2'"});
}

TEST_CASE("slots may insert at most max_text_bytes more than the template, and the prose is then a finding") {
  Campaigns c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary", .free_fields = {"note"}, .max_text_bytes = 1000},
                 winner);
  std::string many;
  for (int i = 0; i < 50; ++i) many += "{note} ";
  const gp::Verdict small = b.try_submit(
      {{"winner", "harbour"}, {"score", 0.0455}, {"note", std::string(20, 'x')}, {"summary", "{winner} " + many}});
  CHECK(small.ok());
  const gp::Verdict big = b.try_submit(
      {{"winner", "harbour"}, {"score", 0.0455}, {"note", std::string(40, 'x')}, {"summary", "{winner} " + many}});
  REQUIRE(big.findings().size() == 1);
  CHECK_THAT(big.findings()[0].detail, Catch::Contains("insert more than 1,000 bytes beyond the template"));
  CHECK(big.prose().empty());
}

TEST_CASE("of a million findings in a template only nine are made, in the order of the text") {
  std::string text = "{winner} ";
  for (int i = 0; i < 250000; ++i) text += "1 { harbour {missing} ";
  // 5.5 MB of text: read whole, past the default bound on an answer's length.
  const gp::Verdict v = on_summary(text, {.prose_field = "summary", .max_text_bytes = 8 * 1024 * 1024});
  REQUIRE(v.findings().size() == 9);
  // digit, brace, name and slot findings interleave in the order of the text
  CHECK(said(v) == std::vector<std::string>{"'1'", "'{'", "'harbour'", "'{missing}'", "'1'", "'{'", "'harbour'",
                                            "'{missing}'", "999992 more"});
  CHECK_THAT(v.findings().back().detail, Catch::Contains("999992 more unsupported claim(s) about 'summary'"));
}
