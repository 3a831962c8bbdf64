// Prose with checked slots (BoundaryOptions::prose_field): the model writes its answer as
// a template whose every number and recorded name is a slot bound to a checked field.
//
//   "{winner} led with a CTR of {score}; {{braces}} are literal."
//
// The rules, fail-closed (a finding for whatever they cannot prove):
// - A slot is {name} (a top-level field) or {/json/pointer}; {{ and }} are literal braces.
//   Anything else between braces — whitespace, {}, a brace left open or never opened — is
//   a finding, and its text stays prose (read by the rules below).
// - The template with its slots removed (each slot a word break) holds no run of decimal
//   digits of any script, and no name recorded in the boundary's facts (Ranking entities,
//   Domain members, a Table's key column) as a whole word: words are maximal runs of
//   letters, marks, digits and '_', compared after NFC and simple case folding; a name of
//   several words matches them in sequence. Each finding names its byte offset.
// - A slot names a field the output has, holding a string, number or boolean, that a
//   check states it reads (a pointer under such a field counts) or free_fields names.
// - The prose member is a non-empty string.
// What is accepted renders with each slot replaced by the value as the model wrote it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"

namespace groundplane::detail {

// The names a boundary's facts record, indexed by their first word (folded), so a
// template is read in one pass however many names there are. Built once per Boundary.
class ProseNames {
 public:
  ProseNames() = default;
  ProseNames(const FactRegistry& registry, const std::vector<std::string>& facts);

  struct Name {
    std::vector<std::string> words;  // folded
    std::size_t fact = 0;            // index into facts()
  };
  struct Source {
    std::string name;
    std::string provenance;
  };

  // The names whose first word is `folded_word`, longest first.
  const std::vector<std::uint32_t>* starting_with(const std::string& folded_word) const;
  const Name& name(std::uint32_t id) const { return names_[id]; }
  const Source& source(std::size_t fact) const { return facts_[fact]; }

 private:
  void add(std::string_view text, std::size_t fact);

  std::vector<Name> names_;
  std::vector<Source> facts_;
  std::unordered_map<std::string, std::vector<std::uint32_t>> by_first_;
};

// What the prose check needs from its boundary.
struct ProseRules {
  std::string_view field;                       // BoundaryOptions::prose_field
  const std::vector<std::string>* free_fields;  // BoundaryOptions::free_fields
  const std::vector<std::string>* read;         // every field a check states it reads
  const ProseNames* names;
  std::size_t max_growth;  // BoundaryOptions::max_text_bytes: how much longer than its template a rendering may be
};

// A word of prose: `length` bytes at `offset`.
struct ProseWord {
  std::size_t offset = 0;
  std::size_t length = 0;
};
// The words of `text`: maximal runs of letters, marks, decimal digits and '_'.
std::vector<ProseWord> prose_words(std::string_view text);

// Appends the prose findings about `output` (check "prose", field rules.field) and
// returns the rendered prose when there are none.
std::optional<std::string> check_prose(const nlohmann::json& output, const ProseRules& rules,
                                       std::vector<Finding>& findings);

// How schema() describes the prose field to the model.
nlohmann::json prose_schema(const std::vector<std::string>& slots);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/prose-inl.hpp"
#endif
