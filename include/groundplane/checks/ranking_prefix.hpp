// gp::ranking_prefix — a top-k list is the computed order's first k entities.
//
//   gp::ranking_prefix{.fact = "campaign_ctr", .k = 3}   // reads "top"
//   gp::ranking_prefix{.fact = "campaigns", .k = 3, .column = "ctr"}   // a table's rows
//
// The list is an array of entity names, or of objects {"name": .., "score": ..}; a
// quoted score must be that entity's recorded score (tolerance and rounding apply).
// k = 0 takes the list's own length as k.
//
// Ties: a list is accepted exactly when every place holds a distinct ranked entity
// whose recorded score is the score computed for that place, so inside a block of tied
// scores any order is accepted. When the cut at k falls inside a block of tied scores,
// the top k is not a fact: under Ties::reject (the default) that is a finding naming the
// block and its shared score; under Ties::accept_any any members of that block may fill
// the remaining places ("'b' and 'c' tie at 2; either may fill place 2").
//
// ordered = false reads the list as a set: every entity of the first k places must
// appear, in any order (under accept_any, any members of a block cut at k).
//
// Findings. Every finding's field is the configured list field (e.g. 'top'), and the
// explanation line names the place, counted from 1 as people read a list ("place 2 of
// the computed top 3 …"): an element pointer such as '/top/1' would count from 0 and
// read as the wrong place. One finding per wrong place (an unknown name, a repeated
// name, an entity from another place, a wrong quoted score), at most
// max_place_findings of them and then one that counts the rest; one more when the list
// has the wrong length (k > 0: anything but k names; k = 0: empty, or longer than the
// ranking). A list in the right set but the wrong order reads:
//
//   unsupported claim in field 'top': model said 'north', registered facts support 'harbour'
//   | fact='campaign_ctr'
//   | provenance=warehouse.query(table='campaign_daily', window='7d')
//   | place 1 of the computed top 3 on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/checks/ranked.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/wording.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane {

struct ranking_prefix {
  std::string fact;           // a Ranking, or a Table with `column`
  std::string field = "top";  // array of names, or of objects {"name": .., "score": ..}
  std::size_t k = 0;          // 0: the list's own length
  Tolerance tolerance{};
  Rounding rounding = Rounding::exact;
  std::string column = "";                            // a Table's column to rank its rows by
  std::optional<Direction> direction = std::nullopt;  // as superlative's
  OnMissing on_missing = OnMissing::refuse;           // as superlative's
  Ties ties = Ties::reject;                           // reject: a cut at k inside a block of tied scores is a finding
  bool ordered = true;                                // false: the list is a set of the first k

  static constexpr const char* check_name = "ranking_prefix";
  // Wrong places spelled out one finding each; past this, one finding counts the rest.
  static constexpr std::size_t max_place_findings = 8;

  std::vector<std::string> leans_on() const { return {fact}; }

  // The output fields it reads (Boundary::stream runs it once they have closed; prose
  // slots over them count as checked).
  std::vector<std::string> reads() const { return {field}; }

  // ranking_prefix(fact='campaign_ctr', field='top')
  std::string name() const;

  void validate(const FactRegistry& registry) const;

  // The rows of a Table fact skipped under OnMissing::skip.
  std::vector<std::string> warnings(const FactRegistry& registry) const;

  // An array of names (or of {name, score} objects), k long when k is set.
  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

 private:
  detail::RankingSource source(const FactRegistry& registry) const {
    return detail::ranking_source(registry, fact, column, direction, on_missing, check_name);
  }
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/ranking_prefix-inl.hpp"
#endif
