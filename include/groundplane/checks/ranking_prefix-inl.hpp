// The bodies of ranking_prefix.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/ranking_prefix.hpp"

namespace groundplane {

namespace detail {

// The wording: each helper is called only for a finding.

GROUNDPLANE_INLINE std::string prefix_place(std::size_t i) { return "place " + std::to_string(i + 1); }

// "places 2 and 3", "places 2-4", "place 2" (1-based, from a 0-based start).
GROUNDPLANE_INLINE std::string prefix_places(std::size_t first, std::size_t count) {
  if (count == 1) return prefix_place(first);
  if (count == 2) return "places " + std::to_string(first + 1) + " and " + std::to_string(first + 2);
  return "places " + std::to_string(first + 1) + "-" + std::to_string(first + count);
}

// "top 3 entities ranked on 'ctr'", "top entity ranked on 'ctr'"; with n == 0 "leading
// entities ranked on 'ctr'".
GROUNDPLANE_INLINE std::string prefix_top_phrase(const Ranking& r, std::size_t n) {
  if (n == 1) return "top entity ranked on " + key_phrase(r);
  return (n > 0 ? "top " + std::to_string(n) : std::string("leading")) + " entities ranked on " + key_phrase(r);
}

GROUNDPLANE_INLINE std::string prefix_leader(const Ranking& r) {
  return r.order().front().render() + " (" + render(r.score_at(0)) + ")";
}

// One acceptable answer, the computed order's first n names, as compact JSON.
GROUNDPLANE_INLINE std::string render_prefix(const Ranking& r, std::size_t n) {
  nlohmann::json names = nlohmann::json::array();
  for (std::size_t i = 0; i < n && i < r.size(); ++i) names.push_back(r.order()[i].to_json());
  return render(names);
}

// "the cut at 3 falls inside a tie on 'ctr' …", for a cut at n that splits a block.
GROUNDPLANE_INLINE std::string prefix_cut_inside_tie(const Ranking& r, std::size_t n) {
  const auto [first, count] = r.tie_block_at(n - 1);
  return "the cut at " + std::to_string(n) + " falls inside a tie on " + key_phrase(r) + ": " +
         render_all_of(tie_block_names(r, n - 1)) + " share " + render(r.score_at(n - 1)) + " across places " +
         std::to_string(first + 1) + "-" + std::to_string(first + count) + ", so the top-" + std::to_string(n) +
         " is undefined there (pass Ties::accept_any to accept any of them)";
}

// What the computed order puts at 0-based place i of a list cut after `cut` places.
GROUNDPLANE_INLINE std::string prefix_expect_at(const Ranking& r, std::size_t i, std::size_t cut) {
  const std::string top = "the computed top " + std::to_string(cut) + " on " + key_phrase(r);
  const auto [first, count] = r.tie_block_at(i);
  const std::string score = render(r.score_at(i));
  if (count == 1) return prefix_place(i) + " of " + top + " is " + r.order()[i].render() + " (" + score + ")";
  const std::string tied = render_all_of(tie_block_names(r, i)) + " tie at " + score;
  if (first + count <= cut)
    return "in " + top + ", " + tied + " and fill " + prefix_places(first, count) + " in either order";
  const std::size_t open = cut - first;  // places the block may fill before the cut
  const std::string who =
      open == 1 ? (count == 2 ? "either" : "any of them") : "any " + std::to_string(open) + " of them";
  return "in " + top + ", " + tied + "; " + who + " may fill " + prefix_places(first, open);
}

// What ranking_prefix found in the list as a whole, before any finding is worded.
struct PrefixList {
  enum class Shape {
    fits,          // as many names as it should have
    missing,       // no list field
    not_a_list,    // not an array
    wrong_length,  // k > 0, and not k names
    empty,         // k = 0, and no names
    too_long,      // k = 0, and more names than the ranking has
  };
  Shape shape = Shape::fits;
  std::size_t length = 0;    // names in the list (0 when it is not an array)
  std::size_t cut = 0;       // the cut the explanations speak of: k, or as far as the list reaches
  std::size_t expected = 0;  // names in one acceptable answer
  bool cut_in_tie = false;   // Ties::reject, and the cut splits a block of tied scores
  // Set semantics: the positions the list may hold (every block the cut reaches, whole),
  // and those it must (every block before the one the cut splits).
  std::size_t reach = 0;
  std::size_t settled = 0;

  // Nothing more can be judged: no list, or one that names nobody.
  bool ends() const { return shape == Shape::missing || shape == Shape::not_a_list || shape == Shape::empty; }
};

GROUNDPLANE_INLINE PrefixList classify_prefix_list(const ranking_prefix& check, const Ranking& ranking,
                                                   const nlohmann::json* said) {
  using Shape = PrefixList::Shape;
  PrefixList out;
  const std::size_t k = check.k;
  const std::size_t n = said != nullptr && said->is_array() ? said->size() : 0;
  out.length = n;
  out.cut = std::max(k, std::min(n, ranking.size()));
  out.expected = k > 0 ? k : (n > 0 ? std::min(n, ranking.size()) : ranking.size());
  if (said == nullptr) out.shape = Shape::missing;
  else if (!said->is_array()) out.shape = Shape::not_a_list;
  else if (k > 0 && n != k) out.shape = Shape::wrong_length;
  else if (k == 0 && n == 0) out.shape = Shape::empty;
  else if (k == 0 && n > ranking.size()) out.shape = Shape::too_long;
  out.reach = std::min(out.cut, ranking.size());
  if (out.cut > 0 && out.cut <= ranking.size()) {
    const auto [first, count] = ranking.tie_block_at(out.cut - 1);
    out.cut_in_tie = check.ties == Ties::reject && first + count > out.cut;
    out.reach = first + count;
    out.settled = first + count <= out.cut ? out.cut : first;
  }
  return out;
}

// The finding about the list as a whole, its explanation still to write.
GROUNDPLANE_INLINE Finding prefix_list_base(const ranking_prefix& check, const Ranking& ranking,
                                            const nlohmann::json* said, const PrefixList& list) {
  Finding f = finding_about(ranking_prefix::check_name, check.field, ranking);
  f.supported = render_prefix(ranking, list.expected);
  if (said != nullptr) f.said = render(*said);
  return f;
}

GROUNDPLANE_INLINE Finding prefix_list_finding(const ranking_prefix& check, const Ranking& ranking,
                                               const nlohmann::json* said, const PrefixList& list) {
  using Shape = PrefixList::Shape;
  Finding f = prefix_list_base(check, ranking, said, list);
  const std::size_t k = check.k;
  switch (list.shape) {
    case Shape::missing:
      f.detail = "expected a list of the " + prefix_top_phrase(ranking, k) + ", best first";
      break;
    case Shape::not_a_list:
      f.detail = "expected a list of entity names, got " + std::string(type_name(*said)) + "; the computed order on " +
                 key_phrase(ranking) + " starts with " + prefix_leader(ranking);
      break;
    case Shape::wrong_length:
      f.detail = "the list has " + count_of(list.length, "name", "names") + "; the " + prefix_top_phrase(ranking, k) +
                 (k == 1 ? " was asked for" : " were asked for");
      break;
    case Shape::empty:
      f.detail = "an empty list makes no ranking claim: it names no entities; the computed order on " +
                 key_phrase(ranking) + " starts with " + prefix_leader(ranking);
      break;
    case Shape::too_long:
      f.detail = "the list has " + count_of(list.length, "name", "names") + " but only " +
                 count_of(ranking.size(), "entity is", "entities are") + " ranked on " + key_phrase(ranking);
      break;
    case Shape::fits:
      break;
  }
  return f;
}

// What one place of the list holds, before any finding is worded.
struct PrefixPlace {
  enum class Kind {
    holds,          // an entity the place may hold
    no_name,        // an object without a 'name'
    not_an_entity,  // a name neither a string nor an integer
    never_ranked,   // a name no ranked entity has
    repeated,       // an entity an earlier place named
    misplaced,      // ordered: an entity whose score is not the place's
    outside,        // as a set: an entity past every block the cut reaches
  };
  Kind kind = Kind::holds;
  const nlohmann::json* name = nullptr;   // the name as written (the entry itself when it has none)
  const nlohmann::json* score = nullptr;  // a quoted score
  std::size_t pos = 0;                    // the entity's position in the order
  std::size_t first_named = 0;            // repeated: the place that named it first, 0-based

  // The name is a ranked entity named here first, so its quoted score is judged too.
  bool resolved() const { return kind == Kind::holds || kind == Kind::misplaced || kind == Kind::outside; }
};

// Judges 0-based place i, noting in `seen` (position in the order -> place first named)
// the entity it names. Builds no text.
GROUNDPLANE_INLINE PrefixPlace classify_prefix_place(const ranking_prefix& check, const Ranking& ranking,
                                                     const PrefixList& list, const nlohmann::json& entry, std::size_t i,
                                                     std::unordered_map<std::size_t, std::size_t>& seen) {
  using Kind = PrefixPlace::Kind;
  PrefixPlace out;
  out.name = &entry;
  if (entry.is_object()) {
    out.name = find_field(entry, "name");
    out.score = find_field(entry, "score");
  }
  if (out.name == nullptr) {
    out.name = &entry;
    out.kind = Kind::no_name;
    return out;
  }
  if (!out.name->is_string() && !is_integer_json(*out.name)) {
    out.kind = Kind::not_an_entity;
    return out;
  }
  const auto pos = ranking.locate(*out.name);
  if (!pos) {
    out.kind = Kind::never_ranked;
    return out;
  }
  out.pos = *pos;
  if (const auto it = seen.find(*pos); it != seen.end()) {
    out.kind = Kind::repeated;
    out.first_named = it->second;
    return out;
  }
  seen.emplace(*pos, i);
  if (check.ordered && i < ranking.size() && ranking.score_at(*pos) != ranking.score_at(i)) out.kind = Kind::misplaced;
  else if (!check.ordered && *pos >= list.reach) out.kind = Kind::outside;
  return out;
}

GROUNDPLANE_INLINE Finding prefix_place_finding(const ranking_prefix& check, const Ranking& ranking,
                                                const PrefixList& list, std::size_t i, const PrefixPlace& place) {
  using Kind = PrefixPlace::Kind;
  Finding f = finding_about(ranking_prefix::check_name, check.field, ranking);
  if (i < ranking.size())
    f.supported =
        check.ordered ? render_alternatives(tie_block_names(ranking, i)) : render_prefix(ranking, list.expected);
  const auto then = [&] { return i < ranking.size() ? "; " + prefix_expect_at(ranking, i, list.cut) : std::string(); };
  const auto names = [&ranking](const nlohmann::json& v) { return ranking.locate(v).has_value(); };
  const std::string at = prefix_place(i);
  f.said = place.kind == Kind::no_name || place.kind == Kind::not_an_entity || place.kind == Kind::never_ranked
               ? render_claim(*place.name)
               : ranking.order()[place.pos].render();
  const auto ranked = [&] {  // where the entity named stands
    return " ranked #" + std::to_string(ranking.rank_at(place.pos)) + " at " + render(ranking.score_at(place.pos));
  };
  switch (place.kind) {
    case Kind::no_name:
      f.detail = at + ": expected an entity or an object with a 'name', got an object without one" + then();
      break;
    case Kind::not_an_entity:
      f.detail = at + ": " + not_an_entity(*place.name) + entity_type_hint(*place.name, names) + then();
      break;
    case Kind::never_ranked:
      f.detail = at + ": " + f.said + " was never ranked: it is not one of the " +
                 count_of(ranking.size(), "entity", "entities") + " ranked on " + key_phrase(ranking) +
                 entity_type_hint(*place.name, names) + then();
      break;
    case Kind::repeated:
      f.detail = at + " repeats " + f.said + ", which appears twice (already at place " +
                 std::to_string(place.first_named + 1) + ")" + then();
      break;
    case Kind::misplaced:
      f.detail = prefix_expect_at(ranking, i, list.cut) + "; " + f.said + ranked();
      break;
    case Kind::outside:
      f.detail = at + ": " + f.said + ranked() + ", outside the computed top " + std::to_string(list.cut) + " on " +
                 key_phrase(ranking) + ", " + render_prefix(ranking, std::min(list.cut, ranking.size()));
      break;
    case Kind::holds:
      break;
  }
  return f;
}

// A quoted score that is not the entity's (at `pos`) named at 0-based place i.
GROUNDPLANE_INLINE Finding prefix_score_finding(const ranking_prefix& check, const Ranking& ranking, std::size_t pos,
                                                std::size_t i, const nlohmann::json& said, const StatedScore& score) {
  const Entity& name = ranking.order()[pos];
  Finding f = finding_about(ranking_prefix::check_name, check.field, ranking);
  f.said = render(said);
  f.supported = render(ranking.score_at(pos));
  const std::string whose = name.render() + "'s recorded " + quote(ranking.key()) + " is " + f.supported;
  if (!score.value) {
    f.detail = prefix_place(i) + ": expected a number as " + name.render() + "'s score, got " +
               std::string(type_name(said)) + "; " + whose;
    return f;
  }
  f.detail = prefix_place(i) + ": " + whose;
  if (const auto other = ranking.other_with_score(*score.value, pos))
    f.detail += "; " + f.said + " is " + ranking.order()[*other].render() + "'s";
  if (!score.match.hint.empty()) f.detail += "; " + score.match.hint;
  return f;
}

// Place findings are listed while there is room; past it, wrong places are only counted
// (the first few by number) for one finding that sums them up.
struct PlaceTally {
  std::size_t listed = 0;                 // place findings there is room for
  std::size_t reported = 0;               // place findings listed
  std::size_t unreported = 0;             // wrong places past the room
  std::size_t last_unreported = 0;        // the latest of them, 0-based
  std::vector<std::size_t> first_places;  // the first few of them, to name

  // `word` runs only while there is room: a wrong place past it costs no strings.
  template <class Word>
  void report(std::vector<Finding>& findings, std::size_t at, const Word& word) {
    if (reported < listed) {
      findings.push_back(word());
      ++reported;
      return;
    }
    if (unreported > 0 && last_unreported == at) return;  // a place counts once
    ++unreported;
    last_unreported = at;
    if (first_places.size() < 4) first_places.push_back(at);
  }
};

// Judges every place of the list (an array), and its quoted score once its name resolves.
GROUNDPLANE_INLINE void check_prefix_places(const ranking_prefix& check, const Ranking& ranking,
                                            const nlohmann::json& said, const PrefixList& list, PlaceTally& tally,
                                            std::unordered_map<std::size_t, std::size_t>& seen,
                                            std::vector<Finding>& findings) {
  for (std::size_t i = 0; i < list.length; ++i) {
    const PrefixPlace place = classify_prefix_place(check, ranking, list, said[i], i, seen);
    if (place.kind != PrefixPlace::Kind::holds)
      tally.report(findings, i, [&] { return prefix_place_finding(check, ranking, list, i, place); });
    if (!place.resolved() || place.score == nullptr) continue;
    const StatedScore score =
        classify_score(*place.score, ranking.score_at(place.pos), check.tolerance, check.rounding);
    if (!score.holds())
      tally.report(findings, i,
                   [&] { return prefix_score_finding(check, ranking, place.pos, i, *place.score, score); });
  }
}

// Set semantics: the positions before the block the cut splits that the list leaves out.
GROUNDPLANE_INLINE std::vector<std::size_t> prefix_left_out(const PrefixList& list,
                                                            const std::unordered_map<std::size_t, std::size_t>& seen) {
  std::vector<std::size_t> left_out;
  for (std::size_t p = 0; p < list.settled; ++p)
    if (seen.find(p) == seen.end()) left_out.push_back(p);
  return left_out;
}

GROUNDPLANE_INLINE Finding prefix_left_out_finding(const ranking_prefix& check, const Ranking& ranking,
                                                   const nlohmann::json& said, const PrefixList& list,
                                                   const std::vector<std::size_t>& left_out) {
  std::vector<Entity> names;
  names.reserve(left_out.size());
  for (const std::size_t p : left_out) names.push_back(ranking.order()[p]);
  Finding f = prefix_list_base(check, ranking, &said, list);
  f.detail = "the computed top " + std::to_string(list.cut) + " on " + key_phrase(ranking) + " also contains " +
             render_all_of(names) + ", which the list leaves out";
  return f;
}

// The one finding that counts the wrong places past the room.
GROUNDPLANE_INLINE Finding prefix_rest_finding(const ranking_prefix& check, const Ranking& ranking,
                                               const nlohmann::json& said, const PrefixList& list,
                                               const PlaceTally& tally) {
  Finding rest = prefix_list_base(check, ranking, &said, list);
  std::string where;
  for (std::size_t j = 0; j < tally.first_places.size(); ++j)
    where += (j > 0 ? ", " : "") + std::to_string(tally.first_places[j] + 1);
  if (tally.unreported > tally.first_places.size()) where += ", …";
  rest.detail = count_of(tally.unreported, "more place does", "more places do") + " not match the computed order on " +
                key_phrase(ranking) + " (places " + where + "; only the first " + std::to_string(tally.listed) +
                " problems are listed)";
  return rest;
}

}  // namespace detail

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
  // Judged first, worded only for what is wrong: a list that holds builds no strings.
  const detail::PrefixList list = detail::classify_prefix_list(*this, ranking, said);
  if (list.shape != detail::PrefixList::Shape::fits)
    findings.push_back(detail::prefix_list_finding(*this, ranking, said, list));
  if (list.ends()) return;
  // The top `cut` is not a fact when the cut splits a block of tied scores.
  if (list.cut_in_tie) {
    Finding f = detail::prefix_list_base(*this, ranking, said, list);
    f.detail = detail::prefix_cut_inside_tie(ranking, list.cut);
    findings.push_back(std::move(f));
  }

  // Place findings are built only while they are listed: with the findings about the
  // whole list, at most max_place_findings, then one counting the places past them. A
  // list of a million wrong names costs a million judgements and nine findings.
  detail::PlaceTally tally;
  tally.listed = max_place_findings - std::min(max_place_findings - 1, findings.size() - before);
  std::unordered_map<std::size_t, std::size_t> seen;  // position in the order -> 0-based place first named
  detail::check_prefix_places(*this, ranking, *said, list, tally, seen, findings);

  // Set semantics: every entity before the block the cut falls in must be listed.
  if (!ordered && list.cut > 0 && list.cut <= ranking.size() && list.length == list.cut &&
      tally.reported < tally.listed) {
    const std::vector<std::size_t> left_out = detail::prefix_left_out(list, seen);
    if (!left_out.empty()) findings.push_back(detail::prefix_left_out_finding(*this, ranking, *said, list, left_out));
  }
  if (tally.unreported > 0) findings.push_back(detail::prefix_rest_finding(*this, ranking, *said, list, tally));
}

}  // namespace groundplane
