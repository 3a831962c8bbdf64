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

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/language_standard.hpp"
#include "groundplane/detail/ledger/shared_text.hpp"
#include "groundplane/detail/session/idempotency_key.hpp"
#include "groundplane/detail/text/enum_names.hpp"

namespace groundplane {

enum class Principal : std::uint8_t { agent, user, system };

namespace detail {
inline constexpr EnumName<Principal> principal_names[] = {
    {Principal::agent, "agent", 0}, {Principal::user, "user", 1}, {Principal::system, "system", 2}};
template <>
inline constexpr std::span<const EnumName<Principal>> enum_table<Principal> = principal_names;
}  // namespace detail

constexpr std::string_view to_string(Principal p) noexcept { return detail::name_of(p); }

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

namespace detail {
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
}  // namespace detail

constexpr std::string_view to_string(Outcome o) noexcept { return detail::name_of(o); }

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

namespace detail {
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
}  // namespace detail

constexpr std::string_view to_string(Refusal r) noexcept { return detail::name_of(r); }

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

namespace detail {
inline constexpr EnumName<AskState> ask_state_names[] = {
    {AskState::awaiting, "awaiting", 0}, {AskState::approved, "approved", 1}, {AskState::declined, "declined", 2},
    {AskState::spent, "spent", 3},       {AskState::revoked, "revoked", 4},
};
template <>
inline constexpr std::span<const EnumName<AskState>> enum_table<AskState> = ask_state_names;
}  // namespace detail

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

// What a row holds beyond what every row has. Most rows hold none of it (a fire with no
// payload, no ask id, no error), so a row holds a pointer that is null then.
struct RowExtras {
  nlohmann::json payload = nullptr;
  std::string ask_id;
  std::string error;                            // a transition's: the handler's error text
  std::string prior_transition_id;              // a gap row's: the earlier fire it was refused for
  nlohmann::json data = nullptr;                // a transition's: what its handler handed back (HandlerResult::data)
  std::uint64_t data_omitted = 0;               // a transition's: the size of data over max_data_bytes, not kept
  std::vector<std::string> failed_checks = {};  // a gap row's: UNSUPPORTED_ARGUMENT's failing checks
  std::uint64_t payload_omitted = 0;            // a gap row's: the size of a payload it did not keep
  std::string request_key = {};                 // FireOptions::request_key
  std::string resolved_by = {};                 // a transition's: who resolved it (Session::resolve)
  bool empty() const noexcept {
    return payload.is_null() && ask_id.empty() && error.empty() && prior_transition_id.empty() && data.is_null() &&
           data_omitted == 0 && failed_checks.empty() && payload_omitted == 0 && request_key.empty() &&
           resolved_by.empty();
  }
};

// A row's extras, copied with the row (a row kept aside is copied, not moved, so that
// running out of memory there changes nothing).
class Extras {
 public:
  Extras() noexcept = default;
  // Boxed only when one of them is set: most rows carry none.
  explicit Extras(RowExtras values) : p_(values.empty() ? nullptr : std::make_unique<RowExtras>(std::move(values))) {}
  Extras(const Extras& o) : p_(o.p_ ? std::make_unique<RowExtras>(*o.p_) : nullptr) {}
  Extras(Extras&&) noexcept = default;
  Extras& operator=(const Extras& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<RowExtras>(*o.p_) : nullptr;
    return *this;
  }
  Extras& operator=(Extras&&) noexcept = default;
  ~Extras() = default;

  // The values: one shared empty set when the row holds none.
  const RowExtras& get() const noexcept { return p_ ? *p_ : none(); }
  RowExtras& edit() {
    if (!p_) p_ = std::make_unique<RowExtras>();
    return *p_;
  }
  void drop_payload() noexcept {
    if (p_) {
      p_->payload = nullptr;
      prune();
    }
  }
  // Lets go of the box once nothing is left in it.
  void prune() noexcept {
    if (p_ && p_->empty()) p_.reset();
  }

 private:
  static const RowExtras& none() noexcept {
    static const RowExtras empty;
    return empty;
  }
  std::unique_ptr<RowExtras> p_;
};

// A Transition as the session holds it: its id follows from its index (t-1 is index 0),
// the strings many rows repeat are shared, and what few rows carry sits in `extras`.
struct TransitionRecord {
  std::uint64_t version = 0;
  SharedText action;
  SharedText does;  // absent: not declared at minting
  SharedText node;
  Extras extras;
  Principal principal = Principal::agent;
  Outcome outcome = Outcome::pending;
  bool standing_grant = false;
  bool repeat = false;
  IdempotencyKey key = {};   // the fire's idempotency key; none for an inferred one, or one recorded before 0.4
  SharedText instance = {};  // the item it named (ActionSpec::instances), shared by its rows; absent: none
};

// A GapRow as the session holds it.
struct GapRecord {
  std::uint64_t version = 0;
  SharedText action;  // the declared action's text, or one of its own for an invented id
  SharedText does;
  SharedText node;
  Extras extras;
  Principal principal = Principal::agent;
  Refusal reason = Refusal::unknown_affordance;
  SharedText instance = {};  // the item it named, as the caller passed it; absent: none
};

// "t-" + (index + 1), formatted in place (one per fire: no temporaries).
inline std::string transition_id_of(std::size_t index) {
  char text[2 + 20] = {'t', '-'};
  const char* const end = std::to_chars(text + 2, text + sizeof text, index + 1).ptr;
  return std::string(text, static_cast<std::size_t>(end - text));
}

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

inline Transition materialize(const TransitionRecord& r, std::size_t index) {
  const RowExtras& x = r.extras.get();
  return Transition{
      transition_id_of(index),
      r.version,
      Cause{r.action.str(), r.does.optional(), r.principal, x.payload, x.ask_id, r.standing_grant, r.repeat},
      r.node.str(),
      r.outcome,
      x.error,
      r.instance.str(),
      r.key.hex(),
      x.request_key,
      x.resolved_by};
}

inline GapRow materialize(const GapRecord& r, std::size_t /*index*/) {
  const RowExtras& x = r.extras.get();
  return GapRow{r.version,        r.action.str(),    r.does.optional(), r.principal,           r.reason,
                x.payload,        x.ask_id,          r.node.str(),      x.prior_transition_id, x.failed_checks,
                r.instance.str(), x.payload_omitted, x.request_key};
}

template <class Row>
struct record_of;
template <>
struct record_of<Transition> {
  using type = TransitionRecord;
};
template <>
struct record_of<GapRow> {
  using type = GapRecord;
};

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

namespace detail {

// Row indices grouped by action, ordered by each action's oldest member: what the
// awaiting-report and still-working lines read, so each names an action once and a
// render reads O(shown) groups however many rows are open.
class ActionGroups {
 public:
  void insert(const std::string& action, std::size_t k) {
    auto& m = members_[action];
    if (!m.empty()) order_.erase({*m.begin(), action});
    if (m.insert(k).second) ++rows_;
    order_.insert({*m.begin(), action});
  }
  void erase(const std::string& action, std::size_t k) {
    const auto it = members_.find(action);
    if (it == members_.end() || !it->second.contains(k)) return;
    order_.erase({*it->second.begin(), action});
    it->second.erase(k);
    --rows_;
    if (it->second.empty()) members_.erase(it);
    else order_.insert({*it->second.begin(), action});
  }
  bool empty() const noexcept { return order_.empty(); }
  std::size_t actions() const noexcept { return order_.size(); }
  std::size_t rows() const noexcept { return rows_; }
  // (oldest row index, action), oldest first
  const std::set<std::pair<std::size_t, std::string>>& order() const noexcept { return order_; }
  std::size_t count(const std::string& action) const {
    const auto it = members_.find(action);
    return it == members_.end() ? 0 : it->second.size();
  }

 private:
  std::map<std::string, std::set<std::size_t>, std::less<>> members_;
  std::set<std::pair<std::size_t, std::string>> order_;
  std::size_t rows_ = 0;
};

// One ledger's rows by their index in the session (t-1 is index 0), of which the newest
// are held: under SessionOptions::max_rows_in_memory the oldest are dropped from memory
// (the store, when there is one, keeps them). A dropped row something still needs — a
// fire not graded yet — is kept aside by its index until it is graded. size() counts
// every row the session ever had, held or not.
template <class Row>
class RowWindow {
 public:
  std::size_t size() const noexcept { return dropped_ + rows_.size(); }
  bool empty() const noexcept { return size() == 0; }
  std::size_t dropped() const noexcept { return dropped_; }
  std::span<const Row> held() const noexcept { return rows_; }
  bool holds(std::size_t k) const { return k >= dropped_ ? k - dropped_ < rows_.size() : kept_.find(k) != kept_.end(); }
  // k must be held (holds(k)).
  Row& operator[](std::size_t k) { return k >= dropped_ ? rows_[k - dropped_] : kept_.at(k); }
  const Row& operator[](std::size_t k) const { return k >= dropped_ ? rows_[k - dropped_] : kept_.at(k); }
  void push_back(Row row) { rows_.push_back(std::move(row)); }
  void pop_back() { rows_.pop_back(); }

  // Drops the n oldest held rows; those still_needed(row) asks for are kept aside. All or
  // nothing: the rows kept aside are copied first, so running out of memory changes nothing.
  template <class Needed>
  void drop_front(std::size_t n, Needed still_needed) {
    n = std::min(n, rows_.size());
    std::map<std::size_t, Row> aside;
    for (std::size_t i = 0; i < n; ++i)
      if (still_needed(rows_[i])) aside.emplace(dropped_ + i, rows_[i]);
    kept_.merge(aside);
    rows_.erase(rows_.begin(), rows_.begin() + static_cast<std::ptrdiff_t>(n));
    dropped_ += n;
  }
  // Lets go of the rows kept aside that are no longer needed.
  template <class Needed>
  void release(Needed still_needed) {
    for (auto it = kept_.begin(); it != kept_.end();) it = still_needed(it->second) ? std::next(it) : kept_.erase(it);
  }
  std::size_t kept_aside() const noexcept { return kept_.size(); }

 private:
  std::vector<Row> rows_;
  std::size_t dropped_ = 0;
  std::map<std::size_t, Row> kept_;
};

// Everything the ground-truth block is rendered from. The Session owns one and guards
// it with its mutex; rows are appended in version order, and the open sets are kept
// apart so that rendering never walks the whole history.
struct Ledger {
  std::uint64_t version = 0;
  SharedText node;  // rows minted on it share it
  std::string focus;
  bool actions_may_be_stale = false;

  RowWindow<TransitionRecord> transitions;                   // version strictly increasing (t-k has version k-1)
  RowWindow<GapRecord> gaps;                                 // version non-decreasing
  std::vector<AskStatus> asks;                               // creation order
  std::vector<WorkRow> work;                                 // creation order
  std::vector<StandingGrant> standing;                       // first-grant order, one per action
  std::map<std::string, OnceReceipt, std::less<>> receipts;  // by action id
  std::uint64_t dropped_through = 0;  // the version of the newest attempt no longer held (when any is)

  // Derived from the rows above (rebuildable from them): what renders read.
  std::set<std::size_t> awaiting_asks;    // indices into asks, oldest first
  std::set<std::size_t> answered_asks;    // approved-not-spent, declined and revoked
  std::set<std::size_t> awaiting_report;  // indices into transitions
  std::set<std::size_t> open_work;        // indices into work
  ActionGroups awaiting_by_action;        // awaiting_report, by action
  ActionGroups working_by_action;         // open work bound to a fire, by action
};

}  // namespace detail
}  // namespace groundplane
