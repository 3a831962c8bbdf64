// What a session holds about the keys its fires carry, beside its rows: the fires a
// restart left in doubt (until the action's probe or a person resolves them), the
// idempotency keys of fires resolved "did NOT happen" (each waiting for the fire that takes
// its place), and the request keys bound to recorded fires (FireOptions::request_key). All
// of it is derived from stored rows, so a restore rebuilds it; detail/in_doubt.hpp and
// detail/request_keys.hpp are what use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "groundplane/detail/idempotency_key.hpp"
#include "groundplane/detail/shared_text.hpp"
#include "groundplane/ledger.hpp"

namespace groundplane::detail {

// A fire in doubt: its row is Outcome::stopped and kept in memory (max_rows_in_memory
// keeps it aside) until it is resolved.
struct InDoubt {
  bool handler_returned = false;  // its handler had returned: in doubt only about its effect
  bool asked = false;             // the action's probe was (or is being) asked about it in this process
};

// The key of a fire resolved "did NOT happen", for the fire that takes its place: the next
// fire of its `once` action and item (`flight`, detail::flight_key), or the next fire with
// its request key. The first of them takes it.
struct FreedKey {
  IdempotencyKey key;
  std::string flight;
  std::string request;  // "" for a fire that had none
};

// A request key bound to the fire first recorded with it: what a retry must match.
struct BoundRequest {
  std::size_t transition = 0;
  SharedText action;
  Principal principal = Principal::agent;
  SharedText instance;
  nlohmann::json payload = nullptr;  // the fire's, kept here when its row does not keep it (max_rows_in_memory)
  bool payload_here = false;
  bool failed = false;                // its handler failed: a retry replays HANDLER_FAILED
  bool in_progress = false;           // its first call is still inside Session::fire
  std::thread::id first_thread = {};  // the thread of that call, while it is
};

struct RequestKeys {
  std::unordered_map<std::string, BoundRequest> bound;
  // Bindings by their fire, oldest first, for letting go of them once the fire's row is
  // held only by the store (the key text is the map's, which never moves).
  std::map<std::size_t, const std::string*> by_transition;
  // With a store, a key whose row is no longer held: its hash and its fire. A retry with
  // it reads the fire back from the store.
  std::unordered_multimap<std::uint64_t, std::size_t> stored;
};

}  // namespace groundplane::detail
