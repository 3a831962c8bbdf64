// One column of a gp::Table, stored by kind rather than as JSON values.
//
// Per row: a one-byte tag, a 64-bit word and (in columns holding numbers) a 16-bit
// exponent, so a number costs 11 bytes where a nlohmann::json costs 16 plus whatever
// it points to. A number is coefficient × 10^exponent, its coefficient kept in the
// word; a string is an id into the column's StringPool (each distinct string stored
// once); the rare values that fit neither (arrays, objects, unsigned integers above
// 2^63 - 1) are kept as JSON on the side, the word indexing them.
//
// After the last row, a column whose numbers allow it is *scaled*: every numeric word
// is rewritten to the value / 10^scale, scale being the smallest exponent in the
// column, so that sums, minima, maxima and equality tests are plain integer
// operations on the word vector. A column where that would overflow 64 bits stays
// unscaled and is read value by value (correct, slower). A zero's word is 0 whatever
// its exponent.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/facts/string_index.hpp"
#include "groundplane/detail/linkage.hpp"

namespace groundplane::detail {

enum class CellTag : std::uint8_t {
  null = 0,       // absent from the row, or JSON null
  integer,        // a JSON signed integer
  unsigned_int,   // a JSON unsigned integer up to 2^63 - 1
  floating,       // a JSON float: its shortest decimal
  negative_zero,  // the JSON float -0.0 (kept so the value reads back as written)
  big,            // a JSON unsigned integer above 2^63 - 1: side[word]
  string,         // pool id in word
  boolean_false,
  boolean_true,
  other,  // an array, an object or binary: side[word]
};

// A number whose word and exponent are the value itself (everything but big).
constexpr bool is_inline_number(CellTag t) noexcept {
  return static_cast<unsigned>(t) - 1u <= static_cast<unsigned>(CellTag::negative_zero) - 1u;
}
constexpr bool is_number(CellTag t) noexcept { return is_inline_number(t) || t == CellTag::big; }

inline constexpr struct Pow10U64 {
  std::uint64_t v[20];
} pow10_u64 = [] {
  Pow10U64 t{};
  std::uint64_t p = 1;
  for (int k = 0; k < 20; ++k) {
    t.v[k] = p;
    if (k < 19) p *= 10;
  }
  return t;
}();

// a == b for two JSON values, out of line (column-inl.hpp): nlohmann's operator== is a
// large template, and the inline code that compares cells would otherwise compile it
// into every file that includes a check.
bool same_json(const nlohmann::json& a, const nlohmann::json& b);

struct Column {
  std::vector<CellTag> tags;
  std::vector<std::int64_t> words;
  std::vector<std::int16_t> exps;  // empty when the column holds no inline number
  StringPool strings;
  std::vector<nlohmann::json> side;
  // The rows whose cell is a JSON null (tagged null like an absent cell), ascending: a
  // filter on null matches these, not the rows that lack the column.
  std::vector<std::size_t> json_nulls;

  // How many cells of each kind (the rest are null).
  std::size_t numbers = 0;  // inline and big
  std::size_t bigs = 0;
  std::size_t texts = 0;
  std::size_t booleans = 0;
  std::size_t others = 0;

  bool scaled = false;  // numeric words hold value / 10^scale
  std::int32_t scale = 0;
  std::uint64_t max_magnitude = 0;  // the largest |word| of a number, when scaled

  int decimals_hint = 0;  // for detail::shortest_decimal while recording

  // Strings met while recording, interned after the last row (intern_staged): in a
  // batch the hash-table slot of a string a few ahead can be fetched while this one is
  // placed, which hides most of the cache misses of a large column.
  struct Staged {
    const char* data;
    std::size_t size;
    std::uint64_t hash;
  };
  std::vector<Staged> staged;

  explicit Column(std::size_t rows) : tags(rows, CellTag::null), words(rows, 0), exps(rows, 0) {}

  std::size_t nulls() const noexcept { return tags.size() - numbers - texts - booleans - others; }
  // Only numbers and nulls, every number inline and scaled: the fast aggregate path.
  bool plain_numbers() const noexcept { return scaled && bigs == 0 && texts == 0 && booleans == 0 && others == 0; }

  // The coefficient of an inline number at its own exponent.
  std::int64_t coefficient(std::size_t row) const noexcept {
    const std::int64_t w = words[row];
    if (!scaled || w == 0) return w;
    return w / static_cast<std::int64_t>(pow10_u64.v[exps[row] - scale]);
  }

  // The number in a numeric cell (is_number(tags[row])).
  Decimal number(std::size_t row) const {
    if (tags[row] == CellTag::big) return *Decimal::from_json(side[static_cast<std::size_t>(words[row])]);
    return DecimalAccess::from_inline(coefficient(row), exps[row]);
  }

  // The double a floating cell was recorded from: the decimal read back, exactly as
  // from_chars would (one correctly rounded operation when both operands are exact).
  double floating(std::size_t row) const {
    const std::int64_t c = coefficient(row);
    const int e = exps[row];
    constexpr std::int64_t exact = std::int64_t{1} << 53;
    if (c > -exact && c < exact && e >= -22 && e <= 22) {
      constexpr double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
      return e < 0 ? static_cast<double>(c) / pow10[-e] : static_cast<double>(c) * pow10[e];
    }
    const std::string text = std::to_string(c) + "e" + std::to_string(e);
    double v = 0;
    std::from_chars(text.data(), text.data() + text.size(), v);
    return v;
  }

  nlohmann::json json(std::size_t row) const {
    const auto w = words[row];
    switch (tags[row]) {
      case CellTag::null:
        return nullptr;
      case CellTag::integer:
        return nlohmann::json(static_cast<std::int64_t>(coefficient(row)));
      case CellTag::unsigned_int:
        return nlohmann::json(static_cast<std::uint64_t>(coefficient(row)));
      case CellTag::floating:
        return nlohmann::json(floating(row));
      case CellTag::negative_zero:
        return nlohmann::json(-0.0);
      case CellTag::string:
        return nlohmann::json(std::string(strings.at(static_cast<StringPool::Id>(w))));
      case CellTag::boolean_false:
        return nlohmann::json(false);
      case CellTag::boolean_true:
        return nlohmann::json(true);
      case CellTag::big:
      case CellTag::other:
        return side[static_cast<std::size_t>(w)];
    }
    return nullptr;
  }

  // The word a number equal to `d` has in this scaled column; nullopt when no inline
  // number of the column can equal it.
  std::optional<std::int64_t> scaled_word(const Decimal& d) const {
    if (d.is_zero()) return 0;
    if (!DecimalAccess::is_inline(d)) return std::nullopt;
    dec_int c = DecimalAccess::inline_coefficient(d);
    std::int64_t e = DecimalAccess::exponent(d);
    while (e < scale && c % 10 == 0) {
      c /= 10;
      ++e;
    }
    if (e < scale || e - scale > 18) return std::nullopt;
    const auto p = static_cast<dec_int>(pow10_u64.v[e - scale]);
    const dec_int limit = std::numeric_limits<std::int64_t>::max() / p;
    if (c > limit || c < -limit) return std::nullopt;
    return static_cast<std::int64_t>(c * p);
  }

  // The first row other than `skip` whose cell states the same thing as v: numbers by
  // value, everything else exactly (null matches an absent cell). A scan of the typed
  // arrays; no cell is turned into JSON unless it is an array or an object.
  std::optional<std::size_t> find_equal(const nlohmann::json& v, std::size_t skip) const;

  // Records a string cell; the source string must outlive intern_staged().
  void stage(std::size_t row, std::string_view s) {
    tags[row] = CellTag::string;
    staged.push_back({s.data(), s.size(), hash_bytes(s)});
    ++texts;
  }

  // Interns the staged strings in row order (ids in first-seen order, as one by one).
  void intern_staged() {
    constexpr std::size_t ahead = 8;
    // After a sample: a column of mostly distinct strings (a key) gets all its room at
    // once; one of few distinct values (a region) never needs it.
    constexpr std::size_t sample = 4096;
    std::size_t k = 0;
    for (std::size_t r = 0; r < tags.size() && k < staged.size(); ++r) {
      if (tags[r] != CellTag::string) continue;
      if (k == sample && strings.size() * 2 > sample) {
        std::size_t bytes = 0;
        for (const Staged& s : staged) bytes += s.size;
        strings.reserve(staged.size(), bytes);
      }
      if (k + ahead < staged.size()) {
        strings.prefetch(staged[k + ahead].hash);
#if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(staged[k + ahead].data);
#endif
      }
      bool added = false;
      words[r] = strings.intern({staged[k].data, staged[k].size}, staged[k].hash, added);
      ++k;
    }
    std::vector<Staged>().swap(staged);
  }

  // Called once, after the last row.
  void finish() {
    shrink_unused();
    if (numbers == bigs) return;  // nothing inline to scale
    std::int32_t lowest = std::numeric_limits<std::int32_t>::max();
    for (std::size_t r = 0; r < tags.size(); ++r)
      if (is_inline_number(tags[r]) && words[r] != 0 && exps[r] < lowest) lowest = exps[r];
    if (lowest == std::numeric_limits<std::int32_t>::max()) lowest = 0;  // all zeros
    std::uint64_t biggest = 0;
    for (std::size_t r = 0; r < tags.size(); ++r) {
      if (!is_inline_number(tags[r]) || words[r] == 0) continue;
      const std::int64_t k = exps[r] - lowest;
      if (k > 18 || words[r] == std::numeric_limits<std::int64_t>::min()) return;
      const std::uint64_t magnitude =
          words[r] < 0 ? 0 - static_cast<std::uint64_t>(words[r]) : static_cast<std::uint64_t>(words[r]);
      if (magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / pow10_u64.v[k]) return;
      const std::uint64_t m = magnitude * pow10_u64.v[k];
      if (m > biggest) biggest = m;
    }
    for (std::size_t r = 0; r < tags.size(); ++r)
      if (is_inline_number(tags[r]) && words[r] != 0)
        words[r] *= static_cast<std::int64_t>(pow10_u64.v[exps[r] - lowest]);
    scaled = true;
    scale = lowest;
    max_magnitude = biggest;
  }

 private:
  void shrink_unused() {
    if (numbers == bigs) {
      std::vector<std::int16_t>().swap(exps);
    }
    strings.shrink();
    side.shrink_to_fit();
    json_nulls.shrink_to_fit();
  }
};

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/facts/column-inl.hpp"
#endif
