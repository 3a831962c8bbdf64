// gp::aggregate_reconciles — a stated sum, mean, count, min, max or median is recomputed
// exactly over the recorded rows of a Table.
//
//   gp::aggregate_reconciles{.fact = "orders", .field = "north_revenue",
//                            .op = gp::Aggregate::sum, .column = "amount",
//                            .where = {{"region", "north"}}}
//
// What is computed, over the rows whose cells equal every `where` value (numbers by
// value, so 7 matches 7.0; strings exactly; null matches a cell holding null, not a row
// without the column):
//   sum, min, max   exact Decimals; a sum over no rows is 0.
//   mean            sum / count as an exact quotient, never a floating division.
//   median          the middle value; for an even count the mean of the middle two,
//                   exact (the median of 1, 2, 3, 4 is 2.5).
//   count           the matching rows (SQL's COUNT(*)); with a column, those that have a
//                   value in it (COUNT(column)). A stated count is a whole number equal
//                   to it (3.0 is 3), whatever the tolerance or rounding.
// With weight_column (mean or sum): the weighted mean Σ(w·v)/Σw or the weighted sum
// Σ(w·v), exact — revenue from a price and a units column, no product ever computed in
// floating point. When a stated number misses the weighted value but is the unweighted
// one, the detail says so.
//
// When no number can be computed, the finding says why and prints no number:
//  - a table whose complete() is false is refused: the rows recorded are part of the
//    source, and a sum over part of a table is not a sum;
//  - a matching row with no value (missing or null) in the column: an aggregate over the
//    rest is not a fact either (every op but count) — unless on_missing is
//    OnMissing::skip, which aggregates the rows that have one and puts a warning on the
//    verdict saying how many were left out;
//  - a mean, median, min or max over no values, or a weighted mean whose weights sum to
//    0, has no value.
// A cell that is not a number (say the string 'n/a') in the column, or a weight that is
// missing, not a number, or negative for a mean, is the data's fault, not the model's: a
// ConfigurationError naming the fact, the column and the row, when the boundary is
// built. A wrong number's detail says by how much ("off by +490").
//
// A truncated table reads:
//   unsupported claim in field 'total': model said 9000
//   | fact='orders'
//   | provenance=warehouse.query(table='orders', limit=2)
//   | 2 of 2,000 rows recorded; a sum over part of a table is not a sum
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/wording.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane {

enum class Aggregate { sum, mean, count, min, max, median };

namespace detail {
inline constexpr EnumName<Aggregate> aggregate_names[] = {{Aggregate::sum, "sum"},     {Aggregate::mean, "mean"},
                                                          {Aggregate::count, "count"}, {Aggregate::min, "min"},
                                                          {Aggregate::max, "max"},     {Aggregate::median, "median"}};
template <>
inline constexpr std::span<const EnumName<Aggregate>> enum_table<Aggregate> = aggregate_names;
}  // namespace detail
inline std::string_view to_string(Aggregate op) noexcept { return detail::name_of(op); }

struct aggregate_reconciles;

namespace detail {

// How aggregate_reconciles reached its number, kept as the numbers themselves: the words
// ("(= 31.5 / 3)") are written only for a finding.
struct AggregateHow {
  enum class Kind { plain, quotient, middle_two, weighted_sum, weighted_mean };
  Kind kind = Kind::plain;
  Decimal first;          // quotient: the sum; middle_two: the lower; weighted_mean: Σ(w·v)
  Decimal second;         // middle_two: the upper; weighted_mean: Σw
  std::size_t count = 0;  // quotient: how many numbers were summed

  static AggregateHow quotient(Decimal sum, std::size_t count) {
    return {Kind::quotient, std::move(sum), Decimal(), count};
  }
  static AggregateHow middle_two(Decimal lower, Decimal upper) {
    return {Kind::middle_two, std::move(lower), std::move(upper), 0};
  }
  static AggregateHow weighted_sum() { return {Kind::weighted_sum, Decimal(), Decimal(), 0}; }
  static AggregateHow weighted_mean(Decimal products, Decimal weights) {
    return {Kind::weighted_mean, std::move(products), std::move(weights), 0};
  }
};

// What aggregate_reconciles found for one claim: whether it holds and, when it does not,
// why, with the counts and numbers a finding names. Plain data: a claim is classified
// without building a string, and aggregate_finding words the result only when it fails.
struct AggregateResult {
  enum class Kind {
    holds,
    partial_table,    // complete() is false: nothing is computed
    non_numeric,      // a matching row holds something other than a number in the column
    missing_values,   // a matching row has no value in the column (OnMissing::refuse)
    zero_weights,     // a weighted mean whose weights sum to 0
    no_value,         // a mean, median, min or max over no values
    unstated,         // the output has no such field
    not_a_number,     // the value stated is not a number
    not_whole,        // a count stated with a fraction part
    no_rows_matched,  // `where` matches no row, and the number stated is not that of nothing
    off,              // the number stated is wrong
  };
  Kind kind = Kind::holds;
  std::size_t matched = 0;      // rows passing `where`
  std::size_t missing = 0;      // of those, rows with no value in the column
  std::size_t non_numeric = 0;  // of those, rows holding something other than a number
  std::size_t numbers = 0;      // of those, the numbers
  nlohmann::json first_non_numeric;
  std::optional<Rational> truth;  // the computed value, whenever there is one
  AggregateHow how;
  Decimal stated;                      // off: the number stated
  std::optional<Rational> unweighted;  // off: the unweighted value, when the number stated is it
  std::string hint;                    // off: what Rounding::as_stated would accept (NumberMatch::hint)
};

// " where 'region' is 'north' and 'channel' is 'paid'", or "" without a filter.
std::string aggregate_where_phrase(const nlohmann::json& where);

// "3 rows where 'region' is 'north'", "1 row".
std::string aggregate_rows_phrase(std::size_t n, const nlohmann::json& where);

// "no recorded row has 'region' = 'nroth' (closest: 'north')": each condition
// that no row meets, with the closest recorded value of a text column.
std::string aggregate_no_row_phrase(const Table& table, const nlohmann::json& where);

// Levenshtein distance in bytes, for the closest recorded value; short values only.
std::size_t aggregate_edit_distance(std::string_view a, std::string_view b);

// The exact value when it terminates, else its first digits and "…".
std::string aggregate_show(const Rational& r);

// The stated number off the truth, signed: "+490".
std::string aggregate_off_by(const Decimal& stated, const Rational& truth);

// "only numbers and strings", "no values at all": what kinds of cell a column holds.
std::string held_kinds(const Column& column);

}  // namespace detail

struct aggregate_reconciles {
  std::string fact;         // a Table
  std::string field;        // where the stated number is
  Aggregate op{};           // API.md gives no default: name it. Value-initialised (sum), never indeterminate.
  std::string column = "";  // for count: COUNT(column), the rows with a value in it; "" = every row
  nlohmann::json where = nlohmann::json::object();  // equality filter {column: value}
  Tolerance tolerance{};                            // not for count: a count is exact
  Rounding rounding = Rounding::exact;              // not for count
  std::string weight_column = "";                   // mean or sum: weighted by this column
  // A matching row with no value in `column`: refuse (a finding), or skip it (a warning).
  OnMissing on_missing = OnMissing::refuse;

  static constexpr const char* check_name = "aggregate_reconciles";

  std::vector<std::string> leans_on() const { return {fact}; }

  // The output fields it reads (Boundary::stream runs it once they have closed; prose
  // slots over them count as checked).
  std::vector<std::string> reads() const { return {field}; }

  // aggregate_reconciles(fact='orders', field='total')
  std::string name() const;

  // Under OnMissing::skip: how many matching rows had no value and were left out.
  std::vector<std::string> warnings(const FactRegistry& registry) const;

  void validate(const FactRegistry& registry) const;

  void describe(const FactRegistry&, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

 private:
  struct Selection {
    std::size_t matched = 0;      // rows passing `where`
    std::size_t missing = 0;      // of those, rows with no value in the column
    std::size_t non_numeric = 0;  // of those, rows holding something other than a number
    nlohmann::json first_non_numeric;
    std::size_t numbers = 0;  // of those, the numbers
    // The numbers: as Decimals in row order, or (`scaled`) as the column's scaled
    // words, summarised as the operation needs.
    std::vector<Decimal> values;
    bool scaled = false;
    std::int32_t scale = 0;
    Decimal sum;
    std::int64_t lowest = 0, highest = 0;
    std::vector<std::int64_t> words;  // a median's
    // Every row, no `where`: what the table derived from the column once, for every claim.
    const detail::ColumnNumbers* whole = nullptr;
    const detail::ColumnMedian* whole_median = nullptr;
  };

  // One `where` condition, compiled against the table's storage.
  struct Condition {
    enum class Test { never, always, tag, json_null, text, word, number, json };
    const detail::Column* column = nullptr;
    Test test = Test::never;
    detail::CellTag tag = detail::CellTag::null;
    std::int64_t word = 0;
    std::optional<Decimal> number;
    const nlohmann::json* want = nullptr;

    bool operator()(std::size_t row) const {
      switch (test) {
        case Test::never:
          return false;
        case Test::always:
          return true;
        case Test::tag:
          return column->tags[row] == tag;
        case Test::json_null:
          return std::binary_search(column->json_nulls.begin(), column->json_nulls.end(), row);
        case Test::text:
          return column->tags[row] == detail::CellTag::string && column->words[row] == word;
        case Test::word: {
          const detail::CellTag t = column->tags[row];
          if (detail::is_inline_number(t)) return column->words[row] == word;
          return t == detail::CellTag::big && column->number(row) == *number;
        }
        case Test::number:
          return detail::is_number(column->tags[row]) && column->number(row) == *number;
        case Test::json:
          return detail::same_json(column->json(row), *want);
      }
      return false;
    }
  };

  // A cell equals a `where` value: numbers by value, everything else by type and value
  // (a column the table lacks holds only nulls).
  static Condition compile(const Table& table, const std::string& name, const nlohmann::json& want);

  struct Truth {
    detail::Rational value;
    detail::AggregateHow how;  // worded "(= 1 / 3)", "(the mean of the middle two, 2 and 3)", or ""
  };

  static std::string known_columns(const Table& table);

  // ConfigurationError for one `where` condition: a column the table lacks, a value that
  // is not a scalar, or one of a type the column never holds.
  void validate_condition(const Table& table, const std::string& name, const nlohmann::json& value,
                          bool checkable) const;

  // Whether `where` names any condition.
  bool filtered() const { return where.is_object() && !where.empty(); }

  // What the stated number is meant to be, for the schema.
  std::string subject() const;

  // Narrows `mask` (one byte per row, 1 = still matching) to the rows this condition
  // accepts. The common tests are branch-free passes over one or two arrays.
  static void narrow(const Condition& c, std::vector<std::uint8_t>& mask);

  // The rows passing `where`, one byte each; empty when there is no condition to test.
  std::vector<std::uint8_t> matching(const Table& table) const;

  Selection select(const Table& table) const;
  // The ways select reads the rows: counting them (and those without a value); every row
  // from the column's summary; the matching numbers as Decimals; or, every cell a number
  // or null at one scale, summed and compared as 64-bit words.
  Selection select_count(const Table& table, const std::vector<std::uint8_t>& mask,
                         std::optional<std::size_t> at) const;
  Selection select_whole(const Table& table, std::size_t at) const;
  static Selection select_values(const detail::Column& col, const std::vector<std::uint8_t>& mask);
  Selection select_scaled(const detail::Column& col, const std::vector<std::uint8_t>& mask) const;
  // The rows a mask lets through.
  static std::size_t count_matched(const std::vector<std::uint8_t>& mask);

  // The weighted sum Σ(w·v) and total weight Σw over the matching rows with a value.
  struct Weighted {
    Decimal products;
    Decimal weights;
  };
  Weighted weighted(const Table& table) const;
  // The weighted sum or mean, with the unweighted value beside it; nullopt for a mean
  // whose weights sum to 0.
  std::optional<Truth> weighted_truth(const Table& table, Selection& sel, std::optional<Truth>& unweighted) const;

  // ConfigurationError for a matching row whose value is not a number, or whose weight
  // is missing, not a number, or negative for a mean.
  void validate_cells(const Table& table) const;

  // The aggregate of the whole column, from the table's summary of it.
  std::optional<Truth> whole_column(const Selection& sel) const;

  // The exact aggregate, or nullopt when it has no value (a mean of nothing).
  std::optional<Truth> compute(Selection& sel) const {  // reorders sel.values / sel.words for a median
    if (op == Aggregate::count) return Truth{detail::Rational(Decimal(sel.matched - sel.missing)), {}};
    if (sel.whole != nullptr || sel.whole_median != nullptr) return whole_column(sel);
    const auto at_scale = [&](std::int64_t w) { return detail::DecimalAccess::from_inline(w, sel.scale); };
    auto& v = sel.values;
    Decimal sum;
    if (sel.scaled) {
      sum = sel.sum;
    } else if (op == Aggregate::sum || op == Aggregate::mean) {
      sum = detail::sum(v);
    }
    if (op == Aggregate::sum) return Truth{detail::Rational(sum), {}};
    if (sel.numbers == 0) return std::nullopt;
    switch (op) {
      case Aggregate::mean:
        return Truth{detail::Rational(sum, Decimal(sel.numbers)), detail::AggregateHow::quotient(sum, sel.numbers)};
      case Aggregate::min:
        return Truth{detail::Rational(sel.scaled ? at_scale(sel.lowest) : *std::min_element(v.begin(), v.end())), {}};
      case Aggregate::max:
        return Truth{detail::Rational(sel.scaled ? at_scale(sel.highest) : *std::max_element(v.begin(), v.end())), {}};
      case Aggregate::median: {
        const std::size_t mid = sel.numbers / 2;
        Decimal upper, lower;
        if (sel.scaled) {
          auto& w = sel.words;
          std::nth_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(mid), w.end());
          upper = at_scale(w[mid]);
          if (sel.numbers % 2 == 0)
            lower = at_scale(*std::max_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(mid)));
        } else {
          std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
          upper = v[mid];
          if (sel.numbers % 2 == 0) lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
        }
        if (sel.numbers % 2 == 1) return Truth{detail::Rational(upper), {}};
        return Truth{detail::Rational(lower + upper, Decimal(2)), detail::AggregateHow::middle_two(lower, upper)};
      }
      default:
        return std::nullopt;  // sum and count handled above
    }
  }

  // What the claim is found to be, before a word of it is written (detail::aggregate_finding).
  detail::AggregateResult classify(const Table& table, const nlohmann::json* said) const;
  // The stated number against the computed one (result.truth), into `result`.
  void judge_stated(const nlohmann::json* said, const std::optional<Truth>& unweighted,
                    detail::AggregateResult& result) const;
};

namespace detail {

// "(= 31.5 / 3)", "(the mean of the middle two, 2 and 3)", or "".
std::string aggregate_how_phrase(const aggregate_reconciles& check, const AggregateHow& how);

// "computed sum of 'amount' over 3 rows where 'region' is 'north' is 10.5; 1 row has no 'amount'"
std::string aggregate_computed_phrase(const aggregate_reconciles& check, const Table& table,
                                      const AggregateResult& result, const std::string& shown);

// The detail of a claim refused before a number could be computed, or with none to compute.
std::string aggregate_refusal(const aggregate_reconciles& check, const Table& table, const AggregateResult& result);

// The detail of a claim against the number computed; `shown` is that number, `said_text`
// the value stated, both rendered.
std::string aggregate_mismatch(const aggregate_reconciles& check, const Table& table, const nlohmann::json* said,
                               const AggregateResult& result, const std::string& shown, const std::string& said_text);

// The finding for a claim that does not hold.
Finding aggregate_finding(const aggregate_reconciles& check, const Table& table, const nlohmann::json* said,
                          const AggregateResult& result);

}  // namespace detail

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/aggregate_reconciles-inl.hpp"
#endif
