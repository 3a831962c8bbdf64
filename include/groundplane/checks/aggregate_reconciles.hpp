// gp::aggregate_reconciles — a stated sum, mean, count, min, max or median is recomputed
// exactly over the recorded rows of a Table.
//
//   gp::aggregate_reconciles{.fact = "orders", .field = "north_revenue",
//                            .op = gp::Aggregate::sum, .column = "amount",
//                            .where = {{"region", "north"}}}
//
// What is computed, over the rows whose cells equal every `where` value (numbers by
// value, so 7 matches 7.0; strings exactly; null matches an absent cell):
//   sum, min, max   exact Decimals; a sum over no rows is 0.
//   mean            sum / count as an exact quotient, never a floating division.
//   median          the middle value; for an even count the mean of the middle two,
//                   exact (the median of 1, 2, 3, 4 is 2.5).
//   count           the matching rows; with a column, those that have a value in it.
// A row with no value (absent or null) in the column is skipped and counted in the
// explanation ("over 998 rows; 2 rows have no 'amount'").
//
// When no number can be computed, the finding says why and prints no number:
//  - a table whose complete() is false is refused: the rows recorded are part of the
//    source, and a sum over part of a table is not a sum;
//  - a cell that is not a number (say the string 'n/a') in the column: the data, not
//    the model, is at fault, and the finding names the first such cell rather than
//    silently skipping it;
//  - a mean, median, min or max over no values has no value.
//
// A truncated table reads:
//   unsupported claim in field 'total': model said 9000
//   | fact='orders'
//   | provenance=warehouse.query(table='orders', limit=2)
//   | 2 of 2,000 rows recorded; a sum over part of a table is not a sum
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/field.hpp"
#include "groundplane/detail/wording.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane {

enum class Aggregate { sum, mean, count, min, max, median };

// "sum", "mean", "count", "min", "max", "median": the names check_from_json reads.
inline std::string_view to_string(Aggregate op) noexcept {
  switch (op) {
    case Aggregate::sum: return "sum";
    case Aggregate::mean: return "mean";
    case Aggregate::count: return "count";
    case Aggregate::min: return "min";
    case Aggregate::max: return "max";
    case Aggregate::median: return "median";
  }
  return "sum";
}

struct aggregate_reconciles {
  std::string fact;            // a Table
  std::string field;           // where the stated number is
  Aggregate op;
  std::string column = "";     // unused for count
  nlohmann::json where = nlohmann::json::object();  // equality filter {column: value}
  Tolerance tolerance{};
  Rounding rounding = Rounding::exact;

  static constexpr const char* check_name = "aggregate_reconciles";

  std::vector<std::string> leans_on() const { return {fact}; }

  void validate(const FactRegistry& registry) const {
    const auto& table = detail::fact_for<Table>(registry, fact, check_name);
    detail::validate_field(field, check_name, "field");
    detail::validate_tolerance(tolerance, check_name);
    const std::string who = std::string(check_name) + ": ";
    if (op != Aggregate::count && column.empty())
      throw ConfigurationError(who + "a " + std::string(to_string(op)) + " needs a column; set .column");
    // An empty table has no columns to check against; it still reconciles (a sum of 0).
    const bool checkable = table.row_count() > 0;
    if (!column.empty() && checkable && !table.column_of(column))
      throw ConfigurationError(who + "column " + detail::quote(column) + " is not a column of table " +
                               detail::quote(fact) + known_columns(table));
    if (!where.is_object())
      throw ConfigurationError(who + "where must be a JSON object {column: value}, got " +
                               std::string(detail::type_name(where)));
    for (auto it = where.begin(); it != where.end(); ++it) {
      if (checkable && !table.column_of(it.key()))
        throw ConfigurationError(who + "where names column " + detail::quote(it.key()) +
                                 ", which is not a column of table " + detail::quote(fact) + known_columns(table));
      const auto& v = it.value();
      const bool scalar = v.is_string() || v.is_boolean() || v.is_null() || (v.is_number() && Decimal::from_json(v));
      if (!scalar)
        throw ConfigurationError(who + "where value for " + detail::quote(it.key()) +
                                 " must be a string, a finite number, a bool or null, got " +
                                 std::string(detail::type_name(v)));
    }
  }

  void describe(const FactRegistry&, SchemaBuilder& schema) const {
    schema.add(field, {{"type", "number"}, {"description", "the " + subject()}}, true);
  }

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const {
    const auto& table = registry.get<Table>(fact);
    Finding f = detail::finding_about(check_name, field, table);
    const nlohmann::json* said = detail::find_field(output, field);
    if (said != nullptr) f.said = detail::render(*said);

    // Refused before anything is computed, so no number from the part can leak out.
    if (!table.complete()) {
      const std::string op_name(to_string(op));
      f.detail = detail::group_thousands(table.row_count()) + " of " + detail::group_thousands(*table.total_rows()) +
                 " rows recorded; a " + op_name + " over part of a table is not a " + op_name;
      findings.push_back(std::move(f));
      return;
    }

    Selection sel = select(table);
    if (sel.non_numeric > 0) {
      f.detail = "cannot recompute the " + std::string(to_string(op)) + " of " + detail::quote(column) + ": " +
                 detail::group_thousands(sel.non_numeric) + " of the " + rows_phrase(sel.matched) +
                 (sel.non_numeric == 1 ? " holds" : " hold") + " a non-number in it (first: " +
                 detail::render(*sel.first_non_numeric) + ", " +
                 std::string(detail::type_name(*sel.first_non_numeric)) +
                 "); the recorded data must be fixed before this claim can be checked";
      findings.push_back(std::move(f));
      return;
    }

    const auto truth = compute(sel);
    if (!truth) {
      const std::string op_name(to_string(op));
      if (sel.matched == 0 && where_phrase().empty())
        f.detail = "the table has no rows; a " + op_name + " over no rows has no value";
      else if (sel.matched == 0)
        f.detail = "no row matches" + where_phrase() + " (of " + detail::count_of(table.row_count(), "row", "rows") +
                   " recorded); a " + op_name + " over no rows has no value";
      else
        f.detail = "none of the " + rows_phrase(sel.matched) + " has a value in " + detail::quote(column) + "; a " +
                   op_name + " over no values has no value";
      findings.push_back(std::move(f));
      return;
    }
    const std::string shown = show(truth->value);
    f.supported = shown;
    const std::string computed = computed_phrase(table, sel, shown, truth->how);
    if (said == nullptr) {
      f.detail = computed;
      findings.push_back(std::move(f));
      return;
    }
    const auto value = Decimal::from_json(*said);
    if (!value) {
      f.detail = "expected a number, got " + std::string(detail::type_name(*said)) + "; " + computed;
      findings.push_back(std::move(f));
      return;
    }
    const auto match = detail::match_number(*value, truth->value, tolerance, rounding);
    if (match.ok) return;
    f.detail = computed;
    if (!match.hint.empty()) f.detail += "; " + match.hint;
    findings.push_back(std::move(f));
  }

 private:
  struct Selection {
    std::size_t matched = 0;       // rows passing `where`
    std::size_t missing = 0;       // of those, rows with no value in the column
    std::size_t non_numeric = 0;   // of those, rows holding something other than a number
    const nlohmann::json* first_non_numeric = nullptr;
    std::vector<Decimal> values;   // the numbers, in row order
  };

  struct Truth {
    detail::Rational value;
    std::string how;  // "(= 1 / 3)", "(the mean of the middle two, 2 and 3)", or ""
  };

  static std::string known_columns(const Table& table) {
    return table.columns().empty() ? std::string() : " (its columns: " + detail::render_all_of(table.columns()) + ")";
  }

  // " where 'region' is 'north' and 'channel' is 'paid'", or "" without a filter.
  std::string where_phrase() const {
    std::string out;
    if (!where.is_object()) return out;
    for (auto it = where.begin(); it != where.end(); ++it)
      out += (out.empty() ? " where " : " and ") + detail::quote(it.key()) + " is " + detail::render(it.value());
    return out;
  }

  // "3 rows where 'region' is 'north'", "1 row".
  std::string rows_phrase(std::size_t n) const { return detail::count_of(n, "row", "rows") + where_phrase(); }

  // What the stated number is meant to be, for the schema.
  std::string subject() const {
    if (op == Aggregate::count)
      return "count of rows" + (column.empty() ? std::string() : " with a value in '" + column + "'") +
             where_phrase();
    return std::string(to_string(op)) + " of '" + column + "' over the recorded rows" + where_phrase();
  }

  // A cell equals a `where` value: numbers by value, everything else by type and value.
  static bool cell_matches(const nlohmann::json& cell, const nlohmann::json& want,
                           const std::optional<Decimal>& want_number) {
    if (want_number) {
      if (!cell.is_number()) return false;
      const auto d = Decimal::from_json(cell);
      return d && *d == *want_number;
    }
    return cell == want;  // strings, bools, null: nlohmann's equality is by type and value
  }

  Selection select(const Table& table) const {
    struct Condition {
      std::optional<std::size_t> column;
      const nlohmann::json* want;
      std::optional<Decimal> number;
    };
    std::vector<Condition> conditions;
    if (where.is_object())
      for (auto it = where.begin(); it != where.end(); ++it)
        conditions.push_back({table.column_of(it.key()), &it.value(),
                              it.value().is_number() ? Decimal::from_json(it.value()) : std::nullopt});
    const std::optional<std::size_t> col = column.empty() ? std::nullopt : table.column_of(column);
    static const nlohmann::json absent;  // the value of a column the table does not have

    Selection sel;
    for (std::size_t row = 0; row < table.row_count(); ++row) {
      const bool match = std::all_of(conditions.begin(), conditions.end(), [&](const Condition& c) {
        return cell_matches(c.column ? table.cell(row, *c.column) : absent, *c.want, c.number);
      });
      if (!match) continue;
      ++sel.matched;
      if (column.empty()) continue;
      const nlohmann::json& cell = col ? table.cell(row, *col) : absent;
      if (cell.is_null()) {
        ++sel.missing;
        continue;
      }
      if (op == Aggregate::count) continue;
      auto d = Decimal::from_json(cell);
      if (!d) {
        if (sel.non_numeric++ == 0) sel.first_non_numeric = &cell;
        continue;
      }
      sel.values.push_back(std::move(*d));
    }
    return sel;
  }

  // The exact aggregate, or nullopt when it has no value (a mean of nothing).
  std::optional<Truth> compute(Selection& sel) const {  // sorts sel.values for a median
    auto& v = sel.values;
    if (op == Aggregate::count)
      return Truth{detail::Rational(Decimal(sel.matched - sel.missing)), ""};
    Decimal sum;
    for (const auto& x : v) sum += x;
    if (op == Aggregate::sum) return Truth{detail::Rational(sum), ""};
    if (v.empty()) return std::nullopt;
    switch (op) {
      case Aggregate::mean:
        return Truth{detail::Rational(sum, Decimal(v.size())),
                     "(= " + detail::render(sum) + " / " + std::to_string(v.size()) + ")"};
      case Aggregate::min: return Truth{detail::Rational(*std::min_element(v.begin(), v.end())), ""};
      case Aggregate::max: return Truth{detail::Rational(*std::max_element(v.begin(), v.end())), ""};
      case Aggregate::median: {
        std::sort(v.begin(), v.end());
        const std::size_t mid = v.size() / 2;
        if (v.size() % 2 == 1) return Truth{detail::Rational(v[mid]), ""};
        return Truth{detail::Rational(v[mid - 1] + v[mid], Decimal(2)),
                     "(the mean of the middle two, " + detail::render(v[mid - 1]) + " and " + detail::render(v[mid]) +
                         ")"};
      }
      default: return std::nullopt;  // sum and count handled above
    }
  }

  // The exact value when it terminates, else its first digits and "…".
  static std::string show(const detail::Rational& r) {
    if (const auto d = r.exact()) return detail::render(*d);
    return r.to_string();
  }

  // "computed sum of 'amount' over 3 rows where 'region' is 'north' is 10.5; 1 row has no 'amount'"
  std::string computed_phrase(const Table& table, const Selection& sel, const std::string& shown,
                              const std::string& how) const {
    std::string out = "computed ";
    if (op == Aggregate::count) {
      out += "count of rows" + (column.empty() ? std::string() : " with a value in " + detail::quote(column)) +
             where_phrase() + " is " + shown;
      if (!where.empty() || !column.empty())
        out += " (of " + detail::count_of(table.row_count(), "row", "rows") + " recorded)";
      return out;
    }
    out += std::string(to_string(op)) + " of " + detail::quote(column) + " over " +
           rows_phrase(sel.values.size()) + " is " + shown;
    if (!how.empty()) out += " " + how;
    if (sel.missing > 0)
      out += "; " + detail::count_of(sel.missing, "row has", "rows have") + " no " + detail::quote(column);
    return out;
  }
};

}  // namespace groundplane
