// gp::Session — the app's side of an agent conversation: the actions it declares, where
// the user is, the app's state, and the two ledgers (what was done, what was refused)
// from which the ground-truth block is rendered.
//
//   gp::Session s({.node = "checkout", .require_human_approval = true});
//   auto place = s.declare("checkout.place-order",
//                          {.does = "Place the order.", .writes = {"order_id"},
//                           .handler = [&](const nlohmann::json& p) { return submit(p); },
//                           .high_effect = true});
//   s.fire("checkout.place-order");             // refused: APPROVAL_REQUIRED (a gap row)
//   s.ground_truth().text;                      // says so, under a header that outranks
//                                               // anything the conversation claims
//
// Thread safety: every member function may be called from any thread. One mutex guards
// the session; handlers run with it released, so a handler may call report_state,
// begin_work, fire or any other member (from its own thread or another). The
// predicates (enabled_when, guard, verify) run with it held and must not call back
// into the session: doing so throws ConfigurationError instead of deadlocking. A
// Session::View holds the mutex for its lifetime; calling the session on the same
// thread while a View is alive also throws ConfigurationError.
//
// Handler exceptions: a handler that throws is graded "the app's handler failed", its
// pending report and any approval it spent are settled, and then the exception is
// rethrown to the caller of fire(). The ledger is consistent before the rethrow.
//
// A handler's own report: report_state without a transition id, called on the thread
// running a handler, settles that handler's fire (never another thread's).
//
// Repeats (ActionSpec::concurrency) and the approval lifecycle (revoke_ask, approval_ttl,
// ActionSpec::reads, standing grants) are described in docs/ground-truth.md.
//
// The session's internals (what it holds, how a fire is gated and recorded, settlement,
// restore) are in detail/session/session_core.hpp and the detail headers beside it; the stored
// rows are defined once in detail/ledger/ledger_codec.hpp (docs/ledger-format.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/action.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/session_lock.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/ground_truth.hpp"
#include "groundplane/ledger.hpp"
#include "groundplane/session_options.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane {

struct Ask {
  std::string id;
  std::string action;
  // For an action with argument_checks: what supports each argument a passing check
  // read (field, fact, the fact's provenance), for the card a person approves from.
  std::vector<ArgumentSupport> support = {};
  std::string instance = "";  // the item the approval is for (ActionSpec::instances)
};

// The human doors. reason: "" when ok, else "UNKNOWN_ASK", "ALREADY_APPROVED",
// "ALREADY_DECLINED", "ALREADY_SPENT", "ALREADY_REVOKED", "NOT_APPROVED" (revoking an ask
// still awaiting its decision), and for standing grants "ALREADY_GRANTED" / "NOT_GRANTED".
struct ApprovalResult {
  bool ok;
  std::string reason;
  explicit operator bool() const noexcept { return ok; }
};

// Where an action id stands right now.
enum class Availability {
  available,    // declared and enabled: the agent port serves it
  disabled,     // declared here, enabled_when does not hold
  not_mounted,  // the app declared it earlier this session; it is not mounted now
  unknown,      // never declared in this session
};

// One declared action as offered now.
struct ActionInfo {
  std::string id;
  std::string does;
  bool enabled = true;
  bool materialized = true;          // has a handler
  bool already_performed = false;    // a `once` action a fire would find DUPLICATE_EXECUTION (then enabled is false)
  nlohmann::json expects = nullptr;  // ActionSpec::input as declared (a schema or "none"); null: not declared
  bool human_decides = false;        // ActionSpec::human_decides is set: its choice is the person's
};

// An action whose choice is the person's (ActionSpec::human_decides), as it stands now.
struct Decision {
  std::string action;
  std::string about;
  std::optional<bool> made;  // done_when's answer; nullopt when it has none or cannot tell
  friend bool operator==(const Decision&, const Decision&) = default;
};

// A fire a restart left in doubt (Session::in_doubt_fires()): the app stopped after its
// handler may have started and before its grade was committed.
struct InDoubtFire {
  std::string transition_id;
  std::string action;
  std::string idempotency_key;    // what the system its handler called knows it by ("" before 0.4)
  std::string instance = "";      // its item (ActionSpec::instances)
  bool handler_returned = false;  // its handler had returned: only its declared effect is in doubt
};

// The friendly narrative that goes beside the facts block (see context_brief).
struct Brief {
  std::string node;
  std::string focus;
  std::uint64_t version;
  std::string text;
};

class Session;

namespace detail {
struct SessionCore;  // what a session holds: detail/session/session_core.hpp
// A retry's replay (FireOptions::request_key), when its key is bound to a fire it matches;
// nothing otherwise, and nothing written either way (the agent port asks before it fires).
std::optional<FireResult> replay_bound(Session& session, std::string_view id, const FireOptions& options);
GroundTruth ground_truth_probed(const Session& session, const GroundTruthOptions& opts, RenderProbe& probe);
// What AgentPort serves about a declared action beside its ActionInfo: its reads and
// writes (as declared) that another changed since the cursor (none judged without one:
// whats_here passes 0 for a look without a cursor), and the items it acts on.
struct OfferDetails {
  std::vector<std::string> stale_reads;
  std::vector<std::string> stale_writes;
  bool has_instances = false;
  std::vector<std::string> instances;  // the first max_instances, in the selector's order, each once
  std::size_t instances_total = 0;     // how many distinct items there are
  bool instances_unavailable = false;  // the selector threw: it could not list them
};
// Every declared action (or only `only`, when given), under one lock.
std::map<std::string, OfferDetails, std::less<>> offer_details(const Session& session,
                                                               std::optional<std::uint64_t> since,
                                                               std::size_t max_instances, std::string_view only = {});
// Session::confirm_ask as the agent port asks: the ask is minted only when its input fits
// what SessionOptions::max_refused_payload_bytes has left (else nullopt, and nothing is).
std::optional<Ask> confirm_ask_within_budget(Session& session, std::string_view id, nlohmann::json input,
                                             std::string instance);
}  // namespace detail

// Returned by declare(). Dropping it does not unmount (components often let it go);
// undeclare() unmounts this declaration only — not a later re-declaration of the same
// id — and is a no-op once the session is gone.
class ActionHandle {
 public:
  ActionHandle() = default;
  const std::string& id() const noexcept { return id_; }
  void undeclare();
  bool mounted() const;

 private:
  friend class Session;
  ActionHandle(std::weak_ptr<detail::SessionCore> core, std::string id, std::uint64_t generation)
      : core_(std::move(core)), id_(std::move(id)), generation_(generation) {}
  std::weak_ptr<detail::SessionCore> core_;
  std::string id_;
  std::uint64_t generation_ = 0;
};

// Open work the app is doing. RAII: done() closes it, and so does destruction, so work
// cannot be left "still working" by an early return or an exception.
class [[nodiscard]] WorkHandle {
 public:
  WorkHandle() = default;
  WorkHandle(WorkHandle&& o) noexcept : core_(std::move(o.core_)), index_(o.index_), id_(std::move(o.id_)) {
    o.core_.reset();
  }
  WorkHandle& operator=(WorkHandle&& o) noexcept {
    if (this != &o) {
      close_quietly();
      core_ = std::move(o.core_);
      o.core_.reset();
      index_ = o.index_;
      id_ = std::move(o.id_);
    }
    return *this;
  }
  WorkHandle(const WorkHandle&) = delete;
  WorkHandle& operator=(const WorkHandle&) = delete;
  ~WorkHandle() { close_quietly(); }

  const std::string& id() const noexcept { return id_; }
  void done();  // idempotent

 private:
  friend class Session;
  WorkHandle(std::weak_ptr<detail::SessionCore> core, std::size_t index, std::string id)
      : core_(std::move(core)), index_(index), id_(std::move(id)) {}
  void close_quietly() noexcept {
    try {
      done();
    } catch (...) {  // a destructor must not throw; the row stays open instead
    }
  }
  std::weak_ptr<detail::SessionCore> core_;
  std::size_t index_ = 0;
  std::string id_;
};

class Session {
 public:
  // Read access to the ledgers. Holds the session's mutex while alive, so what it reads is
  // stable and consistent; keep it short-lived, and do not call the
  // session on the same thread while it lives (that throws ConfigurationError).
  //   auto v = session.view();
  //   v.transitions()[0].cause.does;
  class View {
   public:
    View(const View&) = delete;
    View& operator=(const View&) = delete;

    // The rows held in memory, oldest first: every row, unless max_rows_in_memory dropped
    // the oldest (attempts() - held_attempts() of them).
    LedgerRows<Transition> transitions() const noexcept {
      return {ledger_->transitions.held(), ledger_->transitions.dropped()};
    }
    LedgerRows<GapRow> gap_rows() const noexcept { return {ledger_->gaps.held(), ledger_->gaps.dropped()}; }
    // Every attempt of the session (transitions and gap rows), held or not.
    std::size_t attempts() const noexcept { return ledger_->transitions.size() + ledger_->gaps.size(); }
    std::size_t held_attempts() const noexcept {
      return ledger_->transitions.held().size() + ledger_->gaps.held().size();
    }
    std::span<const AskStatus> asks() const noexcept { return ledger_->asks; }
    std::span<const WorkRow> work() const noexcept { return ledger_->work; }
    // Fires still awaiting the app's report, oldest first.
    std::vector<PendingInfo> pending_fires() const {
      std::vector<PendingInfo> out;
      for (const std::size_t k : ledger_->awaiting_report) {
        const detail::TransitionRecord& t = ledger_->transitions[k];
        out.push_back(
            PendingInfo{detail::transition_id_of(k), t.action.str(), t.does.optional(), t.version, t.principal});
      }
      return out;
    }
    // The transition with this id, when the session has it and holds it in memory.
    std::optional<Transition> transition(std::string_view id) const {
      const auto k = detail::row_index(id, "t-", ledger_->transitions);
      if (!k || !ledger_->transitions.holds(*k)) return std::nullopt;
      return detail::materialize(ledger_->transitions[*k], *k);
    }
    const AskStatus* ask(std::string_view id) const {
      const auto k = detail::row_index(id, "ask-", ledger_->asks);
      return k ? &ledger_->asks[*k] : nullptr;
    }
    std::span<const StandingGrant> standing_grants() const noexcept { return ledger_->standing; }
    const nlohmann::json& state() const noexcept { return *state_; }
    std::uint64_t version() const noexcept { return ledger_->version; }
    const std::string& node() const noexcept { return ledger_->node.str(); }
    const std::string& focus() const noexcept { return ledger_->focus; }
    bool actions_may_be_stale() const noexcept { return ledger_->actions_may_be_stale; }

   private:
    friend class Session;
    explicit View(const detail::SessionCore& core);
    detail::SessionLock lock_;
    const detail::Ledger* ledger_;
    const nlohmann::json* state_;
  };

  // With options.store: a store that holds no rows of its session starts it (its first
  // row records the node and state); one that does restores it — version, state, node
  // and focus, both ledgers, asks and their states, spent approvals, once receipts,
  // standing grants — and a fire that was awaiting its report (or whose handler was
  // running) when the app stopped is graded "the app stopped before reporting back",
  // no longer awaited. Work left open by the stopped app is closed. Actions are code:
  // declare them again. Throws LedgerStoreError when the store cannot be read or written.
  // A restore trusts no row it has not verified: the session's hash chain is re-derived
  // as its rows are read, and a chain that breaks (or does not pass through the store's
  // expected_head) refuses the restore with LedgerStoreError naming the first bad row;
  // nothing is appended to it.
  explicit Session(SessionOptions options = {});
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&&) noexcept = default;  // a moved-from session may only be destroyed or assigned
  Session& operator=(Session&&) noexcept = default;
  ~Session() = default;

  // Mounts an action (or re-mounts it with a new spec). Rows minted earlier keep the
  // `does` they captured. Throws ConfigurationError for an empty id or `does`, or a
  // malformed JSON Pointer in `writes`.
  ActionHandle declare(std::string id, ActionSpec spec);

  // Unmounts whatever is declared under `id` now; a no-op when nothing is.
  void undeclare(std::string_view id);

  void move_to(std::string node, std::string focus = "");

  // Writes exactly one row: a transition when recorded, a gap row when refused — or none,
  // for a retry (FireOptions::request_key) answered with its first result (`replayed`).
  // A request key over max_request_key_length characters is a ConfigurationError. The
  // payload is measured first, without recursion: one nested past max_payload_depth is
  // refused PAYLOAD_INVALID (at that step of the gate), and a refusal keeps a payload
  // only within SessionOptions::max_refused_payload_bytes (FireResult::payload_omitted).
  FireResult fire(std::string_view id, FireOptions options = {});

  // Merges `delta` (a JSON object) into the state per RFC 7386, then settles: the named
  // transition; else, from inside a handler, that handler's own fire; else the oldest
  // fire awaiting a report; else — when nothing is pending — infers a user fire if
  // exactly one declared action's writes are all in the delta.
  // A transition_id that names no transition is a ConfigurationError (nothing changes);
  // one that is already settled changes the state but never the history.
  // NOLINTNEXTLINE(performance-unnecessary-value-param): the signature is the API's
  void report_state(const nlohmann::json& delta, std::string transition_id = "");

  // The app says a pending fire failed: graded "did NOT happen — ... (the app reported it
  // failed)", no longer awaited, and its `once` receipt withdrawn (the action may be fired
  // again). `code` is kept on the row and in the store for the app's logs, never
  // rendered. True when it settled the fire; false, changing nothing, for a transition
  // that is settled already or that the session never recorded. A fire whose handler is
  // still running may be rejected: its handler's return is then not graded again.
  // NOLINTNEXTLINE(performance-unnecessary-value-param): the signature is the API's
  bool reject(std::string_view transition_id, std::string code = "");

  // A person checked (the payment provider, say) whether a fire a restart left in doubt
  // happened: the human-side door for what ActionSpec::probe answers. Its line then reads
  // as the probe's, "(confirmed by a person after a restart)"; a "did not happen" for a
  // fire whose handler had not returned reopens its `once` receipt and frees its request
  // key, and the fire that takes its place reuses its idempotency key. `by` is kept for
  // audit and never rendered (empty or blank: ConfigurationError). True when it resolved
  // the fire; false, changing nothing, for a fire that is not in doubt (unknown, settled,
  // or resolved already).
  bool resolve(const std::string& transition_id, bool happened, std::string by);

  // Mints a card for a human (or returns the open one — awaiting, or approved and not
  // stale — for the same action and an equal input, so repeated asks do not pile up).
  // The input is copied: the approval is bound to what was asked, whatever the caller
  // does with its object afterwards. The action must be declared now
  // (ConfigurationError otherwise). O(size of the input), whatever the number of asks.
  // For an action with instances the card is for one item (`instance`, required then and
  // refused otherwise: ConfigurationError); a fire presenting it for another item is
  // refused APPROVAL_MISMATCH. An input nested past max_payload_depth is a
  // ConfigurationError (nobody could be shown it; nothing is minted). The input counts
  // against SessionOptions::max_refused_payload_bytes (an ask the app mints is minted
  // whatever that says; the agent port's are not, past it).
  // NOLINTNEXTLINE(performance-unnecessary-value-param): the signature is the API's
  Ask confirm_ask(std::string_view id, nlohmann::json input = nullptr, std::string instance = "");

  // Human-side doors; never served to a model. `by` is kept for audit and never
  // rendered; an empty or blank `by` is a ConfigurationError on every door.
  ApprovalResult approve_ask(std::string_view ask_id, std::string by);

  // Terminal for its ask. An approval nothing has used yet may still be turned into a no.
  ApprovalResult decline_ask(std::string_view ask_id, std::string by);

  // Withdraws an approved, unspent yes: presenting it is refused APPROVAL_REVOKED.
  // NOT_APPROVED for an ask still awaiting its decision (decline that instead).
  ApprovalResult revoke_ask(std::string_view ask_id, std::string by);

  // "Allow this action without asking": agent fires of it pass the approval gate with no
  // ask until revoke_standing, each such transition marked standing_grant. The action
  // must be declared now (ConfigurationError otherwise).
  ApprovalResult grant_standing(std::string_view action_id, std::string by);

  ApprovalResult revoke_standing(std::string_view action_id, std::string by);

  // Opens a work row, bound to a recorded transition when transition_id is given
  // (ConfigurationError if it names none). The label is audit data, never rendered.
  [[nodiscard]] WorkHandle begin_work(std::string label = "", std::string transition_id = "");

  // The app could not re-read its list of actions: the block says so (one fixed line)
  // until mark_actions_fresh().
  void mark_actions_may_be_stale() { set_actions_stale(true); }
  void mark_actions_fresh() { set_actions_stale(false); }

  std::uint64_t version() const;
  std::string node() const;
  std::string focus() const;
  nlohmann::json state() const;
  View view() const { return View(*core_); }

  // Copies of the rows, for reading without holding the session (session.transitions()[0]
  // .cause.does). Each copies its whole ledger: prefer view() on a long session.
  std::vector<Transition> transitions() const;
  std::vector<GapRow> gap_rows() const;
  std::vector<AskStatus> asks() const;
  std::vector<WorkRow> work() const;
  std::vector<PendingInfo> pending_fires() const { return view().pending_fires(); }

  // What is declared now, in declaration order, with enabled_when evaluated now.
  std::vector<ActionInfo> actions() const;

  // What became of a fire or an ask, as the agent's did_it_work tool answers it
  // (docs/agent-actions.md): for a transition id, {ok, settled, did, line, data?} once
  // settled ("yes", "no" or "unknown", and the block's line for it), or {ok, settled:
  // false, line, message} while pending; for an ask id, {ok, ask: its state or "stale",
  // transition_id of the fire that spent it}; {ok: false, reason: "NO_LONGER_HELD"} for a
  // transition max_rows_in_memory let go of when there is no store to read it from; and
  // {ok: false, reason: "UNKNOWN_TRANSITION", pending, awaiting_human} for an id the
  // session never issued. Reading an evicted row back from a store is one pass over it.
  nlohmann::json outcome(std::string_view id) const;

  Availability availability(std::string_view id) const;

  // Called from inside a handler: the item its fire names (FireOptions::instance), so one
  // handler serves every item of an action with instances. "" for a fire without one, and
  // outside a handler of this session.
  std::string current_instance() const;

  // Called from inside a handler: its fire's transition id, idempotency key (to hand to
  // the system it calls) and item. Outside a handler of this session: ConfigurationError.
  // The reference lives until the handler returns.
  const FireContext& current_fire() const;

  // The fires a restart left in doubt and nothing has resolved yet, oldest first.
  std::vector<InDoubtFire> in_doubt_fires() const;

  // The actions declared now whose choice is the person's (ActionSpec::human_decides), in
  // declaration order, each with done_when's answer now.
  std::vector<Decision> decisions() const;

  // The state keys changed at or after `version` (a key changed while the session was at
  // version V counts for every cursor <= V), as JSON Pointers to the deepest members the
  // reports set or removed ({"cart": {"items": [...]}} changes /cart/items), sorted. A
  // report that sets a member to the value it had changes nothing.
  std::vector<std::string> keys_changed_since(std::uint64_t version) const;

  // The agent has seen what changed under this action's reads and writes: whats_here
  // stops flagging them stale_reads / stale_writes until a later change (by anyone but
  // the agent's own recorded fires). The agent's next recorded fire of the action does
  // the same. The action must be declared now (ConfigurationError otherwise).
  void acknowledge_stale(std::string_view action);

  GroundTruth ground_truth(GroundTruthOptions options = {}) const;

  // The hex head hash of the stored ledger ("" without a store): what to publish so a
  // later verify_sqlite_ledger(..., head) catches rows cut from the tail.
  std::string head() const;

  // The friendly narrative: where the user is, what is on offer (with each action's
  // `does`), and the steps recorded lately, by their `does`. It never grades and never
  // lists refusals — that is the facts block's job — so the two do not overlap.
  //
  // Wiring, driving a loop yourself — every turn, both blocks, verbatim:
  //
  //   const auto facts = session.ground_truth({.since_version = last_seen});
  //   const auto brief = session.context_brief(last_seen);
  //   last_seen = facts.version;
  //   call_model(facts.text + "\n\n" + brief.text + "\n\n" + user_turn);
  //
  // Send it every turn (grounding once grounds one turn), send the facts text verbatim
  // (its header is what ranks it above the conversation), and never feed the model its
  // own earlier prose as history: that is a claim; the block is the record.
  Brief context_brief(std::optional<std::uint64_t> since_version = std::nullopt) const;

 private:
  friend GroundTruth detail::ground_truth_probed(const Session&, const GroundTruthOptions&, detail::RenderProbe&);
  friend std::optional<FireResult> detail::replay_bound(Session&, std::string_view, const FireOptions&);
  friend std::map<std::string, detail::OfferDetails, std::less<>> detail::offer_details(const Session&,
                                                                                        std::optional<std::uint64_t>,
                                                                                        std::size_t, std::string_view);
  friend std::optional<Ask> detail::confirm_ask_within_budget(Session&, std::string_view, nlohmann::json, std::string);
  static std::shared_ptr<detail::SessionCore> make_core(SessionOptions o);
  void set_actions_stale(bool on);

  std::shared_ptr<detail::SessionCore> core_;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/session-inl.hpp"
#endif
