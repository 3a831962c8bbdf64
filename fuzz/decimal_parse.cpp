// Fuzz gp::Decimal::parse. The input is one or two numbers' text separated by a space
// (a space is never part of a number). Beyond "no crash":
//   * parse either returns a value or throws gp::InvalidNumber, whose message is safe to
//     show (escaped, capped);
//   * to_string() is canonical and round-trips: parse(to_string(d)) == d, and printing
//     that again gives the same text; zero prints "0";
//   * decimals() is the digits after the point as written (trailing zeros kept);
//   * a JSON integer reads the same through Decimal::from_json;
//   * arithmetic is exact: a + b == b + a, a * b == b * a, (a + b) - b == a, and == agrees
//     with <=>.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/errors.hpp"

namespace gp = groundplane;

namespace {

// Digits after the point as written, minus the written exponent, floored at zero: what
// decimals() must report for text that parsed.
int written_decimals(std::string_view text) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  long long frac = 0;
  if (i < text.size() && text[i] == '.')
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) ++frac;
  long long exp = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) neg = text[i++] == '-';
    for (; i < text.size(); ++i) exp = exp < 100000000 ? exp * 10 + (text[i] - '0') : exp;
    if (neg) exp = -exp;
  }
  const long long d = frac - exp;
  return d > 0 ? static_cast<int>(d) : 0;
}

bool has_nonzero_digit_before_exponent(std::string_view text) {
  for (const char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return true;
  }
  return false;
}

std::optional<gp::Decimal> parse(std::string_view text) {
  try {
    return gp::Decimal::parse(text);
  } catch (const gp::InvalidNumber& e) {
    fuzz::check_error_message(e, "InvalidNumber::what()");
    return std::nullopt;
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "Decimal::parse threw something other than gp::InvalidNumber", e.what());
  }
}

void check_one(std::string_view text, const gp::Decimal& d) {
  const std::string s = d.to_string();
  FUZZ_CHECK(!s.empty() && s.find_first_not_of("0123456789.-+e") == std::string::npos,
             "to_string() prints only digits, '.', '-', 'e' and '+'", s);
  const auto back = parse(s);
  FUZZ_CHECK(back.has_value(), "to_string() output parses", s);
  FUZZ_CHECK(*back == d, "parse(to_string(d)) == d", s);
  FUZZ_CHECK(back->to_string() == s, "to_string() is canonical: printing the reparsed value gives the same text", s);
  FUZZ_CHECK(d.is_zero() == (s == "0"), "zero prints as \"0\" (never \"-0\") and only zero does", s);
  FUZZ_CHECK(d.is_zero() == !has_nonzero_digit_before_exponent(text), "a value is zero exactly when its digits are",
             text);
  const bool negative_text = !text.empty() && text[0] == '-';
  FUZZ_CHECK(d.signum() == (d.is_zero() ? 0 : negative_text ? -1 : 1), "the sign is the one written", text);
  FUZZ_CHECK(d.decimals() == written_decimals(text), "decimals() is the digits after the point as written", text);
  FUZZ_CHECK(d == d && (d <=> d) == 0, "a value equals itself", s);
  FUZZ_CHECK((d - d).is_zero(), "d - d is exactly zero", s);
  FUZZ_CHECK(d + gp::Decimal() == d, "d + 0 == d", s);
  FUZZ_CHECK(-(-d) == d, "-(-d) == d", s);
  FUZZ_CHECK(d.abs().signum() >= 0, "abs() is never negative", s);

  // A JSON integer reads the same exact value through from_json.
  const auto j = fuzz::parse_json(text);
  if (!j.is_discarded() && (j.is_number_integer() || j.is_number_unsigned())) {
    const auto from_json = gp::Decimal::from_json(j);
    FUZZ_CHECK(from_json && *from_json == d, "Decimal::from_json of a JSON integer equals Decimal::parse of its text",
               text);
  }
}

void check_pair(const gp::Decimal& a, const gp::Decimal& b) {
  const std::string shown = a.to_string() + " and " + b.to_string();
  const auto order = a <=> b;
  FUZZ_CHECK((order == 0) == (a == b), "== agrees with <=>", shown);
  FUZZ_CHECK((order < 0) == ((b <=> a) > 0), "<=> is antisymmetric", shown);
  if (a == b) FUZZ_CHECK(a.to_string() == b.to_string(), "equal values print the same", shown);
  const gp::Decimal sum = a + b;
  FUZZ_CHECK(sum == b + a, "a + b == b + a", shown);
  FUZZ_CHECK(sum - b == a, "(a + b) - b == a", shown);
  FUZZ_CHECK(a - b == -(b - a), "a - b == -(b - a)", shown);
  const gp::Decimal product = a * b;
  FUZZ_CHECK(product == b * a, "a * b == b * a", shown);
  FUZZ_CHECK(product.is_zero() == (a.is_zero() || b.is_zero()), "a product is zero exactly when a factor is", shown);
  FUZZ_CHECK(product.signum() == a.signum() * b.signum(), "the sign of a product", shown);
  if (order > 0) FUZZ_CHECK((a - b).signum() > 0, "a > b means a - b > 0", shown);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t space = all.find(' ');
  const std::string_view first = all.substr(0, space);
  const auto a = parse(first);
  if (a) check_one(first, *a);
  if (space == std::string_view::npos) return 0;
  const std::string_view second = all.substr(space + 1);
  const auto b = parse(second);
  if (b) check_one(second, *b);
  if (a && b) check_pair(*a, *b);
  return 0;
}
