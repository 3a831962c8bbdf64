// The bodies of comparison.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/comparison.hpp"

namespace groundplane {

namespace detail {

// The four conventions, plus the ratio written as a percentage ("A is 110% of B"): a
// reading a model plausibly gives, so the finding can name it.
enum class ComparisonReading { percent_change, percentage_points, ratio, difference, ratio_percent };
inline constexpr ComparisonReading comparison_readings[] = {
    ComparisonReading::percent_change, ComparisonReading::percentage_points, ComparisonReading::ratio,
    ComparisonReading::difference, ComparisonReading::ratio_percent};

GROUNDPLANE_INLINE ComparisonReading comparison_reading(Convention c) {
  switch (c) {
    case Convention::percent_change:
      return ComparisonReading::percent_change;
    case Convention::percentage_points:
      return ComparisonReading::percentage_points;
    case Convention::ratio:
      return ComparisonReading::ratio;
    case Convention::difference:
      return ComparisonReading::difference;
  }
  return ComparisonReading::percent_change;
}

GROUNDPLANE_INLINE std::string_view comparison_label(ComparisonReading r) {
  switch (r) {
    case ComparisonReading::percent_change:
      return "percent change";
    case ComparisonReading::percentage_points:
      return "percentage points";
    case ComparisonReading::ratio:
      return "the ratio";
    case ComparisonReading::difference:
      return "the difference";
    case ComparisonReading::ratio_percent:
      return "the ratio as a percentage";
  }
  return "percent change";
}

// x against y; nullopt where it has no value (a percent change or ratio against zero).
GROUNDPLANE_INLINE std::optional<Rational> comparison_value(ComparisonReading r, const Decimal& x, const Decimal& y) {
  const Decimal hundred(100);
  switch (r) {
    case ComparisonReading::percent_change:
      if (y.is_zero()) return std::nullopt;
      return Rational((x - y) * hundred, y);
    case ComparisonReading::percentage_points:
      return Rational((x - y) * hundred);
    case ComparisonReading::ratio:
      if (y.is_zero()) return std::nullopt;
      return Rational(x, y);
    case ComparisonReading::difference:
      return Rational(x - y);
    case ComparisonReading::ratio_percent:
      if (y.is_zero()) return std::nullopt;
      return Rational(x * hundred, y);
  }
  return std::nullopt;
}

GROUNDPLANE_INLINE std::string comparison_formula(ComparisonReading r, const Decimal& x, const Decimal& y) {
  const auto operand = [](const Decimal& d) { return d.signum() < 0 ? "(" + render(d) + ")" : render(d); };
  const std::string sx = operand(x);
  const std::string sy = operand(y);
  switch (r) {
    case ComparisonReading::percent_change:
      return "(" + sx + " - " + sy + ") / " + sy + " * 100";
    case ComparisonReading::percentage_points:
      return "(" + sx + " - " + sy + ") * 100";
    case ComparisonReading::ratio:
      return sx + " / " + sy;
    case ComparisonReading::difference:
      return sx + " - " + sy;
    case ComparisonReading::ratio_percent:
      return sx + " / " + sy + " * 100";
  }
  return "";
}

// The exact value when it terminates, else its first digits and "…".
GROUNDPLANE_INLINE std::string comparison_show(const Rational& r) {
  if (const auto d = r.exact()) return render(*d);
  return r.to_string();
}

// "'harbour' vs 'north' on 'ctr' as percent change is 10.436893… = (0.0455 - 0.0412) / 0.0412 * 100",
// for the entities at positions x and y of the ranking.
GROUNDPLANE_INLINE std::string comparison_computed(const Ranking& ranking, ComparisonReading r, std::size_t x,
                                                   std::size_t y) {
  const std::string y_name = ranking.order()[y].render();
  const std::string head = ranking.order()[x].render() + " vs " + y_name + " on " + key_phrase(ranking) + " as " +
                           std::string(comparison_label(r));
  const auto v = comparison_value(r, ranking.score_at(x), ranking.score_at(y));
  if (!v) return head + " has no value: " + y_name + "'s value is 0";
  return head + " is " + comparison_show(*v) + " = " + comparison_formula(r, ranking.score_at(x), ranking.score_at(y));
}

// A reading's bit in a set of readings: one bit per reading in the configured order, one
// more per reading in the other order.
GROUNDPLANE_INLINE unsigned comparison_reading_bit(ComparisonReading r, bool other_order) {
  return 1U << (static_cast<unsigned>(r) + (other_order ? std::size(comparison_readings) : 0));
}

// The readings `stated` matches for the entities at positions a and b, in either order,
// at the digits it was written with or within the tolerance: it names a likely mistake,
// it does not accept anything. `skip` is the configured reading in the configured order,
// already judged.
GROUNDPLANE_INLINE unsigned comparison_matching_readings(const comparison& check, const Ranking& ranking,
                                                         const Decimal& stated, std::size_t a, std::size_t b,
                                                         std::optional<ComparisonReading> skip) {
  unsigned out = 0;
  for (const bool other_order : {false, true}) {
    const bool a_first = (check.order == ComparisonOrder::a_minus_b) != other_order;
    const Decimal& x = ranking.score_at(a_first ? a : b);
    const Decimal& y = ranking.score_at(a_first ? b : a);
    for (const ComparisonReading r : comparison_readings) {
      if (!other_order && skip && r == *skip) continue;
      const auto v = comparison_value(r, x, y);
      if (v && match_number(stated, *v, check.tolerance, Rounding::as_stated).ok)
        out |= comparison_reading_bit(r, other_order);
    }
  }
  return out;
}

// "0.43 matches percentage points", "-0.0043 matches the difference in the other order
// ('north' vs 'harbour') (pass ComparisonOrder::b_minus_a to read it in that order)":
// the readings found by comparison_matching_readings, none of them empty.
GROUNDPLANE_INLINE std::string comparison_matches(const comparison& check, const Ranking& ranking,
                                                  const Decimal& stated, std::size_t a, std::size_t b,
                                                  unsigned readings) {
  std::vector<std::string> hits;
  for (const bool other_order : {false, true}) {
    const bool a_first = (check.order == ComparisonOrder::a_minus_b) != other_order;
    const std::size_t x = a_first ? a : b;
    const std::size_t y = a_first ? b : a;
    for (const ComparisonReading r : comparison_readings) {
      if ((readings & comparison_reading_bit(r, other_order)) == 0) continue;
      hits.push_back(std::string(comparison_label(r)) +
                     (other_order ? " in the other order (" + ranking.order()[x].render() + " vs " +
                                        ranking.order()[y].render() + ") (pass " +
                                        (a_first ? "ComparisonOrder::a_minus_b" : "ComparisonOrder::b_minus_a") +
                                        " to read it in that order)"
                                  : std::string()));
    }
  }
  std::string out = render(stated) + " matches ";
  for (std::size_t i = 0; i < hits.size(); ++i) out += (i == 0 ? "" : (i + 1 == hits.size() ? " or " : ", ")) + hits[i];
  return out;
}

// One side of the comparison (A or B) as the output names it, before any finding is worded.
struct ComparisonSide {
  enum class Kind {
    found,          // a ranked entity
    missing,        // no such field
    not_an_entity,  // neither a string nor an integer
    skipped,        // a row OnMissing::skip left out of the ranking
    not_ranked,     // a value no ranked entity has
  };
  Kind kind = Kind::missing;
  const nlohmann::json* said = nullptr;  // the value written, when the field is present
  std::size_t pos = 0;                   // found: the entity's position in the ranking

  bool found() const { return kind == Kind::found; }
};

GROUNDPLANE_INLINE ComparisonSide classify_comparison_side(const RankingSource& source, const nlohmann::json& output,
                                                           const std::string& field_name) {
  using Kind = ComparisonSide::Kind;
  ComparisonSide out;
  out.said = find_field(output, field_name);
  if (out.said == nullptr) return out;
  if (!out.said->is_string() && !is_integer_json(*out.said)) {
    out.kind = Kind::not_an_entity;
    return out;
  }
  if (const auto pos = source.ranking->locate(*out.said)) {
    out.kind = Kind::found;
    out.pos = *pos;
    return out;
  }
  out.kind = Kind::not_ranked;
  if (source.skipped != nullptr)
    if (const auto e = Entity::from_json(*out.said);
        e && std::find(source.skipped->begin(), source.skipped->end(), *e) != source.skipped->end())
      out.kind = Kind::skipped;
  return out;
}

GROUNDPLANE_INLINE Finding comparison_side_finding(const comparison& check, const Ranking& ranking,
                                                   const std::string& field_name, const ComparisonSide& side) {
  using Kind = ComparisonSide::Kind;
  Finding f = finding_about(comparison::check_name, field_name, ranking);
  if (side.said != nullptr) f.said = render_claim(*side.said);
  const std::string ranked =
      " of the " + count_of(ranking.size(), "entity", "entities") + " ranked on " + quote(ranking.key());
  const auto names = [&ranking](const nlohmann::json& v) { return ranking.locate(v).has_value(); };
  switch (side.kind) {
    case Kind::missing:
      f.detail = "expected the name of one" + ranked;
      break;
    case Kind::not_an_entity:
      f.detail = not_an_entity(*side.said) + entity_type_hint(*side.said, names);
      break;
    case Kind::skipped:
      f.detail = f.said + "'s row has no value in " + quote(check.column) +
                 " (skipped under OnMissing::skip), so nothing can be said of it";
      break;
    case Kind::not_ranked:
      f.detail = f.said + " is not one" + ranked + entity_type_hint(*side.said, names) +
                 "; recorded: " + names_listed(ranking.order());
      break;
    case Kind::found:
      break;
  }
  return f;
}

// What comparison found, before any finding is worded.
struct ComparisonVerdict {
  enum class Pair {
    beats,       // A beat B
    unresolved,  // A or B names no ranked entity (its side says why)
    same,        // one entity twice
    tied,        // A and B share a value
    reversed,    // B is ahead of A
  };
  enum class Margin {
    holds,         // right, or not judged (no value field, or a number beside a pair that is wrong)
    missing,       // no margin stated
    not_a_number,  // a string, a bool, a non-finite number
    undefined,     // a percent change or ratio against zero
    other_sign,    // within the tolerance, but of the other sign
    off,           // another number
  };
  ComparisonSide a;
  ComparisonSide b;
  Pair pair = Pair::beats;
  Margin margin = Margin::holds;
  const nlohmann::json* said = nullptr;  // the stated margin, when present
  std::optional<Decimal> stated;         // ... read as a number
  std::optional<Rational> truth;         // A beat B: the configured reading, in the configured order
  NumberMatch match;                     // stated against truth
  unsigned readings = 0;                 // reversed, or off without a hint: the readings stated matches

  bool holds() const { return pair == Pair::beats && margin == Margin::holds; }
};

GROUNDPLANE_INLINE ComparisonVerdict classify_comparison(const comparison& check, const RankingSource& source,
                                                         const nlohmann::json& output) {
  using Pair = ComparisonVerdict::Pair;
  using Margin = ComparisonVerdict::Margin;
  const Ranking& ranking = *source.ranking;
  ComparisonVerdict v;
  v.a = classify_comparison_side(source, output, check.a_field);
  v.b = classify_comparison_side(source, output, check.b_field);
  // A missing or non-numeric margin is a finding of its own, beside whatever is wrong with the pair.
  v.said = check.value_field.empty() ? nullptr : find_field(output, check.value_field);
  if (v.said != nullptr) v.stated = stated_number(*v.said);
  if (v.said != nullptr && !v.stated) v.margin = Margin::not_a_number;
  else if (!check.value_field.empty() && v.said == nullptr) v.margin = Margin::missing;
  if (!v.a.found() || !v.b.found()) {
    v.pair = Pair::unresolved;
    return v;
  }
  const Decimal& a_value = ranking.score_at(v.a.pos);
  const Decimal& b_value = ranking.score_at(v.b.pos);
  if (v.a.pos == v.b.pos) v.pair = Pair::same;
  else if (!ranking.better(a_value, b_value)) v.pair = a_value == b_value ? Pair::tied : Pair::reversed;
  if (v.pair == Pair::reversed && v.stated)
    v.readings = comparison_matching_readings(check, ranking, *v.stated, v.a.pos, v.b.pos, std::nullopt);
  if (v.pair != Pair::beats || check.value_field.empty()) return v;
  const ComparisonReading r = comparison_reading(check.convention);
  const bool a_first = check.order == ComparisonOrder::a_minus_b;
  v.truth = comparison_value(r, a_first ? a_value : b_value, a_first ? b_value : a_value);
  if (v.margin != Margin::holds) return v;
  if (!v.truth) {
    v.margin = Margin::undefined;
    return v;
  }
  v.match = match_number(*v.stated, *v.truth, check.tolerance, check.rounding);
  // The sign is part of the claim: a number with the other sign is a finding whatever its
  // magnitude, also when the tolerance covers the distance (zero has no sign).
  const bool other_sign = v.stated->signum() * v.truth->signum() < 0;
  if (v.match.ok && !other_sign) return v;
  v.margin = v.match.ok ? Margin::other_sign : Margin::off;
  if (!v.match.ok && v.match.hint.empty())
    v.readings = comparison_matching_readings(check, ranking, *v.stated, v.a.pos, v.b.pos, r);
  return v;
}

// A pair that cannot carry the claim: one entity twice, a tie, or B ahead of A.
GROUNDPLANE_INLINE Finding comparison_pair_finding(const comparison& check, const Ranking& ranking,
                                                   const ComparisonVerdict& v) {
  const std::string a = ranking.order()[v.a.pos].render();
  const std::string b = ranking.order()[v.b.pos].render();
  if (v.pair == ComparisonVerdict::Pair::same) {
    Finding f = finding_about(comparison::check_name, check.b_field, ranking);
    f.said = b;
    f.detail = a + " is compared with itself; name two different entities";
    return f;
  }
  Finding f = finding_about(comparison::check_name, check.a_field, ranking);
  f.said = a;
  const Decimal& a_value = ranking.score_at(v.a.pos);
  const Decimal& b_value = ranking.score_at(v.b.pos);
  const std::string on = key_phrase(ranking);
  if (v.pair == ComparisonVerdict::Pair::tied) {  // a tie's margin is no clue to anything
    f.detail = "tied: " + a + " did not beat " + b + " on " + on + ": both are " + render(a_value);
    return f;
  }
  f.supported = b;
  f.detail = "reversed: " + a + " did not beat " + b + " on " + on + ": " + render(a_value) +
             (a_value > b_value ? " > " : " < ") + render(b_value);
  if (v.readings != 0) f.detail += "; " + comparison_matches(check, ranking, *v.stated, v.a.pos, v.b.pos, v.readings);
  return f;
}

// "; off by -10.006893…; 0.43 matches percentage points, not percent change …": how a
// stated number of A beating B misses the configured reading.
GROUNDPLANE_INLINE std::string comparison_off(const comparison& check, const Ranking& ranking,
                                              const ComparisonVerdict& v) {
  // How far off, exactly: stated - truth.
  const Rational off(*v.stated * v.truth->den() - v.truth->num(), v.truth->den());
  std::string out = "; off by " + std::string(off.signum() > 0 ? "+" : "") + comparison_show(off);
  if (v.margin == ComparisonVerdict::Margin::other_sign)
    return out + "; " + render(*v.stated) +
           " is within the tolerance but has the other sign, and the sign says which of the two is ahead";
  if (!v.match.hint.empty()) return out + "; " + v.match.hint;
  if (v.readings == 0) return out + "; " + render(*v.stated) + " matches none of the four conventions in either order";
  return out + "; " + comparison_matches(check, ranking, *v.stated, v.a.pos, v.b.pos, v.readings) + ", not " +
         std::string(comparison_label(comparison_reading(check.convention))) + " in the order configured (" +
         std::string(to_string(check.order)) + ")";
}

GROUNDPLANE_INLINE Finding comparison_margin_finding(const comparison& check, const Ranking& ranking,
                                                     const ComparisonVerdict& v) {
  using Margin = ComparisonVerdict::Margin;
  Finding f = finding_about(comparison::check_name, check.value_field, ranking);
  if (v.said != nullptr) f.said = render(*v.said);
  const ComparisonReading r = comparison_reading(check.convention);
  const std::string not_a_number =
      v.margin == Margin::not_a_number
          ? "expected a number (the claimed delta is not a number), got " + std::string(type_name(*v.said))
          : std::string();
  if (v.pair != ComparisonVerdict::Pair::beats) {
    f.detail = v.margin == Margin::not_a_number
                   ? not_a_number
                   : "expected the margin as a number (" + std::string(comparison_label(r)) + ")";
    return f;
  }
  if (v.truth) f.supported = comparison_show(*v.truth);
  const bool a_first = check.order == ComparisonOrder::a_minus_b;
  const std::string computed =
      comparison_computed(ranking, r, a_first ? v.a.pos : v.b.pos, a_first ? v.b.pos : v.a.pos);
  if (v.margin == Margin::not_a_number) f.detail = not_a_number + "; " + computed;
  else if (v.margin == Margin::missing) f.detail = computed;
  else if (v.margin == Margin::undefined)
    f.detail = computed + ", so no stated number can be right (undefined whatever the claim)";
  else f.detail = computed + comparison_off(check, ranking, v);
  return f;
}

// Every finding, in the order they are read: A's side, B's, the pair, the margin.
GROUNDPLANE_INLINE void word_comparison(const comparison& check, const Ranking& ranking, const ComparisonVerdict& v,
                                        std::vector<Finding>& findings) {
  using Pair = ComparisonVerdict::Pair;
  if (!v.a.found()) findings.push_back(comparison_side_finding(check, ranking, check.a_field, v.a));
  if (!v.b.found()) findings.push_back(comparison_side_finding(check, ranking, check.b_field, v.b));
  if (v.pair != Pair::beats && v.pair != Pair::unresolved)
    findings.push_back(comparison_pair_finding(check, ranking, v));
  if (v.margin != ComparisonVerdict::Margin::holds) findings.push_back(comparison_margin_finding(check, ranking, v));
}

}  // namespace detail

GROUNDPLANE_INLINE std::string comparison::name() const {
  return std::string(check_name) + "(fact=" + detail::quote(fact) +
         (column.empty() ? std::string() : ", column=" + detail::quote(column)) +
         ", a_field=" + detail::quote(a_field) + ", b_field=" + detail::quote(b_field) +
         ", value_field=" + detail::quote(value_field) + ")";
}

GROUNDPLANE_INLINE std::vector<std::string> comparison::warnings(const FactRegistry& registry) const {
  return detail::skipped_rows_warning(source(registry), name(), column);
}

GROUNDPLANE_INLINE void comparison::validate(const FactRegistry& registry) const {
  const std::string who = std::string(check_name) + ": ";
  source(registry);
  detail::validate_field(a_field, check_name, "a_field");
  detail::validate_field(b_field, check_name, "b_field");
  if (a_field == b_field)
    throw ConfigurationError(who + "a_field and b_field are both " + detail::quote(a_field) +
                             "; a comparison reads two entities");
  if (!value_field.empty()) detail::validate_field(value_field, check_name, "value_field");
  detail::validate_tolerance(tolerance, check_name);
}

GROUNDPLANE_INLINE void comparison::describe(const FactRegistry& registry, SchemaBuilder& schema) const {
  const Ranking& ranking = *source(registry).ranking;
  const nlohmann::json entity = SchemaBuilder::entity_schema(
      ranking.order(), "entities ranked on '" + ranking.key() + "'", ranking.integer_entities());
  schema.add(a_field, entity, true);
  schema.add(b_field, entity, true);
  if (!value_field.empty())
    schema.add(
        value_field,
        {{"type", "number"},
         {"description", "how much the first entity beat the second by, as " +
                             std::string(detail::comparison_label(detail::comparison_reading(convention))) +
                             (order == ComparisonOrder::a_minus_b ? " of the first against the second (signed)"
                                                                  : " of the second against the first (signed)")}},
        true);
}

GROUNDPLANE_INLINE void comparison::verify(const FactRegistry& registry, const nlohmann::json& output,
                                           std::vector<Finding>& findings) const {
  const detail::RankingSource src = source(registry);
  // Judged first, worded only for what is wrong: a comparison that holds builds no strings.
  const detail::ComparisonVerdict verdict = detail::classify_comparison(*this, src, output);
  if (!verdict.holds()) detail::word_comparison(*this, *src.ranking, verdict, findings);
}

}  // namespace groundplane
