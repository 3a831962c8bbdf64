// The bodies of detail/checks/check_run.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/checks/check_run.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/unique_strings.hpp"
#include "groundplane/detail/text/wording.hpp"

namespace groundplane::detail {

// Findings beyond the cap are dropped per field and counted in one finding, so what(),
// correction() and an MCP reply stay bounded whatever the model sent, for user-written
// checks too.
GROUNDPLANE_INLINE std::string field_root(const std::string& field) {
  if (field.empty() || field[0] != '/') return field;
  return field.substr(0, field.find('/', 1));
}

GROUNDPLANE_INLINE Finding more_findings(Finding last_listed, std::string root, std::size_t more) {
  Finding f = std::move(last_listed);
  f.said = std::to_string(more) + " more";
  f.supported.clear();
  f.detail = "... and " + std::to_string(more) + " more unsupported claim(s) about " + quote(root) + " (the first " +
             std::to_string(max_findings_per_field) + " are listed)";
  f.field = std::move(root);
  return f;
}

GROUNDPLANE_INLINE void cap_per_field(std::vector<Finding>& findings, std::size_t before) {
  constexpr std::size_t cap = max_findings_per_field;
  if (findings.size() - before <= cap + 1) return;
  // Each finding's group (its field's root), numbered in order of first appearance: one
  // hash lookup a finding, however many fields a check of the caller's own names.
  struct Group {
    std::string root;
    std::size_t size = 0;
    std::size_t kept = 0;
    std::size_t last_kept = 0;  // index of the group's last kept finding
    std::size_t dropped = 0;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, std::size_t> index;
  std::vector<std::size_t> group_of(findings.size() - before);
  for (std::size_t i = before; i < findings.size(); ++i) {
    std::string r = field_root(findings[i].field);
    const auto [it, added] = index.try_emplace(r, groups.size());
    if (added) groups.push_back({std::move(r)});
    ++groups[it->second].size;
    group_of[i - before] = it->second;
  }
  // A group of at most cap + 1 is kept whole: a check that already lists eight and
  // counts the rest in one (ranking_prefix, entities_recorded) passes as is.
  std::size_t out = before;
  for (std::size_t i = before; i < findings.size(); ++i) {
    Group& g = groups[group_of[i - before]];
    if (g.kept == cap && g.size > cap + 1) {
      ++g.dropped;
      continue;
    }
    ++g.kept;
    if (out != i) findings[out] = std::move(findings[i]);
    g.last_kept = out;
    ++out;
  }
  findings.resize(out);
  for (const Group& g : groups)
    if (g.dropped != 0) findings.push_back(more_findings(findings[g.last_kept], g.root, g.dropped));
}

GROUNDPLANE_INLINE Verdict too_deep_output(std::string said, std::size_t max_depth) {
  Finding f;
  f.check = "structured_output";
  f.said = std::move(said);
  f.detail = "the output is nested deeper than " + std::to_string(max_depth) +
             " arrays/objects; send one JSON object of named fields";
  return Verdict({std::move(f)});
}

GROUNDPLANE_INLINE Verdict oversized_text(std::string_view text, std::size_t max_text_bytes) {
  Finding f;
  f.check = "structured_output";
  f.said = quote(text.substr(0, 60));
  f.detail = "the output is longer than the " + group_thousands(max_text_bytes) +
             " bytes this boundary reads (pass BoundaryOptions::max_text_bytes to read more); send one JSON object "
             "of named fields and nothing else";
  return Verdict({std::move(f)});
}

// Warnings and fields are appended as they come and made unique once, in verdict(): a
// search per check would be quadratic in a list of thousands of checks.
GROUNDPLANE_INLINE void CheckRun::record(std::string name, std::size_t before,
                                         std::vector<std::string> check_warnings) {
  cap_per_field(findings, before);
  for (auto& w : check_warnings) warnings.push_back(std::move(w));
  const bool failed_here = findings.size() > before;
  (failed_here ? failed : passed).push_back(std::move(name));
  if (failed_here && stop_at_first) stopped = true;
}

GROUNDPLANE_INLINE Verdict CheckRun::verdict() && {
  keep_first_of_each(warnings);
  keep_first_of_each(read_by_failed);
  Verdict v(std::move(findings), std::move(passed), std::move(failed), std::move(warnings));
  BoundaryVerdict::add_read_by_failed(v, read_by_failed);
  if (prose && v.ok()) BoundaryVerdict::set_prose(v, std::move(*prose));
  return v;
}

GROUNDPLANE_INLINE void CheckRun::replay(const CheckRun& one) {
  const bool failed_here = !one.failed.empty();
  findings.insert(findings.end(), one.findings.begin(), one.findings.end());
  warnings.insert(warnings.end(), one.warnings.begin(), one.warnings.end());
  read_by_failed.insert(read_by_failed.end(), one.read_by_failed.begin(), one.read_by_failed.end());
  passed.insert(passed.end(), one.passed.begin(), one.passed.end());
  failed.insert(failed.end(), one.failed.begin(), one.failed.end());
  if (failed_here && stop_at_first) stopped = true;
}

}  // namespace groundplane::detail
