// The bodies of tolerance.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/tolerance.hpp"

namespace groundplane {

namespace detail {
GROUNDPLANE_INLINE bool matches_as_stated(const Decimal& said, const Rational& truth) {
  const Decimal half = DecimalAccess::make(BigInt(false, BigUint(5)), -std::int64_t{said.decimals()} - 1);
  const Decimal lo = said - half;
  const Decimal hi = said + half;
  if (truth.signum() >= 0) return truth >= lo && truth < hi;
  return truth > lo && truth <= hi;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE bool within_tolerance(const Decimal& said, const Rational& truth, const Tolerance& tol) {
  const Decimal lhs = (said * truth.den() - truth.num()).abs();
  const Decimal rhs = tol.absolute * truth.den() + tol.relative * truth.num().abs();
  return lhs <= rhs;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE NumberMatch match_number(const Decimal& said, const Rational& truth, const Tolerance& tol,
                                            Rounding rounding) {
  if (truth == said) return {true, ""};
  const bool stated = matches_as_stated(said, truth);
  if (rounding == Rounding::as_stated && stated) return {true, ""};
  if ((!tol.absolute.is_zero() || !tol.relative.is_zero()) && within_tolerance(said, truth, tol)) return {true, ""};
  NumberMatch m;
  if (rounding == Rounding::exact && stated) {
    const int d = said.decimals();
    // Show a digit more than was stated, so the rounding is visible.
    m.hint = "matches " + truth.to_string(std::max(6, d + 1)) + " rounded to the " + std::to_string(d) +
             (d == 1 ? " decimal" : " decimals") + " stated; pass Rounding::as_stated to accept stated precision";
  }
  return m;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE void validate_tolerance(const Tolerance& tol, std::string_view check_name) {
  std::string bad;
  const auto note = [&bad](std::string_view component, const Decimal& v) {
    if (v.signum() >= 0) return;
    if (!bad.empty()) bad += " and ";
    bad += "tolerance.";
    bad += component;
    bad += " is " + v.to_string();
  };
  note("absolute", tol.absolute);
  note("relative", tol.relative);
  if (!bad.empty())
    throw ConfigurationError("check " + quote(check_name) + ": " + bad + "; a tolerance must be zero or positive");
}
}  // namespace detail

}  // namespace groundplane
