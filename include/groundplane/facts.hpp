// The four fact types — Fact, Ranking, Table, Domain — and the provenance each carries.
//
// A fact is immutable once constructed: every member is set by its constructor, which
// validates the data (throwing InvalidFact) and computes what the checks will ask for,
// so the cost is paid once at record time. A changed value is a new fact under a new
// name; nothing here can be modified after the fact exists.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/column.hpp"
#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/float_decimal.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/string_index.hpp"
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

std::string_view to_string(FactKind k) noexcept;

std::string_view to_string(Direction d) noexcept;

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

using Scores = std::vector<std::pair<std::string, Score>>;

namespace detail {

// Hash and equality that let unordered containers keyed by std::string be searched
// with a std::string_view without building a string.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using StringIndex = std::unordered_map<std::string, std::size_t, StringHash, std::equal_to<>>;

// The strings a NameIndex over a Domain's members / a Ranking's entities reads.
struct MemberAt {
  const std::vector<std::string>* names;
  std::string_view operator()(NameIndex::Id i) const noexcept { return (*names)[i]; }
};
struct EntityAt {
  const std::vector<std::pair<std::string, Score>>* scores;
  std::string_view operator()(NameIndex::Id i) const noexcept { return (*scores)[i].first; }
};

// A cell or a stated value as a row key: type-tagged, numbers in Decimal form so that
// 7 and 7.0 are one key; nullopt for values that cannot key a row.
std::optional<std::string> row_key(const nlohmann::json& v);

std::string_view non_finite_name(double v) noexcept;

[[noreturn]] inline void refuse(std::string_view name, std::string_view what) {
  throw InvalidFact("cannot record fact " + quote(name) + ": " + std::string(what));
}

void validate_header(std::string_view name, const Provenance& p);

}  // namespace detail

// One scalar: a number, a string or a bool.
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
  Ranking(std::string name, Scores scores, std::string key, Direction direction, Provenance provenance)
      : name_(std::move(name)),
        key_(std::move(key)),
        direction_(direction),
        scores_(std::move(scores)),
        provenance_(std::move(provenance)) {
    detail::validate_header(name_, provenance_);
    if (key_.empty()) detail::refuse(name_, "a ranking needs the measured quantity as its key; key is empty");
    if (scores_.empty()) detail::refuse(name_, "a ranking needs at least one entity; scores is empty");
    if (scores_.size() > detail::NameIndex::max_size)
      detail::refuse(name_, "a ranking holds at most " + std::to_string(detail::NameIndex::max_size) + " entities");
    index_.reserve(scores_.size());
    for (std::size_t i = 0; i < scores_.size(); ++i) {
      const auto& entity = scores_[i].first;
      if (entity.empty()) detail::refuse(name_, "entity #" + std::to_string(i + 1) + " has an empty name");
      if (!scores_[i].second.finite())
        detail::refuse(name_, "entity " + detail::quote(entity) + " has the score " +
                                  std::string(scores_[i].second.non_finite_name()) +
                                  ", which is not a number a ranking can order");
      if (index_.insert(static_cast<detail::NameIndex::Id>(i), entity_at()))
        detail::refuse(name_, "entity " + detail::quote(entity) + " appears more than once");
    }
    // Best first; a stable sort keeps recorded order inside a tie.
    std::vector<std::size_t>& by_rank = by_rank_;
    by_rank.resize(scores_.size());
    for (std::size_t i = 0; i < by_rank.size(); ++i) by_rank[i] = i;
    std::stable_sort(by_rank.begin(), by_rank.end(),
                     [&](std::size_t a, std::size_t b) { return better(scores_[a].second, scores_[b].second); });
    order_.reserve(by_rank.size());
    position_.assign(scores_.size(), 0);
    rank_.assign(scores_.size(), 0);
    for (std::size_t pos = 0; pos < by_rank.size(); ++pos) {
      const std::size_t i = by_rank[pos];
      order_.push_back(scores_[i].first);
      position_[i] = pos;
      const bool tied_with_previous = pos > 0 && scores_[by_rank[pos - 1]].second == scores_[i].second;
      rank_[i] = tied_with_previous ? rank_[by_rank[pos - 1]] : pos + 1;
    }
  }

  const std::string& name() const noexcept { return name_; }
  const Provenance& provenance() const noexcept { return provenance_; }
  const std::string& key() const noexcept { return key_; }
  Direction direction() const noexcept { return direction_; }
  const Scores& scores() const noexcept { return scores_; }
  std::size_t size() const noexcept { return scores_.size(); }
  // Entity names, best first; ties keep recorded order.
  const std::vector<std::string>& order() const noexcept { return order_; }
  bool contains(std::string_view entity) const { return index_.find(entity, entity_at()).has_value(); }
  // 1-based competition rank ("1224"); 0 when the entity was not ranked.
  std::size_t rank_of(std::string_view entity) const {
    const auto i = index_.find(entity, entity_at());
    return i ? rank_[*i] : 0;
  }
  // The recorded score; std::nullopt when the entity was not ranked.
  std::optional<Decimal> score_of(std::string_view entity) const {
    const auto i = index_.find(entity, entity_at());
    if (!i) return std::nullopt;
    return scores_[*i].second;
  }
  // The score at 0-based position `pos` of order().
  const Decimal& score_at(std::size_t pos) const { return scores_[by_rank_.at(pos)].second; }
  // 0-based position of the entity in order(); std::nullopt when not ranked.
  std::optional<std::size_t> position_of(std::string_view entity) const {
    const auto i = index_.find(entity, entity_at());
    if (!i) return std::nullopt;
    return position_[*i];
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
  detail::NameIndex index_;            // entity -> recorded position
  std::vector<std::string> order_;     // best first
  std::vector<std::size_t> by_rank_;   // position in order_ -> recorded position
  std::vector<std::size_t> position_;  // recorded position -> position in order_
  std::vector<std::size_t> rank_;      // recorded position -> competition rank
};

// What a table cell holds.
enum class CellKind { null, number, string, boolean, other };  // other: an array or an object

// Rows of named columns, stored by column (see detail/column.hpp: numbers packed as
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
        provenance_(std::move(provenance)) {
    detail::validate_header(name_, provenance_);
    if (!rows.is_array())
      detail::refuse(name_,
                     "a table's rows must be a JSON array of objects, got " + std::string(detail::type_name(rows)));
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

  // The row whose key-column value equals `key` (numbers by value: 7 and 7.0 match);
  // std::nullopt when no row has it or the table has no key column.
  std::optional<std::size_t> row_of(const nlohmann::json& key) const;
  // The same for a string key, without building a JSON value.
  std::optional<std::size_t> row_of_text(std::string_view key) const;

 private:
  std::size_t column_for(const std::string& key);

  template <class BasicJson>
  void store(detail::Column& c, std::size_t r, const BasicJson& v, const std::string& key) {
    using detail::CellTag;
    using value_t = nlohmann::detail::value_t;
    switch (v.type()) {
      case value_t::null:
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
};

// A recorded set of entity names.
class Domain {
 public:
  Domain(std::string name, std::vector<std::string> members, Provenance provenance);
  const std::string& name() const noexcept { return name_; }
  const Provenance& provenance() const noexcept { return provenance_; }
  // Members in recorded order.
  const std::vector<std::string>& members() const noexcept { return members_; }
  bool contains(std::string_view member) const { return index_.find(member, member_at()).has_value(); }

 private:
  detail::MemberAt member_at() const noexcept { return {&members_}; }

  std::string name_;
  std::vector<std::string> members_;
  Provenance provenance_;
  detail::NameIndex index_;
};

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
std::vector<std::string> tie_block_names(const Ranking& r, std::size_t pos);

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
