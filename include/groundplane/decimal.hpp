// gp::Decimal — exact decimal numbers.
//
// A number means what it prints as. A double converts to its shortest round-trip
// decimal (0.1 is exactly one tenth, 10.40 is 10.4), integers convert exactly, and
// Decimal::parse reads decimal text. Sums, differences and products are exact at any
// magnitude, so 0.1 + 0.2 == 0.3 and summation order never matters.
//
// Representation: value = coefficient × 10^exponent, kept unnormalized so decimals()
// can report the digits after the point as written ("10.40" has 2; 10.4 == 10.40 all
// the same). Sums take the smaller exponent, products add exponents. Coefficients that
// fit a 128-bit integer (64-bit where the compiler has none) are held inline with no
// allocation; larger ones fall back to detail::BigInt.
//
// parse() grammar (ASCII only, no surrounding whitespace):
//     [+|-] digits [. [digits]] [(e|E) [+|-] digits]
//   | [+|-] . digits            [(e|E) [+|-] digits]
// So "12", "-0.0455", "1.5e-3", "+3", ".5" and "5." are numbers; "", ".", "e5", "1e",
// " 1", "1 000", "1,000", "0x1A", "nan", "inf" are not. Limits, so hostile text cannot
// make us allocate without bound: at most max_parse_digits (4096) coefficient digits
// (leading zeros excluded, trailing zeros included) and an exponent of at most
// max_parse_exponent (6144) in magnitude, where "exponent" is that of the coefficient
// as written: "1.5e-3" is 15 × 10^-4; and, since to_string() drops trailing zeros, the
// last nonzero digit may not lie above 10^6144 either ("1200e6144" is refused), so that
// every parsed value prints back as text parse accepts. Beyond either, parse throws
// gp::InvalidNumber.
// Arithmetic results may go further, up to |exponent| <= max_exponent (100000);
// past that an operation throws gp::InvalidNumber rather than compute for minutes.
//
// to_string() rule: the shortest plain form — no exponent, trailing zeros dropped,
// "0" for zero (never "-0") — while the leading digit's power of ten lies within
// [-20, 20] ("0.0455", "12", "-3.5", "10.4", "100000000000000000000"); outside that
// range, scientific "d.ddde+N" / "d.ddde-N" ("1e+308", "5e-324",
// "1.7976931348623157e+308"). Both forms parse back to the same value.
//
// Build knob: defining GROUNDPLANE_NO_INT128 uses a 64-bit inline coefficient even
// where __int128 exists (for testing the portable path). It must be set identically in
// every translation unit of a program.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <ranges>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/numbers/bigint.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"

namespace groundplane {

class Decimal;

namespace detail {

// The inline coefficient type.
#if defined(__SIZEOF_INT128__) && !defined(GROUNDPLANE_NO_INT128)
__extension__ typedef __int128 dec_int;
__extension__ typedef unsigned __int128 dec_uint;
#else
using dec_int = std::int64_t;
using dec_uint = std::uint64_t;
#endif
inline constexpr int dec_bits = static_cast<int>(sizeof(dec_uint) * 8);
// Inline coefficients stay within [-dec_max, dec_max] so negation never overflows.
inline constexpr dec_int dec_max = static_cast<dec_int>(~dec_uint{0} >> 1);

// Largest k with 10^k <= dec_max: 38 for 128 bits, 18 for 64.
inline constexpr int dec_pow10_max = [] {
  int k = 0;
  for (dec_uint p = 1; p <= static_cast<dec_uint>(dec_max) / 10; p *= 10) ++k;
  return k;
}();

struct DecPow10Table {
  dec_int pow[dec_pow10_max + 1];
  dec_int limit[dec_pow10_max + 1];  // largest |c| whose c × 10^k is still inline
};
inline constexpr DecPow10Table dec_pow10 = [] {
  DecPow10Table t{};
  dec_int p = 1;
  for (int k = 0; k <= dec_pow10_max; ++k) {
    t.pow[k] = p;
    t.limit[k] = dec_max / p;
    if (k < dec_pow10_max) p *= 10;
  }
  return t;
}();

inline bool dec_checked_add(dec_int a, dec_int b, dec_int& out) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  if (__builtin_add_overflow(a, b, &out)) return false;
  return out >= -dec_max;
#else
  if ((b > 0 && a > dec_max - b) || (b < 0 && a < -dec_max - b)) return false;
  out = a + b;
  return true;
#endif
}

// c *= 10^k (k >= 0) when the result stays inline.
inline bool dec_scale(dec_int& c, std::int64_t k) noexcept {
  if (c == 0) return true;
  if (k > dec_pow10_max) return false;
  const bool neg = c < 0;
  const auto mag = static_cast<dec_uint>(neg ? -c : c);
  dec_uint p = 0;
  if constexpr (dec_bits > 64) {
    // The common case (a double's coefficient, scaled by at most 10^19) is a single
    // 64×64→128 multiplication that cannot overflow dec_uint.
    if (k <= 19 && (mag >> 32 >> 32) == 0) {
      p = static_cast<dec_uint>(static_cast<std::uint64_t>(mag)) * static_cast<std::uint64_t>(dec_pow10.pow[k]);
      if (p > static_cast<dec_uint>(dec_max)) return false;
      c = neg ? -static_cast<dec_int>(p) : static_cast<dec_int>(p);
      return true;
    }
  }
  if (mag > static_cast<dec_uint>(dec_pow10.limit[k])) return false;
  // Unsigned, so no signed-overflow instrumentation (or libcall) is involved.
  p = mag * static_cast<dec_uint>(dec_pow10.pow[k]);
  c = neg ? -static_cast<dec_int>(p) : static_cast<dec_int>(p);
  return true;
}

// Sum of two inline values, at the smaller exponent; false when it does not fit.
inline bool dec_add_fast(dec_int a, std::int32_t ea, dec_int b, std::int32_t eb, dec_int& out,
                         std::int32_t& eout) noexcept {
  if (ea > eb) {
    if (!dec_scale(a, std::int64_t{ea} - eb)) return false;
    eout = eb;
  } else {
    if (!dec_scale(b, std::int64_t{eb} - ea)) return false;
    eout = ea;
  }
  return dec_checked_add(a, b, out);
}

inline std::string dec_digits_of(dec_uint m) {
  if constexpr (dec_bits > 64) {
    constexpr std::uint64_t ten19 = 10'000'000'000'000'000'000ull;
    if (m > std::numeric_limits<std::uint64_t>::max()) {
      // m < 2^127 < 10^19 × 2^64: the high part fits 64 bits.
      std::string hi = std::to_string(static_cast<std::uint64_t>(m / ten19));
      const std::string lo = std::to_string(static_cast<std::uint64_t>(m % ten19));
      hi.append(19 - lo.size(), '0');
      return hi + lo;
    }
  }
  return std::to_string(static_cast<std::uint64_t>(m));
}

inline std::size_t hash_mix(std::size_t h, std::uint64_t v) noexcept {
  // boost-style combine widened to 64 bits
  return h ^ (static_cast<std::size_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

// Anything shaped like nlohmann::basic_json (json, ordered_json, custom specializations).
template <class J>
concept json_like = requires(const J& j) {
  typename J::number_integer_t;
  typename J::number_unsigned_t;
  typename J::number_float_t;
  { j.is_number_unsigned() } -> std::convertible_to<bool>;
  { j.is_number_integer() } -> std::convertible_to<bool>;
  { j.is_number_float() } -> std::convertible_to<bool>;
};

struct DecimalAccess;

}  // namespace detail

class Decimal {
 public:
  // Bounds on parse() input and on arithmetic results; see the top of this header.
  static constexpr std::size_t max_parse_digits = 4096;
  static constexpr int max_parse_exponent = 6144;
  static constexpr int max_exponent = 100000;

  Decimal() noexcept = default;  // zero
  Decimal(int v) noexcept : coeff_(v) {}
  Decimal(long v) { set_signed(static_cast<long long>(v)); }
  Decimal(long long v) { set_signed(v); }
  Decimal(unsigned v) noexcept : coeff_(static_cast<dec_int>(v)) {}
  Decimal(unsigned long v) { set_unsigned(static_cast<unsigned long long>(v)); }
  Decimal(unsigned long long v) { set_unsigned(v); }
  // The shortest decimal that reads back as v. NaN and ±infinity throw InvalidNumber.
  Decimal(double v);
  // Likewise at float precision: 0.1f is one tenth, not 0.100000001490116...
  Decimal(float v);

  Decimal(const Decimal& o)
      : coeff_(o.coeff_), big_(o.big_ ? std::make_unique<detail::BigInt>(*o.big_) : nullptr), exp_(o.exp_) {}
  Decimal(Decimal&&) noexcept = default;
  Decimal& operator=(const Decimal& o) {
    if (this != &o) {
      big_ = o.big_ ? std::make_unique<detail::BigInt>(*o.big_) : nullptr;
      coeff_ = o.coeff_;
      exp_ = o.exp_;
    }
    return *this;
  }
  Decimal& operator=(Decimal&&) noexcept = default;
  ~Decimal() = default;

  // Decimal text per the grammar above; anything else throws InvalidNumber quoting it.
  static Decimal parse(std::string_view text);

  // A JSON number (integer, unsigned or float) as a Decimal; any other JSON value, and
  // a non-finite float, is nullopt. Never throws. Works for any basic_json
  // specialization (ordered_json included).
  template <detail::json_like J>
  static std::optional<Decimal> from_json(const J& j);
  static std::optional<Decimal> from_json(const nlohmann::json& j) { return from_json<nlohmann::json>(j); }

  std::string to_string() const;  // see the rule at the top of this header
  // Digits after the point as written: parse("10.40") → 2, parse("1.5e-3") → 4,
  // parse("1e3") → 0, Decimal(10.40) → 1. Never negative.
  int decimals() const noexcept { return exp_ < 0 ? -exp_ : 0; }

  bool is_zero() const noexcept { return !big_ && coeff_ == 0; }  // big coefficients are never zero
  int signum() const noexcept {
    if (big_) return big_->signum();
    return coeff_ < 0 ? -1 : (coeff_ > 0 ? 1 : 0);
  }
  Decimal abs() const { return signum() < 0 ? -*this : *this; }
  bool is_integer() const;
  // Rounded half away from zero to `decimals` digits after the point (negative: to
  // tens, hundreds, ...). The result has exactly that many decimals() unless the value
  // already had fewer, in which case it is returned unchanged.
  Decimal round_to(int decimals) const;
  // The nearest double; ±infinity or ±0 beyond the double range.
  double to_double() const;

  friend Decimal operator-(const Decimal& a) {
    Decimal r = a;
    if (r.big_) r.big_->negative = !r.big_->negative;
    else r.coeff_ = -r.coeff_;
    return r;
  }
  friend Decimal operator+(const Decimal& a, const Decimal& b) {
    if (!a.big_ && !b.big_) {
      Decimal r;
      if (detail::dec_add_fast(a.coeff_, a.exp_, b.coeff_, b.exp_, r.coeff_, r.exp_)) return r;
    }
    return add_slow(a, b);
  }
  friend Decimal operator-(const Decimal& a, const Decimal& b) {
    if (!a.big_ && !b.big_) {
      Decimal r;
      if (detail::dec_add_fast(a.coeff_, a.exp_, -b.coeff_, b.exp_, r.coeff_, r.exp_)) return r;
    }
    return add_slow(a, -b);
  }
  friend Decimal operator*(const Decimal& a, const Decimal& b) {
    if (!a.big_ && !b.big_) {
      const std::int64_t e = std::int64_t{a.exp_} + b.exp_;
      const dec_uint ua = static_cast<dec_uint>(a.coeff_ < 0 ? -a.coeff_ : a.coeff_);
      const dec_uint ub = static_cast<dec_uint>(b.coeff_ < 0 ? -b.coeff_ : b.coeff_);
      constexpr int half = detail::dec_bits / 2;
      // Half-width operands cannot overflow the unsigned product.
      if (e >= -max_exponent && e <= max_exponent && (ua >> half) == 0 && (ub >> half) == 0) {
        const dec_uint p = ua * ub;
        if (p <= static_cast<dec_uint>(detail::dec_max)) {
          Decimal r;
          r.coeff_ = (a.coeff_ < 0) != (b.coeff_ < 0) ? -static_cast<dec_int>(p) : static_cast<dec_int>(p);
          r.exp_ = static_cast<std::int32_t>(e);
          return r;
        }
      }
    }
    return mul_slow(a, b);
  }
  Decimal& operator+=(const Decimal& b) {
    if (!big_ && !b.big_) {
      dec_int c = 0;
      std::int32_t e = 0;
      if (detail::dec_add_fast(coeff_, exp_, b.coeff_, b.exp_, c, e)) {
        coeff_ = c;
        exp_ = e;
        return *this;
      }
    }
    return *this = add_slow(*this, b);
  }
  Decimal& operator-=(const Decimal& b) { return *this = *this - b; }
  Decimal& operator*=(const Decimal& b) { return *this = *this * b; }

  // By numeric value: 10.40 == 10.4.
  friend bool operator==(const Decimal& a, const Decimal& b) {
    if (!a.big_ && !b.big_ && a.exp_ == b.exp_) return a.coeff_ == b.coeff_;
    return (a <=> b) == 0;
  }
  friend std::weak_ordering operator<=>(const Decimal& a, const Decimal& b) {
    if (!a.big_ && !b.big_) return compare_small(a.coeff_, a.exp_, b.coeff_, b.exp_);
    return compare_slow(a, b);
  }

  friend std::ostream& operator<<(std::ostream& os, const Decimal& d) { return os << d.to_string(); }

 private:
  friend struct detail::DecimalAccess;
  using dec_int = detail::dec_int;
  using dec_uint = detail::dec_uint;

  template <class Float>
  void assign_floating(Float v);

  void set_signed(long long v) {
    if constexpr (detail::dec_bits == 64) {
      if (v == std::numeric_limits<long long>::min()) {  // -2^63 is one past the inline range
        *this = from_big(detail::BigInt(true, detail::BigUint(std::uint64_t{1} << 63)), 0);
        return;
      }
    }
    coeff_ = static_cast<dec_int>(v);
  }
  void set_unsigned(unsigned long long v) {
    if constexpr (detail::dec_bits == 64) {
      if (v > static_cast<unsigned long long>(detail::dec_max)) {
        *this = from_big(detail::BigInt(false, detail::BigUint(static_cast<std::uint64_t>(v))), 0);
        return;
      }
    }
    coeff_ = static_cast<dec_int>(v);
  }

  detail::BigInt coefficient() const {
    if (big_) return *big_;
    const bool neg = coeff_ < 0;
    return detail::BigInt(neg, detail::BigUint::from_unsigned(static_cast<dec_uint>(neg ? -coeff_ : coeff_)));
  }

  // The canonical holder for a coefficient: inline whenever it fits.
  static Decimal from_big(detail::BigInt c, std::int64_t exponent) {
    if (exponent > max_exponent || exponent < -max_exponent)
      throw InvalidNumber("Decimal: a result would need exponent " + std::to_string(exponent) +
                          ", beyond the supported +/-" + std::to_string(max_exponent) +
                          "; the numbers involved are too extreme to compute with exactly");
    Decimal d;
    d.exp_ = static_cast<std::int32_t>(exponent);
    if (c.magnitude.bit_length() < static_cast<std::size_t>(detail::dec_bits)) {
      const auto m = static_cast<dec_int>(c.magnitude.to_unsigned<dec_uint>());
      d.coeff_ = c.negative ? -m : m;
    } else {
      d.big_ = std::make_unique<detail::BigInt>(std::move(c));
    }
    return d;
  }

  // Power of ten of the leading digit: 1 for 12.5, -2 for 0.0455 (value must be nonzero).
  std::int64_t leading_exponent() const {
    std::int64_t digits = 0;
    if (big_) {
      digits = static_cast<std::int64_t>(big_->magnitude.decimal_digits());
    } else {
      const dec_uint m = static_cast<dec_uint>(coeff_ < 0 ? -coeff_ : coeff_);
      digits = 1;
      while (digits <= detail::dec_pow10_max && m >= static_cast<dec_uint>(detail::dec_pow10.pow[digits])) ++digits;
    }
    return digits - 1 + exp_;
  }

  static std::weak_ordering compare_small(dec_int a, std::int32_t ea, dec_int b, std::int32_t eb) noexcept {
    if (ea != eb && a != 0 && b != 0) {
      // When scaling overflows, the scaled side's magnitude exceeds anything inline.
      if (ea > eb) {
        if (!detail::dec_scale(a, std::int64_t{ea} - eb))
          return a > 0 ? std::weak_ordering::greater : std::weak_ordering::less;
      } else if (!detail::dec_scale(b, std::int64_t{eb} - ea)) {
        return b > 0 ? std::weak_ordering::less : std::weak_ordering::greater;
      }
    }
    if (a < b) return std::weak_ordering::less;
    if (a > b) return std::weak_ordering::greater;
    return std::weak_ordering::equivalent;
  }

  static std::weak_ordering compare_slow(const Decimal& a, const Decimal& b) {
    const int sa = a.signum();
    const int sb = b.signum();
    if (sa != sb) return sa <=> sb;
    if (sa == 0) return std::weak_ordering::equivalent;
    // Compare orders of magnitude first, so 1e-6000 vs 1e6000 never scales a coefficient.
    const std::int64_t la = a.leading_exponent();
    const std::int64_t lb = b.leading_exponent();
    std::strong_ordering mag = la <=> lb;
    if (mag == 0) {
      detail::BigUint ma = a.coefficient().magnitude;
      detail::BigUint mb = b.coefficient().magnitude;
      if (a.exp_ > b.exp_) ma.mul_pow10(static_cast<std::size_t>(std::int64_t{a.exp_} - b.exp_));
      else mb.mul_pow10(static_cast<std::size_t>(std::int64_t{b.exp_} - a.exp_));
      mag = ma <=> mb;
    }
    return sa > 0 ? mag : 0 <=> mag;
  }

  static Decimal add_slow(const Decimal& a, const Decimal& b) {
    // Adding zero only needs to keep the decimals() contract (the larger count of
    // digits after the point), so 0 + 1e300 stays a one-digit coefficient.
    if (a.is_zero() || b.is_zero()) {
      const Decimal& z = a.is_zero() ? a : b;
      const Decimal& x = a.is_zero() ? b : a;
      const std::int32_t target = z.exp_ < 0 ? std::min(z.exp_, x.exp_) : x.exp_;
      if (target == x.exp_) return x;
      detail::BigInt c = x.coefficient();
      c.magnitude.mul_pow10(static_cast<std::size_t>(std::int64_t{x.exp_} - target));
      return from_big(std::move(c), target);
    }
    detail::BigInt ca = a.coefficient();
    detail::BigInt cb = b.coefficient();
    const std::int32_t e = std::min(a.exp_, b.exp_);
    ca.magnitude.mul_pow10(static_cast<std::size_t>(std::int64_t{a.exp_} - e));
    cb.magnitude.mul_pow10(static_cast<std::size_t>(std::int64_t{b.exp_} - e));
    return from_big(ca + cb, e);
  }

  static Decimal mul_slow(const Decimal& a, const Decimal& b) {
    return from_big(a.coefficient() * b.coefficient(), std::int64_t{a.exp_} + b.exp_);
  }

  dec_int coeff_ = 0;                    // the coefficient, when big_ is null
  std::unique_ptr<detail::BigInt> big_;  // the coefficient, when it does not fit dec_int
  std::int32_t exp_ = 0;
};

namespace detail {

// Internals shared with tolerance.hpp (exact quotients) and hashing.
struct DecimalAccess {
  static BigInt coefficient(const Decimal& d) { return d.coefficient(); }
  static std::int32_t exponent(const Decimal& d) noexcept { return d.exp_; }
  static Decimal make(BigInt coefficient, std::int64_t exponent) {
    return Decimal::from_big(std::move(coefficient), exponent);
  }

  // Consistent with ==: hashes the value with trailing zeros stripped.
  static std::size_t hash(const Decimal& d) {
    if (d.is_zero()) return 0x5bd1e995u;
    std::int64_t e = d.exp_;
    dec_uint m = 0;
    bool neg = false;
    if (!d.big_) {
      neg = d.coeff_ < 0;
      m = static_cast<dec_uint>(neg ? -d.coeff_ : d.coeff_);
    } else {
      neg = d.big_->negative;
      BigUint mag = d.big_->magnitude;
      while (mag.mod_small(1'000'000'000u) == 0) {
        mag.divmod_small(1'000'000'000u);
        e += 9;
      }
      while (mag.mod_small(10) == 0) {
        mag.divmod_small(10);
        ++e;
      }
      if (mag.bit_length() >= static_cast<std::size_t>(dec_bits))
        return hash_mix(hash_mix(mag.hash(), static_cast<std::uint64_t>(e)), neg ? 1 : 0);
      m = mag.to_unsigned<dec_uint>();
    }
    while (m % 10 == 0) {
      m /= 10;
      ++e;
    }
    std::size_t h = hash_mix(0, static_cast<std::uint64_t>(m));
    if constexpr (dec_bits > 64) h = hash_mix(h, static_cast<std::uint64_t>((m >> 32) >> 32));
    h = hash_mix(h, static_cast<std::uint64_t>(e));
    return hash_mix(h, neg ? 1 : 0);
  }

  static bool is_inline(const Decimal& d) noexcept { return !d.big_; }
  static dec_int inline_coefficient(const Decimal& d) noexcept { return d.coeff_; }
  static Decimal from_inline(dec_int c, std::int32_t e) noexcept {
    Decimal d;
    d.coeff_ = c;
    d.exp_ = e;
    return d;
  }

  // The integer value when it fits std::int64_t / std::uint64_t.
  static std::optional<BigInt> small_integer(const Decimal& d) {
    if (!d.is_integer()) return std::nullopt;
    if (d.is_zero()) return BigInt{};
    if (d.leading_exponent() > 19) return std::nullopt;
    BigInt c = d.coefficient();
    if (d.exp_ >= 0) c.magnitude.mul_pow10(static_cast<std::size_t>(d.exp_));
    else
      c.magnitude = BigUint::divmod(c.magnitude, BigUint::pow10(static_cast<std::size_t>(-std::int64_t{d.exp_}))).first;
    return c;
  }
};

inline bool is_ascii_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// Where the run of ASCII digits starting at text[i] ends.
inline std::size_t skip_ascii_digits(std::string_view text, std::size_t i) noexcept {
  while (i < text.size() && is_ascii_digit(text[i])) ++i;
  return i;
}

// The parts of a decimal's text: [sign] digits [. digits] [e [sign] digits].
struct DecimalText {
  bool negative = false;
  std::string_view int_digits;
  std::string_view frac_digits;
  std::int64_t written_exponent = 0;  // saturated at 1e9 in magnitude
};

// Reads "e[sign]digits" at text[i] when it is there, advancing i past it; false when the
// 'e' has no digits.
inline bool read_written_exponent(std::string_view text, std::size_t& i, std::int64_t& exponent) noexcept {
  const std::size_t n = text.size();
  if (i >= n || (text[i] != 'e' && text[i] != 'E')) return true;
  ++i;
  bool negative = false;
  if (i < n && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  const std::size_t exp_begin = i;
  std::int64_t magnitude = 0;
  for (; i < n && is_ascii_digit(text[i]); ++i)
    if (magnitude < 1'000'000'000) magnitude = magnitude * 10 + (text[i] - '0');  // saturate
  exponent = negative ? -magnitude : magnitude;
  return i != exp_begin;
}

// Reads "[sign]digits[.digits]" from the start of the text into `parts`; returns where it
// ends.
inline std::size_t read_signed_digits(std::string_view text, DecimalText& parts) noexcept {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    parts.negative = text[i] == '-';
    ++i;
  }
  const std::size_t int_begin = i;
  i = skip_ascii_digits(text, i);
  parts.int_digits = {text.data() + int_begin, i - int_begin};
  if (i < text.size() && text[i] == '.') {
    const std::size_t frac_begin = ++i;
    i = skip_ascii_digits(text, i);
    parts.frac_digits = {text.data() + frac_begin, i - frac_begin};
  }
  return i;
}

// The coefficient's digits: the integer digits then the fraction digits, read as one
// sequence without joining them.
struct CoefficientDigits {
  std::string_view int_digits;
  std::string_view frac_digits;

  std::size_t size() const noexcept { return int_digits.size() + frac_digits.size(); }
  char operator[](std::size_t k) const noexcept {
    return k < int_digits.size() ? int_digits[k] : frac_digits[k - int_digits.size()];
  }
  std::size_t leading_zeros() const noexcept {
    std::size_t k = 0;
    while (k < size() && (*this)[k] == '0') ++k;
    return k;
  }
  // Zeros at the end, not counting into the first `leading` digits.
  std::int64_t trailing_zeros(std::size_t leading) const noexcept {
    std::int64_t zeros = 0;
    for (std::size_t k = size(); k > leading; --k, ++zeros)
      if ((*this)[k - 1] != '0') break;
    return zeros;
  }
  // The digits from `from` on, as an integer that fits dec_uint.
  dec_uint inline_value(std::size_t from) const noexcept {
    dec_uint c = 0;
    for (std::size_t k = from; k < int_digits.size(); ++k) c = c * 10 + static_cast<dec_uint>(int_digits[k] - '0');
    for (std::size_t k = from > int_digits.size() ? from - int_digits.size() : 0; k < frac_digits.size(); ++k)
      c = c * 10 + static_cast<dec_uint>(frac_digits[k] - '0');
    return c;
  }
  // The digits from `from` on, as text.
  std::string text_from(std::size_t from) const {
    std::string digits;
    digits.reserve(size() - from);
    if (from < int_digits.size()) digits.append(int_digits.substr(from));
    digits.append(frac_digits.substr(from > int_digits.size() ? from - int_digits.size() : 0));
    return digits;
  }
};

}  // namespace detail

inline Decimal Decimal::parse(std::string_view text) {
  const auto fail = [&](const std::string& why) {
    throw InvalidNumber("Decimal::parse: " + detail::quote(text) + " " + why);
  };
  // [sign]digits[.digits][e[sign]digits], with a digit before or after the point.
  detail::DecimalText parts;
  std::size_t end = detail::read_signed_digits(text, parts);
  const bool has_digits = !parts.int_digits.empty() || !parts.frac_digits.empty();
  if (!has_digits || !detail::read_written_exponent(text, end, parts.written_exponent) || end != text.size())
    fail("is not a decimal number; expected text like \"12\", \"-0.0455\" or \"1.5e-3\"");

  // Leading zeros skipped, the rest must lie within the parse bounds.
  const detail::CoefficientDigits digits{parts.int_digits, parts.frac_digits};
  const std::size_t skip = digits.leading_zeros();
  const std::size_t significant = digits.size() - skip;
  if (significant > max_parse_digits)
    fail("has " + std::to_string(significant) + " digits; at most " + std::to_string(max_parse_digits) +
         " are accepted");
  const std::int64_t exponent = parts.written_exponent - static_cast<std::int64_t>(parts.frac_digits.size());
  if (exponent > max_parse_exponent || exponent < -max_parse_exponent)
    fail("is out of range: the exponent of its last digit must lie within +/-" + std::to_string(max_parse_exponent));
  if (significant > 0 && exponent + digits.trailing_zeros(skip) > max_parse_exponent)
    fail("is out of range: the exponent of its last nonzero digit must not exceed " +
         std::to_string(max_parse_exponent));

  if (significant <= static_cast<std::size_t>(detail::dec_pow10_max)) {
    const dec_uint c = digits.inline_value(skip);
    Decimal d;
    d.coeff_ = parts.negative ? -static_cast<dec_int>(c) : static_cast<dec_int>(c);
    d.exp_ = static_cast<std::int32_t>(exponent);
    return d;
  }
  return from_big(detail::BigInt(parts.negative, detail::BigUint::from_decimal(digits.text_from(skip))), exponent);
}

template <detail::json_like J>
std::optional<Decimal> Decimal::from_json(const J& j) {
  if (j.is_number_unsigned())
    return Decimal(static_cast<unsigned long long>(j.template get<typename J::number_unsigned_t>()));
  if (j.is_number_integer()) return Decimal(static_cast<long long>(j.template get<typename J::number_integer_t>()));
  if (j.is_number_float()) {
    const auto v = static_cast<double>(j.template get<typename J::number_float_t>());
    if (!std::isfinite(v)) return std::nullopt;
    return Decimal(v);
  }
  return std::nullopt;
}

inline std::string Decimal::to_string() const {
  if (is_zero()) return "0";
  bool neg = false;
  std::string digits;
  if (big_) {
    neg = big_->negative;
    digits = big_->magnitude.to_decimal();
  } else {
    neg = coeff_ < 0;
    digits = detail::dec_digits_of(static_cast<dec_uint>(neg ? -coeff_ : coeff_));
  }
  std::int64_t e = exp_;
  std::size_t len = digits.size();
  while (len > 1 && digits[len - 1] == '0') {
    --len;
    ++e;
  }
  digits.resize(len);
  const auto nd = static_cast<std::int64_t>(len);
  const std::int64_t lead = nd - 1 + e;
  std::string out;
  if (neg) out += '-';
  if (lead >= -20 && lead <= 20) {
    if (e >= 0) {
      out += digits;
      out.append(static_cast<std::size_t>(e), '0');
    } else if (nd > -e) {
      out.append(digits, 0, static_cast<std::size_t>(nd + e));
      out += '.';
      out.append(digits, static_cast<std::size_t>(nd + e));
    } else {
      out += "0.";
      out.append(static_cast<std::size_t>(-e - nd), '0');
      out += digits;
    }
  } else {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += lead < 0 ? "e-" : "e+";
    out += std::to_string(lead < 0 ? -lead : lead);
  }
  return out;
}

inline bool Decimal::is_integer() const {
  if (exp_ >= 0 || is_zero()) return true;
  const std::int64_t k = -std::int64_t{exp_};
  if (!big_) {
    // A nonzero inline coefficient is below 10^(dec_pow10_max + 1).
    if (k > detail::dec_pow10_max) return false;
    const dec_uint m = static_cast<dec_uint>(coeff_ < 0 ? -coeff_ : coeff_);
    return m % static_cast<dec_uint>(detail::dec_pow10.pow[k]) == 0;
  }
  if (static_cast<std::size_t>(k) >= big_->magnitude.decimal_digits()) return false;
  return detail::BigUint::divmod(big_->magnitude, detail::BigUint::pow10(static_cast<std::size_t>(k))).second.is_zero();
}

inline Decimal Decimal::round_to(int decimals) const {
  const std::int64_t target = -std::int64_t{decimals};
  if (exp_ >= target) return *this;
  const std::int64_t k = target - exp_;  // digits to drop
  if (!big_ && k <= detail::dec_pow10_max) {
    const bool neg = coeff_ < 0;
    const dec_uint m = static_cast<dec_uint>(neg ? -coeff_ : coeff_);
    const auto p = static_cast<dec_uint>(detail::dec_pow10.pow[k]);
    dec_uint q = m / p;
    const dec_uint r = m % p;
    if (r >= p - r) ++q;  // r >= p/2: half away from zero
    if (target <= max_exponent) {
      Decimal d;
      d.coeff_ = neg ? -static_cast<dec_int>(q) : static_cast<dec_int>(q);
      d.exp_ = static_cast<std::int32_t>(target);
      return d;
    }
  }
  detail::BigInt c = coefficient();
  const detail::BigUint p = detail::BigUint::pow10(static_cast<std::size_t>(k));
  auto [q, r] = detail::BigUint::divmod(c.magnitude, p);
  if (r + r >= p) q.add_small(1);
  return from_big(detail::BigInt(c.negative, std::move(q)), target);
}

inline double Decimal::to_double() const {
  if (is_zero()) return 0.0;
  const std::string s = to_string();
  double v = 0.0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  if (res.ec == std::errc::result_out_of_range) {
    // Only extreme values get here, and those print in scientific form.
    const auto epos = s.find('e');
    const bool overflow = epos != std::string::npos && epos + 1 < s.size() && s[epos + 1] == '+';
    v = overflow ? std::numeric_limits<double>::infinity() : 0.0;
    if (signum() < 0) v = -v;
  }
  return v;
}

namespace detail {

// The exact sum of a range of Decimals; equal to adding them one by one with += from
// zero. The running total is kept in local scalars while it fits the inline
// coefficient, which lets the compiler hold it in registers: several times faster
// than a += loop over a Decimal that lives in memory.
template <std::ranges::input_range R>
requires std::convertible_to < std::ranges::range_reference_t<R>,
const Decimal& > Decimal sum(R&& values) {
  Decimal spilled;  // partial sums that outgrew the inline range, and big terms
  dec_int c = 0;
  std::int32_t e = 0;
  for (const Decimal& x : values) {
    if (!DecimalAccess::is_inline(x)) {
      spilled += x;
      continue;
    }
    const dec_int xc = DecimalAccess::inline_coefficient(x);
    const std::int32_t xe = DecimalAccess::exponent(x);
    dec_int out = 0;
    std::int32_t out_e = 0;
    if (dec_add_fast(c, e, xc, xe, out, out_e)) {
      c = out;
      e = out_e;
    } else {
      spilled += DecimalAccess::from_inline(c, e);
      c = xc;
      e = std::min<std::int32_t>(xe, 0);  // keep the exponent a sum from zero would have
      if (xe > 0 && !dec_scale(c, xe)) {
        spilled += x;
        c = 0;
      }
    }
  }
  return spilled + DecimalAccess::from_inline(c, e);
}

// A JSON number for d: an integer when d is an integer that fits std::int64_t or
// std::uint64_t, else the nearest double.
inline nlohmann::json to_json(const Decimal& d) {
  if (const auto i = DecimalAccess::small_integer(d)) {
    const std::size_t bits = i->magnitude.bit_length();
    if (!i->negative && bits <= 64) {
      const auto u = i->magnitude.to_unsigned<std::uint64_t>();
      if (bits <= 63) return nlohmann::json(static_cast<std::int64_t>(u));
      return nlohmann::json(u);
    }
    if (i->negative && bits <= 64) {
      const auto u = i->magnitude.to_unsigned<std::uint64_t>();
      if (u <= (std::uint64_t{1} << 63)) return nlohmann::json(static_cast<std::int64_t>(0 - u));
    }
  }
  return nlohmann::json(d.to_double());
}

}  // namespace detail
}  // namespace groundplane

template <>
struct std::hash<groundplane::Decimal> {
  std::size_t operator()(const groundplane::Decimal& d) const { return groundplane::detail::DecimalAccess::hash(d); }
};

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/decimal-inl.hpp"
#endif
