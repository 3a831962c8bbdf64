// gp::ClaimStream — a boundary's checks run on the model's JSON text while it streams.
//
//   gp::ClaimStream s = b.stream();
//   for (std::string_view token : model_tokens)
//     if (s.feed(token) == gp::StreamState::rejected) break;   // stop generating: re-ask now
//   gp::Verdict v = s.finish();                                // == b.try_submit_json(all of it)
//
// Each check runs as soon as every field it reads has closed — a string, object or array
// at its closing delimiter, a number or literal at the delimiter after it — or the object
// holding them has closed (an absent field is known absent only then). A check that does
// not state what it reads (Check's optional reads()) waits for finish(), as does the
// prose. `rejected` means a finding exists; it is never reported for a text whose
// whole-text verdict accepts it. finish() is a submit: for every way of cutting the text
// into chunks it equals try_submit_json of the whole (findings in the same order), reusing
// what the checks found early rather than running them twice.
//
// Each byte is read once, as it arrives (detail/json/json_push_reader.hpp builds the same
// gp::JsonText the whole-text reader would). Text that reader cannot take alike — not
// one JSON value, invalid UTF-8, nesting past the bound — is read whole at finish() by
// JsonText::read, so its finding names the same offset and reason.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/checks/check_run.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/json_text.hpp"
#include "groundplane/verdict.hpp"

namespace groundplane {

enum class StreamState {
  undecided,  // no check has found anything yet
  rejected,   // a check found an unsupported claim: stop generation and re-ask
};

namespace detail {

// One check of a boundary, in its order (a CheckList's checks one by one).
struct StreamUnit {
  const void* check = nullptr;
  void (*run)(const void* boundary, const void* check, const nlohmann::json& output, CheckRun& run) = nullptr;
  std::optional<std::vector<std::string>> reads;  // nullopt: runs at finish()
};

// What a stream asks of its Boundary<Cs...>.
struct StreamHooks {
  // try_submit_json of the whole text: for text the stream could not read alike.
  Verdict (*submit_text)(void* boundary, std::string_view text) = nullptr;
  // The verdict on text the stream read (`doc`), its checks run through `checks`.
  Verdict (*submit_read)(void* boundary, const JsonText& doc, std::string_view text, const ChecksRun& checks) = nullptr;
  // try_submit_json's verdict on text past BoundaryOptions::max_text_bytes, whose first
  // bytes are `head`.
  Verdict (*submit_oversized)(void* boundary, std::string_view head) = nullptr;
  // The verdict of checks that ran on the text so far (`run`), whose complete top-level
  // fields are `partial`: a submit; every field the schema has that `partial` lacks is
  // re-asked.
  Verdict (*submit_partial)(void* boundary, CheckRun run, const nlohmann::json& partial) = nullptr;
  // The prose, after the checks (a no-op without BoundaryOptions::prose_field).
  void (*prose)(const void* boundary, const nlohmann::json& output, CheckRun& run) = nullptr;
};

struct ClaimStreamState;

// The boundary's bounds on the text (BoundaryOptions::max_text_bytes, max_depth).
struct StreamLimits {
  std::size_t max_text_bytes = std::size_t{1024} * 1024;
  std::size_t max_depth = 256;
};

}  // namespace detail

class ClaimStream {
 public:
  // Made by Boundary::stream(); the boundary must outlive the stream.
  ClaimStream(void* boundary, const detail::StreamHooks* hooks, std::vector<detail::StreamUnit> units,
              bool stop_at_first, detail::StreamLimits limits = {});
  ClaimStream(ClaimStream&&) noexcept;
  ClaimStream& operator=(ClaimStream&&) noexcept;
  ClaimStream(const ClaimStream&) = delete;
  ClaimStream& operator=(const ClaimStream&) = delete;
  ~ClaimStream();

  // The next bytes of the model's text (empty chunks are allowed). Runs every check whose
  // fields are now complete. Throws ConfigurationError after finish(). Once the text
  // passes BoundaryOptions::max_text_bytes the stream is rejected and keeps nothing more
  // of it (its verdict is try_submit_json's on text that long).
  StreamState feed(std::string_view chunk);

  // rejected once any check has found something.
  StreamState state() const;

  // The findings so far, in the order the checks ran; after finish(), the verdict's.
  const std::vector<Finding>& findings() const;

  // The text has ended: the verdict of try_submit_json on all of it (a submit). Called
  // again, returns the same verdict.
  Verdict finish();

  // Ends a rejected stream where it is (the rest will not be generated): a submit whose
  // verdict holds the findings so far. Its accepted() holds the top-level fields complete
  // so far that no failed check reads, and its reask_schema() asks for every other field
  // of the boundary's schema — the rejected ones and those not written yet — so a pinned
  // re-ask completes the answer (docs/streaming.md). Not rejected: as finish().
  Verdict stop();

  // A stream that has been moved from holds nothing: every call on it above throws
  // ConfigurationError (a developer's mistake) until a stream is assigned to it.

 private:
  detail::ClaimStreamState& live() const;

  std::unique_ptr<detail::ClaimStreamState> state_;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/claim_stream-inl.hpp"
#endif
