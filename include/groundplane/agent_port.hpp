// gp::AgentPort — a Session served to a model as three tools: whats_here, do_action and
// did_it_work.
//
//   gp::AgentPort port(session);
//   port.tools();                                   // [whats_here, do_action, did_it_work], fixed bytes
//   port.call("whats_here", {});                    // {facts, actions, node, version}
//   port.call("do_action", {{"action", "cart.add"}, {"input", {{"sku", "A1"}}}});
//                                                   // {facts, ask_id?, message?, ok,
//                                                   //  reason?, transition_id?}
//   port.call("do_action", {{"action", "card.charge"}, {"request_key", "req-8f2"}});
//                                                   // the same again: the first call's fire,
//                                                   // replayed: true, nothing run again
//   port.call("did_it_work", {{"transition_id", "t-1"}});
//                                                   // {facts, ok, settled, did, line, data?}
//   port.whats_here(last_seen);                     // facts narrowed to a cursor
//
// Every result carries `facts` — the ground-truth block — first, so the record rides the
// calls a model makes anyway and is read before anything else in the result. A result is
// an AgentPort::Result: the JSON object to read (a nlohmann::json, whose keys sort), and
// dump(), its text with `facts` written first — the order is the writer's, so the library
// needs no second JSON type to keep it.
//
// What the port decides, and why:
// * Every attempt lands. A do_action naming an action whats_here serves — declared and
//   mounted now, enabled or not, already performed or not — always reaches
//   Session::fire and writes its row: a disabled one is refused TOOL_DISABLED, and that
//   refusal is a fact in the next block. Only a name whats_here does not serve is
//   answered by the port without a fire and without a row, since a name that matches
//   nothing was never something the session could act on: "UNKNOWN_ACTION" (never
//   declared this session; the name is not echoed) or "NOT_HERE" (declared earlier this
//   session, not mounted now).
// * Arguments never stop an attempt. Keys beyond the schema (`confirm`, `approved`, ...)
//   are ignored for dispatch and named in the result's `message`; an `ask_id` that is not
//   a string names no approval and is refused at the gate like any other. So a forged
//   {action, confirm: true} reaches the gate and lands as APPROVAL_REQUIRED.
// * What cannot name an action at all — arguments that are not an object, a missing or
//   non-string `action`, an unknown tool — is answered with ok = false, a reason
//   ("INVALID_ARGUMENTS", "UNKNOWN_TOOL") and a fixed message, and no row. call() never
//   throws for the model's input: the model cannot fix a C++ exception. An exception
//   thrown by an action's handler is the app's bug and propagates (the session has
//   recorded the failure first).
// * A retried request is answered once. do_action takes an optional `request_key` (a
//   string of at most 128 characters; anything else is INVALID_ARGUMENTS and fires
//   nothing, since a key the app could not honour would let the retry run twice). Once a
//   fire with it is recorded, a do_action with the same key and the same action, input
//   and instance runs nothing and writes no row: it answers with that fire as did_it_work
//   tells it now, `replayed: true` — even when the action is no longer on offer. The same
//   key with anything else lands as REQUEST_KEY_REUSED.
// * An APPROVAL_REQUIRED refusal mints (or finds) the human's confirm ask for exactly
//   that action and input and returns its ask_id, so the model can tell the person and
//   retry with it once they approve; so does APPROVAL_STALE (the yes no longer fits, so
//   the person is asked afresh). Approving, declining, revoking and standing grants are
//   never reachable here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json/deep_json.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/ground_truth.hpp"
#include "groundplane/session.hpp"

namespace groundplane {

struct AgentPortOptions {
  std::size_t max_attempts = 20;  // the facts block's cap in every result
};

class AgentPort {
 public:
  // A tool's result. Read it as the JSON object it is (json(), operator[], or a
  // const nlohmann::json& it converts to); send it as dump(), which writes `facts` first
  // and the other members after it in key order. json().dump() would sort `facts` among
  // the rest.
  class Result {
   public:
    explicit Result(nlohmann::json object) : object_(std::move(object)) {}

    const nlohmann::json& json() const noexcept { return object_; }
    operator const nlohmann::json&() const noexcept { return object_; }

    // The member, or null when the result has none (reason and ask_id come only with
    // some results).
    const nlohmann::json& operator[](std::string_view key) const;
    bool contains(std::string_view key) const { return object_.contains(key); }

    // The text, `facts` first; the arguments are nlohmann's dump()'s, with the same meaning.
    std::string dump(int indent = -1, char indent_char = ' ', bool ensure_ascii = false,
                     nlohmann::json::error_handler_t error_handler = nlohmann::json::error_handler_t::strict) const;

   private:
    nlohmann::json object_;
  };

  // A do_action ask_id or instance longer than this names no ask or item (the attempt
  // lands, naming none, and the message says so): minted ask ids are "ask-N", and a gap
  // row keeps what it was given, so megabytes of an id sent to be refused are not kept.
  static constexpr std::size_t max_id_bytes = 1024;

  explicit AgentPort(Session& session, AgentPortOptions options = {}) : session_(&session), options_(options) {}

  // The three tool definitions ({name, description, inputSchema}, as MCP's tools/list
  // carries them). Built once: the bytes never change between calls or ports.
  static const nlohmann::json& tools();

  Result call(std::string_view name, const nlohmann::json& args = nlohmann::json::object());

  // {facts, actions: [{id, does, enabled: false only when disabled,
  //  already_performed: true only for a `once` action that would be refused
  //  DUPLICATE_EXECUTION, expects: its declared input (a JSON Schema, or "none") only
  //  when it declares one}], in_doubt?, node, version}, written in that order (an action's
  //  own members in key order: already_performed, does, enabled, expects, id). in_doubt:
  //  the fires a restart left in doubt, [{transition_id, action, idempotency_key,
  //  instance?}], oldest first, at most 50 (then in_doubt_total says how many); absent
  //  when there are none.
  // Each action also carries stale_reads / stale_writes: its declared keys someone else
  // changed since since_version, or over the whole session without one (present only
  // when not empty). since_version narrows the facts (attempts at or after that version)
  // as Session::ground_truth does; a host that tracks a model's cursor passes it here.
  Result whats_here(std::optional<std::uint64_t> since_version = std::nullopt);

  // {action, input?, ask_id?, instance?, request_key?} -> {facts, ask_id?, data?,
  // data_omitted?, expects?, issues?, message?, ok, payload_omitted?, prior_transition_id?,
  // reason?, settle_with?, transition_id?}, written in that order. expects and issues come
  // with PAYLOAD_INVALID; data (or data_omitted: {bytes}) when the fire settled within the
  // call and its handler handed data back; settle_with ({tool: "did_it_work",
  // transition_id}) when it has not settled; payload_omitted ({bytes}) when a refusal kept
  // the input as its size only (nested past max_payload_depth, or past
  // SessionOptions::max_refused_payload_bytes); ask_id only when a person was asked (an
  // input the budget cannot keep is put before nobody, and the message says so). A null
  // input or ask_id is read as absent (many tool-calling models send null for an optional
  // argument they do not use). The input is copied without recursion, whatever its depth.
  // A request_key the session already answered returns that answer again (see Session::fire).
  Result do_action(const nlohmann::json& args);

  // {transition_id} -> {facts} and Session::outcome's answer for that id (a transition
  // or an ask).
  Result did_it_work(const nlohmann::json& args);

 private:
  std::string facts_text() const { return session_->ground_truth({.max_attempts = options_.max_attempts}).text; }

  Result answer(std::string_view reason, std::string message) const;

  // The INVALID_ARGUMENTS answer when `args` is not an object whose `key` is a non-empty
  // string (saying what the tool takes: `shape`); none when it is.
  std::optional<Result> invalid_arguments(const nlohmann::json& args, std::string_view key,
                                          std::string_view shape) const;

  static std::string_view refusal_message(std::string_view reason);

  // An action's stale keys and items, onto a whats_here item or a do_action answer.
  static void put_details(nlohmann::json& out, const detail::OfferDetails& d);

  static constexpr std::size_t max_instances_served = 50;  // an action's items in one answer, at most

  static nlohmann::json build_tools();

  // A retry answered with its first fire: as did_it_work tells it now, with the first
  // result's ok and reason, transition_id and replayed: true.
  Result replay_answer(const FireResult& r) const;

  static constexpr std::size_t max_in_doubt_served = 50;  // fires in doubt in one whats_here, at most

  // do_action's steps, in the order it takes them.
  static nlohmann::json input_of(const nlohmann::json& args);
  static std::optional<std::string> request_key_of(const nlohmann::json& args);
  static std::string instance_of(const nlohmann::json& args);
  std::optional<Result> refused_as_not_on_offer(const std::string& id) const;
  static std::string ignored_keys_note(const nlohmann::json& args);
  static std::string ask_id_of(const nlohmann::json& args, std::string& notes);
  static std::string instance_note(const nlohmann::json& args);
  std::string ask_a_person(const std::string& id, const nlohmann::json& args, const std::string& instance);
  // What do_action says beside the fire's own result.
  struct FireAnswerNotes {
    bool needs_a_person = false;  // refused for want of a person's approval
    std::string ask_id = {};      // the ask a person was sent; "" when none could be
    std::string notes = {};       // on arguments it did not act on
  };
  Result fire_answer(const std::string& id, const FireResult& r, const FireAnswerNotes& said) const;
  void put_settled_data(nlohmann::json& out, const FireResult& r) const;
  void put_refusal_details(nlohmann::json& out, const std::string& id, const FireResult& r) const;

  Session* session_;
  AgentPortOptions options_;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/agent_port-inl.hpp"
#endif
