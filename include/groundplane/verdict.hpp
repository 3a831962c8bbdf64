// gp::Verdict — the result of Boundary::try_submit, and the correction a model reads.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "groundplane/detail/escape.hpp"
#include "groundplane/finding.hpp"

namespace groundplane {

class Verdict {
 public:
  Verdict() = default;
  explicit Verdict(std::vector<Finding> findings) : findings_(std::move(findings)) {}

  bool ok() const noexcept { return findings_.empty(); }
  explicit operator bool() const noexcept { return ok(); }
  const std::vector<Finding>& findings() const& noexcept { return findings_; }
  // On a temporary (`for (const auto& f : b.try_submit(out).findings())`) the findings
  // are moved out by value: a reference would dangle once the Verdict is destroyed,
  // before the loop body runs.
  std::vector<Finding> findings() && noexcept { return std::move(findings_); }

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
  std::string correction() const {
    if (ok()) return "";
    std::string out =
        "Your previous answer was rejected by a check against the recorded facts. "
        "Correct these claims and answer again with the same JSON fields, using only the facts provided:";
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

 private:
  // The explanation line without advice addressed to the developer. Checks phrase such
  // advice as a clause that starts with "pass" and names an option: "; pass
  // Rounding::as_stated to accept stated precision" or " (pass Ties::accept_any to …)".
  static std::string for_the_model(std::string detail) {
    const auto names_option = [&](std::size_t i) {
      if (i >= detail.size() || detail[i] < 'A' || detail[i] > 'Z') return false;
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

  // Cut on a UTF-8 character boundary and mark the cut.
  static std::string cut(const std::string& s, std::size_t bytes) {
    std::size_t n = bytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return s.substr(0, n) + std::string(detail::ellipsis);
  }

  std::vector<Finding> findings_;
};

}  // namespace groundplane
