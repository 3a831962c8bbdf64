// How a recorded fire is graded once its handler has returned: the app's report settles
// it (observed, not observed, or failing the app's own verify), a delta nobody fired is
// attributed by inference, and a restart grades the fires the stopped app left behind.
// Every function here is called with the session's lock held.
#pragma once

#include <cstddef>
#include <exception>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/session_core.hpp"

namespace groundplane::detail {

// The ask is spent, declined or revoked: under the cap its input is no longer needed
// (the store keeps it), nor the lookup that finds it by its input.
void closed_ask(SessionCore& c, std::size_t k);

// The fire is graded: no longer in flight. `flying`: its in-flight list, when at hand.
void graded(SessionCore& c, std::size_t idx, std::vector<std::size_t>* flying = nullptr);

// The fire no longer awaits the app's report.
void stop_awaiting(SessionCore& c, std::size_t idx);

// Grades a fire whose handler returned and whose report came (and stores the grade,
// unless the caller's row carries it).
void finalize(SessionCore& c, PendingFires::iterator u, bool store_row = true);

// Session::reject: the fire at idx (pending) did not happen; the row is stored first.
void reject_fire(SessionCore& c, std::size_t idx, std::string code);

// What a report makes of the fire it settles, judged on the merged state before the
// ledger changes (so the rows can be stored first).
struct Settlement {
  bool observed = false;
  bool verify_failed = false;
  std::exception_ptr thrown;  // the app's verify threw: rethrown once the ledger is consistent
  Outcome outcome() const noexcept {
    return verify_failed ? Outcome::verify_failed : observed ? Outcome::observed : Outcome::not_observed;
  }
};
Settlement judge(const SessionCore& c, const Unsettled& s, const nlohmann::json& delta);

// The delta is merged and its rows are stored.
void settle(SessionCore& c, PendingFires::iterator u, const Settlement& how);

// A delta nobody fired is attributed only when exactly one declared action's writes are
// all in it, and marked as inference.
struct InferredMatch {
  const std::string* id = nullptr;
  const Mounted* action = nullptr;
  bool repeat = false;
};
InferredMatch inferred_match(const SessionCore& c, const nlohmann::json& delta);
void emit_inferred(SessionCore& c, const InferredMatch& m);
// The row is stored.
void infer(SessionCore& c, const InferredMatch& m);

// A restart: the fires the app stopped in (graded `stopped`, no longer awaited, left in
// doubt: detail/session/in_doubt.hpp) and the work it left open (closed). `returned`: fires whose
// handler is known to have returned (their once receipt is stored already).
void stop_all(SessionCore& c, const std::vector<std::uint64_t>& fires, const std::vector<std::uint64_t>& work,
              const std::set<std::size_t>& returned);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/settlement-inl.hpp"
#endif
