// Fuzz Boundary::try_submit_json on arbitrary bytes over the fixed registry
// (fixture.hpp), with checks reading top-level fields and JSON Pointers, exact and under
// stated precision. Beyond "no crash":
//   * try_submit_json never throws, for any bytes;
//   * never a finding without a message: every finding passes the message checks every
//     model-facing text must (no raw control bytes, capped values, continuation lines),
//     and the correction is bounded;
//   * submit_json() throws UnsupportedClaim exactly when try_submit_json() is not ok,
//     with the same findings;
//   * when the text is one JSON value with no repeated key, no number out of range and
//     no lexeme the double loses, its verdict equals that of its re-serialization, read
//     as text (submit_json(dump)) and as a json (submit(value)).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixture.hpp"
#include "fuzz_support.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/checks/aggregate_reconciles.hpp"
#include "groundplane/checks/comparison.hpp"
#include "groundplane/checks/entities_recorded.hpp"
#include "groundplane/checks/ranking_prefix.hpp"
#include "groundplane/checks/row_integrity.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/json_text.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

auto make_boundary(const gp::FactRegistry& reg) {
  return gp::Boundary(
      reg, fuzz::fixture_fact_names(), gp::superlative{.fact = "campaign_ctr", .rounding = gp::Rounding::as_stated},
      gp::superlative{.fact = "latency_ms", .field = "/answer/fastest", .score_field = "/answer/ms"},
      gp::ranking_prefix{.fact = "campaign_ctr", .field = "top", .k = 3, .rounding = gp::Rounding::as_stated},
      gp::aggregate_reconciles{.fact = "orders",
                               .field = "total",
                               .op = gp::Aggregate::sum,
                               .column = "amount",
                               .rounding = gp::Rounding::as_stated},
      gp::aggregate_reconciles{
          .fact = "orders", .field = "/answer/median", .op = gp::Aggregate::median, .column = "units"},
      gp::entities_recorded{.facts = {"regions", "campaign_ctr"}, .fields = {"winner", "mentioned"}},
      gp::row_integrity{.fact = "orders",
                        .key_field = "region",
                        .fields = {{"amount", "amount"}, {"status", "status"}},
                        .at = "/rows"},
      gp::comparison{.fact = "campaign_ctr", .rounding = gp::Rounding::as_stated});
}

std::vector<gp::Finding> findings_of(const gp::Verdict& v) { return v.findings(); }

// Whether the text as read says exactly what its re-serialization says.
bool lossless(const gp::JsonText& doc) {
  if (!doc.ok() || doc.duplicate_key_count() > 0 || doc.out_of_range_count() > 0) return false;
  bool same = true;
  const std::function<void(const json&)> walk = [&](const json& node) {
    if (!same) return;
    if (const auto* t = doc.number_text(node)) {
      const double x = node.get<double>();
      if (!std::isfinite(x)) {
        same = false;
        return;
      }
      try {
        const gp::Decimal written = gp::Decimal::parse(t->text);
        const gp::Decimal held(x);
        // A finding shows a number as the model wrote it ("0e2") on the text path and as
        // the double prints ("0.0") from a value: the same claim only when the two agree.
        same = written == held && written.decimals() == held.decimals() && t->text == node.dump();
      } catch (const gp::InvalidNumber&) {
        same = false;
      }
    }
    if (node.is_structured())
      for (const auto& child : node) walk(child);
  };
  walk(doc.value());
  return same;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const gp::FactRegistry& reg = fuzz::fixture_registry();
  static auto boundary = make_boundary(reg);
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  gp::Verdict verdict;
  try {
    verdict = boundary.try_submit_json(text);
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "try_submit_json threw for a model's text", e.what());
  }
  fuzz::check_verdict(verdict);
  for (const auto& f : verdict.findings())
    FUZZ_CHECK(!f.detail.empty() || !f.said.empty(), "a finding says something beyond its check name", f.message());

  bool threw = false;
  try {
    boundary.submit_json(text);
  } catch (const gp::UnsupportedClaim& e) {
    threw = true;
    FUZZ_CHECK(e.findings() == verdict.findings(), "submit_json() throws the findings try_submit_json() reports",
               e.what());
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "submit_json threw something other than UnsupportedClaim", e.what());
  }
  FUZZ_CHECK(threw == !verdict.ok(), "submit_json() throws exactly when try_submit_json() is not ok",
             verdict.correction());

  const gp::JsonText doc = gp::JsonText::read(text);
  FUZZ_CHECK(doc.ok() || doc.error()->offset <= size, "an error's byte offset lies within the text",
             doc.error()->reason);
  if (lossless(doc)) {
    const std::string again = doc.value().dump();
    // nlohmann writes an integral double as "200.0": a decimal more than the "2e2" the
    // model wrote, so a different claim. Only a re-serialization that keeps every
    // number's digits must keep the verdict.
    if (lossless(gp::JsonText::read(again))) {
      const gp::Verdict reread = boundary.try_submit_json(again);
      FUZZ_CHECK(findings_of(reread) == findings_of(verdict),
                 "a lossless text's verdict equals that of its re-serialization", fuzz::visible(again));
    }
    const gp::Verdict parsed = boundary.try_submit(doc.value());
    FUZZ_CHECK(findings_of(parsed) == findings_of(verdict), "a lossless text's verdict equals submit(value)'s",
               fuzz::visible(again));
  }
  return 0;
}
