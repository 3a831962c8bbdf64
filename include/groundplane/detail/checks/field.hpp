// Where a check reads a value in the model's output: a top-level key, or a JSON
// Pointer (RFC 6901) when the field name starts with '/'.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"

namespace groundplane::detail {

// The reference tokens of a pointer ("/a~1b/0" -> {"a/b", "0"}); nullopt when malformed.
inline std::optional<std::vector<std::string>> pointer_tokens(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty() || pointer[0] != '/') return std::nullopt;
  std::string token;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(token));
      token.clear();
    } else if (pointer[i] == '~') {
      if (i + 1 >= pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')) return std::nullopt;
      token.push_back(pointer[i + 1] == '0' ? '~' : '/');
      ++i;
    } else {
      token.push_back(pointer[i]);
    }
  }
  return tokens;
}

// A field spec a check was configured with: non-empty, and a well-formed pointer when it
// starts with '/'. Throws ConfigurationError naming the check and the member.
inline void validate_field(std::string_view field, std::string_view check, std::string_view member) {
  if (field.empty())
    throw ConfigurationError(std::string(check) + ": " + std::string(member) +
                             " is empty; name the output field to read");
  if (field[0] == '/' && !pointer_tokens(field))
    throw ConfigurationError(std::string(check) + ": " + std::string(member) + " " + quote(field) +
                             " is not a valid JSON Pointer (a '~' must be followed by 0 or 1)");
}

// The array index a pointer token names, or nullopt ("01", "-", "x" name none).
inline std::optional<std::size_t> array_index(const std::string& token) {
  if (token.empty() || token.size() > 18 || (token.size() > 1 && token[0] == '0')) return std::nullopt;
  std::size_t n = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  return n;
}

// The value at `field` in `output`, or nullptr when there is none.
template <class BasicJson>
const BasicJson* find_field(const BasicJson& output, std::string_view field) {
  if (field.empty() || field[0] != '/') {
    if (!output.is_object()) return nullptr;
    const auto it = output.find(field);
    return it == output.end() ? nullptr : &*it;
  }
  const auto tokens = pointer_tokens(field);
  if (!tokens) return nullptr;
  const BasicJson* at = &output;
  for (const auto& token : *tokens) {
    if (at->is_object()) {
      const auto it = at->find(token);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array()) {
      const auto i = array_index(token);
      if (!i || *i >= at->size()) return nullptr;
      at = &(*at)[*i];
    } else {
      return nullptr;
    }
  }
  return at;
}

}  // namespace groundplane::detail
