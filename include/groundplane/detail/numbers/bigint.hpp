// Arbitrary-precision integers: the slow path behind gp::Decimal. Decimal keeps values
// whose coefficient fits a machine integer inline; only coefficients that outgrow it
// (1e308 * 1e308, 5e-324 + 1e308, 4096-digit text) land here. Simple schoolbook
// algorithms are enough: inputs are bounded by Decimal's parse limits.
#pragma once

#include <algorithm>
#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace groundplane::detail {

// A non-negative integer as little-endian 32-bit limbs, with no leading zero limbs
// (zero is the empty vector), so equal values have equal limb vectors.
class BigUint {
 public:
  using limb_t = std::uint32_t;
  using wide_t = std::uint64_t;
  static constexpr int limb_bits = 32;

  BigUint() = default;
  explicit BigUint(std::uint64_t v) { assign_unsigned(v); }

  // Any unsigned integer type, including unsigned __int128 (no std traits needed).
  template <class U>
  static BigUint from_unsigned(U v) {
    BigUint r;
    r.assign_unsigned(v);
    return r;
  }
  // The low bits of the value as U; callers check bit_length() first.
  template <class U>
  U to_unsigned() const noexcept {
    U v = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;)
      v = static_cast<U>(static_cast<U>((v << (limb_bits / 2)) << (limb_bits / 2)) | limbs_[i]);
    return v;
  }

  bool is_zero() const noexcept { return limbs_.empty(); }
  const std::vector<limb_t>& limbs() const noexcept { return limbs_; }

  std::size_t bit_length() const noexcept {
    if (limbs_.empty()) return 0;
    return (limbs_.size() - 1) * limb_bits + (limb_bits - static_cast<std::size_t>(std::countl_zero(limbs_.back())));
  }

  std::size_t trailing_zero_bits() const noexcept {
    std::size_t i = 0;
    while (i < limbs_.size() && limbs_[i] == 0) ++i;
    if (i == limbs_.size()) return 0;
    return i * limb_bits + static_cast<std::size_t>(std::countr_zero(limbs_[i]));
  }

  friend bool operator==(const BigUint&, const BigUint&) = default;
  friend std::strong_ordering operator<=>(const BigUint& a, const BigUint& b) noexcept {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() <=> b.limbs_.size();
    for (std::size_t i = a.limbs_.size(); i-- > 0;)
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] <=> b.limbs_[i];
    return std::strong_ordering::equal;
  }

  BigUint& operator+=(const BigUint& b) {
    if (limbs_.size() < b.limbs_.size()) limbs_.resize(b.limbs_.size(), 0);
    wide_t carry = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      const wide_t t = wide_t{limbs_[i]} + (i < b.limbs_.size() ? b.limbs_[i] : 0) + carry;
      limbs_[i] = static_cast<limb_t>(t);
      carry = t >> limb_bits;
      if (carry == 0 && i >= b.limbs_.size()) break;
    }
    if (carry != 0) limbs_.push_back(static_cast<limb_t>(carry));
    return *this;
  }

  // Requires *this >= b: the caller compares first (BigInt does).
  BigUint& operator-=(const BigUint& b) {
    if (*this < b) throw std::logic_error("BigUint: subtraction would be negative");
    wide_t borrow = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      const wide_t sub = (i < b.limbs_.size() ? b.limbs_[i] : 0) + borrow;
      const wide_t cur = limbs_[i];
      limbs_[i] = static_cast<limb_t>(cur - sub);
      borrow = cur < sub ? 1 : 0;
      if (borrow == 0 && i >= b.limbs_.size()) break;
    }
    trim();
    return *this;
  }

  friend BigUint operator+(BigUint a, const BigUint& b) { return a += b; }
  friend BigUint operator-(BigUint a, const BigUint& b) { return a -= b; }

  friend BigUint operator*(const BigUint& a, const BigUint& b) {
    BigUint r;
    if (a.is_zero() || b.is_zero()) return r;
    r.limbs_.assign(a.limbs_.size() + b.limbs_.size(), 0);
    for (std::size_t i = 0; i < a.limbs_.size(); ++i) {
      wide_t carry = 0;
      const wide_t ai = a.limbs_[i];
      for (std::size_t j = 0; j < b.limbs_.size(); ++j) {
        // (2^32-1)^2 + 2*(2^32-1) == 2^64-1: never overflows.
        const wide_t t = ai * b.limbs_[j] + r.limbs_[i + j] + carry;
        r.limbs_[i + j] = static_cast<limb_t>(t);
        carry = t >> limb_bits;
      }
      r.limbs_[i + b.limbs_.size()] = static_cast<limb_t>(carry);
    }
    r.trim();
    return r;
  }
  BigUint& operator*=(const BigUint& b) { return *this = *this * b; }

  void mul_small(limb_t m) {
    if (m == 0) {
      limbs_.clear();
      return;
    }
    wide_t carry = 0;
    for (auto& l : limbs_) {
      const wide_t t = wide_t{l} * m + carry;
      l = static_cast<limb_t>(t);
      carry = t >> limb_bits;
    }
    if (carry != 0) limbs_.push_back(static_cast<limb_t>(carry));
  }

  void add_small(limb_t a) {
    wide_t carry = a;
    for (std::size_t i = 0; i < limbs_.size() && carry != 0; ++i) {
      const wide_t t = wide_t{limbs_[i]} + carry;
      limbs_[i] = static_cast<limb_t>(t);
      carry = t >> limb_bits;
    }
    if (carry != 0) limbs_.push_back(static_cast<limb_t>(carry));
  }

  // *this /= d; returns the remainder. d must not be zero.
  limb_t divmod_small(limb_t d) {
    if (d == 0) throw std::domain_error("BigUint: division by zero");
    wide_t rem = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) {
      const wide_t cur = (rem << limb_bits) | limbs_[i];
      limbs_[i] = static_cast<limb_t>(cur / d);
      rem = cur % d;
    }
    trim();
    return static_cast<limb_t>(rem);
  }

  // The remainder of *this / d without changing *this.
  limb_t mod_small(limb_t d) const {
    if (d == 0) throw std::domain_error("BigUint: division by zero");
    wide_t rem = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) rem = ((rem << limb_bits) | limbs_[i]) % d;
    return static_cast<limb_t>(rem);
  }

  void mul_pow10(std::size_t n) {
    if (is_zero()) return;
    for (; n >= 9; n -= 9) mul_small(1'000'000'000u);
    if (n > 0) mul_small(small_pow10(n));
  }
  static BigUint pow10(std::size_t n) {
    BigUint r(1);
    r.mul_pow10(n);
    return r;
  }

  void shift_left(std::size_t bits) {
    if (is_zero() || bits == 0) return;
    const std::size_t limbs = bits / limb_bits;
    const unsigned rest = static_cast<unsigned>(bits % limb_bits);
    if (rest != 0) {
      limb_t carry = 0;
      for (auto& l : limbs_) {
        const limb_t next = l >> (limb_bits - rest);
        l = (l << rest) | carry;
        carry = next;
      }
      if (carry != 0) limbs_.push_back(carry);
    }
    limbs_.insert(limbs_.begin(), limbs, 0);
  }

  void shift_right(std::size_t bits) {
    const std::size_t limbs = bits / limb_bits;
    if (limbs >= limbs_.size()) {
      limbs_.clear();
      return;
    }
    limbs_.erase(limbs_.begin(), limbs_.begin() + static_cast<std::ptrdiff_t>(limbs));
    const unsigned rest = static_cast<unsigned>(bits % limb_bits);
    if (rest != 0) {
      for (std::size_t i = 0; i < limbs_.size(); ++i) {
        const limb_t hi = i + 1 < limbs_.size() ? limbs_[i + 1] << (limb_bits - rest) : 0;
        limbs_[i] = (limbs_[i] >> rest) | hi;
      }
    }
    trim();
  }

  // {a / b, a % b}; b must not be zero. Long division with 32-bit digits
  // (Knuth, TAOCP vol. 2, 4.3.1, algorithm D).
  static std::pair<BigUint, BigUint> divmod(const BigUint& a, const BigUint& b) {
    if (b.is_zero()) throw std::domain_error("BigUint: division by zero");
    if (a < b) return {BigUint{}, a};
    if (b.limbs_.size() == 1) {
      BigUint q = a;
      const limb_t r = q.divmod_small(b.limbs_[0]);
      return {std::move(q), BigUint(r)};
    }
    // Normalize so the divisor's top limb has its high bit set; the quotient-digit
    // estimate is then off by at most two.
    const unsigned s = static_cast<unsigned>(std::countl_zero(b.limbs_.back()));
    BigUint v = b;
    v.shift_left(s);
    std::vector<limb_t> u = shifted_with_top_limb(a.limbs_, s);
    const std::size_t n = v.limbs_.size();
    const std::size_t m = a.limbs_.size() - n;
    BigUint q;
    q.limbs_.assign(m + 1, 0);
    for (std::size_t j = m + 1; j-- > 0;) {
      wide_t qhat = estimate_quotient_digit(u, j, v.limbs_);
      if (!subtract_multiple(u, j, v.limbs_, qhat)) {
        // The estimate was one too large: add the divisor back.
        --qhat;
        add_divisor_back(u, j, v.limbs_);
      }
      q.limbs_[j] = static_cast<limb_t>(qhat);
    }
    q.trim();
    BigUint r;
    r.limbs_.assign(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(n));
    r.trim();
    r.shift_right(s);
    return {std::move(q), std::move(r)};
  }

  // Decimal digits, most significant first; "0" for zero.
  std::string to_decimal() const {
    if (is_zero()) return "0";
    std::vector<limb_t> chunks;  // base 10^9, least significant first
    BigUint t = *this;
    while (!t.is_zero()) chunks.push_back(t.divmod_small(1'000'000'000u));
    std::string out = std::to_string(chunks.back());
    for (std::size_t i = chunks.size() - 1; i-- > 0;) {
      const std::string part = std::to_string(chunks[i]);
      out.append(9 - part.size(), '0');
      out += part;
    }
    return out;
  }

  // From a run of ASCII digits (the caller has validated them).
  static BigUint from_decimal(std::string_view digits) {
    BigUint r;
    std::size_t i = 0;
    while (i < digits.size()) {
      const std::size_t len = std::min<std::size_t>(9, digits.size() - i);
      limb_t chunk = 0;
      for (std::size_t k = 0; k < len; ++k) chunk = chunk * 10 + static_cast<limb_t>(digits[i + k] - '0');
      r.mul_small(small_pow10(len));
      r.add_small(chunk);
      i += len;
    }
    return r;
  }

  std::size_t decimal_digits() const { return is_zero() ? 1 : to_decimal().size(); }

  std::size_t hash() const noexcept {
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the limbs
    for (const limb_t l : limbs_) {
      h ^= l;
      h *= 0x100000001b3ull;
    }
    return static_cast<std::size_t>(h);
  }

 private:
  // The limbs shifted left by `s` bits (s < limb_bits), with one more limb on top for
  // what is shifted out: the dividend as algorithm D normalizes it.
  static std::vector<limb_t> shifted_with_top_limb(const std::vector<limb_t>& limbs, unsigned s) {
    std::vector<limb_t> u = limbs;
    u.push_back(0);
    if (s != 0) {
      for (std::size_t i = u.size() - 1; i > 0; --i) u[i] = (u[i] << s) | (u[i - 1] >> (limb_bits - s));
      u[0] <<= s;
    }
    return u;
  }

  // The quotient digit of u[j .. j+n] / v (n = v.size() >= 2, v normalized), from the
  // top two limbs of each: never too small, and at most one too large.
  static wide_t estimate_quotient_digit(const std::vector<limb_t>& u, std::size_t j,
                                        const std::vector<limb_t>& v) noexcept {
    const std::size_t n = v.size();
    const wide_t base = wide_t{1} << limb_bits;
    const wide_t vtop = v[n - 1];
    const wide_t vnext = v[n - 2];
    const wide_t num = (wide_t{u[j + n]} << limb_bits) | u[j + n - 1];
    wide_t qhat = num / vtop;
    wide_t rhat = num % vtop;
    while (qhat >= base || qhat * vnext > ((rhat << limb_bits) | u[j + n - 2])) {
      --qhat;
      rhat += vtop;
      if (rhat >= base) break;
    }
    return qhat;
  }

  // u[j .. j+n] -= qhat * v; false when that went below zero (the window then holds
  // the difference plus base^(n+1)).
  static bool subtract_multiple(std::vector<limb_t>& u, std::size_t j, const std::vector<limb_t>& v,
                                wide_t qhat) noexcept {
    const std::size_t n = v.size();
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const wide_t p = qhat * v[i];
      const std::int64_t t = static_cast<std::int64_t>(u[i + j]) - borrow - static_cast<std::int64_t>(p & 0xFFFFFFFFu);
      u[i + j] = static_cast<limb_t>(t);
      borrow = static_cast<std::int64_t>(p >> limb_bits) - (t >> limb_bits);
    }
    const std::int64_t t = static_cast<std::int64_t>(u[j + n]) - borrow;
    u[j + n] = static_cast<limb_t>(t);
    return t >= 0;
  }

  // u[j .. j+n] += v, the carry out of the top limb dropped: undoes one multiple too many.
  static void add_divisor_back(std::vector<limb_t>& u, std::size_t j, const std::vector<limb_t>& v) noexcept {
    const std::size_t n = v.size();
    wide_t carry = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const wide_t sum = wide_t{u[i + j]} + v[i] + carry;
      u[i + j] = static_cast<limb_t>(sum);
      carry = sum >> limb_bits;
    }
    u[j + n] = static_cast<limb_t>(u[j + n] + carry);
  }

  static limb_t small_pow10(std::size_t n) noexcept {
    limb_t p = 1;
    for (std::size_t i = 0; i < n; ++i) p *= 10;
    return p;
  }

  template <class U>
  void assign_unsigned(U v) {
    limbs_.clear();
    while (v != 0) {
      limbs_.push_back(static_cast<limb_t>(v));
      // Two half shifts: a single shift by 32 is undefined for 32-bit U.
      v = static_cast<U>((v >> (limb_bits / 2)) >> (limb_bits / 2));
    }
  }

  void trim() noexcept {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }

  std::vector<limb_t> limbs_;
};

// A signed integer as sign and magnitude. Zero is never negative.
struct BigInt {
  bool negative = false;
  BigUint magnitude;

  BigInt() = default;
  BigInt(bool neg, BigUint mag) : negative(neg && !mag.is_zero()), magnitude(std::move(mag)) {}

  bool is_zero() const noexcept { return magnitude.is_zero(); }
  int signum() const noexcept { return is_zero() ? 0 : (negative ? -1 : 1); }

  friend bool operator==(const BigInt&, const BigInt&) = default;
  friend std::strong_ordering operator<=>(const BigInt& a, const BigInt& b) noexcept {
    if (a.signum() != b.signum()) return a.signum() <=> b.signum();
    const auto mag = a.magnitude <=> b.magnitude;
    return a.negative ? 0 <=> mag : mag;
  }

  friend BigInt operator-(BigInt a) {
    a.negative = !a.negative && !a.is_zero();
    return a;
  }
  friend BigInt operator+(const BigInt& a, const BigInt& b) {
    if (a.negative == b.negative) return BigInt(a.negative, a.magnitude + b.magnitude);
    // Opposite signs: the larger magnitude wins the sign.
    if (a.magnitude >= b.magnitude) return BigInt(a.negative, a.magnitude - b.magnitude);
    return BigInt(b.negative, b.magnitude - a.magnitude);
  }
  friend BigInt operator-(const BigInt& a, const BigInt& b) { return a + (-b); }
  friend BigInt operator*(const BigInt& a, const BigInt& b) {
    return BigInt(a.negative != b.negative, a.magnitude * b.magnitude);
  }
};

}  // namespace groundplane::detail
