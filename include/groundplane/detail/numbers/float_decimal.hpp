// A double's shortest round-trip decimal as coefficient × 10^exponent: the digits
// std::to_chars prints for it, without building text.
//
// Recording a table converts every floating cell, so this sits on the hot path. The
// fast path is exact integer arithmetic; anything it cannot decide (magnitudes below
// 2^-72 or above 2^53, more than 27 decimals, an exact tie between two candidates)
// goes to std::to_chars. tests/test_float_decimal.cpp compares both on many millions of
// doubles, digit for digit.
//
// Why it is exact: v = m × 2^q with q < 0. Every real within half a gap of v reads back
// as v (the boundary itself only when m is even: ties go to the even mantissa); the gap
// below is half as wide when m is a power of two. At d decimals, scaled by 10^d × 2^s
// (s = -q - d), v is the integer P = m × 5^d, a d-decimal candidate c is c × 2^s, and
// the half-gap above is 5^d / 2 (below: 5^d / 2, or 5^d / 4). So "c reads back as v"
// is a comparison of integers below 2^127. If c works at d decimals then 10c works at
// d + 1, so the fewest decimals is found by bisection; the nearest candidates are
// floor(P / 2^s) and one more, and of two that both work the nearer is the one printed.
// A candidate at the fewest decimals has no trailing zero (it would work with one
// decimal fewer), so its digits are exactly the shortest form's.
#pragma once

#include <cfloat>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <system_error>

namespace groundplane::detail {

struct DecimalParts {
  std::int64_t coefficient = 0;
  std::int32_t exponent = 0;
};

// Through std::to_chars' shortest d.ddde±XX form (for a float too). v finite and nonzero.
template <class Float = double>
DecimalParts shortest_decimal_by_text(Float v) noexcept {
  char buf[40];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const char* p = buf;
  const char* const end = res.ptr;
  const bool neg = *p == '-';
  if (neg) ++p;
  std::int64_t c = 0;  // at most 17 digits (9 for a float)
  int digits = 0;
  for (; p != end && *p != 'e'; ++p) {
    if (*p == '.') continue;
    c = c * 10 + (*p - '0');
    ++digits;
  }
  ++p;  // 'e'
  const bool eneg = p != end && *p == '-';
  if (p != end && (*p == '-' || *p == '+')) ++p;
  int e = 0;
  for (; p != end; ++p) e = e * 10 + (*p - '0');
  return {neg ? -c : c, (eneg ? -e : e) - (digits - 1)};
}

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 fd_uint;

inline constexpr int fd_max_decimals = 27;  // 5^27 < 2^63, so m × 5^d < 2^116
inline constexpr struct FdPow5 {
  std::uint64_t v[fd_max_decimals + 1];
} fd_pow5 = [] {
  FdPow5 t{};
  std::uint64_t p = 1;
  for (int d = 0; d <= fd_max_decimals; ++d, p *= 5) t.v[d] = p;
  return t;
}();

// v = m × 2^-nq, as the exact path reads it.
struct FdBinary {
  std::uint64_t m = 0;        // the mantissa, its implicit bit included
  int nq = 0;                 // -q, in [1, 124]
  bool even = false;          // a boundary reads back as v (ties go to the even mantissa)
  bool narrow_below = false;  // m is a power of two: the gap below v is half as wide
};

// v's mantissa and exponent; false when 2^-72 <= |v| < 2^53 does not hold (q outside
// [-124, -1]), so that s stays below 125 and every product below 2^127.
inline bool fd_decompose(double v, FdBinary& out) noexcept {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased < 951 || biased >= 1075) return false;  // q = biased - 1075
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  out.m = fraction | (std::uint64_t{1} << 52);
  out.nq = 1075 - biased;
  out.even = (out.m & 1) == 0;
  out.narrow_below = fraction == 0;
  return true;
}

// Whether some d-decimal number reads back as v; if so, the nearest one (tie: both
// candidates equally near, which the caller leaves to text; left as it was otherwise).
inline bool fd_probe(const FdBinary& binary, int d, fd_uint& candidate, bool& tie) noexcept {
  const fd_uint five = fd_pow5.v[d];
  const fd_uint p = static_cast<fd_uint>(binary.m) * five;
  const int s = binary.nq - d;
  if (s == 0) {
    candidate = p;
    return true;
  }
  const fd_uint c0 = p >> s;
  const fd_uint below = p - (c0 << s);  // distance down to c0, scaled
  if (below == 0) {
    candidate = c0;
    return true;
  }
  const fd_uint above = (fd_uint{1} << s) - below;  // distance up to c0 + 1
  const fd_uint below_x = binary.narrow_below ? below << 2 : below << 1;
  const fd_uint above_x = above << 1;
  const bool ok0 = binary.even ? below_x <= five : below_x < five;
  const bool ok1 = binary.even ? above_x <= five : above_x < five;
  if (!ok0 && !ok1) return false;
  if (ok0 && ok1) {
    tie = below == above;
    candidate = below < above ? c0 : c0 + 1;
  } else {
    candidate = ok0 ? c0 : c0 + 1;
  }
  return true;
}

// The exact path for a non-integral v, knowing that no number with fewer than
// `lo` decimals reads back as v; false when it cannot decide (the caller goes through
// text).
inline bool shortest_decimal_exact(double v, DecimalParts& out, int lo = 0) noexcept {
  FdBinary binary;
  if (!fd_decompose(v, binary)) return false;
  // Past about nq × log10(2) decimals the candidates are closer together than the gap
  // around v is wide, so one exists; the probe below confirms it.
  int hi = (binary.nq * 78913 >> 18) + 2;
  if (hi > binary.nq) hi = binary.nq;
  if (hi > fd_max_decimals) hi = fd_max_decimals;
  if (lo > hi) return false;
  fd_uint candidate = 0;
  bool tie = false;
  if (!fd_probe(binary, hi, candidate, tie)) return false;  // needs more decimals than we carry
  // The fewest decimals, by bisection: a candidate at d decimals makes one at d + 1.
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    fd_uint c = 0;
    bool t = false;
    if (fd_probe(binary, mid, c, t)) {
      hi = mid;
      candidate = c;
      tie = t;
    } else {
      lo = mid + 1;
    }
  }
  // A double never needs more than 17 significant digits.
  if (tie || candidate >= fd_uint{100'000'000'000'000'000ull}) return false;
  const auto c = static_cast<std::int64_t>(candidate);
  out.coefficient = v < 0 ? -c : c;  // v is neither zero nor NaN here
  out.exponent = -hi;
  return true;
}
#endif

// Data from tools mostly has a few decimals, and a column mostly the same few. While
// |v| × 10^d < 2^50, x = v × 10^d lies within 3/16 of the exact product's nearest
// d-decimal candidate, so rounding x finds that candidate whenever one exists, and
// c / 10^d == v (both operands exact, the quotient correctly rounded) is exactly "c
// reads back as v". So each d up to 10 is decided with one multiplication and one
// division, starting from `hint` (the decimals of the previous value in a column).
enum class FewDecimals { found, none, unsure };

inline FewDecimals few_decimals_at(double v, int d, double& c) noexcept {
#if !defined(__FAST_MATH__) && (!defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD == 0)
  constexpr double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10};
  constexpr double limit = 1125899906842624.0;  // 2^50: beyond it a double has no fraction bits to judge
  const double x = v * pow10[d];
  if (!(x < limit && x > -limit)) return FewDecimals::unsure;
  const double t = static_cast<double>(static_cast<std::int64_t>(x));
  const double r = x - t;  // exact
  c = r >= 0.5 ? t + 1 : (r <= -0.5 ? t - 1 : t);
  if (c / pow10[d] != v) return FewDecimals::none;
  // Two candidates at d: which one is printed is left to the exact path.
  if ((c + 1) / pow10[d] == v || (c - 1) / pow10[d] == v) return FewDecimals::unsure;
  return FewDecimals::found;
#else
  (void)v;
  (void)d;
  (void)c;
  return FewDecimals::unsure;
#endif
}

inline constexpr int few_max_decimals = 10;

// For a non-integral v: the answer when it has at most few_max_decimals decimals and
// is decided here (returns true; hint updated), else false with `proven` the decimals
// below which nothing reads back as v.
inline bool shortest_decimal_few(double v, DecimalParts& out, int& proven, int& hint) noexcept {
  proven = 1;  // v is not an integer, and no integer reads back as it
  int d = hint < 1 ? 1 : (hint > few_max_decimals ? few_max_decimals : hint);
  double c = 0;
  FewDecimals at = few_decimals_at(v, d, c);
  if (at == FewDecimals::unsure) return false;
  if (at == FewDecimals::found) {
    // Fewer decimals may do too.
    for (; d > 1; --d) {
      double fewer = 0;
      const FewDecimals below = few_decimals_at(v, d - 1, fewer);
      if (below == FewDecimals::none) break;
      if (below == FewDecimals::unsure) return false;
      c = fewer;
    }
  } else {
    proven = d + 1;
    // A few steps up; values with many decimals are found faster by bisection.
    const int last = d + 3 < few_max_decimals ? d + 3 : few_max_decimals;
    for (++d; d <= last; ++d) {
      at = few_decimals_at(v, d, c);
      if (at == FewDecimals::found) break;
      if (at == FewDecimals::unsure) return false;
      proven = d + 1;
    }
    if (d > last) {
      if (last == few_max_decimals) hint = few_max_decimals + 1;
      return false;
    }
  }
  hint = d;
  out = {static_cast<std::int64_t>(c), -d};
  return true;
}

// The shortest decimal that reads back as v (finite): the coefficient and exponent that
// std::to_chars' shortest form spells, except that an integral |v| <= 2^53 is (v, 0),
// and zero (either sign) is (0, 0).
//
// `hint`: the decimals the previous call found (start with 0); a column whose values
// share their decimals converts in a few nanoseconds each.
inline DecimalParts shortest_decimal(double v, int& hint) noexcept {
  if (v == 0) return {};
  if (v >= -9007199254740992.0 && v <= 9007199254740992.0) {
    const auto i = static_cast<std::int64_t>(v);
    if (static_cast<double>(i) == v) return {i, 0};
    DecimalParts out;
    int proven = 1;  // v is not an integer, and no integer reads back as it
    if (hint <= few_max_decimals && shortest_decimal_few(v, out, proven, hint)) return out;
#if defined(__SIZEOF_INT128__)
    if (shortest_decimal_exact(v, out, proven)) {
      hint = -out.exponent;  // values with many decimals skip the few-decimal search
      return out;
    }
#endif
  }
  return shortest_decimal_by_text(v);
}

inline DecimalParts shortest_decimal(double v) noexcept {
  int hint = 0;
  return shortest_decimal(v, hint);
}

}  // namespace groundplane::detail
