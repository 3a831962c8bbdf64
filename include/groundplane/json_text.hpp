// gp::JsonText — JSON text read exactly as it was written.
//
//   const gp::JsonText doc = gp::JsonText::read(text);
//   if (!doc.ok()) { /* doc.error()->offset, doc.error()->reason */ }
//   const nlohmann::json& v = doc.value();                 // an ordinary json
//   if (const gp::NumberText* n = doc.number_text(v["score"])) n->text;   // "0.50"
//
// What nlohmann::json::parse loses, this keeps, and what it throws, this reports:
//
// - Digits as written. Every number that is not a plain integer (every JSON number
//   nlohmann reads as a double) keeps its lexeme: number_text(node) gives "0.50" where
//   the json holds the double 0.5, "12345678901234567890.25" where it holds
//   12345678901234567000, "1e400" where it holds +infinity.
// - A bound on exactness a hostile writer cannot abuse. A number with more than
//   max_digits significant digits, or whose first or last digit lies past
//   10^±max_exponent (defaults 100 and 1000: no real quantity needs more), is
//   *out of range*: value() holds null in its place, number_text() says out_of_range,
//   and out_of_range() lists where it was. Nothing ever converts it, so `1e999999` or a
//   100,000-digit mantissa costs one linear scan, never a big-number computation.
// - Duplicate keys. {"a": 1, "a": 2} keeps the first value in value(); every repeat is
//   listed in duplicate_keys() with the object's JSON Pointer, the key and both values.
// - Text that is not exactly one JSON value — prose, a truncated value, a trailing
//   comma, two values, trailing text, invalid UTF-8, a lone surrogate escape, nesting
//   deeper than max_depth — is an error() naming the 0-based byte offset where reading
//   stopped. read() never throws for any bytes (only std::bad_alloc can escape).
//
// Parse time is linear in the text's length: one scan over the bytes (string state,
// depth, number shapes), then nlohmann's SAX parser (its JSON reader alone) building the
// value. Out-of-range numbers and numbers past a double's range are replaced, before
// nlohmann's lexer sees them, by "0" and spaces of the same length, so byte offsets are
// those of the original text.
//
// Lifetime: number_text() and duplicate_keys() refer to nodes inside this JsonText; they
// are valid while it lives (moving it keeps them valid; the class is not copyable).
// Reasons in error() may quote bytes of the text unescaped: escape before rendering.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json/json_pointer.hpp"
#include "groundplane/detail/linkage.hpp"

namespace groundplane {

namespace detail {
template <class Json>
struct JsonTextReader;
}  // namespace detail

struct JsonTextOptions {
  std::size_t max_depth = 256;   // nested arrays/objects; deeper is an error
  std::size_t max_digits = 100;  // significant digits of one number; more is out of range
  int max_exponent = 1000;       // |power of ten| of a number's first and last digit
  std::size_t max_listed = 16;   // duplicate keys / out-of-range numbers kept in full
};

// Where and why reading stopped. offset is 0-based, in bytes of the text given.
struct JsonTextError {
  std::size_t offset = 0;
  std::string reason;  // e.g. "syntax error while parsing array - unexpected ']'; expected '[', ..."
};

// A number as it was written (only for numbers that are not plain integers).
struct NumberText {
  std::string text;           // the lexeme; for an out-of-range number its first 40 bytes and "..."
  bool out_of_range = false;  // past the options' digit/exponent bound: value() holds null
};

// A key that appears again in one object. first is the value value() keeps.
struct DuplicateKey {
  std::string pointer;  // the object's JSON Pointer ("" for the root)
  std::string key;
  const nlohmann::json* first = nullptr;
  const nlohmann::json* second = nullptr;
};

struct OutOfRangeNumber {
  std::string pointer;  // where it stands
  std::size_t offset = 0;
  std::string text;  // its first 40 bytes, "..." when cut
};

// A class template only so that nothing of nlohmann's parser is instantiated in a
// translation unit that never reads text: use the alias gp::JsonText.
template <class Json = nlohmann::json>
class BasicJsonText {
  static_assert(std::is_same_v<Json, nlohmann::json>, "gp::JsonText reads into nlohmann::json");

 public:
  static BasicJsonText read(std::string_view text, const JsonTextOptions& options = {});

  BasicJsonText(BasicJsonText&&) noexcept = default;
  BasicJsonText& operator=(BasicJsonText&&) noexcept = default;
  BasicJsonText(const BasicJsonText&) = delete;
  BasicJsonText& operator=(const BasicJsonText&) = delete;

  bool ok() const noexcept { return !error_.has_value(); }
  const std::optional<JsonTextError>& error() const noexcept { return error_; }
  // The value read; null when !ok().
  const nlohmann::json& value() const noexcept { return *value_; }

  // The lexeme of a number node inside value() (or of a duplicate's second value);
  // nullptr for a plain integer, a non-number, or a node not from this text.
  const NumberText* number_text(const nlohmann::json& node) const {
    if (&node == value_.get()) return root_text_ ? &*root_text_ : nullptr;
    const auto it = texts_.find(&node);
    return it == texts_.end() ? nullptr : &it->second;
  }

  // Repeated keys: the first max_listed in full, and how many there were in all.
  const std::vector<DuplicateKey>& duplicate_keys() const noexcept { return duplicates_; }
  std::size_t duplicate_key_count() const noexcept { return duplicate_count_; }
  // Out-of-range numbers: the first max_listed, and how many there were in all.
  const std::vector<OutOfRangeNumber>& out_of_range() const noexcept { return out_of_range_; }
  std::size_t out_of_range_count() const noexcept { return out_of_range_count_; }

 private:
  BasicJsonText() : value_(std::make_unique<nlohmann::json>()) {}

  // The root lives on the heap so that moving a JsonText moves no node.
  std::unique_ptr<nlohmann::json> value_;
  std::optional<NumberText> root_text_;
  std::unordered_map<const nlohmann::json*, NumberText> texts_;
  // Duplicates' second values, each on the heap so that its address is stable (a deque
  // would allocate even when it is never used, and most texts repeat no key).
  std::vector<std::unique_ptr<nlohmann::json>> repeats_;
  std::vector<DuplicateKey> duplicates_;
  std::size_t duplicate_count_ = 0;
  std::vector<OutOfRangeNumber> out_of_range_;
  std::size_t out_of_range_count_ = 0;
  std::optional<JsonTextError> error_;

  friend struct detail::JsonTextReader<Json>;
};

using JsonText = BasicJsonText<>;

namespace detail {

// A number token rewritten before nlohmann's lexer sees it.
struct JsonNumberSubstitute {
  std::size_t ordinal = 0;  // which number token of the text (0-based)
  std::size_t offset = 0;
  std::size_t length = 0;
  bool out_of_range = false;
  bool negative = false;
};

inline bool json_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// The shape of a maximal run of number characters: whether it is one JSON number, and
// whether it lies past the bound or past a double's range.
struct JsonNumberShape {
  bool well_formed = false;
  bool out_of_range = false;
  bool past_double = false;
  bool negative = false;
};

inline JsonNumberShape json_number_shape(std::string_view s, const JsonTextOptions& options) {
  JsonNumberShape shape;
  std::size_t i = 0;
  const std::size_t n = s.size();
  if (i < n && s[i] == '-') {
    shape.negative = true;
    ++i;
  }
  const std::size_t int_begin = i;
  if (i < n && s[i] == '0') {
    ++i;
  } else if (i < n && s[i] >= '1' && s[i] <= '9') {
    while (i < n && json_digit(s[i])) ++i;
  } else {
    return shape;
  }
  const std::size_t int_end = i;
  std::size_t frac_begin = i;
  std::size_t frac_end = i;
  if (i < n && s[i] == '.') {
    frac_begin = ++i;
    while (i < n && json_digit(s[i])) ++i;
    frac_end = i;
    if (frac_end == frac_begin) return shape;
  }
  std::int64_t written_exp = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    const std::size_t exp_begin = i;
    for (; i < n && json_digit(s[i]); ++i)
      if (written_exp < 1'000'000'000) written_exp = written_exp * 10 + (s[i] - '0');  // saturate
    if (i == exp_begin) return shape;
    if (eneg) written_exp = -written_exp;
  }
  if (i != n) return shape;
  shape.well_formed = true;

  const std::size_t int_len = int_end - int_begin;
  const std::size_t frac_len = frac_end - frac_begin;
  std::size_t skip = 0;  // leading zeros of integer and fraction digits together
  while (skip < int_len + frac_len && (skip < int_len ? s[int_begin + skip] : s[frac_begin + skip - int_len]) == '0')
    ++skip;
  const std::size_t significant = int_len + frac_len - skip;
  const std::int64_t last = written_exp - static_cast<std::int64_t>(frac_len);
  const std::int64_t bound = options.max_exponent;
  const std::int64_t lead = last + static_cast<std::int64_t>(significant) - 1;
  shape.out_of_range = significant > options.max_digits || last > bound || last < -bound ||
                       (significant > 0 && (lead > bound || lead < -bound));
  shape.past_double = significant > 0 && lead >= std::numeric_limits<double>::max_exponent10;
  return shape;
}

// One scan: which number tokens to rewrite, and where nesting first passes max_depth.
struct JsonPrescan {
  std::vector<JsonNumberSubstitute> substitutes;
  std::optional<std::size_t> too_deep_at;
};

inline JsonPrescan json_prescan(std::string_view text, const JsonTextOptions& options) {
  JsonPrescan out;
  std::size_t depth = 0;
  std::size_t ordinal = 0;
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const char c = text[i];
    if (c == '"') {  // skip the string; an unterminated one ends the scan
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      ++i;
    } else if (c == '{' || c == '[') {
      if (++depth > options.max_depth) {
        out.too_deep_at = i;
        return out;  // the parser stops here, so nothing after matters
      }
      ++i;
    } else if (c == '}' || c == ']') {
      if (depth > 0) --depth;
      ++i;
    } else if (c == '-' || json_digit(c)) {
      std::size_t j = i;
      while (j < n && (json_digit(text[j]) || text[j] == '-' || text[j] == '+' || text[j] == '.' || text[j] == 'e' ||
                       text[j] == 'E'))
        ++j;
      const JsonNumberShape shape = json_number_shape(text.substr(i, j - i), options);
      if (shape.well_formed && (shape.out_of_range || shape.past_double))
        out.substitutes.push_back({ordinal, i, j - i, shape.out_of_range, shape.negative});
      ++ordinal;
      i = j;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      while (i < n && ((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= 'A' && text[i] <= 'Z'))) ++i;
    } else {
      ++i;
    }
  }
  return out;
}

// The text with each number the prescan marked blanked in place (a 0, then spaces), so
// that nlohmann reads it and every byte after it keeps its offset: the readers take the
// number itself from the original text.
inline std::string blank_substitutes(std::string_view text, const JsonPrescan& scan) {
  std::string out(text);
  for (const auto& s : scan.substitutes) {
    out[s.offset] = '0';
    for (std::size_t k = 1; k < s.length; ++k) out[s.offset + k] = ' ';
  }
  return out;
}

inline std::string json_excerpt(std::string_view text) {
  constexpr std::size_t keep = 40;
  if (text.size() <= keep) return std::string(text);
  return std::string(text.substr(0, keep)) + "...";
}

}  // namespace detail

#ifdef GROUNDPLANE_COMPILED_LIB
// groundplane::compiled holds the one instantiation (src/json_text.cpp).
extern template class BasicJsonText<nlohmann::json>;
#endif

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/json_text-inl.hpp"
#endif
