// The bodies of ranked.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/checks/ranked.hpp"

#include "groundplane/check.hpp"
#include "groundplane/detail/text/wording.hpp"

namespace groundplane::detail {

GROUNDPLANE_INLINE RankingSource ranking_source(const FactRegistry& registry, const std::string& fact,
                                                const std::string& column, const std::optional<Direction>& direction,
                                                OnMissing on_missing, std::string_view check) {
  const std::string who = std::string(check) + ": ";
  if (fact.empty()) throw ConfigurationError(who + "no fact named; set .fact");
  if (!registry.contains(fact)) throw UnregisteredFact(fact, registry.names(), who);
  const FactKind kind = registry.kind_of(fact);
  if (kind == FactKind::ranking) {
    const Ranking& r = registry.get<Ranking>(fact);
    if (!column.empty())
      throw ConfigurationError(who + "fact " + quote(fact) + " is already a Ranking (of " + quote(r.key()) +
                               "); column " + quote(column) + " applies only to a Table fact; leave column empty");
    if (direction && *direction != r.direction())
      throw ConfigurationError(who + "fact " + quote(fact) + " was recorded " + std::string(to_string(r.direction())) +
                               ", and the check asks for " + std::string(to_string(*direction)) +
                               ", which would disagree with the recorded order; leave direction unset or record "
                               "the ranking the other way");
    return {&r, nullptr};
  }
  if (kind != FactKind::table)
    throw ConfigurationError(who + "fact " + quote(fact) + " is " + std::string(kind_as_found(kind)) +
                             "; this check needs a Ranking (from record_ranking), or a Table (from record_table) "
                             "with .column set to the column to rank it by");
  if (column.empty())
    throw ConfigurationError(who + "fact " + quote(fact) +
                             " is a Table; set .column to the column whose values rank its rows");
  const Table& t = registry.get<Table>(fact);
  const DerivedRanking& d = t.ranking_by(column, direction.value_or(Direction::higher_is_better), on_missing);
  return {&d.ranking, &d.skipped};
}

GROUNDPLANE_INLINE std::vector<std::string> skipped_rows_warning(const RankingSource& source,
                                                                 std::string_view check_name,
                                                                 const std::string& column) {
  if (source.skipped == nullptr || source.skipped->empty()) return {};
  const auto& skipped = *source.skipped;
  std::string keys;
  for (std::size_t i = 0; i < skipped.size() && i < 10; ++i) keys += (i > 0 ? ", " : "") + skipped[i].render();
  if (skipped.size() > 10) keys += " and " + group_thousands(skipped.size() - 10) + " more";
  return {std::string(check_name) + ": fact " + quote(source.ranking->name()) + " has no value in column " +
          quote(column) + " for " + count_of(skipped.size(), "row", "rows") +
          ", ranked without them (OnMissing::skip): " + keys};
}

GROUNDPLANE_INLINE std::string not_an_entity(const nlohmann::json& said) {
  std::string got(type_name(said));
  if (said.is_number_float() && got == "a number") got = "a number with a fraction part or an exponent";
  return "expected an entity (a string, or an integer id), got " + got;
}

GROUNDPLANE_INLINE std::string key_phrase(const Ranking& ranking) {
  return quote(ranking.key()) + (ranking.direction() == Direction::lower_is_better ? " (lower is better)" : "");
}

GROUNDPLANE_INLINE StatedScore classify_score(const nlohmann::json& said, const Decimal& recorded,
                                              const Tolerance& tolerance, Rounding rounding) {
  StatedScore out{stated_number(said), {}};
  if (!out.value) return out;
  // A score quoted exactly, the common case, is decided without building a fraction.
  if (*out.value == recorded) out.match.ok = true;
  else out.match = match_number(*out.value, Rational(recorded), tolerance, rounding);
  return out;
}

}  // namespace groundplane::detail
