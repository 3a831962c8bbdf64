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

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/language_standard.hpp"
#include "groundplane/detail/text/enum_names.hpp"

namespace groundplane {

enum class Principal : std::uint8_t { agent, user, system };

// How a recorded transition turned out. `pending` is the only state that changes
// later (at settlement), and `stopped` the only one a restart leaves that changes later
// (when it is resolved); every other value is final.
enum class Outcome : std::uint8_t {
  pending,                           // handler ran (or is running); the app has not reported back yet
  observed,                          // committed and the reported delta carried the declared writes
  not_observed,                      // committed but the reported delta lacked the declared writes
  unobservable,                      // committed with nothing declared to check
  handler_failed,                    // the handler returned ok = false or threw
  not_materialized,                  // no handler and allow_unmaterialized_fires: nothing ran
  verify_failed,                     // the action's own verify did not hold at settlement
  inferred,                          // a reported delta nobody fired, matching exactly one action's writes
  stopped,                           // in doubt: the app stopped after its handler may have started and before its
                                     // grade was committed (restored from a store); no longer awaited, and a later
                                     // report does not settle it. Resolved by the action's probe or Session::resolve:
  rejected,                          // the app said it failed (Session::reject): it did not happen
  confirmed,                         // in doubt, and the action's probe says it happened
  confirmed_not_run,                 // in doubt before its handler returned, and the probe says it did not happen
  confirmed_not_observed,            // its handler had returned; the probe says its declared effect did not happen
  confirmed_by_person,               // as confirmed, said by a person (Session::resolve)
  confirmed_not_run_by_person,       // as confirmed_not_run, said by a person
  confirmed_not_observed_by_person,  // as confirmed_not_observed, said by a person
};

// Why fire() refused. Checked in exactly this order.
enum class Refusal {
  unknown_affordance,
  not_materialized,
  tool_disabled,
  guard_failed,
  prior_fire_pending,   // single_flight / once: an earlier recorded fire has not settled
  duplicate_execution,  // once: it already happened this session
  approval_required,
  approval_declined,
  approval_spent,
  approval_revoked,  // the human withdrew the yes before it was used
  approval_mismatch,
  approval_stale,        // older than approval_ttl, or a key in the action's `reads` changed since
  payload_invalid,       // the payload does not match the action's declared input (ActionSpec::input)
  unsupported_argument,  // an argument check found the payload unsupported by the facts (ActionSpec::argument_checks)
  instance_required,     // the action acts on one of its instances (ActionSpec::instances); none was named
  instance_unknown,      // the instance named is not one the action can act on now (or it has none)
  request_key_reused,    // the request key names a recorded fire of another action, principal, instance or
                         // payload (or the fire whose handler is making this one); checked right after
                         // unknown_affordance
};

// What caused a transition.
struct Cause {
  std::string action;               // the id as fired (always declared: only those record)
  std::optional<std::string> does;  // frozen at minting; nullopt: not declared then
  Principal principal = Principal::agent;
  nlohmann::json payload = nullptr;  // detached copy; never rendered
  std::string ask_id = "";           // the approval it spent, if any
  bool standing_grant = false;       // passed the approval gate under a standing grant
  bool repeat = false;               // a single_flight / once action that had already happened
                                     // or was still in flight (a user's repeat, or a reopened once)
};

// One row of the transition ledger.
struct Transition {
  std::string id;             // "t-1", "t-2", ... (what report_state/begin_work name)
  std::uint64_t version = 0;  // the session version when it was minted
  Cause cause;
  std::string node;  // where the cursor was when it was minted
  Outcome outcome = Outcome::pending;
  std::string error = "";            // the handler's HandlerResult::error or exception text; never rendered
  std::string instance = "";         // the item it acted on (ActionSpec::instances); never rendered
  std::string idempotency_key = "";  // FireContext::idempotency_key ("" before 0.4, and for an inferred one)
  std::string request_key = "";      // FireOptions::request_key, as the caller gave it
  std::string resolved_by = "";      // who resolved it (Session::resolve): audit only, never rendered
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
  std::string prior_transition_id = "";         // PRIOR_FIRE_PENDING / DUPLICATE_EXECUTION: the earlier fire
  std::vector<std::string> failed_checks = {};  // UNSUPPORTED_ARGUMENT: the argument checks that failed, by name
  std::string instance = "";                    // the item named, as the caller passed it; never rendered
  // The payload's size (compact JSON, in bytes) when it was not kept: nested past
  // max_payload_depth, or past SessionOptions::max_refused_payload_bytes. 0: kept.
  std::uint64_t payload_omitted = 0;
  std::string request_key = "";  // FireOptions::request_key, as the caller gave it
};

enum class AskState {
  awaiting,  // nobody has answered
  approved,  // a human said yes; no fire has used it yet
  declined,  // a human said no (terminal)
  spent,     // the one fire it allowed has been recorded (terminal)
  revoked,   // a human withdrew the yes before any fire used it (terminal)
};

// The names each enum is written, read and rendered under (detail/text/enum_names.hpp).
namespace detail {
inline constexpr EnumName<Principal> principal_names[] = {
    {Principal::agent, "agent", 0}, {Principal::user, "user", 1}, {Principal::system, "system", 2}};
template <>
inline constexpr std::span<const EnumName<Principal>> enum_table<Principal> = principal_names;
// `stopped` is never stored: a restart row says which fires the app stopped in, and a
// resolution row how one was resolved (the confirmed outcomes follow from it).
inline constexpr EnumName<Outcome> outcome_names[] = {
    {Outcome::pending, "pending", 0},
    {Outcome::observed, "observed", 1},
    {Outcome::not_observed, "not_observed", 2},
    {Outcome::unobservable, "unobservable", 3},
    {Outcome::handler_failed, "handler_failed", 4},
    {Outcome::not_materialized, "not_materialized", 5},
    {Outcome::verify_failed, "verify_failed", 6},
    {Outcome::inferred, "inferred", 7},
    {Outcome::rejected, "rejected", 8},
    {Outcome::stopped, "stopped", -1},
    {Outcome::confirmed, "confirmed", -1},
    {Outcome::confirmed_not_run, "confirmed_not_run", -1},
    {Outcome::confirmed_not_observed, "confirmed_not_observed", -1},
    {Outcome::confirmed_by_person, "confirmed_by_person", -1},
    {Outcome::confirmed_not_run_by_person, "confirmed_not_run_by_person", -1},
    {Outcome::confirmed_not_observed_by_person, "confirmed_not_observed_by_person", -1},
};
template <>
inline constexpr std::span<const EnumName<Outcome>> enum_table<Outcome> = outcome_names;
inline constexpr EnumName<Refusal> refusal_names[] = {
    {Refusal::unknown_affordance, "UNKNOWN_AFFORDANCE", 0},
    {Refusal::not_materialized, "NOT_MATERIALIZED", 1},
    {Refusal::tool_disabled, "TOOL_DISABLED", 2},
    {Refusal::guard_failed, "GUARD_FAILED", 3},
    {Refusal::prior_fire_pending, "PRIOR_FIRE_PENDING", 4},
    {Refusal::duplicate_execution, "DUPLICATE_EXECUTION", 5},
    {Refusal::approval_required, "APPROVAL_REQUIRED", 6},
    {Refusal::approval_declined, "APPROVAL_DECLINED", 7},
    {Refusal::approval_spent, "APPROVAL_SPENT", 8},
    {Refusal::approval_revoked, "APPROVAL_REVOKED", 9},
    {Refusal::approval_mismatch, "APPROVAL_MISMATCH", 10},
    {Refusal::approval_stale, "APPROVAL_STALE", 11},
    {Refusal::payload_invalid, "PAYLOAD_INVALID", 12},
    {Refusal::unsupported_argument, "UNSUPPORTED_ARGUMENT", 13},
    {Refusal::instance_required, "INSTANCE_REQUIRED", 14},
    {Refusal::instance_unknown, "INSTANCE_UNKNOWN", 15},
    {Refusal::request_key_reused, "REQUEST_KEY_REUSED", 16},
};
template <>
inline constexpr std::span<const EnumName<Refusal>> enum_table<Refusal> = refusal_names;
inline constexpr EnumName<AskState> ask_state_names[] = {
    {AskState::awaiting, "awaiting", 0}, {AskState::approved, "approved", 1}, {AskState::declined, "declined", 2},
    {AskState::spent, "spent", 3},       {AskState::revoked, "revoked", 4},
};
template <>
inline constexpr std::span<const EnumName<AskState>> enum_table<AskState> = ask_state_names;
}  // namespace detail

constexpr std::string_view to_string(Principal p) noexcept { return detail::name_of(p); }
constexpr std::string_view to_string(Outcome o) noexcept { return detail::name_of(o); }
constexpr std::string_view to_string(Refusal r) noexcept { return detail::name_of(r); }
constexpr std::string_view to_string(AskState s) noexcept { return detail::name_of(s); }

// A confirm ask: a card waiting on (or answered by) a person.
struct AskStatus {
  std::string id;  // "ask-1", ...
  std::string action;
  std::optional<std::string> does;  // frozen at minting
  nlohmann::json input = nullptr;   // detached copy of what was asked; the approval is bound to it
  AskState state = AskState::awaiting;
  std::string by = "";                                  // who answered: audit only, never rendered
  std::uint64_t version = 0;                            // session version when it was minted
  std::string spent_by = "";                            // the transition that used the approval
  std::string revoked_by = "";                          // who withdrew the yes: audit only, never rendered
  std::chrono::system_clock::time_point approved_at{};  // for approval_ttl (wall clock: it must
                                                        // mean the same after a restart)
  // The values the action's `reads` keys had when the yes was given:
  // {key: [value]} for a present key, {key: []} for an absent one.
  nlohmann::json approved_reads = nlohmann::json::object();
  std::string instance = "";  // the item the approval is for (ActionSpec::instances); never rendered
};

// "Allow this action without asking, this session": one per action, the latest decision.
struct StandingGrant {
  std::string action;
  std::optional<std::string> does;  // frozen at the first grant
  bool active = true;
  std::string by = "";          // who granted: audit only, never rendered
  std::string revoked_by = "";  // who withdrew it, once withdrawn
  std::uint64_t version = 0;    // session version at the latest decision
};

// What happened to an action this session, for Concurrency::once. A receipt is minted by
// every recorded agent or system fire whose handler did not fail; a user transition
// (fired or inferred) reopens it, so the next agent fire proceeds and mints anew.
struct OnceReceipt {
  // The fire holding the receipt, or the user transition that reopened it, by its index in
  // the ledger (its id is detail::transition_id_of(transition)).
  std::size_t transition = 0;
  bool reopened = false;
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
// A row as the session holds it (detail/ledger/records.hpp), and the public row made from it.
struct TransitionRecord;
struct GapRecord;
template <class Row>
struct record_of;
inline Transition materialize(const TransitionRecord& r, std::size_t index);
inline GapRow materialize(const GapRecord& r, std::size_t index);
}  // namespace detail

// The rows of one ledger a Session::View reads, oldest first: random access, and each row
// read is a Transition or GapRow made from what the session holds (the session keeps its
// rows compact, so a row is put together when it is read, not stored whole).
//   for (const gp::Transition& t : view.transitions()) ...
template <class Row>
class LedgerRows {
  using Record = typename detail::record_of<Row>::type;

 public:
  class iterator {
   public:
    using iterator_concept = std::random_access_iterator_tag;
    // Yields values, not references (as vector<bool>'s does); std::prev and std::advance
    // move it as the random-access iterator it is.
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Row;
    using difference_type = std::ptrdiff_t;
    using reference = Row;
    iterator() = default;
    Row operator*() const { return detail::materialize(held_[i_], first_ + i_); }
    // it->field: the row made for this one expression.
    struct Arrow {
      Row row;
      const Row* operator->() const noexcept { return &row; }
    };
    Arrow operator->() const { return {**this}; }
    Row operator[](difference_type n) const { return *(*this + n); }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    iterator operator++(int) {
      iterator was = *this;
      ++i_;
      return was;
    }
    iterator& operator--() {
      --i_;
      return *this;
    }
    iterator operator--(int) {
      iterator was = *this;
      --i_;
      return was;
    }
    iterator& operator+=(difference_type n) {
      i_ += static_cast<std::size_t>(n);
      return *this;
    }
    iterator& operator-=(difference_type n) {
      i_ -= static_cast<std::size_t>(n);
      return *this;
    }
    friend iterator operator+(iterator it, difference_type n) { return it += n; }
    friend iterator operator+(difference_type n, iterator it) { return it += n; }
    friend iterator operator-(iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }
    friend auto operator<=>(const iterator& a, const iterator& b) noexcept { return a.i_ <=> b.i_; }

   private:
    friend class LedgerRows;
    // What it reads is copied: an iterator may outlive the range object it came from.
    iterator(std::span<const Record> held, std::size_t first, std::size_t i) : held_(held), first_(first), i_(i) {}
    std::span<const Record> held_;
    std::size_t first_ = 0;
    std::size_t i_ = 0;
  };

  LedgerRows(std::span<const Record> held, std::size_t first_index) noexcept : held_(held), first_(first_index) {}
  std::size_t size() const noexcept { return held_.size(); }
  bool empty() const noexcept { return held_.empty(); }
  // The rows as the session holds them (detail::TransitionRecord / GapRecord), for the
  // library's own readers that need a few fields of every row, not whole values.
  std::span<const Record> records() const noexcept { return held_; }
  // i < size()
  Row operator[](std::size_t i) const { return detail::materialize(held_[i], first_ + i); }
  Row front() const { return (*this)[0]; }
  Row back() const { return (*this)[size() - 1]; }
  iterator begin() const noexcept { return iterator(held_, first_, 0); }
  iterator end() const noexcept { return iterator(held_, first_, size()); }

 private:
  std::span<const Record> held_;
  std::size_t first_;
};

}  // namespace groundplane

#include "groundplane/detail/ledger/records.hpp"
