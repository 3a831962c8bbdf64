// gp::record_action_data: what an action handed back (HandlerResult::data) as a Fact,
// so a model's claims about what the action returned are checked like any tool result.
//
//   const auto r = session.fire("checkout.quote", {.payload = {{"sku", "A1"}}});
//   gp::record_action_data(registry, "quote", session, r.transition_id);
//   // Fact 'quote', provenance checkout.quote(transition='t-7')
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/session.hpp"

namespace groundplane {

// Records the data of the fire `transition_id` under `name`. The fire must be one the
// session holds in memory whose handler succeeded with data kept (at most
// SessionOptions::max_data_bytes): anything else is a ConfigurationError saying which,
// since it is the app, not the model, that names the fire here.
inline const Fact& record_action_data(FactRegistry& registry, std::string name, const Session& session,
                                      std::string_view transition_id) {
  const auto fail = [&](std::string_view why) {
    return ConfigurationError("gp::record_action_data(" + detail::quote(name) + ", " + detail::quote(transition_id) +
                              "): " + std::string(why));
  };
  std::string action;
  {
    const auto view = session.view();
    const auto t = view.transition(transition_id);
    if (!t) throw fail("the session holds no such transition (never recorded, or let go of by max_rows_in_memory)");
    action = t->cause.action;
  }
  const nlohmann::json answer = session.outcome(transition_id);
  if (answer.contains("data_omitted"))
    throw fail("its data was over SessionOptions::max_data_bytes, so it was not kept");
  const auto data = answer.find("data");
  if (data == answer.end())
    throw fail("it has no data: its handler returned none or failed, or the fire has not settled yet");
  return registry.record_fact(std::move(name), *data,
                              {.tool = std::move(action), .args = {{"transition", std::string(transition_id)}}});
}

}  // namespace groundplane
