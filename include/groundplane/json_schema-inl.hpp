// The bodies of json_schema.hpp that compile a schema: included by it in the header-only
// build, compiled once into groundplane::compiled otherwise (see detail/linkage.hpp).
// Validation is in detail/json/json_schema_check-inl.hpp.
#pragma once

#include "groundplane/json_schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/json/json_pointer.hpp"
#include "groundplane/detail/json/json_schema_node.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/render.hpp"

namespace groundplane {
namespace detail {

// How a schema is read: draft 7 (the default), or 2019-09/2020-12 when the root's
// `$schema` names one (keywords beside `$ref` apply; `items` follows `prefixItems`).
enum class SchemaDialect { draft7, modern };

class SchemaCompiler {
 public:
  explicit SchemaCompiler(const nlohmann::json& document);
  std::vector<SchemaNode> compile();
  std::size_t root() const noexcept { return root_; }

 private:
  struct PendingRef {
    std::size_t node;
    std::string target;  // the `$ref` string
    std::string at;      // where the `$ref` keyword stands
  };

  std::size_t subschema(const nlohmann::json& s, const std::string& at, std::size_t depth);
  void read_keyword(SchemaNode& node, std::size_t index, const nlohmann::json& object, const std::string& key,
                    const std::string& at, std::size_t depth);
  // read_keyword's readers, by the kind of keyword; `here` is where the keyword stands.
  static bool read_number_keyword(SchemaNode& node, const std::string& key, const nlohmann::json& v,
                                  const std::string& here);
  bool read_applicator_keyword(SchemaNode& node, const std::string& key, const nlohmann::json& v,
                               const std::string& here, std::size_t depth);
  static void read_types(SchemaNode& node, const nlohmann::json& v, const std::string& here);
  static void check_value_depth(std::string_view keyword, const nlohmann::json& value, const std::string& here);
  static void read_enum(SchemaNode& node, const nlohmann::json& v, const std::string& here);
  static void read_const(SchemaNode& node, const nlohmann::json& v, const std::string& here);
  void read_named_schemas(SchemaNode& node, const std::string& key, const nlohmann::json& v, const std::string& here,
                          std::size_t depth);
  void read_dependencies(SchemaNode& node, const std::string& key, const nlohmann::json& v, const std::string& here,
                         std::size_t depth);
  void read_items(SchemaNode& node, const nlohmann::json& object, const std::string& at, std::size_t depth);
  std::size_t child(const nlohmann::json& s, const std::string& keyword_at, std::string_view keyword,
                    std::size_t depth);
  std::vector<std::size_t> children(const nlohmann::json& s, const std::string& keyword_at, std::string_view keyword,
                                    std::size_t depth, bool non_empty);
  void resolve_refs();
  void check_same_place_graph() const;

  const nlohmann::json& doc_;
  SchemaDialect dialect_ = SchemaDialect::draft7;
  std::vector<SchemaNode> nodes_;
  std::vector<std::string> at_;  // each node's JSON Pointer into the schema
  std::unordered_map<std::string, std::size_t> by_pointer_;
  std::vector<PendingRef> pending_;
  std::size_t root_ = 0;
};

// 'pointer', or "the root" for the empty pointer: where in the schema.
GROUNDPLANE_INLINE std::string schema_place(const std::string& pointer) {
  return pointer.empty() ? std::string("the root") : quote(pointer, 200);
}

[[noreturn]] GROUNDPLANE_INLINE void schema_error(std::string_view keyword, const std::string& at,
                                                  std::string_view why) {
  throw ConfigurationError("gp::JsonSchema: " + quote(keyword) + " at " + schema_place(at) + " " + std::string(why));
}

GROUNDPLANE_INLINE std::string_view json_type_word(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "a number";
    default:
      return "binary data";
  }
}

// Why a keyword is refused, or "" for one that is not.
GROUNDPLANE_INLINE std::string_view refused_keyword(std::string_view key) {
  if (key == "pattern" || key == "patternProperties")
    return "is not supported: a backtracking regular expression run on model-written text is a denial-of-service "
           "risk (list the allowed values in 'enum', or check the text in the action)";
  if (key == "unevaluatedProperties" || key == "unevaluatedItems")
    return "is not supported: it depends on what other subschemas evaluated (list the keys in 'properties' and use "
           "'additionalProperties', or 'items')";
  if (key == "dependentSchemas") return "is not supported (draft 7's 'dependencies' takes a schema)";
  if (key == "minContains" || key == "maxContains") return "is not supported (only 'contains' is)";
  if (key == "$dynamicRef" || key == "$recursiveRef")
    return "is not supported: only '$ref' to a place within this schema is";
  return {};
}

// Keywords that are read; every other keyword is an annotation or one no draft defines,
// and is ignored.
GROUNDPLANE_INLINE bool is_assertion_keyword(std::string_view key) {
  static constexpr std::string_view keywords[] = {"type",
                                                  "enum",
                                                  "const",
                                                  "multipleOf",
                                                  "maximum",
                                                  "exclusiveMaximum",
                                                  "minimum",
                                                  "exclusiveMinimum",
                                                  "maxLength",
                                                  "minLength",
                                                  "items",
                                                  "additionalItems",
                                                  "maxItems",
                                                  "minItems",
                                                  "uniqueItems",
                                                  "contains",
                                                  "maxProperties",
                                                  "minProperties",
                                                  "required",
                                                  "properties",
                                                  "additionalProperties",
                                                  "dependencies",
                                                  "propertyNames",
                                                  "if",
                                                  "then",
                                                  "else",
                                                  "allOf",
                                                  "anyOf",
                                                  "oneOf",
                                                  "not",
                                                  "$ref",
                                                  "definitions",
                                                  "$defs",
                                                  "prefixItems",
                                                  "dependentRequired"};
  return std::find(std::begin(keywords), std::end(keywords), key) != std::end(keywords);
}

// Values in `enum`/`const` are compared level by level; a value nested past this is refused.
GROUNDPLANE_INLINE bool nests_deeper_than(const nlohmann::json& v, std::size_t levels) {
  if (!v.is_structured()) return false;
  if (levels == 0) return true;
  for (const auto& e : v)
    if (nests_deeper_than(e, levels - 1)) return true;
  return false;
}

GROUNDPLANE_INLINE SchemaNumber schema_bound(const nlohmann::json& v, std::string_view keyword, const std::string& at) {
  if (v.is_boolean() && (keyword == "exclusiveMinimum" || keyword == "exclusiveMaximum"))
    schema_error(keyword, at, "must be a number (the draft 4 boolean form is not supported)");
  const auto exact = v.is_number() ? Decimal::from_json(v) : std::nullopt;
  if (!exact) schema_error(keyword, at, "must be a finite number, not " + std::string(json_type_word(v)));
  if (keyword == "multipleOf" && exact->signum() <= 0) schema_error(keyword, at, "must be greater than 0");
  return SchemaNumber{v, *exact, render(*exact)};
}

GROUNDPLANE_INLINE std::size_t schema_count(const nlohmann::json& v, std::string_view keyword, const std::string& at) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    return u > std::numeric_limits<std::size_t>::max() ? std::numeric_limits<std::size_t>::max()
                                                       : static_cast<std::size_t>(u);
  }
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::size_t>(v.get<std::int64_t>());
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d >= 0 && d == std::trunc(d))
      return d >= 18446744073709551616.0 ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(d);
  }
  schema_error(keyword, at, "must be a non-negative integer");
}

GROUNDPLANE_INLINE std::vector<std::string> schema_names(const nlohmann::json& v, std::string_view keyword,
                                                         const std::string& at) {
  if (!v.is_array()) schema_error(keyword, at, "must be an array of key names");
  std::vector<std::string> out;
  out.reserve(v.size());
  for (const auto& e : v) {
    if (!e.is_string())
      schema_error(keyword, at, "must be an array of key names, but holds " + std::string(json_type_word(e)));
    out.push_back(e.get<std::string>());
  }
  return out;
}

GROUNDPLANE_INLINE std::uint8_t schema_type_bit(const nlohmann::json& name, const std::string& at) {
  static constexpr std::pair<std::string_view, SchemaType> names[] = {
      {"null", schema_null},     {"boolean", schema_boolean}, {"object", schema_object},  {"array", schema_array},
      {"number", schema_number}, {"string", schema_string},   {"integer", schema_integer}};
  if (name.is_string())
    for (const auto& [word, bit] : names)
      if (name.get_ref<const std::string&>() == word) return bit;
  schema_error("type", at,
               "must name JSON Schema types (null, boolean, object, array, number, string, integer), not " +
                   (name.is_string() ? quote(name.get_ref<const std::string&>()) : std::string(json_type_word(name))));
}

// The values an issue lists for `enum`: at most 8, each capped.
GROUNDPLANE_INLINE std::string shown_values(const std::vector<nlohmann::json>& values) {
  constexpr std::size_t shown_at_most = 8;
  std::string out;
  for (std::size_t i = 0; i < values.size() && i < shown_at_most; ++i) {
    if (i > 0) out += ", ";
    out += render(values[i], 40);
  }
  if (values.size() > shown_at_most) out += " and " + std::to_string(values.size() - shown_at_most) + " more";
  return out;
}

GROUNDPLANE_INLINE std::uint8_t keyword_groups(const SchemaNode& n) {
  std::uint8_t g = 0;
  if (n.const_value || n.has_enum) g |= schema_null;
  if (n.minimum || n.maximum || n.exclusive_minimum || n.exclusive_maximum || n.multiple_of) g |= schema_number;
  if (n.min_length || n.max_length) g |= schema_string;
  if (n.min_items || n.max_items || n.unique_items || !n.prefix_items.empty() || n.rest_items != no_node ||
      n.contains != no_node)
    g |= schema_array;
  if (n.min_properties || n.max_properties || !n.properties.empty() || n.additional_properties != no_node ||
      n.property_names != no_node || !n.required.empty() || !n.dependent_required.empty() ||
      !n.dependent_schemas.empty())
    g |= schema_object;
  if (n.ref != no_node || !n.all_of.empty() || !n.any_of.empty() || !n.one_of.empty() || n.not_ != no_node ||
      n.if_ != no_node)
    g |= schema_boolean;
  return static_cast<std::uint8_t>(g);
}

GROUNDPLANE_INLINE bool asserts_nothing(const SchemaNode& n) {
  return !n.never && n.types == 0 && !n.const_value && !n.has_enum && !n.minimum && !n.maximum &&
         !n.exclusive_minimum && !n.exclusive_maximum && !n.multiple_of && !n.min_length && !n.max_length &&
         !n.min_items && !n.max_items && !n.min_properties && !n.max_properties && !n.unique_items &&
         n.prefix_items.empty() && n.rest_items == no_node && n.contains == no_node && n.properties.empty() &&
         n.additional_properties == no_node && n.property_names == no_node && n.required.empty() &&
         n.dependent_required.empty() && n.dependent_schemas.empty() && n.ref == no_node && n.all_of.empty() &&
         n.any_of.empty() && n.one_of.empty() && n.not_ == no_node && n.if_ == no_node;
}

GROUNDPLANE_INLINE SchemaCompiler::SchemaCompiler(const nlohmann::json& document) : doc_(document) {
  if (document.is_object()) {
    const auto it = document.find("$schema");
    if (it != document.end()) {
      if (!it->is_string()) schema_error("$schema", "/$schema", "must be a string");
      const auto& uri = it->get_ref<const std::string&>();
      if (uri.find("/draft/2019-09/") != std::string::npos || uri.find("/draft/2020-12/") != std::string::npos)
        dialect_ = SchemaDialect::modern;
    }
  }
}

GROUNDPLANE_INLINE std::vector<SchemaNode> SchemaCompiler::compile() {
  root_ = subschema(doc_, "", 0);
  resolve_refs();
  check_same_place_graph();
  return std::move(nodes_);
}

GROUNDPLANE_INLINE std::size_t SchemaCompiler::child(const nlohmann::json& s, const std::string& keyword_at,
                                                     std::string_view keyword, std::size_t depth) {
  if (!s.is_object() && !s.is_boolean())
    schema_error(keyword, keyword_at,
                 "must be a schema (an object or a boolean), not " + std::string(json_type_word(s)));
  return subschema(s, keyword_at, depth + 1);
}

GROUNDPLANE_INLINE std::vector<std::size_t> SchemaCompiler::children(const nlohmann::json& s,
                                                                     const std::string& keyword_at,
                                                                     std::string_view keyword, std::size_t depth,
                                                                     bool non_empty) {
  if (!s.is_array() || (non_empty && s.empty()))
    schema_error(keyword, keyword_at,
                 non_empty ? "must be a non-empty array of schemas" : "must be an array of schemas");
  std::vector<std::size_t> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    out.push_back(child(s[i], keyword_at + '/' + std::to_string(i), keyword, depth));
  return out;
}

// One subschema at `at`, and everything nested in it; `$ref`s are left for resolve_refs,
// so a chain of references never deepens this recursion.
GROUNDPLANE_INLINE std::size_t SchemaCompiler::subschema(const nlohmann::json& s, const std::string& at,
                                                         std::size_t depth) {
  if (depth > JsonSchema::max_schema_depth)
    throw ConfigurationError("gp::JsonSchema: the schema nests deeper than " +
                             std::to_string(JsonSchema::max_schema_depth) + " subschemas at " + schema_place(at));
  const std::size_t index = nodes_.size();
  nodes_.emplace_back();
  at_.push_back(at);
  by_pointer_.emplace(at, index);
  SchemaNode node;
  if (s.is_boolean()) {
    node.never = !s.get<bool>();
    node.always = s.get<bool>();
    nodes_[index] = std::move(node);
    return index;
  }
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string& key = it.key();
    const std::string_view refused = refused_keyword(key);
    if (!refused.empty()) schema_error(key, at + '/' + pointer_token(key), refused);
    if (is_assertion_keyword(key)) read_keyword(node, index, s, key, at, depth);
  }
  read_items(node, s, at, depth);
  if (node.if_ == no_node) node.then_ = node.else_ = no_node;
  if (dialect_ == SchemaDialect::draft7 && node.ref != no_node) {
    // Draft 7: `$ref` overrides its siblings (they were read, so what they refuse still is).
    SchemaNode only_ref;
    only_ref.ref = node.ref;
    node = std::move(only_ref);
  }
  node.always = asserts_nothing(node);
  node.groups = keyword_groups(node);
  node.ref_only = node.ref != no_node && node.types == 0 && node.groups == schema_boolean && node.all_of.empty() &&
                  node.any_of.empty() && node.one_of.empty() && node.not_ == no_node && node.if_ == no_node;
  nodes_[index] = std::move(node);
  return index;
}

// One assertion keyword of a schema object, read onto its node by the reader of its kind.
GROUNDPLANE_INLINE void SchemaCompiler::read_keyword(SchemaNode& node, std::size_t index, const nlohmann::json& object,
                                                     const std::string& key, const std::string& at, std::size_t depth) {
  const nlohmann::json& v = object[key];
  const std::string here = at + '/' + pointer_token(key);
  if (read_number_keyword(node, key, v, here) || read_applicator_keyword(node, key, v, here, depth)) return;
  if (key == "type") {
    read_types(node, v, here);
  } else if (key == "enum") {
    read_enum(node, v, here);
  } else if (key == "const") {
    read_const(node, v, here);
  } else if (key == "uniqueItems") {
    if (!v.is_boolean()) schema_error(key, here, "must be true or false");
    node.unique_items = v.get<bool>();
  } else if (key == "properties" || key == "definitions" || key == "$defs") {
    read_named_schemas(node, key, v, here, depth);
  } else if (key == "required") {
    node.required = schema_names(v, key, here);
  } else if (key == "dependencies" || key == "dependentRequired") {
    read_dependencies(node, key, v, here, depth);
  } else if (key == "$ref") {
    if (!v.is_string()) schema_error(key, here, "must be a string");
    pending_.push_back({index, v.get<std::string>(), here});
    node.ref = 0;  // resolved by resolve_refs
  }
  // items, additionalItems and prefixItems are read together, by read_items.
}

// The keywords that take a number (a bound, or a count of characters, items or
// properties), each onto its member; false for any other keyword.
GROUNDPLANE_INLINE bool SchemaCompiler::read_number_keyword(SchemaNode& node, const std::string& key,
                                                            const nlohmann::json& v, const std::string& here) {
  static constexpr std::pair<std::string_view, std::optional<SchemaNumber> SchemaNode::*> bounds[] = {
      {"minimum", &SchemaNode::minimum},
      {"maximum", &SchemaNode::maximum},
      {"exclusiveMinimum", &SchemaNode::exclusive_minimum},
      {"exclusiveMaximum", &SchemaNode::exclusive_maximum},
      {"multipleOf", &SchemaNode::multiple_of}};
  static constexpr std::pair<std::string_view, SchemaCount SchemaNode::*> counts[] = {
      {"minLength", &SchemaNode::min_length},         {"maxLength", &SchemaNode::max_length},
      {"minItems", &SchemaNode::min_items},           {"maxItems", &SchemaNode::max_items},
      {"minProperties", &SchemaNode::min_properties}, {"maxProperties", &SchemaNode::max_properties}};
  for (const auto& [keyword, member] : bounds)
    if (key == keyword) {
      node.*member = schema_bound(v, key, here);
      return true;
    }
  for (const auto& [keyword, member] : counts)
    if (key == keyword) {
      node.*member = schema_count(v, key, here);
      return true;
    }
  return false;
}

// The keywords that take a subschema, or a non-empty array of them, each onto its
// member; false for any other keyword.
GROUNDPLANE_INLINE bool SchemaCompiler::read_applicator_keyword(SchemaNode& node, const std::string& key,
                                                                const nlohmann::json& v, const std::string& here,
                                                                std::size_t depth) {
  static constexpr std::pair<std::string_view, std::size_t SchemaNode::*> one_schema[] = {
      {"contains", &SchemaNode::contains},
      {"additionalProperties", &SchemaNode::additional_properties},
      {"propertyNames", &SchemaNode::property_names},
      {"not", &SchemaNode::not_},
      {"if", &SchemaNode::if_},
      {"then", &SchemaNode::then_},
      {"else", &SchemaNode::else_}};
  static constexpr std::pair<std::string_view, std::vector<std::size_t> SchemaNode::*> schema_lists[] = {
      {"allOf", &SchemaNode::all_of}, {"anyOf", &SchemaNode::any_of}, {"oneOf", &SchemaNode::one_of}};
  for (const auto& [keyword, member] : one_schema)
    if (key == keyword) {
      node.*member = child(v, here, key, depth);
      return true;
    }
  for (const auto& [keyword, member] : schema_lists)
    if (key == keyword) {
      node.*member = children(v, here, key, depth, true);
      return true;
    }
  return false;
}

GROUNDPLANE_INLINE void SchemaCompiler::read_types(SchemaNode& node, const nlohmann::json& v, const std::string& here) {
  if (v.is_array() && v.empty()) schema_error("type", here, "lists no type, so nothing could match");
  for (const auto& name : v.is_array() ? v : nlohmann::json::array({v})) {
    const std::uint8_t bit = schema_type_bit(name, here);
    if ((node.types & bit) == 0) node.type_order.push_back(bit);
    node.types = static_cast<std::uint8_t>(node.types | bit);
  }
}

// Values in `enum`/`const` are compared level by level: one nested past
// max_schema_depth is refused.
GROUNDPLANE_INLINE void SchemaCompiler::check_value_depth(std::string_view keyword, const nlohmann::json& value,
                                                          const std::string& here) {
  if (nests_deeper_than(value, JsonSchema::max_schema_depth))
    schema_error(keyword, here,
                 "holds a value nested deeper than " + std::to_string(JsonSchema::max_schema_depth) + " levels");
}

// The allowed values, with their hashes (sorted, for lookup), their types and how an
// issue shows them.
GROUNDPLANE_INLINE void SchemaCompiler::read_enum(SchemaNode& node, const nlohmann::json& v, const std::string& here) {
  if (!v.is_array()) schema_error("enum", here, "must be an array of the allowed values");
  for (const auto& e : v) check_value_depth("enum", e, here);
  node.has_enum = true;
  node.enum_values.assign(v.begin(), v.end());
  std::size_t visited = 0;
  for (std::size_t i = 0; i < node.enum_values.size(); ++i) {
    node.enum_hashes.emplace_back(json_value_hash(node.enum_values[i], JsonSchema::max_schema_depth + 1, visited), i);
    const std::uint8_t t = json_schema_type(node.enum_values[i]);
    node.enum_types = static_cast<std::uint8_t>(node.enum_types | (t & ~schema_integer));
  }
  std::sort(node.enum_hashes.begin(), node.enum_hashes.end());
  node.enum_shown = shown_values(node.enum_values);
}

GROUNDPLANE_INLINE void SchemaCompiler::read_const(SchemaNode& node, const nlohmann::json& v, const std::string& here) {
  check_value_depth("const", v, here);
  node.const_value = v;
  node.const_shown = render(v);
}

// `properties`, `definitions` and `$defs`: an object of subschemas, each compiled; only
// the properties are kept on the node, in the object's order (sorted).
GROUNDPLANE_INLINE void SchemaCompiler::read_named_schemas(SchemaNode& node, const std::string& key,
                                                           const nlohmann::json& v, const std::string& here,
                                                           std::size_t depth) {
  if (!v.is_object()) schema_error(key, here, "must be an object whose values are schemas");
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::size_t c = child(it.value(), here + '/' + pointer_token(it.key()), key, depth);
    if (key == "properties") node.properties.emplace_back(it.key(), c);
  }
}

// `dependentRequired` (key -> names), and draft 7's `dependencies`, whose entries are
// names or a schema.
GROUNDPLANE_INLINE void SchemaCompiler::read_dependencies(SchemaNode& node, const std::string& key,
                                                          const nlohmann::json& v, const std::string& here,
                                                          std::size_t depth) {
  if (!v.is_object()) schema_error(key, here, "must be an object");
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string entry_at = here + '/' + pointer_token(it.key());
    if (it.value().is_array() || key == "dependentRequired")
      node.dependent_required.emplace_back(it.key(), schema_names(it.value(), key, entry_at));
    else node.dependent_schemas.emplace_back(it.key(), child(it.value(), entry_at, key, depth));
  }
}

// `items`, `additionalItems` and `prefixItems` as a prefix of per-position schemas and
// one schema for every item after it.
GROUNDPLANE_INLINE void SchemaCompiler::read_items(SchemaNode& node, const nlohmann::json& object,
                                                   const std::string& at, std::size_t depth) {
  const auto items = object.find("items");
  const auto additional = object.find("additionalItems");
  const auto prefix = object.find("prefixItems");
  const bool has_items = items != object.end();
  const bool has_additional = additional != object.end();
  const bool has_prefix = prefix != object.end();
  if (has_prefix) {
    if (dialect_ == SchemaDialect::draft7 && (has_items || has_additional))
      schema_error("prefixItems", at + "/prefixItems",
                   "stands beside 'items' or 'additionalItems', which draft 7 reads differently; set '$schema' to "
                   "\"https://json-schema.org/draft/2020-12/schema\" for 'items' to mean the items after "
                   "'prefixItems'");
    if (has_additional)
      schema_error("additionalItems", at + "/additionalItems",
                   "stands beside 'prefixItems'; in 2020-12, 'items' is the schema for the items after 'prefixItems'");
    if (has_items && items->is_array())
      schema_error("items", at + "/items",
                   "is an array beside 'prefixItems'; in 2020-12, 'items' is the one schema for the items after "
                   "'prefixItems'");
    node.prefix_items = children(*prefix, at + "/prefixItems", "prefixItems", depth, false);
    if (has_items) node.rest_items = child(*items, at + "/items", "items", depth);
    return;
  }
  if (has_items && items->is_array()) {
    node.prefix_items = children(*items, at + "/items", "items", depth, false);
    if (has_additional) node.rest_items = child(*additional, at + "/additionalItems", "additionalItems", depth);
    return;
  }
  if (has_items) node.rest_items = child(*items, at + "/items", "items", depth);
  // Without an array of `items`, `additionalItems` applies to nothing, but is still read.
  if (has_additional) static_cast<void>(child(*additional, at + "/additionalItems", "additionalItems", depth));
}

// `$ref` values are JSON Pointers in a URI fragment: "#/definitions/a%20b" -> tokens.
GROUNDPLANE_INLINE bool decode_ref_fragment(std::string_view fragment, std::vector<std::string>& tokens) {
  std::string decoded;
  for (std::size_t i = 0; i < fragment.size(); ++i) {
    if (fragment[i] != '%') {
      decoded += fragment[i];
      continue;
    }
    const auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (i + 2 >= fragment.size()) return false;
    const int hi = hex(fragment[i + 1]);
    const int lo = hex(fragment[i + 2]);
    if (hi < 0 || lo < 0) return false;
    decoded += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (decoded.empty()) return true;
  if (decoded[0] != '/') return false;
  std::size_t start = 1;
  while (true) {
    const std::size_t end = decoded.find('/', start);
    const std::string_view raw =
        std::string_view(decoded).substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token += raw[i];
      } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        return false;
      }
    }
    tokens.push_back(std::move(token));
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

GROUNDPLANE_INLINE void SchemaCompiler::resolve_refs() {
  while (!pending_.empty()) {
    const PendingRef ref = std::move(pending_.back());
    pending_.pop_back();
    if (ref.target.empty() || ref.target[0] != '#')
      schema_error("$ref", ref.at,
                   "names another document (" + quote(ref.target) +
                       "), which is not supported: only references within this schema ('#/...') are");
    std::vector<std::string> tokens;
    if (!decode_ref_fragment(std::string_view(ref.target).substr(1), tokens))
      schema_error("$ref", ref.at,
                   "is " + quote(ref.target) +
                       ", not a JSON Pointer within this schema ('#/definitions/...'); anchors named by '$id' or "
                       "'$anchor' are not resolved");
    const nlohmann::json* target = &doc_;
    std::string pointer;
    for (const auto& token : tokens) {
      const nlohmann::json* next = nullptr;
      if (target->is_object()) {
        const auto it = target->find(token);
        if (it != target->end()) next = &*it;
      } else if (target->is_array() && !token.empty() && token.size() <= 18 &&
                 token.find_first_not_of("0123456789") == std::string::npos && (token == "0" || token[0] != '0')) {
        const auto i = static_cast<std::size_t>(std::stoull(token));
        if (i < target->size()) next = &(*target)[i];
      }
      if (next == nullptr)
        schema_error("$ref", ref.at, "points at " + quote(ref.target) + ", which this schema does not hold");
      target = next;
      pointer += '/' + pointer_token(token);
    }
    if (!target->is_object() && !target->is_boolean())
      schema_error(
          "$ref", ref.at,
          "points at " + quote(ref.target) + ", which is " + std::string(json_type_word(*target)) + ", not a schema");
    const auto known = by_pointer_.find(pointer);
    const std::size_t resolved = known != by_pointer_.end() ? known->second : subschema(*target, pointer, 0);
    nodes_[ref.node].ref = resolved;
  }
}

// Subschemas that apply at the same place of the payload ($ref, allOf, anyOf, oneOf, not,
// if/then/else, dependencies' schemas) must not loop, and must not chain deeper than
// max_same_place_chain: validation recurses along these edges without reading further
// into the payload. Iterative, so a long chain cannot overflow the stack here either.
GROUNDPLANE_INLINE void SchemaCompiler::check_same_place_graph() const {
  const auto edges = [this](std::size_t n) {
    const SchemaNode& node = nodes_[n];
    std::vector<std::size_t> out;
    if (node.ref != no_node) out.push_back(node.ref);
    out.insert(out.end(), node.all_of.begin(), node.all_of.end());
    out.insert(out.end(), node.any_of.begin(), node.any_of.end());
    out.insert(out.end(), node.one_of.begin(), node.one_of.end());
    for (const std::size_t c : {node.not_, node.if_, node.then_, node.else_})
      if (c != no_node) out.push_back(c);
    for (const auto& d : node.dependent_schemas) out.push_back(d.second);
    return out;
  };
  enum : std::uint8_t { unseen, open, done };
  std::vector<std::uint8_t> state(nodes_.size(), unseen);
  std::vector<std::size_t> chain(nodes_.size(), 1);  // the longest same-place chain from each node
  struct Frame {
    std::size_t node;
    std::vector<std::size_t> next;
    std::size_t at = 0;
  };
  for (std::size_t start = 0; start < nodes_.size(); ++start) {
    if (state[start] != unseen) continue;
    std::vector<Frame> stack;
    stack.push_back({start, edges(start)});
    state[start] = open;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.at == f.next.size()) {
        state[f.node] = done;
        const std::size_t n = f.node;
        stack.pop_back();
        if (!stack.empty()) chain[stack.back().node] = std::max(chain[stack.back().node], chain[n] + 1);
        if (chain[n] > JsonSchema::max_same_place_chain)
          throw ConfigurationError("gp::JsonSchema: more than " + std::to_string(JsonSchema::max_same_place_chain) +
                                   " subschemas ($ref, allOf, anyOf, oneOf, not, if/then/else, dependencies) apply "
                                   "one inside another at the same place of the input, from " +
                                   schema_place(at_[n]));
        continue;
      }
      const std::size_t next = f.next[f.at++];
      if (state[next] == open)
        throw ConfigurationError("gp::JsonSchema: the subschema at " + schema_place(at_[next]) +
                                 " leads back to itself (through '$ref') without reading any of the input: a "
                                 "reference cycle, which no payload could ever finish");
      if (state[next] == done) {
        chain[f.node] = std::max(chain[f.node], chain[next] + 1);
        continue;
      }
      state[next] = open;
      stack.push_back({next, edges(next)});
    }
  }
}

// Accepted: a schema object or boolean, or "none"; refused with the reason otherwise.
GROUNDPLANE_INLINE std::shared_ptr<const CompiledSchema> compile_schema(const nlohmann::json& schema) {
  // Copying a JSON value recurses, so the document's depth is bounded first, iteratively.
  constexpr std::size_t most_levels = 2 * JsonSchema::max_schema_depth;
  std::vector<std::pair<const nlohmann::json*, nlohmann::json::const_iterator>> stack;
  if (schema.is_structured()) stack.emplace_back(&schema, schema.cbegin());
  while (!stack.empty()) {
    auto& [value, it] = stack.back();
    if (it == value->cend()) {
      stack.pop_back();
      continue;
    }
    const nlohmann::json& child = *it++;
    if (!child.is_structured()) continue;
    if (stack.size() >= most_levels)
      throw ConfigurationError("gp::JsonSchema: the schema document nests deeper than " + std::to_string(most_levels) +
                               " arrays/objects");
    stack.emplace_back(&child, child.cbegin());
  }
  auto out = std::make_shared<CompiledSchema>();
  out->source = schema;
  if (schema.is_string() && schema.get_ref<const std::string&>() == "none") {
    out->none = true;
    return out;
  }
  if (!schema.is_object() && !schema.is_boolean())
    throw ConfigurationError(
        "gp::JsonSchema: a schema is a JSON object, true or false, or the string \"none\" (takes no input); got " +
        (schema.is_string() ? "the string " + quote(schema.get_ref<const std::string&>())
                            : std::string(json_type_word(schema))) +
        (schema.is_null() ? " (null means no schema: leave the input undeclared instead)" : ""));
  SchemaCompiler compiler(schema);
  out->nodes = compiler.compile();
  out->root = compiler.root();
  return out;
}

}  // namespace detail

GROUNDPLANE_INLINE JsonSchema::JsonSchema(const nlohmann::json& schema) : compiled_(detail::compile_schema(schema)) {}

GROUNDPLANE_INLINE bool JsonSchema::takes_no_input() const noexcept { return compiled_->none; }

GROUNDPLANE_INLINE const nlohmann::json& JsonSchema::schema() const noexcept { return compiled_->source; }

}  // namespace groundplane
