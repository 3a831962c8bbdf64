// The bodies of session.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/row_feed.hpp"
#include "groundplane/detail/stored_text.hpp"
#include "groundplane/session.hpp"

namespace groundplane {
namespace detail {

// A stored row's body, member by member: row_body("t", idx, "o", 3). nlohmann's
// initializer lists build every {key, value} as a two-element array before the object,
// about twenty allocations for a three-member row, on the path of every fire.
inline void put_members(nlohmann::json&) {}
template <class V, class... Rest>
void put_members(nlohmann::json& body, const char* key, V&& value, Rest&&... rest) {
  body[key] = std::forward<V>(value);
  put_members(body, std::forward<Rest>(rest)...);
}
template <class... Members>
nlohmann::json row_body(Members&&... members) {
  nlohmann::json body(nlohmann::json::value_t::object);
  put_members(body, std::forward<Members>(members)...);
  return body;
}

// What a restore tracks beyond the session itself.
struct Replay {
  std::map<std::string, std::optional<std::string>, std::less<>> does;  // each action's latest stored `does`
  std::set<std::size_t> returned;  // fires whose handler returned (their once receipt is stored)
  // The texts restored rows hold, one copy of each, as a live session shares them.
  std::unordered_map<std::string, SharedText> texts;
  SharedText text(std::string s) {
    const auto it = texts.find(s);
    if (it != texts.end()) return it->second;
    SharedText t(s);
    texts.emplace(std::move(s), t);
    return t;
  }
  SharedText text(const std::optional<std::string>& s) { return s ? text(*s) : SharedText(); }
};

// A form of a JSON value that is equal exactly when the values are (nlohmann's ==):
// keys sorted, and 1, 1u and 1.0 written alike. A string or key is written in its stored-
// text form (detail/stored_text.hpp), one to one with its bytes, so bytes that are not
// UTF-8 are told apart rather than refused or merged.
GROUNDPLANE_INLINE void canonical_into(std::string& out, const nlohmann::json& v) {
  const auto text = [&out](const std::string& s) { out += nlohmann::json(stored_text(s)).dump(); };
  switch (v.type()) {
    case nlohmann::json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, x] : v.items()) {
        if (!first) out += ',';
        first = false;
        text(k);
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
    case nlohmann::json::value_t::string:
      text(v.get_ref<const std::string&>());
      return;
    default:
      out += v.dump();
  }
}

GROUNDPLANE_INLINE std::string ask_key(std::string_view action, const nlohmann::json& input) {
  std::string key = std::to_string(action.size()) + ':';
  key += action;
  canonical_into(key, input);
  return key;
}

// A state key's value as an approval snapshot holds it: [value] when present, [] when not.
GROUNDPLANE_INLINE nlohmann::json read_value(const nlohmann::json& state, const std::string& key) {
  if (!key.empty() && key.front() == '/') {
    const nlohmann::json::json_pointer ptr(key);
    return state.contains(ptr) ? nlohmann::json::array({state.at(ptr)}) : nlohmann::json::array();
  }
  const auto it = state.find(key);
  return it == state.end() ? nlohmann::json::array() : nlohmann::json::array({*it});
}

// The decider is the audit trail: nobody, or a name of only spaces, is no decider.
GROUNDPLANE_INLINE bool blank(std::string_view s) {
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

GROUNDPLANE_INLINE void require_decider(std::string_view by, std::string_view door) {
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
GROUNDPLANE_INLINE std::vector<RunningFire>& running_fires() {
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
GROUNDPLANE_INLINE std::optional<std::size_t> running_fire_of(const SessionCore* core) {
  const auto& stack = running_fires();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (it->core == core) return it->index;
  return std::nullopt;
}

GROUNDPLANE_INLINE bool delta_carries(const nlohmann::json& delta, const std::string& key) {
  if (!key.empty() && key.front() == '/') return delta.contains(nlohmann::json::json_pointer(key));
  return delta.contains(key);
}

GROUNDPLANE_INLINE bool delta_carries_all(const nlohmann::json& delta, const std::vector<std::string>& keys) {
  return std::all_of(keys.begin(), keys.end(), [&](const std::string& k) { return delta_carries(delta, k); });
}

GROUNDPLANE_INLINE std::string exception_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "a non-standard exception";
  }
}

GROUNDPLANE_INLINE SessionCore::SessionCore(SessionOptions o)
    : state(std::move(o.state)),
      require_human_approval(o.require_human_approval),
      allow_unmaterialized_fires(o.allow_unmaterialized_fires),
      approval_ttl(o.approval_ttl),
      store(std::move(o.store)),
      max_rows_in_memory(o.max_rows_in_memory) {
  ledger.node = SharedText(std::move(o.node));
  if (store && store->writable()) {
    if (store->backs_a_session_.exchange(true))
      throw ConfigurationError(
          "gp::SessionOptions::store already backs a live Session: one Session writes through a store (open "
          "another store for another Session)");
    claimed_store = true;
  }
}

GROUNDPLANE_INLINE void SessionCore::emit(const char* kind, nlohmann::json body) {
  if (store) outbox.push_back(LedgerRow{ledger.version, kind, std::move(body)});
}

GROUNDPLANE_INLINE void SessionCore::defer(const char* kind, nlohmann::json body) {
  if (store) deferred.push_back(LedgerRow{ledger.version, kind, std::move(body)});
}

GROUNDPLANE_INLINE void SessionCore::put_does(nlohmann::json& body, const std::string& action,
                                              const std::optional<std::string>& does) {
  if (!store) return;
  const auto it = does_written.find(action);
  if (it != does_written.end() && it->second == does) return;
  body["d"] = does ? nlohmann::json(*does) : nlohmann::json(nullptr);
  does_written.insert_or_assign(action, does);
}

GROUNDPLANE_INLINE void SessionCore::flush() {
  if (!store || (outbox.empty() && deferred.empty())) return;
  try {
    if (deferred.empty()) {
      head = store->append(outbox).hex;
    } else if (outbox.empty()) {  // a fire's grade after its handler returned: the usual case
      head = store->append(deferred).hex;
      deferred.clear();
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

GROUNDPLANE_INLINE SessionCore::~SessionCore() {
  outbox.clear();  // only rows of a call that did not complete could be left here
  try {
    flush();
  } catch (...) {  // a destructor must not throw; those grades read "stopped" after a restore
  }
  if (claimed_store) store->backs_a_session_ = false;
}

GROUNDPLANE_INLINE void SessionCore::trim() {
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
  const auto pending = [](const TransitionRecord& row) { return row.outcome == Outcome::pending; };
  try {
    ts.drop_front(nt, pending);
    gs.drop_front(ng, [](const GapRecord&) { return false; });
  } catch (const std::bad_alloc&) {  // nothing was dropped: the next row tries again
    return;
  }
  ts.release(pending);
}
}  // namespace detail

GROUNDPLANE_INLINE Session::Session(SessionOptions options) : core_(make_core(std::move(options))) {
  if (core_->store) open_store();
}

GROUNDPLANE_INLINE ActionHandle Session::declare(std::string id, ActionSpec spec) {
  if (id.empty()) throw ConfigurationError("gp::Session::declare: the action id is empty");
  if (spec.does.empty())
    throw ConfigurationError("gp::Session::declare(" + detail::quote(id) +
                             "): `does` is empty; every action needs its authored sentence");
  for (const auto* keys : {&spec.writes, &spec.reads}) {
    const char* field = keys == &spec.writes ? "`writes`" : "`reads`";
    for (const auto& w : *keys) {
      if (w.empty())
        throw ConfigurationError("gp::Session::declare(" + detail::quote(id) + "): an entry of " + field + " is empty");
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
  detail::SharedText does(spec.does);
  c.actions.insert_or_assign(
      id, detail::Mounted{std::move(spec), detail::SharedText(id), std::move(does), gen, c.next_order++});
  return ActionHandle(core_, std::move(id), gen);
}

GROUNDPLANE_INLINE void Session::undeclare(std::string_view id) {
  detail::SessionLock lock(*core_);
  const auto it = core_->actions.find(id);
  if (it != core_->actions.end()) core_->actions.erase(it);
}

GROUNDPLANE_INLINE void Session::move_to(std::string node, std::string focus) {
  detail::SessionLock lock(*core_);
  if (core_->store) {
    core_->emit("m", {{"n", node}, {"f", focus}});
    core_->flush();
  }
  core_->ledger.node = detail::SharedText(std::move(node));
  core_->ledger.focus = std::move(focus);
}

GROUNDPLANE_INLINE FireResult Session::fire(std::string_view id, FireOptions options) {
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  auto& L = c.ledger;
  std::string prior;
  // `declared` is the action's declaration, or null for an id nobody declared.
  const auto refuse = [&](Refusal r, const detail::Mounted* declared) {
    FireResult out{false, std::string(to_string(r)), "", prior};  // before the row: nothing can fail after it
    detail::GapRecord row{L.version,
                          declared ? declared->id : detail::share(id, c.last_refused),
                          declared ? declared->does : detail::SharedText(),
                          L.node,
                          {},
                          options.source,
                          r};
    row.extras =
        detail::Extras({c.holds_payloads() ? options.payload : nlohmann::json(), options.ask_id, /*error=*/"", prior});
    if (c.store) {  // stored first: a store that fails leaves no row anywhere
      nlohmann::json b = detail::row_body("a", id, "r", static_cast<int>(r));
      c.put_does(b, std::string(id), declared ? std::optional<std::string>(declared->spec.does) : std::nullopt);
      if (options.source != Principal::agent) b["p"] = static_cast<int>(options.source);
      if (!options.payload.is_null()) b["pl"] = options.payload;
      if (!options.ask_id.empty()) b["k"] = options.ask_id;
      if (!prior.empty()) b["pr"] = prior;
      c.emit("g", std::move(b));
      c.flush();
    }
    L.gaps.push_back(std::move(row));
    c.trim();
    return out;
  };

  const auto it = c.actions.find(id);
  if (it == c.actions.end()) return refuse(Refusal::unknown_affordance, nullptr);
  detail::Mounted& mounted = it->second;
  const ActionSpec& spec = mounted.spec;
  if (!mounted.flying) mounted.flying = &c.in_flight.of(mounted.id.str());
  if (!mounted.receipt)
    if (const auto r = L.receipts.find(id); r != L.receipts.end()) mounted.receipt = &r->second;
  if (!spec.handler && !c.allow_unmaterialized_fires) return refuse(Refusal::not_materialized, &mounted);
  if (spec.enabled_when && !spec.enabled_when(c.state)) return refuse(Refusal::tool_disabled, &mounted);
  if (spec.guard && !spec.guard(c.state)) return refuse(Refusal::guard_failed, &mounted);

  // Repeats, before any approval reason: a person is never sent to approve a fire about
  // to be turned away. A user's fire is a person acting on the screen: recorded.
  bool repeat = false;
  if (spec.concurrency != Concurrency::parallel) {
    const bool flying = !mounted.flying->empty();
    const OnceReceipt* receipt = mounted.receipt;
    // single_flight repeats while in flight; once, ever after it happened
    repeat = flying || (spec.concurrency == Concurrency::once && receipt);
    if (options.source != Principal::user) {
      if (flying) {
        prior = detail::transition_id_of(mounted.flying->back());
        return refuse(Refusal::prior_fire_pending, &mounted);
      }
      if (spec.concurrency == Concurrency::once && receipt && !receipt->reopened) {
        prior = detail::transition_id_of(receipt->transition);
        return refuse(Refusal::duplicate_execution, &mounted);
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
      if (!k) return refuse(Refusal::approval_required, &mounted);
      const AskStatus& a = L.asks[*k];
      switch (a.state) {
        case AskState::awaiting:
          return refuse(Refusal::approval_required, &mounted);
        case AskState::declined:
          return refuse(Refusal::approval_declined, &mounted);
        case AskState::spent:
          return refuse(Refusal::approval_spent, &mounted);
        case AskState::revoked:
          return refuse(Refusal::approval_revoked, &mounted);
        case AskState::approved:
          break;
      }
      if (a.action != id || a.input != options.payload) return refuse(Refusal::approval_mismatch, &mounted);
      if (approval_stale(a, &spec)) return refuse(Refusal::approval_stale, &mounted);
      spend = *k;
    }
  }

  // Recorded: the row takes the current version, then the version bumps. A fire is
  // recorded whole or not at all: what can fail (allocation) happens before the ledger
  // changes, or is undone, so running out of memory leaves no half-recorded row.
  const std::size_t idx = L.transitions.size();
  std::string tid = detail::transition_id_of(idx);
  auto handler = spec.handler;  // copies: the action may be unmounted while it runs
  auto verify = spec.verify;
  const bool has_writes = !spec.writes.empty();
  const nlohmann::json payload = handler ? options.payload : nlohmann::json();  // the handler's copy
  std::string spent_by = spend ? tid : std::string();
  // What the fire needs once its handler returns is allocated now, before the ledger
  // changes: running out of memory there could otherwise leave a recorded row ungraded.
  // (Receipts are never erased: one there now is there when the handler returns, and is
  // assigned without allocating; a node is made only for an action's first receipt.)
  const OnceReceipt receipt{idx, options.source == Principal::user};
  OnceReceipt* const receipt_slot = mounted.receipt;  // the declaration may be gone when the handler returns
  std::vector<std::size_t>* const flying = mounted.flying;
  auto receipt_node = handler && !receipt_slot ? detail::map_node(L.receipts, std::string(id), receipt)
                                               : decltype(L.receipts)::node_type{};
  if (handler) detail::running_fires().reserve(detail::running_fires().size() + 1);
  if (c.store) {  // the fire is stored before its handler runs: if the app dies inside it, the
                  // restored session knows it may have happened
    nlohmann::json b = detail::row_body("a", id);
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
  detail::TransitionRecord row{L.version,
                               mounted.id,
                               mounted.does,
                               L.node,
                               {},
                               options.source,
                               handler ? Outcome::pending : Outcome::not_materialized,
                               standing,
                               repeat};
  row.extras = detail::Extras({c.holds_payloads() || handler ? std::move(options.payload) : nlohmann::json(),
                               std::move(options.ask_id), /*error=*/"", /*prior_transition_id=*/""});
  L.transitions.push_back(std::move(row));
  const std::string& action = mounted.id.str();
  try {
    if (handler) detail::InFlight::add(*flying, idx);
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
  if (!handler) return FireResult{true, {}, std::move(tid), {}};

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

  detail::TransitionRecord& done = L.transitions[idx];
  if (thrown || !result.ok) {
    done.outcome = Outcome::handler_failed;
    std::string& error = done.extras.edit().error;
    error = thrown ? detail::exception_text(thrown) : result.error;
    done.extras.prune();
    c.unsettled.erase(idx);
    stop_awaiting(idx);
    graded(idx, flying);
    if (c.store) {
      c.emit("u",
             detail::row_body("t", idx, "o", static_cast<int>(Outcome::handler_failed), "e", done.extras.get().error));
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
  if (receipt_slot) {
    *receipt_slot = receipt;
  } else if (const auto put = L.receipts.insert(std::move(receipt_node)); !put.inserted) {
    put.position->second = receipt;  // another fire's receipt went in first: this one is newer
  }
  // The handler's return, as a row (its grade so far and the receipt), committed before
  // fire returns: a second commit, after the one before the handler. If the store fails,
  // the row waits to go first in the next commit and the LedgerStoreError propagates: the
  // handler did run, and its grade is not yet in the file.
  const auto returned = [&] {
    if (!c.store) return;
    c.defer("u", detail::row_body("t", idx, "o", static_cast<int>(L.transitions[idx].outcome), "rc", 1));
    c.flush();
  };
  if (has_writes) {
    const auto u = c.unsettled.find(idx);
    if (u != c.unsettled.end()) {
      u->second.handler_returned = true;
      if (u->second.reported) finalize(u, false);  // the returned row below carries the grade
    }
    returned();
    return FireResult{true, {}, std::move(tid), {}};
  }
  // Nothing declared to observe: settles now.
  done.outcome = Outcome::unobservable;
  graded(idx, flying);
  if (verify) {
    bool held = false;
    try {
      held = verify(c.state);
    } catch (...) {
      L.transitions[idx].outcome = Outcome::verify_failed;
      const std::exception_ptr verify_threw = std::current_exception();
      try {
        returned();
      } catch (const LedgerStoreError&) {  // the grade waits for the next commit; the app's
      }                                    // own exception is what the caller must see
      std::rethrow_exception(verify_threw);
    }
    if (!held) L.transitions[idx].outcome = Outcome::verify_failed;
  }
  returned();
  return FireResult{true, {}, std::move(tid), {}};
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): the signature is the API's
GROUNDPLANE_INLINE void Session::report_state(const nlohmann::json& delta, std::string transition_id) {
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
    c.emit("s", detail::row_body("dl", delta));
    if (target != c.unsettled.end() && target->second.handler_returned)
      c.emit("u", detail::row_body("t", target->first, "o", static_cast<int>(how.outcome())));
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

GROUNDPLANE_INLINE Ask Session::confirm_ask(std::string_view id, nlohmann::json input) {
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

GROUNDPLANE_INLINE ApprovalResult Session::approve_ask(std::string_view ask_id, std::string by) {
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

GROUNDPLANE_INLINE ApprovalResult Session::decline_ask(std::string_view ask_id, std::string by) {
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

GROUNDPLANE_INLINE ApprovalResult Session::revoke_ask(std::string_view ask_id, std::string by) {
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

GROUNDPLANE_INLINE ApprovalResult Session::grant_standing(std::string_view action_id, std::string by) {
  detail::require_decider(by, "grant_standing");
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  auto& L = c.ledger;
  const auto it = c.actions.find(action_id);
  if (it == c.actions.end())
    throw ConfigurationError("gp::Session::grant_standing: no action " + detail::quote(action_id) + " is declared now");
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
  L.standing.push_back(StandingGrant{std::string(action_id), it->second.spec.does, true, std::move(by), "", L.version});
  try {
    c.standing_index.emplace(action_id, L.standing.size() - 1);
  } catch (...) {
    L.standing.pop_back();
    throw;
  }
  return {true, ""};
}

GROUNDPLANE_INLINE ApprovalResult Session::revoke_standing(std::string_view action_id, std::string by) {
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

GROUNDPLANE_INLINE WorkHandle Session::begin_work(std::string label, std::string transition_id) {
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
    const detail::TransitionRecord& t = L.transitions[*f];
    row.transition_id = std::move(transition_id);
    row.action = t.action.str();
    row.does = t.does.optional();
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

GROUNDPLANE_INLINE std::uint64_t Session::version() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.version;
}

GROUNDPLANE_INLINE std::string Session::node() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.node.str();
}

GROUNDPLANE_INLINE std::string Session::focus() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.focus;
}

GROUNDPLANE_INLINE nlohmann::json Session::state() const {
  detail::SessionLock lock(*core_);
  return core_->state;
}

GROUNDPLANE_INLINE std::vector<Transition> Session::transitions() const {
  detail::SessionLock lock(*core_);
  const LedgerRows<Transition> rows{core_->ledger.transitions.held(), core_->ledger.transitions.dropped()};
  return {rows.begin(), rows.end()};
}

GROUNDPLANE_INLINE std::vector<GapRow> Session::gap_rows() const {
  detail::SessionLock lock(*core_);
  const LedgerRows<GapRow> rows{core_->ledger.gaps.held(), core_->ledger.gaps.dropped()};
  return {rows.begin(), rows.end()};
}

GROUNDPLANE_INLINE std::vector<AskStatus> Session::asks() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.asks;
}

GROUNDPLANE_INLINE std::vector<WorkRow> Session::work() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.work;
}

GROUNDPLANE_INLINE std::vector<ActionInfo> Session::actions() const {
  detail::SessionLock lock(*core_);
  return list_actions();
}

GROUNDPLANE_INLINE Availability Session::availability(std::string_view id) const {
  detail::SessionLock lock(*core_);
  const auto it = core_->actions.find(id);
  if (it != core_->actions.end()) {
    const auto& s = it->second.spec;
    return s.enabled_when && !s.enabled_when(core_->state) ? Availability::disabled : Availability::available;
  }
  return core_->ever_declared.contains(id) ? Availability::not_mounted : Availability::unknown;
}

GROUNDPLANE_INLINE GroundTruth Session::ground_truth(GroundTruthOptions options) const {
  detail::SessionLock lock(*core_);
  flush_deferred();  // the head then covers every grade the block shows
  GroundTruth g = detail::render_ground_truth(core_->ledger, options, nullptr, stale_probe(), stored_counter());
  g.head = core_->head;
  return g;
}

GROUNDPLANE_INLINE std::string Session::head() const {
  detail::SessionLock lock(*core_);
  flush_deferred();
  return core_->head;
}

GROUNDPLANE_INLINE Brief Session::context_brief(std::optional<std::uint64_t> since_version) const {
  detail::SessionLock lock(*core_);
  const auto& L = core_->ledger;
  const std::string& node = L.node.str();
  std::string text = "Where you are: " + (node.empty() ? std::string("(no page set)") : detail::escape(node));
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
  const std::span<const detail::TransitionRecord> ts = L.transitions.held();
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
      text += "\n  - " + detail::escape(ts[k].does ? ts[k].does.str() : std::string(unknown_action_text), does_cap);
  }
  return Brief{node, L.focus, L.version, std::move(text)};
}

GROUNDPLANE_INLINE std::shared_ptr<detail::SessionCore> Session::make_core(SessionOptions o) {
  if (o.approval_ttl.count() < 0)
    throw ConfigurationError("gp::SessionOptions::approval_ttl is negative; 0 means approvals never expire");
  if (!o.state.is_object())
    throw ConfigurationError("gp::SessionOptions::state must be a JSON object, got " +
                             std::string(o.state.type_name()));
  return std::make_shared<detail::SessionCore>(std::move(o));
}

GROUNDPLANE_INLINE void Session::set_actions_stale(bool on) {
  detail::SessionLock lock(*core_);
  if (core_->store) {
    core_->emit("ms", {{"on", on}});
    core_->flush();
  }
  core_->ledger.actions_may_be_stale = on;
}

GROUNDPLANE_INLINE void Session::open_store() {
  auto& c = *core_;
  if (c.store->head().rows == 0) {
    nlohmann::json b{{"n", c.ledger.node.str()}, {"st", c.state}};
    c.emit("init", std::move(b));
    c.flush();
    return;
  }
  c.state = nlohmann::json::object();
  c.ledger.node = detail::SharedText();
  detail::Replay r;
  RowHash last{};
  detail::read_rows(*c.store, 1, [&](detail::ParsedRow& row) {
    replay(row, r);
    last = row.hash;
  });
  c.head = to_hex(last);
  c.does_written = std::move(r.does);
  // The app stopped: what it was doing is no longer awaited.
  std::vector<std::size_t> flying = c.in_flight.all();
  std::sort(flying.begin(), flying.end());
  const nlohmann::json fires = flying;
  nlohmann::json work = nlohmann::json::array();
  for (const std::size_t k : c.ledger.open_work) work.push_back(k);
  if (fires.empty() && work.empty()) return;
  if (c.store->writable()) {
    c.emit("rs", {{"t", fires}, {"w", work}});
    c.flush();
  }
  stop_all(fires, work, r);
}

GROUNDPLANE_INLINE void Session::stop_all(const nlohmann::json& fires, const nlohmann::json& work, detail::Replay& r) {
  auto& L = core_->ledger;
  for (const auto& f : fires) {
    const auto k = f.get<std::size_t>();
    if (k >= L.transitions.size() || !L.transitions.holds(k)) continue;
    detail::TransitionRecord& t = L.transitions[k];
    if (t.outcome != Outcome::pending) continue;
    t.outcome = Outcome::stopped;
    stop_awaiting(k);
    core_->unsettled.erase(k);
    graded(k);
    // Its handler may have run: for `once`, unprovable non-execution is not non-execution.
    if (!r.returned.contains(k)) {
      const auto held = L.receipts.find(t.action.str());
      if (held == L.receipts.end() || held->second.transition < k)
        L.receipts.insert_or_assign(t.action.str(), OnceReceipt{k, t.principal == Principal::user});
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

GROUNDPLANE_INLINE void Session::replay(detail::ParsedRow& row, detail::Replay& r) {
  auto& c = *core_;
  auto& L = c.ledger;
  const auto bad = [&](const std::string& why) {
    // The kind is the file's, so escaped like any value read from outside.
    return LedgerStoreError("cannot restore session \"" + detail::escape(c.store->session()) + "\": row " +
                            std::to_string(row.seq) + " (" + detail::escape(row.kind) + ") " + why);
  };
  detail::RowBody& b = row.body;
  if (!row.parsed) throw bad("is not a JSON object (run verify_ledger)");
  const auto str = [&](const char* key) { return b.take_text(key); };
  const auto num = [&](const char* key) { return static_cast<std::size_t>(b.count(key)); };
  const auto does = [&](const std::string& action) -> std::optional<std::string> {
    if (b.has("d")) {
      std::optional<std::string> d;
      if (!b.is_null("d")) d = b.take_text("d");
      r.does.insert_or_assign(action, d);
      return d;
    }
    const auto it = r.does.find(action);
    return it == r.does.end() ? std::nullopt : it->second;
  };
  const auto principal = [&] { return static_cast<Principal>(b.integer("p", 0)); };
  const auto payload = [&](const char* key) { return b.take(key); };
  try {
    const std::string& k = row.kind;
    if (k == "init") {
      L.node = r.text(str("n"));
      c.state = b.take_tree("st", nlohmann::json::object());
    } else if (k == "m") {
      L.node = r.text(str("n"));
      L.focus = str("f");
    } else if (k == "ms") {
      L.actions_may_be_stale = b.flag("on", false);
    } else if (k == "s") {
      c.state.merge_patch(b.require("dl").take("dl"));
    } else if (k == "g") {
      const std::string a = str("a");
      detail::GapRecord g{row.version,
                          r.text(a),
                          r.text(does(a)),
                          L.node,
                          {},
                          principal(),
                          static_cast<Refusal>(b.require("r").integer("r"))};
      g.extras = detail::Extras({c.holds_payloads() ? payload("pl") : nlohmann::json(), str("k"), "", str("pr")});
      L.gaps.push_back(std::move(g));
      c.trim();
    } else if (k == "t") {
      const std::size_t idx = L.transitions.size();
      // Transition t-k has version k-1: every recorded fire bumps the version, and only they do.
      if (row.version != idx)
        throw bad("records a fire at version " + std::to_string(row.version) + " where the ledger is at " +
                  std::to_string(idx));
      const std::string a = str("a");
      const auto outcome = static_cast<Outcome>(b.integer("o", static_cast<int>(Outcome::pending)));
      detail::TransitionRecord t{
          row.version,          r.text(a),           r.text(does(a)), L.node, {}, principal(), outcome,
          b.integer("sg") != 0, b.integer("rp") != 0};
      t.extras = detail::Extras({c.holds_payloads() || outcome == Outcome::pending ? payload("pl") : nlohmann::json(),
                                 str("k"),
                                 /*error=*/"", /*prior_transition_id=*/""});
      L.transitions.push_back(std::move(t));
      L.version = row.version + 1;
      if (outcome == Outcome::pending) {
        c.in_flight.add(a, idx);
        if (b.integer("w") != 0) {
          L.awaiting_report.insert(idx);
          L.awaiting_by_action.insert(a, idx);
        }
      } else if (outcome == Outcome::inferred) {
        L.receipts.insert_or_assign(a, OnceReceipt{idx, true});
      }
      c.trim();
    } else if (k == "u") {
      const std::size_t idx = num("t");
      if (idx >= L.transitions.size()) throw bad("names a fire that is not in the ledger");
      // Only a fire not graded yet is graded, and such a fire is always held.
      if (!L.transitions.holds(idx)) throw bad("grades a fire that was graded long before");
      detail::TransitionRecord& t = L.transitions[idx];
      t.outcome = static_cast<Outcome>(b.require("o").integer("o"));
      if (b.has("e")) {
        t.extras.edit().error = str("e");
        t.extras.prune();
      }
      if (t.outcome != Outcome::pending) r.returned.erase(idx);  // what stop_all asks is about pending fires only
      if (b.integer("rc") != 0) {
        if (t.outcome == Outcome::pending) r.returned.insert(idx);
        L.receipts.insert_or_assign(t.action.str(), OnceReceipt{idx, t.principal == Principal::user});
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
      a.state = static_cast<AskState>(b.require("s").integer("s"));
      switch (a.state) {
        case AskState::approved:
          a.by = str("by");
          a.approved_at =
              std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
                  std::chrono::microseconds(b.integer("at"))));
          a.approved_reads = b.take_tree("rd", nlohmann::json::object());
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
      const bool on = b.integer("on") != 0;
      const auto g = c.standing_index.find(a);
      if (g == c.standing_index.end()) {
        std::optional<std::string> d;
        if (b.has("d") && !b.is_null("d")) d = b.take_text("d");
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
          w.action = L.transitions[*t].action.str();
          w.does = L.transitions[*t].does.optional();
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
      stop_all(b.take_tree("t", nlohmann::json::array()), b.take_tree("w", nlohmann::json::array()), r);
    } else {
      throw bad("is of a kind this release does not know");
    }
  } catch (const detail::MalformedRow& e) {
    throw bad(std::string("is malformed: ") + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw bad(std::string("is malformed: ") + e.what());
  }
}

GROUNDPLANE_INLINE ApprovalResult Session::answered_already(AskState s) {
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

GROUNDPLANE_INLINE std::vector<ActionInfo> Session::list_actions() const {
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

GROUNDPLANE_INLINE bool Session::would_be_duplicate(std::string_view id, const ActionSpec& s) const {
  if (s.concurrency != Concurrency::once || core_->in_flight.any(id)) return false;
  const auto r = core_->ledger.receipts.find(id);
  return r != core_->ledger.receipts.end() && !r->second.reopened;
}

GROUNDPLANE_INLINE bool Session::approval_stale(const AskStatus& a, const ActionSpec* spec) const {
  const auto& c = *core_;
  if (c.approval_ttl.count() > 0 && std::chrono::system_clock::now() - a.approved_at > c.approval_ttl) return true;
  for (const auto& [key, was] : a.approved_reads.items())
    if (detail::read_value(c.state, key) != was) return true;
  if (spec)
    for (const auto& key : spec->reads)
      if (!a.approved_reads.contains(key)) return true;
  return false;
}

GROUNDPLANE_INLINE void Session::flush_deferred() const {
  if (!core_->store || core_->deferred.empty()) return;
  try {
    core_->flush();
  } catch (const LedgerStoreError&) {
  }
}

GROUNDPLANE_INLINE detail::AttemptCounter Session::stored_counter() const {
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

GROUNDPLANE_INLINE std::function<bool(std::size_t)> Session::stale_probe() const {
  return [this](std::size_t k) {
    const AskStatus& a = core_->ledger.asks[k];
    const auto it = core_->actions.find(a.action);
    return approval_stale(a, it == core_->actions.end() ? nullptr : &it->second.spec);
  };
}

GROUNDPLANE_INLINE void Session::closed_ask(std::size_t k) {
  auto& c = *core_;
  if (c.holds_payloads()) return;
  AskStatus& a = c.ledger.asks[k];
  const auto key = c.ask_by_key.find(detail::ask_key(a.action, a.input));
  if (key != c.ask_by_key.end() && key->second == k) c.ask_by_key.erase(key);
  a.input = nullptr;
}

GROUNDPLANE_INLINE void Session::graded(std::size_t idx, std::vector<std::size_t>* flying) {
  detail::TransitionRecord& row = core_->ledger.transitions[idx];
  if (!core_->holds_payloads()) row.extras.drop_payload();
  if (flying) detail::InFlight::remove(*flying, idx);
  else core_->in_flight.remove(row.action.str(), idx);
}

GROUNDPLANE_INLINE void Session::stop_awaiting(std::size_t idx) {
  auto& L = core_->ledger;
  if (L.awaiting_report.erase(idx) != 0) L.awaiting_by_action.erase(L.transitions[idx].action.str(), idx);
}

GROUNDPLANE_INLINE void Session::finalize(std::map<std::size_t, detail::Unsettled>::iterator u, bool store_row) {
  detail::TransitionRecord& row = core_->ledger.transitions[u->first];
  row.outcome = u->second.verify_failed ? Outcome::verify_failed
                : u->second.observed    ? Outcome::observed
                                        : Outcome::not_observed;
  if (store_row && core_->store) core_->emit("u", detail::row_body("t", u->first, "o", static_cast<int>(row.outcome)));
  const std::size_t idx = u->first;
  core_->unsettled.erase(u);
  graded(idx);
}

GROUNDPLANE_INLINE Session::Settlement Session::judge(const detail::Unsettled& s, const nlohmann::json& delta) const {
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

GROUNDPLANE_INLINE void Session::settle(std::map<std::size_t, detail::Unsettled>::iterator u, const Settlement& how) {
  auto& s = u->second;
  s.reported = true;
  stop_awaiting(u->first);
  s.observed = how.observed;
  s.verify_failed = how.verify_failed;
  if (s.handler_returned) finalize(u, false);  // else the handler's return grades it
}

GROUNDPLANE_INLINE Session::InferredMatch Session::inferred_match(const nlohmann::json& delta) const {
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
  m.repeat = (con != Concurrency::parallel && core_->in_flight.any(*m.id)) ||
             (con == Concurrency::once && core_->ledger.receipts.contains(*m.id));
  return m;
}

GROUNDPLANE_INLINE void Session::emit_inferred(const InferredMatch& m) {
  nlohmann::json b =
      detail::row_body("a", *m.id, "p", static_cast<int>(Principal::user), "o", static_cast<int>(Outcome::inferred));
  core_->put_does(b, *m.id, m.action->spec.does);
  if (m.repeat) b["rp"] = 1;
  core_->emit("t", std::move(b));
}

GROUNDPLANE_INLINE void Session::infer(const InferredMatch& m) {
  auto& L = core_->ledger;
  const std::size_t idx = L.transitions.size();
  L.transitions.push_back(detail::TransitionRecord{
      L.version, m.action->id, m.action->does, L.node, {}, Principal::user, Outcome::inferred, false, m.repeat});
  ++L.version;
  // A person did it on the screen: the action is reopened for the next agent fire.
  L.receipts.insert_or_assign(*m.id, OnceReceipt{idx, true});
  core_->trim();
}

GROUNDPLANE_INLINE void ActionHandle::undeclare() {
  const auto core = core_.lock();
  if (!core) return;
  detail::SessionLock lock(*core);
  const auto it = core->actions.find(id_);
  if (it != core->actions.end() && it->second.generation == generation_) core->actions.erase(it);
}

GROUNDPLANE_INLINE bool ActionHandle::mounted() const {
  const auto core = core_.lock();
  if (!core) return false;
  detail::SessionLock lock(*core);
  const auto it = core->actions.find(id_);
  return it != core->actions.end() && it->second.generation == generation_;
}

GROUNDPLANE_INLINE void WorkHandle::done() {
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
GROUNDPLANE_INLINE GroundTruth ground_truth_probed(const Session& session, const GroundTruthOptions& opts,
                                                   RenderProbe& probe) {
  SessionLock lock(*session.core_);
  return render_ground_truth(session.core_->ledger, opts, &probe, session.stale_probe(), session.stored_counter());
}
}  // namespace detail

}  // namespace groundplane
