// The bodies of verdict.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/verdict.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/text/unique_strings.hpp"

namespace groundplane {

GROUNDPLANE_INLINE std::string Verdict::to_text() const {
  std::string out;
  for (const auto& f : findings_) {
    if (!out.empty()) out += '\n';
    out += detail::escape_rendered(f.check, 200);
    out += f.field.empty() ? std::string(": the output") : ": field " + detail::quote(f.field);
    out += f.said.empty() ? std::string(": missing") : ": model said " + f.said;
    if (!f.supported.empty()) out += ", registered facts support " + f.supported;
    if (!f.detail.empty()) out += " — " + f.detail;
  }
  return out;
}

GROUNDPLANE_INLINE nlohmann::json Verdict::to_json() const {
  // Names from configuration pass the escaping routine. What a check rendered is already
  // escaped by the built-in ones; a check of the caller's own may quote raw bytes, so
  // every byte outside valid UTF-8 is written as \xHH: dump() never throws.
  const auto safe = [](const std::string& s) { return detail::escape(s, 4 * s.size() + 8); };
  const auto rendered = [](const std::string& s) { return detail::escape_rendered(s, 4 * s.size() + 8); };
  const auto utf8 = [](const std::string& s) { return detail::utf8_safe(s); };
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : findings_)
    findings.push_back({{"check", rendered(f.check)},
                        {"field", safe(f.field)},
                        {"said", utf8(f.said)},
                        {"supported", utf8(f.supported)},
                        {"fact", safe(f.fact)},
                        {"provenance", utf8(f.provenance)},
                        {"detail", utf8(f.detail)},
                        {"message", utf8(f.message())}});
  const auto list = [&](const std::vector<std::string>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& s : v) a.push_back(rendered(s));
    return a;
  };
  nlohmann::json out = {{"ok", ok()},
                        {"findings", std::move(findings)},
                        {"passed", list(passed_)},
                        {"failed", list(failed_)},
                        {"warnings", list(warnings_)}};
  if (!prose_.empty()) out["prose"] = utf8(prose_);  // escaped when rendered
  return out;
}

GROUNDPLANE_INLINE std::string Verdict::correction() const {
  return correction_after(
      "Your previous answer was rejected by a check against the recorded facts. "
      "Correct these claims and answer again with the same JSON fields, using only the facts provided:");
}

GROUNDPLANE_INLINE std::string Verdict::pinned_correction() const {
  return correction_after(
      "Rejected by a check against the recorded facts (the rest is kept); answer only the fields the schema lists:");
}

GROUNDPLANE_INLINE std::string Verdict::correction_after(std::string out) const {
  if (ok()) return "";
  std::size_t listed = 0;
  for (const auto& f : findings_) {
    if (listed == max_listed) break;
    std::string line = "\n- ";
    line += f.field.empty() ? std::string("the output") : "field " + detail::quote(f.field);
    line += f.said.empty() ? std::string(": missing") : ": you said " + f.said;
    if (!f.supported.empty()) line += "; the facts support " + f.supported;
    if (const std::string why = for_the_model(f.detail); !why.empty()) line += ". " + why;
    constexpr std::size_t max_line = 320;
    if (line.size() > max_line) line = cut(line, max_line);
    if (out.size() + line.size() > max_correction - 60) break;
    out += line;
    ++listed;
  }
  if (listed < findings_.size())
    out += "\n- … and " + std::to_string(findings_.size() - listed) + " more rejected claim(s).";
  return out;
}

GROUNDPLANE_INLINE std::string Verdict::for_the_model(std::string detail) {
  const auto names_option = [&](std::size_t i) {
    if (i >= detail.size() || !std::isalpha(static_cast<unsigned char>(detail[i]))) return false;
    while (i < detail.size() && (std::isalnum(static_cast<unsigned char>(detail[i])) || detail[i] == '_')) ++i;
    return detail.compare(i, 2, "::") == 0;
  };
  for (std::size_t at = 0; (at = detail.find(" (pass ", at)) != std::string::npos;) {
    const std::size_t close = detail.find(')', at);
    if (!names_option(at + 7) || close == std::string::npos) {
      ++at;
      continue;
    }
    detail.erase(at, close + 1 - at);
  }
  for (std::size_t at = 0; (at = detail.find("; pass ", at)) != std::string::npos;) {
    if (!names_option(at + 7)) {
      ++at;
      continue;
    }
    const std::size_t next = detail.find("; ", at + 2);
    detail.erase(at, next == std::string::npos ? std::string::npos : next - at);
  }
  return detail;
}

GROUNDPLANE_INLINE std::string Verdict::cut(const std::string& s, std::size_t bytes) {
  std::size_t n = bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + std::string(detail::ellipsis);
}

GROUNDPLANE_INLINE void detail::BoundaryVerdict::add_read_by_failed(Verdict& v,
                                                                    const std::vector<std::string>& fields) {
  v.read_by_failed_.insert(v.read_by_failed_.end(), fields.begin(), fields.end());
  keep_first_of_each(v.read_by_failed_);
}

GROUNDPLANE_INLINE std::string detail::BoundaryVerdict::top_level(const std::string& field) {
  if (field.empty() || field[0] != '/') return field;
  const auto tokens = pointer_tokens(field);
  return tokens && !tokens->empty() ? tokens->front() : field;
}

GROUNDPLANE_INLINE void detail::BoundaryVerdict::attach_rejected_output(Verdict& v, const nlohmann::json& output,
                                                                        const nlohmann::json& schema) {
  std::vector<std::string> rejected = v.read_by_failed_;
  bool whole = !output.is_object();
  for (const auto& f : v.findings_) {
    if (f.field.empty()) whole = true;
    std::string top = top_level(f.field);
    if (!top.empty()) rejected.push_back(std::move(top));
  }
  keep_first_of_each(rejected);
  const StringMembership rejected_set(rejected);
  const auto is_rejected = [&](const std::string& name) { return whole || rejected_set.contains(name); };
  v.accepted_ = nlohmann::json::object();
  if (output.is_object())
    for (auto it = output.begin(); it != output.end(); ++it)
      if (!is_rejected(it.key())) v.accepted_[it.key()] = it.value();

  // The schema's own keywords stay, but for $schema (the dialect is the boundary's, and
  // the model is answering the same conversation); its properties and required are cut
  // to the rejected.
  v.reask_schema_ = schema;
  v.reask_schema_.erase("$schema");
  nlohmann::json properties = nlohmann::json::object();
  const auto all = schema.find("properties");
  if (all != schema.end() && all->is_object())
    for (auto it = all->begin(); it != all->end(); ++it)
      if (is_rejected(it.key())) properties[it.key()] = it.value();
  for (const auto& name : rejected)  // a field a check names but does not describe
    if (!properties.contains(name)) properties[name] = nlohmann::json::object();
  v.reask_schema_["properties"] = std::move(properties);
  if (const auto req = schema.find("required"); req != schema.end() && req->is_array()) {
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& r : *req)
      if (r.is_string() && is_rejected(r.get<std::string>())) kept.push_back(r);
    v.reask_schema_["required"] = std::move(kept);
  }
}

}  // namespace groundplane
