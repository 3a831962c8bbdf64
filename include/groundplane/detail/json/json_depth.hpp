// How deeply a JSON value nests, found without recursion: nlohmann's copy, comparison and
// serialization recurse once per level, so a value a million levels deep overflows the
// stack of whatever copies it. What takes such a value from outside measures it first,
// in a loop whose memory is one frame per level up to the bound, and refuses it whole.
#pragma once

#include <cstddef>
#include <vector>

namespace groundplane::detail {

// Values the library records or copies from outside (a fact's value, a table cell, a
// provenance argument) are refused past this depth: no claim is checked that deep.
inline constexpr std::size_t max_value_depth = 256;

// True when `v` nests arrays and objects more than `limit` deep: `[]` is 1 deep, `[[1]]`
// 2, a scalar 0 (JsonTextOptions::max_depth counts the same way). Time linear in the
// part of `v` walked; memory one frame per level, at most `limit` of them.
template <class BasicJson>
bool nested_deeper_than(const BasicJson& v, std::size_t limit) {
  if (!v.is_structured()) return false;
  if (limit == 0) return true;
  struct Frame {
    const BasicJson* node;
    typename BasicJson::const_iterator next;
  };
  std::vector<Frame> stack;
  stack.reserve(limit < 16 ? limit : 16);
  stack.push_back({&v, v.cbegin()});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.node->cend()) {
      stack.pop_back();
      continue;
    }
    const BasicJson& child = *top.next;  // an object's iterator gives the member's value
    ++top.next;
    if (!child.is_structured()) continue;
    if (stack.size() >= limit) return true;
    stack.push_back({&child, child.cbegin()});
  }
  return false;
}

}  // namespace groundplane::detail
