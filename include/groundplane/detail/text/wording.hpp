// Small phrasing helpers shared by the checks' explanation lines: counts with their
// noun ("1 row", "2,000 rows") and lists of names ("'b', 'c' and 'd'"). Names pass
// through the one escaping routine (escape.hpp) like every other rendered value.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/entity.hpp"

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

// A name as a message shows it: a string quoted and escaped, an integer entity bare.
inline std::string render_name(const std::string& name) { return quote(name); }
inline std::string render_name(std::string_view name) { return quote(name); }
inline std::string render_name(const Entity& name) { return name.render(); }

// 'a'; 'a' and 'b'; 'a', 'b' and 'c'; past `shown` names: 'a', 'b', 'c', 'd' and 6 others
// (with "or" in place of "and" for alternatives).
template <class Name>
std::string render_list(const std::vector<Name>& names, std::string_view conjunction, std::size_t shown = 4) {
  std::string out;
  const std::size_t listed = names.size() <= shown + 1 ? names.size() : shown;
  const std::string joiner = " " + std::string(conjunction) + " ";
  for (std::size_t i = 0; i < listed; ++i) {
    if (i > 0) out += (i + 1 == listed && listed == names.size()) ? joiner : std::string(", ");
    out += render_name(names[i]);
  }
  if (listed < names.size()) out += joiner + std::to_string(names.size() - listed) + " others";
  return out;
}

// All of them: 'a', 'b' and 'c'.
template <class Name>
std::string render_all_of(const std::vector<Name>& names, std::size_t shown = 4) {
  return render_list(names, "and", shown);
}

// Any one of them: 'a', 'b' or 'c'.
template <class Name>
std::string render_alternatives(const std::vector<Name>& names, std::size_t shown = 4) {
  return render_list(names, "or", shown);
}

// What exists, for a message that refuses a name: 'a', 'b', 'c' — at most `shown`
// (20), then "and N more".
template <class Name>
std::string names_listed(const std::vector<Name>& names, std::size_t shown = 20) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i > 0 ? ", " : "") + render_name(names[i]);
  if (names.size() > shown) out += " and " + group_thousands(names.size() - shown) + " more";
  return out;
}

// "region" -> "regions", "category" -> "categories", "box" -> "boxes": the plural of a
// noun a developer gave, for counts ("the 3 recorded regions").
inline std::string plural_of(std::string_view noun) {
  std::string out(noun);
  if (out.empty()) return out;
  const char last = out.back();
  const auto vowel = [](char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; };
  if (last == 'y' && out.size() > 1 && !vowel(out[out.size() - 2])) {
    out.back() = 'i';
    return out + "es";
  }
  if (last == 's' || last == 'x' || last == 'z' || out.ends_with("ch") || out.ends_with("sh")) return out + "es";
  return out + "s";
}

}  // namespace groundplane::detail
