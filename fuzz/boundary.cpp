// Fuzz Boundary::try_submit on arbitrary model output over a fixed registry (fixture.hpp)
// with every check kind, configured twice: exact, and loose (stated precision, tolerance,
// ties accepted, JSON Pointer fields). The input is JSON text; input that is not JSON is
// used as a raw string in every field the checks read, so hostile bytes reach them all.
// Beyond "no crash":
//   * try_submit never throws for anything a model wrote;
//   * every finding's message and the correction are safe to show a model (no raw control
//     bytes, every line after the first is a continuation, no value over the cap);
//   * submit() throws UnsupportedClaim exactly when try_submit() is not ok, with the same
//     findings (checks are pure: a second run agrees with the first);
//   * a non-object output is one structured_output finding;
//   * the registry is unchanged.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fixture.hpp"
#include "fuzz_support.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/checks/aggregate_reconciles.hpp"
#include "groundplane/checks/comparison.hpp"
#include "groundplane/checks/entities_recorded.hpp"
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

// Every field either boundary reads, holding the raw input string.
json spray(const std::string& s) {
  const json arr = json::array({s, s});
  const json rows = json::array({{{"region", s}, {"amount", s}, {"units", s}}});
  json answer = {{"winner", s},  {"score", s}, {"top", arr}, {"max", s}, {"min", s},        {"regions", arr},
                 {"rows", rows}, {"a", s},     {"b", s},     {"by", s},  {"performed", arr}};
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
          {"answer", std::move(answer)}};
}

template <class B>
void run(B& boundary, const json& output) {
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
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const gp::FactRegistry& reg = fuzz::fixture_registry();
  static const std::vector<std::string> names_before = reg.names();
  static auto exact = exact_boundary(reg);
  static auto loose = loose_boundary(reg);

  const std::string_view text(reinterpret_cast<const char*>(data), size);
  json output = fuzz::parse_json(text);
  if (output.is_discarded()) output = spray(std::string(text));
  run(exact, output);
  run(loose, output);
  FUZZ_CHECK(reg.names() == names_before, "checking output never changes the registry", "");
  return 0;
}
