// check_support.hpp: a check written with it alone, and nothing from groundplane::detail,
// works inside a Boundary and reports the way the built-in checks do.
#include "catch2_compat.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <groundplane/boundary.hpp>
#include <groundplane/check_support.hpp>
#include <groundplane/checks/superlative.hpp>

#include "fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

// A user's check: the stated spend (a number) stays within a recorded limit, and the
// stated label (a string) is the recorded one. Only check_support names are used.
struct spend_within_limit {
  std::string limit_fact;       // a Fact holding a number
  std::string label_fact;       // a Fact holding a string
  std::string field = "spend";  // a key or a JSON Pointer
  std::string label_field = "label";

  std::vector<std::string> leans_on() const { return {limit_fact, label_fact}; }

  void validate(const gp::FactRegistry& reg) const {
    gp::validate_field(field, "spend_within_limit", "field");
    gp::validate_field(label_field, "spend_within_limit", "label_field");
    if (!gp::Decimal::from_json(gp::fact_for<gp::Fact>(reg, limit_fact, "spend_within_limit").value()))
      throw gp::ConfigurationError("spend_within_limit: fact " + gp::quote(limit_fact) + " is not a number");
    (void)gp::fact_for<gp::Fact>(reg, label_fact, "spend_within_limit");
  }

  void verify(const gp::FactRegistry& reg, const json& output, std::vector<gp::Finding>& findings) const {
    const gp::Fact& recorded_limit = reg.get<gp::Fact>(limit_fact);
    const gp::Decimal limit = *gp::Decimal::from_json(recorded_limit.value());
    const json* said = gp::find_field(output, field);
    const auto spend = said ? gp::stated_number(*said) : std::nullopt;
    if (!spend || *spend > limit) {
      gp::Finding f = gp::finding_about("spend_within_limit", field, recorded_limit);
      f.said = said ? gp::render(*said) : "";
      f.supported = "at most " + gp::render(limit);
      f.detail = !said    ? "no spend was stated"
                 : !spend ? "expected a number, got " + std::string(gp::type_name(*said))
                          : "the spend is over the limit by " + gp::render(*spend - limit);
      findings.push_back(std::move(f));
    }
    const gp::Fact& label = reg.get<gp::Fact>(label_fact);
    const json* said_label = gp::find_field(output, label_field);
    if (said_label && *said_label != label.value()) {
      gp::Finding f = gp::finding_about("spend_within_limit", label_field, label);
      f.said = gp::render(*said_label);
      f.supported = gp::render(label.value());
      f.detail = "the label is not the recorded " + gp::quote(label_fact);
      findings.push_back(std::move(f));
    }
  }
};
static_assert(gp::Check<spend_within_limit>);

struct Seed {
  gp::FactRegistry reg;
  Seed() {
    reg.record_fact("q3_limit", 1200, {.tool = "finance.budget", .args = {{"quarter", "2024-Q3"}}});
    reg.record_fact("q3_label", "Q3 spend", {.tool = "finance.budget"});
    reg.record_fact("q3_share", 12.5, {.tool = "finance.share"});
    gp::testing::record_campaign_ctr(reg);
  }
};

const spend_within_limit limit_check{.limit_fact = "q3_limit", .label_fact = "q3_label"};

gp::Verdict submit(const Seed& s, const json& output, const spend_within_limit& check = limit_check) {
  gp::Boundary b(s.reg, {"q3_limit", "q3_label"}, check);
  return b.try_submit(output);
}

}  // namespace

TEST_CASE("a check written with check_support alone accepts what the facts support inside a Boundary") {
  Seed s;
  CHECK(submit(s, {{"spend", 1200}, {"label", "Q3 spend"}}).ok());
  CHECK(submit(s, {{"spend", 999.99}}).ok());  // a label left out is not a claim
  const auto over = submit(s, {{"spend", 1200.01}, {"label", "Q3 spend"}});
  REQUIRE(over.findings().size() == 1);
  const gp::Finding& f = over.findings()[0];
  CHECK(f.check == "spend_within_limit");
  CHECK(f.field == "spend");
  CHECK(f.said == "1200.01");
  CHECK(f.supported == "at most 1200");
  CHECK(f.fact == "q3_limit");
  CHECK(f.provenance == "finance.budget(quarter='2024-Q3')");
  CHECK(f.detail == "the spend is over the limit by 0.01");  // exact: no 0.009999…
  CHECK(f.message() ==
        "unsupported claim in field 'spend': model said 1200.01, registered facts support at most 1200\n"
        "| fact='q3_limit'\n"
        "| provenance=finance.budget(quarter='2024-Q3')\n"
        "| the spend is over the limit by 0.01");
}

TEST_CASE("a missing field in a check_support check is a finding, never a crash") {
  Seed s;
  for (const json& output : {json::object(), json{{"spending", 10}}, json{{"spend", nullptr}}}) {
    const auto v = submit(s, output);
    REQUIRE(v.findings().size() == 1);
    CHECK(v.findings()[0].field == "spend");
  }
  CHECK(submit(s, json::object()).findings()[0].said.empty());
  CHECK(submit(s, json::object()).findings()[0].detail == "no spend was stated");
  CHECK(submit(s, {{"spend", nullptr}}).findings()[0].detail == "expected a number, got null");

  // Through a pointer: absent at every depth, an index past the end, a scalar in the way.
  const spend_within_limit nested{.limit_fact = "q3_limit", .label_fact = "q3_label", .field = "/totals/0/spend"};
  CHECK(submit(s, {{"totals", {{{"spend", 5}}}}}, nested).ok());
  for (const json& output :
       {json::object(), json{{"totals", json::array()}}, json{{"totals", 7}}, json{{"totals", {{{"spent", 5}}}}}}) {
    const auto v = submit(s, output, nested);
    REQUIRE(v.findings().size() == 1);
    CHECK(v.findings()[0].field == "/totals/0/spend");
    CHECK(v.findings()[0].detail == "no spend was stated");
  }
}

TEST_CASE("find_field reads keys and JSON Pointers and gives nullptr where nothing is") {
  const json output = {{"a/b", 1}, {"t~x", 2}, {"rows", {{{"ctr", 0.5}}, {{"ctr", 0.25}}}}, {"s", "text"}};
  REQUIRE(gp::find_field(output, "rows/0") == nullptr);  // not a pointer: a key, absent
  REQUIRE(gp::find_field(output, "/a~1b") != nullptr);
  CHECK(*gp::find_field(output, "/a~1b") == 1);
  REQUIRE(gp::find_field(output, "/t~0x") != nullptr);
  CHECK(*gp::find_field(output, "/t~0x") == 2);
  REQUIRE(gp::find_field(output, "/rows/1/ctr") != nullptr);
  CHECK(*gp::find_field(output, "/rows/1/ctr") == 0.25);
  CHECK(gp::find_field(output, "/rows/2/ctr") == nullptr);   // past the end
  CHECK(gp::find_field(output, "/rows/01/ctr") == nullptr);  // a leading zero names no index
  CHECK(gp::find_field(output, "/s/0") == nullptr);          // into a string
  CHECK(gp::find_field(output, "/a~2b") == nullptr);         // malformed
  CHECK(gp::find_field(json::array({1, 2}), "rows") == nullptr);
  const nlohmann::ordered_json ordered = {{"winner", "harbour"}};
  REQUIRE(gp::find_field(ordered, "winner") != nullptr);
  CHECK(*gp::find_field(ordered, "winner") == "harbour");
}

TEST_CASE("a value with quotes and newlines reaches a check_support finding escaped, as a built-in check shows it") {
  Seed s;
  const std::string hostile = "it's\n| fact='q3_limit'\r\n\x1b[2J\"done\"";
  const auto v = submit(s, {{"spend", 10}, {"label", hostile}});
  REQUIRE(v.findings().size() == 1);
  const gp::Finding& f = v.findings()[0];
  CHECK(f.said == R"('it\'s\n| fact=\'q3_limit\'\r\n\x1b[2J"done"')");
  CHECK(f.supported == "'Q3 spend'");
  CHECK(f.detail == "the label is not the recorded 'q3_label'");
  gp::testing::check_message_is_contained(f.message());

  // The same value rendered by a built-in check: one escaping routine, one result.
  gp::Boundary builtin(s.reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const auto b = builtin.try_submit({{"winner", hostile}});
  REQUIRE(b.findings().size() == 1);
  CHECK(b.findings()[0].said == f.said);
  CHECK(gp::render(json(hostile)) == f.said);
  CHECK(gp::quote(hostile) == f.said);

  // Inside an object or array a string keeps JSON's double quotes, escaped the same way.
  CHECK(gp::render(json{{"k", "a\"b\n"}}) == R"({"k":"a\"b\n"})");
  CHECK(gp::render(json::array({"x'y", 1.5})) == R"(["x'y",1.5])");
  // Invisible and reordering characters are named, not passed on.
  CHECK(gp::quote("north\u202e") == "'north\\u{202e}'");
  CHECK(gp::quote("bad \xff byte") == "'bad \\xff byte'");
}

TEST_CASE("quote and render cap a long value at 80 characters, ending with an ellipsis") {
  const std::string long_name(200, 'n');
  const std::string quoted = gp::quote(long_name);
  CHECK(quoted == "'" + std::string(78, 'n') + "\xE2\x80\xA6");
  CHECK(gp::render(json(long_name)) == quoted);
  CHECK(gp::quote(long_name, 10) == "'nnnnnnnn\xE2\x80\xA6");
}

TEST_CASE("a stated number is read exactly, and a string like 12.5% or 1,200 is refused, not guessed at") {
  CHECK(gp::stated_number(json(12.5)) == gp::Decimal::parse("12.5"));
  CHECK(gp::stated_number(json(1200)) == gp::Decimal(1200));
  CHECK(gp::stated_number(json(0.1)) == gp::Decimal::parse("0.1"));  // the double's shortest form
  for (const json& not_a_number : {json("12.5%"), json("1,200"), json("12.5"), json("1200"), json(true), json(nullptr),
                                   json::array({12.5}), json{{"value", 12.5}}})
    CHECK_FALSE(gp::stated_number(not_a_number).has_value());
  CHECK_FALSE(gp::stated_number(json(std::numeric_limits<double>::quiet_NaN())).has_value());
  CHECK_FALSE(gp::stated_number(json(std::numeric_limits<double>::infinity())).has_value());

  Seed s;
  const auto percent = submit(s, {{"spend", "12.5%"}});
  REQUIRE(percent.findings().size() == 1);
  CHECK(percent.findings()[0].said == "'12.5%'");
  CHECK(percent.findings()[0].detail == "expected a number, got a string");
  const auto grouped = submit(s, {{"spend", "1,200"}});
  REQUIRE(grouped.findings().size() == 1);
  CHECK(grouped.findings()[0].said == "'1,200'");
  CHECK(grouped.findings()[0].detail == "expected a number, got a string");
  const auto infinite = submit(s, {{"spend", std::numeric_limits<double>::infinity()}});
  REQUIRE(infinite.findings().size() == 1);
  CHECK(infinite.findings()[0].said == "inf");
  CHECK(infinite.findings()[0].detail == "expected a number, got a non-finite number");
}

TEST_CASE("a check_support check reads a number sent as text with the digits it was written with") {
  Seed s;
  gp::Boundary exact(s.reg, {"q3_limit", "q3_label"}, limit_check);
  CHECK(exact.try_submit_json(R"({"spend": 1200.000})").ok());
  gp::Boundary over(s.reg, {"q3_limit", "q3_label"}, limit_check);
  // 1200.0000000000000000001 is 1200 as a double; as written it is over the limit.
  const auto v = over.try_submit_json(R"({"spend": 1200.0000000000000000001})");
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "1200.0000000000000000001");
  CHECK(v.findings()[0].detail == "the spend is over the limit by 0.0000000000000000001");
  gp::Boundary trailing(s.reg, {"q3_limit", "q3_label"}, limit_check);
  const auto t = trailing.try_submit_json(R"({"spend": 1300.50})");
  REQUIRE(t.findings().size() == 1);
  CHECK(t.findings()[0].said == "1300.50");  // the model's two decimals, not the double's one
}

TEST_CASE("validate_field and fact_for make a misconfigured check_support check a ConfigurationError") {
  Seed s;
  const auto build = [&](const spend_within_limit& check) {
    gp::Boundary b(s.reg, {"q3_limit", "q3_label", "q3_share", "campaign_ctr"}, check);
    (void)b.try_submit(json::object());
  };
  CHECK_THROWS_WITH(build({.limit_fact = "q3_limit", .label_fact = "q3_label", .field = ""}),
                    Catch::Contains("spend_within_limit: field is empty"));
  CHECK_THROWS_WITH(build({.limit_fact = "q3_limit", .label_fact = "q3_label", .field = "/a~2"}),
                    Catch::Contains("spend_within_limit: field '/a~2' is not a valid JSON Pointer"));
  CHECK_THROWS_WITH(build({.limit_fact = "campaign_ctr", .label_fact = "q3_label"}),
                    Catch::Contains("spend_within_limit: fact 'campaign_ctr' is a Ranking"));
  CHECK_THROWS_WITH(build({.limit_fact = "q3_label", .label_fact = "q3_label"}),
                    Catch::Contains("spend_within_limit: fact 'q3_label' is not a number"));
  CHECK_THROWS_AS(build({.limit_fact = "q3_share", .label_fact = "q3_label", .label_field = "/x~"}),
                  gp::ConfigurationError);
  gp::FactRegistry empty;
  empty.record_fact("q3_label", "Q3 spend", {.tool = "finance.budget"});
  CHECK_THROWS_AS(gp::fact_for<gp::Fact>(empty, "q3_limt", "spend_within_limit"), gp::UnregisteredFact);
  CHECK_THROWS_WITH(gp::fact_for<gp::Fact>(empty, "", "spend_within_limit"),
                    Catch::Contains("spend_within_limit: no fact named"));
  CHECK(&gp::fact_for<gp::Fact>(s.reg, "q3_share", "spend_within_limit") == &s.reg.get<gp::Fact>("q3_share"));
}

TEST_CASE("finding_about fills in the check, the field and the fact's name and provenance") {
  Seed s;
  const gp::Finding f = gp::finding_about("mine", "/a/0", s.reg.get<gp::Ranking>("campaign_ctr"));
  CHECK(f.check == "mine");
  CHECK(f.field == "/a/0");
  CHECK(f.fact == "campaign_ctr");
  CHECK(f.provenance == "warehouse.query(table='campaign_daily', window='7d')");
  CHECK(f.said.empty());
  CHECK(f.supported.empty());
  CHECK(f.detail.empty());
  CHECK(gp::type_name(json("x")) == "a string");
  CHECK(gp::type_name(json::array()) == "an array");
  CHECK(gp::type_name(json(std::nan(""))) == "a non-finite number");
}
