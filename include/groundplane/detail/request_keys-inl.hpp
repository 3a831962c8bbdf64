// The bodies of detail/request_keys.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/request_keys.hpp"

#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/outcome.hpp"

namespace groundplane::detail {

GROUNDPLANE_INLINE void check_request_key(std::string_view key) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < key.size(); ++chars) {
    if (chars == max_request_key_length)
      throw ConfigurationError("gp::FireOptions::request_key is over " + std::to_string(max_request_key_length) +
                               " characters (" + std::to_string(key.size()) + " bytes)");
    const std::size_t n = static_cast<unsigned char>(key[i]) < 0x80 ? 1 : utf8_sequence_length(key, i);
    i += n == 0 ? 1 : n;
  }
}

// The hash a key is kept under once its fire is held only by the store.
GROUNDPLANE_INLINE std::uint64_t stored_key_hash(std::string_view key) {
  return static_cast<std::uint64_t>(std::hash<std::string_view>{}(key));
}

// A retry's payload against the first call's: structurally equal, as an approval's input
// is (APPROVAL_MISMATCH), and for an action that takes no input null and {} are the same
// nothing (the first call's was recorded as null).
GROUNDPLANE_INLINE bool same_request_payload(const SessionCore& c, std::string_view id, const nlohmann::json& first,
                                             const nlohmann::json& retry) {
  if (first == retry) return true;
  const auto m = c.actions.find(id);
  if (m == c.actions.end() || !m->second.input || !m->second.input->takes_no_input()) return false;
  const auto nothing = [](const nlohmann::json& p) { return p.is_null() || (p.is_object() && p.empty()); };
  return nothing(first) && nothing(retry);
}

GROUNDPLANE_INLINE bool request_matches(const SessionCore& c, const BoundRequest& b, std::string_view id,
                                        const FireOptions& o) {
  if (b.action.str() != id || b.principal != o.source || b.instance.str() != o.instance) return false;
  const nlohmann::json& first = b.payload_here ? b.payload : c.ledger.transitions[b.transition].extras.get().payload;
  return same_request_payload(c, id, first, o.payload);
}

GROUNDPLANE_INLINE FireResult replayed_result(std::size_t index, bool failed) {
  FireResult r{!failed, failed ? "HANDLER_FAILED" : "", transition_id_of(index)};
  r.replayed = true;
  return r;
}

// A key whose fire only the store holds now: read it back (one pass over the stored rows)
// and judge the retry against it.
GROUNDPLANE_INLINE std::optional<KeyLookup> look_up_stored_request(const SessionCore& c, const std::string& key,
                                                                   std::string_view id, const FireOptions& o) {
  if (!c.store || c.requests.stored.empty()) return std::nullopt;
  const auto [from, to] = c.requests.stored.equal_range(stored_key_hash(key));
  for (auto it = from; it != to; ++it) {
    const std::optional<StoredFire> fire = stored_fire(*c.store, it->second);
    if (!fire || fire->request_key != key) continue;  // another key with the same hash
    KeyLookup out;
    const bool matches = fire->action == id && fire->principal == o.source && fire->instance == o.instance &&
                         same_request_payload(c, id, fire->payload, o.payload);
    if (matches) out.replay = replayed_result(it->second, fire->outcome == Outcome::handler_failed);
    else out.reused = true;
    return out;
  }
  return std::nullopt;
}

// Waits, with no session lock held, until the first call of `key` is no longer inside
// Session::fire (or the key is freed).
GROUNDPLANE_INLINE void wait_for_first_call(SessionCore& c, const std::string& key, SessionLock& lock) {
  lock.release();
  {
    std::unique_lock<std::mutex> held(c.mutex);
    c.first_calls_done.wait(held, [&] {
      const auto it = c.requests.bound.find(key);
      return it == c.requests.bound.end() || !it->second.in_progress;
    });
  }
  lock.acquire();
}

GROUNDPLANE_INLINE KeyLookup look_up_request(SessionCore& c, std::string_view id, const FireOptions& o,
                                             SessionLock& lock) {
  const std::string& key = o.request_key;
  if (key.empty()) return {};
  for (;;) {
    const auto it = c.requests.bound.find(key);
    if (it == c.requests.bound.end()) {
      if (auto stored = look_up_stored_request(c, key, id, o)) return std::move(*stored);
      return {};  // free: judged in order
    }
    const BoundRequest& b = it->second;
    KeyLookup out;
    // From inside the fire's own handler (its first call is on this thread): waiting for
    // that call would wait for itself.
    if (b.in_progress && b.first_thread == std::this_thread::get_id()) {
      out.reused = true;
      return out;
    }
    if (!request_matches(c, b, id, o)) {
      out.reused = true;
      return out;
    }
    if (b.in_progress) {
      wait_for_first_call(c, key, lock);
      continue;  // bound, freed or still the same: looked up afresh
    }
    out.replay = replayed_result(b.transition, b.failed);
    return out;
  }
}

// Lets go of the bindings whose fires are held only by the store now (with a store; without
// one every binding is kept for the session's life): only the key's hash stays.
GROUNDPLANE_INLINE void release_stored_requests(SessionCore& c) {
  if (!c.store) return;
  auto& R = c.requests;
  const std::size_t dropped = c.ledger.transitions.dropped();
  for (auto it = R.by_transition.begin(); it != R.by_transition.end() && it->first < dropped;) {
    if (c.ledger.transitions.holds(it->first) || R.bound.at(*it->second).in_progress) {
      ++it;  // kept aside (not graded yet, or in doubt), or its first call still running
      continue;
    }
    R.stored.emplace(stored_key_hash(*it->second), it->first);
    R.bound.erase(*it->second);
    it = R.by_transition.erase(it);
  }
}

GROUNDPLANE_INLINE BoundRequest bound_request(const SessionCore& c, const FireAttempt& f, std::size_t index) {
  BoundRequest b;
  if (f.options.request_key.empty()) return b;
  b.transition = index;
  b.action = f.mounted->id;
  b.principal = f.options.source;
  if (!f.options.instance.empty()) b.instance = SharedText(f.options.instance);
  if (!c.holds_payloads()) {
    b.payload = f.options.payload;
    b.payload_here = true;
  }
  return b;
}

GROUNDPLANE_INLINE void bind_request(SessionCore& c, const std::string& key, BoundRequest binding) {
  auto& R = c.requests;
  const std::size_t index = binding.transition;
  // A key found free is bound anew (a fire resolved "did NOT happen" freed it, or it never
  // was): the newest fire with it is the one a retry matches.
  if (const auto was = R.bound.find(key); was != R.bound.end()) R.by_transition.erase(was->second.transition);
  const auto [at, inserted] = R.bound.insert_or_assign(key, std::move(binding));
  (void)inserted;
  try {
    R.by_transition.insert_or_assign(index, &at->first);
  } catch (...) {
    R.bound.erase(at);
    throw;
  }
  release_stored_requests(c);
}

GROUNDPLANE_INLINE void unbind_request(SessionCore& c, const std::string& key, std::size_t index) noexcept {
  if (key.empty()) return;
  auto& R = c.requests;
  const auto it = R.bound.find(key);
  if (it == R.bound.end() || it->second.transition != index) return;
  R.by_transition.erase(index);
  R.bound.erase(it);
}

GROUNDPLANE_INLINE void free_request_key(SessionCore& c, std::size_t index) {
  auto& R = c.requests;
  if (const auto it = R.by_transition.find(index); it != R.by_transition.end()) {
    if (const auto b = R.bound.find(*it->second); b != R.bound.end() && b->second.transition == index) R.bound.erase(b);
    R.by_transition.erase(it);
  } else if (c.ledger.transitions.holds(index)) {  // only its hash is kept (it never is, for a
    const std::string& key = c.ledger.transitions[index].extras.get().request_key;  // fire in doubt or pending)
    if (!key.empty()) {
      const auto [from, to] = R.stored.equal_range(stored_key_hash(key));
      for (auto s = from; s != to; ++s)
        if (s->second == index) {
          R.stored.erase(s);
          break;
        }
    }
  }
  c.first_calls_done.notify_all();  // a retry waiting on it judges afresh
}

GROUNDPLANE_INLINE void mark_request_failed(SessionCore& c, std::size_t index) {
  auto& R = c.requests;
  if (const auto it = R.by_transition.find(index); it != R.by_transition.end()) R.bound.at(*it->second).failed = true;
}

GROUNDPLANE_INLINE FirstCallDone::FirstCallDone(SessionCore& c, std::string key, std::size_t index, SessionLock& lock)
    : c_(&c), key_(std::move(key)), index_(index), lock_(&lock) {
  const auto it = c.requests.bound.find(key_);
  if (it == c.requests.bound.end() || it->second.transition != index_) return;
  it->second.in_progress = true;
  it->second.first_thread = std::this_thread::get_id();
}

GROUNDPLANE_INLINE FirstCallDone::~FirstCallDone() {
  if (!lock_->held()) lock_->acquire();  // a handler's exception on its way out released it
  const auto it = c_->requests.bound.find(key_);
  if (it != c_->requests.bound.end() && it->second.transition == index_) {
    it->second.in_progress = false;
    it->second.first_thread = {};
  }
  c_->first_calls_done.notify_all();
}

}  // namespace groundplane::detail
