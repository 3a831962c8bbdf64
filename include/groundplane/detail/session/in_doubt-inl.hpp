// The bodies of detail/session/in_doubt.hpp: included by it in the header-only build, compiled once
// into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/in_doubt.hpp"

#include <utility>

#include "groundplane/detail/session/request_keys.hpp"
#include "groundplane/detail/session/settlement.hpp"

namespace groundplane::detail {

GROUNDPLANE_INLINE void leave_in_doubt(SessionCore& c, std::size_t index, bool handler_returned) {
  c.in_doubt.insert_or_assign(index, InDoubt{handler_returned, false});
}

GROUNDPLANE_INLINE Outcome resolved_outcome(bool happened, bool handler_returned, bool by_person) {
  if (happened) return by_person ? Outcome::confirmed_by_person : Outcome::confirmed;
  if (handler_returned) return by_person ? Outcome::confirmed_not_observed_by_person : Outcome::confirmed_not_observed;
  return by_person ? Outcome::confirmed_not_run_by_person : Outcome::confirmed_not_run;
}

GROUNDPLANE_INLINE void resolve_in_doubt(SessionCore& c, std::size_t index, bool happened, const std::string* by) {
  const auto it = c.in_doubt.find(index);
  const bool returned = it->second.handler_returned;
  TransitionRecord& t = c.ledger.transitions[index];  // held: a fire in doubt is kept aside
  t.outcome = resolved_outcome(happened, returned, by != nullptr);
  if (by != nullptr) t.extras.edit().resolved_by = *by;
  if (!happened && !returned) {
    // It did not happen: a `once` action may be fired again (Session::reject's rule), its
    // request may be made again, and the fire that takes its place takes its key too, so the
    // system it calls drops this one should it ever arrive.
    if (const auto r = c.ledger.receipts.find(flight_key(t));
        r != c.ledger.receipts.end() && r->second.transition == index)
      r->second.reopened = true;
    const std::string& request = t.extras.get().request_key;
    if (!t.key.empty()) c.freed_keys.push_back(FreedKey{t.key, flight_key(t), request});
    free_request_key(c, index);
  }
  if (!c.holds_payloads()) t.extras.drop_payload();
  c.in_doubt.erase(it);
}

GROUNDPLANE_INLINE void probe_in_doubt(SessionCore& c, const std::string& action, SessionLock& lock) {
  if (c.in_doubt.empty() || !c.store || !c.store->writable()) return;
  const auto mounted = c.actions.find(action);
  if (mounted == c.actions.end() || !mounted->second.spec.probe) return;
  const auto probe = mounted->second.spec.probe;  // the action may be declared again while it runs
  struct Asked {
    std::size_t index;
    FireContext context;
    nlohmann::json payload;
    std::optional<bool> answer;
  };
  std::vector<Asked> asked;
  for (auto& [index, doubt] : c.in_doubt) {
    const TransitionRecord& t = c.ledger.transitions[index];
    if (doubt.asked || t.action.str() != action) continue;
    asked.push_back(Asked{index, FireContext{transition_id_of(index), t.key.hex(), t.instance.str(), nullptr},
                          t.extras.get().payload, std::nullopt});
  }
  if (asked.empty()) return;
  for (const Asked& a : asked) c.in_doubt.at(a.index).asked = true;
  lock.release();  // the probe asks another system; it may call back into the session
  for (Asked& a : asked) {
    a.context.payload = &a.payload;
    try {
      a.answer = probe(a.context);
    } catch (...) {  // cannot tell: the fire stays in doubt, asked again after the next restart
    }
  }
  lock.acquire();
  // Answers for fires still in doubt (a person may have resolved one meanwhile), as rows
  // committed together.
  std::vector<std::pair<std::size_t, bool>> answers;
  for (const Asked& a : asked)
    if (a.answer && c.in_doubt.contains(a.index)) {
      c.durable.emit(rows::Resolution{a.index, *a.answer, std::nullopt});
      answers.emplace_back(a.index, *a.answer);
    }
  try {
    c.durable.flush();
  } catch (...) {
    for (const Asked& a : asked)
      if (const auto d = c.in_doubt.find(a.index); d != c.in_doubt.end()) d->second.asked = false;
    throw;
  }
  for (const auto& [index, happened] : answers) resolve_in_doubt(c, index, happened, nullptr);
}

GROUNDPLANE_INLINE KeyChoice choose_key(SessionCore& c, const FireAttempt& f) {
  KeyChoice out;
  if (!c.freed_keys.empty()) {
    const bool once = f.mounted != nullptr && f.mounted->spec.concurrency == Concurrency::once;
    const std::string flight = once ? flight_key(f.id, f.options.instance) : std::string();
    const std::string& request = f.options.request_key;
    for (std::size_t i = 0; i < c.freed_keys.size(); ++i) {
      const FreedKey& k = c.freed_keys[i];
      if ((!request.empty() && k.request == request) || (once && k.flight == flight)) {
        out.key = k.key;
        out.freed = i;
        return out;
      }
    }
  }
  out.key = c.keys.next();
  return out;
}

GROUNDPLANE_INLINE void take_key(SessionCore& c, const KeyChoice& choice) noexcept {
  if (choice.freed) c.freed_keys.erase(c.freed_keys.begin() + static_cast<std::ptrdiff_t>(*choice.freed));
}

}  // namespace groundplane::detail
