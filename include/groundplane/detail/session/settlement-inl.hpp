// The bodies of detail/session/settlement.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/settlement.hpp"

#include "groundplane/detail/session/in_doubt.hpp"
#include "groundplane/detail/session/request_keys.hpp"

namespace groundplane::detail {

GROUNDPLANE_INLINE void closed_ask(SessionCore& c, std::size_t k) {
  if (c.holds_payloads()) return;
  AskStatus& a = c.ledger.asks[k];
  c.open_asks.close(ask_key(a.action, a.instance, a.input), k);
  a.input = nullptr;
}

GROUNDPLANE_INLINE void graded(SessionCore& c, std::size_t idx, std::vector<std::size_t>* flying) {
  TransitionRecord& row = c.ledger.transitions[idx];
  if (!c.holds_payloads()) row.extras.drop_payload();
  c.pending.graded(idx, flight_key(row), flying);
}

GROUNDPLANE_INLINE void stop_awaiting(SessionCore& c, std::size_t idx) {
  auto& L = c.ledger;
  if (L.awaiting_report.erase(idx) != 0) L.awaiting_by_action.erase(L.transitions[idx].action.str(), idx);
}

GROUNDPLANE_INLINE void finalize(SessionCore& c, PendingFires::iterator u, bool store_row) {
  TransitionRecord& row = c.ledger.transitions[u->first];
  row.outcome = u->second.verify_failed ? Outcome::verify_failed
                : u->second.observed    ? Outcome::observed
                                        : Outcome::not_observed;
  if (store_row && c.store) c.durable.emit(rows::Grade{u->first, row.outcome, std::nullopt, false});
  graded(c, u->first);
}

GROUNDPLANE_INLINE void reject_fire(SessionCore& c, std::size_t idx, std::string code) {
  auto& L = c.ledger;
  if (c.store) {
    c.durable.emit(rows::Grade{idx, Outcome::rejected, code, false});
    c.durable.flush();
  }
  TransitionRecord& t = L.transitions[idx];
  t.outcome = Outcome::rejected;
  if (!code.empty()) {
    t.extras.edit().error = std::move(code);
    t.extras.prune();
  }
  stop_awaiting(c, idx);
  graded(c, idx);
  // The app says it did not happen: a `once` action may be fired again. (Receipts are
  // never erased: declarations keep pointers to them; a reopened one gates nothing.)
  if (const auto r = L.receipts.find(flight_key(t)); r != L.receipts.end() && r->second.transition == idx)
    r->second.reopened = true;
  free_request_key(c, idx);  // and its request may be made again
}

GROUNDPLANE_INLINE Settlement judge(const SessionCore& c, const Unsettled& s, const nlohmann::json& delta) {
  Settlement how;
  how.observed = delta_carries_all(delta, s.writes);
  if (s.verify) {
    try {
      how.verify_failed = !s.verify(c.state);
    } catch (...) {
      how.verify_failed = true;
      how.thrown = std::current_exception();
    }
  }
  return how;
}

GROUNDPLANE_INLINE void settle(SessionCore& c, PendingFires::iterator u, const Settlement& how) {
  auto& s = u->second;
  s.reported = true;
  stop_awaiting(c, u->first);
  s.observed = how.observed;
  s.verify_failed = how.verify_failed;
  if (s.handler_returned) finalize(c, u, false);  // else the handler's return grades it
}

GROUNDPLANE_INLINE InferredMatch inferred_match(const SessionCore& c, const nlohmann::json& delta) {
  InferredMatch m;
  int n = 0;
  for (const auto& [id, mounted] : c.actions) {
    if (mounted.spec.writes.empty() || !delta_carries_all(delta, mounted.spec.writes)) continue;
    ++n;
    m.action = &mounted;
    m.id = &id;
  }
  if (n != 1) return {};
  const auto con = m.action->spec.concurrency;
  m.repeat = (con != Concurrency::parallel && c.pending.any_in_flight(*m.id)) ||
             (con == Concurrency::once && c.ledger.receipts.contains(*m.id));
  return m;
}

GROUNDPLANE_INLINE void emit_inferred(SessionCore& c, const InferredMatch& m) {
  rows::Attempt a;
  a.action = *m.id;
  a.does = c.durable.does_to_store(*m.id, m.action->spec.does);
  a.principal = Principal::user;
  c.durable.emit(rows::Recorded{std::move(a), false, m.repeat, Outcome::inferred, false});
}

GROUNDPLANE_INLINE void infer(SessionCore& c, const InferredMatch& m) {
  auto& L = c.ledger;
  const std::size_t idx = L.transitions.size();
  L.transitions.push_back(TransitionRecord{
      L.version, m.action->id, m.action->does, L.node, {}, Principal::user, Outcome::inferred, false, m.repeat});
  ++L.version;
  // A person did it on the screen: the action is reopened for the next agent fire.
  L.receipts.insert_or_assign(*m.id, OnceReceipt{idx, true});
  c.trim();
}

GROUNDPLANE_INLINE void stop_all(SessionCore& c, const std::vector<std::uint64_t>& fires,
                                 const std::vector<std::uint64_t>& work, const std::set<std::size_t>& returned) {
  auto& L = c.ledger;
  for (const std::uint64_t f : fires) {
    const auto k = static_cast<std::size_t>(f);
    if (k >= L.transitions.size() || !L.transitions.holds(k)) continue;
    TransitionRecord& t = L.transitions[k];
    if (t.outcome != Outcome::pending) continue;
    t.outcome = Outcome::stopped;
    stop_awaiting(c, k);
    c.pending.graded(k, flight_key(t));  // its payload stays: a probe is handed it
    leave_in_doubt(c, k, returned.contains(k));
    // Its handler may have run: for `once`, unprovable non-execution is not non-execution.
    if (!returned.contains(k)) {
      const std::string key = flight_key(t);  // per item, for an action with instances
      const auto held = L.receipts.find(key);
      if (held == L.receipts.end() || held->second.transition < k)
        L.receipts.insert_or_assign(key, OnceReceipt{k, t.principal == Principal::user});
    }
  }
  for (const std::uint64_t w : work) {
    const auto k = static_cast<std::size_t>(w);
    if (k >= L.work.size() || !L.work[k].open) continue;
    L.work[k].open = false;
    L.open_work.erase(k);
    if (!L.work[k].transition_id.empty()) L.working_by_action.erase(L.work[k].action, k);
  }
}

}  // namespace groundplane::detail
