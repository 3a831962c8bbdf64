// The bodies of check_from_json.hpp: every check's spec reader and writer. Included by it
// in the header-only build, compiled once into groundplane::compiled otherwise.
#pragma once

#include "groundplane/check_from_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/any_check.hpp"
#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/checks/aggregate_reconciles.hpp"
#include "groundplane/checks/comparison.hpp"
#include "groundplane/checks/entities_recorded.hpp"
#include "groundplane/checks/field_matches_fact.hpp"
#include "groundplane/checks/ranking_prefix.hpp"
#include "groundplane/checks/row_integrity.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/json/json_depth.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/render.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane {

namespace detail::spec {

// Enum names: the one table each enum's header keeps (detail::enum_names).

// ---- members of each check ----------------------------------------------------------

template <class C, class T>
struct Member {
  std::string_view name;
  T C::*ptr;
  bool required = false;
};
template <class C, class T>
constexpr Member<C, T> member(std::string_view name, T C::*ptr, bool required = false) {
  return {name, ptr, required};
}

template <class C>
struct members_of;

template <>
struct members_of<superlative> {
  using C = superlative;
  static constexpr auto list = std::tuple{member("fact", &C::fact, true),
                                          member("field", &C::field),
                                          member("score_field", &C::score_field),
                                          member("pick", &C::pick),
                                          member("ties", &C::ties),
                                          member("tolerance", &C::tolerance),
                                          member("rounding", &C::rounding),
                                          member("column", &C::column),
                                          member("direction", &C::direction),
                                          member("on_missing", &C::on_missing),
                                          member("rank_field", &C::rank_field)};
};
template <>
struct members_of<ranking_prefix> {
  using C = ranking_prefix;
  static constexpr auto list =
      std::tuple{member("fact", &C::fact, true),     member("field", &C::field),           member("k", &C::k),
                 member("tolerance", &C::tolerance), member("rounding", &C::rounding),     member("column", &C::column),
                 member("direction", &C::direction), member("on_missing", &C::on_missing), member("ties", &C::ties),
                 member("ordered", &C::ordered)};
};
template <>
struct members_of<aggregate_reconciles> {
  using C = aggregate_reconciles;
  static constexpr auto list =
      std::tuple{member("fact", &C::fact, true),      member("field", &C::field, true),
                 member("op", &C::op, true),          member("column", &C::column),
                 member("where", &C::where),          member("tolerance", &C::tolerance),
                 member("rounding", &C::rounding),    member("weight_column", &C::weight_column),
                 member("on_missing", &C::on_missing)};
};
template <>
struct members_of<entities_recorded> {
  using C = entities_recorded;
  static constexpr auto list =
      std::tuple{member("facts", &C::facts, true), member("fields", &C::fields, true),
                 member("allow_empty", &C::allow_empty), member("case_sensitive", &C::case_sensitive)};
};
template <>
struct members_of<row_integrity> {
  using C = row_integrity;
  static constexpr auto list = std::tuple{member("fact", &C::fact, true),
                                          member("key_field", &C::key_field, true),
                                          member("fields", &C::fields, true),
                                          member("key_column", &C::key_column),
                                          member("at", &C::at),
                                          member("tolerance", &C::tolerance)};
};
template <>
struct members_of<comparison> {
  using C = comparison;
  static constexpr auto list = std::tuple{
      member("fact", &C::fact, true),     member("column", &C::column),           member("a_field", &C::a_field),
      member("b_field", &C::b_field),     member("value_field", &C::value_field), member("convention", &C::convention),
      member("tolerance", &C::tolerance), member("rounding", &C::rounding),       member("order", &C::order),
      member("direction", &C::direction), member("on_missing", &C::on_missing)};
};
template <>
struct members_of<actions_performed> {
  using C = actions_performed;
  static constexpr auto list = std::tuple{member("fact", &C::fact, true), member("field", &C::field)};
};
template <>
struct members_of<field_matches_fact> {
  using C = field_matches_fact;
  static constexpr auto list =
      std::tuple{member("fact", &C::fact, true), member("field", &C::field, true), member("path", &C::path)};
};

template <class... Cs>
struct check_types {};
using known_checks = check_types<superlative, ranking_prefix, aggregate_reconciles, entities_recorded, row_integrity,
                                 comparison, actions_performed, field_matches_fact>;

// ---- messages ------------------------------------------------------------------------

inline std::string known_check_names() {
  return "superlative, ranking_prefix, aggregate_reconciles, entities_recorded, row_integrity, comparison, "
         "actions_performed, field_matches_fact";
}

[[noreturn]] inline void refuse(const std::string& what) { throw ConfigurationError("check_from_json: " + what); }

// " (did you mean 'field'?)" when one of the candidates is a small typo away.
template <class Names>
std::string did_you_mean(std::string_view said, const Names& candidates) {
  BoundedEditDistance distance;
  std::string best;
  std::size_t best_d = 3;
  for (std::string_view c : candidates) {
    const std::size_t d = distance(said, c, 2);
    if (d < best_d) {
      best_d = d;
      best = std::string(c);
    }
  }
  return best.empty() ? std::string() : " (did you mean " + quote(best) + "?)";
}

// ---- the shape of each member type ---------------------------------------------------
// What a member's JSON must look like, once: the words a refusal says and the JSON Schema
// the MCP check tool's inputSchema declares.

template <class T>
struct shape;
template <>
struct shape<std::string> {
  static std::string words() { return "a string"; }
  static nlohmann::ordered_json schema() { return {{"type", "string"}}; }
};
template <>
struct shape<std::vector<std::string>> {
  static std::string words() { return "an array of strings"; }
  static nlohmann::ordered_json schema() { return {{"type", "array"}, {"items", shape<std::string>::schema()}}; }
};
template <>
struct shape<std::size_t> {
  static std::string words() { return "a non-negative integer"; }
  static nlohmann::ordered_json schema() { return {{"type", "integer"}, {"minimum", 0}}; }
};
template <>
struct shape<nlohmann::json> {
  static std::string words() { return "an object {column: value}"; }
  static nlohmann::ordered_json schema() { return {{"type", "object"}}; }
};
template <>
struct shape<std::vector<std::pair<std::string, std::string>>> {
  static std::string words() { return "an object {output_field: column}"; }
  static nlohmann::ordered_json schema() {
    return {{"type", "object"}, {"additionalProperties", shape<std::string>::schema()}};
  }
};
template <>
struct shape<Tolerance> {
  static std::string words() { return "an object {\"absolute\": n, \"relative\": n}"; }
  static nlohmann::ordered_json schema() {
    const nlohmann::ordered_json number = {{"type", "number"}};
    return {{"type", "object"},
            {"properties", {{"absolute", number}, {"relative", number}}},
            {"additionalProperties", false}};
  }
};
template <>
struct shape<bool> {
  static std::string words() { return "true or false"; }
  static nlohmann::ordered_json schema() { return {{"type", "boolean"}}; }
};
// Each enum's names, and null too for an optional one (built whole, never edited in place:
// replacing a member of an ordered_json in place leaks its old string in nlohmann 3.11.2).
template <named_enum E>
nlohmann::ordered_json enum_schema(bool nullable) {
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const auto& e : enum_table<E>) names.push_back(std::string(e.name));
  if (!nullable) return {{"type", "string"}, {"enum", std::move(names)}};
  names.push_back(nullptr);
  return {{"type", nlohmann::ordered_json::array({"string", "null"})}, {"enum", std::move(names)}};
}
template <named_enum E>
struct shape<E> {
  static std::string words() { return "one of " + name_list_of<E>(); }
  static nlohmann::ordered_json schema() { return enum_schema<E>(false); }
};
// Unset is null, as check_to_json writes it, or the member left out.
template <named_enum E>
struct shape<std::optional<E>> {
  static std::string words() { return shape<E>::words() + " or null"; }
  static nlohmann::ordered_json schema() { return enum_schema<E>(true); }
};

// ---- reading one member ----------------------------------------------------------------

struct Where {
  std::string_view check;
  std::string path;  // "superlative.tolerance.absolute"
  std::string name() const { return std::string(check) + "." + path; }
};

[[noreturn]] inline void wrong_type(const Where& at, std::string_view expected, const nlohmann::json& got) {
  refuse(at.name() + " must be " + std::string(expected) + ", got " + std::string(type_name(got)));
}

inline void read(const nlohmann::json& v, std::string& out, const Where& at) {
  if (!v.is_string()) wrong_type(at, shape<std::string>::words(), v);
  out = v.get<std::string>();
}

inline void read(const nlohmann::json& v, std::vector<std::string>& out, const Where& at) {
  if (!v.is_array()) wrong_type(at, shape<std::vector<std::string>>::words(), v);
  out.clear();
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      refuse(at.name() + " must be " + shape<std::vector<std::string>>::words() + ", but element " + std::to_string(i) +
             " is " + std::string(type_name(v[i])));
    out.push_back(v[i].get<std::string>());
  }
}

inline void read(const nlohmann::json& v, std::size_t& out, const Where& at) {
  const std::string expected = shape<std::size_t>::words();
  if (v.is_number_unsigned()) {
    out = static_cast<std::size_t>(v.get<std::uint64_t>());
    return;
  }
  if (v.is_number_integer()) {
    const std::int64_t i = v.get<std::int64_t>();
    if (i < 0) refuse(at.name() + " must be " + expected + ", got " + render(v));
    out = static_cast<std::size_t>(i);
    return;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d >= 0 && d <= 9007199254740992.0 && std::floor(d) == d) {
      out = static_cast<std::size_t>(d);
      return;
    }
    refuse(at.name() + " must be " + expected + ", got " + render(v));
  }
  wrong_type(at, expected, v);
}

inline void read(const nlohmann::json& v, nlohmann::json& out, const Where& at) {
  if (!v.is_object()) wrong_type(at, shape<nlohmann::json>::words(), v);
  out = v;
}

inline void read(const nlohmann::json& v, std::vector<std::pair<std::string, std::string>>& out, const Where& at) {
  if (!v.is_object()) wrong_type(at, shape<std::vector<std::pair<std::string, std::string>>>::words(), v);
  out.clear();
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it.value().is_string())
      refuse(at.name() + " maps " + quote(it.key()) + " to " + std::string(type_name(it.value())) +
             "; each output field maps to a column name (a string)");
    out.emplace_back(it.key(), it.value().get<std::string>());
  }
}

inline void read(const nlohmann::json& v, Tolerance& out, const Where& at) {
  if (!v.is_object()) wrong_type(at, shape<Tolerance>::words(), v);
  out = Tolerance{};
  for (auto it = v.begin(); it != v.end(); ++it) {
    Decimal* into = it.key() == "absolute" ? &out.absolute : it.key() == "relative" ? &out.relative : nullptr;
    if (into == nullptr)
      refuse(at.name() + " has no member " + quote(it.key()) +
             did_you_mean(it.key(), std::vector<std::string_view>{"absolute", "relative"}) +
             "; its members: absolute, relative");
    const auto d = Decimal::from_json(it.value());
    if (!d) wrong_type(Where{at.check, at.path + "." + it.key()}, "a number", it.value());
    *into = *d;
  }
}

inline void read(const nlohmann::json& v, bool& out, const Where& at) {
  if (!v.is_boolean()) wrong_type(at, shape<bool>::words(), v);
  out = v.get<bool>();
}

template <named_enum E>
void read(const nlohmann::json& v, E& out, const Where& at) {
  const std::string valid = name_list_of<E>();
  if (!v.is_string()) refuse(at.name() + " must be one of " + valid + ", got " + std::string(type_name(v)));
  const auto& said = v.get_ref<const std::string&>();
  if (const auto value = from_name<E>(said)) {
    out = *value;
    return;
  }
  refuse(at.name() + " must be one of " + valid + "; got " + quote(said));
}

// An optional enum: null (or the member left out) is "not set".
template <named_enum E>
void read(const nlohmann::json& v, std::optional<E>& out, const Where& at) {
  if (v.is_null()) {
    out.reset();
    return;
  }
  E value{};
  read(v, value, at);
  out = value;
}

// ---- writing one member ----------------------------------------------------------------

inline nlohmann::json write(const std::string& v) { return v; }
inline nlohmann::json write(const std::vector<std::string>& v) { return v; }
inline nlohmann::json write(std::size_t v) { return v; }
inline nlohmann::json write(const nlohmann::json& v) { return v; }
inline nlohmann::json write(const std::vector<std::pair<std::string, std::string>>& v) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [field, column] : v) out[field] = column;
  return out;
}
inline nlohmann::json write(const Tolerance& t) {
  return {{"absolute", to_json(t.absolute)}, {"relative", to_json(t.relative)}};
}
inline nlohmann::json write(bool v) { return v; }
template <named_enum E>
nlohmann::json write(E e) {
  return std::string(name_of(e));
}
template <named_enum E>
nlohmann::json write(const std::optional<E>& e) {
  return e ? write(*e) : nlohmann::json();
}

// ---- one check ---------------------------------------------------------------------------

template <class C>
std::vector<std::string_view> member_names() {
  std::vector<std::string_view> out;
  std::apply([&](const auto&... m) { (out.push_back(m.name), ...); }, members_of<C>::list);
  return out;
}

template <class C>
C build(const nlohmann::json& spec) {
  C check{};
  const std::string_view check_name = C::check_name;
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    if (it.key() == "check") continue;
    bool known = false;
    const auto one = [&](const auto& m) {
      if (m.name != it.key()) return;
      read(it.value(), check.*(m.ptr), Where{check_name, it.key()});
      known = true;
    };
    std::apply([&](const auto&... m) { (one(m), ...); }, members_of<C>::list);
    if (!known) {
      const auto names = member_names<C>();
      std::string list;
      for (const auto n : names) list += (list.empty() ? "" : ", ") + std::string(n);
      refuse(std::string(check_name) + " has no member " + quote(it.key()) + did_you_mean(it.key(), names) +
             "; its members: " + list);
    }
  }
  const auto require = [&](const auto& m) {
    if (m.required && !spec.contains(std::string(m.name)))
      refuse(std::string(check_name) + " needs member " + quote(m.name) + "; it has no default");
  };
  std::apply([&](const auto&... m) { (require(m), ...); }, members_of<C>::list);
  return check;
}

template <class C>
nlohmann::json to_spec(const C& check) {
  nlohmann::json out = {{"check", C::check_name}};
  std::apply([&](const auto&... m) { ((out[std::string(m.name)] = write(check.*(m.ptr))), ...); }, members_of<C>::list);
  return out;
}

template <class... Cs>
std::optional<AnyCheck> build_named(std::string_view name, const nlohmann::json& spec, check_types<Cs...>) {
  std::optional<AnyCheck> out;
  const auto one = [&]<class C>(std::type_identity<C>) {
    if (!out && name == C::check_name) out.emplace(build<C>(spec));
  };
  (one(std::type_identity<Cs>{}), ...);
  return out;
}

template <class... Cs>
std::optional<nlohmann::json> spec_of(const AnyCheck& check, check_types<Cs...>) {
  std::optional<nlohmann::json> out;
  const auto one = [&]<class C>(std::type_identity<C>) {
    if (const C* c = check.template target<C>(); !out && c) out = to_spec(*c);
  };
  (one(std::type_identity<Cs>{}), ...);
  return out;
}

template <class... Cs>
std::vector<std::string_view> all_check_names(check_types<Cs...>) {
  return {std::string_view(Cs::check_name)...};
}

// ---- the JSON Schema of a spec ------------------------------------------------------------
// One object schema for every check: a client-side validator (LangChain's, through
// @langchain/mcp-adapters) turns each tool's inputSchema into code, and a oneOf per check
// is what such converters handle worst. So each member any check reads is one property,
// described with the checks that read it; a member whose shape differs between checks
// declares no type and says each shape. check_from_json still refuses what a check does
// not read.

struct SpecReader {
  std::string_view check;
  bool required;
  std::string words;
  nlohmann::ordered_json schema;
};
struct SpecProperty {
  std::string_view name;
  std::vector<SpecReader> readers;
};

template <class... Cs>
std::vector<SpecProperty> spec_properties(check_types<Cs...>) {
  std::vector<SpecProperty> out;
  const auto add = [&]<class C, class T>(std::type_identity<C>, const Member<C, T>& m) {
    auto it = std::find_if(out.begin(), out.end(), [&](const SpecProperty& p) { return p.name == m.name; });
    if (it == out.end()) it = out.insert(out.end(), SpecProperty{m.name, {}});
    it->readers.push_back({C::check_name, m.required, shape<T>::words(), shape<T>::schema()});
  };
  const auto one = [&]<class C>(std::type_identity<C> c) {
    std::apply([&](const auto&... m) { (add(c, m), ...); }, members_of<C>::list);
  };
  (one(std::type_identity<Cs>{}), ...);
  return out;
}

inline nlohmann::ordered_json spec_property_schema(const SpecProperty& p) {
  const bool one_shape = std::all_of(p.readers.begin(), p.readers.end(),
                                     [&](const SpecReader& r) { return r.schema == p.readers.front().schema; });
  std::string readers;
  for (const SpecReader& r : p.readers) {
    readers += readers.empty() ? "" : one_shape ? ", " : "; ";
    readers += r.check;
    if (r.required) readers += " (required)";
    if (!one_shape) readers += ": " + r.words;
  }
  nlohmann::ordered_json out = one_shape ? p.readers.front().schema : nlohmann::ordered_json::object();
  out["description"] = one_shape ? "Read by " + readers + "." : "Its shape depends on the check: " + readers + ".";
  return out;
}

}  // namespace detail::spec

GROUNDPLANE_ON_CALL_DEF GROUNDPLANE_INLINE nlohmann::ordered_json detail::check_spec_schema() {
  using namespace detail::spec;
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const std::string_view n : all_check_names(known_checks{})) names.push_back(std::string(n));
  nlohmann::ordered_json properties = {{"check", {{"type", "string"}, {"enum", std::move(names)}}}};
  for (const SpecProperty& p : spec_properties(known_checks{}))
    properties[std::string(p.name)] = spec_property_schema(p);
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", {"check"}}};
}

GROUNDPLANE_ON_CALL_DEF GROUNDPLANE_INLINE AnyCheck check_from_json(const nlohmann::json& spec) {
  using namespace detail::spec;
  if (!spec.is_object())
    refuse("a check spec must be a JSON object such as {\"check\": \"superlative\", \"fact\": \"...\"}, got " +
           std::string(detail::type_name(spec)));
  // Measured before any member is copied into a check (a copy recurses once per level).
  if (detail::nested_deeper_than(spec, detail::max_value_depth))
    refuse("the spec is nested deeper than " + std::to_string(detail::max_value_depth) +
           " arrays/objects; no member of a check holds more than a value to compare with a table's cell");
  const auto it = spec.find("check");
  if (it == spec.end())
    refuse("the spec has no \"check\" member naming the check to build; known checks: " + known_check_names());
  if (!it->is_string())
    refuse("\"check\" must be a string naming the check, got " + std::string(detail::type_name(*it)) +
           "; known checks: " + known_check_names());
  const auto& name = it->get_ref<const std::string&>();
  if (auto check = build_named(name, spec, known_checks{})) return std::move(*check);
  refuse("unknown check " + detail::quote(name) + did_you_mean(name, all_check_names(known_checks{})) +
         "; known checks: " + known_check_names());
}

GROUNDPLANE_ON_CALL_DEF GROUNDPLANE_INLINE nlohmann::json check_to_json(const AnyCheck& check) {
  if (auto spec = detail::spec::spec_of(check, detail::spec::known_checks{})) return std::move(*spec);
  throw ConfigurationError("check_to_json: " + detail::quote(check.kind()) +
                           " is not one of the checks check_from_json builds, so it has no JSON spec");
}

}  // namespace groundplane
