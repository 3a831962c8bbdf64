// gp::SchemaBuilder — how checks describe the output fields they read, so that
// Boundary::schema() can hand constrained decoding the same shape the checker reads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/field.hpp"

namespace groundplane {

// What Boundary::schema() emits. strict: the shape strict structured outputs (OpenAI's
// "strict": true) require — every object closed (additionalProperties: false), every
// property listed in required, and a property the checks do not require made nullable
// (anyOf with {"type": "null"}), so the model may say null for "not claimed".
struct SchemaOptions {
  bool strict = false;
};

class SchemaBuilder {
 public:
  // Above this many names an `enum` is left out (grammar-based decoders choke on huge
  // enums) and the property's description says so.
  static constexpr std::size_t max_enum = 200;

  SchemaBuilder()
      : root_{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"type", "object"},
              {"properties", nlohmann::json::object()},
              {"required", nlohmann::json::array()}} {}

  // Declares the schema of one output field (a top-level key or a JSON Pointer; numeric
  // pointer tokens address array items). A field declared twice keeps its first schema.
  void add(std::string_view field, nlohmann::json schema, bool required) {
    std::vector<std::string> tokens;
    if (!field.empty() && field[0] == '/') {
      auto parsed = detail::pointer_tokens(field);
      if (!parsed) return;
      tokens = std::move(*parsed);
    } else {
      tokens.emplace_back(field);
    }
    nlohmann::json* node = &root_;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const bool last = i + 1 == tokens.size();
      if (detail::array_index(tokens[i]) && (*node)["type"] == "array") {
        node = &(*node)["items"];
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
        if (std::find(req.begin(), req.end(), tokens[i]) == req.end()) req.push_back(tokens[i]);
      }
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

  // {"type": "string", "enum": [...]} for a field that names one of `names`; the enum
  // is omitted above max_enum names, and the description says why.
  template <class Names>
  static nlohmann::json name_schema(const Names& names, std::string_view what) {
    nlohmann::json s = {{"type", "string"}};
    if (names.size() <= max_enum) {
      s["enum"] = nlohmann::json::array();
      for (const auto& n : names) s["enum"].push_back(n);
      s["description"] = "one of the recorded " + std::string(what);
    } else {
      s["description"] = "one of the " + std::to_string(names.size()) + " recorded " + std::string(what) +
                         " (enum omitted above " + std::to_string(max_enum) + " names)";
    }
    return s;
  }

  const nlohmann::json& schema() const noexcept { return root_; }

 private:
  static void merge(nlohmann::json& into, nlohmann::json schema) {
    if (into.is_null() || into.empty()) into = std::move(schema);
  }

  nlohmann::json root_;
};

namespace detail {

// The strict form of a schema SchemaBuilder built (see SchemaOptions). Stays inside what
// llama.cpp's JSON-Schema-to-grammar converter accepts: no $ref, and a nullable
// property is an object holding anyOf alone.
inline void make_strict(nlohmann::json& s) {
  if (!s.is_object()) return;
  if (auto it = s.find("anyOf"); it != s.end() && it->is_array())
    for (auto& alternative : *it) make_strict(alternative);
  if (auto it = s.find("items"); it != s.end()) make_strict(*it);
  const auto props = s.find("properties");
  if (props == s.end() || !props->is_object()) return;
  nlohmann::json required =
      s.contains("required") && s["required"].is_array() ? s["required"] : nlohmann::json::array();
  nlohmann::json all = nlohmann::json::array();
  for (auto& [name, property] : props->items()) {
    make_strict(property);
    if (std::find(required.begin(), required.end(), name) == required.end())
      property = nlohmann::json{{"anyOf", nlohmann::json::array({std::move(property), {{"type", "null"}}})}};
    all.push_back(name);
  }
  s["required"] = std::move(all);
  s["additionalProperties"] = false;
}

inline nlohmann::json strict_schema(nlohmann::json schema) {
  make_strict(schema);
  return schema;
}

}  // namespace detail
}  // namespace groundplane
