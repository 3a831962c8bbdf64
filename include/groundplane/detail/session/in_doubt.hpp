// Fires a restart left in doubt, and how they are resolved. A fire is in doubt when the app
// stopped after its handler may have started and before its grade was committed: the
// restore grades it Outcome::stopped and records it in SessionCore::in_doubt (with whether
// its handler had returned, when only its effect is in doubt). The action's probe
// (ActionSpec::probe), asked inside the `declare` that mounts it, or a person
// (Session::resolve) says whether it happened; each answer is a resolution row, and
// resolves it the same way when the row is restored:
//
//                          happened                        did not happen
//   handler not returned   confirmed (DID happen)          confirmed_not_run (did NOT happen):
//                                                          its once receipt reopened, its
//                                                          request key freed, its idempotency
//                                                          key left for the fire taking its place
//   handler returned       confirmed                       confirmed_not_observed (ran, but the
//                                                          declared effect was NOT observed)
//
// and the *_by_person outcomes for a person's answer. Also here: the idempotency key a new
// fire gets.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/fire.hpp"
#include "groundplane/detail/session/idempotency_key.hpp"
#include "groundplane/detail/session/session_core.hpp"
#include "groundplane/detail/session/session_lock.hpp"

namespace groundplane::detail {

// The fire at `index` (held, Outcome::pending) is stopped by a restart and left in doubt.
void leave_in_doubt(SessionCore& c, std::size_t index, bool handler_returned);

// The outcome a resolution gives: the table above.
Outcome resolved_outcome(bool happened, bool handler_returned, bool by_person);

// Resolves the fire in doubt at `index`: its outcome, its once receipt, its keys. `by`:
// the person who said so, null for the probe. The caller has stored the row.
void resolve_in_doubt(SessionCore& c, std::size_t index, bool happened, const std::string* by);

// Asks `action`'s probe about each of its fires in doubt not asked yet in this process,
// with the lock released, and stores the answers (true or false) as one commit. A
// session whose store is read-only, or that has no store, asks nothing. Throws what the
// store throws (the answers are then not recorded, and a later declare asks again).
void probe_in_doubt(SessionCore& c, const std::string& action, SessionLock& lock);

// A key for a fire about to be recorded: the key of the fire resolved "did NOT happen"
// whose place it takes (the next fire with its request key, or of its `once` action and
// item), else a new one. take_key marks a freed key taken, once the fire is recorded.
struct KeyChoice {
  IdempotencyKey key;
  std::optional<std::size_t> freed;  // the entry of SessionCore::freed_keys it came from
};
KeyChoice choose_key(SessionCore& c, const FireAttempt& f);
void take_key(SessionCore& c, const KeyChoice& choice) noexcept;

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/in_doubt-inl.hpp"
#endif
