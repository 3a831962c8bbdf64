// The bodies of detail/session/session_restore.hpp: included by it in the header-only build,
// compiled once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/session_restore.hpp"

#include <map>
#include <set>
#include <unordered_map>

#include "groundplane/detail/ledger/row_feed.hpp"
#include "groundplane/detail/session/in_doubt.hpp"
#include "groundplane/detail/session/request_keys.hpp"
#include "groundplane/detail/session/settlement.hpp"
#include "groundplane/detail/text/escape.hpp"

namespace groundplane::detail {

// What a restore tracks beyond the session itself.
struct Replay {
  SessionCore& c;
  const ParsedRow* row = nullptr;                                            // the row being applied
  std::map<std::string, std::optional<std::string>, std::less<>> does = {};  // each action's latest stored `does`
  std::set<std::size_t> returned = {};  // fires whose handler returned (their once receipt is stored)
  // The texts restored rows hold, one copy of each, as a live session shares them.
  std::unordered_map<std::string, SharedText> texts = {};

  SharedText text(std::string s) {
    const auto it = texts.find(s);
    if (it != texts.end()) return it->second;
    SharedText t(s);
    texts.emplace(std::move(s), t);
    return t;
  }
  SharedText text(const std::optional<std::string>& s) { return s ? text(*s) : SharedText(); }

  // The `does` a row about `action` stands for: the one it carries, else the action's latest.
  std::optional<std::string> does_of(const std::string& action, rows::CarriedDoes carried) {
    if (carried) {
      does.insert_or_assign(action, *carried);
      return std::move(*carried);
    }
    const auto it = does.find(action);
    return it == does.end() ? std::nullopt : it->second;
  }

  bool started = false;                               // the session's first row was replayed
  std::optional<rows::Policy> policy = std::nullopt;  // the stored policy (none before 0.4)
  rows::ActionRules rules = {};                       // each action's stored rule

  RowRefused bad(const std::string& why) const {
    // The kind is the file's, so escaped like any value read from outside.
    return RowRefused(row->seq, "cannot restore session \"" + escape(c.store->session()) + "\": row " +
                                    std::to_string(row->seq) + " (" + escape(row->kind, 40) + ") " + why);
  }
};

GROUNDPLANE_INLINE void apply(Replay& r, rows::Start&& s) {
  r.c.ledger.node = r.text(std::move(s.node));
  r.c.state = std::move(s.state);
  r.policy = s.policy;
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::PolicyChange&& p) {
  if (p.policy) r.policy = p.policy;
  for (auto& [id, rule] : p.actions) r.rules.insert_or_assign(id, rule);
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::Move&& m) {
  r.c.ledger.node = r.text(std::move(m.node));
  r.c.ledger.focus = std::move(m.focus);
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::Refused&& g) {
  auto& c = r.c;
  const std::string& a = g.fire.action;
  GapRecord row{r.row->version,   r.text(a), r.text(r.does_of(a, std::move(g.fire.does))), c.ledger.node, {},
                g.fire.principal, g.reason};
  row.extras = Extras({c.holds_payloads() ? std::move(g.fire.payload) : nlohmann::json(), std::move(g.fire.ask_id), "",
                       std::move(g.prior_transition_id)});
  if (!g.failed_checks.empty()) row.extras.edit().failed_checks = std::move(g.failed_checks);
  if (g.payload_omitted != 0) row.extras.edit().payload_omitted = g.payload_omitted;
  if (!g.fire.request_key.empty()) row.extras.edit().request_key = std::move(g.fire.request_key);
  if (!g.fire.instance.empty()) row.instance = r.text(std::move(g.fire.instance));
  c.ledger.gaps.push_back(std::move(row));
  c.trim();
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::Recorded&& t) {
  auto& c = r.c;
  auto& L = c.ledger;
  const std::size_t idx = L.transitions.size();
  // Transition t-k has version k-1: every recorded fire bumps the version, and only they do.
  if (r.row->version != idx)
    throw r.bad("records a fire at version " + std::to_string(r.row->version) + " where the ledger is at " +
                std::to_string(idx));
  const std::string& a = t.fire.action;
  TransitionRecord row{r.row->version,
                       r.text(a),
                       r.text(r.does_of(a, std::move(t.fire.does))),
                       L.node,
                       {},
                       t.fire.principal,
                       t.outcome,
                       t.standing_grant,
                       t.repeat,
                       *IdempotencyKey::parse(t.idempotency_key)};  // decode refused any other
  // A fire recorded with a request key binds it, as it did when it was recorded.
  BoundRequest binding;
  const bool binds = !t.fire.request_key.empty() && t.outcome != Outcome::inferred;
  if (binds && !c.holds_payloads()) {  // else the row keeps all a retry must match
    binding.action = row.action;
    binding.principal = t.fire.principal;
    if (!t.fire.instance.empty()) binding.instance = r.text(t.fire.instance);
    binding.payload = t.fire.payload;
  }
  row.extras =
      Extras({c.holds_payloads() || t.outcome == Outcome::pending ? std::move(t.fire.payload) : nlohmann::json(),
              std::move(t.fire.ask_id), /*error=*/"", /*prior_transition_id=*/""});
  if (!t.fire.request_key.empty()) row.extras.edit().request_key = t.fire.request_key;
  if (!t.fire.instance.empty()) row.instance = r.text(std::move(t.fire.instance));
  // The fire that took the place of one resolved "did NOT happen" took its key.
  if (!row.key.empty())
    for (auto k = c.freed_keys.begin(); k != c.freed_keys.end(); ++k)
      if (k->key == row.key) {
        c.freed_keys.erase(k);
        break;
      }
  L.transitions.push_back(std::move(row));
  if (binds) {
    binding.transition = idx;
    // Rows that bind one key twice, with no row freeing it between them: the newer wins.
    if (const auto was = bound_fire(c, t.fire.request_key)) unbind_request(c, t.fire.request_key, *was);
    bind_request(c, t.fire.request_key, std::move(binding));
  }
  L.version = r.row->version + 1;
  if (t.fire.principal == Principal::agent) c.changes.clear(a);
  if (t.outcome == Outcome::pending) {
    c.pending.restored_in_flight(flight_key(L.transitions[idx]), idx);
    if (t.awaits_report) {
      L.awaiting_report.insert(idx);
      L.awaiting_by_action.insert(a, idx);
    }
  } else if (t.outcome == Outcome::inferred) {
    L.receipts.insert_or_assign(flight_key(L.transitions[idx]), OnceReceipt{idx, true});
  }
  c.trim();
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::Grade&& g) {
  auto& c = r.c;
  auto& L = c.ledger;
  if (g.transition >= L.transitions.size()) throw r.bad("names a fire that is not in the ledger");
  const auto idx = static_cast<std::size_t>(g.transition);
  // Only a fire not graded yet is graded, and such a fire is always held.
  if (!L.transitions.holds(idx)) throw r.bad("grades a fire that was graded long before");
  TransitionRecord& t = L.transitions[idx];
  if (t.outcome != Outcome::pending && t.outcome != Outcome::stopped)
    throw r.bad("grades " + rows::index_id("t-", g.transition) + ", which was already graded");
  t.outcome = g.outcome;
  if (g.error) {
    t.extras.edit().error = std::move(*g.error);
    t.extras.prune();
  }
  if (!g.data.is_null()) t.extras.edit().data = std::move(g.data);
  if (g.data_omitted != 0) t.extras.edit().data_omitted = g.data_omitted;
  if (t.outcome != Outcome::pending) r.returned.erase(idx);  // what stop_all asks is about pending fires only
  if (g.receipt) {
    if (t.outcome == Outcome::pending) r.returned.insert(idx);
    L.receipts.insert_or_assign(flight_key(t), OnceReceipt{idx, t.principal == Principal::user});
  }
  if (t.outcome != Outcome::pending) {
    stop_awaiting(c, idx);
    graded(c, idx);
  }
  if (t.outcome == Outcome::rejected) {  // as Session::reject left it: the receipt withdrawn, the request free
    if (const auto held = L.receipts.find(flight_key(t)); held != L.receipts.end() && held->second.transition == idx)
      held->second.reopened = true;
    free_request_key(c, idx);
  }
  if (t.outcome == Outcome::handler_failed) mark_request_failed(c, idx);
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::Resolution&& v) {
  auto& c = r.c;
  // Only a fire in doubt, and not resolved yet, is resolved: the restart rows before this
  // one left it so.
  if (v.transition >= c.ledger.transitions.size() || !c.in_doubt.contains(static_cast<std::size_t>(v.transition)))
    throw r.bad("resolves a fire that is not in doubt");
  resolve_in_doubt(c, static_cast<std::size_t>(v.transition), v.happened, v.by ? &*v.by : nullptr);
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::AskMinted&& q) {
  auto& c = r.c;
  auto& L = c.ledger;
  const std::size_t idx = L.asks.size();
  auto does = r.does_of(q.action, std::move(q.does));
  std::string key = ask_key(q.action, q.instance, q.input);
  AskStatus a{"ask-" + std::to_string(idx + 1),
              std::move(q.action),
              std::move(does),
              std::move(q.input),
              AskState::awaiting,
              "",
              r.row->version,
              ""};
  a.instance = std::move(q.instance);
  L.asks.push_back(std::move(a));
  c.open_asks.open(std::move(key), idx);
  L.awaiting_asks.insert(idx);
}

// The decisions a session writes: an awaiting ask approved or declined; an approved one
// declined, revoked or spent by a fire. Nothing moves a declined, revoked or spent ask.
GROUNDPLANE_INLINE bool decision_written(AskState from, AskState to) noexcept {
  if (from == AskState::awaiting) return to == AskState::approved || to == AskState::declined;
  if (from == AskState::approved) return to == AskState::declined || to == AskState::revoked || to == AskState::spent;
  return false;
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::Decision&& d) {
  auto& c = r.c;
  auto& L = c.ledger;
  if (d.ask >= L.asks.size()) throw r.bad("names an ask that is not in the ledger");
  const auto idx = static_cast<std::size_t>(d.ask);
  AskStatus& a = L.asks[idx];
  if (!decision_written(a.state, d.state))
    throw r.bad("turns " + a.id + " from " + std::string(name_of(a.state)) + " to " + std::string(name_of(d.state)) +
                ", which no session does");
  a.state = d.state;
  switch (a.state) {
    case AskState::approved:
      a.by = d.by.value_or("");
      a.approved_at =
          std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
              std::chrono::microseconds(d.approved_at.value_or(0))));
      a.approved_reads = d.reads ? std::move(*d.reads) : nlohmann::json::object();
      L.awaiting_asks.erase(idx);
      L.answered_asks.insert(idx);
      break;
    case AskState::declined:
      a.by = d.by.value_or("");
      L.awaiting_asks.erase(idx);
      L.answered_asks.insert(idx);
      break;
    case AskState::revoked:
      a.revoked_by = d.revoked_by.value_or("");
      break;
    case AskState::spent:
      a.spent_by = d.spent_by.value_or("");
      L.answered_asks.erase(idx);
      break;
    case AskState::awaiting:
      throw r.bad("moves an ask back to awaiting");
  }
  if (a.state != AskState::approved) closed_ask(c, idx);
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::Standing&& s) {
  auto& c = r.c;
  auto& L = c.ledger;
  const auto g = c.standing_index.find(s.action);
  if (g == c.standing_index.end()) {
    std::optional<std::string> does = s.does ? std::move(*s.does) : std::nullopt;
    L.standing.push_back(StandingGrant{s.action, std::move(does), s.active, std::move(s.by), "", r.row->version});
    c.standing_index.emplace(std::move(s.action), L.standing.size() - 1);
    return;
  }
  StandingGrant& grant = L.standing[g->second];
  grant.active = s.active;
  if (s.active) {
    grant.by = std::move(s.by);
    grant.revoked_by.clear();
  } else {
    grant.revoked_by = std::move(s.by);
  }
  grant.version = r.row->version;
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::WorkOpened&& o) {
  auto& L = r.c.ledger;
  const std::size_t idx = L.work.size();
  WorkRow w{"work-" + std::to_string(idx + 1),
            std::move(o.label),
            std::move(o.transition_id),
            "",
            std::nullopt,
            r.row->version,
            true};
  if (!w.transition_id.empty()) {
    const auto t = row_index(w.transition_id, "t-", L.transitions);
    if (!t) throw r.bad("binds work to a fire that is not in the ledger");
    if (L.transitions.holds(*t)) {  // else unbound: work open when the app stopped is closed anyway
      w.action = L.transitions[*t].action.str();
      w.does = L.transitions[*t].does.optional();
    }
  }
  L.work.push_back(std::move(w));
  L.open_work.insert(idx);
  if (!L.work[idx].transition_id.empty()) L.working_by_action.insert(L.work[idx].action, idx);
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::WorkClosed&& w) {
  auto& L = r.c.ledger;
  if (w.work >= L.work.size() || !L.work[static_cast<std::size_t>(w.work)].open)
    throw r.bad("closes work that is not open (" + rows::index_id("work-", w.work) + ")");
  const auto idx = static_cast<std::size_t>(w.work);
  L.work[idx].open = false;
  L.open_work.erase(idx);
  if (!L.work[idx].transition_id.empty()) L.working_by_action.erase(L.work[idx].action, idx);
}

// A restart row names the fires the stopped app was in and the work it left open: every
// one of them is so in the session rebuilt so far.
GROUNDPLANE_INLINE void apply(Replay& r, rows::Restart&& rs) {
  const auto& L = r.c.ledger;
  for (const std::uint64_t f : rs.fires) {
    const bool flying = f < L.transitions.size() && L.transitions.holds(static_cast<std::size_t>(f)) &&
                        L.transitions[static_cast<std::size_t>(f)].outcome == Outcome::pending;
    if (!flying) throw r.bad("names a fire the session does not hold in flight (" + rows::index_id("t-", f) + ")");
  }
  for (const std::uint64_t w : rs.work)
    if (w >= L.work.size() || !L.work[static_cast<std::size_t>(w)].open)
      throw r.bad("names work that is not open (" + rows::index_id("work-", w) + ")");
  stop_all(r.c, rs.fires, rs.work, r.returned);
}

GROUNDPLANE_INLINE void apply(Replay& r, rows::StaleSeen&& s) { r.c.changes.clear(s.action); }

GROUNDPLANE_INLINE void apply(Replay& r, rows::StaleFlag&& s) { r.c.ledger.actions_may_be_stale = s.on; }

GROUNDPLANE_INLINE void apply(Replay& r, rows::Report&& s) {
  r.c.changes.note(changed_pointers(r.c.state, s.delta), r.c.ledger.version, s.agents_own);
  r.c.state.merge_patch(s.delta);
}

// Applies one stored row to the session being restored. A row this release does not
// know is refused rather than skipped: skipping would restore a different session.
GROUNDPLANE_INLINE void replay(Replay& r, ParsedRow& row) {
  r.row = &row;
  if (!row.parsed) throw r.bad(row.body.refusal());
  RowBody& b = row.body;
  const std::string& k = row.kind;
  // The first row starts the session, and only the first.
  if (k == rows::Start::kind && r.started) throw r.bad("starts a session that row 1 already started");
  if (k != rows::Start::kind && !r.started) throw r.bad("is not the row that starts a session");
  r.started = true;
  try {
    if (!rows::visit_row(k, b, [&r](auto&& decoded) { apply(r, std::forward<decltype(decoded)>(decoded)); }))
      throw r.bad("is of a kind this release does not know");
  } catch (const MalformedRow& e) {
    throw r.bad(std::string("is malformed: ") + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw r.bad(std::string("is malformed: ") + e.what());
  }
}

GROUNDPLANE_INLINE std::string policy_differences(const rows::Policy& stored, const rows::Policy& given) {
  std::string out;
  const auto differs = [&](const rows::Member& m, const std::string& was, const std::string& now) {
    if (was == now) return;
    out += (out.empty() ? "" : "; ") + std::string(m.name) + ": stored " + was + ", given " + now;
  };
  const auto flag = [](bool on) { return std::string(on ? "true" : "false"); };
  const auto ms = [](std::int64_t n) { return std::to_string(n) + " ms"; };
  differs(rows::Policy::approval_m, flag(stored.require_human_approval), flag(given.require_human_approval));
  differs(rows::Policy::unmaterialized_m, flag(stored.allow_unmaterialized_fires),
          flag(given.allow_unmaterialized_fires));
  differs(rows::Policy::ttl_m, ms(stored.approval_ttl_ms), ms(given.approval_ttl_ms));
  return out;
}

GROUNDPLANE_INLINE std::string rule_differences(const rows::ActionRule& stored, const rows::ActionRule& given) {
  std::string out;
  if (stored.high_effect != given.high_effect)
    out += std::string("high_effect: stored ") + (stored.high_effect ? "true" : "false") + ", given " +
           (given.high_effect ? "true" : "false");
  if (stored.concurrency != given.concurrency)
    out += std::string(out.empty() ? "" : "; ") + "concurrency: stored " + std::string(name_of(stored.concurrency)) +
           ", given " + std::string(name_of(given.concurrency));
  return out;
}

GROUNDPLANE_INLINE void keep_action_rule(SessionCore& c, const std::string& id, const ActionSpec& spec) {
  if (!c.store || !c.store->writable()) return;
  const rows::ActionRule given{spec.high_effect, spec.concurrency};
  const rows::ActionRule* stored = c.durable.stored_rule(id);
  rows::PolicyChange row;
  row.actions.emplace(id, given);
  if (stored) {
    if (*stored == given) return;
    if (c.policy_change.empty())
      throw ConfigurationError("gp::Session::declare(" + quote(id) +
                               "): the ledger holds another rule for it: " + rule_differences(*stored, given) +
                               ". Declare it as stored, or set gp::SessionOptions::policy_change to the reason for "
                               "the change (recorded in the ledger)");
    row.was_actions.emplace(id, *stored);
    row.reason = c.policy_change;
  }
  c.durable.emit(std::move(row));
  c.durable.flush();
  c.durable.rule_stored(id, given);
}

// The restored session's policy, against the one it is given: a read-only store's
// session takes the stored one and checks nothing; a writable one is refused another
// (ConfigurationError) unless given a policy_change, which the returned row records, as it
// records the given policy of a session stored before 0.4.
GROUNDPLANE_INLINE std::optional<rows::PolicyChange> settle_policy(SessionCore& c, const Replay& r) {
  if (!c.store->writable()) {
    if (r.policy) {
      c.require_human_approval = r.policy->require_human_approval;
      c.allow_unmaterialized_fires = r.policy->allow_unmaterialized_fires;
      c.approval_ttl = std::chrono::milliseconds(r.policy->approval_ttl_ms);
    }
    return std::nullopt;
  }
  const rows::Policy given = c.policy();
  rows::PolicyChange row;
  row.policy = given;
  if (!r.policy) return row;  // stored before 0.4: what it is held to from now on
  if (*r.policy == given) return std::nullopt;
  if (c.policy_change.empty())
    throw ConfigurationError("gp::Session: session \"" + escape(c.store->session()) +
                             "\" was stored with another policy: " + policy_differences(*r.policy, given) +
                             ". Give the stored values, or set gp::SessionOptions::policy_change to the reason for the "
                             "change (recorded in the ledger)");
  row.was_policy = r.policy;
  row.reason = c.policy_change;
  return row;
}

GROUNDPLANE_INLINE void open_store(SessionCore& c) {
  const LedgerStore& store = *c.store;
  const auto refused = [&](const ChainBroken& e) {
    return LedgerStoreError("cannot restore session \"" + escape(store.session()) + "\": " + e.what());
  };
  if (store.head().rows == 0) {
    try {  // nothing to restore, unless the store expects a head that these no rows cannot reach
      store.read_verified([](const StoredRow&) { return true; });
    } catch (const ChainBroken& e) {
      throw refused(e);
    }
    if (!store.writable()) return;  // read, an empty session: nothing to start it with
    c.durable.emit(rows::Start{c.ledger.node.str(), c.state, c.policy()});
    c.durable.flush();
    return;
  }
  c.state = nlohmann::json::object();
  c.ledger.node = SharedText();
  Replay r{c};
  RowHash last{};
  try {
    read_rows_verified(store, [&](ParsedRow& row) {
      replay(r, row);
      last = row.hash;
    });
  } catch (const ChainBroken& e) {
    throw refused(e);
  }
  c.durable.restored(to_hex(last), std::move(r.does), std::move(r.rules));
  // Checked before anything is written: a refused policy leaves the ledger as it was.
  std::optional<rows::PolicyChange> policy = settle_policy(c, r);
  release_stored_requests(c);
  // The app stopped: what it was doing is no longer awaited.
  std::vector<std::size_t> flying = c.pending.all_in_flight();
  std::sort(flying.begin(), flying.end());
  rows::Restart rs{{flying.begin(), flying.end()}, {c.ledger.open_work.begin(), c.ledger.open_work.end()}};
  const bool stopped = !rs.fires.empty() || !rs.work.empty();
  if (stopped) stop_all(c, rs.fires, rs.work, r.returned);
  if (!store.writable()) return;
  if (stopped) c.durable.emit(std::move(rs));
  if (policy) c.durable.emit(std::move(*policy));
  c.durable.flush();
}

}  // namespace groundplane::detail
