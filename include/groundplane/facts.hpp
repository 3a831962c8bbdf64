// The four fact types — Fact, Ranking, Table, Domain — and the provenance each carries.
//
// A fact is immutable once constructed: every member is set by its constructor, which
// validates the data (throwing InvalidFact) and computes what the checks will ask for,
// so the cost is paid once at record time. A changed value is a new fact under a new
// name; nothing here can be modified after the fact exists. (A Table keeps what the checks
// derive from its columns — the rankings read from them, their sums, extremes, medians and
// key indexes — each computed on first use, once: detail/facts/column_summary.hpp.)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/facts/column.hpp"
#include "groundplane/detail/facts/column_summary.hpp"
#include "groundplane/detail/facts/string_index.hpp"
#include "groundplane/detail/json/json_depth.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/numbers/float_decimal.hpp"
#include "groundplane/detail/text/enum_names.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/unicode.hpp"
#include "groundplane/entity.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/render.hpp"
#include "groundplane/tool_args.hpp"

namespace groundplane {

// The tool call that produced a fact.
struct Provenance {
  std::string tool;
  ToolArgs args = {};  // the call's arguments, in the caller's order

  // warehouse.query(table='campaign_daily', window='7d') — tool and keys escaped,
  // values rendered (strings quoted, numbers in Decimal form), each value capped.
  std::string render() const;

  friend bool operator==(const Provenance&, const Provenance&) = default;
};

enum class FactKind { fact, ranking, table, domain };
enum class Direction { higher_is_better, lower_is_better };
// A row a ranking or an aggregate would read has no value (missing, or null) in the
// column: refuse to compute from the rest, or skip it with a warning on the verdict.
enum class OnMissing { refuse, skip };

namespace detail {
inline constexpr EnumName<FactKind> fact_kind_names[] = {
    {FactKind::fact, "fact"}, {FactKind::ranking, "ranking"}, {FactKind::table, "table"}, {FactKind::domain, "domain"}};
template <>
inline constexpr std::span<const EnumName<FactKind>> enum_table<FactKind> = fact_kind_names;
inline constexpr EnumName<Direction> direction_names[] = {{Direction::higher_is_better, "higher_is_better"},
                                                          {Direction::lower_is_better, "lower_is_better"}};
template <>
inline constexpr std::span<const EnumName<Direction>> enum_table<Direction> = direction_names;
inline constexpr EnumName<OnMissing> on_missing_names[] = {{OnMissing::refuse, "refuse"}, {OnMissing::skip, "skip"}};
template <>
inline constexpr std::span<const EnumName<OnMissing>> enum_table<OnMissing> = on_missing_names;
}  // namespace detail

inline std::string_view to_string(FactKind k) noexcept { return detail::name_of(k); }
inline std::string_view to_string(Direction d) noexcept { return detail::name_of(d); }
inline std::string_view to_string(OnMissing m) noexcept { return detail::name_of(m); }

// One entry's score in a Scores list: a Decimal in every way. A non-finite double
// (NaN, ±infinity) is held unconverted instead of throwing where the list is written
// ({{"north", NAN}}), so that record_ranking can refuse it naming the fact and the
// entity (InvalidFact) rather than a bare InvalidNumber with no context.
class Score : public Decimal {
 public:
  Score() = default;
  Score(const Decimal& d) : Decimal(d) {}
  Score(Decimal&& d) noexcept : Decimal(std::move(d)) {}
  Score(double v) : Decimal(std::isfinite(v) ? Decimal(v) : Decimal()), non_finite_(!std::isfinite(v)), raw_(v) {}
  Score(float v) : Score(static_cast<double>(v)) {}
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool> && std::is_constructible_v<Decimal, I>) Score(I v)
      : Decimal(v) {}

  bool finite() const noexcept { return !non_finite_; }
  // What a non-finite score was written as: "NaN", "infinity" or "-infinity".
  std::string_view non_finite_name() const noexcept;

 private:
  bool non_finite_ = false;
  double raw_ = 0;
};

using Scores = std::vector<std::pair<Entity, Score>>;

namespace detail {

// Hash and equality that let unordered containers keyed by std::string be searched
// with a std::string_view without building a string.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using StringIndex = std::unordered_map<std::string, std::size_t, StringHash, std::equal_to<>>;

// The text of the i-th entity of a list held elsewhere (a Domain's members, a
// Ranking's entries).
struct MemberAt {
  const std::vector<Entity>* names;
  std::string_view operator()(NameIndex::Id i) const noexcept { return (*names)[i].text(); }
};
struct EntityAt {
  const std::vector<std::pair<Entity, Score>>* scores;
  std::string_view operator()(NameIndex::Id i) const noexcept { return (*scores)[i].first.text(); }
};

// Entities by type and value: string entities and integer entities are indexed apart
// (by text and by digits), so "101" never finds 101.
class EntityIndex {
 public:
  void reserve(std::size_t strings, std::size_t integers) {
    strings_.reserve(strings);
    integers_.reserve(integers);
  }
  // Indexes entity `id` (key_of(id) its text); the id of an equal entity already
  // indexed, or nullopt.
  template <class KeyOf>
  std::optional<NameIndex::Id> insert(NameIndex::Id id, bool integer, KeyOf&& key_of) {
    return (integer ? integers_ : strings_).insert(id, std::forward<KeyOf>(key_of));
  }
  template <class KeyOf>
  std::optional<NameIndex::Id> find(const Entity& e, KeyOf&& key_of) const {
    return (e.is_integer() ? integers_ : strings_).find(e.text(), std::forward<KeyOf>(key_of));
  }
  // The entity a JSON value names, type-strict (Entity::from_json): a string finds a
  // string entity, an integer an integer one; 101.0, true or "101" for 101 find none.
  template <class KeyOf>
  std::optional<NameIndex::Id> find_json(const nlohmann::json& said, KeyOf&& key_of) const {
    if (said.is_string()) return strings_.find(said.get_ref<const std::string&>(), std::forward<KeyOf>(key_of));
    if (said.is_number_unsigned())
      return integers_.find(std::to_string(said.get<std::uint64_t>()), std::forward<KeyOf>(key_of));
    if (said.is_number_integer())
      return integers_.find(std::to_string(said.get<std::int64_t>()), std::forward<KeyOf>(key_of));
    return std::nullopt;
  }

 private:
  NameIndex strings_;
  NameIndex integers_;
};

// Names compared ignoring case (NFC + simple case folding, detail/text/unicode.hpp): the
// folded form of each string entity of a fact, built on first use, once.
struct FoldedNames {
  std::once_flag once;
  std::unordered_map<std::string, std::size_t> first;  // folded text -> first position holding it
};

// The position of the string entity (of `count`, text_of(i) each) whose folded form is
// `name`'s; built into `cache` on first use.
template <class TextOf>
std::optional<std::size_t> find_folded(FoldedNames& cache, std::size_t count, TextOf&& text_of, std::string_view name);

// A cell or a stated value as a row key: type-tagged, numbers in Decimal form so that
// 7 and 7.0 are one key; nullopt for values that cannot key a row. (A key column
// refuses 7 and 7.0 as one value twice; a lookup then also requires the same kind of
// number: see Table::row_of.)
std::optional<std::string> row_key(const nlohmann::json& v);

// A JSON number written as an integer (101) rather than with a fraction or an exponent.
inline bool is_integer_json(const nlohmann::json& v) noexcept {
  return v.is_number_integer() || v.is_number_unsigned();
}

std::string_view non_finite_name(double v) noexcept;

[[noreturn]] inline void refuse(std::string_view name, std::string_view what) {
  throw InvalidFact("cannot record fact " + quote(name) + ": " + std::string(what));
}

void validate_header(std::string_view name, const Provenance& p);

// A table's columns for a message: 'a', 'b' and 'c' (at most 20, then a count).
std::string column_list(const std::vector<std::string>& columns);

// "/rows/0/score" for the first non-finite number inside a value; nullopt when none.
std::optional<std::string> non_finite_at(const nlohmann::json& v, const std::string& at = "");

// A recorded value (a Fact's, a table cell, a provenance argument) nested deeper than
// max_value_depth (detail/json/json_depth.hpp) is refused before anything copies or walks it.
inline std::string too_deep_text() {
  return "nested deeper than " + std::to_string(max_value_depth) + " arrays/objects";
}

}  // namespace detail

// One recorded value: a number, a string, a bool, null, an array or an object — what a
// tool returned. A non-finite number anywhere in it is refused (InvalidFact).
class Fact {
 public:
  Fact(std::string name, nlohmann::json value, Provenance provenance);
  const std::string& name() const noexcept { return name_; }
  const Provenance& provenance() const noexcept { return provenance_; }
  const nlohmann::json& value() const noexcept { return value_; }

 private:
  std::string name_;
  nlohmann::json value_;
  Provenance provenance_;
};

// Entity -> score for one measured quantity, with the order, competition ranks and an
// entity index computed once at record time.
class Ranking {
 public:
  Ranking(std::string name, Scores scores, std::string key, Direction direction, Provenance provenance);

  const std::string& name() const noexcept { return name_; }
  const Provenance& provenance() const noexcept { return provenance_; }
  const std::string& key() const noexcept { return key_; }
  Direction direction() const noexcept { return direction_; }
  const Scores& scores() const noexcept { return scores_; }
  std::size_t size() const noexcept { return scores_.size(); }
  // How many of the entities are integers (the rest are strings), counted when recorded.
  std::size_t integer_entities() const noexcept { return integer_entities_; }
  // Entities, best first; ties keep recorded order.
  const std::vector<Entity>& order() const noexcept { return order_; }
  bool contains(const Entity& entity) const { return index_.find(entity, entity_at()).has_value(); }
  // 1-based competition rank ("1224"); 0 when the entity was not ranked.
  std::size_t rank_of(const Entity& entity) const {
    const auto i = index_.find(entity, entity_at());
    return i ? rank_[*i] : 0;
  }
  // The recorded score; std::nullopt when the entity was not ranked.
  std::optional<Decimal> score_of(const Entity& entity) const {
    const auto i = index_.find(entity, entity_at());
    if (!i) return std::nullopt;
    return scores_[*i].second;
  }
  // The score at 0-based position `pos` of order().
  const Decimal& score_at(std::size_t pos) const { return scores_[by_rank_.at(pos)].second; }
  // The competition rank of the entity at 0-based position `pos` of order().
  std::size_t rank_at(std::size_t pos) const { return rank_[by_rank_.at(pos)]; }
  // 0-based position of the entity in order(); std::nullopt when not ranked.
  std::optional<std::size_t> position_of(const Entity& entity) const {
    const auto i = index_.find(entity, entity_at());
    if (!i) return std::nullopt;
    return position_[*i];
  }
  // The position in order() of the entity a JSON value names, type-strict: a string
  // names a string entity, an integer an integer one; anything else ("101" for 101,
  // 101.0, true, null) names none.
  std::optional<std::size_t> locate(const nlohmann::json& said) const {
    const auto i = index_.find_json(said, entity_at());
    if (!i) return std::nullopt;
    return position_[*i];
  }
  // The position in order() of the string entity equal to `name` after Unicode NFC
  // normalization and simple case folding ("Harbour", "HARBOUR" find "harbour");
  // computed for the whole ranking once, on first use. Integer entities are never found.
  std::optional<std::size_t> locate_ignoring_case(std::string_view name) const {
    return detail::find_folded(
        *folded_, order_.size(),
        [this](std::size_t i) -> std::optional<std::string_view> {
          if (order_[i].is_integer()) return std::nullopt;
          return std::string_view(order_[i].text());
        },
        name);
  }
  // How many entities share the score at order() position `pos` (the tie block's size),
  // and where that block starts.
  // O(log n): order() is sorted by score, so the block is found by bisection.
  std::pair<std::size_t, std::size_t> tie_block_at(std::size_t pos) const {
    const Decimal& s = score_at(pos);
    const std::size_t first = first_not_better_than(s, 0, pos);
    std::size_t lo = pos + 1, hi = order_.size();  // first position scoring worse than s
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (better(s, score_at(mid))) hi = mid;
      else lo = mid + 1;
    }
    return {first, lo - first};
  }
  // The first position of order() other than `except` whose score equals `score`;
  // std::nullopt when no other entity has it. O(log n).
  std::optional<std::size_t> other_with_score(const Decimal& score, std::size_t except) const {
    std::size_t pos = first_not_better_than(score, 0, order_.size());
    if (pos == except) ++pos;
    if (pos < order_.size() && score_at(pos) == score) return pos;
    return std::nullopt;
  }
  // a ranks strictly ahead of b by this ranking's direction.
  bool better(const Decimal& a, const Decimal& b) const {
    return direction_ == Direction::higher_is_better ? a > b : a < b;
  }

 private:
  detail::EntityAt entity_at() const noexcept { return {&scores_}; }

  // The first position in [lo, hi) whose score is not better than s.
  std::size_t first_not_better_than(const Decimal& s, std::size_t lo, std::size_t hi) const {
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (better(score_at(mid), s)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  std::string name_;
  std::string key_;
  Direction direction_;
  Scores scores_;
  Provenance provenance_;
  detail::EntityIndex index_;  // entity -> recorded position
  std::size_t integer_entities_ = 0;
  std::vector<Entity> order_;          // best first
  std::vector<std::size_t> by_rank_;   // position in order_ -> recorded position
  std::vector<std::size_t> position_;  // recorded position -> position in order_
  std::vector<std::size_t> rank_;      // recorded position -> competition rank
  std::shared_ptr<detail::FoldedNames> folded_ = std::make_shared<detail::FoldedNames>();
};

// What a table cell holds.
enum class CellKind { null, number, string, boolean, other };  // other: an array or an object

namespace detail {

// A ranking read from a table's column (Table::ranking_by), and the key-column values of
// the rows it skipped for having no value there (OnMissing::skip).
struct DerivedRanking {
  Ranking ranking;
  std::vector<Entity> skipped;
};

// The rankings a table's columns have been read as, each computed once. Shared by copies
// of the table (they hold the same rows); guarded for readers on many threads.
struct DerivedRankings {
  std::mutex mutex;
  std::map<std::tuple<std::string, Direction, OnMissing>, std::unique_ptr<const DerivedRanking>, std::less<>> cache;
};

}  // namespace detail

// Rows of named columns, stored by column (see detail/facts/column.hpp: numbers packed as
// decimals, strings interned per column), with a hash index on the key column.
class Table {
 public:
  // Rows as nlohmann::json (object keys sorted) or nlohmann::ordered_json (the source's
  // key order kept). columns() lists `listed` first, then the others in first-seen order.
  template <class BasicJson>
  requires nlohmann::detail::is_basic_json<BasicJson>::value Table(std::string name, const BasicJson& rows,
                                                                   std::optional<std::string> key_column,
                                                                   std::optional<std::size_t> total_rows,
                                                                   Provenance provenance,
                                                                   const std::vector<std::string>& listed = {})
      : name_(std::move(name)),
        key_column_(std::move(key_column)),
        total_rows_(total_rows),
        provenance_(std::move(provenance)),
        derived_(std::make_shared<detail::DerivedRankings>()) {
    detail::validate_header(name_, provenance_);
    if (!rows.is_array())
      detail::refuse(name_,
                     "a table's rows must be a JSON array of objects, got " + std::string(detail::type_name(rows)));
    if (detail::nested_deeper_than(rows, detail::max_value_depth + 2))  // the rows, a row, then its cells
      detail::refuse(name_, "a cell is " + detail::too_deep_text());
    row_count_ = rows.size();
    if (row_count_ > detail::StringPool::max_size)
      detail::refuse(name_, "a table holds at most " + std::to_string(detail::StringPool::max_size) + " rows");
    list_columns(listed);
    // Rows usually repeat one key order, so the k-th key is first compared with the
    // column the previous row's k-th key named; the hash lookup is the exception.
    std::vector<std::size_t> column_at;
    std::size_t r = 0;
    for (const auto& row : rows) {
      if (!row.is_object())
        detail::refuse(
            name_, "row " + std::to_string(r) + " must be a JSON object, got " + std::string(detail::type_name(row)));
      std::size_t k = 0;
      for (auto it = row.begin(); it != row.end(); ++it, ++k) {
        const auto& key = it.key();
        std::size_t c = 0;
        if (k < column_at.size() && columns_[column_at[k]] == key) {
          c = column_at[k];
        } else {
          c = column_for(key);
          if (k < column_at.size()) column_at[k] = c;
          else column_at.push_back(c);
        }
        store(data_[c], r, it.value(), key);
      }
      ++r;
    }
    for (auto& column : data_) {
      column.intern_staged();
      column.finish();
    }
    if (total_rows_ && *total_rows_ < row_count_)
      detail::refuse(name_, "total_rows is " + std::to_string(*total_rows_) + " but " + std::to_string(row_count_) +
                                " rows were given");
    if (key_column_) index_key_column();
    summaries_ = std::make_shared<const detail::ColumnSummaries>(columns_.size());
  }

  const std::string& name() const noexcept { return name_; }
  const Provenance& provenance() const noexcept { return provenance_; }
  // Column names: those listed in TableOptions::columns first, then first-seen order.
  const std::vector<std::string>& columns() const noexcept { return columns_; }
  std::size_t row_count() const noexcept { return row_count_; }
  // The cell; null where the row has no such column. Throws std::out_of_range past the
  // last row.
  nlohmann::json value(std::size_t row, std::string_view column) const;
  const std::optional<std::string>& key_column() const noexcept { return key_column_; }
  // How many rows the source had, when the caller said.
  std::optional<std::size_t> total_rows() const noexcept { return total_rows_; }
  // False when the rows recorded are only part of the source.
  bool complete() const noexcept { return !total_rows_ || *total_rows_ <= row_count_; }

  // Position of a column in columns(); std::nullopt when absent.
  std::optional<std::size_t> column_of(std::string_view column) const;

  // Typed reads of one cell by column position (row < row_count(), column <
  // columns().size(); unchecked). None of them builds a JSON value.
  CellKind kind(std::size_t row, std::size_t column) const noexcept;
  bool is_null(std::size_t row, std::size_t column) const noexcept;
  // The number, exactly as Decimal::from_json reads the recorded value; nullopt for
  // any other kind of cell.
  std::optional<Decimal> number(std::size_t row, std::size_t column) const;
  // The string; nullopt for any other kind of cell. Valid as long as the table.
  std::optional<std::string_view> text(std::size_t row, std::size_t column) const noexcept;
  // One cell as JSON (null where absent), as it was recorded.
  nlohmann::json cell(std::size_t row, std::size_t column) const { return data_[column].json(row); }
  // The column's storage, for scans that read it directly (aggregates, lookups).
  const detail::Column& column_data(std::size_t column) const noexcept { return data_[column]; }

  // What the checks derive from a column (column < columns().size()): its numbers' sum,
  // extremes and first non-number; its median; its values as row keys. Each is computed
  // on first use, once per table and column, and kept for the table's lifetime
  // (thread-safe; copies of the table share them): see detail/facts/column_summary.hpp.
  const detail::ColumnNumbers& column_numbers(std::size_t column) const {
    return summaries_->numbers(column, data_[column]);
  }
  const detail::ColumnMedian& column_median(std::size_t column) const {
    return summaries_->median(column, data_[column]);
  }
  const detail::ColumnKeys& column_keys(std::size_t column) const;
  // How many of those have been computed (each one pass over one column), for tests and
  // benchmarks: it stays put however many boundaries and checks read them afterwards.
  std::size_t column_passes() const noexcept { return summaries_->passes(); }

  // The row whose key-column value is `key`, by JSON type and value: an integer finds
  // an integer key, a number with a fraction part or exponent a number written so (7.0
  // does not find 7, nor 7 find 7.0), a string a string; std::nullopt when no row has it
  // or the table has no key column.
  std::optional<std::size_t> row_of(const nlohmann::json& key) const;
  // The same for a string key, without building a JSON value.
  std::optional<std::size_t> row_of_text(std::string_view key) const;

  // The entity the key column names row `row` by (a string or an integer key);
  // std::nullopt without a key column, or for a key of another kind (7.5, true).
  std::optional<Entity> entity_at(std::size_t row) const;

  // The row whose string key equals `name` after NFC normalization and simple case
  // folding (see Ranking::locate_ignoring_case); computed once, on first use.
  std::optional<std::size_t> row_ignoring_case(std::string_view name) const {
    return detail::find_folded(
        *folded_, key_col_ ? row_count_ : 0, [this](std::size_t r) { return text(r, *key_col_); }, name);
  }

  // Every value of one column, one per row in row order (null where a row has none);
  // ConfigurationError for a column the table does not have.
  std::vector<nlohmann::json> column(std::string_view name) const;

  // The rows ranked by `column`, computed in code: a Ranking named like the table, keyed
  // by the column, with the table's provenance, whose entities are the key column's
  // values. A row with no value in the column (missing or null): OnMissing::refuse is a
  // ConfigurationError naming the fact, the column and the rows' keys (the first 10,
  // then a count); OnMissing::skip ranks the others. A cell that is not a number, a key
  // that is not a string or an integer, a table without a key column or a column it
  // does not have: ConfigurationError.
  Ranking to_ranking(std::string_view column, Direction direction = Direction::higher_is_better,
                     OnMissing on_missing = OnMissing::refuse) const;

  // The same derivation, computed once per column, direction and policy and kept for
  // the table's lifetime (thread-safe): what the checks read, with the keys `skip`
  // dropped. Errors as to_ranking.
  const detail::DerivedRanking& ranking_by(std::string_view column, Direction direction, OnMissing on_missing) const;

 private:
  std::size_t column_for(const std::string& key);

  template <class BasicJson>
  void store(detail::Column& c, std::size_t r, const BasicJson& v, const std::string& key) {
    using detail::CellTag;
    using value_t = nlohmann::detail::value_t;
    switch (v.type()) {
      case value_t::null:
        c.json_nulls.push_back(r);
        return;
      case value_t::boolean:
        c.tags[r] = v.template get<bool>() ? CellTag::boolean_true : CellTag::boolean_false;
        ++c.booleans;
        return;
      case value_t::number_integer:
        c.tags[r] = CellTag::integer;
        c.words[r] = static_cast<std::int64_t>(v.template get<typename BasicJson::number_integer_t>());
        ++c.numbers;
        return;
      case value_t::number_unsigned: {
        const auto u = static_cast<std::uint64_t>(v.template get<typename BasicJson::number_unsigned_t>());
        ++c.numbers;
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          c.tags[r] = CellTag::unsigned_int;
          c.words[r] = static_cast<std::int64_t>(u);
        } else {
          c.tags[r] = CellTag::big;
          c.words[r] = static_cast<std::int64_t>(c.side.size());
          c.side.emplace_back(u);
          ++c.bigs;
        }
        return;
      }
      case value_t::number_float: {
        const auto d = static_cast<double>(v.template get<typename BasicJson::number_float_t>());
        check_finite(d, r, key);
        ++c.numbers;
        if (d == 0 && std::signbit(d)) {
          c.tags[r] = CellTag::negative_zero;
          return;
        }
        const auto parts = detail::shortest_decimal(d, c.decimals_hint);
        c.tags[r] = CellTag::floating;
        c.words[r] = parts.coefficient;
        c.exps[r] = static_cast<std::int16_t>(parts.exponent);  // a double's lies within +/-400
        return;
      }
      case value_t::string:
        c.stage(r, v.template get_ref<const typename BasicJson::string_t&>());  // interned after the last row
        return;
      default:
        c.tags[r] = CellTag::other;
        c.words[r] = static_cast<std::int64_t>(c.side.size());
        c.side.emplace_back(v);
        ++c.others;
        return;
    }
  }

  // Creates the listed columns, in order, before any row is read.
  void list_columns(const std::vector<std::string>& listed);

  void check_finite(double d, std::size_t row, const std::string& column) const;

  void index_key_column();

  [[noreturn]] void duplicate_key(const nlohmann::json& v, std::size_t first, std::size_t second) const;

  detail::DerivedRanking derive_ranking(std::string_view column, Direction direction, OnMissing on_missing) const;

  detail::ColumnKeys derive_keys(std::size_t column) const;

  std::string name_;
  std::vector<std::string> columns_;
  detail::StringIndex column_index_;
  std::vector<detail::Column> data_;  // one per column, in columns_ order
  std::size_t row_count_ = 0;
  std::optional<std::string> key_column_;
  std::optional<std::size_t> total_rows_;
  std::optional<std::size_t> key_col_;      // the key column's position, once indexed
  std::vector<std::size_t> key_row_by_id_;  // string key: pool id -> row
  detail::StringIndex key_index_;           // other keys: detail::row_key -> row
  Provenance provenance_;
  std::shared_ptr<detail::DerivedRankings> derived_;
  std::shared_ptr<detail::FoldedNames> folded_ = std::make_shared<detail::FoldedNames>();
  std::shared_ptr<const detail::ColumnSummaries> summaries_;
};

// A recorded set of entities (strings or integers).
class Domain {
 public:
  // `label`: what a member is called in messages ("region": "not one of the 3 recorded
  // regions"); "" for the generic "name".
  Domain(std::string name, std::vector<Entity> members, Provenance provenance, std::string label = "");
  const std::string& name() const noexcept { return name_; }
  const Provenance& provenance() const noexcept { return provenance_; }
  // Members in recorded order.
  const std::vector<Entity>& members() const noexcept { return members_; }
  const std::string& label() const noexcept { return label_; }
  bool contains(const Entity& member) const { return index_.find(member, member_at()).has_value(); }
  // Whether a JSON value names a member, type-strict (see Ranking::locate).
  bool contains_json(const nlohmann::json& said) const { return index_.find_json(said, member_at()).has_value(); }
  // The position in members() of the string member equal to `name` after NFC
  // normalization and simple case folding; computed once, on first use.
  std::optional<std::size_t> locate_ignoring_case(std::string_view name) const {
    return detail::find_folded(
        *folded_, members_.size(),
        [this](std::size_t i) -> std::optional<std::string_view> {
          if (members_[i].is_integer()) return std::nullopt;
          return std::string_view(members_[i].text());
        },
        name);
  }

 private:
  detail::MemberAt member_at() const noexcept { return {&members_}; }

  std::string name_;
  std::vector<Entity> members_;
  Provenance provenance_;
  std::string label_;
  detail::EntityIndex index_;
  std::shared_ptr<detail::FoldedNames> folded_ = std::make_shared<detail::FoldedNames>();
};

namespace detail {
template <class TextOf>
std::optional<std::size_t> find_folded(FoldedNames& cache, std::size_t count, TextOf&& text_of, std::string_view name) {
  std::call_once(cache.once, [&] {
    cache.first.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
      if (const std::optional<std::string_view> t = text_of(i)) cache.first.emplace(folded_nfc(*t), i);
  });
  const auto it = cache.first.find(folded_nfc(name));
  if (it == cache.first.end()) return std::nullopt;
  return it->second;
}
}  // namespace detail

template <class T>
inline constexpr bool is_fact_type_v =
    std::is_same_v<T, Fact> || std::is_same_v<T, Ranking> || std::is_same_v<T, Table> || std::is_same_v<T, Domain>;

template <class T>
requires is_fact_type_v<T>
inline constexpr FactKind fact_kind_of = std::is_same_v<T, Fact>      ? FactKind::fact
                                         : std::is_same_v<T, Ranking> ? FactKind::ranking
                                         : std::is_same_v<T, Table>   ? FactKind::table
                                                                      : FactKind::domain;

namespace detail {

// Whether a check can hold a column name against the table: its columns are known from a
// row or from TableOptions::columns. Only a table with neither names none.
inline bool columns_known(const Table& t) noexcept { return t.row_count() > 0 || !t.columns().empty(); }

// The entities in the tie block at order() position `pos`.
std::vector<Entity> tie_block_names(const Ranking& r, std::size_t pos);

// The view of a fact handed to the model (Boundary::facts(), the MCP list_facts tool):
// kind, provenance and the values — for a Ranking the order computed in code.
nlohmann::json provenance_view(const Provenance& p);

nlohmann::json fact_view(const Fact& f);

// facts() is exact: a number whose shortest double form is exactly its value is a JSON
// number; any other (more digits than a double holds, or past its range) is a JSON
// string of its exact digits, and the object holding it lists that member under
// exact_as_text_key — so a model copying it back (as a number, through submit_json) is
// accepted at zero tolerance.
inline constexpr const char* exact_as_text_key = "exact_as_text";

std::optional<nlohmann::json> exact_number_json(const Decimal& d);

void put_exact(nlohmann::json& object, const std::string& key, const Decimal& d);

nlohmann::json fact_view(const Ranking& r);

nlohmann::json fact_view(const Table& t);

nlohmann::json fact_view(const Domain& d);

}  // namespace detail
}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/facts-inl.hpp"
#endif
