// The bodies of detail/session/listing.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/listing.hpp"

#include <algorithm>

namespace groundplane::detail {

GROUNDPLANE_INLINE std::vector<const std::pair<const std::string, Mounted>*> declared_in_order(const SessionCore& c) {
  std::vector<const std::pair<const std::string, Mounted>*> mounted;
  mounted.reserve(c.actions.size());
  for (const auto& kv : c.actions) mounted.push_back(&kv);
  std::sort(mounted.begin(), mounted.end(), [](auto* a, auto* b) { return a->second.order < b->second.order; });
  return mounted;
}

GROUNDPLANE_INLINE void flush_deferred(SessionCore& c) {
  if (!c.store || !c.durable.has_deferred()) return;
  try {
    c.durable.flush();
  } catch (const LedgerStoreError&) {
  }
}

GROUNDPLANE_INLINE AttemptCounter stored_counter(const SessionCore& c) {
  if (!c.store) return nullptr;
  return [&c](std::uint64_t since) -> std::optional<std::size_t> {
    const LedgerStore& store = *c.store;
    std::uint64_t lo = 1, hi = store.head().rows + 1;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      std::uint64_t version = 0;
      store.read(mid, [&](const StoredRow& row) {
        version = row.version;
        return false;
      });
      if (version < since) lo = mid + 1;
      else hi = mid;
    }
    std::size_t n = 0;
    store.read(lo, [&](const StoredRow& row) {
      if (row.version >= since && (row.kind == rows::Recorded::kind || row.kind == rows::Refused::kind)) ++n;
      return true;
    });
    return n;
  };
}

GROUNDPLANE_INLINE std::function<bool(std::size_t)> stale_probe(const SessionCore& c) {
  return [&c](std::size_t k) {
    const AskStatus& a = c.ledger.asks[k];
    const auto it = c.actions.find(a.action);
    return approval_stale(c, a, it == c.actions.end() ? nullptr : &it->second.spec);
  };
}

}  // namespace groundplane::detail
