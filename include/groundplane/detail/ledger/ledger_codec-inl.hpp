// The bodies of detail/ledger/ledger_codec.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/ledger/ledger_codec.hpp"

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

namespace groundplane::detail::rows {

// A member's key as a body's key (every key is a literal, so its view ends in a NUL).
inline const char* key_of(const Member& m) noexcept { return m.key.data(); }

GROUNDPLANE_INLINE void put_does(nlohmann::json& body, const CarriedDoes& does) {
  if (does) body[key_of(does_member)] = *does ? nlohmann::json(**does) : nlohmann::json(nullptr);
}

GROUNDPLANE_INLINE CarriedDoes take_does(RowBody& b) {
  if (!b.has(does_member.key)) return std::nullopt;
  if (b.is_null(does_member.key)) return std::optional<std::string>();
  return std::optional<std::string>(b.take_text(does_member.key));
}

template <class E>
E take_enum(const RowBody& b, const Member& m, E fallback) {
  if (!b.has(m.key)) return fallback;
  const std::int64_t stored = b.integer(m.key);
  if (const auto e = from_stored<E>(stored)) return *e;
  throw MalformedRow("member \"" + std::string(m.key) + "\" holds " + std::to_string(stored) +
                     ", which is no value this release stores there");
}

template <class E>
E require_enum(RowBody& b, const Member& m) {
  b.require(m.key);
  return take_enum(b, m, E{});
}

// A flag stored as the integer 1 and left out when false.
inline void put_flag(nlohmann::json& body, const Member& m, bool on) {
  if (on) body[key_of(m)] = 1;
}
inline bool take_flag(const RowBody& b, const Member& m) { return b.integer(m.key) != 0; }

inline nlohmann::json empty_body() { return nlohmann::json(nlohmann::json::value_t::object); }

GROUNDPLANE_INLINE nlohmann::json Policy::encode() const {
  nlohmann::json b = empty_body();
  b[key_of(approval_m)] = require_human_approval;
  b[key_of(unmaterialized_m)] = allow_unmaterialized_fires;
  b[key_of(ttl_m)] = approval_ttl_ms;
  return b;
}

// A member of a stored object read as a type; MalformedRow naming it otherwise.
template <class T>
T stored_member(const nlohmann::json& object, const Member& m, const char* what) {
  const auto it = object.find(m.key);
  if (it == object.end()) throw MalformedRow("its member \"" + std::string(m.key) + "\" is missing");
  const bool fits = std::is_same_v<T, bool> ? it->is_boolean() : it->is_number_integer();
  if (!fits) throw MalformedRow("its member \"" + std::string(m.key) + "\" is not " + what);
  return it->get<T>();
}

GROUNDPLANE_INLINE Policy Policy::decode(const nlohmann::json& stored) {
  if (!stored.is_object()) throw MalformedRow("the policy is not an object");
  Policy p;
  p.require_human_approval = stored_member<bool>(stored, approval_m, "true or false");
  p.allow_unmaterialized_fires = stored_member<bool>(stored, unmaterialized_m, "true or false");
  p.approval_ttl_ms = stored_member<std::int64_t>(stored, ttl_m, "an integer");
  if (p.approval_ttl_ms < 0) throw MalformedRow("the policy's approval_ttl is negative");
  return p;
}

GROUNDPLANE_INLINE nlohmann::json ActionRule::encode() const {
  nlohmann::json b = empty_body();
  b[key_of(high_effect_m)] = high_effect;
  b[key_of(concurrency_m)] = stored_of(concurrency);
  return b;
}
GROUNDPLANE_INLINE ActionRule ActionRule::decode(const nlohmann::json& stored) {
  if (!stored.is_object()) throw MalformedRow("an action's rule is not an object");
  ActionRule r;
  r.high_effect = stored_member<bool>(stored, high_effect_m, "true or false");
  const auto cc = stored_member<std::int64_t>(stored, concurrency_m, "an integer");
  const auto c = from_stored<Concurrency>(cc);
  if (!c)
    throw MalformedRow("an action's concurrency holds " + std::to_string(cc) +
                       ", which is no value this release stores there");
  r.concurrency = *c;
  return r;
}

// An object of action rules by action id, as a policy row holds them.
GROUNDPLANE_INLINE nlohmann::json encode_rules(const ActionRules& rules) {
  nlohmann::json b = empty_body();
  for (const auto& [id, rule] : rules) b[id] = rule.encode();
  return b;
}
GROUNDPLANE_INLINE ActionRules decode_rules(const nlohmann::json& stored) {
  if (!stored.is_object()) throw MalformedRow("the action rules are not an object");
  ActionRules out;
  for (const auto& [id, rule] : stored.items()) out.emplace(id, ActionRule::decode(rule));
  return out;
}

GROUNDPLANE_INLINE nlohmann::json Start::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(node_m)] = std::move(node);
  b[key_of(state_m)] = std::move(state);
  if (policy) b[key_of(policy_member)] = policy->encode();
  return b;
}
GROUNDPLANE_INLINE Start Start::decode(RowBody& b) {
  Start s{b.take_text(node_m.key), b.take_tree(state_m.key, nlohmann::json::object()), std::nullopt};
  if (b.has(policy_member.key)) s.policy = Policy::decode(b.take(policy_member.key));
  return s;
}

GROUNDPLANE_INLINE nlohmann::json PolicyChange::encode() && {
  nlohmann::json b = empty_body();
  if (policy) b[key_of(policy_member)] = policy->encode();
  if (!actions.empty()) b[key_of(actions_m)] = encode_rules(actions);
  if (was_policy || !was_actions.empty()) {
    nlohmann::json was = empty_body();
    if (was_policy) was[key_of(policy_member)] = was_policy->encode();
    if (!was_actions.empty()) was[key_of(actions_m)] = encode_rules(was_actions);
    b[key_of(was_m)] = std::move(was);
  }
  if (!reason.empty()) b[key_of(why_m)] = std::move(reason);
  return b;
}
GROUNDPLANE_INLINE PolicyChange PolicyChange::decode(RowBody& b) {
  PolicyChange p;
  if (b.has(policy_member.key)) p.policy = Policy::decode(b.take(policy_member.key));
  if (b.has(actions_m.key)) p.actions = decode_rules(b.take(actions_m.key));
  if (b.has(was_m.key)) {
    const nlohmann::json was = b.take_tree(was_m.key, nlohmann::json::object());
    if (!was.is_object()) throw MalformedRow("member \"" + std::string(was_m.key) + "\" is not an object");
    if (const auto it = was.find(policy_member.key); it != was.end()) p.was_policy = Policy::decode(*it);
    if (const auto it = was.find(actions_m.key); it != was.end()) p.was_actions = decode_rules(*it);
  }
  p.reason = b.take_text(why_m.key);
  if (!p.policy && p.actions.empty()) throw MalformedRow("it sets neither the session's policy nor an action's rule");
  return p;
}

GROUNDPLANE_INLINE nlohmann::json Move::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(node_m)] = std::move(node);
  b[key_of(focus_m)] = std::move(focus);
  return b;
}
GROUNDPLANE_INLINE Move Move::decode(RowBody& b) { return {b.take_text(node_m.key), b.take_text(focus_m.key)}; }

GROUNDPLANE_INLINE nlohmann::json StaleFlag::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(on_m)] = on;  // true or false, not 1 or 0
  return b;
}
GROUNDPLANE_INLINE StaleFlag StaleFlag::decode(RowBody& b) { return {b.flag(on_m.key, false)}; }

GROUNDPLANE_INLINE nlohmann::json Report::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(delta_m)] = std::move(delta);
  if (!agents_own.empty()) b[key_of(own_m)] = std::move(agents_own);
  return b;
}
// An array-of-strings member (default empty); `each` names what one string is, for the
// message when one is not a string.
GROUNDPLANE_INLINE std::vector<std::string> take_strings(RowBody& b, const Member& m, std::string_view each) {
  nlohmann::json items = b.take_tree(m.key, nlohmann::json::array());
  if (!items.is_array()) throw MalformedRow("member \"" + std::string(m.key) + "\" is not an array");
  std::vector<std::string> out;
  for (auto& item : items) {
    if (!item.is_string())
      throw MalformedRow("member \"" + std::string(m.key) + "\" holds something other than " + std::string(each));
    out.push_back(std::move(item.get_ref<std::string&>()));
  }
  return out;
}

GROUNDPLANE_INLINE Report Report::decode(RowBody& b) {
  Report r;
  r.delta = b.require(delta_m.key).take(delta_m.key);
  if (!r.delta.is_object()) throw MalformedRow("member \"" + std::string(delta_m.key) + "\" is not an object");
  r.agents_own = take_strings(b, own_m, "a JSON Pointer");
  return r;
}

GROUNDPLANE_INLINE nlohmann::json StaleSeen::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(action_m)] = std::move(action);
  return b;
}
GROUNDPLANE_INLINE StaleSeen StaleSeen::decode(RowBody& b) { return {b.require(action_m.key).take_text(action_m.key)}; }

GROUNDPLANE_INLINE void Attempt::encode_into(nlohmann::json& b) && {
  b[key_of(action_m)] = std::move(action);
  put_does(b, does);
  if (principal != Principal::agent) b[key_of(principal_m)] = stored_of(principal);
  if (!payload.is_null()) b[key_of(payload_m)] = std::move(payload);
  if (!ask_id.empty()) b[key_of(ask_m)] = std::move(ask_id);
  if (!instance.empty()) b[key_of(instance_m)] = std::move(instance);
  if (!request_key.empty()) b[key_of(request_key_m)] = std::move(request_key);
}
GROUNDPLANE_INLINE Attempt Attempt::decode(RowBody& b) {
  Attempt a;
  a.action = b.take_text(action_m.key);
  a.does = take_does(b);
  a.principal = take_enum(b, principal_m, Principal::agent);
  a.payload = b.take(payload_m.key);
  a.ask_id = b.take_text(ask_m.key);
  a.instance = b.take_text(instance_m.key);
  a.request_key = b.take_text(request_key_m.key);
  return a;
}

GROUNDPLANE_INLINE nlohmann::json Refused::encode() && {
  nlohmann::json b = empty_body();
  std::move(fire).encode_into(b);
  b[key_of(reason_m)] = stored_of(reason);
  if (!prior_transition_id.empty()) b[key_of(prior_m)] = std::move(prior_transition_id);
  if (!failed_checks.empty()) b[key_of(failed_checks_m)] = std::move(failed_checks);
  if (payload_omitted != 0) b[key_of(payload_omitted_m)] = payload_omitted;
  return b;
}
GROUNDPLANE_INLINE Refused Refused::decode(RowBody& b) {
  Refused r;
  r.reason = require_enum<Refusal>(b, reason_m);
  r.fire = Attempt::decode(b);
  r.prior_transition_id = b.take_text(prior_m.key);
  r.failed_checks = take_strings(b, failed_checks_m, "a check's name");
  if (b.has(payload_omitted_m.key)) r.payload_omitted = b.count(payload_omitted_m.key);
  return r;
}

GROUNDPLANE_INLINE nlohmann::json Recorded::encode() && {
  nlohmann::json b = empty_body();
  std::move(fire).encode_into(b);
  put_flag(b, standing_m, standing_grant);
  put_flag(b, repeat_m, repeat);
  if (outcome != Outcome::pending) b[key_of(outcome_m)] = stored_of(outcome);
  put_flag(b, awaits_m, awaits_report);
  if (!idempotency_key.empty()) b[key_of(key_m)] = std::move(idempotency_key);
  return b;
}
GROUNDPLANE_INLINE Recorded Recorded::decode(RowBody& b) {
  Recorded r;
  r.fire = Attempt::decode(b);
  r.standing_grant = take_flag(b, standing_m);
  r.repeat = take_flag(b, repeat_m);
  r.outcome = take_enum(b, outcome_m, Outcome::pending);
  r.awaits_report = take_flag(b, awaits_m);
  r.idempotency_key = b.take_text(key_m.key);
  if (!IdempotencyKey::parse(r.idempotency_key))
    throw MalformedRow("member \"" + std::string(key_m.key) + "\" is not an idempotency key this release writes");
  return r;
}

GROUNDPLANE_INLINE nlohmann::json Grade::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(transition_m)] = transition;
  b[key_of(outcome_m)] = stored_of(outcome);
  if (error) b[key_of(error_m)] = std::move(*error);
  put_flag(b, receipt_m, receipt);
  if (!data.is_null()) b[key_of(data_m)] = std::move(data);
  if (data_omitted != 0) b[key_of(data_omitted_m)] = data_omitted;
  return b;
}
GROUNDPLANE_INLINE Grade Grade::decode(RowBody& b) {
  Grade g;
  g.transition = b.count(transition_m.key);
  g.outcome = require_enum<Outcome>(b, outcome_m);
  if (b.has(error_m.key)) g.error = b.take_text(error_m.key);
  g.receipt = take_flag(b, receipt_m);
  if (b.has(data_m.key)) g.data = b.take(data_m.key);
  if (b.has(data_omitted_m.key)) g.data_omitted = b.count(data_omitted_m.key);
  return g;
}

GROUNDPLANE_INLINE nlohmann::json AskMinted::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(action_m)] = std::move(action);
  put_does(b, does);
  b[key_of(input_m)] = std::move(input);
  if (!instance.empty()) b[key_of(instance_m)] = std::move(instance);
  return b;
}
GROUNDPLANE_INLINE AskMinted AskMinted::decode(RowBody& b) {
  AskMinted q;
  q.action = b.take_text(action_m.key);
  q.does = take_does(b);
  q.input = b.take(input_m.key);
  q.instance = b.take_text(instance_m.key);
  return q;
}

GROUNDPLANE_INLINE nlohmann::json Decision::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(ask_m)] = ask;
  b[key_of(state_m)] = stored_of(state);
  if (by) b[key_of(by_m)] = std::move(*by);
  if (approved_at) b[key_of(at_m)] = *approved_at;
  if (reads) b[key_of(reads_m)] = std::move(*reads);
  if (revoked_by) b[key_of(revoked_by_m)] = std::move(*revoked_by);
  if (spent_by) b[key_of(spent_by_m)] = std::move(*spent_by);
  return b;
}
GROUNDPLANE_INLINE Decision Decision::decode(RowBody& b) {
  Decision d;
  d.ask = b.count(ask_m.key);
  d.state = require_enum<AskState>(b, state_m);
  if (b.has(by_m.key)) d.by = b.take_text(by_m.key);
  if (b.has(at_m.key)) d.approved_at = b.integer(at_m.key);
  if (b.has(reads_m.key)) d.reads = b.take_tree(reads_m.key, nlohmann::json::object());
  if (b.has(revoked_by_m.key)) d.revoked_by = b.take_text(revoked_by_m.key);
  if (b.has(spent_by_m.key)) d.spent_by = b.take_text(spent_by_m.key);
  return d;
}

GROUNDPLANE_INLINE nlohmann::json Standing::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(action_m)] = std::move(action);
  b[key_of(on_m)] = active ? 1 : 0;
  b[key_of(by_m)] = std::move(by);
  put_does(b, does);
  return b;
}
GROUNDPLANE_INLINE Standing Standing::decode(RowBody& b) {
  Standing g;
  g.action = b.take_text(action_m.key);
  g.active = b.integer(on_m.key) != 0;
  g.by = b.take_text(by_m.key);
  g.does = take_does(b);
  return g;
}

GROUNDPLANE_INLINE nlohmann::json WorkOpened::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(label_m)] = std::move(label);
  if (!transition_id.empty()) b[key_of(transition_m)] = std::move(transition_id);
  return b;
}
GROUNDPLANE_INLINE WorkOpened WorkOpened::decode(RowBody& b) {
  return {b.take_text(label_m.key), b.take_text(transition_m.key)};
}

GROUNDPLANE_INLINE nlohmann::json WorkClosed::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(work_m)] = work;
  return b;
}
GROUNDPLANE_INLINE WorkClosed WorkClosed::decode(RowBody& b) { return {b.count(work_m.key)}; }

GROUNDPLANE_INLINE nlohmann::json Restart::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(fires_m)] = std::move(fires);
  b[key_of(work_m)] = std::move(work);
  return b;
}
GROUNDPLANE_INLINE Restart Restart::decode(RowBody& b) {
  const auto indices = [&](const Member& m) {
    std::vector<std::uint64_t> out;
    const nlohmann::json list = b.take_tree(m.key, nlohmann::json::array());
    if (!list.is_array()) throw MalformedRow("member \"" + std::string(m.key) + "\" is not an array");
    for (const auto& k : list) {
      if (!k.is_number_unsigned() && !(k.is_number_integer() && k.get<std::int64_t>() >= 0))
        throw MalformedRow("member \"" + std::string(m.key) + "\" holds something other than an index");
      out.push_back(k.get<std::uint64_t>());
    }
    return out;
  };
  Restart r;
  r.fires = indices(fires_m);
  r.work = indices(work_m);
  return r;
}

GROUNDPLANE_INLINE nlohmann::json Resolution::encode() && {
  nlohmann::json b = empty_body();
  b[key_of(transition_m)] = transition;
  b[key_of(happened_m)] = happened ? 1 : 0;
  if (by) b[key_of(by_m)] = std::move(*by);
  return b;
}
GROUNDPLANE_INLINE Resolution Resolution::decode(RowBody& b) {
  Resolution r;
  r.transition = b.require(transition_m.key).count(transition_m.key);
  r.happened = b.require(happened_m.key).integer(happened_m.key) != 0;
  if (b.has(by_m.key)) r.by = b.take_text(by_m.key);
  return r;
}

// An enum member's stored number as the enum's name; anything else as it is.
template <class E>
nlohmann::ordered_json enum_named(const nlohmann::ordered_json& v) {
  if (v.is_number_integer())
    if (const auto e = from_stored<E>(v.get<std::int64_t>())) return std::string(name_of(*e));
  return v;
}

// Action rules as a person reads them: each concurrency number as its name.
GROUNDPLANE_INLINE nlohmann::ordered_json rules_named(const nlohmann::ordered_json& rules) {
  if (!rules.is_object()) return rules;
  nlohmann::ordered_json out = rules;
  for (auto& rule : out)
    if (rule.is_object())
      if (const auto cc = rule.find(ActionRule::concurrency_m.key); cc != rule.end())
        *cc = enum_named<Concurrency>(*cc);
  return out;
}

// The value of member `m` of a body of `kind`, with an enum named.
GROUNDPLANE_INLINE nlohmann::ordered_json named_value(std::string_view kind, const Member& m,
                                                      const nlohmann::ordered_json& v) {
  const auto is = [&](std::string_view k, const Member& enum_member) { return kind == k && m.key == enum_member.key; };
  if (is(Refused::kind, Attempt::principal_m) || is(Recorded::kind, Attempt::principal_m))
    return enum_named<Principal>(v);
  if (is(Refused::kind, Refused::reason_m)) return enum_named<Refusal>(v);
  if (is(Recorded::kind, Recorded::outcome_m) || is(Grade::kind, Grade::outcome_m)) return enum_named<Outcome>(v);
  if (is(Decision::kind, Decision::state_m)) return enum_named<AskState>(v);
  if (is(PolicyChange::kind, PolicyChange::actions_m)) return rules_named(v);
  if (is(PolicyChange::kind, PolicyChange::was_m) && v.is_object()) {
    nlohmann::ordered_json out = v;
    if (const auto it = out.find(PolicyChange::actions_m.key); it != out.end()) *it = rules_named(*it);
    return out;
  }
  return v;
}

GROUNDPLANE_INLINE nlohmann::ordered_json named_body(std::string_view kind, std::string_view body) {
  // A body past the format's limits is not read: copying a tree nested a million deep
  // would recurse a million deep.
  if (body.size() > ledger_max_body_bytes || body_nesting(body, ledger_max_nesting) > ledger_max_nesting)
    return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
  nlohmann::ordered_json stored = nlohmann::ordered_json::parse(body, nullptr, false);
  const KindInfo* info = find_kind(kind);
  if (stored.is_discarded() || !stored.is_object())
    return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
  if (info == nullptr) return stored;
  nlohmann::ordered_json out(nlohmann::ordered_json::value_t::object);
  for (const Member& m : info->members)
    if (const auto it = stored.find(m.key); it != stored.end()) out[std::string(m.name)] = named_value(kind, m, *it);
  for (const auto& item : stored.items()) {
    const std::string& key = item.key();
    const bool known =
        std::any_of(info->members.begin(), info->members.end(), [&](const Member& m) { return m.key == key; });
    if (!known) out[key] = item.value();
  }
  return out;
}

}  // namespace groundplane::detail::rows
