// Strings that are not UTF-8, written into a stored ledger row and read back unchanged.
//
// A row is stored as JSON text, which holds only UTF-8, yet an app's strings are bytes: a
// Latin-1 node name, a handler's error text, a payload copied from a binary protocol. Each
// byte that is not part of valid UTF-8 is written as U+10FFFF followed by its two hex
// digits ("\xE9" becomes U+10FFFF "e9"), and U+10FFFF itself — a noncharacter, which text
// does not carry in practice — is written twice, so that reading a row back gives every
// string byte for byte and a restored session renders what the live one rendered. A
// string that is valid UTF-8 without U+10FFFF is written as it is: nearly every row's
// bytes are nlohmann's plain dump.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "groundplane/detail/text/escape.hpp"

namespace groundplane::detail {

inline constexpr std::string_view stored_text_marker = "\xF4\x8F\xBF\xBF";  // U+10FFFF

inline bool needs_stored_text_encoding(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0 || s.substr(i, n) == stored_text_marker) return true;
    i += n;
  }
  return false;
}

inline std::string encode_stored_text(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : utf8_sequence_length(s, i);
    if (n == 0) {
      out.append(stored_text_marker);
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 0xF]);
      ++i;
      continue;
    }
    const std::string_view unit = s.substr(i, n);
    out.append(unit);
    if (unit == stored_text_marker) out.append(stored_text_marker);
    i += n;
  }
  return out;
}

// s as the store writes it: itself, or its stored-text form when it needs one.
inline std::string stored_text(std::string_view s) {
  return needs_stored_text_encoding(s) ? encode_stored_text(s) : std::string(s);
}

// Undoes encode_stored_text in place. Cheap for the strings it did not touch: they hold no
// byte 0xF4 (U+10FFFF's first), which one scan finds. A marker followed by neither itself
// nor two hex digits is not this encoding's and is kept as it is.
inline void decode_stored_text(std::string& s) {
  if (s.find('\xF4') == std::string::npos) return;
  const auto hex_value = [](char h) -> int {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    return -1;
  };
  const std::size_t m = stored_text_marker.size();
  std::string out;
  out.reserve(s.size());
  const std::string_view in(s);
  for (std::size_t i = 0; i < in.size();) {
    if (in.substr(i, m) != stored_text_marker) {
      out.push_back(in[i++]);
      continue;
    }
    if (in.substr(i + m, m) == stored_text_marker) {
      out.append(stored_text_marker);
      i += 2 * m;
    } else if (i + m + 2 <= in.size() && hex_value(in[i + m]) >= 0 && hex_value(in[i + m + 1]) >= 0) {
      out.push_back(static_cast<char>(hex_value(in[i + m]) * 16 + hex_value(in[i + m + 1])));
      i += m + 2;
    } else {
      out.append(stored_text_marker);
      i += m;
    }
  }
  s.swap(out);
}

}  // namespace groundplane::detail
