// The bodies of ground_truth.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/ground_truth.hpp"

namespace groundplane {

namespace detail {
// `declared`: the action was declared when the row was minted (its `does` is known).
GROUNDPLANE_INLINE std::string rendered_action(const std::string& action, bool declared) {
  return declared ? escape(action) : std::string(unknown_action_text);
}
GROUNDPLANE_INLINE std::string rendered_action(const std::string& action, const std::optional<std::string>& does) {
  return rendered_action(action, does.has_value());
}

GROUNDPLANE_INLINE std::string transition_line(Principal principal, const std::string& action, bool declared,
                                               bool repeat, Outcome outcome) {
  const std::string who(to_string(principal));
  // A repeat of a single_flight / once action says so: "fired X again".
  const std::string x = rendered_action(action, declared) + (repeat ? " again" : "");
  switch (outcome) {
    case Outcome::observed:
      return "DID happen — " + who + " fired " + x + " (committed; declared effect observed)";
    case Outcome::not_observed:
      return "ran, but the declared effect was NOT observed — " + who + " fired " + x + " (committed)";
    case Outcome::unobservable:
      return "ran, but the effect was unobservable — " + who + " fired " + x + " (committed)";
    case Outcome::handler_failed:
      return "did NOT happen — " + who + " fired " + x + " (the app's handler failed)";
    case Outcome::not_materialized:
      return "did NOT happen — " + who + " fired " + x +
             " (nothing in this app is wired to perform it, so nothing ran)";
    case Outcome::verify_failed:
      return "did NOT happen — " + who + " fired " + x + " (the app's own verify check did not hold afterwards)";
    case Outcome::inferred:
      return "DID happen — " + who + " fired " + x + " (attributed by inference, not observed)";
    case Outcome::rejected:
      return "did NOT happen — " + who + " fired " + x + " (the app reported it failed)";
    case Outcome::stopped:
      return "not yet known — " + who + " fired " + x + " (the app stopped before reporting back)";
    case Outcome::confirmed:
      return "DID happen — " + who + " fired " + x + " (confirmed after a restart)";
    case Outcome::confirmed_by_person:
      return "DID happen — " + who + " fired " + x + " (confirmed by a person after a restart)";
    case Outcome::confirmed_not_run:
      return "did NOT happen — " + who + " fired " + x +
             " (it did not run before the app stopped; confirmed after a restart)";
    case Outcome::confirmed_not_run_by_person:
      return "did NOT happen — " + who + " fired " + x +
             " (it did not run before the app stopped; confirmed by a person after a restart)";
    case Outcome::confirmed_not_observed:
      return "ran, but the declared effect was NOT observed — " + who + " fired " + x + " (confirmed after a restart)";
    case Outcome::confirmed_not_observed_by_person:
      return "ran, but the declared effect was NOT observed — " + who + " fired " + x +
             " (confirmed by a person after a restart)";
    case Outcome::pending:
      break;
  }
  return "not yet known — " + who + " fired " + x + " (the app has not reported back yet)";
}

GROUNDPLANE_INLINE std::string gap_line(Principal principal, const std::string& action, bool declared, Refusal reason) {
  return "did NOT happen — " + std::string(to_string(principal)) + "'s fire of " + rendered_action(action, declared) +
         " was refused: " + std::string(to_string(reason));
}

GROUNDPLANE_INLINE std::string attempt_line(const TransitionRecord& t) {
  return transition_line(t.principal, t.action.str(), static_cast<bool>(t.does), t.repeat, t.outcome);
}
GROUNDPLANE_INLINE std::string attempt_line(const GapRecord& g) {
  return gap_line(g.principal, g.action.str(), static_cast<bool>(g.does), g.reason);
}
}  // namespace detail

GROUNDPLANE_INLINE std::string attempt_line(const Transition& t) {
  return detail::transition_line(t.cause.principal, t.cause.action, t.cause.does.has_value(), t.cause.repeat,
                                 t.outcome);
}

GROUNDPLANE_INLINE std::string attempt_line(const GapRow& g) {
  return detail::gap_line(g.principal, g.action, g.does.has_value(), g.reason);
}

namespace detail {

// 1. The header that makes the block a floor.
GROUNDPLANE_INLINE void put_header(std::vector<std::string>& lines) { lines.emplace_back(ground_truth_header); }

// 2. Where the user is.
GROUNDPLANE_INLINE void put_cursor(std::vector<std::string>& lines, const Ledger& ledger) {
  const std::string& node = ledger.node.str();
  lines.push_back("You are on: " + (node.empty() ? std::string("(no page set)") : escape(node)) + ".");
  if (!ledger.focus.empty()) lines.push_back("Focus: " + escape(ledger.focus) + ".");
}

// The newest `keep` attempts at or after (t_from, g_from), newest first. A transition
// closes its window, so on equal versions it is the newer of the two.
GROUNDPLANE_INLINE std::vector<std::string> newest_attempts(std::span<const TransitionRecord> ts,
                                                            std::span<const GapRecord> gs, std::size_t t_from,
                                                            std::size_t g_from, std::size_t keep, RenderProbe* probe) {
  const auto read = [&] {
    if (probe) ++probe->rows_read;
  };
  std::vector<std::string> newest_first;
  newest_first.reserve(keep);
  std::size_t i = ts.size(), j = gs.size();
  while (newest_first.size() < keep) {
    const bool have_t = i > t_from, have_g = j > g_from;
    bool take_t = have_t;
    if (have_t && have_g) {
      read();
      read();
      take_t = ts[i - 1].version >= gs[j - 1].version;
    }
    read();
    if (take_t) newest_first.push_back(attempt_line(ts[--i]));
    else newest_first.push_back(attempt_line(gs[--j]));
  }
  return newest_first;
}

// 3. The attempts, both ledgers merged by version (refusals before the transition that
//    closes their window). Under max_rows_in_memory only the newest attempts are held;
//    the dropped ones are all older (in this order) than every held one, and are
//    counted, never denied.
GROUNDPLANE_INLINE void put_attempts(std::vector<std::string>& lines, const Ledger& ledger,
                                     const GroundTruthOptions& opts, RenderProbe* probe,
                                     const AttemptCounter& count_since) {
  const std::span<const TransitionRecord> ts = ledger.transitions.held();
  const std::span<const GapRecord> gs = ledger.gaps.held();
  const std::size_t dropped = ledger.transitions.dropped() + ledger.gaps.dropped();
  const std::size_t total = dropped + ts.size() + gs.size();
  const std::uint64_t since = opts.since_version.value_or(0);
  const std::size_t t_from = opts.since_version ? first_at_or_after(ts, since, probe) : 0;
  const std::size_t g_from = opts.since_version ? first_at_or_after(gs, since, probe) : 0;
  const std::size_t held_in_range = (ts.size() - t_from) + (gs.size() - g_from);
  // A cursor at or before the newest dropped attempt reaches into what is not held: only
  // the store can count that stretch.
  const bool reaches_dropped = !opts.since_version || (dropped > 0 && since <= ledger.dropped_through);
  std::optional<std::size_t> in_range_known = dropped + held_in_range;
  if (opts.since_version && dropped > 0) {
    in_range_known =
        reaches_dropped ? (count_since ? count_since(since) : std::nullopt) : std::optional<std::size_t>(held_in_range);
  }
  const std::size_t in_range = in_range_known.value_or(held_in_range);
  const std::string v = std::to_string(ledger.version);
  if (total == 0) {
    lines.emplace_back(no_actions_text);
    return;
  }
  if (in_range == 0) {  // never the session-wide sentence: that would deny what the cursor hides
    lines.push_back("No actions have been performed since version " + std::to_string(since) + " — " +
                    std::to_string(total - in_range) + " earlier attempt(s) this session are not listed.");
    return;
  }
  lines.push_back(opts.since_version ? "Attempts since version " + std::to_string(since) + " (now " + v + "):"
                                     : "Attempts so far (version " + v + "):");
  const std::size_t keep = std::min({in_range, opts.max_attempts, held_in_range});
  if (!in_range_known) {
    // No store: the dropped attempts are gone, so how many came since the cursor is not known.
    lines.push_back(
        "  … " + std::to_string(dropped) +
        " earlier attempt(s) of this session are no longer held, so attempts since version " + std::to_string(since) +
        " older than the ones below are not listed" +
        (held_in_range > keep ? " (nor " + std::to_string(held_in_range - keep) + " more held ones)" : std::string()) +
        ".");
  } else if (in_range > keep) {
    const std::size_t gone = reaches_dropped && !count_since ? std::min(dropped, in_range - keep) : 0;
    lines.push_back("  … " + std::to_string(in_range - keep) + " earlier attempt(s) omitted" +
                    (gone > 0 ? " (" + std::to_string(gone) + " of them no longer held by the app)" : std::string()) +
                    ".");
  }
  const auto newest_first = newest_attempts(ts, gs, t_from, g_from, keep, probe);
  for (auto it = newest_first.rbegin(); it != newest_first.rend(); ++it)
    lines.push_back(std::string(attempt_bullet) + *it);
}

// 4. Where each human decision stands: awaiting cards capped (oldest kept), answered
//    ones never capped, then standing grants.
GROUNDPLANE_INLINE void put_decisions(std::vector<std::string>& lines, const Ledger& ledger,
                                      const GroundTruthOptions& opts, RenderProbe* probe,
                                      const std::function<bool(std::size_t)>& stale) {
  const auto read = [&] {
    if (probe) ++probe->rows_read;
  };
  std::size_t shown = 0;
  for (const std::size_t k : ledger.awaiting_asks) {
    if (shown == opts.max_attempts) break;
    read();
    const AskStatus& a = ledger.asks[k];
    lines.push_back("Awaiting the human's decision: " + rendered_action(a.action, a.does) + " (" + escape(a.id) + ").");
    ++shown;
  }
  if (ledger.awaiting_asks.size() > shown)
    lines.push_back("  … " + std::to_string(ledger.awaiting_asks.size() - shown) +
                    " more await the human's decision, not listed.");
  for (const std::size_t k : ledger.answered_asks) {
    read();
    const AskStatus& a = ledger.asks[k];
    const std::string tail = rendered_action(a.action, a.does) + " (" + escape(a.id) + ").";
    if (a.state == AskState::approved && stale && stale(k))
      lines.push_back("Approved by the human, but stale now: " + tail);
    else if (a.state == AskState::approved) lines.push_back("Approved by the human, not yet done: " + tail);
    else if (a.state == AskState::declined) lines.push_back("The human declined: " + tail);
    else if (a.state == AskState::revoked) lines.push_back("The human withdrew approval: " + tail);
  }
  for (const StandingGrant& g : ledger.standing) {
    read();
    const std::string x = rendered_action(g.action, g.does);
    lines.push_back(g.active ? "The human allows " + x + " without asking, this session."
                             : "The human withdrew standing approval: " + x + ".");
  }
}

// 4b. The choices that are the person's, not known made: capped, the rest counted. Only
//     the action's id is rendered (its `about` is the app's data).
GROUNDPLANE_INLINE void put_human_choices(std::vector<std::string>& lines, std::span<const std::string> actions,
                                          const GroundTruthOptions& opts) {
  const std::size_t shown = std::min(actions.size(), opts.max_attempts);
  for (std::size_t i = 0; i < shown; ++i)
    lines.push_back("A decision is with the human: " + escape(actions[i]) +
                    " — the agent presents options and does not make it.");
  if (actions.size() > shown)
    lines.push_back("  … " + std::to_string(actions.size() - shown) + " more decisions are the human's, not listed.");
}

// 5. What the app has not answered: each action once, at most max_attempts of them.
GROUNDPLANE_INLINE void put_unanswered(std::vector<std::string>& lines, const Ledger& ledger,
                                       const GroundTruthOptions& opts, RenderProbe* probe) {
  if (!ledger.awaiting_by_action.empty()) {
    const auto name = [&](std::size_t k) {
      const TransitionRecord& t = ledger.transitions[k];
      return rendered_action(t.action.str(), static_cast<bool>(t.does));
    };
    lines.push_back("Awaiting the app's report: " +
                    grouped_names(ledger.awaiting_by_action, opts.max_attempts, "fires", name, probe) + ".");
  }
  if (!ledger.working_by_action.empty()) {
    const auto name = [&](std::size_t k) { return rendered_action(ledger.work[k].action, ledger.work[k].does); };
    lines.push_back("The app is still working on: " +
                    grouped_names(ledger.working_by_action, opts.max_attempts, "tasks", name, probe) + ".");
  }
  if (ledger.open_work.size() > ledger.working_by_action.rows()) lines.emplace_back(unbound_work_text);
  if (ledger.actions_may_be_stale) lines.emplace_back(stale_actions_text);
}

GROUNDPLANE_INLINE GroundTruth render_ground_truth(const Ledger& ledger, const GroundTruthOptions& opts,
                                                   RenderProbe* probe, const std::function<bool(std::size_t)>& stale,
                                                   const AttemptCounter& count_since,
                                                   std::span<const std::string> human_decides) {
  std::vector<std::string> lines;
  put_header(lines);
  put_cursor(lines, ledger);
  put_attempts(lines, ledger, opts, probe, count_since);
  put_decisions(lines, ledger, opts, probe, stale);
  put_human_choices(lines, human_decides, opts);
  put_unanswered(lines, ledger, opts, probe);
  std::string text;
  for (const auto& l : lines) {
    if (!text.empty()) text += '\n';
    text += l;
  }
  return GroundTruth{ledger.node.str(), ledger.version, std::move(text)};
}
}  // namespace detail

}  // namespace groundplane
