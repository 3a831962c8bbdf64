// What the checks derive from one recorded column of a gp::Table: its numbers' exact sum
// and extremes, where it holds something other than a number, its median, and its values
// as row keys. A fact is write-once, so each of these is a property of the fact, not of a
// claim: computed on the first check that asks (one pass over the column), once per table
// and column, and kept for the table's lifetime. Every later boundary and check reads it
// in O(1): what a claim costs is what it claims, not a pass over the rows.
//
// What does not need a pass is not kept here: how many cells of each kind a column holds
// and how many are null are counted while it is recorded (detail::Column). A `where`
// filter or a weight column is the claim's own, and is computed per claim.
//
// Thread-safe: facts are read from many threads at once, and the first readers of a
// column may race; each summary is derived by exactly one of them (std::call_once) and
// the others wait for it. Copies of a table share its summaries.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/facts/column.hpp"
#include "groundplane/detail/linkage.hpp"

namespace groundplane::detail {

inline constexpr std::size_t no_row = static_cast<std::size_t>(-1);

// The column's numbers, in one pass.
struct ColumnNumbers {
  Decimal sum;                            // exact, of every number (0 for none)
  std::optional<Decimal> lowest;          // none when the column holds no number
  std::optional<Decimal> highest;         //
  std::size_t first_not_number = no_row;  // the first row holding a string, a bool, an array or an object
  std::size_t first_negative = no_row;    // the first row holding a number below 0
};

// The median of every number of the column: the middle two, one and the same for an odd
// count; none when the column holds no number.
struct ColumnMedian {
  std::optional<Decimal> lower;
  std::optional<Decimal> upper;
};

// The column's values as row keys (a row_integrity key_column other than the table's):
// each value to the first row holding it, and why the column cannot key rows, if it
// cannot (a value twice, or a cell that is no key).
struct ColumnKeys {
  // A row as by_id holds it: a table has fewer rows than StringPool ids, so 4 bytes do.
  using Row = std::uint32_t;
  static constexpr Row none = std::numeric_limits<Row>::max();
  static_assert(StringPool::max_size < none, "every row of a table fits a Row");

  std::string refusal;                                  // "" when every row has a key of its own
  std::vector<Row> by_id;                               // a string key's pool id -> its row (none: no row)
  std::unordered_map<std::string, std::size_t> others;  // any other key, as detail::row_key writes it -> its row
};

// How many of a plain column's words (Column::plain_numbers) may be added in an
// std::int64_t before the sum is flushed into a Decimal: each adds at most max_magnitude.
inline std::size_t rows_per_partial_sum(const Column& c) noexcept {
  const std::size_t n = c.tags.size();
  if (c.max_magnitude == 0) return n + 1;
  return static_cast<std::size_t>(std::min<std::uint64_t>(
      n + 1, std::max<std::uint64_t>(1, std::numeric_limits<std::int64_t>::max() / c.max_magnitude)));
}

ColumnNumbers derive_numbers(const Column& c);
ColumnMedian derive_median(const Column& c);

// Each column's summaries, derived on first use. `columns` slots are allocated when the
// first summary of any column is asked for, so a table no check reads costs nothing here.
class ColumnSummaries {
 public:
  explicit ColumnSummaries(std::size_t columns) : columns_(columns) {}

  const ColumnNumbers& numbers(std::size_t column, const Column& data) const {
    Slot& s = slot(column);
    std::call_once(s.numbers_once, [&] { s.numbers = counted(derive_numbers(data)); });
    return s.numbers;
  }
  const ColumnMedian& median(std::size_t column, const Column& data) const {
    Slot& s = slot(column);
    std::call_once(s.median_once, [&] { s.median = counted(derive_median(data)); });
    return s.median;
  }
  // `derive` builds the keys (the table's: it knows how a key is written).
  template <class Derive>
  const ColumnKeys& keys(std::size_t column, Derive&& derive) const {
    Slot& s = slot(column);
    std::call_once(s.keys_once, [&] { s.keys = counted(derive()); });
    return s.keys;
  }

  // How many summaries have been derived, each a pass over one column: at most three per
  // column for the table's lifetime, whatever number of boundaries and checks read them.
  std::size_t passes() const noexcept { return passes_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    std::once_flag numbers_once, median_once, keys_once;
    ColumnNumbers numbers;
    ColumnMedian median;
    ColumnKeys keys;
  };

  Slot& slot(std::size_t column) const {
    std::call_once(slots_once_, [&] { slots_ = std::make_unique<Slot[]>(columns_); });
    return slots_[column];
  }
  template <class T>
  T counted(T made) const {
    passes_.fetch_add(1, std::memory_order_relaxed);
    return made;
  }

  std::size_t columns_;
  mutable std::once_flag slots_once_;
  mutable std::unique_ptr<Slot[]> slots_;
  mutable std::atomic<std::size_t> passes_{0};
};

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/facts/column_summary-inl.hpp"
#endif
