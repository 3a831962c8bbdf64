// Fuzz Boundary::try_submit on arbitrary model output over a fixed registry (fixture.hpp)
// with every check kind, configured three ways: exact; loose (stated precision, tolerance,
// ties accepted, JSON Pointer fields); and over a table's columns (rankings read from a
// column with holes skipped, integer ids, a weighted mean, a null filter, names compared
// without case, field_matches_fact), that last once more stopping at the first failure.
// The input is JSON text; input that is not JSON is used as a raw string in every field
// the checks read, so hostile bytes reach them all. Beyond "no crash":
//   * try_submit never throws for anything a model wrote;
//   * every finding's message and the correction are safe to show a model (no raw control
//     bytes, every line after the first is a continuation, no value over the cap);
//   * submit() throws UnsupportedClaim exactly when try_submit() is not ok, with the same
//     findings (checks are pure: a second run agrees with the first);
//   * a non-object output is one structured_output finding;
//   * for an object output every check is passed or failed, failed exactly when it has
//     findings (a non-object output runs none); stopping
//     at the first failure gives the same ok, the first failed check alone and the
//     findings the full run gives first;
//   * the registry is unchanged.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixture.hpp"
#include "fuzz_support.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/checks/aggregate_reconciles.hpp"
#include "groundplane/checks/comparison.hpp"
#include "groundplane/checks/entities_recorded.hpp"
#include "groundplane/checks/field_matches_fact.hpp"
#include "groundplane/checks/ranking_prefix.hpp"
#include "groundplane/checks/row_integrity.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/errors.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

auto exact_boundary(const gp::FactRegistry& reg) {
  return gp::Boundary(
      reg, fuzz::fixture_fact_names(), gp::superlative{.fact = "campaign_ctr"},
      gp::superlative{.fact = "latency_ms", .field = "fastest", .score_field = "fastest_ms"},
      gp::ranking_prefix{.fact = "campaign_ctr", .field = "top", .k = 3},
      gp::aggregate_reconciles{.fact = "orders", .field = "total", .op = gp::Aggregate::sum, .column = "amount"},
      gp::aggregate_reconciles{.fact = "orders",
                               .field = "paid_mean",
                               .op = gp::Aggregate::mean,
                               .column = "amount",
                               .where = {{"status", "paid"}}},
      gp::aggregate_reconciles{
          .fact = "orders", .field = "median_units", .op = gp::Aggregate::median, .column = "units"},
      gp::aggregate_reconciles{.fact = "orders", .field = "count", .op = gp::Aggregate::count},
      gp::aggregate_reconciles{
          .fact = "orders_partial", .field = "partial_total", .op = gp::Aggregate::sum, .column = "amount"},
      gp::entities_recorded{.facts = {"regions", "campaign_ctr", "orders"}, .fields = {"winner", "mentioned"}},
      gp::row_integrity{
          .fact = "orders", .key_field = "region", .fields = {{"amount", "amount"}, {"status", "status"}}},
      gp::comparison{.fact = "campaign_ctr"},
      gp::comparison{.fact = "orders",
                     .column = "amount",
                     .a_field = "ta",
                     .b_field = "tb",
                     .value_field = "tby",
                     .convention = gp::Convention::ratio},
      gp::actions_performed{.fact = "ledger"});
}

auto loose_boundary(const gp::FactRegistry& reg) {
  const gp::Tolerance tol{.absolute = gp::Decimal::parse("0.001"), .relative = gp::Decimal::parse("0.01")};
  return gp::Boundary(
      reg, fuzz::fixture_fact_names(),
      gp::superlative{.fact = "campaign_ctr",
                      .field = "/answer/winner",
                      .score_field = "/answer/score",
                      .pick = gp::Pick::worst,
                      .ties = gp::Ties::accept_any,
                      .tolerance = tol,
                      .rounding = gp::Rounding::as_stated},
      gp::ranking_prefix{
          .fact = "latency_ms", .field = "/answer/top", .tolerance = tol, .rounding = gp::Rounding::as_stated},
      gp::aggregate_reconciles{.fact = "orders",
                               .field = "/answer/max",
                               .op = gp::Aggregate::max,
                               .column = "amount",
                               .tolerance = tol,
                               .rounding = gp::Rounding::as_stated},
      gp::aggregate_reconciles{.fact = "orders",
                               .field = "/answer/min",
                               .op = gp::Aggregate::min,
                               .column = "amount",
                               .where = {{"status", fuzz::hostile_strings()[1]}}},
      gp::entities_recorded{.facts = {"latency_ms"}, .fields = {"/answer/regions", "/answer/top"}},
      gp::row_integrity{.fact = "orders",
                        .key_field = "region",
                        .fields = {{"amount", "amount"}, {"units", "units"}},
                        .at = "/answer/rows",
                        .tolerance = tol},
      gp::comparison{.fact = "latency_ms",
                     .a_field = "/answer/a",
                     .b_field = "/answer/b",
                     .value_field = "/answer/by",
                     .convention = gp::Convention::percentage_points,
                     .tolerance = tol,
                     .rounding = gp::Rounding::as_stated},
      gp::actions_performed{.fact = "ledger", .field = "/answer/performed"});
}

auto table_boundary(const gp::FactRegistry& reg, gp::BoundaryOptions options) {
  return gp::Boundary(reg, fuzz::fixture_fact_names(), options,
                      gp::superlative{.fact = "stores",
                                      .field = "best_store",
                                      .score_field = "best_sales",
                                      .column = "sales",
                                      .on_missing = gp::OnMissing::skip,
                                      .rank_field = "best_rank"},
                      gp::ranking_prefix{.fact = "stores",
                                         .field = "/answer/podium",
                                         .k = 2,
                                         .column = "sales",
                                         .direction = gp::Direction::lower_is_better,
                                         .on_missing = gp::OnMissing::skip,
                                         .ties = gp::Ties::accept_any,
                                         .ordered = false},
                      gp::comparison{.fact = "stores",
                                     .column = "sales",
                                     .a_field = "sa",
                                     .b_field = "sb",
                                     .value_field = "sby",
                                     .convention = gp::Convention::difference,
                                     .order = gp::ComparisonOrder::b_minus_a,
                                     .on_missing = gp::OnMissing::skip},
                      gp::aggregate_reconciles{.fact = "stores",
                                               .field = "weighted_mean",
                                               .op = gp::Aggregate::mean,
                                               .column = "sales",
                                               .weight_column = "units",
                                               .on_missing = gp::OnMissing::skip},
                      gp::aggregate_reconciles{.fact = "stores",
                                               .field = "unplaced_units",
                                               .op = gp::Aggregate::sum,
                                               .column = "units",
                                               .where = {{"region", nullptr}}},
                      gp::entities_recorded{.facts = {"stores", "regions"},
                                            .fields = {"stores_named", "/answer/podium"},
                                            .allow_empty = true,
                                            .case_sensitive = false},
                      gp::field_matches_fact{.fact = "config", .field = "/answer/mode", .path = "/mode"},
                      gp::field_matches_fact{.fact = "config", .field = "config"});
}

// Every field any boundary reads, holding the raw input string.
json spray(const std::string& s) {
  const json arr = json::array({s, s});
  const json rows = json::array({{{"region", s}, {"amount", s}, {"units", s}}});
  json answer = {{"winner", s},      {"score", s},    {"top", arr}, {"max", s}, {"min", s},
                 {"regions", arr},   {"rows", rows},  {"a", s},     {"b", s},   {"by", s},
                 {"performed", arr}, {"podium", arr}, {"mode", s}};
  return {{"winner", s},
          {"fastest", s},
          {"fastest_ms", s},
          {"top", arr},
          {"total", s},
          {"paid_mean", s},
          {"count", s},
          {"median_units", s},
          {"partial_total", s},
          {"mentioned", arr},
          {"region", s},
          {"amount", s},
          {"status", s},
          {"a", s},
          {"b", s},
          {"by", s},
          {"ta", s},
          {"tb", s},
          {"tby", s},
          {"performed", arr},
          {"best_store", s},
          {"best_sales", s},
          {"best_rank", s},
          {"sa", s},
          {"sb", s},
          {"sby", s},
          {"weighted_mean", s},
          {"unplaced_units", s},
          {"stores_named", arr},
          {"config", s},
          {"answer", std::move(answer)}};
}

template <class B>
gp::Verdict run(B& boundary, const json& output) {
  gp::Verdict verdict;
  try {
    verdict = boundary.try_submit(output);
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "try_submit threw for a model's output", e.what());
  }
  fuzz::check_verdict(verdict);
  if (!output.is_object()) {
    FUZZ_CHECK(verdict.findings().size() == 1 && verdict.findings()[0].check == "structured_output",
               "a non-object output is exactly one structured_output finding",
               output.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  bool threw = false;
  try {
    boundary.submit(output);
  } catch (const gp::UnsupportedClaim& e) {
    threw = true;
    // The same findings again: checks are pure, so a second run agrees with the first.
    FUZZ_CHECK(e.findings() == verdict.findings(), "submit() throws the findings try_submit() reports", e.what());
    fuzz::check_text(e.what(), true, "UnsupportedClaim::what()");
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "submit threw something other than UnsupportedClaim", e.what());
  }
  FUZZ_CHECK(threw == !verdict.ok(), "submit() throws exactly when try_submit() is not ok", verdict.correction());
  // A non-object output runs no check: its one finding is the output's, no check's.
  FUZZ_CHECK(verdict.failed().empty() == (verdict.findings().empty() || !output.is_object()),
             "a check failed exactly when an object output has findings", verdict.correction());
  return verdict;
}

// Stopping at the first failure changes how much is said, never the answer.
void check_stopped_early(const gp::Verdict& full, const gp::Verdict& first, std::size_t checks, bool ran) {
  FUZZ_CHECK(full.passed().size() + full.failed().size() == (ran ? checks : 0),
             "every check is passed or failed when the output is an object, none otherwise", full.correction());
  FUZZ_CHECK(first.ok() == full.ok(), "stop_at_first accepts exactly what the full run accepts", full.correction());
  if (full.ok() || !ran) {
    FUZZ_CHECK(first.passed() == full.passed(), "an accepted output passes the same checks either way", "");
    return;
  }
  FUZZ_CHECK(first.failed() == std::vector<std::string>{full.failed().front()},
             "stop_at_first fails the first check the full run fails, and only it", first.correction());
  const auto& a = first.findings();
  const auto& b = full.findings();
  FUZZ_CHECK(a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin()),
             "stop_at_first's findings are the ones the full run gives first", first.correction());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const gp::FactRegistry& reg = fuzz::fixture_registry();
  static const std::vector<std::string> names_before = reg.names();
  static auto exact = exact_boundary(reg);
  static auto loose = loose_boundary(reg);
  static auto tables = table_boundary(reg, {});
  static auto tables_first = table_boundary(reg, {.stop_at_first = true});

  const std::string_view text(reinterpret_cast<const char*>(data), size);
  json output = fuzz::parse_json(text);
  if (output.is_discarded()) output = spray(std::string(text));
  run(exact, output);
  run(loose, output);
  check_stopped_early(run(tables, output), run(tables_first, output), 8, output.is_object());
  FUZZ_CHECK(reg.names() == names_before, "checking output never changes the registry", "");
  return 0;
}
