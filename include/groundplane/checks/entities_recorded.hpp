// gp::entities_recorded — every name the model used came from a recorded set.
//
//   gp::entities_recorded{.facts = {"campaigns"}, .fields = {"winner", "mentioned"}}
//
// Each field holds a name, an array of names, or an array of objects with a "name"
// (a top-level key, or a JSON Pointer when it starts with '/'). A name is recorded when
// it is, exactly and case-sensitively, a member of one of the facts: a Domain's members,
// a Ranking's entities, or the string values of a Table's key column. A field the output
// lacks is a finding (give [] when no names were used).
//
// An unknown name reads:
//   unsupported claim in field '/mentioned/1': model said 'harbor'
//   | fact='campaigns'
//   | provenance=crm.list(kind='campaign')
//   | 'harbor' is not a recorded name; closest: 'harbour'
//
// Cost. Membership is one hash lookup per name and per fact, whatever the size of the
// sets. Only a name that misses is searched for suggestions, and that search is bounded:
//   - a candidate is at most max_distance(name) edits away (Levenshtein, counted in
//     characters, i.e. code points, so an accent or an invisible character is one edit):
//     1 for names of up to 4 characters, 2 up to 12, 3 beyond; a case-only difference
//     ("Harbour" for "harbour") is always the closest;
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
#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/field.hpp"
#include "groundplane/detail/json_pointer.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/wording.hpp"
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
    // Lengths in characters, not bytes (an accent or an invisible character is one
    // edit), decided without reading the candidate where its byte length is enough: it
    // has at most as many characters as bytes, and counting stops past the longest allowed.
    const std::size_t longest = length_ + bound_;
    if (candidate.size() + bound_ < length_) return true;
    if (candidate.size() > longest && character_count(candidate, longest + 1) > longest) return true;
    std::size_t score = 0;  // 0: differs only in case; otherwise the edit distance
    if (!equal_ignoring_ascii_case(candidate, name_)) {
      const std::uint64_t m = char_mask(candidate);
      if (static_cast<std::size_t>(std::popcount(m & ~mask_)) > bound_ ||
          static_cast<std::size_t>(std::popcount(mask_ & ~m)) > bound_)
        return true;
      score = distance_(name_, candidate, bound_);
      if (score > bound_) return true;
    }
    keep(score, candidate);
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
  std::vector<std::pair<std::size_t, std::string>> best_;
};

// 'a', 'a' or 'b', 'a', 'b' or 'c'.
std::string quoted_or_list(const std::vector<std::string>& names);

// A JSON Pointer to `token` inside `field` (a top-level key or a pointer):
// ("top", "2") -> "/top/2"; ("/a/b", "name") -> "/a/b/name".
std::string pointer_into(std::string_view field, std::string_view token);

}  // namespace detail

struct entities_recorded {
  std::vector<std::string> facts;   // Domains, Rankings (entities), Tables (key column)
  std::vector<std::string> fields;  // string, array of strings, or array of objects with "name"

  static constexpr const char* check_name = "entities_recorded";
  // Recorded names examined for suggestions in one verify call, across all unknown names.
  static constexpr std::size_t suggestion_budget = 2'000'000;

  std::vector<std::string> leans_on() const { return facts; }

  void validate(const FactRegistry& registry) const;

  // Each field: one of the recorded names, an array of them, or an array of {"name": …}.
  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

  // Findings listed per field before the rest are counted in one.
  static constexpr std::size_t max_listed = 8;

 private:
  // The configured facts, looked up once per call.
  struct Sources {
    struct Source {
      const Domain* domain = nullptr;
      const Ranking* ranking = nullptr;
      const Table* table = nullptr;
      std::optional<std::size_t> key;  // the table's key column
      std::string name;
      std::string provenance;
    };
    std::vector<Source> list;

    Sources(const FactRegistry& registry, const std::vector<std::string>& facts) {
      for (const auto& fact : facts) {
        Source s;
        s.name = fact;
        switch (registry.kind_of(fact)) {
          case FactKind::domain:
            s.domain = &registry.get<Domain>(fact);
            break;
          case FactKind::ranking:
            s.ranking = &registry.get<Ranking>(fact);
            break;
          case FactKind::table:
            s.table = &registry.get<Table>(fact);
            if (s.table->key_column()) s.key = s.table->column_of(*s.table->key_column());
            break;
          case FactKind::fact:
            break;
        }
        s.provenance = registry.visit(fact, [](const auto& f) { return f.provenance().render(); });
        list.push_back(std::move(s));
      }
    }

    // Exact, case-sensitive: one hash lookup per fact.
    bool contain(std::string_view name) const {
      for (const auto& s : list) {
        if (s.domain && s.domain->contains(name)) return true;
        if (s.ranking && s.ranking->contains(name)) return true;
        if (s.table && s.key && s.table->row_of_text(name)) return true;
      }
      return false;
    }

    // f(name) for every recorded name, fact by fact (a ranking's best first), until f
    // returns false.
    template <class F>
    void for_each_name(F&& f) const {
      for (const auto& s : list) {
        if (s.domain) {
          for (const auto& m : s.domain->members())
            if (!f(std::string_view(m))) return;
        } else if (s.ranking) {
          for (const auto& entity : s.ranking->order())
            if (!f(std::string_view(entity))) return;
        } else if (s.table && s.key) {
          for (std::size_t r = 0; r < s.table->row_count(); ++r) {
            const auto text = s.table->text(r, *s.key);
            if (text && !f(*text)) return;
          }
        }
      }
    }
  };

  // Suggestions already searched in this verify call, and the budget left.
  struct Search {
    Sources sources;
    std::size_t budget;
    std::unordered_map<std::string, std::pair<std::vector<std::string>, bool>> cache;  // name -> (closest, case-only)
  };

  // A finding carrying the fact and its provenance when there is exactly one fact.
  static Finding blank(const Sources& sources, const std::string& field);

  void check_one(Search& search, const std::string& field, const nlohmann::json& said,
                 std::vector<Finding>& findings) const;
};

static_assert(Check<entities_recorded>);

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/entities_recorded-inl.hpp"
#endif
