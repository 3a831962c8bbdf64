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
                                                 // the call that made it returns (a returned fire's grade: with
                                                 // the next commit; see docs/ledger-store.md), and a store holding
                                                 // this session restores it (node and state then come from it)
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
  std::uint64_t generation = 0;  // which declare() this is; handles only unmount their own
  std::uint64_t order = 0;       // declaration order, for listings
};

// Everything the session decides from lives in `ledger` (rows and the plain records of
// asks, standing grants and once receipts) and `state`; the maps below are lookups
// derived from those rows, so a session restored from stored rows rebuilds them.
struct SessionCore {
  explicit SessionCore(SessionOptions o)
      : state(std::move(o.state)),
        require_human_approval(o.require_human_approval),
        allow_unmaterialized_fires(o.allow_unmaterialized_fires),
        approval_ttl(o.approval_ttl),
        store(std::move(o.store)),
        max_rows_in_memory(o.max_rows_in_memory) {
    ledger.node = std::move(o.node);
  }

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
  std::string head;               // hex hash of the newest stored row
  std::vector<LedgerRow> outbox;  // rows made by the call in progress
  // The `does` each action's latest stored row carried: a row repeats it only when it
  // changes, so a long session does not store the same sentence a million times.
  std::map<std::string, std::optional<std::string>, std::less<>> does_written;

  void emit(const char* kind, nlohmann::json body) {
    if (store) outbox.push_back(LedgerRow{ledger.version, kind, std::move(body)});
  }
  // The grade of a fire whose handler returned: committed with the next call's rows (or
  // by the next block, head() or the session's end), so a fire is one commit, not two.
  // Should the process die first, the restored session grades that fire "the app
  // stopped before reporting back" and, for `once`, counts it as performed: the fire's
  // own row was committed before its handler ran.
  std::vector<LedgerRow> deferred;
  void defer(const char* kind, nlohmann::json body) {
    if (store) deferred.push_back(LedgerRow{ledger.version, kind, std::move(body)});
  }
  void put_does(nlohmann::json& body, const std::string& action, const std::optional<std::string>& does) {
    if (!store) return;
    const auto it = does_written.find(action);
    if (it != does_written.end() && it->second == does) return;
    body["d"] = does ? nlohmann::json(*does) : nlohmann::json(nullptr);
    does_written.insert_or_assign(action, does);
  }
  // Commits the call's rows as one unit. On failure nothing of them is stored and the
  // LedgerStoreError propagates.
  // Deferred grades go first (they are older) and stay deferred if the store fails: they
  // describe what already happened, unlike the failing call's own rows.
  void flush() {
    if (!store || (outbox.empty() && deferred.empty())) return;
    try {
      if (deferred.empty()) {
        head = store->append(outbox).hex;
      } else {
        std::vector<LedgerRow> rows = deferred;
        rows.insert(rows.end(), std::make_move_iterator(outbox.begin()), std::make_move_iterator(outbox.end()));
        head = store->append(rows).hex;
        deferred.clear();
      }
    } catch (...) {
      outbox.clear();
      does_written.clear();  // unknown what the store holds: the next rows say their `does` again
      throw;
    }
    outbox.clear();
  }
  ~SessionCore() {
    outbox.clear();  // only rows of a call that did not complete could be left here
    try {
      flush();
    } catch (...) {  // a destructor must not throw; those grades read "stopped" after a restore
    }
  }
  SessionCore(const SessionCore&) = delete;
  SessionCore& operator=(const SessionCore&) = delete;

  // Under max_rows_in_memory: once more attempts are held than the cap, the oldest
  // quarter of it goes (in block order: a refusal before the transition of its version),
  // so holding stays at most the cap and dropping costs O(1) a row. A fire not graded yet
  // is kept aside until it is.
  void trim() {
    const std::size_t cap = max_rows_in_memory;
    auto& ts = ledger.transitions;
    auto& gs = ledger.gaps;
    if (cap == 0 || ts.held().size() + gs.held().size() <= cap) return;
    const std::size_t target = cap - cap / 4;
    const auto t = ts.held();
    const auto g = gs.held();
    std::size_t nt = 0, ng = 0;
    while (t.size() - nt + g.size() - ng > target) {
      if (ng < g.size() && (nt == t.size() || g[ng].version <= t[nt].version)) {
        ledger.dropped_through = g[ng++].version;
      } else {
        ledger.dropped_through = t[nt++].version;
      }
    }
    const auto pending = [](const Transition& row) { return row.outcome == Outcome::pending; };
    try {
      ts.drop_front(nt, pending);
      gs.drop_front(ng, [](const GapRow&) { return false; });
    } catch (const std::bad_alloc&) {  // nothing was dropped: the next row tries again
      return;
    }
    ts.release(pending);
  }
  // Under the cap a payload is held only while something needs it: an open ask's input,
  // a fire not graded yet. The store keeps it.
  bool holds_payloads() const noexcept { return max_rows_in_memory == 0; }

  std::map<std::string, Mounted, std::less<>> actions;
  std::map<std::string, bool, std::less<>> ever_declared;
  std::uint64_t next_generation = 1;
  std::uint64_t next_order = 0;

  std::map<std::size_t, Unsettled> unsettled;  // by transition index
  // Recorded fires not graded yet (handler running, or awaiting the report), by action:
  // what single_flight and once ask about.
  std::map<std::string, std::set<std::size_t>, std::less<>> in_flight;
  // The open ask for an action and an input: (action, canonical input) -> index in asks,
  // so asking again and firing never scan the asks.
  std::unordered_map<std::string, std::size_t> ask_by_key;
  std::map<std::string, std::size_t, std::less<>> standing_index;  // action -> index in ledger.standing
};

// What restoring a session tracks beyond the session itself.
struct Replay {
  std::map<std::string, std::optional<std::string>, std::less<>> does;  // each action's latest stored `does`
  std::set<std::size_t> returned;  // fires whose handler returned (their once receipt is stored)
};

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
  if constexpr (requires { rows.holds(n - 1); }) {
    if (rows.holds(n - 1) && rows[n - 1].id != id) return std::nullopt;
  } else if (rows[n - 1].id != id) {
    return std::nullopt;
  }
  return n - 1;
}

// A form of a JSON value that is equal exactly when the values are (nlohmann's ==):
// keys sorted, and 1, 1u and 1.0 written alike.
inline void canonical_into(std::string& out, const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, x] : v.items()) {
        if (!first) out += ',';
        first = false;
        out += nlohmann::json(k).dump();
        out += ':';
        canonical_into(out, x);
      }
      out += '}';
      return;
    }
    case nlohmann::json::value_t::array: {
      out += '[';
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out += ',';
        canonical_into(out, v[i]);
      }
      out += ']';
      return;
    }
    case nlohmann::json::value_t::number_float: {
      const double d = v.get<double>();
      if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<std::int64_t>(d))) {
        out += std::to_string(static_cast<std::int64_t>(d));
        return;
      }
      out += v.dump();
      return;
    }
    default:
      out += v.dump();
  }
}

inline std::string ask_key(std::string_view action, const nlohmann::json& input) {
  std::string key = std::to_string(action.size()) + ':';
  key += action;
  canonical_into(key, input);
  return key;
}

// A state key's value as an approval snapshot holds it: [value] when present, [] when not.
inline nlohmann::json read_value(const nlohmann::json& state, const std::string& key) {
  if (!key.empty() && key.front() == '/') {
    const nlohmann::json::json_pointer ptr(key);
    return state.contains(ptr) ? nlohmann::json::array({state.at(ptr)}) : nlohmann::json::array();
  }
  const auto it = state.find(key);
  return it == state.end() ? nlohmann::json::array() : nlohmann::json::array({*it});
}

// The decider is the audit trail: nobody, or a name of only spaces, is no decider.
inline bool blank(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || (c >= '\t' && c <= '\r')) {
      ++i;
      continue;
    }
    // UTF-8 spaces and invisible separators: U+0085, U+00A0, U+1680, U+180E, U+2000-U+200D,
    // U+2028, U+2029, U+202F, U+205F, U+2060, U+3000, U+FEFF.
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    if (c == 0xC2 && i + 1 < s.size() && (at(i + 1) == 0x85 || at(i + 1) == 0xA0)) {
      i += 2;
      continue;
    }
    if (i + 2 < s.size()) {
      const unsigned b = at(i + 1), d = at(i + 2);
      const bool space = (c == 0xE1 && b == 0x9A && d == 0x80) || (c == 0xE1 && b == 0xA0 && d == 0x8E) ||
                         (c == 0xE2 && b == 0x80 && (d <= 0x8D || d == 0xA8 || d == 0xA9 || d == 0xAF)) ||
                         (c == 0xE2 && b == 0x81 && (d == 0x9F || d == 0xA0)) ||
                         (c == 0xE3 && b == 0x80 && d == 0x80) || (c == 0xEF && b == 0xBB && d == 0xBF);
      if (space) {
        i += 3;
        continue;
      }
    }
    return false;
  }
  return true;
}

inline void require_decider(std::string_view by, std::string_view door) {
  if (blank(by))
    throw ConfigurationError("gp::Session::" + std::string(door) +
                             ": `by` is empty or blank; every human decision names who made it (it is the "
                             "audit trail)");
}

// The fire whose handler this thread is running, per session: a report without a
// transition id made from inside a handler settles that handler's own fire.
struct RunningFire {
  const SessionCore* core;
  std::size_t index;
};
inline std::vector<RunningFire>& running_fires() {
  static thread_local std::vector<RunningFire> stack;
  return stack;
}
// A node for `map`'s type holding (key, value), made apart from it: inserting or assigning
// it later allocates nothing.
template <class Map>
typename Map::node_type map_node(const Map&, typename Map::key_type key, typename Map::mapped_type value) {
  Map one;
  one.emplace(std::move(key), std::move(value));
  return one.extract(one.begin());
}

class RunningScope {
 public:
  RunningScope(const SessionCore* core, std::size_t index) { running_fires().push_back({core, index}); }
  ~RunningScope() { running_fires().pop_back(); }
  RunningScope(const RunningScope&) = delete;
  RunningScope& operator=(const RunningScope&) = delete;
};
inline std::optional<std::size_t> running_fire_of(const SessionCore* core) {
  const auto& stack = running_fires();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (it->core == core) return it->index;
  return std::nullopt;
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

    // The rows held in memory, oldest first: every row, unless max_rows_in_memory dropped
    // the oldest (attempts() - held_attempts() of them).
    std::span<const Transition> transitions() const noexcept { return core_->ledger.transitions.held(); }
    std::span<const GapRow> gap_rows() const noexcept { return core_->ledger.gaps.held(); }
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
        const Transition& t = core_->ledger.transitions[k];
        out.push_back(PendingInfo{t.id, t.cause.action, t.cause.does, t.version, t.cause.principal});
      }
      return out;
    }
    const Transition* transition(std::string_view id) const {
      const auto k = detail::row_index(id, "t-", core_->ledger.transitions);
      return k && core_->ledger.transitions.holds(*k) ? &core_->ledger.transitions[*k] : nullptr;
    }
    const AskStatus* ask(std::string_view id) const {
      const auto k = detail::row_index(id, "ask-", core_->ledger.asks);
      return k ? &core_->ledger.asks[*k] : nullptr;
    }
    std::span<const StandingGrant> standing_grants() const noexcept { return core_->ledger.standing; }
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

  // With options.store: a store that holds no rows of its session starts it (its first
  // row records the node and state); one that does restores it — version, state, node
  // and focus, both ledgers, asks and their states, spent approvals, once receipts,
  // standing grants — and a fire that was awaiting its report (or whose handler was
  // running) when the app stopped is graded "the app stopped before reporting back",
  // no longer awaited. Work left open by the stopped app is closed. Actions are code:
  // declare them again. Throws LedgerStoreError when the store cannot be read or written.
  explicit Session(SessionOptions options = {}) : core_(make_core(std::move(options))) {
    if (core_->store) open_store();
  }
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
    for (const auto* keys : {&spec.writes, &spec.reads}) {
      const char* field = keys == &spec.writes ? "`writes`" : "`reads`";
      for (const auto& w : *keys) {
        if (w.empty())
          throw ConfigurationError("gp::Session::declare(" + detail::quote(id) + "): an entry of " + field +
                                   " is empty");
        if (w.front() == '/') {
          try {
            (void)nlohmann::json::json_pointer(w);
          } catch (const nlohmann::json::exception&) {
            throw ConfigurationError("gp::Session::declare(" + detail::quote(id) + "): " + detail::quote(w) + " in " +
                                     field + " is not a valid JSON Pointer");
          }
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
    if (core_->store) {
      core_->emit("m", {{"n", node}, {"f", focus}});
      core_->flush();
    }
    core_->ledger.node = std::move(node);
    core_->ledger.focus = std::move(focus);
  }

  // Writes exactly one row: a transition when recorded, a gap row when refused.
  FireResult fire(std::string_view id, FireOptions options = {}) {
    detail::SessionLock lock(*core_);
    auto& c = *core_;
    auto& L = c.ledger;
    std::string prior;
    const auto refuse = [&](Refusal r, std::optional<std::string> does) {
      FireResult out{false, std::string(to_string(r)), "", prior};  // before the row: nothing can fail after it
      if (c.store) {  // stored first: a store that fails leaves no row anywhere
        nlohmann::json b{{"a", id}, {"r", static_cast<int>(r)}};
        c.put_does(b, std::string(id), does);
        if (options.source != Principal::agent) b["p"] = static_cast<int>(options.source);
        if (!options.payload.is_null()) b["pl"] = options.payload;
        if (!options.ask_id.empty()) b["k"] = options.ask_id;
        if (!prior.empty()) b["pr"] = prior;
        c.emit("g", std::move(b));
        c.flush();
      }
      L.gaps.push_back(GapRow{L.version, std::string(id), std::move(does), options.source, r,
                              c.holds_payloads() ? std::move(options.payload) : nlohmann::json(),
                              std::move(options.ask_id), L.node, std::move(prior)});
      c.trim();
      return out;
    };

    const auto it = c.actions.find(id);
    if (it == c.actions.end()) return refuse(Refusal::unknown_affordance, std::nullopt);
    const ActionSpec& spec = it->second.spec;
    if (!spec.handler && !c.allow_unmaterialized_fires) return refuse(Refusal::not_materialized, spec.does);
    if (spec.enabled_when && !spec.enabled_when(c.state)) return refuse(Refusal::tool_disabled, spec.does);
    if (spec.guard && !spec.guard(c.state)) return refuse(Refusal::guard_failed, spec.does);

    // Repeats, before any approval reason: a person is never sent to approve a fire about
    // to be turned away. A user's fire is a person acting on the screen: recorded.
    bool repeat = false;
    if (spec.concurrency != Concurrency::parallel) {
      const auto flying = c.in_flight.find(id);
      const auto receipt = L.receipts.find(id);
      // single_flight repeats while in flight; once, ever after it happened
      repeat = flying != c.in_flight.end() || (spec.concurrency == Concurrency::once && receipt != L.receipts.end());
      if (options.source != Principal::user) {
        if (flying != c.in_flight.end()) {
          prior = L.transitions[*flying->second.rbegin()].id;
          return refuse(Refusal::prior_fire_pending, spec.does);
        }
        if (spec.concurrency == Concurrency::once && receipt != L.receipts.end() && !receipt->second.reopened) {
          prior = receipt->second.transition_id;
          return refuse(Refusal::duplicate_execution, spec.does);
        }
      }
    }

    std::optional<std::size_t> spend;
    bool standing = false;
    if (c.require_human_approval && spec.high_effect && options.source == Principal::agent) {
      const auto grant = c.standing_index.find(id);
      standing = grant != c.standing_index.end() && L.standing[grant->second].active;
      if (!standing) {
        const auto k = detail::row_index(options.ask_id, "ask-", L.asks);
        if (!k) return refuse(Refusal::approval_required, spec.does);
        const AskStatus& a = L.asks[*k];
        switch (a.state) {
          case AskState::awaiting:
            return refuse(Refusal::approval_required, spec.does);
          case AskState::declined:
            return refuse(Refusal::approval_declined, spec.does);
          case AskState::spent:
            return refuse(Refusal::approval_spent, spec.does);
          case AskState::revoked:
            return refuse(Refusal::approval_revoked, spec.does);
          case AskState::approved:
            break;
        }
        if (a.action != id || a.input != options.payload) return refuse(Refusal::approval_mismatch, spec.does);
        if (approval_stale(a, &spec)) return refuse(Refusal::approval_stale, spec.does);
        spend = *k;
      }
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
    // What the fire needs once its handler returns is allocated now, before the ledger
    // changes: running out of memory there could otherwise leave a recorded row ungraded.
    auto receipt =
        handler ? detail::map_node(L.receipts, std::string(id), OnceReceipt{tid, options.source == Principal::user})
                : decltype(L.receipts)::node_type{};
    if (handler) detail::running_fires().reserve(detail::running_fires().size() + 1);
    if (c.store) {  // the fire is stored before its handler runs: if the app dies inside it, the
                    // restored session knows it may have happened
      nlohmann::json b{{"a", id}};
      c.put_does(b, std::string(id), spec.does);
      if (options.source != Principal::agent) b["p"] = static_cast<int>(options.source);
      if (!options.payload.is_null()) b["pl"] = options.payload;
      if (!options.ask_id.empty()) b["k"] = options.ask_id;
      if (standing) b["sg"] = 1;
      if (repeat) b["rp"] = 1;
      if (!handler) b["o"] = static_cast<int>(Outcome::not_materialized);
      else if (has_writes) b["w"] = 1;
      c.emit("t", std::move(b));
      if (spend) c.emit("qd", {{"q", *spend}, {"s", static_cast<int>(AskState::spent)}, {"sb", tid}});
      c.flush();
    }
    L.transitions.push_back(
        Transition{tid, L.version,
                   Cause{std::string(id), spec.does, options.source,
                         c.holds_payloads() || handler ? std::move(options.payload) : nlohmann::json(),
                         std::move(options.ask_id), standing, repeat},
                   L.node, handler ? Outcome::pending : Outcome::not_materialized, ""});
    const std::string& action = L.transitions[idx].cause.action;
    try {
      if (handler) c.in_flight[action].insert(idx);
      if (handler && has_writes) {
        c.unsettled.emplace(idx, detail::Unsettled{spec.writes, verify});
        L.awaiting_report.insert(idx);
        L.awaiting_by_action.insert(action, idx);
      }
    } catch (...) {
      stop_awaiting(idx);
      c.unsettled.erase(idx);
      graded(idx);
      L.transitions.pop_back();
      throw;
    }
    ++L.version;
    if (spend) {
      AskStatus& a = L.asks[*spend];
      a.state = AskState::spent;
      a.spent_by = std::move(spent_by);
      L.answered_asks.erase(*spend);
      closed_ask(*spend);
    }
    c.trim();
    if (!handler) return FireResult{true, "", tid};

    lock.release();  // the handler may call report_state, begin_work, fire ...
    HandlerResult result;
    std::exception_ptr thrown;
    try {
      const detail::RunningScope running(core_.get(), idx);
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
      stop_awaiting(idx);
      graded(idx);
      if (c.store) {
        c.emit("u", {{"t", idx}, {"o", static_cast<int>(Outcome::handler_failed)}, {"e", row.error}});
        c.flush();
      }
      if (thrown) {
        lock.release();
        std::rethrow_exception(thrown);
      }
      return FireResult{false, "HANDLER_FAILED", tid};
    }
    // Ran without failing: it happened, observed or not (unprovable non-execution is not
    // non-execution). An agent or system fire holds the once receipt; a user's reopens.
    if (const auto held = L.receipts.find(receipt.key()); held != L.receipts.end())
      held->second = std::move(receipt.mapped());
    else L.receipts.insert(std::move(receipt));
    const auto returned = [&] {  // the handler's return, as a row: its grade so far and the receipt
      if (!c.store) return;
      c.defer("u", {{"t", idx}, {"o", static_cast<int>(L.transitions[idx].outcome)}, {"rc", 1}});
    };
    if (has_writes) {
      const auto u = c.unsettled.find(idx);
      if (u != c.unsettled.end()) {
        u->second.handler_returned = true;
        if (u->second.reported) finalize(u, false);  // the returned row below carries the grade
      }
      returned();
      return FireResult{true, "", tid};
    }
    // Nothing declared to observe: settles now.
    row.outcome = Outcome::unobservable;
    graded(idx);
    if (verify) {
      bool held = false;
      try {
        held = verify(c.state);
      } catch (...) {
        L.transitions[idx].outcome = Outcome::verify_failed;
        returned();
        throw;
      }
      if (!held) L.transitions[idx].outcome = Outcome::verify_failed;
    }
    returned();
    return FireResult{true, "", tid};
  }

  // Merges `delta` (a JSON object) into the state per RFC 7386, then settles: the named
  // transition; else, from inside a handler, that handler's own fire; else the oldest
  // fire awaiting a report; else — when nothing is pending — infers a user fire if
  // exactly one declared action's writes are all in the delta.
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
      named = detail::row_index(transition_id, "t-", c.ledger.transitions);
      if (!named)
        throw ConfigurationError("gp::Session::report_state: no transition " + detail::quote(transition_id) +
                                 " was recorded in this session");
    } else {
      named = detail::running_fire_of(core_.get());  // a handler reporting on its own fire
    }
    // What this report settles is decided before anything changes.
    auto target = c.unsettled.end();
    if (named) {
      const auto u = c.unsettled.find(*named);
      if (u != c.unsettled.end() && !u->second.reported) target = u;
    } else if (!c.ledger.awaiting_report.empty()) {
      target = c.unsettled.find(*c.ledger.awaiting_report.begin());
    }
    const bool inferring = !named && c.ledger.awaiting_report.empty();
    // Stored first, like every other row: the values the delta replaces are kept so that
    // a store that refuses the rows leaves the state as it was.
    nlohmann::json replaced = nlohmann::json::object();
    std::vector<std::string> added;
    if (c.store) {
      for (const auto& [key, value] : delta.items()) {
        const auto old = c.state.find(key);
        if (old != c.state.end()) replaced[key] = *old;
        else if (!value.is_null()) added.push_back(key);
      }
    }
    c.state.merge_patch(delta);
    Settlement how;
    if (target != c.unsettled.end()) how = judge(target->second, delta);
    const auto match = inferring ? inferred_match(delta) : InferredMatch{};
    if (c.store) {
      c.emit("s", {{"dl", delta}});
      if (target != c.unsettled.end() && target->second.handler_returned)
        c.emit("u", {{"t", target->first}, {"o", static_cast<int>(how.outcome())}});
      if (match.id) emit_inferred(match);
      try {
        c.flush();
      } catch (...) {
        for (const auto& [key, value] : replaced.items()) c.state[key] = value;
        for (const auto& key : added) c.state.erase(key);
        throw;
      }
    }
    if (target != c.unsettled.end()) settle(target, how);
    if (match.id) infer(match);
    if (how.thrown) std::rethrow_exception(how.thrown);
  }

  // Mints a card for a human (or returns the open one — awaiting, or approved and not
  // stale — for the same action and an equal input, so repeated asks do not pile up).
  // The input is copied: the approval is bound to what was asked, whatever the caller
  // does with its object afterwards. The action must be declared now
  // (ConfigurationError otherwise). O(size of the input), whatever the number of asks.
  Ask confirm_ask(std::string_view id, nlohmann::json input = nullptr) {
    detail::SessionLock lock(*core_);
    auto& c = *core_;
    auto& L = c.ledger;
    const auto it = c.actions.find(id);
    if (it == c.actions.end())
      throw ConfigurationError("gp::Session::confirm_ask: no action " + detail::quote(id) + " is declared now");
    std::string key = detail::ask_key(id, input);
    const auto open = c.ask_by_key.find(key);
    if (open != c.ask_by_key.end()) {
      const AskStatus& a = L.asks[open->second];
      if (a.state == AskState::awaiting || (a.state == AskState::approved && !approval_stale(a, &it->second.spec)))
        return Ask{a.id, a.action};
    }
    const std::size_t k = L.asks.size();
    std::string ask_id = "ask-" + std::to_string(k + 1);
    if (c.store) {
      nlohmann::json b{{"a", id}, {"in", input}};
      c.put_does(b, std::string(id), it->second.spec.does);
      c.emit("q", std::move(b));
      c.flush();
    }
    L.asks.push_back(AskStatus{ask_id, std::string(id), it->second.spec.does, std::move(input), AskState::awaiting, "",
                               L.version, ""});
    try {
      c.ask_by_key.insert_or_assign(std::move(key), k);
      L.awaiting_asks.insert(k);
    } catch (...) {
      L.asks.pop_back();
      throw;
    }
    return Ask{std::move(ask_id), std::string(id)};
  }

  // Human-side doors; never served to a model. `by` is kept for audit and never
  // rendered; an empty or blank `by` is a ConfigurationError on every door.
  ApprovalResult approve_ask(std::string_view ask_id, std::string by) {
    detail::require_decider(by, "approve_ask");
    detail::SessionLock lock(*core_);
    auto& c = *core_;
    auto& L = c.ledger;
    const auto k = detail::row_index(ask_id, "ask-", L.asks);
    if (!k) return {false, "UNKNOWN_ASK"};
    AskStatus& a = L.asks[*k];
    if (a.state != AskState::awaiting) return answered_already(a.state);
    // The yes is bound to the state its action reads, as it is now.
    nlohmann::json reads = nlohmann::json::object();
    if (const auto act = c.actions.find(a.action); act != c.actions.end())
      for (const auto& key : act->second.spec.reads) reads[key] = detail::read_value(c.state, key);
    const auto now = std::chrono::system_clock::now();
    if (c.store) {
      c.emit("qd", {{"q", *k},
                    {"s", static_cast<int>(AskState::approved)},
                    {"by", by},
                    {"at", std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count()},
                    {"rd", reads}});
      c.flush();
    }
    a.state = AskState::approved;
    a.by = std::move(by);
    a.approved_at = now;
    a.approved_reads = std::move(reads);
    L.awaiting_asks.erase(*k);
    L.answered_asks.insert(*k);
    return {true, ""};
  }

  // Terminal for its ask. An approval nothing has used yet may still be turned into a no.
  ApprovalResult decline_ask(std::string_view ask_id, std::string by) {
    detail::require_decider(by, "decline_ask");
    detail::SessionLock lock(*core_);
    auto& L = core_->ledger;
    const auto k = detail::row_index(ask_id, "ask-", L.asks);
    if (!k) return {false, "UNKNOWN_ASK"};
    AskStatus& a = L.asks[*k];
    if (a.state != AskState::awaiting && a.state != AskState::approved) return answered_already(a.state);
    if (core_->store) {
      core_->emit("qd", {{"q", *k}, {"s", static_cast<int>(AskState::declined)}, {"by", by}});
      core_->flush();
    }
    a.state = AskState::declined;
    a.by = std::move(by);
    L.awaiting_asks.erase(*k);
    L.answered_asks.insert(*k);
    closed_ask(*k);
    return {true, ""};
  }

  // Withdraws an approved, unspent yes: presenting it is refused APPROVAL_REVOKED.
  // NOT_APPROVED for an ask still awaiting its decision (decline that instead).
  ApprovalResult revoke_ask(std::string_view ask_id, std::string by) {
    detail::require_decider(by, "revoke_ask");
    detail::SessionLock lock(*core_);
    auto& L = core_->ledger;
    const auto k = detail::row_index(ask_id, "ask-", L.asks);
    if (!k) return {false, "UNKNOWN_ASK"};
    AskStatus& a = L.asks[*k];
    if (a.state == AskState::awaiting) return {false, "NOT_APPROVED"};
    if (a.state != AskState::approved) return answered_already(a.state);
    if (core_->store) {
      core_->emit("qd", {{"q", *k}, {"s", static_cast<int>(AskState::revoked)}, {"rb", by}});
      core_->flush();
    }
    a.state = AskState::revoked;
    a.revoked_by = std::move(by);
    closed_ask(*k);
    return {true, ""};
  }

  // "Allow this action without asking": agent fires of it pass the approval gate with no
  // ask until revoke_standing, each such transition marked standing_grant. The action
  // must be declared now (ConfigurationError otherwise).
  ApprovalResult grant_standing(std::string_view action_id, std::string by) {
    detail::require_decider(by, "grant_standing");
    detail::SessionLock lock(*core_);
    auto& c = *core_;
    auto& L = c.ledger;
    const auto it = c.actions.find(action_id);
    if (it == c.actions.end())
      throw ConfigurationError("gp::Session::grant_standing: no action " + detail::quote(action_id) +
                               " is declared now");
    const auto g = c.standing_index.find(action_id);
    if (c.store && (g == c.standing_index.end() || !L.standing[g->second].active)) {
      nlohmann::json b{{"a", action_id}, {"on", 1}, {"by", by}};
      if (g == c.standing_index.end()) b["d"] = it->second.spec.does;  // frozen at the first grant
      c.emit("sg", std::move(b));
      c.flush();
    }
    if (g != c.standing_index.end()) {
      StandingGrant& row = L.standing[g->second];
      if (row.active) return {false, "ALREADY_GRANTED"};
      row.active = true;
      row.by = std::move(by);
      row.revoked_by.clear();
      row.version = L.version;
      return {true, ""};
    }
    L.standing.push_back(
        StandingGrant{std::string(action_id), it->second.spec.does, true, std::move(by), "", L.version});
    try {
      c.standing_index.emplace(action_id, L.standing.size() - 1);
    } catch (...) {
      L.standing.pop_back();
      throw;
    }
    return {true, ""};
  }

  ApprovalResult revoke_standing(std::string_view action_id, std::string by) {
    detail::require_decider(by, "revoke_standing");
    detail::SessionLock lock(*core_);
    auto& c = *core_;
    const auto g = c.standing_index.find(action_id);
    if (g == c.standing_index.end() || !c.ledger.standing[g->second].active) return {false, "NOT_GRANTED"};
    if (c.store) {
      c.emit("sg", {{"a", action_id}, {"on", 0}, {"by", by}});
      c.flush();
    }
    StandingGrant& row = c.ledger.standing[g->second];
    row.active = false;
    row.revoked_by = std::move(by);
    row.version = c.ledger.version;
    return {true, ""};
  }

  // Opens a work row, bound to a recorded transition when transition_id is given
  // (ConfigurationError if it names none). The label is audit data, never rendered.
  [[nodiscard]] WorkHandle begin_work(std::string label = "", std::string transition_id = "") {
    detail::SessionLock lock(*core_);
    auto& L = core_->ledger;
    WorkRow row{"work-" + std::to_string(L.work.size() + 1), std::move(label), "", "", std::nullopt, L.version, true};
    if (!transition_id.empty()) {
      const auto f = detail::row_index(transition_id, "t-", L.transitions);
      if (!f)
        throw ConfigurationError("gp::Session::begin_work: no transition " + detail::quote(transition_id) +
                                 " was recorded in this session");
      if (!L.transitions.holds(*f))
        throw ConfigurationError("gp::Session::begin_work: transition " + detail::quote(transition_id) +
                                 " is no longer held in memory (max_rows_in_memory); bind work to a recent fire");
      const Transition& t = L.transitions[*f];
      row.transition_id = std::move(transition_id);
      row.action = t.cause.action;
      row.does = t.cause.does;
    }
    const std::size_t k = L.work.size();
    std::string id = row.id;
    if (core_->store) {
      nlohmann::json b{{"l", row.label}};
      if (!row.transition_id.empty()) b["t"] = row.transition_id;
      core_->emit("wo", std::move(b));
      core_->flush();
    }
    L.work.push_back(std::move(row));
    L.open_work.insert(k);
    if (!L.work[k].transition_id.empty()) L.working_by_action.insert(L.work[k].action, k);
    return WorkHandle(core_, k, std::move(id));
  }

  // The app could not re-read its list of actions: the block says so (one fixed line)
  // until mark_actions_fresh().
  void mark_actions_may_be_stale() { set_actions_stale(true); }
  void mark_actions_fresh() { set_actions_stale(false); }

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
    const auto held = core_->ledger.transitions.held();
    return {held.begin(), held.end()};
  }
  std::vector<GapRow> gap_rows() const {
    detail::SessionLock lock(*core_);
    const auto held = core_->ledger.gaps.held();
    return {held.begin(), held.end()};
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
    flush_deferred();  // the head then covers every grade the block shows
    GroundTruth g = detail::render_ground_truth(core_->ledger, options, nullptr, stale_probe(), stored_counter());
    g.head = core_->head;
    return g;
  }

  // The hex head hash of the stored ledger ("" without a store): what to publish so a
  // later verify_ledger(..., head) catches rows cut from the tail.
  std::string head() const {
    detail::SessionLock lock(*core_);
    flush_deferred();
    return core_->head;
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

    // Transition t-k carries version k-1, so the steps since a version are counted
    // exactly whether or not the oldest are still held.
    const std::span<const Transition> ts = L.transitions.held();
    const std::size_t total = L.transitions.size();
    const std::size_t from =
        since_version ? static_cast<std::size_t>(std::min<std::uint64_t>(*since_version, total)) : std::size_t{0};
    const std::size_t n = total - from;
    if (n == 0) {
      text += since_version ? "\nNo new steps recorded since version " + std::to_string(*since_version) + "."
                            : std::string("\nNo steps recorded yet.");
    } else {
      text += "\nSteps recorded lately (the facts block says how each turned out):";
      const std::size_t shown = std::min({n, brief_steps, ts.size()});
      if (n > shown) text += "\n  - (" + std::to_string(n - shown) + " earlier step(s) not listed)";
      for (std::size_t k = ts.size() - shown; k < ts.size(); ++k)
        text += "\n  - " + detail::escape(ts[k].cause.does.value_or(std::string(unknown_action_text)), does_cap);
    }
    return Brief{L.node, L.focus, L.version, std::move(text)};
  }

 private:
  friend GroundTruth detail::ground_truth_probed(const Session&, const GroundTruthOptions&, detail::RenderProbe&);
  static constexpr std::size_t does_cap = 200;
  static constexpr std::size_t brief_steps = 10;

  static std::shared_ptr<detail::SessionCore> make_core(SessionOptions o) {
    if (o.approval_ttl.count() < 0)
      throw ConfigurationError("gp::SessionOptions::approval_ttl is negative; 0 means approvals never expire");
    if (!o.state.is_object())
      throw ConfigurationError("gp::SessionOptions::state must be a JSON object, got " +
                               std::string(o.state.type_name()));
    return std::make_shared<detail::SessionCore>(std::move(o));
  }

  void set_actions_stale(bool on) {
    detail::SessionLock lock(*core_);
    if (core_->store) {
      core_->emit("ms", {{"on", on}});
      core_->flush();
    }
    core_->ledger.actions_may_be_stale = on;
  }

  // ---- the durable ledger: start or restore ------------------------------------------

  void open_store() {
    auto& c = *core_;
    if (c.store->head().rows == 0) {
      nlohmann::json b{{"n", c.ledger.node}, {"st", c.state}};
      c.emit("init", std::move(b));
      c.flush();
      return;
    }
    c.state = nlohmann::json::object();
    c.ledger.node.clear();
    detail::Replay r;
    RowHash last{};
    c.store->read(1, [&](const StoredRow& row) {
      replay(row, r);
      last = row.hash;
      return true;
    });
    c.head = to_hex(last);
    c.does_written = std::move(r.does);
    // The app stopped: what it was doing is no longer awaited.
    nlohmann::json fires = nlohmann::json::array(), work = nlohmann::json::array();
    for (const auto& [action, rows] : c.in_flight)
      for (const std::size_t k : rows) fires.push_back(k);
    for (const std::size_t k : c.ledger.open_work) work.push_back(k);
    if (fires.empty() && work.empty()) return;
    std::vector<std::size_t> sorted = fires.get<std::vector<std::size_t>>();
    std::sort(sorted.begin(), sorted.end());
    fires = sorted;
    if (c.store->writable()) {
      c.emit("rs", {{"t", fires}, {"w", work}});
      c.flush();
    }
    stop_all(fires, work, r);
  }

  // Caller holds the lock (or is constructing). Fires and work the app stopped in.
  void stop_all(const nlohmann::json& fires, const nlohmann::json& work, detail::Replay& r) {
    auto& L = core_->ledger;
    for (const auto& f : fires) {
      const auto k = f.get<std::size_t>();
      if (k >= L.transitions.size() || !L.transitions.holds(k)) continue;
      Transition& t = L.transitions[k];
      if (t.outcome != Outcome::pending) continue;
      t.outcome = Outcome::stopped;
      stop_awaiting(k);
      core_->unsettled.erase(k);
      graded(k);
      // Its handler may have run: for `once`, unprovable non-execution is not non-execution.
      if (!r.returned.contains(k)) {
        const auto held = L.receipts.find(t.cause.action);
        const auto held_k = held == L.receipts.end()
                                ? std::nullopt
                                : detail::row_index(held->second.transition_id, "t-", L.transitions);
        if (held == L.receipts.end() || (held_k && *held_k < k))
          L.receipts.insert_or_assign(t.cause.action, OnceReceipt{t.id, t.cause.principal == Principal::user});
      }
    }
    for (const auto& w : work) {
      const auto k = w.get<std::size_t>();
      if (k >= L.work.size() || !L.work[k].open) continue;
      L.work[k].open = false;
      L.open_work.erase(k);
      if (!L.work[k].transition_id.empty()) L.working_by_action.erase(L.work[k].action, k);
    }
  }

  // Applies one stored row to the session being restored. A row this release does not
  // know is refused rather than skipped: skipping would restore a different session.
  void replay(const StoredRow& row, detail::Replay& r) {
    auto& c = *core_;
    auto& L = c.ledger;
    const auto bad = [&](const std::string& why) {
      return LedgerStoreError("cannot restore session \"" + c.store->session() + "\": row " + std::to_string(row.seq) +
                              " (" + row.kind + ") " + why);
    };
    nlohmann::json b = nlohmann::json::parse(row.body, nullptr, false);
    if (b.is_discarded() || !b.is_object()) throw bad("is not a JSON object (run verify_ledger)");
    const auto str = [&](const char* key) { return b.contains(key) ? b[key].get<std::string>() : std::string(); };
    const auto num = [&](const char* key) { return b.contains(key) ? b[key].get<std::size_t>() : std::size_t{0}; };
    const auto does = [&](const std::string& action) -> std::optional<std::string> {
      if (b.contains("d")) {
        std::optional<std::string> d;
        if (!b["d"].is_null()) d = b["d"].get<std::string>();
        r.does.insert_or_assign(action, d);
        return d;
      }
      const auto it = r.does.find(action);
      return it == r.does.end() ? std::nullopt : it->second;
    };
    const auto principal = [&] { return static_cast<Principal>(b.value("p", 0)); };
    const auto payload = [&](const char* key) { return b.contains(key) ? b[key] : nlohmann::json(); };
    try {
      const std::string& k = row.kind;
      if (k == "init") {
        L.node = str("n");
        c.state = b.value("st", nlohmann::json::object());
      } else if (k == "m") {
        L.node = str("n");
        L.focus = str("f");
      } else if (k == "ms") {
        L.actions_may_be_stale = b.value("on", false);
      } else if (k == "s") {
        c.state.merge_patch(b.at("dl"));
      } else if (k == "g") {
        const std::string a = str("a");
        auto d = does(a);
        L.gaps.push_back(GapRow{row.version, a, std::move(d), principal(), static_cast<Refusal>(b.at("r").get<int>()),
                                c.holds_payloads() ? payload("pl") : nlohmann::json(), str("k"), L.node, str("pr")});
        c.trim();
      } else if (k == "t") {
        const std::size_t idx = L.transitions.size();
        const std::string a = str("a");
        auto d = does(a);
        const auto outcome = static_cast<Outcome>(b.value("o", static_cast<int>(Outcome::pending)));
        L.transitions.push_back(
            Transition{"t-" + std::to_string(idx + 1), row.version,
                       Cause{a, std::move(d), principal(),
                             c.holds_payloads() || outcome == Outcome::pending ? payload("pl") : nlohmann::json(),
                             str("k"), b.value("sg", 0) != 0, b.value("rp", 0) != 0},
                       L.node, outcome, ""});
        L.version = row.version + 1;
        if (outcome == Outcome::pending) {
          c.in_flight[a].insert(idx);
          if (b.value("w", 0) != 0) {
            L.awaiting_report.insert(idx);
            L.awaiting_by_action.insert(a, idx);
          }
        } else if (outcome == Outcome::inferred) {
          L.receipts.insert_or_assign(a, OnceReceipt{L.transitions[idx].id, true});
        }
        c.trim();
      } else if (k == "u") {
        const std::size_t idx = num("t");
        if (idx >= L.transitions.size()) throw bad("names a fire that is not in the ledger");
        // Only a fire not graded yet is graded, and such a fire is always held.
        if (!L.transitions.holds(idx)) throw bad("grades a fire that was graded long before");
        Transition& t = L.transitions[idx];
        t.outcome = static_cast<Outcome>(b.at("o").get<int>());
        if (b.contains("e")) t.error = str("e");
        if (t.outcome != Outcome::pending) r.returned.erase(idx);  // what stop_all asks is about pending fires only
        if (b.value("rc", 0) != 0) {
          if (t.outcome == Outcome::pending) r.returned.insert(idx);
          L.receipts.insert_or_assign(t.cause.action, OnceReceipt{t.id, t.cause.principal == Principal::user});
        }
        if (t.outcome != Outcome::pending) {
          stop_awaiting(idx);
          graded(idx);
        }
      } else if (k == "q") {
        const std::size_t idx = L.asks.size();
        const std::string a = str("a");
        auto d = does(a);
        nlohmann::json input = payload("in");
        std::string key = detail::ask_key(a, input);
        L.asks.push_back(AskStatus{"ask-" + std::to_string(idx + 1), a, std::move(d), std::move(input),
                                   AskState::awaiting, "", row.version, ""});
        c.ask_by_key.insert_or_assign(std::move(key), idx);
        L.awaiting_asks.insert(idx);
      } else if (k == "qd") {
        const std::size_t idx = num("q");
        if (idx >= L.asks.size()) throw bad("names an ask that is not in the ledger");
        AskStatus& a = L.asks[idx];
        a.state = static_cast<AskState>(b.at("s").get<int>());
        switch (a.state) {
          case AskState::approved:
            a.by = str("by");
            a.approved_at =
                std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
                    std::chrono::microseconds(b.value("at", std::int64_t{0}))));
            a.approved_reads = b.value("rd", nlohmann::json::object());
            L.awaiting_asks.erase(idx);
            L.answered_asks.insert(idx);
            break;
          case AskState::declined:
            a.by = str("by");
            L.awaiting_asks.erase(idx);
            L.answered_asks.insert(idx);
            break;
          case AskState::revoked:
            a.revoked_by = str("rb");
            break;
          case AskState::spent:
            a.spent_by = str("sb");
            L.answered_asks.erase(idx);
            break;
          case AskState::awaiting:
            throw bad("moves an ask back to awaiting");
        }
        if (a.state != AskState::approved) closed_ask(idx);
      } else if (k == "sg") {
        const std::string a = str("a");
        const bool on = b.value("on", 0) != 0;
        const auto g = c.standing_index.find(a);
        if (g == c.standing_index.end()) {
          std::optional<std::string> d;
          if (b.contains("d") && !b["d"].is_null()) d = b["d"].get<std::string>();
          L.standing.push_back(StandingGrant{a, std::move(d), on, str("by"), "", row.version});
          c.standing_index.emplace(a, L.standing.size() - 1);
        } else {
          StandingGrant& grant = L.standing[g->second];
          grant.active = on;
          if (on) {
            grant.by = str("by");
            grant.revoked_by.clear();
          } else {
            grant.revoked_by = str("by");
          }
          grant.version = row.version;
        }
      } else if (k == "wo") {
        const std::size_t idx = L.work.size();
        WorkRow w{"work-" + std::to_string(idx + 1), str("l"), str("t"), "", std::nullopt, row.version, true};
        if (!w.transition_id.empty()) {
          const auto t = detail::row_index(w.transition_id, "t-", L.transitions);
          if (!t) throw bad("binds work to a fire that is not in the ledger");
          if (L.transitions.holds(*t)) {  // else unbound: work open when the app stopped is closed anyway
            w.action = L.transitions[*t].cause.action;
            w.does = L.transitions[*t].cause.does;
          }
        }
        L.work.push_back(std::move(w));
        L.open_work.insert(idx);
        if (!L.work[idx].transition_id.empty()) L.working_by_action.insert(L.work[idx].action, idx);
      } else if (k == "wc") {
        const std::size_t idx = num("w");
        if (idx < L.work.size() && L.work[idx].open) {
          L.work[idx].open = false;
          L.open_work.erase(idx);
          if (!L.work[idx].transition_id.empty()) L.working_by_action.erase(L.work[idx].action, idx);
        }
      } else if (k == "rs") {
        stop_all(b.value("t", nlohmann::json::array()), b.value("w", nlohmann::json::array()), r);
      } else {
        throw bad("is of a kind this release does not know");
      }
    } catch (const nlohmann::json::exception& e) {
      throw bad(std::string("is malformed: ") + e.what());
    }
  }

  static ApprovalResult answered_already(AskState s) {
    switch (s) {
      case AskState::approved:
        return {false, "ALREADY_APPROVED"};
      case AskState::declined:
        return {false, "ALREADY_DECLINED"};
      case AskState::spent:
        return {false, "ALREADY_SPENT"};
      case AskState::revoked:
        return {false, "ALREADY_REVOKED"};
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
      const bool performed = would_be_duplicate(kv->first, s);
      out.push_back(ActionInfo{kv->first, s.does, !performed && (!s.enabled_when || s.enabled_when(core_->state)),
                               static_cast<bool>(s.handler), performed});
    }
    return out;
  }

  // Caller holds the lock. An agent fire would be refused DUPLICATE_EXECUTION (if nothing
  // earlier in the order refused it first).
  bool would_be_duplicate(std::string_view id, const ActionSpec& s) const {
    if (s.concurrency != Concurrency::once || core_->in_flight.contains(id)) return false;
    const auto r = core_->ledger.receipts.find(id);
    return r != core_->ledger.receipts.end() && !r->second.reopened;
  }

  // Caller holds the lock. Whether presenting this approved ask would be refused
  // APPROVAL_STALE: older than approval_ttl, a key it was approved under has changed
  // since, or the action (spec, when declared) reads a key the yes was not given under.
  bool approval_stale(const AskStatus& a, const ActionSpec* spec) const {
    const auto& c = *core_;
    if (c.approval_ttl.count() > 0 && std::chrono::system_clock::now() - a.approved_at > c.approval_ttl) return true;
    for (const auto& [key, was] : a.approved_reads.items())
      if (detail::read_value(c.state, key) != was) return true;
    if (spec)
      for (const auto& key : spec->reads)
        if (!a.approved_reads.contains(key)) return true;
    return false;
  }

  // Caller holds the lock. A read commits the grades still deferred; a store failing here
  // leaves them deferred (the next write retries) rather than failing the read.
  void flush_deferred() const {
    if (!core_->store || core_->deferred.empty()) return;
    try {
      core_->flush();
    } catch (const LedgerStoreError&) {
    }
  }

  // Caller holds the lock. With a store, the attempts since a version are counted in the
  // store when the session no longer holds them all: a binary search for the first stored
  // row at that version (O(log rows) reads), then one pass over the rows after it.
  detail::AttemptCounter stored_counter() const {
    if (!core_->store) return nullptr;
    return [this](std::uint64_t since) -> std::optional<std::size_t> {
      const LedgerStore& store = *core_->store;
      std::uint64_t lo = 1, hi = store.head().rows + 1;
      while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        std::uint64_t version = 0;
        store.read(mid, [&](const StoredRow& row) {
          version = row.version;
          return false;
        });
        if (version < since) lo = mid + 1;
        else hi = mid;
      }
      std::size_t n = 0;
      store.read(lo, [&](const StoredRow& row) {
        if (row.version >= since && (row.kind == "t" || row.kind == "g")) ++n;
        return true;
      });
      return n;
    };
  }

  // Caller holds the lock; the renderer asks it about approved asks only.
  std::function<bool(std::size_t)> stale_probe() const {
    return [this](std::size_t k) {
      const AskStatus& a = core_->ledger.asks[k];
      const auto it = core_->actions.find(a.action);
      return approval_stale(a, it == core_->actions.end() ? nullptr : &it->second.spec);
    };
  }

  // Caller holds the lock. The ask is spent, declined or revoked: under the cap its input
  // is no longer needed (the store keeps it), nor the lookup that finds it by its input.
  void closed_ask(std::size_t k) {
    auto& c = *core_;
    if (c.holds_payloads()) return;
    AskStatus& a = c.ledger.asks[k];
    const auto key = c.ask_by_key.find(detail::ask_key(a.action, a.input));
    if (key != c.ask_by_key.end() && key->second == k) c.ask_by_key.erase(key);
    a.input = nullptr;
  }

  // Caller holds the lock. The fire is graded: no longer in flight.
  void graded(std::size_t idx) {
    auto& flying = core_->in_flight;
    Transition& row = core_->ledger.transitions[idx];
    if (!core_->holds_payloads()) row.cause.payload = nullptr;
    const auto it = flying.find(row.cause.action);
    if (it == flying.end()) return;
    it->second.erase(idx);
    if (it->second.empty()) flying.erase(it);
  }

  // Caller holds the lock. The fire no longer awaits the app's report.
  void stop_awaiting(std::size_t idx) {
    auto& L = core_->ledger;
    if (L.awaiting_report.erase(idx) != 0) L.awaiting_by_action.erase(L.transitions[idx].cause.action, idx);
  }

  // Caller holds the lock. Grades a fire whose handler returned and whose report came.
  void finalize(std::map<std::size_t, detail::Unsettled>::iterator u, bool store_row = true) {
    Transition& row = core_->ledger.transitions[u->first];
    row.outcome = u->second.verify_failed ? Outcome::verify_failed
                  : u->second.observed    ? Outcome::observed
                                          : Outcome::not_observed;
    if (store_row && core_->store) core_->emit("u", {{"t", u->first}, {"o", static_cast<int>(row.outcome)}});
    const std::size_t idx = u->first;
    core_->unsettled.erase(u);
    graded(idx);
  }

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
  Settlement judge(const detail::Unsettled& s, const nlohmann::json& delta) const {
    Settlement how;
    how.observed = detail::delta_carries_all(delta, s.writes);
    if (s.verify) {
      try {
        how.verify_failed = !s.verify(core_->state);
      } catch (...) {
        how.verify_failed = true;
        how.thrown = std::current_exception();
      }
    }
    return how;
  }

  // Caller holds the lock; the delta is merged and its rows are stored.
  void settle(std::map<std::size_t, detail::Unsettled>::iterator u, const Settlement& how) {
    auto& s = u->second;
    s.reported = true;
    stop_awaiting(u->first);
    s.observed = how.observed;
    s.verify_failed = how.verify_failed;
    if (s.handler_returned) finalize(u, false);  // else the handler's return grades it
  }

  // A delta nobody fired is attributed only when exactly one declared action's writes are
  // all in it, and marked as inference.
  struct InferredMatch {
    const std::string* id = nullptr;
    const detail::Mounted* action = nullptr;
    bool repeat = false;
  };
  InferredMatch inferred_match(const nlohmann::json& delta) const {
    InferredMatch m;
    int n = 0;
    for (const auto& [id, mounted] : core_->actions) {
      if (mounted.spec.writes.empty() || !detail::delta_carries_all(delta, mounted.spec.writes)) continue;
      ++n;
      m.action = &mounted;
      m.id = &id;
    }
    if (n != 1) return {};
    const auto con = m.action->spec.concurrency;
    m.repeat = (con != Concurrency::parallel && core_->in_flight.contains(*m.id)) ||
               (con == Concurrency::once && core_->ledger.receipts.contains(*m.id));
    return m;
  }
  void emit_inferred(const InferredMatch& m) {
    nlohmann::json b{
        {"a", *m.id}, {"p", static_cast<int>(Principal::user)}, {"o", static_cast<int>(Outcome::inferred)}};
    core_->put_does(b, *m.id, m.action->spec.does);
    if (m.repeat) b["rp"] = 1;
    core_->emit("t", std::move(b));
  }
  // Caller holds the lock; the row is stored.
  void infer(const InferredMatch& m) {
    auto& L = core_->ledger;
    const std::size_t idx = L.transitions.size();
    std::string tid = "t-" + std::to_string(idx + 1);
    L.transitions.push_back(Transition{tid, L.version,
                                       Cause{*m.id, m.action->spec.does, Principal::user, nullptr, "", false, m.repeat},
                                       L.node, Outcome::inferred, ""});
    ++L.version;
    // A person did it on the screen: the action is reopened for the next agent fire.
    L.receipts.insert_or_assign(*m.id, OnceReceipt{std::move(tid), true});
    core_->trim();
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
    if (core->store) {
      core->emit("wc", {{"w", index_}});
      core->flush();
    }
    L.work[index_].open = false;
    L.open_work.erase(index_);
    if (!L.work[index_].transition_id.empty()) L.working_by_action.erase(L.work[index_].action, index_);
  }
  core_.reset();
}

namespace detail {
// The renderer with a probe attached: tests assert how many rows a render reads.
inline GroundTruth ground_truth_probed(const Session& session, const GroundTruthOptions& opts, RenderProbe& probe) {
  SessionLock lock(*session.core_);
  return render_ground_truth(session.core_->ledger, opts, &probe, session.stale_probe(), session.stored_counter());
}
}  // namespace detail

}  // namespace groundplane
