#include <groundplane/decimal.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

using groundplane::Decimal;
using groundplane::InvalidNumber;
namespace detail = groundplane::detail;

namespace {

// Finite doubles drawn uniformly over bit patterns: every exponent, subnormals included.
std::vector<double> random_doubles(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> out;
  out.reserve(count);
  while (out.size() < count) {
    const double d = std::bit_cast<double>(rng());
    if (std::isfinite(d)) out.push_back(d);
  }
  return out;
}

Decimal sum(const std::vector<double>& values) {
  Decimal s;
  for (const double v : values) s += v;
  return s;
}

std::string repeat(char c, std::size_t n) { return std::string(n, c); }

}  // namespace

TEST_CASE("0.1 plus 0.2 equals 0.3 exactly") {
  REQUIRE(Decimal(0.1) + Decimal(0.2) == Decimal(0.3));
  REQUIRE((Decimal(0.1) + 0.2).to_string() == "0.3");
  REQUIRE(Decimal::parse("0.1") + Decimal::parse("0.2") == Decimal::parse("0.3"));
  REQUIRE(Decimal(0.3) - Decimal(0.1) == Decimal(0.2));
  REQUIRE(Decimal(1.1) * Decimal(1.1) == Decimal::parse("1.21"));
}

TEST_CASE("Summation order never changes a sum") {
  std::mt19937_64 rng(20240611);
  SECTION("everyday magnitudes") {
    std::uniform_real_distribution<double> dist(-1000.0, 1000.0);
    std::vector<double> values(5000);
    for (auto& v : values) v = dist(rng);
    const Decimal reference = sum(values);
    for (int round = 0; round < 5; ++round) {
      std::shuffle(values.begin(), values.end(), rng);
      REQUIRE(sum(values) == reference);
    }
    // Decimal text read back sums to the same value.
    Decimal from_text;
    for (const double v : values) from_text += Decimal::parse(Decimal(v).to_string());
    REQUIRE(from_text == reference);
  }
  SECTION("every magnitude from subnormal to the largest double") {
    std::vector<double> values = random_doubles(300, 7);
    values.push_back(5e-324);
    values.push_back(std::numeric_limits<double>::max());
    values.push_back(-std::numeric_limits<double>::max());
    const Decimal reference = sum(values);
    for (int round = 0; round < 3; ++round) {
      std::shuffle(values.begin(), values.end(), rng);
      REQUIRE(sum(values) == reference);
    }
  }
  SECTION("floating point would disagree with itself but Decimal does not") {
    const std::vector<double> a{1e16, 1.0, -1e16};
    const std::vector<double> b{1e16, -1e16, 1.0};
    REQUIRE((a[0] + a[1]) + a[2] != (b[0] + b[1]) + b[2]);
    REQUIRE(sum(a) == sum(b));
    REQUIRE(sum(a) == 1);
  }
}

TEST_CASE("detail sum equals adding one by one") {
  std::mt19937_64 rng(11);
  std::vector<double> values = random_doubles(2000, 12);
  std::uniform_real_distribution<double> everyday(-1e6, 1e6);
  for (int i = 0; i < 20000; ++i) values.push_back(everyday(rng));
  values.push_back(1e300);
  values.push_back(-1e-300);
  std::shuffle(values.begin(), values.end(), rng);
  std::vector<Decimal> decimals(values.begin(), values.end());
  decimals.push_back(Decimal::parse("1" + repeat('0', 60) + ".25"));
  Decimal one_by_one;
  for (const Decimal& d : decimals) one_by_one += d;
  const Decimal total = detail::sum(decimals);
  REQUIRE(total == one_by_one);
  REQUIRE(total.decimals() == one_by_one.decimals());
  REQUIRE(detail::sum(std::vector<Decimal>{}) == 0);
  REQUIRE(detail::sum(std::vector<Decimal>{Decimal(1e300), Decimal(1e300)}).to_string() == "2e+300");
  const std::vector<Decimal> cents{Decimal(0.1), Decimal(0.2), Decimal::parse("0.30")};
  REQUIRE(detail::sum(cents).to_string() == "0.6");
  REQUIRE(detail::sum(cents).decimals() == 2);
}

TEST_CASE("Random doubles round-trip through Decimal and its text") {
  for (const double d : random_doubles(100000, 42)) {
    const Decimal x(d);
    REQUIRE(x.to_double() == d);
    REQUIRE(Decimal::parse(x.to_string()) == x);
    REQUIRE(std::hash<Decimal>{}(Decimal::parse(x.to_string())) == std::hash<Decimal>{}(x));
  }
}

TEST_CASE("Doubles convert to their shortest round-trip decimal") {
  REQUIRE(Decimal(0.1).to_string() == "0.1");
  REQUIRE(Decimal(10.40).to_string() == "10.4");
  REQUIRE(Decimal(0.0455).to_string() == "0.0455");
  REQUIRE(Decimal(-3.5).to_string() == "-3.5");
  REQUIRE(Decimal(1e20).to_string() == "100000000000000000000");
  REQUIRE(Decimal(1e22).to_string() == "1e+22");
  REQUIRE(Decimal(123456789.125).to_string() == "123456789.125");
  REQUIRE(Decimal(1.0 / 3.0).to_string() == "0.3333333333333333");
  REQUIRE(Decimal(0.1) == Decimal::parse("0.1"));
  REQUIRE(Decimal(0.1f) == Decimal::parse("0.1"));
  REQUIRE(Decimal(static_cast<double>(0.1f)) == Decimal::parse("0.10000000149011612"));
  REQUIRE(Decimal(16777217.0f).to_string() == "16777216");
}

TEST_CASE("Exponents near plus and minus 308 are exact") {
  const double max = std::numeric_limits<double>::max();
  REQUIRE(Decimal(max).to_string() == "1.7976931348623157e+308");
  REQUIRE(Decimal(-max).to_string() == "-1.7976931348623157e+308");
  REQUIRE(Decimal(1e308).to_string() == "1e+308");
  REQUIRE(Decimal(1e-308).to_string() == "1e-308");
  REQUIRE(Decimal(max).to_double() == max);
  REQUIRE(Decimal(1e308) + Decimal(1e308) == Decimal::parse("2e308"));
  REQUIRE((Decimal(1e308) + Decimal(1e308)).to_double() == std::numeric_limits<double>::infinity());
  REQUIRE(Decimal(1e-308) - Decimal(1e-308) == 0);
  REQUIRE(Decimal(1e308) > Decimal(1e307));
  REQUIRE(Decimal(1e-308) < Decimal(1e-307));
  REQUIRE(Decimal(1e-308) > 0);
}

TEST_CASE("Subnormal doubles convert exactly") {
  const double tiny = std::numeric_limits<double>::denorm_min();
  REQUIRE(tiny == 5e-324);
  REQUIRE(Decimal(tiny).to_string() == "5e-324");
  REQUIRE(Decimal(tiny).to_double() == tiny);
  REQUIRE(Decimal(tiny).decimals() == 324);
  REQUIRE(Decimal(2.2250738585072014e-308).to_string() == "2.2250738585072014e-308");
  REQUIRE(Decimal(2.2250738585072014e-308).to_double() == std::numeric_limits<double>::min());
  REQUIRE(Decimal(tiny) + Decimal(tiny) == Decimal::parse("1e-323"));
  REQUIRE(Decimal(4.9406564584124654e-324) == Decimal(tiny));
  REQUIRE(Decimal::parse("2.4703282292062328e-324").to_double() == tiny);
}

TEST_CASE("Huge products and wide sums are exact") {
  const double max = std::numeric_limits<double>::max();
  REQUIRE((Decimal(1e308) * Decimal(1e308)).to_string() == "1e+616");
  REQUIRE(Decimal(1e308) * Decimal(1e308) == Decimal::parse("1e616"));
  REQUIRE((Decimal(max) * Decimal(max)).to_string() == "3.23170060713109998320439596646649e+616");
  REQUIRE((Decimal(2.2250738585072014e-308) * Decimal(5e-324)).to_string() == "1.1125369292536007e-631");
  REQUIRE((Decimal(1e-308) * Decimal(1e-308) * Decimal(1e308) * Decimal(1e308)) == 1);

  const Decimal wide = Decimal(5e-324) + Decimal(1e308);
  REQUIRE(wide.to_string() == "1." + repeat('0', 631) + "5e+308");
  REQUIRE(wide - Decimal(1e308) == Decimal(5e-324));
  REQUIRE(wide > Decimal(1e308));
  REQUIRE(wide.decimals() == 324);
  REQUIRE(wide.to_double() == 1e308);

  const Decimal u = std::numeric_limits<unsigned long long>::max();
  REQUIRE((u * u).to_string() == "3.40282366920938463426481119284349108225e+38");
  REQUIRE(u * u == Decimal::parse("340282366920938463426481119284349108225"));
  const Decimal a = Decimal::parse("123456789012345678901234567890123456789");
  const Decimal b = Decimal::parse("987654321098765432109876543210987654321");
  REQUIRE((a * b).to_string() == "1.21932631137021795226185032733866788594487120865336229233322374638011112635269e+77");
  REQUIRE(a * b == Decimal::parse("121932631137021795226185032733866788594487120865336229233322374638011112635269"));
  REQUIRE((a * b) * Decimal::parse("1e-78") ==
          Decimal::parse("0.121932631137021795226185032733866788594487120865336229233322374638011112635269"));
  REQUIRE(-(a * b) < -(a * a));
}

TEST_CASE("Arithmetic identities hold across small and big coefficients") {
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<int> len(1, 60);
  std::uniform_int_distribution<int> digit(0, 9);
  std::uniform_int_distribution<int> exp(-40, 40);
  std::bernoulli_distribution neg(0.5);
  const auto random_decimal = [&] {
    std::string s = neg(rng) ? "-" : "";
    const int n = len(rng);
    for (int i = 0; i < n; ++i) s += static_cast<char>('0' + digit(rng));
    s += "e" + std::to_string(exp(rng));
    return Decimal::parse(s);
  };
  for (int i = 0; i < 3000; ++i) {
    const Decimal a = random_decimal();
    const Decimal b = random_decimal();
    const Decimal c = random_decimal();
    REQUIRE((a + b) - b == a);
    REQUIRE(a + b == b + a);
    REQUIRE(a * b == b * a);
    REQUIRE(a * (b + c) == a * b + a * c);
    REQUIRE((a + b) + c == a + (b + c));
    REQUIRE(a - a == 0);
    REQUIRE(-(-a) == a);
    REQUIRE(((a <=> b) == 0) == (a == b));
    REQUIRE(((a <=> b) < 0) == ((b <=> a) > 0));
    REQUIRE(Decimal::parse(a.to_string()) == a);
    if (a < b) REQUIRE(b - a > 0);
    if (a > b) REQUIRE(b - a < 0);
  }
}

TEST_CASE("Malformed text is refused with InvalidNumber") {
  const char* bad[] = {
      "",
      " ",
      "-",
      "+",
      ".",
      "-.",
      "e",
      "e5",
      "1e",
      "1e+",
      "1e-",
      "--1",
      "+-1",
      "1..2",
      "1.2.3",
      " 1",
      "1 ",
      "1 000",
      "\t1",
      "1\n",
      "1,000",
      "1_000",
      "0x1A",
      "0X1",
      "nan",
      "NaN",
      "inf",
      "-inf",
      "Infinity",
      "1e5.5",
      "1e1e1",
      "12abc",
      "abc",
      "1f",
      "$12",
      "12%",
      "\xE2\x88\x92\x35",  // U+2212 MINUS SIGN, then 5
  };
  for (const char* text : bad) {
    INFO("text: " << text);
    REQUIRE_THROWS_AS(Decimal::parse(text), InvalidNumber);
  }
  REQUIRE_THROWS_AS(Decimal::parse(std::string_view("1\0"
                                                    "2",
                                                    3)),
                    InvalidNumber);
}

TEST_CASE("Parse error messages quote the text escaped") {
  try {
    (void)Decimal::parse("12abc");
    FAIL("parse accepted junk");
  } catch (const InvalidNumber& e) {
    REQUIRE(std::string(e.what()).find("'12abc'") != std::string::npos);
    REQUIRE(std::string(e.what()).find("is not a decimal number") != std::string::npos);
  }
  try {
    (void)Decimal::parse("1\nIgnore previous instructions");
    FAIL("parse accepted junk");
  } catch (const InvalidNumber& e) {
    const std::string what = e.what();
    REQUIRE(what.find('\n') == std::string::npos);
    REQUIRE(what.find("'1\\nIgnore previous instructions'") != std::string::npos);
  }
  try {
    (void)Decimal::parse(repeat('x', 1000));
    FAIL("parse accepted junk");
  } catch (const InvalidNumber& e) {
    REQUIRE(std::string(e.what()).size() < 400);  // quoted text is capped
  }
}

TEST_CASE("Accepted text forms follow the documented grammar") {
  REQUIRE(Decimal::parse("12") == 12);
  REQUIRE(Decimal::parse("-0.0455").to_string() == "-0.0455");
  REQUIRE(Decimal::parse("1.5e-3").to_string() == "0.0015");
  REQUIRE(Decimal::parse("1.5E+3") == 1500);
  REQUIRE(Decimal::parse("+3") == 3);
  REQUIRE(Decimal::parse(".5") == Decimal(0.5));
  REQUIRE(Decimal::parse("-.5") == Decimal(-0.5));
  REQUIRE(Decimal::parse("5.") == 5);
  REQUIRE(Decimal::parse("007") == 7);
  REQUIRE(Decimal::parse("1e007") == Decimal::parse("1e7"));
  REQUIRE(Decimal::parse("0.000") == 0);
  REQUIRE(Decimal::parse("-0") == 0);
}

TEST_CASE("Text beyond the digit and exponent limits is refused") {
  REQUIRE(Decimal::parse("1e6144").to_string() == "1e+6144");
  REQUIRE(Decimal::parse("1e-6144").to_string() == "1e-6144");
  REQUIRE(Decimal::parse("-1.5e-6143").decimals() == 6144);
  REQUIRE_THROWS_AS(Decimal::parse("1e6145"), InvalidNumber);
  REQUIRE_THROWS_AS(Decimal::parse("1.5e-6144"), InvalidNumber);
  REQUIRE_THROWS_AS(Decimal::parse("1e999999999"), InvalidNumber);
  REQUIRE_THROWS_AS(Decimal::parse("1e-999999999999999999999999999"), InvalidNumber);
  REQUIRE_THROWS_AS(Decimal::parse("0e99999"), InvalidNumber);
  REQUIRE_THROWS_AS(Decimal::parse("0." + repeat('0', 6200) + "1"), InvalidNumber);

  const std::string max_digits = "9" + repeat('8', 4095);
  REQUIRE(Decimal::parse(max_digits).to_string().size() == 4096 + std::string("e+4095").size() + 1);
  REQUIRE(Decimal::parse("-000" + max_digits + "e-100") < 0);
  REQUIRE_THROWS_AS(Decimal::parse(max_digits + "0"), InvalidNumber);
  REQUIRE_THROWS_AS(Decimal::parse("0." + max_digits + "1"), InvalidNumber);
  try {
    (void)Decimal::parse(repeat('1', 5000));
    FAIL("parse accepted 5000 digits");
  } catch (const InvalidNumber& e) {
    REQUIRE(std::string(e.what()).find("5000 digits") != std::string::npos);
  }
}

TEST_CASE("Arithmetic past the exponent bound throws instead of running away") {
  Decimal x = Decimal::parse("1e-6000");
  REQUIRE_THROWS_AS(
      [&] {
        for (int i = 0; i < 40; ++i) x = x * Decimal::parse("1e-6000");
      }(),
      InvalidNumber);
}

TEST_CASE("NaN and infinity are refused") {
  REQUIRE_THROWS_AS(Decimal(std::numeric_limits<double>::quiet_NaN()), InvalidNumber);
  REQUIRE_THROWS_AS(Decimal(std::numeric_limits<double>::infinity()), InvalidNumber);
  REQUIRE_THROWS_AS(Decimal(-std::numeric_limits<double>::infinity()), InvalidNumber);
  REQUIRE_THROWS_AS(Decimal(0.0) + std::nan(""), InvalidNumber);
  REQUIRE_FALSE(Decimal::from_json(nlohmann::json(std::numeric_limits<double>::quiet_NaN())).has_value());
  REQUIRE_FALSE(Decimal::from_json(nlohmann::json(std::numeric_limits<double>::infinity())).has_value());
}

TEST_CASE("decimals counts the digits after the point as written") {
  REQUIRE(Decimal::parse("10.40").decimals() == 2);
  REQUIRE(Decimal::parse("1.5e-3").decimals() == 4);
  REQUIRE(Decimal::parse("1e3").decimals() == 0);
  REQUIRE(Decimal::parse("12").decimals() == 0);
  REQUIRE(Decimal::parse("5.").decimals() == 0);
  REQUIRE(Decimal::parse("0.00").decimals() == 2);
  REQUIRE(Decimal(10.40).decimals() == 1);
  REQUIRE(Decimal(0.0455).decimals() == 4);
  REQUIRE(Decimal(1e22).decimals() == 0);
  REQUIRE(Decimal(1.5e-7).decimals() == 8);
  REQUIRE(Decimal(42).decimals() == 0);
  // Sums keep the most decimals; products add them.
  REQUIRE((Decimal::parse("10.40") + 1).decimals() == 2);
  REQUIRE((Decimal::parse("10.40") + 1).to_string() == "11.4");
  REQUIRE((Decimal::parse("1.5") * Decimal::parse("0.25")).decimals() == 3);
  REQUIRE((Decimal::parse("0.00") + Decimal(1e300)).decimals() == 2);
  REQUIRE((Decimal() + Decimal(1e300)).decimals() == 0);
}

TEST_CASE("Negative zero is zero") {
  REQUIRE(Decimal(-0.0).to_string() == "0");
  REQUIRE(Decimal(-0.0).signum() == 0);
  REQUIRE(Decimal(-0.0) == Decimal());
  REQUIRE(Decimal::parse("-0.00").to_string() == "0");
  REQUIRE(Decimal::parse("-0.00").decimals() == 2);
  REQUIRE((Decimal(1.5) - Decimal(1.5)).to_string() == "0");
  REQUIRE((-Decimal()).to_string() == "0");
  REQUIRE((Decimal(-2) * 0).to_string() == "0");
  REQUIRE(std::hash<Decimal>{}(Decimal(-0.0)) == std::hash<Decimal>{}(Decimal::parse("0.000")));
}

TEST_CASE("Integers convert exactly") {
  REQUIRE(Decimal(std::numeric_limits<long long>::min()).to_string() == "-9223372036854775808");
  REQUIRE(Decimal(std::numeric_limits<long long>::max()).to_string() == "9223372036854775807");
  REQUIRE(Decimal(std::numeric_limits<unsigned long long>::max()).to_string() == "18446744073709551615");
  REQUIRE(Decimal(std::numeric_limits<int>::min()).to_string() == "-2147483648");
  REQUIRE(Decimal(std::numeric_limits<unsigned>::max()).to_string() == "4294967295");
  REQUIRE(Decimal(std::numeric_limits<long>::min()) == Decimal(std::numeric_limits<long long>::min()));
  REQUIRE(Decimal(std::numeric_limits<unsigned long>::max()) == Decimal::parse("18446744073709551615"));
  REQUIRE(Decimal(9007199254740993LL) != Decimal(9007199254740993.0));  // the double is ...992
  REQUIRE(Decimal(std::numeric_limits<long long>::min()) - 1 == Decimal::parse("-9223372036854775809"));
}

TEST_CASE("Comparison is a weak ordering by numeric value") {
  REQUIRE(Decimal::parse("10.40") == Decimal::parse("10.4"));
  REQUIRE((Decimal::parse("10.40") <=> Decimal(10.4)) == std::weak_ordering::equivalent);
  REQUIRE(Decimal::parse("1e2") == 100);
  REQUIRE(Decimal::parse("-1") < Decimal::parse("-0.5"));
  REQUIRE(Decimal::parse("-1e-6000") < Decimal::parse("1e-6000"));
  REQUIRE(Decimal::parse("1e-6000") < Decimal::parse("1e6000"));
  REQUIRE(Decimal::parse("-1e6000") < Decimal::parse("-1e-6000"));
  REQUIRE(Decimal::parse("1" + repeat('0', 40)) == Decimal::parse("1e40"));
  REQUIRE(Decimal::parse("1" + repeat('0', 40) + "1") > Decimal::parse("1e40"));
  REQUIRE(Decimal::parse("-1" + repeat('0', 40) + "1") < Decimal::parse("-1e40"));
  REQUIRE(Decimal::parse("99999999999999999999999999999999999999e1") < Decimal::parse("1e39"));
  REQUIRE(Decimal::parse("1e38") > Decimal::parse("99999999999999999999999999999999999999"));
  REQUIRE(Decimal(3) > 2.5);
  REQUIRE(Decimal(0.5) <= 0.5);

  const auto doubles = random_doubles(20000, 3);
  for (std::size_t i = 0; i + 1 < doubles.size(); i += 2) {
    const double a = doubles[i];
    const double b = doubles[i + 1];
    REQUIRE(((Decimal(a) <=> Decimal(b)) < 0) == (a < b));
    REQUIRE((Decimal(a) == Decimal(b)) == (a == b));
  }

  std::vector<Decimal> values{Decimal::parse("10.40"),    Decimal(-3), Decimal(10.4), Decimal(1e300),
                              Decimal::parse("-1e-6000"), Decimal(),   Decimal(0.1)};
  std::sort(values.begin(), values.end());
  REQUIRE(std::is_sorted(values.begin(), values.end()));
  REQUIRE(values.front() == -3);
  REQUIRE(values.back() == Decimal(1e300));
}

TEST_CASE("Equal values hash equally") {
  const std::hash<Decimal> h;
  REQUIRE(h(Decimal::parse("10.40")) == h(Decimal(10.4)));
  REQUIRE(h(Decimal::parse("10400e-3")) == h(Decimal::parse("1.04e1")));
  REQUIRE(h(Decimal::parse("1" + repeat('0', 40))) == h(Decimal::parse("1e40")));
  REQUIRE(h(Decimal::parse("-1" + repeat('0', 60))) == h(Decimal::parse("-1e60")));
  REQUIRE(h(Decimal(5e-324) + Decimal(1e308)) == h(Decimal::parse("1" + repeat('0', 631) + "5e-324")));
  REQUIRE(h(Decimal(1)) != h(Decimal(-1)));

  std::unordered_set<Decimal> set{Decimal::parse("10.40"),
                                  Decimal(10.4),
                                  Decimal::parse("10.400"),
                                  Decimal::parse("1e40"),
                                  Decimal::parse("1" + repeat('0', 40)),
                                  Decimal(0.1)};
  REQUIRE(set.size() == 3);
  REQUIRE(set.count(Decimal::parse("0.10")) == 1);
}

TEST_CASE("round_to rounds half away from zero") {
  REQUIRE(Decimal::parse("2.5").round_to(0) == 3);
  REQUIRE(Decimal::parse("-2.5").round_to(0) == -3);
  REQUIRE(Decimal::parse("2.4999").round_to(0) == 2);
  REQUIRE(Decimal::parse("2.45").round_to(1).to_string() == "2.5");
  REQUIRE(Decimal::parse("-2.45").round_to(1).to_string() == "-2.5");
  REQUIRE(Decimal::parse("-2.44").round_to(1).to_string() == "-2.4");
  REQUIRE(Decimal::parse("1.005").round_to(2).to_string() == "1.01");
  REQUIRE(Decimal::parse("0.125").round_to(2).to_string() == "0.13");
  REQUIRE(Decimal::parse("0.004").round_to(2).to_string() == "0");
  REQUIRE(Decimal::parse("-0.004").round_to(2).signum() == 0);
  REQUIRE(Decimal::parse("9.996").round_to(2).to_string() == "10");
  REQUIRE(Decimal::parse("9.996").round_to(2).decimals() == 2);
  REQUIRE(Decimal::parse("1250").round_to(-2) == 1300);
  REQUIRE(Decimal::parse("-1249.9").round_to(-2) == -1200);
  REQUIRE(Decimal::parse("10.4").round_to(3).decimals() == 1);  // already fewer decimals
  REQUIRE(Decimal(5e-324).round_to(323) == Decimal::parse("1e-323"));
  REQUIRE(Decimal::parse("4e-324").round_to(323) == 0);
  REQUIRE(Decimal(5e-324).round_to(324) == Decimal(5e-324));
  REQUIRE(Decimal(1.5e-323).round_to(323) == Decimal::parse("2e-323"));
  const Decimal big = Decimal::parse("12345678901234567890123456789012345678901234567890.5");
  REQUIRE(big.round_to(0).to_string() == "1.2345678901234567890123456789012345678901234567891e+49");
  REQUIRE((-big).round_to(0) == -big.round_to(0));
}

TEST_CASE("to_string uses plain form within twenty powers of ten") {
  REQUIRE(Decimal().to_string() == "0");
  REQUIRE(Decimal::parse("12").to_string() == "12");
  REQUIRE(Decimal::parse("10.40").to_string() == "10.4");
  REQUIRE(Decimal::parse("1e20").to_string() == "100000000000000000000");
  REQUIRE(Decimal::parse("1e21").to_string() == "1e+21");
  REQUIRE(Decimal::parse("1.5e21").to_string() == "1.5e+21");
  REQUIRE(Decimal::parse("1e-20").to_string() == "0.00000000000000000001");
  REQUIRE(Decimal::parse("1e-21").to_string() == "1e-21");
  REQUIRE(Decimal::parse("-1.25e-21").to_string() == "-1.25e-21");
  REQUIRE(Decimal::parse("123456789012345678901").to_string() == "123456789012345678901");
  REQUIRE(Decimal::parse("1234567890123456789012").to_string() == "1.234567890123456789012e+21");
  REQUIRE(Decimal::parse("12345678901234567890.5").to_string() == "12345678901234567890.5");
  REQUIRE(Decimal::parse("0.000100").to_string() == "0.0001");
  REQUIRE(Decimal::parse("1200").to_string() == "1200");
  REQUIRE(Decimal::parse("12e2").to_string() == "1200");
}

TEST_CASE("to_double returns the nearest double") {
  REQUIRE(Decimal::parse("0.1").to_double() == 0.1);
  REQUIRE(Decimal::parse("1e400").to_double() == std::numeric_limits<double>::infinity());
  REQUIRE(Decimal::parse("-1e400").to_double() == -std::numeric_limits<double>::infinity());
  const double under = Decimal::parse("-1e-400").to_double();
  REQUIRE(under == 0.0);
  REQUIRE(std::signbit(under));
  REQUIRE(Decimal::parse("0.1000000000000000055511151231257827021181583404541015625").to_double() == 0.1);
  REQUIRE(Decimal::parse("9007199254740993").to_double() == 9007199254740992.0);
  REQUIRE(Decimal().to_double() == 0.0);
}

TEST_CASE("is_integer abs and signum describe the value") {
  REQUIRE(Decimal::parse("12.000").is_integer());
  REQUIRE(Decimal::parse("1e3").is_integer());
  REQUIRE_FALSE(Decimal::parse("12.5").is_integer());
  REQUIRE_FALSE(Decimal(5e-324).is_integer());
  REQUIRE(Decimal::parse("1" + repeat('0', 60) + "e-50").is_integer());
  REQUIRE_FALSE(Decimal::parse("1" + repeat('0', 60) + "1e-50").is_integer());
  REQUIRE(Decimal().is_integer());
  REQUIRE(Decimal(-3.5).abs() == 3.5);
  REQUIRE(Decimal(3.5).abs() == 3.5);
  REQUIRE((-Decimal::parse("1e50")).abs() == Decimal::parse("1e50"));
  REQUIRE(Decimal(-2).signum() == -1);
  REQUIRE(Decimal(2).signum() == 1);
  REQUIRE(Decimal().signum() == 0);
  REQUIRE(Decimal().is_zero());
  REQUIRE_FALSE(Decimal(5e-324).is_zero());
  REQUIRE((-Decimal(1e308) * Decimal(1e308)).signum() == -1);
}

TEST_CASE("from_json accepts JSON numbers only") {
  using nlohmann::json;
  REQUIRE(Decimal::from_json(json(12)) == Decimal(12));
  REQUIRE(Decimal::from_json(json(-12)) == Decimal(-12));
  REQUIRE(Decimal::from_json(json(std::numeric_limits<std::uint64_t>::max())) ==
          Decimal::parse("18446744073709551615"));
  REQUIRE(Decimal::from_json(json(0.1)) == Decimal::parse("0.1"));
  REQUIRE(Decimal::from_json(json::parse("10.40"))->decimals() == 1);  // parsed as a double
  REQUIRE_FALSE(Decimal::from_json(json("12")).has_value());
  REQUIRE_FALSE(Decimal::from_json(json(nullptr)).has_value());
  REQUIRE_FALSE(Decimal::from_json(json(true)).has_value());
  REQUIRE_FALSE(Decimal::from_json(json::array({1})).has_value());
  REQUIRE_FALSE(Decimal::from_json(json::object()).has_value());
  REQUIRE(Decimal::from_json(nlohmann::ordered_json(0.0455)) == Decimal::parse("0.0455"));
  REQUIRE(Decimal::from_json(nlohmann::ordered_json(7u)) == 7);
  REQUIRE_FALSE(Decimal::from_json(nlohmann::ordered_json("7")).has_value());
  const json doc = json::parse(R"({"ctr": 0.0455})");
  REQUIRE(Decimal::from_json(doc["ctr"]) == Decimal::parse("0.0455"));
}

TEST_CASE("to_json writes integers as JSON integers and other values as doubles") {
  using nlohmann::json;
  REQUIRE(detail::to_json(Decimal(12)).is_number_integer());
  REQUIRE(detail::to_json(Decimal(12)) == json(12));
  REQUIRE(detail::to_json(Decimal::parse("12.00")).dump() == "12");
  REQUIRE(detail::to_json(Decimal::parse("1.2e3")).dump() == "1200");
  REQUIRE(detail::to_json(Decimal(std::numeric_limits<long long>::min())).dump() == "-9223372036854775808");
  REQUIRE(detail::to_json(Decimal(std::numeric_limits<unsigned long long>::max())).dump() == "18446744073709551615");
  REQUIRE(detail::to_json(Decimal(std::numeric_limits<unsigned long long>::max())).is_number_unsigned());
  REQUIRE(detail::to_json(Decimal(std::numeric_limits<unsigned long long>::max()) + 1).is_number_float());
  REQUIRE(detail::to_json(Decimal(std::numeric_limits<long long>::min()) - 1).is_number_float());
  REQUIRE(detail::to_json(Decimal(0.0455)).is_number_float());
  REQUIRE(detail::to_json(Decimal(0.0455)).dump() == "0.0455");
  REQUIRE(detail::to_json(Decimal(1e300)).is_number_float());
  REQUIRE(detail::to_json(Decimal()).dump() == "0");
  REQUIRE(Decimal::from_json(detail::to_json(Decimal(-3.5))) == -3.5);
}

TEST_CASE("BigUint division satisfies the division identity") {
  using detail::BigUint;
  std::mt19937_64 rng(5);
  // Limbs biased to 0 and all-ones reach the rare correction steps of long division.
  const auto random_big = [&](std::size_t limbs) {
    BigUint r;
    for (std::size_t i = 0; i < limbs; ++i) {
      const auto pick = rng() % 4;
      const std::uint32_t limb = pick == 0 ? 0u : pick == 1 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(rng());
      r.shift_left(32);
      r += BigUint(limb);
    }
    return r;
  };
  for (int i = 0; i < 4000; ++i) {
    const BigUint a = random_big(1 + rng() % 12);
    BigUint b = random_big(1 + rng() % 8);
    if (b.is_zero()) b = BigUint(1);
    const auto [q, r] = BigUint::divmod(a, b);
    REQUIRE(r < b);
    REQUIRE(q * b + r == a);
  }
  REQUIRE(BigUint::from_decimal("340282366920938463463374607431768211456").to_decimal() ==
          "340282366920938463463374607431768211456");
  REQUIRE(BigUint::pow10(40).to_decimal() == "1" + repeat('0', 40));
  REQUIRE_THROWS_AS(BigUint::divmod(BigUint(1), BigUint()), std::domain_error);
}
