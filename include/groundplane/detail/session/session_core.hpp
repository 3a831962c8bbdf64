// What a gp::Session holds (session.hpp is its public face): the ledger, the state, the
// declared actions, and the lookups derived from them; the rows a call made, on their way
// to the store.
//
// Everything the session decides from lives in `ledger` (rows and the plain records of
// asks, standing grants and once receipts) and `state`; fires still pending are the
// transitions whose outcome is Outcome::pending. Everything else here (pending,
// open_asks, standing_index, the Ledger's index sets) is derived from those
// rows, so a session restored from stored rows rebuilds it.
//
// The session's steps live beside this header, each with its part: detail/session/fire.hpp (a
// fire's gate, record and handler return), detail/session/settlement.hpp (grading and
// reports), detail/session/session_restore.hpp (starting or restoring from a store).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/action.hpp"
#include "groundplane/detail/ledger/ledger_codec.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/changed_keys.hpp"
#include "groundplane/detail/session/fire_keys.hpp"
#include "groundplane/detail/session/key_source.hpp"
#include "groundplane/detail/session/session_lock.hpp"
#include "groundplane/json_schema.hpp"
#include "groundplane/ledger.hpp"
#include "groundplane/session_options.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane::detail {

// A fire whose action declares writes, until it is graded.
struct Unsettled {
  std::vector<std::string> writes;
  std::function<bool(const nlohmann::json&)> verify;
  bool handler_returned = false;
  bool reported = false;
  bool observed = false;
  bool verify_failed = false;
};

// An action's items as its selector listed them (ActionSpec::instances): in its order,
// each once, "" dropped; and the set of them, so a fire's membership check is one lookup.
struct ItemSet {
  std::vector<std::string> ordered;
  std::unordered_set<std::string_view> members;  // views into `ordered`, which never changes
};

struct Mounted {
  ActionSpec spec;
  SharedText id;  // the rows this declaration mints share these
  SharedText does;
  std::uint64_t generation = 0;                    // which declare() this is; handles only unmount their own
  std::uint64_t order = 0;                         // declaration order, for listings
  std::optional<JsonSchema> input = std::nullopt;  // spec.input compiled at declare; none when not declared
  // Found on the first fire and kept, so a fire looks neither up: the session's in-flight
  // lists and once receipts are never erased, so these stay valid while the session lives.
  std::vector<std::size_t>* flying = nullptr;  // this action's fires in flight (PendingFires::in_flight_of)
  OnceReceipt* receipt = nullptr;              // its once receipt, once it has one
  // The selector's last answer and the state generation it was given: asked again only
  // once the state has changed (a failure is not kept: it may pass).
  mutable std::shared_ptr<const ItemSet> items = nullptr;
  mutable std::uint64_t items_at = 0;
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

// The rows a session's calls make, on their way to its store (a session without one
// keeps none). Invariant: the rows of the call in progress are committed together and a
// failed commit stores none of them, while grades deferred by a failed commit go first in
// the next one and are kept until one succeeds.
class DurableLog {
 public:
  // Claims a writable store for this session (ConfigurationError: another session holds it).
  DurableLog(std::shared_ptr<LedgerStore> store, const Ledger& ledger);
  // Drops an unfinished call's rows, tries the deferred grades once more, frees the store.
  ~DurableLog();
  DurableLog(const DurableLog&) = delete;
  DurableLog& operator=(const DurableLog&) = delete;

  // A row of the call in progress (rows/ledger_codec.hpp), at the ledger's current version.
  template <class Row>
  void emit(Row row) {
    if (store_) outbox_.push_back(LedgerRow{ledger_.version, std::string(Row::kind), std::move(row).encode()});
  }
  // A row that outlives a failed commit (a returned handler's grade).
  template <class Row>
  void defer(Row row) {
    if (store_) deferred_.push_back(LedgerRow{ledger_.version, std::string(Row::kind), std::move(row).encode()});
  }
  // Commits the call's rows as one unit. On failure nothing of them is stored and the
  // LedgerStoreError propagates. Deferred grades go first (they are older) and stay
  // deferred if the store fails: they describe what already happened, unlike the failing
  // call's own rows.
  void flush();
  bool has_deferred() const noexcept { return !deferred_.empty(); }

  // Hex hash of the newest stored row.
  const std::string& head() const noexcept { return head_; }
  // The `does` a row about `action` carries: absent when the action's latest stored row
  // already said it.
  rows::CarriedDoes does_to_store(const std::string& action, const std::optional<std::string>& does);
  // `action`'s rule as the store holds it; null before its first declare is stored.
  const rows::ActionRule* stored_rule(std::string_view action) const;
  void rule_stored(const std::string& action, const rows::ActionRule& rule) {
    stored_rules_.insert_or_assign(action, rule);
  }
  // Takes up where the restored rows end: their head, each action's latest `does` and rule.
  void restored(std::string head, std::map<std::string, std::optional<std::string>, std::less<>> does,
                rows::ActionRules rules);

 private:
  const std::shared_ptr<LedgerStore> store_;  // null: memory only
  const Ledger& ledger_;                      // whose version a row carries
  bool claimed_store_ = false;                // this session holds the store (LedgerStore::backs_a_session_)
  std::string head_;
  std::vector<LedgerRow> outbox_;  // rows made by the call in progress
  // Grades of fires whose handler returned but whose commit failed: the handler ran, so
  // the row is kept and goes first in the next commit (a call that writes, a block,
  // head(), the session's end) rather than being dropped like a failed call's own rows.
  std::vector<LedgerRow> deferred_;
  // The `does` each action's latest stored row carried: a row repeats it only when it
  // changes, so a long session does not store the same sentence a million times.
  std::map<std::string, std::optional<std::string>, std::less<>> does_written_;
  rows::ActionRules stored_rules_;  // recorded at each action's first declare
};

// The open asks by what they ask: ask_key(action, item, canonical input) -> index in the
// ledger's asks, so asking again and firing never scan the asks. Invariant: one open ask
// per (action, item, canonical input), and an entry is taken out only by the ask it names.
class OpenAsks {
 public:
  // The open ask under `key` (ask_key), if any.
  std::optional<std::size_t> find(const std::string& key) const {
    const auto it = by_key_.find(key);
    return it == by_key_.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  }
  // `ask` is now the open ask under `key`, in place of any before it.
  void open(std::string key, std::size_t ask) { by_key_.insert_or_assign(std::move(key), ask); }
  // `ask` closed: its key is free, unless a newer ask holds it already.
  void close(const std::string& key, std::size_t ask) {
    const auto it = by_key_.find(key);
    if (it != by_key_.end() && it->second == ask) by_key_.erase(it);
  }

 private:
  std::unordered_map<std::string, std::size_t> by_key_;
};

// The recorded fires not graded yet: each by what it is tracked under (flight_key), for
// single_flight and once, and those whose action declares writes with what grading them
// needs. Invariant: a fire awaiting its grade is also in flight, and grading it takes it
// out of both.
class PendingFires {
 public:
  using Awaiting = std::map<std::size_t, Unsettled>;  // by transition index
  using iterator = Awaiting::iterator;
  using const_iterator = Awaiting::const_iterator;

  // The fire `index` awaiting its grade; end() when it is not.
  iterator find(std::size_t index) { return awaiting_.find(index); }
  iterator end() noexcept { return awaiting_.end(); }
  const_iterator end() const noexcept { return awaiting_.end(); }

  bool any_in_flight(std::string_view key) const { return in_flight_.any(key); }
  // `key`'s fires in flight, oldest first: a list that lives as long as the session.
  std::vector<std::size_t>& in_flight_of(const std::string& key) { return in_flight_.of(key); }
  // Every fire in flight, each key's oldest first.
  std::vector<std::size_t> all_in_flight() const { return in_flight_.all(); }

  // Fire `index` is in flight in `flying` (in_flight_of its key) and, with `awaiting`,
  // awaits its grade. All or none.
  void hold(std::vector<std::size_t>& flying, std::size_t index, std::optional<Unsettled> awaiting) {
    InFlight::add(flying, index);
    if (!awaiting) return;
    try {
      awaiting_.emplace(index, std::move(*awaiting));
    } catch (...) {
      InFlight::remove(flying, index);
      throw;
    }
  }
  // A restored fire still in flight (the restart stops it).
  void restored_in_flight(const std::string& key, std::size_t index) { in_flight_.add(key, index); }
  // Fire `index`, tracked under `key` (or in `flying` when known), is graded: out of both.
  void graded(std::size_t index, std::string_view key, std::vector<std::size_t>* flying = nullptr) {
    awaiting_.erase(index);
    if (flying) InFlight::remove(*flying, index);
    else in_flight_.remove(key, index);
  }

 private:
  Awaiting awaiting_;
  InFlight in_flight_;
};

struct SessionCore : SessionMutex {
  explicit SessionCore(SessionOptions o);
  SessionCore(const SessionCore&) = delete;
  SessionCore& operator=(const SessionCore&) = delete;

  nlohmann::json state;
  // The policy (SessionOptions): as given, or as stored when a store opened to read
  // restores the session. Set before the session is shared, never changed after.
  bool require_human_approval;
  bool allow_unmaterialized_fires;
  std::chrono::milliseconds approval_ttl;
  const std::string policy_change;           // why a restore may change the stored policy; "": it may not
  const std::shared_ptr<LedgerStore> store;  // null: memory only
  const std::size_t max_rows_in_memory;
  const std::function<std::chrono::system_clock::time_point()> clock;  // null: the system clock
  const std::size_t max_data_bytes;
  const FactRegistry* const facts;  // what argument checks read; null: none may be declared
  const std::size_t max_refused_payload_bytes;
  // What refused fires' payloads and asks' inputs kept so far have taken of it (bytes).
  std::uint64_t refused_payload_bytes = 0;
  Ledger ledger;

  std::chrono::system_clock::time_point now() const { return clock ? clock() : std::chrono::system_clock::now(); }

  // The policy as SessionOptions' members say it.
  rows::Policy policy() const {
    return {require_human_approval, allow_unmaterialized_fires, static_cast<std::int64_t>(approval_ttl.count())};
  }

  // The rows this session's calls make, on their way to the store (none without one).
  DurableLog durable;

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

  PendingFires pending;      // the recorded fires not graded yet
  SharedText last_refused;   // the id of the latest refusal of an undeclared action: repeats share it
  SharedText last_instance;  // the item the latest fire named: fires of the same item share it
  OpenAsks open_asks;        // the open ask for each action, item and input
  std::map<std::string, std::size_t, std::less<>> standing_index;  // action -> index in ledger.standing
  ChangedKeys changes;                 // which state keys reports changed, and when: carried staleness
  std::uint64_t state_generation = 1;  // bumped by every report: what a selector's answer is kept for

  // ---- the keys fires carry, and fires a restart left in doubt (detail/session/fire_keys.hpp)
  KeySource keys;                            // each recorded fire's idempotency key
  std::map<std::size_t, InDoubt> in_doubt;   // by transition index, oldest first
  std::vector<FreedKey> freed_keys;          // keys of fires resolved "did NOT happen", to be taken again
  RequestKeys requests;                      // FireOptions::request_key, bound to recorded fires
  std::condition_variable first_calls_done;  // a bound request's first call has returned (with `mutex`)
};

// An action's items now (ActionSpec::instances must be set): the selector's answer for
// this state, asked once per state generation. Null when the selector threw (it could not
// list them); a ConfigurationError it throws (it called back into the session) propagates.
const ItemSet* items_of(const SessionCore& c, const Mounted& m);

// (action, instance, input) as OpenAsks holds it.
std::string ask_key(std::string_view action, std::string_view instance, const nlohmann::json& input);

// What single_flight and once track a fire under (InFlight, Ledger::receipts): its action
// id, or for an item of an action with instances the id, a NUL and the item. Declared ids
// hold no NUL, so no item's key is another action's.
inline std::string flight_key(std::string_view action, std::string_view instance) {
  std::string key(action);
  if (!instance.empty()) {
    key += '\0';
    key += instance;
  }
  return key;
}
inline std::string flight_key(const TransitionRecord& t) { return flight_key(t.action.str(), t.instance.str()); }

// A state key's value as an approval snapshot holds it: [value] when present, [] when not.
nlohmann::json read_value(const nlohmann::json& state, const std::string& key);

// Throws ConfigurationError for an empty or blank decider: the decider is the audit trail.
void require_decider(std::string_view by, std::string_view door);

bool delta_carries_all(const nlohmann::json& delta, const std::vector<std::string>& keys);

std::string exception_text(const std::exception_ptr& e);

// The fire whose handler this thread is running, per session: a report without a
// transition id made from inside a handler settles that handler's own fire, and
// Session::current_fire() reads its context.
class RunningScope {
 public:
  RunningScope(const SessionCore* core, std::size_t index, const SharedText* instance,
               const FireContext* context = nullptr);
  ~RunningScope();
  RunningScope(const RunningScope&) = delete;
  RunningScope& operator=(const RunningScope&) = delete;
  // Makes room for one more, so that entering a scope later allocates nothing.
  static void reserve_one();
};
std::optional<std::size_t> running_fire_of(const SessionCore* core);
// The item the fire whose handler this thread runs names ("" for none, or outside one).
std::string running_instance_of(const SessionCore* core);
// The context of the fire whose handler this thread runs; null outside one.
const FireContext* running_context_of(const SessionCore* core);

// A node for `map`'s type holding (key, value), made apart from it: inserting or assigning
// it later allocates nothing.
template <class Map>
typename Map::node_type map_node(const Map&, typename Map::key_type key, typename Map::mapped_type value) {
  Map one;
  one.emplace(std::move(key), std::move(value));
  return one.extract(one.begin());
}

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/session_core-inl.hpp"
#endif
