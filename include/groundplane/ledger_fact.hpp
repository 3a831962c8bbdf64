// The bridge between the two halves, its first step: a session's ledger recorded as a
// Table fact, which actions_performed (checks/actions_performed.hpp) holds a model's
// "I did X" to. It includes the session openly: the claims half never reaches it.
//
//   gp::record_ledger(registry, "ledger", session);  // a Table fact, one row per attempt
#pragma once

#include <string>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/session.hpp"

namespace groundplane {

// Records the session's attempts, oldest first in block order, as a Table fact with the
// columns, in this order, `action` (the id; the constant "(an action this app does not have)" for an id
// that was not declared when its row was minted), `principal`, `outcome` (the block's
// line for the row) and `version`. Provenance: session.ledger(version=V). The registry is
// write-once: record each turn's ledger under a new name (FactAlreadyRecorded otherwise).
const Table& record_ledger(FactRegistry& registry, std::string name, const Session& session);

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/ledger_fact-inl.hpp"
#endif
