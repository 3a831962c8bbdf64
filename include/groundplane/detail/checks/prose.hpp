// Prose with checked slots (BoundaryOptions::prose_field): the model writes its answer as
// a template whose every number and recorded name is a slot bound to a checked field.
//
//   "{winner} led with a CTR of {score}; {{braces}} are literal."
//
// The rules, fail-closed (a finding for whatever they cannot prove):
// - A slot is {name} (a top-level field) or {/json/pointer}; {{ and }} are literal braces.
//   Anything else between braces — whitespace, {}, a brace left open or never opened — is
//   a finding, and its text stays prose (read by the rules below).
// - The template with its slots removed (each slot a word break) holds no run of numbers
//   of any script ('3', '٣', '²', '①'), and no name recorded in the boundary's facts
//   (Ranking entities, Domain members, a Table's key column) as a whole word: words are
//   maximal runs of letters, marks, numbers and '_', invisible characters inside them
//   ignored; a word is the name when it reads as it does — after compatibility
//   normalization (fullwidth and mathematical letters, ligatures), case folding and the
//   UTS #39 confusable skeleton (Cyrillic 'о' for 'o') — and a name of several words
//   matches them in sequence. Each finding names its byte offset.
// - A slot names a field the output has, holding a string, number or boolean, that a
//   check states it reads (a pointer under such a field counts) or free_fields names.
// - A sign, digit or decimal point written against a slot whose value starts or ends as
//   a number ("-{score}", "{score}5", ".{score}", "{score}.5", "l{score}") is a finding:
//   what a person reads there is another number than the checked one.
// - The slots may insert at most BoundaryOptions::max_text_bytes more than the template.
// - The prose member is a non-empty string.
// What is accepted renders with each slot replaced by the value as the model wrote it.
// Reading is one pass over the template, and no finding past the eight listed is built.
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

// The names a boundary's facts record, as a trie of their words' keys (ProseKeys), so a
// template is read in one pass however many names there are. Built once per Boundary.
// A word of the template is a word of a name when either of its keys is either of the
// name word's. A name of more than max_words words is matched by its first max_words.
class ProseNames {
 public:
  ProseNames() = default;
  ProseNames(const FactRegistry& registry, const std::vector<std::string>& facts);

  static constexpr std::size_t max_words = 16;
  // Nodes of the trie followed at once from one word of the template; past it the first
  // ones are followed (only recorded names that are each other's look-alikes get there).
  static constexpr std::size_t max_paths = 32;

  struct Source {
    std::string name;
    std::string provenance;
  };
  // A name that ends at a node: the fact it was recorded in first, and how it was written.
  struct Ending {
    std::size_t fact = 0;
    std::string text;
  };

  // The nodes under `node` (0 is the root) that a word with keys `first`, `second` leads
  // to, appended to `out` if not there yet (at most max_paths in all). `probe`: scratch.
  void children(std::uint32_t node, const std::string& first, const std::string& second,
                std::vector<std::uint32_t>& out, std::string& probe) const;
  // The name ending at `node`, or nullptr.
  const Ending* ending(std::uint32_t node) const { return ends_[node] == no_end ? nullptr : &endings_[ends_[node]]; }
  const Source& source(std::size_t fact) const { return facts_[fact]; }
  bool empty() const noexcept { return endings_.empty(); }
  // False when no name starts with a word of these keys: most words of a template, told
  // apart without a hash table lookup.
  bool may_start(const std::string& first, const std::string& second) const { return marked(first) || marked(second); }

 private:
  static constexpr std::uint32_t no_end = 0xFFFFFFFF;
  static constexpr std::size_t start_bits = std::size_t{1} << 16;

  static std::size_t bit_of(const std::string& key) noexcept {
    std::uint64_t h = 14695981039346656037ULL;  // FNV-1a
    for (const char c : key) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return static_cast<std::size_t>(h ^ (h >> 32)) & (start_bits - 1);
  }
  bool marked(const std::string& key) const noexcept {
    if (starts_.empty()) return false;
    const std::size_t b = bit_of(key);
    return ((starts_[b / 64] >> (b % 64)) & 1U) != 0;
  }

  void add(std::string_view text, std::size_t fact);
  // An edge's key: the parent node's number, then the word's key.
  static void edge(std::string& key, std::uint32_t parent, const std::string& word_key);
  void link(const std::string& key, std::uint32_t child);

  struct Link {
    std::uint32_t child;
    std::uint32_t next;  // the next link of the same edge key, or no_end
  };

  std::vector<Source> facts_;
  std::vector<std::uint64_t> starts_;        // a bit per hash of a first word's keys
  std::vector<std::uint32_t> ends_{no_end};  // per node: an index into endings_, or no_end
  std::vector<Ending> endings_;
  // The map types the library already instantiates elsewhere: a header-only build parses
  // and instantiates no new one for prose.
  std::unordered_map<std::string, std::size_t> edges_;  // parent and a key -> its first link
  std::vector<Link> links_;
  std::unordered_map<std::string, std::size_t> nodes_;  // while building: parent and first key -> node
};

// What the prose check needs from its boundary.
struct ProseRules {
  std::string_view field;                       // BoundaryOptions::prose_field
  const std::vector<std::string>* free_fields;  // BoundaryOptions::free_fields
  const std::vector<std::string>* read;         // every field a check states it reads
  const ProseNames* names;
  std::size_t max_growth;  // BoundaryOptions::max_text_bytes: how much longer than the template it may render
};

// Appends the prose findings about `output` (check "prose", field rules.field) and
// returns the rendered prose when there are none.
std::optional<std::string> check_prose(const nlohmann::json& output, const ProseRules& rules,
                                       std::vector<Finding>& findings);

// How schema() describes the prose field to the model.
nlohmann::json prose_schema(const std::vector<std::string>& slots);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/checks/prose-inl.hpp"
#endif
