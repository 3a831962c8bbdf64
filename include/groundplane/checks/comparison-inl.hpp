// The bodies of comparison.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/comparison.hpp"

namespace groundplane {

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
         {"description", "how much the first entity beat the second by, as " + std::string(label(reading(convention))) +
                             (order == ComparisonOrder::a_minus_b ? " of the first against the second (signed)"
                                                                  : " of the second against the first (signed)")}},
        true);
}

GROUNDPLANE_INLINE void comparison::verify(const FactRegistry& registry, const nlohmann::json& output,
                                           std::vector<Finding>& findings) const {
  const detail::RankingSource src = source(registry);
  const Ranking& ranking = *src.ranking;
  const Finding base = detail::finding_about(check_name, "", ranking);
  const auto a = resolve(src, output, a_field, base, findings);
  const auto b = resolve(src, output, b_field, base, findings);

  // The stated margin: a missing or non-numeric one is a finding of its own, reported
  // alongside whatever is wrong with the pair.
  std::optional<Decimal> stated;
  const nlohmann::json* said = value_field.empty() ? nullptr : detail::find_field(output, value_field);
  Finding vf = base;
  vf.field = value_field;
  if (said != nullptr) {
    vf.said = detail::render(*said);
    stated = stated_number(*said);
  }
  const bool unreadable = said != nullptr && !stated;  // a string, a bool, a non-finite number
  const auto margin_finding = [&](std::string why) {
    vf.detail = std::move(why);
    findings.push_back(std::move(vf));
  };
  const std::string not_a_number =
      unreadable && said != nullptr
          ? "expected a number (the claimed delta is not a number), got " + std::string(detail::type_name(*said))
          : std::string();

  if (!a || !b || a->same_as(*b) || !ranking.better(a->value, b->value)) {
    if (a && b) findings.push_back(pair_finding(ranking, base, *a, *b, stated));
    if (unreadable) margin_finding(not_a_number);
    else if (!value_field.empty() && said == nullptr)
      margin_finding("expected the margin as a number (" + std::string(label(reading(convention))) + ")");
    return;
  }

  if (value_field.empty()) return;
  const Reading r = reading(convention);
  const Side& x = order == ComparisonOrder::a_minus_b ? *a : *b;
  const Side& y = order == ComparisonOrder::a_minus_b ? *b : *a;
  const auto truth = value_of(r, x.value, y.value);
  if (truth) vf.supported = show(*truth);
  if (unreadable) return margin_finding(not_a_number + "; " + computed(ranking, r, x, y));
  if (!stated) return margin_finding(computed(ranking, r, x, y));
  if (!truth) {
    vf.detail = computed(ranking, r, x, y) + ", so no stated number can be right (undefined whatever the claim)";
    findings.push_back(std::move(vf));
    return;
  }
  const auto match = detail::match_number(*stated, *truth, tolerance, rounding);
  // The sign is part of the claim: a number with the other sign is a finding whatever its
  // magnitude, also when the tolerance covers the distance (zero has no sign).
  const bool other_sign = stated->signum() * truth->signum() < 0;
  if (match.ok && !other_sign) return;
  // How far off, exactly: stated - truth.
  const detail::Rational off(*stated * truth->den() - truth->num(), truth->den());
  vf.detail = computed(ranking, r, x, y) + "; off by " + (off.signum() > 0 ? "+" : "") + show(off);
  if (match.ok) {  // within the tolerance, but of the other sign
    vf.detail += "; " + detail::render(*stated) +
                 " is within the tolerance but has the other sign, and the sign says which of the two is ahead";
    findings.push_back(std::move(vf));
    return;
  }
  if (!match.hint.empty()) {
    vf.detail += "; " + match.hint;
  } else {
    const std::string m = matches(*stated, *a, *b, r);
    vf.detail += "; " + (m.empty() ? detail::render(*stated) + " matches none of the four conventions in either order"
                                   : m + ", not " + std::string(label(r)) + " in the order configured (" +
                                         std::string(to_string(order)) + ")");
  }
  findings.push_back(std::move(vf));
}

GROUNDPLANE_INLINE comparison::Reading comparison::reading(Convention c) {
  switch (c) {
    case Convention::percent_change:
      return Reading::percent_change;
    case Convention::percentage_points:
      return Reading::percentage_points;
    case Convention::ratio:
      return Reading::ratio;
    case Convention::difference:
      return Reading::difference;
  }
  return Reading::percent_change;
}

GROUNDPLANE_INLINE std::string_view comparison::label(Reading r) {
  switch (r) {
    case Reading::percent_change:
      return "percent change";
    case Reading::percentage_points:
      return "percentage points";
    case Reading::ratio:
      return "the ratio";
    case Reading::difference:
      return "the difference";
    case Reading::ratio_percent:
      return "the ratio as a percentage";
  }
  return "percent change";
}

GROUNDPLANE_INLINE std::optional<detail::Rational> comparison::value_of(Reading r, const Decimal& x, const Decimal& y) {
  const Decimal hundred(100);
  switch (r) {
    case Reading::percent_change:
      if (y.is_zero()) return std::nullopt;
      return detail::Rational((x - y) * hundred, y);
    case Reading::percentage_points:
      return detail::Rational((x - y) * hundred);
    case Reading::ratio:
      if (y.is_zero()) return std::nullopt;
      return detail::Rational(x, y);
    case Reading::difference:
      return detail::Rational(x - y);
    case Reading::ratio_percent:
      if (y.is_zero()) return std::nullopt;
      return detail::Rational(x * hundred, y);
  }
  return std::nullopt;
}

GROUNDPLANE_INLINE std::string comparison::formula(Reading r, const Decimal& x, const Decimal& y) {
  const auto operand = [](const Decimal& d) {
    return d.signum() < 0 ? "(" + detail::render(d) + ")" : detail::render(d);
  };
  const std::string sx = operand(x);
  const std::string sy = operand(y);
  switch (r) {
    case Reading::percent_change:
      return "(" + sx + " - " + sy + ") / " + sy + " * 100";
    case Reading::percentage_points:
      return "(" + sx + " - " + sy + ") * 100";
    case Reading::ratio:
      return sx + " / " + sy;
    case Reading::difference:
      return sx + " - " + sy;
    case Reading::ratio_percent:
      return sx + " / " + sy + " * 100";
  }
  return "";
}

GROUNDPLANE_INLINE std::string comparison::show(const detail::Rational& r) {
  if (const auto d = r.exact()) return detail::render(*d);
  return r.to_string();
}

GROUNDPLANE_INLINE std::string comparison::on_what(const Ranking& r) {
  return detail::quote(r.key()) + (r.direction() == Direction::lower_is_better ? " (lower is better)" : "");
}

GROUNDPLANE_INLINE std::string comparison::computed(const Ranking& ranking, Reading r, const Side& x, const Side& y) {
  const std::string head = x.shown + " vs " + y.shown + " on " + on_what(ranking) + " as " + std::string(label(r));
  const auto v = value_of(r, x.value, y.value);
  if (!v) return head + " has no value: " + y.shown + "'s value is 0";
  return head + " is " + show(*v) + " = " + formula(r, x.value, y.value);
}

GROUNDPLANE_INLINE std::string comparison::matches(const Decimal& stated, const Side& a, const Side& b,
                                                   std::optional<Reading> skip) const {
  std::vector<std::string> hits;
  for (const bool other_order : {false, true}) {
    const bool a_first = (order == ComparisonOrder::a_minus_b) != other_order;
    const Side& x = a_first ? a : b;
    const Side& y = a_first ? b : a;
    for (const Reading r : all_readings) {
      if (!other_order && skip && r == *skip) continue;
      const auto v = value_of(r, x.value, y.value);
      if (!v) continue;
      // At the digits the model wrote, or within the tolerance: it names a likely
      // mistake, it does not accept anything.
      if (!detail::match_number(stated, *v, tolerance, Rounding::as_stated).ok) continue;
      hits.push_back(std::string(label(r)) +
                     (other_order ? " in the other order (" + x.shown + " vs " + y.shown + ") (pass " +
                                        (a_first ? "ComparisonOrder::a_minus_b" : "ComparisonOrder::b_minus_a") +
                                        " to read it in that order)"
                                  : std::string()));
    }
  }
  if (hits.empty()) return "";
  std::string out = detail::render(stated) + " matches ";
  for (std::size_t i = 0; i < hits.size(); ++i) out += (i == 0 ? "" : (i + 1 == hits.size() ? " or " : ", ")) + hits[i];
  return out;
}

GROUNDPLANE_INLINE Finding comparison::pair_finding(const Ranking& ranking, const Finding& base, const Side& a,
                                                    const Side& b, const std::optional<Decimal>& stated) const {
  Finding f = base;
  if (a.same_as(b)) {
    f.field = b_field;
    f.said = b.shown;
    f.detail = a.shown + " is compared with itself; name two different entities";
    return f;
  }
  f.field = a_field;
  f.said = a.shown;
  const std::string on = on_what(ranking);
  if (a.value == b.value) {  // a tie's margin is no clue to anything
    f.detail = "tied: " + a.shown + " did not beat " + b.shown + " on " + on + ": both are " + detail::render(a.value);
    return f;
  }
  f.supported = b.shown;
  f.detail = "reversed: " + a.shown + " did not beat " + b.shown + " on " + on + ": " + detail::render(a.value) +
             (a.value > b.value ? " > " : " < ") + detail::render(b.value);
  if (stated) {
    const std::string m = matches(*stated, a, b, std::nullopt);
    if (!m.empty()) f.detail += "; " + m;
  }
  return f;
}

GROUNDPLANE_INLINE std::optional<comparison::Side> comparison::resolve(const detail::RankingSource& source,
                                                                       const nlohmann::json& output,
                                                                       const std::string& field_name,
                                                                       const Finding& base,
                                                                       std::vector<Finding>& findings) const {
  const Ranking& ranking = *source.ranking;
  Finding f = base;
  f.field = field_name;
  const nlohmann::json* said = detail::find_field(output, field_name);
  if (said != nullptr) f.said = detail::render_claim(*said);
  const auto fail = [&](std::string why) {
    f.detail = std::move(why);
    findings.push_back(std::move(f));
    return std::nullopt;
  };
  const std::string ranked = " of the " + detail::count_of(ranking.size(), "entity", "entities") + " ranked on " +
                             detail::quote(ranking.key());
  const auto names = [&](const nlohmann::json& v) { return ranking.locate(v).has_value(); };
  if (said == nullptr) return fail("expected the name of one" + ranked);
  if (!said->is_string() && !detail::is_integer_json(*said))
    return fail(detail::not_an_entity(*said) + detail::entity_type_hint(*said, names));
  const auto pos = ranking.locate(*said);
  if (!pos) {
    if (source.skipped != nullptr)
      if (const auto e = Entity::from_json(*said);
          e && std::find(source.skipped->begin(), source.skipped->end(), *e) != source.skipped->end())
        return fail(f.said + "'s row has no value in " + detail::quote(column) +
                    " (skipped under OnMissing::skip), so nothing can be said of it");
    return fail(f.said + " is not one" + ranked + detail::entity_type_hint(*said, names) +
                "; recorded: " + detail::names_listed(ranking.order()));
  }
  return Side{ranking.order()[*pos].render(), ranking.score_at(*pos), *pos};
}

}  // namespace groundplane
