// The bodies of unicode.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/unicode.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/unicode_data.hpp"

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
    if (cp >= raw_byte) {
      out += static_cast<char>(cp - raw_byte);
    } else if (cp < 0x80) {
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

GROUNDPLANE_INLINE WordClass word_class(char32_t cp) noexcept {
  if (cp < 0x80) {
    if (cp >= '0' && cp <= '9') return WordClass::digit;
    return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z' ? WordClass::letter : WordClass::none;
  }
  const auto& runs = unicode_data::word_classes;
  const auto* it = std::upper_bound(std::begin(runs), std::end(runs), cp,
                                    [](char32_t c, const unicode_data::ClassRun& r) { return c < r.first; });
  if (it == std::begin(runs) || cp > (it - 1)->last) return WordClass::none;
  return static_cast<WordClass>((it - 1)->cls);
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
