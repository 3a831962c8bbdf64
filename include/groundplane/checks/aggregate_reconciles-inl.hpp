// The bodies of aggregate_reconciles.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/aggregate_reconciles.hpp"

namespace groundplane {

GROUNDPLANE_INLINE std::string aggregate_reconciles::name() const {
  return std::string(check_name) + "(fact=" + detail::quote(fact) + ", field=" + detail::quote(field) + ")";
}

GROUNDPLANE_INLINE std::vector<std::string> aggregate_reconciles::warnings(const FactRegistry& registry) const {
  if (on_missing != OnMissing::skip || op == Aggregate::count || column.empty()) return {};
  const auto& table = registry.get<Table>(fact);
  if (!table.complete()) return {};
  const Selection sel = select(table);
  if (sel.missing == 0) return {};
  return {name() + ": " + detail::group_thousands(sel.missing) + " of the " +
          detail::aggregate_rows_phrase(sel.matched, where) + (sel.missing == 1 ? " has" : " have") + " no value in " +
          detail::quote(column) + "; the " + std::string(to_string(op)) + " is over the other " +
          detail::group_thousands(sel.matched - sel.missing) + " (OnMissing::skip)"};
}

GROUNDPLANE_INLINE void aggregate_reconciles::validate(const FactRegistry& registry) const {
  const auto& table = detail::fact_for<Table>(registry, fact, check_name);
  detail::validate_field(field, check_name, "field");
  detail::validate_tolerance(tolerance, check_name);
  const std::string who = std::string(check_name) + ": ";
  if (op != Aggregate::count && column.empty())
    throw ConfigurationError(who + "a " + std::string(to_string(op)) + " needs a column; set .column");
  if (!weight_column.empty() && op != Aggregate::mean && op != Aggregate::sum)
    throw ConfigurationError(who +
                             "weight_column applies to a mean or a sum (a weighted mean, or a sum of products), "
                             "not to a " +
                             std::string(to_string(op)));
  // A table with no rows and no columns listed has no names to check against; it still
  // reconciles (a sum of 0). What a column holds is known only from its rows.
  const bool checkable = detail::columns_known(table);
  if (!column.empty() && checkable && !table.column_of(column))
    throw ConfigurationError(who + "column " + detail::quote(column) + " is not a column of table " +
                             detail::quote(fact) + known_columns(table));
  if (!weight_column.empty() && checkable && !table.column_of(weight_column))
    throw ConfigurationError(who + "weight_column " + detail::quote(weight_column) + " is not a column of table " +
                             detail::quote(fact) + known_columns(table));
  if (!where.is_object())
    throw ConfigurationError(who + "where must be a JSON object {column: value}, got " +
                             std::string(detail::type_name(where)));
  for (auto it = where.begin(); it != where.end(); ++it) validate_condition(table, it.key(), it.value(), checkable);
  validate_cells(table);
}

GROUNDPLANE_INLINE void aggregate_reconciles::validate_condition(const Table& table, const std::string& name,
                                                                 const nlohmann::json& value, bool checkable) const {
  const std::string who = std::string(check_name) + ": ";
  if (checkable && !table.column_of(name))
    throw ConfigurationError(who + "where names column " + detail::quote(name) + ", which is not a column of table " +
                             detail::quote(fact) + known_columns(table));
  const bool scalar =
      value.is_string() || value.is_boolean() || value.is_null() || (value.is_number() && Decimal::from_json(value));
  if (!scalar)
    throw ConfigurationError(who + "where value for " + detail::quote(name) +
                             " must be a string, a finite number, a bool or null, got " +
                             std::string(detail::type_name(value)));
  // A value of a type the column never holds matches no row: a mistyped filter
  // ("2024" for 2024), never a claim the model could be asked to fix.
  if (table.row_count() == 0 || value.is_null()) return;
  // What kinds of cell the column holds is counted as it is recorded.
  const detail::Column& held_by = table.column_data(*table.column_of(name));
  const bool held = value.is_string()   ? held_by.texts > 0
                    : value.is_number() ? held_by.numbers > 0
                                        : held_by.booleans > 0;
  if (held) return;
  std::string message = who;
  message += "where value for " + detail::quote(name) + " is " + std::string(detail::type_name(value)) + " (" +
             detail::render(value) + "), but column " + detail::quote(name) + " of table " + detail::quote(fact) +
             " holds ";
  message += detail::held_kinds(held_by);
  message += ", so it would match no row; write the value as the column's type";
  throw ConfigurationError(message);
}

GROUNDPLANE_INLINE void aggregate_reconciles::validate_cells(const Table& table) const {
  if (column.empty() || op == Aggregate::count || !table.complete()) return;
  const auto c = table.column_of(column);
  if (!c) return;
  // The weight column's index, or no_weights: a plain index, as g++'s optimizer takes a
  // std::optional's value read inside the loop for an unset one (-Wmaybe-uninitialized).
  constexpr std::size_t no_weights = static_cast<std::size_t>(-1);
  const std::size_t wc = weight_column.empty() ? no_weights : table.column_of(weight_column).value_or(no_weights);
  // The common case, known without reading a row: the column holds only numbers and
  // nulls, and the weights (if any) are numbers in every row, none negative for a mean.
  const auto numbers_only = [&](std::size_t column) {
    const detail::Column& held = table.column_data(column);
    return held.texts + held.booleans + held.others == 0;
  };
  const bool weights_hold =
      weight_column.empty() || (wc != no_weights && numbers_only(wc) && table.column_data(wc).nulls() == 0 &&
                                (op != Aggregate::mean || table.column_numbers(wc).first_negative == detail::no_row));
  if (numbers_only(*c) && weights_hold) return;
  const std::vector<std::uint8_t> mask = matching(table);
  const auto row_name = [&](std::size_t r) {
    const auto e = table.entity_at(r);
    return e ? "row " + e->render() : "row " + std::to_string(r);
  };
  const std::string who = std::string(check_name) + ": fact " + detail::quote(fact) + " column ";
  for (std::size_t r = 0; r < table.row_count(); ++r) {
    if (!mask.empty() && mask[r] == 0) continue;
    const CellKind kind = table.kind(r, *c);
    if (kind == CellKind::null) continue;
    if (kind != CellKind::number)
      throw ConfigurationError(who + detail::quote(column) + " " + row_name(r) + " holds " +
                               detail::render(table.cell(r, *c)) + " (" +
                               std::string(detail::type_name(table.cell(r, *c))) + "), not a number; the " +
                               std::string(to_string(op)) + " cannot be recomputed until the recorded data is fixed");
    if (weight_column.empty()) continue;
    const auto not_a_weight = [&](const std::string& held) {
      std::string message = who;
      message.append(detail::quote(weight_column)).append(" ").append(row_name(r)).append(" holds ").append(held);
      return ConfigurationError(message.append(", not a number to weight by"));
    };
    if (wc == no_weights) throw not_a_weight("no value");
    // The table keeps an absent cell as null: the two cannot be told apart here.
    if (table.kind(r, wc) == CellKind::null) throw not_a_weight("no value (missing or null)");
    if (table.kind(r, wc) != CellKind::number) throw not_a_weight(detail::render(table.cell(r, wc)));
    if (op == Aggregate::mean && table.number(r, wc)->signum() < 0)
      throw ConfigurationError(who + detail::quote(weight_column) + " " + row_name(r) + " holds the negative weight " +
                               detail::render(*table.number(r, wc)) + "; a weighted mean needs weights of 0 or more");
  }
}

GROUNDPLANE_INLINE void aggregate_reconciles::describe(const FactRegistry&, SchemaBuilder& schema) const {
  schema.add(field, {{"type", op == Aggregate::count ? "integer" : "number"}, {"description", "the " + subject()}},
             true);
}

GROUNDPLANE_INLINE void aggregate_reconciles::verify(const FactRegistry& registry, const nlohmann::json& output,
                                                     std::vector<Finding>& findings) const {
  const auto& table = registry.get<Table>(fact);
  const nlohmann::json* said = detail::find_field(output, field);
  const detail::AggregateResult result = classify(table, said);
  if (result.kind == detail::AggregateResult::Kind::holds) return;
  findings.push_back(detail::aggregate_finding(*this, table, said, result));
}

GROUNDPLANE_INLINE detail::AggregateResult aggregate_reconciles::classify(const Table& table,
                                                                          const nlohmann::json* said) const {
  using Kind = detail::AggregateResult::Kind;
  detail::AggregateResult result;
  // Refused before anything is computed, so no number from the part can leak out.
  if (!table.complete()) {
    result.kind = Kind::partial_table;
    return result;
  }
  Selection sel = select(table);
  result.matched = sel.matched;
  result.missing = sel.missing;
  result.non_numeric = sel.non_numeric;
  result.numbers = sel.numbers;
  if (sel.non_numeric > 0) {
    result.kind = Kind::non_numeric;
    result.first_non_numeric = std::move(sel.first_non_numeric);
    return result;
  }
  // A hole in the column: the row without a value could be the one that changes it.
  if (op != Aggregate::count && sel.missing > 0 && on_missing == OnMissing::refuse) {
    result.kind = Kind::missing_values;
    return result;
  }
  std::optional<Truth> unweighted;
  std::optional<Truth> truth = weight_column.empty() ? compute(sel) : weighted_truth(table, sel, unweighted);
  if (!truth) {
    // A weighted mean over numbers whose weights sum to 0; else nothing to aggregate.
    result.kind = !weight_column.empty() && sel.numbers > 0 ? Kind::zero_weights : Kind::no_value;
    return result;
  }
  result.truth = std::move(truth->value);
  result.how = std::move(truth->how);
  judge_stated(said, unweighted, result);
  return result;
}

GROUNDPLANE_INLINE void aggregate_reconciles::judge_stated(const nlohmann::json* said,
                                                           const std::optional<Truth>& unweighted,
                                                           detail::AggregateResult& result) const {
  using Kind = detail::AggregateResult::Kind;
  if (said == nullptr) {
    result.kind = Kind::unstated;
    return;
  }
  const auto value = stated_number(*said);
  if (!value) {
    result.kind = Kind::not_a_number;
    return;
  }
  // A count is an exact whole number: equal to the count (3.0 is 3), whatever the
  // tolerance or rounding, which are for measured values.
  const bool counting = op == Aggregate::count;
  if (counting && !value->is_integer()) {
    result.kind = Kind::not_whole;
    return;
  }
  auto match = counting ? detail::NumberMatch{*value == Decimal(result.matched - result.missing), {}}
                        : detail::match_number(*value, *result.truth, tolerance, rounding);
  if (match.ok) return;
  if (result.matched == 0 && filtered() && weight_column.empty()) {
    // True of no rows is accepted (above); anything else is not coached toward the
    // empty aggregate: the filter matching nothing is the news. A count of nothing is
    // still a count, and named.
    result.kind = Kind::no_rows_matched;
    return;
  }
  result.kind = Kind::off;
  result.stated = *value;
  if (unweighted && detail::match_number(*value, unweighted->value, tolerance, rounding).ok)
    result.unweighted = unweighted->value;
  result.hint = std::move(match.hint);
}

GROUNDPLANE_INLINE std::optional<aggregate_reconciles::Truth> aggregate_reconciles::weighted_truth(
    const Table& table, Selection& sel, std::optional<Truth>& unweighted) const {
  unweighted = compute(sel);
  const Weighted w = weighted(table);
  if (op == Aggregate::sum) return Truth{detail::Rational(w.products), detail::AggregateHow::weighted_sum()};
  if (w.weights.is_zero()) return std::nullopt;
  return Truth{detail::Rational(w.products, w.weights), detail::AggregateHow::weighted_mean(w.products, w.weights)};
}

GROUNDPLANE_INLINE aggregate_reconciles::Weighted aggregate_reconciles::weighted(const Table& table) const {
  Weighted out;
  const auto c = table.column_of(column);
  const auto w = table.column_of(weight_column);
  if (!c || !w) return out;
  const std::vector<std::uint8_t> mask = matching(table);
  for (std::size_t r = 0; r < table.row_count(); ++r) {
    if (!mask.empty() && mask[r] == 0) continue;
    const auto v = table.number(r, *c);
    const auto weight = table.number(r, *w);
    if (!v || !weight) continue;  // a row without a value (skipped); weights were validated
    out.products += *v * *weight;
    out.weights += *weight;
  }
  return out;
}

GROUNDPLANE_INLINE aggregate_reconciles::Condition aggregate_reconciles::compile(const Table& table,
                                                                                 const std::string& name,
                                                                                 const nlohmann::json& want) {
  using Test = Condition::Test;
  Condition c;
  c.want = &want;
  const auto at = table.column_of(name);
  if (want.is_number()) c.number = Decimal::from_json(want);
  if (!at) {
    c.test = Test::never;  // a column no row has: not even null matches (no cell holds null)
    return c;
  }
  const detail::Column& col = table.column_data(*at);
  c.column = &col;
  if (c.number) {
    c.test = Test::number;
    if (col.scaled)
      if (const auto w = col.scaled_word(*c.number)) {
        c.test = Test::word;
        c.word = *w;
      }
  } else if (want.is_null()) {
    c.test = col.json_nulls.empty() ? Test::never : Test::json_null;
  } else if (want.is_boolean()) {
    c.test = Test::tag;
    c.tag = want.get<bool>() ? detail::CellTag::boolean_true : detail::CellTag::boolean_false;
  } else if (want.is_string()) {
    const auto id = col.strings.find(want.get_ref<const std::string&>());
    c.test = id ? Test::text : Test::never;  // a string the column never holds matches no row
    c.word = id ? static_cast<std::int64_t>(*id) : 0;
  } else {
    c.test = Test::json;  // a non-finite number or a composite: never equal to a recorded cell
  }
  return c;
}

GROUNDPLANE_INLINE std::string aggregate_reconciles::known_columns(const Table& table) {
  return table.columns().empty() ? std::string() : " (its columns: " + detail::render_all_of(table.columns()) + ")";
}

GROUNDPLANE_INLINE std::string aggregate_reconciles::subject() const {
  if (op == Aggregate::count)
    return "count of rows" + (column.empty() ? std::string() : " with a value in '" + column + "'") +
           detail::aggregate_where_phrase(where);
  return std::string(to_string(op)) + " of '" + column + "' over the recorded rows" +
         detail::aggregate_where_phrase(where);
}

GROUNDPLANE_INLINE void aggregate_reconciles::narrow(const Condition& c, std::vector<std::uint8_t>& mask) {
  using Test = Condition::Test;
  using detail::CellTag;
  const std::size_t n = mask.size();
  std::uint8_t* m = mask.data();
  if (c.test == Test::never) {
    std::fill(mask.begin(), mask.end(), std::uint8_t{0});
    return;
  }
  if (c.test == Test::always) return;
  const CellTag* tags = c.column->tags.data();
  const std::int64_t* words = c.column->words.data();
  if (c.test == Test::tag) {
    for (std::size_t r = 0; r < n; ++r) m[r] &= static_cast<std::uint8_t>(tags[r] == c.tag);
  } else if (c.test == Test::text) {
    for (std::size_t r = 0; r < n; ++r)
      m[r] &= static_cast<std::uint8_t>(static_cast<unsigned>(tags[r] == CellTag::string) &
                                        static_cast<unsigned>(words[r] == c.word));
  } else if (c.test == Test::word && c.column->bigs == 0) {
    for (std::size_t r = 0; r < n; ++r)
      m[r] &= static_cast<std::uint8_t>(static_cast<unsigned>(detail::is_inline_number(tags[r])) &
                                        static_cast<unsigned>(words[r] == c.word));
  } else {
    for (std::size_t r = 0; r < n; ++r)
      if (m[r] != 0) m[r] = static_cast<std::uint8_t>(c(r));
  }
}

GROUNDPLANE_INLINE std::vector<std::uint8_t> aggregate_reconciles::matching(const Table& table) const {
  std::vector<std::uint8_t> mask;
  if (where.is_object())
    for (auto it = where.begin(); it != where.end(); ++it) {
      const Condition c = compile(table, it.key(), it.value());
      if (c.test == Condition::Test::always) continue;
      if (mask.empty()) mask.assign(table.row_count(), 1);
      narrow(c, mask);
    }
  return mask;
}

GROUNDPLANE_INLINE aggregate_reconciles::Selection aggregate_reconciles::select(const Table& table) const {
  // Rows passing `where`, one byte each; empty when there is no condition to test.
  const std::vector<std::uint8_t> mask = matching(table);
  const std::optional<std::size_t> at = column.empty() ? std::nullopt : table.column_of(column);
  if (!at || op == Aggregate::count) return select_count(table, mask, at);
  if (mask.empty()) return select_whole(table, *at);
  const detail::Column& col = table.column_data(*at);
  if (!col.plain_numbers()) return select_values(col, mask);
  return select_scaled(col, mask);
}

GROUNDPLANE_INLINE std::size_t aggregate_reconciles::count_matched(const std::vector<std::uint8_t>& mask) {
  std::size_t k = 0;
  for (const std::uint8_t m : mask) k += m;
  return k;
}

GROUNDPLANE_INLINE aggregate_reconciles::Selection aggregate_reconciles::select_count(
    const Table& table, const std::vector<std::uint8_t>& mask, std::optional<std::size_t> at) const {
  // Counting: rows, or rows with a value in the column.
  Selection sel;
  const bool unfiltered = mask.empty();
  sel.matched = unfiltered ? table.row_count() : count_matched(mask);
  if (column.empty()) return sel;
  if (!at) {
    sel.missing = sel.matched;
    return sel;
  }
  const detail::Column& col = table.column_data(*at);
  if (unfiltered) {
    sel.missing = col.nulls();
    return sel;
  }
  const std::uint8_t* m = mask.data();
  const detail::CellTag* tags = col.tags.data();
  for (std::size_t r = 0; r < mask.size(); ++r)
    sel.missing += m[r] & static_cast<std::uint8_t>(tags[r] == detail::CellTag::null);
  return sel;
}

GROUNDPLANE_INLINE aggregate_reconciles::Selection aggregate_reconciles::select_whole(const Table& table,
                                                                                      std::size_t at) const {
  // Every row: the numbers' sum, extremes and median are the column's, which the table
  // derives once for every claim over it.
  const detail::Column& col = table.column_data(at);
  Selection sel;
  sel.matched = table.row_count();
  sel.missing = col.nulls();
  sel.non_numeric = col.texts + col.booleans + col.others;
  if (sel.non_numeric > 0) {
    sel.first_non_numeric = col.json(table.column_numbers(at).first_not_number);
    return sel;
  }
  sel.numbers = col.numbers;
  if (op == Aggregate::median) sel.whole_median = &table.column_median(at);
  else sel.whole = &table.column_numbers(at);
  return sel;
}

GROUNDPLANE_INLINE aggregate_reconciles::Selection aggregate_reconciles::select_values(
    const detail::Column& col, const std::vector<std::uint8_t>& mask) {
  Selection sel;
  for (std::size_t row = 0; row < mask.size(); ++row) {
    if (mask[row] == 0) continue;
    ++sel.matched;
    const detail::CellTag tag = col.tags[row];
    if (tag == detail::CellTag::null) {
      ++sel.missing;
      continue;
    }
    if (!detail::is_number(tag)) {
      if (sel.non_numeric++ == 0) sel.first_non_numeric = col.json(row);
      continue;
    }
    sel.values.push_back(col.number(row));
  }
  sel.numbers = sel.values.size();
  return sel;
}

GROUNDPLANE_INLINE aggregate_reconciles::Selection aggregate_reconciles::select_scaled(
    const detail::Column& col, const std::vector<std::uint8_t>& mask) const {
  // Every cell a number or null, every number a 64-bit word at one scale (a null's
  // word is 0): integer sums, exact because each partial sum is flushed into a
  // Decimal before it could overflow, and minima and maxima over the word array.
  Selection sel;
  sel.scaled = true;
  sel.scale = col.scale;
  const std::size_t n = mask.size();
  const std::uint8_t* m = mask.data();
  const detail::CellTag* tags = col.tags.data();
  const std::int64_t* w = col.words.data();
  sel.matched = count_matched(mask);
  for (std::size_t r = 0; r < n; ++r) sel.missing += m[r] & static_cast<std::uint8_t>(tags[r] == detail::CellTag::null);
  sel.numbers = sel.matched - sel.missing;
  const bool no_nulls = col.nulls() == 0;

  if (op == Aggregate::sum || op == Aggregate::mean) {
    const std::size_t per_chunk = detail::rows_per_partial_sum(col);
    for (std::size_t i = 0; i < n; i += per_chunk) {
      const std::size_t end = std::min(n, i + per_chunk);
      std::int64_t partial = 0;
      for (std::size_t r = i; r < end; ++r) partial += w[r] & -static_cast<std::int64_t>(m[r]);
      sel.sum += detail::DecimalAccess::from_inline(partial, col.scale);
    }
    return sel;
  }
  // A row counts when it matches and holds a number.
  const auto counts = [&](std::size_t r) { return (no_nulls || tags[r] != detail::CellTag::null) && m[r] != 0; };
  if (op == Aggregate::median) {
    sel.words.resize(n);
    std::size_t k = 0;
    for (std::size_t r = 0; r < n; ++r) {
      sel.words[k] = w[r];
      k += counts(r) ? std::size_t{1} : std::size_t{0};
    }
    sel.words.resize(k);
    return sel;
  }
  std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
  std::int64_t highest = std::numeric_limits<std::int64_t>::min();
  for (std::size_t r = 0; r < n; ++r) {
    const bool in = counts(r);
    lowest = in && w[r] < lowest ? w[r] : lowest;
    highest = in && w[r] > highest ? w[r] : highest;
  }
  sel.lowest = lowest;
  sel.highest = highest;
  return sel;
}

GROUNDPLANE_INLINE std::optional<aggregate_reconciles::Truth> aggregate_reconciles::whole_column(
    const Selection& sel) const {
  if (op == Aggregate::median) {
    const detail::ColumnMedian& m = *sel.whole_median;
    if (!m.upper) return std::nullopt;
    if (sel.numbers % 2 == 1) return Truth{detail::Rational(*m.upper), {}};
    return Truth{detail::Rational(*m.lower + *m.upper, Decimal(2)),
                 detail::AggregateHow::middle_two(*m.lower, *m.upper)};
  }
  const detail::ColumnNumbers& whole = *sel.whole;
  switch (op) {
    case Aggregate::sum:
      return Truth{detail::Rational(whole.sum), {}};
    case Aggregate::mean:
      if (sel.numbers == 0) return std::nullopt;
      return Truth{detail::Rational(whole.sum, Decimal(sel.numbers)),
                   detail::AggregateHow::quotient(whole.sum, sel.numbers)};
    case Aggregate::min:
      if (!whole.lowest) return std::nullopt;
      return Truth{detail::Rational(*whole.lowest), {}};
    case Aggregate::max:
      if (!whole.highest) return std::nullopt;
      return Truth{detail::Rational(*whole.highest), {}};
    default:
      return std::nullopt;  // count is never summarised; median above
  }
}

namespace detail {

GROUNDPLANE_INLINE std::string held_kinds(const Column& column) {
  std::vector<std::string> kinds;
  if (column.numbers > 0) kinds.emplace_back("numbers");
  if (column.texts > 0) kinds.emplace_back("strings");
  if (column.booleans > 0) kinds.emplace_back("booleans");
  std::string holds = kinds.empty() ? "no values at all" : "only ";
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    holds += k == 0 ? "" : (k + 1 == kinds.size() ? " and " : ", ");
    holds += kinds[k];
  }
  return holds;
}

GROUNDPLANE_INLINE std::string aggregate_where_phrase(const nlohmann::json& where) {
  std::string out;
  if (!where.is_object()) return out;
  for (auto it = where.begin(); it != where.end(); ++it)
    out += (out.empty() ? " where " : " and ") + quote(it.key()) + " is " + detail::render(it.value());
  return out;
}

GROUNDPLANE_INLINE std::string aggregate_rows_phrase(std::size_t n, const nlohmann::json& where) {
  return count_of(n, "row", "rows") + aggregate_where_phrase(where);
}

GROUNDPLANE_INLINE std::string aggregate_no_row_phrase(const Table& table, const nlohmann::json& where) {
  std::string out;
  for (auto it = where.begin(); it != where.end(); ++it) {
    const auto c = table.column_of(it.key());
    if (!c) continue;
    const nlohmann::json& want = it.value();
    bool met = false;
    std::string closest;
    std::size_t best = std::numeric_limits<std::size_t>::max();
    for (std::size_t r = 0; r < table.row_count() && !met; ++r) {
      const nlohmann::json cell = table.is_null(r, *c) ? nlohmann::json() : table.cell(r, *c);
      const auto a = stated_number(cell);
      const auto b = stated_number(want);
      met = (a && b) ? *a == *b : cell == want;
      if (!met && want.is_string() && cell.is_string() && r < 10000) {
        const std::size_t d =
            aggregate_edit_distance(want.get_ref<const std::string&>(), cell.get_ref<const std::string&>());
        if (d < best) {
          best = d;
          closest = cell.get<std::string>();
        }
      }
    }
    if (met) continue;
    out += (out.empty() ? "no recorded row has " : " and none has ") + quote(it.key()) + " = " + detail::render(want);
    if (!closest.empty()) out += " (closest: " + quote(closest) + ")";
  }
  if (out.empty())
    out = "no recorded row has" + aggregate_where_phrase(where).substr(6);  // each met alone, not together
  return out + " (of " + count_of(table.row_count(), "row", "rows") + " recorded)";
}

GROUNDPLANE_INLINE std::size_t aggregate_edit_distance(std::string_view a, std::string_view b) {
  if (a.size() > 64 || b.size() > 64) return std::numeric_limits<std::size_t>::max() - 1;
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

GROUNDPLANE_INLINE std::string aggregate_show(const Rational& r) {
  if (const auto d = r.exact()) return detail::render(*d);
  return r.to_string();
}

GROUNDPLANE_INLINE std::string aggregate_off_by(const Decimal& stated, const Rational& truth) {
  const Rational off(stated * truth.den() - truth.num(), truth.den());
  return (off.signum() > 0 ? "+" : "") + aggregate_show(off);
}

GROUNDPLANE_INLINE std::string aggregate_how_phrase(const aggregate_reconciles& check, const AggregateHow& how) {
  switch (how.kind) {
    case AggregateHow::Kind::plain:
      return "";
    case AggregateHow::Kind::quotient:
      return "(= " + detail::render(how.first) + " / " + std::to_string(how.count) + ")";
    case AggregateHow::Kind::middle_two:
      return "(the mean of the middle two, " + detail::render(how.first) + " and " + detail::render(how.second) + ")";
    case AggregateHow::Kind::weighted_sum:
      return "(the sum of " + quote(check.column) + " × " + quote(check.weight_column) + " over each row)";
    case AggregateHow::Kind::weighted_mean:
      return "(weighted by " + quote(check.weight_column) + ": " + detail::render(how.first) + " / " +
             detail::render(how.second) + ")";
  }
  return "";
}

GROUNDPLANE_INLINE std::string aggregate_computed_phrase(const aggregate_reconciles& check, const Table& table,
                                                         const AggregateResult& result, const std::string& shown) {
  std::string out = "computed ";
  if (check.op == Aggregate::count) {
    out += "count of rows" + (check.column.empty() ? std::string() : " with a value in " + quote(check.column)) +
           aggregate_where_phrase(check.where) + " is " + shown;
    if (!check.where.empty() || !check.column.empty())
      out += " (of " + count_of(table.row_count(), "row", "rows") + " recorded)";
    return out;
  }
  out += std::string(groundplane::to_string(check.op)) + " of " + quote(check.column) + " over " +
         aggregate_rows_phrase(result.numbers, check.where) + " is " + shown;
  if (const std::string how = aggregate_how_phrase(check, result.how); !how.empty()) out += " " + how;
  if (result.missing > 0) out += "; " + count_of(result.missing, "row has", "rows have") + " no " + quote(check.column);
  return out;
}

GROUNDPLANE_INLINE std::string aggregate_refusal(const aggregate_reconciles& check, const Table& table,
                                                 const AggregateResult& result) {
  using Kind = AggregateResult::Kind;
  const std::string op_name(groundplane::to_string(check.op));
  switch (result.kind) {
    case Kind::partial_table:
      return group_thousands(table.row_count()) + " of " + group_thousands(*table.total_rows()) + " rows recorded; a " +
             op_name + " over part of a table is not a " + op_name;
    case Kind::non_numeric:
      return "cannot recompute the " + op_name + " of " + quote(check.column) + ": " +
             group_thousands(result.non_numeric) + " of the " + aggregate_rows_phrase(result.matched, check.where) +
             (result.non_numeric == 1 ? " holds" : " hold") +
             " a non-number in it (first: " + detail::render(result.first_non_numeric) + ", " +
             std::string(type_name(result.first_non_numeric)) +
             "); the recorded data must be fixed before this claim can be checked";
    case Kind::missing_values:
      return group_thousands(result.missing) + " of " + aggregate_rows_phrase(result.matched, check.where) +
             (result.missing == 1 ? " has" : " have") + " no value in " + quote(check.column) + ": a " + op_name +
             " over the rest is not a fact, as the missing row could be the one that changes it (pass "
             "OnMissing::skip to aggregate the rows that have one)";
    case Kind::zero_weights:
      return "the weights in " + quote(check.weight_column) + " over the " +
             aggregate_rows_phrase(result.numbers, check.where) + " sum to 0, so a mean weighted by them has no value";
    default:
      break;  // no_value
  }
  if (result.matched == 0 && aggregate_where_phrase(check.where).empty())
    return "the table has no rows; a " + op_name + " over no rows has no value";
  if (result.matched == 0)
    return aggregate_no_row_phrase(table, check.where) + "; a " + op_name + " over no rows has no value";
  return "none of the " + aggregate_rows_phrase(result.matched, check.where) + " has a value in " +
         quote(check.column) + "; a " + op_name + " over no values has no value";
}

GROUNDPLANE_INLINE std::string aggregate_mismatch(const aggregate_reconciles& check, const Table& table,
                                                  const nlohmann::json* said, const AggregateResult& result,
                                                  const std::string& shown, const std::string& said_text) {
  using Kind = AggregateResult::Kind;
  const std::string op_name(groundplane::to_string(check.op));
  if (result.kind == Kind::no_rows_matched)
    return aggregate_no_row_phrase(table, check.where) +
           (check.op == Aggregate::count ? ", so the count is 0"
                                         : ", so there is no " + op_name + " to state but that of nothing") +
           "; check which rows were meant";
  std::string computed = aggregate_computed_phrase(check, table, result, shown);
  switch (result.kind) {
    case Kind::not_a_number:
      return "expected a number, got " + std::string(type_name(*said)) + "; " + computed;
    case Kind::not_whole:
      return "expected a whole number (a count), got " + said_text + "; " + computed;
    case Kind::off:
      break;
    default:
      return computed;  // unstated: the number the field should hold
  }
  std::string out = computed + "; off by " + aggregate_off_by(result.stated, *result.truth);
  if (result.unweighted)
    out += "; the stated number is the unweighted " + op_name + ", " + aggregate_show(*result.unweighted) +
           ", not weighted by " + quote(check.weight_column);
  if (!result.hint.empty()) out += "; " + result.hint;
  return out;
}

GROUNDPLANE_INLINE Finding aggregate_finding(const aggregate_reconciles& check, const Table& table,
                                             const nlohmann::json* said, const AggregateResult& result) {
  Finding f = finding_about(aggregate_reconciles::check_name, check.field, table);
  if (said != nullptr) f.said = detail::render(*said);
  if (!result.truth) {
    f.detail = aggregate_refusal(check, table, result);
    return f;
  }
  // Filtered to no rows, the claim is not coached toward the empty aggregate: no number is named.
  const std::string shown = aggregate_show(*result.truth);
  if (result.kind != AggregateResult::Kind::no_rows_matched) f.supported = shown;
  f.detail = aggregate_mismatch(check, table, said, result, shown, f.said);
  return f;
}

}  // namespace detail

}  // namespace groundplane
