// The bodies of comparison.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/comparison.hpp"

namespace groundplane {

GROUNDPLANE_INLINE std::string_view to_string(Convention c) noexcept {
  switch (c) {
    case Convention::percent_change:
      return "percent_change";
    case Convention::percentage_points:
      return "percentage_points";
    case Convention::ratio:
      return "ratio";
    case Convention::difference:
      return "difference";
  }
  return "percent_change";
}

GROUNDPLANE_INLINE void comparison::validate(const FactRegistry& registry) const {
  const std::string who = std::string(check_name) + ": ";
  if (!fact.empty() && registry.contains(fact) && registry.kind_of(fact) == FactKind::table) {
    const auto& table = registry.get<Table>(fact);
    if (column.empty())
      throw ConfigurationError(who + "fact " + detail::quote(fact) +
                               " is a table; set .column to the column whose values are compared");
    if (detail::columns_known(table) && !table.column_of(column))
      throw ConfigurationError(who + "column " + detail::quote(column) + " is not a column of table " +
                               detail::quote(fact) + " (its columns: " + detail::render_all_of(table.columns()) + ")");
    if (!table.key_column())
      throw ConfigurationError(who + "table " + detail::quote(fact) +
                               " has no key column to find A and B by; record it with key_column set");
  } else if (!fact.empty() && registry.contains(fact) && registry.kind_of(fact) != FactKind::ranking) {
    throw ConfigurationError(who + "fact " + detail::quote(fact) + " is " +
                             std::string(detail::kind_as_found(registry.kind_of(fact))) +
                             "; this check needs a Ranking, or a Table with a column");
  } else {
    detail::fact_for<Ranking>(registry, fact, check_name);  // names the missing or unnamed fact
    if (!column.empty())
      throw ConfigurationError(who + "column " + detail::quote(column) + " is set but fact " + detail::quote(fact) +
                               " is a ranking, which compares its scores; leave column empty");
  }
  detail::validate_field(a_field, check_name, "a_field");
  detail::validate_field(b_field, check_name, "b_field");
  if (a_field == b_field)
    throw ConfigurationError(who + "a_field and b_field are both " + detail::quote(a_field) +
                             "; a comparison reads two entities");
  if (!value_field.empty()) detail::validate_field(value_field, check_name, "value_field");
  detail::validate_tolerance(tolerance, check_name);
}

GROUNDPLANE_INLINE void comparison::describe(const FactRegistry& registry, SchemaBuilder& schema) const {
  nlohmann::json entity;
  if (registry.kind_of(fact) == FactKind::ranking) {
    const auto& ranking = registry.get<Ranking>(fact);
    entity = SchemaBuilder::name_schema(ranking.order(), "entities ranked on '" + ranking.key() + "'");
  } else {
    entity = key_schema(registry.get<Table>(fact));
  }
  schema.add(a_field, entity, true);
  schema.add(b_field, std::move(entity), true);
  if (!value_field.empty())
    schema.add(value_field,
               {{"type", "number"},
                {"description",
                 "how much the first entity beat the second by, as " + std::string(label(reading(convention)))}},
               true);
}

GROUNDPLANE_INLINE void comparison::verify(const FactRegistry& registry, const nlohmann::json& output,
                                           std::vector<Finding>& findings) const {
  const Finding base = registry.visit(fact, [&](const auto& f) { return detail::finding_about(check_name, "", f); });
  const auto a = resolve(registry, output, a_field, base, findings);
  const auto b = resolve(registry, output, b_field, base, findings);

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
      unreadable && said != nullptr ? "expected a number, got " + std::string(detail::type_name(*said)) : std::string();

  if (!a || !b || a->same_as(*b) || !beat(registry, a->value, b->value)) {
    if (a && b) findings.push_back(pair_finding(registry, base, *a, *b, stated));
    if (unreadable) margin_finding(not_a_number);
    else if (!value_field.empty() && said == nullptr)
      margin_finding("expected the margin as a number (" + std::string(label(reading(convention))) + ")");
    return;
  }

  if (value_field.empty()) return;
  const Reading r = reading(convention);
  const auto truth = value_of(r, a->value, b->value);
  if (truth) vf.supported = show(*truth);
  if (unreadable) return margin_finding(not_a_number + "; " + computed(registry, r, *a, *b));
  if (!stated) return margin_finding(computed(registry, r, *a, *b));
  if (truth) {
    const auto match = detail::match_number(stated->abs(), magnitude(*truth), tolerance, rounding);
    if (match.ok) return;
    vf.detail = computed(registry, r, *a, *b);
    if (!match.hint.empty()) {
      vf.detail += "; " + match.hint;
    } else {
      const std::string m = matches(*stated, *a, *b, r);
      vf.detail +=
          "; " + (m.empty() ? detail::render(*stated) + " matches none of the four conventions, either way round"
                            : m + ", not " + std::string(label(r)));
    }
  } else {
    vf.detail = computed(registry, r, *a, *b);
    const std::string m = matches(*stated, *a, *b, r);
    if (!m.empty()) vf.detail += "; " + m;
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

GROUNDPLANE_INLINE std::string comparison::on_what(const FactRegistry& registry) const {
  if (registry.kind_of(fact) == FactKind::table) return detail::quote(column);
  const auto& r = registry.get<Ranking>(fact);
  return detail::quote(r.key()) + (r.direction() == Direction::lower_is_better ? " (lower is better)" : "");
}

GROUNDPLANE_INLINE bool comparison::beat(const FactRegistry& registry, const Decimal& a, const Decimal& b) const {
  if (registry.kind_of(fact) == FactKind::table) return a > b;
  return registry.get<Ranking>(fact).better(a, b);
}

GROUNDPLANE_INLINE std::string comparison::computed(const FactRegistry& registry, Reading r, const Side& a,
                                                    const Side& b) const {
  const std::string head = a.shown + " vs " + b.shown + " on " + on_what(registry) + " as " + std::string(label(r));
  const auto v = value_of(r, a.value, b.value);
  if (!v) return head + " has no value: " + b.shown + "'s value is 0";
  return head + " is " + show(*v) + " = " + formula(r, a.value, b.value);
}

GROUNDPLANE_INLINE std::string comparison::matches(const Decimal& stated, const Side& a, const Side& b,
                                                   std::optional<Reading> skip) const {
  std::vector<std::string> hits;
  const Decimal said = stated.abs();
  for (const bool reversed : {false, true}) {
    const Side& x = reversed ? b : a;
    const Side& y = reversed ? a : b;
    for (const Reading r : all_readings) {
      if (!reversed && skip && r == *skip) continue;
      // Margins are compared by magnitude, so these read the same either way round.
      if (reversed && (r == Reading::percentage_points || r == Reading::difference)) continue;
      const auto v = value_of(r, x.value, y.value);
      if (!v) continue;
      // At the digits the model wrote, or within the tolerance: it names a likely
      // mistake, it does not accept anything.
      if (!detail::match_number(said, magnitude(*v), tolerance, Rounding::as_stated).ok) continue;
      hits.push_back(std::string(label(r)) +
                     (reversed ? " with the entities reversed (" + x.shown + " vs " + y.shown + ")" : std::string()));
    }
  }
  if (hits.empty()) return "";
  std::string out = detail::render(stated) + " matches ";
  for (std::size_t i = 0; i < hits.size(); ++i) out += (i == 0 ? "" : (i + 1 == hits.size() ? " or " : ", ")) + hits[i];
  return out;
}

GROUNDPLANE_INLINE Finding comparison::pair_finding(const FactRegistry& registry, const Finding& base, const Side& a,
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
  const std::string on = on_what(registry);
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

GROUNDPLANE_INLINE std::optional<comparison::Side> comparison::resolve(const FactRegistry& registry,
                                                                       const nlohmann::json& output,
                                                                       const std::string& field_name,
                                                                       const Finding& base,
                                                                       std::vector<Finding>& findings) const {
  Finding f = base;
  f.field = field_name;
  const nlohmann::json* said = detail::find_field(output, field_name);
  if (said != nullptr) f.said = detail::render(*said);
  const auto fail = [&](std::string why) {
    f.detail = std::move(why);
    findings.push_back(std::move(f));
    return std::nullopt;
  };

  if (registry.kind_of(fact) == FactKind::ranking) {
    const auto& ranking = registry.get<Ranking>(fact);
    const std::string ranked = " of the " + detail::count_of(ranking.size(), "entity", "entities") + " ranked on " +
                               detail::quote(ranking.key());
    if (said == nullptr) return fail("expected the name of one" + ranked);
    if (!said->is_string())
      return fail("expected an entity name (a string), got " + std::string(detail::type_name(*said)));
    const auto& name = said->get_ref<const std::string&>();
    const auto pos = ranking.position_of(name);
    if (!pos) return fail(f.said + " is not one" + ranked);
    return Side{f.said, ranking.score_at(*pos), *pos};
  }

  const auto& table = registry.get<Table>(fact);
  const std::string keys = "key column " + detail::quote(*table.key_column()) + " of table " + detail::quote(fact);
  if (said == nullptr) return fail("expected a value from " + keys);
  if (!(said->is_string() || said->is_number() || said->is_boolean()))
    return fail("expected a value from " + keys + ", got " + std::string(detail::type_name(*said)));
  const auto row = table.row_of(*said);
  if (!row)
    return fail(f.said + " names none of the " + detail::count_of(table.row_count(), "row", "rows") + " by " + keys);
  const auto col = table.column_of(column);
  static const nlohmann::json absent;
  const nlohmann::json& cell = col ? table.cell(*row, *col) : absent;
  if (cell.is_null())
    return fail("the row for " + f.said + " has no " + detail::quote(column) +
                "; the recorded data must be fixed before this claim can be checked");
  auto value = Decimal::from_json(cell);
  if (!value)
    return fail("the row for " + f.said + " holds " + detail::render(cell) + " (" +
                std::string(detail::type_name(cell)) + ") in " + detail::quote(column) +
                ", not a number; the recorded data must be fixed before this claim can be checked");
  return Side{f.said, std::move(*value), *row};
}

GROUNDPLANE_INLINE nlohmann::json comparison::key_schema(const Table& table) {
  const auto col = table.column_of(*table.key_column());
  std::vector<std::string> names;
  nlohmann::json values = nlohmann::json::array();
  bool all_strings = true;
  for (std::size_t r = 0; col && r < table.row_count(); ++r) {
    const auto& v = table.cell(r, *col);
    all_strings = all_strings && v.is_string();
    if (v.is_string()) names.push_back(v.get<std::string>());
    values.push_back(v);
  }
  const std::string what = "keys in column '" + *table.key_column() + "'";
  if (all_strings) return SchemaBuilder::name_schema(names, what);
  if (values.size() <= SchemaBuilder::max_enum)
    return {{"enum", std::move(values)}, {"description", "one of the recorded " + what}};
  return {{"description", "one of the " + std::to_string(values.size()) + " recorded " + what +
                              " (enum omitted above " + std::to_string(SchemaBuilder::max_enum) + " names)"}};
}

}  // namespace groundplane
