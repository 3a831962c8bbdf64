// gp::field_matches_fact — an output field states exactly what a recorded Fact holds (or
// one part of it, at a JSON Pointer).
//
//   reg.record_fact("row_count", 1042, {.tool = "warehouse.query", .args = {{"table", "orders"}}});
//   gp::field_matches_fact{.fact = "row_count", .field = "rows"}
//
// Equality is structural and type-strict: numbers compare as exact decimals (1042 and
// 1042.0 are one number), true is not 1 and "1042" is not 1042, objects compare member
// by member and arrays element by element in order. A wrong value reads:
//   unsupported claim in field 'rows': model said 1000, registered facts support 1042
//   | fact='row_count'
//   | provenance=warehouse.query(table='orders')
//   | fact 'row_count' holds 1042; the stated value differs (off by -42)
// A field the output lacks is a finding.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/schema.hpp"

namespace groundplane {

namespace detail {
// Where two JSON values first differ, type-strict (numbers by exact value): "" when the
// roots differ, "/rows/0/score" inside; nullopt when they are equal.
std::optional<std::string> first_difference(const nlohmann::json& said, const nlohmann::json& truth);
}  // namespace detail

struct field_matches_fact {
  std::string fact;       // a Fact
  std::string field;      // output field (name or JSON Pointer)
  std::string path = "";  // JSON Pointer into the fact's value; "" = the whole value

  static constexpr const char* check_name = "field_matches_fact";

  std::vector<std::string> leans_on() const { return {fact}; }

  // The output fields it reads (Boundary::stream runs it once they have closed; prose
  // slots over them count as checked).
  std::vector<std::string> reads() const { return {field}; }

  // field_matches_fact(fact='row_count', field='rows')
  std::string name() const;

  void validate(const FactRegistry& registry) const;

  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

 private:
  // The part of the fact's value the field states.
  const nlohmann::json& truth(const FactRegistry& registry) const;
};

static_assert(Check<field_matches_fact>);

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/field_matches_fact-inl.hpp"
#endif
