// gp::SchemaBuilder — how checks describe the output fields they read, so that
// Boundary::schema() can hand constrained decoding the same shape the checker reads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/entity.hpp"

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

  SchemaBuilder();

  // Declares the schema of one output field (a top-level key or a JSON Pointer; numeric
  // pointer tokens address array items). A field declared twice keeps its first schema.
  void add(std::string_view field, nlohmann::json schema, bool required);

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

  // The same for entities: {"type": "string"}, {"type": "integer"} or (mixed) neither,
  // with the enum of their JSON values.
  static nlohmann::json entity_schema(const std::vector<Entity>& names, std::string_view what);
  // The same when how many of the names are integers is known (Ranking::integer_entities,
  // counted when it was recorded): above max_enum names, none of them is read.
  static nlohmann::json entity_schema(const std::vector<Entity>& names, std::string_view what, std::size_t integers);

  const nlohmann::json& schema() const noexcept { return root_; }

 private:
  static void merge(nlohmann::json& into, nlohmann::json schema);

  nlohmann::json root_;
  // Each (object, name) already in that object's `required`, keyed by the object's place
  // and the name, so a builder fed thousands of fields stays linear; and the places whose
  // `required` has been read into it.
  std::set<std::string, std::less<>> required_;
  std::set<std::string, std::less<>> seen_required_;
};

namespace detail {

// The strict form of a schema SchemaBuilder built (see SchemaOptions). Stays inside what
// llama.cpp's JSON-Schema-to-grammar converter accepts: no $ref, and a nullable
// property is an object holding anyOf alone.
void make_strict(nlohmann::json& s);

nlohmann::json strict_schema(nlohmann::json schema);

}  // namespace detail
}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/schema-inl.hpp"
#endif
