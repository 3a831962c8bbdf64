// Retries answered once (FireOptions::request_key). A request key is bound when a fire
// with it is recorded; a later fire with the same key is looked up before any refusal
// reason: the same action, principal, instance and payload replays the first FireResult
// (nothing runs, no row), anything else — or the fire whose handler is making it — is
// refused REQUEST_KEY_REUSED, and a retry arriving while the first call is still inside
// Session::fire waits for it with no session lock held. A fire resolved "did NOT happen"
// (Session::reject, or a fire in doubt resolved so) frees its key. Bindings live in
// SessionCore::requests (detail/session/fire_keys.hpp); with a store and max_rows_in_memory a
// binding whose row is no longer held keeps only its key's hash, and a retry with it reads
// the fire back from the store.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "groundplane/action.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/fire.hpp"
#include "groundplane/detail/session/session_core.hpp"
#include "groundplane/detail/session/session_lock.hpp"

namespace groundplane::detail {

// Throws ConfigurationError for a request key over max_request_key_length characters.
void check_request_key(std::string_view key);

// What a fire's request key finds. The lock is held; it is released (and taken again)
// only to wait for a first call still inside Session::fire, after which the key is looked
// up afresh. `replay`: the fire matches a recorded one, whose result it returns again.
// `reused`: the key is bound elsewhere (REQUEST_KEY_REUSED, unless UNKNOWN_AFFORDANCE
// comes first). Neither: the key is free, and the fire is judged in order.
struct KeyLookup {
  std::optional<FireResult> replay;
  bool reused = false;
};
KeyLookup look_up_request(SessionCore& c, std::string_view id, const FireOptions& options, SessionLock& lock);

// The fire `key` is bound to, if any.
std::optional<std::size_t> bound_fire(const SessionCore& c, std::string_view key);

// The binding a fire about to be recorded at `index` will have: its index, and under the
// cap what a retry must match (copies, made before the ledger changes); bind_request
// stores it; unbind_request undoes it (a failed record).
BoundRequest bound_request(const SessionCore& c, const FireAttempt& f, std::size_t index);
void bind_request(SessionCore& c, const std::string& key, BoundRequest binding);
void unbind_request(SessionCore& c, const std::string& key, std::size_t index) noexcept;

// The fire at `index` was resolved "did NOT happen": its request key (if bound to it) is
// free again, and a retry waiting on it looks again.
void free_request_key(SessionCore& c, std::size_t index);

// The fire at `index` failed (its handler returned ok = false or threw): a retry of its
// request replays HANDLER_FAILED.
void mark_request_failed(SessionCore& c, std::size_t index);

// With a store, lets go of the bindings whose fires it alone holds now, keeping their
// keys' hashes (called as bindings are made, and after a restore).
void release_stored_requests(SessionCore& c);

// The first call of the request bound to the fire at `index` has returned (or thrown):
// retries waiting for it replay it. Takes the lock again if it was let go.
class FirstCallDone {
 public:
  // Marks the fire's first call running, on this thread.
  FirstCallDone(SessionCore& c, std::size_t index, SessionLock& lock);
  FirstCallDone(const FirstCallDone&) = delete;
  FirstCallDone& operator=(const FirstCallDone&) = delete;
  ~FirstCallDone();

 private:
  SessionCore* c_;
  std::size_t index_;
  SessionLock* lock_;
};

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/request_keys-inl.hpp"
#endif
