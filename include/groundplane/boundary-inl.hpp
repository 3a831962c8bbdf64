// The bodies of boundary.hpp that do not depend on a Boundary's checks: included by it in
// the header-only build, compiled once into groundplane::compiled otherwise (see
// detail/linkage.hpp).
#pragma once

#include "groundplane/boundary.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/text/unique_strings.hpp"
#include "groundplane/detail/text/wording.hpp"

namespace groundplane::detail {

// JsonText's findings about the text itself: not one JSON value, a repeated key, a
// number out of range. At most `listed` of each kind, then one counting the rest.
GROUNDPLANE_INLINE void text_findings(const JsonText& doc, std::string_view text, std::vector<Finding>& findings) {
  constexpr std::size_t listed = 8;
  const auto finding = [] {
    Finding f;
    f.check = "structured_output";
    return f;
  };
  if (!doc.ok()) {
    const auto& e = *doc.error();
    Finding f = finding();
    const std::size_t from = e.offset > 20 ? e.offset - 20 : 0;
    f.said = quote(text.substr(from, 60));
    f.detail = "the output is not exactly one JSON value: at byte " + std::to_string(e.offset) + " (0-based) " +
               escape(e.reason, 200) + "; send one JSON object of named fields and nothing else";
    findings.push_back(std::move(f));
    return;
  }
  const auto& dups = doc.duplicate_keys();
  for (std::size_t i = 0; i < dups.size() && i < listed; ++i) {
    Finding f = finding();
    f.field = dups[i].pointer;
    f.said = render(*dups[i].first, render_cap / 2 - 3) + " and " + render(*dups[i].second, render_cap / 2 - 3);
    f.detail = "key " + quote(dups[i].key) + " appears more than once in one object, first as " +
               render(*dups[i].first) + ", then as " + render(*dups[i].second) +
               "; a claim must say one thing, so write the key once";
    findings.push_back(std::move(f));
  }
  if (doc.duplicate_key_count() > listed) {
    Finding f = finding();
    f.detail = "… and " + std::to_string(doc.duplicate_key_count() - listed) + " more repeated key(s)";
    findings.push_back(std::move(f));
  }
  const auto& far = doc.out_of_range();
  for (std::size_t i = 0; i < far.size() && i < listed; ++i) {
    Finding f = finding();
    f.field = far[i].pointer;
    f.said = escape(far[i].text);
    f.detail = "the number at byte " + std::to_string(far[i].offset) + " is out of range: no claim needs more than " +
               std::to_string(JsonTextOptions{}.max_digits) + " significant digits or a power of ten past 10^" +
               std::to_string(JsonTextOptions{}.max_exponent) + " in magnitude";
    findings.push_back(std::move(f));
  }
  if (doc.out_of_range_count() > listed) {
    Finding f = finding();
    f.detail = "… and " + std::to_string(doc.out_of_range_count() - listed) + " more number(s) out of range";
    findings.push_back(std::move(f));
  }
}

GROUNDPLANE_INLINE void require_recorded(const FactRegistry& registry, const std::vector<std::string>& facts) {
  for (const auto& name : facts)
    if (!registry.contains(name))
      throw UnregisteredFact(name, registry.names(), "the boundary names a fact that is not recorded: ");
}

GROUNDPLANE_INLINE void require_named(const std::vector<std::string>& facts, const std::vector<std::string>& leans_on) {
  const StringMembership named(facts);
  for (const auto& name : leans_on)
    if (!named.contains(name))
      throw ConfigurationError("a check leans on fact " + quote(name) +
                               ", which this boundary does not name; add it to the boundary's facts");
}

GROUNDPLANE_INLINE nlohmann::json facts_view(const FactRegistry& registry, const std::vector<std::string>& facts) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& name : facts) out[name] = registry.visit(name, [](const auto& fact) { return fact_view(fact); });
  return out;
}

GROUNDPLANE_INLINE void validate_options(const BoundaryOptions& options) {
  constexpr std::string_view who = "BoundaryOptions";
  if (options.max_text_bytes == 0)
    throw ConfigurationError(
        "BoundaryOptions: max_text_bytes is 0, so no answer could be read; leave it at its "
        "default (1 MiB) or give the longest JSON text a model's answer may take");
  if (options.max_depth == 0)
    throw ConfigurationError(
        "BoundaryOptions: max_depth is 0, so no JSON object could be read; leave it at its "
        "default (256)");
  if (options.prose_field.empty()) {
    if (!options.free_fields.empty())
      throw ConfigurationError(
          "BoundaryOptions: free_fields names fields a prose slot may insert unchecked, but no prose_field is set; "
          "set prose_field to the output field the model writes its prose in");
    return;
  }
  validate_field(options.prose_field, who, "prose_field");
  for (const auto& f : options.free_fields) validate_field(f, who, "free_fields");
}

GROUNDPLANE_INLINE Verdict checked_output(const nlohmann::json& output, ChecksRun checks) {
  CheckRun run;
  run.stop_at_first = checks.stop_at_first;
  if (nested_deeper_than(output, checks.max_depth)) return too_deep_output(render(output), checks.max_depth);
  if (!output.is_object()) {
    Finding f;
    f.check = "structured_output";
    f.said = render(output);
    f.detail = "expected a JSON object of named fields, got " + std::string(type_name(output)) +
               "; prose is not a claim that can be checked";
    run.findings.push_back(std::move(f));
    return std::move(run).verdict();
  }
  checks.run(checks.boundary, output, run);
  return std::move(run).verdict();
}

GROUNDPLANE_INLINE Verdict checked_node(const JsonText& doc, const nlohmann::json& output, ChecksRun checks) {
  const StatedNumbers numbers = stated_numbers_of(doc);
  const StatedNumbersScope scope(&numbers);
  return checked_output(output, checks);
}

GROUNDPLANE_INLINE Verdict checked_text(const JsonText& doc, std::string_view text, ChecksRun checks) {
  std::vector<Finding> about_text;
  text_findings(doc, text, about_text);
  if (!doc.ok()) return Verdict(std::move(about_text));
  // Under stop_at_first the text's own findings are the first failure.
  if (!about_text.empty() && checks.stop_at_first) return Verdict(std::move(about_text));
  Verdict checked = checked_node(doc, doc.value(), checks);
  std::vector<Finding> all = std::move(about_text);
  for (const auto& f : checked.findings()) all.push_back(f);
  Verdict v(std::move(all), checked.passed(), checked.failed(), checked.warnings());
  BoundaryVerdict::carry(v, checked);
  return v;
}

GROUNDPLANE_INLINE std::string nothing_submitted_message(const std::vector<std::string>& facts, std::size_t checks) {
  std::string out = "the boundary";
  if (!facts.empty()) out += " over " + names_listed(facts);
  out += " was left without submit(): its " + std::to_string(checks) +
         " check(s) never ran, and a check that silently never ran is worse than none; submit the model's output "
         "on every path, or pass BoundaryOptions{.require_output = false} for a block that makes no claim";
  return out;
}

}  // namespace groundplane::detail
