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
#include "groundplane/detail/wording.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"

namespace groundplane {

namespace detail {

inline std::vector<std::uint32_t> code_points(std::string_view s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      out.push_back(static_cast<unsigned char>(s[i++]));
      continue;
    }
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {  // an invalid byte: itself, above the code point range
      out.push_back(0x110000u + static_cast<unsigned char>(s[i]));
      ++i;
    } else {
      out.push_back(utf8_decode(s.substr(i, n)));
      i += n;
    }
  }
  return out;
}

// Upper-case hex, at least `width` digits.
inline std::string hex_digits(std::uint32_t v, int width) {
  std::string digits;
  do {
    digits.insert(digits.begin(), "0123456789ABCDEF"[v % 16]);
    v /= 16;
  } while (v != 0);
  if (digits.size() < static_cast<std::size_t>(width))
    digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
  return digits;
}

inline std::string code_point_names(const std::vector<std::uint32_t>& cps, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < from + 6; ++i) {
    // A value past U+10FFFF stands for a byte that is not UTF-8 (cp - 0x110000).
    const bool byte = cps[i] >= 0x110000u;
    const std::uint32_t cp = byte ? cps[i] - 0x110000u : cps[i];
    if (i > from) out += ' ';
    out += byte ? "byte 0x" : "U+";
    out += hex_digits(cp, byte ? 2 : 4);
  }
  if (to > from + 6) out += " ...";
  return out;
}

// When `said` and the recorded name it is closest to differ only in ways a reader
// cannot see — Unicode normalization (e + U+0301 for U+00E9), a look-alike letter from
// another script (Cyrillic U+0430 for Latin a), an invisible character (U+200B) — the
// difference by code point; "" when they differ visibly (or are ASCII both).
inline std::string invisible_difference(std::string_view said, std::string_view recorded) {
  const auto a = code_points(said);
  const auto b = code_points(recorded);
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  const std::size_t a_end = a.size() - suf;
  const std::size_t b_end = b.size() - suf;
  if (a_end - pre > 6 || b_end - pre > 6) return "";
  const auto any = [](const std::vector<std::uint32_t>& v, std::size_t from, std::size_t to, auto pred) {
    for (std::size_t i = from; i < to; ++i)
      if (pred(v[i])) return true;
    return false;
  };
  const auto non_ascii = [](std::uint32_t c) { return c >= 0x80; };
  if (!any(a, pre, a_end, non_ascii) && !any(b, pre, b_end, non_ascii)) return "";
  const auto combining = [](std::uint32_t c) {
    return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) ||
           (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F);
  };
  const auto invisible = [](std::uint32_t c) {
    return c == 0x00AD || c == 0x034F || c == 0x061C || (c >= 0x180B && c <= 0x180E) || (c >= 0x200B && c <= 0x200F) ||
           (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF ||
           (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0000 && c <= 0xE007F);
  };
  const auto all = [](const std::vector<std::uint32_t>& v, std::size_t from, std::size_t to, auto pred) {
    for (std::size_t i = from; i < to; ++i)
      if (!pred(v[i])) return false;
    return true;
  };
  const std::string theirs = quote(recorded);
  const std::string mine = code_point_names(a, pre, a_end);
  const std::string recorded_cps = code_point_names(b, pre, b_end);
  const auto space = [](std::uint32_t c) {
    return c == 0x00A0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000;
  };
  if (b_end == pre && all(a, pre, a_end, space))
    return "differs from " + theirs + " only by a trailing or inner space that is not U+0020: " + mine;
  if (b_end == pre && all(a, pre, a_end, invisible))
    return "differs from " + theirs + " only by an invisible character: " + mine;
  if (a_end == pre && all(b, pre, b_end, invisible))
    return "differs from " + theirs + " only by a missing invisible character: the recorded name has " + recorded_cps;
  if (any(a, pre, a_end, combining) != any(b, pre, b_end, combining))
    return "differs from " + theirs + " only by Unicode normalization: " + mine + " where the recorded name has " +
           recorded_cps;
  const auto other_script = [](std::uint32_t c) { return c >= 0x0370 && c <= 0x052F; };  // Greek, Cyrillic
  if (a_end - pre == b_end - pre && (any(a, pre, a_end, other_script) || any(b, pre, b_end, other_script)))
    return "differs from " + theirs + " only by a look-alike letter from another script: " + mine +
           " where the recorded name has " + recorded_cps;
  return "";  // a visible difference: the names already read differently
}

// The characters of s as code points; a byte that is not valid UTF-8 stands for itself
// above the code point range, so it still differs from every character.
inline void decode_code_points(std::string_view s, std::vector<char32_t>& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : utf8_sequence_length(s, i);
    if (n == 0) {
      out.push_back(static_cast<char32_t>(0x110000u + c));
      ++i;
      continue;
    }
    out.push_back(n == 1 ? static_cast<char32_t>(c) : static_cast<char32_t>(utf8_decode(s.substr(i, n))));
    i += n;
  }
}

inline bool is_ascii(std::string_view s) noexcept {
  for (const char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

// Characters (code points) in s, counting no further than stop_at; a byte that is not
// valid UTF-8 counts as one.
inline std::size_t character_count(std::string_view s,
                                   std::size_t stop_at = std::numeric_limits<std::size_t>::max()) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size() && n < stop_at; ++n) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : utf8_sequence_length(s, i);
    i += len == 0 ? 1 : len;
  }
  return n;
}

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
inline std::uint64_t char_mask(std::string_view s) noexcept {
  std::uint64_t m = 0;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : utf8_sequence_length(s, i);
    const std::uint32_t unit = len > 1 ? utf8_decode(s.substr(i, len)) : c;
    m |= std::uint64_t{1} << (unit & 63u);
    i += len == 0 ? 1 : len;
  }
  return m;
}

inline bool equal_ignoring_ascii_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = static_cast<unsigned char>(a[i]);
    const auto y = static_cast<unsigned char>(b[i]);
    const auto lx = x >= 'A' && x <= 'Z' ? x + 32 : x;
    const auto ly = y >= 'A' && y <= 'Z' ? y + 32 : y;
    if (lx != ly) return false;
  }
  return true;
}

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
inline std::string quoted_or_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += quote(names[i]);
  }
  return out;
}

// A JSON Pointer to `token` inside `field` (a top-level key or a pointer):
// ("top", "2") -> "/top/2"; ("/a/b", "name") -> "/a/b/name".
inline std::string pointer_into(std::string_view field, std::string_view token) {
  std::string out = !field.empty() && field.front() == '/' ? std::string(field) : "/" + pointer_token(field);
  return out + "/" + pointer_token(token);
}

}  // namespace detail

struct entities_recorded {
  std::vector<std::string> facts;   // Domains, Rankings (entities), Tables (key column)
  std::vector<std::string> fields;  // string, array of strings, or array of objects with "name"

  static constexpr const char* check_name = "entities_recorded";
  // Recorded names examined for suggestions in one verify call, across all unknown names.
  static constexpr std::size_t suggestion_budget = 2'000'000;

  std::vector<std::string> leans_on() const { return facts; }

  void validate(const FactRegistry& registry) const {
    if (facts.empty())
      throw ConfigurationError(std::string(check_name) + ": no facts named; set .facts to the recorded sets of names");
    if (fields.empty())
      throw ConfigurationError(std::string(check_name) +
                               ": no fields named; set .fields to the output fields that hold names");
    for (const auto& name : facts) {
      if (name.empty()) throw ConfigurationError(std::string(check_name) + ": .facts holds an empty name");
      if (!registry.contains(name))
        throw ConfigurationError(std::string(check_name) + ": fact " + detail::quote(name) +
                                 " is not recorded in the registry");
      const FactKind kind = registry.kind_of(name);
      if (kind == FactKind::fact)
        throw ConfigurationError(
            std::string(check_name) + ": fact " + detail::quote(name) +
            " is a single value (a Fact); this check needs a Domain, a Ranking or a Table with a key column");
      if (kind == FactKind::table && !registry.get<Table>(name).key_column())
        throw ConfigurationError(std::string(check_name) + ": table " + detail::quote(name) +
                                 " has no key column, so it names no entities; record it with a key_column");
    }
    for (const auto& field : fields) detail::validate_field(field, check_name, "fields");
  }

  // Each field: one of the recorded names, an array of them, or an array of {"name": …}.
  void describe(const FactRegistry& registry, SchemaBuilder& schema) const {
    const Sources sources(registry, facts);
    std::vector<std::string_view> names;
    std::unordered_set<std::string_view> seen;
    sources.for_each_name([&](std::string_view n) {
      if (seen.insert(n).second) names.push_back(n);
      return true;
    });
    const std::string what =
        "names in " + (facts.size() == 1 ? detail::quote(facts.front()) : detail::quoted_or_list(facts));
    const nlohmann::json name = SchemaBuilder::name_schema(names, what);
    const nlohmann::json named_object = {{"type", "object"}, {"properties", {{"name", name}}}, {"required", {"name"}}};
    const nlohmann::json shapes = {
        {"anyOf", {name, {{"type", "array"}, {"items", name}}, {{"type", "array"}, {"items", named_object}}}}};
    for (const auto& field : fields) schema.add(field, shapes, true);
  }

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const {
    Search search{Sources(registry, facts), suggestion_budget, {}};
    for (const auto& field : fields) {
      const nlohmann::json* said = detail::find_field(output, field);
      if (said == nullptr) {
        Finding f = blank(search.sources, field);
        f.detail =
            "expected a name, an array of names or an array of objects with a \"name\"; give [] when no "
            "names were used";
        findings.push_back(std::move(f));
      } else if (said->is_string()) {
        check_one(search, field, *said, findings);
      } else if (!said->is_array()) {
        Finding f = blank(search.sources, field);
        f.said = detail::render(*said);
        f.detail = "expected a name, an array of names or an array of objects with a \"name\", got " +
                   std::string(detail::type_name(*said));
        findings.push_back(std::move(f));
      } else {
        // At most max_listed findings for one field, then one counting the rest: an
        // output naming 100,000 invented entities stays a bounded message.
        std::size_t listed = 0;
        std::size_t unlisted = 0;
        for (std::size_t i = 0; i < said->size(); ++i) {
          const nlohmann::json& item = (*said)[i];
          // A recorded name costs one lookup per fact and no strings.
          const nlohmann::json* name = item.is_object() ? nullptr : &item;
          if (item.is_object())
            if (const auto it = item.find("name"); it != item.end()) name = &*it;
          if (name != nullptr && name->is_string() && search.sources.contain(name->get_ref<const std::string&>()))
            continue;
          if (listed == max_listed) {
            ++unlisted;
            continue;
          }
          ++listed;
          const std::string at = detail::pointer_into(field, std::to_string(i));
          if (!item.is_object()) {
            check_one(search, at, item, findings);
            continue;
          }
          const auto it = item.find("name");
          if (it != item.end()) {
            check_one(search, detail::pointer_into(at, "name"), *it, findings);
            continue;
          }
          Finding f = blank(search.sources, at);
          f.said = detail::render(item);
          f.detail = "expected an object with a \"name\" naming a recorded entity; this one has none";
          findings.push_back(std::move(f));
        }
        if (unlisted > 0) {
          Finding f = blank(search.sources, field);
          f.said = detail::group_thousands(unlisted) + " more unrecorded name(s)";
          f.detail = "... and " + detail::group_thousands(unlisted) + " more unrecorded name(s) in " +
                     detail::quote(field) + " (the first " + std::to_string(max_listed) + " are listed)";
          findings.push_back(std::move(f));
        }
      }
    }
  }

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
  static Finding blank(const Sources& sources, const std::string& field) {
    Finding f;
    f.check = check_name;
    f.field = field;
    if (sources.list.size() == 1) {
      f.fact = sources.list.front().name;
      f.provenance = sources.list.front().provenance;
    }
    return f;
  }

  void check_one(Search& search, const std::string& field, const nlohmann::json& said,
                 std::vector<Finding>& findings) const {
    if (said.is_string() && search.sources.contain(said.get_ref<const std::string&>())) return;
    Finding f = blank(search.sources, field);
    f.said = detail::render(said);
    if (!said.is_string()) {
      f.detail = "expected a recorded name (a string), got " + std::string(detail::type_name(said));
      findings.push_back(std::move(f));
      return;
    }
    const auto& name = said.get_ref<const std::string&>();
    auto it = search.cache.find(name);
    if (it == search.cache.end()) {
      detail::NameSuggester suggester(name, &search.budget);
      search.sources.for_each_name([&](std::string_view candidate) { return suggester.offer(candidate); });
      it = search.cache.emplace(name, std::make_pair(suggester.names(), suggester.case_only())).first;
    }
    const auto& [closest, case_only] = it->second;
    f.detail = f.said + " is not a recorded name";
    if (facts.size() > 1) f.detail += " in " + detail::quoted_or_list(facts);
    if (case_only) f.detail += " (names are case-sensitive)";
    if (!closest.empty()) {
      f.detail += "; closest: ";
      for (std::size_t i = 0; i < closest.size(); ++i) f.detail += (i > 0 ? ", " : "") + detail::quote(closest[i]);
      // Two names that print alike are never left looking identical.
      if (const std::string how = detail::invisible_difference(name, closest.front()); !how.empty())
        f.detail += "; " + how;
    }
    findings.push_back(std::move(f));
  }
};

static_assert(Check<entities_recorded>);

}  // namespace groundplane
