// The bodies of schema.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/schema.hpp"

namespace groundplane {

GROUNDPLANE_INLINE SchemaBuilder::SchemaBuilder()
    : root_{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
            {"type", "object"},
            {"properties", nlohmann::json::object()},
            {"required", nlohmann::json::array()}} {}

GROUNDPLANE_INLINE nlohmann::json SchemaBuilder::entity_schema(const std::vector<Entity>& names,
                                                               std::string_view what) {
  std::size_t integers = 0;
  for (const auto& n : names) integers += n.is_integer() ? std::size_t{1} : std::size_t{0};
  return entity_schema(names, what, integers);
}

GROUNDPLANE_INLINE nlohmann::json SchemaBuilder::entity_schema(const std::vector<Entity>& names, std::string_view what,
                                                               std::size_t integer_names) {
  const bool integers = integer_names > 0;
  const bool strings = integer_names < names.size();
  nlohmann::json s = nlohmann::json::object();
  if (strings != integers) s["type"] = strings ? "string" : "integer";
  if (names.size() <= max_enum) {
    s["enum"] = nlohmann::json::array();
    for (const auto& n : names) s["enum"].push_back(n.to_json());
    s["description"] = "one of the recorded " + std::string(what);
  } else {
    s["description"] = "one of the " + std::to_string(names.size()) + " recorded " + std::string(what) +
                       " (enum omitted above " + std::to_string(max_enum) + " names)";
  }
  return s;
}

namespace detail {
GROUNDPLANE_INLINE void make_strict(nlohmann::json& s) {
  if (!s.is_object()) return;
  if (auto it = s.find("anyOf"); it != s.end() && it->is_array())
    for (auto& alternative : *it) make_strict(alternative);
  if (auto it = s.find("items"); it != s.end()) make_strict(*it);
  const auto props = s.find("properties");
  if (props == s.end() || !props->is_object()) return;
  std::set<std::string, std::less<>> required;  // a lookup per property: linear in them
  if (const auto r = s.find("required"); r != s.end() && r->is_array())
    for (const auto& name : *r)
      if (name.is_string()) required.insert(name.get<std::string>());
  nlohmann::json all = nlohmann::json::array();
  for (auto& [name, property] : props->items()) {
    make_strict(property);
    if (!required.contains(name))
      property = nlohmann::json{{"anyOf", nlohmann::json::array({std::move(property), {{"type", "null"}}})}};
    all.push_back(name);
  }
  s["required"] = std::move(all);
  s["additionalProperties"] = false;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE nlohmann::json strict_schema(nlohmann::json schema) {
  make_strict(schema);
  return schema;
}
}  // namespace detail

GROUNDPLANE_INLINE void SchemaBuilder::add(std::string_view field, nlohmann::json schema, bool required) {
  std::vector<std::string> tokens;
  if (!field.empty() && field[0] == '/') {
    auto parsed = detail::pointer_tokens(field);
    if (!parsed) return;
    tokens = std::move(*parsed);
  } else {
    tokens.emplace_back(field);
  }
  nlohmann::json* node = &root_;
  std::string place;  // the tokens so far, each with its length: where `node` stands
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const bool last = i + 1 == tokens.size();
    if (detail::array_index(tokens[i]) && (*node)["type"] == "array") {
      node = &(*node)["items"];
      place += "[]";
      if (last) {
        merge(*node, std::move(schema));
        return;
      }
      continue;
    }
    if (!node->contains("properties")) {
      (*node)["type"] = "object";
      (*node)["properties"] = nlohmann::json::object();
    }
    if (required) {
      auto& req = (*node)["required"];
      if (!req.is_array()) req = nlohmann::json::array();
      if (seen_required_.insert(place).second)  // names a described schema brought with it
        for (const auto& name : req)
          if (name.is_string())
            required_.insert(place + std::to_string(name.get_ref<const std::string&>().size()) + ':' +
                             name.get<std::string>());
      if (required_.insert(place + std::to_string(tokens[i].size()) + ':' + tokens[i]).second) req.push_back(tokens[i]);
    }
    place += std::to_string(tokens[i].size()) + ':' + tokens[i];
    auto& child = (*node)["properties"][tokens[i]];
    if (last) {
      merge(child, std::move(schema));
      return;
    }
    if (child.is_null()) {
      const bool next_is_index = detail::array_index(tokens[i + 1]).has_value();
      child = next_is_index ? nlohmann::json{{"type", "array"}, {"items", nlohmann::json::object()}}
                            : nlohmann::json{{"type", "object"}, {"properties", nlohmann::json::object()}};
    }
    node = &child;
  }
}

GROUNDPLANE_INLINE void SchemaBuilder::merge(nlohmann::json& into, nlohmann::json schema) {
  if (into.is_null() || into.empty()) into = std::move(schema);
}

}  // namespace groundplane
