// gp::Verdict — the result of Boundary::try_submit: the findings, which checks passed and
// which failed, the warnings, and the correction a model reads.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/finding.hpp"

namespace groundplane {

namespace detail {
struct BoundaryVerdict;
}

class Verdict {
 public:
  Verdict() = default;
  explicit Verdict(std::vector<Finding> findings) : findings_(std::move(findings)) {}
  Verdict(std::vector<Finding> findings, std::vector<std::string> passed, std::vector<std::string> failed,
          std::vector<std::string> warnings)
      : findings_(std::move(findings)),
        passed_(std::move(passed)),
        failed_(std::move(failed)),
        warnings_(std::move(warnings)) {}

  bool ok() const noexcept { return findings_.empty(); }
  explicit operator bool() const noexcept { return ok(); }
  const std::vector<Finding>& findings() const& noexcept { return findings_; }
  // On a temporary (`for (const auto& f : b.try_submit(out).findings())`) the findings
  // are moved out by value: a reference would dangle once the Verdict is destroyed,
  // before the loop body runs.
  std::vector<Finding> findings() && noexcept { return std::move(findings_); }

  // The names of the checks that ran and found nothing (passed) or something (failed),
  // in the boundary's order: superlative(fact='campaign_ctr', field='winner'). Under
  // BoundaryOptions::stop_at_first a check that did not run is in neither.
  const std::vector<std::string>& passed() const noexcept { return passed_; }
  const std::vector<std::string>& failed() const noexcept { return failed_; }
  // What the checks computed around rather than from (rows OnMissing::skip left out),
  // for the developer: never silent, never a finding.
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

  // One line per finding ("" when ok): the check, the field, what the model said, what
  // the facts support and why.
  std::string to_text() const;
  // {"ok", "findings": [{check, field, said, supported, fact, provenance, detail,
  // message}], "passed", "failed", "warnings", and "prose" when there is some}: every
  // string valid UTF-8 (what came from data or a model is already escaped; a byte that
  // is not UTF-8, which a check of the caller's own may write, becomes \xHH), so dump()
  // never throws and it serializes anywhere.
  nlohmann::json to_json() const;

  // For a re-ask that keeps what was right (gp::reask with ReaskOptions{.pinned = true}).
  // The rejected fields are the top-level fields a failed check reads (as it states them
  // with reads(), else as it puts them in the boundary's schema) and those a finding names
  // (a finding on /rows/1 rejects `rows`): a wrong winner rejects its score too.
  // reask_schema() is the boundary's schema() restricted to them (and without its
  // $schema: the dialect is the one the model already has), null when ok; a finding about the whole output (not an
  // object, not JSON) rejects every field. accepted() is the output without them: the
  // whole output when ok, an empty object when the output was not an object.
  const nlohmann::json& reask_schema() const noexcept { return reask_schema_; }
  const nlohmann::json& accepted() const noexcept { return accepted_; }

  // The accepted prose (BoundaryOptions::prose_field) for a person to read: the model's
  // template with each slot replaced by its field's value as the model wrote it (a
  // number keeps its digits, "0.50" stays 0.50; a string unquoted) and {{ }} as single
  // braces, escaped like every rendered string (a control character shows as \x07, a
  // newline stays a newline). Empty when the verdict is not ok or there is no prose.
  const std::string& prose() const noexcept { return prose_; }

  // Longest correction() returns, in bytes, however many claims failed: ten retries
  // must not balloon a model's context.
  static constexpr std::size_t max_correction = 2000;
  // At most this many claims are spelled out; the rest are counted.
  static constexpr std::size_t max_listed = 6;

  // A message for the model: which claims were rejected and what the recorded facts
  // support, built only from escaped renderings. No provenance, and none of the advice
  // addressed to the developer (a clause naming an option, "pass Rounding::as_stated
  // to …": the model cannot pass options); "" when the output was accepted. Each retry
  // of a re-ask loop gets only the latest correction, so however many retries there
  // are, the model's context grows by at most max_correction bytes per turn.
  std::string correction() const;
  // The same for a pinned re-ask: the rejected claims, that the rest of the answer is
  // kept, and that only the fields reask_schema() lists are to be answered. What
  // gp::reask sends under ReaskOptions{.pinned = true}, for a loop of your own (a stopped
  // gp::ClaimStream's verdict, say).
  std::string pinned_correction() const;

 private:
  // The explanation line without advice addressed to the developer. Checks phrase such
  // advice as a clause that starts with "pass" and names an option: "; pass
  // Rounding::as_stated to accept stated precision" or " (pass Ties::accept_any to …)".
  static std::string for_the_model(std::string detail);

  // correction() under another first line.
  std::string correction_after(std::string preamble) const;

  // Cut on a UTF-8 character boundary and mark the cut.
  static std::string cut(const std::string& s, std::size_t bytes);

  std::vector<Finding> findings_;
  std::vector<std::string> passed_;
  std::vector<std::string> failed_;
  std::vector<std::string> warnings_;
  friend struct detail::BoundaryVerdict;
  std::vector<std::string> read_by_failed_;  // top-level fields the failed checks read
  nlohmann::json reask_schema_;
  nlohmann::json accepted_;
  std::string prose_;
};

namespace detail {
// What a Boundary adds to the verdicts its checks make: the fields the failed checks read,
// and, once the output is known, accepted() and reask_schema().
struct BoundaryVerdict {
  static void add_read_by_failed(Verdict& v, const std::vector<std::string>& fields);
  static void carry(Verdict& to, const Verdict& from) {
    to.read_by_failed_ = from.read_by_failed_;
    if (to.ok()) to.prose_ = from.prose_;
  }
  static void set_prose(Verdict& v, std::string prose) { v.prose_ = std::move(prose); }
  // `schema` is the boundary's schema(); it is read only when the verdict is not ok.
  template <class Schema>
  static void attach_output(Verdict& v, const nlohmann::json& output, Schema&& schema) {
    if (v.ok()) {
      v.accepted_ = output.is_object() ? output : nlohmann::json::object();
      return;
    }
    attach_rejected_output(v, output, schema());
  }
  static void attach_rejected_output(Verdict& v, const nlohmann::json& output, const nlohmann::json& schema);
  // The top-level member a field names: "winner", or "rows" for "/rows/1/ctr".
  static std::string top_level(const std::string& field);
};
}  // namespace detail

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/verdict-inl.hpp"
#endif
