// The bodies of field_matches_fact.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/field_matches_fact.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/json/json_pointer.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/render.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane {

namespace detail {
GROUNDPLANE_INLINE std::optional<std::string> first_difference(const nlohmann::json& said,
                                                               const nlohmann::json& truth) {
  if (said.is_number() && truth.is_number()) {
    const auto a = stated_number(said);
    const auto b = Decimal::from_json(truth);
    if (a && b && *a == *b) return std::nullopt;
    return "";
  }
  if (said.type() != truth.type() && !(said.is_number() && truth.is_number())) return "";
  if (said.is_array()) {
    if (said.size() != truth.size()) return "";
    for (std::size_t i = 0; i < said.size(); ++i)
      if (auto at = first_difference(said[i], truth[i])) return "/" + std::to_string(i) + *at;
    return std::nullopt;
  }
  if (said.is_object()) {
    if (said.size() != truth.size()) return "";
    for (auto it = truth.begin(); it != truth.end(); ++it) {
      const auto other = said.find(it.key());
      if (other == said.end()) return "";
      if (auto at = first_difference(*other, it.value())) return "/" + pointer_token(it.key()) + *at;
    }
    return std::nullopt;
  }
  if (same_json(said, truth)) return std::nullopt;
  return "";
}

// What field_matches_fact found in the field, before any finding is worded.
struct FactMatch {
  enum class Kind {
    holds,           // the recorded value
    missing,         // no such field
    differs_inside,  // an array or object that differs at `at`
    off_by,          // another number, `off` from the recorded one
    other_type,      // a value of another JSON type
    differs,         // another value of the same type
  };
  Kind kind = Kind::holds;
  std::string at;  // differs_inside: the JSON Pointer, inside the value, where they first differ
  Decimal off;     // off_by: stated minus recorded
};

GROUNDPLANE_INLINE FactMatch classify_fact_match(const nlohmann::json* said, const nlohmann::json& truth) {
  using Kind = FactMatch::Kind;
  FactMatch out;
  if (said == nullptr) {
    out.kind = Kind::missing;
    return out;
  }
  auto at = first_difference(*said, truth);
  if (!at) return out;
  out.kind = Kind::differs;
  if (!at->empty()) {
    out.kind = Kind::differs_inside;
    out.at = std::move(*at);
  } else if (said->is_number() && truth.is_number()) {
    const auto stated = stated_number(*said);
    const auto recorded = Decimal::from_json(truth);
    if (stated && recorded) {
      out.kind = Kind::off_by;
      out.off = *stated - *recorded;
    }
  } else if (said->type() != truth.type()) {
    out.kind = Kind::other_type;
  }
  return out;
}

GROUNDPLANE_INLINE Finding fact_match_finding(const field_matches_fact& check, const Fact& recorded,
                                              const nlohmann::json& truth, const nlohmann::json* said,
                                              const FactMatch& match) {
  using Kind = FactMatch::Kind;
  Finding f = finding_about(field_matches_fact::check_name, check.field, recorded);
  f.supported = render(truth);
  const std::string holds = "fact " + quote(check.fact) +
                            (check.path.empty() ? std::string() : " at " + quote(check.path)) + " holds " + f.supported;
  if (match.kind == Kind::missing) {
    f.detail = holds + "; the output has no such field";
    return f;
  }
  f.said = render(*said);
  f.detail = holds + "; the stated value differs";
  if (match.kind == Kind::differs_inside) {
    f.detail += " at " + quote(match.at);
  } else if (match.kind == Kind::off_by) {
    f.detail += " (off by " + std::string(match.off.signum() > 0 ? "+" : "") + render(match.off) + ")";
  } else if (match.kind == Kind::other_type) {
    f.detail += ": it is " + std::string(type_name(*said)) + ", and the fact holds " + std::string(type_name(truth));
  }
  return f;
}
}  // namespace detail

GROUNDPLANE_INLINE std::string field_matches_fact::name() const {
  return std::string(check_name) + "(fact=" + detail::quote(fact) + ", field=" + detail::quote(field) + ")";
}

GROUNDPLANE_INLINE void field_matches_fact::validate(const FactRegistry& registry) const {
  const Fact& f = detail::fact_for<Fact>(registry, fact, check_name);
  detail::validate_field(field, check_name, "field");
  if (path.empty()) return;
  if (path.front() != '/')
    throw ConfigurationError(std::string(check_name) + ": path " + detail::quote(path) +
                             " must be a JSON Pointer (starting with '/'), or \"\" for the whole value");
  detail::validate_field(path, check_name, "path");
  if (detail::find_field(f.value(), path) == nullptr)
    throw ConfigurationError(std::string(check_name) + ": fact " + detail::quote(fact) + " holds nothing at path " +
                             detail::quote(path) + " (its value: " + detail::render(f.value()) + ")");
}

GROUNDPLANE_INLINE const nlohmann::json& field_matches_fact::truth(const FactRegistry& registry) const {
  const Fact& f = registry.get<Fact>(fact);
  if (path.empty()) return f.value();
  return *detail::find_field(f.value(), path);
}

GROUNDPLANE_INLINE void field_matches_fact::describe(const FactRegistry& registry, SchemaBuilder& schema) const {
  const nlohmann::json& value = truth(registry);
  const char* type = value.is_number_integer() || value.is_number_unsigned() ? "integer"
                     : value.is_number()                                     ? "number"
                     : value.is_string()                                     ? "string"
                     : value.is_boolean()                                    ? "boolean"
                     : value.is_array()                                      ? "array"
                     : value.is_object()                                     ? "object"
                                                                             : "null";
  schema.add(field,
             {{"type", type},
              {"description", "the recorded value of fact '" + fact + "'" + (path.empty() ? "" : " at " + path)}},
             true);
}

GROUNDPLANE_INLINE void field_matches_fact::verify(const FactRegistry& registry, const nlohmann::json& output,
                                                   std::vector<Finding>& findings) const {
  const nlohmann::json& want = truth(registry);
  const nlohmann::json* said = detail::find_field(output, field);
  // Judged first, worded only when wrong: a field that holds builds no strings.
  const detail::FactMatch match = detail::classify_fact_match(said, want);
  if (match.kind == detail::FactMatch::Kind::holds) return;
  findings.push_back(detail::fact_match_finding(*this, registry.get<Fact>(fact), want, said, match));
}

}  // namespace groundplane
