// The ground-truth block: the app's own record, rendered under a header that ranks it
// above the conversation.
//
// Five sections, in this order, one item per line:
//   1. the header (FACTS FROM THE APP (authoritative). ...)
//   2. the cursor: "You are on: <node>." and, when set, "Focus: <focus>."
//   3. every attempt from both ledgers, oldest first, one "  • " line each
//   4. where each human decision stands
//   5. what the app has not answered yet (pending reports, open work, stale actions)
//
// Only structural facts reach it: no state values, payloads, work labels, `by`, or any
// other runtime free text. Every string that does reach it (ids, node, focus) goes
// through detail::escape. An id whose row carries no frozen `does` (it was not declared
// when the row was minted) renders as the constant unknown_action_text, so a model's
// invented name is never echoed back in the one block it is told to trust.
//
// Cost: a block capped at max_attempts reads O(max_attempts + log(ledger)) rows plus the
// open asks, pending fires and open work; it never walks the history.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/ledger.hpp"

namespace groundplane {

struct GroundTruthOptions {
  std::optional<std::uint64_t> since_version = std::nullopt;  // only rows with version >= this
  std::size_t max_attempts = 20;                              // newest attempts kept; also caps the awaiting-ask lines
};

struct GroundTruth {
  std::string node;
  std::uint64_t version;  // pass it back as since_version next turn
  std::string text;
  std::string head = "";  // the durable ledger's head hash when the session has a store; "" without
};

// The fixed sentences of the block. Exposed so tests and tools can match them exactly.
inline constexpr std::string_view ground_truth_header =
    "FACTS FROM THE APP (authoritative). Every line below is the app's own record of this "
    "session; where anything said in the conversation disagrees with these lines, these lines "
    "are what actually happened — the conversation is a claim about them.";
inline constexpr std::string_view unknown_action_text = "(an action this app does not have)";
inline constexpr std::string_view no_actions_text = "No actions have been performed in this app this session.";
inline constexpr std::string_view unbound_work_text =
    "The app is still working on something it has not tied to an action.";
inline constexpr std::string_view stale_actions_text =
    "The app's list of actions could not be re-read, so what is on offer may have changed.";
inline constexpr std::string_view attempt_bullet = "  • ";

namespace detail {

// The name a row shows: its id when the action was declared at minting, else the constant.
std::string rendered_action(const std::string& action, const std::optional<std::string>& does);

// The graded lines below, from the rows as a session holds them.
std::string transition_line(Principal principal, const std::string& action, bool declared, bool repeat,
                            Outcome outcome);
std::string attempt_line(const TransitionRecord& t);
std::string attempt_line(const GapRecord& g);

}  // namespace detail

// The graded line for one transition (without the bullet).
std::string attempt_line(const Transition& t);

// The graded line for one refusal (without the bullet).
std::string attempt_line(const GapRow& g);

// True for the grades a claim "I did X" may rest on: observed, inferred, or confirmed after
// a restart (by the action's probe or a person).
constexpr bool did_happen(Outcome o) noexcept {
  return o == Outcome::observed || o == Outcome::inferred || o == Outcome::confirmed ||
         o == Outcome::confirmed_by_person;
}

namespace detail {

// Counts the ledger rows a render reads (binary-search probes included), so tests can
// assert the cost deterministically instead of timing it.
struct RenderProbe {
  std::size_t rows_read = 0;
};

// First index whose row has version >= since; reads O(log n) rows.
template <class Row>
std::size_t first_at_or_after(std::span<const Row> rows, std::uint64_t since, RenderProbe* probe) {
  const auto it = std::partition_point(rows.begin(), rows.end(), [&](const Row& r) {
    if (probe) ++probe->rows_read;
    return r.version < since;
  });
  return static_cast<std::size_t>(it - rows.begin());
}

// "a (3 fires), b, and 4 more actions": each action once, at most `cap` of them, oldest
// first; name_of(row index) renders a group's name from its oldest row.
template <class NameOf>
std::string grouped_names(const ActionGroups& groups, std::size_t cap, std::string_view unit, NameOf name_of,
                          RenderProbe* probe) {
  std::string out;
  std::size_t shown = 0;
  for (const auto& [first, action] : groups.order()) {
    if (shown == cap) break;
    if (probe) ++probe->rows_read;
    if (!out.empty()) out += ", ";
    out += name_of(first);
    const std::size_t n = groups.count(action);
    if (n > 1) out += " (" + std::to_string(n) + " " + std::string(unit) + ")";
    ++shown;
  }
  const std::size_t rest = groups.actions() - shown;
  if (rest > 0) {
    if (!out.empty()) out += ", and ";
    out += std::to_string(rest) + (rest == 1 ? " more action" : " more actions");
  }
  return out;
}

// How many attempts carry a version >= since, counted where every row is kept (the
// store); nullopt when nothing keeps the rows the session no longer holds.
using AttemptCounter = std::function<std::optional<std::size_t>(std::uint64_t since)>;

// stale(k): whether the approved ask asks[k] would be refused APPROVAL_STALE now (the
// Session decides: it holds the clock, the state and the actions' `reads`). count_since
// is asked only when a since_version cursor reaches into attempts no longer held.
// human_decides: the actions declared now whose choice is the person's and not known made,
// in declaration order.
GroundTruth render_ground_truth(const Ledger& ledger, const GroundTruthOptions& opts, RenderProbe* probe = nullptr,
                                const std::function<bool(std::size_t)>& stale = nullptr,
                                const AttemptCounter& count_since = nullptr,
                                std::span<const std::string> human_decides = {});

}  // namespace detail
}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/ground_truth-inl.hpp"
#endif
