// The columnar Table and the conversions under it: a double's shortest decimal computed
// without text must equal std::to_chars' digit for digit, a recorded cell must read back
// as exactly what was recorded, and the integer fast paths of the aggregates must agree
// with plain exact arithmetic.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include <groundplane/detail/numbers/float_decimal.hpp>
#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

// How many doubles the exactness test compares (GROUNDPLANE_FLOAT_DECIMAL_SAMPLES
// raises it for a long run).
std::size_t samples() {
  if (const char* s = std::getenv("GROUNDPLANE_FLOAT_DECIMAL_SAMPLES")) return std::strtoull(s, nullptr, 10);
  return 3'000'000;
}

double from_bits(std::uint64_t b) { return std::bit_cast<double>(b); }

// A double drawn from one of several shapes: any bit pattern, any magnitude the exact
// path handles, decimal-looking values and their neighbours, powers of two and ten
// and their neighbours.
double draw(std::mt19937_64& rng, std::uint64_t i) {
  const std::uint64_t r = rng();
  const auto nudge = [&](double v, int steps) {
    for (; steps > 0; --steps) v = std::nextafter(v, std::numeric_limits<double>::infinity());
    for (; steps < 0; ++steps) v = std::nextafter(v, -std::numeric_limits<double>::infinity());
    return v;
  };
  switch (i % 7) {
    case 0:
      return from_bits(r);
    case 1: {
      const auto e = static_cast<std::uint64_t>(static_cast<int>(r % 140) - 80 + 1023);
      return from_bits((e << 52) | (rng() & ((std::uint64_t{1} << 52) - 1)) | (r & (std::uint64_t{1} << 63)));
    }
    case 2: {
      const int d = static_cast<int>(r % 13);
      const auto k = static_cast<std::int64_t>(rng() % 200'000'000'000ull) - 100'000'000'000ll;
      return static_cast<double>(k) / std::pow(10.0, d);
    }
    case 3: {
      const int d = static_cast<int>(r % 9);
      const double w = static_cast<double>(rng() % 10'000'000ull) / std::pow(10.0, d);
      return nudge(w, static_cast<int>((r >> 20) % 7) - 3);
    }
    case 4:
      return nudge(std::ldexp(1.0, static_cast<int>(r % 160) - 90), static_cast<int>((r >> 20) % 7) - 3);
    case 5: {
      const double p = std::pow(10.0, static_cast<int>(r % 40) - 25) * static_cast<double>(1 + (r >> 30) % 9);
      return nudge(p, static_cast<int>((r >> 20) % 7) - 3);
    }
    default: {
      // 15 to 17 significant digits, the longest shortest forms.
      const auto c = static_cast<std::int64_t>(rng() % 90'000'000'000'000'000ull) + 10'000'000'000'000'000ll;
      return static_cast<double>(c) * std::pow(10.0, static_cast<int>(r % 30) - 30);
    }
  }
}

}  // namespace

TEST_CASE("a double's shortest decimal computed without text equals std::to_chars' on millions of doubles") {
  std::mt19937_64 rng(20240611);
  const std::size_t n = samples();
  std::size_t compared = 0, mismatches = 0;
  int hint = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const double v = draw(rng, i);
    if (!std::isfinite(v) || v == 0) continue;
    if (i % 5 == 0) hint = static_cast<int>(rng() % 20);  // every start the search can have
    const auto fast = gp::detail::shortest_decimal(v, hint);
    // The reference: std::to_chars' shortest form, read back (an integral |v| <= 2^53
    // is spelled (v, 0) instead of its trailing zeros).
    auto text = gp::detail::shortest_decimal_by_text(v);
    if (std::fabs(v) <= 9007199254740992.0 && std::trunc(v) == v) text = {static_cast<std::int64_t>(v), 0};
    const bool same = text.coefficient == fast.coefficient && text.exponent == fast.exponent;
    const gp::Decimal d(v);
    const bool same_decimal = gp::detail::DecimalAccess::inline_coefficient(d) == text.coefficient &&
                              gp::detail::DecimalAccess::exponent(d) == text.exponent;
    ++compared;
    if ((!same || !same_decimal) && ++mismatches <= 5) {
      char buf[40];
      const auto res = std::to_chars(buf, buf + sizeof buf, v);
      FAIL_CHECK("shortest_decimal(" << std::string(buf, res.ptr) << ") gave " << fast.coefficient << "e"
                                     << fast.exponent << " and Decimal " << d.to_string() << ", not "
                                     << text.coefficient << "e" << text.exponent);
    }
  }
  CHECK(mismatches == 0);
  CHECK(compared > n / 2);
}

TEST_CASE("a double with few decimals is read the same whatever hint the column carries") {
  for (const double v : {0.1, 0.0412, 10.4, 123456.78, -0.0455, 1e-7, 0.3, 2.675, 1.0000000001, 9007199254740.5}) {
    const auto text = gp::detail::shortest_decimal_by_text(v);
    for (int hint = 0; hint <= 30; ++hint) {
      int h = hint;
      const auto parts = gp::detail::shortest_decimal(v, h);
      CHECK(parts.coefficient == text.coefficient);
      CHECK(parts.exponent == text.exponent);
    }
  }
}

TEST_CASE("a recorded floating cell reads back as the very same double") {
  std::mt19937_64 rng(7);
  json rows = json::array();
  std::vector<double> recorded;
  for (std::uint64_t i = 0; i < 20'000; ++i) {
    double v = draw(rng, i);
    if (!std::isfinite(v)) v = 1.5;
    recorded.push_back(v);
    rows.push_back({{"x", v}});
  }
  for (const double v : {-0.0, 0.0, std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::max(),
                         std::numeric_limits<double>::min(), 1e300, 0.1, 123.0}) {
    recorded.push_back(v);
    rows.push_back({{"x", v}});
  }
  gp::FactRegistry reg;
  const auto& t = reg.record_table("t", rows, {.tool = "t"});
  for (std::size_t r = 0; r < recorded.size(); ++r) {
    const json cell = t.value(r, "x");
    REQUIRE(cell.is_number_float());
    CHECK(std::bit_cast<std::uint64_t>(cell.get<double>()) == std::bit_cast<std::uint64_t>(recorded[r]));
    CHECK(*t.number(r, 0) == gp::Decimal(recorded[r]));
  }
}

TEST_CASE("integer cells keep their JSON type and value through the column store") {
  const json rows = json::parse(R"([{"k": "a", "n": -5, "u": 5, "big": 18446744073709551615, "f": 7.0},
                                    {"k": "b", "n": -9223372036854775808, "u": 9223372036854775807, "big": 1, "f": -0.0},
                                    {"k": "c", "arr": [1, 2], "obj": {"z": null}, "b": false, "s": "x"}])");
  gp::FactRegistry reg;
  const auto& t = reg.record_table("t", rows, {.key_column = "k", .tool = "t"});
  CHECK(t.value(0, "n").is_number_integer());
  CHECK(t.value(0, "u").is_number_unsigned());
  CHECK(t.value(0, "big").get<std::uint64_t>() == 18446744073709551615ull);
  CHECK(t.value(0, "f").is_number_float());
  CHECK(t.value(0, "f").dump() == "7.0");
  CHECK(t.value(1, "f").dump() == "-0.0");
  CHECK(t.value(1, "n").get<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  CHECK(t.value(1, "u").get<std::uint64_t>() == 9223372036854775807ull);
  CHECK(t.value(2, "arr") == json::array({1, 2}));
  CHECK(t.value(2, "obj") == json::parse(R"({"z": null})"));
  CHECK(t.value(2, "b") == false);
  CHECK(t.value(2, "n").is_null());
  // Every row reads back exactly as recorded (absent cells stay absent).
  const json view = gp::detail::fact_view(t);
  CHECK(view["rows"] == rows);
  CHECK(*t.number(0, *t.column_of("big")) == gp::Decimal::parse("18446744073709551615"));
  CHECK(t.kind(2, *t.column_of("arr")) == gp::CellKind::other);
  CHECK(t.kind(2, *t.column_of("b")) == gp::CellKind::boolean);
  CHECK(t.kind(0, *t.column_of("s")) == gp::CellKind::null);
  CHECK(t.text(2, *t.column_of("s")) == std::optional<std::string_view>("x"));
  CHECK_FALSE(t.text(0, *t.column_of("n")).has_value());
}

TEST_CASE("a string key is found by row_of_text and a number key only by value") {
  gp::FactRegistry reg;
  const auto& t = reg.record_table("t", json::parse(R"([{"k": "7"}, {"k": 7.5}, {"k": 8}, {"k": true}])"),
                                   {.key_column = "k", .tool = "t"});
  CHECK(t.row_of_text("7") == std::optional<std::size_t>(0));
  CHECK_FALSE(t.row_of_text("8").has_value());
  // The integer key 8 is named by 8 alone: 8.0 is a number written another way, not the id.
  CHECK(t.row_of(json(8)) == std::optional<std::size_t>(2));
  CHECK_FALSE(t.row_of(json(8.0)).has_value());
  CHECK(t.row_of(json(7.50)) == std::optional<std::size_t>(1));
  CHECK_FALSE(t.row_of(json(7)).has_value());
  CHECK(t.row_of(json(true)) == std::optional<std::size_t>(3));
}

namespace {

// What aggregate_reconciles reports as supported, computed here with plain Decimals.
std::string expected_supported(gp::Aggregate op, std::vector<gp::Decimal> v, std::size_t rows_with_value) {
  using gp::detail::Rational;
  const auto show = [](const Rational& r) {
    if (const auto d = r.exact()) return gp::detail::render(*d);
    return r.to_string();
  };
  gp::Decimal sum;
  for (const auto& x : v) sum += x;
  switch (op) {
    case gp::Aggregate::count:
      return gp::detail::render(gp::Decimal(rows_with_value));
    case gp::Aggregate::sum:
      return show(Rational(sum));
    case gp::Aggregate::mean:
      return v.empty() ? "" : show(Rational(sum, gp::Decimal(v.size())));
    case gp::Aggregate::min:
      return v.empty() ? "" : show(Rational(*std::min_element(v.begin(), v.end())));
    case gp::Aggregate::max:
      return v.empty() ? "" : show(Rational(*std::max_element(v.begin(), v.end())));
    case gp::Aggregate::median: {
      if (v.empty()) return "";
      std::sort(v.begin(), v.end());
      const std::size_t mid = v.size() / 2;
      if (v.size() % 2 == 1) return show(Rational(v[mid]));
      return show(Rational(v[mid - 1] + v[mid], gp::Decimal(2)));
    }
  }
  return "";
}

}  // namespace

TEST_CASE("aggregates over the packed columns equal plain exact arithmetic with and without where") {
  std::mt19937_64 rng(99);
  const gp::Aggregate ops[] = {gp::Aggregate::sum, gp::Aggregate::mean, gp::Aggregate::count,
                               gp::Aggregate::min, gp::Aggregate::max,  gp::Aggregate::median};
  // Column shapes: few decimals, mixed decimals and integers, magnitudes near 2^62
  // (partial sums flushed often), and one that cannot share a scale (read value by
  // value).
  for (int shape = 0; shape < 4; ++shape) {
    for (int round = 0; round < 6; ++round) {
      json rows = json::array();
      const std::size_t n = 1 + rng() % 300;
      for (std::size_t r = 0; r < n; ++r) {
        json row = {{"region", std::string(1, static_cast<char>('a' + rng() % 3))}, {"flag", rng() % 2 == 0}};
        if (rng() % 10 != 0) {
          const auto k = static_cast<std::int64_t>(rng() % 2'000'001) - 1'000'000;
          switch (shape) {
            case 0:
              row["x"] = static_cast<double>(k) / 100.0;
              break;
            case 1:
              row["x"] = rng() % 2 ? json(k) : json(static_cast<double>(k) / std::pow(10.0, rng() % 7));
              break;
            case 2:
              row["x"] = (std::int64_t{1} << 62) - static_cast<std::int64_t>(rng() % 1000);
              break;
            default:
              row["x"] = rng() % 5 == 0 ? json(1e300) : json(static_cast<double>(k) / 1000.0);
              break;
          }
        } else if (rng() % 2) {
          row["x"] = nullptr;
        }
        rows.push_back(row);
      }
      gp::FactRegistry reg;
      const auto& t = reg.record_table("t", rows, {.tool = "t"});
      const std::size_t x = *t.column_of("x");
      const json wheres[] = {json::object(),     {{"region", "a"}}, {{"region", "b"}, {"flag", true}},
                             {{"region", "zz"}}, {{"x", nullptr}},  {{"x", rows[0].value("x", json(0.5))}}};
      for (const json& where : wheres) {
        if (where.contains("x") && !where["x"].is_number() && !where["x"].is_null()) continue;
        std::vector<gp::Decimal> values;
        std::size_t with_value = 0;
        for (std::size_t r = 0; r < n; ++r) {
          bool match = true;
          for (auto it = where.begin(); it != where.end(); ++it) {
            const json cell = t.value(r, it.key());
            match = match && (it.value().is_number() ? cell.is_number() && *gp::Decimal::from_json(cell) ==
                                                                               *gp::Decimal::from_json(it.value())
                                                     : cell == it.value());
          }
          if (!match || t.is_null(r, x)) continue;
          ++with_value;
          values.push_back(*t.number(r, x));
        }
        for (const auto op : ops) {
          const gp::aggregate_reconciles check{
              .fact = "t", .field = "v", .op = op, .column = "x", .where = where, .on_missing = gp::OnMissing::skip};
          check.validate(reg);
          std::vector<gp::Finding> findings;
          check.verify(reg, {{"v", "not a number"}}, findings);
          REQUIRE(findings.size() == 1);
          INFO("shape " << shape << " op " << gp::to_string(op) << " where " << where.dump());
          CHECK(findings[0].supported == expected_supported(op, values, with_value));
        }
      }
    }
  }
}

TEST_CASE("where on a number matches 7 and 7.0 and an unsigned 7 alike but never the text 7") {
  gp::FactRegistry reg;
  reg.record_table("t", json::parse(R"([{"k": 7, "x": 1}, {"k": 7.0, "x": 2}, {"k": "7", "x": 4}, {"k": 7.25, "x": 8},
                                        {"k": -7, "x": 16}])"),
                   {.tool = "t"});
  std::vector<gp::Finding> findings;
  gp::aggregate_reconciles{.fact = "t", .field = "v", .op = gp::Aggregate::sum, .column = "x", .where = {{"k", 7}}}
      .verify(reg, {{"v", 3}}, findings);
  CHECK(findings.empty());
  gp::aggregate_reconciles{.fact = "t", .field = "v", .op = gp::Aggregate::sum, .column = "x", .where = {{"k", 7.25}}}
      .verify(reg, {{"v", 8}}, findings);
  CHECK(findings.empty());
  gp::aggregate_reconciles{.fact = "t", .field = "v", .op = gp::Aggregate::sum, .column = "x", .where = {{"k", 7.125}}}
      .verify(reg, {{"v", 0}}, findings);
  CHECK(findings.empty());
}

TEST_CASE("tie blocks and the entity holding a score are found by bisection as a scan would find them") {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 200; ++round) {
    gp::Scores scores;
    const std::size_t n = 1 + rng() % 40;
    for (std::size_t i = 0; i < n; ++i)
      scores.emplace_back("e" + std::to_string(i), gp::Decimal(static_cast<int>(rng() % 6)));
    const auto dir = rng() % 2 ? gp::Direction::higher_is_better : gp::Direction::lower_is_better;
    const gp::Ranking r("r", scores, "k", dir, {.tool = "t", .args = nlohmann::ordered_json::object()});
    for (std::size_t pos = 0; pos < n; ++pos) {
      std::size_t first = pos, last = pos;
      while (first > 0 && r.score_at(first - 1) == r.score_at(pos)) --first;
      while (last + 1 < n && r.score_at(last + 1) == r.score_at(pos)) ++last;
      CHECK(r.tie_block_at(pos) == std::make_pair(first, last - first + 1));
      for (int s = -1; s <= 6; ++s) {
        std::optional<std::size_t> scan;
        for (std::size_t other = 0; other < n && !scan; ++other)
          if (other != pos && r.score_at(other) == gp::Decimal(s)) scan = other;
        CHECK(r.other_with_score(gp::Decimal(s), pos) == scan);
      }
    }
  }
}

TEST_CASE("a key column of many distinct strings finds every row and still refuses a duplicate by its rows") {
  json rows = json::array();
  for (int i = 0; i < 20'000; ++i)
    rows.push_back({{"k", "key-" + std::to_string(i * 7919 % 20'000)}, {"v", i % 3 == 0 ? json("x") : json(i)}});
  gp::FactRegistry reg;
  const auto& t = reg.record_table("t", rows, {.key_column = "k", .tool = "t"});
  for (int i = 0; i < 20'000; ++i) {
    const auto r = t.row_of_text("key-" + std::to_string(i * 7919 % 20'000));
    REQUIRE(r.has_value());
    CHECK(*r == static_cast<std::size_t>(i));
    CHECK(t.text(*r, 0) == std::optional<std::string_view>(rows[static_cast<std::size_t>(i)]["k"].get<std::string>()));
  }
  CHECK_FALSE(t.row_of_text("key-20000").has_value());
  rows[15'000]["k"] = rows[6'000]["k"];
  CHECK_THROWS_WITH(reg.record_table("u", rows, {.key_column = "k", .tool = "t"}),
                    "cannot record fact 'u': key column 'k' holds '" + rows[6'000]["k"].get<std::string>() +
                        "' in rows 6000 and 15000");
}
