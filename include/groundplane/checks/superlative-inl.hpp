// The bodies of superlative.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/superlative.hpp"

namespace groundplane {

namespace detail {

// What superlative found in the winner field, before any finding is worded.
struct SuperlativeWinner {
  enum class Kind {
    holds,            // the computed leader, or an array of exactly the entities tied for the lead
    missing,          // no winner field
    wrong_array,      // an array that is not exactly the tied leaders
    not_an_entity,    // neither a string nor an integer
    never_ranked,     // a value no ranked entity has
    not_leading,      // a ranked entity that does not lead
    tie_named_alone,  // one of a tie at the top named alone under Ties::reject
  };
  Kind kind = Kind::holds;
  std::size_t leader = 0;  // the computed leader's position in the order
  std::size_t named = 0;   // not_leading, tie_named_alone: the named entity's position
  // The quoted score is then checked as the entity's at `score_owner` (a position in the
  // order), against the score at `score_at`; unset when the winner named no ranked entity.
  std::optional<std::size_t> score_owner;
  std::size_t score_at = 0;
};

// The array names exactly the entities at positions [first, first + count), each once,
// in any order.
GROUNDPLANE_INLINE bool names_tie_block(const Ranking& ranking, const nlohmann::json& said, std::size_t first,
                                        std::size_t count) {
  if (said.size() != count) return false;
  std::vector<std::size_t> named;
  named.reserve(count);
  for (const auto& entry : said) {
    const auto pos = ranking.locate(entry);
    if (!pos) return false;
    named.push_back(*pos);
  }
  std::sort(named.begin(), named.end());
  for (std::size_t i = 0; i < count; ++i)
    if (named[i] != first + i) return false;
  return true;
}

// Judges the winner field against the entity at `leader`. Builds no text.
GROUNDPLANE_INLINE SuperlativeWinner classify_superlative_winner(const superlative& check, const Ranking& ranking,
                                                                 std::size_t leader, const nlohmann::json* said) {
  using Kind = SuperlativeWinner::Kind;
  SuperlativeWinner out;
  out.leader = leader;
  const auto [first, tied] = ranking.tie_block_at(leader);
  const auto judged = [&out](Kind kind, std::size_t owner, std::size_t at) {
    out.kind = kind;
    out.score_owner = owner;
    out.score_at = at;
    return out;
  };
  if (said == nullptr) {
    out.kind = Kind::missing;
    return out;
  }
  // The common case first: the computed leader named (alone, or with ties accepted)
  // costs two lookups.
  const auto pos = ranking.locate(*said);
  const bool leads = pos && ranking.score_at(*pos) == ranking.score_at(leader);
  if (leads && (check.ties == Ties::accept_any || tied == 1)) return judged(Kind::holds, *pos, *pos);
  if (said->is_array()) {
    if (names_tie_block(ranking, *said, first, tied)) return judged(Kind::holds, first, leader);
    out.kind = Kind::wrong_array;
  } else if (!said->is_string() && !is_integer_json(*said)) {
    out.kind = Kind::not_an_entity;
  } else if (!pos) {
    out.kind = Kind::never_ranked;
  } else {
    out.named = *pos;
    // A leader here is one of a tie named alone: Ties::accept_any took it above.
    return judged(leads ? Kind::tie_named_alone : Kind::not_leading, *pos, *pos);
  }
  return out;
}

// The winner's finding: what the ranking computes, and how the winner named misses it.
GROUNDPLANE_INLINE Finding superlative_winner_finding(const superlative& check, const Ranking& ranking,
                                                      const nlohmann::json* said, const SuperlativeWinner& found) {
  using Kind = SuperlativeWinner::Kind;
  const std::vector<Entity> leaders = tie_block_names(ranking, found.leader);
  const std::string leading_score = render(ranking.score_at(found.leader));
  // argmax when the pick is the highest score, argmin when it is the lowest.
  const bool highest = (check.pick == Pick::best) == (ranking.direction() == Direction::higher_is_better);
  // Under Ties::reject the only true answer names a tie whole ('a' and 'b'); under
  // accept_any any one of them is true ('a' or 'b').
  const std::string truth = check.ties == Ties::reject ? render_all_of(leaders) : render_alternatives(leaders);
  const std::string computed = std::string("computed ") + (highest ? "argmax" : "argmin") + " on " +
                               quote(ranking.key()) + " is " + truth + (leaders.size() > 1 ? " (tied at " : " (") +
                               leading_score + ")";
  const std::string tie_line =
      truth + " tie for the " + (highest ? "highest " : "lowest ") + quote(ranking.key()) + " at " + leading_score;
  Finding f = finding_about(superlative::check_name, check.field, ranking);
  f.supported = truth;
  if (found.kind == Kind::missing) {
    f.detail = computed;
    return f;
  }
  f.said = render_claim(*said);
  const auto names = [&ranking](const nlohmann::json& v) { return ranking.locate(v).has_value(); };
  switch (found.kind) {
    case Kind::wrong_array:
      f.detail = leaders.size() > 1 ? tie_line + "; an array must name exactly the tied entities"
                                    : computed + "; an array must name exactly the best, " + truth + " alone";
      break;
    case Kind::not_an_entity:
      f.detail = not_an_entity(*said) + entity_type_hint(*said, names) + "; " + computed;
      break;
    case Kind::never_ranked:
      f.detail = f.said + " was never ranked: it is not one of the " + std::to_string(ranking.size()) +
                 " entities ranked on " + quote(ranking.key()) + entity_type_hint(*said, names) + "; " + computed;
      break;
    case Kind::not_leading:
      f.detail = computed + "; " + f.said + " ranked #" + std::to_string(ranking.rank_at(found.named)) +
                 (check.pick == Pick::worst ? " of " + std::to_string(ranking.size()) : std::string()) + " at " +
                 render(ranking.score_at(found.named));
      break;
    case Kind::tie_named_alone:
      f.detail = tie_line +
                 "; naming one of them alone is not supported: name them all, as an array (pass Ties::accept_any "
                 "to accept any tied leader)";
      break;
    case Kind::holds:
    case Kind::missing:
      break;
  }
  return f;
}

// A quoted score that is not `name`'s (at `pos`): not a number, or another number.
GROUNDPLANE_INLINE Finding superlative_score_finding(const superlative& check, const Ranking& ranking,
                                                     const Entity& name, std::size_t pos, const nlohmann::json& said,
                                                     const StatedScore& score) {
  Finding f = finding_about(superlative::check_name, check.score_field, ranking);
  f.said = render(said);
  f.supported = render(ranking.score_at(pos));
  const std::string whose = name.render() + "'s recorded " + quote(ranking.key()) + " is " + f.supported;
  if (!score.value) {
    f.detail = "expected a number, got " + std::string(type_name(said)) + " (not a number); " + whose;
    return f;
  }
  f.detail = whose + " and the stated score does not match it";
  // Whose score was quoted instead, when it is another entity's exactly.
  if (const auto other = ranking.other_with_score(*score.value, pos))
    f.detail += "; " + f.said + " is " + ranking.order()[*other].render() + "'s";
  if (!score.match.hint.empty()) f.detail += "; " + score.match.hint;
  return f;
}

// A stated rank that is not the rank of the entity at `leader` (or not a number).
GROUNDPLANE_INLINE Finding superlative_rank_finding(const superlative& check, const Ranking& ranking,
                                                    std::size_t leader, const nlohmann::json& said, bool a_number) {
  const std::size_t rank = ranking.rank_at(leader);
  Finding f = finding_about(superlative::check_name, check.rank_field, ranking);
  f.said = render(said);
  f.supported = std::to_string(rank);
  const std::string name = ranking.order()[leader].render();
  const std::string why =
      check.pick == Pick::best
          ? name + " is the top entity on " + quote(ranking.key()) + ", so the winner's rank must be 1"
          : name + " ranks last on " + quote(ranking.key()) + ", at #" + std::to_string(rank) + " of " +
                std::to_string(ranking.size()) + " counted from the top";
  f.detail = a_number ? why : "expected a rank (a number), got " + std::string(type_name(said)) + "; " + why;
  return f;
}

}  // namespace detail

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
  const nlohmann::json* said = detail::find_field(output, field);
  const detail::SuperlativeWinner winner =
      detail::classify_superlative_winner(*this, ranking, leader_position(ranking), said);
  verify_rank(ranking, output, findings);
  // Worded only when the winner is wrong: a claim that holds builds no strings.
  if (winner.kind != detail::SuperlativeWinner::Kind::holds)
    findings.push_back(detail::superlative_winner_finding(*this, ranking, said, winner));
  if (winner.score_owner)
    verify_score(ranking, ranking.order()[*winner.score_owner], winner.score_at, output, findings);
}

GROUNDPLANE_INLINE void superlative::verify_score(const Ranking& ranking, const Entity& name, std::size_t pos,
                                                  const nlohmann::json& output, std::vector<Finding>& findings) const {
  if (score_field.empty()) return;
  const nlohmann::json* said = detail::find_field(output, score_field);
  if (said == nullptr || said->is_null())
    return;  // a score not quoted (or null, as strict schemas allow) is not a claim
  const detail::StatedScore score = detail::classify_score(*said, ranking.score_at(pos), tolerance, rounding);
  if (!score.holds()) findings.push_back(detail::superlative_score_finding(*this, ranking, name, pos, *said, score));
}

GROUNDPLANE_INLINE void superlative::verify_rank(const Ranking& ranking, const nlohmann::json& output,
                                                 std::vector<Finding>& findings) const {
  if (rank_field.empty()) return;
  const nlohmann::json* said = detail::find_field(output, rank_field);
  if (said == nullptr || said->is_null()) return;  // a rank not stated is not a claim
  const std::size_t leader = leader_position(ranking);
  const auto value = stated_number(*said);
  if (value && *value == Decimal(ranking.rank_at(leader))) return;
  findings.push_back(detail::superlative_rank_finding(*this, ranking, leader, *said, value.has_value()));
}

}  // namespace groundplane
