// The bodies of session.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp). What they call on the
// session's internals is in the detail headers included below, each with its part.
#pragma once

#include "groundplane/session.hpp"

#include "groundplane/detail/json/deep_json.hpp"
#include "groundplane/detail/session/fire.hpp"
#include "groundplane/detail/session/in_doubt.hpp"
#include "groundplane/detail/session/listing.hpp"
#include "groundplane/detail/session/outcome.hpp"
#include "groundplane/detail/session/request_keys.hpp"
#include "groundplane/detail/session/session_core.hpp"
#include "groundplane/detail/session/session_restore.hpp"
#include "groundplane/detail/session/settlement.hpp"
#include "groundplane/detail/session/state_reports.hpp"
#include "groundplane/detail/text/escape.hpp"

namespace groundplane {

namespace detail {

inline constexpr std::size_t brief_does_cap = 200;  // a `does` in the brief, at most
inline constexpr std::size_t brief_steps = 10;      // steps the brief lists, at most

// A door's answer for an ask already answered.
GROUNDPLANE_INLINE ApprovalResult answered_already(AskState s) {
  switch (s) {
    case AskState::approved:
      return {false, "ALREADY_APPROVED"};
    case AskState::declined:
      return {false, "ALREADY_DECLINED"};
    case AskState::spent:
      return {false, "ALREADY_SPENT"};
    case AskState::revoked:
      return {false, "ALREADY_REVOKED"};
    case AskState::awaiting:
      break;
  }
  return {true, ""};
}

// What is declared now, in declaration order, with enabled_when evaluated now.
GROUNDPLANE_INLINE std::vector<ActionInfo> list_actions(const SessionCore& c) {
  std::vector<ActionInfo> out;
  for (const auto* kv : declared_in_order(c)) {
    const auto& s = kv->second.spec;
    const bool performed = would_be_duplicate(c, kv->first, s);
    out.push_back(ActionInfo{kv->first, s.does, !performed && (!s.enabled_when || s.enabled_when(c.state)),
                             static_cast<bool>(s.handler), performed, s.input, s.human_decides.has_value()});
  }
  return out;
}

// The actions declared now whose choice is the person's, with done_when's answer now.
GROUNDPLANE_INLINE std::vector<Decision> list_decisions(const SessionCore& c) {
  std::vector<Decision> out;
  for (const auto* kv : declared_in_order(c)) {
    const std::optional<HumanDecides>& h = kv->second.spec.human_decides;
    if (!h) continue;
    std::optional<bool> made;
    if (h->done_when) {
      try {
        made = h->done_when(c.state);
      } catch (const ConfigurationError&) {  // it called back into the session: the app's bug
        throw;
      } catch (...) {  // it cannot tell; the block must still render
        made = std::nullopt;
      }
    }
    out.push_back(Decision{kv->first, h->about, made});
  }
  return out;
}

// What the block lists as the human's to decide: those not known made.
GROUNDPLANE_INLINE std::vector<std::string> open_decisions(const SessionCore& c) {
  std::vector<std::string> out;
  for (Decision& d : list_decisions(c))
    if (d.made != true) out.push_back(std::move(d.action));
  return out;
}

GROUNDPLANE_INLINE GroundTruth render(SessionCore& c, const GroundTruthOptions& opts, RenderProbe* probe) {
  flush_deferred(c);  // the head then covers every grade the block shows
  GroundTruth g = render_ground_truth(c.ledger, opts, probe, stale_probe(c), stored_counter(c), open_decisions(c));
  g.head = c.durable.head();
  return g;
}

// The renderer with a probe attached: tests assert how many rows a render reads.
GROUNDPLANE_INLINE GroundTruth ground_truth_probed(const Session& session, const GroundTruthOptions& opts,
                                                   RenderProbe& probe) {
  SessionLock lock(*session.core_);
  return render_ground_truth(session.core_->ledger, opts, &probe, stale_probe(*session.core_),
                             stored_counter(*session.core_), open_decisions(*session.core_));
}

// An action's items as served: the first `max` of them, and how many there are.
GROUNDPLANE_INLINE void list_instances(const SessionCore& c, const Mounted& m, std::size_t max, OfferDetails& out) {
  out.has_instances = true;
  const ItemSet* items = items_of(c, m);
  if (items == nullptr) {
    out.instances_unavailable = true;
    return;
  }
  const std::size_t n = std::min(max, items->ordered.size());
  out.instances.assign(items->ordered.begin(), items->ordered.begin() + static_cast<std::ptrdiff_t>(n));
  out.instances_total = items->ordered.size();
}

GROUNDPLANE_INLINE std::map<std::string, OfferDetails, std::less<>> offer_details(const Session& session,
                                                                                  std::optional<std::uint64_t> since,
                                                                                  std::size_t max_instances,
                                                                                  std::string_view only) {
  SessionLock lock(*session.core_);
  const SessionCore& c = *session.core_;
  std::map<std::string, OfferDetails, std::less<>> out;
  const std::optional<ChangedKeys::Moved> moved =
      since ? std::optional(c.changes.moved_since(*since)) : std::nullopt;  // one pass, for every action
  for (const auto& [id, m] : c.actions) {
    if (!only.empty() && id != only) continue;
    OfferDetails d;
    if (moved) {
      d.stale_reads = moved->stale(id, m.spec.reads);
      d.stale_writes = moved->stale(id, m.spec.writes);
    }
    if (m.spec.instances) list_instances(c, m, max_instances, d);
    out.emplace(id, std::move(d));
  }
  return out;
}

// Session::confirm_ask, and the agent port's ask (within_budget): that one mints only an
// ask whose input fits what SessionOptions::max_refused_payload_bytes has left (nullopt
// when it does not; an open ask for the same input is found whatever the budget says).
GROUNDPLANE_INLINE std::optional<Ask> mint_ask(SessionCore& c, std::string_view id, nlohmann::json input,
                                               std::string instance, bool within_budget) {
  // Measured before anything reads it: an input nested past the bound is never copied.
  const JsonExtent extent = json_extent(input, max_payload_depth);
  if (!extent.too_deep.empty())
    throw ConfigurationError("gp::Session::confirm_ask(" + quote(id) + "): the input cannot be put before a person: " +
                             extent.too_deep + " (gp::max_payload_depth)");
  SessionLock lock(c);
  auto& L = c.ledger;
  const auto it = c.actions.find(id);
  if (it == c.actions.end())
    throw ConfigurationError("gp::Session::confirm_ask: no action " + quote(id) + " is declared now");
  if (static_cast<bool>(it->second.spec.instances) != !instance.empty())
    throw ConfigurationError("gp::Session::confirm_ask(" + quote(id) + "): " +
                             (instance.empty() ? "the action acts on one of its instances; name the item"
                                               : "the action declares no instances, so it takes no item"));
  // What supports each argument a passing argument check read: the card shows it.
  const std::uint64_t bytes = input.is_null() ? 0 : extent.bytes;
  if (within_budget && c.refused_payload_bytes + bytes > c.max_refused_payload_bytes &&
      std::none_of(L.asks.begin(), L.asks.end(), [&](const AskStatus& a) {
        return (a.state == AskState::awaiting || a.state == AskState::approved) && a.action == id &&
               a.instance == instance;
      }))
    return std::nullopt;  // it cannot be minted, and no open ask could be this one: its key is not built
  const CheckList& checks = it->second.spec.argument_checks;
  std::vector<ArgumentSupport> support;
  if (!checks.empty() && c.facts) support = review_arguments(*c.facts, checks, input, true).support;
  std::string key = ask_key(id, instance, input);
  if (const auto open = c.open_asks.find(key)) {
    const AskStatus& a = L.asks[*open];
    if (a.state == AskState::awaiting || (a.state == AskState::approved && !approval_stale(c, a, &it->second.spec)))
      return Ask{a.id, a.action, std::move(support), a.instance};
  }
  if (within_budget && c.refused_payload_bytes + bytes > c.max_refused_payload_bytes) return std::nullopt;
  const std::size_t k = L.asks.size();
  std::string ask_id = "ask-" + std::to_string(k + 1);
  if (c.store) {
    std::string action(id);
    auto does = c.durable.does_to_store(action, it->second.spec.does);
    c.durable.emit(rows::AskMinted{std::move(action), std::move(does), input, instance});
    c.durable.flush();
  }
  AskStatus minted{ask_id, std::string(id), it->second.spec.does, std::move(input), AskState::awaiting, "", L.version,
                   ""};
  minted.instance = instance;
  L.asks.push_back(std::move(minted));
  try {
    c.open_asks.open(std::move(key), k);
    L.awaiting_asks.insert(k);
  } catch (...) {
    L.asks.pop_back();
    throw;
  }
  c.refused_payload_bytes += bytes;
  return Ask{std::move(ask_id), std::string(id), std::move(support), std::move(instance)};
}

GROUNDPLANE_INLINE std::optional<Ask> confirm_ask_within_budget(Session& session, std::string_view id,
                                                                nlohmann::json input, std::string instance) {
  return mint_ask(*session.core_, id, std::move(input), std::move(instance), true);
}

GROUNDPLANE_INLINE std::optional<FireResult> replay_bound(Session& session, std::string_view id,
                                                          const FireOptions& options) {
  check_request_key(options.request_key);
  SessionLock lock(*session.core_);
  return look_up_request(*session.core_, id, options, lock).replay;
}

}  // namespace detail

GROUNDPLANE_INLINE Session::View::View(const detail::SessionCore& core)
    : lock_(core), ledger_(&core.ledger), state_(&core.state) {}

GROUNDPLANE_INLINE Session::Session(SessionOptions options) : core_(make_core(std::move(options))) {
  if (core_->store) detail::open_store(*core_);
}

GROUNDPLANE_INLINE ActionHandle Session::declare(std::string id, ActionSpec spec) {
  if (id.empty()) throw ConfigurationError("gp::Session::declare: the action id is empty");
  if (id.find('\0') != std::string::npos)  // an item's key is the id, a NUL and the item (detail::flight_key)
    throw ConfigurationError("gp::Session::declare: the action id " + detail::quote(id) + " holds a NUL byte");
  if (spec.does.empty())
    throw ConfigurationError("gp::Session::declare(" + detail::quote(id) +
                             "): `does` is empty; every action needs its authored sentence");
  for (const auto* keys : {&spec.writes, &spec.reads}) {
    const char* field = keys == &spec.writes ? "`writes`" : "`reads`";
    for (const auto& w : *keys) {
      if (w.empty())
        throw ConfigurationError("gp::Session::declare(" + detail::quote(id) + "): an entry of " + field + " is empty");
      if (w.front() == '/') {
        try {
          (void)nlohmann::json::json_pointer(w);
        } catch (const nlohmann::json::exception&) {
          throw ConfigurationError("gp::Session::declare(" + detail::quote(id) + "): " + detail::quote(w) + " in " +
                                   field + " is not a valid JSON Pointer");
        }
      }
    }
  }
  std::optional<JsonSchema> input;
  if (!spec.input.is_null()) {
    try {
      input.emplace(spec.input);
    } catch (const ConfigurationError& e) {
      throw ConfigurationError("gp::Session::declare(" + detail::quote(id) + "): `input`: " + e.what());
    }
  }
  detail::validate_argument_checks(*core_, id, spec.argument_checks);  // reads only what construction set
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  detail::keep_action_rule(c, id, spec);  // stored at the first declare, compared at every later one
  const std::uint64_t gen = c.next_generation++;
  c.ever_declared[id] = true;
  detail::SharedText does(spec.does);
  c.actions.insert_or_assign(id, detail::Mounted{std::move(spec), detail::SharedText(id), std::move(does), gen,
                                                 c.next_order++, std::move(input)});
  detail::probe_in_doubt(c, id, lock);  // after a restore: its fires in doubt, asked before declare returns
  return ActionHandle(core_, std::move(id), gen);
}

GROUNDPLANE_INLINE void Session::undeclare(std::string_view id) {
  detail::SessionLock lock(*core_);
  const auto it = core_->actions.find(id);
  if (it != core_->actions.end()) core_->actions.erase(it);
}

GROUNDPLANE_INLINE void Session::move_to(std::string node, std::string focus) {
  detail::SessionLock lock(*core_);
  if (core_->store) {
    core_->durable.emit(detail::rows::Move{node, focus});
    core_->durable.flush();
  }
  core_->ledger.node = detail::SharedText(std::move(node));
  core_->ledger.focus = std::move(focus);
}

// The gate's checks in their order, then the record, the handler and its grade
// (detail/session/fire.hpp). Writes exactly one attempt row: a gap row when refused, else a
// transition (and, once its handler returns, its grade).
GROUNDPLANE_INLINE FireResult Session::fire(std::string_view id, FireOptions options) {
  detail::check_request_key(options.request_key);
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  // A retry is looked up before every refusal reason: a match replays, writing nothing.
  detail::KeyLookup retry = detail::look_up_request(c, id, options, lock);
  if (retry.replay) return std::move(*retry.replay);
  detail::FireAttempt f{id, std::move(options)};
  f.request_key_reused = retry.reused;
  if (const auto reason = detail::gate(c, f)) return detail::refuse(c, f, *reason);
  detail::RecordedFire r = detail::record(c, f);
  // Until this call returns, a retry of its request waits for it (then replays it).
  std::optional<detail::FirstCallDone> first;
  if (r.request_key) first.emplace(c, r.index, lock);
  if (!r.handler) return FireResult{true, {}, std::move(r.id), {}};
  const detail::HandlerReturn returned = detail::run_handler(c, r, lock);
  return detail::grade_return(c, r, returned, lock);
}

GROUNDPLANE_INLINE nlohmann::json Session::outcome(std::string_view id) const {
  detail::SessionLock lock(*core_);
  detail::flush_deferred(*core_);
  return detail::outcome_of(*core_, id);
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): the signature is the API's
GROUNDPLANE_INLINE bool Session::reject(std::string_view transition_id, std::string code) {
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  const auto k = detail::row_index(transition_id, "t-", c.ledger.transitions);
  if (!k || !c.ledger.transitions.holds(*k) || c.ledger.transitions[*k].outcome != Outcome::pending) return false;
  detail::reject_fire(c, *k, std::move(code));
  c.trim();
  return true;
}

GROUNDPLANE_INLINE bool Session::resolve(const std::string& transition_id, bool happened, std::string by) {
  detail::require_decider(by, "resolve");
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  const auto k = detail::row_index(transition_id, "t-", c.ledger.transitions);
  if (!k || !c.in_doubt.contains(*k)) return false;
  if (c.store) {
    c.durable.emit(detail::rows::Resolution{*k, happened, by});
    c.durable.flush();
  }
  detail::resolve_in_doubt(c, *k, happened, &by);
  c.trim();
  return true;
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): the signature is the API's
GROUNDPLANE_INLINE void Session::report_state(const nlohmann::json& delta, std::string transition_id) {
  if (!delta.is_object())
    throw ConfigurationError(
        "gp::Session::report_state: the delta must be a JSON object (a merge patch of "
        "state keys), got " +
        std::string(delta.type_name()));
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  const std::optional<std::size_t> named = detail::reported_fire(c, transition_id);
  const bool from_handler = transition_id.empty() && named.has_value();
  // What this report settles is decided before anything changes.
  const auto target = detail::report_target(c, named);
  const bool inferring = !named && c.ledger.awaiting_report.empty();
  const std::vector<std::string> changed = detail::changed_pointers(c.state, delta);
  const std::vector<std::string> agents_own = detail::agents_own_changes(c, changed, named, target, from_handler);
  // Stored first, like every other row: the values the delta replaces are kept so that
  // a store that refuses the rows leaves the state as it was.
  const detail::ReplacedState was = c.store ? detail::replaced_state(c.state, delta) : detail::ReplacedState{};
  c.state.merge_patch(delta);
  ++c.state_generation;  // selectors answer for the state as it is now
  detail::Settlement how;
  if (target != c.pending.end()) how = detail::judge(c, target->second, delta);
  const auto match = inferring ? detail::inferred_match(c, delta) : detail::InferredMatch{};
  if (c.store) detail::store_report(c, {delta, agents_own, target, how, match}, was);
  c.changes.note(changed, c.ledger.version, agents_own);
  if (target != c.pending.end()) detail::settle(c, target, how);
  if (match.id) detail::infer(c, match);
  if (how.thrown) std::rethrow_exception(how.thrown);
}

GROUNDPLANE_INLINE Ask Session::confirm_ask(std::string_view id, nlohmann::json input, std::string instance) {
  return *detail::mint_ask(*core_, id, std::move(input), std::move(instance), false);
}

GROUNDPLANE_INLINE ApprovalResult Session::approve_ask(std::string_view ask_id, std::string by) {
  detail::require_decider(by, "approve_ask");
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  auto& L = c.ledger;
  const auto k = detail::row_index(ask_id, "ask-", L.asks);
  if (!k) return {false, "UNKNOWN_ASK"};
  AskStatus& a = L.asks[*k];
  if (a.state != AskState::awaiting) return detail::answered_already(a.state);
  // The yes is bound to the state its action reads, as it is now.
  nlohmann::json reads = nlohmann::json::object();
  if (const auto act = c.actions.find(a.action); act != c.actions.end())
    for (const auto& key : act->second.spec.reads) reads[key] = detail::read_value(c.state, key);
  const auto now = c.now();
  if (c.store) {
    c.durable.emit(detail::rows::Decision{
        .ask = *k,
        .state = AskState::approved,
        .by = by,
        .approved_at = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count(),
        .reads = reads});
    c.durable.flush();
  }
  a.state = AskState::approved;
  a.by = std::move(by);
  a.approved_at = now;
  a.approved_reads = std::move(reads);
  L.awaiting_asks.erase(*k);
  L.answered_asks.insert(*k);
  return {true, ""};
}

GROUNDPLANE_INLINE ApprovalResult Session::decline_ask(std::string_view ask_id, std::string by) {
  detail::require_decider(by, "decline_ask");
  detail::SessionLock lock(*core_);
  auto& L = core_->ledger;
  const auto k = detail::row_index(ask_id, "ask-", L.asks);
  if (!k) return {false, "UNKNOWN_ASK"};
  AskStatus& a = L.asks[*k];
  if (a.state != AskState::awaiting && a.state != AskState::approved) return detail::answered_already(a.state);
  if (core_->store) {
    core_->durable.emit(detail::rows::Decision{.ask = *k, .state = AskState::declined, .by = by});
    core_->durable.flush();
  }
  a.state = AskState::declined;
  a.by = std::move(by);
  L.awaiting_asks.erase(*k);
  L.answered_asks.insert(*k);
  detail::closed_ask(*core_, *k);
  return {true, ""};
}

GROUNDPLANE_INLINE ApprovalResult Session::revoke_ask(std::string_view ask_id, std::string by) {
  detail::require_decider(by, "revoke_ask");
  detail::SessionLock lock(*core_);
  auto& L = core_->ledger;
  const auto k = detail::row_index(ask_id, "ask-", L.asks);
  if (!k) return {false, "UNKNOWN_ASK"};
  AskStatus& a = L.asks[*k];
  if (a.state == AskState::awaiting) return {false, "NOT_APPROVED"};
  if (a.state != AskState::approved) return detail::answered_already(a.state);
  if (core_->store) {
    core_->durable.emit(detail::rows::Decision{.ask = *k, .state = AskState::revoked, .revoked_by = by});
    core_->durable.flush();
  }
  a.state = AskState::revoked;
  a.revoked_by = std::move(by);
  detail::closed_ask(*core_, *k);
  return {true, ""};
}

GROUNDPLANE_INLINE ApprovalResult Session::grant_standing(std::string_view action_id, std::string by) {
  detail::require_decider(by, "grant_standing");
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  auto& L = c.ledger;
  const auto it = c.actions.find(action_id);
  if (it == c.actions.end())
    throw ConfigurationError("gp::Session::grant_standing: no action " + detail::quote(action_id) + " is declared now");
  const auto g = c.standing_index.find(action_id);
  if (c.store && (g == c.standing_index.end() || !L.standing[g->second].active)) {
    // `does` is frozen at the first grant
    detail::rows::CarriedDoes does;
    if (g == c.standing_index.end()) does.emplace(it->second.spec.does);
    c.durable.emit(detail::rows::Standing{std::string(action_id), true, by, std::move(does)});
    c.durable.flush();
  }
  if (g != c.standing_index.end()) {
    StandingGrant& row = L.standing[g->second];
    if (row.active) return {false, "ALREADY_GRANTED"};
    row.active = true;
    row.by = std::move(by);
    row.revoked_by.clear();
    row.version = L.version;
    return {true, ""};
  }
  L.standing.push_back(StandingGrant{std::string(action_id), it->second.spec.does, true, std::move(by), "", L.version});
  try {
    c.standing_index.emplace(action_id, L.standing.size() - 1);
  } catch (...) {
    L.standing.pop_back();
    throw;
  }
  return {true, ""};
}

GROUNDPLANE_INLINE ApprovalResult Session::revoke_standing(std::string_view action_id, std::string by) {
  detail::require_decider(by, "revoke_standing");
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  const auto g = c.standing_index.find(action_id);
  if (g == c.standing_index.end() || !c.ledger.standing[g->second].active) return {false, "NOT_GRANTED"};
  if (c.store) {
    c.durable.emit(detail::rows::Standing{std::string(action_id), false, by, std::nullopt});
    c.durable.flush();
  }
  StandingGrant& row = c.ledger.standing[g->second];
  row.active = false;
  row.revoked_by = std::move(by);
  row.version = c.ledger.version;
  return {true, ""};
}

GROUNDPLANE_INLINE WorkHandle Session::begin_work(std::string label, std::string transition_id) {
  detail::SessionLock lock(*core_);
  auto& L = core_->ledger;
  WorkRow row{"work-" + std::to_string(L.work.size() + 1), std::move(label), "", "", std::nullopt, L.version, true};
  if (!transition_id.empty()) {
    const auto f = detail::row_index(transition_id, "t-", L.transitions);
    if (!f)
      throw ConfigurationError("gp::Session::begin_work: no transition " + detail::quote(transition_id) +
                               " was recorded in this session");
    if (!L.transitions.holds(*f))
      throw ConfigurationError("gp::Session::begin_work: transition " + detail::quote(transition_id) +
                               " is no longer held in memory (max_rows_in_memory); bind work to a recent fire");
    const detail::TransitionRecord& t = L.transitions[*f];
    row.transition_id = std::move(transition_id);
    row.action = t.action.str();
    row.does = t.does.optional();
  }
  const std::size_t k = L.work.size();
  std::string id = row.id;
  if (core_->store) {
    core_->durable.emit(detail::rows::WorkOpened{row.label, row.transition_id});
    core_->durable.flush();
  }
  L.work.push_back(std::move(row));
  L.open_work.insert(k);
  if (!L.work[k].transition_id.empty()) L.working_by_action.insert(L.work[k].action, k);
  return WorkHandle(core_, k, std::move(id));
}

GROUNDPLANE_INLINE std::uint64_t Session::version() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.version;
}

GROUNDPLANE_INLINE std::string Session::node() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.node.str();
}

GROUNDPLANE_INLINE std::string Session::focus() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.focus;
}

GROUNDPLANE_INLINE nlohmann::json Session::state() const {
  detail::SessionLock lock(*core_);
  return core_->state;
}

GROUNDPLANE_INLINE std::vector<Transition> Session::transitions() const {
  detail::SessionLock lock(*core_);
  const LedgerRows<Transition> rows{core_->ledger.transitions.held(), core_->ledger.transitions.dropped()};
  return {rows.begin(), rows.end()};
}

GROUNDPLANE_INLINE std::vector<GapRow> Session::gap_rows() const {
  detail::SessionLock lock(*core_);
  const LedgerRows<GapRow> rows{core_->ledger.gaps.held(), core_->ledger.gaps.dropped()};
  return {rows.begin(), rows.end()};
}

GROUNDPLANE_INLINE std::vector<AskStatus> Session::asks() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.asks;
}

GROUNDPLANE_INLINE std::vector<WorkRow> Session::work() const {
  detail::SessionLock lock(*core_);
  return core_->ledger.work;
}

GROUNDPLANE_INLINE std::vector<ActionInfo> Session::actions() const {
  detail::SessionLock lock(*core_);
  return detail::list_actions(*core_);
}

GROUNDPLANE_INLINE std::string Session::current_instance() const {
  // The running fire's own record of its item: its row may be trimmed from memory meanwhile.
  return detail::running_instance_of(core_.get());
}

GROUNDPLANE_INLINE const FireContext& Session::current_fire() const {
  const FireContext* context = detail::running_context_of(core_.get());
  if (context == nullptr)
    throw ConfigurationError(
        "gp::Session::current_fire: called outside a handler of this session; a fire's context is known only "
        "while its handler runs");
  return *context;
}

GROUNDPLANE_INLINE std::vector<InDoubtFire> Session::in_doubt_fires() const {
  detail::SessionLock lock(*core_);
  const auto& c = *core_;
  std::vector<InDoubtFire> out;
  out.reserve(c.in_doubt.size());
  for (const auto& [k, doubt] : c.in_doubt) {
    const detail::TransitionRecord& t = c.ledger.transitions[k];
    out.push_back(InDoubtFire{detail::transition_id_of(k), t.action.str(), t.key.hex(), t.instance.str(),
                              doubt.handler_returned});
  }
  return out;
}

GROUNDPLANE_INLINE std::vector<Decision> Session::decisions() const {
  detail::SessionLock lock(*core_);
  return detail::list_decisions(*core_);
}

GROUNDPLANE_INLINE std::vector<std::string> Session::keys_changed_since(std::uint64_t version) const {
  detail::SessionLock lock(*core_);
  return core_->changes.since(version);
}

GROUNDPLANE_INLINE void Session::acknowledge_stale(std::string_view action) {
  detail::SessionLock lock(*core_);
  auto& c = *core_;
  if (!c.actions.contains(action))
    throw ConfigurationError("gp::Session::acknowledge_stale: no action " + detail::quote(action) + " is declared now");
  if (c.store) {
    c.durable.emit(detail::rows::StaleSeen{std::string(action)});
    c.durable.flush();
  }
  c.changes.clear(action);
}

GROUNDPLANE_INLINE Availability Session::availability(std::string_view id) const {
  detail::SessionLock lock(*core_);
  const auto it = core_->actions.find(id);
  if (it != core_->actions.end()) {
    const auto& s = it->second.spec;
    return s.enabled_when && !s.enabled_when(core_->state) ? Availability::disabled : Availability::available;
  }
  return core_->ever_declared.contains(id) ? Availability::not_mounted : Availability::unknown;
}

GROUNDPLANE_INLINE GroundTruth Session::ground_truth(GroundTruthOptions options) const {
  detail::SessionLock lock(*core_);
  return detail::render(*core_, options, nullptr);
}

GROUNDPLANE_INLINE std::string Session::head() const {
  detail::SessionLock lock(*core_);
  detail::flush_deferred(*core_);
  return core_->durable.head();
}

GROUNDPLANE_INLINE Brief Session::context_brief(std::optional<std::uint64_t> since_version) const {
  detail::SessionLock lock(*core_);
  const auto& L = core_->ledger;
  const std::string& node = L.node.str();
  std::string text = "Where you are: " + (node.empty() ? std::string("(no page set)") : detail::escape(node));
  if (!L.focus.empty()) text += ", looking at " + detail::escape(L.focus);
  text += ".\n";

  const auto offered = detail::list_actions(*core_);
  if (offered.empty()) {
    text += "Nothing is on offer here right now.";
  } else {
    text += "On offer here:";
    for (const auto& a : offered) {
      text += "\n  - " + detail::escape(a.id) + ": " + detail::escape(a.does, detail::brief_does_cap);
      if (!a.enabled) text += " (not available right now)";
    }
  }

  // Transition t-k carries version k-1, so the steps since a version are counted
  // exactly whether or not the oldest are still held.
  const std::span<const detail::TransitionRecord> ts = L.transitions.held();
  const std::size_t total = L.transitions.size();
  const std::size_t from =
      since_version ? static_cast<std::size_t>(std::min<std::uint64_t>(*since_version, total)) : std::size_t{0};
  const std::size_t n = total - from;
  if (n == 0) {
    text += since_version ? "\nNo new steps recorded since version " + std::to_string(*since_version) + "."
                          : std::string("\nNo steps recorded yet.");
  } else {
    text += "\nSteps recorded lately (the facts block says how each turned out):";
    const std::size_t shown = std::min({n, detail::brief_steps, ts.size()});
    if (n > shown) text += "\n  - (" + std::to_string(n - shown) + " earlier step(s) not listed)";
    for (std::size_t k = ts.size() - shown; k < ts.size(); ++k)
      text += "\n  - " +
              detail::escape(ts[k].does ? ts[k].does.str() : std::string(unknown_action_text), detail::brief_does_cap);
  }
  return Brief{node, L.focus, L.version, std::move(text)};
}

GROUNDPLANE_INLINE std::shared_ptr<detail::SessionCore> Session::make_core(SessionOptions o) {
  if (o.approval_ttl.count() < 0)
    throw ConfigurationError("gp::SessionOptions::approval_ttl is negative; 0 means approvals never expire");
  if (!o.state.is_object())
    throw ConfigurationError("gp::SessionOptions::state must be a JSON object, got " +
                             std::string(o.state.type_name()));
  return std::make_shared<detail::SessionCore>(std::move(o));
}

GROUNDPLANE_INLINE void Session::set_actions_stale(bool on) {
  detail::SessionLock lock(*core_);
  if (core_->store) {
    core_->durable.emit(detail::rows::StaleFlag{on});
    core_->durable.flush();
  }
  core_->ledger.actions_may_be_stale = on;
}

GROUNDPLANE_INLINE void ActionHandle::undeclare() {
  const auto core = core_.lock();
  if (!core) return;
  detail::SessionLock lock(*core);
  const auto it = core->actions.find(id_);
  if (it != core->actions.end() && it->second.generation == generation_) core->actions.erase(it);
}

GROUNDPLANE_INLINE bool ActionHandle::mounted() const {
  const auto core = core_.lock();
  if (!core) return false;
  detail::SessionLock lock(*core);
  const auto it = core->actions.find(id_);
  return it != core->actions.end() && it->second.generation == generation_;
}

GROUNDPLANE_INLINE void WorkHandle::done() {
  const auto core = core_.lock();
  if (!core) return;
  detail::SessionLock lock(*core);
  auto& L = core->ledger;
  if (index_ < L.work.size() && L.work[index_].open) {
    if (core->store) {
      core->durable.emit(detail::rows::WorkClosed{index_});
      core->durable.flush();
    }
    L.work[index_].open = false;
    L.open_work.erase(index_);
    if (!L.work[index_].transition_id.empty()) L.working_by_action.erase(L.work[index_].action, index_);
  }
  core_.reset();
}

}  // namespace groundplane
