// Session::outcome and the agent's did_it_work: what became of one fire or one ask, as
// the agent is told it. A transition the session holds is answered from memory; one
// max_rows_in_memory let go of is read back from the store (one pass over its rows), or
// without a store answered NO_LONGER_HELD, never UNKNOWN_TRANSITION: the id was issued.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/session_core.hpp"
#include "groundplane/ledger.hpp"

namespace groundplane::detail {

// "yes" for a DID happen line, "no" for a did NOT happen line, "unknown" for the lines
// that leave it open (ran, but ...; the app stopped before reporting, in doubt).
std::string_view did_of(Outcome o) noexcept;

// A fire as the store has it: what its attempt line and its data are made from.
struct StoredFire {
  Principal principal = Principal::agent;
  std::string action;
  bool declared = true;
  bool repeat = false;
  Outcome outcome = Outcome::pending;
  nlohmann::json data = nullptr;
  std::uint64_t data_omitted = 0;
  std::string instance = {};
  std::string request_key = {};
  nlohmann::json payload = nullptr;
};
// The transition at `index`, read back from the store's rows; none when the store holds
// fewer transitions (or a row it cannot read, which verify names).
std::optional<StoredFire> stored_fire(const LedgerStore& store, std::size_t index);

// The answer's parts: data (or data_omitted) into `out`; a transition's answer from its
// outcome, line and data; the answer to an id never issued.
void put_data(nlohmann::json& out, const nlohmann::json& data, std::uint64_t omitted);
nlohmann::json settled_answer(Outcome outcome, std::string line, const nlohmann::json& data, std::uint64_t omitted);
nlohmann::json unknown_answer(const SessionCore& c);

// The answer for `id` (a transition id, or an ask id): the object F3 of the contract
// describes, without `facts` (the port writes those).
nlohmann::json outcome_of(const SessionCore& c, std::string_view id);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/outcome-inl.hpp"
#endif
