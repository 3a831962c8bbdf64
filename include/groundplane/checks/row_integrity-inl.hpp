// The bodies of row_integrity.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/row_integrity.hpp"

namespace groundplane {

namespace detail {
GROUNDPLANE_INLINE bool same_value(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    const auto x = stated_number(a);
    const auto y = stated_number(b);
    return x && y && *x == *y;
  }
  return a == b;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::string field_at(const std::string& base, const std::string& field) {
  if (base.empty()) return field;
  if (!field.empty() && field.front() == '/') return base + field;
  return base + "/" + pointer_token(field);
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::optional<std::string> column_type(const Table& t, std::size_t column) {
  // From the counts the column keeps of each kind of cell: one kind besides null, or none.
  const Column& c = t.column_data(column);
  if (c.others > 0 || (c.numbers > 0) + (c.texts > 0) + (c.booleans > 0) != 1) return std::nullopt;
  return c.numbers > 0 ? "number" : c.texts > 0 ? "string" : "boolean";
}

// A string key column's keys as SchemaBuilder::name_schema reads them: how many, and the
// keys themselves only when it lists them (few enough for an enum).
struct KeyTexts {
  const Table* table;
  std::size_t column;
  struct iterator {
    const KeyTexts* keys;
    std::size_t row;
    std::string_view operator*() const { return *keys->table->text(row, keys->column); }
    iterator& operator++() {
      ++row;
      return *this;
    }
    bool operator!=(const iterator& other) const { return row != other.row; }
  };
  std::size_t size() const { return table->row_count(); }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }
};
}  // namespace detail

GROUNDPLANE_INLINE std::string row_integrity::name() const {
  return std::string(check_name) + "(fact=" + detail::quote(fact) + ", key_field=" + detail::quote(key_field) + ")";
}

GROUNDPLANE_INLINE void row_integrity::validate(const FactRegistry& registry) const {
  const Table& t = detail::fact_for<Table>(registry, fact, check_name);
  const std::string prefix = std::string(check_name) + ": ";
  detail::validate_field(key_field, check_name, "key_field");
  if (!at.empty()) {
    if (at.front() != '/')
      throw ConfigurationError(prefix + "at " + detail::quote(at) +
                               " must be a JSON Pointer (starting with '/'), or \"\" for the output itself");
    detail::validate_field(at, check_name, "at");
  }
  if (fields.empty())
    throw ConfigurationError(prefix + "fields is empty; map at least one output field to a column of " +
                             detail::quote(fact));
  const auto require_column = [&](const std::string& column, std::string_view what) {
    if (column.empty()) throw ConfigurationError(prefix + std::string(what) + " is empty; name a column");
    if (detail::columns_known(t) && !t.column_of(column))
      throw ConfigurationError(prefix + "table " + detail::quote(fact) + " has no column " + detail::quote(column) +
                               " (" + std::string(what) + ")");
  };
  for (const auto& [field, column] : fields) {
    detail::validate_field(field, check_name, "fields");
    require_column(column, "the column for field " + detail::quote(field));
  }
  if (key_column.empty()) {
    if (!t.key_column())
      throw ConfigurationError(prefix + "table " + detail::quote(fact) +
                               " has no key column; record it with a key_column or set .key_column");
  } else {
    require_column(key_column, "key_column");
    if (t.key_column() != key_column && t.row_count() > 0) {
      // Rows are resolved by this column, so it must name each row once (the table
      // indexes the column once, for every check that reads rows by it).
      const detail::ColumnKeys& keys = t.column_keys(*t.column_of(key_column));
      if (!keys.refusal.empty())
        throw ConfigurationError(prefix + "key_column " + detail::quote(key_column) + " " + keys.refusal);
    }
  }
  detail::validate_tolerance(tolerance, check_name);
}

GROUNDPLANE_INLINE void row_integrity::describe(const FactRegistry& registry, SchemaBuilder& schema) const {
  const Table& t = registry.get<Table>(fact);
  const std::string& kc = key_column.empty() ? *t.key_column() : key_column;
  nlohmann::json key_schema = nlohmann::json::object();
  if (const auto c = t.column_of(kc)) {
    const auto type = detail::column_type(t, *c);
    if (type == "string") {
      // Every row has a key of its own (validate): read only when few enough to list.
      const detail::KeyTexts keys{&t, *c};
      key_schema = SchemaBuilder::name_schema(keys, detail::quote(kc) + " keys of " + detail::quote(fact));
    } else if (type) {
      key_schema = {{"type", *type}, {"description", "a " + detail::quote(kc) + " key of " + detail::quote(fact)}};
    }
  }
  SchemaBuilder inner;
  SchemaBuilder& into = at.empty() ? schema : inner;
  into.add(key_field, key_schema, true);
  for (const auto& [field, column] : fields) {
    nlohmann::json s = {{"description", "the named row's " + detail::quote(column) + " in " + detail::quote(fact)}};
    if (const auto c = t.column_of(column))
      if (const auto type = detail::column_type(t, *c)) s["type"] = *type;
    into.add(field, s, false);
  }
  if (at.empty()) return;
  nlohmann::json row = inner.schema();
  row.erase("$schema");
  schema.add(at, {{"anyOf", {row, {{"type", "array"}, {"items", row}}}}}, true);
}

GROUNDPLANE_INLINE void row_integrity::verify(const FactRegistry& registry, const nlohmann::json& output,
                                              std::vector<Finding>& findings) const {
  const Resolver rows(registry.get<Table>(fact), key_column);
  const nlohmann::json* target = at.empty() ? &output : detail::find_field(output, at);
  if (target == nullptr || !(target->is_object() || target->is_array())) {
    Finding f = detail::finding_about(check_name, at, rows.table);
    f.detail = "expected an object or an array of objects naming rows of " + detail::quote(fact);
    if (target != nullptr) {
      f.said = detail::render(*target);
      f.detail += ", got " + std::string(detail::type_name(*target));
    }
    findings.push_back(std::move(f));
    return;
  }
  if (target->is_object()) {
    Sink all{findings, std::numeric_limits<std::size_t>::max()};
    verify_object(rows, *target, at, all);
    return;
  }
  Sink sink{findings, max_listed};
  for (std::size_t i = 0; i < target->size(); ++i) {
    const std::string base = at + "/" + std::to_string(i);
    const nlohmann::json& item = (*target)[i];
    if (item.is_object()) {
      verify_object(rows, item, base, sink);
      continue;
    }
    sink.add([&] {
      Finding f = detail::finding_about(check_name, base, rows.table);
      f.said = detail::render(item);
      f.detail =
          "expected an object naming a row of " + detail::quote(fact) + ", got " + std::string(detail::type_name(item));
      return f;
    });
  }
  if (sink.unlisted > 0) {
    Finding f = detail::finding_about(check_name, at, rows.table);
    f.said = detail::group_thousands(sink.unlisted) + " more";
    f.detail = "... and " + detail::group_thousands(sink.unlisted) + " more unsupported value(s) in " +
               detail::quote(at) + " (the first " + std::to_string(max_listed) + " are listed)";
    findings.push_back(std::move(f));
  }
}

GROUNDPLANE_INLINE void row_integrity::verify_object(const Resolver& rows, const nlohmann::json& object,
                                                     const std::string& base, Sink& sink) const {
  const nlohmann::json* key = detail::find_field(object, key_field);
  const bool usable = key != nullptr && (key->is_string() || key->is_number() || key->is_boolean());
  const auto row = usable ? rows.find(*key) : std::nullopt;
  if (!row) {
    // The findings about the key are built only here: a row found costs no strings.
    sink.add([&] {
      Finding kf = detail::finding_about(check_name, detail::field_at(base, key_field), rows.table);
      const std::string what_key = "a " + detail::quote(rows.column_name) + " of a row of " + detail::quote(fact);
      if (key == nullptr) {
        kf.detail = "expected " + what_key + "; without the row's key no value beside it can be checked";
        return kf;
      }
      kf.said = detail::render_claim(*key);
      if (!usable) {
        kf.detail = "expected " + what_key + ", got " + std::string(detail::type_name(*key));
        return kf;
      }
      kf.detail = kf.said + " names no row of " + detail::quote(fact) + ": no row has it in column " +
                  detail::quote(rows.column_name);
      kf.detail += rows.table.complete() ? " (" + detail::count_of(rows.table.row_count(), "row", "rows") +
                                               " recorded" + keys_listed(rows) + ")"
                                         : " (only " + detail::group_thousands(rows.table.row_count()) + " of " +
                                               detail::count_of(*rows.table.total_rows(), "row", "rows") + " recorded" +
                                               keys_listed(rows) + "; the row may be among those not recorded)";
      kf.detail += key_type_hint(rows, *key);
      return kf;
    });
    return;
  }
  for (const auto& [field, column] : fields) {
    const nlohmann::json* said = detail::find_field(object, field);
    if (said == nullptr) continue;  // not stated, not claimed
    verify_value(rows, *row, field, column, *said, base, sink);
  }
}

// ": 'harbour', 'north'": the keys of the first 20 rows and how many rows more, so a
// finding about a key no row has says which keys there are (every row has one: the
// Resolver refuses a table with a row without). Reads no further: an output naming a
// thousand unknown keys costs no scan of a 1M-row table each.
GROUNDPLANE_INLINE std::string row_integrity::keys_listed(const Resolver& rows) {
  constexpr std::size_t shown = 20;
  if (!rows.column) return "";
  const std::size_t n = rows.table.row_count();
  std::string out;
  for (std::size_t r = 0; r < n && r < shown; ++r)
    out += (r == 0 ? ": " : ", ") + detail::render(rows.table.cell(r, *rows.column));
  if (n > shown) out += " and " + detail::group_thousands(n - shown) + " more";
  return out;
}

GROUNDPLANE_INLINE std::string row_integrity::key_type_hint(const Resolver& rows, const nlohmann::json& key) {
  if (key.is_string()) {
    try {
      const Decimal d = Decimal::parse(key.get_ref<const std::string&>());
      if (const auto r = rows.find(detail::to_json(d)))
        return "; the key was given as text, and the number " + rows.key_text(*r) + " names a row";
    } catch (const InvalidNumber&) {
    }
  } else if (key.is_number()) {
    if (const auto d = stated_number(key)) {
      if (const auto r = rows.find(nlohmann::json(d->to_string())))
        return "; the key was given as a number, and the text " + rows.key_text(*r) + " names a row";
      // The same value written as the other kind of number: 7.0 for the id 7.
      const nlohmann::json other =
          detail::is_integer_json(key) ? nlohmann::json(key.get<double>()) : detail::to_json(*d);
      if (detail::is_integer_json(other) != detail::is_integer_json(key))
        if (const auto r = rows.find(other))
          return detail::is_integer_json(key) ? "; the key was given as an integer, and the row's key " +
                                                    rows.key_text(*r) + " is a number written with a fraction part"
                                              : "; an id is an integer: the row keyed " + rows.key_text(*r) +
                                                    " is named as written, not with a fraction part or an exponent";
    }
  }
  return "";
}

GROUNDPLANE_INLINE void row_integrity::verify_value(const Resolver& rows, std::size_t row, const std::string& field,
                                                    const std::string& column, const nlohmann::json& said,
                                                    const std::string& base, Sink& sink) const {
  const Table& t = rows.table;
  const auto c = t.column_of(column);
  // The common case first, reading the typed cell: a value that matches costs no strings.
  if (c && !t.is_null(row, *c)) {
    if (const auto exact = t.number(row, *c)) {
      const auto value = stated_number(said);
      if (value &&
          (*value == *exact || detail::match_number(*value, detail::Rational(*exact), tolerance, Rounding::exact).ok))
        return;
    } else if (detail::same_value(said, t.cell(row, *c))) {
      return;
    }
  }
  static const nlohmann::json absent;
  const nlohmann::json& truth = c ? t.cell(row, *c) : absent;
  if (truth.is_null() && said.is_null()) return;  // null is that row's own value
  // Judged before anything is built: only a wrong value makes a finding.
  std::optional<Decimal> value;
  if (truth.is_number()) {
    value = stated_number(said);
    if (value && detail::match_number(*value, detail::Rational(t.number(row, *c).value_or(Decimal())), tolerance,
                                      Rounding::exact)
                     .ok)
      return;
  } else if (!truth.is_null() && detail::same_value(said, truth)) {
    return;
  }
  sink.add([&] {
    const std::string who = rows.label(row);
    Finding f = detail::finding_about(check_name, detail::field_at(base, field), t);
    f.said = detail::render(said);
    if (truth.is_null()) {
      f.detail = who + " has no " + detail::quote(column) + " recorded in " + detail::quote(fact);
      return f;
    }
    f.supported = detail::render(truth);
    const std::string recorded = who + "'s " + detail::quote(column) + " is " + f.supported;
    if (truth.is_number() && !value) {
      f.detail = "expected a number, got " + std::string(detail::type_name(said)) + "; " + recorded;
      return f;
    }
    f.detail = recorded + borrowed_from(rows, row, *c, said);
    if (truth.is_number() && detail::matches_as_stated(*value, detail::Rational(t.number(row, *c).value_or(Decimal()))))
      f.detail += "; " + f.said + " is " + f.supported + " rounded to the decimals stated, not the recorded value";
    return f;
  });
}

GROUNDPLANE_INLINE std::string row_integrity::borrowed_from(const Resolver& rows, std::size_t row, std::size_t column,
                                                            const nlohmann::json& said) const {
  const Table& t = rows.table;
  const std::string value = detail::render(said);
  const std::string who = rows.label(row);
  std::string out;
  if (const auto r = t.column_data(column).find_equal(said, row))
    out += "; " + value + " is " + rows.label(*r) + "'s " + detail::quote(t.columns()[column]) + ", not " + who + "'s";
  for (std::size_t c = 0; c < t.columns().size(); ++c) {
    if (c != column && detail::same_value(t.cell(row, c), said)) {
      // NOLINTNEXTLINE(performance-inefficient-string-concatenation): built once, then break
      out += "; " + value + " is " + who + "'s " + detail::quote(t.columns()[c]) + ", not its " +
             detail::quote(t.columns()[column]);
      break;
    }
  }
  return out;
}

}  // namespace groundplane
