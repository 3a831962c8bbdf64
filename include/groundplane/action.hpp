// What an app declares an action with: its spec (ActionSpec), what its handler returns
// (HandlerResult), what a repeat of it gets (Concurrency); and what firing one takes
// (FireOptions) and gives back (FireResult). gp::Session::declare mounts one, and
// gp::Session::fire fires it (session.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/any_check.hpp"
#include "groundplane/detail/language_standard.hpp"
#include "groundplane/detail/text/enum_names.hpp"
#include "groundplane/ledger.hpp"

namespace groundplane {

struct HandlerResult {
  bool ok = true;
  std::string error = "";  // kept on the row for the developer; never rendered
  // What the action produced for the agent (search hits, a quote): served by do_action
  // and did_it_work when the handler succeeded, kept with the transition (and its store
  // row) up to SessionOptions::max_data_bytes; never in the ground-truth block.
  nlohmann::json data = nullptr;
};

// What a repeat of an action gets (agent and system fires; a user's fire is always
// recorded, marked a repeat, and reopens the action).
enum class Concurrency {
  parallel,       // any number of fires, in flight at once or one after another
  single_flight,  // refused PRIOR_FIRE_PENDING while an earlier recorded fire has not settled
  once,           // single_flight, and refused DUPLICATE_EXECUTION once it has happened this session
};

namespace detail {
// Stored with an action's rule (docs/ledger-format.md): the numbers are the format's.
inline constexpr EnumName<Concurrency> concurrency_names[] = {{Concurrency::parallel, "parallel", 0},
                                                              {Concurrency::single_flight, "single_flight", 1},
                                                              {Concurrency::once, "once", 2}};
template <>
inline constexpr std::span<const EnumName<Concurrency>> enum_table<Concurrency> = concurrency_names;
}  // namespace detail

constexpr std::string_view to_string(Concurrency c) noexcept { return detail::name_of(c); }

// A choice that is the person's to make (which plan, which recipient): the agent presents
// the options and does not make it. `about` says what the choice is, for the app's own
// screens; it is data, never rendered into the block. done_when(state): whether the
// person has made it (true), not yet (false), or cannot be told (nullopt); absent, it is
// never known made. Like enabled_when it runs with the session's mutex held and must not
// call back into the session.
struct HumanDecides {
  std::string about = "";
  std::function<std::optional<bool>(const nlohmann::json& state)> done_when = nullptr;
};

// What a running handler knows about its fire (Session::current_fire()), and what an
// action's probe is asked about (ActionSpec::probe).
struct FireContext {
  std::string transition_id;
  // Stable across restores; at most 64 printable ASCII characters (this release writes 24
  // lowercase hexadecimal digits: 96 random bits drawn for the fire, stored with its row
  // before its handler runs). Hand it to the system you call (a payment API's
  // Idempotency-Key) so that a fire that takes the place of one resolved "did NOT happen",
  // which reuses it, can never be performed twice there. "" for a fire recorded before 0.4.
  std::string idempotency_key;
  std::string instance;                     // the fire's item (ActionSpec::instances), "" for none
  const nlohmann::json* payload = nullptr;  // the fire's payload, for a probe; null in a handler
};

struct ActionSpec {
  std::string does;                      // authored sentence; required
  std::vector<std::string> writes = {};  // declared effect: state keys ("/a/b" = JSON Pointer)
  std::function<HandlerResult(const nlohmann::json& payload)> handler = nullptr;  // none: NOT_MATERIALIZED
  std::function<bool(const nlohmann::json& state)> enabled_when = nullptr;        // false: TOOL_DISABLED
  std::function<bool(const nlohmann::json& state)> guard = nullptr;               // false: GUARD_FAILED
  std::function<bool(const nlohmann::json& state)> verify = nullptr;              // the app's own check
  bool high_effect = false;                                                       // gated under require_human_approval
  Concurrency concurrency = Concurrency::parallel;                                // what a repeat of this action gets
  std::vector<std::string> reads = {};  // state keys an approval depends on: a change makes it APPROVAL_STALE
  // What the payload must be: a JSON Schema (gp::JsonSchema, json_schema.hpp, says what is
  // supported), or the string "none" (takes no input). Null: not declared, any payload.
  // Compiled at declare (a schema it cannot honour is a ConfigurationError there); served
  // to the agent as `expects`; a fire whose payload fails it is refused PAYLOAD_INVALID.
  nlohmann::json input = nullptr;
  // Claims the payload makes, checked against SessionOptions::facts at every fire after
  // `input` (fields are JSON Pointers or names into the payload): the order id came from
  // a tool, the amount is that order's total. A failing check refuses the fire
  // UNSUPPORTED_ARGUMENT, its corrections in FireResult::issues. Needs SessionOptions::facts
  // holding every fact the checks lean on when declared (else a ConfigurationError).
  CheckList argument_checks = {};
  // One action over many items ("cancel order #57"): the items it can act on now, in the
  // order to serve them. A fire must name one (FireOptions::instance): none is refused
  // INSTANCE_REQUIRED, one not in the set INSTANCE_UNKNOWN (also when the selector throws:
  // it could not list them; a ConfigurationError, its calling back into the session, is
  // the app's bug and propagates, as from every predicate). An approval is for one item, and single_flight / once apply
  // per item. Duplicates are dropped (the first kept), and so is "" (no fire can name
  // it). Its answer is kept until the state changes (a report), so it must read only the
  // state it is given; an answer it throws instead of is not kept. Runs with the session's
  // mutex held, like enabled_when. Items are runtime text: kept on the rows, never
  // rendered in the block.
  std::function<std::vector<std::string>(const nlohmann::json& state)> instances = nullptr;
  // The choice this action carries is the person's: the block says so (one line while
  // it is not known made) and whats_here marks the item human_decides. Nothing is
  // refused on this account.
  std::optional<HumanDecides> human_decides = std::nullopt;
  // Asks the system the handler calls whether a fire left in doubt by a restart happened
  // (the app stopped after its handler may have started and before its grade was
  // committed): asked once for each such fire of this action, inside the `declare` that
  // mounts it on a restored session, before `declare` returns, without the session's
  // lock (it may call back). true: it happened; false: it did not — answer false only
  // when the system guarantees the fire's idempotency_key will never be honoured;
  // nullopt (or a throw, caught): it cannot tell, and the fire stays in doubt, to be asked
  // again after the next restart. Each true or false is a row.
  std::function<std::optional<bool>(const FireContext&)> probe = nullptr;
};

// A payload (or a handler's data) nested deeper than this many arrays and objects is
// never copied, compared or stored: a fire carrying one is refused PAYLOAD_INVALID, one
// issue naming where (the JSON Schema validator's own bound and words), and is kept as
// its size (FireResult::payload_omitted). A million levels cost one linear walk.
inline constexpr std::size_t max_payload_depth = 64;

// The most characters a FireOptions::request_key may hold (each character one Unicode code
// point of its UTF-8; a byte that is not part of valid UTF-8 counts as one).
inline constexpr std::size_t max_request_key_length = 128;

struct FireOptions {
  Principal source = Principal::agent;
  nlohmann::json payload = nullptr;
  std::string ask_id = "";
  std::string instance = "";  // the item to act on, for an action with instances
  // The caller's key for one request (a client's retry of a call that timed out sends the
  // same one), at most 128 characters (else ConfigurationError). Once a fire with it is
  // recorded, a fire with the same key and the same action, principal, instance and
  // payload returns that first FireResult again (`replayed`) and runs and writes nothing;
  // with anything else it is refused REQUEST_KEY_REUSED. A refused fire binds nothing.
  std::string request_key = "";
};

// What supports one argument of an asked-for fire: a field of its payload a passing
// argument check read, the fact it was checked against, and where that fact came from
// (Provenance::render()), so an approval card can show "amount 129.00 — orders.get(id=57)".
struct ArgumentSupport {
  std::string field;
  std::string fact;
  std::string provenance;
  friend bool operator==(const ArgumentSupport&, const ArgumentSupport&) = default;
};

// ok: the fire was recorded and its handler (if any) did not fail. Refusals carry their
// reason; a failed handler is "HANDLER_FAILED" with the transition id set, and a fire
// the app rejected (Session::reject) while its handler ran is "REJECTED". How the fire
// finally turned out (observed, not observed, ...) is the ledger's grade, not this.
struct FireResult {
  bool ok;
  std::string reason;  // "" when ok
  std::string transition_id;
  std::string prior_transition_id = "";  // PRIOR_FIRE_PENDING / DUPLICATE_EXECUTION: the earlier fire
  // PAYLOAD_INVALID: what is wrong with the payload, naming places, JSON types and the
  // schema's own bounds, never a value from the payload. UNSUPPORTED_ARGUMENT: each
  // failing argument check's correction (these quote what the model wrote, escaped like
  // every correction). At most 10, then "and N more".
  std::vector<std::string> issues = {};
  // INSTANCE_UNKNOWN: "unsupported" when the action's selector threw (it could not list its
  // items, so whether this one exists is not known), else "never-existed".
  std::string verdict = "";
  // The first result for this FireOptions::request_key, returned again: nothing ran and no
  // row was written.
  bool replayed = false;
  // A refused fire whose payload the session did not keep, its size instead (its compact
  // JSON text, in bytes): nested past max_payload_depth, or past what
  // SessionOptions::max_refused_payload_bytes leaves. 0: kept (or refused for none).
  std::uint64_t payload_omitted = 0;
};

}  // namespace groundplane
