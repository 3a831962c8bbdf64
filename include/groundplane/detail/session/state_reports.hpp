// What a report of the app's state does to the session before it is settled: which fire
// it names and which it settles, which of its changes were the agent's own, and its rows
// stored with the state put back when the store refuses them. Every function here is
// called with the session's lock held.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/session_core.hpp"
#include "groundplane/detail/session/settlement.hpp"

namespace groundplane::detail {

// Which of a report's changes were the agent's own recorded fire's doing (they never make
// its view stale): all of them from inside that fire's handler; else, for a report naming
// or settling an agent's fire, the changes within that action's declared writes. A
// change outside them is someone else's, even reported with it.
std::vector<std::string> agents_own_changes(const SessionCore& c, const std::vector<std::string>& changed,
                                            std::optional<std::size_t> named, PendingFires::const_iterator target,
                                            bool from_handler);

// The fire a report names: by its transition id, else (none given) the fire whose
// handler is reporting on its own fire, if any. ConfigurationError for an id never recorded.
std::optional<std::size_t> reported_fire(const SessionCore& c, const std::string& transition_id);

// The fire a report settles: the one it names, unless that one was reported already;
// else, naming none, the oldest fire awaiting a report. end() for none.
PendingFires::iterator report_target(SessionCore& c, std::optional<std::size_t> named);

// The state keys a delta is about to change, as they were: put back when the store
// refuses the report's rows.
struct ReplacedState {
  nlohmann::json replaced = nlohmann::json::object();  // each existing key's old value
  std::vector<std::string> added;                      // keys the delta adds
};

// The keys the delta changes, as they are before it is merged.
ReplacedState replaced_state(const nlohmann::json& state, const nlohmann::json& delta);

// Puts those keys back as they were: the delta's rows were refused.
void restore_state(nlohmann::json& state, const ReplacedState& was);

// A report as it is stored: the delta and whose changes it carries, the grade of the
// fire it settles (when its handler has returned), the fire it is inferred to be.
struct StoredReport {
  const nlohmann::json& delta;
  const std::vector<std::string>& agents_own;
  PendingFires::const_iterator target;
  const Settlement& how;
  const InferredMatch& match;
};

// Stores the report's rows (the state already merged); a store that refuses them
// leaves the state as it was before the delta.
void store_report(SessionCore& c, const StoredReport& report, const ReplacedState& was);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/state_reports-inl.hpp"
#endif
