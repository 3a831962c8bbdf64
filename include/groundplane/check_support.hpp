// What a check of your own needs, and nothing from groundplane::detail: the same
// functions the built-in checks use to find a field, quote and render values, read a
// stated number and build a finding, so a user-written check reports the way theirs do
// (escaped, capped, with the fact's provenance) and reads numbers the way theirs do.
//
//   #include <groundplane/check_support.hpp>
//
//   void verify(const gp::FactRegistry& reg, const nlohmann::json& output,
//               std::vector<gp::Finding>& findings) const {
//     const gp::Fact& budget = reg.get<gp::Fact>(fact);
//     const gp::Decimal limit = *gp::Decimal::from_json(budget.value());  // validate() checked
//     const nlohmann::json* said = gp::find_field(output, field);        // nullptr: absent
//     const auto total = said ? gp::stated_number(*said) : std::nullopt; // nullopt: no number
//     if (total && *total <= limit) return;
//     gp::Finding f = gp::finding_about("total_within_budget", field, budget);
//     f.said = said ? gp::render(*said) : "";                            // escaped, capped
//     f.supported = "at most " + gp::render(limit);
//     f.detail = !said    ? "no total was given"
//                : !total ? "expected a number, got " + std::string(gp::type_name(*said))
//                         : "the total is over the recorded budget " + gp::quote(fact);
//     findings.push_back(std::move(f));
//   }
//
// Each name below is the built-in checks' own function, brought into namespace
// groundplane by a using-declaration: one implementation, so what a custom check prints
// cannot drift from what the built-in ones print. Every string these functions put in a
// message has passed through the library's one escaping routine (detail/text/escape.hpp):
// quotes, backslashes, newlines, control bytes, invalid UTF-8 and invisible or
// reordering code points are escaped, and a value is cut at 80 characters with "…".
// A model's output may carry any of those; none of these functions throws for it.
#pragma once

#include "groundplane/check.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"

namespace groundplane {

// ---- Finding a field -------------------------------------------------------------------

// const J* find_field(const J& output, std::string_view field)
//   The value `field` names in `output` — a top-level key, or a JSON Pointer when it
//   starts with '/' ("/summary/winner", "/rows/0/ctr") — or nullptr when there is none
//   (an absent key, an index past the end or with a leading zero, a step into a string
//   or number, a malformed pointer). Never throws. J is nlohmann::json or
//   nlohmann::ordered_json.
using detail::find_field;

// void validate_field(std::string_view field, std::string_view check, std::string_view member)
//   For validate(): throws ConfigurationError naming the check and the member when a
//   configured field is empty or a malformed JSON Pointer, so a typo fails when the
//   Boundary is built rather than reading nothing on every submission.
using detail::validate_field;

// ---- Quoting and rendering -------------------------------------------------------------

// std::string quote(std::string_view text, std::size_t cap = 80)
//   A name or other text as every message shows it: single-quoted and escaped
//   ('harbour', 'it\'s', 'a\nb'), at most `cap` characters. For fact names, columns,
//   entity names — anything that came from data, a caller or a model.
using detail::quote;

// std::string render(const J& value, std::size_t cap = 80)
// std::string render(const Decimal& number, std::size_t cap = 80)
//   A value as Finding::said and Finding::supported hold it: strings quoted as by
//   quote(), numbers in Decimal form (0.0455, never 0.045499999…; a number the model
//   wrote as text keeps the decimals it was written with while Boundary::try_submit_json
//   runs the checks), objects and arrays as compact JSON with their strings escaped.
using detail::render;

// std::string_view type_name(const J& value)
//   What kind of JSON value the model gave — "a string", "a number", "an array",
//   "a non-finite number", … — for details such as "expected a number, got a string".
using detail::type_name;

// ---- Reading a stated number -----------------------------------------------------------

// std::optional<Decimal> stated_number(const nlohmann::json& value)   (detail/checks/stated.hpp)
//   The number the model stated, exactly: a JSON number as the Decimal it prints as, or
//   as written ("0.50" keeps two decimals, "12345678901234567890.25" every digit) when
//   the output came as text through Boundary::try_submit_json. nullopt for anything
//   else — a string, even one that looks like a number ("12.5%", "1,200", "12"), a
//   boolean, null, a non-finite double, a number out of range — so a check decides
//   what a non-number means (usually a finding) instead of guessing at prose.
//   Read numbers with this rather than Decimal::from_json, which sees only the double.
//   Declared in namespace groundplane by detail/checks/stated.hpp, included above.

// ---- Building a finding ----------------------------------------------------------------

// const T& fact_for<T>(const FactRegistry& registry, std::string_view fact, std::string_view check)
//   For validate() and verify(): the recorded fact of kind T (Fact, Ranking, Table,
//   Domain). Throws ConfigurationError naming the check when `fact` is empty, not
//   recorded (listing what is), or of another kind (saying which kind it needs).
using detail::fact_for;

// Finding finding_about(std::string_view check, std::string_view field, const F& fact)
//   A Finding with `check`, `field`, the fact's name and its Provenance::render()
//   filled in; the caller sets `said`, `supported` (both rendered: use render() or
//   quote()) and `detail`. Finding::message() escapes `field`, `fact` and `provenance`.
using detail::finding_about;

}  // namespace groundplane
