// The body of ledger_fact.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/ledger_fact.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/ground_truth.hpp"

namespace groundplane {

GROUNDPLANE_INLINE const Table& record_ledger(FactRegistry& registry, std::string name, const Session& session) {
  nlohmann::json rows = nlohmann::json::array();
  std::uint64_t version = 0;
  std::optional<std::size_t> total;
  {
    const auto view = session.view();
    version = view.version();
    // Under max_rows_in_memory the oldest attempts are not held: the table says how many
    // the session had, so a check never reads the newest rows as the whole ledger.
    if (view.attempts() > view.held_attempts()) total = view.attempts();
    // The compact rows, read directly: a whole Transition would copy its payload and texts.
    const auto ts = view.transitions().records();
    const auto gs = view.gap_rows().records();
    const auto row = [](const std::string& action, bool declared, Principal p, std::string line, std::uint64_t v) {
      return nlohmann::json{{"action", declared ? action : std::string(unknown_action_text)},
                            {"principal", std::string(to_string(p))},
                            {"outcome", std::move(line)},
                            {"version", v}};
    };
    std::size_t i = 0, j = 0;
    while (i < ts.size() || j < gs.size()) {
      // within a version window the refusals come before the transition that closes it
      if (j < gs.size() && (i == ts.size() || gs[j].version <= ts[i].version)) {
        const detail::GapRecord& g = gs[j++];
        rows.push_back(row(g.action.str(), static_cast<bool>(g.does), g.principal, detail::attempt_line(g), g.version));
      } else {
        const detail::TransitionRecord& t = ts[i++];
        rows.push_back(row(t.action.str(), static_cast<bool>(t.does), t.principal, detail::attempt_line(t), t.version));
      }
    }
  }
  return registry.record_table(std::move(name), rows,
                               {.total_rows = total,
                                .tool = "session.ledger",
                                .args = {{"version", version}},
                                .columns = {"action", "principal", "outcome", "version"}});
}

}  // namespace groundplane
