// What the checks derive from a recorded table's column — its kinds of cells and holes,
// its exact sum, extremes and median, its values as row keys, a ranking read from it — is
// a property of the fact, computed once per table and column on first use and kept: a
// boundary built over the column afterwards, and the claim it checks, cost what the
// claim asks, not a pass over the rows.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "catch2_compat.hpp"

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

// n rows {id, region, spend, units, ref}: spend has two decimals, a few rows without it;
// ref is a second column of unique keys.
json order_rows(std::size_t n) {
  const char* regions[] = {"north", "south", "east", "west"};
  std::mt19937_64 rng(5);
  json rows = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    json row = {{"id", static_cast<std::int64_t>(i)},
                {"region", regions[rng() % 4]},
                {"units", static_cast<std::int64_t>(1 + rng() % 9)},
                {"ref", "r-" + std::to_string(i)}};
    if (i % 1000 != 7) row["spend"] = static_cast<double>(rng() % 1'000'000) / 100.0;
    rows.push_back(std::move(row));
  }
  return rows;
}

// One boundary and one claim: the work whose cost must not grow with the rows.
using Claim = std::function<bool(const gp::FactRegistry&)>;

template <class C>
Claim claim(C check, json output) {
  return [check = std::move(check), output = std::move(output)](const gp::FactRegistry& reg) {
    gp::Boundary b(reg, {check.fact}, check);
    return b.try_submit(output).findings().size() <= 1;  // right or wrong, the cost is the point
  };
}

std::vector<std::pair<std::string, Claim>> claims() {
  using A = gp::aggregate_reconciles;
  const auto on = [](gp::Aggregate op) {
    return A{.fact = "orders", .field = "v", .op = op, .column = "spend", .on_missing = gp::OnMissing::skip};
  };
  std::vector<std::pair<std::string, Claim>> out;
  out.emplace_back("sum", claim(on(gp::Aggregate::sum), {{"v", 1}}));
  out.emplace_back("mean", claim(on(gp::Aggregate::mean), {{"v", 1}}));
  out.emplace_back("median", claim(on(gp::Aggregate::median), {{"v", 1}}));
  out.emplace_back("min", claim(on(gp::Aggregate::min), {{"v", 1}}));
  out.emplace_back("max", claim(on(gp::Aggregate::max), {{"v", 1}}));
  out.emplace_back("count of a column", claim(on(gp::Aggregate::count), {{"v", 1}}));
  out.emplace_back("sum, holes refused",
                   claim(A{.fact = "orders", .field = "v", .op = gp::Aggregate::sum, .column = "spend"}, {{"v", 1}}));
  out.emplace_back(
      "row_integrity by another key column",
      claim(
          gp::row_integrity{.fact = "orders", .key_field = "ref", .fields = {{"units", "units"}}, .key_column = "ref"},
          {{"ref", "r-5"}, {"units", order_rows(6)[5]["units"]}}));  // row 5 is the same in every table
  out.emplace_back(
      "superlative over a column",
      claim(gp::superlative{.fact = "orders", .column = "spend", .on_missing = gp::OnMissing::skip}, {{"winner", 0}}));
  return out;
}

gp::FactRegistry& orders_of(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<gp::FactRegistry>> regs;
  auto& slot = regs[n];
  if (!slot) {
    slot = std::make_unique<gp::FactRegistry>();
    slot->record_table("orders", order_rows(n), {.key_column = "id", .tool = "warehouse.query"});
  }
  return *slot;
}

}  // namespace

TEST_CASE("after the first, a boundary over a 200,000-row table's column and its claim cost what they do over 200 rows",
          "[timing]") {
  // Each claim timed over the small and the large table one after the other, so load on
  // the machine hits both alike; the medians compared. The first of each is left out: it
  // may pay the one pass over the column that every later boundary reuses.
  using clock = std::chrono::steady_clock;
  const auto& small = orders_of(200);
  const auto& large = orders_of(200'000);
  for (const auto& [what, run] : claims()) {
    INFO(what);
    REQUIRE(run(small));
    REQUIRE(run(large));
    std::vector<double> small_ns, large_ns;
    for (int i = 0; i < 15; ++i)
      for (const auto* reg : {&small, &large}) {
        const auto t0 = clock::now();
        REQUIRE(run(*reg));
        (reg == &small ? small_ns : large_ns)
            .push_back(std::chrono::duration<double, std::nano>(clock::now() - t0).count());
      }
    std::nth_element(small_ns.begin(), small_ns.begin() + 7, small_ns.end());
    std::nth_element(large_ns.begin(), large_ns.begin() + 7, large_ns.end());
    // A pass over 200,000 rows takes milliseconds; the boundary and the claim, microseconds.
    CHECK(large_ns[7] < 3 * small_ns[7] + 50'000);
  }
}

TEST_CASE("each column's summaries are derived once per table, however many boundaries and checks read them") {
  gp::FactRegistry reg;
  const gp::Table& t = reg.record_table("orders", order_rows(3000), {.key_column = "id", .tool = "warehouse.query"});
  using A = gp::aggregate_reconciles;
  const auto on = [](gp::Aggregate op) {
    return A{.fact = "orders", .field = "v", .op = op, .column = "spend", .on_missing = gp::OnMissing::skip};
  };
  CHECK(t.column_passes() == 0);  // recording derives nothing: a column no check reads costs nothing more
  const auto round = [&] {
    gp::Boundary b(
        reg, {"orders"}, on(gp::Aggregate::sum), on(gp::Aggregate::mean), on(gp::Aggregate::min),
        on(gp::Aggregate::max), on(gp::Aggregate::median),
        A{.fact = "orders",
          .field = "w",
          .op = gp::Aggregate::mean,
          .column = "spend",
          .weight_column = "units",
          .on_missing = gp::OnMissing::skip},
        gp::row_integrity{.fact = "orders", .key_field = "ref", .fields = {{"units", "units"}}, .key_column = "ref"});
    return b.try_submit({{"v", 1}, {"w", 1}, {"ref", "r-9"}, {"units", 0}});
  };
  const gp::Verdict first = round();
  // spend's numbers and its median, units' numbers (are the weights negative?), ref's keys.
  CHECK(t.column_passes() == 4);
  for (int i = 0; i < 20; ++i) CHECK(round().findings().size() == first.findings().size());
  CHECK(t.column_passes() == 4);
  CHECK(round().to_json() == first.to_json());

  // A copy of the table holds the same rows, and shares what was derived from them.
  const gp::Table copy = t;
  const std::size_t spend = *t.column_of("spend");
  CHECK(&copy.column_numbers(spend) == &t.column_numbers(spend));
  CHECK(copy.column_passes() == 4);
}

TEST_CASE(
    "an aggregate over every row, read from the column's summary, equals the same aggregate filtered row by row") {
  // A `where` on a column every row shares selects every row, but goes the per-claim way:
  // a pass over the rows it selects. Both must state the same number, for columns that
  // share a scale and columns that do not, negative numbers, integers past 2^63 - 1 and
  // holes.
  std::mt19937_64 rng(31);
  for (int shape = 0; shape < 5; ++shape) {
    json rows = json::array();
    const std::size_t n = 1 + rng() % 400;
    for (std::size_t r = 0; r < n; ++r) {
      json row = {{"all", 1}};
      const auto k = static_cast<std::int64_t>(rng() % 2'000'001) - 1'000'000;
      if (rng() % 8 == 0) row["x"] = nullptr;
      else if (shape == 0) row["x"] = static_cast<double>(k) / 100.0;
      else if (shape == 1) row["x"] = rng() % 3 == 0 ? json(1e300) : json(static_cast<double>(k) / 1000.0);
      else if (shape == 2) row["x"] = rng() % 3 == 0 ? json(18446744073709551615ull - rng() % 9) : json(k);
      else if (shape == 3) row["x"] = (std::int64_t{1} << 62) - static_cast<std::int64_t>(rng() % 1000);
      else row["x"] = k;  // integers only
      rows.push_back(std::move(row));
    }
    gp::FactRegistry reg;
    reg.record_table("t", rows, {.tool = "t"});
    for (const auto op : {gp::Aggregate::sum, gp::Aggregate::mean, gp::Aggregate::min, gp::Aggregate::max,
                          gp::Aggregate::median, gp::Aggregate::count}) {
      const auto supported = [&](json where) {
        const gp::aggregate_reconciles check{.fact = "t",
                                             .field = "v",
                                             .op = op,
                                             .column = "x",
                                             .where = std::move(where),
                                             .on_missing = gp::OnMissing::skip};
        gp::Boundary b(reg, {"t"}, check);
        const gp::Verdict v = b.try_submit({{"v", "not a number"}});
        REQUIRE(v.findings().size() == 1);
        return v.findings()[0].supported;
      };
      INFO("shape " << shape << " op " << gp::to_string(op));
      const std::string whole = supported(json::object());
      CHECK_FALSE(whole.empty());
      CHECK(whole == supported({{"all", 1}}));
    }
  }
}

TEST_CASE("what a column holds is still the data's fault at every construction: a string in it, a negative weight") {
  gp::FactRegistry reg;
  reg.record_table("t",
                   json::parse(R"([{"k": "a", "x": 1, "w": 2, "g": "in"}, {"k": "b", "x": "n/a", "w": -1, "g": "out"},
                                   {"k": "c", "x": 3, "w": 1, "g": "in"}])"),
                   {.key_column = "k", .tool = "t"});
  using A = gp::aggregate_reconciles;
  for (int i = 0; i < 3; ++i) {  // the summary is kept; the refusal is not forgotten with it
    CHECK_THROWS_WITH(gp::Boundary(reg, {"t"}, A{.fact = "t", .field = "v", .op = gp::Aggregate::sum, .column = "x"}),
                      Catch::Contains("column 'x' row 'b' holds 'n/a' (a string), not a number"));
    CHECK_THROWS_WITH(
        gp::Boundary(reg, {"t"},
                     A{.fact = "t",
                       .field = "v",
                       .op = gp::Aggregate::mean,
                       .column = "w",
                       .where = {{"g", "in"}},
                       .weight_column = "w"},
                     A{.fact = "t", .field = "u", .op = gp::Aggregate::mean, .column = "w", .weight_column = "w"}),
        Catch::Contains("row 'b' holds the negative weight -1"));
    // The row holding them is not among those a `where` selects: nothing is refused.
    gp::Boundary fine(reg, {"t"},
                      A{.fact = "t", .field = "v", .op = gp::Aggregate::sum, .column = "x", .where = {{"g", "in"}}},
                      A{.fact = "t",
                        .field = "m",
                        .op = gp::Aggregate::mean,
                        .column = "x",
                        .where = {{"g", "in"}},
                        .weight_column = "w"});
    CHECK(fine.try_submit({{"v", 4}, {"m", 1.6666666666666667}}).findings().size() == 1);  // 5/3 is not that double
    CHECK(fine.try_submit({{"v", 4}, {"m", 1}}).findings().size() == 1);
  }
}
