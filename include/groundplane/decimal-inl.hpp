// The bodies of decimal.hpp that turn a binary floating-point value into its decimal:
// included by it in the header-only build, compiled once into groundplane::compiled
// otherwise (see detail/linkage.hpp). The arithmetic and comparisons stay inline.
#pragma once

#include "groundplane/decimal.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "groundplane/detail/numbers/float_decimal.hpp"

namespace groundplane {

template <class Float>
void Decimal::assign_floating(Float v) {
  if (std::isnan(v)) throw InvalidNumber("Decimal: NaN is not a number");
  if (std::isinf(v))
    throw InvalidNumber(v > 0 ? "Decimal: infinity is not a number" : "Decimal: -infinity is not a number");
  if (v == 0) return;  // also -0.0: zero has no sign
  // An integral value below 2^53 is its own shortest form (up to trailing zeros, which
  // decimals() does not see); skipping the digit search makes counts cheap.
  if (v >= Float(-9007199254740992.0) && v <= Float(9007199254740992.0)) {
    const auto i = static_cast<std::int64_t>(v);
    if (static_cast<Float>(i) == v) {
      coeff_ = static_cast<dec_int>(i);
      return;
    }
  }
  // A double's digits come without text (detail/numbers/float_decimal.hpp; tested against to_chars).
  detail::DecimalParts parts;
  if constexpr (std::is_same_v<Float, double>) parts = detail::shortest_decimal(v);
  else parts = detail::shortest_decimal_by_text(v);
  coeff_ = static_cast<dec_int>(parts.coefficient);
  exp_ = parts.exponent;
}

GROUNDPLANE_INLINE Decimal::Decimal(double v) { assign_floating(v); }
GROUNDPLANE_INLINE Decimal::Decimal(float v) { assign_floating(v); }

}  // namespace groundplane
