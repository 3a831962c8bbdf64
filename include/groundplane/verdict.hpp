// gp::Verdict — the result of Boundary::try_submit, and the correction a model reads.
#pragma once

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
  const std::vector<Finding>& findings() const noexcept { return findings_; }

  // Longest correction() returns, in bytes, however many claims failed: ten retries
  // must not balloon a model's context.
  static constexpr std::size_t max_correction = 2000;
  // At most this many claims are spelled out; the rest are counted.
  static constexpr std::size_t max_listed = 6;

  // A message for the model: which claims were rejected and what the recorded facts
  // support, built only from escaped renderings. No provenance or developer detail
  // beyond the explanation line; "" when the output was accepted.
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
      if (!f.detail.empty()) line += ". " + f.detail;
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
  // Cut on a UTF-8 character boundary and mark the cut.
  static std::string cut(const std::string& s, std::size_t bytes) {
    std::size_t n = bytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return s.substr(0, n) + std::string(detail::ellipsis);
  }

  std::vector<Finding> findings_;
};

}  // namespace groundplane
