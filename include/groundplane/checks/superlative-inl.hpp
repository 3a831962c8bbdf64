// The bodies of superlative.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/superlative.hpp"

namespace groundplane {

GROUNDPLANE_INLINE void superlative::validate(const FactRegistry& registry) const {
  detail::fact_for<Ranking>(registry, fact, check_name);
  detail::validate_field(field, check_name, "field");
  if (!score_field.empty()) detail::validate_field(score_field, check_name, "score_field");
  detail::validate_tolerance(tolerance, check_name);
}

GROUNDPLANE_INLINE void superlative::describe(const FactRegistry& registry, SchemaBuilder& schema) const {
  const auto& ranking = registry.get<Ranking>(fact);
  nlohmann::json name = SchemaBuilder::name_schema(ranking.order(), "entities ranked on '" + ranking.key() + "'");
  // A tie at the top is named whole: the field may then be an array of the tied names.
  if (ranking.tie_block_at(leader_position(ranking)).second > 1)
    name = {{"anyOf", nlohmann::json::array({name, {{"type", "array"}, {"items", name}}})},
            {"description", "the leader, or every entity tied for the lead as an array"}};
  schema.add(field, std::move(name), true);
  if (!score_field.empty())
    schema.add(score_field, {{"type", "number"}, {"description", "the winner's recorded '" + ranking.key() + "'"}},
               false);
}

GROUNDPLANE_INLINE void superlative::verify(const FactRegistry& registry, const nlohmann::json& output,
                                            std::vector<Finding>& findings) const {
  const auto& ranking = registry.get<Ranking>(fact);
  const std::size_t leader_pos = leader_position(ranking);
  const std::size_t tied = ranking.tie_block_at(leader_pos).second;
  // The common case first: the computed leader named (alone, or with ties accepted)
  // costs two lookups and no strings.
  const nlohmann::json* said = detail::find_field(output, field);
  if (said != nullptr && said->is_string()) {
    const auto& name = said->get_ref<const std::string&>();
    const auto pos = ranking.position_of(name);
    if (pos && ranking.score_at(*pos) == ranking.score_at(leader_pos) && (ties == Ties::accept_any || tied == 1)) {
      verify_score(ranking, name, *pos, output, findings);
      return;
    }
  }
  const std::vector<std::string> leaders = detail::tie_block_names(ranking, leader_pos);
  const Decimal& leading_score = ranking.score_at(leader_pos);
  // argmax when the pick is the highest score, argmin when it is the lowest.
  const bool highest = (pick == Pick::best) == (ranking.direction() == Direction::higher_is_better);
  // Under Ties::reject the only true answer names a tie whole ('a' and 'b'); under
  // accept_any any one of them is true ('a' or 'b').
  const std::string truth =
      ties == Ties::reject ? detail::render_all_of(leaders) : detail::render_alternatives(leaders);
  const std::string computed = std::string("computed ") + (highest ? "argmax" : "argmin") + " on " +
                               detail::quote(ranking.key()) + " is " + truth +
                               (leaders.size() > 1 ? " (tied at " : " (") + detail::render(leading_score) + ")";
  const std::string tie_line = truth + " tie for the " + (highest ? "highest " : "lowest ") +
                               detail::quote(ranking.key()) + " at " + detail::render(leading_score);

  Finding f = detail::finding_about(check_name, field, ranking);
  f.supported = truth;
  if (said == nullptr) {
    f.detail = computed;
    findings.push_back(std::move(f));
    return;
  }
  f.said = detail::render(*said);
  if (said->is_array()) {
    if (names_exactly(*said, leaders)) {
      verify_score(ranking, leaders.front(), leader_pos, output, findings);
      return;
    }
    f.detail = (leaders.size() > 1 ? tie_line + "; an array must name exactly the tied entities"
                                   : computed + "; an array must name exactly the best, " + truth + " alone");
    findings.push_back(std::move(f));
    return;
  }
  if (!said->is_string()) {
    f.detail = "expected an entity name (a string), got " + std::string(detail::type_name(*said)) + "; " + computed;
    findings.push_back(std::move(f));
    return;
  }
  const auto& name = said->get_ref<const std::string&>();
  const auto pos = ranking.position_of(name);
  if (!pos) {
    f.detail = f.said + " is not one of the " + std::to_string(ranking.size()) + " entities ranked on " +
               detail::quote(ranking.key()) + "; " + computed;
    findings.push_back(std::move(f));
    return;
  }
  const bool leads = ranking.score_at(*pos) == leading_score;
  if (!leads) {
    f.detail = computed + "; " + f.said + " ranked #" + std::to_string(ranking.rank_of(name)) +
               (pick == Pick::worst ? " of " + std::to_string(ranking.size()) : std::string()) + " at " +
               detail::render(ranking.score_at(*pos));
    findings.push_back(std::move(f));
  } else if (leaders.size() > 1 && ties == Ties::reject) {
    f.detail = tie_line +
               "; naming one of them alone is not supported: name them all, as an array (pass Ties::accept_any "
               "to accept any tied leader)";
    findings.push_back(std::move(f));
  }
  verify_score(ranking, name, *pos, output, findings);
}

GROUNDPLANE_INLINE bool superlative::names_exactly(const nlohmann::json& said, const std::vector<std::string>& names) {
  if (said.size() != names.size()) return false;
  std::vector<std::string_view> got;
  for (const auto& e : said) {
    if (!e.is_string()) return false;
    got.push_back(e.get_ref<const std::string&>());
  }
  std::vector<std::string_view> want(names.begin(), names.end());
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  return got == want;
}

GROUNDPLANE_INLINE void superlative::verify_score(const Ranking& ranking, const std::string& name, std::size_t pos,
                                                  const nlohmann::json& output, std::vector<Finding>& findings) const {
  if (score_field.empty()) return;
  const nlohmann::json* said = detail::find_field(output, score_field);
  if (said == nullptr || said->is_null())
    return;  // a score not quoted (or null, as strict schemas allow) is not a claim
  const Decimal& recorded = ranking.score_at(pos);
  if (const auto quoted = stated_number(*said); quoted && *quoted == recorded) return;
  Finding f = detail::finding_about(check_name, score_field, ranking);
  f.said = detail::render(*said);
  f.supported = detail::render(recorded);
  const auto value = stated_number(*said);
  if (!value) {
    f.detail = "expected a number, got " + std::string(detail::type_name(*said)) + "; " + detail::quote(name) +
               "'s recorded " + detail::quote(ranking.key()) + " is " + f.supported;
    findings.push_back(std::move(f));
    return;
  }
  const auto match = detail::match_number(*value, detail::Rational(recorded), tolerance, rounding);
  if (match.ok) return;
  f.detail = detail::quote(name) + "'s recorded " + detail::quote(ranking.key()) + " is " + f.supported;
  // Whose score was quoted instead, when it is another entity's exactly.
  if (const auto other = ranking.other_with_score(*value, pos))
    f.detail += "; " + f.said + " is " + detail::quote(ranking.order()[*other]) + "'s";
  if (!match.hint.empty()) f.detail += "; " + match.hint;
  findings.push_back(std::move(f));
}

}  // namespace groundplane
