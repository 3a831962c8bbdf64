// What a session's ledger holds, as the session holds it: each row compact (the strings
// many rows repeat shared, what few rows carry boxed in Extras), the public row made from
// it only when read (materialize), one ledger's rows in a window that can drop the oldest
// (max_rows_in_memory), and the Ledger the ground-truth block is rendered from with the
// open sets kept apart from the history. ledger.hpp declares the public rows and includes
// this last.
#pragma once

#include <algorithm>
#include <charconv>
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

#include "groundplane/detail/ledger/shared_text.hpp"
#include "groundplane/detail/session/idempotency_key.hpp"
#include "groundplane/ledger.hpp"

namespace groundplane::detail {

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

}  // namespace groundplane::detail
