// One submission's checks as they run, and how a Boundary hands them over: the part of
// a submit that does not depend on which checks a boundary holds (compiled once).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/verdict.hpp"

namespace groundplane::detail {

// One submission's checks as they run: what each found, which passed and failed, the
// warnings. The one place a check's result is recorded (Boundary::run_one), so what a
// later feature adds per check goes there.
struct CheckRun {
  bool stop_at_first = false;
  bool stopped = false;  // a check failed under stop_at_first: the rest do not run
  std::vector<Finding> findings;
  std::vector<std::string> passed;
  std::vector<std::string> failed;
  std::vector<std::string> warnings;        // as they came; each once in verdict()
  std::vector<std::string> read_by_failed;  // the top-level fields the failed checks read (the same)
  std::optional<std::string> prose;         // the rendered prose, when its check ran and found nothing

  // Records one check that ran, whose findings start at `before`.
  void record(std::string name, std::size_t before, std::vector<std::string> check_warnings);
  // Records again what one check recorded in a run of its own (`one`, which ran that
  // check alone): a stream runs a check early and replays it in the final verdict.
  void replay(const CheckRun& one);
  Verdict verdict() &&;
};

// A Boundary<Cs...>'s checks, handed to what is compiled once as one ChecksRun.
struct ChecksRun {
  const void* boundary;
  void (*run)(const void* boundary, const nlohmann::json& output, CheckRun& run);
  bool stop_at_first = false;
  std::size_t max_depth = 256;  // BoundaryOptions::max_depth: a deeper output is one finding
};

// The verdict on an output nested deeper than BoundaryOptions::max_depth: one
// structured_output finding; nothing of the output is read, copied or compared.
Verdict too_deep_output(std::string said, std::size_t max_depth);
// The verdict on text longer than BoundaryOptions::max_text_bytes: one structured_output
// finding quoting its first bytes; the rest is never read.
Verdict oversized_text(std::string_view text, std::size_t max_text_bytes);

// The findings one check added after `before`, at most max_findings_per_field for each
// output field (its first pointer token), then one counting the rest.
void cap_per_field(std::vector<Finding>& findings, std::size_t before);
inline constexpr std::size_t max_findings_per_field = 8;
// What cap_per_field groups a finding by: its field's first pointer token ("/rows" of
// "/rows/1/ctr"; a name stands for itself).
std::string field_root(const std::string& field);
// The finding that counts `more` findings past the listed ones of the group whose root
// is `root`: a copy of the group's last listed finding, saying how many more there were.
Finding more_findings(Finding last_listed, std::string root, std::size_t more);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/checks/check_run-inl.hpp"
#endif
