// The bodies of detail/session/outcome.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/outcome.hpp"

#include <algorithm>
#include <vector>

#include "groundplane/detail/ledger/row_body.hpp"
#include "groundplane/detail/session/fire.hpp"
#include "groundplane/detail/session/in_doubt.hpp"
#include "groundplane/ground_truth.hpp"

namespace groundplane::detail {

GROUNDPLANE_INLINE std::string_view did_of(Outcome o) noexcept {
  switch (o) {
    case Outcome::observed:
    case Outcome::inferred:
    case Outcome::confirmed:
    case Outcome::confirmed_by_person:
      return "yes";
    case Outcome::handler_failed:
    case Outcome::not_materialized:
    case Outcome::verify_failed:
    case Outcome::rejected:
    case Outcome::confirmed_not_run:
    case Outcome::confirmed_not_run_by_person:
      return "no";
    case Outcome::not_observed:
    case Outcome::unobservable:
    case Outcome::stopped:
    case Outcome::pending:
    case Outcome::confirmed_not_observed:
    case Outcome::confirmed_not_observed_by_person:
      break;
  }
  return "unknown";
}

GROUNDPLANE_INLINE std::optional<StoredFire> stored_fire(const LedgerStore& store, std::size_t index) {
  std::optional<StoredFire> found;
  bool returned = false;  // its handler returned while it awaited its report (a resolution's reading)
  std::size_t transitions = 0;
  std::map<std::string, bool, std::less<>> declared;  // each action's latest carried `does`
  const auto note = [&](const std::string& action, const rows::CarriedDoes& does) {
    if (does) declared.insert_or_assign(action, does->has_value());
    const auto it = declared.find(action);
    return it == declared.end() || it->second;
  };
  RowBody b;
  store.read(1, [&](const StoredRow& row) {
    if (!b.read(row.body)) return true;  // not a row this reads; verify names it
    try {
      if (row.kind == rows::Recorded::kind) {
        auto t = rows::Recorded::decode(b);
        const bool was_declared = note(t.fire.action, t.fire.does);
        if (transitions++ == index)
          found = StoredFire{t.fire.principal,
                             std::move(t.fire.action),
                             was_declared,
                             t.repeat,
                             t.outcome,
                             nullptr,
                             0,
                             std::move(t.fire.instance),
                             std::move(t.fire.request_key),
                             std::move(t.fire.payload)};
      } else if (!found) {
        if (row.kind == rows::Refused::kind) {
          const auto g = rows::Refused::decode(b);
          note(g.fire.action, g.fire.does);
        } else if (row.kind == rows::AskMinted::kind) {
          const auto q = rows::AskMinted::decode(b);
          note(q.action, q.does);
        }
      } else if (row.kind == rows::Grade::kind) {
        auto g = rows::Grade::decode(b);
        if (g.transition != index) return true;
        if (g.receipt && g.outcome == Outcome::pending) returned = true;
        found->outcome = g.outcome;
        if (!g.data.is_null()) found->data = std::move(g.data);
        if (g.data_omitted != 0) found->data_omitted = g.data_omitted;
      } else if (row.kind == rows::Restart::kind && found->outcome == Outcome::pending) {
        const auto rs = rows::Restart::decode(b);
        if (std::find(rs.fires.begin(), rs.fires.end(), index) != rs.fires.end()) found->outcome = Outcome::stopped;
      } else if (row.kind == rows::Resolution::kind && found->outcome == Outcome::stopped) {
        const auto v = rows::Resolution::decode(b);
        if (v.transition == index) found->outcome = resolved_outcome(v.happened, returned, v.by.has_value());
      }
    } catch (const MalformedRow&) {  // verify names it; this answer reads past it
    }
    return true;
  });
  return found;
}

GROUNDPLANE_INLINE void put_data(nlohmann::json& out, const nlohmann::json& data, std::uint64_t omitted) {
  if (omitted != 0) out["data_omitted"] = {{"bytes", omitted}};
  else if (!data.is_null()) out["data"] = data;
}

GROUNDPLANE_INLINE nlohmann::json settled_answer(Outcome outcome, std::string line, const nlohmann::json& data,
                                                 std::uint64_t omitted) {
  nlohmann::json out{{"ok", true}};
  if (outcome == Outcome::pending) {
    out["settled"] = false;
    out["line"] = std::move(line);
    out["message"] =
        "The app has not said yet how this fire turned out. Do not fire the action again: ask again with the "
        "same transition_id.";
    return out;
  }
  out["settled"] = true;
  out["did"] = std::string(did_of(outcome));
  out["line"] = std::move(line);
  put_data(out, data, omitted);
  return out;
}

// A fire a restart left in doubt: said so, with the key the system it called knows it by.
GROUNDPLANE_INLINE void put_in_doubt(nlohmann::json& out, const TransitionRecord& t) {
  out["in_doubt"] = true;
  out["idempotency_key"] = t.key.hex();
  out["message"] =
      "The app stopped while this fire was under way, and whether it happened is not known yet. Do not fire the "
      "action again: the app finds out from the system it called (which knows the fire by its idempotency_key), "
      "or a person says; ask again with the same transition_id.";
}

// The item a fire or an ask was about (ActionSpec::instances): runtime text, served here
// and never in the block.
GROUNDPLANE_INLINE nlohmann::json with_instance(nlohmann::json out, const std::string& instance) {
  if (!instance.empty()) out["instance"] = instance;
  return out;
}

// The app's reply to an id it never issued: what the agent could have meant. `pending` is
// every fire not settled yet (in flight in PendingFires), oldest first: a handler still running, with or
// without declared writes, as well as a fire awaiting the app's report; an empty list
// tells the model nothing is live. A fire the app stopped in is no longer in flight after
// a restart, so a fire in doubt is never listed here.
GROUNDPLANE_INLINE nlohmann::json unknown_answer(const SessionCore& c) {
  const auto& L = c.ledger;
  std::vector<std::size_t> unsettled = c.pending.all_in_flight();
  std::sort(unsettled.begin(), unsettled.end());
  nlohmann::json pending = nlohmann::json::array();
  for (const std::size_t k : unsettled)
    pending.push_back(with_instance({{"transition_id", transition_id_of(k)}, {"action", L.transitions[k].action.str()}},
                                    L.transitions[k].instance.str()));
  nlohmann::json awaiting = nlohmann::json::array();
  for (const AskStatus& a : L.asks)
    if (a.state == AskState::awaiting)
      awaiting.push_back(with_instance({{"ask_id", a.id}, {"action", a.action}}, a.instance));
  return {{"ok", false},
          {"reason", "UNKNOWN_TRANSITION"},
          {"pending", std::move(pending)},
          {"awaiting_human", std::move(awaiting)}};
}

GROUNDPLANE_INLINE nlohmann::json outcome_of(const SessionCore& c, std::string_view id) {
  const auto& L = c.ledger;
  if (const auto k = row_index(id, "ask-", L.asks)) {
    const AskStatus& a = L.asks[*k];
    std::string state(name_of(a.state));
    if (a.state == AskState::approved) {
      const auto it = c.actions.find(a.action);
      if (approval_stale(c, a, it == c.actions.end() ? nullptr : &it->second.spec)) state = "stale";
    }
    nlohmann::json out{{"ok", true}, {"ask", std::move(state)}};
    if (a.state == AskState::spent && !a.spent_by.empty()) out["transition_id"] = a.spent_by;
    return with_instance(std::move(out), a.instance);
  }
  const auto k = row_index(id, "t-", L.transitions);
  if (!k) return unknown_answer(c);
  if (L.transitions.holds(*k)) {
    const TransitionRecord& t = L.transitions[*k];
    const RowExtras& extras = t.extras.get();
    nlohmann::json out = settled_answer(t.outcome, attempt_line(t), extras.data, extras.data_omitted);
    if (c.in_doubt.contains(*k)) put_in_doubt(out, t);
    return with_instance(std::move(out), t.instance.str());
  }
  if (c.store) {
    if (auto f = stored_fire(*c.store, *k))
      return with_instance(
          settled_answer(f->outcome, transition_line(f->principal, f->action, f->declared, f->repeat, f->outcome),
                         f->data, f->data_omitted),
          f->instance);
  }
  return {{"ok", false},
          {"reason", "NO_LONGER_HELD"},
          {"message",
           "The app no longer holds that transition in memory and keeps no store to read it from; how it turned "
           "out was in the facts when it settled."}};
}

}  // namespace groundplane::detail
