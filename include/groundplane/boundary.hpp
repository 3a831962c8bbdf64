// gp::Boundary — the RAII scope around one block of model output.
//
//   gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
//   b.submit(model_output);   // throws gp::UnsupportedClaim listing every finding
//
// It names the facts the model may lean on (facts()), runs every check on submit(), and
// refuses to be left unsubmitted: a check that silently never ran is worse than none.
#pragma once

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/detail/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/verdict.hpp"

namespace groundplane {

namespace detail {
template <class J>
concept is_other_json = nlohmann::detail::is_basic_json<J>::value && !std::is_same_v<J, nlohmann::json>;
}  // namespace detail

template <Check... Cs>
class Boundary {
  static_assert(sizeof...(Cs) > 0,
                "gp::Boundary needs at least one check: a boundary that checks nothing accepts anything");

 public:
  // Validates the configuration now (ConfigurationError): every named fact is recorded,
  // every check leans only on named facts, and each check's own validate() passes.
  Boundary(const FactRegistry& registry, std::vector<std::string> facts, Cs... checks)
      : registry_(registry),
        facts_(std::move(facts)),
        checks_(std::move(checks)...),
        uncaught_at_start_(std::uncaught_exceptions()) {
    for (const auto& name : facts_)
      if (!registry_.contains(name))
        throw ConfigurationError("boundary names fact " + detail::quote(name) + ", which is not recorded");
    std::apply([&](const auto&... c) { (validate_one(c), ...); }, checks_);
  }

  Boundary(const Boundary&) = delete;  // one scope, one obligation to submit
  Boundary& operator=(const Boundary&) = delete;

  // What the model may lean on: {name: {kind, provenance: {tool, args}, ...values}}.
  // A ranking comes as its computed order — the model phrases it, it does not choose.
  nlohmann::json facts() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& name : facts_)
      out[name] = registry_.visit(name, [](const auto& fact) { return detail::fact_view(fact); });
    return out;
  }

  // JSON Schema (2020-12) of the output fields the checks read.
  nlohmann::json schema() const {
    SchemaBuilder builder;
    std::apply([&](const auto&... c) { (describe_one(c, builder), ...); }, checks_);
    return builder.schema();
  }

  // Runs every check; throws UnsupportedClaim listing every finding. May be called again
  // (a re-ask inside the scope); any call counts as submitted.
  void submit(const nlohmann::json& output) {
    Verdict verdict = try_submit(output);
    if (!verdict.ok()) throw UnsupportedClaim(verdict.findings());
  }

  // The same checks; an unsupported claim is reported, never thrown.
  Verdict try_submit(const nlohmann::json& output) {
    submitted_ = true;
    std::vector<Finding> findings;
    if (!output.is_object()) {
      Finding f;
      f.check = "structured_output";
      f.said = detail::render(output);
      f.detail = "expected a JSON object of named fields, got " + std::string(detail::type_name(output)) +
                 "; prose is not a claim that can be checked";
      findings.push_back(std::move(f));
      return Verdict(std::move(findings));
    }
    std::apply([&](const auto&... c) { (c.verify(registry_, output, findings), ...); }, checks_);
    return Verdict(std::move(findings));
  }

  // Output held in another nlohmann::basic_json flavour (ordered_json, say).
  template <class J>
  requires detail::is_other_json<J>
  void submit(const J& output) { submit(nlohmann::json(output)); }
  template <class J>
  requires detail::is_other_json<J> Verdict try_submit(const J& output) { return try_submit(nlohmann::json(output)); }

  // Prose does not compile: the model emits structured fields.
  void submit(const char*) = delete;
  void submit(std::string_view) = delete;
  void submit(const std::string&) = delete;
  Verdict try_submit(const char*) = delete;
  Verdict try_submit(std::string_view) = delete;
  Verdict try_submit(const std::string&) = delete;

  bool submitted() const noexcept { return submitted_; }
  const std::vector<std::string>& fact_names() const noexcept { return facts_; }

  // Leaving the scope without submit() throws NothingSubmitted — unless an exception is
  // already unwinding through this scope, which must not be replaced by ours (and must
  // not terminate the program).
  ~Boundary() noexcept(false) {
    if (submitted_ || std::uncaught_exceptions() > uncaught_at_start_) return;
    throw NothingSubmitted({nothing_submitted_finding()});
  }

 private:
  template <class C>
  void validate_one(const C& check) const {
    for (const auto& name : check.leans_on())
      if (std::find(facts_.begin(), facts_.end(), name) == facts_.end())
        throw ConfigurationError("a check leans on fact " + detail::quote(name) +
                                 ", which this boundary does not name; add it to the boundary's facts");
    check.validate(registry_);
  }

  template <class C>
  void describe_one(const C& check, SchemaBuilder& builder) const {
    if constexpr (DescribesSchema<C>) check.describe(registry_, builder);
  }

  Finding nothing_submitted_finding() const {
    Finding f;
    f.check = "boundary";
    if (facts_.size() == 1) {
      f.fact = facts_.front();
      f.provenance = registry_.visit(f.fact, [](const auto& fact) { return fact.provenance().render(); });
    }
    f.detail = "the boundary was left without submit(); its " + std::to_string(sizeof...(Cs)) +
               " check(s) never ran, and a check that silently never ran is worse than none";
    return f;
  }

  const FactRegistry& registry_;
  std::vector<std::string> facts_;
  std::tuple<Cs...> checks_;
  int uncaught_at_start_;
  bool submitted_ = false;
};

}  // namespace groundplane
