// What a session's listings and its ground-truth render read: the declared actions in
// declaration order, the grades a failed commit left waiting, the attempts the store
// counts, and whether an approved ask has gone stale. Every function here is called with
// the session's lock held.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/fire.hpp"
#include "groundplane/detail/session/session_core.hpp"
#include "groundplane/ground_truth.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane::detail {

// What is declared now, in declaration order.
std::vector<const std::pair<const std::string, Mounted>*> declared_in_order(const SessionCore& c);

// A read retries the grades a failed commit left waiting; a store failing here leaves
// them waiting (the next write retries) rather than failing the read.
void flush_deferred(SessionCore& c);

// With a store, the attempts since a version are counted in the store when the session
// no longer holds them all: a binary search for the first stored row at that version
// (O(log rows) reads), then one pass over the rows after it.
AttemptCounter stored_counter(const SessionCore& c);

// The renderer asks it about approved asks only.
std::function<bool(std::size_t)> stale_probe(const SessionCore& c);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/listing-inl.hpp"
#endif
