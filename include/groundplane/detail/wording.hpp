// Small phrasing helpers shared by the checks' explanation lines: counts with their
// noun ("1 row", "2,000 rows") and lists of names ("'b', 'c' and 'd'"). Names pass
// through the one escaping routine (escape.hpp) like every other rendered value.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "groundplane/detail/escape.hpp"

namespace groundplane::detail {

// 2000 → "2,000": row counts are read by people, and "2 of 2000" is easy to misread.
inline std::string group_thousands(std::size_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// "1 row", "0 rows", "2,000 rows".
inline std::string count_of(std::size_t n, std::string_view singular, std::string_view plural) {
  return group_thousands(n) + " " + std::string(n == 1 ? singular : plural);
}

// 'a'; 'a' and 'b'; 'a', 'b' and 'c'; past `shown` names: 'a', 'b', 'c', 'd' and 6 others
// (with "or" in place of "and" for alternatives).
inline std::string render_list(const std::vector<std::string>& names, std::string_view conjunction,
                               std::size_t shown = 4) {
  std::string out;
  const std::size_t listed = names.size() <= shown + 1 ? names.size() : shown;
  const std::string joiner = " " + std::string(conjunction) + " ";
  for (std::size_t i = 0; i < listed; ++i) {
    if (i > 0) out += (i + 1 == listed && listed == names.size()) ? joiner : std::string(", ");
    out += quote(names[i]);
  }
  if (listed < names.size()) out += joiner + std::to_string(names.size() - listed) + " others";
  return out;
}

// All of them: 'a', 'b' and 'c'.
inline std::string render_all_of(const std::vector<std::string>& names, std::size_t shown = 4) {
  return render_list(names, "and", shown);
}

// Any one of them: 'a', 'b' or 'c'.
inline std::string render_alternatives(const std::vector<std::string>& names, std::size_t shown = 4) {
  return render_list(names, "or", shown);
}

}  // namespace groundplane::detail
