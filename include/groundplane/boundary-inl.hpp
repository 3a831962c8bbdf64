// The bodies of boundary.hpp that do not depend on a Boundary's checks: included by it in
// the header-only build, compiled once into groundplane::compiled otherwise (see
// detail/linkage.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/boundary.hpp"
#include "groundplane/detail/field.hpp"
#include "groundplane/detail/wording.hpp"

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
  for (const auto& name : leans_on)
    if (std::find(facts.begin(), facts.end(), name) == facts.end())
      throw ConfigurationError("a check leans on fact " + quote(name) +
                               ", which this boundary does not name; add it to the boundary's facts");
}

// Findings beyond the cap are dropped per field and counted in one finding, so what(),
// correction() and an MCP reply stay bounded whatever the model sent, for user-written
// checks too.
GROUNDPLANE_INLINE void cap_per_field(std::vector<Finding>& findings, std::size_t before) {
  constexpr std::size_t cap = max_findings_per_field;
  if (findings.size() - before <= cap + 1) return;
  const auto root = [](const std::string& field) {
    if (field.empty() || field[0] != '/') return field;
    const std::size_t end = field.find('/', 1);
    return field.substr(0, end);
  };
  // A group of at most cap + 1 is kept whole: a check that already lists eight and
  // counts the rest in one (ranking_prefix, entities_recorded) passes as is.
  std::vector<std::pair<std::string, std::size_t>> sizes;
  for (std::size_t i = before; i < findings.size(); ++i) {
    const std::string r = root(findings[i].field);
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](const auto& p) { return p.first == r; });
    if (it == sizes.end()) sizes.emplace_back(r, 1);
    else ++it->second;
  }
  const auto keeps_whole = [&](const std::string& r) {
    const auto it = std::find_if(sizes.begin(), sizes.end(), [&](const auto& p) { return p.first == r; });
    return it->second <= cap + 1;
  };
  std::vector<std::pair<std::string, std::size_t>> seen;     // field root -> findings kept
  std::vector<std::pair<std::size_t, std::size_t>> dropped;  // (index of the group's last kept, count)
  std::size_t out = before;
  for (std::size_t i = before; i < findings.size(); ++i) {
    const std::string r = root(findings[i].field);
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.first == r; });
    if (it == seen.end()) {
      seen.emplace_back(r, 0);
      dropped.emplace_back(0, 0);
      it = seen.end() - 1;
    }
    const std::size_t group = static_cast<std::size_t>(it - seen.begin());
    if (it->second == cap && !keeps_whole(r)) {
      ++dropped[group].second;
      continue;
    }
    ++it->second;
    if (out != i) findings[out] = std::move(findings[i]);
    dropped[group].first = out;
    ++out;
  }
  findings.resize(out);
  for (std::size_t g = 0; g < seen.size(); ++g) {
    if (dropped[g].second == 0) continue;
    Finding f = findings[dropped[g].first];
    f.field = seen[g].first;
    f.said = std::to_string(dropped[g].second) + " more";
    f.supported.clear();
    f.detail = "... and " + std::to_string(dropped[g].second) + " more unsupported claim(s) about " +
               quote(seen[g].first) + " (the first " + std::to_string(cap) + " are listed)";
    findings.push_back(std::move(f));
  }
}

GROUNDPLANE_INLINE nlohmann::json facts_view(const FactRegistry& registry, const std::vector<std::string>& facts) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& name : facts) out[name] = registry.visit(name, [](const auto& fact) { return fact_view(fact); });
  return out;
}

GROUNDPLANE_INLINE void CheckRun::record(std::string name, std::size_t before,
                                         std::vector<std::string> check_warnings) {
  cap_per_field(findings, before);
  for (auto& w : check_warnings)
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(std::move(w));
  const bool failed_here = findings.size() > before;
  (failed_here ? failed : passed).push_back(std::move(name));
  if (failed_here && stop_at_first) stopped = true;
}

GROUNDPLANE_INLINE Verdict CheckRun::verdict() && {
  Verdict v(std::move(findings), std::move(passed), std::move(failed), std::move(warnings));
  VerdictParts::add_read_by_failed(v, read_by_failed);
  if (prose && v.ok()) VerdictParts::set_prose(v, std::move(*prose));
  return v;
}

GROUNDPLANE_INLINE void validate_prose_options(const BoundaryOptions& options) {
  constexpr std::string_view who = "BoundaryOptions";
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
  const StatedNumbers numbers{&doc, [](const void* d, const nlohmann::json& node, StatedText& out) {
                                const NumberText* t = static_cast<const JsonText*>(d)->number_text(node);
                                if (t == nullptr) return false;
                                out = {t->text, t->out_of_range};
                                return true;
                              }};
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
  VerdictParts::carry(v, checked);
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
