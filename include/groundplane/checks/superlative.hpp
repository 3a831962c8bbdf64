// gp::superlative — the named winner is the computed best (or worst) of a Ranking, or
// of a Table's rows ranked by a column, and a quoted score (and rank) is that entity's.
//
//   gp::superlative{.fact = "campaign_ctr"}     // reads "winner", and "score" if present
//   gp::superlative{.fact = "campaigns", .column = "ctr"}   // a query's rows, by 'ctr'
//
// Entities are compared by JSON type and value (gp::Entity): 101 names the integer id
// 101; "101", 101.0 and true do not.
//
// A wrong winner reads:
//   unsupported claim in field 'winner': model said 'north', registered facts support 'harbour'
//   | fact='campaign_ctr'
//   | provenance=warehouse.query(table='campaign_daily', window='7d')
//   | computed argmax on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/checks/ranked.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/enum_names.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/wording.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane {

enum class Pick { best, worst };
enum class Ties { reject, accept_any };

namespace detail {
inline constexpr EnumName<Pick> pick_names[] = {{Pick::best, "best"}, {Pick::worst, "worst"}};
template <>
inline constexpr std::span<const EnumName<Pick>> enum_table<Pick> = pick_names;
inline constexpr EnumName<Ties> ties_names[] = {{Ties::reject, "reject"}, {Ties::accept_any, "accept_any"}};
template <>
inline constexpr std::span<const EnumName<Ties>> enum_table<Ties> = ties_names;
}  // namespace detail
inline std::string_view to_string(Pick p) noexcept { return detail::name_of(p); }
inline std::string_view to_string(Ties t) noexcept { return detail::name_of(t); }

struct superlative {
  std::string fact;  // a Ranking, or a Table with `column`
  std::string field = "winner";
  std::string score_field = "score";  // checked when present in the output; "" = never
  Pick pick = Pick::best;
  Ties ties = Ties::reject;  // reject: a tie at the top must be named whole (an array of the tied names)
  Tolerance tolerance{};
  Rounding rounding = Rounding::exact;
  std::string column = "";  // a Table's column to rank its rows by (the entities: its key column)
  // A Table: higher_is_better when unset. A Ranking: must agree with the recorded one.
  std::optional<Direction> direction = std::nullopt;
  // A Table row with no value in `column`: refuse (ConfigurationError when the boundary
  // is built), or skip it with a warning on the verdict. Nothing to skip in a Ranking.
  OnMissing on_missing = OnMissing::refuse;
  // Checked when set and present: the winner's competition rank (1 for the best, a tie
  // included; the worst's rank counted from the top for Pick::worst).
  std::string rank_field = "";

  static constexpr const char* check_name = "superlative";

  std::vector<std::string> leans_on() const { return {fact}; }

  // The output fields it reads (Boundary::stream runs it once they have closed; prose
  // slots over them count as checked).
  std::vector<std::string> reads() const {
    std::vector<std::string> out{field};
    if (!score_field.empty()) out.push_back(score_field);
    if (!rank_field.empty()) out.push_back(rank_field);
    return out;
  }

  // superlative(fact='campaign_ctr', field='winner')
  std::string name() const;

  void validate(const FactRegistry& registry) const;

  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

  // The rows of a Table fact skipped under OnMissing::skip.
  std::vector<std::string> warnings(const FactRegistry& registry) const;

 private:
  detail::RankingSource source(const FactRegistry& registry) const {
    return detail::ranking_source(registry, fact, column, direction, on_missing, check_name);
  }

  std::size_t leader_position(const Ranking& ranking) const { return pick == Pick::best ? 0 : ranking.size() - 1; }

  void verify_score(const Ranking& ranking, const Entity& name, std::size_t pos, const nlohmann::json& output,
                    std::vector<Finding>& findings) const;

  void verify_rank(const Ranking& ranking, const nlohmann::json& output, std::vector<Finding>& findings) const;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/superlative-inl.hpp"
#endif
