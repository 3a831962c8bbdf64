#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <groundplane/groundplane.hpp>
#include "catch2_compat.hpp"

namespace gp = groundplane;

namespace {
void seed(gp::FactRegistry& reg) {
  reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                     {.key = "ctr", .tool = "warehouse.query", .args = {{"window", "7d"}}});
}
}  // namespace

TEST_CASE("The findings of a temporary verdict are returned by value so a range-for over them never dangles") {
  static_assert(std::is_same_v<decltype(std::declval<gp::Verdict>().findings()), std::vector<gp::Finding>>);
  static_assert(
      std::is_same_v<decltype(std::declval<const gp::Verdict&>().findings()), const std::vector<gp::Finding>&>);
  gp::FactRegistry reg;
  seed(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  std::vector<std::string> seen;
  for (const auto& f : b.try_submit({{"winner", "north"}, {"score", 0.0455}}).findings()) seen.push_back(f.message());
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].rfind("unsupported claim in field 'winner': model said 'north'", 0) == 0);
  CHECK(seen[1].rfind("unsupported claim in field 'score': model said 0.0455", 0) == 0);
}

TEST_CASE("A named verdict keeps its findings when they are read by reference") {
  gp::FactRegistry reg;
  seed(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const gp::Verdict verdict = b.try_submit({{"winner", "north"}});
  const auto& first = verdict.findings();
  const auto& second = verdict.findings();
  CHECK(&first == &second);
  REQUIRE(first.size() == 1);
  CHECK(first[0].supported == "'harbour'");
}

namespace {
// A check of the caller's own that quotes bytes which are not UTF-8 in every member of its
// finding, as a careless one might (straight from a byte buffer, a Latin-1 file).
struct quotes_raw_bytes {
  std::vector<std::string> leans_on() const { return {}; }
  void validate(const gp::FactRegistry&) const {}
  void verify(const gp::FactRegistry&, const nlohmann::json&, std::vector<gp::Finding>& findings) const {
    gp::Finding f;
    f.check = "raw\xFF";
    f.field = "name\xC3";
    f.said = "'caf\xE9'";            // Latin-1
    f.supported = "'\xED\xA0\x80'";  // a UTF-16 surrogate written as UTF-8
    f.fact = "f\xF8";
    f.provenance = "tool(\xC0\x80)";  // an overlong NUL
    f.detail = "line one\nline two: \xFE";
    findings.push_back(std::move(f));
  }
};
}  // namespace

TEST_CASE("to_json is safe to dump whatever bytes a check of the caller's own put in its finding") {
  gp::FactRegistry reg;
  seed(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, quotes_raw_bytes{});
  const gp::Verdict v = b.try_submit(nlohmann::json::object());
  REQUIRE_FALSE(v.ok());
  nlohmann::json j;
  REQUIRE_NOTHROW(j = v.to_json());
  std::string dumped;
  REQUIRE_NOTHROW(dumped = j.dump());
  const nlohmann::json& f = j["findings"][0];
  // Each byte that is not UTF-8 is written as \xHH; everything else stands as it was.
  CHECK(f["said"] == "'caf\\xe9'");
  CHECK(f["supported"] == "'\\xed\\xa0\\x80'");
  CHECK(f["provenance"] == "tool(\\xc0\\x80)");
  CHECK(f["detail"] == "line one\nline two: \\xfe");
  CHECK(f["check"] == "raw\\xff");
  CHECK(f["field"] == "name\\xc3");
  CHECK(f["fact"] == "f\\xf8");
  const std::string message = f["message"];
  CHECK(message.find("\n| line one\nline two: \\xfe") != std::string::npos);
  CHECK(nlohmann::json::parse(dumped) == j);
}

TEST_CASE("to_json leaves a built-in check's valid UTF-8 exactly as the finding holds it") {
  gp::FactRegistry reg;
  seed(reg);
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
  const gp::Verdict v = b.try_submit({{"winner", "n\xC3\xB8rth \xE2\x80\x94 \xF0\x9F\x8C\x8A"}});
  REQUIRE(v.findings().size() == 1);
  const nlohmann::json j = v.to_json();
  const gp::Finding& f = v.findings()[0];
  CHECK(j["findings"][0]["said"] == f.said);
  CHECK(j["findings"][0]["detail"] == f.detail);
  CHECK(j["findings"][0]["message"] == f.message());
  CHECK(j["findings"][0]["provenance"] == f.provenance);
}
