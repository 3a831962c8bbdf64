// The stored row kinds of a session's ledger, each defined once: a struct per kind with
// its kind code, its name, its members (the key a body holds each under, and its name)
// and its encode and decode. docs/ledger-format.md specifies the same rows for readers
// in any language; a row kind or a member is added here and there, nowhere else.
//
// Encoding is what a Session writes (LedgerRow::body); decoding is what a restore reads,
// from a body read by detail::RowBody. A member absent from a body takes its default,
// which encode leaves out. Enums are stored as the numbers of their tables
// (detail/text/enum_names.hpp), and a number a table lacks is a malformed row, never cast.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/action.hpp"
#include "groundplane/detail/ledger/row_body.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/ledger.hpp"

namespace groundplane::detail::rows {

// A member of a stored row: the key its body holds it under, and its name (what the
// format page and a readable export call it).
struct Member {
  std::string_view key;
  std::string_view name;
};

// A row's id from its stored index (t-1 for transition 0, ask-1 for ask 0): the index a
// file holds may be any 64-bit number, the largest's id included.
inline std::string index_id(std::string_view prefix, std::uint64_t index) {
  if (index == UINT64_MAX) return std::string(prefix) + "18446744073709551616";
  return std::string(prefix) + std::to_string(index + 1);
}

// `does` as a row carries it: absent (the action's latest stored row said it already),
// null (the action was not declared when the row was minted), or its sentence.
using CarriedDoes = std::optional<std::optional<std::string>>;

inline constexpr Member does_member{"d", "does"};

// The policy a session is held to (SessionOptions' members that decide whether a fire is
// allowed): stored with the session, compared when it is restored. Stored as an object.
struct Policy {
  static constexpr Member approval_m{"rha", "require_human_approval"},
      unmaterialized_m{"auf", "allow_unmaterialized_fires"}, ttl_m{"ttl", "approval_ttl"};
  bool require_human_approval = false;
  bool allow_unmaterialized_fires = false;
  std::int64_t approval_ttl_ms = 0;
  friend bool operator==(const Policy&, const Policy&) = default;
  nlohmann::json encode() const;
  static Policy decode(const nlohmann::json& stored);  // MalformedRow for anything else
};

// What a repeat of an action and its fires by an agent are held to (ActionSpec's
// high_effect and concurrency): stored at the action's first declare, compared at every
// declare after. Stored as an object.
struct ActionRule {
  static constexpr Member high_effect_m{"he", "high_effect"}, concurrency_m{"cc", "concurrency"};
  bool high_effect = false;
  Concurrency concurrency = Concurrency::parallel;
  friend bool operator==(const ActionRule&, const ActionRule&) = default;
  nlohmann::json encode() const;
  static ActionRule decode(const nlohmann::json& stored);
};
using ActionRules = std::map<std::string, ActionRule, std::less<>>;

inline constexpr Member policy_member{"po", "policy"};

// The session starts: the first row of every session. A keyed store adds the key id
// (store/chain.hpp), first of its members.
struct Start {
  static constexpr std::string_view kind = "init", name = "start";
  static constexpr Member node_m{"n", "node"}, state_m{"st", "state"}, key_id_m{"_k", "key_id"};
  static constexpr Member members[] = {key_id_m, node_m, policy_member, state_m};
  std::string node = {};
  nlohmann::json state = nlohmann::json::object();
  std::optional<Policy> policy = {};  // absent before 0.4
  nlohmann::json encode() &&;
  static Start decode(RowBody& b);
};

// The stored policy recorded (a session written before 0.4, first opened by 0.4; an
// action's first declare) or changed on purpose (SessionOptions::policy_change): the new
// values, and for a change the old ones and the reason.
struct PolicyChange {
  static constexpr std::string_view kind = "pol", name = "policy";
  static constexpr Member actions_m{"ac", "actions"}, was_m{"was", "was"}, why_m{"why", "reason"};
  static constexpr Member members[] = {actions_m, policy_member, was_m, why_m};
  std::optional<Policy> policy = {};      // the session's, when this row sets it
  ActionRules actions = {};               // the actions whose rule this row sets
  std::optional<Policy> was_policy = {};  // a change: the session's before
  ActionRules was_actions = {};           // a change: those actions' rules before
  std::string reason = {};                // a change: why ("" for a first record)
  nlohmann::json encode() &&;
  static PolicyChange decode(RowBody& b);
};

// move_to: where the user is.
struct Move {
  static constexpr std::string_view kind = "m", name = "move";
  static constexpr Member node_m{"n", "node"}, focus_m{"f", "focus"};
  static constexpr Member members[] = {node_m, focus_m};
  std::string node = {};
  std::string focus = {};
  nlohmann::json encode() &&;
  static Move decode(RowBody& b);
};

// mark_actions_may_be_stale / mark_actions_fresh.
struct StaleFlag {
  static constexpr std::string_view kind = "ms", name = "actions_may_be_stale";
  static constexpr Member on_m{"on", "on"};
  static constexpr Member members[] = {on_m};
  bool on = false;
  nlohmann::json encode() &&;
  static StaleFlag decode(RowBody& b);
};

// report_state: the delta merged into the state.
struct Report {
  static constexpr std::string_view kind = "s", name = "report";
  static constexpr Member delta_m{"dl", "delta"}, own_m{"ow", "agents_own"};
  static constexpr Member members[] = {delta_m, own_m};
  nlohmann::json delta = {};
  // The keys (JSON Pointers) it changed that were the agent's own recorded fire's doing:
  // they never make the agent's view stale.
  std::vector<std::string> agents_own = {};
  nlohmann::json encode() &&;
  static Report decode(RowBody& b);
};

// Session::acknowledge_stale: the agent has seen what changed under an action's keys.
struct StaleSeen {
  static constexpr std::string_view kind = "sa", name = "stale_acknowledged";
  static constexpr Member action_m{"a", "action"};
  static constexpr Member members[] = {action_m};
  std::string action = {};
  nlohmann::json encode() &&;
  static StaleSeen decode(RowBody& b);
};

// What both attempt rows (a refusal, a transition) say about the fire: one struct, built
// in one place for both.
struct Attempt {
  static constexpr Member action_m{"a", "action"}, principal_m{"p", "principal"}, payload_m{"pl", "payload"},
      ask_m{"k", "ask_id"}, instance_m{"ix", "instance"}, request_key_m{"rk", "request_key"};
  std::string action = {};
  CarriedDoes does = {};
  Principal principal = Principal::agent;
  nlohmann::json payload = nullptr;
  std::string ask_id = {};
  std::string instance = {};     // the item named (ActionSpec::instances)
  std::string request_key = {};  // FireOptions::request_key
  void encode_into(nlohmann::json& body) &&;
  static Attempt decode(RowBody& b);
};

// A fire refused: a gap row.
struct Refused {
  static constexpr std::string_view kind = "g", name = "refusal";
  static constexpr Member reason_m{"r", "reason"}, prior_m{"pr", "prior_transition_id"},
      failed_checks_m{"fc", "failed_checks"}, payload_omitted_m{"po", "payload_omitted"};
  static constexpr Member members[] = {Attempt::action_m,
                                       does_member,
                                       Attempt::principal_m,
                                       Attempt::payload_m,
                                       Attempt::ask_m,
                                       Attempt::instance_m,
                                       reason_m,
                                       prior_m,
                                       failed_checks_m,
                                       payload_omitted_m,
                                       Attempt::request_key_m};
  Attempt fire = {};
  Refusal reason = Refusal::unknown_affordance;
  std::string prior_transition_id = {};
  std::vector<std::string> failed_checks = {};  // UNSUPPORTED_ARGUMENT: the failing checks' names
  std::uint64_t payload_omitted = 0;            // a payload not kept (too deep, over the budget): its size
  nlohmann::json encode() &&;
  static Refused decode(RowBody& b);
};

// A fire recorded (stored before its handler runs), or a delta attributed by inference.
struct Recorded {
  static constexpr std::string_view kind = "t", name = "transition";
  static constexpr Member standing_m{"sg", "standing_grant"}, repeat_m{"rp", "repeat"}, outcome_m{"o", "outcome"},
      awaits_m{"w", "awaits_report"}, key_m{"ik", "idempotency_key"};
  static constexpr Member members[] = {Attempt::action_m,
                                       does_member,
                                       Attempt::principal_m,
                                       Attempt::payload_m,
                                       Attempt::ask_m,
                                       Attempt::instance_m,
                                       standing_m,
                                       repeat_m,
                                       outcome_m,
                                       awaits_m,
                                       Attempt::request_key_m,
                                       key_m};
  Attempt fire = {};
  bool standing_grant = false;
  bool repeat = false;
  Outcome outcome = Outcome::pending;
  bool awaits_report = false;  // a fire with declared writes, until the app reports
  // The fire's idempotency key (detail/session/idempotency_key.hpp); absent for an inferred
  // transition and a fire recorded before 0.4. A key that is not one this release writes
  // is a malformed row.
  std::string idempotency_key = {};
  nlohmann::json encode() &&;
  static Recorded decode(RowBody& b);
};

// A transition graded: its handler returned (with the once receipt), failed, or a report
// settled it.
struct Grade {
  static constexpr std::string_view kind = "u", name = "grade";
  static constexpr Member transition_m{"t", "transition"}, outcome_m{"o", "outcome"}, error_m{"e", "error"},
      receipt_m{"rc", "once_receipt"}, data_m{"d", "data"}, data_omitted_m{"do", "data_omitted"};
  static constexpr Member members[] = {transition_m, outcome_m, error_m, receipt_m, data_m, data_omitted_m};
  std::uint64_t transition = 0;  // its index: t-1 is 0
  Outcome outcome = Outcome::pending;
  std::optional<std::string> error = {};  // a failed handler's text; a rejected fire's code
  bool receipt = false;                   // the handler returned: the fire holds the once receipt
  nlohmann::json data = nullptr;          // what the handler handed back (HandlerResult::data)
  std::uint64_t data_omitted = 0;         // data over max_data_bytes: its size, the data not kept
  nlohmann::json encode() &&;
  static Grade decode(RowBody& b);
};

// confirm_ask: a card minted.
struct AskMinted {
  static constexpr std::string_view kind = "q", name = "ask";
  static constexpr Member action_m{"a", "action"}, input_m{"in", "input"}, instance_m{"ix", "instance"};
  static constexpr Member members[] = {action_m, does_member, input_m, instance_m};
  std::string action = {};
  CarriedDoes does = {};
  nlohmann::json input = nullptr;
  std::string instance = {};  // the item the approval is for
  nlohmann::json encode() &&;
  static AskMinted decode(RowBody& b);
};

// A decision on an ask: approved, declined, revoked, or spent by a fire.
struct Decision {
  static constexpr std::string_view kind = "qd", name = "decision";
  static constexpr Member ask_m{"q", "ask"}, state_m{"s", "state"}, by_m{"by", "by"}, at_m{"at", "approved_at"},
      reads_m{"rd", "approved_reads"}, revoked_by_m{"rb", "revoked_by"}, spent_by_m{"sb", "spent_by"};
  static constexpr Member members[] = {ask_m, state_m, by_m, at_m, reads_m, revoked_by_m, spent_by_m};
  std::uint64_t ask = 0;  // its index: ask-1 is 0
  AskState state = AskState::approved;
  std::optional<std::string> by = {};            // approved, declined
  std::optional<std::int64_t> approved_at = {};  // approved: microseconds since the Unix epoch
  std::optional<nlohmann::json> reads = {};      // approved: {key: [value]} or {key: []}
  std::optional<std::string> revoked_by = {};    // revoked
  std::optional<std::string> spent_by = {};      // spent: the transition id
  nlohmann::json encode() &&;
  static Decision decode(RowBody& b);
};

// grant_standing / revoke_standing.
struct Standing {
  static constexpr std::string_view kind = "sg", name = "standing_grant";
  static constexpr Member action_m{"a", "action"}, on_m{"on", "active"}, by_m{"by", "by"};
  static constexpr Member members[] = {action_m, on_m, by_m, does_member};
  std::string action = {};
  bool active = false;
  std::string by = {};
  CarriedDoes does = {};  // on the first grant of the action only
  nlohmann::json encode() &&;
  static Standing decode(RowBody& b);
};

// begin_work.
struct WorkOpened {
  static constexpr std::string_view kind = "wo", name = "work_opened";
  static constexpr Member label_m{"l", "label"}, transition_m{"t", "transition_id"};
  static constexpr Member members[] = {label_m, transition_m};
  std::string label = {};
  std::string transition_id = {};  // "" when unbound
  nlohmann::json encode() &&;
  static WorkOpened decode(RowBody& b);
};

// WorkHandle::done.
struct WorkClosed {
  static constexpr std::string_view kind = "wc", name = "work_closed";
  static constexpr Member work_m{"w", "work"};
  static constexpr Member members[] = {work_m};
  std::uint64_t work = 0;  // its index: work-1 is 0
  nlohmann::json encode() &&;
  static WorkClosed decode(RowBody& b);
};

// A restore found the app had stopped: the fires it stopped in and the work it left open.
struct Restart {
  static constexpr std::string_view kind = "rs", name = "restart";
  static constexpr Member fires_m{"t", "stopped_fires"}, work_m{"w", "closed_work"};
  static constexpr Member members[] = {fires_m, work_m};
  std::vector<std::uint64_t> fires;  // transition indices
  std::vector<std::uint64_t> work;   // work indices
  nlohmann::json encode() &&;
  static Restart decode(RowBody& b);
};

// A fire in doubt (the app stopped after its handler may have started and before its grade
// was committed) resolved: by the action's probe, or by a person (Session::resolve, who is
// `by`). Only a fire in doubt and not resolved yet may be resolved.
struct Resolution {
  static constexpr std::string_view kind = "rv", name = "resolution";
  static constexpr Member transition_m{"t", "transition"}, happened_m{"h", "happened"}, by_m{"by", "by"};
  static constexpr Member members[] = {transition_m, happened_m, by_m};
  std::uint64_t transition = 0;  // its index: t-1 is 0
  bool happened = false;
  std::optional<std::string> by = {};  // a person's answer; absent for the probe's
  nlohmann::json encode() &&;
  static Resolution decode(RowBody& b);
};

// Every row kind, listed once. The restore, groundplane-ledger's audit and `kinds` below
// all dispatch over this list, so a kind added here is one each of them must handle: a
// reader with no overload for it does not compile. The commonest kinds come first, as
// visit_row tries them in order.
template <class... Kind>
struct KindList {};
using AllKinds = KindList<Recorded, Grade, Refused, Report, StaleSeen, AskMinted, Decision, Standing, WorkOpened,
                          WorkClosed, Move, StaleFlag, Start, Restart, PolicyChange, Resolution>;

// Decodes `body` as the kind `kind` names and calls `visit` with the decoded row, an
// rvalue. False, and nothing called, for a kind this release does not know. A malformed
// body throws what the kind's decode throws (MalformedRow, nlohmann::json::exception).
template <class Visit>
bool visit_row(std::string_view kind, RowBody& body, Visit&& visit) {
  return [&]<class... Kind>(KindList<Kind...>) {
    return ((kind == Kind::kind && (visit(Kind::decode(body)), true)) || ...);
  }(AllKinds{});
}

// Every kind, for readers that name what they print (an export, an audit).
struct KindInfo {
  std::string_view kind;
  std::string_view name;
  std::span<const Member> members;
};
template <class... Kind>
constexpr std::array<KindInfo, sizeof...(Kind)> kind_infos(KindList<Kind...> /*all*/) {
  return {KindInfo{Kind::kind, Kind::name, Kind::members}...};
}
inline constexpr auto kinds = kind_infos(AllKinds{});

// The kind with this code, or null for one this release does not know.
constexpr const KindInfo* find_kind(std::string_view kind) noexcept {
  for (const auto& k : kinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

// A stored body as a person reads it (groundplane-ledger export): each member under its
// name rather than its key, in the order its kind lists them, and an enum's number as the
// enum's name. A member this release does not know, a number an enum's table lacks, and
// the whole body of a kind it does not know are kept as stored. `kind` is the row's
// stored kind; the result is discarded (is_discarded()) when `body` is not a JSON object,
// or is past what the format allows a stored row (ledger_max_body_bytes, ledger_max_nesting).
nlohmann::ordered_json named_body(std::string_view kind, std::string_view body);

}  // namespace groundplane::detail::rows

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/ledger/ledger_codec-inl.hpp"
#endif
