// The steps of gp::Session::fire: the gate (each reason a fire may be refused, in the
// order they are checked), the refusal's row, the record of a fire that passed, and the
// grade of its handler's return. Session::fire (session-inl.hpp) is these in sequence;
// every step runs with the session's lock held, but for the handler itself.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/action.hpp"
#include "groundplane/any_check.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/json/deep_json.hpp"
#include "groundplane/detail/ledger/ledger_codec.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/session_core.hpp"
#include "groundplane/detail/session/session_lock.hpp"
#include "groundplane/json_schema.hpp"
#include "groundplane/registry.hpp"

namespace groundplane::detail {

// One fire, as the gate finds it.
struct FireAttempt {
  std::string_view id;
  FireOptions options;
  Mounted* mounted = nullptr;                       // its declaration; null for an id nobody declared
  std::string prior = {};                           // PRIOR_FIRE_PENDING / DUPLICATE_EXECUTION: the earlier fire
  bool repeat = false;                              // a single_flight / once action already in flight or done
  std::optional<std::size_t> spend = std::nullopt;  // the approved ask it spends
  bool standing = false;                            // passes the approval gate under a standing grant
  std::vector<std::string> issues = {};             // PAYLOAD_INVALID, UNSUPPORTED_ARGUMENT: what is wrong
  std::vector<std::string> failed_checks = {};      // UNSUPPORTED_ARGUMENT: the failing checks' names
  std::string verdict = {};                         // INSTANCE_UNKNOWN: "unsupported" or "never-existed"
  // What single_flight and once ask about this fire: its action's (cached on the
  // declaration) or its item's (ActionSpec::instances). Set once the instance is known.
  std::vector<std::size_t>* flying = nullptr;
  OnceReceipt* receipt = nullptr;
  // The payload's depth and size, measured first (gate): nothing after copies, compares
  // or stores a payload nested past max_payload_depth.
  JsonExtent extent = {};
  // Its request key is bound to a recorded fire it does not match (or to the fire whose
  // handler is making it): refused REQUEST_KEY_REUSED right after UNKNOWN_AFFORDANCE.
  bool request_key_reused = false;
};

// Each returns the reason the fire is refused for, or nothing to let the next one judge.
std::optional<Refusal> refused_as_undeclared(SessionCore& c, FireAttempt& f);  // UNKNOWN_AFFORDANCE
// INSTANCE_REQUIRED, INSTANCE_UNKNOWN: for an action with instances, the fire names one
// its selector lists now; an action without them is named none. Finds what the fire's
// repeats are tracked under (its action's or its item's).
std::optional<Refusal> refused_as_unknown_instance(SessionCore& c, FireAttempt& f);
std::optional<Refusal> refused_as_unmaterialized(const SessionCore& c, const FireAttempt& f);  // NOT_MATERIALIZED
std::optional<Refusal> refused_as_disabled(const SessionCore& c, const FireAttempt& f);        // TOOL_DISABLED
std::optional<Refusal> refused_by_guard(const SessionCore& c, const FireAttempt& f);           // GUARD_FAILED
// PAYLOAD_INVALID: the payload is nested past max_payload_depth (any action), or fails the
// action's declared input (its issues kept on the attempt). An action that takes no input
// ("none") gets a null or empty-object payload as null, so its handler sees one shape for
// "nothing".
std::optional<Refusal> refused_as_invalid_payload(FireAttempt& f);
// UNSUPPORTED_ARGUMENT: an argument check finds the payload unsupported by the session's
// facts (each failing check's name and corrections kept on the attempt).
std::optional<Refusal> refused_as_unsupported_argument(const SessionCore& c, FireAttempt& f);

// What argument checks make of a payload: the corrections (capped at max_issues, then
// "and N more"), the failing checks' names, and what supports each field a passing check
// accepted (ask cards show it).
struct ArgumentReview {
  std::vector<std::string> issues;
  std::vector<std::string> failed_checks;
  std::vector<ArgumentSupport> support;
};
ArgumentReview review_arguments(const FactRegistry& facts, const CheckList& checks, const nlohmann::json& payload,
                                bool with_support);

// The payload fields a passing check reads (its reads(); none for a check that does not
// say), each present in the payload with every fact the check leans on, appended to `out`.
void supported_fields(const FactRegistry& facts, const AnyCheck& check, const nlohmann::json& payload,
                      std::vector<ArgumentSupport>& out);

// Validates an action's argument checks at declare: a registry to read, holding every
// fact they lean on, and each check's own validation (ConfigurationError naming the action).
void validate_argument_checks(const SessionCore& c, std::string_view action, const CheckList& checks);
// PRIOR_FIRE_PENDING, DUPLICATE_EXECUTION: before any approval reason, so a person is
// never sent to approve a fire about to be turned away. Marks a user's repeat.
std::optional<Refusal> refused_as_repeat(const SessionCore& c, FireAttempt& f);
// APPROVAL_REQUIRED, _DECLINED, _SPENT, _REVOKED, _MISMATCH, _STALE: what the ask it
// presents (or a standing grant) says, for an agent's fire of a high-effect action.
std::optional<Refusal> refused_at_approval(const SessionCore& c, FireAttempt& f);

// REQUEST_KEY_REUSED: the lookup (detail/session/request_keys.hpp) found its key bound elsewhere.
inline std::optional<Refusal> refused_as_reused_key(const FireAttempt& f) {
  if (f.request_key_reused) return Refusal::request_key_reused;
  return std::nullopt;
}

// The gate: the payload measured, then the checks above in their order.
std::optional<Refusal> gate(SessionCore& c, FireAttempt& f);

// Whether presenting this approved ask would be refused APPROVAL_STALE: older than
// approval_ttl, a key it was approved under has changed since, or the action (spec, when
// declared) reads a key the yes was not given under.
bool approval_stale(const SessionCore& c, const AskStatus& a, const ActionSpec* spec);

// An agent fire would be refused DUPLICATE_EXECUTION (if nothing earlier refused it).
bool would_be_duplicate(const SessionCore& c, std::string_view id, const ActionSpec& s);

// What the fire's row says about it, refused or recorded: the one place both are built.
// Without `payload`, the row says nothing of it (a refusal that kept only its size).
rows::Attempt attempt_row(SessionCore& c, const FireAttempt& f, bool payload = true);

// Stores the gap row and holds it; the result the caller returns. The payload is kept
// only when it is nested within max_payload_depth and fits what is left of
// SessionOptions::max_refused_payload_bytes; else its size is.
FireResult refuse(SessionCore& c, FireAttempt& f, Refusal reason);

// A fire that passed the gate, stored and held, its version taken and the version bumped:
// what its handler's return is graded with (allocated before the ledger changed).
struct RecordedFire {
  std::size_t index = 0;
  std::string id;
  std::function<HandlerResult(const nlohmann::json&)> handler;  // copies: the action may be
  std::function<bool(const nlohmann::json&)> verify;            // unmounted while it runs
  bool has_writes = false;
  nlohmann::json payload;    // the handler's copy
  SharedText instance;       // the item it names, for Session::current_instance while it runs
  FireContext context;       // what Session::current_fire() answers while it runs
  bool request_key = false;  // it carries one (FireOptions::request_key), bound to it now
  OnceReceipt receipt;
  OnceReceipt* receipt_slot = nullptr;  // the action's receipt, when it has one already
  std::vector<std::size_t>* flying = nullptr;
  std::map<std::string, OnceReceipt, std::less<>>::node_type receipt_node;  // for its first receipt
};
RecordedFire record(SessionCore& c, FireAttempt& f);

// A handler's HandlerResult::data, kept on its transition: whole up to max_data_bytes and
// max_payload_depth, else only its size.
void keep_data(SessionCore& c, std::size_t index, const nlohmann::json& data);

// What the handler did.
struct HandlerReturn {
  HandlerResult result;
  std::exception_ptr thrown;
};
// Runs the handler with the lock released (it may call back into the session).
HandlerReturn run_handler(const SessionCore& c, const RecordedFire& r, SessionLock& lock);

// Grades the fire on its handler's return and stores that; rethrows what the handler (or
// the app's verify) threw, with the lock released, once the ledger is consistent.
FireResult grade_return(SessionCore& c, RecordedFire& r, const HandlerReturn& h, SessionLock& lock);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/fire-inl.hpp"
#endif
