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
// Pinned, with gp::ReaskOptions{.pinned = true} as the last argument: after a rejected
// answer the model is asked for the rejected fields only (Verdict::reask_schema()), its
// reply is merged into what was accepted (Verdict::accepted()) and the whole object is
// checked again, so checks across fields still hold. A reply that changes an accepted
// field is a rejected attempt, with a finding naming the field; the field keeps its
// accepted value. `generate(facts, request)` gets std::nullopt first, then a
// gp::ReaskRequest: the correction and the schema of the fields to send back.
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
#include <tuple>
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

// The options of a re-ask, passed after the checks.
struct ReaskOptions {
  // Re-ask for the rejected fields only, keeping the accepted ones (see above).
  bool pinned = false;
};

// What generate() is handed after a rejected answer when ReaskOptions are passed.
struct ReaskRequest {
  std::string correction;  // Verdict::correction()
  // The fields to answer: Verdict::reask_schema() when pinned, else the whole schema().
  nlohmann::json schema;
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

namespace detail {

// A finding for each accepted field the reply changed: the field stays as accepted.
inline std::vector<Finding> pinned_changes(const nlohmann::json& accepted, const nlohmann::json& reply,
                                           nlohmann::json& merged) {
  std::vector<Finding> changed;
  merged = accepted;
  if (!reply.is_object()) return changed;
  for (auto it = reply.begin(); it != reply.end(); ++it) {
    const auto kept = accepted.find(it.key());
    if (kept == accepted.end()) {
      merged[it.key()] = it.value();
      continue;
    }
    if (*kept == it.value()) continue;
    Finding f;
    f.check = "pinned";
    f.field = it.key();
    f.said = render(it.value());
    f.supported = render(*kept);
    f.detail = quote(it.key()) + " was accepted and is pinned: answer only the fields asked for";
    changed.push_back(std::move(f));
  }
  return changed;
}

template <class Generate, Check... Cs>
nlohmann::json reask_with_options(const FactRegistry& registry, std::vector<std::string> facts, Generate& generate,
                                  std::size_t max_attempts, const ReaskOptions& options, Cs... checks) {
  if (max_attempts == 0)
    throw ConfigurationError("gp::reask: max_attempts is 0, so the model would never be asked; pass at least 1");
  Boundary<Cs...> boundary(registry, std::move(facts), std::move(checks)...);  // ConfigurationError here
  const nlohmann::json view = boundary.facts();
  std::vector<Attempt> attempts;
  attempts.reserve(max_attempts);
  std::optional<ReaskRequest> request;
  nlohmann::json accepted;  // null until an answer was checked: nothing is pinned yet
  for (std::size_t i = 0; i < max_attempts; ++i) {
    std::optional<std::string> handed = request ? std::optional<std::string>(request->correction) : std::nullopt;
    nlohmann::json reply(generate(std::as_const(view), std::as_const(request)));
    nlohmann::json output = reply;
    std::vector<Finding> changed;
    if (options.pinned && accepted.is_object()) changed = pinned_changes(accepted, reply, output);
    Verdict verdict = boundary.try_submit(output);
    if (verdict.ok() && changed.empty()) return output;
    std::vector<Finding> findings = std::move(changed);
    for (const auto& f : verdict.findings()) findings.push_back(f);
    const Verdict rejected(findings);
    const std::string correction = options.pinned ? rejected.pinned_correction() : rejected.correction();
    if (!options.pinned) {
      request = ReaskRequest{correction, boundary.schema()};
    } else if (verdict.ok()) {
      // Only pinned fields were changed: ask for the same fields again, keep what was kept.
      request->correction = correction;
    } else {
      accepted = verdict.accepted();
      request = ReaskRequest{correction, verdict.reask_schema()};
    }
    attempts.push_back({std::move(handed), std::move(reply), std::move(findings), std::nullopt});
  }
  throw ReaskExhausted(std::move(attempts));
}

template <class Generate, class Tuple, std::size_t... I>
nlohmann::json reask_split(const FactRegistry& registry, std::vector<std::string> facts, Generate& generate,
                           std::size_t max_attempts, Tuple&& args, std::index_sequence<I...>) {
  return reask_with_options(registry, std::move(facts), generate, max_attempts, std::get<sizeof...(I)>(args),
                            std::get<I>(std::forward<Tuple>(args))...);
}

template <class... Args>
struct last_is_reask_options : std::false_type {};
template <class... Args>
requires(sizeof...(Args) > 0) struct last_is_reask_options<Args...>
    : std::is_same<std::remove_cvref_t<std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>>, ReaskOptions> {
};

}  // namespace detail

// The checks followed by ReaskOptions: `generate(facts, request)` returns the model's JSON
// output, given std::nullopt first and then the ReaskRequest for the rejected answer.
template <class Generate, class... Args>
requires(sizeof...(Args) >= 2 && detail::last_is_reask_options<Args...>::value) &&
    std::invocable<Generate&, const nlohmann::json&, const std::optional<ReaskRequest>&> nlohmann::json
    reask(const FactRegistry& registry, std::vector<std::string> facts, Generate&& generate, std::size_t max_attempts,
          Args&&... args) {
  return detail::reask_split(registry, std::move(facts), generate, max_attempts,
                             std::forward_as_tuple(std::forward<Args>(args)...),
                             std::make_index_sequence<sizeof...(Args) - 1>{});
}

}  // namespace groundplane
