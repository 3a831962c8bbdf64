// One reference token of a JSON Pointer (RFC 6901) written out: every place that names
// where in a value something stands spells it this way.
#pragma once

#include <string>
#include <string_view>

namespace groundplane::detail {

// "a/b~c" -> "a~1b~0c"
inline std::string pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (const char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

}  // namespace groundplane::detail
