// The ledger's canonical JSON: the one text a stored row's body is written as, so that
// equal bodies are equal bytes and the bytes a row's hash covers are defined by this
// project (docs/ledger-format.md, "Canonical bodies"), not by a JSON library's
// internals. Written here, read back by any JSON parser.
//
//   - an object's members sorted by the bytes of their keys, no whitespace anywhere;
//   - a string or key that is not valid UTF-8, or that holds U+10FFFF, in stored-text form
//     first (detail/ledger/stored_text.hpp); then `"` and `\` escaped with a backslash, the
//     control characters U+0000-U+001F as \b \t \n \f \r or \u00xx (lowercase hex),
//     every other character as its UTF-8 bytes;
//   - integers in decimal; a floating-point number as the shortest text that reads back
//     as the same double (std::to_chars: plain or exponent form, whichever is shorter,
//     plain on a tie, an exponent of at least two digits), with ".0" added when that
//     text has neither a '.' nor an 'e'; a number that is not finite as null.
//
// Hot: every stored row passes through it, so it is inline like the escaping it extends.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/ledger/stored_text.hpp"

namespace groundplane::detail {

// `s` (already in stored-text form) as a JSON string, appended.
inline void put_escaped_json_string(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default: {
        const char u[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
        out.append(u, sizeof u);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

// Any string or key as the ledger writes it: stored-text form when it needs one, escaped.
inline void put_json_string(std::string& out, std::string_view s) {
  if (needs_stored_text_encoding(s)) put_escaped_json_string(out, encode_stored_text(s));
  else put_escaped_json_string(out, s);
}

inline void put_json_number(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, d).ptr;
  const std::string_view text(buf, static_cast<std::size_t>(end - buf));
  out.append(text);
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";  // still reads as a float
}

template <class Int>
void put_json_integer(std::string& out, Int v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// A value nested deeper than a writer was allowed to write (CanonicalWriter's max_nesting).
class NestedTooDeep : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes canonical text into one buffer reused from body to body.
class CanonicalWriter {
 public:
  // Arrays and objects nested deeper than max_nesting (the value itself is 1) are not
  // written: write throws NestedTooDeep (and never recurses past it).
  explicit CanonicalWriter(std::size_t max_nesting = SIZE_MAX) : max_nesting_(max_nesting) {}
  CanonicalWriter(const CanonicalWriter&) = delete;
  CanonicalWriter& operator=(const CanonicalWriter&) = delete;

  // The value's canonical text, valid until the next write.
  std::string_view write(const nlohmann::json& v) {
    text_.clear();
    put(text_, v, max_nesting_);
    return text_;
  }

  // `levels`: how many more arrays and objects may open, this value's included.
  static void put(std::string& out, const nlohmann::json& v, std::size_t levels = SIZE_MAX) {
    using t = nlohmann::json::value_t;
    if ((v.type() == t::object || v.type() == t::array) && levels-- == 0)
      throw NestedTooDeep("a value nests arrays and objects deeper than the ledger allows");
    switch (v.type()) {
      case t::object:
        put_object(out, v, levels);
        return;
      case t::array: {
        out.push_back('[');
        bool first = true;
        for (const auto& item : v) {
          if (!first) out.push_back(',');
          first = false;
          put(out, item, levels);
        }
        out.push_back(']');
        return;
      }
      case t::string:
        put_json_string(out, v.get_ref<const std::string&>());
        return;
      case t::boolean:
        out += v.get<bool>() ? "true" : "false";
        return;
      case t::number_integer:
        put_json_integer(out, v.get<std::int64_t>());
        return;
      case t::number_unsigned:
        put_json_integer(out, v.get<std::uint64_t>());
        return;
      case t::number_float:
        put_json_number(out, v.get<double>());
        return;
      case t::binary:
        put_binary(out, v.get_binary());
        return;
      case t::null:
      case t::discarded:
        out += "null";
        return;
    }
  }

 private:
  static void put_object(std::string& out, const nlohmann::json& v, std::size_t levels) {
    // nlohmann's objects iterate in key order already; only a key that changes in its
    // stored-text form can change its place.
    bool reencoded = false;
    for (auto it = v.begin(); it != v.end() && !reencoded; ++it) reencoded = needs_stored_text_encoding(it.key());
    out.push_back('{');
    if (!reencoded) {
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out.push_back(',');
        first = false;
        put_escaped_json_string(out, it.key());
        out.push_back(':');
        put(out, it.value(), levels);
      }
    } else {
      std::vector<std::pair<std::string, const nlohmann::json*>> members;
      for (auto it = v.begin(); it != v.end(); ++it) members.emplace_back(stored_text(it.key()), &it.value());
      std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      bool first = true;
      for (const auto& [key, value] : members) {
        if (!first) out.push_back(',');
        first = false;
        put_escaped_json_string(out, key);
        out.push_back(':');
        put(out, *value, levels);
      }
    }
    out.push_back('}');
  }

  // A binary value has no JSON form: written as nlohmann writes one, an object.
  static void put_binary(std::string& out, const nlohmann::json::binary_t& b) {
    out += "{\"bytes\":[";
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (i) out.push_back(',');
      put_json_integer(out, static_cast<unsigned>(b[i]));
    }
    out += "],\"subtype\":";
    if (b.has_subtype()) put_json_integer(out, b.subtype());
    else out += "null";
    out.push_back('}');
  }

  std::size_t max_nesting_;
  std::string text_;
};

// The body as it is stored and hashed.
inline std::string canonical_json(const nlohmann::json& v) {
  std::string out;
  CanonicalWriter::put(out, v);
  return out;
}

// A form of a JSON value that is equal exactly when the values are (nlohmann's ==): the
// canonical text, but with 1, 1u and 1.0 written alike. What an ask is found by.
inline void put_equality_key(std::string& out, const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out.push_back(',');
        first = false;
        put_json_string(out, it.key());
        out.push_back(':');
        put_equality_key(out, it.value());
      }
      out.push_back('}');
      return;
    }
    case nlohmann::json::value_t::array: {
      out.push_back('[');
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out.push_back(',');
        put_equality_key(out, v[i]);
      }
      out.push_back(']');
      return;
    }
    case nlohmann::json::value_t::number_float: {
      const double d = v.get<double>();
      if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<std::int64_t>(d))) {
        put_json_integer(out, static_cast<std::int64_t>(d));
        return;
      }
      put_json_number(out, d);
      return;
    }
    default:
      CanonicalWriter::put(out, v);
  }
}

}  // namespace groundplane::detail
