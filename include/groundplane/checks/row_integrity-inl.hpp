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
  using Kind = detail::RowClaim::Kind;
  const detail::RowResolver rows(registry.get<Table>(fact), key_column);
  const nlohmann::json* target = at.empty() ? &output : detail::find_field(output, at);
  if (target == nullptr || !(target->is_object() || target->is_array())) {
    detail::RowClaim claim;
    claim.kind = Kind::not_rows;
    claim.said = target;
    findings.push_back(detail::row_finding(*this, rows, claim));
    return;
  }
  if (target->is_object()) {
    Sink all{findings, std::numeric_limits<std::size_t>::max()};
    verify_object(rows, *target, detail::RowClaim{}, all);
    return;
  }
  Sink sink{findings, max_listed};
  for (std::size_t i = 0; i < target->size(); ++i) {
    const nlohmann::json& item = (*target)[i];
    detail::RowClaim where;
    where.in_array = true;
    where.item = i;
    if (item.is_object()) {
      verify_object(rows, item, where, sink);
      continue;
    }
    where.kind = Kind::not_an_object;
    where.said = &item;
    report(rows, where, sink);
  }
  if (sink.unlisted > 0) {
    detail::RowClaim more;
    more.kind = Kind::more;
    more.unlisted = sink.unlisted;
    findings.push_back(detail::row_finding(*this, rows, more));
  }
}

GROUNDPLANE_INLINE void row_integrity::report(const detail::RowResolver& rows, const detail::RowClaim& claim,
                                              Sink& sink) const {
  sink.add([&] { return detail::row_finding(*this, rows, claim); });
}

GROUNDPLANE_INLINE void row_integrity::verify_object(const detail::RowResolver& rows, const nlohmann::json& object,
                                                     const detail::RowClaim& where, Sink& sink) const {
  detail::RowClaim key = classify_key(rows, detail::find_field(object, key_field));
  key.in_array = where.in_array;
  key.item = where.item;
  if (key.kind != detail::RowClaim::Kind::holds) {
    // The findings about the key are built only here: a row found costs no strings.
    key.field = &key_field;
    report(rows, key, sink);
    return;
  }
  for (const auto& [field, column] : fields) {
    const nlohmann::json* said = detail::find_field(object, field);
    if (said == nullptr) continue;  // not stated, not claimed
    detail::RowClaim value = classify_value(rows, key.row, column, *said);
    if (value.kind == detail::RowClaim::Kind::holds) continue;
    value.in_array = where.in_array;
    value.item = where.item;
    value.field = &field;
    value.column_name = &column;
    report(rows, value, sink);
  }
}

GROUNDPLANE_INLINE detail::RowClaim row_integrity::classify_key(const detail::RowResolver& rows,
                                                                const nlohmann::json* key) const {
  using Kind = detail::RowClaim::Kind;
  detail::RowClaim claim;
  claim.said = key;
  const bool usable = key != nullptr && (key->is_string() || key->is_number() || key->is_boolean());
  const auto row = usable ? rows.find(*key) : std::nullopt;
  if (row) claim.row = *row;
  else claim.kind = key == nullptr ? Kind::no_key : !usable ? Kind::unusable_key : Kind::unknown_key;
  return claim;
}

GROUNDPLANE_INLINE detail::RowClaim row_integrity::classify_value(const detail::RowResolver& rows, std::size_t row,
                                                                  const std::string& column,
                                                                  const nlohmann::json& said) const {
  using Kind = detail::RowClaim::Kind;
  const Table& t = rows.table;
  detail::RowClaim claim;
  claim.said = &said;
  claim.row = row;
  claim.column = t.column_of(column);
  const auto& c = claim.column;
  // The common case first, reading the typed cell: a value that matches costs no strings.
  if (c && !t.is_null(row, *c)) {
    if (const auto exact = t.number(row, *c)) {
      const auto value = stated_number(said);
      if (value &&
          (*value == *exact || detail::match_number(*value, detail::Rational(*exact), tolerance, Rounding::exact).ok))
        return claim;
    } else if (const auto text = t.text(row, *c)) {
      if (said.is_string() && said.get_ref<const std::string&>() == *text) return claim;
    } else if (detail::same_value(said, t.cell(row, *c))) {
      return claim;
    }
  }
  static const nlohmann::json absent;
  const nlohmann::json truth = c ? t.cell(row, *c) : absent;
  if (truth.is_null() && said.is_null()) return claim;  // null is that row's own value
  // Judged before anything is built: only a wrong value makes a finding.
  if (truth.is_null()) {
    claim.kind = Kind::no_value;
    return claim;
  }
  if (truth.is_number()) {
    const detail::Rational recorded(t.number(row, *c).value_or(Decimal()));
    const auto value = stated_number(said);
    if (value && detail::match_number(*value, recorded, tolerance, Rounding::exact).ok) return claim;
    claim.kind = value ? Kind::wrong_value : Kind::not_a_number;
    claim.rounded = value && detail::matches_as_stated(*value, recorded);
    return claim;
  }
  if (detail::same_value(said, truth)) return claim;
  claim.kind = Kind::wrong_value;
  return claim;
}

namespace detail {

GROUNDPLANE_INLINE std::string row_claim_field(const row_integrity& check, const RowClaim& claim) {
  const std::string base = claim.in_array ? check.at + "/" + std::to_string(claim.item) : check.at;
  return claim.field == nullptr ? base : field_at(base, *claim.field);
}

// ": 'harbour', 'north'": the keys of the first 20 rows and how many rows more, so a
// finding about a key no row has says which keys there are (every row has one: the
// RowResolver refuses a table with a row without). Reads no further: an output naming a
// thousand unknown keys costs no scan of a 1M-row table each.
GROUNDPLANE_INLINE std::string row_keys_listed(const RowResolver& rows) {
  constexpr std::size_t shown = 20;
  if (!rows.column) return "";
  const std::size_t n = rows.table.row_count();
  std::string out;
  for (std::size_t r = 0; r < n && r < shown; ++r)
    out += (r == 0 ? ": " : ", ") + detail::render(rows.table.cell(r, *rows.column));
  if (n > shown) out += " and " + group_thousands(n - shown) + " more";
  return out;
}

GROUNDPLANE_INLINE std::string row_key_type_hint(const RowResolver& rows, const nlohmann::json& key) {
  if (key.is_string()) {
    try {
      const Decimal d = Decimal::parse(key.get_ref<const std::string&>());
      if (const auto r = rows.find(to_json(d)))
        return "; the key was given as text, and the number " + rows.key_text(*r) + " names a row";
    } catch (const InvalidNumber&) {
    }
  } else if (key.is_number()) {
    if (const auto d = stated_number(key)) {
      if (const auto r = rows.find(nlohmann::json(d->to_string())))
        return "; the key was given as a number, and the text " + rows.key_text(*r) + " names a row";
      // The same value written as the other kind of number: 7.0 for the id 7.
      const nlohmann::json other = is_integer_json(key) ? nlohmann::json(key.get<double>()) : to_json(*d);
      if (is_integer_json(other) != is_integer_json(key))
        if (const auto r = rows.find(other))
          return is_integer_json(key) ? "; the key was given as an integer, and the row's key " + rows.key_text(*r) +
                                            " is a number written with a fraction part"
                                      : "; an id is an integer: the row keyed " + rows.key_text(*r) +
                                            " is named as written, not with a fraction part or an exponent";
    }
  }
  return "";
}

GROUNDPLANE_INLINE std::string row_borrowed_from(const RowResolver& rows, std::size_t row, std::size_t column,
                                                 const nlohmann::json& said) {
  const Table& t = rows.table;
  const std::string value = detail::render(said);
  const std::string who = rows.label(row);
  std::string out;
  if (const auto r = t.column_data(column).find_equal(said, row))
    out += "; " + value + " is " + rows.label(*r) + "'s " + quote(t.columns()[column]) + ", not " + who + "'s";
  for (std::size_t c = 0; c < t.columns().size(); ++c) {
    if (c != column && same_value(t.cell(row, c), said)) {
      // NOLINTNEXTLINE(performance-inefficient-string-concatenation): built once, then break
      out += "; " + value + " is " + who + "'s " + quote(t.columns()[c]) + ", not its " + quote(t.columns()[column]);
      break;
    }
  }
  return out;
}

GROUNDPLANE_INLINE std::string row_key_detail(const row_integrity& check, const RowResolver& rows,
                                              const RowClaim& claim, const std::string& said_text) {
  const std::string what_key = "a " + quote(rows.column_name) + " of a row of " + quote(check.fact);
  if (claim.kind == RowClaim::Kind::no_key)
    return "expected " + what_key + "; without the row's key no value beside it can be checked";
  if (claim.kind == RowClaim::Kind::unusable_key)
    return "expected " + what_key + ", got " + std::string(type_name(*claim.said));
  const Table& t = rows.table;
  std::string out =
      said_text + " names no row of " + quote(check.fact) + ": no row has it in column " + quote(rows.column_name);
  out += t.complete() ? " (" + count_of(t.row_count(), "row", "rows") + " recorded" + row_keys_listed(rows) + ")"
                      : " (only " + group_thousands(t.row_count()) + " of " + count_of(*t.total_rows(), "row", "rows") +
                            " recorded" + row_keys_listed(rows) + "; the row may be among those not recorded)";
  return out + row_key_type_hint(rows, *claim.said);
}

GROUNDPLANE_INLINE void word_row_value(const row_integrity& check, const RowResolver& rows, const RowClaim& claim,
                                       Finding& f) {
  const std::string who = rows.label(claim.row);
  const std::string& column = *claim.column_name;
  f.said = detail::render(*claim.said);
  if (claim.kind == RowClaim::Kind::no_value) {
    f.detail = who + " has no " + quote(column) + " recorded in " + quote(check.fact);
    return;
  }
  f.supported = detail::render(rows.table.cell(claim.row, *claim.column));
  const std::string recorded = who + "'s " + quote(column) + " is " + f.supported;
  if (claim.kind == RowClaim::Kind::not_a_number) {
    f.detail = "expected a number, got " + std::string(type_name(*claim.said)) + "; " + recorded;
    return;
  }
  f.detail = recorded + row_borrowed_from(rows, claim.row, *claim.column, *claim.said);
  if (claim.rounded)
    f.detail += "; " + f.said + " is " + f.supported + " rounded to the decimals stated, not the recorded value";
}

GROUNDPLANE_INLINE Finding row_finding(const row_integrity& check, const RowResolver& rows, const RowClaim& claim) {
  using Kind = RowClaim::Kind;
  Finding f = finding_about(row_integrity::check_name, row_claim_field(check, claim), rows.table);
  switch (claim.kind) {
    case Kind::not_rows:
      f.detail = "expected an object or an array of objects naming rows of " + quote(check.fact);
      if (claim.said != nullptr) {
        f.said = detail::render(*claim.said);
        f.detail += ", got " + std::string(type_name(*claim.said));
      }
      return f;
    case Kind::not_an_object:
      f.said = detail::render(*claim.said);
      f.detail =
          "expected an object naming a row of " + quote(check.fact) + ", got " + std::string(type_name(*claim.said));
      return f;
    case Kind::more:
      f.said = group_thousands(claim.unlisted) + " more";
      f.detail = "... and " + group_thousands(claim.unlisted) + " more unsupported value(s) in " + quote(check.at) +
                 " (the first " + std::to_string(row_integrity::max_listed) + " are listed)";
      return f;
    case Kind::no_key:
      f.detail = row_key_detail(check, rows, claim, f.said);
      return f;
    case Kind::unusable_key:
    case Kind::unknown_key:
      f.said = render_claim(*claim.said);
      f.detail = row_key_detail(check, rows, claim, f.said);
      return f;
    default:
      word_row_value(check, rows, claim, f);
      return f;
  }
}

}  // namespace detail

}  // namespace groundplane
