// The bodies of detail/facts/column_summary.hpp: included by it in the header-only build,
// compiled once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/facts/column_summary.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace groundplane::detail {

GROUNDPLANE_INLINE ColumnNumbers derive_numbers(const Column& c) {
  ColumnNumbers out;
  const std::size_t n = c.tags.size();
  const CellTag* tags = c.tags.data();
  if (c.plain_numbers()) {
    // Every cell a number or null, every number a 64-bit word at one scale (a null's word
    // is 0): integer sums, flushed into the Decimal before a partial sum could overflow,
    // and extremes over the word array.
    const std::int64_t* w = c.words.data();
    const std::size_t per_chunk = rows_per_partial_sum(c);
    for (std::size_t i = 0; i < n; i += per_chunk) {
      const std::size_t end = std::min(n, i + per_chunk);
      std::int64_t partial = 0;
      for (std::size_t r = i; r < end; ++r) partial += w[r];
      out.sum += DecimalAccess::from_inline(partial, c.scale);
    }
    if (c.numbers == 0) return out;
    const bool no_nulls = c.nulls() == 0;
    std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
    std::int64_t highest = std::numeric_limits<std::int64_t>::min();
    for (std::size_t r = 0; r < n; ++r) {
      const bool in = no_nulls || tags[r] != CellTag::null;
      lowest = in && w[r] < lowest ? w[r] : lowest;
      highest = in && w[r] > highest ? w[r] : highest;
    }
    if (lowest < 0)  // a null's word is 0: the first word below 0 is a number's
      out.first_negative = static_cast<std::size_t>(std::find_if(w, w + n, [](std::int64_t x) { return x < 0; }) - w);
    out.lowest = DecimalAccess::from_inline(lowest, c.scale);
    out.highest = DecimalAccess::from_inline(highest, c.scale);
    return out;
  }
  // Value by value: numbers that share no scale, unsigned integers past 2^63 - 1, or a
  // column that also holds something other than a number.
  std::vector<Decimal> values;
  values.reserve(c.numbers);
  for (std::size_t r = 0; r < n; ++r) {
    const CellTag tag = tags[r];
    if (tag == CellTag::null) continue;
    if (!is_number(tag)) {
      if (out.first_not_number == no_row) out.first_not_number = r;
      continue;
    }
    values.push_back(c.number(r));
    const Decimal& v = values.back();
    if (out.first_negative == no_row && v.signum() < 0) out.first_negative = r;
    if (!out.lowest || v < *out.lowest) out.lowest = v;
    if (!out.highest || v > *out.highest) out.highest = v;
  }
  out.sum = sum(values);
  return out;
}

GROUNDPLANE_INLINE ColumnMedian derive_median(const Column& c) {
  ColumnMedian out;
  if (c.numbers == 0) return out;
  const std::size_t n = c.tags.size();
  const CellTag* tags = c.tags.data();
  const auto middle = [&](auto& v, auto&& as_decimal) {
    const std::size_t mid = v.size() / 2;
    const auto at = v.begin() + static_cast<std::ptrdiff_t>(mid);
    std::nth_element(v.begin(), at, v.end());
    out.upper = as_decimal(*at);
    out.lower = v.size() % 2 == 1 ? out.upper : as_decimal(*std::max_element(v.begin(), at));
  };
  if (c.plain_numbers()) {
    std::vector<std::int64_t> words;
    words.reserve(c.numbers);
    for (std::size_t r = 0; r < n; ++r)
      if (tags[r] != CellTag::null) words.push_back(c.words[r]);
    middle(words, [&](std::int64_t w) { return DecimalAccess::from_inline(w, c.scale); });
    return out;
  }
  std::vector<Decimal> values;
  values.reserve(c.numbers);
  for (std::size_t r = 0; r < n; ++r)
    if (is_number(tags[r])) values.push_back(c.number(r));
  middle(values, [](const Decimal& d) { return d; });
  return out;
}

}  // namespace groundplane::detail
