// The bodies of ranking_prefix.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/ranking_prefix.hpp"

namespace groundplane {

GROUNDPLANE_INLINE std::string ranking_prefix::name() const {
  return std::string(check_name) + "(fact=" + detail::quote(fact) +
         (column.empty() ? std::string() : ", column=" + detail::quote(column)) + ", field=" + detail::quote(field) +
         ")";
}

GROUNDPLANE_INLINE std::vector<std::string> ranking_prefix::warnings(const FactRegistry& registry) const {
  return detail::skipped_rows_warning(source(registry), name(), column);
}

GROUNDPLANE_INLINE void ranking_prefix::validate(const FactRegistry& registry) const {
  const auto& ranking = *source(registry).ranking;
  detail::validate_field(field, check_name, "field");
  detail::validate_tolerance(tolerance, check_name);
  if (k > ranking.size())
    throw ConfigurationError(std::string(check_name) + ": k is " + std::to_string(k) + " but fact " +
                             detail::quote(fact) + " ranks only " +
                             detail::count_of(ranking.size(), "entity", "entities"));
}

GROUNDPLANE_INLINE void ranking_prefix::describe(const FactRegistry& registry, SchemaBuilder& schema) const {
  const auto& ranking = *source(registry).ranking;
  const std::string what = "entities ranked on '" + ranking.key() + "'";
  const nlohmann::json name = SchemaBuilder::entity_schema(ranking.order(), what, ranking.integer_entities());
  nlohmann::json entry = {
      {"type", "object"}, {"properties", {{"name", name}, {"score", {{"type", "number"}}}}}, {"required", {"name"}}};
  nlohmann::json list = {{"type", "array"},
                         {"items", {{"anyOf", {name, std::move(entry)}}}},
                         {"description", (k > 0 ? "the top " + std::to_string(k) : std::string("the leading")) + " " +
                                             what + (ordered ? ", best first" : ", in any order")}};
  list["minItems"] = k > 0 ? k : std::size_t{1};
  list["maxItems"] = k > 0 ? k : ranking.size();
  schema.add(field, std::move(list), true);
}

GROUNDPLANE_INLINE void ranking_prefix::verify(const FactRegistry& registry, const nlohmann::json& output,
                                               std::vector<Finding>& findings) const {
  const std::size_t before = findings.size();
  const auto& ranking = *source(registry).ranking;
  const nlohmann::json* said = detail::find_field(output, field);
  const std::size_t n = said != nullptr && said->is_array() ? said->size() : 0;
  // The cut the explanations speak of: k, or as far as the list reaches into the ranking.
  const std::size_t cut = std::max(k, std::min(n, ranking.size()));
  const std::size_t expected = k > 0 ? k : (n > 0 ? std::min(n, ranking.size()) : ranking.size());

  Finding whole = detail::finding_about(check_name, field, ranking);
  whole.supported = render_prefix(ranking, expected);
  if (said == nullptr) {
    whole.detail = "expected a list of the " + top_phrase(ranking, k > 0 ? k : 0) + ", best first";
    findings.push_back(std::move(whole));
    return;
  }
  whole.said = detail::render(*said);
  if (!said->is_array()) {
    whole.detail = "expected a list of entity names, got " + std::string(detail::type_name(*said)) +
                   "; the computed order on " + on_key(ranking) + " starts with " + leader(ranking);
    findings.push_back(std::move(whole));
    return;
  }
  if (k > 0 && n != k) {
    whole.detail = "the list has " + detail::count_of(n, "name", "names") + "; the " + top_phrase(ranking, k) +
                   (k == 1 ? " was asked for" : " were asked for");
    findings.push_back(whole);
  } else if (k == 0 && n == 0) {
    whole.detail = "an empty list makes no ranking claim: it names no entities; the computed order on " +
                   on_key(ranking) + " starts with " + leader(ranking);
    findings.push_back(std::move(whole));
    return;
  } else if (k == 0 && n > ranking.size()) {
    whole.detail = "the list has " + detail::count_of(n, "name", "names") + " but only " +
                   detail::count_of(ranking.size(), "entity is", "entities are") + " ranked on " + on_key(ranking);
    findings.push_back(whole);
  }

  // The top `cut` is not a fact when the cut splits a block of tied scores.
  if (ties == Ties::reject && cut > 0 && cut <= ranking.size())
    if (std::string inside = cut_inside_tie(ranking, cut); !inside.empty()) {
      Finding f = whole;
      f.detail = std::move(inside);
      findings.push_back(std::move(f));
    }

  std::unordered_map<std::size_t, std::size_t> seen;  // position in the order -> 0-based place first named
  // Place findings are built only while they are listed: with the findings about the
  // whole list, at most max_place_findings, then one counting the places past them. A
  // list of a million wrong names costs a million judgements and nine findings.
  const std::size_t listed = max_place_findings - std::min(max_place_findings - 1, findings.size() - before);
  std::size_t reported = 0;
  std::size_t unreported = 0;             // places past the cap
  std::size_t last_unreported = 0;        // the latest of them, 0-based
  std::vector<std::size_t> first_places;  // the first few of them, to name
  const auto report = [&](std::size_t at, auto&& make) {
    if (reported < listed) {
      findings.push_back(make());
      ++reported;
      return;
    }
    if (unreported > 0 && last_unreported == at) return;  // a place counts once
    ++unreported;
    last_unreported = at;
    if (first_places.size() < 4) first_places.push_back(at);
  };

  // Set semantics: the positions the list may hold (every block the cut reaches, whole).
  const std::size_t reach = cut == 0 || cut > ranking.size()
                                ? std::min(cut, ranking.size())
                                : ranking.tie_block_at(cut - 1).first + ranking.tie_block_at(cut - 1).second;
  for (std::size_t i = 0; i < n; ++i) {
    const nlohmann::json& entry = (*said)[i];
    const nlohmann::json* name_json = &entry;
    const nlohmann::json* score_json = nullptr;
    if (entry.is_object()) {
      name_json = detail::find_field(entry, "name");
      score_json = detail::find_field(entry, "score");
    }
    // Built only when a finding is made: a long list that is right costs no strings.
    const auto place_finding = [&] {
      Finding f = detail::finding_about(check_name, field, ranking);
      if (i < ranking.size())
        f.supported = ordered ? detail::render_alternatives(detail::tie_block_names(ranking, i))
                              : render_prefix(ranking, expected);
      return f;
    };
    const auto then = [&] { return i < ranking.size() ? "; " + expect_at(ranking, i, cut) : std::string(); };
    const auto names = [&](const nlohmann::json& v) { return ranking.locate(v).has_value(); };
    if (name_json == nullptr || !(name_json->is_string() || detail::is_integer_json(*name_json))) {
      report(i, [&] {
        Finding f = place_finding();
        f.said = detail::render_claim(name_json == nullptr ? entry : *name_json);
        f.detail =
            place(i) + ": " +
            (name_json == nullptr ? std::string("expected an entity or an object with a 'name', got an object "
                                                "without one")
                                  : detail::not_an_entity(*name_json) + detail::entity_type_hint(*name_json, names)) +
            then();
        return f;
      });
      continue;
    }
    const auto pos = ranking.locate(*name_json);
    if (!pos) {
      report(i, [&] {
        Finding f = place_finding();
        f.said = detail::render_claim(*name_json);
        f.detail = place(i) + ": " + f.said + " was never ranked: it is not one of the " +
                   detail::count_of(ranking.size(), "entity", "entities") + " ranked on " + on_key(ranking) +
                   detail::entity_type_hint(*name_json, names) + then();
        return f;
      });
      continue;
    }
    const Entity& name = ranking.order()[*pos];
    if (const auto it = seen.find(*pos); it != seen.end()) {
      report(i, [&] {
        Finding f = place_finding();
        f.said = name.render();
        f.detail = place(i) + " repeats " + f.said + ", which appears twice (already at place " +
                   std::to_string(it->second + 1) + ")" + then();
        return f;
      });
      continue;
    }
    seen.emplace(*pos, i);
    if (ordered && i < ranking.size() && ranking.score_at(*pos) != ranking.score_at(i)) {
      report(i, [&] {
        Finding f = place_finding();
        f.said = name.render();
        f.detail = expect_at(ranking, i, cut) + "; " + f.said + " ranked #" + std::to_string(ranking.rank_at(*pos)) +
                   " at " + detail::render(ranking.score_at(*pos));
        return f;
      });
    } else if (!ordered && *pos >= reach) {
      report(i, [&] {
        Finding f = place_finding();
        f.said = name.render();
        f.detail = place(i) + ": " + f.said + " ranked #" + std::to_string(ranking.rank_at(*pos)) + " at " +
                   detail::render(ranking.score_at(*pos)) + ", outside the computed top " + std::to_string(cut) +
                   " on " + on_key(ranking) + ", " + render_prefix(ranking, std::min(cut, ranking.size()));
        return f;
      });
    }
    if (score_json != nullptr) verify_score(ranking, name, *pos, i, *score_json, report);
  }

  // Set semantics: every entity before the block the cut falls in must be listed.
  if (!ordered && cut > 0 && cut <= ranking.size() && n == cut) {
    const std::size_t must = ranking.tie_block_at(cut - 1).first + ranking.tie_block_at(cut - 1).second <= cut
                                 ? cut
                                 : ranking.tie_block_at(cut - 1).first;
    std::vector<Entity> missing;
    for (std::size_t p = 0; p < must; ++p)
      if (seen.find(p) == seen.end()) missing.push_back(ranking.order()[p]);
    if (!missing.empty() && reported < listed) {
      Finding f = whole;
      f.detail = "the computed top " + std::to_string(cut) + " on " + on_key(ranking) + " also contains " +
                 detail::render_all_of(missing) + ", which the list leaves out";
      findings.push_back(std::move(f));
    }
  }

  if (unreported > 0) {
    Finding rest = detail::finding_about(check_name, field, ranking);
    rest.said = detail::render(*said);
    rest.supported = render_prefix(ranking, expected);
    std::string where;
    for (std::size_t j = 0; j < first_places.size(); ++j)
      where += (j > 0 ? ", " : "") + std::to_string(first_places[j] + 1);
    if (unreported > first_places.size()) where += ", …";
    rest.detail = detail::count_of(unreported, "more place does", "more places do") +
                  " not match the computed order on " + on_key(ranking) + " (places " + where + "; only the first " +
                  std::to_string(listed) + " problems are listed)";
    findings.push_back(std::move(rest));
  }
}

GROUNDPLANE_INLINE std::string ranking_prefix::on_key(const Ranking& r) {
  return detail::quote(r.key()) + (r.direction() == Direction::lower_is_better ? " (lower is better)" : "");
}

GROUNDPLANE_INLINE std::string ranking_prefix::top_phrase(const Ranking& r, std::size_t n) {
  if (n == 1) return "top entity ranked on " + on_key(r);
  return (n > 0 ? "top " + std::to_string(n) : std::string("leading")) + " entities ranked on " + on_key(r);
}

GROUNDPLANE_INLINE std::string ranking_prefix::leader(const Ranking& r) {
  return r.order().front().render() + " (" + detail::render(r.score_at(0)) + ")";
}

GROUNDPLANE_INLINE std::string ranking_prefix::cut_inside_tie(const Ranking& r, std::size_t n) {
  const auto [first, count] = r.tie_block_at(n - 1);
  if (first + count <= n) return "";
  return "the cut at " + std::to_string(n) + " falls inside a tie on " + on_key(r) + ": " +
         detail::render_all_of(detail::tie_block_names(r, n - 1)) + " share " + detail::render(r.score_at(n - 1)) +
         " across places " + std::to_string(first + 1) + "-" + std::to_string(first + count) + ", so the top-" +
         std::to_string(n) + " is undefined there (pass Ties::accept_any to accept any of them)";
}

GROUNDPLANE_INLINE std::string ranking_prefix::render_prefix(const Ranking& r, std::size_t n) {
  nlohmann::json names = nlohmann::json::array();
  for (std::size_t i = 0; i < n && i < r.size(); ++i) names.push_back(r.order()[i].to_json());
  return detail::render(names);
}

GROUNDPLANE_INLINE std::string ranking_prefix::places(std::size_t first, std::size_t count) {
  if (count == 1) return place(first);
  if (count == 2) return "places " + std::to_string(first + 1) + " and " + std::to_string(first + 2);
  return "places " + std::to_string(first + 1) + "-" + std::to_string(first + count);
}

GROUNDPLANE_INLINE std::string ranking_prefix::expect_at(const Ranking& r, std::size_t i, std::size_t cut) {
  const std::string top = "the computed top " + std::to_string(cut) + " on " + on_key(r);
  const auto [first, count] = r.tie_block_at(i);
  const std::string score = detail::render(r.score_at(i));
  if (count == 1) return place(i) + " of " + top + " is " + r.order()[i].render() + " (" + score + ")";
  const std::string tied = detail::render_all_of(detail::tie_block_names(r, i)) + " tie at " + score;
  if (first + count <= cut) return "in " + top + ", " + tied + " and fill " + places(first, count) + " in either order";
  const std::size_t open = cut - first;  // places the block may fill before the cut
  const std::string who =
      open == 1 ? (count == 2 ? "either" : "any of them") : "any " + std::to_string(open) + " of them";
  return "in " + top + ", " + tied + "; " + who + " may fill " + places(first, open);
}

}  // namespace groundplane
