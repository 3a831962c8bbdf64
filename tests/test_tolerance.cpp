#include <groundplane/tolerance.hpp>

#include <stdexcept>
#include <string>

#include "catch2_compat.hpp"

using groundplane::ConfigurationError;
using groundplane::Decimal;
using groundplane::Rounding;
using groundplane::Tolerance;
using groundplane::detail::match_number;
using groundplane::detail::NumberMatch;
using groundplane::detail::Rational;
using groundplane::detail::validate_tolerance;

namespace {

Decimal d(const char* text) { return Decimal::parse(text); }

NumberMatch exact(const char* said, const Rational& truth) {
  return match_number(d(said), truth, Tolerance{}, Rounding::exact);
}
NumberMatch as_stated(const char* said, const Rational& truth) {
  return match_number(d(said), truth, Tolerance{}, Rounding::as_stated);
}

}  // namespace

TEST_CASE("A Rational compares by value with positive and negative denominators") {
  REQUIRE(Rational(1, 3) == Rational(2, 6));
  REQUIRE(Rational(1, -3) == Rational(-1, 3));
  REQUIRE(Rational(-1, -3) == Rational(1, 3));
  REQUIRE(Rational(1, -3) < Rational(1, 3));
  REQUIRE(Rational(1, -3) < Decimal(0));
  REQUIRE(Rational(-2, -4) == Decimal(0.5));
  REQUIRE(Rational(1, 3) < Rational(1, 2));
  REQUIRE(Rational(1, 3) > d("0.3333"));
  REQUIRE(Rational(1, 3) < d("0.3334"));
  REQUIRE(Rational(d("20.90"), 2) == d("10.45"));
  REQUIRE(Rational(d("10.40")) == Decimal(10.4));
  REQUIRE(Decimal(10.4) == Rational(d("10.40")));
  REQUIRE(Decimal(0.5) > Rational(1, 3));
  REQUIRE((Rational(2, 3) <=> Rational(4, 6)) == std::weak_ordering::equivalent);
  REQUIRE((Rational(7, -2) <=> d("-3.5")) == std::weak_ordering::equivalent);
  REQUIRE(Rational(d("1e308"), d("1e-308")) > Rational(d("1e-308"), d("1e308")));
  REQUIRE(Rational(d("1e616"), d("1e308")) == Decimal(1e308));
  REQUIRE(Rational(5, -1).den() == 1);
  REQUIRE(Rational(5, -1).num() == -5);
  REQUIRE_THROWS_AS(Rational(1, 0), std::domain_error);
  REQUIRE_THROWS_AS(Rational(1, d("0.000")), std::domain_error);
}

TEST_CASE("exact gives the terminating decimal or nothing") {
  REQUIRE_FALSE(Rational(1, 3).exact().has_value());
  REQUIRE_FALSE(Rational(d("10.4"), 7).exact().has_value());
  REQUIRE(Rational(1, 8).exact()->to_string() == "0.125");
  REQUIRE(Rational(d("20.90"), 2).exact()->to_string() == "10.45");
  REQUIRE(Rational(d("20.90"), 2).exact()->decimals() == 2);
  REQUIRE(Rational(d("10.40")).exact()->decimals() == 2);
  REQUIRE(Rational(7, d("1.25")).exact() == d("5.6"));
  REQUIRE(Rational(1, -4).exact() == d("-0.25"));
  REQUIRE(Rational(6, 3).exact() == 2);
  REQUIRE(Rational(3, 6).exact() == d("0.5"));
  REQUIRE(Rational(21, 6).exact() == d("3.5"));
  REQUIRE(Rational(0, 7).exact() == 0);
  REQUIRE(Rational(1, d("1e-300")).exact() == d("1e300"));
  REQUIRE(Rational(1, d("1267650600228229401496703205376")).exact() ==  // 2^100
          d("7.888609052210118054117285652827862296732064351090230047702789306640625e-31"));
  REQUIRE_FALSE(Rational(d("1e308"), d("3e-308")).exact().has_value());
}

TEST_CASE("Rational to_string shows exact values plainly and truncates others with an ellipsis") {
  REQUIRE(Rational(21, 2).to_string() == "10.5");
  REQUIRE(Rational(1, 3).to_string() == "0.333333\xE2\x80\xA6");
  REQUIRE(Rational(2, 3).to_string() == "0.666666\xE2\x80\xA6");  // truncated, never rounded
  REQUIRE(Rational(-1, 3).to_string() == "-0.333333\xE2\x80\xA6");
  REQUIRE(Rational(1, 3).to_string(4) == "0.3333\xE2\x80\xA6");
  REQUIRE(Rational(d("198.3"), 19).to_string() == "10.436842\xE2\x80\xA6");
  REQUIRE(Rational(d("198.3"), 19).to_string(4) == "10.4368\xE2\x80\xA6");
  REQUIRE(Rational(1, d("3e9")).to_string() == "0.00000000033333\xE2\x80\xA6");
  REQUIRE(Rational(1, d("3e30")).to_string() == "3.3333e-31\xE2\x80\xA6");
  REQUIRE(Rational(1, 30).to_string(2) == "0.033333\xE2\x80\xA6");
  REQUIRE(Rational(1, 1024).to_string() == "0.00097656\xE2\x80\xA6");
  REQUIRE(Rational(1, 1024).to_string(10) == "0.0009765625");
  REQUIRE(Rational(d("1e30"), 3).to_string() == "3.3333333333333333e+29\xE2\x80\xA6");
  REQUIRE(Rational(d("1e30"), 4).to_string() == "2.5e+29");
  REQUIRE(Rational(d("1e20"), 4).to_string() == "25000000000000000000");
  REQUIRE(Rational(0, 3).to_string() == "0");
  REQUIRE(Rational(100, 3).to_string(0) == "33\xE2\x80\xA6");
}

TEST_CASE("match_number is exact by default") {
  REQUIRE(exact("0.25", Rational(1, 4)).ok);
  REQUIRE(exact("0.250", Rational(1, 4)).ok);
  REQUIRE(exact("-0.25", Rational(-1, 4)).ok);
  REQUIRE(exact("-0.25", Rational(1, -4)).ok);
  REQUIRE_FALSE(exact("0.26", Rational(1, 4)).ok);
  REQUIRE_FALSE(exact("0.25", Rational(-1, 4)).ok);
  REQUIRE(exact("10.45", Rational(d("20.90"), 2)).ok);
  REQUIRE(exact("0.3", Rational(Decimal(0.1) + Decimal(0.2))).ok);
  REQUIRE(exact("0.25", Rational(1, 4)).hint.empty());
}

TEST_CASE("A mean of one third stated as 0.3333 fails exact and passes as_stated or a tolerance") {
  const Rational third(1, 3);
  const NumberMatch strict = exact("0.3333", third);
  REQUIRE_FALSE(strict.ok);
  REQUIRE(strict.hint.find("Rounding::as_stated") != std::string::npos);
  REQUIRE(strict.hint ==
          "matches 0.333333\xE2\x80\xA6 rounded to the 4 decimals stated; pass Rounding::as_stated to accept "
          "stated precision");
  REQUIRE(as_stated("0.3333", third).ok);
  REQUIRE(match_number(d("0.3333"), third, Tolerance{.absolute = 0.0001}, Rounding::exact).ok);
  REQUIRE_FALSE(match_number(d("0.3333"), third, Tolerance{.absolute = 0.00003}, Rounding::exact).ok);
  REQUIRE(match_number(d("0.3333"), third, Tolerance{.relative = 0.0001}, Rounding::exact).ok);
  REQUIRE_FALSE(match_number(d("0.3333"), third, Tolerance{.relative = 0.00009}, Rounding::exact).ok);
}

TEST_CASE("as_stated rounds the true value half away from zero exactly") {
  const Rational t1045(d("10.45"));
  REQUIRE(as_stated("10.5", t1045).ok);
  REQUIRE_FALSE(as_stated("10.4", t1045).ok);
  REQUIRE(as_stated("10.45", t1045).ok);
  REQUIRE(as_stated("10.450", t1045).ok);
  REQUIRE(as_stated("10", t1045).ok);
  REQUIRE_FALSE(as_stated("11", t1045).ok);
  const Rational neg(d("-10.45"));
  REQUIRE(as_stated("-10.5", neg).ok);
  REQUIRE_FALSE(as_stated("-10.4", neg).ok);
  REQUIRE_FALSE(as_stated("10.5", neg).ok);
  REQUIRE(as_stated("0.33", Rational(1, 3)).ok);
  REQUIRE_FALSE(as_stated("0.34", Rational(1, 3)).ok);
  REQUIRE(as_stated("0.67", Rational(2, 3)).ok);
  REQUIRE_FALSE(as_stated("0.66", Rational(2, 3)).ok);
  REQUIRE(as_stated("-0.67", Rational(-2, 3)).ok);
  REQUIRE(as_stated("-0.67", Rational(2, -3)).ok);
  REQUIRE(as_stated("0.13", Rational(1, 8)).ok);
  REQUIRE_FALSE(as_stated("0.12", Rational(1, 8)).ok);
  REQUIRE(as_stated("-0.13", Rational(-1, 8)).ok);
  REQUIRE_FALSE(as_stated("-0.12", Rational(-1, 8)).ok);
  REQUIRE(as_stated("11", Rational(d("10.5"))).ok);
  REQUIRE_FALSE(as_stated("10", Rational(d("10.5"))).ok);
  REQUIRE(as_stated("-1", Rational(d("-0.5"))).ok);
  REQUIRE_FALSE(as_stated("0", Rational(d("-0.5"))).ok);
  REQUIRE(as_stated("0.00", Rational(d("0.004"))).ok);
  REQUIRE(as_stated("0.00", Rational(d("-0.004"))).ok);
  REQUIRE_FALSE(as_stated("0.00", Rational(d("0.005"))).ok);
  REQUIRE(as_stated("1e3", Rational(d("1000.4"))).ok);  // "1e3" states no decimals
  REQUIRE(as_stated("3.3333e-31", Rational(1, d("3e30"))).ok);
  REQUIRE_FALSE(as_stated("3.3334e-31", Rational(1, d("3e30"))).ok);
}

TEST_CASE("The hint names the true value and the decimals stated") {
  const Rational truth(d("198.3"), 19);  // 10.4368421...
  const NumberMatch one = exact("10.4", truth);
  REQUIRE_FALSE(one.ok);
  REQUIRE(one.hint ==
          "matches 10.436842\xE2\x80\xA6 rounded to the 1 decimal stated; pass Rounding::as_stated to accept "
          "stated precision");
  REQUIRE(exact("10.44", truth).hint.find("rounded to the 2 decimals stated") != std::string::npos);
  REQUIRE(exact("10", truth).hint.find("rounded to the 0 decimals stated") != std::string::npos);
  REQUIRE(exact("10.5", Rational(d("10.45"))).hint.find("matches 10.45 rounded") != std::string::npos);
  // More digits than the default are shown when the model stated more.
  REQUIRE(exact("10.43684211", truth).hint.find("matches 10.436842105\xE2\x80\xA6") != std::string::npos);
}

TEST_CASE("A wrong number gets no hint and never passes") {
  const NumberMatch wrong = exact("0.5", Rational(1, 3));
  REQUIRE_FALSE(wrong.ok);
  REQUIRE(wrong.hint.empty());
  REQUIRE_FALSE(exact("10.4", Rational(d("10.45"))).ok);
  REQUIRE(exact("10.4", Rational(d("10.45"))).hint.empty());
  const NumberMatch already = as_stated("0.34", Rational(1, 3));
  REQUIRE_FALSE(already.ok);
  REQUIRE(already.hint.empty());
  const NumberMatch tolerant = match_number(d("0.34"), Rational(1, 3), Tolerance{.absolute = 0.001}, Rounding::exact);
  REQUIRE_FALSE(tolerant.ok);
  REQUIRE(tolerant.hint.empty());
}

TEST_CASE("Tolerance is absolute plus relative times the true value") {
  const Rational hundred(100);
  const auto with = [](const char* said, const Rational& truth, Tolerance tol) {
    return match_number(d(said), truth, tol, Rounding::exact).ok;
  };
  REQUIRE(with("101", hundred, {.relative = 0.01}));
  REQUIRE_FALSE(with("101", hundred, {.relative = 0.0099}));
  REQUIRE(with("99", hundred, {.relative = 0.01}));
  REQUIRE(with("101", hundred, {.absolute = 1}));
  REQUIRE_FALSE(with("101.0001", hundred, {.absolute = 1}));
  REQUIRE(with("101", hundred, {.absolute = 0.5, .relative = 0.005}));
  REQUIRE_FALSE(with("101", hundred, {.absolute = 0.5, .relative = 0.004}));
  REQUIRE(with("-101", Rational(-100), {.relative = 0.01}));
  REQUIRE_FALSE(with("101", Rational(-100), {.relative = 0.01}));
  REQUIRE_FALSE(with("0.34", Rational(1, 3), {.absolute = 0.0066}));
  REQUIRE(with("0.34", Rational(1, 3), {.absolute = 0.0067}));
  REQUIRE(with("0.34", Rational(-1, -3), {.absolute = 0.0067}));
  REQUIRE(with("1.0000000000000002e308", Rational(d("1e308")), {.relative = 1e-15}));
  REQUIRE_FALSE(with("1.0000000000000002e308", Rational(d("1e308")), {.relative = 1e-16}));
  REQUIRE(with("0.1", Rational(0), {.absolute = 0.1}));
  REQUIRE_FALSE(with("0.1", Rational(0), {.relative = 0.5}));
}

TEST_CASE("Tolerance and as_stated combine so that either can accept") {
  const Rational truth(d("10.45"));
  REQUIRE(match_number(d("10.5"), truth, Tolerance{.absolute = 0.01}, Rounding::as_stated).ok);   // by rounding
  REQUIRE(match_number(d("10.46"), truth, Tolerance{.absolute = 0.01}, Rounding::as_stated).ok);  // by tolerance
  REQUIRE_FALSE(match_number(d("10.47"), truth, Tolerance{.absolute = 0.01}, Rounding::as_stated).ok);
  REQUIRE_FALSE(match_number(d("10.4"), truth, Tolerance{.absolute = 0.01}, Rounding::as_stated).ok);
}

TEST_CASE("validate_tolerance rejects negative components and names the check") {
  REQUIRE_NOTHROW(validate_tolerance(Tolerance{}, "superlative"));
  REQUIRE_NOTHROW(validate_tolerance(Tolerance{.absolute = 0.5, .relative = 0.01}, "superlative"));
  REQUIRE_THROWS_AS(validate_tolerance(Tolerance{.absolute = -0.5}, "superlative"), ConfigurationError);
  try {
    validate_tolerance(Tolerance{.absolute = -0.5}, "superlative");
    FAIL("negative tolerance accepted");
  } catch (const ConfigurationError& e) {
    const std::string what = e.what();
    REQUIRE(what.find("'superlative'") != std::string::npos);
    REQUIRE(what.find("tolerance.absolute is -0.5") != std::string::npos);
    REQUIRE(what.find("relative") == std::string::npos);
  }
  try {
    validate_tolerance(Tolerance{.relative = -0.01}, "comparison");
    FAIL("negative tolerance accepted");
  } catch (const ConfigurationError& e) {
    const std::string what = e.what();
    REQUIRE(what.find("'comparison'") != std::string::npos);
    REQUIRE(what.find("tolerance.relative is -0.01") != std::string::npos);
    REQUIRE(what.find("absolute") == std::string::npos);
  }
  try {
    validate_tolerance(Tolerance{.absolute = -1, .relative = -2}, "check\nname");
    FAIL("negative tolerance accepted");
  } catch (const ConfigurationError& e) {
    const std::string what = e.what();
    REQUIRE(what.find("tolerance.absolute is -1 and tolerance.relative is -2") != std::string::npos);
    REQUIRE(what.find('\n') == std::string::npos);
  }
}
