// The app's two ledgers and the rows in them.
//
// A Session keeps a *transition ledger* (every fire it recorded, plus deltas it could
// attribute by inference) and a *gap ledger* (every fire it refused). Both are ordered
// by the session version each row carries: a refusal never bumps the version and a
// recorded fire bumps it right after taking its row's version, so inside one version
// window the refusals come first and the transition last. That ordering is what the
// ground-truth block relies on; timestamps are deliberately absent.
//
// `does` is frozen onto a row when the row is minted, from the declared graph only, and
// never re-read: std::nullopt means the action was not declared at that moment (the
// block then renders a constant instead of the id).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace groundplane {

enum class Principal { agent, user, system };

constexpr std::string_view to_string(Principal p) noexcept {
  switch (p) {
    case Principal::agent:
      return "agent";
    case Principal::user:
      return "user";
    case Principal::system:
      return "system";
  }
  return "agent";
}

// How a recorded transition turned out. `pending` is the only state that changes
// later (at settlement); every other value is final.
enum class Outcome {
  pending,           // handler ran (or is running); the app has not reported back yet
  observed,          // committed and the reported delta carried the declared writes
  not_observed,      // committed but the reported delta lacked the declared writes
  unobservable,      // committed with nothing declared to check
  handler_failed,    // the handler returned ok = false or threw
  not_materialized,  // no handler and allow_unmaterialized_fires: nothing ran
  verify_failed,     // the action's own verify did not hold at settlement
  inferred,          // a reported delta nobody fired, matching exactly one action's writes
};

// Why fire() refused. Checked in exactly this order.
enum class Refusal {
  unknown_affordance,
  not_materialized,
  tool_disabled,
  guard_failed,
  approval_required,
  approval_declined,
  approval_spent,
  approval_mismatch,
};

constexpr std::string_view to_string(Refusal r) noexcept {
  switch (r) {
    case Refusal::unknown_affordance:
      return "UNKNOWN_AFFORDANCE";
    case Refusal::not_materialized:
      return "NOT_MATERIALIZED";
    case Refusal::tool_disabled:
      return "TOOL_DISABLED";
    case Refusal::guard_failed:
      return "GUARD_FAILED";
    case Refusal::approval_required:
      return "APPROVAL_REQUIRED";
    case Refusal::approval_declined:
      return "APPROVAL_DECLINED";
    case Refusal::approval_spent:
      return "APPROVAL_SPENT";
    case Refusal::approval_mismatch:
      return "APPROVAL_MISMATCH";
  }
  return "UNKNOWN_AFFORDANCE";
}

// What caused a transition.
struct Cause {
  std::string action;               // the id as fired (always declared: only those record)
  std::optional<std::string> does;  // frozen at minting; nullopt: not declared then
  Principal principal = Principal::agent;
  nlohmann::json payload = nullptr;  // detached copy; never rendered
  std::string ask_id = "";           // the approval it spent, if any
};

// One row of the transition ledger.
struct Transition {
  std::string id;             // "t-1", "t-2", ... (what report_state/begin_work name)
  std::uint64_t version = 0;  // the session version when it was minted
  Cause cause;
  std::string node;  // where the cursor was when it was minted
  Outcome outcome = Outcome::pending;
  std::string error = "";  // the handler's HandlerResult::error or exception text; never rendered
};

// One row of the gap ledger: a fire the session refused.
struct GapRow {
  std::uint64_t version = 0;
  std::string action;               // the id as fired: may be a model's invention
  std::optional<std::string> does;  // nullopt for UNKNOWN_AFFORDANCE
  Principal principal = Principal::agent;
  Refusal reason = Refusal::unknown_affordance;
  nlohmann::json payload = nullptr;  // never rendered
  std::string ask_id = "";           // as the caller passed it; never rendered
  std::string node;
};

enum class AskState {
  awaiting,  // nobody has answered
  approved,  // a human said yes; no fire has used it yet
  declined,  // a human said no (terminal)
  spent,     // the one fire it allowed has been recorded (terminal)
};

// A confirm ask: a card waiting on (or answered by) a person.
struct AskStatus {
  std::string id;  // "ask-1", ...
  std::string action;
  std::optional<std::string> does;  // frozen at minting
  nlohmann::json input = nullptr;   // detached copy of what was asked; the approval is bound to it
  AskState state = AskState::awaiting;
  std::string by = "";        // who answered: audit only, never rendered
  std::uint64_t version = 0;  // session version when it was minted
  std::string spent_by = "";  // the transition that used the approval
};

// A recorded fire whose declared writes the app has not reported yet.
struct PendingInfo {
  std::string transition_id;
  std::string action;
  std::optional<std::string> does;
  std::uint64_t version = 0;
  Principal principal = Principal::agent;
};

// Work the app says it is still doing.
struct WorkRow {
  std::string id;                   // "work-1", ...
  std::string label;                // never rendered in the facts block
  std::string transition_id;        // "" when unbound
  std::string action;               // of that transition; "" when unbound
  std::optional<std::string> does;  // of that transition; nullopt when unbound
  std::uint64_t version = 0;
  bool open = true;
};

namespace detail {

// Everything the ground-truth block is rendered from. The Session owns one and guards
// it with its mutex; rows are appended in version order, and the open sets are kept
// apart so that rendering never walks the whole history.
struct Ledger {
  std::uint64_t version = 0;
  std::string node;
  std::string focus;
  bool actions_may_be_stale = false;

  std::vector<Transition> transitions;  // version strictly increasing
  std::vector<GapRow> gaps;             // version non-decreasing
  std::vector<AskStatus> asks;          // creation order
  std::vector<WorkRow> work;            // creation order

  std::set<std::size_t> awaiting_asks;    // indices into asks, oldest first
  std::set<std::size_t> answered_asks;    // approved-not-spent and declined
  std::set<std::size_t> awaiting_report;  // indices into transitions
  std::set<std::size_t> open_work;        // indices into work
};

}  // namespace detail
}  // namespace groundplane
