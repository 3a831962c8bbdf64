// What a session holds about the keys its fires carry, beside its rows: the fires a
// restart left in doubt (until the action's probe or a person resolves them), the
// idempotency keys of fires resolved "did NOT happen" (each waiting for the fire that takes
// its place), and the request keys bound to recorded fires (FireOptions::request_key). All
// of it is derived from stored rows, so a restore rebuilds it; detail/session/in_doubt.hpp and
// detail/session/request_keys.hpp are what use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/ledger/shared_text.hpp"
#include "groundplane/detail/session/idempotency_key.hpp"
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

// A request key bound to the fire first recorded with it, kept whole where that fire's row
// does not keep what a retry must match (under max_rows_in_memory).
struct BoundRequest {
  std::size_t transition = 0;
  SharedText action;
  Principal principal = Principal::agent;
  SharedText instance;
  nlohmann::json payload = nullptr;  // the fire's (its row lets go of it once it is graded)
  bool failed = false;               // its handler failed: a retry replays HANDLER_FAILED
};

// Fires by the 64-bit hash of their request key (several may share one): open addressing
// with linear probing in one array, so a lookup is one cache line and an insert allocates
// only when the table doubles. Kept at most half full, erased slots included.
class KeyIndex {
 public:
  // Calls found(fire) for each fire under `hash` until it returns true; whether one did.
  template <class Found>
  bool find(std::uint64_t hash, Found&& found) const {
    for (std::size_t i = first(hash); !slots_.empty() && slots_[i].fire != empty; i = next(i))
      if (slots_[i].fire != erased && slots_[i].hash == hash && found(static_cast<std::size_t>(slots_[i].fire - 1)))
        return true;
    return false;
  }
  void insert(std::uint64_t hash, std::size_t fire) {
    if (2 * (taken_ + 1) > slots_.size()) rebuild();
    put(hash, static_cast<std::uint64_t>(fire) + 1);
    ++live_;
  }
  void erase(std::uint64_t hash, std::size_t fire) noexcept {
    for (std::size_t i = first(hash); !slots_.empty() && slots_[i].fire != empty; i = next(i))
      if (slots_[i].hash == hash && slots_[i].fire == static_cast<std::uint64_t>(fire) + 1) {
        slots_[i].fire = erased;  // still taken: keys placed past it are probed past it
        --live_;
        return;
      }
  }

 private:
  static constexpr std::uint64_t empty = 0, erased = ~std::uint64_t{0};
  struct Slot {
    std::uint64_t hash = 0;
    std::uint64_t fire = empty;  // the fire's index + 1
  };
  std::size_t first(std::uint64_t hash) const noexcept { return hash & (slots_.size() - 1); }
  std::size_t next(std::size_t i) const noexcept { return (i + 1) & (slots_.size() - 1); }
  void put(std::uint64_t hash, std::uint64_t fire) {
    std::size_t i = first(hash);
    while (slots_[i].fire != empty) i = next(i);
    slots_[i] = Slot{hash, fire};
    ++taken_;
  }
  // At least four slots for each live entry (a power of two): erased slots go.
  void rebuild() {
    std::size_t size = 64;
    while (size < 4 * (live_ + 1)) size *= 2;
    std::vector<Slot> old(size);
    old.swap(slots_);
    taken_ = 0;
    for (const Slot& s : old)
      if (s.fire != empty && s.fire != erased) put(s.hash, s.fire);
  }
  std::vector<Slot> slots_;
  std::size_t taken_ = 0;  // slots in use, erased ones included
  std::size_t live_ = 0;
};

// Where each bound request key is found. With every row held (no max_rows_in_memory) the
// fire's row keeps the key and all a retry must match, so a binding is the key's hash and
// the fire: what a fire with a new key pays is one lookup and one insert of two integers.
// Under max_rows_in_memory a binding is kept whole; with a store too, one whose row is no
// longer held keeps only its hash, and a retry with it reads the fire back from the store.
struct RequestKeys {
  KeyIndex held;                                               // no cap: key hash -> fire
  std::unordered_map<std::string, BoundRequest> kept;          // under the cap: key -> binding
  std::unordered_multimap<std::uint64_t, std::size_t> stored;  // under the cap, with a store: key hash -> fire
  // The fires whose first call is still inside Session::fire, with its thread: a retry waits
  // for it (or, from that very thread, is refused). As many as fires run at once.
  std::vector<std::pair<std::size_t, std::thread::id>> running;
  // Under the cap with a store: each kept binding's fire and key, oldest first, for letting
  // go of it once its row is held only by the store; those whose row was kept aside (not
  // graded yet, or in doubt) when its turn came wait in `aside`, looked at again once every
  // max(64, their number) bindings.
  std::deque<std::pair<std::size_t, std::string>> by_age;
  std::deque<std::pair<std::size_t, std::string>> aside;
  std::size_t since_aside = 0;
};

}  // namespace groundplane::detail
