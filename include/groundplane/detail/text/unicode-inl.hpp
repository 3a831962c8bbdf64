// The bodies of unicode.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/text/unicode.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/unicode_data.hpp"

namespace groundplane::detail::unicode {

// A byte that is not valid UTF-8 is carried as a value above the code point range.
inline constexpr char32_t raw_byte = 0x110000;

GROUNDPLANE_INLINE std::vector<char32_t> decode(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : utf8_sequence_length(s, i);
    if (n == 0) {
      out.push_back(raw_byte + c);
      ++i;
      continue;
    }
    out.push_back(n == 1 ? static_cast<char32_t>(c) : static_cast<char32_t>(utf8_decode(s.substr(i, n))));
    i += n;
  }
  return out;
}

GROUNDPLANE_INLINE std::string encode(const std::vector<char32_t>& cps) {
  std::string out;
  out.reserve(cps.size());
  for (const char32_t cp : cps) {
    if (cp >= raw_byte) out += static_cast<char>(cp - raw_byte);
    else append_utf8(out, cp);
  }
  return out;
}

GROUNDPLANE_INLINE std::uint8_t combining_class(char32_t cp) noexcept {
  const auto& runs = unicode_data::combining;
  const auto* it = std::upper_bound(std::begin(runs), std::end(runs), cp,
                                    [](char32_t c, const unicode_data::CombiningRun& r) { return c < r.first; });
  if (it == std::begin(runs)) return 0;
  --it;
  return cp <= it->last ? it->ccc : 0;
}

// Hangul syllables decompose and compose by arithmetic (Unicode 3.12).
inline constexpr char32_t s_base = 0xAC00, l_base = 0x1100, v_base = 0x1161, t_base = 0x11A7;
inline constexpr char32_t l_count = 19, v_count = 21, t_count = 28, n_count = v_count * t_count,
                          s_count = l_count * n_count;

GROUNDPLANE_INLINE void decompose(char32_t cp, std::vector<char32_t>& out) {
  if (cp >= s_base && cp < s_base + s_count) {
    const char32_t s = cp - s_base;
    out.push_back(l_base + s / n_count);
    out.push_back(v_base + (s % n_count) / t_count);
    if (s % t_count != 0) out.push_back(t_base + s % t_count);
    return;
  }
  const auto& table = unicode_data::decompositions;
  const auto* it = std::lower_bound(std::begin(table), std::end(table), cp,
                                    [](const unicode_data::Decomposition& d, char32_t c) { return d.cp < c; });
  if (it == std::end(table) || it->cp != cp) {
    out.push_back(cp);
    return;
  }
  for (std::size_t k = 0; k < it->length; ++k) out.push_back(unicode_data::decomposition_pool[it->offset + k]);
}

GROUNDPLANE_INLINE char32_t compose_pair(char32_t a, char32_t b) noexcept {
  if (a >= l_base && a < l_base + l_count && b >= v_base && b < v_base + v_count)
    return s_base + ((a - l_base) * v_count + (b - v_base)) * t_count;
  if (a >= s_base && a < s_base + s_count && (a - s_base) % t_count == 0 && b > t_base && b < t_base + t_count)
    return a + (b - t_base);
  const auto& table = unicode_data::composites;
  const auto* it = std::lower_bound(std::begin(table), std::end(table), std::pair<char32_t, char32_t>(a, b),
                                    [](const unicode_data::Composite& c, const std::pair<char32_t, char32_t>& k) {
                                      return c.first < k.first || (c.first == k.first && c.second < k.second);
                                    });
  if (it == std::end(table) || it->first != a || it->second != b) return 0;
  return it->composite;
}

GROUNDPLANE_INLINE std::vector<char32_t> nfc(const std::vector<char32_t>& in) {
  std::vector<char32_t> d;
  d.reserve(in.size());
  for (const char32_t cp : in) {
    if (cp >= raw_byte) d.push_back(cp);
    else decompose(cp, d);
  }
  // Canonical order: a stable sort of each run of non-starters by combining class.
  for (std::size_t i = 0; i < d.size();) {
    if (d[i] >= raw_byte || combining_class(d[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < d.size() && d[j] < raw_byte && combining_class(d[j]) != 0) ++j;
    std::stable_sort(d.begin() + static_cast<std::ptrdiff_t>(i), d.begin() + static_cast<std::ptrdiff_t>(j),
                     [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    i = j;
  }
  // Canonical composition.
  std::vector<char32_t> out;
  out.reserve(d.size());
  std::size_t starter = 0;
  bool have_starter = false;
  std::uint8_t last_class = 0;
  for (const char32_t cp : d) {
    const std::uint8_t cc = cp >= raw_byte ? 0 : combining_class(cp);
    if (have_starter && cp < raw_byte && (out.size() == starter + 1 || (last_class != 0 && last_class < cc))) {
      if (const char32_t c = compose_pair(out[starter], cp); c != 0) {
        out[starter] = c;
        continue;
      }
    }
    if (cc == 0) {
      starter = out.size();
      have_starter = cp < raw_byte;
      last_class = 0;
    } else {
      last_class = cc;
    }
    out.push_back(cp);
  }
  return out;
}

}  // namespace groundplane::detail::unicode

namespace groundplane::detail {

GROUNDPLANE_INLINE void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

GROUNDPLANE_INLINE std::string nfc(std::string_view text) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return std::string(text);
  return unicode::encode(unicode::nfc(unicode::decode(text)));
}

GROUNDPLANE_INLINE char32_t simple_fold(char32_t cp) noexcept {
  if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
  const auto& table = unicode_data::folds;
  const auto* it = std::lower_bound(std::begin(table), std::end(table), cp,
                                    [](const unicode_data::Fold& f, char32_t c) { return f.cp < c; });
  return it != std::end(table) && it->cp == cp ? it->folded : cp;
}

namespace unicode {

// Prose reads a class and keys for every code point of a template: the tables sorted by
// code point are indexed by page (256 code points), so a lookup searches one page's
// entries, not the whole table. Each index is built on first use.
inline constexpr std::size_t page_count = 0x110000 >> 8;
using PageIndex = std::array<std::uint16_t, page_count + 1>;

// For each page, the first run of `runs` that ends in it or after it.
template <std::size_t N>
PageIndex index_runs(const unicode_data::ClassRun (&runs)[N]) {
  static_assert(N < 0xFFFF);
  PageIndex index{};
  std::size_t r = 0;
  for (std::size_t page = 0; page <= page_count; ++page) {
    while (r < N && (runs[r].last >> 8) < page) ++r;
    index[page] = static_cast<std::uint16_t>(r);
  }
  return index;
}

// The class of the run holding `cp`, or 0.
template <std::size_t N>
std::uint8_t class_in(const unicode_data::ClassRun (&runs)[N], const PageIndex& index, char32_t cp) noexcept {
  for (std::size_t r = index[cp >> 8]; r < N && runs[r].first <= cp; ++r)
    if (cp <= runs[r].last) return runs[r].cls;
  return 0;
}

}  // namespace unicode

GROUNDPLANE_INLINE WordClass word_class(char32_t cp) noexcept {
  if (cp < 0x80) {
    if (cp >= '0' && cp <= '9') return WordClass::digit;
    return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z' ? WordClass::letter : WordClass::none;
  }
  if (cp >= 0x110000) return WordClass::none;
  static const unicode::PageIndex index = unicode::index_runs(unicode_data::word_classes);
  return static_cast<WordClass>(unicode::class_in(unicode_data::word_classes, index, cp));
}

GROUNDPLANE_INLINE NumericShape numeric_shape(char32_t cp) noexcept {
  if (cp >= 0x110000) return NumericShape::none;
  static const unicode::PageIndex index = unicode::index_runs(unicode_data::numeric_shapes);
  return static_cast<NumericShape>(unicode::class_in(unicode_data::numeric_shapes, index, cp));
}

namespace unicode {

static_assert(sizeof(unicode_data::prose_keys) == unicode_data::prose_key_count * unicode_data::prose_key_size + 1,
              "unicode_data.hpp: the records are not whole; regenerate it with tools/unicode_tables.py");
static_assert(sizeof(unicode_data::key_pool) == unicode_data::key_pool_count * 3 + 1,
              "unicode_data.hpp: the key pool is not whole; regenerate it with tools/unicode_tables.py");

inline std::uint32_t three_bytes(const char* at) noexcept {
  const auto byte = [&](int i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(at[i])); };
  return (byte(0) << 16) | (byte(1) << 8) | byte(2);
}

// The prose_keys record of `cp`, or nullptr: two array reads. Built on first use: for
// each page (256 code points) that has records, the record of each of its code points.
GROUNDPLANE_INLINE const unsigned char* key_record(char32_t cp) {
  using unicode_data::prose_key_count;
  using unicode_data::prose_key_size;
  static_assert(prose_key_count < 0xFFFF);
  struct Index {
    std::vector<std::uint16_t> page;   // per page: its block's number + 1, or 0 for none
    std::vector<std::uint16_t> block;  // per block and code point: its record's number + 1, or 0
  };
  static const Index index = [] {
    Index built;
    built.page.assign(page_count, 0);
    for (std::size_t r = 0; r < prose_key_count; ++r) {
      const std::uint32_t c = three_bytes(unicode_data::prose_keys + r * prose_key_size);
      std::uint16_t& b = built.page[c >> 8];
      if (b == 0) {
        built.block.resize(built.block.size() + 256, 0);
        b = static_cast<std::uint16_t>(built.block.size() / 256);
      }
      built.block[(static_cast<std::size_t>(b) - 1) * 256 + (c & 0xFF)] = static_cast<std::uint16_t>(r + 1);
    }
    return built;
  }();
  if (cp >= 0x110000) return nullptr;
  const std::uint16_t b = index.page[cp >> 8];
  if (b == 0) return nullptr;
  const std::uint16_t r = index.block[(static_cast<std::size_t>(b) - 1) * 256 + (cp & 0xFF)];
  if (r == 0) return nullptr;
  // The records are bytes of a string literal; unsigned char may view any object's bytes.
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
  return reinterpret_cast<const unsigned char*>(unicode_data::prose_keys) + (r - 1) * prose_key_size;
}

// Appends the keys of one code point (not ASCII, not a Hangul syllable) to `first` and
// `second`, as UTF-8: its own when the table has no record of it. True when a key holds
// a combining mark (the keys then need canonical order).
GROUNDPLANE_INLINE bool append_keys(char32_t cp, std::string& first, std::string& second) {
  const unsigned char* r = key_record(cp);
  if (r == nullptr) {
    append_utf8(first, cp);
    append_utf8(second, cp);
    return false;
  }
  const std::size_t offset = (static_cast<std::size_t>(r[3]) << 8) | r[4];
  const std::size_t first_length = r[5] & 0x7FU;
  const std::size_t second_length = r[6];
  const char* pool = unicode_data::key_pool;
  for (std::size_t k = 0; k < first_length; ++k) append_utf8(first, three_bytes(pool + 3 * (offset + k)));
  const std::size_t from = second_length == 0 ? offset : offset + first_length;
  const std::size_t length = second_length == 0 ? first_length : second_length;
  for (std::size_t k = 0; k < length; ++k) append_utf8(second, three_bytes(pool + 3 * (from + k)));
  return (r[5] & 0x80U) != 0;
}

// `key` (UTF-8) in canonical order: each run of non-starters stably sorted by combining
// class. `scratch` holds its code points meanwhile.
GROUNDPLANE_INLINE void canonical_order(std::string& key, std::vector<char32_t>& scratch) {
  scratch.clear();
  for (std::size_t i = 0; i < key.size();) {
    const auto c = static_cast<unsigned char>(key[i]);
    const std::size_t n = c < 0x80 ? 1 : utf8_sequence_length(key, i);
    scratch.push_back(n == 0 ? raw_byte + c : n == 1 ? c : utf8_decode(std::string_view(key).substr(i, n)));
    i += n == 0 ? 1 : n;
  }
  for (std::size_t i = 0; i < scratch.size();) {
    if (scratch[i] < 0x300 || scratch[i] >= raw_byte || combining_class(scratch[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < scratch.size() && scratch[j] >= 0x300 && scratch[j] < raw_byte && combining_class(scratch[j]) != 0) ++j;
    if (j - i > 1)
      std::stable_sort(scratch.begin() + static_cast<std::ptrdiff_t>(i),
                       scratch.begin() + static_cast<std::ptrdiff_t>(j),
                       [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    i = j;
  }
  key.clear();
  for (const char32_t cp : scratch) {
    if (cp >= raw_byte) key += static_cast<char>(cp - raw_byte);
    else append_utf8(key, cp);
  }
}

}  // namespace unicode

GROUNDPLANE_INLINE void ProseKeys::of(std::string_view word, std::string& first, std::string& second) {
  first.clear();
  second.clear();
  bool marks = false;
  for (std::size_t i = 0; i < word.size();) {
    const auto c = static_cast<unsigned char>(word[i]);
    if (c < 0x80) {  // the common case: no table search, no code points
      const std::string_view a = unicode_data::ascii_first_key[c];
      const std::string_view b = unicode_data::ascii_second_key[c];
      if (a.size() == 1) first.push_back(a[0]);
      else first.append(a);
      if (b.size() == 1) second.push_back(b[0]);
      else second.append(b);
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(word, i);
    if (n == 0) {  // not UTF-8: the byte stands for itself, as nfc() keeps it
      first.push_back(static_cast<char>(c));
      second.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    const char32_t cp = utf8_decode(word.substr(i, n));
    i += n;
    if (cp >= unicode::s_base && cp < unicode::s_base + unicode::s_count) {  // a Hangul syllable: its jamo
      const char32_t s = cp - unicode::s_base;
      marks |= unicode::append_keys(unicode::l_base + s / unicode::n_count, first, second);
      marks |= unicode::append_keys(unicode::v_base + (s % unicode::n_count) / unicode::t_count, first, second);
      if (s % unicode::t_count != 0)
        marks |= unicode::append_keys(unicode::t_base + s % unicode::t_count, first, second);
      continue;
    }
    if (cp >= unicode_data::ignored_first && cp <= unicode_data::ignored_last) continue;
    marks |= unicode::append_keys(cp, first, second);  // a default-ignorable one appends nothing
  }
  if (marks) {
    unicode::canonical_order(first, scratch_);
    unicode::canonical_order(second, scratch_);
  }
}

GROUNDPLANE_INLINE std::string folded_nfc(std::string_view text) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    std::string out(text);
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return out;
  }
  std::vector<char32_t> cps = unicode::nfc(unicode::decode(text));
  for (char32_t& cp : cps)
    if (cp < unicode::raw_byte) cp = simple_fold(cp);
  return unicode::encode(unicode::nfc(cps));
}

}  // namespace groundplane::detail
