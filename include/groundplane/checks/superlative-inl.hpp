// The bodies of superlative.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/superlative.hpp"

namespace groundplane {

GROUNDPLANE_INLINE std::string superlative::name() const {
  return std::string(check_name) + "(fact=" + detail::quote(fact) +
         (column.empty() ? std::string() : ", column=" + detail::quote(column)) + ", field=" + detail::quote(field) +
         ")";
}

GROUNDPLANE_INLINE void superlative::validate(const FactRegistry& registry) const {
  source(registry);
  detail::validate_field(field, check_name, "field");
  if (!score_field.empty()) detail::validate_field(score_field, check_name, "score_field");
  if (!rank_field.empty()) detail::validate_field(rank_field, check_name, "rank_field");
  detail::validate_tolerance(tolerance, check_name);
}

GROUNDPLANE_INLINE std::vector<std::string> superlative::warnings(const FactRegistry& registry) const {
  return detail::skipped_rows_warning(source(registry), name(), column);
}

GROUNDPLANE_INLINE void superlative::describe(const FactRegistry& registry, SchemaBuilder& schema) const {
  const Ranking& ranking = *source(registry).ranking;
  nlohmann::json name = SchemaBuilder::entity_schema(ranking.order(), "entities ranked on '" + ranking.key() + "'",
                                                     ranking.integer_entities());
  // A tie at the top is named whole: the field may then be an array of the tied names.
  if (ranking.tie_block_at(leader_position(ranking)).second > 1)
    name = {{"anyOf", nlohmann::json::array({name, {{"type", "array"}, {"items", name}}})},
            {"description", "the leader, or every entity tied for the lead as an array"}};
  schema.add(field, std::move(name), true);
  if (!score_field.empty())
    schema.add(score_field, {{"type", "number"}, {"description", "the winner's recorded '" + ranking.key() + "'"}},
               false);
  if (!rank_field.empty())
    schema.add(rank_field,
               {{"type", "integer"}, {"description", "the winner's rank on '" + ranking.key() + "', 1 for the top"}},
               false);
}

GROUNDPLANE_INLINE void superlative::verify(const FactRegistry& registry, const nlohmann::json& output,
                                            std::vector<Finding>& findings) const {
  const Ranking& ranking = *source(registry).ranking;
  const std::size_t leader_pos = leader_position(ranking);
  const std::size_t tied = ranking.tie_block_at(leader_pos).second;
  verify_rank(ranking, output, findings);
  // The common case first: the computed leader named (alone, or with ties accepted)
  // costs two lookups and no strings.
  const nlohmann::json* said = detail::find_field(output, field);
  if (said != nullptr) {
    const auto pos = ranking.locate(*said);
    if (pos && ranking.score_at(*pos) == ranking.score_at(leader_pos) && (ties == Ties::accept_any || tied == 1)) {
      verify_score(ranking, ranking.order()[*pos], *pos, output, findings);
      return;
    }
  }
  const std::vector<Entity> leaders = detail::tie_block_names(ranking, leader_pos);
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
  f.said = detail::render_claim(*said);
  if (said->is_array()) {
    if (names_exactly(ranking, *said, leaders)) {
      verify_score(ranking, leaders.front(), leader_pos, output, findings);
      return;
    }
    f.detail = (leaders.size() > 1 ? tie_line + "; an array must name exactly the tied entities"
                                   : computed + "; an array must name exactly the best, " + truth + " alone");
    findings.push_back(std::move(f));
    return;
  }
  const auto names = [&](const nlohmann::json& v) { return ranking.locate(v).has_value(); };
  if (!said->is_string() && !detail::is_integer_json(*said)) {
    f.detail = detail::not_an_entity(*said) + detail::entity_type_hint(*said, names) + "; " + computed;
    findings.push_back(std::move(f));
    return;
  }
  const auto pos = ranking.locate(*said);
  if (!pos) {
    f.detail = f.said + " was never ranked: it is not one of the " + std::to_string(ranking.size()) +
               " entities ranked on " + detail::quote(ranking.key()) + detail::entity_type_hint(*said, names) + "; " +
               computed;
    findings.push_back(std::move(f));
    return;
  }
  const Entity& name = ranking.order()[*pos];
  const bool leads = ranking.score_at(*pos) == leading_score;
  if (!leads) {
    f.detail = computed + "; " + f.said + " ranked #" + std::to_string(ranking.rank_at(*pos)) +
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

GROUNDPLANE_INLINE bool superlative::names_exactly(const Ranking& ranking, const nlohmann::json& said,
                                                   const std::vector<Entity>& names) {
  if (said.size() != names.size()) return false;
  std::vector<std::size_t> got;
  got.reserve(said.size());
  for (const auto& e : said) {
    const auto pos = ranking.locate(e);
    if (!pos) return false;
    got.push_back(*pos);
  }
  std::vector<std::size_t> want;
  want.reserve(names.size());
  for (const auto& n : names) want.push_back(*ranking.position_of(n));
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  return got == want;
}

GROUNDPLANE_INLINE void superlative::verify_score(const Ranking& ranking, const Entity& name, std::size_t pos,
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
    f.detail = "expected a number, got " + std::string(detail::type_name(*said)) + " (not a number); " + name.render() +
               "'s recorded " + detail::quote(ranking.key()) + " is " + f.supported;
    findings.push_back(std::move(f));
    return;
  }
  const auto match = detail::match_number(*value, detail::Rational(recorded), tolerance, rounding);
  if (match.ok) return;
  f.detail = name.render() + "'s recorded " + detail::quote(ranking.key()) + " is " + f.supported +
             " and the stated score does not match it";
  // Whose score was quoted instead, when it is another entity's exactly.
  if (const auto other = ranking.other_with_score(*value, pos))
    f.detail += "; " + f.said + " is " + ranking.order()[*other].render() + "'s";
  if (!match.hint.empty()) f.detail += "; " + match.hint;
  findings.push_back(std::move(f));
}

GROUNDPLANE_INLINE void superlative::verify_rank(const Ranking& ranking, const nlohmann::json& output,
                                                 std::vector<Finding>& findings) const {
  if (rank_field.empty()) return;
  const nlohmann::json* said = detail::find_field(output, rank_field);
  if (said == nullptr || said->is_null()) return;  // a rank not stated is not a claim
  const std::size_t leader_pos = leader_position(ranking);
  const std::size_t rank = ranking.rank_at(leader_pos);
  const auto value = stated_number(*said);
  if (value && *value == Decimal(rank)) return;
  Finding f = detail::finding_about(check_name, rank_field, ranking);
  f.said = detail::render(*said);
  f.supported = std::to_string(rank);
  const std::string leader = ranking.order()[leader_pos].render();
  const std::string why =
      pick == Pick::best
          ? leader + " is the top entity on " + detail::quote(ranking.key()) + ", so the winner's rank must be 1"
          : leader + " ranks last on " + detail::quote(ranking.key()) + ", at #" + std::to_string(rank) + " of " +
                std::to_string(ranking.size()) + " counted from the top";
  f.detail = value ? why : "expected a rank (a number), got " + std::string(detail::type_name(*said)) + "; " + why;
  findings.push_back(std::move(f));
}

}  // namespace groundplane
