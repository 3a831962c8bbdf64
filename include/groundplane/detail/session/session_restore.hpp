// Starting a session on a store, or restoring it from the rows the store holds. Each
// row is decoded by its kind's struct (detail/ledger/ledger_codec.hpp) and applied to the
// session being restored; the store hands a row over only once the chain up to it was
// re-derived (LedgerStore::read_verified), so no row is used that was not verified.
#pragma once

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/session_core.hpp"

namespace groundplane::detail {

// Caller is constructing the session (nothing else can reach it). A store that holds no
// rows of its session starts it: its first row records the node and state. One that
// does restores it, and a fire or work the stopped app left behind is recorded in a
// restart row. Throws LedgerStoreError for a store that cannot be read, a chain that
// does not verify, or a row this release cannot restore (naming it).
void open_store(SessionCore& c);

// Each member of a stored policy or action rule that differs from the given one, as
// "require_human_approval: stored true, given false; approval_ttl: stored 0 ms, given
// 60000 ms"; "" when none does.
std::string policy_differences(const rows::Policy& stored, const rows::Policy& given);
std::string rule_differences(const rows::ActionRule& stored, const rows::ActionRule& given);

// At declare, with a writable store (caller holds the session's lock): an action's first
// declare records its rule; a later one with another rule is refused (ConfigurationError)
// unless the session was given a policy_change, which records it. Nothing is written for
// the rule the store already holds.
void keep_action_rule(SessionCore& c, const std::string& id, const ActionSpec& spec);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/session_restore-inl.hpp"
#endif
