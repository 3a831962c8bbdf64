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
  const Fact& recorded = registry.get<Fact>(fact);
  const nlohmann::json& want = truth(registry);
  const nlohmann::json* said = detail::find_field(output, field);
  if (said != nullptr && !detail::first_difference(*said, want)) return;
  Finding f = detail::finding_about(check_name, field, recorded);
  f.supported = detail::render(want);
  const std::string holds = "fact " + detail::quote(fact) +
                            (path.empty() ? std::string() : " at " + detail::quote(path)) + " holds " + f.supported;
  if (said == nullptr) {
    f.detail = holds + "; the output has no such field";
    findings.push_back(std::move(f));
    return;
  }
  f.said = detail::render(*said);
  const std::string at = *detail::first_difference(*said, want);
  f.detail = holds + "; the stated value differs";
  if (!at.empty()) {
    f.detail += " at " + detail::quote(at);
  } else if (said->is_number() && want.is_number()) {
    if (const auto a = stated_number(*said); a)
      if (const auto b = Decimal::from_json(want)) {
        const Decimal off = *a - *b;
        f.detail += " (off by " + std::string(off.signum() > 0 ? "+" : "") + detail::render(off) + ")";
      }
  } else if (said->type() != want.type()) {
    f.detail += ": it is " + std::string(detail::type_name(*said)) + ", and the fact holds " +
                std::string(detail::type_name(want));
  }
  findings.push_back(std::move(f));
}

}  // namespace groundplane
