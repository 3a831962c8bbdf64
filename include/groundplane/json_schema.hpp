// gp::JsonSchema: what an action takes as input, checked before the action runs.
//
// A schema is compiled once, when it is declared. Anything the validator does not
// support, and anything malformed, is a ConfigurationError then, naming the keyword and
// where it stands in the schema (a JSON Pointer), so nothing is silently skipped.
// validate() then judges a payload in time linear in its size, and says what is wrong
// in short issues that name places, JSON types and the schema's own values, never a
// value from the payload:
//
//   missing required 'sku'
//   'qty' should be integer, not string
//   unexpected key 'confirm'
//   '/items/0/qty' is below the minimum 1
//   this action takes no input
//
// Supported: every draft 7 validation keyword, boolean schemas, `$ref` within the
// schema (into `definitions`/`$defs` or any JSON Pointer), and the 2020-12 spellings
// `$defs`, `prefixItems` and `dependentRequired`. Refused when compiled: `pattern` and
// `patternProperties` (a backtracking regular expression run on model-written text is
// a denial-of-service risk), a `$ref` to another document, and `unevaluatedProperties`,
// `unevaluatedItems`, `dependentSchemas`, `minContains`, `maxContains`, `$dynamicRef`,
// `$recursiveRef`. Annotations (`title`, `format`, `$id`, ...) and keywords no draft
// defines are ignored. docs/input-schemas.md has the whole contract: the issue
// wording for every keyword, their order, and the bounds below.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/errors.hpp"

namespace groundplane {

namespace detail {
struct CompiledSchema;
}

class JsonSchema {
 public:
  // validate()'s default cap on issues; past it, one more entry says "and N more".
  static constexpr std::size_t default_max_issues = 10;
  // A payload nested deeper than this many arrays/objects is refused whatever the
  // schema says (one issue naming where), and nothing below that depth is read.
  static constexpr std::size_t max_depth = 64;
  // Work per payload value: validation takes at most this many steps per value of the
  // payload (plus max_steps_base). A schema whose subschemas multiply the work past it
  // (anyOf over alternatives that each recurse, say) gets one issue saying the input was
  // too large to check, never a slow check.
  static constexpr std::size_t max_steps_per_value = 64;
  static constexpr std::size_t max_steps_base = 4096;
  // Compile-time bounds on the schema: subschemas nested in one another, and subschemas
  // that apply at the same place of the payload one inside another ($ref, allOf, anyOf,
  // oneOf, not, if/then/else, dependencies) without descending into it.
  static constexpr std::size_t max_schema_depth = 128;
  static constexpr std::size_t max_same_place_chain = 16;

  // Compiles `schema`: a JSON Schema (an object or a boolean), or the string "none"
  // (the action takes no input). Throws ConfigurationError for anything else, for a
  // keyword the validator does not support, and for a malformed schema (a keyword with
  // the wrong type, a `$ref` it cannot resolve, a `$ref` cycle that reads no input),
  // naming the keyword and its place in the schema.
  explicit JsonSchema(const nlohmann::json& schema);

  // What is wrong with `payload`, in a fixed order; empty when it is valid. At most
  // `max_issues` entries (at least one), then one more: "and N more". Never throws for
  // any payload (only std::bad_alloc can escape).
  std::vector<std::string> validate(const nlohmann::json& payload, std::size_t max_issues = default_max_issues) const;

  // True for "none": a null or empty-object payload is valid (and means no input),
  // anything else is "this action takes no input".
  bool takes_no_input() const noexcept;

  // The schema as declared ("none" for none): what an agent is shown as `expects`.
  const nlohmann::json& schema() const noexcept;

 private:
  std::shared_ptr<const detail::CompiledSchema> compiled_;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/json/json_schema_check.hpp"  // validation, which JsonSchema::validate runs
#include "groundplane/json_schema-inl.hpp"
#endif
