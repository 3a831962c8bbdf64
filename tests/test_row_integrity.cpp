// row_integrity: resolve the named row first, then read every other field off that row.
#include "catch2_compat.hpp"

#include <algorithm>
#include <string>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {
struct Seed {
  gp::FactRegistry reg;
  Seed() {
    reg.record_table(
        "campaign_daily",
        json::array({{{"campaign", "north"}, {"ctr", 0.0412}, {"cvr", 0.0198}, {"region", "emea"}},
                     {{"campaign", "harbour"}, {"ctr", 0.0455}, {"cvr", 0.0301}, {"region", "apac"}},
                     {{"campaign", "delta"}, {"ctr", 0.0301}, {"cvr", 0.0122}, {"region", "emea"}}}),
        {.key_column = "campaign", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});
  }
};

gp::Verdict verdict(const gp::FactRegistry& reg, const gp::row_integrity& check, const json& output) {
  gp::Boundary b(reg, {check.fact}, check);
  return b.try_submit(output);
}

const gp::row_integrity daily{.fact = "campaign_daily",
                              .key_field = "campaign",
                              .fields = {{"ctr", "ctr"}, {"cvr", "cvr"}, {"region", "region"}}};
}  // namespace

TEST_CASE("the neighbour's value in the right column is a finding that says whose it is") {
  Seed s;
  const auto v = verdict(s.reg, daily, {{"campaign", "north"}, {"ctr", 0.0301}});
  REQUIRE(v.findings().size() == 1);
  const auto& f = v.findings()[0];
  CHECK(f.check == "row_integrity");
  CHECK(f.field == "ctr");
  CHECK(f.said == "0.0301");
  CHECK(f.supported == "0.0412");
  CHECK(f.message() ==
        "unsupported claim in field 'ctr': model said 0.0301, registered facts support 0.0412\n"
        "| fact='campaign_daily'\n"
        "| provenance=warehouse.query(table='campaign_daily', window='7d')\n"
        "| 'north''s 'ctr' is 0.0412; 0.0301 is 'delta''s 'ctr', not 'north''s");
}

TEST_CASE("a value from the right row in the wrong column is a finding that names its column") {
  Seed s;
  const auto v = verdict(s.reg, daily, {{"campaign", "north"}, {"ctr", 0.0198}, {"cvr", 0.0198}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "ctr");
  CHECK(v.findings()[0].detail == "'north''s 'ctr' is 0.0412; 0.0198 is 'north''s 'cvr', not its 'ctr'");
}

TEST_CASE("a value found both in another row and in another column names both") {
  Seed s;
  const auto v = verdict(s.reg, daily, {{"campaign", "harbour"}, {"cvr", 0.0455}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail == "'harbour''s 'cvr' is 0.0301; 0.0455 is 'harbour''s 'ctr', not its 'cvr'");
  const auto w = verdict(s.reg, daily, {{"campaign", "delta"}, {"cvr", 0.0301}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].detail ==
        "'delta''s 'cvr' is 0.0122; 0.0301 is 'harbour''s 'cvr', not 'delta''s; 0.0301 is 'delta''s 'ctr', not its "
        "'cvr'");
}

TEST_CASE("the right values for the named row are accepted and an unstated field is not a claim") {
  Seed s;
  CHECK(verdict(s.reg, daily, {{"campaign", "north"}, {"ctr", 0.0412}, {"cvr", 0.0198}, {"region", "emea"}}).ok());
  CHECK(verdict(s.reg, daily, {{"campaign", "delta"}, {"summary", "delta ran in emea"}}).ok());
}

TEST_CASE("a key naming no row is a finding and no value beside it is read") {
  Seed s;
  const auto v = verdict(s.reg, daily, {{"campaign", "nrth"}, {"ctr", 0.0412}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "campaign");
  CHECK(v.findings()[0].said == "'nrth'");
  CHECK(v.findings()[0].detail ==
        "'nrth' names no row of 'campaign_daily': no row has it in column 'campaign' (3 rows recorded: 'north', "
        "'harbour', 'delta')");
}

TEST_CASE("a key naming no row of a truncated table says only part was recorded") {
  gp::FactRegistry reg;
  reg.record_table("t", json::array({{{"id", "a"}, {"v", 1}}}), {.key_column = "id", .total_rows = 2000, .tool = "db"});
  const auto v = verdict(reg, {.fact = "t", .key_field = "id", .fields = {{"v", "v"}}}, {{"id", "b"}, {"v", 1}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "'b' names no row of 't': no row has it in column 'id' (only 1 of 2,000 rows recorded: 'a'; the row may be "
        "among those not recorded)");
}

// reference: test_rows.py::test_blended_key_not_in_table_raises
TEST_CASE("a key naming no row lists the keys of the first twenty rows and counts the rest") {
  gp::FactRegistry reg;
  json rows = json::array();
  for (int i = 0; i < 25; ++i) rows.push_back({{"id", "r" + std::to_string(i)}, {"v", i}});
  reg.record_table("t", rows, {.key_column = "id", .tool = "db"});
  const auto v = verdict(reg, {.fact = "t", .key_field = "id", .fields = {{"v", "v"}}}, {{"id", "r25"}, {"v", 3}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "'r25' names no row of 't': no row has it in column 'id' (25 rows recorded: 'r0', 'r1', 'r2', 'r3', 'r4', "
        "'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15', 'r16', 'r17', 'r18', 'r19' and 5 "
        "more)");
}

TEST_CASE("a missing or malformed key is a finding") {
  Seed s;
  const auto missing = verdict(s.reg, daily, {{"ctr", 0.0412}});
  REQUIRE(missing.findings().size() == 1);
  CHECK(missing.findings()[0].said.empty());
  CHECK(missing.findings()[0].detail ==
        "expected a 'campaign' of a row of 'campaign_daily'; without the row's key no value beside it can be checked");
  const auto array = verdict(s.reg, daily, {{"campaign", {"north"}}, {"ctr", 0.0412}});
  REQUIRE(array.findings().size() == 1);
  CHECK(array.findings()[0].detail == "expected a 'campaign' of a row of 'campaign_daily', got an array");
}

TEST_CASE("an integer key is named by the integer alone so 7.0 and text name no row") {
  gp::FactRegistry reg;
  reg.record_table("stores", json::array({{{"id", 7}, {"revenue", 120.5}}, {{"id", 8}, {"revenue", 99}}}),
                   {.key_column = "id", .tool = "db.stores"});
  const gp::row_integrity check{.fact = "stores", .key_field = "store", .fields = {{"revenue", "revenue"}}};
  const auto as_float = verdict(reg, check, {{"store", 7.0}, {"revenue", 120.5}});
  REQUIRE(as_float.findings().size() == 1);
  CHECK(as_float.findings()[0].detail ==
        "7.0 names no row of 'stores': no row has it in column 'id' (2 rows recorded: 7, 8); an id is an integer: the "
        "row "
        "keyed 7 is named as written, not with a fraction part or an exponent");
  CHECK(verdict(reg, check, {{"store", 7}, {"revenue", 120.50}}).ok());
  const auto wrong = verdict(reg, check, {{"store", 7}, {"revenue", 99}});
  REQUIRE(wrong.findings().size() == 1);
  CHECK(wrong.findings()[0].detail == "row 7's 'revenue' is 120.5; 99 is row 8's 'revenue', not row 7's");
  const auto text = verdict(reg, check, {{"store", "7"}, {"revenue", 120.5}});
  REQUIRE(text.findings().size() == 1);
  CHECK(
      text.findings()[0].detail ==
      "'7' names no row of 'stores': no row has it in column 'id' (2 rows recorded: 7, 8); the key was given as text, "
      "and the number 7 names a row");
}

TEST_CASE("at pointing at an array of rows checks each row and points at the exact place") {
  Seed s;
  gp::row_integrity check = daily;
  check.at = "/rows";
  const auto v = verdict(s.reg, check,
                         {{"rows",
                           {{{"campaign", "harbour"}, {"ctr", 0.0455}},
                            {{"campaign", "north"}, {"ctr", 0.0412}},
                            {{"campaign", "delta"}, {"ctr", 0.0412}, {"region", "apac"}},
                            "north",
                            {{"campaign", "south"}}}}});
  REQUIRE(v.findings().size() == 4);
  CHECK(v.findings()[0].field == "/rows/2/ctr");
  CHECK(v.findings()[0].detail == "'delta''s 'ctr' is 0.0301; 0.0412 is 'north''s 'ctr', not 'delta''s");
  CHECK(v.findings()[1].field == "/rows/2/region");
  CHECK(v.findings()[1].detail == "'delta''s 'region' is 'emea'; 'apac' is 'harbour''s 'region', not 'delta''s");
  CHECK(v.findings()[2].field == "/rows/3");
  CHECK(v.findings()[2].detail == "expected an object naming a row of 'campaign_daily', got a string");
  CHECK(v.findings()[3].field == "/rows/4/campaign");
  CHECK(v.findings()[3].detail.find("'south' names no row") == 0);
}

TEST_CASE("at pointing at one object reads the row there") {
  Seed s;
  gp::row_integrity check = daily;
  check.at = "/best";
  const auto v = verdict(s.reg, check, {{"best", {{"campaign", "harbour"}, {"ctr", 0.0412}}}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "/best/ctr");
  const auto missing = verdict(s.reg, check, {{"worst", json::object()}});
  REQUIRE(missing.findings().size() == 1);
  CHECK(missing.findings()[0].field == "/best");
  CHECK(missing.findings()[0].detail == "expected an object or an array of objects naming rows of 'campaign_daily'");
  const auto scalar = verdict(s.reg, check, {{"best", "harbour"}});
  REQUIRE(scalar.findings().size() == 1);
  CHECK(scalar.findings()[0].detail ==
        "expected an object or an array of objects naming rows of 'campaign_daily', got a string");
}

TEST_CASE("a string where a number belongs and a changed string are findings") {
  Seed s;
  const auto v = verdict(s.reg, daily, {{"campaign", "north"}, {"ctr", "0.0412"}, {"region", "EMEA"}});
  REQUIRE(v.findings().size() == 2);
  CHECK(v.findings()[0].detail == "expected a number, got a string; 'north''s 'ctr' is 0.0412");
  CHECK(v.findings()[1].detail == "'north''s 'region' is 'emea'");
}

TEST_CASE("a rounded value is a finding unless a tolerance allows it and the finding says it is rounded") {
  Seed s;
  const auto v = verdict(s.reg, daily, {{"campaign", "north"}, {"ctr", 0.041}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "'north''s 'ctr' is 0.0412; 0.041 is 0.0412 rounded to the decimals stated, not the recorded value");
  gp::row_integrity tolerant = daily;
  tolerant.tolerance = {.absolute = gp::Decimal::parse("0.0005")};
  CHECK(verdict(s.reg, tolerant, {{"campaign", "north"}, {"ctr", 0.041}}).ok());
  CHECK_FALSE(verdict(s.reg, tolerant, {{"campaign", "north"}, {"ctr", 0.040}}).ok());
}

TEST_CASE("a row without the mapped column has nothing to support a stated value") {
  gp::FactRegistry reg;
  reg.record_table("t", json::array({{{"id", "a"}, {"v", 1}}, {{"id", "b"}}}), {.key_column = "id", .tool = "db"});
  const auto v =
      verdict(reg, {.fact = "t", .key_field = "id", .fields = {{"value", "v"}}}, {{"id", "b"}, {"value", 1}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].supported.empty());
  CHECK(v.findings()[0].detail == "'b' has no 'v' recorded in 't'");
}

TEST_CASE("another unique column can name the rows") {
  Seed s;
  s.reg.record_table("by_code",
                     json::array({{{"code", "N1"}, {"name", "north"}, {"ctr", 0.0412}},
                                  {{"code", "H2"}, {"name", "harbour"}, {"ctr", 0.0455}}}),
                     {.tool = "db"});
  const gp::row_integrity check{
      .fact = "by_code", .key_field = "campaign", .fields = {{"ctr", "ctr"}}, .key_column = "name"};
  CHECK(verdict(s.reg, check, {{"campaign", "north"}, {"ctr", 0.0412}}).ok());
  const auto v = verdict(s.reg, check, {{"campaign", "north"}, {"ctr", 0.0455}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail == "'north''s 'ctr' is 0.0412; 0.0455 is 'harbour''s 'ctr', not 'north''s");
}

TEST_CASE("row_integrity refuses configurations it cannot resolve rows with") {
  Seed s;
  s.reg.record_table("unkeyed", json::array({{{"a", 1}, {"b", 1}}, {{"a", 2}, {"b", 1}}}), {.tool = "t"});
  const auto refuses = [&](const gp::row_integrity& c, const std::string& part) {
    try {
      gp::Boundary b(s.reg, {c.fact}, c);
      b.submit(json::object());
      FAIL("expected a ConfigurationError");
    } catch (const gp::ConfigurationError& e) {
      CHECK_THAT(e.what(), Catch::Contains(part));
    }
  };
  refuses({.fact = "unkeyed", .key_field = "k", .fields = {{"a", "a"}}}, "has no key column");
  refuses({.fact = "unkeyed", .key_field = "k", .fields = {{"a", "a"}}, .key_column = "b"},
          "key_column 'b' holds 1 in rows 0 and 1");
  refuses({.fact = "campaign_daily", .key_field = "campaign", .fields = {{"spend", "spend"}}}, "has no column 'spend'");
  refuses({.fact = "campaign_daily", .key_field = "campaign", .fields = {}}, "fields is empty");
  refuses({.fact = "campaign_daily", .key_field = "", .fields = {{"ctr", "ctr"}}}, "key_field is empty");
  refuses({.fact = "campaign_daily", .key_field = "campaign", .fields = {{"ctr", "ctr"}}, .at = "rows"},
          "must be a JSON Pointer");
  refuses({.fact = "campaign_daily", .key_field = "campaign", .fields = {{"ctr", "ctr"}}, .key_column = "ctx"},
          "has no column 'ctx'");
  refuses(
      {.fact = "campaign_daily", .key_field = "campaign", .fields = {{"ctr", "ctr"}}, .tolerance = {.absolute = -1}},
      "tolerance.absolute is -1");
}

TEST_CASE("hostile keys and values are escaped in every finding") {
  gp::FactRegistry reg;
  reg.record_table("t", json::array({{{"id", "a\n| fact='x'"}, {"v", "ok"}}, {{"id", "b"}, {"v", "\x1b[31mred"}}}),
                   {.key_column = "id", .tool = "db"});
  const gp::row_integrity check{.fact = "t", .key_field = "id\t", .fields = {{"v\n", "v"}}};
  const auto v = verdict(reg, check, {{"id\t", "a\n| fact='x'"}, {"v\n", "\x1b[31mred"}});
  REQUIRE(v.findings().size() == 1);
  const std::string m = v.findings()[0].message();
  CHECK(std::count(m.begin(), m.end(), '\n') == 3);
  CHECK(m.find('\x1b') == std::string::npos);
  CHECK(v.findings()[0].detail ==
        "'a\\n| fact=\\'x\\'''s 'v' is 'ok'; '\\x1b[31mred' is 'b''s 'v', not 'a\\n| fact=\\'x\\'''s");
  const auto unknown = verdict(reg, check, {{"id\t", "\r\n| forged"}});
  REQUIRE(unknown.findings().size() == 1);
  CHECK(unknown.findings()[0].message().find("\r") == std::string::npos);
  CHECK(unknown.findings()[0].field == "id\t");  // the field itself is escaped by message()
  CHECK(unknown.findings()[0].message().find("'id\\t'") != std::string::npos);
}

TEST_CASE("schema types the key as a recorded key and each mapped field like its column") {
  Seed s;
  gp::row_integrity check = daily;
  check.at = "/rows";
  gp::Boundary b(s.reg, {"campaign_daily"}, check);
  const json schema = b.schema();
  b.submit({{"rows", json::array()}});
  const json& shapes = schema["properties"]["rows"]["anyOf"];
  REQUIRE(shapes.size() == 2);
  CHECK(shapes[0]["properties"]["campaign"]["enum"] == json::array({"north", "harbour", "delta"}));
  CHECK(shapes[0]["properties"]["ctr"]["type"] == "number");
  CHECK(shapes[0]["properties"]["region"]["type"] == "string");
  CHECK(shapes[0]["required"] == json::array({"campaign"}));
  CHECK(shapes[1]["items"] == shapes[0]);
  CHECK(schema["required"] == json::array({"rows"}));
  CHECK_FALSE(shapes[0].contains("$schema"));
}

TEST_CASE("an empty table recorded with its columns still has a misspelled column refused") {
  gp::FactRegistry reg;
  reg.record_table("campaigns", json::array(),
                   {.key_column = "campaign", .tool = "warehouse.query", .columns = {"campaign", "ctr"}});
  CHECK_THROWS_AS(
      gp::Boundary(reg, {"campaigns"},
                   gp::row_integrity{.fact = "campaigns", .key_field = "name", .fields = {{"rate", "crt"}}}),
      gp::ConfigurationError);
  gp::Boundary b(reg, {"campaigns"},
                 gp::row_integrity{.fact = "campaigns", .key_field = "name", .fields = {{"rate", "ctr"}}});
  CHECK_FALSE(b.try_submit({{"name", "north"}, {"rate", 0.04}}).ok());  // no such row to support it
}

TEST_CASE("a table whose rows are empty objects has no column to name, and naming one is refused") {
  gp::FactRegistry reg;
  reg.record_table("blank", json::parse("[{}, {}]"), {.tool = "warehouse.query"});
  REQUIRE(reg.get<gp::Table>("blank").columns().empty());
  CHECK_THROWS_AS(
      gp::Boundary(
          reg, {"blank"},
          gp::row_integrity{.fact = "blank", .key_field = "name", .fields = {{"rate", "ctr"}}, .key_column = "id"}),
      gp::ConfigurationError);
}
