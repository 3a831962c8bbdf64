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
