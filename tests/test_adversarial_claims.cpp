// Adversarial claims across the checks: answers a model plausibly gives that are
// provably wrong (each must be a finding, with the exact explanation), and answers that
// look suspicious but are right (each must pass).
#include "catch2_compat.hpp"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <groundplane/groundplane.hpp>

#include "fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {
template <class C>
gp::Verdict verdict(const gp::FactRegistry& reg, std::vector<std::string> facts, C check, const json& output) {
  gp::Boundary b(reg, std::move(facts), std::move(check));
  return b.try_submit(output);
}

// a 5 and b 5 tie for the lead; c 3; d 1.
struct TiedLead {
  gp::FactRegistry reg;
  TiedLead() { reg.record_ranking("pts", {{"a", 5}, {"b", 5}, {"c", 3}, {"d", 1}}, {.key = "pts", .tool = "league"}); }
};

struct Latency {
  gp::FactRegistry reg;
  Latency() {
    reg.record_ranking("latency", {{"eu", 120}, {"us", 80}, {"ap", 95}, {"sg", 95}},
                       {.key = "p95_ms", .direction = gp::Direction::lower_is_better, .tool = "apm.query"});
  }
};

// A table "t" with one column "x" holding `column`'s values (parsed, so integers stay integers).
struct Values {
  gp::FactRegistry reg;
  explicit Values(const char* column) {
    json rows = json::array();
    for (const auto& v : json::parse(column)) rows.push_back({{"x", v}});
    reg.record_table("t", rows, {.tool = "t"});
  }
};

gp::aggregate_reconciles on_x(gp::Aggregate op) { return {.fact = "t", .field = "v", .op = op, .column = "x"}; }
}  // namespace

// ---- superlative --------------------------------------------------------------------

TEST_CASE("either tied leader is accepted under accept_any and the next entity is told its competition rank") {
  TiedLead t;
  const gp::superlative any{.fact = "pts", .ties = gp::Ties::accept_any};
  CHECK(verdict(t.reg, {"pts"}, any, {{"winner", "a"}, {"score", 5}}).ok());
  CHECK(verdict(t.reg, {"pts"}, any, {{"winner", "b"}, {"score", 5.0}}).ok());
  // A dense rank would call c #2; two entities stand ahead of it.
  const auto v = verdict(t.reg, {"pts"}, any, {{"winner", "c"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "winner");
  CHECK(v.findings()[0].said == "'c'");
  CHECK(v.findings()[0].supported == "'a' or 'b'");
  CHECK(v.findings()[0].detail == "computed argmax on 'pts' is 'a' or 'b' (tied at 5); 'c' ranked #3 at 3");
  // The tied partner's score quoted for a tied leader is its own score too.
  const auto w = verdict(t.reg, {"pts"}, any, {{"winner", "b"}, {"score", 3}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].field == "score");
  CHECK(w.findings()[0].detail == "'b''s recorded 'pts' is 5 and the stated score does not match it; 3 is 'c''s");
}

TEST_CASE("pick worst on a lower is better ranking wants the largest value and rejects the fastest") {
  Latency l;
  const gp::superlative worst{.fact = "latency", .pick = gp::Pick::worst};
  CHECK(verdict(l.reg, {"latency"}, worst, {{"winner", "eu"}, {"score", 120}}).ok());
  const auto v = verdict(l.reg, {"latency"}, worst, {{"winner", "us"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].supported == "'eu'");
  CHECK(v.findings()[0].detail == "computed argmax on 'p95_ms' is 'eu' (120); 'us' ranked #1 of 4 at 80");
}

TEST_CASE("a tie at the bottom is named for pick worst and accept_any takes either member but not the one above") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"a", 9}, {"b", 2}, {"c", 2}}, {.key = "k", .tool = "t"});
  const auto v = verdict(reg, {"r"}, gp::superlative{.fact = "r", .pick = gp::Pick::worst}, {{"winner", "c"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].supported == "'b' and 'c'");
  CHECK(v.findings()[0].detail ==
        "'b' and 'c' tie for the lowest 'k' at 2; naming one of them alone is not supported: name them all, as an "
        "array (pass Ties::accept_any to accept any tied leader)");
  const gp::superlative any{.fact = "r", .pick = gp::Pick::worst, .ties = gp::Ties::accept_any};
  CHECK(verdict(reg, {"r"}, any, {{"winner", "b"}}).ok());
  CHECK(verdict(reg, {"r"}, any, {{"winner", "c"}}).ok());
  const auto w = verdict(reg, {"r"}, any, {{"winner", "a"}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].detail == "computed argmin on 'k' is 'b' or 'c' (tied at 2); 'a' ranked #1 of 3 at 9");
}

TEST_CASE("scores that differ only past double precision are not a tie") {
  gp::FactRegistry reg;
  reg.record_ranking("r",
                     {{"b", gp::Decimal::parse("0.1")},
                      {"a", gp::Decimal::parse("0.10000000000000000001")},
                      {"c", gp::Decimal::parse("0.05")}},
                     {.key = "share", .tool = "t"});
  CHECK(verdict(reg, {"r"}, gp::superlative{.fact = "r"}, {{"winner", "a"}}).ok());
  // As doubles both scores are 0.1: a model reasoning in doubles calls b a co-leader.
  const auto v = verdict(reg, {"r"}, gp::superlative{.fact = "r", .ties = gp::Ties::accept_any}, {{"winner", "b"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail == "computed argmax on 'share' is 'a' (0.10000000000000000001); 'b' ranked #2 at 0.1");
  // ...and a's score quoted as the double 0.1 is b's score, not a's.
  const auto w = verdict(reg, {"r"}, gp::superlative{.fact = "r"}, {{"winner", "a"}, {"score", 0.1}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].detail ==
        "'a''s recorded 'share' is 0.10000000000000000001 and the stated score does not match it; 0.1 is "
        "'b''s; matches 0.1… rounded to the 1 decimal "
        "stated; pass Rounding::as_stated to accept stated precision");
}

TEST_CASE("scores equal in value but written with different trailing zeros tie and are quoted either way") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"a", gp::Decimal::parse("0.50")}, {"b", 0.5}, {"c", 0.25}}, {.key = "share", .tool = "t"});
  const auto v = verdict(reg, {"r"}, gp::superlative{.fact = "r"}, {{"winner", "a"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail ==
        "'a' and 'b' tie for the highest 'share' at 0.5; naming one of them alone is not supported: name them "
        "all, as an array (pass Ties::accept_any to accept any tied leader)");
  const gp::superlative any{.fact = "r", .ties = gp::Ties::accept_any};
  CHECK(verdict(reg, {"r"}, any, {{"winner", "a"}, {"score", 0.5}}).ok());
  CHECK(verdict(reg, {"r"}, any, {{"winner", "b"}, {"score", json::parse("0.500")}}).ok());
}

TEST_CASE("a winner spelled with a Cyrillic look-alike letter is not the ranked entity") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  const std::string confusable = "h\xD0\xB0rbour";  // U+0430 CYRILLIC SMALL LETTER A
  const auto v = verdict(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"}, {{"winner", confusable}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "'" + confusable + "'");
  CHECK(v.findings()[0].supported == "'harbour'");
  CHECK(v.findings()[0].detail ==
        "'" + confusable +
            "' was never ranked: it is not one of the 3 entities ranked on 'ctr'; computed argmax on "
            "'ctr' is "
            "'harbour' (0.0455)");
}

// ---- ranking_prefix -----------------------------------------------------------------

TEST_CASE("a cut inside a tie block on a lower is better ranking is refused by default") {
  Latency l;
  for (const char* second : {"ap", "sg"}) {
    const auto v =
        verdict(l.reg, {"latency"}, gp::ranking_prefix{.fact = "latency", .k = 2}, {{"top", {"us", second}}});
    REQUIRE(v.findings().size() == 1);
    CHECK(v.findings()[0].detail.find("'ap' and 'sg' share 95") != std::string::npos);
  }
}

TEST_CASE(
    "a cut inside a tie block on a lower is better ranking with ties accepted takes either tied entity and not "
    "the slower one") {
  Latency l;
  const gp::ranking_prefix top2{.fact = "latency", .k = 2, .ties = gp::Ties::accept_any};
  CHECK(verdict(l.reg, {"latency"}, top2, {{"top", {"us", "ap"}}}).ok());
  CHECK(verdict(l.reg, {"latency"}, top2, {{"top", {"us", "sg"}}}).ok());
  const auto v = verdict(l.reg, {"latency"}, top2, {{"top", {"us", "eu"}}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "'eu'");
  CHECK(v.findings()[0].supported == "'ap' or 'sg'");
  CHECK(v.findings()[0].detail ==
        "in the computed top 2 on 'p95_ms' (lower is better), 'ap' and 'sg' tie at 95; either may fill place 2; "
        "'eu' ranked #4 at 120");
}

TEST_CASE("a full-length list that repeats a tied entity in place of the last one is a finding") {
  TiedLead t;
  // Every name is ranked and every place up to the repeat holds a right score.
  const auto v = verdict(t.reg, {"pts"}, gp::ranking_prefix{.fact = "pts"}, {{"top", {"b", "a", "c", "a"}}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "'a'");
  CHECK(v.findings()[0].supported == "'d'");
  CHECK(v.findings()[0].detail ==
        "place 4 repeats 'a', which appears twice (already at place 2); place 4 of the computed top 4 on 'pts' is 'd' "
        "(1)");
}

TEST_CASE("scores shifted by one place in a top list are a finding per place naming whose score each is") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  const auto v = verdict(reg, {"campaign_ctr"}, gp::ranking_prefix{.fact = "campaign_ctr"},
                         json::parse(R"({"top":[{"name":"harbour","score":0.0412},{"name":"north","score":0.0301}]})"));
  REQUIRE(v.findings().size() == 2);
  CHECK(v.findings()[0].said == "0.0412");
  CHECK(v.findings()[0].supported == "0.0455");
  CHECK(v.findings()[0].detail == "place 1: 'harbour''s recorded 'ctr' is 0.0455; 0.0412 is 'north''s");
  CHECK(v.findings()[1].said == "0.0301");
  CHECK(v.findings()[1].detail == "place 2: 'north''s recorded 'ctr' is 0.0412; 0.0301 is 'delta''s");
}

TEST_CASE("a place past the cut of an overlong list is explained against the computed order") {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"a", 5}, {"b", 4}, {"c", 2}, {"d", 2}, {"e", 1}}, {.key = "pts", .tool = "t"});
  // Asked for the top 1, the model lists three, the third from below a tie.
  const auto v = verdict(reg, {"r"}, gp::ranking_prefix{.fact = "r", .k = 1, .ties = gp::Ties::accept_any},
                         {{"top", {"a", "b", "e"}}});
  REQUIRE(v.findings().size() == 2);
  CHECK(v.findings()[0].detail == "the list has 3 names; the top entity ranked on 'pts' was asked for");
  CHECK(v.findings()[1].said == "'e'");
  CHECK(v.findings()[1].supported == "'c' or 'd'");
  CHECK(v.findings()[1].detail ==
        "in the computed top 3 on 'pts', 'c' and 'd' tie at 2; either may fill place 3; 'e' ranked #5 at 1");
  // A tie block starting right at the place past the cut.
  const auto w = verdict(reg, {"r"}, gp::ranking_prefix{.fact = "r", .k = 2, .ties = gp::Ties::accept_any},
                         {{"top", {"a", "b", "e"}}});
  REQUIRE(w.findings().size() == 2);
  CHECK(w.findings()[1].detail ==
        "in the computed top 3 on 'pts', 'c' and 'd' tie at 2; either may fill place 3; 'e' ranked #5 at 1");
  // A single entity past the cut.
  const auto x = verdict(reg, {"r"}, gp::ranking_prefix{.fact = "r", .k = 1}, {{"top", {"a", "c"}}});
  REQUIRE(x.findings().size() == 2);
  CHECK(x.findings()[1].detail == "place 2 of the computed top 2 on 'pts' is 'b' (4); 'c' ranked #3 at 2");
}

// ---- aggregate_reconciles -----------------------------------------------------------

TEST_CASE("a sum past 2 to the 53 is exact and the total a double would give is rejected") {
  const Values vals("[9007199254740992, 1]");
  CHECK(verdict(vals.reg, {"t"}, on_x(gp::Aggregate::sum), json::parse(R"({"v": 9007199254740993})")).ok());
  // 9007199254740992.0 + 1 is 9007199254740992 in binary floating point.
  const auto v = verdict(vals.reg, {"t"}, on_x(gp::Aggregate::sum), {{"v", 9007199254740992.0 + 1}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "9007199254740992");
  CHECK(v.findings()[0].supported == "9007199254740993");
  CHECK(v.findings()[0].detail == "computed sum of 'x' over 2 rows is 9007199254740993; off by -1");
}

TEST_CASE("sums and maxima at the 64-bit boundary are exact") {
  const Values maxima("[9223372036854775807, 9223372036854775807]");
  CHECK(verdict(maxima.reg, {"t"}, on_x(gp::Aggregate::sum), json::parse(R"({"v": 18446744073709551614})")).ok());
  const auto v = verdict(maxima.reg, {"t"}, on_x(gp::Aggregate::sum), {{"v", 9223372036854775807.0 * 2}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "18446744073709552000");
  CHECK(v.findings()[0].supported == "18446744073709551614");
  // An unsigned value above 2^63 - 1 beside a negative one.
  const Values mixed("[18446744073709551615, -1, -9223372036854775808]");
  CHECK(verdict(mixed.reg, {"t"}, on_x(gp::Aggregate::sum), json::parse(R"({"v": 9223372036854775806})")).ok());
  CHECK(verdict(mixed.reg, {"t"}, on_x(gp::Aggregate::max), json::parse(R"({"v": 18446744073709551615})")).ok());
  CHECK(verdict(mixed.reg, {"t"}, on_x(gp::Aggregate::min), json::parse(R"({"v": -9223372036854775808})")).ok());
  const auto w = verdict(mixed.reg, {"t"}, on_x(gp::Aggregate::max), json::parse(R"({"v": 18446744073709551614})"));
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].detail == "computed max of 'x' over 3 rows is 18446744073709551615; off by -1");
}

TEST_CASE("tiny values sum exactly and the binary floating point sum is rejected") {
  const Values vals("[1.1e-7, 1.3e-7]");
  CHECK(verdict(vals.reg, {"t"}, on_x(gp::Aggregate::sum), {{"v", 2.4e-7}}).ok());
  CHECK(verdict(vals.reg, {"t"}, on_x(gp::Aggregate::sum), json::parse(R"({"v": 0.00000024})")).ok());
  const auto v = verdict(vals.reg, {"t"}, on_x(gp::Aggregate::sum), {{"v", 1.1e-7 + 1.3e-7}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "0.00000024000000000000003");
  CHECK(v.findings()[0].supported == "0.00000024");
  CHECK(v.findings()[0].detail == "computed sum of 'x' over 2 rows is 0.00000024; off by +3e-23");
}

TEST_CASE("negative zero is zero in a sum a minimum and a where filter") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"x": -0.0, "g": "a"}, {"x": 0, "g": "b"}, {"x": 2, "g": "a"}])"),
                   {.tool = "t"});
  CHECK(verdict(reg, {"t"},
                gp::aggregate_reconciles{.fact = "t", .field = "v", .op = gp::Aggregate::count, .where = {{"x", 0}}},
                {{"v", 2}})
            .ok());
  CHECK(verdict(reg, {"t"},
                gp::aggregate_reconciles{.fact = "t", .field = "v", .op = gp::Aggregate::count, .where = {{"x", -0.0}}},
                {{"v", 2}})
            .ok());
  CHECK(verdict(reg, {"t"}, on_x(gp::Aggregate::min), {{"v", -0.0}}).ok());
  CHECK(verdict(reg, {"t"}, on_x(gp::Aggregate::min), {{"v", 0}}).ok());
  const gp::aggregate_reconciles sum_b{
      .fact = "t", .field = "v", .op = gp::Aggregate::sum, .column = "x", .where = {{"g", "b"}}};
  CHECK(verdict(reg, {"t"}, sum_b, {{"v", -0.0}}).ok());
  const auto v = verdict(reg, {"t"}, on_x(gp::Aggregate::median), {{"v", 2}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail == "computed median of 'x' over 3 rows is 0; off by +2");
}

TEST_CASE("a mean passed off as the median of skewed rows is rejected and so is the reverse") {
  const Values vals("[1, 100, 2, 3]");
  const auto median = verdict(vals.reg, {"t"}, on_x(gp::Aggregate::median), {{"v", 26.5}});
  REQUIRE(median.findings().size() == 1);
  CHECK(median.findings()[0].supported == "2.5");
  CHECK(median.findings()[0].detail ==
        "computed median of 'x' over 4 rows is 2.5 (the mean of the middle two, 2 and 3); off by +24");
  // The middle row as recorded is no median either.
  CHECK_FALSE(verdict(vals.reg, {"t"}, on_x(gp::Aggregate::median), {{"v", 51}}).ok());
  const auto mean = verdict(vals.reg, {"t"}, on_x(gp::Aggregate::mean), {{"v", 2.5}});
  REQUIRE(mean.findings().size() == 1);
  CHECK(mean.findings()[0].supported == "26.5");
  CHECK(mean.findings()[0].detail == "computed mean of 'x' over 4 rows is 26.5 (= 106 / 4); off by -24");
}

TEST_CASE("a table whose total rows equals the rows given is complete and one row short is refused") {
  gp::FactRegistry reg;
  const json rows = json::parse(R"([{"amount": 10.5}, {"amount": 4.5}])");
  reg.record_table("all", rows, {.total_rows = 2, .tool = "db", .args = {{"limit", 2}}});
  reg.record_table("part", rows, {.total_rows = 3, .tool = "db", .args = {{"limit", 2}}});
  const auto sum = [](const char* fact) {
    return gp::aggregate_reconciles{.fact = fact, .field = "total", .op = gp::Aggregate::sum, .column = "amount"};
  };
  CHECK(verdict(reg, {"all"}, sum("all"), {{"total", 15}}).ok());
  const auto v = verdict(reg, {"part"}, sum("part"), {{"total", 15}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "15");
  CHECK(v.findings()[0].supported.empty());
  CHECK(v.findings()[0].detail == "2 of 3 rows recorded; a sum over part of a table is not a sum");
  // The count of the rows shown is no count of the table either.
  const auto c = verdict(
      reg, {"part"}, gp::aggregate_reconciles{.fact = "part", .field = "n", .op = gp::Aggregate::count}, {{"n", 2}});
  REQUIRE(c.findings().size() == 1);
  CHECK(c.findings()[0].detail == "2 of 3 rows recorded; a count over part of a table is not a count");
}

TEST_CASE("a where filter on true matches neither the string true nor the number 1") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([
      {"active": true, "x": 1}, {"active": "true", "x": 2}, {"active": 1, "x": 4}, {"active": false, "x": 8}])"),
                   {.tool = "t"});
  const gp::aggregate_reconciles sum{
      .fact = "t", .field = "v", .op = gp::Aggregate::sum, .column = "x", .where = {{"active", true}}};
  CHECK(verdict(reg, {"t"}, sum, {{"v", 1}}).ok());
  const auto v = verdict(reg, {"t"}, sum, {{"v", 7}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail == "computed sum of 'x' over 1 row where 'active' is true is 1; off by +6");
  const gp::aggregate_reconciles ones{.fact = "t", .field = "v", .op = gp::Aggregate::count, .where = {{"active", 1}}};
  const auto w = verdict(reg, {"t"}, ones, {{"v", 2}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].detail == "computed count of rows where 'active' is 1 is 1 (of 4 rows recorded); off by +1");
}

// ---- entities_recorded --------------------------------------------------------------

TEST_CASE("whitespace case and look-alike near-misses are each rejected with the recorded spelling suggested") {
  gp::FactRegistry reg;
  reg.record_domain("campaigns", {"north", "harbour", "delta"}, {.tool = "crm.list", .args = {{"kind", "campaign"}}});
  const std::string cyrillic = "n\xD0\xBErth";  // U+043E CYRILLIC SMALL LETTER O
  const std::string nbsp = "north\xC2\xA0";     // U+00A0 NO-BREAK SPACE
  const auto v = verdict(reg, {"campaigns"}, gp::entities_recorded{.facts = {"campaigns"}, .fields = {"mentioned"}},
                         {{"mentioned", {"north", "north ", " north", "North", cyrillic, nbsp, "north\t"}}});
  REQUIRE(v.findings().size() == 6);
  for (const auto& f : v.findings()) {
    CHECK(f.fact == "campaigns");
    CHECK(f.provenance == "crm.list(kind='campaign')");
    CHECK(f.supported.empty());
  }
  CHECK(v.findings()[0].field == "/mentioned/1");
  CHECK(v.findings()[0].detail ==
        "'north ' is not a recorded name; closest: 'north'; recorded: 'north', 'harbour', 'delta'");
  CHECK(v.findings()[1].field == "/mentioned/2");
  CHECK(v.findings()[1].detail ==
        "' north' is not a recorded name; closest: 'north'; recorded: 'north', 'harbour', 'delta'");
  CHECK(v.findings()[2].detail ==
        "'North' is not a recorded name (names are case-sensitive); closest: 'north'; recorded: 'north', 'harbour', "
        "'delta'");
  CHECK(v.findings()[3].said == "'" + cyrillic + "'");
  CHECK(v.findings()[3].detail == "'" + cyrillic +
                                      "' is not a recorded name; closest: 'north'; differs from 'north' only by a "
                                      "look-alike letter from another script: U+043E where the recorded name has "
                                      "U+006F; recorded: 'north', 'harbour', 'delta'");
  CHECK(v.findings()[4].detail ==
        "'" + nbsp +
            "' is not a recorded name; closest: 'north'; differs from 'north' only by a "
            "trailing or inner space that is not U+0020: U+00A0; recorded: 'north', 'harbour', 'delta'");
  CHECK(v.findings()[5].field == "/mentioned/6");
  CHECK(v.findings()[5].said == "'north\\t'");
  CHECK(v.findings()[5].detail ==
        "'north\\t' is not a recorded name; closest: 'north'; recorded: 'north', 'harbour', 'delta'");
  gp::testing::check_message_is_contained(v.findings()[5].message());
}

TEST_CASE(
    "a name that differs from a recorded one only in normalization or an invisible character is rejected with the "
    "recorded spelling suggested") {
  gp::FactRegistry reg;
  reg.record_domain("d", {"caf\xC3\xA9", "north"}, {.tool = "t"});  // "café" with U+00E9
  const std::string decomposed = "cafe\xCC\x81";                    // e + U+0301 COMBINING ACUTE ACCENT
  const std::string zero_width = "north\xE2\x80\x8B";               // U+200B ZERO WIDTH SPACE
  const auto v = verdict(reg, {"d"}, gp::entities_recorded{.facts = {"d"}, .fields = {"n"}},
                         {{"n", {decomposed, zero_width, "caf\xC3\xA9"}}});
  REQUIRE(v.findings().size() == 2);
  CHECK(v.findings()[0].field == "/n/0");
  CHECK(v.findings()[0].said == "'" + decomposed + "'");
  // Edits are counted in characters: e + U+0301 for é is two, within the bound.
  CHECK(v.findings()[0].detail == "'" + decomposed +
                                      "' is not a recorded name; closest: 'caf\xC3\xA9'; differs from 'caf\xC3\xA9' "
                                      "only by Unicode normalization: U+0065 U+0301 where the recorded name has "
                                      "U+00E9; recorded: 'caf\xC3\xA9', 'north'");
  CHECK(v.findings()[1].field == "/n/1");
  // The invisible character is shown escaped, so a reader sees why the names differ.
  CHECK(v.findings()[1].said == "'north\\u{200b}'");
  CHECK(v.findings()[1].detail ==
        "'north\\u{200b}' is not a recorded name; closest: 'north'; differs from 'north' only by an invisible "
        "character: U+200B; recorded: 'caf\xC3\xA9', 'north'");
}

TEST_CASE("the JSON pointer token ~01 names the key tilde one and a slash in a key is escaped in the finding") {
  gp::FactRegistry reg;
  reg.record_domain("d", {"north", "harbour"}, {.tool = "t"});
  // "/~01" is the key "~1", never "/" (unescape ~1 before ~0 and it would be).
  const gp::entities_recorded pointer{.facts = {"d"}, .fields = {"/~01"}};
  CHECK(verdict(reg, {"d"}, pointer, {{"~1", "north"}, {"/", "nowhere"}}).ok());
  const auto v = verdict(reg, {"d"}, pointer, {{"~1", {"north", "harbor"}}, {"/", "north"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "/~01/1");
  CHECK(v.findings()[0].detail == "'harbor' is not a recorded name; closest: 'harbour'; recorded: 'north', 'harbour'");
  // A top-level key holding '/' and '~' is escaped when the finding points into it.
  const auto w = verdict(reg, {"d"}, gp::entities_recorded{.facts = {"d"}, .fields = {"a/b~c"}},
                         {{"a/b~c", json::array({"north", {{"name", "nrth"}}})}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].field == "/a~1b~0c/1/name");
  CHECK(w.findings()[0].detail == "'nrth' is not a recorded name; closest: 'north'; recorded: 'north', 'harbour'");
}

// ---- row_integrity ------------------------------------------------------------------

TEST_CASE("ids past 2 to the 53 are told apart and the neighbour's id is named") {
  gp::FactRegistry reg;
  reg.record_table("accounts", json::parse(R"([
      {"name": "acme", "id": 9007199254740993}, {"name": "apex", "id": 9007199254740992}])"),
                   {.key_column = "name", .tool = "crm.accounts"});
  const gp::row_integrity check{.fact = "accounts", .key_field = "account", .fields = {{"id", "id"}}};
  CHECK(verdict(reg, {"accounts"}, check, json::parse(R"({"account": "acme", "id": 9007199254740993})")).ok());
  // The id as a double: 9007199254740993 has no double, the nearest is apex's id.
  const auto v = verdict(reg, {"accounts"}, check, {{"account", "acme"}, {"id", 9007199254740993.0}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "id");
  CHECK(v.findings()[0].said == "9007199254740992");
  CHECK(v.findings()[0].supported == "9007199254740993");
  CHECK(v.findings()[0].detail == "'acme''s 'id' is 9007199254740993; 9007199254740992 is 'apex''s 'id', not 'acme''s");
  const auto s = verdict(reg, {"accounts"}, check, {{"account", "acme"}, {"id", "9007199254740993"}});
  REQUIRE(s.findings().size() == 1);
  CHECK(s.findings()[0].detail == "expected a number, got a string; 'acme''s 'id' is 9007199254740993");
}

TEST_CASE("a value another row shares is accepted for the named row and a bool is matched by neither text nor 1") {
  gp::FactRegistry reg;
  reg.record_table("c", json::parse(R"([
      {"campaign": "north", "ctr": 0.0301, "active": true, "spend": 0},
      {"campaign": "delta", "ctr": 0.0301, "active": false, "spend": 5}])"),
                   {.key_column = "campaign", .tool = "db"});
  const gp::row_integrity check{
      .fact = "c", .key_field = "campaign", .fields = {{"ctr", "ctr"}, {"active", "active"}, {"spend", "spend"}}};
  CHECK(verdict(reg, {"c"}, check, {{"campaign", "delta"}, {"ctr", 0.0301}, {"active", false}}).ok());
  CHECK(verdict(reg, {"c"}, check, {{"campaign", "north"}, {"ctr", 0.0301}, {"spend", -0.0}}).ok());
  const auto v = verdict(reg, {"c"}, check, {{"campaign", "north"}, {"active", "true"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "'true'");
  CHECK(v.findings()[0].supported == "true");
  CHECK(v.findings()[0].detail == "'north''s 'active' is true");
  const auto w = verdict(reg, {"c"}, check, {{"campaign", "north"}, {"active", 1}});
  REQUIRE(w.findings().size() == 1);
  CHECK(w.findings()[0].detail == "'north''s 'active' is true");
  // delta's inactive flag borrowed for north is named as delta's.
  const auto x = verdict(reg, {"c"}, check, {{"campaign", "north"}, {"active", false}});
  REQUIRE(x.findings().size() == 1);
  CHECK(x.findings()[0].detail == "'north''s 'active' is true; false is 'delta''s 'active', not 'north''s");
}

TEST_CASE("rows under an escaped at pointer are reported at the escaped place of the escaped field") {
  gp::FactRegistry reg;
  reg.record_table("daily",
                   json::parse(R"([{"campaign": "north", "ctr": 0.0412}, {"campaign": "delta", "ctr": 0.0301}])"),
                   {.key_column = "campaign", .tool = "db"});
  const gp::row_integrity check{
      .fact = "daily", .key_field = "campaign", .fields = {{"ctr/7d", "ctr"}}, .at = "/by~1campaign"};
  const auto v = verdict(reg, {"daily"}, check,
                         {{"by/campaign", json::array({{{"campaign", "north"}, {"ctr/7d", 0.0412}},
                                                       {{"campaign", "delta"}, {"ctr/7d", 0.0412}}})}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "/by~1campaign/1/ctr~17d");
  CHECK(v.findings()[0].detail == "'delta''s 'ctr' is 0.0301; 0.0412 is 'north''s 'ctr', not 'delta''s");
}

// ---- comparison ---------------------------------------------------------------------

TEST_CASE("on a lower is better ranking a ratio taken the wrong way round is named as reversed") {
  Latency l;
  const gp::comparison ratio{.fact = "latency", .convention = gp::Convention::ratio};
  // 80 / 120 does not terminate: stated at two decimals it passes only as_stated.
  CHECK(verdict(
            l.reg, {"latency"},
            gp::comparison{.fact = "latency", .convention = gp::Convention::ratio, .rounding = gp::Rounding::as_stated},
            {{"a", "us"}, {"b", "eu"}, {"by", 0.67}})
            .ok());
  const auto v = verdict(l.reg, {"latency"}, ratio, {{"a", "us"}, {"b", "eu"}, {"by", 1.5}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "by");
  CHECK(v.findings()[0].said == "1.5");
  CHECK(v.findings()[0].supported == "0.666666…");
  CHECK(v.findings()[0].detail ==
        "'us' vs 'eu' on 'p95_ms' (lower is better) as the ratio is 0.666666… = 80 / 120; off by +0.833333…; 1.5 "
        "matches the ratio in the other order ('eu' vs 'us') (pass ComparisonOrder::b_minus_a to read it in that "
        "order), not the ratio in the order "
        "configured (a_minus_b)");
}

TEST_CASE("a one-unit lead between integers past 2 to the 53 is a win not a tie") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"k": "a", "v": 9007199254740993}, {"k": "b", "v": 9007199254740992}])"),
                   {.key_column = "k", .tool = "t"});
  const gp::comparison diff{.fact = "t", .column = "v", .convention = gp::Convention::difference};
  CHECK(verdict(reg, {"t"}, diff, {{"a", "a"}, {"b", "b"}, {"by", 1}}).ok());
  const gp::comparison who{.fact = "t", .column = "v", .value_field = ""};
  CHECK(verdict(reg, {"t"}, who, {{"a", "a"}, {"b", "b"}}).ok());
  const auto v = verdict(reg, {"t"}, who, {{"a", "b"}, {"b", "a"}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].field == "a");
  CHECK(v.findings()[0].said == "'b'");
  CHECK(v.findings()[0].supported == "'a'");
  CHECK(v.findings()[0].detail == "reversed: 'b' did not beat 'a' on 'v': 9007199254740992 < 9007199254740993");
}

// ---- (0.2) The wrong verdicts adversarial claims got in 0.1, one test per defect. ----

namespace {
struct TiedLatency {  // lower is better: us and eu tie for the lowest
  gp::FactRegistry reg;
  TiedLatency() {
    reg.record_ranking("latency", {{"us", 80}, {"eu", 80}, {"apac", 140}},
                       {.key = "p50_ms", .direction = gp::Direction::lower_is_better, .tool = "metrics.query"});
  }
};
}  // namespace

TEST_CASE("A tie for the lowest latency is accepted only when named whole, and a refused name is never 'supported'") {
  TiedLatency s;
  const gp::superlative check{.fact = "latency"};
  const auto one = verdict(s.reg, {"latency"}, check, json{{"winner", "us"}});
  REQUIRE(one.findings().size() == 1);
  CHECK(one.findings()[0].supported == "'us' and 'eu'");
  CHECK(one.findings()[0].detail.find("tie for the lowest") != std::string::npos);
  CHECK(one.findings()[0].detail.find("argmin") == std::string::npos);
  CHECK(verdict(s.reg, {"latency"}, check, json{{"winner", {"eu", "us"}}}).ok());
  CHECK(verdict(s.reg, {"latency"}, check, json{{"winner", {"us", "eu"}}, {"score", 80}}).ok());
  CHECK_FALSE(verdict(s.reg, {"latency"}, check, json{{"winner", {"us", "eu"}}, {"score", 81}}).ok());
  CHECK_FALSE(verdict(s.reg, {"latency"}, check, json{{"winner", {"us"}}}).ok());
  CHECK_FALSE(verdict(s.reg, {"latency"}, check, json{{"winner", {"us", "eu", "apac"}}}).ok());
  CHECK_FALSE(verdict(s.reg, {"latency"}, check, json{{"winner", {"us", "us"}}}).ok());
  const auto wrong = verdict(s.reg, {"latency"}, check, json{{"winner", "apac"}});
  REQUIRE(wrong.findings().size() == 1);
  CHECK(wrong.findings()[0].supported == "'us' and 'eu'");
  const gp::superlative any{.fact = "latency", .ties = gp::Ties::accept_any};
  CHECK(verdict(s.reg, {"latency"}, any, json{{"winner", "eu"}}).ok());
  CHECK(verdict(s.reg, {"latency"}, any, json{{"winner", {"us", "eu"}}}).ok());
  // Without a tie an array of exactly the best is the best named whole.
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  CHECK(verdict(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"}, json{{"winner", {"harbour"}}}).ok());
  CHECK_FALSE(
      verdict(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"}, json{{"winner", {"harbour", "north"}}})
          .ok());
  // The schema lets a tied field be a name or an array of names.
  gp::Boundary b(s.reg, {"latency"}, check);
  const json field = b.schema()["properties"]["winner"];
  REQUIRE(field.contains("anyOf"));
  CHECK(field["anyOf"][1]["type"] == "array");
  b.submit(json{{"winner", {"us", "eu"}}});
}

TEST_CASE("A where value of a type its column never holds is a ConfigurationError naming the column and its types") {
  gp::FactRegistry reg;
  reg.record_table("sales", json::parse(R"([{"region":"north","year":2024,"amount":100},
                                            {"region":"south","year":2023,"amount":200}])"),
                   {.key_column = "region", .tool = "warehouse.query"});
  try {
    gp::Boundary b(reg, {"sales"},
                   gp::aggregate_reconciles{.fact = "sales",
                                            .field = "total",
                                            .op = gp::Aggregate::sum,
                                            .column = "amount",
                                            .where = {{"year", "2024"}}});
    b.submit(json{{"total", 100}});
    FAIL("expected a ConfigurationError");
  } catch (const gp::ConfigurationError& e) {
    const std::string m = e.what();
    CHECK(m.find("'year'") != std::string::npos);
    CHECK(m.find("a string") != std::string::npos);
    CHECK(m.find("numbers") != std::string::npos);
  }
}

TEST_CASE("A where matching no row says so in the finding and the correction, and never coaches toward 0") {
  gp::FactRegistry reg;
  reg.record_table("sales", json::parse(R"([{"region":"north","amount":100},{"region":"south","amount":200}])"),
                   {.key_column = "region", .tool = "warehouse.query"});
  const auto sum = [](const char* op_field, gp::Aggregate op) {
    return gp::aggregate_reconciles{
        .fact = "sales", .field = op_field, .op = op, .column = "amount", .where = {{"region", "nroth"}}};
  };
  const auto v = verdict(reg, {"sales"}, sum("total", gp::Aggregate::sum), json{{"total", 100}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].supported.empty());
  CHECK(v.findings()[0].detail.find("no recorded row has 'region' = 'nroth' (closest: 'north')") != std::string::npos);
  CHECK(v.correction().find("no recorded row has 'region' = 'nroth' (closest: 'north')") != std::string::npos);
  CHECK(v.correction().find("support 0") == std::string::npos);
  // True of zero rows: a count or sum of 0. A mean, median, min or max of no rows has no value.
  CHECK(verdict(reg, {"sales"}, sum("total", gp::Aggregate::sum), json{{"total", 0}}).ok());
  CHECK(verdict(reg, {"sales"}, sum("n", gp::Aggregate::count), json{{"n", 0}}).ok());
  for (const auto op : {gp::Aggregate::mean, gp::Aggregate::median, gp::Aggregate::min, gp::Aggregate::max}) {
    const auto m = verdict(reg, {"sales"}, sum("x", op), json{{"x", 0}});
    REQUIRE(m.findings().size() == 1);
    CHECK(m.findings()[0].detail.find("no recorded row has 'region' = 'nroth'") != std::string::npos);
  }
}

TEST_CASE("row_integrity accepts a stated null for a cell that holds null and names the value otherwise") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"region":"north","note":null},{"region":"south","note":"late"},
                                        {"region":"east"}])"),
                   {.key_column = "region", .tool = "warehouse.query"});
  const gp::row_integrity check{.fact = "t", .key_field = "region", .fields = {{"note", "note"}}};
  CHECK(verdict(reg, {"t"}, check, json{{"region", "north"}, {"note", nullptr}}).ok());
  CHECK(verdict(reg, {"t"}, check, json{{"region", "east"}, {"note", nullptr}}).ok());
  const auto v = verdict(reg, {"t"}, check, json{{"region", "south"}, {"note", nullptr}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].supported == "'late'");
}

TEST_CASE("A non-finite number in any record call is InvalidFact naming the fact, the entity, or the row and column") {
  gp::FactRegistry reg;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(reg.record_fact("budget", nan, {.tool = "t"}), gp::InvalidFact);
  CHECK_THROWS_WITH(reg.record_fact("budget", nan, {.tool = "t"}),
                    Catch::Contains("'budget'") && Catch::Contains("not a number"));
  CHECK_THROWS_AS(reg.record_ranking("ctr", {{"north", 0.5}, {"south", nan}}, {.key = "ctr", .tool = "t"}),
                  gp::InvalidFact);
  CHECK_THROWS_WITH(reg.record_ranking("ctr", {{"north", 0.5}, {"south", nan}}, {.key = "ctr", .tool = "t"}),
                    Catch::Contains("'ctr'") && Catch::Contains("'south'"));
  CHECK_THROWS_AS(
      reg.record_ranking("lat", {{"us", std::numeric_limits<double>::infinity()}}, {.key = "ms", .tool = "t"}),
      gp::InvalidFact);
  CHECK_THROWS_WITH(
      reg.record_ranking("lat", {{"us", std::numeric_limits<double>::infinity()}}, {.key = "ms", .tool = "t"}),
      Catch::Contains("'lat'") && Catch::Contains("'us'"));
  CHECK_THROWS_AS(reg.record_table("rows", json::array({json{{"a", 1}}, json{{"a", nan}}}), {.tool = "t"}),
                  gp::InvalidFact);
  CHECK_THROWS_WITH(reg.record_table("rows", json::array({json{{"a", 1}}, json{{"a", nan}}}), {.tool = "t"}),
                    Catch::Contains("'rows'") && Catch::Contains("row 1") && Catch::Contains("'a'"));
  CHECK(reg.size() == 0);
  // Scores still read as Decimals.
  const gp::Scores scores = {{"a", 0.1}, {"b", 2}, {"c", gp::Decimal::parse("0.30")}};
  CHECK(scores[0].second + scores[1].second == gp::Decimal::parse("2.1"));
  CHECK(scores[2].second.decimals() == 2);
}

TEST_CASE("A name differing from a recorded one only invisibly is explained by code point") {
  gp::FactRegistry reg;
  reg.record_domain("names", {"caf\xC3\xA9", "harbour"}, {.tool = "crm.list"});
  const gp::entities_recorded check{.facts = {"names"}, .fields = {"name"}};
  const auto nfd = verdict(reg, {"names"}, check, json{{"name", "cafe\xCC\x81"}});
  REQUIRE(nfd.findings().size() == 1);
  CHECK(nfd.findings()[0].detail.find("Unicode normalization") != std::string::npos);
  CHECK(nfd.findings()[0].detail.find("U+0065 U+0301") != std::string::npos);
  CHECK(nfd.findings()[0].detail.find("U+00E9") != std::string::npos);
  const auto cyrillic = verdict(reg, {"names"}, check, json{{"name", "h\xD0\xB0rbour"}});
  REQUIRE(cyrillic.findings().size() == 1);
  CHECK(cyrillic.findings()[0].detail.find("U+0430") != std::string::npos);
  CHECK(cyrillic.findings()[0].detail.find("U+0061") != std::string::npos);
  const auto hidden = verdict(reg, {"names"}, check,
                              json{{"name",
                                    "har\xE2\x80\x8B"
                                    "bour"}});
  REQUIRE(hidden.findings().size() == 1);
  CHECK(hidden.findings()[0].detail.find("U+200B") != std::string::npos);
}

TEST_CASE("An output naming 100,000 invented entities yields a bounded list of findings") {
  gp::FactRegistry reg;
  reg.record_domain("names", {"north", "south"}, {.tool = "crm.list"});
  json many = json::array();
  for (int i = 0; i < 100000; ++i) many.push_back("invented" + std::to_string(i));
  const auto v =
      verdict(reg, {"names"}, gp::entities_recorded{.facts = {"names"}, .fields = {"names"}}, json{{"names", many}});
  CHECK(v.findings().size() <= 9);
  CHECK(v.findings().back().detail.find("99,992 more") != std::string::npos);
  CHECK(gp::UnsupportedClaim(v.findings()).what() != nullptr);
  CHECK(std::string(gp::UnsupportedClaim(v.findings()).what()).size() < 8000);
  CHECK(v.correction().size() <= gp::Verdict::max_correction);
}

TEST_CASE("A list of 100,000 wrong items is eight findings and one exact count, from every check that reads a list") {
  gp::FactRegistry reg;
  gp::Scores scores;
  json rows = json::array();
  json ledger = json::array();
  for (int i = 0; i < 50; ++i) {
    scores.push_back({"e" + std::to_string(i), i});
    rows.push_back({{"region", "r" + std::to_string(i)}, {"v", i}});
    ledger.push_back({{"action", "a" + std::to_string(i)},
                      {"principal", "agent"},
                      {"outcome", "did NOT happen \xE2\x80\x94 refused"},
                      {"version", i}});
  }
  reg.record_ranking("ranked", scores, {.key = "v", .tool = "t"});
  reg.record_table("regions", rows, {.key_column = "region", .tool = "t"});
  reg.record_table("ledger", ledger,
                   {.tool = "session.ledger", .columns = {"action", "principal", "outcome", "version"}});
  constexpr int n = 100000;
  json unknown = json::array();
  json wrong_rows = json::array();
  json refused = json::array();
  for (int i = 0; i < n; ++i) {
    unknown.push_back("x" + std::to_string(i));
    wrong_rows.push_back({{"region", "r" + std::to_string(i % 50)}, {"v", -1}});
    refused.push_back("a" + std::to_string(i % 50));
  }
  const auto last_detail = [](const gp::Verdict& v) { return v.findings().back().detail; };
  {  // ranking_prefix over a list as long as it likes (k = 0): whole-list findings count against the cap
    const auto v =
        verdict(reg, {"ranked"}, gp::ranking_prefix{.fact = "ranked", .ordered = false}, json{{"top", unknown}});
    REQUIRE(v.findings().size() == 9);
    CHECK_THAT(last_detail(v), Catch::StartsWith("99,993 more places do not match"));
  }
  {
    const auto v =
        verdict(reg, {"regions"},
                gp::row_integrity{.fact = "regions", .key_field = "region", .fields = {{"v", "v"}}, .at = "/rows"},
                json{{"rows", wrong_rows}});
    REQUIRE(v.findings().size() == 9);
    CHECK(v.findings()[7].field == "/rows/7/v");
    CHECK(last_detail(v) == "... and 99,992 more unsupported value(s) in '/rows' (the first 8 are listed)");
  }
  {
    const auto v =
        verdict(reg, {"ledger"}, gp::actions_performed{.fact = "ledger", .field = "did"}, json{{"did", refused}});
    REQUIRE(v.findings().size() == 9);
    CHECK(v.findings()[0].field == "/did/0");
    CHECK_THAT(v.findings()[0].detail, Catch::Contains("did NOT happen"));
    CHECK(last_detail(v) ==
          "... and 99,992 more action(s) in 'did' that the ledger does not show DID happen (the first 8 are listed)");
  }
}

TEST_CASE("Messages name a Fact a single value, a row of a numeric key 'row N', and a tie by its side") {
  gp::FactRegistry reg;
  reg.record_fact("budget", 1000, {.tool = "finance.get"});
  CHECK_THROWS_WITH((gp::Boundary(reg, {"budget"}, gp::superlative{.fact = "budget"})),
                    "superlative: fact 'budget' is a single value (a Fact); this check needs a Ranking (from "
                    "record_ranking), or a Table (from record_table) with .column set to the column to rank it by");
  reg.record_table("t", json::parse(R"([{"id":0,"amount":1},{"id":1,"amount":1200.5}])"),
                   {.key_column = "id", .tool = "w"});
  const auto v =
      verdict(reg, {"t"}, gp::row_integrity{.fact = "t", .key_field = "id", .fields = {{"amount", "amount"}}},
              json{{"id", 0}, {"amount", 1200.5}});
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].detail == "row 0's 'amount' is 1; 1200.5 is row 1's 'amount', not row 0's");
  TiedLead s;
  const auto tie = verdict(s.reg, {"pts"}, gp::superlative{.fact = "pts"}, json{{"winner", "a"}});
  REQUIRE(tie.findings().size() == 1);
  CHECK(tie.findings()[0].detail.find("'a' and 'b' tie for the highest 'pts' at 5") != std::string::npos);
}
