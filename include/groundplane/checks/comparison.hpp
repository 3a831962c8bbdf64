// gp::comparison — "A beat B by N", recomputed in code.
//
//   gp::comparison{.fact = "campaign_ctr"}        // reads "a", "b" and "by"
//   gp::comparison{.fact = "campaigns", .column = "ctr", .convention = gp::Convention::ratio}
//
// A and B are entities of a Ranking (their scores), or of a Table read by `column` (its
// key column names the rows; direction and on_missing as for superlative). With x and y
// the two values in `order` — A and B for ComparisonOrder::a_minus_b (the default), B
// and A for b_minus_a — all exact:
//   percent_change      (x - y) / y * 100
//   percentage_points   (x - y) * 100
//   ratio               x / y
//   difference          x - y
//
// The sign is part of the claim: N is the signed value in `order`, whatever the fact's
// direction — "us beat eu by 32 ms" on a lower-is-better latency (88 vs 120) is 32 only
// as B − A, so that check is configured with order = b_minus_a; -32 there, or 32 under
// a_minus_b, is a finding whatever its magnitude. "Beat" follows the direction: when A
// did not beat B the finding says "reversed" (or "tied") and shows both values.
//
// When N is wrong, the detail says by how much ("off by +0.0001") and recomputes the
// other conventions, the ratio written as a percentage (A is 110% of B), each in both
// orders, naming the ones N does match — at the digits N was written with, or within
// the tolerance:
//
//   unsupported claim in field 'by': model said 0.43, registered facts support 10.436893…
//   | fact='campaign_ctr'
//   | provenance=warehouse.query(table='campaign_daily', window='7d')
//   | 'harbour' vs 'north' on 'ctr' as percent change is 10.436893… = (0.0455 - 0.0412) / 0.0412 * 100; off by
//   -10.006893…; 0.43 matches percentage points, not percent change
//
// A percent change or ratio against a zero value has no value: that is a finding, never
// a division, whatever the claim. value_field = "" checks only who beat whom.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/checks/ranked.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/enum_names.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/wording.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane {

enum class Convention { percent_change, percentage_points, ratio, difference };
// Which value is x in the convention's formula: A's (A − B, A / B) or B's (B − A, B / A).
enum class ComparisonOrder { a_minus_b, b_minus_a };

namespace detail {
inline constexpr EnumName<Convention> convention_names[] = {{Convention::percent_change, "percent_change"},
                                                            {Convention::percentage_points, "percentage_points"},
                                                            {Convention::ratio, "ratio"},
                                                            {Convention::difference, "difference"}};
template <>
inline constexpr std::span<const EnumName<Convention>> enum_table<Convention> = convention_names;
inline constexpr EnumName<ComparisonOrder> comparison_order_names[] = {{ComparisonOrder::a_minus_b, "a_minus_b"},
                                                                       {ComparisonOrder::b_minus_a, "b_minus_a"}};
template <>
inline constexpr std::span<const EnumName<ComparisonOrder>> enum_table<ComparisonOrder> = comparison_order_names;
}  // namespace detail
inline std::string_view to_string(Convention c) noexcept { return detail::name_of(c); }
inline std::string_view to_string(ComparisonOrder o) noexcept { return detail::name_of(o); }

struct comparison {
  std::string fact;  // a Ranking, or a Table with `column` (and a key column)
  std::string column = "";
  std::string a_field = "a";
  std::string b_field = "b";
  std::string value_field = "by";  // "" = check only that A beat B
  Convention convention = Convention::percent_change;
  Tolerance tolerance{};
  Rounding rounding = Rounding::exact;
  ComparisonOrder order = ComparisonOrder::a_minus_b;  // the stated number is signed, in this order
  std::optional<Direction> direction = std::nullopt;   // as superlative's
  OnMissing on_missing = OnMissing::refuse;            // as superlative's

  static constexpr const char* check_name = "comparison";

  std::vector<std::string> leans_on() const { return {fact}; }

  // The output fields it reads (Boundary::stream runs it once they have closed; prose
  // slots over them count as checked).
  std::vector<std::string> reads() const {
    if (value_field.empty()) return {a_field, b_field};
    return {a_field, b_field, value_field};
  }

  // comparison(fact='campaign_ctr', a_field='a', b_field='b', value_field='by')
  std::string name() const;

  // The rows of a Table fact skipped under OnMissing::skip.
  std::vector<std::string> warnings(const FactRegistry& registry) const;

  void validate(const FactRegistry& registry) const;

  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

 private:
  detail::RankingSource source(const FactRegistry& registry) const {
    return detail::ranking_source(registry, fact, column, direction, on_missing, check_name);
  }
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/comparison-inl.hpp"
#endif
