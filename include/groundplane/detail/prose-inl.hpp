// The bodies of detail/prose.hpp: included by it in the header-only build, compiled once
// into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/prose.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/field.hpp"
#include "groundplane/detail/stated.hpp"
#include "groundplane/detail/unicode.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/render.hpp"

namespace groundplane::detail {

namespace prose {

// The code point at `i` and its length in bytes; a byte that starts no valid UTF-8
// sequence stands for itself (length 1, and never a word character).
struct CodePoint {
  char32_t cp = 0;
  std::size_t length = 1;
  bool valid = false;
};
inline CodePoint code_point_at(std::string_view s, std::size_t i) noexcept {
  if (static_cast<unsigned char>(s[i]) < 0x80) return {static_cast<unsigned char>(s[i]), 1, true};
  const std::size_t n = utf8_sequence_length(s, i);
  if (n == 0) return {static_cast<unsigned char>(s[i]), 1, false};
  return {utf8_decode(s.substr(i, n)), n, true};
}

inline bool is_word(const CodePoint& c) noexcept {
  return c.valid && (c.cp == '_' || word_class(c.cp) != WordClass::none);
}
inline bool is_digit(const CodePoint& c) noexcept { return c.valid && word_class(c.cp) == WordClass::digit; }

// The pointer tokens a field names: a top-level key is one token.
inline std::vector<std::string> tokens_of(const std::string& field) {
  if (field.empty() || field[0] != '/') return {field};
  return pointer_tokens(field).value_or(std::vector<std::string>{});
}

// True when `fields` holds `slot` or a field the slot lies under ({/top/0} under top).
inline bool covered(const std::vector<std::string>& slot, const std::vector<std::string>& fields) {
  return std::any_of(fields.begin(), fields.end(), [&](const std::string& f) {
    const std::vector<std::string> t = tokens_of(f);
    return !t.empty() && t.size() <= slot.size() && std::equal(t.begin(), t.end(), slot.begin());
  });
}

// A slot as written: its field, and where the braces around it start and end.
struct Slot {
  std::string field;
  std::size_t begin = 0;  // the '{'
  std::size_t end = 0;    // one past the '}'
};

// A finding of this part, kept with the offset it is about so all of them come out in
// the order of the text.
struct Located {
  std::size_t offset = 0;
  Finding finding;
};

class Reader {
 public:
  Reader(std::string_view text, const ProseRules& rules) : text_(text), rules_(rules) {}

  // Reads the template: its slots, and a finding for every brace that is not one.
  void read_slots() {
    for (std::size_t i = 0; i < text_.size(); ++i) {
      const char c = text_[i];
      if (c != '{' && c != '}') continue;
      if (i + 1 < text_.size() && text_[i + 1] == c) {  // {{ or }}: a literal brace
        ++i;
        continue;
      }
      if (c == '}') {
        add(i, "'}'", "a '}' at byte " + std::to_string(i) + " closes no slot; write }} for a literal brace");
        continue;
      }
      const std::size_t close = text_.find_first_of("{}", i + 1);
      if (close == std::string_view::npos || text_[close] == '{') {
        add(i, "'{'",
            "a '{' at byte " + std::to_string(i) +
                " opens a slot that no '}' closes; a slot is {field}, and {{ writes a literal brace");
        continue;
      }
      const std::string_view inside = text_.substr(i + 1, close - i - 1);
      if (const std::string why = malformed(inside); !why.empty()) {
        add(i, quote(text_.substr(i, close + 1 - i)),
            "the braces at byte " + std::to_string(i) + " are not a slot: " + why +
                "; a slot is {field} or {/json/pointer}, and {{ and }} write literal braces");
        i = close;
        continue;
      }
      slots_.push_back({std::string(inside), i, close + 1});
      i = close;
    }
  }

  // Every digit run and recorded name in the text outside the slots.
  void read_words() {
    std::string masked(text_);  // each slot blanked: a word break, never part of a word
    for (const Slot& s : slots_)
      std::fill(masked.begin() + static_cast<std::ptrdiff_t>(s.begin),
                masked.begin() + static_cast<std::ptrdiff_t>(s.end), ' ');
    digit_runs(masked);
    if (rules_.names != nullptr) names(masked);
  }

  // Each slot's value, and the rendered text when nothing was found.
  std::optional<std::string> read_values(const nlohmann::json& output) {
    std::vector<std::string> values;
    for (const Slot& s : slots_) {
      const std::string shown = "{" + s.field + "}";
      const std::string at = " at byte " + std::to_string(s.begin);
      const nlohmann::json* v = find_field(output, s.field);
      if (v == nullptr || v->is_null()) {
        add(s.begin, quote(shown),
            "the slot " + quote(shown) + at +
                (v == nullptr ? " names a field the output does not have" : " names a field that holds null") +
                "; a slot inserts the value of a field of this same output");
        continue;
      }
      if (v->is_object() || v->is_array()) {
        add(s.begin, quote(shown),
            "the slot " + quote(shown) + at + " names " + (v->is_object() ? "an object" : "an array") +
                "; a slot inserts one string, number or boolean (a pointer such as {/field/0} reaches inside)");
        continue;
      }
      const std::vector<std::string> tokens = tokens_of(s.field);
      if (!covered(tokens, *rules_.read) && !covered(tokens, *rules_.free_fields)) {
        add(s.begin, quote(shown),
            "the slot " + quote(shown) + at +
                " is an unchecked slot: no check reads that field, so what it inserts is unsupported; put only "
                "checked fields in slots; pass BoundaryOptions::free_fields to let a slot insert it unchecked");
        continue;
      }
      values.push_back(as_written(*v));
    }
    if (!found_.empty()) return std::nullopt;
    return render_text(values);
  }

  // The findings, in the order of the text.
  void move_findings_to(std::vector<Finding>& findings) {
    std::stable_sort(found_.begin(), found_.end(),
                     [](const Located& a, const Located& b) { return a.offset < b.offset; });
    for (auto& l : found_) findings.push_back(std::move(l.finding));
  }

 private:
  void add(std::size_t offset, std::string said, std::string detail, std::string fact = "",
           std::string provenance = "") {
    Finding f;
    f.check = "prose";
    f.field = std::string(rules_.field);
    f.said = std::move(said);
    f.fact = std::move(fact);
    f.provenance = std::move(provenance);
    f.detail = std::move(detail);
    found_.push_back({offset, std::move(f)});
  }

  // Why what stands between two braces is not a field; "" when it is one.
  static std::string malformed(std::string_view inside) {
    if (inside.empty()) return "{} names no field";
    for (const char c : inside)
      if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return "a field name holds no whitespace";
    if (inside[0] == '/' && !pointer_tokens(inside))
      return "not a valid JSON Pointer (a '~' must be followed by 0 or 1)";
    return "";
  }

  void digit_runs(std::string_view masked) {
    for (std::size_t i = 0; i < masked.size();) {
      CodePoint c = code_point_at(masked, i);
      if (!is_digit(c)) {
        i += c.length;
        continue;
      }
      const std::size_t from = i;
      while (i < masked.size() && is_digit(c = code_point_at(masked, i))) i += c.length;
      const std::string_view run = masked.substr(from, i - from);
      add(from, quote(run),
          "the prose states the number " + quote(run) + " at byte " + std::to_string(from) +
              " outside a slot; every number in the prose goes in a slot naming the checked field that "
              "holds it, as {field}");
    }
  }

  void names(std::string_view masked) {
    const std::vector<ProseWord> words = prose_words(masked);
    std::vector<std::string> folded(words.size());
    const auto folded_at = [&](std::size_t w) -> const std::string& {
      if (folded[w].empty()) folded[w] = folded_nfc(masked.substr(words[w].offset, words[w].length));
      return folded[w];
    };
    for (std::size_t w = 0; w < words.size();) {
      const std::vector<std::uint32_t>* candidates = rules_.names->starting_with(folded_at(w));
      const ProseNames::Name* hit = nullptr;
      if (candidates != nullptr)
        for (const std::uint32_t id : *candidates) {  // longest first
          const ProseNames::Name& n = rules_.names->name(id);
          if (w + n.words.size() > words.size()) continue;
          bool all = true;
          for (std::size_t k = 1; k < n.words.size() && all; ++k) all = folded_at(w + k) == n.words[k];
          if (all) {
            hit = &n;
            break;
          }
        }
      if (hit == nullptr) {
        ++w;
        continue;
      }
      const std::size_t from = words[w].offset;
      const ProseWord& last = words[w + hit->words.size() - 1];
      const std::string_view said = masked.substr(from, last.offset + last.length - from);
      const ProseNames::Source& src = rules_.names->source(hit->fact);
      add(from, quote(said),
          "the prose names " + quote(said) + " at byte " + std::to_string(from) + ", a name recorded in " +
              quote(src.name) +
              ", outside a slot; every recorded name in the prose goes in a slot naming the checked field that "
              "holds it, as {field}",
          src.name, src.provenance);
      w += hit->words.size();
    }
  }

  // A slot's value as the model wrote it: a string unquoted, a number with its digits.
  static std::string as_written(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (const auto stated = stated_text(v)) return std::string(stated->text);
    return v.dump();
  }

  // The template with its slots filled and its doubled braces single, escaped line by
  // line (a newline the model wrote stays one).
  std::string render_text(const std::vector<std::string>& values) const {
    std::string raw;
    std::size_t slot = 0;
    for (std::size_t i = 0; i < text_.size(); ++i) {
      if (slot < slots_.size() && i == slots_[slot].begin) {
        raw += values[slot];
        i = slots_[slot].end - 1;
        ++slot;
        continue;
      }
      raw.push_back(text_[i]);
      if ((text_[i] == '{' || text_[i] == '}') && i + 1 < text_.size() && text_[i + 1] == text_[i]) ++i;
    }
    std::string out;
    constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();
    for (std::size_t from = 0;;) {
      const std::size_t nl = raw.find('\n', from);
      out += escape(std::string_view(raw).substr(from, nl == std::string::npos ? std::string::npos : nl - from),
                    unbounded);
      if (nl == std::string::npos) break;
      out += '\n';
      from = nl + 1;
    }
    return out;
  }

  std::string_view text_;
  const ProseRules& rules_;
  std::vector<Slot> slots_;
  std::vector<Located> found_;
};

}  // namespace prose

GROUNDPLANE_INLINE std::vector<ProseWord> prose_words(std::string_view text) {
  std::vector<ProseWord> out;
  for (std::size_t i = 0; i < text.size();) {
    prose::CodePoint c = prose::code_point_at(text, i);
    if (!prose::is_word(c)) {
      i += c.length;
      continue;
    }
    const std::size_t from = i;
    while (i < text.size() && prose::is_word(c = prose::code_point_at(text, i))) i += c.length;
    out.push_back({from, i - from});
  }
  return out;
}

GROUNDPLANE_INLINE ProseNames::ProseNames(const FactRegistry& registry, const std::vector<std::string>& facts) {
  for (const auto& fact_name : facts) {
    registry.visit(fact_name, [&](const auto& fact) {
      using F = std::remove_cvref_t<decltype(fact)>;
      const std::size_t index = facts_.size();
      facts_.push_back({fact.name(), fact.provenance().render()});
      // An integer entity is digits, which the digit rule refuses already.
      if constexpr (std::is_same_v<F, Ranking>) {
        for (const Entity& e : fact.order())
          if (e.is_string()) add(e.text(), index);
      } else if constexpr (std::is_same_v<F, Domain>) {
        for (const Entity& e : fact.members())
          if (e.is_string()) add(e.text(), index);
      } else if constexpr (std::is_same_v<F, Table>) {
        for (std::size_t row = 0; row < fact.row_count(); ++row)
          if (const auto e = fact.entity_at(row); e && e->is_string()) add(e->text(), index);
      }
    });
  }
  for (auto& [word, ids] : by_first_)
    std::stable_sort(ids.begin(), ids.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return names_[a].words.size() > names_[b].words.size(); });
}

GROUNDPLANE_INLINE void ProseNames::add(std::string_view text, std::size_t fact) {
  Name n;
  n.fact = fact;
  for (const ProseWord& w : prose_words(text)) n.words.push_back(folded_nfc(text.substr(w.offset, w.length)));
  if (n.words.empty()) return;  // no letters or digits: nothing a reader sees as a name
  std::vector<std::uint32_t>& ids = by_first_[n.words.front()];
  for (const std::uint32_t id : ids)
    if (names_[id].words == n.words) return;
  ids.push_back(static_cast<std::uint32_t>(names_.size()));
  names_.push_back(std::move(n));
}

GROUNDPLANE_INLINE const std::vector<std::uint32_t>* ProseNames::starting_with(const std::string& folded_word) const {
  const auto it = by_first_.find(folded_word);
  return it == by_first_.end() ? nullptr : &it->second;
}

GROUNDPLANE_INLINE std::optional<std::string> check_prose(const nlohmann::json& output, const ProseRules& rules,
                                                          std::vector<Finding>& findings) {
  const nlohmann::json* text = find_field(output, rules.field);
  if (text == nullptr || !text->is_string() || text->get_ref<const std::string&>().empty()) {
    Finding f;
    f.check = "prose";
    f.field = std::string(rules.field);
    f.said = text == nullptr ? std::string() : render(*text);
    const std::string what = text == nullptr     ? " is missing"
                             : text->is_string() ? " is empty"
                                                 : " is " + std::string(type_name(*text)) + ", not a string";
    f.detail = "the output's field " + quote(rules.field) + what +
               "; write the answer there as prose, with every number and recorded name in a slot such as {field}";
    findings.push_back(std::move(f));
    return std::nullopt;
  }
  prose::Reader reader(text->get_ref<const std::string&>(), rules);
  reader.read_slots();
  reader.read_words();
  std::optional<std::string> rendered = reader.read_values(output);
  reader.move_findings_to(findings);
  return rendered;
}

GROUNDPLANE_INLINE nlohmann::json prose_schema(const std::vector<std::string>& slots) {
  std::string fields;
  for (const auto& s : slots) fields += (fields.empty() ? "{" : ", {") + s + "}";
  return {{"type", "string"},
          {"minLength", 1},
          {"description",
           "The answer as prose for a person to read. Every number and every recorded name in it goes in a slot: "
           "{field} inserts the value of that field of this output, {/field/0} reaches inside one; {{ and }} write "
           "literal braces. A number or recorded name written outside a slot is refused." +
               (fields.empty() ? std::string() : " Slots: " + fields + ".")}};
}

}  // namespace groundplane::detail
