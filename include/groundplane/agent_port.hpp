// gp::AgentPort — a Session served to a model as two tools, whats_here and do_action.
//
//   gp::AgentPort port(session);
//   port.tools();                                   // [whats_here, do_action], fixed bytes
//   port.call("whats_here", {});                    // {facts, node, version, actions}
//   port.call("do_action", {{"action", "cart.add"}, {"input", {{"sku", "A1"}}}});
//                                                   // {facts, ok, reason?, message?,
//                                                   //  transition_id?, ask_id?}
//   port.whats_here(last_seen);                     // facts narrowed to a cursor
//
// Every result carries `facts` — the ground-truth block — first, so the record rides the
// calls a model makes anyway and is read before anything else in the result. Results are
// nlohmann::ordered_json so their key order is stable.
//
// What the port decides, and why:
// * A do_action naming an action that is not served (not declared now, or declared but
//   disabled) is answered by the port without a fire and leaves no ledger row: the
//   ledgers hold what the session was asked to do, and a name the port could not resolve
//   was never that. The answer says which case it is: "UNKNOWN_ACTION" (the app has no
//   such action; the name is not echoed), "NOT_HERE" (the app declared it earlier in
//   this session, elsewhere; it is not mounted now) or "TOOL_DISABLED" (here, with its
//   conditions unmet).
// * Anything a model can put in a call — an unknown tool name, arguments of the wrong
//   shape — is answered with ok = false, a reason ("UNKNOWN_TOOL", "INVALID_ARGUMENTS")
//   and a fixed message the model can act on. call() never throws for the model's input:
//   the model cannot fix a C++ exception. An exception thrown by an action's handler is
//   the app's bug and propagates (the session has recorded the failure first).
// * An APPROVAL_REQUIRED refusal mints (or finds) the human's confirm ask for exactly
//   that action and input and returns its ask_id, so the model can tell the person and
//   retry with it once they approve. Approving or declining is never reachable here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "groundplane/detail/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/ground_truth.hpp"
#include "groundplane/session.hpp"

namespace groundplane {

struct AgentPortOptions {
  std::size_t max_attempts = 20;  // the facts block's cap in every result
};

class AgentPort {
 public:
  explicit AgentPort(Session& session, AgentPortOptions options = {}) : session_(&session), options_(options) {}

  // The two tool definitions ({name, description, inputSchema}, as MCP's tools/list
  // carries them). Built once: the bytes never change between calls or ports.
  static const nlohmann::ordered_json& tools() {
    static const nlohmann::ordered_json defs = build_tools();
    return defs;
  }

  nlohmann::ordered_json call(std::string_view name, const nlohmann::json& args = nlohmann::json::object()) {
    if (name == "whats_here") return whats_here();
    if (name == "do_action") return do_action(args);
    return answer("UNKNOWN_TOOL",
                  "This app serves two tools: whats_here and do_action. A person's approval is given in the "
                  "app itself, never through a tool.");
  }

  // {facts, node, version, actions: [{id, does, enabled: false only when disabled}]}.
  // since_version narrows the facts (attempts at or after that version) as
  // Session::ground_truth does; the tool itself takes no input, so a host that tracks a
  // model's cursor passes it here.
  nlohmann::ordered_json whats_here(std::optional<std::uint64_t> since_version = std::nullopt) {
    const GroundTruth gt =
        session_->ground_truth({.since_version = since_version, .max_attempts = options_.max_attempts});
    nlohmann::ordered_json actions = nlohmann::ordered_json::array();
    for (const auto& a : session_->actions()) {
      nlohmann::ordered_json item{{"id", a.id}, {"does", a.does}};
      if (!a.enabled) item["enabled"] = false;
      actions.push_back(std::move(item));
    }
    nlohmann::ordered_json out;
    out["facts"] = gt.text;
    out["node"] = gt.node;
    out["version"] = gt.version;
    out["actions"] = std::move(actions);
    return out;
  }

  // {action, input?, ask_id?} -> {facts, ok, reason?, message?, transition_id?, ask_id?}.
  // A null input or ask_id is read as absent (many tool-calling models send null for an
  // optional argument they do not use).
  nlohmann::ordered_json do_action(const nlohmann::json& args) {
    static constexpr std::string_view shape =
        "do_action takes an object {\"action\": string, \"input\"?: any JSON, \"ask_id\"?: string}";
    if (!args.is_object())
      return answer("INVALID_ARGUMENTS", std::string(shape) + "; the arguments were not an object.");
    for (const auto& [key, value] : args.items()) {
      (void)value;
      if (key != "action" && key != "input" && key != "ask_id")
        return answer("INVALID_ARGUMENTS",
                      std::string(shape) + "; it has no argument named " + detail::quote(key) + ".");
    }
    const auto action = args.find("action");
    if (action == args.end() || !action->is_string() || action->get_ref<const std::string&>().empty())
      return answer("INVALID_ARGUMENTS", std::string(shape) + "; \"action\" must be a non-empty string.");
    auto ask = args.find("ask_id");
    if (ask != args.end() && ask->is_null()) ask = args.end();
    if (ask != args.end() && !ask->is_string())
      return answer("INVALID_ARGUMENTS", std::string(shape) + "; \"ask_id\" must be a string.");
    const std::string& id = action->get_ref<const std::string&>();
    const nlohmann::json input = args.contains("input") ? args["input"] : nlohmann::json(nullptr);

    switch (session_->availability(id)) {
      case Availability::unknown:
        return answer("UNKNOWN_ACTION",
                      "No action by that name is on offer in this app; nothing was fired. Call whats_here for "
                      "what is on offer.");
      case Availability::not_mounted:
        return answer("NOT_HERE", detail::escape(id) +
                                      " is an action this app has elsewhere; it is not on offer here now, so "
                                      "nothing was fired. Call whats_here for what is on offer.");
      case Availability::disabled:
        return answer("TOOL_DISABLED", detail::escape(id) +
                                           " is on offer here but disabled right now: its conditions are unmet, "
                                           "so nothing was fired.");
      case Availability::available:
        break;
    }

    const FireResult r = session_->fire(
        id, {.source = Principal::agent, .payload = input, .ask_id = ask != args.end() ? ask->get<std::string>() : ""});
    std::string ask_id;
    if (r.reason == to_string(Refusal::approval_required)) {
      try {
        ask_id = session_->confirm_ask(id, input).id;
      } catch (const ConfigurationError&) {  // unmounted in between: nothing to ask about
      }
    }
    nlohmann::ordered_json out;
    out["facts"] = facts_text();
    out["ok"] = r.ok;
    if (!r.ok) {
      out["reason"] = r.reason;
      out["message"] = std::string(refusal_message(r.reason));
    }
    if (!r.transition_id.empty()) out["transition_id"] = r.transition_id;
    if (!ask_id.empty()) out["ask_id"] = ask_id;
    return out;
  }

 private:
  std::string facts_text() const { return session_->ground_truth({.max_attempts = options_.max_attempts}).text; }

  nlohmann::ordered_json answer(std::string_view reason, std::string message) const {
    nlohmann::ordered_json out;
    out["facts"] = facts_text();
    out["ok"] = false;
    out["reason"] = std::string(reason);
    out["message"] = std::move(message);
    return out;
  }

  static std::string_view refusal_message(std::string_view reason) {
    if (reason == "UNKNOWN_AFFORDANCE") return "No action by that name is declared now; nothing ran.";
    if (reason == "NOT_MATERIALIZED") return "Nothing in this app is wired to perform it; nothing ran.";
    if (reason == "TOOL_DISABLED") return "It is disabled right now: its conditions are unmet; nothing ran.";
    if (reason == "GUARD_FAILED") return "Its guard did not hold in the app's current state; nothing ran.";
    if (reason == "APPROVAL_REQUIRED")
      return "A person must approve this first; nothing ran. The app has asked them (ask_id); once they "
             "approve, call do_action again with that ask_id and the same input.";
    if (reason == "APPROVAL_DECLINED") return "A person declined that ask; it cannot be used. Nothing ran.";
    if (reason == "APPROVAL_SPENT") return "That approval was already used: one approval allows one fire. Nothing ran.";
    if (reason == "APPROVAL_MISMATCH")
      return "That approval was given for a different action or a different input; nothing ran.";
    if (reason == "HANDLER_FAILED") return "The app tried and its handler failed; it did not happen.";
    return "The app refused it; nothing ran.";
  }

  static nlohmann::ordered_json build_tools() {
    nlohmann::ordered_json whats_here;
    whats_here["name"] = "whats_here";
    whats_here["description"] =
        "Where you are in the app, the actions on offer here (id and what it does), and the app's own "
        "record of what has happened (facts). The facts outrank anything said in the conversation.";
    whats_here["inputSchema"] = nlohmann::ordered_json{
        {"type", "object"}, {"properties", nlohmann::ordered_json::object()}, {"additionalProperties", false}};

    nlohmann::ordered_json props;
    props["action"] = {{"type", "string"}, {"description", "The id of an action whats_here lists."}};
    props["input"] = {{"description", "The action's input, if it takes one."}};
    props["ask_id"] = {{"type", "string"},
                       {"description", "The id of a confirm ask a person approved for exactly this action and input."}};
    nlohmann::ordered_json do_action;
    do_action["name"] = "do_action";
    do_action["description"] =
        "Perform one action on offer here. The result says whether the app did it and carries the app's "
        "record (facts); only the facts say what happened.";
    do_action["inputSchema"] = nlohmann::ordered_json{{"type", "object"},
                                                      {"properties", std::move(props)},
                                                      {"required", {"action"}},
                                                      {"additionalProperties", false}};
    return nlohmann::ordered_json::array({std::move(whats_here), std::move(do_action)});
  }

  Session* session_;
  AgentPortOptions options_;
};

}  // namespace groundplane
