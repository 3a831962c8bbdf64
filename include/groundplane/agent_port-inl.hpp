// The bodies of agent_port.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/agent_port.hpp"

#include "groundplane/detail/session/request_keys.hpp"

namespace groundplane {

GROUNDPLANE_INLINE const nlohmann::json& AgentPort::tools() {
  static const nlohmann::json defs = build_tools();
  return defs;
}

GROUNDPLANE_INLINE AgentPort::Result AgentPort::call(std::string_view name, const nlohmann::json& args) {
  if (name == "whats_here") {
    // It took no input before since_version: anything but an object is read as no input.
    const auto since = args.is_object() ? args.find("since_version") : args.end();
    if (!args.is_object() || since == args.end() || since->is_null()) return whats_here();
    if (since->is_number_integer() && (since->is_number_unsigned() || since->get<std::int64_t>() >= 0))
      return whats_here(since->get<std::uint64_t>());
    return answer("INVALID_ARGUMENTS",
                  "since_version must be a non-negative integer: the version your last whats_here returned.");
  }
  if (name == "do_action") return do_action(args);
  if (name == "did_it_work") return did_it_work(args);
  return answer("UNKNOWN_TOOL",
                "This app serves three tools: whats_here, do_action and did_it_work. A person's approval is given "
                "in the app itself, never through a tool.");
}

GROUNDPLANE_INLINE AgentPort::Result AgentPort::whats_here(std::optional<std::uint64_t> since_version) {
  const GroundTruth gt =
      session_->ground_truth({.since_version = since_version, .max_attempts = options_.max_attempts});
  // Staleness is judged from the cursor, or without one over the whole session: an agent
  // that passes no cursor is still told what changed under an action.
  const auto details = detail::offer_details(*session_, since_version.value_or(0), max_instances_served);
  nlohmann::json actions = nlohmann::json::array();
  for (const auto& a : session_->actions()) {
    nlohmann::json item{{"id", a.id}, {"does", a.does}};
    if (!a.enabled) item["enabled"] = false;
    if (a.already_performed) item["already_performed"] = true;
    if (!a.expects.is_null()) item["expects"] = a.expects;
    if (a.human_decides) item["human_decides"] = true;
    if (const auto d = details.find(a.id); d != details.end()) put_details(item, d->second);
    actions.push_back(std::move(item));
  }
  nlohmann::json out;
  out["facts"] = gt.text;
  out["node"] = gt.node;
  out["version"] = gt.version;
  out["actions"] = std::move(actions);
  // Fires a restart left in doubt: not pending (nothing will report on them), not settled.
  if (const auto doubt = session_->in_doubt_fires(); !doubt.empty()) {
    nlohmann::json listed = nlohmann::json::array();
    for (std::size_t i = 0; i < doubt.size() && i < max_in_doubt_served; ++i) {
      nlohmann::json item{{"transition_id", doubt[i].transition_id},
                          {"action", doubt[i].action},
                          {"idempotency_key", doubt[i].idempotency_key}};
      if (!doubt[i].instance.empty()) item["instance"] = doubt[i].instance;
      listed.push_back(std::move(item));
    }
    out["in_doubt"] = std::move(listed);
    if (doubt.size() > max_in_doubt_served) out["in_doubt_total"] = doubt.size();
  }
  return Result(std::move(out));
}

// Reads the arguments, answers a retry with its first fire, refuses an action not on
// offer, then fires and answers with what the fire came to.
GROUNDPLANE_INLINE AgentPort::Result AgentPort::do_action(const nlohmann::json& args) {
  static constexpr std::string_view shape =
      "do_action takes an object {\"action\": string, \"input\"?: any JSON, \"ask_id\"?: string, \"instance\"?: "
      "string, \"request_key\"?: string}";
  if (auto invalid = invalid_arguments(args, "action", shape)) return std::move(*invalid);
  const std::string& id = args.find("action")->get_ref<const std::string&>();
  // A request key the app could not honour would let a retry run twice: refused whole.
  const std::optional<std::string> request_key = request_key_of(args);
  if (!request_key)
    return answer("INVALID_ARGUMENTS", std::string(shape) + "; \"request_key\" must be a string of at most " +
                                           std::to_string(max_request_key_length) + " characters. Nothing was fired.");
  const std::string instance = instance_of(args);
  // A retry of a recorded request is answered with that fire, whatever is on offer now.
  if (!request_key->empty())
    if (const auto replay = detail::replay_bound(
            *session_, id,
            {.source = Principal::agent, .payload = input_of(args), .instance = instance, .request_key = *request_key}))
      return replay_answer(*replay);
  if (auto not_on_offer = refused_as_not_on_offer(id)) return std::move(*not_on_offer);

  // Nothing beyond the schema stops the attempt: what is not an argument is ignored and named.
  std::string notes = ignored_keys_note(args);
  std::string ask_id_arg = ask_id_of(args, notes);
  notes += instance_note(args);
  const FireResult r = session_->fire(id, {.source = Principal::agent,
                                           .payload = input_of(args),
                                           .ask_id = std::move(ask_id_arg),
                                           .instance = instance,
                                           .request_key = *request_key});
  if (r.replayed) return replay_answer(r);  // its first call finished while this one waited
  FireAnswerNotes said{.needs_a_person = r.reason == to_string(Refusal::approval_required) ||
                                         r.reason == to_string(Refusal::approval_stale),
                       .notes = std::move(notes)};
  if (said.needs_a_person) said.ask_id = ask_a_person(id, args, instance);
  return fire_answer(id, r, said);
}

// The input, copied without recursion each time it is handed on: it may be nested far past
// what the session takes (it refuses that, and keeps only its size).
GROUNDPLANE_INLINE nlohmann::json AgentPort::input_of(const nlohmann::json& args) {
  const auto in = args.find("input");
  return in == args.end() ? nlohmann::json() : detail::copy_json<nlohmann::json>(*in);
}

// "" for no request key; nothing for one that is not a string the session takes.
GROUNDPLANE_INLINE std::optional<std::string> AgentPort::request_key_of(const nlohmann::json& args) {
  const auto rk = args.find("request_key");
  if (rk == args.end() || rk->is_null()) return std::string();
  if (!rk->is_string()) return std::nullopt;
  std::string request_key = rk->get<std::string>();
  try {
    detail::check_request_key(request_key);
  } catch (const ConfigurationError&) {
    return std::nullopt;
  }
  return request_key;
}

// An item is a string of at most max_id_bytes; anything else names no item (instance_note says so).
GROUNDPLANE_INLINE std::string AgentPort::instance_of(const nlohmann::json& args) {
  if (const auto item = args.find("instance");
      item != args.end() && item->is_string() && item->get_ref<const std::string&>().size() <= max_id_bytes)
    return item->get<std::string>();
  return {};
}

GROUNDPLANE_INLINE std::optional<AgentPort::Result> AgentPort::refused_as_not_on_offer(const std::string& id) const {
  switch (session_->availability(id)) {
    case Availability::unknown:
      return answer("UNKNOWN_ACTION",
                    "No action by that name was declared in this app this session; nothing was fired. Call "
                    "whats_here for what is on offer.");
    case Availability::not_mounted:
      return answer("NOT_HERE", detail::escape(id) +
                                    " was declared earlier in this session and is not on offer here now, so "
                                    "nothing was fired. Call whats_here for what is on offer.");
    case Availability::disabled:  // served: it lands as TOOL_DISABLED
    case Availability::available:
      break;
  }
  return std::nullopt;
}

// The keys do_action does not take, named (none: "").
GROUNDPLANE_INLINE std::string AgentPort::ignored_keys_note(const nlohmann::json& args) {
  std::string note;
  for (const auto& [key, value] : args.items()) {
    (void)value;
    if (key == "action" || key == "input" || key == "ask_id" || key == "instance" || key == "request_key") continue;
    note += note.empty() ? " Ignored, not arguments of do_action: " : ", ";
    note += detail::quote(key);
  }
  if (!note.empty())
    note += ". An approval is only an ask_id a person answered in the app; no argument stands in for one.";
  return note;
}

// The ask_id the fire presents ("" for none). One that names no ask (minted ids are short
// strings "ask-N") is kept as what it was, and `notes` says why it named no approval.
GROUNDPLANE_INLINE std::string AgentPort::ask_id_of(const nlohmann::json& args, std::string& notes) {
  const auto ask = args.find("ask_id");
  if (ask == args.end() || ask->is_null()) return {};
  if (ask->is_string() && ask->get_ref<const std::string&>().size() <= max_id_bytes) return ask->get<std::string>();
  if (!ask->is_string()) {
    notes += " \"ask_id\" was not a string, so it named no approval.";
    return "(an ask_id that was not a string: " + std::string(ask->type_name()) + ")";
  }
  notes += " \"ask_id\" was longer than " + std::to_string(max_id_bytes) + " bytes, so it named no approval.";
  return "(an ask_id of " + std::to_string(ask->get_ref<const std::string&>().size()) + " bytes)";
}

// An item is a string. Anything else names no item (57 spelled would be the item "57",
// an order the model did not name as one): the attempt still lands, naming none.
GROUNDPLANE_INLINE std::string AgentPort::instance_note(const nlohmann::json& args) {
  const auto item = args.find("instance");
  if (item == args.end() || item->is_null()) return {};
  if (!item->is_string()) return " \"instance\" was not a string, so it named no item.";
  if (item->get_ref<const std::string&>().size() > max_id_bytes)
    return " \"instance\" was longer than " + std::to_string(max_id_bytes) + " bytes, so it named no item.";
  return {};
}

// The ask a person answers for a fire refused for want of approval: an open ask for this
// input is found whatever the budget has left. "" when none could be had.
GROUNDPLANE_INLINE std::string AgentPort::ask_a_person(const std::string& id, const nlohmann::json& args,
                                                       const std::string& instance) {
  try {
    if (auto ask = detail::confirm_ask_within_budget(*session_, id, input_of(args), instance))
      return std::move(ask->id);
  } catch (const ConfigurationError&) {  // unmounted in between: nothing to ask about
  }
  return {};
}

GROUNDPLANE_INLINE AgentPort::Result AgentPort::fire_answer(const std::string& id, const FireResult& r,
                                                            const FireAnswerNotes& said) const {
  nlohmann::json out;
  out["facts"] = facts_text();
  out["ok"] = r.ok;
  if (!r.ok) out["reason"] = r.reason;
  std::string message = r.ok ? std::string() : std::string(refusal_message(r.reason));
  if (said.needs_a_person && said.ask_id.empty())  // the message above says a person was asked
    message =
        "A person must approve this first; nothing ran. Nobody was asked: the app keeps only so much of what "
        "refused fires and asks carry in one session, and this input does not fit (payload_omitted says its size "
        "when even the refusal could not keep it). Call do_action again with a smaller input to have a person asked.";
  if (!said.notes.empty()) message += message.empty() ? said.notes.substr(1) : said.notes;
  if (!message.empty()) out["message"] = std::move(message);
  if (!r.transition_id.empty()) out["transition_id"] = r.transition_id;
  if (!r.prior_transition_id.empty()) out["prior_transition_id"] = r.prior_transition_id;
  if (!said.ask_id.empty()) out["ask_id"] = said.ask_id;
  if (r.payload_omitted != 0) out["payload_omitted"] = {{"bytes", r.payload_omitted}};
  if (r.ok) put_settled_data(out, r);
  put_refusal_details(out, id, r);
  return Result(std::move(out));
}

// The data when the fire settled within the call; else where to ask how it went.
GROUNDPLANE_INLINE void AgentPort::put_settled_data(nlohmann::json& out, const FireResult& r) const {
  const nlohmann::json settled = session_->outcome(r.transition_id);
  if (settled.value("settled", false)) {
    if (const auto d = settled.find("data"); d != settled.end()) out["data"] = *d;
    if (const auto d = settled.find("data_omitted"); d != settled.end()) out["data_omitted"] = *d;
  } else if (settled.value("ok", false)) {
    out["settle_with"] = {{"tool", "did_it_work"}, {"transition_id", r.transition_id}};
  }
}

// What a refusal's reason needs said to be put right: the issues, the items on offer, the input expected.
GROUNDPLANE_INLINE void AgentPort::put_refusal_details(nlohmann::json& out, const std::string& id,
                                                       const FireResult& r) const {
  if (r.reason == to_string(Refusal::unsupported_argument)) out["issues"] = r.issues;
  if (r.reason == to_string(Refusal::instance_required) || r.reason == to_string(Refusal::instance_unknown)) {
    if (!r.verdict.empty()) out["verdict"] = r.verdict;
    const auto details = detail::offer_details(*session_, std::nullopt, max_instances_served, id);
    if (const auto d = details.find(id); d != details.end()) put_details(out, d->second);
  }
  if (r.reason == to_string(Refusal::payload_invalid)) {
    out["issues"] = r.issues;
    for (const auto& a : session_->actions())
      if (a.id == id) out["expects"] = a.expects;
  }
}

GROUNDPLANE_INLINE AgentPort::Result AgentPort::did_it_work(const nlohmann::json& args) {
  static constexpr std::string_view shape =
      "did_it_work takes an object {\"transition_id\": string} (an ask_id is accepted too)";
  if (auto invalid = invalid_arguments(args, "transition_id", shape)) return std::move(*invalid);
  nlohmann::json out = session_->outcome(args.find("transition_id")->get_ref<const std::string&>());
  out["facts"] = facts_text();
  return Result(std::move(out));
}

GROUNDPLANE_INLINE AgentPort::Result AgentPort::replay_answer(const FireResult& r) const {
  nlohmann::json out = session_->outcome(r.transition_id);
  std::string message =
      "This request_key was used before for this same request, so nothing ran again: this is the fire that request "
      "made, as it stands now.";
  if (const auto m = out.find("message"); m != out.end() && m->is_string()) message += " " + m->get<std::string>();
  if (!out.value("ok", false)) out.erase("reason");  // the fire is no longer held: its first result stands
  out["ok"] = r.ok;
  if (!r.ok) out["reason"] = r.reason;
  out["message"] = std::move(message);
  out["transition_id"] = r.transition_id;
  out["replayed"] = true;
  if (out.contains("settled") && !out.value("settled", true))
    out["settle_with"] = {{"tool", "did_it_work"}, {"transition_id", r.transition_id}};
  out["facts"] = facts_text();
  return Result(std::move(out));
}

GROUNDPLANE_INLINE std::optional<AgentPort::Result> AgentPort::invalid_arguments(const nlohmann::json& args,
                                                                                 std::string_view key,
                                                                                 std::string_view shape) const {
  if (!args.is_object()) return answer("INVALID_ARGUMENTS", std::string(shape) + "; the arguments were not an object.");
  const auto named = args.find(key);
  if (named == args.end() || !named->is_string() || named->get_ref<const std::string&>().empty())
    return answer("INVALID_ARGUMENTS",
                  std::string(shape) + "; \"" + std::string(key) + "\" must be a non-empty string.");
  return std::nullopt;
}

GROUNDPLANE_INLINE AgentPort::Result AgentPort::answer(std::string_view reason, std::string message) const {
  nlohmann::json out;
  out["facts"] = facts_text();
  out["ok"] = false;
  out["reason"] = std::string(reason);
  out["message"] = std::move(message);
  return Result(std::move(out));
}

GROUNDPLANE_INLINE const nlohmann::json& AgentPort::Result::operator[](std::string_view key) const {
  static const nlohmann::json absent;
  const auto it = object_.find(key);
  return it == object_.end() ? absent : *it;
}

// nlohmann writes an object's members in key order, so the members are written one at a
// time: `facts` first, then the rest. Nested values are nlohmann's own text, indented one
// level deeper: a newline in dump()'s output is always layout (one inside a string is
// written \n), so indenting after each newline is exact.
GROUNDPLANE_INLINE std::string AgentPort::Result::dump(int indent, char indent_char, bool ensure_ascii,
                                                       nlohmann::json::error_handler_t error_handler) const {
  if (!object_.is_object() || object_.empty()) return object_.dump(indent, indent_char, ensure_ascii, error_handler);
  const bool pretty = indent >= 0;
  const std::string newline = pretty ? "\n" + std::string(static_cast<std::size_t>(indent), indent_char) : "";
  std::string out = "{";
  const auto member = [&](const std::string& key, const nlohmann::json& value) {
    if (out.size() > 1) out += ',';
    out += newline;
    out += nlohmann::json(key).dump(-1, ' ', ensure_ascii, error_handler);
    out += pretty ? ": " : ":";
    const std::string text = value.dump(indent, indent_char, ensure_ascii, error_handler);
    if (!pretty) {
      out += text;
      return;
    }
    for (const char c : text) {
      if (c == '\n') out += newline;
      else out += c;
    }
  };
  const auto facts = object_.find("facts");
  if (facts != object_.end()) member("facts", *facts);
  for (auto it = object_.begin(); it != object_.end(); ++it)
    if (it != facts) member(it.key(), it.value());
  out += pretty ? "\n}" : "}";
  return out;
}

GROUNDPLANE_INLINE void AgentPort::put_details(nlohmann::json& out, const detail::OfferDetails& d) {
  // Presence-only: a stale array is never empty.
  if (!d.stale_reads.empty()) out["stale_reads"] = d.stale_reads;
  if (!d.stale_writes.empty()) out["stale_writes"] = d.stale_writes;
  if (!d.has_instances) return;
  out["instances"] = d.instances;
  if (d.instances_unavailable) out["instances_unavailable"] = true;
  else out["instances_total"] = d.instances_total;
}

GROUNDPLANE_INLINE std::string_view AgentPort::refusal_message(std::string_view reason) {
  if (reason == "UNKNOWN_AFFORDANCE") return "No action by that name is declared now; nothing ran.";
  if (reason == "NOT_MATERIALIZED") return "Nothing in this app is wired to perform it; nothing ran.";
  if (reason == "TOOL_DISABLED") return "It is disabled right now: its conditions are unmet; nothing ran.";
  if (reason == "GUARD_FAILED") return "Its guard did not hold in the app's current state; nothing ran.";
  if (reason == "INSTANCE_REQUIRED")
    return "This action acts on one item: name it in instance (instances lists the ones on offer); nothing ran.";
  if (reason == "INSTANCE_UNKNOWN")
    return "That is not an item this action can act on now (instances lists the ones on offer, when the app could "
           "list them; verdict says which); nothing ran.";
  if (reason == "UNSUPPORTED_ARGUMENT")
    return "The app's recorded facts do not support this input (issues says which values, and what the facts "
           "hold); nothing ran. Use values a tool returned, and call do_action again.";
  if (reason == "PAYLOAD_INVALID")
    return "The input is not what this action takes (issues says what is wrong, expects what it takes); "
           "nothing ran. Call do_action again with an input that fits.";
  if (reason == "APPROVAL_REQUIRED")
    return "A person must approve this first; nothing ran. The app has asked them (ask_id); once they "
           "approve, call do_action again with that ask_id and the same input.";
  if (reason == "APPROVAL_DECLINED") return "A person declined that ask; it cannot be used. Nothing ran.";
  if (reason == "APPROVAL_SPENT") return "That approval was already used: one approval allows one fire. Nothing ran.";
  if (reason == "APPROVAL_MISMATCH")
    return "That approval was given for a different action or a different input; nothing ran.";
  if (reason == "APPROVAL_REVOKED") return "The person withdrew that approval before it was used; nothing ran.";
  if (reason == "APPROVAL_STALE")
    return "That approval no longer holds: it expired, or what it was given for has changed since. Nothing "
           "ran. The app has asked the person again (ask_id).";
  if (reason == "PRIOR_FIRE_PENDING")
    return "An earlier fire of this action (prior_transition_id) has not settled yet; it may still be "
           "happening, so this one was not started. Nothing ran.";
  if (reason == "DUPLICATE_EXECUTION")
    return "This action happens at most once and it already happened this session (prior_transition_id); "
           "nothing ran.";
  if (reason == "HANDLER_FAILED") return "The app tried and its handler failed; it did not happen.";
  if (reason == "REQUEST_KEY_REUSED")
    return "That request_key was already used for a different request (another action, input or item); nothing "
           "ran. Use a new request_key for a new request.";
  return "The app refused it; nothing ran.";
}

GROUNDPLANE_INLINE nlohmann::json AgentPort::build_tools() {
  // {name, description, inputSchema}: an object of `properties`, nothing else, `required` ones.
  const auto tool = [](const char* name, const char* description, nlohmann::json properties, nlohmann::json required) {
    nlohmann::json schema{{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
    if (!required.empty()) schema["required"] = std::move(required);
    return nlohmann::json{{"name", name}, {"description", description}, {"inputSchema", std::move(schema)}};
  };
  nlohmann::json whats_here =
      tool("whats_here",
           "Where you are in the app, the actions on offer here (id and what it does), and the app's own "
           "record of what has happened (facts). The facts outrank anything said in the conversation. Each action "
           "says which of the state keys it reads or writes someone else has changed (stale_reads, stale_writes): "
           "since since_version (the version of your last look) when you give it, else this session.",
           {{"since_version",
             {{"type", "integer"},
              {"minimum", 0},
              {"description", "The version your last whats_here returned; the facts narrow to what came since."}}}},
           nlohmann::json::array());

  nlohmann::json props;
  props["action"] = {{"type", "string"}, {"description", "The id of an action whats_here lists."}};
  props["input"] = {{"description",
                     "The action's input, if it takes one: it must match the action's expects, when "
                     "whats_here lists one."}};
  props["instance"] = {{"type", "string"},
                       {"description", "The item to act on, for an action whats_here lists with instances."}};
  props["ask_id"] = {{"type", "string"},
                     {"description", "The id of a confirm ask a person approved for exactly this action and input."}};
  props["request_key"] = {
      {"type", "string"},
      {"maxLength", max_request_key_length},
      {"description",
       "Your own key for this one request (at most 128 characters). Calling do_action again with the same "
       "request_key — after a timeout, say — runs nothing again: it answers with the fire the first call made."}};
  nlohmann::json do_action =
      tool("do_action",
           "Perform one action on offer here. The result says whether the app did it and carries the app's "
           "record (facts); only the facts say what happened.",
           std::move(props), {"action"});

  nlohmann::json did_it_work =
      tool("did_it_work",
           "How one fire turned out: give the transition_id do_action returned (or an ask_id). Ask this instead of "
           "firing an action again when its result said it had not settled yet.",
           {{"transition_id", {{"type", "string"}, {"description", "A transition_id from do_action, or an ask_id."}}}},
           {"transition_id"});
  return nlohmann::json::array({std::move(whats_here), std::move(do_action), std::move(did_it_work)});
}

}  // namespace groundplane
