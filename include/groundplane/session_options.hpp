// What a gp::Session is constructed with (session.hpp). Members are appended, never
// reordered: users write designated initializers.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "groundplane/store/ledger_store.hpp"

namespace groundplane {

class FactRegistry;  // registry.hpp

// The durable ledger a session writes through: groundplane/store/ledger_store.hpp (the
// interface), groundplane/store/sqlite.hpp (a store). Without one, everything is in memory.

// Members are policy (stored with the session, compared when it is restored:
// require_human_approval, allow_unmaterialized_fires, approval_ttl), runtime (store, clock,
// facts, max_rows_in_memory, max_data_bytes, policy_change) or initial values (node, state:
// used only by a session the store does not hold yet). docs/session.md lists each.
struct SessionOptions {
  std::string node = "";
  nlohmann::json state = nlohmann::json::object();
  bool require_human_approval = false;
  bool allow_unmaterialized_fires = false;
  std::chrono::milliseconds approval_ttl{0};     // 0: approvals never expire; else older ones are APPROVAL_STALE
  std::shared_ptr<LedgerStore> store = nullptr;  // null: memory only; else every row is committed to it before
                                                 // the call that made it returns (docs/ledger-store.md), and a
                                                 // store holding this session restores it (node and state then
                                                 // come from it)
  std::size_t max_rows_in_memory = 0;            // 0: keep every row in memory; else hold at most this many
                                                 // attempts (transitions + gap rows), the newest; older ones
                                                 // stay in the store, or without one are dropped and counted
  // The wall clock approvals are stamped and aged by (approval_ttl): null is
  // std::chrono::system_clock::now. A test gives one it moves itself instead of sleeping.
  std::function<std::chrono::system_clock::time_point()> clock = nullptr;
  // The most a handler's HandlerResult::data may take (its compact JSON text, in bytes)
  // to be served and stored; larger data is neither: the agent is told its size
  // (`data_omitted`).
  std::size_t max_data_bytes = 65536;
  // The facts ActionSpec::argument_checks read (registry.hpp). It must outlive the
  // session; facts recorded into it later are read by later fires.
  const FactRegistry* facts = nullptr;
  // Why the policy changes ("": it does not). A store keeps the policy a session was
  // first written with — require_human_approval, allow_unmaterialized_fires, approval_ttl,
  // and each action's high_effect and concurrency — and refuses a restore (or a declare)
  // under another (ConfigurationError, naming each member); with a reason, the new values
  // are accepted and recorded with it in one row (groundplane-ledger audit shows it; the
  // block never does). A change that changes nothing writes nothing.
  std::string policy_change = "";
  // The most the session keeps, over its life in this process, of the payloads of fires it
  // refused and of the inputs of the asks it minted (each as its compact JSON text, in
  // bytes): what a model sends to be refused cannot grow it without bound. Past it, a
  // refused fire's payload is kept as its size only (GapRow::payload_omitted, and so in
  // the store), and the agent port asks no person about an input it could not keep.
  std::size_t max_refused_payload_bytes = std::size_t{4} * 1024 * 1024;
};

}  // namespace groundplane
