// The compiled form of a gp::JsonSchema: one node per subschema, keywords already read
// into typed members, every `$ref` resolved to a node index. Built by
// json_schema-inl.hpp, read by detail/json/json_schema_check.hpp.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"

namespace groundplane::detail {

// JSON Schema's seven type names, as bits.
enum SchemaType : std::uint8_t {
  schema_null = 1,
  schema_boolean = 2,
  schema_object = 4,
  schema_array = 8,
  schema_number = 16,
  schema_string = 32,
  schema_integer = 64,
};

inline constexpr std::size_t no_node = std::numeric_limits<std::size_t>::max();

// A number the schema states (a bound, a divisor): as JSON (for the fast comparisons),
// exactly, and as issues show it.
struct SchemaNumber {
  nlohmann::json value;
  Decimal exact;
  std::string shown;
};

// A count bound (minLength, maxItems, ...); a bound past std::size_t saturates.
using SchemaCount = std::optional<std::size_t>;

struct SchemaNode {
  bool never = false;     // `false`
  bool always = false;    // `true`, `{}`, or only annotations
  bool ref_only = false;  // nothing but a `$ref` (always so in draft 7)
  // Which of the keyword groups below hold anything, so validation skips the rest:
  // schema_number/string/array/object for the type-specific ones, schema_null for the
  // value ones (const, enum), schema_boolean for the applicators ($ref, allOf, ...).
  std::uint8_t groups = 0;

  std::uint8_t types = 0;                // 0: any type
  std::vector<std::uint8_t> type_order;  // as the schema lists them, for the wording
  std::optional<nlohmann::json> const_value;
  std::string const_shown;
  bool has_enum = false;
  std::vector<nlohmann::json> enum_values;
  std::vector<std::pair<std::size_t, std::size_t>> enum_hashes;  // (hash, index), sorted
  std::uint8_t enum_types = 0;  // the types among enum_values (integer counted as number)
  std::string enum_shown;

  std::optional<SchemaNumber> minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
  SchemaCount min_length, max_length, min_items, max_items, min_properties, max_properties;
  bool unique_items = false;

  std::vector<std::size_t> prefix_items;  // `items` as an array, or `prefixItems`
  std::size_t rest_items = no_node;       // every item past prefix_items
  std::size_t contains = no_node;

  std::vector<std::pair<std::string, std::size_t>> properties;  // sorted by key
  std::size_t additional_properties = no_node;
  std::size_t property_names = no_node;
  std::vector<std::string> required;
  std::vector<std::pair<std::string, std::vector<std::string>>> dependent_required;
  std::vector<std::pair<std::string, std::size_t>> dependent_schemas;  // `dependencies`' schema form

  std::size_t ref = no_node;
  std::vector<std::size_t> all_of, any_of, one_of;
  std::size_t not_ = no_node, if_ = no_node, then_ = no_node, else_ = no_node;
};

struct CompiledSchema {
  nlohmann::json source;  // as declared
  bool none = false;      // "none": takes no input
  std::vector<SchemaNode> nodes;
  std::size_t root = 0;
};

// JSON values as JSON Schema compares them: numbers by exact value as gp::Decimal reads
// them (1 == 1.0; an integer past 2^53 is not the nearest double), everything else
// structurally. Bodies in detail/json/json_schema_check-inl.hpp.

// The JSON Schema types a value has: an integral number is both integer and number; 0
// for what JSON text cannot hold (binary, a discarded value).
std::uint8_t json_schema_type(const nlohmann::json& v) noexcept;
// Two numbers' order; unordered when either is NaN.
std::partial_ordering compare_json_numbers(const nlohmann::json& a, const nlohmann::json& b);
// Whether the number x is an integer multiple of the positive number m, exactly.
bool is_json_multiple(const nlohmann::json& x, const SchemaNumber& m);
// Equality, a hash consistent with it, and a total order consistent with it, reading at
// most `depth` levels into either value (deeper, values are told apart by address).
// Each adds the values it visits to `visited`.
bool json_values_equal(const nlohmann::json& a, const nlohmann::json& b, std::size_t depth, std::size_t& visited);
std::size_t json_value_hash(const nlohmann::json& v, std::size_t depth, std::size_t& visited);
int json_value_order(const nlohmann::json& a, const nlohmann::json& b, std::size_t depth, std::size_t& visited);

}  // namespace groundplane::detail
