// The bodies of detail/session/state_reports.hpp: included by it in the header-only build,
// compiled once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/state_reports.hpp"

#include <algorithm>

#include "groundplane/detail/ledger/records.hpp"
#include "groundplane/detail/session/changed_keys.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"

namespace groundplane::detail {

GROUNDPLANE_INLINE std::vector<std::string> agents_own_changes(const SessionCore& c,
                                                               const std::vector<std::string>& changed,
                                                               std::optional<std::size_t> named,
                                                               PendingFires::const_iterator target, bool from_handler) {
  const std::optional<std::size_t> about = named                       ? named
                                           : target != c.pending.end() ? std::optional(target->first)
                                                                       : std::nullopt;
  const auto& L = c.ledger;
  if (!about || !L.transitions.holds(*about) || L.transitions[*about].principal != Principal::agent) return {};
  if (from_handler) return changed;
  const std::vector<std::string>* writes = nullptr;
  if (target != c.pending.end() && target->first == *about) {
    writes = &target->second.writes;
  } else if (const auto m = c.actions.find(L.transitions[*about].action.str()); m != c.actions.end()) {
    writes = &m->second.spec.writes;
  }
  std::vector<std::string> own;
  if (writes == nullptr) return own;
  for (const std::string& p : changed)
    if (std::any_of(writes->begin(), writes->end(),
                    [&](const std::string& w) { return pointers_overlap(state_key_pointer(w), p); }))
      own.push_back(p);
  return own;
}

GROUNDPLANE_INLINE std::optional<std::size_t> reported_fire(const SessionCore& c, const std::string& transition_id) {
  if (transition_id.empty()) return running_fire_of(&c);
  const auto named = row_index(transition_id, "t-", c.ledger.transitions);
  if (!named)
    throw ConfigurationError("gp::Session::report_state: no transition " + quote(transition_id) +
                             " was recorded in this session");
  return named;
}

GROUNDPLANE_INLINE PendingFires::iterator report_target(SessionCore& c, std::optional<std::size_t> named) {
  if (named) {
    const auto u = c.pending.find(*named);
    if (u != c.pending.end() && !u->second.reported) return u;
  } else if (!c.ledger.awaiting_report.empty()) {
    return c.pending.find(*c.ledger.awaiting_report.begin());
  }
  return c.pending.end();
}

GROUNDPLANE_INLINE ReplacedState replaced_state(const nlohmann::json& state, const nlohmann::json& delta) {
  ReplacedState was;
  for (const auto& [key, value] : delta.items()) {
    const auto old = state.find(key);
    if (old != state.end()) was.replaced[key] = *old;
    else if (!value.is_null()) was.added.push_back(key);
  }
  return was;
}

GROUNDPLANE_INLINE void restore_state(nlohmann::json& state, const ReplacedState& was) {
  for (const auto& [key, value] : was.replaced.items()) state[key] = value;
  for (const auto& key : was.added) state.erase(key);
}

GROUNDPLANE_INLINE void store_report(SessionCore& c, const StoredReport& report, const ReplacedState& was) {
  c.durable.emit(rows::Report{report.delta, report.agents_own});  // copied: the caller notes the changes after
  if (report.target != c.pending.end() && report.target->second.handler_returned)
    c.durable.emit(rows::Grade{report.target->first, report.how.outcome(), std::nullopt, false});
  if (report.match.id) emit_inferred(c, report.match);
  try {
    c.durable.flush();
  } catch (...) {
    restore_state(c.state, was);
    throw;
  }
}

}  // namespace groundplane::detail
