// The bodies of detail/session/session_core.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/session_core.hpp"

#include "groundplane/detail/json/canonical_json.hpp"

namespace groundplane::detail {

GROUNDPLANE_INLINE std::string ask_key(std::string_view action, std::string_view instance,
                                       const nlohmann::json& input) {
  std::string key = std::to_string(action.size()) + ':';
  key += action;
  key += std::to_string(instance.size()) + ':';
  key += instance;
  put_equality_key(key, input);
  return key;
}

GROUNDPLANE_INLINE const ItemSet* items_of(const SessionCore& c, const Mounted& m) {
  if (m.items && m.items_at == c.state_generation) return m.items.get();
  std::vector<std::string> listed;
  try {
    listed = m.spec.instances(c.state);
  } catch (const ConfigurationError&) {
    throw;
  } catch (...) {
    return nullptr;
  }
  auto set = std::make_shared<ItemSet>();
  set->ordered.reserve(listed.size());  // never reallocated below: the members' views stay valid
  set->members.reserve(listed.size());
  for (std::string& item : listed) {
    if (item.empty() || set->members.contains(item)) continue;
    set->ordered.push_back(std::move(item));
    set->members.insert(set->ordered.back());
  }
  m.items = std::move(set);
  m.items_at = c.state_generation;
  return m.items.get();
}

GROUNDPLANE_INLINE nlohmann::json read_value(const nlohmann::json& state, const std::string& key) {
  if (!key.empty() && key.front() == '/') {
    const nlohmann::json::json_pointer ptr(key);
    return state.contains(ptr) ? nlohmann::json::array({state.at(ptr)}) : nlohmann::json::array();
  }
  const auto it = state.find(key);
  return it == state.end() ? nlohmann::json::array() : nlohmann::json::array({*it});
}

// Nobody, or a name of only spaces, is no decider.
GROUNDPLANE_INLINE bool blank(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || (c >= '\t' && c <= '\r')) {
      ++i;
      continue;
    }
    // UTF-8 spaces and invisible separators: U+0085, U+00A0, U+1680, U+180E, U+2000-U+200D,
    // U+2028, U+2029, U+202F, U+205F, U+2060, U+3000, U+FEFF.
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    if (c == 0xC2 && i + 1 < s.size() && (at(i + 1) == 0x85 || at(i + 1) == 0xA0)) {
      i += 2;
      continue;
    }
    if (i + 2 < s.size()) {
      const unsigned b = at(i + 1), d = at(i + 2);
      const bool space = (c == 0xE1 && b == 0x9A && d == 0x80) || (c == 0xE1 && b == 0xA0 && d == 0x8E) ||
                         (c == 0xE2 && b == 0x80 && (d <= 0x8D || d == 0xA8 || d == 0xA9 || d == 0xAF)) ||
                         (c == 0xE2 && b == 0x81 && (d == 0x9F || d == 0xA0)) ||
                         (c == 0xE3 && b == 0x80 && d == 0x80) || (c == 0xEF && b == 0xBB && d == 0xBF);
      if (space) {
        i += 3;
        continue;
      }
    }
    return false;
  }
  return true;
}

GROUNDPLANE_INLINE void require_decider(std::string_view by, std::string_view door) {
  if (blank(by))
    throw ConfigurationError("gp::Session::" + std::string(door) +
                             ": `by` is empty or blank; every human decision names who made it (it is the "
                             "audit trail)");
}

GROUNDPLANE_INLINE bool delta_carries_all(const nlohmann::json& delta, const std::vector<std::string>& keys) {
  return std::all_of(keys.begin(), keys.end(), [&](const std::string& key) {
    if (!key.empty() && key.front() == '/') return delta.contains(nlohmann::json::json_pointer(key));
    return delta.contains(key);
  });
}

GROUNDPLANE_INLINE std::string exception_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "a non-standard exception";
  }
}

struct RunningFire {
  const SessionCore* core;
  std::size_t index;
  const SharedText* instance;  // the item its fire names: RecordedFire keeps it alive while it runs
  const FireContext* context;  // what Session::current_fire() answers: RecordedFire's too
};
GROUNDPLANE_INLINE std::vector<RunningFire>& running_fires() {
  static thread_local std::vector<RunningFire> stack;
  return stack;
}
GROUNDPLANE_INLINE RunningScope::RunningScope(const SessionCore* core, std::size_t index, const SharedText* instance,
                                              const FireContext* context) {
  running_fires().push_back({core, index, instance, context});
}
GROUNDPLANE_INLINE RunningScope::~RunningScope() { running_fires().pop_back(); }
GROUNDPLANE_INLINE void RunningScope::reserve_one() { running_fires().reserve(running_fires().size() + 1); }
GROUNDPLANE_INLINE std::optional<std::size_t> running_fire_of(const SessionCore* core) {
  const auto& stack = running_fires();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (it->core == core) return it->index;
  return std::nullopt;
}
GROUNDPLANE_INLINE std::string running_instance_of(const SessionCore* core) {
  const auto& stack = running_fires();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (it->core == core) return it->instance ? it->instance->str() : std::string();
  return {};
}

GROUNDPLANE_INLINE const FireContext* running_context_of(const SessionCore* core) {
  const auto& stack = running_fires();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (it->core == core) return it->context;
  return nullptr;
}

GROUNDPLANE_INLINE DurableLog::DurableLog(std::shared_ptr<LedgerStore> store, const Ledger& ledger)
    : store_(std::move(store)), ledger_(ledger) {
  if (store_ && store_->writable()) {
    if (store_->backs_a_session_.exchange(true))
      throw ConfigurationError(
          "gp::SessionOptions::store already backs a live Session: one Session writes through a store (open "
          "another store for another Session)");
    claimed_store_ = true;
  }
}

GROUNDPLANE_INLINE DurableLog::~DurableLog() {
  outbox_.clear();  // only rows of a call that did not complete could be left here
  try {
    flush();
  } catch (...) {  // a destructor must not throw; those grades read "stopped" after a restore
  }
  if (claimed_store_) store_->backs_a_session_ = false;
}

GROUNDPLANE_INLINE rows::CarriedDoes DurableLog::does_to_store(const std::string& action,
                                                               const std::optional<std::string>& does) {
  if (!store_) return std::nullopt;
  const auto it = does_written_.find(action);
  if (it != does_written_.end() && it->second == does) return std::nullopt;
  does_written_.insert_or_assign(action, does);
  return rows::CarriedDoes(std::in_place, does);
}

GROUNDPLANE_INLINE const rows::ActionRule* DurableLog::stored_rule(std::string_view action) const {
  const auto it = stored_rules_.find(action);
  return it == stored_rules_.end() ? nullptr : &it->second;
}

GROUNDPLANE_INLINE void DurableLog::restored(std::string head,
                                             std::map<std::string, std::optional<std::string>, std::less<>> does,
                                             rows::ActionRules rules) {
  head_ = std::move(head);
  does_written_ = std::move(does);
  stored_rules_ = std::move(rules);
}

GROUNDPLANE_INLINE void DurableLog::flush() {
  if (!store_ || (outbox_.empty() && deferred_.empty())) return;
  try {
    if (deferred_.empty()) {
      head_ = store_->append(outbox_).hex;
    } else if (outbox_.empty()) {  // a fire's grade after its handler returned: the usual case
      head_ = store_->append(deferred_).hex;
      deferred_.clear();
    } else {
      std::vector<LedgerRow> rows = deferred_;
      rows.insert(rows.end(), std::make_move_iterator(outbox_.begin()), std::make_move_iterator(outbox_.end()));
      head_ = store_->append(rows).hex;
      deferred_.clear();
    }
  } catch (...) {
    outbox_.clear();
    does_written_.clear();  // unknown what the store holds: the next rows say their `does` again
    throw;
  }
  outbox_.clear();
}

GROUNDPLANE_INLINE SessionCore::SessionCore(SessionOptions o)
    : state(std::move(o.state)),
      require_human_approval(o.require_human_approval),
      allow_unmaterialized_fires(o.allow_unmaterialized_fires),
      approval_ttl(o.approval_ttl),
      policy_change(std::move(o.policy_change)),
      store(std::move(o.store)),
      max_rows_in_memory(o.max_rows_in_memory),
      clock(std::move(o.clock)),
      max_data_bytes(o.max_data_bytes),
      facts(o.facts),
      max_refused_payload_bytes(o.max_refused_payload_bytes),
      durable(store, ledger) {
  ledger.node = SharedText(std::move(o.node));
}

GROUNDPLANE_INLINE void SessionCore::trim() {
  const std::size_t cap = max_rows_in_memory;
  auto& ts = ledger.transitions;
  auto& gs = ledger.gaps;
  if (cap == 0 || ts.held().size() + gs.held().size() <= cap) return;
  const std::size_t target = cap - cap / 4;
  const auto t = ts.held();
  const auto g = gs.held();
  std::size_t nt = 0, ng = 0;
  while (t.size() - nt + g.size() - ng > target) {
    if (ng < g.size() && (nt == t.size() || g[ng].version <= t[nt].version)) {
      ledger.dropped_through = g[ng++].version;
    } else {
      ledger.dropped_through = t[nt++].version;
    }
  }
  // A fire not graded yet, or left in doubt by a restart until it is resolved.
  const auto pending = [](const TransitionRecord& row) {
    return row.outcome == Outcome::pending || row.outcome == Outcome::stopped;
  };
  try {
    ts.drop_front(nt, pending);
    gs.drop_front(ng, [](const GapRecord&) { return false; });
  } catch (const std::bad_alloc&) {  // nothing was dropped: the next row tries again
    return;
  }
  ts.release(pending);
}

}  // namespace groundplane::detail
