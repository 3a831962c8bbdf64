// gp::reask: ask, check, and ask again with the correction.
#include "catch2_compat.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

#include "fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {
struct Seed {
  gp::FactRegistry reg;
  Seed() { gp::testing::record_campaign_ctr(reg); }
};

// A scripted model: answers in order, and remembers what it was handed.
struct Script {
  std::vector<json> answers;
  std::vector<std::optional<std::string>> corrections = {};
  std::vector<json> facts = {};
  json operator()(const json& f, const std::optional<std::string>& correction) {
    facts.push_back(f);
    corrections.push_back(correction);
    const std::size_t i = corrections.size() - 1;
    return answers.at(i < answers.size() ? i : answers.size() - 1);
  }
};

const std::string seed_correction =
    "Your previous answer was rejected by a check against the recorded facts. Correct these claims and answer again "
    "with the same JSON fields, using only the facts provided:\n"
    "- field 'winner': you said 'north'; the facts support 'harbour'. computed argmax on 'ctr' is 'harbour' (0.0455); "
    "'north' ranked #2 at 0.0412";

const gp::superlative winner{.fact = "campaign_ctr"};
}  // namespace

TEST_CASE("reask returns the first output the checks accept") {
  Seed s;
  Script model{{{{"winner", "north"}}, {{"winner", "harbour"}, {"n", 2}}, {{"winner", "harbour"}, {"n", 3}}}};
  const json answer = gp::reask(s.reg, {"campaign_ctr"}, std::ref(model), 5, winner);
  CHECK(answer == json{{"winner", "harbour"}, {"n", 2}});
  CHECK(model.corrections.size() == 2);
}

TEST_CASE("an output accepted at once calls the model once with no correction") {
  Seed s;
  Script model{{{{"winner", "harbour"}}}};
  CHECK(gp::reask(s.reg, {"campaign_ctr"}, std::ref(model), 3, winner) == json{{"winner", "harbour"}});
  REQUIRE(model.corrections.size() == 1);
  CHECK_FALSE(model.corrections[0].has_value());
}

TEST_CASE("each retry is handed exactly the correction of the attempt before it") {
  Seed s;
  Script model{{{{"winner", "north"}}, {{"winner", "delta"}}, {{"winner", "harbour"}}}};
  gp::reask(s.reg, {"campaign_ctr"}, std::ref(model), 3, winner);
  REQUIRE(model.corrections.size() == 3);
  CHECK_FALSE(model.corrections[0].has_value());
  REQUIRE(model.corrections[1].has_value());
  CHECK(*model.corrections[1] == seed_correction);
  REQUIRE(model.corrections[2].has_value());
  CHECK(*model.corrections[2] ==
        "Your previous answer was rejected by a check against the recorded facts. Correct these claims and answer "
        "again with the same JSON fields, using only the facts provided:\n"
        "- field 'winner': you said 'delta'; the facts support 'harbour'. computed argmax on 'ctr' is 'harbour' "
        "(0.0455); 'delta' ranked #3 at 0.0301");
}

TEST_CASE("the model is handed the boundary's facts with the computed order") {
  Seed s;
  Script model{{{{"winner", "harbour"}}}};
  gp::reask(s.reg, {"campaign_ctr"}, std::ref(model), 1, winner);
  REQUIRE(model.facts.size() == 1);
  CHECK(model.facts[0]["campaign_ctr"]["order"][0]["entity"] == "harbour");
}

TEST_CASE("running out of attempts throws ReaskExhausted with every attempt recorded") {
  Seed s;
  Script model{{{{"winner", "north"}}, "harbour, clearly", {{"winner", "delta"}, {"score", 0.0301}}}};
  try {
    gp::reask(s.reg, {"campaign_ctr"}, std::ref(model), 3, winner);
    FAIL("expected ReaskExhausted");
  } catch (const gp::ReaskExhausted& e) {
    REQUIRE(e.attempts().size() == 3);
    CHECK(model.corrections.size() == 3);
    CHECK_FALSE(e.attempts()[0].correction.has_value());
    CHECK(e.attempts()[0].output == json{{"winner", "north"}});
    CHECK(e.attempts()[0].findings.size() == 1);
    CHECK(e.attempts()[1].correction == std::optional<std::string>(seed_correction));
    CHECK(e.attempts()[1].output == "harbour, clearly");
    REQUIRE(e.attempts()[1].findings.size() == 1);
    CHECK(e.attempts()[1].findings[0].check == "structured_output");
    CHECK(e.attempts()[2].correction == model.corrections[2]);
    CHECK(e.attempts()[2].correction->find("prose is not a claim") != std::string::npos);
    CHECK(e.last_output() == json{{"winner", "delta"}, {"score", 0.0301}});
    CHECK(e.findings() == e.attempts()[2].findings);
    CHECK(e.findings().size() == 1);
    CHECK(std::string(e.what()) == gp::detail::join_messages(e.findings()));
  }
}

TEST_CASE("ReaskExhausted is an UnsupportedClaim and copies keep every attempt") {
  Seed s;
  Script model{{{{"winner", "north"}}}};
  try {
    gp::reask(s.reg, {"campaign_ctr"}, std::ref(model), 2, winner);
    FAIL("expected an UnsupportedClaim");
  } catch (const gp::UnsupportedClaim& e) {
    const auto* exhausted = dynamic_cast<const gp::ReaskExhausted*>(&e);
    REQUIRE(exhausted != nullptr);
    const gp::ReaskExhausted copy = *exhausted;
    CHECK(copy.attempts().size() == 2);
    CHECK(&copy.attempts() == &exhausted->attempts());
  }
}

TEST_CASE("a configuration error propagates before the model is ever called") {
  Seed s;
  s.reg.record_domain("campaigns", {"north"}, {.tool = "crm.list"});
  int calls = 0;
  const auto model = [&calls](const json&, const std::optional<std::string>&) {
    ++calls;
    return json{{"winner", "harbour"}};
  };
  CHECK_THROWS_AS(gp::reask(s.reg, {"nowhere"}, model, 3, winner), gp::ConfigurationError);
  CHECK_THROWS_AS(gp::reask(s.reg, {"campaigns"}, model, 3, gp::superlative{.fact = "campaigns"}),
                  gp::ConfigurationError);
  CHECK_THROWS_WITH(gp::reask(s.reg, {"campaign_ctr"}, model, 0, winner), Catch::Contains("max_attempts is 0"));
  CHECK_THROWS_AS(gp::reask(s.reg, {"campaign_ctr"}, model, 0, winner), gp::ConfigurationError);
  CHECK(calls == 0);
}

TEST_CASE("an exception thrown by the model call propagates as itself and is never re-asked") {
  Seed s;
  int calls = 0;
  const auto model = [&calls](const json&, const std::optional<std::string>&) -> json {
    ++calls;
    throw std::runtime_error("rate limited");
  };
  CHECK_THROWS_WITH(gp::reask(s.reg, {"campaign_ctr"}, model, 5, winner), "rate limited");
  CHECK(calls == 1);
}

namespace {
struct broken_check {
  std::vector<std::string> leans_on() const { return {}; }
  void validate(const gp::FactRegistry&) const {}
  void verify(const gp::FactRegistry&, const json&, std::vector<gp::Finding>&) const {
    throw std::out_of_range("custom check bug");
  }
};
}  // namespace

TEST_CASE("an exception thrown by a custom check propagates as itself and is never re-asked") {
  Seed s;
  Script model{{{{"winner", "harbour"}}}};
  CHECK_THROWS_AS(gp::reask(s.reg, {"campaign_ctr"}, std::ref(model), 5, winner, broken_check{}), std::out_of_range);
  CHECK(model.corrections.size() == 1);
  gp::CheckList runtime{winner, broken_check{}};
  CHECK_THROWS_AS(gp::reask(s.reg, {"campaign_ctr"}, std::ref(model), 5, runtime), std::out_of_range);
}

TEST_CASE("reask takes checks chosen at run time and output in any JSON flavour") {
  Seed s;
  int calls = 0;
  const auto model = [&calls](const json&, const std::optional<std::string>& correction) {
    ++calls;
    nlohmann::ordered_json out;
    out["winner"] = correction ? "harbour" : "north";
    return out;
  };
  const gp::CheckList checks{gp::check_from_json({{"check", "superlative"}, {"fact", "campaign_ctr"}})};
  CHECK(gp::reask(s.reg, {"campaign_ctr"}, model, 2, checks) == json{{"winner", "harbour"}});
  CHECK(calls == 2);
}

TEST_CASE("the correction never tells the model to pass a developer's option") {
  Seed s;
  Script model{{{{"winner", "harbour"}, {"score", 0.046}}, {{"winner", "harbour"}, {"score", 0.0455}}}};
  gp::reask(s.reg, {"campaign_ctr"}, std::ref(model), 2, winner);
  REQUIRE(model.corrections.size() == 2);
  const std::string& c = *model.corrections[1];
  CHECK(c.find("rounded to the 3 decimals stated") != std::string::npos);
  CHECK(c.find("Rounding::") == std::string::npos);
  CHECK(c.find("pass ") == std::string::npos);
  // The developer's message keeps the advice.
  gp::Boundary b(s.reg, {"campaign_ctr"}, winner);
  const auto v = b.try_submit({{"winner", "harbour"}, {"score", 0.046}});
  CHECK(v.findings()[0].detail.find("pass Rounding::as_stated") != std::string::npos);
}

TEST_CASE("ten retries with many failing claims each get a bounded correction") {
  gp::FactRegistry reg;
  gp::Scores scores;
  for (int i = 0; i < 50; ++i) scores.emplace_back("entity-" + std::to_string(i) + std::string(70, 'x'), i);
  reg.record_ranking("r", scores, {.key = "k", .tool = "t"});
  json bad = json::object();
  gp::CheckList checks;
  for (int i = 0; i < 30; ++i) {
    const std::string field = "w" + std::to_string(i);
    bad[field] = "not\nrecorded " + std::string(200, 'y');
    checks.push_back(gp::superlative{.fact = "r", .field = field});
  }
  Script model{{bad}};
  try {
    gp::reask(reg, {"r"}, std::ref(model), 10, checks);
    FAIL("expected ReaskExhausted");
  } catch (const gp::ReaskExhausted& e) {
    REQUIRE(e.attempts().size() == 10);
    CHECK(e.findings().size() == 30);
    for (std::size_t i = 1; i < model.corrections.size(); ++i) {
      REQUIRE(model.corrections[i].has_value());
      CHECK(model.corrections[i]->size() <= gp::Verdict::max_correction);
      CHECK(model.corrections[i]->find('\n' + std::string("recorded")) == std::string::npos);
      CHECK(*model.corrections[i] == *model.corrections[1]);
    }
  }
}
