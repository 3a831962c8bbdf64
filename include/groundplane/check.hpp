// The `Check` concept: what a check is, and the helpers every check shares.
//
// A check is a copyable value type with three members (and two optional):
//
//   std::vector<std::string> leans_on() const;
//       The fact names it reads. A Boundary refuses (ConfigurationError) a check that
//       leans on a fact the boundary did not name.
//   void validate(const gp::FactRegistry&) const;
//       Configuration checked once, when the Boundary is built: facts of the right kind,
//       columns that exist, well-formed field names. Throws gp::ConfigurationError —
//       a developer's bug, never a re-ask.
//   void verify(const gp::FactRegistry&, const nlohmann::json& output,
//               std::vector<gp::Finding>& findings) const;
//       Appends one Finding per unsupported claim in `output` (always a JSON object).
//       Must not throw for anything the model wrote: a missing field, a wrong type or
//       a non-finite number is a finding.
//   void describe(const gp::FactRegistry&, gp::SchemaBuilder&) const;   // optional
//       The output fields it reads, for Boundary::schema().
//   std::vector<std::string> reads() const;                              // optional
//       The output fields it reads (names or JSON Pointers), so a prose slot over one
//       counts as checked and a stream can run it as soon as they have closed. A check
//       that states none leaves every slot unchecked and runs only at a stream's end.
//
// Checks compose at compile time (gp::Boundary<Cs...> holds them by value, no virtual
// dispatch) or at run time (gp::AnyCheck, gp::CheckList). A check of your own finds
// fields, reads stated numbers, renders values and builds findings with
// <groundplane/check_support.hpp>, as the built-in ones do; it needs nothing in detail.
#pragma once

#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/errors.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/schema.hpp"

namespace groundplane {

template <class C>
concept Check = std::copy_constructible<C> &&
    requires(const C& c, const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) {
  { c.leans_on() } -> std::convertible_to<std::vector<std::string>>;
  c.validate(registry);
  c.verify(registry, output, findings);
};

template <class C>
concept DescribesSchema = Check<C> && requires(const C& c, const FactRegistry& registry, SchemaBuilder& schema) {
  c.describe(registry, schema);
};

// Optional: `std::string name() const` — the check's kind and the members that identify
// it (superlative(fact='campaign_ctr', field='winner')), as Verdict::passed() and
// failed() list it. Without one a check is named by its `check_name`.
template <class C>
concept NamesItself = requires(const C& c) {
  { c.name() } -> std::convertible_to<std::string>;
};

// Optional: `std::vector<std::string> warnings(const gp::FactRegistry&) const` — what
// the check computes around rather than from (rows skipped under OnMissing::skip),
// carried on the verdict whenever the check runs.
template <class C>
concept StatesWarnings = requires(const C& c, const FactRegistry& registry) {
  { c.warnings(registry) } -> std::convertible_to<std::vector<std::string>>;
};

// Optional: `std::vector<std::string> reads() const` — see above. (It may also return
// std::optional<std::vector<std::string>>, nullopt for "states none", as gp::AnyCheck
// does for the check it holds.)
template <class C>
concept StatesReads = requires(const C& c) {
  { c.reads() } -> std::convertible_to<std::optional<std::vector<std::string>>>;
};

namespace detail {

// The fields a check states it reads; nullopt when it states none.
template <class C>
std::optional<std::vector<std::string>> reads_of(const C& check) {
  if constexpr (StatesReads<C>) return check.reads();
  else return std::nullopt;
}

template <class C>
concept has_check_name = requires {
  { C::check_name } -> std::convertible_to<std::string_view>;
};

// How Verdict::passed() and failed() name a check.
template <class C>
std::string check_name_of(const C& check) {
  if constexpr (NamesItself<C>) return check.name();
  else if constexpr (has_check_name<C>) return std::string(C::check_name);
  else return "custom check";
}

// The fact a check is configured with, of the kind it needs; ConfigurationError naming
// the check otherwise.
// How a message names a kind of fact: what it is, and what recording one takes.
inline std::string_view kind_as_found(FactKind kind) noexcept {
  switch (kind) {
    case FactKind::fact:
      return "a single value (a Fact)";
    case FactKind::ranking:
      return "a Ranking";
    case FactKind::table:
      return "a Table";
    case FactKind::domain:
      return "a Domain";
  }
  return "a fact";
}
inline std::string_view kind_as_needed(FactKind kind) noexcept {
  switch (kind) {
    case FactKind::fact:
      return "a single value (a Fact, from record_fact)";
    case FactKind::ranking:
      return "a Ranking (entity -> score, from record_ranking)";
    case FactKind::table:
      return "a Table (rows of named columns, from record_table)";
    case FactKind::domain:
      return "a Domain (a set of names, from record_domain)";
  }
  return "a fact";
}

template <class T>
const T& fact_for(const FactRegistry& registry, std::string_view fact, std::string_view check) {
  if (fact.empty()) throw ConfigurationError(std::string(check) + ": no fact named; set .fact");
  if (!registry.contains(fact)) throw UnregisteredFact(std::string(fact), registry.names(), std::string(check) + ": ");
  const FactKind kind = registry.kind_of(fact);
  if (kind != fact_kind_of<T>)
    throw ConfigurationError(std::string(check) + ": fact " + quote(fact) + " is " + std::string(kind_as_found(kind)) +
                             "; this check needs " + std::string(kind_as_needed(fact_kind_of<T>)));
  return registry.get<T>(fact);
}

// A finding already carrying the check, field and the fact's name and provenance.
template <class FactT>
Finding finding_about(std::string_view check, std::string_view field, const FactT& fact) {
  Finding f;
  f.check = std::string(check);
  f.field = std::string(field);
  f.fact = fact.name();
  f.provenance = fact.provenance().render();
  return f;
}

}  // namespace detail
}  // namespace groundplane
