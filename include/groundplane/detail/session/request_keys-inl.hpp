// The bodies of detail/session/request_keys.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/request_keys.hpp"

#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "groundplane/detail/session/outcome.hpp"
#include "groundplane/detail/text/escape.hpp"

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

// The hash a key is found by (RequestKeys::held, ::stored).
GROUNDPLANE_INLINE std::uint64_t key_hash(std::string_view key) {
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

// A binding found in memory: the fire, and its whole binding when its row does not keep
// what a retry must match (under the cap); none for a row that does.
struct FoundBinding {
  std::size_t transition = 0;
  const BoundRequest* kept = nullptr;
};

GROUNDPLANE_INLINE std::optional<FoundBinding> find_binding(const SessionCore& c, std::string_view key) {
  const auto& R = c.requests;
  if (c.holds_payloads()) {
    std::optional<FoundBinding> out;
    R.held.find(key_hash(key), [&](std::size_t fire) {  // the row keeps the key: a hash two keys share
      if (c.ledger.transitions[fire].extras.get().request_key != key) return false;  // is told apart
      out = FoundBinding{fire, nullptr};
      return true;
    });
    return out;
  }
  const auto it = R.kept.find(std::string(key));
  if (it == R.kept.end()) return std::nullopt;
  return FoundBinding{it->second.transition, &it->second};
}

GROUNDPLANE_INLINE std::optional<std::size_t> bound_fire(const SessionCore& c, std::string_view key) {
  const auto b = find_binding(c, key);
  return b ? std::optional<std::size_t>(b->transition) : std::nullopt;
}

GROUNDPLANE_INLINE bool request_matches(const SessionCore& c, const FoundBinding& b, std::string_view id,
                                        const FireOptions& o) {
  if (b.kept != nullptr) {
    const BoundRequest& k = *b.kept;
    return k.action.str() == id && k.principal == o.source && k.instance.str() == o.instance &&
           same_request_payload(c, id, k.payload, o.payload);
  }
  const TransitionRecord& t = c.ledger.transitions[b.transition];
  return t.action.str() == id && t.principal == o.source && t.instance.str() == o.instance &&
         same_request_payload(c, id, t.extras.get().payload, o.payload);
}

GROUNDPLANE_INLINE bool request_failed(const SessionCore& c, const FoundBinding& b) {
  return b.kept != nullptr ? b.kept->failed : c.ledger.transitions[b.transition].outcome == Outcome::handler_failed;
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
  const auto [from, to] = c.requests.stored.equal_range(key_hash(key));
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

// The thread of the fire's first call while it is still inside Session::fire; null after.
GROUNDPLANE_INLINE const std::thread::id* running_call(const SessionCore& c, std::size_t index) {
  for (const auto& [fire, thread] : c.requests.running)
    if (fire == index) return &thread;
  return nullptr;
}

// Waits, with no session lock held, until the first call of `key` is no longer inside
// Session::fire (or the key is freed).
GROUNDPLANE_INLINE void wait_for_first_call(SessionCore& c, const std::string& key, SessionLock& lock) {
  lock.release();
  {
    std::unique_lock<std::mutex> held(c.mutex);
    c.first_calls_done.wait(held, [&] {
      const auto b = find_binding(c, key);
      return !b || running_call(c, b->transition) == nullptr;
    });
  }
  lock.acquire();
}

GROUNDPLANE_INLINE KeyLookup look_up_request(SessionCore& c, std::string_view id, const FireOptions& o,
                                             SessionLock& lock) {
  const std::string& key = o.request_key;
  if (key.empty()) return {};
  for (;;) {
    const std::optional<FoundBinding> b = find_binding(c, key);
    if (!b) {
      if (auto stored = look_up_stored_request(c, key, id, o)) return std::move(*stored);
      return {};  // free: judged in order
    }
    KeyLookup out;
    const std::thread::id* running = running_call(c, b->transition);
    // From inside the fire's own handler (its first call is on this thread): waiting for
    // that call would wait for itself.
    if (running != nullptr && *running == std::this_thread::get_id()) {
      out.reused = true;
      return out;
    }
    if (!request_matches(c, *b, id, o)) {
      out.reused = true;
      return out;
    }
    if (running != nullptr) {
      wait_for_first_call(c, key, lock);
      continue;  // bound, freed or still the same: looked up afresh
    }
    out.replay = replayed_result(b->transition, request_failed(c, *b));
    return out;
  }
}

// Under the cap with a store: lets go of the binding of the fire at `index` if its row is
// held only by the store now, keeping its key's hash. False when the row is still held
// (kept aside) or its first call still runs: it waits. True when it was let go of, or is
// no longer bound to that fire.
GROUNDPLANE_INLINE bool let_go_of(SessionCore& c, std::size_t index, const std::string& key) {
  auto& R = c.requests;
  const auto b = R.kept.find(key);
  if (b == R.kept.end() || b->second.transition != index) return true;  // freed meanwhile
  if (c.ledger.transitions.holds(index) || running_call(c, index) != nullptr) return false;
  R.stored.emplace(key_hash(key), index);
  R.kept.erase(b);
  return true;
}

// Lets go of the bindings whose fires are held only by the store now (with a store and
// max_rows_in_memory; without a store every binding is kept for the session's life):
// only the key's hash stays. Amortized O(1) a binding.
GROUNDPLANE_INLINE void release_stored_requests(SessionCore& c) {
  auto& R = c.requests;
  if (!c.store || c.holds_payloads()) return;
  const std::size_t dropped = c.ledger.transitions.dropped();
  while (!R.by_age.empty() && R.by_age.front().first < dropped) {
    if (!let_go_of(c, R.by_age.front().first, R.by_age.front().second)) R.aside.push_back(std::move(R.by_age.front()));
    R.by_age.pop_front();
  }
  if (R.aside.empty() || ++R.since_aside < std::max<std::size_t>(64, R.aside.size())) return;
  R.since_aside = 0;
  for (std::size_t n = R.aside.size(); n > 0; --n) {
    if (!let_go_of(c, R.aside.front().first, R.aside.front().second)) R.aside.push_back(std::move(R.aside.front()));
    R.aside.pop_front();
  }
}

GROUNDPLANE_INLINE BoundRequest bound_request(const SessionCore& c, const FireAttempt& f, std::size_t index) {
  BoundRequest b;
  b.transition = index;
  if (f.options.request_key.empty() || c.holds_payloads()) return b;  // the row keeps the rest
  b.action = f.mounted->id;
  b.principal = f.options.source;
  if (!f.options.instance.empty()) b.instance = SharedText(f.options.instance);
  b.payload = f.options.payload;
  return b;
}

GROUNDPLANE_INLINE void bind_request(SessionCore& c, const std::string& key, BoundRequest binding) {
  auto& R = c.requests;
  const std::size_t index = binding.transition;
  // A key is bound only when found free (a fire resolved "did NOT happen" freed it, or it
  // never was): the newest fire with it is the one a retry matches.
  if (c.holds_payloads()) {
    R.held.insert(key_hash(key), index);
    return;
  }
  const auto at = R.kept.insert_or_assign(key, std::move(binding)).first;
  if (!c.store) return;
  try {
    R.by_age.emplace_back(index, key);
  } catch (...) {
    R.kept.erase(at);
    throw;
  }
  release_stored_requests(c);
}

// Erases the entry of `index` under `hash` in a hash -> fire multimap; whether there was one.
GROUNDPLANE_INLINE bool erase_entry(std::unordered_multimap<std::uint64_t, std::size_t>& m, std::uint64_t hash,
                                    std::size_t index) noexcept {
  const auto [from, to] = m.equal_range(hash);
  for (auto it = from; it != to; ++it)
    if (it->second == index) {
      m.erase(it);
      return true;
    }
  return false;
}

GROUNDPLANE_INLINE void unbind_request(SessionCore& c, const std::string& key, std::size_t index) noexcept {
  if (key.empty()) return;
  auto& R = c.requests;
  if (c.holds_payloads()) {
    R.held.erase(key_hash(key), index);
    return;
  }
  const auto it = R.kept.find(key);
  if (it == R.kept.end() || it->second.transition != index) return;
  R.kept.erase(it);
  if (!R.by_age.empty() && R.by_age.back().first == index) R.by_age.pop_back();
}

GROUNDPLANE_INLINE void free_request_key(SessionCore& c, std::size_t index) {
  auto& R = c.requests;
  if (!c.ledger.transitions.holds(index)) return;  // a fire in doubt or pending always is
  const std::string& key = c.ledger.transitions[index].extras.get().request_key;
  if (key.empty()) return;
  if (c.holds_payloads()) {
    R.held.erase(key_hash(key), index);
  } else if (const auto b = R.kept.find(key); b != R.kept.end() && b->second.transition == index) {
    R.kept.erase(b);
  } else {  // only its hash is kept
    erase_entry(R.stored, key_hash(key), index);
  }
  c.first_calls_done.notify_all();  // a retry waiting on it judges afresh
}

GROUNDPLANE_INLINE void mark_request_failed(SessionCore& c, std::size_t index) {
  if (c.holds_payloads() || !c.ledger.transitions.holds(index)) return;  // its row's outcome says it
  const std::string& key = c.ledger.transitions[index].extras.get().request_key;
  if (key.empty()) return;
  if (const auto b = c.requests.kept.find(key); b != c.requests.kept.end() && b->second.transition == index)
    b->second.failed = true;
}

GROUNDPLANE_INLINE FirstCallDone::FirstCallDone(SessionCore& c, std::size_t index, SessionLock& lock)
    : c_(&c), index_(index), lock_(&lock) {
  c.requests.running.emplace_back(index, std::this_thread::get_id());
}

GROUNDPLANE_INLINE FirstCallDone::~FirstCallDone() {
  if (!lock_->held()) lock_->acquire();  // a handler's exception on its way out released it
  auto& running = c_->requests.running;
  for (auto& r : running)
    if (r.first == index_) {
      r = running.back();
      running.pop_back();
      break;
    }
  c_->first_calls_done.notify_all();
}

}  // namespace groundplane::detail
