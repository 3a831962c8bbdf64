// The bodies of actions_performed.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/detail/text/wording.hpp"

namespace groundplane {

GROUNDPLANE_INLINE std::string actions_performed::name() const {
  return std::string(check_name) + "(fact=" + detail::quote(fact) + ", field=" + detail::quote(field) + ")";
}

GROUNDPLANE_INLINE void actions_performed::validate(const FactRegistry& registry) const {
  const Table& t = detail::fact_for<Table>(registry, fact, check_name);
  detail::validate_field(field, check_name, "field");
  if (!detail::columns_known(t)) return;  // empty, and recorded with no columns listed
  for (const char* column : {"action", "outcome"})
    if (!t.column_of(column))
      throw ConfigurationError(std::string(check_name) + ": fact " + detail::quote(fact) + " has no column " +
                               detail::quote(column) + "; record it with gp::record_ledger");
}

GROUNDPLANE_INLINE void actions_performed::describe(const FactRegistry& registry, SchemaBuilder& schema) const {
  const Table& t = registry.get<Table>(fact);
  std::vector<std::string> did;
  const auto action_col = t.column_of("action");
  const auto outcome_col = t.column_of("outcome");
  for (std::size_t r = 0; action_col && outcome_col && r < t.row_count(); ++r) {
    const auto action = t.text(r, *action_col);
    if (action && happened(t.text(r, *outcome_col)) && std::find(did.begin(), did.end(), *action) == did.end())
      did.emplace_back(*action);
  }
  schema.add(field,
             nlohmann::json{{"type", "array"},
                            {"items", SchemaBuilder::name_schema(did, "actions the ledger says DID happen")}},
             true);
}

GROUNDPLANE_INLINE void actions_performed::verify(const FactRegistry& registry, const nlohmann::json& output,
                                                  std::vector<Finding>& findings) const {
  using Kind = detail::ActionClaim::Kind;
  const Table& t = registry.get<Table>(fact);
  const nlohmann::json* said = detail::find_field(output, field);
  detail::ActionClaim claim;
  claim.said = said;
  if (said == nullptr || (!said->is_string() && !said->is_array())) {
    claim.kind = said == nullptr ? Kind::missing_field : Kind::wrong_shape;
    findings.push_back(detail::action_finding(*this, t, claim));
    return;
  }
  const Ledger ledger = read_ledger(t);
  if (said->is_array()) {
    verify_items(t, ledger, *said, findings);
    return;
  }
  if (supported(ledger, *said)) return;
  claim = classify(t, ledger, *said);
  findings.push_back(detail::action_finding(*this, t, claim));
}

GROUNDPLANE_INLINE void actions_performed::verify_items(const Table& t, const Ledger& ledger,
                                                        const nlohmann::json& said,
                                                        std::vector<Finding>& findings) const {
  // Each item costs one lookup; a finding is built only for the first max_listed that
  // are unsupported, and the rest are counted in one.
  std::size_t listed = 0;
  std::size_t unlisted = 0;
  for (std::size_t k = 0; k < said.size(); ++k) {
    const nlohmann::json& claimed = said[k];
    if (supported(ledger, claimed)) continue;
    if (listed == max_listed) {
      ++unlisted;
      continue;
    }
    ++listed;
    detail::ActionClaim claim = classify(t, ledger, claimed);
    claim.in_array = true;
    claim.item = k;
    findings.push_back(detail::action_finding(*this, t, claim));
  }
  if (unlisted > 0) {
    detail::ActionClaim more;
    more.kind = detail::ActionClaim::Kind::more;
    more.unlisted = unlisted;
    findings.push_back(detail::action_finding(*this, t, more));
  }
}

GROUNDPLANE_INLINE bool actions_performed::happened(const std::optional<std::string_view>& outcome) {
  return outcome && outcome->substr(0, 10) == "DID happen";
}

GROUNDPLANE_INLINE actions_performed::Ledger actions_performed::read_ledger(const Table& t) {
  Ledger ledger;
  const auto action_col = t.column_of("action");
  const auto outcome_col = t.column_of("outcome");
  for (std::size_t r = 0; action_col && r < t.row_count(); ++r) {
    const auto action = t.text(r, *action_col);
    if (!action) continue;
    const auto [at, added] = ledger.index.try_emplace(*action, ledger.records.size());
    if (added) ledger.records.emplace_back();
    Record& record = ledger.records[at->second];
    const auto outcome = outcome_col ? t.text(r, *outcome_col) : std::nullopt;
    if (happened(outcome)) record.happened = true;
    ++record.attempts;
    record.latest = outcome.value_or(std::string_view());
  }
  return ledger;
}

GROUNDPLANE_INLINE bool actions_performed::supported(const Ledger& ledger, const nlohmann::json& claim) {
  if (!claim.is_string()) return false;
  const Record* record = ledger.find(claim.get_ref<const std::string&>());
  return record != nullptr && record->happened;
}

GROUNDPLANE_INLINE detail::ActionClaim actions_performed::classify(const Table& t, const Ledger& ledger,
                                                                   const nlohmann::json& claim) {
  using Kind = detail::ActionClaim::Kind;
  detail::ActionClaim found;
  found.said = &claim;
  if (!claim.is_string()) {
    found.kind = Kind::not_an_id;
    return found;
  }
  const Record* record = ledger.find(claim.get_ref<const std::string&>());
  found.attempts = record == nullptr ? 0 : record->attempts;
  if (!t.complete()) {
    // The older attempts are not in the table: one of them may have happened.
    found.kind = Kind::partial_ledger;
  } else if (found.attempts == 0) {
    // Not "no attempt": a fire of a name the app did not have is in the ledger under
    // the constant, so all that can be said truthfully is that no row names it.
    found.kind = Kind::never_named;
  } else {
    found.kind = Kind::not_happened;
    found.latest = record->latest;
  }
  return found;
}

namespace detail {

GROUNDPLANE_INLINE Finding action_finding(const actions_performed& check, const Table& t, const ActionClaim& claim) {
  using Kind = ActionClaim::Kind;
  // An item's place as a pointer, built only here: a supported action costs no string.
  const auto item_at = [&] {
    const std::string& field = check.field;
    const std::string base = !field.empty() && field.front() == '/' ? field : "/" + pointer_token(field);
    return base + "/" + std::to_string(claim.item);
  };
  Finding f = finding_about(actions_performed::check_name, claim.in_array ? item_at() : check.field, t);
  if (claim.kind == Kind::missing_field) {
    f.detail = "the output does not say which actions were performed; give [] when none were";
    return f;
  }
  if (claim.kind == Kind::more) {
    f.said = group_thousands(claim.unlisted) + " more";
    f.detail = "... and " + group_thousands(claim.unlisted) + " more action(s) in " + quote(check.field) +
               " that the ledger does not show DID happen (the first " + std::to_string(actions_performed::max_listed) +
               " are listed)";
    return f;
  }
  f.said = detail::render(*claim.said);
  switch (claim.kind) {
    case Kind::wrong_shape:
      f.detail = "expected an action id or an array of them, got " + std::string(type_name(*claim.said));
      break;
    case Kind::not_an_id:
      f.detail = "expected an action id (a string), got " + std::string(type_name(*claim.said));
      break;
    case Kind::partial_ledger:
      f.detail = "the recorded ledger holds only the newest " + std::to_string(t.row_count()) + " of the session's " +
                 std::to_string(*t.total_rows()) + " attempts and none of them shows " + f.said +
                 " DID happen; whether an older one did is not in it";
      break;
    case Kind::never_named:
      f.detail = "no row of the ledger names " + f.said + ": nothing by that name DID happen in this session";
      break;
    default:  // not_happened
      f.detail = "the ledger's line for it: " + escape_rendered(claim.latest, 240);
      if (claim.attempts > 1)
        f.detail += " (the latest of " + std::to_string(claim.attempts) + " attempts; none DID happen)";
      break;
  }
  return f;
}

}  // namespace detail

}  // namespace groundplane
