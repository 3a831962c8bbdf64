// The bodies of detail/session/fire.hpp: included by it in the header-only build, compiled once
// into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/fire.hpp"

#include "groundplane/detail/session/in_doubt.hpp"
#include "groundplane/detail/session/request_keys.hpp"
#include "groundplane/detail/session/settlement.hpp"

namespace groundplane::detail {

GROUNDPLANE_INLINE std::optional<Refusal> refused_as_undeclared(SessionCore& c, FireAttempt& f) {
  const auto it = c.actions.find(f.id);
  if (it == c.actions.end()) return Refusal::unknown_affordance;
  Mounted& m = it->second;
  f.mounted = &m;
  if (!m.flying) m.flying = &c.pending.in_flight_of(m.id.str());
  if (!m.receipt)
    if (const auto r = c.ledger.receipts.find(f.id); r != c.ledger.receipts.end()) m.receipt = &r->second;
  return std::nullopt;
}

GROUNDPLANE_INLINE std::optional<Refusal> refused_as_unknown_instance(SessionCore& c, FireAttempt& f) {
  Mounted& m = *f.mounted;
  const std::string& instance = f.options.instance;
  if (!m.spec.instances) {
    if (!instance.empty()) {
      f.verdict = "never-existed";
      return Refusal::instance_unknown;
    }
    f.flying = m.flying;
    f.receipt = m.receipt;
    return std::nullopt;
  }
  if (instance.empty()) return Refusal::instance_required;
  const ItemSet* items = items_of(c, m);
  if (items == nullptr) {  // it could not list them: whether this one exists is not known
    f.verdict = "unsupported";
    return Refusal::instance_unknown;
  }
  if (!items->members.contains(instance)) {
    f.verdict = "never-existed";
    return Refusal::instance_unknown;
  }
  const std::string key = flight_key(f.id, instance);
  f.flying = &c.pending.in_flight_of(key);
  if (const auto r = c.ledger.receipts.find(key); r != c.ledger.receipts.end()) f.receipt = &r->second;
  return std::nullopt;
}

GROUNDPLANE_INLINE std::optional<Refusal> refused_as_unmaterialized(const SessionCore& c, const FireAttempt& f) {
  if (!f.mounted->spec.handler && !c.allow_unmaterialized_fires) return Refusal::not_materialized;
  return std::nullopt;
}

GROUNDPLANE_INLINE std::optional<Refusal> refused_as_disabled(const SessionCore& c, const FireAttempt& f) {
  const ActionSpec& spec = f.mounted->spec;
  if (spec.enabled_when && !spec.enabled_when(c.state)) return Refusal::tool_disabled;
  return std::nullopt;
}

GROUNDPLANE_INLINE std::optional<Refusal> refused_by_guard(const SessionCore& c, const FireAttempt& f) {
  const ActionSpec& spec = f.mounted->spec;
  if (spec.guard && !spec.guard(c.state)) return Refusal::guard_failed;
  return std::nullopt;
}

GROUNDPLANE_INLINE std::optional<Refusal> refused_as_invalid_payload(FireAttempt& f) {
  if (!f.extent.too_deep.empty()) {  // nothing past the bound is read, whatever the action takes
    f.issues = {f.extent.too_deep};
    return Refusal::payload_invalid;
  }
  const std::optional<JsonSchema>& input = f.mounted->input;
  if (!input) return std::nullopt;
  f.issues = input->validate(f.options.payload);
  if (!f.issues.empty()) return Refusal::payload_invalid;
  if (input->takes_no_input()) f.options.payload = nullptr;
  return std::nullopt;
}

GROUNDPLANE_INLINE std::optional<Refusal> refused_as_unsupported_argument(const SessionCore& c, FireAttempt& f) {
  const CheckList& checks = f.mounted->spec.argument_checks;
  if (checks.empty()) return std::nullopt;
  ArgumentReview review = review_arguments(*c.facts, checks, f.options.payload, false);
  if (review.failed_checks.empty()) return std::nullopt;
  f.issues = std::move(review.issues);
  f.failed_checks = std::move(review.failed_checks);
  return Refusal::unsupported_argument;
}

GROUNDPLANE_INLINE ArgumentReview review_arguments(const FactRegistry& facts, const CheckList& checks,
                                                   const nlohmann::json& payload, bool with_support) {
  constexpr std::size_t max_issues = JsonSchema::default_max_issues;
  ArgumentReview out;
  std::size_t more = 0;
  std::vector<Finding> findings;
  for (const AnyCheck& check : checks) {
    findings.clear();
    check.verify(facts, payload, findings);
    if (findings.empty()) {
      if (with_support) supported_fields(facts, check, payload, out.support);
      continue;
    }
    out.failed_checks.push_back(check.name());
    for (const Finding& finding : findings) {
      if (out.issues.size() < max_issues) out.issues.push_back(finding.message());
      else ++more;
    }
  }
  if (more > 0) out.issues.push_back("and " + std::to_string(more) + " more");
  return out;
}

GROUNDPLANE_INLINE void supported_fields(const FactRegistry& facts, const AnyCheck& check,
                                         const nlohmann::json& payload, std::vector<ArgumentSupport>& out) {
  const std::optional<std::vector<std::string>> read = check.reads();
  if (!read) return;                    // a check that does not say what it reads supports no field by name
  std::vector<std::string_view> named;  // a field a check reads twice is supported once
  for (const std::string& field : *read) {
    if (std::find(named.begin(), named.end(), field) != named.end()) continue;
    named.push_back(field);
    if (find_field(payload, field) == nullptr) continue;
    for (const std::string& fact : check.leans_on())
      out.push_back(
          ArgumentSupport{field, fact, facts.visit(fact, [](const auto& held) { return held.provenance().render(); })});
  }
}

GROUNDPLANE_INLINE void validate_argument_checks(const SessionCore& c, std::string_view action,
                                                 const CheckList& checks) {
  if (checks.empty()) return;
  const std::string where = "gp::Session::declare(" + quote(action) + "): `argument_checks`: ";
  if (c.facts == nullptr)
    throw ConfigurationError(where +
                             "SessionOptions::facts is not set, so there are no facts to check arguments against");
  for (const std::string& fact : checks.leans_on())
    if (!c.facts->contains(fact))
      throw ConfigurationError(where + "the registry holds no fact " + quote(fact) +
                               "; record it before declaring the action");
  try {
    checks.validate(*c.facts);
  } catch (const ConfigurationError& e) {
    throw ConfigurationError(where + e.what());
  }
}

GROUNDPLANE_INLINE std::optional<Refusal> refused_as_repeat(const SessionCore&, FireAttempt& f) {
  const Mounted& m = *f.mounted;
  const Concurrency con = m.spec.concurrency;
  if (con == Concurrency::parallel) return std::nullopt;
  const bool flying = !f.flying->empty();
  const OnceReceipt* receipt = f.receipt;
  // single_flight repeats while in flight; once, ever after it happened
  f.repeat = flying || (con == Concurrency::once && receipt);
  if (f.options.source == Principal::user) return std::nullopt;  // a person acting on the screen
  if (flying) {
    f.prior = transition_id_of(f.flying->back());
    return Refusal::prior_fire_pending;
  }
  if (con == Concurrency::once && receipt && !receipt->reopened) {
    f.prior = transition_id_of(receipt->transition);
    return Refusal::duplicate_execution;
  }
  return std::nullopt;
}

GROUNDPLANE_INLINE std::optional<Refusal> refused_at_approval(const SessionCore& c, FireAttempt& f) {
  const ActionSpec& spec = f.mounted->spec;
  if (!c.require_human_approval || !spec.high_effect || f.options.source != Principal::agent) return std::nullopt;
  const auto& L = c.ledger;
  const auto grant = c.standing_index.find(f.id);
  f.standing = grant != c.standing_index.end() && L.standing[grant->second].active;
  if (f.standing) return std::nullopt;
  const auto k = row_index(f.options.ask_id, "ask-", L.asks);
  if (!k) return Refusal::approval_required;
  const AskStatus& a = L.asks[*k];
  switch (a.state) {
    case AskState::awaiting:
      return Refusal::approval_required;
    case AskState::declined:
      return Refusal::approval_declined;
    case AskState::spent:
      return Refusal::approval_spent;
    case AskState::revoked:
      return Refusal::approval_revoked;
    case AskState::approved:
      break;
  }
  if (a.action != f.id || a.instance != f.options.instance || a.input != f.options.payload)
    return Refusal::approval_mismatch;
  if (approval_stale(c, a, &spec)) return Refusal::approval_stale;
  f.spend = *k;
  return std::nullopt;
}

GROUNDPLANE_INLINE std::optional<Refusal> gate(SessionCore& c, FireAttempt& f) {
  f.extent = json_extent(f.options.payload, max_payload_depth);  // one walk, no recursion
  if (auto r = refused_as_undeclared(c, f)) return r;
  if (auto r = refused_as_reused_key(f)) return r;
  if (auto r = refused_as_unknown_instance(c, f)) return r;
  if (auto r = refused_as_unmaterialized(c, f)) return r;
  if (auto r = refused_as_disabled(c, f)) return r;
  if (auto r = refused_by_guard(c, f)) return r;
  if (auto r = refused_as_invalid_payload(f)) return r;
  if (auto r = refused_as_unsupported_argument(c, f)) return r;
  if (auto r = refused_as_repeat(c, f)) return r;
  return refused_at_approval(c, f);
}

GROUNDPLANE_INLINE bool approval_stale(const SessionCore& c, const AskStatus& a, const ActionSpec* spec) {
  if (c.approval_ttl.count() > 0 && c.now() - a.approved_at > c.approval_ttl) return true;
  for (const auto& [key, was] : a.approved_reads.items())
    if (read_value(c.state, key) != was) return true;
  if (spec)
    for (const auto& key : spec->reads)
      if (!a.approved_reads.contains(key)) return true;
  return false;
}

GROUNDPLANE_INLINE bool would_be_duplicate(const SessionCore& c, std::string_view id, const ActionSpec& s) {
  // An action over instances is done per item: as a whole it is never performed.
  if (s.concurrency != Concurrency::once || s.instances || c.pending.any_in_flight(id)) return false;
  const auto r = c.ledger.receipts.find(id);
  return r != c.ledger.receipts.end() && !r->second.reopened;
}

GROUNDPLANE_INLINE rows::Attempt attempt_row(SessionCore& c, const FireAttempt& f, bool payload) {
  rows::Attempt a;
  a.action = std::string(f.id);
  a.does =
      c.durable.does_to_store(a.action, f.mounted ? std::optional<std::string>(f.mounted->spec.does) : std::nullopt);
  a.principal = f.options.source;
  if (payload) a.payload = f.options.payload;
  a.ask_id = f.options.ask_id;
  a.instance = f.options.instance;
  a.request_key = f.options.request_key;
  return a;
}

GROUNDPLANE_INLINE FireResult refuse(SessionCore& c, FireAttempt& f, Refusal reason) {
  auto& L = c.ledger;
  // What a model sends only to be refused is kept within the session's budget: a payload
  // nested past the bound, or larger than what the budget has left, is kept as its size.
  // (Nothing counts when nothing keeps refused payloads: no store, and max_rows_in_memory.)
  const bool kept_somewhere = c.holds_payloads() || c.store;
  const std::uint64_t bytes = f.options.payload.is_null() ? 0 : f.extent.bytes;
  const bool keep =
      f.extent.too_deep.empty() && (!kept_somewhere || c.refused_payload_bytes + bytes <= c.max_refused_payload_bytes);
  // Built before the row: nothing can fail after it.
  FireResult out{false, std::string(to_string(reason)), "", f.prior, std::move(f.issues), f.verdict};
  out.payload_omitted = keep ? 0 : bytes;
  GapRecord row{L.version,
                f.mounted ? f.mounted->id : share(f.id, c.last_refused),
                f.mounted ? f.mounted->does : SharedText(),
                L.node,
                {},
                f.options.source,
                reason};
  row.extras = Extras({c.holds_payloads() && keep ? f.options.payload : nlohmann::json(), f.options.ask_id,
                       /*error=*/"", f.prior});
  if (!f.failed_checks.empty()) row.extras.edit().failed_checks = f.failed_checks;
  if (!keep) row.extras.edit().payload_omitted = bytes;
  if (!f.options.request_key.empty()) row.extras.edit().request_key = f.options.request_key;
  if (!f.options.instance.empty()) row.instance = share(f.options.instance, c.last_instance);
  if (c.store) {  // stored first: a store that fails leaves no row anywhere
    c.durable.emit(rows::Refused{attempt_row(c, f, keep), reason, f.prior, f.failed_checks, out.payload_omitted});
    c.durable.flush();
  }
  L.gaps.push_back(std::move(row));
  if (keep && kept_somewhere) c.refused_payload_bytes += bytes;
  c.trim();
  return out;
}

// record's steps, in the order it takes them.

// What the fire needs once its handler returns, allocated before the ledger changes:
// running out of memory there could otherwise leave a recorded row ungraded. (Receipts
// are never erased: one there now is there when the handler returns, and is assigned
// without allocating; a node is made only for an action's first receipt.)
GROUNDPLANE_INLINE RecordedFire prepare_record(const SessionCore& c, const FireAttempt& f) {
  const ActionSpec& spec = f.mounted->spec;
  RecordedFire r;
  r.index = c.ledger.transitions.size();
  r.id = transition_id_of(r.index);
  r.handler = spec.handler;
  r.verify = spec.verify;
  r.has_writes = !spec.writes.empty();
  if (r.handler) r.payload = f.options.payload;
  r.receipt = OnceReceipt{r.index, f.options.source == Principal::user};
  r.receipt_slot = f.receipt;  // the declaration may be gone when the handler returns
  r.flying = f.flying;
  if (r.handler && !r.receipt_slot)
    r.receipt_node = map_node(c.ledger.receipts, flight_key(f.id, f.options.instance), r.receipt);
  if (r.handler) RunningScope::reserve_one();
  return r;
}

// Stored before its handler runs: if the app dies inside it, the restored session knows
// it may have happened, and the key it was given.
GROUNDPLANE_INLINE void store_record(SessionCore& c, const FireAttempt& f, const RecordedFire& r) {
  if (!c.store) return;
  rows::Recorded stored{attempt_row(c, f), f.standing, f.repeat,
                        r.handler ? Outcome::pending : Outcome::not_materialized, r.handler && r.has_writes};
  stored.idempotency_key = r.context.idempotency_key;
  c.durable.emit(std::move(stored));
  if (f.spend) c.durable.emit(rows::Decision{.ask = *f.spend, .state = AskState::spent, .spent_by = r.id});
  c.durable.flush();
}

// The fire's transition row. It takes the payload from the attempt (the request's binding,
// made before it, keeps a copy when the row will not).
GROUNDPLANE_INLINE TransitionRecord transition_row(SessionCore& c, FireAttempt& f, RecordedFire& r,
                                                   const IdempotencyKey& key) {
  const auto& L = c.ledger;
  const Mounted& mounted = *f.mounted;
  TransitionRecord row{L.version,
                       mounted.id,
                       mounted.does,
                       L.node,
                       {},
                       f.options.source,
                       r.handler ? Outcome::pending : Outcome::not_materialized,
                       f.standing,
                       f.repeat,
                       key};
  row.extras = Extras({c.holds_payloads() || r.handler ? std::move(f.options.payload) : nlohmann::json(),
                       std::move(f.options.ask_id), /*error=*/"", /*prior_transition_id=*/""});
  r.request_key = !f.options.request_key.empty();
  if (r.request_key) row.extras.edit().request_key = std::move(f.options.request_key);
  if (!f.options.instance.empty()) row.instance = share(f.options.instance, c.last_instance);
  r.instance = row.instance;
  return row;
}

// Holds the row and enters it in every index kept beside the transitions: its request
// key's binding, its action's fires in flight, the fires awaiting the app's report (and
// by action). All or none: if one throws, each is taken out again in reverse order
// (taking out what was never entered changes nothing) and the row is dropped last (the
// undoing reads it), so no index names a transition that is not there.
GROUNDPLANE_INLINE void hold_record(SessionCore& c, const FireAttempt& f, const RecordedFire& r, TransitionRecord&& row,
                                    BoundRequest&& binding) {
  auto& L = c.ledger;
  L.transitions.push_back(std::move(row));
  const std::string& action = f.mounted->id.str();
  const std::string& request_key = L.transitions[r.index].extras.get().request_key;
  try {
    if (r.request_key) bind_request(c, request_key, std::move(binding));
    if (r.handler && !r.has_writes) c.pending.hold(*r.flying, r.index, std::nullopt);
    if (r.handler && r.has_writes) {
      c.pending.hold(*r.flying, r.index, Unsettled{f.mounted->spec.writes, r.verify});
      L.awaiting_report.insert(r.index);
      L.awaiting_by_action.insert(action, r.index);
    }
    if (f.options.source == Principal::agent) c.changes.clear(action);  // the agent acted on what it knew
  } catch (...) {
    stop_awaiting(c, r.index);  // awaiting_report and awaiting_by_action
    graded(c, r.index);         // out of the pending fires
    unbind_request(c, request_key, r.index);
    L.transitions.pop_back();
    throw;
  }
}

// The approved ask the fire presented is spent, by this fire.
GROUNDPLANE_INLINE void spend_ask(SessionCore& c, std::size_t ask, std::string spent_by) {
  AskStatus& a = c.ledger.asks[ask];
  a.state = AskState::spent;
  a.spent_by = std::move(spent_by);
  c.ledger.answered_asks.erase(ask);
  closed_ask(c, ask);
}

// Recorded: the row takes the current version, then the version bumps. A fire is
// recorded whole or not at all: what can fail (allocation) happens before the ledger
// changes, or is undone, so running out of memory leaves no half-recorded row.
GROUNDPLANE_INLINE RecordedFire record(SessionCore& c, FireAttempt& f) {
  RecordedFire r = prepare_record(c, f);
  std::string spent_by = f.spend ? r.id : std::string();
  // Its idempotency key: the one a fire resolved "did NOT happen" left for the fire that
  // takes its place, else one drawn for it.
  const KeyChoice key = choose_key(c, f);
  r.context.transition_id = r.id;
  r.context.idempotency_key = key.key.hex();
  r.context.instance = f.options.instance;
  store_record(c, f, r);
  // Bound before the row takes the payload: the binding keeps it when the row will not
  // (max_rows_in_memory).
  BoundRequest binding = bound_request(c, f, r.index);
  TransitionRecord row = transition_row(c, f, r, key.key);
  hold_record(c, f, r, std::move(row), std::move(binding));
  take_key(c, key);
  ++c.ledger.version;
  if (f.spend) spend_ask(c, *f.spend, std::move(spent_by));
  c.trim();
  return r;
}

GROUNDPLANE_INLINE HandlerReturn run_handler(const SessionCore& c, const RecordedFire& r, SessionLock& lock) {
  HandlerReturn out;
  lock.release();  // the handler may call report_state, begin_work, fire ...
  try {
    const RunningScope running(&c, r.index, &r.instance, &r.context);
    out.result = r.handler(r.payload);
  } catch (...) {
    out.thrown = std::current_exception();
  }
  lock.acquire();
  return out;
}

GROUNDPLANE_INLINE void keep_data(SessionCore& c, std::size_t index, const nlohmann::json& data) {
  if (data.is_null()) return;
  // Measured as it is served, compact JSON, in one walk that a value nested a million
  // deep does not overflow; such a value is never copied.
  const JsonExtent extent = json_extent(data, max_payload_depth);
  RowExtras& extras = c.ledger.transitions[index].extras.edit();
  if (extent.too_deep.empty() && extent.bytes <= c.max_data_bytes) extras.data = data;
  else extras.data_omitted = extent.bytes;
}

// The handler failed (returned ok = false, or threw): graded so, and stored.
GROUNDPLANE_INLINE FireResult grade_failure(SessionCore& c, RecordedFire& r, const HandlerReturn& h,
                                            SessionLock& lock) {
  TransitionRecord& done = c.ledger.transitions[r.index];
  done.outcome = Outcome::handler_failed;
  std::string& error = done.extras.edit().error;
  error = h.thrown ? exception_text(h.thrown) : h.result.error;
  done.extras.prune();
  stop_awaiting(c, r.index);
  graded(c, r.index, r.flying);
  mark_request_failed(c, r.index);
  if (c.store) {
    c.durable.emit(rows::Grade{r.index, Outcome::handler_failed, done.extras.get().error, false});
    c.durable.flush();
  }
  if (h.thrown) {
    lock.release();
    std::rethrow_exception(h.thrown);
  }
  return FireResult{false, "HANDLER_FAILED", r.id};
}

GROUNDPLANE_INLINE FireResult grade_return(SessionCore& c, RecordedFire& r, const HandlerReturn& h, SessionLock& lock) {
  auto& L = c.ledger;
  if (L.transitions[r.index].outcome == Outcome::rejected) {  // the app settled it while the handler ran
    if (h.thrown) {
      lock.release();
      std::rethrow_exception(h.thrown);
    }
    return FireResult{false, "REJECTED", r.id};
  }
  if (h.thrown || !h.result.ok) return grade_failure(c, r, h, lock);
  keep_data(c, r.index, h.result.data);
  // Ran without failing: it happened, observed or not (unprovable non-execution is not
  // non-execution). An agent or system fire holds the once receipt; a user's reopens.
  if (r.receipt_slot) {
    *r.receipt_slot = r.receipt;
  } else if (const auto put = L.receipts.insert(std::move(r.receipt_node)); !put.inserted) {
    put.position->second = r.receipt;  // another fire's receipt went in first: this one is newer
  }
  // The handler's return, as a row (its grade so far and the receipt), committed before
  // fire returns: a second commit, after the one before the handler. If the store fails,
  // the row waits to go first in the next commit and the LedgerStoreError propagates: the
  // handler did run, and its grade is not yet in the file.
  const auto returned = [&] {
    if (!c.store) return;
    const RowExtras& kept = L.transitions[r.index].extras.get();
    c.durable.defer(
        rows::Grade{r.index, L.transitions[r.index].outcome, std::nullopt, true, kept.data, kept.data_omitted});
    c.durable.flush();
  };
  if (r.has_writes) {
    const auto u = c.pending.find(r.index);
    if (u != c.pending.end()) {
      u->second.handler_returned = true;
      if (u->second.reported) finalize(c, u, false);  // the returned row below carries the grade
    }
    returned();
    return FireResult{true, {}, std::move(r.id), {}};
  }
  // Nothing declared to observe: settles now.
  L.transitions[r.index].outcome = Outcome::unobservable;
  graded(c, r.index, r.flying);
  if (r.verify) {
    bool held = false;
    try {
      held = r.verify(c.state);
    } catch (...) {
      L.transitions[r.index].outcome = Outcome::verify_failed;
      const std::exception_ptr verify_threw = std::current_exception();
      try {
        returned();
      } catch (const LedgerStoreError&) {  // the grade waits for the next commit; the app's
      }                                    // own exception is what the caller must see
      std::rethrow_exception(verify_threw);
    }
    if (!held) L.transitions[r.index].outcome = Outcome::verify_failed;
  }
  returned();
  return FireResult{true, {}, std::move(r.id), {}};
}

}  // namespace groundplane::detail
