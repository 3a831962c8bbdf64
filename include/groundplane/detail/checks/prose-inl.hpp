// The bodies of detail/checks/prose.hpp: included by it in the header-only build, compiled once
// into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/checks/prose.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/checks/check_run.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/unicode.hpp"
#include "groundplane/detail/text/wording.hpp"
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
// The code point that ends at `end` (the one before it).
inline CodePoint code_point_before(std::string_view s, std::size_t end) noexcept {
  std::size_t from = end - 1;
  while (from > 0 && end - from < 4 && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) --from;
  const CodePoint c = code_point_at(s, from);
  if (from + c.length == end) return c;
  return {static_cast<unsigned char>(s[end - 1]), 1, false};
}

inline WordClass class_of(const CodePoint& c) noexcept {
  if (!c.valid) return WordClass::none;
  if (c.cp == '_') return WordClass::letter;
  return word_class(c.cp);
}

// The pointer tokens a field names: a top-level key is one token.
inline std::vector<std::string> tokens_of(std::string_view field) {
  if (field.empty() || field[0] != '/') return {std::string(field)};
  return pointer_tokens(field).value_or(std::vector<std::string>{});
}

// True when `fields` holds `slot` or a field the slot lies under ({/top/0} under top).
inline bool covered(const std::vector<std::string>& slot, const std::vector<std::string>& fields) {
  return std::any_of(fields.begin(), fields.end(), [&](const std::string& f) {
    const std::vector<std::string> t = tokens_of(f);
    return !t.empty() && t.size() <= slot.size() && std::equal(t.begin(), t.end(), slot.begin());
  });
}

// What is at a brace of the template.
struct Brace {
  enum class Kind { literal, stray_close, unclosed, malformed, slot } kind = Kind::literal;
  std::size_t end = 0;  // one past what it covers: "{{", "}", "{", the '}' closing it
  std::string why;      // malformed: why the braces are not a slot
};

// Why what stands between two braces is not a field; "" when it is one.
inline std::string malformed(std::string_view inside) {
  if (inside.empty()) return "{} names no field";
  for (const char c : inside)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return "a field name holds no whitespace";
  if (inside[0] == '/' && !pointer_tokens(inside)) return "not a valid JSON Pointer (a '~' must be followed by 0 or 1)";
  return "";
}

// The brace at `i` (text[i] is '{' or '}'), read from where the template is: at the start
// of a token (never inside "{{" or a slot), so the same brace always reads the same.
inline Brace brace_at(std::string_view text, std::size_t i) {
  const char c = text[i];
  if (i + 1 < text.size() && text[i + 1] == c) return {Brace::Kind::literal, i + 2, {}};
  if (c == '}') return {Brace::Kind::stray_close, i + 1, {}};
  const std::size_t close = text.find_first_of("{}", i + 1);
  if (close == std::string_view::npos || text[close] == '{') return {Brace::Kind::unclosed, i + 1, {}};
  std::string why = malformed(text.substr(i + 1, close - i - 1));
  if (!why.empty()) return {Brace::Kind::malformed, close + 1, std::move(why)};
  return {Brace::Kind::slot, close + 1, {}};
}

// A finding kept with the offset it is about, so they come out in the order of the text.
struct Located {
  std::size_t offset = 0;
  Finding finding;
};

// One kind of finding, as the reader meets them (in the order of the text): the first
// max_findings_per_field + 1 built, the rest only counted.
struct Kept {
  std::vector<Located> listed;
  std::size_t count = 0;
  bool wants() {
    ++count;
    return listed.size() <= max_findings_per_field;
  }
};

// A slot's field as the output holds it, judged once however often the template names it.
struct SlotValue {
  enum class State { missing, null, object, array, unchecked, ok } state = State::missing;
  std::string text;  // ok: the value as written
  bool starts_as_number = false;
  bool ends_as_number = false;
};

// A word of the template and its two keys.
struct Word {
  std::size_t offset = 0;
  std::size_t length = 0;
  std::string first;
  std::string second;
};

class Reader {
 public:
  Reader(std::string_view text, const ProseRules& rules) : text_(text), rules_(rules) {}

  // The one pass: slots and what is not one, numbers, recorded names, slot values and
  // what is written against them.
  void read(const nlohmann::json& output) {
    output_ = &output;
    std::size_t skip_close = npos;  // a malformed slot's '}', already reported
    for (std::size_t i = 0; i < text_.size();) {
      const char c = text_[i];
      if (c == '{' || c == '}') {
        if (i == skip_close) {
          last_ = '}';
          ++i;
          continue;
        }
        const Brace b = brace_at(text_, i);
        switch (b.kind) {
          case Brace::Kind::literal:
            last_ = static_cast<unsigned char>(c);
            i = b.end;
            continue;
          case Brace::Kind::stray_close:
            if (syntax_.wants())
              add(syntax_, i, "'}'",
                  "a '}' at byte " + std::to_string(i) + " closes no slot; write }} for a literal brace");
            last_ = '}';
            ++i;
            continue;
          case Brace::Kind::unclosed:
            if (syntax_.wants())
              add(syntax_, i, "'{'",
                  "a '{' at byte " + std::to_string(i) +
                      " opens a slot that no '}' closes; a slot is {field}, and {{ writes a literal brace");
            last_ = '{';
            ++i;
            continue;
          case Brace::Kind::malformed:
            // Its text stays prose: the reading goes on inside it, up to its '}'.
            if (syntax_.wants())
              add(syntax_, i, quote(text_.substr(i, b.end - i)),
                  "the braces at byte " + std::to_string(i) + " are not a slot: " + b.why +
                      "; a slot is {field} or {/json/pointer}, and {{ and }} write literal braces");
            skip_close = b.end - 1;
            last_ = '{';
            ++i;
            continue;
          case Brace::Kind::slot:
            slot(i, b.end);
            i = b.end;
            continue;
        }
      }
      const CodePoint cp = code_point_at(text_, i);
      if (class_of(cp) == WordClass::none) {
        last_ = cp.valid ? cp.cp : nothing;
        i += cp.length;
        continue;
      }
      i = word(i);
    }
    while (window_size_ > 0) match_front();
  }

  bool found_any() const noexcept {
    return syntax_.count + digits_.count + names_.count + values_.count + against_.count > 0;
  }

  // The findings, in the order of the text: eight of them and one counting the rest when
  // there are more than nine, as any check's are capped.
  void move_findings_to(std::vector<Finding>& findings) {
    std::vector<Located> all;
    std::size_t total = 0;
    for (Kept* k : {&syntax_, &digits_, &names_, &values_, &against_}) {
      total += k->count;
      for (auto& l : k->listed) all.push_back(std::move(l));
    }
    std::stable_sort(all.begin(), all.end(), [](const Located& a, const Located& b) { return a.offset < b.offset; });
    constexpr std::size_t cap = max_findings_per_field;
    if (total <= cap + 1) {
      for (auto& l : all) findings.push_back(std::move(l.finding));
      return;
    }
    for (std::size_t k = 0; k < cap; ++k) findings.push_back(std::move(all[k].finding));
    findings.push_back(more_findings(findings.back(), field_root(std::string(rules_.field)), total - cap));
  }

  // The template with its slots filled and its doubled braces single, escaped line by
  // line (a newline the model wrote stays one). Only for a template read without findings.
  std::string render() const {
    std::string raw;
    raw.reserve(text_.size() - slot_bytes_ + values_bytes_);
    for (std::size_t i = 0; i < text_.size();) {
      const char c = text_[i];
      if (c != '{' && c != '}') {
        const std::size_t next = text_.find_first_of("{}", i);
        const std::size_t end = next == std::string_view::npos ? text_.size() : next;
        raw.append(text_.substr(i, end - i));
        i = end;
        continue;
      }
      const Brace b = brace_at(text_, i);  // a literal brace or a slot: the template had no findings
      if (b.kind == Brace::Kind::slot)
        raw += slot_values_[value_index_.at(std::string(text_.substr(i + 1, b.end - i - 2)))].text;
      else raw.push_back(c);
      i = b.end;
    }
    std::string out;
    out.reserve(raw.size());
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

 private:
  static constexpr std::size_t npos = std::string_view::npos;

  void add(Kept& kind, std::size_t offset, std::string said, std::string detail, std::string fact = "",
           std::string provenance = "") {
    Finding f;
    f.check = "prose";
    f.field = std::string(rules_.field);
    f.said = std::move(said);
    f.fact = std::move(fact);
    f.provenance = std::move(provenance);
    f.detail = std::move(detail);
    kind.listed.push_back({offset, std::move(f)});
  }

  // The word starting at `from`: its runs of numbers, then its keys for the names. Returns
  // where it ends.
  std::size_t word(std::size_t from) {
    std::size_t i = from;
    std::size_t run = npos;      // where the current run of numbers began
    std::size_t run_end = from;  // one past its last number
    const auto end_run = [&] {
      if (run == npos) return;
      if (digits_.wants()) {
        const std::string_view written = text_.substr(run, run_end - run);
        add(digits_, run, quote(written),
            "the prose states the number " + quote(written) + " at byte " + std::to_string(run) +
                " outside a slot; every number in the prose goes in a slot naming the checked field that holds "
                "it, as {field}");
      }
      run = npos;
    };
    bool visible = false;
    while (i < text_.size()) {
      const CodePoint cp = code_point_at(text_, i);
      const WordClass cls = class_of(cp);
      if (cls == WordClass::none) break;
      if (cls == WordClass::digit) {
        if (run == npos) run = i;
        run_end = i + cp.length;
      } else if (cls != WordClass::ignorable) {  // an invisible character inside a run leaves it whole
        end_run();
      }
      if (cls != WordClass::ignorable) {
        last_ = cp.cp;
        visible = true;
      }
      i += cp.length;
    }
    end_run();
    if (visible && rules_.names != nullptr && !rules_.names->empty()) {
      Word& w = window_[(window_from_ + window_size_) % ProseNames::max_words];
      ++window_size_;
      w.offset = from;
      w.length = i - from;
      keys_.of(text_.substr(from, i - from), w.first, w.second);
      if (window_size_ == ProseNames::max_words) match_front();
    }
    return i;
  }

  // Whether a recorded name starts at the window's first word: the longest one is a
  // finding and its words leave the window; otherwise the first word does.
  void match_front() {
    const ProseNames& names = *rules_.names;
    if (!names.may_start(word_at(0).first, word_at(0).second)) {
      window_from_ = (window_from_ + 1) % ProseNames::max_words;
      --window_size_;
      return;
    }
    here_.assign(1, 0);
    std::size_t longest = 0;
    const ProseNames::Ending* ending = nullptr;
    for (std::size_t k = 0; k < window_size_ && !here_.empty(); ++k) {
      const Word& w = word_at(k);
      next_.clear();
      for (const std::uint32_t node : here_) names.children(node, w.first, w.second, next_, probe_);
      const ProseNames::Ending* found = nullptr;
      for (const std::uint32_t node : next_)
        if (const ProseNames::Ending* e = names.ending(node);
            e != nullptr && (found == nullptr || e->fact < found->fact))
          found = e;
      if (found != nullptr) {
        longest = k + 1;
        ending = found;
      }
      here_.swap(next_);
    }
    const std::size_t done = ending == nullptr ? 1 : longest;
    if (ending != nullptr && names_.wants()) {
      const std::size_t from = word_at(0).offset;
      const Word& last = word_at(longest - 1);
      const std::string_view written = text_.substr(from, last.offset + last.length - from);
      const ProseNames::Source& src = names.source(ending->fact);
      const std::string reads_as =
          folded_nfc(written) == folded_nfc(ending->text) ? std::string() : ", which reads as " + quote(ending->text);
      add(names_, from, quote(written),
          "the prose names " + quote(written) + " at byte " + std::to_string(from) + reads_as +
              ", a name recorded in " + quote(src.name) +
              ", outside a slot; every recorded name in the prose goes in a slot naming the checked field that holds "
              "it, as {field}",
          src.name, src.provenance);
    }
    window_from_ = (window_from_ + done) % ProseNames::max_words;
    window_size_ -= done;
  }

  // The k-th word of the window, from its first.
  const Word& word_at(std::size_t k) const { return window_[(window_from_ + k) % ProseNames::max_words]; }

  // The slot at [begin, end): its field's value, and what is written against it.
  void slot(std::size_t begin, std::size_t end) {
    const std::string_view field = text_.substr(begin + 1, end - begin - 2);
    const SlotValue& v = value_of(field);
    // Only a finding spells the slot out.
    const std::string_view shown = text_.substr(begin, end - begin);
    const auto at = [&] { return " at byte " + std::to_string(begin); };
    if (v.state != SlotValue::State::ok) {
      if (values_.wants()) add(values_, begin, quote(shown), "the slot " + quote(shown) + at() + why_not(v.state));
      last_ = '}';
      return;
    }
    values_bytes_ += v.text.size();
    slot_bytes_ += end - begin;
    if (values_bytes_ > slot_bytes_ + rules_.max_growth && !grew_) {
      grew_ = true;
      if (values_.wants())
        add(values_, begin, quote(shown),
            "the slots up to " + quote(shown) + at() + " insert more than " + group_thousands(rules_.max_growth) +
                " bytes beyond the template's own; say it with fewer slots");
    }
    // A sign, digit or decimal point against the value makes a reader see another number:
    // the last visible character before it (of the text, or of a slot right before it)...
    if (v.starts_as_number && numeric_shape(last_) != NumericShape::none && against_.wants()) {
      const std::string written = utf8_of(last_) + std::string(shown);
      add(against_, begin, quote(written), against_detail(written, shown, at()));
    }
    // ... or a digit after it, or a decimal point and a digit (a '.' alone ends a sentence).
    if (v.ends_as_number) {
      const std::size_t after = visible_after(end);
      if (after < text_.size()) {
        const CodePoint next = code_point_at(text_, after);
        const NumericShape s = next.valid ? numeric_shape(next.cp) : NumericShape::none;
        std::size_t upto = after + next.length;
        bool number = s == NumericShape::digit;
        if (s == NumericShape::point) {
          const std::size_t then = visible_after(upto);
          if (then < text_.size()) {
            const CodePoint digit = code_point_at(text_, then);
            number = digit.valid && numeric_shape(digit.cp) == NumericShape::digit;
            upto = then + digit.length;
          }
        }
        if (number && against_.wants()) {
          const std::string_view written = text_.substr(begin, upto - begin);
          add(against_, begin, quote(written), against_detail(written, shown, at()));
        }
      }
    }
    if (!v.text.empty()) last_ = code_point_before(v.text, v.text.size()).cp;
  }

  // Where the visible text after `pos` starts, past invisible characters.
  std::size_t visible_after(std::size_t pos) const {
    while (pos < text_.size()) {
      const CodePoint c = code_point_at(text_, pos);
      if (class_of(c) != WordClass::ignorable) break;
      pos += c.length;
    }
    return pos;
  }

  static std::string utf8_of(char32_t cp) {
    std::string out;
    append_utf8(out, cp);
    return out;
  }

  static std::string against_detail(std::string_view written, std::string_view shown, const std::string& at) {
    return "the prose writes " + quote(written) + " against the slot " + quote(shown) + at +
           ": a sign, digit or decimal point next to a slot makes a reader see another number than the checked "
           "one; put the whole number in the field, and a space or a word between it and anything else";
  }

  static std::string why_not(SlotValue::State state) {
    switch (state) {
      case SlotValue::State::missing:
        return " names a field the output does not have; a slot inserts the value of a field of this same output";
      case SlotValue::State::null:
        return " names a field that holds null; a slot inserts the value of a field of this same output";
      case SlotValue::State::object:
        return " names an object; a slot inserts one string, number or boolean (a pointer such as {/field/0} reaches "
               "inside)";
      case SlotValue::State::array:
        return " names an array; a slot inserts one string, number or boolean (a pointer such as {/field/0} reaches "
               "inside)";
      case SlotValue::State::unchecked:
        return " is an unchecked slot: no check reads that field, so what it inserts is unsupported; put only "
               "checked fields in slots; pass BoundaryOptions::free_fields to let a slot insert it unchecked";
      case SlotValue::State::ok:
        break;
    }
    return "";
  }

  const SlotValue& value_of(std::string_view field) {
    const auto [at, added] = value_index_.try_emplace(std::string(field), slot_values_.size());
    if (!added) return slot_values_[at->second];
    SlotValue v;
    const nlohmann::json* found = find_field(*output_, field);
    if (found == nullptr) {
      v.state = SlotValue::State::missing;
    } else if (found->is_null()) {
      v.state = SlotValue::State::null;
    } else if (found->is_object()) {
      v.state = SlotValue::State::object;
    } else if (found->is_array()) {
      v.state = SlotValue::State::array;
    } else {
      const std::vector<std::string> tokens = tokens_of(field);
      if (!covered(tokens, *rules_.read) && !covered(tokens, *rules_.free_fields)) {
        v.state = SlotValue::State::unchecked;
      } else {
        v.state = SlotValue::State::ok;
        v.text = as_written(*found);
        if (!v.text.empty()) {
          const CodePoint first = code_point_at(v.text, 0);
          const NumericShape s = first.valid ? numeric_shape(first.cp) : NumericShape::none;
          v.starts_as_number = s == NumericShape::sign || s == NumericShape::point ||
                               (first.valid && word_class(first.cp) == WordClass::digit);
          const CodePoint last = code_point_before(v.text, v.text.size());
          v.ends_as_number = last.valid && word_class(last.cp) == WordClass::digit;
        }
      }
    }
    slot_values_.push_back(std::move(v));
    return slot_values_.back();
  }

  // A slot's value as the model wrote it: a string unquoted, a number with its digits.
  static std::string as_written(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (const auto stated = stated_text(v)) return std::string(stated->text);
    return v.dump();
  }

  // What `last_` holds before anything visible, and for a byte that is not UTF-8: no
  // number's shape.
  static constexpr char32_t nothing = 0xFFFD;

  std::string_view text_;
  const ProseRules& rules_;
  const nlohmann::json* output_ = nullptr;
  Kept syntax_, digits_, names_, values_, against_;
  std::unordered_map<std::string, std::size_t> value_index_;  // a slot's field -> its value in slot_values_
  std::vector<SlotValue> slot_values_;                        // judged once each
  // The words not yet known to start a name or not, a ring whose strings keep their room.
  std::array<Word, ProseNames::max_words> window_;
  std::size_t window_from_ = 0;
  std::size_t window_size_ = 0;
  std::vector<std::uint32_t> here_, next_;  // match_front's nodes, reused
  ProseKeys keys_;
  char32_t last_ = nothing;       // the last visible code point read (of the text, or a slot's value)
  std::size_t slot_bytes_ = 0;    // the bytes of the ok slots read so far
  std::size_t values_bytes_ = 0;  // and of the values they insert
  bool grew_ = false;
  std::string probe_;  // ProseNames::children's lookup key
};

}  // namespace prose

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
  decltype(nodes_)().swap(nodes_);  // only building needs it: its memory is given back
}

GROUNDPLANE_INLINE void ProseNames::edge(std::string& key, std::uint32_t parent, const std::string& word_key) {
  key.assign(sizeof parent, '\0');
  std::memcpy(key.data(), &parent, sizeof parent);
  key += word_key;
}

GROUNDPLANE_INLINE void ProseNames::link(const std::string& key, std::uint32_t child) {
  const auto [it, added] = edges_.try_emplace(key, links_.size());
  if (added) {
    links_.push_back({child, no_end});
    return;
  }
  auto at = static_cast<std::uint32_t>(it->second);
  while (true) {
    if (links_[at].child == child) return;
    if (links_[at].next == no_end) break;
    at = links_[at].next;
  }
  links_[at].next = static_cast<std::uint32_t>(links_.size());
  links_.push_back({child, no_end});
}

GROUNDPLANE_INLINE void ProseNames::add(std::string_view text, std::size_t fact) {
  // The name's words, as the template's are read: maximal runs of letters, numbers, '_'
  // and invisible characters (a name of none of them is nothing a reader sees as one).
  ProseKeys keys;
  std::string first;
  std::string second;
  std::string key;
  std::uint32_t node = 0;
  std::size_t words = 0;
  for (std::size_t i = 0; i < text.size() && words < max_words;) {
    const prose::CodePoint cp = prose::code_point_at(text, i);
    if (prose::class_of(cp) == WordClass::none) {
      i += cp.length;
      continue;
    }
    const std::size_t from = i;
    bool visible = false;
    while (i < text.size()) {
      const prose::CodePoint c = prose::code_point_at(text, i);
      const WordClass cls = prose::class_of(c);
      if (cls == WordClass::none) break;
      visible = visible || cls != WordClass::ignorable;
      i += c.length;
    }
    if (!visible) continue;
    keys.of(text.substr(from, i - from), first, second);
    if (node == 0) {
      starts_.resize(start_bits / 64);
      for (const std::string* k : {&first, &second}) starts_[bit_of(*k) / 64] |= std::uint64_t{1} << (bit_of(*k) % 64);
    }
    edge(key, node, first);
    const auto [it, added] = nodes_.try_emplace(key, ends_.size());
    if (added) ends_.push_back(no_end);
    const auto child = static_cast<std::uint32_t>(it->second);
    link(key, child);
    if (second != first) {
      edge(key, node, second);
      link(key, child);
    }
    node = child;
    ++words;
  }
  if (words == 0 || ends_[node] != no_end) return;  // nothing to read, or a name already recorded there
  ends_[node] = static_cast<std::uint32_t>(endings_.size());
  endings_.push_back({fact, std::string(text)});
}

GROUNDPLANE_INLINE void ProseNames::children(std::uint32_t node, const std::string& first, const std::string& second,
                                             std::vector<std::uint32_t>& out, std::string& probe) const {
  const auto follow = [&](const std::string& word_key) {
    edge(probe, node, word_key);
    const auto it = edges_.find(probe);
    if (it == edges_.end()) return;
    for (auto at = static_cast<std::uint32_t>(it->second); at != no_end; at = links_[at].next) {
      const std::uint32_t child = links_[at].child;
      if (out.size() < max_paths && std::find(out.begin(), out.end(), child) == out.end()) out.push_back(child);
    }
  };
  follow(first);
  if (second != first) follow(second);
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
  reader.read(output);
  if (reader.found_any()) {
    reader.move_findings_to(findings);
    return std::nullopt;
  }
  return reader.render();
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
