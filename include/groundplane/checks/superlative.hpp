// gp::superlative — the named winner is the computed best (or worst) of a Ranking, and a
// quoted score is that entity's recorded score.
//
//   gp::superlative{.fact = "campaign_ctr"}     // reads "winner", and "score" if present
//
// A wrong winner reads:
//   unsupported claim in field 'winner': model said 'north', registered facts support 'harbour'
//   | fact='campaign_ctr'
//   | provenance=warehouse.query(table='campaign_daily', window='7d')
//   | computed argmax on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/field.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/stated.hpp"
#include "groundplane/detail/wording.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane {

enum class Pick { best, worst };
enum class Ties { reject, accept_any };

struct superlative {
  std::string fact;  // a Ranking
  std::string field = "winner";
  std::string score_field = "score";  // checked when present in the output; "" = never
  Pick pick = Pick::best;
  Ties ties = Ties::reject;  // reject: a tie at the top must be named whole (an array of the tied names)
  Tolerance tolerance{};
  Rounding rounding = Rounding::exact;

  static constexpr const char* check_name = "superlative";

  std::vector<std::string> leans_on() const { return {fact}; }

  void validate(const FactRegistry& registry) const;

  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

 private:
  std::size_t leader_position(const Ranking& ranking) const { return pick == Pick::best ? 0 : ranking.size() - 1; }

  // The array holds exactly these names, each once, in any order.
  static bool names_exactly(const nlohmann::json& said, const std::vector<std::string>& names);

  void verify_score(const Ranking& ranking, const std::string& name, std::size_t pos, const nlohmann::json& output,
                    std::vector<Finding>& findings) const;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/superlative-inl.hpp"
#endif
