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
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/ground_truth.hpp"
#include "groundplane/ledger.hpp"

namespace groundplane {

struct HandlerResult {
  bool ok = true;
  std::string error = "";  // kept on the row for the developer; never rendered
};

struct ActionSpec {
  std::string does;                      // authored sentence; required
  std::vector<std::string> writes = {};  // declared effect: state keys ("/a/b" = JSON Pointer)
  std::function<HandlerResult(const nlohmann::json& payload)> handler = nullptr;  // none: NOT_MATERIALIZED
  std::function<bool(const nlohmann::json& state)> enabled_when = nullptr;        // false: TOOL_DISABLED
  std::function<bool(const nlohmann::json& state)> guard = nullptr;               // false: GUARD_FAILED
  std::function<bool(const nlohmann::json& state)> verify = nullptr;              // the app's own check
  bool high_effect = false;                                                       // gated under require_human_approval
};

struct SessionOptions {
  std::string node = "";
  nlohmann::json state = nlohmann::json::object();
  bool require_human_approval = false;
  bool allow_unmaterialized_fires = false;
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
};

struct Ask {
  std::string id;
  std::string action;
};

// approve_ask / decline_ask. reason: "" when ok, else "UNKNOWN_ASK", "ALREADY_APPROVED",
// "ALREADY_DECLINED" or "ALREADY_SPENT".
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
  bool materialized = true;  // has a handler
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
  std::uint64_t generation = 0;  // which declare() this is; handles only unmount their own
  std::uint64_t order = 0;       // declaration order, for listings
};

struct SessionCore {
  explicit SessionCore(SessionOptions o)
      : state(std::move(o.state)),
        require_human_approval(o.require_human_approval),
        allow_unmaterialized_fires(o.allow_unmaterialized_fires) {
    ledger.node = std::move(o.node);
  }

  mutable std::mutex mutex;
  mutable std::atomic<std::thread::id> owner{};  // the thread holding `mutex`, if any

  nlohmann::json state;
  const bool require_human_approval;
  const bool allow_unmaterialized_fires;
  Ledger ledger;

  std::map<std::string, Mounted, std::less<>> actions;
  std::map<std::string, bool, std::less<>> ever_declared;
  std::uint64_t next_generation = 1;
  std::uint64_t next_order = 0;

  std::map<std::string, std::size_t, std::less<>> transition_index;
  std::map<std::string, std::size_t, std::less<>> ask_index;
  std::map<std::size_t, Unsettled> unsettled;  // by transition index
};

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

inline bool delta_carries(const nlohmann::json& delta, const std::string& key) {
  if (!key.empty() && key.front() == '/') return delta.contains(nlohmann::json::json_pointer(key));
  return delta.contains(key);
}

inline bool delta_carries_all(const nlohmann::json& delta, const std::vector<std::string>& keys) {
  return std::all_of(keys.begin(), keys.end(), [&](const std::string& k) { return delta_carries(delta, k); });
}

inline std::string exception_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "a non-standard exception";
  }
}

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
  // Read access to the ledgers. Holds the session's mutex while alive, so the spans are
  // stable and consistent with each other; keep it short-lived, and do not call the
  // session on the same thread while it lives (that throws ConfigurationError).
  //   auto v = session.view();
  //   v.transitions()[0].cause.does;
  class View {
   public:
    View(const View&) = delete;
    View& operator=(const View&) = delete;

    std::span<const Transition> transitions() const noexcept { return core_->ledger.transitions; }
    std::span<const GapRow> gap_rows() const noexcept { return core_->ledger.gaps; }
    std::span<const AskStatus> asks() const noexcept { return core_->ledger.asks; }
    std::span<const WorkRow> work() const noexcept { return core_->ledger.work; }
    // Fires still awaiting the app's report, oldest first.
    std::vector<PendingInfo> pending_fires() const {
      std::vector<PendingInfo> out;
      for (const std::size_t k : core_->ledger.awaiting_report) {
        const Transition& t = core_->ledger.transitions[k];
        out.push_back(PendingInfo{t.id, t.cause.action, t.cause.does, t.version, t.cause.principal});
      }
      return out;
    }
    const Transition* transition(std::string_view id) const {
      const auto it = core_->transition_index.find(id);
      return it == core_->transition_index.end() ? nullptr : &core_->ledger.transitions[it->second];
    }
    const AskStatus* ask(std::string_view id) const {
      const auto it = core_->ask_index.find(id);
      return it == core_->ask_index.end() ? nullptr : &core_->ledger.asks[it->second];
    }
    const nlohmann::json& state() const noexcept { return core_->state; }
    std::uint64_t version() const noexcept { return core_->ledger.version; }
    const std::string& node() const noexcept { return core_->ledger.node; }
    const std::string& focus() const noexcept { return core_->ledger.focus; }
    bool actions_may_be_stale() const noexcept { return core_->ledger.actions_may_be_stale; }

   private:
    friend class Session;
    explicit View(const detail::SessionCore& core) : lock_(core), core_(&core) {}
    detail::SessionLock lock_;
    const detail::SessionCore* core_;
  };

  explicit Session(SessionOptions options = {}) : core_(make_core(std::move(options))) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&&) noexcept = default;  // a moved-from session may only be destroyed or assigned
  Session& operator=(Session&&) noexcept = default;
  ~Session() = default;

  // Mounts an action (or re-mounts it with a new spec). Rows minted earlier keep the
  // `does` they captured. Throws ConfigurationError for an empty id or `does`, or a
  // malformed JSON Pointer in `writes`.
  ActionHandle declare(std::string id, ActionSpec spec) {
    if (id.empty()) throw ConfigurationError("gp::Session::declare: the action id is empty");
    if (spec.does.empty())
      throw ConfigurationError("gp::Session::declare(" + detail::quote(id) +
                               "): `does` is empty; every action needs its authored sentence");
    for (const auto& w : spec.writes) {
      if (w.empty())
        throw ConfigurationError("gp::Session::declare(" + detail::quote(id) + "): an entry of `writes` is empty");
      if (w.front() == '/') {
        try {
          (void)nlohmann::json::json_pointer(w);
        } catch (const nlohmann::json::exception&) {
          throw ConfigurationError("gp::Session::declare(" + detail::quote(id) + "): " + detail::quote(w) +
                                   " in `writes` is not a valid JSON Pointer");
        }
      }
    }
    detail::SessionLock lock(*core_);
    auto& c = *core_;
    const std::uint64_t gen = c.next_generation++;
    c.ever_declared[id] = true;
    c.actions.insert_or_assign(id, detail::Mounted{std::move(spec), gen, c.next_order++});
    return ActionHandle(core_, std::move(id), gen);
  }

  // Unmounts whatever is declared under `id` now; a no-op when nothing is.
  void undeclare(std::string_view id) {
    detail::SessionLock lock(*core_);
    const auto it = core_->actions.find(id);
    if (it != core_->actions.end()) core_->actions.erase(it);
  }

  void move_to(std::string node, std::string focus = "") {
    detail::SessionLock lock(*core_);
    core_->ledger.node = std::move(node);
    core_->ledger.focus = std::move(focus);
  }

  // Writes exactly one row: a transition when recorded, a gap row when refused.
  FireResult fire(std::string_view id, FireOptions options = {}) {
    detail::SessionLock lock(*core_);
    auto& c = *core_;
    auto& L = c.ledger;
    const auto refuse = [&](Refusal r, std::optional<std::string> does) {
      FireResult out{false, std::string(to_string(r)), ""};  // before the row: nothing can fail after it
      L.gaps.push_back(GapRow{L.version, std::string(id), std::move(does), options.source, r,
                              std::move(options.payload), std::move(options.ask_id), L.node});
      return out;
    };

    const auto it = c.actions.find(id);
    if (it == c.actions.end()) return refuse(Refusal::unknown_affordance, std::nullopt);
    const ActionSpec& spec = it->second.spec;
    if (!spec.handler && !c.allow_unmaterialized_fires) return refuse(Refusal::not_materialized, spec.does);
    if (spec.enabled_when && !spec.enabled_when(c.state)) return refuse(Refusal::tool_disabled, spec.does);
    if (spec.guard && !spec.guard(c.state)) return refuse(Refusal::guard_failed, spec.does);

    std::optional<std::size_t> spend;
    if (c.require_human_approval && spec.high_effect && options.source == Principal::agent) {
      const auto ai = options.ask_id.empty() ? c.ask_index.end() : c.ask_index.find(options.ask_id);
      if (ai == c.ask_index.end()) return refuse(Refusal::approval_required, spec.does);
      const AskStatus& a = L.asks[ai->second];
      if (a.state == AskState::awaiting) return refuse(Refusal::approval_required, spec.does);
      if (a.state == AskState::declined) return refuse(Refusal::approval_declined, spec.does);
      if (a.state == AskState::spent) return refuse(Refusal::approval_spent, spec.does);
      if (a.action != id || a.input != options.payload) return refuse(Refusal::approval_mismatch, spec.does);
      spend = ai->second;
    }

    // Recorded: the row takes the current version, then the version bumps. A fire is
    // recorded whole or not at all: what can fail (allocation) happens before the ledger
    // changes, or is undone, so running out of memory leaves no half-recorded row.
    const std::size_t idx = L.transitions.size();
    std::string tid = "t-" + std::to_string(idx + 1);
    auto handler = spec.handler;  // copies: the action may be unmounted while it runs
    auto verify = spec.verify;
    const bool has_writes = !spec.writes.empty();
    const nlohmann::json payload = handler ? options.payload : nlohmann::json();  // the handler's copy
    std::string spent_by = spend ? tid : std::string();
    L.transitions.push_back(Transition{
        tid, L.version,
        Cause{std::string(id), spec.does, options.source, std::move(options.payload), std::move(options.ask_id)},
        L.node, handler ? Outcome::pending : Outcome::not_materialized, ""});
    try {
      c.transition_index.emplace(tid, idx);
      if (handler && has_writes) {
        c.unsettled.emplace(idx, detail::Unsettled{spec.writes, verify});
        L.awaiting_report.insert(idx);
      }
    } catch (...) {
      L.awaiting_report.erase(idx);
      c.unsettled.erase(idx);
      c.transition_index.erase(tid);
      L.transitions.pop_back();
      throw;
    }
    ++L.version;
    if (spend) {
      AskStatus& a = L.asks[*spend];
      a.state = AskState::spent;
      a.spent_by = std::move(spent_by);
      L.answered_asks.erase(*spend);
    }
    if (!handler) return FireResult{true, "", tid};

    lock.release();  // the handler may call report_state, begin_work, fire ...
    HandlerResult result;
    std::exception_ptr thrown;
    try {
      result = handler(payload);
    } catch (...) {
      thrown = std::current_exception();
    }
    lock.acquire();

    Transition& row = L.transitions[idx];
    if (thrown || !result.ok) {
      row.outcome = Outcome::handler_failed;
      row.error = thrown ? detail::exception_text(thrown) : result.error;
      c.unsettled.erase(idx);
      L.awaiting_report.erase(idx);
      if (thrown) {
        lock.release();
        std::rethrow_exception(thrown);
      }
      return FireResult{false, "HANDLER_FAILED", tid};
    }
    if (has_writes) {
      const auto u = c.unsettled.find(idx);
      if (u != c.unsettled.end()) {
        u->second.handler_returned = true;
        if (u->second.reported) finalize(u);
      }
      return FireResult{true, "", tid};
    }
    // Nothing declared to observe: settles now.
    row.outcome = Outcome::unobservable;
    if (verify) {
      bool held = false;
      try {
        held = verify(c.state);
      } catch (...) {
        L.transitions[idx].outcome = Outcome::verify_failed;
        throw;
      }
      if (!held) L.transitions[idx].outcome = Outcome::verify_failed;
    }
    return FireResult{true, "", tid};
  }

  // Merges `delta` (a JSON object) into the state per RFC 7386, then settles: the named
  // transition, else the oldest fire awaiting a report, else — when nothing is pending —
  // infers a user fire if exactly one declared action's writes are all in the delta.
  // A transition_id that names no transition is a ConfigurationError (nothing changes);
  // one that is already settled changes the state but never the history.
  // NOLINTNEXTLINE(performance-unnecessary-value-param): the signature is the API's
  void report_state(const nlohmann::json& delta, std::string transition_id = "") {
    if (!delta.is_object())
      throw ConfigurationError(
          "gp::Session::report_state: the delta must be a JSON object (a merge patch of "
          "state keys), got " +
          std::string(delta.type_name()));
    detail::SessionLock lock(*core_);
    auto& c = *core_;
    std::optional<std::size_t> named;
    if (!transition_id.empty()) {
      const auto f = c.transition_index.find(transition_id);
      if (f == c.transition_index.end())
        throw ConfigurationError("gp::Session::report_state: no transition " + detail::quote(transition_id) +
                                 " was recorded in this session");
      named = f->second;
    }
    c.state.merge_patch(delta);

    if (named) {
      const auto u = c.unsettled.find(*named);
      if (u != c.unsettled.end() && !u->second.reported) settle(u, delta);
      return;
    }
    if (!c.ledger.awaiting_report.empty()) {
      settle(c.unsettled.find(*c.ledger.awaiting_report.begin()), delta);
      return;
    }
    infer(delta);
  }

  // Mints a card for a human (or returns the open one for the same action and an equal
  // input, so repeated asks do not pile up). The input is copied: the approval is bound
  // to what was asked, whatever the caller does with its object afterwards. The action
  // must be declared now (ConfigurationError otherwise).
  Ask confirm_ask(std::string_view id, nlohmann::json input = nullptr) {
    detail::SessionLock lock(*core_);
    auto& c = *core_;
    auto& L = c.ledger;
    const auto it = c.actions.find(id);
    if (it == c.actions.end())
      throw ConfigurationError("gp::Session::confirm_ask: no action " + detail::quote(id) + " is declared now");
    for (const auto* open : {&L.awaiting_asks, &L.answered_asks})
      for (const std::size_t k : *open) {
        const AskStatus& a = L.asks[k];
        if (a.state != AskState::declined && a.action == id && a.input == input) return Ask{a.id, a.action};
      }
    const std::size_t k = L.asks.size();
    std::string ask_id = "ask-" + std::to_string(k + 1);
    L.asks.push_back(AskStatus{ask_id, std::string(id), it->second.spec.does, std::move(input), AskState::awaiting, "",
                               L.version, ""});
    c.ask_index.emplace(ask_id, k);
    L.awaiting_asks.insert(k);
    return Ask{std::move(ask_id), std::string(id)};
  }

  // Human-side doors; never served to a model. `by` is kept for audit and never rendered.
  ApprovalResult approve_ask(std::string_view ask_id, std::string by) {
    detail::SessionLock lock(*core_);
    auto& L = core_->ledger;
    const auto it = core_->ask_index.find(ask_id);
    if (it == core_->ask_index.end()) return {false, "UNKNOWN_ASK"};
    AskStatus& a = L.asks[it->second];
    if (a.state != AskState::awaiting) return answered_already(a.state);
    a.state = AskState::approved;
    a.by = std::move(by);
    L.awaiting_asks.erase(it->second);
    L.answered_asks.insert(it->second);
    return {true, ""};
  }

  // Terminal for its ask. An approval nothing has used yet may still be withdrawn.
  ApprovalResult decline_ask(std::string_view ask_id, std::string by) {
    detail::SessionLock lock(*core_);
    auto& L = core_->ledger;
    const auto it = core_->ask_index.find(ask_id);
    if (it == core_->ask_index.end()) return {false, "UNKNOWN_ASK"};
    AskStatus& a = L.asks[it->second];
    if (a.state == AskState::declined || a.state == AskState::spent) return answered_already(a.state);
    a.state = AskState::declined;
    a.by = std::move(by);
    L.awaiting_asks.erase(it->second);
    L.answered_asks.insert(it->second);
    return {true, ""};
  }

  // Opens a work row, bound to a recorded transition when transition_id is given
  // (ConfigurationError if it names none). The label is audit data, never rendered.
  [[nodiscard]] WorkHandle begin_work(std::string label = "", std::string transition_id = "") {
    detail::SessionLock lock(*core_);
    auto& L = core_->ledger;
    WorkRow row{"work-" + std::to_string(L.work.size() + 1), std::move(label), "", "", std::nullopt, L.version, true};
    if (!transition_id.empty()) {
      const auto f = core_->transition_index.find(transition_id);
      if (f == core_->transition_index.end())
        throw ConfigurationError("gp::Session::begin_work: no transition " + detail::quote(transition_id) +
                                 " was recorded in this session");
      const Transition& t = L.transitions[f->second];
      row.transition_id = std::move(transition_id);
      row.action = t.cause.action;
      row.does = t.cause.does;
    }
    const std::size_t k = L.work.size();
    std::string id = row.id;
    L.work.push_back(std::move(row));
    L.open_work.insert(k);
    return WorkHandle(core_, k, std::move(id));
  }

  // The app could not re-read its list of actions: the block says so (one fixed line)
  // until mark_actions_fresh().
  void mark_actions_may_be_stale() {
    detail::SessionLock lock(*core_);
    core_->ledger.actions_may_be_stale = true;
  }
  void mark_actions_fresh() {
    detail::SessionLock lock(*core_);
    core_->ledger.actions_may_be_stale = false;
  }

  std::uint64_t version() const {
    detail::SessionLock lock(*core_);
    return core_->ledger.version;
  }
  std::string node() const {
    detail::SessionLock lock(*core_);
    return core_->ledger.node;
  }
  std::string focus() const {
    detail::SessionLock lock(*core_);
    return core_->ledger.focus;
  }
  nlohmann::json state() const {
    detail::SessionLock lock(*core_);
    return core_->state;
  }
  View view() const { return View(*core_); }

  // Copies of the rows, for reading without holding the session (session.transitions()[0]
  // .cause.does). Each copies its whole ledger: prefer view() on a long session.
  std::vector<Transition> transitions() const {
    detail::SessionLock lock(*core_);
    return core_->ledger.transitions;
  }
  std::vector<GapRow> gap_rows() const {
    detail::SessionLock lock(*core_);
    return core_->ledger.gaps;
  }
  std::vector<AskStatus> asks() const {
    detail::SessionLock lock(*core_);
    return core_->ledger.asks;
  }
  std::vector<WorkRow> work() const {
    detail::SessionLock lock(*core_);
    return core_->ledger.work;
  }
  std::vector<PendingInfo> pending_fires() const { return view().pending_fires(); }

  // What is declared now, in declaration order, with enabled_when evaluated now.
  std::vector<ActionInfo> actions() const {
    detail::SessionLock lock(*core_);
    return list_actions();
  }

  Availability availability(std::string_view id) const {
    detail::SessionLock lock(*core_);
    const auto it = core_->actions.find(id);
    if (it != core_->actions.end()) {
      const auto& s = it->second.spec;
      return s.enabled_when && !s.enabled_when(core_->state) ? Availability::disabled : Availability::available;
    }
    return core_->ever_declared.contains(id) ? Availability::not_mounted : Availability::unknown;
  }

  GroundTruth ground_truth(GroundTruthOptions options = {}) const {
    detail::SessionLock lock(*core_);
    return detail::render_ground_truth(core_->ledger, options);
  }

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
  Brief context_brief(std::optional<std::uint64_t> since_version = std::nullopt) const {
    detail::SessionLock lock(*core_);
    const auto& L = core_->ledger;
    std::string text = "Where you are: " + (L.node.empty() ? std::string("(no page set)") : detail::escape(L.node));
    if (!L.focus.empty()) text += ", looking at " + detail::escape(L.focus);
    text += ".\n";

    const auto offered = list_actions();
    if (offered.empty()) {
      text += "Nothing is on offer here right now.";
    } else {
      text += "On offer here:";
      for (const auto& a : offered) {
        text += "\n  - " + detail::escape(a.id) + ": " + detail::escape(a.does, does_cap);
        if (!a.enabled) text += " (not available right now)";
      }
    }

    const std::span<const Transition> ts(L.transitions);
    const std::size_t from = since_version ? detail::first_at_or_after(ts, *since_version, nullptr) : std::size_t{0};
    const std::size_t n = ts.size() - from;
    if (n == 0) {
      text += since_version ? "\nNo new steps recorded since version " + std::to_string(*since_version) + "."
                            : std::string("\nNo steps recorded yet.");
    } else {
      text += "\nSteps recorded lately (the facts block says how each turned out):";
      const std::size_t start = ts.size() - std::min(n, brief_steps);
      if (start > from) text += "\n  - (" + std::to_string(start - from) + " earlier step(s) not listed)";
      for (std::size_t k = start; k < ts.size(); ++k)
        text += "\n  - " + detail::escape(ts[k].cause.does.value_or(std::string(unknown_action_text)), does_cap);
    }
    return Brief{L.node, L.focus, L.version, std::move(text)};
  }

 private:
  friend GroundTruth detail::ground_truth_probed(const Session&, const GroundTruthOptions&, detail::RenderProbe&);
  static constexpr std::size_t does_cap = 200;
  static constexpr std::size_t brief_steps = 10;

  static std::shared_ptr<detail::SessionCore> make_core(SessionOptions o) {
    if (!o.state.is_object())
      throw ConfigurationError("gp::SessionOptions::state must be a JSON object, got " +
                               std::string(o.state.type_name()));
    return std::make_shared<detail::SessionCore>(std::move(o));
  }

  static ApprovalResult answered_already(AskState s) {
    switch (s) {
      case AskState::approved:
        return {false, "ALREADY_APPROVED"};
      case AskState::declined:
        return {false, "ALREADY_DECLINED"};
      case AskState::spent:
        return {false, "ALREADY_SPENT"};
      case AskState::awaiting:
        break;
    }
    return {true, ""};
  }

  // Caller holds the lock.
  std::vector<ActionInfo> list_actions() const {
    std::vector<const std::pair<const std::string, detail::Mounted>*> mounted;
    for (const auto& kv : core_->actions) mounted.push_back(&kv);
    std::sort(mounted.begin(), mounted.end(), [](auto* a, auto* b) { return a->second.order < b->second.order; });
    std::vector<ActionInfo> out;
    for (const auto* kv : mounted) {
      const auto& s = kv->second.spec;
      out.push_back(
          ActionInfo{kv->first, s.does, !s.enabled_when || s.enabled_when(core_->state), static_cast<bool>(s.handler)});
    }
    return out;
  }

  // Caller holds the lock. Grades a fire whose handler returned and whose report came.
  void finalize(std::map<std::size_t, detail::Unsettled>::iterator u) {
    Transition& row = core_->ledger.transitions[u->first];
    row.outcome = u->second.verify_failed ? Outcome::verify_failed
                  : u->second.observed    ? Outcome::observed
                                          : Outcome::not_observed;
    core_->unsettled.erase(u);
  }

  // Caller holds the lock; the delta is already merged.
  void settle(std::map<std::size_t, detail::Unsettled>::iterator u, const nlohmann::json& delta) {
    auto& s = u->second;
    s.reported = true;
    core_->ledger.awaiting_report.erase(u->first);
    s.observed = detail::delta_carries_all(delta, s.writes);
    std::exception_ptr thrown;
    if (s.verify) {
      try {
        s.verify_failed = !s.verify(core_->state);
      } catch (...) {
        s.verify_failed = true;
        thrown = std::current_exception();
      }
    }
    if (s.handler_returned) finalize(u);  // else the handler's return grades it
    if (thrown) std::rethrow_exception(thrown);
  }

  // Caller holds the lock. A delta nobody fired: attributed only when exactly one
  // declared action's writes are all in it, and marked as inference.
  void infer(const nlohmann::json& delta) {
    const detail::Mounted* match = nullptr;
    const std::string* match_id = nullptr;
    int n = 0;
    for (const auto& [id, m] : core_->actions) {
      if (m.spec.writes.empty() || !detail::delta_carries_all(delta, m.spec.writes)) continue;
      ++n;
      match = &m;
      match_id = &id;
    }
    if (n != 1) return;
    auto& L = core_->ledger;
    const std::size_t idx = L.transitions.size();
    std::string tid = "t-" + std::to_string(idx + 1);
    L.transitions.push_back(Transition{tid, L.version, Cause{*match_id, match->spec.does, Principal::user, nullptr, ""},
                                       L.node, Outcome::inferred, ""});
    core_->transition_index.emplace(std::move(tid), idx);
    ++L.version;
  }

  std::shared_ptr<detail::SessionCore> core_;
};

inline void ActionHandle::undeclare() {
  const auto core = core_.lock();
  if (!core) return;
  detail::SessionLock lock(*core);
  const auto it = core->actions.find(id_);
  if (it != core->actions.end() && it->second.generation == generation_) core->actions.erase(it);
}

inline bool ActionHandle::mounted() const {
  const auto core = core_.lock();
  if (!core) return false;
  detail::SessionLock lock(*core);
  const auto it = core->actions.find(id_);
  return it != core->actions.end() && it->second.generation == generation_;
}

inline void WorkHandle::done() {
  const auto core = core_.lock();
  if (!core) return;
  detail::SessionLock lock(*core);
  auto& L = core->ledger;
  if (index_ < L.work.size() && L.work[index_].open) {
    L.work[index_].open = false;
    L.open_work.erase(index_);
  }
  core_.reset();
}

namespace detail {
// The renderer with a probe attached: tests assert how many rows a render reads.
inline GroundTruth ground_truth_probed(const Session& session, const GroundTruthOptions& opts, RenderProbe& probe) {
  SessionLock lock(*session.core_);
  return render_ground_truth(session.core_->ledger, opts, &probe);
}
}  // namespace detail

}  // namespace groundplane
