// gp::comparison — "A beat B by N", recomputed in code.
//
//   gp::comparison{.fact = "campaign_ctr"}        // reads "a", "b" and "by"
//   gp::comparison{.fact = "campaigns", .column = "ctr", .convention = gp::Convention::ratio}
//
// A and B are entities of a Ranking (their scores), or keys of a Table with a key
// column (the rows' `column` values). With a = A's value and b = B's, all exact:
//   percent_change      (a - b) / b * 100
//   percentage_points   (a - b) * 100
//   ratio               a / b
//   difference          a - b
//
// "Beat" follows the fact's direction: a Ranking's Direction (lower_is_better: the
// smaller value wins), a Table's larger value. When A did not beat B the finding says
// "reversed" (or "tied") and shows both values. The margin's sign is not part of the
// claim — "beat" already says who was ahead — so N is compared with the magnitude of
// the convention's value: "us beat eu by 33.3" on a lower-is-better latency, where
// (80 - 120) / 120 * 100 = -33.33…, is judged as 33.33….
//
// When N is wrong for the configured convention, the finding recomputes the other
// conventions, the ratio written as a percentage (A is 110% of B), and every one of
// those with the entities reversed (B vs A), and names the ones N does match — at the
// digits N was written with, or within the tolerance:
//
//   unsupported claim in field 'by': model said 0.43, registered facts support 10.436893…
//   | fact='campaign_ctr'
//   | provenance=warehouse.query(table='campaign_daily', window='7d')
//   | 'harbour' vs 'north' on 'ctr' as percent change is 10.436893… = (0.0455 - 0.0412) / 0.0412 * 100; 0.43 matches
//   percentage points, not percent change
//
// A percent change or ratio against a zero value has no value: that is a finding, never
// a division. value_field = "" checks only who beat whom.
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
#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/field.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/stated.hpp"
#include "groundplane/detail/wording.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane {

enum class Convention { percent_change, percentage_points, ratio, difference };

// "percent_change", "percentage_points", "ratio", "difference": the names check_from_json reads.
std::string_view to_string(Convention c) noexcept;

struct comparison {
  std::string fact;  // a Ranking, or a Table with `column` (and a key column)
  std::string column = "";
  std::string a_field = "a";
  std::string b_field = "b";
  std::string value_field = "by";  // "" = check only that A beat B
  Convention convention = Convention::percent_change;
  Tolerance tolerance{};
  Rounding rounding = Rounding::exact;

  static constexpr const char* check_name = "comparison";

  std::vector<std::string> leans_on() const { return {fact}; }

  void validate(const FactRegistry& registry) const;

  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

 private:
  // The four conventions, plus the ratio written as a percentage ("A is 110% of B"):
  // a reading a model plausibly gives, so the finding can name it.
  enum class Reading { percent_change, percentage_points, ratio, difference, ratio_percent };
  static constexpr Reading all_readings[] = {Reading::percent_change, Reading::percentage_points, Reading::ratio,
                                             Reading::difference, Reading::ratio_percent};

  static Reading reading(Convention c);

  static std::string_view label(Reading r);

  // x against y; nullopt where it has no value (a percent change or ratio against zero).
  static std::optional<detail::Rational> value_of(Reading r, const Decimal& x, const Decimal& y);

  static std::string formula(Reading r, const Decimal& x, const Decimal& y);

  static detail::Rational magnitude(const detail::Rational& r) { return detail::Rational(r.num().abs(), r.den()); }

  // The exact value when it terminates, else its first digits and "…".
  static std::string show(const detail::Rational& r);

  // One side of the comparison, resolved against the fact.
  struct Side {
    std::string shown;   // rendered name or key
    Decimal value;       // its score or cell
    std::size_t id = 0;  // position in the ranking, or row of the table

    bool same_as(const Side& o) const { return id == o.id; }
  };

  std::string on_what(const FactRegistry& registry) const;

  // A beat B: by the ranking's direction, or the larger value for a table.
  bool beat(const FactRegistry& registry, const Decimal& a, const Decimal& b) const;

  // "'harbour' vs 'north' on 'ctr' as percent change is 10.436893… = (0.0455 - 0.0412) / 0.0412 * 100"
  std::string computed(const FactRegistry& registry, Reading r, const Side& a, const Side& b) const;

  // "0.43 matches percentage points", "9.45 matches percent change with the entities
  // reversed ('north' vs 'harbour')"; "" when it matches no reading. `skip` is the
  // configured reading of A vs B, already judged.
  std::string matches(const Decimal& stated, const Side& a, const Side& b, std::optional<Reading> skip) const;

  // A pair that cannot carry the claim: one entity twice, a tie, or B ahead of A.
  Finding pair_finding(const FactRegistry& registry, const Finding& base, const Side& a, const Side& b,
                       const std::optional<Decimal>& stated) const;

  std::optional<Side> resolve(const FactRegistry& registry, const nlohmann::json& output, const std::string& field_name,
                              const Finding& base, std::vector<Finding>& findings) const;

  // The key column's values, as an enum (strings as a name schema).
  static nlohmann::json key_schema(const Table& table);
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/comparison-inl.hpp"
#endif
