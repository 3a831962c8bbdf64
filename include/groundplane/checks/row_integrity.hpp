// gp::row_integrity — resolve the row the output names first, then read every other
// field it states off that one row.
//
//   gp::row_integrity{.fact = "campaign_daily", .key_field = "campaign",
//                     .fields = {{"ctr", "ctr"}, {"spend", "spend"}}}
//
// A model summarising a table copies real values; the failure is copying the right kind
// of value from the wrong place — the neighbour's ctr, or this row's spend where its ctr
// belongs. Each value in such an answer exists somewhere in the table, so a per-field
// validator passes it; this check does not:
//   unsupported claim in field 'ctr': model said 0.0301, registered facts support 0.0412
//   | fact='campaign_daily'
//   | provenance=warehouse.query(table='campaign_daily', window='7d')
//   | 'north''s 'ctr' is 0.0412; 0.0301 is 'delta''s 'ctr', not 'north''s
//
// `at` is a JSON Pointer to the object (or array of objects) holding the rows; "" is the
// output itself. `key_field` and each mapped output field are read inside each such
// object (a key, or a pointer relative to it); findings point at the exact place
// ("/rows/2/ctr"). A key naming no row is a finding; a mapped field the object does not
// contain is not a claim. Numbers compare exactly unless a Tolerance is set (7 and 7.0
// are equal); everything else compares exactly. Whose value was borrowed is only looked
// up once a value is wrong. Of an array, at most max_listed wrong values are findings,
// then one counts the rest: the others are judged but never spelled out.
#pragma once

#include <cstddef>
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
#include "groundplane/detail/checks/ranked.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/json/json_pointer.hpp"
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

namespace detail {

// Two values state the same thing: numbers by value, everything else exactly.
bool same_value(const nlohmann::json& a, const nlohmann::json& b);

// Where a field read inside the object at `base` is: "" base keeps the field as it was
// configured; otherwise a pointer ("/rows/2" + "ctr" -> "/rows/2/ctr").
std::string field_at(const std::string& base, const std::string& field);

// The JSON type every non-null cell of a column has, for the schema; nullopt when mixed.
std::optional<std::string> column_type(const Table& t, std::size_t column);

// Finds rows by the configured key column: the table's own index, or one built per
// call for another column (strings by their pool id, other keys by row_key).
struct RowResolver {
  const Table& table;
  std::string_view column_name;
  std::optional<std::size_t> column;
  bool own_index;
  // Another column's keys, indexed once by the table for every check that reads by it.
  const detail::ColumnKeys* keys = nullptr;

  RowResolver(const Table& t, const std::string& key_column)
      : table(t),
        column_name(key_column.empty() ? *t.key_column() : key_column),
        column(t.column_of(column_name)),
        own_index(t.key_column() == column_name) {
    if (!own_index && column) keys = &t.column_keys(*column);
  }

  std::optional<std::size_t> find(const nlohmann::json& key) const {
    if (own_index) return table.row_of(key);
    if (keys == nullptr) return std::nullopt;
    if (key.is_string()) {
      const auto id = table.column_data(*column).strings.find(key.get_ref<const std::string&>());
      if (!id || keys->by_id[*id] == detail::ColumnKeys::none) return std::nullopt;
      return keys->by_id[*id];
    }
    const auto k = detail::row_key(key);
    if (!k) return std::nullopt;
    const auto it = keys->others.find(*k);
    if (it == keys->others.end()) return std::nullopt;
    // By JSON type: 7.0 does not name the row keyed 7, nor 7 the row keyed 7.0.
    if (key.is_number() && detail::is_integer_json(key) != detail::is_integer_json(table.cell(it->second, *column)))
      return std::nullopt;
    return it->second;
  }

  // The row's key as a message shows it: 'north', 7.
  std::string key_text(std::size_t row) const { return column ? detail::render(table.cell(row, *column)) : "?"; }
  // 'north' for a text key; "row 7" for a number (or bool) key, which alone reads as
  // a count ("7's 'amount'").
  std::string label(std::size_t row) const {
    if (!column) return "?";
    const nlohmann::json key = table.cell(row, *column);
    return key.is_string() ? detail::render(key) : "row " + detail::render(key);
  }
};

// What row_integrity found at one place in the output, before a word of it is written:
// plain data, so a value that matches costs no string, and row_finding words the rest.
struct RowClaim {
  enum class Kind {
    holds,
    not_rows,       // `at` is missing, or holds neither an object nor an array
    not_an_object,  // an item of the array that is not an object
    no_key,         // the object has no key field
    unusable_key,   // a key that is not a string, a number or a bool
    unknown_key,    // a key no row has
    no_value,       // the row has no value in the column, and one was stated
    not_a_number,   // a number recorded, something else stated
    wrong_value,    // a value that is not the row's
    more,           // the findings of an array past max_listed, counted
  };
  Kind kind = Kind::holds;
  const nlohmann::json* said = nullptr;  // the value, key or item judged (not_rows: `at`'s, if any)
  // Where: inside the array's item (when in_array) and, unless null, at this field of it.
  bool in_array = false;
  std::size_t item = 0;
  const std::string* field = nullptr;
  // The row the key named and the column read (a value's kinds).
  std::size_t row = 0;
  const std::string* column_name = nullptr;
  std::optional<std::size_t> column;
  bool rounded = false;      // wrong_value: the number stated is the recorded one rounded to its decimals
  std::size_t unlisted = 0;  // more: how many
};

}  // namespace detail

struct row_integrity {
  std::string fact;                                         // a Table
  std::string key_field;                                    // output field naming the row
  std::vector<std::pair<std::string, std::string>> fields;  // output field -> column
  std::string key_column = "";                              // "" = the table's key column
  std::string at = "";  // JSON Pointer to an object or array of objects; "" = the root
  Tolerance tolerance{};

  static constexpr const char* check_name = "row_integrity";
  static constexpr std::size_t max_listed = 8;  // findings about the objects of an array

  std::vector<std::string> leans_on() const { return {fact}; }

  // The output fields it reads (Boundary::stream runs it once they have closed; prose
  // slots over them count as checked).
  // Under `at`, the whole of it.
  std::vector<std::string> reads() const {
    if (!at.empty()) return {at};
    std::vector<std::string> out{key_field};
    for (const auto& [field, column] : fields) out.push_back(field);
    return out;
  }

  // row_integrity(fact='campaigns', key_field='campaign')
  std::string name() const;

  void validate(const FactRegistry& registry) const;

  // The key as one of the recorded keys, each mapped field typed like its column;
  // under `at`, an object or an array of such objects.
  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

 private:
  // Where findings go: all of them, or (over an array) the first max_listed, the rest
  // only counted, so a finding past the cap is never built.
  struct Sink {
    std::vector<Finding>& findings;
    std::size_t room = 0;
    std::size_t unlisted = 0;
    template <class Make>
    void add(Make&& make) {
      if (room == 0) {
        ++unlisted;
        return;
      }
      --room;
      findings.push_back(make());
    }
  };

  // Words a claim that does not hold, if the sink has room for it.
  void report(const detail::RowResolver& rows, const detail::RowClaim& claim, Sink& sink) const;

  // One object naming a row: its key, then each mapped field it states. `where` says
  // where the object is (an array's item, or `at` itself).
  void verify_object(const detail::RowResolver& rows, const nlohmann::json& object, const detail::RowClaim& where,
                     Sink& sink) const;

  // What the key names: holds with the row, or why it names none.
  detail::RowClaim classify_key(const detail::RowResolver& rows, const nlohmann::json* key) const;

  // A stated value against the row's cell in `column`.
  detail::RowClaim classify_value(const detail::RowResolver& rows, std::size_t row, const std::string& column,
                                  const nlohmann::json& said) const;
};

static_assert(Check<row_integrity>);

namespace detail {

// Where a claim is: `at`, an item of it ("/rows/2"), or a field of either ("/rows/2/ctr").
std::string row_claim_field(const row_integrity& check, const RowClaim& claim);

// When a key of the wrong JSON type would have named a row: 7 for '7', or '7' for 7.
std::string row_key_type_hint(const RowResolver& rows, const nlohmann::json& key);

// ": 'harbour', 'north'": the keys the first rows have, for a finding about a key no row has.
std::string row_keys_listed(const RowResolver& rows);

// "; 0.0301 is 'delta''s 'ctr', not 'north''s" and "; 0.0455 is 'north''s 'spend', not
// its 'ctr'": where in the table a wrong value came from, when it is there exactly.
std::string row_borrowed_from(const RowResolver& rows, std::size_t row, std::size_t column, const nlohmann::json& said);

// The details of a claim about a key, and about a value read off the named row.
std::string row_key_detail(const row_integrity& check, const RowResolver& rows, const RowClaim& claim,
                           const std::string& said_text);
void word_row_value(const row_integrity& check, const RowResolver& rows, const RowClaim& claim, Finding& finding);

// The finding for a claim that does not hold.
Finding row_finding(const row_integrity& check, const RowResolver& rows, const RowClaim& claim);

}  // namespace detail

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/row_integrity-inl.hpp"
#endif
