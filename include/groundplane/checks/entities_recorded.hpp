// gp::entities_recorded — every name the model used came from a recorded set.
//
//   gp::entities_recorded{.facts = {"campaigns"}, .fields = {"winner", "mentioned"}}
//
// Each field holds a name, an array of names, or an array of objects with a "name"
// (a top-level key, or a JSON Pointer when it starts with '/'). A name is recorded when
// it is a member of one of the facts — a Domain's members, a Ranking's entities, or the
// values of a Table's key column — by JSON type and value: an integer id (101) is a
// name, and "101" or 101.0 is not that name. Strings compare exactly and
// case-sensitively; case_sensitive = false compares them after Unicode NFC normalization
// and simple case folding. A field the output lacks is a finding, and so is an empty
// list or an empty string — the claim that none qualified — unless allow_empty.
//
// An unknown name reads:
//   unsupported claim in field '/mentioned/1': model said 'harbor'
//   | fact='campaigns'
//   | provenance=crm.list(kind='campaign')
//   | 'harbor' is not a recorded name; closest: 'harbour'; recorded: 'north', 'harbour', 'delta'
//
// The recorded names are listed (at most 20, then "and N more"). A Domain recorded with a
// label names its members so: "'atlas' is not a recorded region".
//
// Cost. Membership is one hash lookup per name and per fact, whatever the size of the
// sets. Only a name that misses is searched for suggestions, and that search is bounded:
//   - a candidate is at most max_distance(name) edits away (Levenshtein, counted in
//     characters, i.e. code points, so an accent or an invisible character is one edit):
//     1 for names of up to 4 characters, 2 up to 12, 3 beyond; a case-only difference
//     ("Harbour" for "harbour") is always the closest; or, failing that, the two share
//     most of their characters in order (a longest common subsequence of at least 60% of
//     their combined length: 'northwest' and 'north'), ranked after the near typos;
//   - a candidate whose length differs by more than that bound, or whose set of
//     characters differs by more than that many, is skipped before any distance is
//     computed, and the distance itself is computed in a band of that width with an
//     early exit;
//   - one verify call examines at most suggestion_budget recorded names in total, across
//     every unknown name in the output (a name repeated is searched once); past that an
//     unknown name is still a finding, reported with whatever suggestions were found.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/checks/ranked.hpp"
#include "groundplane/detail/json/json_pointer.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/wording.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"

namespace groundplane {

namespace detail {

std::vector<std::uint32_t> code_points(std::string_view s);

// Upper-case hex, at least `width` digits.
std::string hex_digits(std::uint32_t v, int width);

std::string code_point_names(const std::vector<std::uint32_t>& cps, std::size_t from, std::size_t to);

// When `said` and the recorded name it is closest to differ only in ways a reader
// cannot see — Unicode normalization (e + U+0301 for U+00E9), a look-alike letter from
// another script (Cyrillic U+0430 for Latin a), an invisible character (U+200B) — the
// difference by code point; "" when they differ visibly (or are ASCII both).
std::string invisible_difference(std::string_view said, std::string_view recorded);

// The characters of s as code points; a byte that is not valid UTF-8 stands for itself
// above the code point range, so it still differs from every character.
void decode_code_points(std::string_view s, std::vector<char32_t>& out);

bool is_ascii(std::string_view s) noexcept;

// Characters (code points) in s, counting no further than stop_at; a byte that is not
// valid UTF-8 counts as one.
std::size_t character_count(std::string_view s, std::size_t stop_at = std::numeric_limits<std::size_t>::max()) noexcept;

// Levenshtein distance in characters, computed only inside a band of width `bound`
// around the diagonal; any distance above `bound` is reported as bound + 1. ASCII names
// are compared byte by byte; others are decoded first. The scratch rows are reused
// across calls so a search allocates once.
class BoundedEditDistance {
 public:
  std::size_t operator()(std::string_view a, std::string_view b, std::size_t bound) {
    if (is_ascii(a) && is_ascii(b)) return banded(a, b, bound);
    decode_code_points(a, a32_);
    decode_code_points(b, b32_);
    return banded(std::u32string_view(a32_.data(), a32_.size()), std::u32string_view(b32_.data(), b32_.size()), bound);
  }

 private:
  template <class Char>
  std::size_t banded(std::basic_string_view<Char> a, std::basic_string_view<Char> b, std::size_t bound) {
    if (a.size() > b.size()) std::swap(a, b);
    const std::size_t over = bound + 1;
    if (b.size() - a.size() > bound) return over;
    // A shared prefix or suffix never changes the distance.
    while (!a.empty() && a.front() == b.front()) {
      a.remove_prefix(1);
      b.remove_prefix(1);
    }
    while (!a.empty() && a.back() == b.back()) {
      a.remove_suffix(1);
      b.remove_suffix(1);
    }
    const std::size_t n = a.size();
    const std::size_t m = b.size();
    if (n == 0) return m <= bound ? m : over;
    prev_.assign(m + 1, over);
    cur_.assign(m + 1, over);
    for (std::size_t j = 0; j <= std::min(m, bound); ++j) prev_[j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
      const std::size_t lo = i > bound ? i - bound : 1;
      const std::size_t hi = std::min(m, i + bound);
      cur_[lo - 1] = lo == 1 && i <= bound ? i : over;
      std::size_t row_min = cur_[lo - 1];
      for (std::size_t j = lo; j <= hi; ++j) {
        const std::size_t substitute = prev_[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
        const std::size_t v = std::min({substitute, prev_[j] + 1, cur_[j - 1] + 1, over});
        cur_[j] = v;
        row_min = std::min(row_min, v);
      }
      if (hi < m) cur_[hi + 1] = over;  // the next row reads one cell past this band
      if (row_min > bound) return over;
      std::swap(prev_, cur_);
    }
    return std::min(prev_[m], over);
  }

  std::vector<std::size_t> prev_;
  std::vector<std::size_t> cur_;
  std::vector<char32_t> a32_;
  std::vector<char32_t> b32_;
};

// Which characters occur in s, folded onto 64 bits. Each edit adds at most one
// character to a string's set and removes at most one, so when two masks differ by more
// than k bits in either direction the strings are more than k edits apart.
std::uint64_t char_mask(std::string_view s) noexcept;

bool equal_ignoring_ascii_case(std::string_view a, std::string_view b) noexcept;

// The nearest recorded names to one unknown name, best first.
class NameSuggester {
 public:
  static constexpr std::size_t max_suggestions = 3;

  // Edits allowed between a name and a suggestion for it.
  static constexpr std::size_t max_distance(std::size_t length) noexcept {
    return length <= 4 ? 1 : length <= 12 ? 2 : 3;
  }

  explicit NameSuggester(std::string_view name, std::size_t* budget)
      : name_(name),
        length_(character_count(name)),
        bound_(max_distance(length_)),
        mask_(char_mask(name)),
        budget_(budget) {}

  // Offers one recorded name; false once the budget is spent (stop offering).
  bool offer(std::string_view candidate) {
    if (*budget_ == 0) return false;
    --*budget_;
    if (const auto d = near_typo(candidate)) keep(*d, candidate);
    else if (const auto sim = similarity(candidate)) keep(bound_ + 1 + (100 - *sim), candidate);
    return true;
  }

  // The suggestions, best first; ties keep the order they were offered in.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [score, name] : best_) out.push_back(name);
    return out;
  }
  bool case_only() const noexcept { return !best_.empty() && best_.front().first == 0; }
  std::size_t bound() const noexcept { return bound_; }

 private:
  // 0: differs only in case; otherwise the edit distance, when within the bound.
  std::optional<std::size_t> near_typo(std::string_view candidate) {
    // Lengths in characters, not bytes (an accent or an invisible character is one
    // edit), decided without reading the candidate where its byte length is enough: it
    // has at most as many characters as bytes, and counting stops past the longest allowed.
    const std::size_t longest = length_ + bound_;
    if (candidate.size() + bound_ < length_) return std::nullopt;
    if (candidate.size() > longest && character_count(candidate, longest + 1) > longest) return std::nullopt;
    if (equal_ignoring_ascii_case(candidate, name_)) return 0;
    const std::uint64_t m = char_mask(candidate);
    if (static_cast<std::size_t>(std::popcount(m & ~mask_)) > bound_ ||
        static_cast<std::size_t>(std::popcount(mask_ & ~m)) > bound_)
      return std::nullopt;
    const std::size_t d = distance_(name_, candidate, bound_);
    if (d > bound_) return std::nullopt;
    return d;
  }

  // The share (percent) of both names' characters their longest common subsequence
  // covers, when it is at least 60%; names over 64 characters are not compared.
  std::optional<std::size_t> similarity(std::string_view candidate) {
    constexpr std::size_t longest_compared = 64;
    const std::size_t la = length_;
    if (la == 0 || la > longest_compared) return std::nullopt;
    // 10 × min(la, lb) >= 3 × (la + lb) bounds lb to [3la/7, 7la/3].
    if (candidate.size() * 7 < 3 * la) return std::nullopt;
    const std::size_t most = (7 * la) / 3;
    const std::size_t lb = character_count(candidate, most + 1);
    if (lb > most || lb * 7 < 3 * la) return std::nullopt;
    decode_code_points(name_, a32_);
    decode_code_points(candidate, b32_);
    lcs_.assign(b32_.size() + 1, 0);
    for (std::size_t i = 1; i <= a32_.size(); ++i) {
      std::size_t diagonal = 0;
      for (std::size_t j = 1; j <= b32_.size(); ++j) {
        const std::size_t up = lcs_[j];
        lcs_[j] = a32_[i - 1] == b32_[j - 1] ? diagonal + 1 : std::max(lcs_[j], lcs_[j - 1]);
        diagonal = up;
      }
    }
    const std::size_t common = lcs_[b32_.size()];
    if (10 * common < 3 * (la + lb)) return std::nullopt;
    return 200 * common / (la + lb);
  }

  void keep(std::size_t score, std::string_view candidate) {
    for (const auto& kept : best_)
      if (kept.second == candidate) return;  // the same name recorded in two facts
    auto at = std::find_if(best_.begin(), best_.end(), [&](const auto& kept) { return kept.first > score; });
    if (best_.size() == max_suggestions && at == best_.end()) return;
    best_.insert(at, {score, std::string(candidate)});
    if (best_.size() > max_suggestions) best_.pop_back();
  }

  std::string_view name_;
  std::size_t length_;  // in characters
  std::size_t bound_;
  std::uint64_t mask_;
  std::size_t* budget_;
  BoundedEditDistance distance_;
  std::vector<char32_t> a32_;
  std::vector<char32_t> b32_;
  std::vector<std::size_t> lcs_;
  std::vector<std::pair<std::size_t, std::string>> best_;
};

// 'a', 'a' or 'b', 'a', 'b' or 'c'.
std::string quoted_or_list(const std::vector<std::string>& names);

// A JSON Pointer to `token` inside `field` (a top-level key or a pointer):
// ("top", "2") -> "/top/2"; ("/a/b", "name") -> "/a/b/name".
std::string pointer_into(std::string_view field, std::string_view token);

// The facts an entities_recorded check reads, looked up once per call.
struct EntitySources {
  struct Source {
    const Domain* domain = nullptr;
    const Ranking* ranking = nullptr;
    const Table* table = nullptr;
    std::string_view name;
    // Rendered only for a finding: a claim that holds reads no provenance.
    const Provenance* provenance = nullptr;
  };
  std::vector<Source> list;
  bool case_sensitive = true;

  EntitySources(const FactRegistry& registry, const std::vector<std::string>& facts, bool exact_case);

  // By JSON type and value: one hash lookup per fact (two for a string not found
  // exactly when case does not count).
  bool contain(const nlohmann::json& said) const {
    if (!said.is_string() && !detail::is_integer_json(said)) return false;
    for (const auto& s : list) {
      if (s.domain && s.domain->contains_json(said)) return true;
      if (s.ranking && s.ranking->locate(said)) return true;
      if (s.table && s.table->row_of(said)) return true;
    }
    if (case_sensitive || !said.is_string()) return false;
    const auto& text = said.get_ref<const std::string&>();
    for (const auto& s : list) {
      if (s.domain && s.domain->locate_ignoring_case(text)) return true;
      if (s.ranking && s.ranking->locate_ignoring_case(text)) return true;
      if (s.table && s.table->row_ignoring_case(text)) return true;
    }
    return false;
  }

  // f(entity) for every recorded name, fact by fact (a ranking's best first), until f
  // returns false.
  template <class F>
  void for_each_name(F&& f) const {
    for (const auto& s : list) {
      if (s.domain) {
        for (const auto& m : s.domain->members())
          if (!f(m)) return;
      } else if (s.ranking) {
        for (const auto& entity : s.ranking->order())
          if (!f(entity)) return;
      } else if (s.table) {
        for (std::size_t r = 0; r < s.table->row_count(); ++r)
          if (const auto e = s.table->entity_at(r); e && !f(*e)) return;
      }
    }
  }

  // What a member is called: a single Domain's label, else "name".
  std::string noun() const {
    if (list.size() == 1 && list.front().domain && !list.front().domain->label().empty())
      return list.front().domain->label();
    return "name";
  }
};

// One verify call's search: the facts, the suggestions already searched and the budget
// left for more, and the recorded names as a finding lists them (built once, when first needed).
struct EntitySearch {
  EntitySources sources;
  std::size_t budget;
  std::unordered_map<std::string, std::pair<std::vector<std::string>, bool>> cache;  // name -> (closest, case-only)
  std::string recorded;
};

// What entities_recorded found at one place a name belongs, before a word of it is
// written: plain data, so a recorded name costs no string, and entity_finding words the
// rest.
struct EntityClaim {
  enum class Kind {
    recorded,       // a recorded name, or an empty one under allow_empty
    missing_field,  // the output has no such field
    wrong_shape,    // the field holds neither a name nor an array
    empty,          // "" or []: the claim that none qualified
    not_a_name,     // a value that is not a string or an integer
    unknown,        // a string or an integer no fact records
    nameless,       // an object of the array with no "name"
    more,           // the unrecorded names of an array past max_listed, counted
  };
  Kind kind = Kind::recorded;
  const nlohmann::json* said = nullptr;  // the value judged
  bool in_array = false;                 // an item of the field's array: the one at `item`
  std::size_t item = 0;
  bool in_name = false;      // that item's "name"
  std::size_t unlisted = 0;  // more: how many
};

}  // namespace detail

struct entities_recorded {
  std::vector<std::string> facts;   // Domains, Rankings (entities), Tables (key column)
  std::vector<std::string> fields;  // string, array of strings, or array of objects with "name"
  bool allow_empty = false;         // true: [] or "" (none qualified) is accepted
  bool case_sensitive = true;       // false: names compare after NFC and simple case folding

  static constexpr const char* check_name = "entities_recorded";
  // Recorded names examined for suggestions in one verify call, across all unknown names.
  static constexpr std::size_t suggestion_budget = 2'000'000;
  // Recorded names a finding lists.
  static constexpr std::size_t names_shown = 20;

  std::vector<std::string> leans_on() const { return facts; }

  // The output fields it reads (Boundary::stream runs it once they have closed; prose
  // slots over them count as checked).
  std::vector<std::string> reads() const { return fields; }

  // entities_recorded(facts=['regions'], fields=['winner'])
  std::string name() const;

  void validate(const FactRegistry& registry) const;

  // Each field: one of the recorded names, an array of them, or an array of {"name": …}.
  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

  // Findings listed per field before the rest are counted in one.
  static constexpr std::size_t max_listed = 8;

 private:
  // What a value found where a name belongs is, known not to be recorded (an item of an
  // array), or judged from the start (a field's own value).
  detail::EntityClaim::Kind classify_unrecorded(const nlohmann::json& said) const;
  detail::EntityClaim classify_field(const detail::EntitySources& sources, const nlohmann::json* said) const;

  // The items of a non-empty array: the first max_listed unrecorded worded, the rest counted.
  void verify_items(detail::EntitySearch& search, const std::string& field, const nlohmann::json& said,
                    std::vector<Finding>& findings) const;
};

static_assert(Check<entities_recorded>);

namespace detail {

// A finding carrying the fact and its provenance when there is exactly one fact.
Finding entity_blank(const EntitySources& sources, const std::string& field);

// "recorded: 'north', 'harbour', …" (at most entities_recorded::names_shown).
const std::string& recorded_names(EntitySearch& search);

// Where a claim is: the field, an item of it ("/mentioned/1") or that item's name.
std::string entity_claim_field(const std::string& field, const EntityClaim& claim);

// "'harbor' is not a recorded name; closest: 'harbour'; recorded: …": the nearest recorded
// names are searched for here, within the search's budget.
std::string unknown_entity_detail(const entities_recorded& check, EntitySearch& search, const nlohmann::json& said,
                                  const std::string& said_text);

// The finding for a claim that is not a recorded name.
Finding entity_finding(const entities_recorded& check, EntitySearch& search, const std::string& field,
                       const EntityClaim& claim);

}  // namespace detail

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/entities_recorded-inl.hpp"
#endif
