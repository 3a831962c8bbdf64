// The bodies of detail/json/json_push_reader.hpp: included by it in the header-only build,
// compiled once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/json/json_push_reader.hpp"

#include <charconv>
#include <clocale>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"

namespace groundplane::detail {

GROUNDPLANE_INLINE JsonPushReader::JsonPushReader(const Observer& observer, const JsonTextOptions& options)
    : observer_(observer),
      options_(options),
      doc_(JsonTextReader<nlohmann::json>::empty_document()),
      reader_{doc_, options_, {}, substitutes_, {}, nullptr, 0, 0, false} {
  reader_.frames.reserve(8);
}

GROUNDPLANE_INLINE void JsonPushReader::read(std::string_view bytes) {
  if (bytes.empty()) return;
  text_.append(bytes);
  if (lex_ == Lex::failed) {
    offset_ += bytes.size();
    return;
  }
  for (std::size_t i = 0; i < bytes.size();) {
    if (lex_ == Lex::string && utf8_need_ == 0 && !want_low_) {
      // A run of plain characters, appended at once: most of a text is inside strings.
      std::size_t j = i;
      while (j < bytes.size()) {
        const auto c = static_cast<unsigned char>(bytes[j]);
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
        ++j;
      }
      if (j > i) {
        token_.append(bytes.data() + i, j - i);
        offset_ += j - i;
        i = j;
        continue;
      }
    }
    step(bytes[i]);
    ++offset_;
    ++i;
    if (lex_ == Lex::failed) {
      offset_ = text_.size();
      return;
    }
  }
}

GROUNDPLANE_INLINE void JsonPushReader::end() {
  if (lex_ == Lex::number) finish_number();
  else if (lex_ == Lex::literal) finish_literal();
  if (lex_ != Lex::done) fail();
}

GROUNDPLANE_INLINE const NumberText* JsonPushReader::number_text(const nlohmann::json& node) const {
  if (const NumberText* t = doc_.number_text(node)) return t;
  const std::less<> before;  // addresses in one array: ordered, never compared across arrays
  for (const auto& frame : reader_.frames) {
    if (!frame.array || frame.texts.empty()) continue;
    const auto& a = frame.node->get_ref<const nlohmann::json::array_t&>();
    if (a.empty() || before(&node, &a.front()) || before(&a.back(), &node)) continue;
    const auto index = static_cast<std::size_t>(&node - &a.front());
    for (const auto& [i, t] : frame.texts)
      if (i == index) return &t;
  }
  return nullptr;
}

// One byte, read in the state the bytes before it left: inside a token, or between tokens.
GROUNDPLANE_INLINE void JsonPushReader::step(char c) {
  switch (lex_) {
    case Lex::string:
      return step_string(c);
    case Lex::escape:
      return step_escape(c);
    case Lex::unicode:
      return step_unicode(c);
    case Lex::number:
      return step_number(c);
    case Lex::literal:
      return step_literal(c);
    case Lex::bom:
      return step_bom(c);
    case Lex::value:
      return step_value(c);
    case Lex::value_or_end:
      return step_value_or_end(c);
    case Lex::key_or_end:
    case Lex::key:
      return step_key(c);
    case Lex::colon:
      return step_colon(c);
    case Lex::after_value:
      return step_after_value(c);
    case Lex::done:
      return step_done(c);
    case Lex::failed:
      return;
  }
}

// Inside a string: a character of it, its closing quote, or the start of an escape.
GROUNDPLANE_INLINE void JsonPushReader::step_string(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (utf8_need_ > 0) return step_utf8_sequence(c);
  if (want_low_ && c != '\\') return fail();  // a high surrogate's low half must follow
  if (c == '"') return finish_string();
  if (c == '\\') {
    lex_ = Lex::escape;
    return;
  }
  if (byte < 0x20) return fail();
  if (byte < 0x80) {
    token_.push_back(c);
    return;
  }
  utf8_need_ = byte >= 0xC2 && byte <= 0xDF   ? 2
               : byte >= 0xE0 && byte <= 0xEF ? 3
               : byte >= 0xF0 && byte <= 0xF4 ? 4
                                              : 0;
  if (utf8_need_ == 0) return fail();
  utf8_[0] = c;
  utf8_have_ = 1;
}

// Inside a multi-byte UTF-8 sequence: appended to the string once whole and valid.
GROUNDPLANE_INLINE void JsonPushReader::step_utf8_sequence(char c) {
  utf8_[utf8_have_++] = c;
  if (utf8_have_ < utf8_need_) return;
  const std::string_view seq(utf8_, utf8_have_);
  if (utf8_sequence_length(seq, 0) != utf8_have_) return fail();
  token_.append(seq);
  utf8_need_ = utf8_have_ = 0;
}

// After '\' in a string.
GROUNDPLANE_INLINE void JsonPushReader::step_escape(char c) {
  if (want_low_ && c != 'u') return fail();
  lex_ = Lex::string;
  if (c == 'u') {
    lex_ = Lex::unicode;
    unit_ = 0;
    unit_digits_ = 0;
    return;
  }
  static constexpr std::string_view escaped = "\"\\/bfnrt";
  static constexpr std::string_view meant = "\"\\/\b\f\n\r\t";
  const std::size_t at = escaped.find(c);
  if (at == std::string_view::npos) return fail();
  token_.push_back(meant[at]);
}

// One hex digit of a \uXXXX.
GROUNDPLANE_INLINE void JsonPushReader::step_unicode(char c) {
  int v = -1;
  if (c >= '0' && c <= '9') v = c - '0';
  else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
  else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
  if (v < 0) return fail();
  unit_ = unit_ * 16 + static_cast<char32_t>(v);
  if (++unit_digits_ < 4) return;
  lex_ = Lex::string;
  if (!finish_escape_unit()) return fail();
}

// Inside a number: another of its characters, or the delimiter that ends it.
GROUNDPLANE_INLINE void JsonPushReader::step_number(char c) {
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
    token_.push_back(c);
    return;
  }
  finish_number();
  if (lex_ == Lex::failed) return;
  return step(c);  // the delimiter, read in the state the number left
}

// Inside true, false or null: its next letter, or the delimiter that ends it.
GROUNDPLANE_INLINE void JsonPushReader::step_literal(char c) {
  if (c >= 'a' && c <= 'z') {
    if (literal_[literal_matched_] != c) return fail();  // past the end too: the literal's '\0'
    ++literal_matched_;
    return;
  }
  finish_literal();
  if (lex_ == Lex::failed) return;
  return step(c);
}

// Between tokens, whitespace is skipped (except inside a byte-order mark).
inline bool is_json_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// After 0xEF at the start: BB BF must follow.
GROUNDPLANE_INLINE void JsonPushReader::step_bom(char c) {
  if (static_cast<unsigned char>(c) != (offset_ == 1 ? 0xBB : 0xBF)) return fail();
  if (offset_ == 2) lex_ = Lex::value;
}

// Where a value must come: its first byte (or, first in the text, a byte-order mark).
GROUNDPLANE_INLINE void JsonPushReader::step_value(char c) {
  if (is_json_space(c)) return;
  if (offset_ == 0 && static_cast<unsigned char>(c) == 0xEF) {
    lex_ = Lex::bom;
    return;
  }
  begin_value(c);
}

// After '[': the first item, or ']'.
GROUNDPLANE_INLINE void JsonPushReader::step_value_or_end(char c) {
  if (is_json_space(c)) return;
  if (c == ']') return close_container(c);
  set_path_token(std::to_string(items_.back()));
  begin_value(c);
}

// After '{' (where '}' may come instead) or after ',' in an object: a key's opening quote.
GROUNDPLANE_INLINE void JsonPushReader::step_key(char c) {
  if (is_json_space(c)) return;
  if (c == '}' && lex_ == Lex::key_or_end) return close_container(c);
  if (c != '"') return fail();
  in_key_ = true;
  token_.clear();
  lex_ = Lex::string;
}

GROUNDPLANE_INLINE void JsonPushReader::step_colon(char c) {
  if (is_json_space(c)) return;
  if (c != ':') return fail();
  lex_ = Lex::value;
}

// After a value: ',' before the next member or item, or a closing bracket; at the root,
// nothing more.
GROUNDPLANE_INLINE void JsonPushReader::step_after_value(char c) {
  if (is_json_space(c)) return;
  if (open_.empty()) return fail();  // text after the root value
  if (c == ',') {
    if (open_.back() == '{') {
      lex_ = Lex::key;
    } else {
      ++items_.back();
      set_path_token(std::to_string(items_.back()));
      lex_ = Lex::value;
    }
    return;
  }
  if (c == '}' || c == ']') return close_container(c);
  return fail();
}

// After the root value: only whitespace.
GROUNDPLANE_INLINE void JsonPushReader::step_done(char c) {
  if (!is_json_space(c)) fail();
}

GROUNDPLANE_INLINE void JsonPushReader::begin_value(char c) {
  switch (c) {
    case '{':
    case '[': {
      const bool array = c == '[';
      if (!(array ? reader_.start_array(0) : reader_.start_object(0))) return fail();  // too deep
      open_.push_back(c);
      if (array) items_.push_back(0);
      if (open_.size() <= observer_.watch_depth) path_.resize(open_.size());
      lex_ = array ? Lex::value_or_end : Lex::key_or_end;
      return;
    }
    case '"':
      in_key_ = false;
      token_.clear();
      lex_ = Lex::string;
      return;
    case 't':
      literal_ = "true";
      break;
    case 'f':
      literal_ = "false";
      break;
    case 'n':
      literal_ = "null";
      break;
    default:
      if (c == '-' || (c >= '0' && c <= '9')) {
        token_.assign(1, c);
        token_offset_ = offset_;
        lex_ = Lex::number;
        return;
      }
      return fail();
  }
  literal_matched_ = 1;
  lex_ = Lex::literal;
}

GROUNDPLANE_INLINE void JsonPushReader::set_path_token(std::string token) {
  if (open_.size() <= observer_.watch_depth) path_[open_.size() - 1] = std::move(token);
}

GROUNDPLANE_INLINE void JsonPushReader::after_value() {
  lex_ = open_.empty() ? Lex::done : Lex::after_value;
  closed(open_.size());
}

GROUNDPLANE_INLINE void JsonPushReader::closed(std::size_t depth) {
  if (observer_.closed != nullptr && depth <= observer_.watch_depth)
    observer_.closed(observer_.context, path_.data(), depth);
}

GROUNDPLANE_INLINE void JsonPushReader::close_container(char c) {
  const char opened = open_.back();
  if ((c == '}') != (opened == '{')) return fail();
  if (opened == '{') {
    reader_.end_object();
  } else {
    reader_.end_array();
    items_.pop_back();
  }
  open_.pop_back();
  if (open_.size() < path_.size()) path_.resize(open_.size());
  after_value();
}

GROUNDPLANE_INLINE void JsonPushReader::finish_string() {
  if (in_key_) {
    set_path_token(token_);
    reader_.key(token_);
    lex_ = Lex::colon;
    return;
  }
  reader_.string(token_);
  after_value();
}

// A \uXXXX just read: a character, or one half of a surrogate pair.
GROUNDPLANE_INLINE bool JsonPushReader::finish_escape_unit() {
  char32_t cp = unit_;
  if (want_low_) {
    if (cp < 0xDC00 || cp > 0xDFFF) return false;
    cp = 0x10000 + ((high_surrogate_ - 0xD800) << 10) + (cp - 0xDC00);
    want_low_ = false;
  } else if (cp >= 0xD800 && cp <= 0xDBFF) {
    high_surrogate_ = cp;
    want_low_ = true;
    return true;
  } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
    return false;
  }
  const auto put = [&](char32_t v) { token_.push_back(static_cast<char>(v)); };
  if (cp < 0x80) {
    put(cp);
  } else if (cp < 0x800) {
    put(0xC0 | (cp >> 6));
    put(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    put(0xE0 | (cp >> 12));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  } else {
    put(0xF0 | (cp >> 18));
    put(0x80 | ((cp >> 12) & 0x3F));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  }
  return true;
}

// As nlohmann's lexer: an integer as unsigned (no sign) or signed when it fits, else a
// double with its lexeme; and, as JsonText's prescan, a number past the bound or past a
// double's range stands in as the 0 JsonText's reader replaces.
GROUNDPLANE_INLINE void JsonPushReader::finish_number() {
  const JsonNumberShape shape = json_number_shape(token_, options_);
  if (!shape.well_formed) return fail();
  reader_.original = text_;
  if (shape.out_of_range || shape.past_double) {
    substitutes_.push_back({reader_.numbers, token_offset_, token_.size(), shape.out_of_range, shape.negative});
    reader_.number_integer(0);
    return after_value();
  }
  const char* first = token_.data();
  const char* last = first + token_.size();
  if (token_.find_first_of(".eE") == std::string::npos) {
    if (shape.negative) {
      std::int64_t v = 0;
      if (const auto r = std::from_chars(first, last, v); r.ec == std::errc() && r.ptr == last) {
        reader_.number_integer(v);
        return after_value();
      }
    } else {
      std::uint64_t v = 0;
      if (const auto r = std::from_chars(first, last, v); r.ec == std::errc() && r.ptr == last) {
        reader_.number_unsigned(v);
        return after_value();
      }
    }
  }
  // strtod, as nlohmann's lexer, with the locale's decimal point where the text has '.'.
  const char point = *std::localeconv()->decimal_point;
  double v = 0;
  if (point == '.') {
    v = std::strtod(token_.c_str(), nullptr);
  } else {
    std::string digits = token_;
    for (char& d : digits)
      if (d == '.') d = point;
    v = std::strtod(digits.c_str(), nullptr);
  }
  reader_.number_float(v, token_);
  after_value();
}

GROUNDPLANE_INLINE void JsonPushReader::finish_literal() {
  if (literal_[literal_matched_] != '\0') return fail();
  switch (literal_[0]) {
    case 't':
      reader_.boolean(true);
      break;
    case 'f':
      reader_.boolean(false);
      break;
    default:
      reader_.null();
      break;
  }
  after_value();
}

}  // namespace groundplane::detail
