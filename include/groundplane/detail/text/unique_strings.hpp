// Lists of names (facts, fields, warnings, checks) that must hold each name once, or be
// asked whether they hold one. Such a list can be as long as a client's request — a check
// call of 20,000 checks names 20,000 fields — where searching the list once per name is
// quadratic; a short list (the usual case) is still just scanned, without allocating.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace groundplane::detail {

inline constexpr std::size_t short_string_list = 16;  // scanned; longer lists are hashed

// Keeps the first of each string, in order, in linear time.
inline void keep_first_of_each(std::vector<std::string>& v) {
  if (v.size() < 2) return;
  std::vector<char> keep(v.size(), 0);
  if (v.size() <= short_string_list) {
    for (std::size_t i = 0; i < v.size(); ++i)
      keep[i] = static_cast<char>(std::find(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v[i]) ==
                                  v.begin() + static_cast<std::ptrdiff_t>(i));
  } else {
    std::unordered_set<std::string_view> seen;  // views of the elements, which stay put in this pass
    seen.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) keep[i] = static_cast<char>(seen.insert(v[i]).second);
  }
  std::size_t out = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!keep[i]) continue;
    if (out != i) v[out] = std::move(v[i]);
    ++out;
  }
  v.resize(out);
}

// Whether a list holds a string: scanned while short, hashed once long. The list must
// outlive it unchanged.
class StringMembership {
 public:
  explicit StringMembership(const std::vector<std::string>& list) : list_(&list) {
    if (list.size() <= short_string_list) return;
    hashed_.reserve(list.size());
    for (const auto& s : list) hashed_.insert(s);
  }
  bool contains(std::string_view s) const {
    if (hashed_.empty()) return std::find(list_->begin(), list_->end(), s) != list_->end();
    return hashed_.find(s) != hashed_.end();
  }

 private:
  const std::vector<std::string>* list_;
  std::unordered_set<std::string_view> hashed_;
};

}  // namespace groundplane::detail
