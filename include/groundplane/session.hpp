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
// Where the session's mutable state lives: detail::Ledger holds every row and record a
// durable store writes and a restore reads back — transitions, gap rows, asks with their
// states (spent approvals included), work rows, standing grants (Ledger::standing), once
// receipts (Ledger::receipts) — plus detail::SessionCore::state; fires still pending are
// the transitions whose outcome is Outcome::pending. Everything else in SessionCore
// (in_flight, unsettled, ask_by_key, standing_index, the Ledger's index sets) is derived
// from those rows.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/ground_truth.hpp"
#include "groundplane/ledger.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane {

struct HandlerResult {
  bool ok = true;
  std::string error = "";  // kept on the row for the developer; never rendered
};

// What a repeat of an action gets (agent and system fires; a user's fire is always
// recorded, marked a repeat, and reopens the action).
enum class Concurrency {
  parallel,       // any number of fires, in flight at once or one after another
  single_flight,  // refused PRIOR_FIRE_PENDING while an earlier recorded fire has not settled
  once,           // single_flight, and refused DUPLICATE_EXECUTION once it has happened this session
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
};

// The durable ledger a session writes through: groundplane/store/ledger_store.hpp (the
// interface), groundplane/store/sqlite.hpp (a store). Without one, everything is in memory.

struct SessionOptions {
  std::string node = "";
  nlohmann::json state = nlohmann::json::object();
  bool require_human_approval = false;
  bool allow_unmaterialized_fires = false;
  std::chrono::milliseconds approval_ttl{0};     // 0: approvals never expire; else older ones are APPROVAL_STALE
  std::shared_ptr<LedgerStore> store = nullptr;  // null: memory only; else every row is committed to it before
                                                 // the call that made it returns (docs/ledger-store.md), and a
                                                 // store holding this session restores it (node and state then
                                                 // come from it)
  std::size_t max_rows_in_memory = 0;            // 0: keep every row in memory; else hold at most this many
                                                 // attempts (transitions + gap rows), the newest; older ones
                                                 // stay in the store, or without one are dropped and counted
};

struct FireOptions {
  Principal source = Principal::agent;
  nlohmann::json payload = nullptr;
  std::string ask_id = "";
};

// ok: the fire was recorded and its handler (if any) did not fail. Refusals carry their
// reason; a failed handler is "HANDLER_FAILED" with the transition id set. How the fire
// finally turned out (observed, not observed, ...) is the ledger's grade, not this.
struct FireResult {
  bool ok;
  std::string reason;  // "" when ok
  std::string transition_id;
  std::string prior_transition_id = "";  // PRIOR_FIRE_PENDING / DUPLICATE_EXECUTION: the earlier fire
};

struct Ask {
  std::string id;
  std::string action;
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
  bool materialized = true;        // has a handler
  bool already_performed = false;  // a `once` action a fire would find DUPLICATE_EXECUTION (then enabled is false)
};

// The friendly narrative that goes beside the facts block (see context_brief).
struct Brief {
  std::string node;
  std::string focus;
  std::uint64_t version;
  std::string text;
};

class Session;
class ActionHandle;
class WorkHandle;

namespace detail {

// A fire whose action declares writes, until it is graded.
struct Unsettled {
  std::vector<std::string> writes;
  std::function<bool(const nlohmann::json&)> verify;
  bool handler_returned = false;
  bool reported = false;
  bool observed = false;
  bool verify_failed = false;
};

struct Mounted {
  ActionSpec spec;
  SharedText id;  // the rows this declaration mints share these
  SharedText does;
  std::uint64_t generation = 0;  // which declare() this is; handles only unmount their own
  std::uint64_t order = 0;       // declaration order, for listings
  // Found on the first fire and kept, so a fire looks neither up: the session's in-flight
  // lists and once receipts are never erased, so these stay valid while the session lives.
  std::vector<std::size_t>* flying = nullptr;  // this action's fires in flight (InFlight::of)
  OnceReceipt* receipt = nullptr;              // its once receipt, once it has one
};

// Recorded fires not graded yet (handler running, or awaiting the report), by action:
// what single_flight and once ask about. An action's list stays once made and empties
// and refills, so a steady run of fires allocates nothing here.
class InFlight {
 public:
  bool any(std::string_view action) const {
    const auto it = by_action_.find(action);
    return it != by_action_.end() && !it->second.empty();
  }
  // `action`'s fires in flight, oldest first: a list that lives as long as the session.
  std::vector<std::size_t>& of(const std::string& action) { return by_action_[action]; }
  static void add(std::vector<std::size_t>& ks, std::size_t k) {
    ks.insert(std::upper_bound(ks.begin(), ks.end(), k), k);
  }
  void add(const std::string& action, std::size_t k) { add(of(action), k); }
  static void remove(std::vector<std::size_t>& ks, std::size_t k) {
    const auto at = std::lower_bound(ks.begin(), ks.end(), k);
    if (at != ks.end() && *at == k) ks.erase(at);
  }
  void remove(std::string_view action, std::size_t k) {
    const auto it = by_action_.find(action);
    if (it != by_action_.end()) remove(it->second, k);
  }
  // Every fire in flight, each action's oldest first.
  std::vector<std::size_t> all() const {
    std::vector<std::size_t> out;
    for (const auto& [action, ks] : by_action_) out.insert(out.end(), ks.begin(), ks.end());
    return out;
  }

 private:
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_action_;
};

// Everything the session decides from lives in `ledger` (rows and the plain records of
// asks, standing grants and once receipts) and `state`; the maps below are lookups
// derived from those rows, so a session restored from stored rows rebuilds them.
struct SessionCore {
  explicit SessionCore(SessionOptions o);

  mutable std::mutex mutex;
  mutable std::atomic<std::thread::id> owner{};  // the thread holding `mutex`, if any

  nlohmann::json state;
  const bool require_human_approval;
  const bool allow_unmaterialized_fires;
  const std::chrono::milliseconds approval_ttl;
  const std::shared_ptr<LedgerStore> store;  // null: memory only
  const std::size_t max_rows_in_memory;
  Ledger ledger;

  // The durable ledger (store set): rows a call made, committed together before it returns.
  bool claimed_store = false;     // this session holds the store (LedgerStore::backs_a_session_)
  std::string head;               // hex hash of the newest stored row
  std::vector<LedgerRow> outbox;  // rows made by the call in progress
  // The `does` each action's latest stored row carried: a row repeats it only when it
  // changes, so a long session does not store the same sentence a million times.
  std::map<std::string, std::optional<std::string>, std::less<>> does_written;

  void emit(const char* kind, nlohmann::json body);
  // Grades of fires whose handler returned but whose commit failed: the handler ran, so
  // the row is kept and goes first in the next commit (a call that writes, a block,
  // head(), the session's end) rather than being dropped like a failed call's own rows.
  std::vector<LedgerRow> deferred;
  void defer(const char* kind, nlohmann::json body);
  void put_does(nlohmann::json& body, const std::string& action, const std::optional<std::string>& does);
  // Commits the call's rows as one unit. On failure nothing of them is stored and the
  // LedgerStoreError propagates.
  // Deferred grades go first (they are older) and stay deferred if the store fails: they
  // describe what already happened, unlike the failing call's own rows.
  void flush();
  ~SessionCore();
  SessionCore(const SessionCore&) = delete;
  SessionCore& operator=(const SessionCore&) = delete;

  // Under max_rows_in_memory: once more attempts are held than the cap, the oldest
  // quarter of it goes (in block order: a refusal before the transition of its version),
  // so holding stays at most the cap and dropping costs O(1) a row. A fire not graded yet
  // is kept aside until it is.
  void trim();
  // Under the cap a payload is held only while something needs it: an open ask's input,
  // a fire not graded yet. The store keeps it.
  bool holds_payloads() const noexcept { return max_rows_in_memory == 0; }

  std::map<std::string, Mounted, std::less<>> actions;
  std::map<std::string, bool, std::less<>> ever_declared;
  std::uint64_t next_generation = 1;
  std::uint64_t next_order = 0;

  std::map<std::size_t, Unsettled> unsettled;  // by transition index
  InFlight in_flight;
  SharedText last_refused;  // the id of the latest refusal of an undeclared action: repeats share it
  // The open ask for an action and an input: (action, canonical input) -> index in asks,
  // so asking again and firing never scan the asks.
  std::unordered_map<std::string, std::size_t> ask_by_key;
  std::map<std::string, std::size_t, std::less<>> standing_index;  // action -> index in ledger.standing
};

struct Replay;     // what a restore tracks beyond the session itself (session-inl.hpp)
struct ParsedRow;  // a stored row and its body, read (detail/row_feed.hpp)

// "t-12" -> 11 when rows[11] has that id. Ids are minted as prefix + (index + 1), so
// finding a row by id is O(1) however long the session.
template <class Rows>
std::optional<std::size_t> row_index(std::string_view id, std::string_view prefix, const Rows& rows) {
  if (id.size() <= prefix.size() || id.size() > prefix.size() + 19 || id.substr(0, prefix.size()) != prefix ||
      id[prefix.size()] == '0')
    return std::nullopt;
  std::size_t n = 0;
  for (const char ch : id.substr(prefix.size())) {
    if (ch < '0' || ch > '9') return std::nullopt;
    n = n * 10 + static_cast<std::size_t>(ch - '0');
  }
  if (n == 0 || n > rows.size()) return std::nullopt;
  // A row no longer held (max_rows_in_memory) is still a row of this session: its id is
  // valid, and the caller asks rows.holds() before reading it.
  if constexpr (requires { rows[n - 1].id; }) {
    if (rows[n - 1].id != id) return std::nullopt;
  }
  return n - 1;
}

// The session's mutex, with a re-entrancy check: the thread that holds it calling back
// in is a bug (a predicate using the session, or a View left alive), and a loud
// ConfigurationError beats a silent deadlock.
class SessionLock {
 public:
  explicit SessionLock(const SessionCore& core) : core_(&core) { acquire(); }
  ~SessionLock() {
    if (held_) release();
  }
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

  void acquire() {
    if (core_->owner.load() == std::this_thread::get_id())
      throw ConfigurationError(
          "gp::Session called back into itself on the thread that holds it: enabled_when, "
          "guard and verify must not use the session, and no Session::View may be alive on "
          "this thread while it is called (handlers may call back; they run unlocked)");
    core_->mutex.lock();
    core_->owner.store(std::this_thread::get_id());
    held_ = true;
  }
  void release() {
    core_->owner.store(std::thread::id{});
    core_->mutex.unlock();
    held_ = false;
  }

 private:
  const SessionCore* core_;
  bool held_ = false;
};

GroundTruth ground_truth_probed(const Session& session, const GroundTruthOptions& opts, RenderProbe& probe);

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
      return {core_->ledger.transitions.held(), core_->ledger.transitions.dropped()};
    }
    LedgerRows<GapRow> gap_rows() const noexcept { return {core_->ledger.gaps.held(), core_->ledger.gaps.dropped()}; }
    // Every attempt of the session (transitions and gap rows), held or not.
    std::size_t attempts() const noexcept { return core_->ledger.transitions.size() + core_->ledger.gaps.size(); }
    std::size_t held_attempts() const noexcept {
      return core_->ledger.transitions.held().size() + core_->ledger.gaps.held().size();
    }
    std::span<const AskStatus> asks() const noexcept { return core_->ledger.asks; }
    std::span<const WorkRow> work() const noexcept { return core_->ledger.work; }
    // Fires still awaiting the app's report, oldest first.
    std::vector<PendingInfo> pending_fires() const {
      std::vector<PendingInfo> out;
      for (const std::size_t k : core_->ledger.awaiting_report) {
        const detail::TransitionRecord& t = core_->ledger.transitions[k];
        out.push_back(
            PendingInfo{detail::transition_id_of(k), t.action.str(), t.does.optional(), t.version, t.principal});
      }
      return out;
    }
    // The transition with this id, when the session has it and holds it in memory.
    std::optional<Transition> transition(std::string_view id) const {
      const auto k = detail::row_index(id, "t-", core_->ledger.transitions);
      if (!k || !core_->ledger.transitions.holds(*k)) return std::nullopt;
      return detail::materialize(core_->ledger.transitions[*k], *k);
    }
    const AskStatus* ask(std::string_view id) const {
      const auto k = detail::row_index(id, "ask-", core_->ledger.asks);
      return k ? &core_->ledger.asks[*k] : nullptr;
    }
    std::span<const StandingGrant> standing_grants() const noexcept { return core_->ledger.standing; }
    const nlohmann::json& state() const noexcept { return core_->state; }
    std::uint64_t version() const noexcept { return core_->ledger.version; }
    const std::string& node() const noexcept { return core_->ledger.node.str(); }
    const std::string& focus() const noexcept { return core_->ledger.focus; }
    bool actions_may_be_stale() const noexcept { return core_->ledger.actions_may_be_stale; }

   private:
    friend class Session;
    explicit View(const detail::SessionCore& core) : lock_(core), core_(&core) {}
    detail::SessionLock lock_;
    const detail::SessionCore* core_;
  };

  // With options.store: a store that holds no rows of its session starts it (its first
  // row records the node and state); one that does restores it — version, state, node
  // and focus, both ledgers, asks and their states, spent approvals, once receipts,
  // standing grants — and a fire that was awaiting its report (or whose handler was
  // running) when the app stopped is graded "the app stopped before reporting back",
  // no longer awaited. Work left open by the stopped app is closed. Actions are code:
  // declare them again. Throws LedgerStoreError when the store cannot be read or written.
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

  // Writes exactly one row: a transition when recorded, a gap row when refused.
  FireResult fire(std::string_view id, FireOptions options = {});

  // Merges `delta` (a JSON object) into the state per RFC 7386, then settles: the named
  // transition; else, from inside a handler, that handler's own fire; else the oldest
  // fire awaiting a report; else — when nothing is pending — infers a user fire if
  // exactly one declared action's writes are all in the delta.
  // A transition_id that names no transition is a ConfigurationError (nothing changes);
  // one that is already settled changes the state but never the history.
  // NOLINTNEXTLINE(performance-unnecessary-value-param): the signature is the API's
  void report_state(const nlohmann::json& delta, std::string transition_id = "");

  // Mints a card for a human (or returns the open one — awaiting, or approved and not
  // stale — for the same action and an equal input, so repeated asks do not pile up).
  // The input is copied: the approval is bound to what was asked, whatever the caller
  // does with its object afterwards. The action must be declared now
  // (ConfigurationError otherwise). O(size of the input), whatever the number of asks.
  Ask confirm_ask(std::string_view id, nlohmann::json input = nullptr);

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

  Availability availability(std::string_view id) const;

  GroundTruth ground_truth(GroundTruthOptions options = {}) const;

  // The hex head hash of the stored ledger ("" without a store): what to publish so a
  // later verify_ledger(..., head) catches rows cut from the tail.
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
  static constexpr std::size_t does_cap = 200;
  static constexpr std::size_t brief_steps = 10;

  static std::shared_ptr<detail::SessionCore> make_core(SessionOptions o);

  void set_actions_stale(bool on);

  // ---- the durable ledger: start or restore ------------------------------------------

  void open_store();

  // Caller holds the lock (or is constructing). Fires and work the app stopped in.
  void stop_all(const nlohmann::json& fires, const nlohmann::json& work, detail::Replay& r);

  // Applies one stored row to the session being restored. A row this release does not
  // know is refused rather than skipped: skipping would restore a different session.
  void replay(detail::ParsedRow& row, detail::Replay& r);

  static ApprovalResult answered_already(AskState s);

  // Caller holds the lock.
  std::vector<ActionInfo> list_actions() const;

  // Caller holds the lock. An agent fire would be refused DUPLICATE_EXECUTION (if nothing
  // earlier in the order refused it first).
  bool would_be_duplicate(std::string_view id, const ActionSpec& s) const;

  // Caller holds the lock. Whether presenting this approved ask would be refused
  // APPROVAL_STALE: older than approval_ttl, a key it was approved under has changed
  // since, or the action (spec, when declared) reads a key the yes was not given under.
  bool approval_stale(const AskStatus& a, const ActionSpec* spec) const;

  // Caller holds the lock. A read retries the grades a failed commit left waiting; a store
  // failing here leaves them waiting (the next write retries) rather than failing the read.
  void flush_deferred() const;

  // Caller holds the lock. With a store, the attempts since a version are counted in the
  // store when the session no longer holds them all: a binary search for the first stored
  // row at that version (O(log rows) reads), then one pass over the rows after it.
  detail::AttemptCounter stored_counter() const;

  // Caller holds the lock; the renderer asks it about approved asks only.
  std::function<bool(std::size_t)> stale_probe() const;

  // Caller holds the lock. The ask is spent, declined or revoked: under the cap its input
  // is no longer needed (the store keeps it), nor the lookup that finds it by its input.
  void closed_ask(std::size_t k);

  // Caller holds the lock. The fire is graded: no longer in flight.
  // `flying`: the fire's in-flight list, when the caller has it at hand.
  void graded(std::size_t idx, std::vector<std::size_t>* flying = nullptr);

  // Caller holds the lock. The fire no longer awaits the app's report.
  void stop_awaiting(std::size_t idx);

  // Caller holds the lock. Grades a fire whose handler returned and whose report came.
  void finalize(std::map<std::size_t, detail::Unsettled>::iterator u, bool store_row = true);

  // What a report makes of the fire it settles, judged on the merged state before the
  // ledger changes (so the rows can be stored first).
  struct Settlement {
    bool observed = false;
    bool verify_failed = false;
    std::exception_ptr thrown;  // the app's verify threw: rethrown once the ledger is consistent
    Outcome outcome() const noexcept {
      return verify_failed ? Outcome::verify_failed : observed ? Outcome::observed : Outcome::not_observed;
    }
  };
  Settlement judge(const detail::Unsettled& s, const nlohmann::json& delta) const;

  // Caller holds the lock; the delta is merged and its rows are stored.
  void settle(std::map<std::size_t, detail::Unsettled>::iterator u, const Settlement& how);

  // A delta nobody fired is attributed only when exactly one declared action's writes are
  // all in it, and marked as inference.
  struct InferredMatch {
    const std::string* id = nullptr;
    const detail::Mounted* action = nullptr;
    bool repeat = false;
  };
  InferredMatch inferred_match(const nlohmann::json& delta) const;
  void emit_inferred(const InferredMatch& m);
  // Caller holds the lock; the row is stored.
  void infer(const InferredMatch& m);

  std::shared_ptr<detail::SessionCore> core_;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/session-inl.hpp"
#endif
