// The bodies of facts.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/facts.hpp"

#include "groundplane/detail/json/json_pointer.hpp"
#include "groundplane/detail/text/wording.hpp"

namespace groundplane {

namespace detail {
GROUNDPLANE_INLINE std::optional<std::string> row_key(const nlohmann::json& v) {
  std::string key;  // appended, not "s" + ...: GCC 12 misreads that at -O3 (-Wrestrict)
  if (v.is_string()) {
    key = 's';
    key += v.get_ref<const std::string&>();
  } else if (v.is_boolean()) {
    key = v.get<bool>() ? "btrue" : "bfalse";
  } else if (const auto d = v.is_number() ? Decimal::from_json(v) : std::nullopt) {
    key = 'n';
    key += d->to_string();
  } else {
    return std::nullopt;
  }
  return key;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::string_view non_finite_name(double v) noexcept {
  return v != v ? "NaN" : (v < 0 ? "-infinity" : "infinity");
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE void validate_header(std::string_view name, const Provenance& p) {
  if (name.empty()) throw InvalidFact("cannot record a fact with an empty name");
  if (p.tool.empty()) refuse(name, "provenance needs the tool that produced it; tool is empty");
  if (!p.args.not_an_object().empty())
    refuse(name,
           "provenance args must be a JSON object of the call's arguments, got " + std::string(p.args.not_an_object()));
  if (p.args.too_deep()) refuse(name, "a provenance argument is " + too_deep_text());
  for (const auto& a : p.args)
    if (nested_deeper_than(a.value, max_value_depth))
      refuse(name, "the provenance argument " + quote(a.key) + " is " + too_deep_text());
  // A key given twice: which value the call had is unknown, so the provenance is refused
  // rather than one of them kept.
  std::vector<std::string_view> keys;
  keys.reserve(p.args.size());
  for (const auto& a : p.args) keys.emplace_back(a.key);
  std::sort(keys.begin(), keys.end());
  if (const auto twice = std::adjacent_find(keys.begin(), keys.end()); twice != keys.end())
    refuse(name, "provenance args name the argument " + quote(*twice) + " twice");
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::vector<Entity> tie_block_names(const Ranking& r, std::size_t pos) {
  const auto [first, count] = r.tie_block_at(pos);
  return {r.order().begin() + static_cast<std::ptrdiff_t>(first),
          r.order().begin() + static_cast<std::ptrdiff_t>(first + count)};
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE nlohmann::json provenance_view(const Provenance& p) {
  return {{"tool", p.tool}, {"args", p.args.to_json()}};
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE nlohmann::json fact_view(const Fact& f) {
  return {{"kind", "fact"}, {"provenance", provenance_view(f.provenance())}, {"value", f.value()}};
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::optional<nlohmann::json> exact_number_json(const Decimal& d) {
  nlohmann::json j = to_json(d);
  if (j.is_number_integer() || j.is_number_unsigned()) return j;
  const double x = j.get<double>();
  if (std::isfinite(x) && Decimal(x) == d) return j;
  return std::nullopt;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE void put_exact(nlohmann::json& object, const std::string& key, const Decimal& d) {
  if (auto j = exact_number_json(d)) {
    object[key] = std::move(*j);
    return;
  }
  object[key] = d.to_string();
  object[exact_as_text_key].push_back(key);
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE nlohmann::json fact_view(const Ranking& r) {
  nlohmann::json order = nlohmann::json::array();
  for (std::size_t pos = 0; pos < r.order().size(); ++pos) {
    nlohmann::json entry = {{"rank", r.rank_at(pos)}, {"entity", r.order()[pos].to_json()}};
    put_exact(entry, "score", r.score_at(pos));
    order.push_back(std::move(entry));
  }
  return {{"kind", "ranking"},
          {"provenance", provenance_view(r.provenance())},
          {"key", r.key()},
          {"direction", to_string(r.direction())},
          {"order", std::move(order)}};
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE nlohmann::json fact_view(const Table& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t r = 0; r < t.row_count(); ++r) {
    nlohmann::json row = nlohmann::json::object();
    for (std::size_t c = 0; c < t.columns().size(); ++c) {
      if (t.is_null(r, c)) continue;
      if (const auto n = t.number(r, c)) put_exact(row, t.columns()[c], *n);
      else row[t.columns()[c]] = t.cell(r, c);
    }
    rows.push_back(std::move(row));
  }
  nlohmann::json view = {{"kind", "table"},
                         {"provenance", provenance_view(t.provenance())},
                         {"columns", t.columns()},
                         {"rows", std::move(rows)},
                         {"complete", t.complete()}};
  view["key_column"] = t.key_column() ? nlohmann::json(*t.key_column()) : nlohmann::json();
  view["total_rows"] = t.total_rows() ? nlohmann::json(*t.total_rows()) : nlohmann::json();
  return view;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE nlohmann::json fact_view(const Domain& d) {
  nlohmann::json members = nlohmann::json::array();
  for (const auto& m : d.members()) members.push_back(m.to_json());
  nlohmann::json view = {
      {"kind", "domain"}, {"provenance", provenance_view(d.provenance())}, {"members", std::move(members)}};
  if (!d.label().empty()) view["label"] = d.label();
  return view;
}
}  // namespace detail

GROUNDPLANE_INLINE std::string Provenance::render() const {
  std::string out = detail::escape(tool);
  out += '(';
  bool first = true;
  for (const auto& [key, value] : args) {
    if (!first) out += ", ";
    first = false;
    out += detail::escape(key);
    out += '=';
    out += detail::render(value);
  }
  out += ')';
  return out;
}

GROUNDPLANE_INLINE std::string_view Score::non_finite_name() const noexcept {
  return raw_ != raw_ ? "NaN" : (raw_ < 0 ? "-infinity" : "infinity");
}

GROUNDPLANE_INLINE Fact::Fact(std::string name, nlohmann::json value, Provenance provenance)
    : name_(std::move(name)), value_(std::move(value)), provenance_(std::move(provenance)) {
  detail::validate_header(name_, provenance_);
  if (value_.is_binary()) detail::refuse(name_, "a fact's value must be JSON data, got binary data");
  if (detail::nested_deeper_than(value_, detail::max_value_depth))
    detail::refuse(name_, "its value is " + detail::too_deep_text());
  if (const auto at = detail::non_finite_at(value_))
    detail::refuse(name_, (at->empty() ? std::string("its value") : "its value at " + detail::quote(*at)) +
                              " is a non-finite number, which is not a number a claim can be checked against");
}

namespace detail {
GROUNDPLANE_INLINE std::string column_list(const std::vector<std::string>& columns) { return names_listed(columns); }
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::optional<std::string> non_finite_at(const nlohmann::json& v, const std::string& at) {
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) return at;
    return std::nullopt;
  }
  if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (auto found = non_finite_at(v[i], at + "/" + std::to_string(i))) return found;
  } else if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (auto found = non_finite_at(it.value(), at + "/" + pointer_token(it.key()))) return found;
  }
  return std::nullopt;
}
}  // namespace detail

GROUNDPLANE_INLINE Ranking::Ranking(std::string name, Scores scores, std::string key, Direction direction,
                                    Provenance provenance)
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
  std::size_t& integers = integer_entities_;
  for (const auto& entry : scores_) integers += entry.first.is_integer() ? std::size_t{1} : std::size_t{0};
  index_.reserve(scores_.size() - integers, integers);
  for (std::size_t i = 0; i < scores_.size(); ++i) {
    const auto& entity = scores_[i].first;
    if (entity.is_string() && entity.text().empty())
      detail::refuse(name_, "entity #" + std::to_string(i + 1) + " has an empty name");
    if (!scores_[i].second.finite())
      detail::refuse(name_, "entity " + entity.render() + " has the score " +
                                std::string(scores_[i].second.non_finite_name()) +
                                ", which is not a number a ranking can order");
    if (index_.insert(static_cast<detail::NameIndex::Id>(i), entity.is_integer(), entity_at()))
      detail::refuse(name_, "entity " + entity.render() + " appears more than once");
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

GROUNDPLANE_INLINE nlohmann::json Table::value(std::size_t row, std::string_view column) const {
  if (row >= row_count_) throw std::out_of_range("row " + std::to_string(row) + " of " + std::to_string(row_count_));
  const auto c = column_of(column);
  return c ? data_[*c].json(row) : nlohmann::json();
}

GROUNDPLANE_INLINE std::optional<std::size_t> Table::column_of(std::string_view column) const {
  const auto it = column_index_.find(column);
  if (it == column_index_.end()) return std::nullopt;
  return it->second;
}

GROUNDPLANE_INLINE CellKind Table::kind(std::size_t row, std::size_t column) const noexcept {
  switch (data_[column].tags[row]) {
    case detail::CellTag::null:
      return CellKind::null;
    case detail::CellTag::string:
      return CellKind::string;
    case detail::CellTag::boolean_false:
    case detail::CellTag::boolean_true:
      return CellKind::boolean;
    case detail::CellTag::other:
      return CellKind::other;
    default:
      return CellKind::number;
  }
}

GROUNDPLANE_INLINE bool Table::is_null(std::size_t row, std::size_t column) const noexcept {
  return data_[column].tags[row] == detail::CellTag::null;
}

GROUNDPLANE_INLINE std::optional<Decimal> Table::number(std::size_t row, std::size_t column) const {
  const auto& c = data_[column];
  if (!detail::is_number(c.tags[row])) return std::nullopt;
  return c.number(row);
}

GROUNDPLANE_INLINE std::optional<std::string_view> Table::text(std::size_t row, std::size_t column) const noexcept {
  const auto& c = data_[column];
  if (c.tags[row] != detail::CellTag::string) return std::nullopt;
  return c.strings.at(static_cast<detail::StringPool::Id>(c.words[row]));
}

GROUNDPLANE_INLINE std::optional<std::size_t> Table::row_of(const nlohmann::json& key) const {
  if (key.is_string()) return row_of_text(key.get_ref<const std::string&>());
  if (!key_col_) return std::nullopt;
  const auto k = detail::row_key(key);
  if (!k) return std::nullopt;
  const auto it = key_index_.find(*k);
  if (it == key_index_.end()) return std::nullopt;
  // Found by value; a key names its row only written as the same kind of number.
  if (key.is_number() && detail::is_integer_json(key) != detail::is_integer_json(data_[*key_col_].json(it->second)))
    return std::nullopt;
  return it->second;
}

GROUNDPLANE_INLINE std::optional<Entity> Table::entity_at(std::size_t row) const {
  if (!key_col_) return std::nullopt;
  const detail::Column& col = data_[*key_col_];
  if (col.tags[row] == detail::CellTag::string)
    return Entity(col.strings.at(static_cast<detail::StringPool::Id>(col.words[row])));
  if (col.tags[row] == detail::CellTag::integer || col.tags[row] == detail::CellTag::unsigned_int ||
      col.tags[row] == detail::CellTag::big)
    return Entity::from_json(col.json(row));
  return std::nullopt;
}

GROUNDPLANE_INLINE std::vector<nlohmann::json> Table::column(std::string_view name) const {
  const auto c = column_of(name);
  if (!c)
    throw ConfigurationError(
        "table " + detail::quote(name_) + " has no column " + detail::quote(name) +
        (columns_.empty() ? std::string() : " (its columns: " + detail::column_list(columns_) + ")"));
  std::vector<nlohmann::json> out;
  out.reserve(row_count_);
  for (std::size_t r = 0; r < row_count_; ++r) out.push_back(data_[*c].json(r));
  return out;
}

GROUNDPLANE_INLINE const detail::ColumnKeys& Table::column_keys(std::size_t column) const {
  return summaries_->keys(column, [&] { return derive_keys(column); });
}

GROUNDPLANE_INLINE detail::ColumnKeys Table::derive_keys(std::size_t column) const {
  const detail::Column& col = data_[column];
  detail::ColumnKeys out;
  out.by_id.assign(col.strings.size(), detail::ColumnKeys::none);
  const auto refuse = [&](std::string why) {
    if (out.refusal.empty()) out.refusal = std::move(why);  // the first row's problem
  };
  const auto twice = [&](std::size_t first, std::size_t r) {
    refuse("holds " + detail::render(col.json(r)) + " in rows " + std::to_string(first) + " and " + std::to_string(r) +
           "; a key must name one row");
  };
  for (std::size_t r = 0; r < row_count_; ++r) {
    if (col.tags[r] == detail::CellTag::string) {
      detail::ColumnKeys::Row& first = out.by_id[static_cast<std::size_t>(col.words[r])];
      if (first == detail::ColumnKeys::none) first = static_cast<detail::ColumnKeys::Row>(r);
      else twice(first, r);
      continue;
    }
    const nlohmann::json cell = col.json(r);
    const auto k = detail::row_key(cell);
    if (!k) {
      refuse("has no usable key in row " + std::to_string(r) + " (" + std::string(detail::type_name(cell)) + ")");
      continue;
    }
    const auto [it, added] = out.others.emplace(*k, r);
    if (!added) twice(it->second, r);
  }
  return out;
}

GROUNDPLANE_INLINE Ranking Table::to_ranking(std::string_view column, Direction direction, OnMissing on_missing) const {
  return ranking_by(column, direction, on_missing).ranking;
}

GROUNDPLANE_INLINE const detail::DerivedRanking& Table::ranking_by(std::string_view column, Direction direction,
                                                                   OnMissing on_missing) const {
  std::lock_guard lock(derived_->mutex);
  const auto it = derived_->cache.find(std::make_tuple(std::string(column), direction, on_missing));
  if (it != derived_->cache.end()) return *it->second;
  auto made = std::make_unique<const detail::DerivedRanking>(derive_ranking(column, direction, on_missing));
  const detail::DerivedRanking& ref = *made;
  derived_->cache.emplace(std::make_tuple(std::string(column), direction, on_missing), std::move(made));
  return ref;
}

GROUNDPLANE_INLINE detail::DerivedRanking Table::derive_ranking(std::string_view column, Direction direction,
                                                                OnMissing on_missing) const {
  const std::string who = "fact " + detail::quote(name_) + ": ";
  if (!key_col_)
    throw ConfigurationError(who +
                             "a ranking read from a table names its rows by the key column, and this table "
                             "has none; record it with key_column set");
  const auto c = column_of(column);
  if (!c)
    throw ConfigurationError(
        who + "column " + detail::quote(column) + " is not a column of the table" +
        (columns_.empty() ? std::string() : " (its columns: " + detail::column_list(columns_) + ")"));
  const detail::Column& col = data_[*c];
  const auto key_text = [&](std::size_t r) { return detail::render(data_[*key_col_].json(r)); };
  Scores scores;
  scores.reserve(row_count_);
  std::vector<Entity> skipped;
  std::vector<std::string> missing;  // rendered keys, for the refusal
  std::size_t missing_count = 0;
  for (std::size_t r = 0; r < row_count_; ++r) {
    auto entity = entity_at(r);
    if (!entity)
      throw ConfigurationError(who + "row " + std::to_string(r) + " has the key " + key_text(r) + " (" +
                               std::string(detail::type_name(data_[*key_col_].json(r))) + ") in key column " +
                               detail::quote(*key_column_) +
                               "; an entity is a string or an integer, so this table's rows cannot be ranked");
    const detail::CellTag tag = col.tags[r];
    if (tag == detail::CellTag::null) {
      ++missing_count;
      if (missing.size() < 10) missing.push_back(entity->render());
      skipped.push_back(std::move(*entity));
      continue;
    }
    if (!detail::is_number(tag))
      throw ConfigurationError(who + "column " + detail::quote(column) + " row " + entity->render() + " holds " +
                               detail::render(col.json(r)) + " (" + std::string(detail::type_name(col.json(r))) +
                               "), not a number; the rows cannot be ranked by it");
    // A table may key a row by "", a ranking names what it ranks: say so of the table's
    // row rather than let the Ranking refuse an entity the caller never numbered.
    if (entity->is_string() && entity->text().empty())
      throw ConfigurationError(who + "row " + std::to_string(r) + " has the empty string as its key in key column " +
                               detail::quote(*key_column_) + " and a value in " + detail::quote(column) +
                               "; a ranking names every entity it ranks, so this table's rows cannot be ranked");
    scores.emplace_back(std::move(*entity), Score(col.number(r)));
  }
  if (missing_count > 0 && on_missing == OnMissing::refuse) {
    std::string rows;
    for (const auto& m : missing) rows += (rows.empty() ? "" : ", ") + m;
    if (missing_count > missing.size()) rows += " and " + std::to_string(missing_count - missing.size()) + " more";
    throw ConfigurationError(who + "column " + detail::quote(column) + " has no value (missing or null) in " +
                             std::to_string(missing_count) + " of " + std::to_string(row_count_) + " rows: " + rows +
                             "; a ranking of the rest is not the ranking of the table (pass OnMissing::skip to rank "
                             "the rows that have one, with a warning)");
  }
  if (scores.empty())
    throw ConfigurationError(who + "no row has a value in column " + detail::quote(column) +
                             ", so there is nothing to rank");
  if (on_missing == OnMissing::refuse) skipped.clear();
  return {Ranking(name_, std::move(scores), std::string(column), direction, provenance_), std::move(skipped)};
}

GROUNDPLANE_INLINE std::optional<std::size_t> Table::row_of_text(std::string_view key) const {
  if (!key_col_) return std::nullopt;
  const auto id = data_[*key_col_].strings.find(key);
  if (!id) return std::nullopt;
  return key_row_by_id_[*id];
}

GROUNDPLANE_INLINE std::size_t Table::column_for(const std::string& key) {
  if (const auto it = column_index_.find(std::string_view(key)); it != column_index_.end()) return it->second;
  column_index_.emplace(key, columns_.size());
  columns_.push_back(key);
  data_.emplace_back(row_count_);  // null: absent in earlier rows
  return columns_.size() - 1;
}

GROUNDPLANE_INLINE void Table::list_columns(const std::vector<std::string>& listed) {
  for (const auto& column : listed) {
    if (column_index_.find(std::string_view(column)) != column_index_.end())
      detail::refuse(name_, "column " + detail::quote(column) + " is listed twice in columns");
    column_for(column);
  }
}

GROUNDPLANE_INLINE void Table::check_finite(double d, std::size_t row, const std::string& column) const {
  if (d != d || d - d != 0)
    detail::refuse(name_,
                   "row " + std::to_string(row) + " column " + detail::quote(column) + " holds a non-finite number");
}

GROUNDPLANE_INLINE void Table::index_key_column() {
  if (key_column_->empty()) detail::refuse(name_, "key_column is empty");
  const auto c = column_of(*key_column_);
  if (!c && row_count_ > 0)
    detail::refuse(name_, "key column " + detail::quote(*key_column_) + " is missing from every row");
  if (!c) return;
  const detail::Column& col = data_[*c];
  // A column only listed in TableOptions::columns exists with no row holding it.
  if (row_count_ > 0 && col.nulls() == row_count_)
    detail::refuse(name_,
                   "key column " + detail::quote(*key_column_) + " has no value in any row (each is missing or null)");
  constexpr auto unset = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> by_id(col.strings.size(), unset);
  for (std::size_t r = 0; r < row_count_; ++r) {
    const detail::CellTag tag = col.tags[r];
    if (tag == detail::CellTag::string) {
      std::size_t& first = by_id[static_cast<std::size_t>(col.words[r])];
      if (first != unset) duplicate_key(col.json(r), first, r);
      first = r;
      continue;
    }
    const auto v = col.json(r);
    const auto k = detail::row_key(v);
    if (!k)
      detail::refuse(name_, "row " + std::to_string(r) + " has no usable value in key column " +
                                detail::quote(*key_column_) + " (" + std::string(detail::type_name(v)) + ")");
    const auto [it, added] = key_index_.emplace(*k, r);
    if (!added) duplicate_key(v, it->second, r);
  }
  key_row_by_id_ = std::move(by_id);
  key_col_ = c;
}

[[noreturn]] GROUNDPLANE_INLINE void Table::duplicate_key(const nlohmann::json& v, std::size_t first,
                                                          std::size_t second) const {
  detail::refuse(name_, "key column " + detail::quote(*key_column_) + " holds " + detail::render(v) + " in rows " +
                            std::to_string(first) + " and " + std::to_string(second));
}

GROUNDPLANE_INLINE Domain::Domain(std::string name, std::vector<Entity> members, Provenance provenance,
                                  std::string label)
    : name_(std::move(name)),
      members_(std::move(members)),
      provenance_(std::move(provenance)),
      label_(std::move(label)) {
  detail::validate_header(name_, provenance_);
  if (members_.size() > detail::NameIndex::max_size)
    detail::refuse(name_, "a domain holds at most " + std::to_string(detail::NameIndex::max_size) + " members");
  std::size_t integers = 0;
  for (const auto& m : members_) integers += m.is_integer() ? std::size_t{1} : std::size_t{0};
  index_.reserve(members_.size() - integers, integers);
  for (std::size_t i = 0; i < members_.size(); ++i)
    if (index_.insert(static_cast<detail::NameIndex::Id>(i), members_[i].is_integer(), member_at()))
      detail::refuse(name_, "member " + members_[i].render() + " appears more than once");
}

}  // namespace groundplane
