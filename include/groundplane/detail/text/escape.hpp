// The one escaping routine. Every string that came from data, from a caller or from a
// model passes through here before it reaches a message, a correction or a ledger
// line: messages are shown back to models, and data may carry injected newlines,
// quotes, terminal escapes or instructions.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace groundplane::detail {

// One rendered value is cut to this many characters (code points), ending with "…".
inline constexpr std::size_t render_cap = 80;
inline constexpr std::string_view ellipsis = "\xE2\x80\xA6";  // U+2026

// Appends escaped units to a string while counting code points against a budget that
// includes the trailing "…". A unit (one escape sequence, one UTF-8 character) is never
// split: when a unit would overflow, the text is cut back to the longest prefix that
// leaves room for the ellipsis, and nothing more is written.
class BoundedWriter {
 public:
  explicit BoundedWriter(std::size_t budget = render_cap) : budget_(budget < 2 ? 2 : budget) {}

  // Appends a unit `width` code points wide; false once the value has been cut.
  bool put(std::string_view unit, std::size_t width) {
    if (truncated_) return false;
    if (used_ + width > budget_) {
      out_.resize(safe_size_);
      truncated_ = true;
      return false;
    }
    out_.append(unit);
    used_ += width;
    if (used_ <= budget_ - 1) safe_size_ = out_.size();
    return true;
  }
  // Appends the longest prefix of `run` (one code point a byte: printable ASCII) that
  // leaves room for the ellipsis, and returns its length; the rest goes unit by unit
  // through put(), so that where the text is cut is decided in one place.
  std::size_t put_run(std::string_view run) {
    if (truncated_ || used_ + 1 >= budget_) return 0;
    const std::size_t n = std::min(run.size(), budget_ - 1 - used_);
    out_.append(run.data(), n);
    used_ += n;
    safe_size_ = out_.size();
    return n;
  }
  bool truncated() const noexcept { return truncated_; }

  // The text, with "…" appended when anything was cut.
  std::string finish() && {
    if (truncated_) out_.append(ellipsis);
    return std::move(out_);
  }

 private:
  std::string out_;
  std::size_t budget_;
  std::size_t used_ = 0;
  std::size_t safe_size_ = 0;  // bytes of the longest prefix at most budget_ - 1 wide
  bool truncated_ = false;
};

// Length of the valid UTF-8 sequence starting at s[i] (2–4), or 0 when the bytes there
// are not valid UTF-8 (overlong forms, surrogates and values past U+10FFFF rejected).
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3;
  else if (c >= 0xF0 && c <= 0xF4) n = 4;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(k) & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && b(1) < 0xA0) return 0;  // overlong
  if (c == 0xED && b(1) > 0x9F) return 0;  // UTF-16 surrogate
  if (c == 0xF0 && b(1) < 0x90) return 0;  // overlong
  if (c == 0xF4 && b(1) > 0x8F) return 0;  // past U+10FFFF
  return n;
}

inline std::uint32_t utf8_decode(std::string_view seq) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(seq[k])); };
  switch (seq.size()) {
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    case 4:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    default:
      return b(0);
  }
}

// Valid UTF-8 that is still invisible or reorders text, escaped as \u{XXXX}: C1
// controls, line/paragraph separators, bidirectional marks and overrides ("Trojan
// Source"), zero-width and other invisible format characters (a name that looks like a
// recorded one but is not), variation selectors, and the tag characters U+E0000–E007F,
// which spell out ASCII invisibly and so can smuggle instructions to a model.
inline bool is_hostile_code_point(std::uint32_t cp) noexcept {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0xAD || cp == 0x61C || cp == 0x180E || (cp >= 0x200B && cp <= 0x200F) ||
         cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) ||
         (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
         (cp >= 0xE0000 && cp <= 0xE007F) || (cp >= 0xE0100 && cp <= 0xE01EF);
}

inline constexpr char escape_hex[] = "0123456789abcdef";

// A byte that stands for itself in escaped text: printable ASCII but the backslash and
// the quote character.
inline bool is_plain_byte(unsigned char c, char quote) noexcept {
  return c >= 0x20 && c < 0x7F && c != '\\' && c != static_cast<unsigned char>(quote);
}

// The run of plain bytes at s[i], put at once; how many of them fitted (0 when none did).
inline std::size_t put_plain_run(BoundedWriter& w, std::string_view s, std::size_t i, char quote) {
  std::size_t end = i + 1;
  while (end < s.size() && is_plain_byte(static_cast<unsigned char>(s[end]), quote)) ++end;
  return w.put_run(s.substr(i, end - i));
}

// An ASCII byte as escape_into writes it, spelled in `buf`: its escape, or itself.
inline std::string_view escaped_ascii(char (&buf)[4], unsigned char c, char quote, bool rendered) noexcept {
  char named = '\0';  // the character after the backslash of a two-byte escape
  if (c == '\\' && !rendered) named = '\\';
  else if (quote != '\0' && c == static_cast<unsigned char>(quote)) named = quote;
  else if (c == '\n') named = 'n';
  else if (c == '\r') named = 'r';
  else if (c == '\t') named = 't';
  if (named != '\0') {
    buf[0] = '\\';
    buf[1] = named;
    return {buf, 2};
  }
  if (c < 0x20 || c == 0x7F) {
    buf[0] = '\\';
    buf[1] = 'x';
    buf[2] = escape_hex[c >> 4];
    buf[3] = escape_hex[c & 0xF];
    return {buf, 4};
  }
  buf[0] = static_cast<char>(c);
  return {buf, 1};
}

// One valid UTF-8 sequence: itself, or \u{XXXX} when its code point is hostile. False
// once the value has been cut.
inline bool put_code_point(BoundedWriter& w, std::string_view seq) {
  const std::uint32_t cp = utf8_decode(seq);
  if (!is_hostile_code_point(cp)) return w.put(seq, 1);
  std::string unit = "\\u{";
  const int top = cp > 0xFFFFF ? 20 : cp > 0xFFFF ? 16 : 12;  // at least four digits, all of them
  for (int shift = top; shift >= 0; shift -= 4) unit.push_back(escape_hex[(cp >> shift) & 0xF]);
  unit.push_back('}');
  return w.put(unit, unit.size());
}

// Escapes `s` into `w`: \\, the quote character, \n, \r, \t, \xHH for every other
// control byte and every byte that is not valid UTF-8, \u{XXXX} for hostile code points.
// quote == '\0' escapes no quote character. With `rendered`, s is text this routine
// already produced (read back from a record), so a backslash is one of its escapes and is
// kept; whatever could still be raw is escaped as always.
inline void escape_into(BoundedWriter& w, std::string_view s, char quote, bool rendered = false) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (is_plain_byte(c, quote)) {  // a run of bytes that stand for themselves, copied at once
      const std::size_t taken = put_plain_run(w, s, i, quote);
      if (taken > 0) {
        i += taken;
        continue;
      }
      // No room for a run: this byte goes through put(), which decides where to cut.
    }
    if (c < 0x80) {
      char buf[4] = {};
      const std::string_view unit = escaped_ascii(buf, c, quote, rendered);
      if (!w.put(unit, unit.size())) return;
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {  // not UTF-8: the byte in hex
      const char buf[4] = {'\\', 'x', escape_hex[c >> 4], escape_hex[c & 0xF]};
      if (!w.put({buf, 4}, 4)) return;
      ++i;
      continue;
    }
    if (!put_code_point(w, s.substr(i, n))) return;
    i += n;
  }
}

// 'text' — single-quoted, escaped, at most render_cap characters ("'abc…" when cut).
inline void quote_into(BoundedWriter& w, std::string_view s) {
  if (!w.put("'", 1)) return;
  escape_into(w, s, '\'');
  w.put("'", 1);
}

inline std::string quote(std::string_view s, std::size_t cap = render_cap) {
  BoundedWriter w(cap);
  quote_into(w, s);
  return std::move(w).finish();
}

// Escaped but not quoted: for identifiers (tool names, argument keys, action ids) that
// sit in a message's structure rather than being quoted as values.
inline std::string escape(std::string_view s, std::size_t cap = render_cap) {
  BoundedWriter w(cap);
  escape_into(w, s, '\0');
  return std::move(w).finish();
}

// `s` unchanged when it is valid UTF-8; else each byte that does not belong to a valid
// UTF-8 sequence written as \xHH and nothing else touched. What a JSON serializer can
// always write, for text that should already be escaped but may come from code that did
// not escape it (a check of the caller's own).
inline std::string utf8_safe(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) ++i;
    else if (const std::size_t n = utf8_sequence_length(s, i); n != 0) i += n;
    else break;
  }
  if (i == s.size()) return std::string(s);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out(s.substr(0, i));
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : utf8_sequence_length(s, i);
    if (n == 0) {
      const char buf[4] = {'\\', 'x', hex[c >> 4], hex[c & 0xF]};
      out.append(buf, 4);
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

// A line this library rendered earlier, read back from a recorded fact (a ledger line in
// a Table): not escaped twice, but nothing raw gets through if the fact was made by hand.
inline std::string escape_rendered(std::string_view s, std::size_t cap = render_cap) {
  BoundedWriter w(cap);
  escape_into(w, s, '\0', true);
  return std::move(w).finish();
}

}  // namespace groundplane::detail
