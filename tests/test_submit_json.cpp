// Boundary::submit_json: the model's text judged as written — digits, duplicate keys,
// text that is not one JSON value — and otherwise exactly as submit().
#include "catch2_compat.hpp"

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

#include "fixtures.hpp"
#include "process_probe.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

struct Share {
  gp::FactRegistry reg;
  Share() {
    reg.record_ranking("share", {{"north", 0.54}, {"south", 0.46}}, {.key = "share", .tool = "warehouse.query"});
    reg.record_ranking("latency", {{"a", 10.4}, {"b", 12}},
                       {.key = "ms", .direction = gp::Direction::lower_is_better, .tool = "apm"});
    reg.record_ranking("big", {{"x", gp::Decimal::parse("12345678901234567890.25")}, {"y", 3}},
                       {.key = "v", .tool = "ledger.sum"});
    reg.record_ranking("huge", {{"x", gp::Decimal::parse("1e400")}, {"y", 3}}, {.key = "v", .tool = "physics"});
  }
};

gp::Verdict judge(const gp::FactRegistry& reg, const std::string& fact, gp::Rounding rounding, std::string_view text) {
  gp::Boundary b(reg, {fact}, gp::superlative{.fact = fact, .rounding = rounding});
  return b.try_submit_json(text);
}

}  // namespace

TEST_CASE("as_stated judges 0.50 at the two decimals written, where a parsed json saw one") {
  Share s;
  // Truth 0.54: "0.50" is two decimals and wrong; the double 0.5 is one decimal and rounds right.
  CHECK_FALSE(judge(s.reg, "share", gp::Rounding::as_stated, R"({"winner": "north", "score": 0.50})").ok());
  CHECK(judge(s.reg, "share", gp::Rounding::as_stated, R"({"winner": "north", "score": 0.5})").ok());
  CHECK(judge(s.reg, "share", gp::Rounding::as_stated, R"({"winner": "north", "score": 0.54})").ok());
  gp::Boundary parsed(s.reg, {"share"}, gp::superlative{.fact = "share", .rounding = gp::Rounding::as_stated});
  CHECK(parsed.try_submit(json::parse(R"({"winner": "north", "score": 0.50})")).ok());  // what 0.1 did
  // Under exact both are refused.
  CHECK_FALSE(judge(s.reg, "share", gp::Rounding::exact, R"({"winner": "north", "score": 0.50})").ok());
  CHECK_FALSE(judge(s.reg, "share", gp::Rounding::exact, R"({"winner": "north", "score": 0.5})").ok());
  // 10.0 for 10.4 is one decimal stated: refused; 10 is none: accepted.
  CHECK_FALSE(judge(s.reg, "latency", gp::Rounding::as_stated, R"({"winner": "a", "score": 10.0})").ok());
  CHECK(judge(s.reg, "latency", gp::Rounding::as_stated, R"({"winner": "a", "score": 10})").ok());
  // The message shows the exact value stated, in Decimal form.
  const auto v = judge(s.reg, "big", gp::Rounding::exact, R"({"winner": "x", "score": 12345678901234567890.2})");
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].said == "12345678901234567890.2");
  const auto zeros = judge(s.reg, "share", gp::Rounding::as_stated, R"({"winner": "north", "score": 0.50})");
  REQUIRE(zeros.findings().size() == 1);
  CHECK(zeros.findings()[0].said == "0.50");  // the decimals written, which as_stated judged
}

TEST_CASE("A 25-digit score and 1e400 compare exactly through submit_json") {
  Share s;
  CHECK(judge(s.reg, "big", gp::Rounding::exact, R"({"winner": "x", "score": 12345678901234567890.25})").ok());
  CHECK_FALSE(judge(s.reg, "big", gp::Rounding::exact, R"({"winner": "x", "score": 12345678901234567890.26})").ok());
  CHECK(judge(s.reg, "huge", gp::Rounding::exact, R"({"winner": "x", "score": 1e400})").ok());
  CHECK(judge(s.reg, "huge", gp::Rounding::exact, R"({"winner": "x", "score": 10e399})").ok());
  const auto off = judge(s.reg, "huge", gp::Rounding::exact, R"({"winner": "x", "score": 1e401})");
  REQUIRE(off.findings().size() == 1);
  CHECK(off.findings()[0].said == "1e+401");
}

TEST_CASE("A number past the stated bound is an out-of-range finding, judged in microseconds", "[timing]") {
  Share s;
  const std::string mantissa = "{\"winner\": \"x\", \"score\": 1." + std::string(100000, '3') + "}";
  gp::Boundary b(s.reg, {"big"}, gp::superlative{.fact = "big"});
  for (const std::string& text : {std::string(R"({"winner": "x", "score": 1e999999})"), mantissa}) {
    const auto start = std::chrono::steady_clock::now();
    const auto v = b.try_submit_json(text);
    const auto took = std::chrono::steady_clock::now() - start;
    // One finding: the number held no value, so the score check sees no quoted score.
    REQUIRE(v.findings().size() == 1);
    CHECK(v.findings()[0].check == "structured_output");
    CHECK(v.findings()[0].field == "/score");
    CHECK(v.findings()[0].detail.find("out of range") != std::string::npos);
    CHECK_THROWS_AS(gp::Boundary(s.reg, {"big"}, gp::superlative{.fact = "big"}).submit_json(text),
                    gp::UnsupportedClaim);
    // One linear scan of the text (100 KB for the mantissa): well under a millisecond in
    // a release build; the bound leaves room for Debug and sanitizer builds on a loaded
    // machine, and is still a thousand times less than a million-digit computation.
    CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(took).count() < 250);
  }
}

TEST_CASE("A duplicate key at any depth is a structured_output finding naming the pointer, the key and both values") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr", .field = "/answer/winner"});
  const auto v = b.try_submit_json(R"({"answer": {"winner": "harbour", "winner": "north"}})");
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].check == "structured_output");
  CHECK(v.findings()[0].field == "/answer");
  CHECK(v.findings()[0].detail.find("'winner'") != std::string::npos);
  CHECK(v.findings()[0].detail.find("'harbour'") != std::string::npos);
  CHECK(v.findings()[0].detail.find("'north'") != std::string::npos);
  CHECK_THROWS_AS(b.submit_json(R"({"answer": {"winner": "north", "winner": "harbour"}})"), gp::UnsupportedClaim);
}

TEST_CASE("Every kind of non-JSON text is a finding naming the byte offset, never an exception") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const std::vector<std::pair<std::string, std::size_t>> cases = {
      {"The winner is harbour.", 0},
      {R"({"winner": "harb)", 16},
      {R"({"winner": "harbour")", 20},
      {R"({"winner": "harbour",})", 21},
      {R"({"winner": "harbour"} {"winner": "north"})", 22},
      {R"({"winner": "harbour"} -- final answer)", 23},  // where reading stopped: "--" is no number
      {"{\"winner\": \"harb\xFFur\"}", 16},
      {R"({"winner": "\ud83d"})", 18},
  };
  for (const auto& [text, offset] : cases) {
    gp::Verdict v = b.try_submit_json(text);
    REQUIRE(v.findings().size() == 1);
    CHECK(v.findings()[0].check == "structured_output");
    CHECK(v.findings()[0].detail.find("at byte " + std::to_string(offset) + " ") != std::string::npos);
    gp::testing::check_message_is_contained(v.findings()[0].message() + "\n|\n|");
    CHECK_THROWS_AS(b.submit_json(text), gp::UnsupportedClaim);
  }
}

TEST_CASE("A NUL byte and whatever follows it are read: the second answer after a NUL is a finding, never dropped") {
  using namespace std::string_literals;
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const std::string text = "{\"winner\":\"harbour\"}\0{\"winner\":\"north\"}"s;
  const gp::Verdict v = b.try_submit_json(text);
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].check == "structured_output");
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("at byte 20 "));
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("NUL"));
  CHECK_THROWS_AS(b.submit_json(text), gp::UnsupportedClaim);
  gp::testing::check_message_is_contained(v.findings()[0].message() + "\n|\n|");
}

TEST_CASE("Non-JSON text quotes what the parser last read within the render cap, however long the model wrote it") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  // A string never closed: nlohmann's message quotes everything it read of it.
  const std::string text = R"({"winner": "harbour)" + std::string(500, 'L');
  const gp::Verdict v = b.try_submit_json(text);
  REQUIRE(v.findings().size() == 1);
  const std::string& detail = v.findings()[0].detail;
  CHECK_THAT(detail, Catch::Contains("at byte "));
  CHECK_THAT(detail, Catch::Contains("missing closing quote"));
  CHECK(detail.find(std::string(gp::detail::render_cap, 'L')) == std::string::npos);
}

TEST_CASE("submit_json accepts what submit accepts and marks the boundary submitted") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  b.submit_json(R"({"winner": "harbour", "score": 0.0455})");
  CHECK(b.submitted());
  const auto v = b.try_submit_json(R"({"winner": "north"})");
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].message() ==
        "unsupported claim in field 'winner': model said 'north', registered facts support 'harbour'\n"
        "| fact='campaign_ctr'\n"
        "| provenance=warehouse.query(table='campaign_daily', window='7d')\n"
        "| computed argmax on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412");
  CHECK_FALSE(b.try_submit_json("[1, 2]").ok());  // not an object, as submit
}

namespace {
// A random output over the seed's fields: names, numbers written many ways, nesting.
std::string random_output(std::mt19937& rng) {
  const std::vector<std::string> names = {"\"harbour\"", "\"north\"", "\"delta\"", "\"nobody\"", "1", "null", "true"};
  const std::vector<std::string> numbers = {"0.0455",  "0.0412", "0.0301", "0.05",    "4.55e-2", "455e-4", "0",
                                            "-0.0455", "1",      "12",     "0.04550", "3e2",     "0.1"};
  const auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  if (rng() % 5 == 0) {  // a right answer, its numbers written one way or another
    const std::vector<std::string> scores = {"0.0455", "4.55e-2", "455e-4", "0.04550", "0.05", "0.046"};
    const std::vector<std::string> margins = {"0.0043", "0.004", "43e-4", "0.00430", "0.005"};
    return "{\"winner\": \"harbour\", \"score\": " + pick(scores) + ", \"top\": [\"harbour\", \"north\"], " +
           "\"a\": \"harbour\", \"b\": \"north\", \"by\": " + pick(margins) + "}";
  }
  std::string out = "{";
  bool first = true;
  const auto add = [&](const std::string& key, const std::string& value) {
    if (!first) out += ", ";
    first = false;
    out += "\"" + key + "\": " + value;
  };
  if (rng() % 8) add("winner", rng() % 5 ? pick(names) : "[" + pick(names) + ", " + pick(names) + "]");
  if (rng() % 3) add("score", pick(numbers));
  if (rng() % 2) add("top", "[" + pick(names) + ", " + pick(names) + "]");
  if (rng() % 2) add("a", pick(names));
  if (rng() % 2) add("b", pick(names));
  if (rng() % 2) add("by", pick(numbers));
  if (rng() % 4 == 0) add("extra", "{\"x\": [" + pick(numbers) + "]}");
  return out + "}";
}

std::vector<std::string> messages(const gp::Verdict& v) {
  std::vector<std::string> out;
  for (const auto& f : v.findings()) out.push_back(f.message());
  return out;
}
}  // namespace

TEST_CASE(
    "Differential: over 10,000 random outputs (2,500 under ASan) submit_json(text) agrees with "
    "submit(json::parse(text)) "
    "wherever no lexeme is lost") {
  gp::FactRegistry reg;
  gp::testing::record_campaign_ctr(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr", .rounding = gp::Rounding::as_stated},
                 gp::ranking_prefix{.fact = "campaign_ctr", .k = 2},
                 gp::comparison{.fact = "campaign_ctr",
                                .convention = gp::Convention::difference,
                                .tolerance = {.absolute = gp::Decimal::parse("0.001")}});
  std::mt19937 rng(2026);
  std::size_t compared = 0;
  std::size_t lossy = 0;
  std::size_t accepted = 0;
  const int outputs = gp_test::random_output_count;
  for (int i = 0; i < outputs; ++i) {
    const std::string text = random_output(rng);
    const gp::JsonText doc = gp::JsonText::read(text);
    REQUIRE(doc.ok());
    // A lexeme is lost when the double's shortest form differs from the digits written.
    bool loses = false;
    const std::function<void(const json&)> walk = [&](const json& node) {
      if (const auto* t = doc.number_text(node))
        if (gp::Decimal::parse(t->text).decimals() != gp::Decimal(node.get<double>()).decimals()) loses = true;
      if (node.is_structured())
        for (const auto& child : node) walk(child);
    };
    walk(doc.value());
    if (loses) {
      ++lossy;
      continue;
    }
    const auto from_text = b.try_submit_json(text);
    const auto from_json = b.try_submit(json::parse(text));
    CHECK(messages(from_text) == messages(from_json));
    CHECK(from_text.correction() == from_json.correction());
    accepted += from_text.ok() ? std::size_t{1} : std::size_t{0};
    ++compared;
  }
  CHECK(compared > static_cast<std::size_t>(outputs) * 8 / 10);
  // The generator does write lossy lexemes ("0.04550", "455e-4").
  CHECK(lossy > static_cast<std::size_t>(outputs) / 100);
  CHECK(accepted > 0);
}

TEST_CASE("facts() hands every number so that copying it back through submit_json is accepted at zero tolerance") {
  gp::FactRegistry reg;
  reg.record_ranking("big",
                     {{"x", gp::Decimal::parse("12345678901234567890.25")},
                      {"y", gp::Decimal::parse("0.1")},
                      {"z", gp::Decimal::parse("1e400")}},
                     {.key = "v", .tool = "ledger.sum"});
  gp::Boundary b(reg, {"big"}, gp::superlative{.fact = "big"});
  const json view = b.facts();
  const json& order = view["big"]["order"];
  REQUIRE(order.size() == 3);
  CHECK(order[0]["entity"] == "z");
  CHECK(order[0]["score"] == "1e+400");
  CHECK(order[0]["exact_as_text"] == json::array({"score"}));
  CHECK(order[1]["score"] == "12345678901234567890.25");
  CHECK(order[2]["score"] == 0.1);  // the double's shortest form is exact: a number
  CHECK_FALSE(order[2].contains("exact_as_text"));
  for (const auto& entry : order) {
    const std::string score = entry["score"].is_string() ? entry["score"].get<std::string>() : entry["score"].dump();
    if (entry["entity"] == "z") b.submit_json("{\"winner\": \"z\", \"score\": " + score + "}");
    else CHECK_FALSE(b.try_submit_json("{\"winner\": " + entry["entity"].dump() + ", \"score\": " + score + "}").ok());
  }
  // The whole view parses back exactly through the reader too.
  CHECK(gp::JsonText::read(view.dump()).ok());
}

TEST_CASE("gp::reask accepts a model that answers with JSON text, read exactly") {
  Share s;
  int calls = 0;
  const json answer = gp::reask(
      s.reg, {"share"},
      [&](const json&, const std::optional<std::string>& correction) -> std::string {
        ++calls;
        if (!correction) return R"({"winner": "north", "score": 0.50})";  // refused: two decimals stated
        return R"({"winner": "north", "score": 0.54})";
      },
      3, gp::superlative{.fact = "share", .rounding = gp::Rounding::as_stated});
  CHECK(calls == 2);
  CHECK(answer["score"] == 0.54);
  try {
    (void)gp::reask(
        s.reg, {"share"},
        [&](const json&, const std::optional<std::string>&) { return std::string("the winner is north"); }, 2,
        gp::superlative{.fact = "share"});
    FAIL("expected ReaskExhausted");
  } catch (const gp::ReaskExhausted& e) {
    REQUIRE(e.attempts().size() == 2);
    CHECK(e.attempts()[1].text == "the winner is north");
    CHECK(e.findings()[0].check == "structured_output");
    CHECK(e.attempts()[1].correction->find("byte 1") != std::string::npos);
  }
}
