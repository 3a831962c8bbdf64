// Tolerance, Rounding, exact quotients, and the numeric matcher every check uses.
//
// Truth values that are quotients (means, medians of an even count, percent changes,
// ratios) are detail::Rational and are compared with a stated number by
// cross-multiplication, never by dividing in floating point. match_number is the one
// place that decides whether a stated number is the true one.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/numbers/bigint.hpp"
#include "groundplane/detail/text/enum_names.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"

namespace groundplane {

// A stated value passes when |said - true| <= absolute + relative × |true|, computed
// exactly. The default (both zero) means the stated value must be exact. Components
// must not be negative (checks reject that when they are configured).
struct Tolerance {
  Decimal absolute{};
  Decimal relative{};
};

// as_stated: said == the true value rounded half away from zero to the number of
// decimals the model wrote (said.decimals()). Opt-in; never the default.
enum class Rounding { exact, as_stated };

namespace detail {
inline constexpr EnumName<Rounding> rounding_names[] = {{Rounding::exact, "exact"}, {Rounding::as_stated, "as_stated"}};
template <>
inline constexpr std::span<const EnumName<Rounding>> enum_table<Rounding> = rounding_names;
}  // namespace detail
inline std::string_view to_string(Rounding r) noexcept { return detail::name_of(r); }

namespace detail {

// An exact quotient num/den. The denominator is kept positive; the fraction is not
// reduced (num() and den() are what the caller built, up to sign).
class Rational {
 public:
  Rational(Decimal value) : num_(std::move(value)), den_(1) {}  // value / 1
  // den == 0 throws std::domain_error: callers check for empty sets and zero bases first.
  Rational(Decimal num, Decimal den) : num_(std::move(num)), den_(std::move(den)) {
    if (den_.is_zero()) throw std::domain_error("groundplane::detail::Rational: zero denominator");
    if (den_.signum() < 0) {
      num_ = -num_;
      den_ = -den_;
    }
  }

  const Decimal& num() const noexcept { return num_; }
  const Decimal& den() const noexcept { return den_; }
  int signum() const noexcept { return num_.signum(); }

  // The value as a Decimal when it is a terminating decimal (after reduction the
  // denominator has no prime factors but 2 and 5), else nullopt. 1/3 → nullopt,
  // 20.90/2 → 10.45, 1/8 → 0.125.
  std::optional<Decimal> exact() const {
    if (num_.is_zero()) return Decimal{};
    BigInt n = DecimalAccess::coefficient(num_);
    BigUint d = DecimalAccess::coefficient(den_).magnitude;
    const std::int64_t e = std::int64_t{DecimalAccess::exponent(num_)} - DecimalAccess::exponent(den_);
    // n/d terminates iff what is left of d after removing its 2s and 5s divides n.
    const std::size_t twos = d.trailing_zero_bits();
    d.shift_right(twos);
    std::size_t fives = 0;
    while (d.mod_small(5) == 0) {
      d.divmod_small(5);
      ++fives;
    }
    auto [q, r] = BigUint::divmod(n.magnitude, d);
    if (!r.is_zero()) return std::nullopt;
    // 1 / (2^twos × 5^fives) == 2^(k-twos) × 5^(k-fives) / 10^k
    const std::size_t k = std::max(twos, fives);
    q.shift_left(k - twos);
    for (std::size_t i = fives; i < k; ++i) q.mul_small(5);
    std::int64_t exponent = e - static_cast<std::int64_t>(k);
    // Drop the trailing zeros that scaling introduced, never the ones the numerator had.
    while (exponent < e && q.mod_small(10) == 0) {
      q.divmod_small(10);
      ++exponent;
    }
    return DecimalAccess::make(BigInt(n.negative, std::move(q)), exponent);
  }

  // "10.5" when the value is exact within max_decimals digits after the point, else
  // the value truncated there followed by "…" ("10.436842…", "0.333333…",
  // to_string(4) of 1/3 → "0.3333…"). Values below 0.1 show at least five significant
  // digits whatever max_decimals says (1/3e9 → "0.00000000033333…"), and values of
  // 1e21 and above at most seventeen; Decimal::to_string's plain/scientific rule
  // applies to the digits shown.
  std::string to_string(int max_decimals = 6) const {
    if (num_.is_zero()) return "0";
    const BigInt n = DecimalAccess::coefficient(num_);
    const BigUint d = DecimalAccess::coefficient(den_).magnitude;
    const std::int64_t e = std::int64_t{DecimalAccess::exponent(num_)} - DecimalAccess::exponent(den_);
    // lead = floor(log10(|value|)), from digit counts and one comparison.
    std::int64_t l =
        static_cast<std::int64_t>(n.magnitude.decimal_digits()) - static_cast<std::int64_t>(d.decimal_digits());
    {
      BigUint a = n.magnitude;
      BigUint b = d;
      if (l >= 0) b.mul_pow10(static_cast<std::size_t>(l));
      else a.mul_pow10(static_cast<std::size_t>(-l));
      if (a < b) --l;
    }
    const std::int64_t lead = l + e;
    std::int64_t f = std::max(0, max_decimals);
    if (lead < -1) f = std::max<std::int64_t>(f, 4 - lead);  // below 0.1: five significant digits
    if (const auto x = exact(); x && significant_decimals(*x) <= f) return x->to_string();
    if (lead > 20) f = std::min<std::int64_t>(f, 16 - lead);
    // Truncate: trunc(|n| × 10^(f+e) / d) × 10^-f.
    BigUint a = n.magnitude;
    BigUint b = d;
    const std::int64_t shift = f + e;
    if (shift >= 0) a.mul_pow10(static_cast<std::size_t>(shift));
    else b.mul_pow10(static_cast<std::size_t>(-shift));
    BigUint q = BigUint::divmod(a, b).first;
    return DecimalAccess::make(BigInt(n.negative, std::move(q)), -f).to_string() + std::string(ellipsis);
  }

  // By value, by cross-multiplication (denominators are positive).
  friend std::weak_ordering operator<=>(const Rational& a, const Rational& b) {
    return a.num_ * b.den_ <=> b.num_ * a.den_;
  }
  friend bool operator==(const Rational& a, const Rational& b) { return a.num_ * b.den_ == b.num_ * a.den_; }
  friend std::weak_ordering operator<=>(const Rational& a, const Decimal& b) { return a.num_ <=> b * a.den_; }
  friend bool operator==(const Rational& a, const Decimal& b) { return a.num_ == b * a.den_; }

  friend std::ostream& operator<<(std::ostream& os, const Rational& r) { return os << r.to_string(); }

 private:
  // Digits after the point once trailing zeros are dropped.
  static std::int64_t significant_decimals(const Decimal& x) {
    if (x.is_zero()) return 0;
    const std::string digits = DecimalAccess::coefficient(x).magnitude.to_decimal();
    std::int64_t e = DecimalAccess::exponent(x);
    for (std::size_t i = digits.size(); i-- > 1 && digits[i] == '0';) ++e;
    return e < 0 ? -e : 0;
  }

  Decimal num_;
  Decimal den_;
};

struct NumberMatch {
  bool ok = false;   // accepted under the configured tolerance and rounding
  std::string hint;  // when not ok but Rounding::as_stated would accept: one sentence saying so; else ""
};

// Whether `said` equals `truth` rounded half away from zero to said.decimals() digits.
// With h = 5 × 10^-(decimals+1): truth >= 0 rounds to said iff said-h <= truth < said+h;
// truth < 0 iff said-h < truth <= said+h. Exact comparisons throughout.
bool matches_as_stated(const Decimal& said, const Rational& truth);

// |said - n/d| <= a + r×|n/d|  ⇔  |said×d - n| <= a×d + r×|n|, as d > 0.
bool within_tolerance(const Decimal& said, const Rational& truth, const Tolerance& tol);

// `said` against the true value. Accepted when exactly equal, or (Rounding::as_stated)
// equal to the truth rounded to the decimals stated, or within a nonzero tolerance.
// A rejection never turns into a pass: the hint only explains that as_stated would
// have accepted it, and is only given when as_stated is not already on.
NumberMatch match_number(const Decimal& said, const Rational& truth, const Tolerance& tol, Rounding rounding);

// A negative tolerance component is a developer's mistake, reported when the check is
// configured rather than silently narrowing every comparison.
void validate_tolerance(const Tolerance& tol, std::string_view check_name);

}  // namespace detail
}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/tolerance-inl.hpp"
#endif
