// gp::reask — ask the model, check its answer, and ask again with the correction until
// an answer is accepted or the attempts run out.
//
//   const nlohmann::json answer = gp::reask(
//       reg, {"campaign_ctr"},
//       [&](const nlohmann::json& facts, const std::optional<std::string>& correction) {
//         return llm_structured(facts, correction);   // the model's JSON output
//       },
//       3, gp::superlative{.fact = "campaign_ctr"});
//
// The first call gets no correction; each later call gets the previous attempt's
// Verdict::correction() — compact, bounded, written for the model. Out of attempts it
// throws gp::ReaskExhausted, which keeps every attempt for the developer.
//
// What is never turned into a re-ask: a ConfigurationError (the configuration is checked
// by building the Boundary before the model is called at all, and max_attempts == 0 is
// one), and any exception thrown by `generate` or by a check — each propagates as itself.
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/boundary.hpp"
#include "groundplane/check.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/json_text.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/verdict.hpp"

namespace groundplane {

// One round of a re-ask: what the model was told, what it answered, and why that answer
// was rejected.
struct Attempt {
  std::optional<std::string> correction;  // handed to the model; nullopt on the first attempt
  nlohmann::json output;                  // what the model answered (null for text that is not JSON)
  std::vector<Finding> findings;          // why it was rejected
  std::optional<std::string> text;        // the text as sent, when `generate` returned JSON text
};

// gp::reask ran out of attempts. findings() (and what()) are the last attempt's;
// attempts() holds every attempt, oldest first.
class ReaskExhausted : public UnsupportedClaim {
 public:
  explicit ReaskExhausted(std::vector<Attempt> attempts)
      : UnsupportedClaim(attempts.empty() ? std::vector<Finding>{} : attempts.back().findings),
        attempts_(std::make_shared<const std::vector<Attempt>>(std::move(attempts))) {}

  const std::vector<Attempt>& attempts() const noexcept { return *attempts_; }
  // The model's last answer (null when there were no attempts).
  const nlohmann::json& last_output() const noexcept {
    static const nlohmann::json none;
    return attempts_->empty() ? none : attempts_->back().output;
  }

 private:
  // Shared, so copying the exception (as throwing may) never copies every output.
  std::shared_ptr<const std::vector<Attempt>> attempts_;
};

namespace detail {
template <class R>
concept model_output = nlohmann::detail::is_basic_json<std::remove_cvref_t<R>>::value;
// The model's answer as JSON text (std::string, std::string_view, const char*).
template <class R>
concept model_text = !model_output<R> && std::is_convertible_v<R, std::string_view>;
}  // namespace detail

// `generate(facts, correction)` returns the model's output as JSON (any nlohmann
// flavour; prose does not compile). Returns the first accepted output.
template <class Generate, Check... Cs>
requires std::invocable < Generate&, const nlohmann::json&, const std::optional<std::string>
& > &&detail::model_output<std::invoke_result_t<Generate&, const nlohmann::json&, const std::optional<std::string>&>>
        nlohmann::json reask(const FactRegistry& registry, std::vector<std::string> facts, Generate&& generate,
                             std::size_t max_attempts, Cs... checks) {
  if (max_attempts == 0)
    throw ConfigurationError("gp::reask: max_attempts is 0, so the model would never be asked; pass at least 1");
  Boundary<Cs...> boundary(registry, std::move(facts), std::move(checks)...);  // ConfigurationError here
  const nlohmann::json view = boundary.facts();
  std::vector<Attempt> attempts;
  attempts.reserve(max_attempts);
  std::optional<std::string> correction;
  for (std::size_t i = 0; i < max_attempts; ++i) {
    nlohmann::json output(generate(std::as_const(view), std::as_const(correction)));
    Verdict verdict = boundary.try_submit(output);
    if (verdict.ok()) return output;
    std::optional<std::string> next = verdict.correction();
    attempts.push_back({std::move(correction), std::move(output), verdict.findings(), std::nullopt});
    correction = std::move(next);
  }
  throw ReaskExhausted(std::move(attempts));
}

// `generate` returns the model's raw JSON text: each answer is read exactly as written
// (Boundary::try_submit_json — digits kept, repeated keys and non-JSON text refused as
// findings to correct). Returns the accepted answer parsed (gp::JsonText::value()).
template <class Generate, Check... Cs>
requires std::invocable < Generate&, const nlohmann::json&, const std::optional<std::string>
& > &&detail::model_text<std::invoke_result_t<Generate&, const nlohmann::json&, const std::optional<std::string>&>>
        nlohmann::json reask(const FactRegistry& registry, std::vector<std::string> facts, Generate&& generate,
                             std::size_t max_attempts, Cs... checks) {
  using Text = typename detail::dependent_type<JsonText, Cs...>::type;
  if (max_attempts == 0)
    throw ConfigurationError("gp::reask: max_attempts is 0, so the model would never be asked; pass at least 1");
  Boundary<Cs...> boundary(registry, std::move(facts), std::move(checks)...);  // ConfigurationError here
  const nlohmann::json view = boundary.facts();
  std::vector<Attempt> attempts;
  attempts.reserve(max_attempts);
  std::optional<std::string> correction;
  for (std::size_t i = 0; i < max_attempts; ++i) {
    std::string text(std::string_view(generate(std::as_const(view), std::as_const(correction))));
    const Text doc = Text::read(text);
    Verdict verdict = boundary.try_submit_json(doc, text);
    if (verdict.ok()) return doc.value();
    std::optional<std::string> next = verdict.correction();
    attempts.push_back({std::move(correction), doc.value(), verdict.findings(), std::move(text)});
    correction = std::move(next);
  }
  throw ReaskExhausted(std::move(attempts));
}

}  // namespace groundplane
